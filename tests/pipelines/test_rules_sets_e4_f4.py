"""Classes from blind sets E4 (contest answer files, number-sense banks) and F4 (college exercise banks), and from
C4's Portuguese quiz export (issue 21).

- A key that writes the asked expression and its value (`\\lim_{x \\to 0} \\frac{\\sin(3x)}{x} = 3`, `(1+i)^4 = -4`)
  is that value: the left side is a formula the statement writes, so the key says what it equals. A name
  (`k = 1`), an equation the statement gives, or working that is not the statement's formula is not read so.
- A quiz export's key that names the option and its index (`B (índice 1)`) names that option; an index that is
  not the letter's names nothing.
- A number-sense item is the expression before its `=` (`41259 \\div 39 =`): keyed with another value (an
  estimate, 1058), the key contradicts the statement and is rejected; keyed with the value, it is proven.
"""

import pytest
from rule_outcome import assert_kept_as, offline

from pipelines.rules import restated_expression

LIMIT = "Compute the limit:\n$$\n\\lim\\limits_{x \\to 0} \\frac{\\sin(5x)}{x}\n$$"


@pytest.mark.parametrize(
    ("problem", "key", "kept"),
    [
        (LIMIT, "$$\n\\lim_{x \\to 0} \\frac{\\sin(5x)}{x} = 5\n$$", "5"),
        (
            "Compute $(1+\\sqrt{2})^2 + (1-\\sqrt{2})^2$.",
            "$$\n(1+\\sqrt{2})^2 + (1-\\sqrt{2})^2 = 6\n$$",
            "6",
        ),
        ("Compute $(1+i)^4$.", "$$\n(1+i)^4 = -4\n$$", None),  # a complex statement defers whatever the key
        (
            "$\\displaystyle \\sum_{n=0}^{\\infty}\\left(\\frac{1}{3}\\right)^n$",
            "$\\sum_{n=0}^{\\infty}(\\tfrac{1}{3})^n = \\tfrac{3}{2}$",
            "5",
        ),
        (
            LIMIT,
            "$$\n\\lim_{x \\to 0} \\frac{\\sin(5x)}{x} = 5x\n$$",
            None,
        ),  # an expression, not a value
    ],
)
def test_a_key_that_writes_the_asked_expression_and_its_value(problem, key, kept):
    assert_kept_as(offline(problem, key), kept)


@pytest.mark.parametrize(
    ("key", "problem", "read"),
    [
        ("$$\n(1+i)^4 = -4\n$$", "Compute $(1+i)^4$.", "-4"),
        (
            "\\lim_{x \\to 3} \\frac{x^2-9}{x-3} = 6",
            "Find $\\lim\\limits_{x\\to 3}\\frac{x^2 - 9}{x - 3}$.",
            "6",
        ),
        ("k = 1", "Find $k$ if $k + 1 = 2$.", None),  # a name is no formula
        ("$x^2+y^2 = 25$", "Let $x^2+y^2=25$ and $xy=12$. Find $x+y$.", None),  # the statement's own equation
        (
            "$\\frac{(3-x)(9+3x+x^2)}{x-3} = -27$",
            "Find $\\lim_{x\\to 3}\\frac{27-x^3}{x-3}$.",
            None,
        ),  # working
        ("$2^{10} = 1024 = 2^{10}$", "Compute $2^{10}$.", None),  # a chain: worked_chain's
    ],
)
def test_what_a_restated_expression_reads(key, problem, read):
    assert restated_expression(key, problem) == read


QUIZ = "Um produto custa R$ 200. Com 10% de desconto, qual será o novo preço?\nOptions: A. 170 / B. 180 / C. 190 / D. 210"


@pytest.mark.parametrize(
    ("key", "kept"), [("B (índice 1)", "180"), ("C (index 3)", "190"), ("B (índice 3)", None)]
)
def test_a_key_that_names_its_option_and_index(key, kept):
    assert_kept_as(offline(QUIZ, key), kept)


@pytest.mark.parametrize(
    ("problem", "key", "kept", "status"),
    [
        ("41259 \\div 39 =", "1058.0", None, "rejected"),  # the estimate of 1057.92...
        ("12 \\times 11 =", "132", "132", "kept"),
        ("2.5 \\times 4.12 =", "10.3", "103", "kept"),  # a decimal proven by the statement's own computation
    ],
)
def test_a_number_sense_item_is_the_expression_before_its_equals_sign(problem, key, kept, status):
    done = offline(problem, key)
    assert_kept_as(done, kept)
    assert done["status"].startswith(status), done["status"]


# F4 (development, this session): a worked key that ends by naming what it found is the value of that sentence, when
# the question asks that thing; the working before it (`≈`, a sentence without a value) is not read
@pytest.mark.parametrize(
    ("problem", "key", "kept"),
    [
        (r"Find $\lim_{n\to\infty} \frac{n^2+1}{3n^2-n}$.", r"Numerator $\approx n^2$, Denom $\approx 3n^2$. Limit is $1/3$.", "4"),
        (r"Find $\lim_{n\to\infty} \frac{2n^3+1}{5-n^3}$.", "Coefficients of highest power ($n^3$) are $2$ and $-1$.\nLimit is $2/(-1) = -2$.", "-2"),
        (r"Find $\lim_{n\to\infty} \frac{n}{n^3+1}$.", r"Degree of denominator ($n^3$) is higher. Limit is $0$.", "0"),
        ("What is the probability of rolling two sixes with two fair dice? Give it as a fraction m/n and find m+n.",
         r"There are 36 outcomes and one is a double six. So the probability is $1/36$.", "37"),
    ],
)  # fmt: skip
def test_a_worked_key_is_the_value_its_last_sentence_names(problem, key, kept):
    assert_kept_as(offline(problem, key), kept)


def test_a_last_sentence_naming_what_the_question_does_not_ask_is_not_read():
    done = offline(r"Find the derivative of $x^3$ at $x = 2$.", r"Differentiate term by term. Sum is $5$.")
    assert done["status"] != "kept", done["status"]
