"""Deterministic rules that turn an answer into one integer, as the DAPO paper did by hand.

An answer such as `\\frac{3}{8}` becomes "... can be written as m/n ... Find m+n" with the
integer 11; `11-2\\sqrt{6}` becomes "k - m sqrt(n) ... Find k+m+n" with 19. Every rule parses
the answer into an exact sympy value first, so the integer is computed, never pattern-matched,
and `recompute` can rebuild the value from `transform_detail` to prove the rewrite is right.
Answers no rule covers come back as a `Miss` with a reason and whether an LLM may try.

When a decimal key is exact (the policy; anything else is a `Miss` for the LLM stage):

- A key whose value is an integer (`43.0`, `27.00`) is that integer; no decimal question arises.
- A statement with science or applied signals (`pipelines.classify.science_signals`: physical
  constants, units of science, a source `unit` field, science or finance vocabulary, scientific
  notation, logarithms, a given approximation such as "use pi = 3.14") never gets a rule rewrite
  of a non-integer key, and with a strong signal (constant, unit, metadata) not of an integer key
  either: its digits depend on the constants and data chosen, and a stated rounding does not fix
  that (58.44 vs 58.45). A solver (LLM + agreement) decides, or nobody.
- Otherwise a terminating decimal key is exact only by one of these, each read from the wording:
  1. the statement asks to round to k places and the key has at most k (pure mathematics, so the
     rounding is determined; the phrase travels with the rewrite word for word);
  2. the statement asks for the value as a decimal and asks no rounding (so it terminates);
  3. the statement asks for the mean and lists exactly one run of numbers, whose mean is the key;
  4. whole-cent closure: the key is dollars with at most two places (or a metric amount with at
     most three), every given number terminates, and nothing in the statement divides, shares,
     takes a rate, fraction, percentage, mean, power or pi, and no price is quoted for several
     items; then the exact answer is a sum, difference or whole multiple of the given amounts,
     which needed no rounding.
  5. a decimal numeral asked for itself: "what is this decimal", a number built from its digits in
     named places (tenths, hundredths), a decimal point moved or dropped (CMATH's place-value
     problems); the answer is a written numeral, exact by what is asked.
  6. a dyadic key (m/2^j: .25, .75, .125, .0625) of k >= 2 places in a statement with no science,
     applied or measured-quantity signal and no estimate word. Proven: no other fraction with a
     denominator below 2*5^k (50 at two places) rounds to it, so it is no sloppy rounding of 1/3,
     2/7 or 5/12. Not proven, and said so: a rounding of an irrational lands on a dyadic point 3
     times in 100 at two places, 7 in 1000 at three; that is the residual risk of this one argument
     from the key's form. A one-place x.5 (one rounding in ten lands there) and every non-dyadic
     key (0.4 may be 3/7 to one place; 0.33, 0.67, 0.17 are 1/3, 2/3, 1/6) prove nothing and defer.
  7. the question is one arithmetic expression (`What is 12.45 + 3.678?`, `Calculate: 1170 ÷ 12`),
     evaluated exactly with fractions to the key. This solves the one expression asked; it is not a
     search over the statement's numbers.
- A key the question itself contradicts is rejected: the value of the one expression asked, or the
  solutions of the one polynomial equation asked (degree <= 4, in the unknown asked: `What is the
  value of 'y' in the equation y/4 - 2 = 7?` keyed 30). An equation with two solutions and a
  one-value key defers (several values).
- A circle's length or area in a school word problem (no typeset mathematics) keyed without pi
  defers: `44 m` for a 14 m circle used 22/7.
- Where the line is for money and counting (issue 21 class 2 says applied decimals need a solver):
  the closure (4) is the whole of it. Sums, differences and whole multiples of whole-cent amounts
  need no rounding, so the key is exact by construction. A percentage (tax, discount, interest), a
  price for several items, a share or any other division may need a rounding to cents that the key
  hides (6% of $12.35 is $0.741, keyed $0.74), and telling which needs solving the problem: those
  go to the solver, as do money amounts in other currencies (元), whose wording the closure does
  not read.
- Integer keys of science statements (SciBench: a work of 7200 ft-lb, a resistance of 1000 ohm, a
  sample size of 117) stay deferred: an integer computed from units, constants or a statistical
  table may be a rounding (an escape velocity of 2380), and only solving tells them apart. A
  science word that is not science (`whack a mole`) is no signal.
- Never a proof: finding an arithmetic combination of the statement's numbers that equals the
  key (`2.4 = 96/40`). With a dozen numbers such a search succeeds for almost any short decimal.
- A decimal comma (`19,5`) is read only where the statement writes its own decimals with one.
- A comma between digit groups (`120,450`) is a thousands separator only for one well-formed
  number (no leading 0 group, three digits after each comma) in a statement that asks for one
  quantity; a list-like question defers, and `0,315` or `1,3,5` is read as several values.
- A statement that asks for all values ("find all x") with a one-value key defers: the key
  claims a singleton set, which only solving can confirm.
"""

from __future__ import annotations

import math
import re
import unicodedata
from dataclasses import dataclass, field
from fractions import Fraction
from functools import reduce

import sympy

from pipelines.arithmetic import (
    arithmetic_value,
    asked_conversion,
    asked_equation,
    asked_expression,
    asked_rounding,
    asking_sentence,
    chinese_number,
    equation_holds,
    equation_solutions,
    evaluate,
)
from pipelines.classify import (
    KEY_LABEL,
    STRONG_SCIENCE,
    complex_context,
    has_top_level_separator,
    prices_missing,
    question_unrelated_to_setup,
    rounding_asked,
    science_signals,
    several_asks,
    without_html,
)
from verifiers.forms import PERCENT_MENTIONED, exact_conversion, same_quantity
from verifiers.normalize import (
    CURRENCY_BEFORE,
    FLOAT_PRINT,
    braced_short_commands,
    float_rendering,
    undoubled_backslashes,
)

MAX_DIGITS = 30  # an integer answer longer than this is no use as an RL target
_POW_LIMIT = 2000  # log10 bound on any intermediate power; stops power towers before they hang


@dataclass
class Rewrite:
    """A successful rewrite: the new statement, its integer answer and the parameters used."""

    rule: str
    problem: str
    answer: str
    detail: dict = field(default_factory=dict)


@dataclass
class Miss:
    """No rule applies. `llm` says whether the answer is worth sending to the LLM."""

    reason: str
    llm: bool = True


# ---------------------------------------------------------------------------------------------
# parsing


# fractions in words (MMLU): `12 over 11`, `1 and 1 over 11` (a mixed number)
_OVER = re.compile(r"^(?:(\d+)\s+and\s+)?(\d+)\s+over\s+(\d+)$")


# interest compounded per period (`4.8% annual interest compounded quarterly`): the amount is rarely whole, and a
# free-response key written whole (`$11,539` for 10000 x 1.012^12 = 11538.95...) is a rounding; options are the
# keyed option's own value (an exam's numbers are chosen to come out whole)
_COMPOUNDED = re.compile(
    r"\bcompound(?:ed)?\s+interest\b|\bcompounded\s+(?:annually|semi-?annually|half-?yearly|quarterly|monthly|weekly|"
    r"daily|yearly|every)\b|\binterest\b[^.?]{0,80}\bcompounded\b"
    # the same in the languages of the sources (Korean 복리, Chinese 复利, Japanese 複利, Spanish, Portuguese, French,
    # German, Indonesian)
    r"|복리|复利|複利|\binterés compuesto\b|\bjuros compostos\b|\bintérêts? composés?\b|\bzinseszins\w*|\bbunga majemuk\b",
    re.IGNORECASE,
)
# what a compound-interest question asks when its key is no amount: the rate or the time (`What is the minimal
# compound interest rate ...?`, `How many years ...?`)
_RATE_OR_TIME_ASKED = re.compile(r"\brate\b|\bpercent(?:age)?\b|\bhow\s+(?:many|long)\b", re.IGNORECASE)


def _strip_outer(s: str) -> str:
    # `\(\dfrac{3}{2}\)。`: a CJK full stop ends the key
    s = s.strip().rstrip("。．").strip().strip("$").strip()
    inline = re.fullmatch(r"\\\(\s*(.*?)\s*\\\)|\\\[\s*(.*?)\s*\\\]", s, re.S)
    if inline:  # `\(345.6\)`: LaTeX's inline or display delimiters around the whole key
        s = inline.group(1) if inline.group(1) is not None else inline.group(2)
    for pre in ("\\boxed{", "\\fbox{"):
        if s.startswith(pre) and s.endswith("}"):
            s = s[len(pre) : -1]
    s = re.sub(r"\\[,;:! ]|~", " ", s)
    s = s.replace("\\left", "").replace("\\right", "").replace("\\displaystyle", "")
    s = braced_short_commands(re.sub(r"\\[dt]frac", r"\\frac", s))  # `\frac{270}7`
    s = re.sub(
        r"(?<![\w)}\]])[\u2013\u2014](?=\s*\d)", "-", s.replace("\u2212", "-")
    )  # `–7` is -7, `3–5` a range
    s = _OVER.sub(
        lambda m: f"{m.group(1) + ' ' if m.group(1) else ''}{m.group(2)}/{m.group(3)}", s
    )  # `12 over 11`
    return s.strip().rstrip(".").strip()


def _latex_unit(answer: str) -> str | None:
    """A unit an answer carries in LaTeX (`210 \\mathrm{~m}`, `8.99 \\mathrm{~N}`), or None."""
    m = re.search(r"\\(?:mathrm|text|mbox)\s*\{\s*~?\s*([A-Za-z][A-Za-z ]{0,12})\}", answer or "")
    return m.group(1).strip() if m else None


def _power_depth(s: str) -> int:
    """How deeply `^` nests (a tower like 5^{5^{5}} has depth 3)."""
    best, stack = 0, []
    i = 0
    while i < len(s):
        if s[i] == "^":
            level = sum(1 for x in stack if x) + 1
            best = max(best, level)
            if i + 1 < len(s) and s[i + 1] == "{":
                stack.append(True)
                i += 2
                continue
        elif s[i] == "{":
            stack.append(False)
        elif s[i] == "}" and stack:
            stack.pop()
        i += 1
    return best


# bold around a value (`$\mathbf{14}$`, `\mathbf{\frac{7}{12}}`): the value
_BOLD_MATH = re.compile(r"\\(?:mathbf|textbf|boldsymbol|bm)\s*\{((?:[^{}]|\{[^{}]*\})*)\}")
_BASE_NUMERAL = re.compile(r"([0-9A-Fa-f]+)\s*_\s*\{?\s*(\d{1,2})\s*\}?")  # `12_5`, `1000111_{2}`, `FF_{16}`
# a key that is one count written in combinatorics notation (the parser reads `C(100, 15)` as a function, `26P3` as a
# product of letters)
_COUNTING_KEY = re.compile(
    r"C\s*\(\s*\d+\s*,\s*\d+\s*\)|P\s*\(\s*\d+\s*,\s*\d+\s*\)|\d+\s*[CP]\s*\d+|\\binom\s*\{\s*\d+\s*\}\s*\{\s*\d+\s*\}|\d+\s*!"
)


@dataclass
class Parsed:
    """An answer read into an exact value, with the unit and surface form the rules need."""

    value: sympy.Expr
    unit: str | None  # "degrees", "percent" or None
    decimals: int  # digits after the point when written as a terminating decimal, else 0


# `30^\circ`, `30°`, `30\degree`, `\frac{270}7\text{ degrees}`, `45 degrees`: an angle in degrees
_DEGREE = re.compile(
    r"\^\s*\{?\s*\\circ\s*\}?|\u00b0|\\degree(?![a-zA-Z])|\s*\\(?:text|mbox|mathrm)\{\s*degrees?\s*\}\s*$"
    r"|(?<=[\d}])\s*degrees?\s*$"
)
_UNIT_PAREN = re.compile(r"(?<=[\d}])\s*\(\s*[A-Za-z][A-Za-z .'\-]+\)\s*$")
_UNIT_TEXT = re.compile(r"\s*\\(?:text|mbox|mathrm)\{\s*[A-Za-z][A-Za-z. ]*\}\s*(\^\s*\{?\d\}?)?\s*$")
_UNIT_WORDS = re.compile(
    r"^(-?[\d.,]+)\s+(?!of\s+[A-Za-z]$)[A-Za-z]{2,}(?:\s[A-Za-z]+)?(?:\s*/\s*[A-Za-z]+)?(\^\s*\{?\d\}?)?$"
)  # `0.59 gallons`, `8 cm`, `1 step/minute`; never `4% of a` (a multiple of a variable)
# money before the value: `\$18.90`, `Rs. 750` (AQuA), `₹ 40`, `USD 5`, `€3`
_CURRENCY_BEFORE = re.compile(r"^(?:\\\$|\$|" + CURRENCY_BEFORE + r")\s*(?=[-.\d\\])")
# a unit after the number, glued or spaced (`144km`, `100 m`, `2 m/s²`, `3 Ω`, `10 V`), read off only when the statement writes
# the same unit after a number (`12km/hr`, `at 0.5 m/s²`): without that, `144km` may be the product 144·k·m
_UNIT_AFTER = re.compile(
    r"(?<=\d)\s*((?:km|cm|mm|kg|mg|ml|kmph|kmh|mph|hrs?|mins?|secs?|ft|yds?|m|s|g|h|N|J|W|K|Pa|Hz|sq\s*m|sq\s*cm"
    r"|sq\s*km|[mk]?V|m?A|k?\u03a9|k?W|kWh)(?:\s*/\s*(?:s|h|hr|min|km)(?:\^\s*\{?2\}?|\u00b2)?)?)\.?$"
)
# a statement about expressions (`Simplify 2m + 3m`, `combine like terms`): a letter after a number is a variable
_ALGEBRA_ASKED = re.compile(
    r"\b(?:simplify|expand|factori[sz]e|factor|combine|collect|like terms|in terms of|expression|polynomial|monomials?"
    r"|binomials?)\b|化简|合并同类项|整式|多项式|单项式",
    re.I,
)


# what a unit symbol after a key's number is called when a statement asks for it by name (`Convert 2 kg to grams`)
_UNIT_NAMES = {
    "g": "grams?", "kg": "kilograms?", "mg": "milligrams?", "m": "met(?:er|re)s?", "cm": "centimet(?:er|re)s?",
    "mm": "millimet(?:er|re)s?", "km": "kilomet(?:er|re)s?", "ml": "millilit(?:er|re)s?", "s": "seconds?",
    "secs": "seconds?", "sec": "seconds?", "h": "hours?", "hr": "hours?", "hrs": "hours?", "min": "minutes?",
    "mins": "minutes?", "ft": "f(?:ee|oo)t", "yd": "yards?", "yds": "yards?",
}  # fmt: skip


def _unit_asked_by_name(symbol: str, problem: str) -> bool:
    """The statement asks for the quantity in the unit `symbol` stands for (`to grams`, `in metres`, `how many
    seconds`): `2000 g` is then 2000 grams, not 2000 times a variable g."""
    name = _UNIT_NAMES.get(symbol)
    return bool(name and re.search(r"\b(?:to|into|in|how many)\s+" + name + r"\b", problem, re.I))


def _one_letter_variable(letter: str, problem: str) -> bool:
    """`m` in `Simplify 2m + 3m` or in the bare `2m + 4m`: an algebra statement, or like terms added or subtracted."""
    like_terms = re.escape(letter) + r"\s*[-+]\s*\d*\s*" + re.escape(letter) + r"(?![A-Za-z])"
    return bool(_ALGEBRA_ASKED.search(problem) or re.search(r"\d\s*" + like_terms, problem))


_CURRENCY_AFTER = re.compile(r"(?<=\d)(?:\s|\\[,;!])*(?:€|₽|₺|₹|£|¥|₫|₴|\\\$|\$)$")
# layout commands a key kept from its LaTeX source: `16\\ \noindent` (MathOdyssey)
_LAYOUT_TAIL = re.compile(
    r"(?:\s|\\\\|\\(?:noindent|newline|par|medskip|bigskip|smallskip)\b|\\vspace\*?\{[^}]*\})+$"
)
# a whole number and a few words the statement itself uses for what it counts (any language)
_WORDS_AFTER = re.compile(r"(-?\d+)\s+((?:[^\W\d_]{2,}\s*){1,3})")
_GLUED_WORD = re.compile(r"(-?\d+)([^\W\d_]{3,})")  # `15hours`: a unit word written onto its number
_PART_LABELS = re.compile(
    r"[(（]\s*\d{1,2}\s*[)）]\s*(?:[(（]\s*\d{1,2}\s*[)）]|[^()（）\s]+\s*[(（]\s*\d{1,2}\s*[)）]|[^()（）\s]+\s*$)"
)
# a key written as a list of one value (`[4332.0]`), or as an exact fraction and its decimal (`40/3 | 13.333`)
_ONE_ELEMENT_LIST = re.compile(r"\[\s*(-?\d+(?:\.\d+)?(?:/\d+)?)\s*\]")
_EXACT_OR_DECIMAL = re.compile(r"(-?\d+/\d+)\s*\|\s*(-?\d*\.\d+)")


# Unicode mathematics in keys a person or a model typed (`6√2`, `(6√2)²`, `4π`, `3 × 4`, `−5`)
_UNICODE_SIGNS = (("π", "\\pi "), ("×", "\\times "), ("·", "\\cdot "), ("−", "-"))
_UNICODE_POWER = re.compile(r"(?<=[\d)}\]])\s*([²³])")  # a power of a value (`(6√2)²`); `20 m²` is a unit's
_UNICODE_ROOT = re.compile(r"√\s*(\d+(?:\.\d+)?|\([^()]*\)|\{[^{}]*\}|[a-zA-Z])")
# fullwidth digits and signs of CJK keys (`－１`, `３／４`) and the small hyphen-minus: their ASCII forms
_FULLWIDTH = str.maketrans(
    {
        **{chr(0xFF10 + d): str(d) for d in range(10)},
        "－": "-",
        "﹣": "-",
        "＋": "+",
        "／": "/",
        "．": ".",
        "％": "%",
    }
)
# a vulgar fraction (`½`, `-⅔`, `1½`) or one written with the fraction slash (`⁷⁄₁₀`, `7⁄10`)
_VULGAR = {c: unicodedata.normalize("NFKC", c).replace("\u2044", "/") for c in "½⅓⅔¼¾⅕⅖⅗⅘⅙⅚⅐⅛⅜⅝⅞⅑⅒"}
_SCRIPT_DIGITS = str.maketrans("⁰¹²³⁴⁵⁶⁷⁸⁹₀₁₂₃₄₅₆₇₈₉", "01234567890123456789")
_SLASHED = re.compile(r"([⁰¹²³⁴⁵⁶⁷⁸⁹]+|\d+)\s*\u2044\s*([₀₁₂₃₄₅₆₇₈₉]+|\d+)")


def typed_fractions(text: str) -> str:
    """`-⅔` -> `-2/3`, `1½` -> `1 1/2` (a mixed number), `⁷⁄₁₀` -> `7/10`: fractions as the parser reads them."""
    text = _SLASHED.sub(
        lambda m: f"{m.group(1).translate(_SCRIPT_DIGITS)}/{m.group(2).translate(_SCRIPT_DIGITS)}", text
    )
    return re.sub(
        "[" + "".join(_VULGAR) + "]",
        lambda m: (" " if m.start() and text[m.start() - 1].isdigit() else "") + _VULGAR[m.group()],
        text,
    )


def unicode_math(text: str) -> str:
    """`6√2` -> `6\\sqrt{2}`, `(6√2)²` -> `(6\\sqrt{2})^2`, `4π` -> `4\\pi`: the LaTeX the parser reads."""
    if text.isascii():
        return text
    text = typed_fractions(text.translate(_FULLWIDTH))
    text = _UNICODE_ROOT.sub(lambda m: "\\sqrt{" + m.group(1).strip("(){}") + "}", text)
    text = _UNICODE_POWER.sub(lambda m: "^2" if m.group(1) == "²" else "^3", text)
    for sign, latex in _UNICODE_SIGNS:
        text = text.replace(sign, latex)
    return text


# a key that names the quantity before its value (`Hypotenuse = 6\sqrt{2}`, `b) Area = 72 cm^2`), a part label first
_NAMED_VALUE = re.compile(r"(?:\(?[a-z]\)\s*)?([A-Za-z][a-z]+(?:\s+[a-z]+){0,3})\s*=\s*(.+)")


def _names_asked(name: str, problem: str) -> bool:
    """A key's name for its value (`Final selling price`) names what the statement speaks of: one of its words of
    four letters or more is the statement's (a key `Smallest number = 3448` under a bare table asks nothing)."""
    words = {w.lower() for w in re.findall(r"[A-Za-z]{4,}", name)}
    return bool(words & {w.lower() for w in re.findall(r"[A-Za-z]{4,}", problem)})


# an exact value and its decimal (`6\sqrt{2} \approx 8.49 cm`): read as the exact value when the decimal rounds it;
# the exact value may end a chain of working (`10/\sqrt{2} = 10\sqrt{2}/2 = 5\sqrt{2} ≈ 7.07 cm`: _approximated_chain)
_EXACT_THEN_DECIMAL = re.compile(r"([^≈]+?)\s*(?:≈|\\approx)\s*(-?\d*\.\d+)\s*[A-Za-z^{}\d°²³\\ ]*")


def _approximated_chain(chain: str, problem: str | None, units) -> Parsed | Miss | None:
    r"""The exact value that ends a chain of working before its decimal (`6 + 6 + 6\sqrt{2} = 12 + 6\sqrt{2}`, `(1/2)
    × 5 × 5\sqrt{3} = 12.5\sqrt{3}`): its last member, when every member without letters evaluates exactly to that
    value and one of them computes (an operation): the key's own arithmetic is the proof. A member with letters is a
    label or a formula (`height/3`) and proves nothing; a member that gives another value is a Miss; None when
    nothing computes it."""
    parts = [x.strip() for x in chain.split("=")]
    if len(parts) < 2 or not all(parts):
        return None
    value = parse_answer(parts[-1], problem=problem, units=units)
    if isinstance(value, Miss):  # `12.5\sqrt{3}`: a decimal in an expression, exact when the working gives it
        written = evaluate(parts[-1], needs_operator=False)
        value = Parsed(value=written, unit=None, decimals=0) if isinstance(written, sympy.Expr) else None
    if value is None:
        return None
    working = _working_gives(parts[:-1], value.value)
    if working is None:
        return None
    if working is False:
        return Miss("a worked key whose arithmetic does not give its value")
    return value if working else None


def _working_gives(members: list[str], value: sympy.Expr) -> list[str] | bool | None:
    """Whether a chain's members before its result give `value`: the numbers of the first member that computes (an
    operation), a list; [] when none computes; False when a member gives another value; None when a member without
    letters is no arithmetic this reads. A member with letters is a label or a formula (`Area`, `height/3`, `2 × (l +
    w)`) and is passed over: the key's own arithmetic is the proof, never a search over the statement's numbers."""
    first: list[str] = []
    for part in members:
        # `- ` before a member is a bullet, `-(` a sign
        part = _CURRENCY_SIGNS.sub("", re.sub(r"^[\s•*]*(?:-\s+)?", "", part).strip())
        if not part or re.search(r"[A-Za-zπ]", re.sub(r"\\[A-Za-z]+", "", part)):
            continue
        computed = evaluate(part, needs_operator=False)
        if not isinstance(computed, sympy.Expr):
            return None
        if sympy.simplify(computed - value) != 0:
            return False
        if not first and _OPERATION.search(part.lstrip("-")):
            first = [n.replace(",", "") for n in _NUMBER_RUN.findall(part)] or ["?"]
    return first


# a key that opens with its answer line, then shows the working (`Answer: 7\n\n8 - 4 / 2 + 1\n\n8 - 2 + 1\n\n6 + 1 = 7`)
_ANSWER_THEN_WORKING = re.compile(
    r"\s*(?:\*\*)?(?:final\s+)?answer\s*(?:\*\*)?\s*[:：]\s*(?:\*\*)?\s*([^\n]+?)\s*(?:\*\*)?\s*\n(.*\S.*)",
    re.I | re.S,
)


def _at_odds_with_statement(problem: str | None, value: sympy.Expr) -> Miss | None:
    """A Miss when the statement's last line is itself arithmetic (`Question 4:\n\n3 / 5 ^ -2`) and, read with the
    usual precedence, does not give `value` (or is a power tower whose order is a guess); None otherwise."""
    asked = (problem or "").strip().rsplit("\n", 1)[-1]
    if re.search(r"\^\s*-?\d+\s*\^", asked):
        return Miss("a power tower the statement writes without brackets: its order is the key's guess")
    stated = evaluate(asked, needs_operator=True)
    if isinstance(stated, sympy.Expr) and sympy.simplify(stated - value) != 0:
        return Miss("a key at odds with the arithmetic the statement writes (its precedence)")
    return None


# a digit and its place (`0 ones`, `4 hundreds` is 400): a place named, or a value the words multiply
_PLACE_VALUE_KEY = re.compile(
    r"-?\d+\s+(?:ones|tens|hundreds|thousands|ten thousands|hundred thousands|millions|tenths|hundredths|thousandths)",
    re.I,
)
# a key that is one Chinese numeral (`一千八百二十七`, `三分之二`), `得` ("gets") before it, one counter after it (`匹`,
# `人`); never a share (`三成` is 30%, `八折` 80%) nor units mixed (`六尺五寸`)
_CN_NUMERAL = "[零〇一二两兩三四五六七八九十百千万萬亿億壹贰貳叁參肆伍陆陸柒捌玖拾佰仟]"
_CN_NUMERAL_KEY = re.compile(
    f"得?({_CN_NUMERAL}+(?:分[\\u4e00-\\u9fff]?之{_CN_NUMERAL}+)?)(?:(?![成折割]|{_CN_NUMERAL})[\\u4e00-\\u9fff])?"
)
# a whole number and a fraction of the same unit (`一百二十步、九分步之五`, `人得一錢、二十一分錢之四`: each gets 1 4/21 qian)
_CN_MIXED_KEY = re.compile(
    f"(?:人)?得?({_CN_NUMERAL}+)((?:(?!{_CN_NUMERAL})[\\u4e00-\\u9fff])?)、({_CN_NUMERAL}+分((?:(?!{_CN_NUMERAL})[\\u4e00-\\u9fff])?)之{_CN_NUMERAL}+)"
)
# a key that gives its value, then its working in brackets (`₹600 (20% of 500 = 100, so 500 + 100 = 600)`,
# `**2/5** ($\frac{2}{5}$ ...)`): the value comes first, with no bracket of its own
_VALUE_THEN_WORKING = re.compile(r"([^()\n=]{1,40}?)\s*\((.*=.*)\)\s*\.?", re.S)
# where one step of a bracketed working ends and the next begins (`= 100, so 500 + 100 = 600`)
_NEXT_STEP = re.compile(r"(?:[;.,]\s+|\s+)(?:so|then|thus|hence|therefore)\s+|[;.]\s+|,\s+(?=[^\d\s])", re.I)


def _value_then_working(found: re.Match, problem: str | None, units) -> Parsed | Miss | None:
    """The value a key gives before its bracketed working, when the working's last step ends in that same value
    with arithmetic that gives it (`500 + 100 = 600`, `P(20, 3) = 20 × 19 × 18`): the key's own proof. A last step
    that gives another value is a key at odds with itself (a Miss); a step this cannot read leaves the key to the
    other readings (None)."""
    value = parse_answer(found.group(1), problem=problem, units=units)
    if not isinstance(value, Parsed):
        return None
    steps = [step for step in _NEXT_STEP.split(found.group(2)) if "=" in step]
    if not steps:
        return None
    members = [re.sub(r"(?<=\d),(?=\d{3}\b)", "", m).strip(" $") for m in steps[-1].split("=")]
    last = evaluate(_CURRENCY_SIGNS.sub("", members[-1]), needs_operator=False)
    if not isinstance(last, sympy.Expr):
        return None
    if sympy.simplify(last - value.value) != 0:
        return Miss("a key whose bracketed working ends in another value")
    computed = _working_gives(members, value.value)
    if not computed:  # False: a step gives another value; None or []: nothing here computes the value
        return Miss("a key whose bracketed working ends in another value") if computed is False else None
    return _at_odds_with_statement(problem, value.value) or value


def _answer_before_working(opened: re.Match, problem: str | None, units) -> Parsed | Miss:
    """The value of a key's opening answer line (`Answer: 7`), when the working after it ends in the same value (`...
    6 + 1 = 7`); working that ends elsewhere is a key at odds with itself (a Miss), and so is working with no result,
    and a statement that is itself arithmetic (`3 / 5 ^ -2`) must give that value read with the usual precedence."""
    value = parse_answer(opened.group(1), problem=problem, units=units)
    if not isinstance(value, Parsed):
        return value
    at_odds = _at_odds_with_statement(problem, value.value)
    if at_odds is not None:
        return at_odds
    last = opened.group(2).strip().splitlines()[-1]
    result = re.search(r"=\s*([^=]+?)\s*\.?$", last)
    ended = parse_answer(result.group(1), problem=problem, units=units) if result else None
    if not isinstance(ended, Parsed) or ended.value != value.value:
        return Miss("a key whose working does not end in its answer line's value")
    return value


_BOLD_SPAN = re.compile(r"\*\*([^*\n]+)\*\*")


def _bold_worked_value(raw: str, problem: str | None, units) -> Parsed | Miss | None:
    r"""A worked key of several lines that marks its value in bold (`Base 10 cm, height 6 cm` / `- Area = (10 × 6) ÷ 2
    = 60 ÷ 2 = **30 cm²**` / `- Or: ... = **30 cm²**`): that value, when every bold span is one and the same number and
    a line's chain of working ends in it with arithmetic that gives it (the key's own proof, not a search), starting
    from numbers the statement holds (at least half of them: `3 + 5 + 2 + 4` for a table the text lacks is not). Bold
    spans of different values are several answers (a Miss: `- 1 and 6/10 = **1.6**` / `- 3 and 45/100 = **3.45**`);
    a bold word or expression (`**Yes**`, `**8w**`) leaves the key to the other readings (None)."""
    spans = _BOLD_SPAN.findall(raw)
    values = []
    for span in spans:
        read = parse_answer(span.strip().rstrip(".:"), problem=problem, units=units)
        if not isinstance(read, Parsed):
            return None
        values.append(read)
    if not values:
        return None
    if any(v.value != values[0].value for v in values):
        return Miss("a worked key with bold values that differ: several answers")
    # the statement's own numbers (not its item number, `3. Calculating totals: ...`)
    given = {n.replace(",", "") for n in _NUMBER_RUN.findall(re.sub(r"^\s*\d+[.)]\s", "", problem or ""))}
    for line in raw.splitlines():
        chain = re.match(r"(.*=)\s*\*\*[^*\n]+\*\*[^=*]*$", line)
        if not chain:
            continue
        first = _working_gives(chain.group(1).split("=")[:-1], values[0].value)
        if first is None or first is False:
            return Miss("a worked key whose arithmetic does not give its value")
        # the working starts from the statement's numbers (`(10 × 6) ÷ 2` for base 10, height 6)
        if first and 2 * sum(n in given for n in first) >= len(first):
            return values[0]
        if first:
            return Miss("a worked key whose numbers the statement does not hold: its setup is missing")
    return None


def _rounds_to(value: sympy.Expr, decimal: str) -> bool:
    """`8.49` is `6\\sqrt{2}` rounded (or cut) to two places."""
    places = len(decimal.split(".")[1])
    gap = abs(sympy.N(value, 30) - sympy.Rational(decimal))
    return bool(gap <= sympy.Rational(1, 10**places))


def _approximates(decimal: str, fraction: str) -> bool:
    """`13.333` is `40/3` rounded or cut to the decimal's places (and nothing else is)."""
    places = len(decimal.split(".")[1])
    num, den = (int(x) for x in fraction.split("/"))
    if den == 0:
        return False
    ulp, gap = sympy.Rational(1, 10**places), sympy.Rational(decimal) - sympy.Rational(num, den)
    truncated = -ulp < gap <= 0 if num * den > 0 else 0 <= gap < ulp
    return abs(gap) <= ulp / 2 or truncated


# a key written as a sentence with one value in math: `Show that $a=2$.`, `Show that the answer is $\frac13$.`
_UNIT_SPAN = re.compile(r"(?<=\d)\s*\\\(\s*([A-Za-z]{1,3}(?:\^\s*\{?[23]\}?)?)\s*\\\)\s*$")
_SPAN_THEN_WORDS = re.compile(r"^\$\s*(-?\d+(?:[.,]\d+)?)\s*\$(?=\s+[^\W\d_])")
_STATED_KEY = re.compile(r"(?:Show|Prove) that [^$\d]*\$([^$]+)\$[^$\d]*\.?")
# a worked key that ends by naming what it found (`Degree of denominator is higher. Limit is $0$.`, `... Limit is
# $4/12 = 1/3$.`): the value of its last sentence, when the question asks that thing (a limit for `\lim`)
_CONCLUDING = re.compile(
    r"(?:^|(?<=[.!:])\s+|\n)(?:so\s+|hence\s+|thus\s+|therefore\s+)?(?:the\s+)?(?P<noun>limit|sum|answer|derivative|integral|"
    r"determinant|rank|probability)\s+(?:is|equals|=)\s*\$(?P<expr>[^$]+)\$\s*\.?\s*$",
    re.I,
)


def _concluded(raw: str, problem: str | None) -> str | None:
    """The value a worked key's last sentence names, when the key has working before it and the question asks
    for the thing named."""
    m = _CONCLUDING.search(raw.strip())
    if m is None or m.start() == 0 or not problem:
        return None
    noun = m.group("noun").lower()
    asked = (
        noun == "answer" or re.search(rf"\b{noun}", problem, re.I) or (noun == "limit" and "\\lim" in problem)
    )
    return m.group("expr").strip() if asked else None


# a number and a Chinese measure word or unit (`24项`, `2个`, `15厘米`), not a scale (`3万` is 30000)
# a key that converts between units (`3 cm = 30 mm`, `8 mm = 0.8 cm`): the amount in the unit asked, when exact
# factors (`verifiers.forms.same_quantity`) show both sides are one quantity
_CONVERSION = re.compile(
    r"(\d+(?:\.\d+)?)\s*(mm|cm|m|km|mg|g|kg|mL|L|s|min|h)\s*=\s*(\d+(?:\.\d+)?)\s*(mm|cm|m|km|mg|g|kg|mL|L|s|min|h)\.?"
)


def _conversion_asked(m: re.Match, problem: str) -> bool:
    """The statement asks for the key's last unit (`3 cm = ____ mm`, `in mm`) and the key's two sides are one
    quantity by exact factors."""
    unit = re.escape(m.group(4))
    asked = re.search(r"(?:_{2,}|\?|…|\.{3,})\s*" + unit + r"\b|\b(?:in|into|to)\s+" + unit + r"\b", problem)
    return bool(asked) and same_quantity(m.group(1), m.group(2), m.group(3), m.group(4)) is True


# a Korean or Japanese counter or unit after a whole number (`15그루`, `120ページ`, `350グラム`)
_SCRIPT_COUNTER = re.compile(r"(-?\d+)\s*([\uac00-\ud7af]{1,3}|[\u30a1-\u30fc]{1,6})")
_CJK_MEASURE = re.compile(
    r"(-?\d+(?:\.\d+)?)\s*(?![\u4e00-\u9fff]*[十百万亿])(?!千(?![克米]))[\u4e00-\u9fff]{1,3}"
)
# a key that shows its arithmetic: an expression, `=`, the value (`pipelines.arithmetic` reads the expression)
_WORKED = re.compile(r"([^=]+)=\s*([^=]+)")
# the statement hands over the value of pi to compute with (`Use π = 22/7`, `(π = 22/7)`, `take pi as 3.14`; the
# science signal `classify._GIVEN_APPROX` needs a `use` before `22/7`, so it is no substitute here)
_PI_GIVEN = re.compile(
    r"(?:π|\\pi|\bpi\b)\s*(?:=|≈|\bas\b|\bis\b)\s*\$?\s*(?:22\s*/\s*7|\\frac\{22\}\{7\}|3\.14)", re.I
)
_NUMBER_RUN = re.compile(r"\d[\d,]*(?:\.\d+)?")
_OPERATION = re.compile(r"[-+×x*/÷^]|\\(?:times|div|cdot|frac)")


# spacing and sizing that do not change what a formula says (`\lim\limits_{x \to 3}`, `\big(1+3x\big)`, `\tfrac`)
_LAYOUT_ONLY = re.compile(
    r"\\(?:limits|nolimits|displaystyle|textstyle|left|right|[bB]igg?[lr]?)(?![A-Za-z])|\\[,;:! ]|[\s{}$]"
)


def _formula_key(text: str) -> str:
    return _LAYOUT_ONLY.sub("", re.sub(r"\\[dt]frac\b", r"\\frac", text))


def restated_expression(raw: str, problem: str) -> str | None:
    """A key that writes the asked expression and its value (`\\lim_{x \\to 0} \\frac{\\sin(3x)}{x} = 3` for the limit
    the statement writes, `(1+i)^4 = -4` for "Compute $(1+i)^4$"): the value. The left side must be a formula the
    statement itself writes (spacing, `\\limits`, `\\left`, braces and `\\dfrac` aside) with an operation or a command
    in it, so a name (`k = 1`) or a step of working is not taken for the question; one `=` outside brackets only
    (a chain of working is `worked_chain`'s)."""
    text = raw.strip().strip("$").strip()
    depth, cuts = 0, []
    for i, ch in enumerate(text):
        depth += ch in "([{"
        depth -= ch in ")]}"
        if ch == "=" and depth == 0 and text[i - 1 : i] not in ("<", ">", "!", "\\"):
            cuts.append(i)
    if len(cuts) != 1:
        return None
    left, right = _formula_key(text[: cuts[0]]), text[cuts[0] + 1 :].strip().strip("$").strip().rstrip(".")
    if len(left) < 4 or not re.search(r"\\[A-Za-z]|[-+*/^|]", left) or not right:
        return None
    statement = _formula_key(problem)
    if left not in statement or left + "=" + _formula_key(right) in statement:
        return None  # not the statement's formula, or an equation the statement gives (`x^2+y^2=25`)
    return right


def worked_chain(raw: str, problem: str) -> tuple[str, Fraction] | None:
    """A key that shows its working as a chain (`` `10 + 2 * 5` = `10 + 10` = `20` ``, `Perimeter = 4 × side = 4 × 6
    = 24 cm`): (its last member, the value its arithmetic gives) when every member before the last that has no
    letter evaluates exactly to one value, at least one with an operation. The caller checks that the last member
    is that value: the proof is the key's own arithmetic, not a search. Not a chain: a member that is prose (a
    label of more than five words, or with a colon: `If 20 students passed out of 50, the percentage ...`), working
    none of whose numbers the statement holds (the setup is missing: `Çözüm?` keyed `5×8-3 = 40-3 = 37`), or a
    value the statement already states (`Vérifie que sin²(30°) + cos²(30°) = 1`: a verification)."""
    parts = [x.strip().strip("`*").strip() for x in raw.split("=")]
    if len(parts) < 3 or not parts[-1]:
        return None
    given = {n.replace(",", "") for n in _NUMBER_RUN.findall(problem or "")}
    values, worked, numbers = set(), False, []
    for part in parts[:-1]:
        if re.search(r"[A-Za-zπ]", re.sub(r"\\[A-Za-z]+", "", part)) or not part:
            if len(part.split()) > 5 or re.search(r"[:;?!]", part):
                return None  # prose, not a label or a formula
            continue  # `Perimeter`, `4 × side`, `2 × π × r`: a label or a formula
        value = arithmetic_value(_CURRENCY_SIGNS.sub("", part), needs_operator=False)
        if value is None:
            return None
        values.add(value)
        numbers += [n.replace(",", "") for n in _NUMBER_RUN.findall(part)]
        worked = worked or bool(_OPERATION.search(part.lstrip("-")))
    if not worked or len(values) != 1 or not given & set(numbers):
        return None
    last = (
        parts[-1].replace("$", "").strip().rstrip(".")
    )  # `40$ ways.`: the math span closes inside the member
    final = re.match(r"\s*\$?\s*(-?\d[\d,]*(?:\.\d+)?)", last)
    if final and re.search(r"=\s*\$?\s*" + re.escape(final.group(1)) + r"(?!\d|\.\d)", problem or ""):
        return None  # the statement states the value: nothing to find
    return last, values.pop()


_CURRENCY_SIGNS = re.compile(r"\\?\$|" + CURRENCY_BEFORE)
_MARKDOWN_EMPHASIS = re.compile(r"\*\*([^*]+)\*\*|__([^_]+)__")
_IMAGINARY = re.compile(
    r"\\mathrm\{i\}|\\text\{i\}|\\operatorname\{i\}|\\mathrm\{\s*i\s*\}|(?<![^\W\d_])(?<!\\)i(?![^\W\d_])"
)  # a letter of any script beside it makes `i` part of a word (`Gọi x`, `nhiều`), not the imaginary unit
_SCIENTIFIC = re.compile(
    r"(\\times|\\cdot|\u00d7|\*)\s*10\s*\^|\d[eE][+-]?\d|\d\s*\$?\s*(\\[,;: ]\s*)?10\s*\^"
)


# numbers side by side: the LaTeX parser reads every juxtaposition as a mixed number (`2(3)` = 5, `2 3` = 5,
# `10 000` = 0), so a whole number before a fraction is made a mixed number, a number or closing bracket
# before an opening one a product, and any other two numbers separated by spacing no value at all; a whole
# number before a bracketed fraction (`4(5/11)`) is a mixed number in some sources (Ape210K) and a product in
# others (SciBench), so it is no value either
_MIXED = re.compile(r"(-?)(\d+)\s+(\d+)\s*/\s*(\d+)")
_SPACING = r"(?:\s|~|\\[ ,;:!]|\\q?quad\b)+"
_SIDE_BY_SIDE = re.compile(r"\d" + _SPACING + r"-?\d")
_WHOLE_BEFORE_BRACKETED_FRACTION = re.compile(
    r"(?<![\d.^_{])\d+\s*(?:\\left\s*)?\(\s*(?:\(?\s*\d+\s*\)?\s*/\s*\(?\s*\d+\s*\)?|\\[dt]?frac\s*\{?\s*\d+\s*\}?\s*\{?\s*\d+\s*\}?)\s*"
    r"(?:\\right\s*)?\)"  # (Math23K brackets the parts too: `7((2)/(3))`)
)
_TIMES_BEFORE_BRACKET = re.compile(r"(?<=[\d)\]}])\s*(?=(?:\\left\s*)?\()")


# `40 m²` for an area of a figure measured in m: the squared or cubed unit of a length the statement uses
_POWER_OF_LENGTH = re.compile(r"^(mm|cm|dm|m|km|in|ft|yd)\s*(?:²|³|\^\s*\{?[23]\}?)$")
_HOW_MANY = r"\bhow many|\bbao nhiêu|\bberapa|\bile|\bcuántos|\bcuántas|\bquantos|\bquantas|\bwie viele|\bcombien de|몇|多少|几"
_AREA_OR_VOLUME = re.compile(r"\b(area|volume|surface)\b|diện tích|thể tích|面积|体积|luas|volum", re.I)


# a key that names the compared number it chooses (`4.5 is larger`, `⁷⁄₁₀ is the greater`)
_NAMED_LARGER = re.compile(
    r"(.+?)\s+is\s+(?:the\s+)?(?:larger|greater|bigger|smaller|less|lesser)(?:\s+(?:one|number))?\s*[.!]?",
    re.I,
)
# `Which is greater: 0.6 or 0.59?`: the two numbers a statement compares
_COMPARED_PAIR = re.compile(
    r"\bwhich\s+(?:one\s+|number\s+)?is\s+(?P<way>greater|larger|bigger|smaller|less)\b[^?\d-]*"
    r"\$?(?P<a>-?\d*\.?\d+)\$?\s*(?:or|,)\s*\$?(?P<b>-?\d*\.?\d+)\$?\s*\?",
    re.I,
)
# a question that asks to compare (`Compare 1/6 vs 2/12`, `Which is greater?`, `Use <, > or =`): a relation is its answer
_COMPARE_ASKED = re.compile(
    r"\bcompare\b|\bwhich\s+(?:one\s+)?is\s+(?:greater|larger|bigger|smaller|less)\b|[<>]\s*,?\s*[<>]?\s*,?\s*or\s*=|"
    r"\bgreater than,? less than,? or equal",
    re.IGNORECASE,
)
_MONEY_WORD = re.compile(r"\b(dollars?|cents?)\b|(\$)|(¢)", re.IGNORECASE)


def _money_units(text: str) -> set[str]:
    """The money units a text writes: `dollars` (also `$`) and `cents` (also `¢`)."""
    found = set()
    for m in _MONEY_WORD.finditer(text):
        word = (m.group(1) or "").lower()
        found.add("cents" if word.startswith("cent") or m.group(3) else "dollars")
    return found


def _other_money_unit(key: str, problem: str) -> str | None:
    """A key in dollars for a statement in cents (or the reverse) whose question names neither: `5 dollars` for
    ten treats at 50 cents. The integer depends on the unit the question never fixes (500 in cents), so the
    rewrite must name it; None when the key writes no money unit, or the statement or its question uses the key's."""
    in_key = _money_units(key)
    if len(in_key) != 1:
        return None
    unit = next(iter(in_key))
    in_statement = _money_units(problem)
    if not in_statement or unit in in_statement:
        return None
    return f"the key is in {unit}, the statement only in {', '.join(sorted(in_statement))}: the integer depends on the unit"


def _unit_in_statement(unit: str, problem: str) -> bool:
    """Does the statement write `unit` after a number (`28 học sinh`) or ask for it (`bao nhiêu giờ`, `how
    many days`), or, for `m²` when it asks an area or a volume, write the length unit itself (`8 m`)?"""
    if re.search(r"(?:\d\$?|" + _HOW_MANY + r")\s*" + re.escape(unit) + r"(?!\w)", problem, re.I):
        return True
    power = _POWER_OF_LENGTH.match(unit)
    return bool(
        power
        and _AREA_OR_VOLUME.search(problem)
        and re.search(r"\d\s*" + re.escape(power.group(1)) + r"(?![\w²³^])", problem)
    )


_WORD = re.compile(r"(?<![A-Za-z\\])[A-Za-z]{2,}(?![A-Za-z])")  # a word (not a LaTeX command's name)


# the answer line a worked solution ends with (MetaMathQA's `The answer is: 36`, GSM8K's `#### 36`)
_SOLUTION_ANSWER_LINE = re.compile(
    r"(?:\bThe\s+(?:final\s+)?answer\s+is\s*:?|^\s*####)\s*(.+?)\s*\.?\s*\Z", re.I | re.M
)


def solution_answer(raw: str) -> str | Miss | None:
    """A key that is a worked solution (six words or more of prose): the answer it names by its dataset's
    convention, the content of its answer box (MATH's `solution`: `... so the graph has $\\boxed{2}$ vertical
    asymptotes.`, a percent sign right after the box kept) or its last line `The answer is: 36` / `#### 36`
    (MetaMathQA, GSM8K; also after the program that computes it, MathQA's `n0 = 5.0 ... #### 38`). Not a value
    found in the working. Boxes of different values, or a box and an answer
    line that disagree, are several answers (a Miss); a key that is no written solution (a bare box, `\\boxed{12}
    \\text{ cm}`) is None, left to the rules as it is."""
    from verifiers.extract import boxed_spans

    spans = boxed_spans(raw) if "box" in raw else []
    line = _SOLUTION_ANSWER_LINE.search(raw[spans[-1][1] :] if spans else raw)
    if not spans and not line:
        return None
    cuts = [0, *[x for span in spans for x in span], len(raw)]  # the text between the boxes
    outside = " ".join(raw[cuts[i] : cuts[i + 1]] for i in range(0, len(cuts), 2))
    before = outside[: line.start()] if line and not spans else outside
    # a program that computes the key (MathQA's annotated programs: `n0 = 5.0 ... answer = t3 - 100.0 ... #### 38`)
    program = bool(line and not spans and len(re.findall(r"(?m)^\s*[A-Za-z_]\w*\s*=\s*\S", before)) >= 2)
    if len(_WORD.findall(before)) < 6 and not program:
        return None  # six words of prose around the box or before the line: a written solution
    values = {re.sub(r"\s+|\$", "", raw[a:b]) for a, b in spans}
    if line:
        values.add(re.sub(r"\s+|\$", "", line.group(1)))
    if len(values) > 1:
        return Miss("a worked solution that gives several different values (boxes or an answer line)")
    if not spans:
        return line.group(1).strip()
    a, b = spans[-1]
    percent = re.match(r"\}?\s*\$?\s*\\?%", raw[b:])
    return raw[a:b].strip() + ("%" if percent else "")


def parse_answer(
    answer: str,
    *,
    problem_asks_equation: bool = False,
    problem: str | None = None,
    units: tuple[str, ...] = (),
) -> Parsed | Miss:
    """Read an answer string (LaTeX or plain) into an exact sympy number, or say why not.

    `problem` (the statement) lets a unit after the number (`144km`, `100 m`) be read off when the
    statement writes that unit after a number too; `units` are known to be units otherwise (the one
    every multiple-choice option wrote after its number, `pipelines.classify.choice_unit`)."""
    from latex2sympy2_extended import latex2sympy

    if answer is None or not str(answer).strip():
        return Miss("empty answer", llm=False)
    # `59.99999999999999`: the value a float printed stands for
    answer = float_rendering(str(answer)) or answer
    raw = re.sub(
        r",\\!\s*", ",", _LAYOUT_TAIL.sub("", undoubled_backslashes(str(answer)))
    )  # 11,\! 111,\! 100: LaTeX thousands separators
    opened = _ANSWER_THEN_WORKING.match(raw)
    if opened and not _ANSWER_THEN_WORKING.match(opened.group(2)):
        return _answer_before_working(
            opened, problem, units
        )  # `Answer: 3\n\n1 + 2 * 3 - 4\n\n1 + 6 - 4\n\n7 - 4 = 3`
    if "\n" in raw.strip() and "**" in raw:
        bold = _bold_worked_value(raw, problem, units)
        if bold is not None:  # `Base 10 cm, height 6 cm\n - Area = (10 × 6) ÷ 2 = 60 ÷ 2 = **30 cm²**`
            return bold
    # worksheets' `5/6` in a code span and `23.4 + 15.7 = **39.1**` in bold
    raw = _MARKDOWN_EMPHASIS.sub(lambda m: m.group(1) or m.group(2), raw.strip().strip("`"))
    raw = _BOLD_MATH.sub(r"\1", unicode_math(raw))  # `$\mathbf{14}$`: bold, not a symbol named 14
    raw = KEY_LABEL.sub(
        "", without_html(raw).strip()
    )  # `Đáp án: 100 (km).`, `Answer: 12`, `답 : 5`: its label
    if _PLACE_VALUE_KEY.fullmatch(raw.strip()):
        return Miss("a digit and its place (`4 hundreds` is 400): the value depends on what is asked")
    written = raw.strip().rstrip("。")
    numeral = _CN_NUMERAL_KEY.fullmatch(written)
    # a lone digit (`五`) is left alone: an option `五` for `星期（ ）` is Friday, not the number 5
    value = chinese_number(numeral.group(1)) if numeral and len(written) > 1 else None
    mixed = _CN_MIXED_KEY.fullmatch(written)
    if mixed and mixed.group(2) == mixed.group(4):  # `一百二十步、九分步之五`: 120 and 5/9 of one unit
        whole, part = chinese_number(mixed.group(1)), chinese_number(mixed.group(3))
        value = whole + part if whole is not None and part is not None else None
    # `答曰三百六十一`, `四百八十六匹`, `荅曰三分之二`: a Chinese numeral and what it counts
    if value is not None:
        raw = str(value)
    bracketed = _VALUE_THEN_WORKING.fullmatch(raw.strip())
    worked_after = _value_then_working(bracketed, problem, units) if bracketed else None
    # `₹600 (20% of 500 = 100, so 500 + 100 = 600)`: the value its working ends in
    if worked_after is not None:
        return worked_after
    named = _NAMED_VALUE.fullmatch(raw.strip())
    if named and re.search(r"\d", named.group(2)) and _names_asked(named.group(1), problem or ""):
        raw = named.group(
            2
        )  # `Hypotenuse = 6\sqrt{2} ≈ 8.49 cm`, `b) Area = 72 cm^2`: the quantity the question asks
    approximated = _EXACT_THEN_DECIMAL.fullmatch(raw.strip())
    if approximated:  # `6\sqrt{2} ≈ 8.49`: the exact value, when the decimal after it is its rounding
        exact = (
            _approximated_chain(approximated.group(1), problem, units)
            if "=" in approximated.group(1)
            else parse_answer(approximated.group(1), problem=problem, units=units)
        )
        if isinstance(exact, Miss) and "=" in approximated.group(1):
            return exact
        if isinstance(exact, Parsed) and _rounds_to(exact.value, approximated.group(2)):
            return exact
        if isinstance(exact, Parsed):
            return Miss("a key whose decimal is not the rounding of the exact value before it")
    worked = solution_answer(raw)
    if isinstance(worked, Miss):
        return worked
    if worked is not None:  # a worked solution (MATH's `solution`, MetaMathQA's): its answer box or line
        return parse_answer(worked, problem_asks_equation=problem_asks_equation, problem=problem, units=units)
    concluded = _concluded(raw, problem)
    if concluded is not None:  # `Num ≈ 4n^2, Denom ≈ 12n^2. Limit is $4/12 = 1/3$.`: its last sentence
        return parse_answer(
            concluded, problem_asks_equation=problem_asks_equation, problem=problem, units=units
        )
    raw = _SPAN_THEN_WORDS.sub(r"\1", raw)  # `$100$ zł`, `$32768$ sposobów`: the number out of its math span
    raw = _UNIT_SPAN.sub(r" \1", raw)  # `50 \(cm^2\)`: a unit in its own math span after the number
    stated = _STATED_KEY.fullmatch(raw.strip())
    if stated:  # `Show that $a=2$.` (PutnamBench): the one value the sentence states
        raw = stated.group(1)
    named = _NAMED_LARGER.fullmatch(raw.strip()) if problem and _COMPARE_ASKED.search(problem) else None
    if named:  # `4.5 is larger` for `Which is larger: 4.5 or 4.125?`: the number the key names
        raw = named.group(1)
    if problem and _COMPARE_ASKED.search(problem) and re.search(r"[=<>≤≥]|\\[lg]eq?\b|\\neq?\b", raw):
        return Miss("a comparison is asked and the key states a relation (`1/6 = 2/12`), not a value")
    other = _other_money_unit(raw, problem) if problem else None
    if other is not None:
        return Miss(other)
    # a key that shows its working (`-12 + (-10) + 8 = -14`, `£12.45 + £3.67 = £16.12`, `8 × 12 = 96`): the value,
    # when exact arithmetic on the left gives it
    converted = _CONVERSION.fullmatch(raw.strip())
    if converted and problem and _conversion_asked(converted, problem):
        raw = converted.group(3)  # `3 cm = 30 mm` for `3 cm = ___ mm`: the converted amount, checked exactly
    restated = restated_expression(raw, problem) if problem and "=" in raw else None
    if restated is not None:  # `\lim_{x \to 0} \frac{\sin(3x)}{x} = 3` for that limit: the value
        return parse_answer(restated, problem=problem, units=units)
    chain = worked_chain(raw.strip(), problem or "") if raw.count("=") >= 2 else None
    if chain is not None:  # `10 + 2 * 5 = 10 + 10 = 20`: its last member, when its arithmetic gives it
        if re.search(r"π|\\pi\b", raw) and not _PI_GIVEN.search(problem or ""):
            return Miss(
                "a worked key that puts a number for pi (`2 × π × r = 2 × 22/7 × 7`) the statement did not give"
            )
        last = parse_answer(chain[0], problem=problem, units=units)
        if isinstance(last, Parsed) and last.value == sympy.Rational(
            chain[1].numerator, chain[1].denominator
        ):
            return last
        return Miss("a worked key whose arithmetic does not give its value")
    shown = _WORKED.fullmatch(raw.strip())
    lhs = arithmetic_value(_CURRENCY_SIGNS.sub("", shown.group(1)), needs_operator=False) if shown else None
    if lhs is not None:
        right = shown.group(2).strip()
        if re.fullmatch(r"\d{1,3}(?:,\d{3})+", right) and lhs == int(right.replace(",", "")):
            right = right.replace(",", "")  # `7! = 5,040`: the working fixes the commas as thousands
        rhs = parse_answer(right, problem=problem, units=units)
        if isinstance(rhs, Parsed) and rhs.value == sympy.Rational(lhs.numerator, lhs.denominator):
            return rhs
        return Miss("a worked key whose arithmetic does not give its value")
    if _PART_LABELS.match(
        raw.strip()
    ):  # `(1)(4)(5)`, `(1)4 (2)1/9`: numbered statements or parts, not a product
        return Miss("numbered parts or statements: several values")
    listed = _ONE_ELEMENT_LIST.fullmatch(raw.strip())
    if listed:  # `[4332.0]` (MWPToolkit's keys): a list of one value is that value
        raw = listed.group(1)
    alternatives = _EXACT_OR_DECIMAL.fullmatch(raw.strip())
    if alternatives and _approximates(alternatives.group(2), alternatives.group(1)):
        raw = alternatives.group(1)  # `40/3 | 13.333` (Dolphin18K): the exact value and its decimal
    counter = _SCRIPT_COUNTER.fullmatch(raw.strip())
    if (
        counter and problem and re.search(r"(?:\d|몇|何)\s*" + counter.group(2), problem)
    ):  # particles follow: `몇 그루인가`, `何ページ読みましたか`
        # `15그루` for `몇 그루`, `120ページ` for `何ページ`: a counter the statement uses
        raw = counter.group(1)
    chinese = _CJK_MEASURE.fullmatch(raw.strip())
    if chinese:  # `24项`, `2个`, `15厘米`: a number and the word for what it counts
        raw = chinese.group(1)
    counted = _WORDS_AFTER.fullmatch(raw.strip())
    if counted is None and problem and not _ALGEBRA_ASKED.search(problem):
        counted = _GLUED_WORD.fullmatch(raw.strip())
    if counted and (
        counted.group(2).strip() in units
        or (problem and _unit_in_statement(counted.group(2).strip(), problem))
    ):
        # `28 học sinh`, `27 tuổi`: what the number counts, written after a number in the statement too
        raw = counted.group(1)
    s = _strip_outer(raw)
    s = _CURRENCY_BEFORE.sub("", s)  # \$18.90, Rs. 750: the currency is the unit, not the value
    s = _CURRENCY_AFTER.sub("", s)  # `40€`, `375 €`, `50\,₽`: a currency sign written after the amount
    unit_after = _UNIT_AFTER.search(s)
    if (
        unit_after
        and (
            unit_after.group(1) in units
            or (problem and re.search(r"\d\s*" + re.escape(unit_after.group(1)) + r"(?![A-Za-z])", problem))
            or (problem and _unit_asked_by_name(unit_after.group(1), problem))
        )
        # `Simplify 2m + 3m`, `2m + 4m`: a one-letter unit of an algebra statement or of like terms is a variable
        and not (
            len(unit_after.group(1)) == 1 and problem and _one_letter_variable(unit_after.group(1), problem)
        )
    ):
        s = s[: unit_after.start()]
    s = _UNIT_PAREN.sub("", s).strip()  # ASDiv: `38 (pages)`, `0.46 (dollars)`
    if _IMAGINARY.search(s):
        return Miss("complex number (has an i)")
    if re.search(r"\\approx|\u2248|\\sim\b|approx", s):
        return Miss("approximate answer (\\approx): not an exact value")
    if re.search(r"\d\s*:\s*-?\d", s):
        return Miss("ratio a:b: not one number")
    if _SCIENTIFIC.search(s):
        return Miss("scientific notation: significant figures, approximate unless proven")
    if re.search(r"\\times|\u00d7", s):
        return Miss("a product sign between values: several values, not one product")
    if re.search(r"\b(or|and)\b|\\(text|mathrm)\{\s*(or|and)\s*\}", s):
        return Miss("several answers")
    # thousands separators (well-formed groups only), also before the words of a unit (`20,000 dollars`)
    thousands = re.fullmatch(r"(-?[1-9]\d{0,2}(?:,\d{3})+)((?:\s+[A-Za-z]{2,}){0,2})", s)
    if thousands:
        s = thousands.group(1).replace(",", "") + thousands.group(2)
    s = s.replace("{,}", "")
    if has_top_level_separator(s):
        return Miss("tuple or several answers")
    if re.match(r"^[\[(].*[\])]$", s) and "," in s:
        return Miss("interval or tuple")
    if re.search(r"\\(in|cup|cap|le|ge|leq|geq|lt|gt|neq)\b|[<>]|\\infty", s):
        return Miss("interval or inequality")
    m = re.fullmatch(r"([A-Za-z](_\{?\w+\}?)?|\\[a-zA-Z]+)\s*=\s*(.+)", s)
    if m and m.group(1) in ("x", "y") and re.search(r"\d", m.group(3)) and problem_asks_equation:
        return Miss("an equation (a line, a directrix), not one number")
    if m and "=" not in m.group(3):
        s = m.group(3)  # `k=1`, `M=\frac{9}{32}\sqrt{2}`: drop the name
    if "=" in s:
        return Miss("equation or function")
    unit = None
    if _DEGREE.search(s):
        unit = "degrees"
        s = _DEGREE.sub("", s).strip()
    if re.search(r"\\?%", s):
        unit = "percent"
        s = re.sub(r"\\?%", "", s)
    s = _UNIT_TEXT.sub("", s).strip()  # trailing unit words: \text{ cm}^2, \mbox{ inches}
    s = _UNIT_WORDS.sub(r"\1", s).strip()  # 0.59 gallons, 8 cm
    if not s:
        return Miss("empty answer", llm=False)
    decimals = 0
    dm = re.fullmatch(r"-?\s*\d*\.(\d+)", re.sub(r"^[({]\s*(.*?)\s*[)}]$", r"\1", s))  # `(0.829)` is 0.829
    if dm:
        decimals = len(dm.group(1).rstrip("0"))
    elif re.search(r"\d\.\d", s):  # `2.5\pi`, `\frac{1.5}{2}`: no decimal proof covers a decimal inside
        return Miss("a decimal inside an expression: its exactness is unproven")

    if _WHOLE_BEFORE_BRACKETED_FRACTION.search(
        s
    ):  # `4(5/11)`: a mixed number (Ape210K) or a product (SciBench)
        return Miss("a whole number before a bracketed fraction: a mixed number or a product; not decided")
    mixed = _MIXED.fullmatch(s)
    if mixed:  # `2 1/2`: a whole number and a fraction (the parser would read (2+1)/2)
        sign, whole, num, den = mixed.groups()
        s = f"{sign}({whole} + {num}/{den})"
    elif _SIDE_BY_SIDE.search(s):
        return Miss("numbers side by side (a list, or a thousands grouping to confirm): not one value")
    s = _TIMES_BEFORE_BRACKET.sub(r" \\cdot ", s)  # `3(\frac13)`: a product (the parser: 3 + 1/3)

    def _exact(mt: re.Match) -> str:
        whole, frac = mt.group(1) or "0", mt.group(2)
        return f"({int(whole + frac)}/{10 ** len(frac)})"

    s = re.sub(r"(\d*)\.(\d+)", _exact, s)  # decimals stay exact, never floats
    if _power_depth(s) >= 3:
        return Miss("power tower too large to evaluate")
    based = _BASE_NUMERAL.fullmatch(s.strip())
    if (
        based and based.group(2) != "10"
    ):  # `12_5`, `1000111_{2}`: the digits are not the integer they stand for
        return Miss(f"a numeral in base {based.group(2)}: its digits are not the integer it stands for")
    if based:
        s = based.group(1)  # `3613_{10}`: a decimal numeral
    if _COUNTING_KEY.fullmatch(s.strip()):  # `C(100, 15)`, `26P3`, `\binom{10}{6}`, `7!`: the count, exactly
        counted = evaluate(s, needs_operator=False)
        if counted is not None and counted.is_Integer:
            return Parsed(value=counted, unit=unit, decimals=0)
    try:
        expr = latex2sympy(s)
    except Exception as e:  # the parser raises plain Exception on bad LaTeX
        return Miss(f"unparseable answer: {str(e).splitlines()[0][:80]}")
    if not isinstance(expr, sympy.Expr):
        return Miss(f"not a number ({type(expr).__name__})")
    if expr.free_symbols:
        names = ", ".join(sorted(str(x) for x in expr.free_symbols))
        return Miss(f"expression in variables ({names})")
    value = _safe_eval(expr)
    if isinstance(value, Miss):
        return value
    if value.has(sympy.zoo, sympy.oo, sympy.nan) or not value.is_real:
        return Miss("not a finite real number", llm=False)
    return Parsed(value=value, unit=unit, decimals=decimals)


def _log10_size(x: sympy.Expr) -> float:
    """|log10 |x||, without overflowing floats for huge rationals."""
    if x.is_Rational:
        return abs(abs(x.p).bit_length() - x.q.bit_length()) * math.log10(2) + 1
    return abs(math.log10(abs(float(x))))


def _safe_eval(expr: sympy.Expr) -> sympy.Expr | Miss:
    """Evaluate bottom-up, refusing powers and factorials whose size would hang sympy."""
    if not expr.args:
        return expr
    args = []
    for a in expr.args:
        v = _safe_eval(a)
        if isinstance(v, Miss):
            return v
        args.append(v)
    if isinstance(expr, sympy.Pow) and all(a.is_number for a in args) and args[1].is_real and args[0] != 0:
        base, exp = args
        # digits of the result ~ |exp| * |log10 |base||, on both sides of 1 (2^9999, (1/2)^-9999)
        if abs(exp) > 10**6 or abs(float(exp)) * _log10_size(base) > _POW_LIMIT:
            return Miss("number too large")
    if isinstance(expr, sympy.factorial) and args[0].is_number and args[0] > 800:
        return Miss("number too large")
    try:
        return expr.func(*args)
    except (TypeError, ValueError) as e:
        return Miss(f"cannot evaluate: {e}")


# ---------------------------------------------------------------------------------------------
# the rules


_EXPRESS = re.compile(
    r"\s*(Express|Give|Write)\s+(your|the)\s+answer\s+(as|in)[^.?!]*[.?!]?\s*$", re.IGNORECASE
)


def _append(problem: str, sentence: str) -> str:
    """Append the AIME-style sentence to the statement."""
    return f"{problem.rstrip()} {sentence}".strip()


_SQUAREFREE = "is not divisible by the square of any prime"


def _integer(v: sympy.Expr) -> int | None:
    return int(v) if v.is_Integer else None


def _radical_parts(v: sympy.Expr) -> tuple[int, int, int, int] | None:
    """Write v as (a + b*sqrt(c))/d with c > 1 squarefree, d > 0 and gcd(a, b, d) = 1."""
    v = sympy.expand(sympy.radsimp(v))
    a, b, c = sympy.Rational(0), sympy.Rational(0), None
    for term in sympy.Add.make_args(v):
        if term.is_Rational:
            a += term
            continue
        coeff, rest = term.as_coeff_Mul()
        if not (isinstance(rest, sympy.Pow) and rest.exp == sympy.Rational(1, 2) and rest.base.is_Integer):
            return None
        if c is not None and rest.base != c:
            return None
        c, b = rest.base, b + coeff
    if c is None or b == 0 or not a.is_Rational or not b.is_Rational:
        return None
    d = sympy.ilcm(a.q, b.q)
    A, B = int(a * d), int(b * d)
    g = reduce(math.gcd, [A, B, int(d)])
    return A // g, B // g, int(c), int(d) // g


def _signed(sign: int, name: str) -> str:
    return f"-{name}" if sign < 0 else name


def _rule_radical(problem: str, v: sympy.Expr) -> Rewrite | None:
    parts = _radical_parts(v)
    if parts is None:
        return None
    a, b, c, d = parts
    root = f"{_signed(b, 'm')}\\sqrt{{n}}"
    if a == 0:
        params = {"m": abs(b), "n": c}
        body, names = root, "$m$ and $n$"
    else:
        params = {"k": abs(a), "m": abs(b), "n": c}
        # lead with the positive term, as a contest would write it (11 - 2 sqrt 6, sqrt 5 - 1)
        if a > 0:
            body = f"k {'-' if b < 0 else '+'} m\\sqrt{{n}}"
        elif b > 0:
            body = "m\\sqrt{n} - k"
        else:
            body = "-k - m\\sqrt{n}"
        names = "$k$, $m$ and $n$"
    if d == 1:
        rule = "root_multiple" if a == 0 else "radical"
        form = f"${body}$"
        cond = f"where {names} are positive integers and $n$ {_SQUAREFREE}"
    else:
        rule = "radical_fraction"
        params["p"] = d
        if a == 0:
            num = "m\\sqrt{n}" if b > 0 else "-m\\sqrt{n}"
            form = f"$\\frac{{{num}}}{{p}}$"
            cond = (
                f"where $m$, $n$ and $p$ are positive integers, $m$ and $p$ are relatively prime, "
                f"and $n$ {_SQUAREFREE}"
            )
        else:
            form = f"$\\frac{{{body}}}{{p}}$"
            cond = (
                f"where $k$, $m$, $n$ and $p$ are positive integers, the greatest common divisor "
                f"of $k$, $m$ and $p$ is $1$, and $n$ {_SQUAREFREE}"
            )
    total = sum(params.values())
    find = "+".join(params)
    detail = {**params, "form": form.strip("$"), "signs": {"a": int(a), "b": int(b)}}
    text = f"The answer can be written as {form}, {cond}. Find ${find}$."
    return Rewrite(rule, _append(problem, text), str(total), detail)


def _rule_fraction(problem: str, v: sympy.Rational) -> Rewrite:
    m, n = abs(int(v.p)), int(v.q)
    form = "-\\frac{m}{n}" if v < 0 else "\\frac{m}{n}"
    text = (
        f"The answer can be written as ${form}$, where $m$ and $n$ are relatively prime "
        f"positive integers. Find $m+n$."
    )
    return Rewrite("fraction", _append(problem, text), str(m + n), {"m": m, "n": n, "negative": bool(v < 0)})


def _rule_decimal(problem: str, v: sympy.Rational, places: int, *, rounding: str | None = None) -> Rewrite:
    scale = 10**places
    if rounding:  # the rounding travels with the statement, word for word
        text = f"If the answer, rounded as asked ({rounding}), is $x$, find ${scale}x$."
    else:
        text = f"If the answer is $x$ (a terminating decimal), find ${scale}x$."
    return Rewrite("decimal", _append(problem, text), str(int(v * scale)), {"places": places, "scale": scale})


def _rule_pi(problem: str, v: sympy.Expr) -> Rewrite | None:
    r = sympy.nsimplify(sympy.simplify(v / sympy.pi))
    if not r.is_Rational or r == 0:
        return None
    sign = "-" if r < 0 else ""
    if r.is_Integer:
        text = f"The answer can be written as ${sign}k\\pi$, where $k$ is a positive integer. Find $k$."
        return Rewrite(
            "pi_multiple",
            _append(problem, text),
            str(abs(int(r))),
            {"k": abs(int(r)), "negative": bool(r < 0)},
        )
    m, n = abs(int(r.p)), int(r.q)
    text = (
        f"The answer can be written as ${sign}\\frac{{m\\pi}}{{n}}$, where $m$ and $n$ are relatively "
        f"prime positive integers. Find $m+n$."
    )
    return Rewrite(
        "pi_multiple", _append(problem, text), str(m + n), {"m": m, "n": n, "negative": bool(r < 0)}
    )


_UNIT_SENTENCE = {
    "degrees": "Give the answer in degrees.",
    "percent": "Give the answer as a percentage, without the percent sign.",
}
# the statement itself fixes the unit of the answer (otherwise 45 degrees could be pi/4, 10% could be 0.1)
_UNIT_SIGNS = {"degrees": {"°", "^\\circ"}, "percent": {"%", "\\%"}}
_ASKS_UNIT = {
    "degrees": re.compile(
        r"\b(in degrees|how many degrees|number of degrees|degree measure|measure in degrees|"
        r"nearest (tenth of a |hundredth of a )?degree)\b|度数",
        re.I,
    ),
    "percent": PERCENT_MENTIONED,  # `what percent`, `%`, `Jakim procentem`, `百分之几`, in the languages labelled
}
# the statement writes its own angles in degrees (`angles x, x and 40°`): degrees are its unit, unless radians are named
_WRITES_DEGREES = re.compile(r"\d\s*(?:°|\^\s*\{?\s*\\circ)")
# the statement asks for an exact form that a decimal key can only approximate
_ASKS_EXACT_FORM = re.compile(
    r"common fraction|simplest (radical|fractional) form|radical form|in terms of \\?pi|lowest terms|"
    r"as a fraction|mixed number",
    re.I,
)
# complex statements that ask for a real quantity (a modulus, a real or imaginary part)
_ASKS_REAL_PART = re.compile(r"real part|imaginary part|modulus|实部|虚部|模|\|\s*z", re.I)
_UNREDUCED = re.compile(r"^-?\s*(?:\\frac\{(\d+)\}\{(\d+)\}|(\d+)\s*/\s*(\d+))$")
_FRACTION_FORM = re.compile(
    r"\b(numerator|denominator|reduces? to|reduced|lowest terms|simplif(y|ies|ied) to|original fraction)\b|"
    r"约分|分子|分母|原来的分数|最简分数",
    re.I,
)
_SEVERAL_ALL = re.compile(r"\b(find|determine|list|give|compute|what are) all\b|求所有|求出所有", re.I)
_ASKS_MEAN = re.compile(r"\b(mean|average)\b|平均", re.I)
# an instruction to the answerer that names a form no integer has ("Express your answer as a common fraction", "in
# simplest radical form", "in terms of pi", "as a mixed number"): an integer key for it has lost part of its value
# (a scraped key that kept the first integer of `\\sqrt{109}` or `3/5`); "what is the sum of the numerator and
# denominator when ... is expressed as a common fraction" is no instruction and stays
_ANSWER_INSTRUCTION = re.compile(
    r"\b(?:express|give|write|leave|enter|state|present)\s+(?:your|the|each|all)\s+answers?\b[^.?!]*", re.I
)
_NON_INTEGER_FORM = re.compile(
    r"common fraction|improper fraction|mixed number|radical form|in terms of \$?\\?(?:pi|π)|"
    r"fraction in (?:simplest|lowest) (?:form|terms)|simplest fractional form",
    re.I,
)
# an answer "in terms of" named quantities (`Determine mu in terms of the angle of the plane`): an expression
_IN_TERMS_OF = re.compile(r"\bin terms of\b", re.I)
# solving an inequality (`不等式x-3＜0的解集`, `求解不等式...`, "the solution set"): a set, not the endpoint a key gives;
# an extreme of a strict inequality's solutions (`求不等式2x-1＞3的解集的最小值`) is never attained. Integer solutions, their
# count or sum, an extreme of a non-strict inequality or of variables declared integers are numbers
_INEQUALITY = re.compile(
    r"不等式|为正数|为负数|象限|\binequalit(?:y|ies)\b", re.I
)  # `使y为正数`, `在第一象限`: strict
_SOLVING_ASKED = re.compile(
    r"解集|求解不等式|解不等式|的解[为是]?|最大解|最小解|\bsolution set\b|\bsolve the inequalit", re.I
)
# an extreme *value* of the solutions asked (not check.py's broader bound words: a bound is not asked here)
_EXTREME_VALUE_ASKED = re.compile(
    r"最大值|最小值|\b(?:largest|smallest|greatest|least|maximum|minimum)\b", re.I
)
_NON_STRICT = re.compile(r"[≤≥≦≧]|\\[lg]eq?\b|\\[lg]eqslant|<=|>=")
_INTEGER_SOLUTIONS = re.compile(
    r"整数|个数|多少个|几个|之和|的和|\b(?:integers?|how many|number of|sum)\b", re.I
)
_INTEGER_VARIABLES = re.compile(r"均?为正?整数|\bare (?:positive )?integers\b", re.I)


def inequality_solution_asked(problem: str) -> bool:
    """The statement asks to solve an inequality, or for an extreme of a strict one's solutions (see above)."""
    if not _INEQUALITY.search(problem or ""):
        return False
    ask = _asking_clause(problem)
    if _INTEGER_SOLUTIONS.search(ask):
        return False
    if _EXTREME_VALUE_ASKED.search(ask):
        return not _NON_STRICT.search(problem) and not _INTEGER_VARIABLES.search(problem)
    return bool(_SOLVING_ASKED.search(ask))


# the last ask is a function itself (`Find f(x).`): a number key answers something else
_ASKS_FUNCTION = re.compile(
    r"\b(?:find|determine|compute|what is)\s+(?:the function\s+)?\$?\s*[a-zA-Z]\s*\(\s*x\s*\)\s*\$?\s*[.?]?\s*$",
    re.I,
)


def _asking_clause(problem: str) -> str:
    """The clause that asks: the last one ending in a question mark, else the last clause (`，求k的最大值？`)."""
    clauses = [c for c in re.split(r"(?<=[?？])|[，,。；;]", problem or "") if c.strip()]
    asking = [c for c in clauses if c.rstrip().endswith(("?", "？"))]
    return (asking or clauses or [""])[-1]


_AS_A_SUM = re.compile(
    r"\s*(?:express|write|represent|exprime[rz]?|écri(?:s|vez|re)|schreib\w*|escrib\w*)\b[^.?]*?\b(?:as|comme|als|como)\s+"
    r"(?:an?\s+|une?\s+|la\s+|eine?\s+)?(?:sum|product|difference|somme|produit|summe|produkt|suma|producto)\b",
    re.I,
)


_EXPANDED_FORM = re.compile(r"\bexpanded (?:form|notation)\b", re.I)


def non_integer_form_asked(problem: str) -> str | None:
    """The form a statement's answer instruction names that no integer has (or a function asked), else None."""
    for m in _ANSWER_INSTRUCTION.finditer(problem or ""):
        form = _NON_INTEGER_FORM.search(m.group(0))
        if form:
            return form.group(0)
        # "to the nearest tenth" (an integer key would be written 66.0); "to the nearest cent" may be whole dollars
        rounds = re.search(r"\bnearest\b|decimal places?", m.group(0), re.I) and not re.search(
            r"\bcents?\b", m.group(0)
        )
        places = _round_places(m.group(0)) if rounds else None
        if places:
            return f"a decimal to {places} place{'s' if places > 1 else ''}"
    if _ASKS_FUNCTION.search((problem or "").rstrip()):
        return "a function"
    if _AS_A_SUM.match(
        asking_sentence(problem or "") or ""
    ):  # `Exprime 23 comme somme de carrés.`: a representation
        return "a representation (a sum or a product of terms)"
    # `Write 4,508 in expanded form`: 4000 + 500 + 8, not the number
    if _EXPANDED_FORM.search(problem or "") and not re.search(
        r"\bstandard form\b|\bwhat number\b", problem, re.I
    ):
        return "a representation (the expanded form of a number)"
    if _IN_TERMS_OF.search(problem or ""):
        return "an expression (in terms of other quantities)"
    if inequality_solution_asked(problem):
        return "the solution of an inequality (a set; a strict one has no largest or smallest member)"
    return None


_ROUND_PLACES = [
    (r"ten-thousandth", 4),
    (r"thousandth", 3),
    (r"hundredth|cent\b", 2),
    (r"tenth", 1),
    (r"whole|integer|dollar|percent|degree", 0),
]
_WORD_PLACES = {"one": 1, "two": 2, "three": 3, "four": 4, "five": 5}


def _round_places(phrase: str) -> int | None:
    """Decimal places a rounding phrase asks for ("to the nearest hundredth" -> 2)."""
    m = re.search(r"(one|two|three|four|five|\d)\s+decimal\s+places?", phrase, re.I)
    if m:
        k = m.group(1).lower()
        return int(k) if k.isdigit() else _WORD_PLACES[k]
    for pattern, places in _ROUND_PLACES:
        if re.search(pattern, phrase, re.I):
            return places
    return None


def _means(problem: str) -> list:
    """The mean of each listed run of three or more numbers ("69, 68, 70 and 74")."""
    out = []
    for m in re.finditer(r"\d+(?:\.\d+)?(?:\s*(?:,|,?\s*and)\s*\d+(?:\.\d+)?){2,}", problem or ""):
        nums = [Fraction(x) for x in re.findall(r"\d+(?:\.\d+)?", m.group(0))]
        out.append((sum(nums) / len(nums), f"the mean of the {len(nums)} listed numbers"))
    return out


# "express as a decimal", "convert to a terminating decimal": the statement asks for the exact value
_ASKS_DECIMAL = re.compile(
    r"\b(as|in|to|into) (a |an )?(terminating |exact )?decimal( form| number)?\b|\bdecimal (form|equivalent)\b|"
    r"\(as a decimal\)|化成小数|写成小数|用小数表示",
    re.I,
)
# the asked quantity is a decimal numeral itself: "what is this decimal", a number built from its
# digits in named places (tenths, hundredths), a decimal point moved or dropped
_ASKS_NUMERAL = re.compile(
    r"(这个|原来的|原|这个[一二两三四五]位)小数(原来)?(最[大小])?是(多少|几)|"
    r"(十分位|百分位|千分位).{0,40}这个数是多少|小数点.{0,60}(这个数|原数|原来的数)是多少|"
    r"\b(tenths|hundredths|thousandths) (place|digit)\b[^?]{0,200}\bwhat is the (number|decimal)\b|"
    r"\bdecimal point\b[^?]{0,200}\bwhat (is|was) the (original )?(number|decimal)\b",
    re.I,
)


def key_contradicted(problem: str, value: sympy.Expr) -> Miss | None:
    """A reject when the question is one rounding of one number (`Round 492 to the nearest hundred.`), one arithmetic
    expression or one polynomial equation (`pipelines.arithmetic`) whose exact value or solutions the key is not; a
    deferral when the equation has two solutions and the key is one of them (several values); else None. A quiz
    bank's slip is caught here instead of being carried into the corpus. Past the rounding, a statement that speaks of
    estimates or roundings is not read as exact."""
    rounding = asked_rounding(problem)
    if rounding is not None and sympy.Rational(rounding[1].numerator, rounding[1].denominator) != value:
        return Miss(
            f"the key contradicts the question: {rounding[0]!r} gives {rounding[1]}, not the key {value}",
            llm=False,
        )
    if _INEXACT_WORDS.search(problem):
        return None
    conversion = asked_conversion(problem)
    if conversion is not None:
        text, alternatives = conversion
        if any(sympy.Rational(v.numerator, v.denominator) == value for _, v in alternatives):
            return None
        cut = []
        for a, target in alternatives:
            # the key in the unit the decimal is written in (a percent's number for `33.33%`)
            written = a.rstrip("%").strip()
            if "." in written and value.is_Rational and target:
                key = value * sympy.Rational(written) / sympy.Rational(target.numerator, target.denominator)
                if _approximates(written, f"{key.p}/{key.q}"):
                    cut.append(a)
        if value.is_Rational and value.q > 1 and sympy.factorint(value.q).keys() <= {2, 5}:
            # `Convert 1/3 to a decimal.` keyed 0.333: the key is the stated number cut to its places
            places = max(sympy.multiplicity(2, value.q), sympy.multiplicity(5, value.q))
            if any(abs(value - sympy.Rational(t.numerator, t.denominator)) < sympy.Rational(1, 10**places)
                   for _, t in alternatives):  # fmt: skip
                cut.append(text)
        if cut:  # `Value of 33.33%?` keyed 1/3: the stated decimal is cut from the key's, so the key is not its value
            return Miss(
                f"the question's {cut[0]!r} and the key {value} differ by a decimal cut or rounded: approximate",
                llm=False,
            )
        return Miss(
            f"the key contradicts the question: {text!r} is exactly {alternatives[0][1]}, not the key {value}",
            llm=False,
        )
    expression = asked_expression(problem)
    if expression is not None:
        text, exact = expression
        if sympy.Rational(exact.numerator, exact.denominator) == value:
            return None
        return Miss(
            f"the key contradicts the question: the key {value} is not the value of {text!r}, which is exactly {exact}",
            llm=False,
        )
    equation = asked_equation(problem)
    if equation is None:
        return None
    text, letter = equation
    roots = equation_solutions(text, letter)
    if not roots:  # not a polynomial this solves: the key must at least satisfy it (`√(x² - 5) = 3` keyed 3)
        if value.is_Rational and equation_holds(text, value, letter) is False:
            return Miss(
                f"the key contradicts the question: {text!r} does not hold at the key {value}", llm=False
            )
        return None
    shown = ", ".join(str(r) for r in roots)
    if all(sympy.simplify(r - value) != 0 for r in roots):
        return Miss(
            f"the key contradicts the question: the key {value} is no solution of {text!r} ({shown})",
            llm=False,
        )
    if len(roots) > 1:
        return Miss(f"the equation {text!r} has {len(roots)} solutions ({shown}): several values")
    return None


def stated_expression_proof(problem: str, value: sympy.Rational) -> str | None:
    """The proof that a decimal key is exact when the question is one arithmetic expression that evaluates to it.

    The asking sentence must be `What is / Calculate / Evaluate ...` (or a worksheet blank after the
    expression) with nothing but the expression: then the answer is that expression's value, computed
    exactly with fractions (`pipelines.arithmetic`). A question that also speaks of rounding or an
    estimate is left out.
    """
    if _INEXACT_WORDS.search(problem or ""):
        return None
    expression = asked_expression(problem)
    if expression is None or sympy.Rational(expression[1].numerator, expression[1].denominator) != value:
        return None
    return f"the question is the expression {expression[0]!r}, evaluated exactly (fractions): {value}"


# what makes a money or metric amount possibly not whole cents / whole units: a division, a rate, a
# share, a fraction, a percentage, a mean, a power, pi (each may need a rounding the key hides)
_NOT_CLOSED = re.compile(
    r"\b(per|average|mean|median|split|splits|share[sd]?|sharing|equal(ly)?|divided?|divid\w*|ratio|rates?|"
    r"fractions?|half|halves|thirds?|fourths?|fifths?|sixths?|eighths?|tenths?|hundredths?|percent\w*|"
    r"times as|proportion\w*|same rate|at this rate|how long|speed|"
    r"square|cube|area|volume|circumference|radius|diameter|circle|pi|apiece|a piece|approximately|"
    r"about|round\w*|nearest|estimate\w*|exchange|convert\w*|decimal places|significant)\b|%|\\frac|\d\s*/\s*\d|\^|"
    r"\\pi|\\sqrt",
    re.I,
)
_QUARTER_COIN = re.compile(r"\b(a|one|\d+|two|three|four|five|six|seven|eight|nine|ten) quarters?\b", re.I)
_MONEY_ASK = re.compile(
    r"\bhow much (money|change|more money|less money|did|does|do|will|would|must|should|is|was|are|were)\b|"
    r"\b(cost|costs|pay|paid|spend|spent|earn|earned|save|saved|change|bill|total|price|worth)\b",
    re.I,
)
_MONEY_UNIT = re.compile(r"^(dollars?|us dollars?|usd|\$)$", re.I)
_METRIC_UNIT = re.compile(
    r"^(kilo|centi|milli)?(meters?|metres?|grams?|liters?|litres?)( of [a-z ]+)?$|^(km|kg|cm|mm|ml|l|g|m)$",
    re.I,
)
_COUNTED_PRICE = re.compile(  # "3 packs of paper for $3.87": a price for several, divided later
    r"\b\d+\s+(\w+\s+){0,4}?(for|cost|costs|were|was|is|are|at|sold for)\s+\\?\$\s*\d[\d.,]*(?![\d.,])(?!\s*(each|apiece))",
    re.I,
)


def _answer_unit(answer: str) -> str | None:
    """The unit word an answer carries (`0.46 (dollars)` -> dollars, `\\$18.90` -> $), or None."""
    s = str(answer or "").strip().strip("$").strip()
    if re.match(r"^\\?\$", s):
        return "$"
    m = re.search(r"\(\s*([A-Za-z][A-Za-z .'\-]+)\)\s*$", s) or re.search(
        r"\d\s*(?:\\text\{|\\mbox\{|\\mathrm\{)?\s*([A-Za-z][A-Za-z ]*)\}?\s*$", s
    )
    return m.group(1).strip().lower() if m else None


_ENGLISH_WORDS = re.compile(
    r"\b(the|and|of|is|are|how|what|each|for|with|has|have|he|she|they|did|does|much|many|if|than)\b", re.I
)
_OTHER_LANGUAGE_WORDS = re.compile(
    r"\b(que|del|los|las|una|por|der|und|das|ist|ein|eine|les|des|est|pour|une|não|para|che|yang|và|của)\b",
    re.I,
)


def _closed_amount_proof(problem: str, answer: str, places: int) -> str | None:
    """The whole-cent (whole-unit) closure argument, or None when its premises do not hold.

    Premises, all read off the text (no search over its numbers): the answer is money in dollars
    (or a metric measure); every number in the statement is an integer or a terminating decimal
    with at most two places (money: whole cents); nothing in the statement divides, shares,
    takes a rate, a fraction, a percentage, a mean, a power or pi, and no price is quoted for
    several items. Then the exact answer is a sum, difference or integer multiple of whole-cent
    amounts (and powers of ten between metric units): a terminating decimal that needed no
    rounding, so a key of at most two places (metric: three) is that exact value, not a rounding.
    """
    text = problem or ""
    if not _ENGLISH_WORDS.search(text) or _OTHER_LANGUAGE_WORDS.search(text):
        return (
            None  # the premises are read off English wording (`_NOT_CLOSED`); another language proves nothing
        )
    unit = _answer_unit(answer)
    money = (unit is not None and bool(_MONEY_UNIT.match(unit))) or (
        unit is None
        and bool(re.search(r"\\?\$\s*\d|\bdollars?\b|\bcents?\b", text))
        and bool(_MONEY_ASK.search(text))
    )
    metric = unit is not None and bool(_METRIC_UNIT.match(unit))
    if not (money or metric):
        return None
    if places > (2 if money else 3):
        return None
    probe = _QUARTER_COIN.sub("coins", text)
    if _NOT_CLOSED.search(probe) or (money and _COUNTED_PRICE.search(text)):
        return None
    if re.search(r"\d\.\d{3,}", text):  # a given amount finer than a cent
        return None
    question = re.split(r"(?<=[.!])\s+", text.strip())[-1]
    # "how much did each DVD cost", "each person gets": a division
    if re.search(
        r"\bhow much\b[^?]*\beach\b|\beach (\w+ )?(gets?|receives?|pays?|spends?|earns?)\b", question, re.I
    ):
        return None
    kind = (
        "closure, money in whole cents" if money else "closure, metric amounts (powers of ten between units)"
    )
    return (
        f"{kind}: every given number terminates and the statement only adds, subtracts and takes "
        f"whole multiples (no division, rate, fraction, percentage, mean or pi), so the exact answer "
        f"terminates and the key needed no rounding"
    )


# words that make a decimal key an estimate or a reading, whatever its digits
_INEXACT_WORDS = re.compile(
    r"\b(approx\w*|about|around|nearly|roughly|estimat\w*|round\w*|nearest|significant|decimal places)\b|约|近似|估",
    re.I,
)


def _dyadic_proof(problem: str, value: sympy.Rational, places: int) -> tuple[str | None, str]:
    """(proof, why not) for a dyadic key (exact value m/2^j) in a statement with no science signal.

    A dyadic key written to k >= 2 places is no k-place rounding of any other fraction whose
    denominator b is below 2*5^k (50 at two places, 250 at three): |a/b - m/2^j| >= 1/(b*2^k), more
    than the half unit 1/(2*10^k) a rounding may move. So the sloppy roundings of 1/3, 2/7, 5/12 that
    make most inexact keys cannot produce it; what is left is a rounding of an irrational or of a
    fraction with a large denominator landing on one of the few dyadic points (3 in 100 two-place
    roundings, 7 in 1000 three-place ones), in a statement that asks no rounding and says no
    "about". The argument reads the key and the wording, never the statement's numbers. A
    one-place x.5 is as close as 1/(2*10) to 5/11 and 6/11 and is what one rounding in ten gives,
    so it defers, as every non-dyadic key does (0.4 may be 3/7 to one place; 0.33 is 1/3).
    """
    if value.is_Integer or int(value.q) & (int(value.q) - 1):
        return None, ""  # not dyadic: no argument from the key's form
    if places < 2:
        return None, (
            f"decimal not proven exact: a one-place key ({value}) is what one rounding in ten gives; "
            f"nothing in the wording makes it exact"
        )
    if _INEXACT_WORDS.search(problem or ""):
        return None, "decimal not proven exact: the statement speaks of an estimate or a rounding"
    return (
        f"dyadic key {value} (denominator 2^{int(value.q).bit_length() - 1}) written to {places} places in "
        f"a statement with no science, measured or estimate signal: no other fraction with a denominator "
        f"below {2 * 5**places} is within half a unit of its last place",
        "",
    )


def decimal_proof(
    problem: str,
    value: sympy.Rational,
    places: int,
    *,
    percent: bool = False,
    answer: str = "",
    science: list[str] | None = None,
    pure: bool = False,
) -> tuple[str | None, str]:
    """(proof, why not): when is a terminating decimal key the exact answer? See `apply_rules`.

    `pure`: the statement shows no science, applied or measured-quantity signal at all (the
    dyadic argument is only made there).
    """
    text = problem or ""
    if science:
        return None, (
            f"science/applied decimal ({', '.join(science)}): the key is computed from constants or "
            f"measured data and its last digits depend on them; a solver must confirm it"
        )
    phrase = rounding_asked(text)
    if phrase is not None:
        asked = _round_places(phrase)
        if asked is not None and places <= asked:
            return f"the statement asks to round ({phrase!r}); the answer has {places} decimal place(s)", ""
        if asked is not None:
            return None, f"the answer has {places} decimals but the statement asks {phrase!r}"
        return None, f"the statement asks to round ({phrase!r}) to no stated number of places"
    if _ASKS_EXACT_FORM.search(text):
        return (
            None,
            "the statement asks for an exact form (fraction, radical, pi); the decimal key approximates it",
        )
    expression = None if percent else stated_expression_proof(text, value)
    if expression is not None:
        return expression, ""
    if _ASKS_DECIMAL.search(text) and not percent:
        return (
            "the statement asks for the exact value as a decimal and asks no rounding, so it terminates",
            "",
        )
    if pure and _ASKS_NUMERAL.search(text) and not _INEXACT_WORDS.search(text):
        return (
            "the statement asks for a decimal numeral itself (built from its digits, places or decimal "
            "point), which is written exactly",
            "",
        )
    if _ASKS_MEAN.search(text):  # the mean of the one listed run is the asked quantity, computed
        means = _means(text)
        targets = [value, value / 100] if percent else [value]
        if len(means) == 1 and any(
            sympy.Rational(means[0][0].numerator, means[0][0].denominator) == t for t in targets
        ):
            return f"{value} = {means[0][1]}, computed exactly", ""
        return None, "decimal not proven exact: not the exact mean of the one listed run of numbers"
    if not percent:
        compared = comparison_proof(text, value)
        if compared is not None:
            return compared, ""
        conversion = conversion_proof(text, value, answer)
        if conversion is not None:
            return conversion, ""
        closure = _closed_amount_proof(text, answer, places)
        if closure is not None:
            return closure, ""
    if pure:
        dyadic, why_not_dyadic = _dyadic_proof(text, value, places)
        if dyadic is not None:
            return dyadic, ""
        if why_not_dyadic:
            return None, why_not_dyadic
    return None, (
        "decimal not proven exact: no stated rounding, no request for a decimal, and the amount is "
        "not closed under the statement's operations (matching the statement's numbers proves nothing)"
    )


# a comma between digit groups: a thousands separator only for one well-formed number
_DIGIT_GROUPS = re.compile(r"^-?\d+(,\d+)+$")
_WELL_FORMED_GROUPS = re.compile(r"^-?[1-9]\d{0,2}(,\d{3})+$")
_SUGGESTS_TWO = re.compile(
    r"\b(both|pairs?|respectively|coordinates?|ordered|dimensions|values|solutions|roots|intervals?|"
    r"two (numbers|values|integers|solutions|roots|answers)|(min|minimum|smallest|least|lowest) and (max|maximum|"
    r"largest|greatest|highest)|(max|maximum|largest|greatest|highest) and (min|minimum|smallest|least|lowest))\b|"
    r"分别|各",
    re.I,
)


# a statement that writes a repeating decimal with a comma (`16,\bar{6}`) or asks for decimal places in a language
# that writes decimal commas (`Runde auf drei Nachkommastellen`, `tres decimales`)
_DECIMAL_COMMA_WORDS = re.compile(
    r"\d,\\(?:bar|overline)|Nachkommastelle|Dezimalstelle|\bdecimales\b|\bdécimales\b|\bdecimali\b|casas decimais"
    r"|знак\w* после запятой|chữ số thập phân|miejsc\w* po przecinku",
    re.I,
)


# a number of the statement grouped in thousands with dots (`Rp2.000`, `9.000 rupiah`, `1.250.000`)
_DOT_DECIMAL = re.compile(r"\d\.(?:\d{1,2}|\d{4,})(?!\d)")
_DOT_THOUSANDS = re.compile(r"(?<![\d.,])[1-9]\d{0,2}(?:\.\d{3})+(?![\d.,]\d)")


# numbers joined by bars or by spaced slashes (`455 || 600 || 305 || 1360`, `455 | 600`, `3 / 4 / 5`): a list of
# values as a quiz bank separates them, never a product or a chain of divisions (`|x|` opens with its bar)
_BAR_LIST = re.compile(r"\s*-?\d[\d,.]*\s*(?:\|{1,2}\s*-?\d[\d,.]*\s*)+")
_SLASH_LIST = re.compile(r"\s*-?\d[\d,.]*(?:\s+/\s+-?\d[\d,.]*){2,}\s*")


# a conversion drill: `1 mile = ? meters`, `Convert 5 km to m`, `How many feet are in 3 yards?`
_CONVERSIONS = (
    re.compile(r"(?P<n>\d+(?:\.\d+)?)\s*(?P<src>[A-Za-z]+)\s*=\s*(?:\?|_+|\.{3})\s*(?P<dst>[A-Za-z]+)"),
    re.compile(
        r"\b(?:convert|change)\s+(?P<n>\d+(?:\.\d+)?)\s*(?P<src>[A-Za-z]+)\s+(?:in)?to\s+(?P<dst>[A-Za-z]+)",
        re.I,
    ),
    re.compile(
        r"\b(?:express|write)\s+(?P<n>\d+(?:\.\d+)?)\s*(?P<src>[A-Za-z]+)\s+(?:in|as)\s+(?P<dst>[A-Za-z]+)",
        re.I,
    ),
    re.compile(
        r"\bhow\s+many\s+(?P<dst>[A-Za-z]+)\s+(?:are\s+)?(?:there\s+)?in\s+(?P<n>\d+(?:\.\d+)?)\s*(?P<src>[A-Za-z]+)",
        re.I,
    ),
)


def comparison_proof(problem: str, value: sympy.Rational) -> str | None:
    """The statement asks which of two numbers it writes is greater (or smaller) and the key is that one: a number
    the statement itself writes, chosen by comparing, so its decimal is exact as written; None otherwise."""
    picked = _compared_pick(problem)
    if picked is None or value != picked[0]:
        return None
    return f"the statement compares {picked[1][0]} and {picked[1][1]} and asks the {picked[2]}: the key is {value}, computed exactly"


def _compared_pick(problem: str) -> tuple[sympy.Rational, tuple[sympy.Rational, sympy.Rational], str] | None:
    """(the one asked, the two compared, the way asked) for `Which is greater: 0.6 or 0.59?`, or None."""
    m = _COMPARED_PAIR.search(problem or "")
    if m is None:
        return None
    a, b = sympy.Rational(m["a"]), sympy.Rational(m["b"])
    if a == b:
        return None
    way = m["way"].lower()
    return (max(a, b) if way in ("greater", "larger", "bigger") else min(a, b)), (a, b), way


def _asked_conversion(problem: str) -> tuple[re.Match, sympy.Rational] | None:
    """(the asking match, its exact result) of the one unit conversion a statement asks (`Convert 5 km to m`), or None."""
    for pattern in _CONVERSIONS:
        m = pattern.search(problem or "")
        exact = exact_conversion(m["n"], m["src"], m["dst"]) if m else None
        if exact is not None:
            return m, sympy.Rational(exact.numerator, exact.denominator)
    return None


def conversion_proof(problem: str, value: sympy.Rational, answer: str = "") -> str | None:
    """The key is the one unit conversion the statement asks, computed exactly (`Convert 250 centimetres to metres`
    keyed 2.5: 250 cm is 5/2 m, defined factors, no rounding), or None; a key that writes a unit of its own must
    write the one asked (`2.5 km` proves nothing)."""
    asked = _asked_conversion(problem)
    if asked is None:
        return None
    m, exact = asked
    written = _answer_unit(answer)
    if (written is not None and exact_conversion("1", written, m["dst"]) != 1) or exact != value:
        return None
    return f"the unit conversion asked ({m.group(0)!r}) gives {value} exactly (defined factors, no rounding)"


def conversion_miss(problem: str, value: sympy.Expr) -> Miss | None:
    """A Miss when the statement asks one unit conversion and the key is not its exact result (`1 mile = ? meters`
    keyed 1609: a mile is 1609.344 m, so the key is a rounding); the exact conversion itself stands."""
    asked = _asked_conversion(problem)
    if asked is None or asked[1] == value:
        return None
    return Miss(f"a unit conversion whose exact result is {float(asked[1]):g}, not the key: a rounding")


def digit_groups_miss(problem: str, answer: str) -> Miss | None:
    """A Miss when `120,450` in an answer may be a list, not one number with a thousands separator, and when
    numbers are joined by bars or spaced slashes (`455 || 600 || 305`, `3 / 4 / 5`)."""
    raw = str(answer or "")
    if _BAR_LIST.fullmatch(raw) or _SLASH_LIST.fullmatch(raw):
        return Miss(f"numbers separated by bars or slashes {raw[:40]!r}: a list of values, not one")
    s = _strip_outer(re.sub(r",\\!\s*", ",", raw))
    s = re.sub(r"\s*\([^)]*\)\s*$", "", s).replace("{,}", ",").strip()
    dotted = _CURRENCY_BEFORE.sub("", s)
    if (
        re.fullmatch(r"-?[1-9]\d{0,2}(?:\.\d{3})+", dotted)
        and _DOT_THOUSANDS.search(problem or "")
        and not _DOT_DECIMAL.search(problem or "")  # `12.45 + 3.678`: the statement's dots are decimal points
    ):
        # `Rp14.000` where the statement prices a pencil at `Rp2.000`: a thousands dot, never the decimal 14.000
        return Miss(
            f"digit groups {s!r} with a dot in a statement that groups thousands with dots: a decimal or thousands?"
        )
    if not _DIGIT_GROUPS.match(s):
        return None
    if not _WELL_FORMED_GROUPS.match(s):
        return None  # `0,315`, `1,3,5`: never a thousands number; `parse_answer` reads it as a list
    if re.fullmatch(r"-?\d{1,3},\d{3}", s) and (
        _STATEMENT_DECIMAL_COMMA.search(problem or "") or _DECIMAL_COMMA_WORDS.search(problem or "")
    ):
        # `849,615` where the statement writes `883,60 €`: a decimal comma as likely as a thousands separator
        return Miss(
            f"digit groups {s!r} in a statement that writes decimal commas: a decimal or a thousands number?"
        )
    question = re.split(r"(?<=[.!])\s+", (problem or "").strip())[-1]
    if _SUGGESTS_TWO.search(question) or several_asks(problem):
        return Miss(f"digit groups {s!r} while the question may ask for several values: a list?")
    return None


# a circle's length or area asked, with no pi in the statement or the key: the key used 22/7 or 3.14 (`44 m` for
# the circumference of a 14 m circle), unless the statement says which; any language
_CIRCLE = re.compile(
    r"\b(?:circles?|circular|semicircle|wheels?|hoops?|hula-?hoops?|hulahop|roda|lingkaran|círculo|circunferencia|"
    r"Kreis\w*|cercle|koło|koła|okrąg\w*|"
    r"hình tròn|vòng tròn|круг\w*|окружност\w*)\b|(?<!椭)圆(?!台)",
    re.I,
)
# a round solid, measured in the asking sentence itself (`Find the surface area of a sphere with a radius of 5 cm.`)
_ROUND_SOLID = re.compile(
    r"\b(?:hemispheres?|spheres?|cylinders?|cones?|esfera|cilindro|cono|Kugel|Zylinder|Kegel|sphère|cylindre|cône|"
    r"kula|walec|stożek|hình cầu|hình trụ|hình nón|bola|tabung|kerucut|шар\w*|цилиндр\w*|конус\w*)\b|球|圆柱|圆锥",
    re.I,
)
# a ratio or a count of one solid in another: pi cancels
_PI_CANCELS = re.compile(r"\bratio\b|\bhow many\b|\btimes\b|比", re.I)
_CIRCLE_MEASURE_ASKED = re.compile(
    r"\b(?:circumference|perimeter|area|volume|radius|diameter|arc length|keliling|luas|jari-jari|diameter|umfang|"
    r"volumen|objętość|objętości|thể tích|объ[её]м\w*|"
    r"fläche\w*|obwód|obwodu|pole|promień|średnic\w*|chu vi|diện tích|bán kính|đường kính|длин\w*|площад\w*|"
    r"радиус|диаметр)\b|周长|面积|体积|半径|直径",
    re.I,
)


# a height or distance from a 30° or 60° angle of elevation, or along a bearing of 030° (`52.0 km` north of the start for
# 60 km on a bearing of 030°): the exact value carries sqrt(3) (`173 m` for 100 sqrt 3)
_ELEVATION = re.compile(
    r"\b(?:angles? of (?:elevation|depression)|elevation|depression|shadow|bearings?)\b", re.I
)
_THIRTY_OR_SIXTY = re.compile(r"\b0?(?:30|60)\s*(?:°|\^\s*\{?\\circ\}?|degrees?\b)", re.I)


# a sequence to continue or complete (`2, 4, 8, ___`, `3, 6, __, 12`): at least three numbers and one blank in one run
_TERM = r"-?\d+(?:\.\d+)?"
_BLANK = r"_{2,}|\?|\(\s*\)|□"
_SEQUENCE = re.compile(rf"(?<![\d.,])(?:{_TERM}|{_BLANK})(?:\s*,\s*(?:{_TERM}|{_BLANK})){{3,}}")


def _regular(terms: list[Fraction]) -> bool:
    """Does a simple rule give every term, with terms to spare beyond what fixes it: a constant k-th difference
    (a polynomial of degree k <= 3, k + 3 terms at least), a constant ratio (4 terms), each term the sum of the two
    before (5 terms), or differences with a constant ratio (5 terms)?"""
    n = len(terms)
    row = terms
    for degree in range(4):
        if n >= degree + 3 and len(set(row)) == 1:
            return True
        row = [b - a for a, b in zip(row, row[1:], strict=False)]
    if n >= 4 and all(terms) and len({b / a for a, b in zip(terms, terms[1:], strict=False)}) == 1:
        return True
    if n >= 5 and all(terms[i] == terms[i - 1] + terms[i - 2] for i in range(2, n)):
        return True
    steps = [b - a for a, b in zip(terms, terms[1:], strict=False)]
    return n >= 5 and all(steps) and len({b / a for a, b in zip(steps, steps[1:], strict=False)}) == 1


def sequence_miss(problem: str, value: sympy.Expr) -> Miss | None:
    """A Miss when the statement is a sequence with one blank (`3, 3, 4, 8, 10, 36, ___`) and no simple rule of its
    terms, the key put in the blank, holds: a few terms fit many rules, and an aptitude puzzle's key is only one of
    them (a solver must confirm it). None when a simple rule gives the key, or when the statement is no sequence."""
    for run in _SEQUENCE.finditer(problem or ""):
        items = [x.strip() for x in run.group(0).split(",")]
        blanks = [i for i, x in enumerate(items) if not re.fullmatch(_TERM, x)]
        if len(blanks) != 1:
            continue
        terms = [Fraction(x) if i != blanks[0] else Fraction(str(value)) for i, x in enumerate(items)]
        if _regular(terms):
            return None
        return Miss(
            "a sequence to continue: no simple rule of its terms (a constant difference or ratio, a polynomial, "
            "the sum of the two before) gives the key; many rules fit a few terms, a solver must confirm it"
        )
    return None


def root_three_angle(problem: str, answer: str) -> bool:
    """Does a height-and-distance problem at 30° or 60° have a key with no root (`173 m` for `100\\sqrt{3}` m)?"""
    text = problem or ""
    if re.search(r"\\sqrt|√|sqrt", f"{text} {answer}") or not _ELEVATION.search(text):
        return False
    return bool(_THIRTY_OR_SIXTY.search(text))


# a classical Chinese problem (`今有...問...`) on a circle, a cone of grain or a round granary: its circumference
# (`周`, `週`), diameter (`徑`, `逕`) or a round shape (`圓`, `圜`)
_CLASSICAL_ROUND = re.compile(
    r"今有.*(?:周|週|圓|圜|徑|径|逕|弧田|宛田).*問|今有.*問.*(?:周|週|圓|圜|徑|径|逕|弧田|宛田)", re.S
)  # also a curved or arc-shaped field (`宛田`, `弧田`), whose rules are approximations


def circle_without_pi(problem: str, answer: str) -> bool:
    """Does a word problem ask a circle's length or area (or a sphere's, cylinder's or cone's, named in the asking
    sentence, not as a ratio or a count) while neither it nor the key writes pi? A statement that typesets
    mathematics (`$`, `\\(`, `x^2`, `√`) is left alone: competition geometry with circles keeps exact keys, and
    the approximated pi is the school word problem's."""
    text = problem or ""
    if re.search(r"\\pi|π|\bpi\b", f"{text} {answer}", re.I):
        return False
    if re.search(r"\$|\\\(|\\\[|\^|\\frac|\\sqrt|√", text):  # typeset (or unicode) mathematics
        return False
    if _CLASSICAL_ROUND.search(text):  # the Nine Chapters' circles and cones compute with pi = 3
        return True
    ask = asking_sentence(text)
    if not _CIRCLE_MEASURE_ASKED.search(ask):
        return False
    return bool(_CIRCLE.search(text)) or bool(_ROUND_SOLID.search(ask) and not _PI_CANCELS.search(ask))


# `19,5 MB` in a statement that writes its own decimals with a comma (`2,5 razy`): a decimal comma, not a list
_ANSWER_DECIMAL_COMMA = re.compile(r"^(\s*\$?\s*-?\d+),(\d{1,2}|\d{4,})(?![\d,])")
_STATEMENT_DECIMAL_COMMA = re.compile(r"(?<![\d,.])\d+,\d{1,2}(?!\d|,\d)")  # `est 0,7, calculer`


def decimal_comma(problem: str, answer: str) -> str:
    """`answer` with its decimal comma written as a point, when the statement writes decimals with a comma too,
    never a decimal point or a run of comma-separated numbers, and asks for one value; else `answer` unchanged.
    Three digits after the comma (`0,315`) stay ambiguous with a thousands separator and are left alone."""
    text = problem or ""
    m = _ANSWER_DECIMAL_COMMA.match(str(answer or ""))
    if (
        m is None
        or str(answer).count(",") != 1
        or not _STATEMENT_DECIMAL_COMMA.search(text)
        or re.search(
            r"\d\.\d|\d\s*,\s*\d+\s*,\s*\d|\d,\d+\s+(?:and|i|oraz|und|et|e|y|и|và|or|lub|oder)\s+\d", text
        )
        or _SUGGESTS_TWO.search(text)
        or several_asks(text)
    ):
        return answer
    return f"{m.group(1)}.{m.group(2)}{str(answer)[m.end() :]}"


# a decimal of three places or more whose digits repeat before a last, rounded one (`0.1667`, `.833`, `0.6667`)
# (not one written as repeating: `0.777...`, `0.777…`, `0.777 (repeating)`, `0.\overline{7}`)
_REPEATING_DECIMAL = re.compile(
    r"(?<![\d.,])\d*\.(\d*(\d)\2+\d?)(?![\d.,]\d|\s*(?:\.{2,}|…|\\[lc]?dots|\(?(?:repeating|recurring)))"
)


def rounded_repeating_decimal(problem: str) -> str | None:
    """A decimal in the statement that is a fraction with a repeating expansion cut to a few places (`0.1667 of a
    number` for 1/6, `.833` for 5/6): the key is that fraction's answer (`30`, `-72`), not the answer of the
    numbers as written (100000/3333), so no rule can prove it. The decimal, or None."""
    for m in _REPEATING_DECIMAL.finditer(problem or ""):
        if len(m.group(1)) < 3:
            continue
        value = Fraction(m.group(0))
        ulp = Fraction(1, 10 ** len(m.group(1)))
        for den in (3, 6, 7, 9, 11, 12):
            near = Fraction(round(value * den), den)
            if near != value and near.denominator == den and abs(value - near) < ulp:
                return m.group(0)
    return None


def apply_rules(
    problem: str,
    answer: str,
    *,
    source_signals: list[str] | None = None,
    units: tuple[str, ...] = (),
    keyed_option: bool = False,
) -> Rewrite | Miss:
    """Rewrite (problem, answer) so the answer is one integer, or say why no rule applies.

    Every rewrite states in `detail["proof"]` what was proven: the exact value sympy parsed from
    the answer, and where the answer's form alone proves nothing (a decimal, a unit) what the
    statement says that makes it exact. Anything unproven is a `Miss` (the LLM may try).
    `source_signals` are science signals from the source's metadata (SciBench's `unit` field),
    as `pipelines.classify.science_signals` names them; `units` are known units (`parse_answer`);
    `keyed_option`: the answer is the value of the option a multiple-choice key names.
    """
    asks_equation = bool(re.search(r"\bequation\b|方程|directrix|asymptote|准线|渐近线", problem or "", re.I))
    printed = float_rendering(str(answer)) if answer else None
    if printed is not None and FLOAT_PRINT.search(problem or ""):
        return Miss(
            "the statement's own numbers are binary float prints: its exact answer is their literal arithmetic"
        )
    if printed is not None:  # `59.99999999999999`: the value the float stands for, read as if written so
        answer = printed
    answer = decimal_comma(problem, answer)
    groups = digit_groups_miss(problem, answer)
    if groups is not None:
        return groups
    parsed = parse_answer(answer, problem_asks_equation=asks_equation, problem=problem, units=units)
    if isinstance(parsed, Miss):
        return parsed
    v, unit = parsed.value, parsed.unit
    original = problem
    if v.is_Rational and problem:
        contradicted = key_contradicted(problem, v)
        if contradicted is not None:
            return contradicted
    if v.is_Rational and (irregular := sequence_miss(problem, v)) is not None:
        return irregular
    if v.is_Rational and (converted_key := conversion_miss(problem, v)) is not None:
        return converted_key
    if v.is_Rational and (other := _compared_pick(problem)) is not None and v in other[1] and v != other[0]:
        return Miss(
            f"the statement asks which of {other[1][0]} and {other[1][1]} is {other[2]}; the key is the other one"
        )
    # (after the checks that reject a key outright: `Value of 4.166%?` keyed 1/24 is a contradiction)
    repeating = rounded_repeating_decimal(problem)
    if repeating is not None:
        return Miss(
            f"the statement writes {repeating}, a repeating fraction cut short: the key is that fraction's answer, "
            "not the one of the numbers as written; a solver must confirm it"
        )
    if v.is_Rational and circle_without_pi(problem, str(answer)):
        return Miss(
            "a circle's length or area without pi: the key may use an approximation of pi (22/7, 3.14)"
        )
    if v.is_Rational and root_three_angle(problem, str(answer)):
        return Miss("a height or distance at 30° or 60° keyed without a root: the key may round sqrt(3)")
    if complex_context(problem) and not _ASKS_REAL_PART.search(problem or ""):
        return Miss("the statement works with complex numbers: a real key may have lost its i")
    science = list(dict.fromkeys([*(source_signals or []), *science_signals(problem)]))
    answer_unit = _latex_unit(str(answer))
    # `210 \\mathrm{~m}` in a statement with more than plain lengths (a speed, science words): a
    # measured result; an area in cm^2 of a figure in cm is not
    if answer_unit and set(science) - {"measured quantity"}:
        science.append(f"unit in the answer ({answer_unit})")
    strong = [x for x in science if x in STRONG_SCIENCE or x.startswith("unit in the answer")]
    # a key written with a decimal point in a science statement (`3.00`, `6.0`) states its precision
    precision = {"science or applied vocabulary", "scientific notation"} & set(science)
    written_decimal = bool(precision) and bool(re.search(r"\d\.\d", str(answer)))
    # plain lengths, masses and money leave a decimal to `decimal_proof` (its closure handles units)
    applied = set(science) - {"measured quantity"}
    # a logarithm over decimal data (`\log E = 5.24 + 1.44r`): an integer key is as likely a rounding as a value
    logged = re.search(r"\\log\s*_?\{?\w*\}?\s*[A-Za-z]\s*=\s*-?\d+\.\d+", problem or "") is not None
    if strong or written_decimal or logged or (applied and not v.is_Integer):
        return Miss(
            f"science/applied statement ({', '.join(science)}): the key is computed from constants, "
            f"logarithms or measured data and may be rounded; a solver must confirm it"
        )
    if (
        _COMPOUNDED.search(problem or "")
        and not keyed_option
        and not _RATE_OR_TIME_ASKED.search(asking_sentence(problem or "") or "")
    ):
        return Miss(
            "interest compounded per period: P(1 + r/n)^(nt) is a whole number only by chance, so the key may be "
            "a rounding the question did not ask for; a solver must confirm it"
        )
    rounding = rounding_asked(problem)
    # a rounded computation on measured data carried into the key (pure mathematics may round:
    # a logarithm or a number in scientific notation alone is no measurement)
    if rounding and set(science) - {"scientific notation", "logarithm or exponential"}:
        return Miss(
            f"rounding asked ({rounding!r}) in an applied statement ({', '.join(science)}): the rounded key "
            f"depends on the data and constants used; a solver must confirm it"
        )
    # a key not in lowest terms, in a statement about a fraction's own form ("the original fraction
    # reduces to 5/7"): the written form is the answer, and m+n of the reduced value would be wrong
    unreduced = _UNREDUCED.search(_strip_outer(str(answer)))
    if unreduced and _FRACTION_FORM.search(problem or ""):
        num, den = (
            int(unreduced.group(1) or unreduced.group(3)),
            int(unreduced.group(2) or unreduced.group(4)),
        )
        if math.gcd(num, den) > 1:
            return Miss(
                "the key is a fraction not in lowest terms and the statement is about the fraction's form"
            )
    if _SEVERAL_ALL.search(problem or ""):
        return Miss(
            "the statement asks for all values: a one-value key claims a singleton set; a solver must confirm"
        )
    missing = prices_missing(problem or "", str(answer))
    if missing is not None:  # `... 2 strawberries and 4 truffles. What does it cost ...?` keyed `$2.00`
        return Miss(f"{missing}: the data is elsewhere (an earlier item); a solver must confirm")
    if question_unrelated_to_setup(problem or ""):  # `... 692 girls How many peaches are in the basket?`
        return Miss(
            "the question shares no word with the statement before it: a premise may be missing (another problem's "
            "question); a solver must confirm"
        )
    proof = [f"the key is a binary float's rendering of {printed}"] if printed is not None else []
    if unit:
        # the question asks for the unit, or every option wrote it (`Options: 3% / 4% / 5%`)
        writes_degrees = (
            unit == "degrees" and _WRITES_DEGREES.search(problem or "") and "radian" not in problem
        )
        if not (_ASKS_UNIT[unit].search(problem or "") or set(units) & _UNIT_SIGNS[unit] or writes_degrees):
            return Miss(f"answer in {unit} but the statement does not ask for {unit} (required unit)")
        proof.append(f"the statement asks for the answer in {unit}")
    if unit or not v.is_Integer:  # a trailing "Express your answer as ..." would contradict the new form
        m = _EXPRESS.search(problem.rstrip())
        if m and not (rounding and rounding in m.group(0)):
            problem = problem.rstrip()[: m.start()]
    if unit:
        problem = _append(problem, _UNIT_SENTENCE[unit])
    out: Rewrite | None = None
    asked_form = non_integer_form_asked(original) if v.is_Integer else None
    if asked_form:
        return Miss(
            f"the statement asks for {asked_form}, which no integer is: the integer key may have lost part of its "
            f"value; a solver must confirm it"
        )
    if v.is_Integer:
        name = unit or "identity"
        out = Rewrite(name, problem, str(int(v)), {"unit": unit} if unit else {})
        proof.append(f"the answer is the integer {int(v)} as written")
        if rounding:
            proof.append(f"the statement asks to round ({rounding!r})")
    elif v.is_Rational and parsed.decimals:
        why_exact, why_not = decimal_proof(
            original, v, parsed.decimals, percent=unit == "percent", answer=str(answer), pure=not science
        )
        if why_exact is None:
            return Miss(why_not)
        out = _rule_decimal(problem, v, parsed.decimals, rounding=rounding if "round" in why_exact else None)
        proof.append(f"terminating decimal {v}: {why_exact}")
    elif v.is_Rational:
        out = _rule_fraction(problem, v)
        proof.append(f"the answer is exactly the rational {v} (sympy); m/n in lowest terms")
    else:
        out = _rule_pi(problem, v) if v.has(sympy.pi) else _rule_radical(problem, v)
        if out is not None:
            proof.append(f"the answer is exactly {v} (sympy), written in the stated form")
    if out is None:
        return Miss("irrational form no rule covers")
    if unit:
        out.detail["unit"] = unit
    out.detail["proof"] = "; ".join(proof)
    if len(out.answer.lstrip("-")) > MAX_DIGITS:
        return Miss(f"integer too large ({len(out.answer.lstrip('-'))} digits)")
    return out


# ---------------------------------------------------------------------------------------------
# checking a rewrite independently


def recompute(rule: str, detail: dict, answer: str) -> sympy.Expr:
    """Rebuild the original answer's value from `transform_detail` and the integer answer alone.

    Raises ValueError when the parameters break the rule's conditions or do not add up to the
    integer, so a rewrite can be checked without trusting the code that produced it.
    """
    d, k = detail, int(answer)
    sign = -1 if d.get("negative") else 1
    if rule in ("identity", "degrees", "percent"):
        return sympy.Integer(k)
    if rule == "decimal":
        if d["scale"] != 10 ** d["places"]:
            raise ValueError("scale is not a power of ten matching the decimal places")
        return sympy.Rational(k, d["scale"])
    if rule == "fraction":
        m, n = d["m"], d["n"]
        if math.gcd(m, n) != 1 or m <= 0 or n <= 1:
            raise ValueError(f"m/n = {m}/{n} is not in lowest terms with positive m, n > 1")
        total, value = m + n, sympy.Rational(sign * m, n)
    elif rule == "pi_multiple":
        if "k" in d:
            total, value = d["k"], sign * d["k"] * sympy.pi
        else:
            if math.gcd(d["m"], d["n"]) != 1:
                raise ValueError("m and n are not relatively prime")
            total, value = d["m"] + d["n"], sign * sympy.Rational(d["m"], d["n"]) * sympy.pi
    elif rule in ("radical", "root_multiple", "radical_fraction"):
        n = d["n"]
        if n < 2 or any(e > 1 for e in sympy.factorint(n).values()):
            raise ValueError(f"n = {n} is not squarefree")
        a, b = d["signs"]["a"], d["signs"]["b"]
        if abs(b) != d["m"] or abs(a) != d.get("k", 0):
            raise ValueError("signed parameters disagree with k, m")
        p = d.get("p", 1)
        if reduce(math.gcd, [abs(a), abs(b), p]) != 1:
            raise ValueError("gcd of k, m, p is not 1")
        total = sum(d[x] for x in ("k", "m", "n", "p") if x in d)
        value = (a + b * sympy.sqrt(n)) / p
    else:
        raise ValueError(f"unknown rule {rule!r}")
    if total != k:
        raise ValueError(f"parameters add up to {total}, not the answer {k}")
    return value
