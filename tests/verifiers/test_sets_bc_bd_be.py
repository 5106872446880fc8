"""The classes blind sets BC (GRPO rollouts, small models on GSM8K), BD (MMLU-Pro business, chemistry and
engineering with ten options; probes on units and scientific notation), BE (Japanese answers, probes in eight
languages) BF (Omni-MATH, MMLU-Pro two-statement items), BG (JSON replies, MathQA options) and BH (GSM8K logs, few-shot
leakage) found, each as the set wrote it and a variant. Every case here that a fix made pass failed before it
(BC, BD measured on e87a321, BE on bcf51e1, BF on a123160, BG on 250edf0, BH on 5de4e33); the others are the controls beside them."""

from __future__ import annotations

import pytest

import verifiers

TAPE = (
    "What is the net cost of a tape recorder whose list price is $32 and on which the discount rate is 30%?\n"
    "Options:\nA. $20.00\nB. $30.00\nC. $18.40\nD. $24.00\nE. $32.00\nF. $22.40\nG. $9.60\nH. $10.00\nI. $26.40\n"
    "J. $28.00"
)
MURPHY = (
    "Paul Murphy wants to have $10,000 in his account after 10 years. If interest is compounded annually at 4%, how "
    "much should Mr. Murphy invest now?\nOptions:\nA. $7,000.00\nB. $8,000.00\nC. $6,500.00\nD. $6,000.00\n"
    "E. $7,500.00\nF. $6,756.00\nG. $6,300.00\nH. $7,800.00\nI. $7,250.00\nJ. $6,900.00"
)
TORRES = (
    "Mr. Torres owns 350 shares of Krescostock paying a quarterly dividend of $1.20 per share, with an extra "
    "year-end dividend of $.30 per share. What was his total income from the stock for the year?\nOptions:\n"
    "A. $1,920\nB. $1,710\nC. $1,470\nD. $1,680\nE. $1,595\nF. $1,260\nG. $1,890\nH. $1,785\nI. $2,000\nJ. $1,650"
)
CAR = (
    "Steven Moore purchased a new car for $3,462.20, including taxes and all other charges. He wishes to pay for it "
    "in 35 months. Find his monthly payments.\nOptions:\nA. $100.20\nB. $102.55\nC. $110.35\nD. $95.46\nE. $98.92\n"
    "F. $96.06\nG. $107.49\nH. $105.23\nI. $89.78\nJ. $93.20"
)
ACID = (
    "The density of concentrated sulfuric acid is 1.85 g/ml. What volume of the acid would weigh 74.0 g?\nOptions:\n"
    "A. 45.0 ml\nB. 50.0 ml\nC. 37.0 ml\nD. 75.0 ml\nE. 20.0 ml\nF. 65.0 ml\nG. 70.0 ml\nH. 55.0 ml\nI. 60.0 ml\n"
    "J. 40.0 ml"
)
SCI = (
    "Express [(6,400,000 ) / (400)] in scientific notation\nOptions:\nA. 6.4 × 10^4\nB. 4 × 10^4\nC. 6.4 × 10^3\n"
    "D. 4 × 10^6\nE. 1.6 × 10^5\nF. 1.6 × 10^6\nG. 4 × 10^5\nH. 1.6 × 10^3\nI. 1.6 × 10^4\nJ. 6.4 × 10^5"
)
ORDER = (
    "Under certain conditions, the rate equation for the formation ofwater 2H_2 + O_2 = 2H_2O isgiven by rate= k "
    "[H_2]^2 [H_2O] wherek is the rate constant. What is the overall order ofthis rateequation?\nOptions:\n"
    "A. second order overall\nB. third order overall\nC. zero order overall\nD. first order overall\n"
    "E. fifth order overall\nF. sixth order overall\nG. fourth order overall"
)
TAX = (
    "The tax rate in the town of Centerville is 11(1 / 2)%. If a tax of $1,794 was paid on a piece of property and "
    "the assessment rate in Centerville is 30%, what is the expected market value of the property?\nOptions:\n"
    "A. $60,000\nB. $43,200\nC. $1,794\nD. $25,000\nE. $30,000\nF. $39,780\nG. $48,000\nH. $15,600\nI. $52,000\n"
    "J. $21,000"
)
FLOWERS = (
    "Mark has a garden with flowers. He planted plants of three different colors in it. Ten of them are yellow, and "
    "there are 80% more of those in purple. There are only 25% as many green flowers as there are yellow and purple "
    "flowers. How many flowers does Mark have in his garden?"
)
HOUSE = (
    "Josh decides to try flipping a house.  He buys a house for $80,000 and then puts in $50,000 in repairs.  This "
    "increased the value of the house by 150%.  How much profit did he make?"
)


@pytest.fixture(scope="module", autouse=True)
def _warm():
    verifiers.warmup()


def _eq(pred: str, gold: str, question: str) -> bool:
    return verifiers.check(pred, gold, timeout=5, question=question).equivalent


@pytest.mark.parametrize(
    ("pred", "gold", "question"),
    [
        # answer lines naming different letters one after another: candidates, not an answer (bd-007)
        (
            "The answer is (F)  \nThe answer is (D)  \nThe answer is (A)  \nThe answer is (G)  \nThe answer is (J)",
            "J",
            TAPE,
        ),
        ("The answer is (B)\nThe answer is (F)", "F", TAPE),
        # a percent is not an option's amount of money (bd-166)
        ("Net cost: 22.40%", "F", TAPE),
        # a value beside another option's letter (bd-170): options run to J
        ("Answer: $6,756 (option H).", "F", MURPHY),
        # another period than the one asked (bd-194, bd-207)
        ("His total income was $1,785 per quarter.", "H", TORRES),
        ("$98.92 per year", "E", CAR),
        # a unit of another size than the option's (bd-224)
        ("The volume is 40.0 L.", "J", ACID),
        # `in scientific notation` is a demanded form (bd-230, bd-231)
        ("16,000", "I", SCI),
        ("16 \\times 10^{3}", "I", SCI),
        # a percent where a count is asked, against a GSM8K solution gold (bc-237)
        (
            "Yellow 10, purple 18, green 7: the garden has \\boxed{35\\%}.",
            "Mark has 28 + 7 = <<28+7=35>>35 plants in his garden.\n#### 35",
            FLOWERS,
        ),
    ],
)
def test_not_equal(pred, gold, question):
    assert not _eq(pred, gold, question)


@pytest.mark.parametrize(
    ("pred", "gold", "question"),
    [
        ("The answer is (J)", "J", TAPE),  # one answer line: still the answer
        ("The answer is (D)\nThe answer is (D)", "D", TAPE),  # the same letter twice is no hedge
        ("Net cost: $22.40", "F", TAPE),
        ("Answer: $6,756 (option F).", "F", MURPHY),
        ("His total income was $1,785 for the year.", "H", TORRES),
        ("The volume is 40.0 ml.", "J", ACID),
        ("1.6 \\times 10^{4}", "I", SCI),
        # a number stated beside a letter whose option is words is no conflict (bd-133)
        (
            "To find the overall order, we add the exponents: 2 (for [H_2]) + 1 (for [H_2O]) = 3.\n\nTherefore, the "
            "overall order of the rate equation is 3.\n\nThe answer is (B).",
            "B",
            ORDER,
        ),
        # a sentence after the letter, read by its one number (bd-165)
        ("La respuesta es (F): el costo neto es $22,40.", "F", TAPE),
        # a unit word after scientific notation is no undone operation (bd-172)
        (
            "Assessed value = 1794/0.115 = $15,600; market value = 15,600/0.30 = 5.2 × 10^4 dollars.",
            "I",
            TAX,
        ),
        # a one-line response that is one sentence commits to its number (bc-198)
        ("He made a profit of $70,000.", "70000", HOUSE),
    ],
)
def test_equal(pred, gold, question):
    assert _eq(pred, gold, question)


@pytest.mark.parametrize(
    "pred",
    [
        "If the house sold for $70,000, he would make nothing.",  # a condition commits to nothing
        "120,000 dollars per year",  # a value and its unit are read as such, not as a sentence
    ],
)
def test_a_one_line_sentence_that_commits_to_nothing_stays_unequal(pred):
    assert not _eq(pred, "70000", HOUSE)


CLOCK = "時計の長針と短針が1日に重なる回数は？"
DUCKS_JA = (
    "ジャネットの鴨は1日に16個の卵を産みます。彼女は毎朝3個を朝食に食べ、毎日4個を使って友人のためにマフィンを焼きます。"
    "残りは毎日、新鮮な鴨の卵1個あたり2ドルでファーマーズマーケットで売ります。彼女はファーマーズマーケットで毎日何ドル稼ぎますか？"
)
# a GSM8K solution whose newlines the log stored escaped (set BE)
DUCKS_JA_GOLD = "彼女は毎日、9 $\\times$ 2 = $\\$<<9*2=18>>18$をファーマーズマーケットで稼ぎます。\\n#### 18"
WRENCH = (
    "A wrench with a handle length of 9 inches requires 375 pounds of force to loosen a certain bolt. A wrench of 15 "
    "inches will require how many pounds of force to loosen the same bolt?"
)


@pytest.mark.parametrize(
    ("pred", "gold", "question"),
    [
        ("答え：22時間", "22回", CLOCK),  # hours are not times (set BE)
        ("答え：18個", DUCKS_JA_GOLD, DUCKS_JA),  # `何ドル` asks dollars
        ("答え：18 ユーロ", DUCKS_JA_GOLD, DUCKS_JA),
        ("答え：225 kg", "225", WRENCH),  # pounds asked
    ],
)
def test_not_equal_set_be(pred, gold, question):
    assert not _eq(pred, gold, question)


@pytest.mark.parametrize(
    ("pred", "gold", "question"),
    [
        ("答え：22回", "22回", CLOCK),
        ("答え：18ドル。", DUCKS_JA_GOLD, DUCKS_JA),  # the escaped `\n#### 18` gold is read
        ("答え：$18.00", DUCKS_JA_GOLD, DUCKS_JA),
        ("答え：225 pounds", "225", WRENCH),
        ("Thus, the answer is:\n\nFINAL: 425", "425", "What is the least number of words I should learn?"),
    ],
)
def test_equal_set_be(pred, gold, question):
    assert _eq(pred, gold, question)


GROUPS = "Statement 1 | Every permutation is a cycle. Statement 2 | Every cycle is a permutation."


@pytest.mark.parametrize(
    ("pred", "gold", "equal"),
    [
        # a two-statement item answered in words (set BF)
        ("Statement 1 is false because ... \n\nFinal Answer:\nStatement 1 is false. Statement 2 is true.", "False, True", True),
        ("... is a permutation.\n\nStatement 1: False\nStatement 2: True", "False, True", True),
        ("F, T", "False, True", True),
        ("... \n\nBoth statements are correct.", "True, True", True),
        ("Final Answer: Statement 1 is true. Statement 2 is false.", "False, True", False),
        ("Both statements are false.", "False, True", False),
        ("Statement 1 is false. Statement 1 is true. Statement 2 is true.", "False, True", False),  # contradicts itself
    ],
)  # fmt: skip
def test_two_statement_items(pred, gold, equal):
    assert _eq(pred, gold, GROUPS) is equal


APPLES = (
    "Sarah has 8 red apples and 12 green apples. She decides to give 3 red apples and 5 green apples to her friend. How "
    'many apples does Sarah have left?Format your response as follows: \'{"My Answer": "<answer>", "Explanation": '
    '"<explanation>"}\''
)
GOOD = (
    "how many words , with or without meaning , can be formed using all letters of the word good using each letter "
    "exactly once ? Options: a ) 18 , b ) 20 , c ) 22 , d ) 23 , e ) 24"
)


@pytest.mark.parametrize(
    ("pred", "gold", "question", "equal"),
    [
        # a reply that is one JSON object: its answer field first (set BG)
        ('{"My Answer": "12", "Explanation": "Sarah has 5 red and 7 green apples left, 12 in all."}', "12", APPLES, True),
        ('{"My Answer": "11", "Explanation": "Adding these together, Sarah has a total of 12 apples left."}', "12",
         APPLES, False),
        # MathQA's one-line options and lower-case gold letters
        ("Therefore, there are 24 different words that can be formed.", "e", GOOD, True),
        ("Therefore, there are 22 different words that can be formed.", "e", GOOD, False),
        ("e", "e", GOOD, True),
        ("d", "e", GOOD, False),
        ("e", "e", "What is the base of the natural logarithm?", True),  # no options: `e` is compared as written
    ],
)  # fmt: skip
def test_json_replies_and_mathqa_options(pred, gold, question, equal):
    assert _eq(pred, gold, question) is equal


DRIVE = (
    "He tries to get home in 4 hours but spends the first 2 hours in standstill traffic. He spends the next half-hour "
    "driving at a speed of 30mph, before being able to drive the remaining time of the 4 hours going at 80 mph. How far "
    "is he from home at the end of those 4 hours?"
)


@pytest.mark.parametrize(
    ("pred", "gold", "question", "equal"),
    [
        # a speed names the length unit the question works in (set BH)
        ("180 - 15 - 120 = 45. The answer is 45 kilometers.", "45", DRIVE, False),
        ("180 - 15 - 120 = 45. The answer is 45 miles.", "45", DRIVE, True),
        # an answer sentence, then a few-shot `Question:` the model invented with its own answer
        ("60 + 180 + 126 = 366. The answer is 366.\n\nQuestion: How many in the third month?\nThe answer is 126.", "366",
         "How many downloads in total?", True),
        ("60 + 180 + 126 = 366. The answer is 366.\n\nQuestion: How many in the third month?\nThe answer is 126.", "126",
         "How many downloads in total?", False),
    ],
)  # fmt: skip
def test_speed_units_and_few_shot_leakage(pred, gold, question, equal):
    assert _eq(pred, gold, question) is equal
