"""The question's own arithmetic: the one expression or polynomial equation a statement asks, read exactly.

`What is 12.45 + 3.678?`, `Oblicz wartość wyrażenia: 3(4 + 2)^2 - 5.`, `3. 23.4 + 15.7 = ____` ask for the value
of one expression; `What is the value of 'y' in the equation y/4 - 2 = 7?` for the solutions of one equation.
Both are evaluated here with fractions (and sympy for the roots), so `pipelines.rules` can reject a key that is
not that value and prove a decimal key that is. This solves the one thing asked; it never searches the
statement's numbers for a combination that happens to equal a key.
"""

from __future__ import annotations

import ast
import math
import operator
import re
from fractions import Fraction
from functools import lru_cache

import sympy

from pipelines.classify import sentences

# "What is 12.45 + 3.678?", "Calculate $2.4 \times 1.35$": an asking sentence that is one arithmetic expression
_ASKS_EXPRESSION = re.compile(
    r"^(?:what\s+is|what's|calculate|compute|evaluate|work\s+out|find|simplify|oblicz(?:\s+wartość\s+wyrażenia)?|"
    r"berechne|calcule[zr]?|calcula|evalúa|evalua|efectúa|efectua|tính|计算|hitung(?:lah)?)(?:\s+the\s+value\s+of)?\s*[:：]?\s*"
    r"(?P<expr>.+?)\s*[?.。？]?\s*$",
    re.I,
)
# "Solve: 2x + 5 = 17": one equation in one letter, asked to be solved
_ASKS_EQUATION = re.compile(
    r"^(?:(?:solve|rozwiąż|löse|résous|résolvez|resuelve|giải|解|selesaikan)(?:\s+for\s+(?:\\\(\s*|\$)?[a-z](?:\s*\\\)|\$)?)?(?:\s+(?:in\s+)?(?:the\s+)?"
    r"(?:equation|równanie|die\s+gleichung|l'équation|la\s+ecuación|phương\s+trình)|方程)?"
    # "What is the value of 'y' in the equation y/4 - 2 = 7?", "Find x if 3x + 1 = 10"
    r"|(?:what\s+is|find|determine)(?:\s+the\s+value\s+of)?\s+['‘’\"$]?(?P<var>[a-z])['‘’\"$]?\s+(?:in|if|from|when|satisfying)"
    r"(?:\s+the\s+(?:following\s+)?equation)?)\s*[:：]?\s*(?P<eq>[^=]+=[^=]+?)\s*[?.。:：]?\s*$",
    re.I,
)
_PERCENT_OF = re.compile(r"(\d+(?:\.\d+)?)\s*%\s+of\s+(\d+(?:\.\d+)?)")
_MAX_POWER = 12


_BINARY = {ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul, ast.Div: operator.truediv}


class _Undefined(Exception):
    """A division by zero in a written expression: the value does not exist (not: cannot be read)."""


# what `evaluate(..., undefined=UNDEFINED)` gives for `\frac{4}{2 - 2}`; compared by `is`
UNDEFINED = "undefined"


def evaluate(
    expr: str, *, needs_operator: bool = True, undefined: str | None = None
) -> sympy.Expr | str | None:
    r"""The exact value (a sympy number) of a written arithmetic expression, or None when it is anything else.

    Numbers, + - × ÷ / *, parentheses, `\frac{a}{b}`, small integer powers, square roots (`√(x² - 5)`,
    `\sqrt{2}`) and `p% of q`; a letter, a comma or any other sign makes it not an expression this reads.
    `needs_operator`: one must be there. `undefined`: returned for a division by zero (else None, as for anything
    unread)."""
    s = _counted(expr)  # `7!`, `10C6`, `\binom{10}{6}`, `P(8,4)`: a key's combinatorics, as integers
    if s is None:
        return None
    s = re.sub(r"\\[()\[\]]|\$|\\left|\\right|\\[,;!]", " ", s)
    if "\\sqrt[" in s:  # a root of another index (`\sqrt[3]{8}`) is not read
        return None
    # `2\frac{1}{4}` is the mixed number 2 1/4 (a product is written with \cdot or \times)
    s = re.sub(r"(\d+)\s*\\[dt]?frac\s*\{(\d+)\}\s*\{(\d+)\}", r"(\1+(\2)/(\3))", s)
    s = re.sub(r"\\[dt]?frac\s*\{([^{}]+)\}\s*\{([^{}]+)\}", r"((\1)/(\2))", s)
    s = s.replace("\\times", "*").replace("\\cdot", "*").replace("\\div", "/").replace("\\sqrt", "@")
    s = s.translate(
        str.maketrans(
            {
                "×": "*",
                "·": "*",
                "÷": "/",
                "−": "-",
                "–": "-",
                "{": "(",
                "}": ")",
                "[": "(",  # `2 + 3 × [4 - (5 - 6 × 2)]`: brackets group as parentheses do
                "]": ")",
                "√": "@",
                "²": "^2",
                "³": "^3",
            }
        )
    )
    s = _PERCENT_OF.sub(r"(\1/100*\2)", s).replace("^", "**")
    s = re.sub(r"@\s*(\d+(?:\.\d+)?)", r"@(\1)", s)  # √5
    s = re.sub(r"(?<=[\d)])\s*(?=[(@])", "*", s)  # 3(4 + 2), 2√3: products
    if re.search(r"[^\d.\s+\-*/()@]", s):
        return None
    if needs_operator and not re.search(r"\d\s*(?:[-+*/]|\*\*)\s*[(\d@]|\)\s*[-+*/]|@", s):
        return None
    numbers: list[sympy.Rational] = []

    def _name(m: re.Match) -> str:  # every number a name, so that ast never sees a float
        numbers.append(sympy.Rational(m.group(0)))
        return f"n{len(numbers) - 1}"

    try:
        tree = ast.parse(re.sub(r"\d+(?:\.\d+)?", _name, s).replace("@", "sqrt").strip(), mode="eval")
    except SyntaxError:
        return None

    def ev(node: ast.AST) -> sympy.Expr:
        if isinstance(node, ast.Name) and re.fullmatch(r"n\d+", node.id):
            return numbers[int(node.id[1:])]
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)):
            v = ev(node.operand)
            return -v if isinstance(node.op, ast.USub) else v
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "sqrt":
            if len(node.args) != 1 or node.keywords:
                raise ValueError("one argument")
            v = ev(node.args[0])
            if v.is_negative:
                raise ValueError("the root of a negative number")
            return sympy.sqrt(v)
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Pow):
            a, b = ev(node.left), ev(node.right)
            if not b.is_Integer or abs(b) > _MAX_POWER or (a == 0 and b < 0):
                raise ValueError("not a small integer power")
            return a ** int(b)
        if isinstance(node, ast.BinOp) and type(node.op) in _BINARY:
            a, b = ev(node.left), ev(node.right)
            if isinstance(node.op, ast.Div) and b == 0:
                raise _Undefined
            return _BINARY[type(node.op)](a, b)
        raise ValueError("not arithmetic")

    try:
        return ev(tree.body)
    except _Undefined:
        return undefined
    except (ValueError, ZeroDivisionError, TypeError):
        return None


_MAX_FACTORIAL = 20
_BINOMIAL = re.compile(
    r"\\binom\s*\{\s*(\d+)\s*\}\s*\{\s*(\d+)\s*\}|\b([CP])\s*\(\s*(\d+)\s*,\s*(\d+)\s*\)"
    r"|(?<![\w.])(\d+)\s*([CP])\s*(\d+)(?![\w.])|\{\s*(\d+)\s*\\choose\s*(\d+)\s*\}"
)
_FACTORIAL = re.compile(r"(?<![\w.])(\d+)\s*!(?!=)")


def _counted(expr: str) -> str | None:
    """`expr` with its factorials and binomial / permutation counts written as the integers they are
    (`11!/(4!×4!×2!)` -> `(39916800)/((24)×(24)×(2))`); None when one is too large to be a key's working."""

    def choose(m: re.Match) -> str:
        if m.group(1):
            kind, n, k = "C", int(m.group(1)), int(m.group(2))
        elif m.group(3):
            kind, n, k = m.group(3), int(m.group(4)), int(m.group(5))
        elif m.group(6):
            kind, n, k = m.group(7), int(m.group(6)), int(m.group(8))
        else:
            kind, n, k = "C", int(m.group(9)), int(m.group(10))
        if n > 200 or k > n:
            raise ValueError("not a count")
        return f"({math.comb(n, k) if kind == 'C' else math.perm(n, k)})"

    def factorial(m: re.Match) -> str:
        n = int(m.group(1))
        if n > _MAX_FACTORIAL:
            raise ValueError("too large")
        return f"({math.factorial(n)})"

    if (
        "!" not in expr
        and "C" not in expr
        and "P" not in expr
        and "binom" not in expr
        and "choose" not in expr
    ):
        return expr
    try:
        return _FACTORIAL.sub(factorial, _BINOMIAL.sub(choose, expr))
    except ValueError:
        return None


def arithmetic_value(expr: str, *, needs_operator: bool = True) -> Fraction | None:
    """The exact value of a written arithmetic expression when it is rational (`evaluate`), else None."""
    v = evaluate(expr, needs_operator=needs_operator)
    return Fraction(int(v.p), int(v.q)) if v is not None and v.is_Rational else None


_CALCULATE_BEFORE = re.compile(
    r"\b(?:calculat\w*|comput\w*|evaluat\w*|work out|simplif\w*|oblicz\w*|berechne\w*|calcul\w*)\b[^:\n]*:$|^tính[^:\n]*:$",
    re.I,
)


# a worksheet line `3. 23.4 + 15.7 = _______`: the expression before a blank is what is asked; a number-sense
# item ends at its `=` (`41259 \div 39 =`)
_BLANK_EXPRESSION = re.compile(r"^(?:\d{1,3}[.)]\s+)?(?P<expr>[^=_]+?)\s*=\s*(?:_{2,}|\?|…|\.{3,})?\s*$")


@lru_cache(maxsize=256)  # asked of the same statement by several rules in turn
def asking_sentence(problem: str) -> str:
    """The statement's last sentence or line (where a quiz item asks); a bare last line under `Perform the
    following calculations:` is asked by that line (`Calculate: 1170 ÷ 12`)."""
    parts = sentences(problem)
    if len(parts) >= 2 and _CALCULATE_BEFORE.search(parts[-2]):
        return f"Calculate: {parts[-1]}"
    blank = _BLANK_EXPRESSION.match(parts[-1]) if parts else None
    if blank:
        return f"Calculate: {blank.group('expr')}"
    return parts[-1] if parts else ""


# polynomials up to this degree are solved exactly (sympy), fitted through DEGREE + 3 sample points
_MAX_POLY_DEGREE = 4


def _unknown(equation: str, letter: str | None) -> str | None:
    """The one letter an equation is in (the one the question names, when it names one), else None."""
    plain = re.sub(
        r"\\(?:[dt]?frac|left|right|cdot|times|div|sqrt)(?![a-zA-Z])", " ", equation
    )  # commands, not letters
    letters = set(re.findall(r"(?<![a-zA-Z\\])[a-zA-Z](?![a-zA-Z])", plain))
    if len(letters) != 1 or re.search(r"[a-zA-Z]{2,}", plain):
        return None
    if letter is not None and letters != {letter}:
        return None
    return letters.pop()


def _difference_at(equation: str, x: str, value: sympy.Expr) -> sympy.Expr | str | None:
    """left - right of `equation` with the letter `x` replaced by `value`, exactly; UNDEFINED where a side divides
    by zero there (`\\frac{y^2 - 3y + 2}{y - 2}` at 2); None when a side cannot be read."""
    sides = []
    for side in equation.split("="):
        side = re.sub(r"(?<=[\d)])\s*" + x, "*" + x, side)  # 2x -> 2*x
        sides.append(evaluate(side.replace(x, f"({value})"), needs_operator=False, undefined=UNDEFINED))
    if any(v is None for v in sides):
        return None
    return UNDEFINED if any(v is UNDEFINED for v in sides) else sides[0] - sides[1]


def equation_solutions(equation: str, letter: str | None = None) -> list[sympy.Expr] | None:
    """The real solutions of a polynomial equation of degree 1 to 4 in one letter (`2x + 5 = 17`,
    `x^3 + 3x^2 - 4 = 0`), exactly; None when it is anything else (or holds for every number).

    The two sides are evaluated exactly at DEGREE + 3 integers; the polynomial through the first
    DEGREE + 1 values must give the others too, so a rational function or a higher power is refused.
    `letter`: the unknown the question names; an equation in another letter is not its equation."""
    x = _unknown(equation, letter)
    if x is None:
        return None
    points = [*range(_MAX_POLY_DEGREE + 1), 7, 11]
    values = [_difference_at(equation, x, sympy.Integer(p)) for p in points]
    if any(v is None or v is UNDEFINED or not v.is_Rational for v in values):
        return None
    t = sympy.Symbol("t")
    fitted = list(zip(points, values, strict=True))
    poly = sympy.expand(sympy.interpolate(fitted[: _MAX_POLY_DEGREE + 1], t))
    if any(poly.subs(t, p) != v for p, v in fitted[_MAX_POLY_DEGREE + 1 :]) or poly.is_constant():
        return None
    roots = sympy.solve(poly, t)
    if any(r.is_real is None for r in roots):
        return None  # a root sympy cannot place (a quartic's casus irreducibilis): no claim
    return sorted({r for r in roots if r.is_real}, key=float)


def equation_holds(equation: str, value: sympy.Expr, letter: str | None = None) -> bool | None:
    """Does the one-letter equation hold at `value` (`√(x² - 5) = 3` at 3: no; `\\frac{y^2-3y+2}{y-2} = y+1` at 2, where
    a side divides by zero: no, an extraneous root)? None when it cannot be read."""
    x = _unknown(equation, letter)
    difference = _difference_at(equation, x, value) if x is not None else None
    if difference is None:
        return None
    if difference is UNDEFINED:
        return False  # a side divides by zero at the key: an extraneous root, no solution
    return sympy.simplify(difference) == 0


@lru_cache(maxsize=256)  # the contradiction check and the decimal proof ask it of the same statement
def asked_expression(problem: str) -> tuple[str, Fraction] | None:
    """(the expression as written, its exact value) when the asking sentence is one arithmetic expression."""
    m = _ASKS_EXPRESSION.match(asking_sentence(problem))
    value = arithmetic_value(m.group("expr")) if m else None
    return (m.group("expr").strip(), value) if value is not None else None


# "Round 492 to the nearest hundred.": a rounding asked of one number, whose result is exact
_ASKS_ROUNDING = re.compile(
    # `Round 492 to the nearest hundred.`, `17 rounded off to the nearest 10 is.`
    r"^(?:round\s+\$?(?P<num>-?\d[\d,]*(?:\.\d+)?)\$?\s+to|\$?(?P<num2>-?\d[\d,]*(?:\.\d+)?)\$?\s+rounded(?:\s+off)?\s+to)"
    r"\s+the\s+nearest\s+"
    r"(?P<place>ten\s+thousand|hundred\s+thousand|million|thousand|hundred|ten|whole\s+number|one|tenth|hundredth|thousandth|10+)"
    r"(?:\s+is)?\s*[.?]?\s*$",
    re.I,
)
_PLACES = {"million": -6, "hundred thousand": -5, "ten thousand": -4, "thousand": -3, "hundred": -2, "ten": -1,
           "whole number": 0, "one": 0, "tenth": 1, "hundredth": 2, "thousandth": 3}  # fmt: skip


def asked_rounding(problem: str) -> tuple[str, Fraction] | None:
    """(the rounding as written, its exact result) when the asking sentence rounds one number (halves go up, as
    school rounding does): `Round 492 to the nearest hundred.` is 500."""
    asked = asking_sentence(problem)
    said = sentences(problem)
    # options after the asking sentence (`... nearest 10 is.` / `a: 10` / `b: 20`): the sentence before them asks
    while len(said) >= 2 and re.match(r"\(?[a-eA-E]\s*[:.)]", said[-1]):
        said.pop()
        asked = said[-1]
    m = _ASKS_ROUNDING.match(asked)
    if m is None:
        return None
    number = Fraction((m.group("num") or m.group("num2")).replace(",", ""))
    place = " ".join(m.group("place").lower().split())
    unit = Fraction(10) ** (len(place) - 1 if place.isdigit() else -_PLACES[place])  # `nearest 10`: a ten
    steps = abs(number) / unit
    rounded = (
        (steps.numerator * 2 + steps.denominator) // (2 * steps.denominator) * unit
    )  # half up, in magnitude
    return m.group(0).strip(), rounded if number >= 0 else -rounded


# "Value of 33.33%?", "Convert 0.125 to a fraction.", "Express 45% as a fraction in lowest terms.", "Value of 16.66% or
# 16 2/3%?": one number (a percent, a decimal, a mixed number or a fraction; alternatives joined by `or`) asked in another
# form, so the key must be that number
_STATED_NUMBER = r"-?\d+(?:\.\d+|\s+\d+/\d+|/\d+)?\s*%?"
_ASKS_CONVERSION = re.compile(
    r"^(?:(?:what\s+is\s+|find\s+)?(?:the\s+)?value\s+of|what\s+is|convert|express|write|change|rewrite)\s+\$?"
    rf"(?P<nums>{_STATED_NUMBER}(?:\s+or\s+{_STATED_NUMBER})*)\$?"
    r"(?P<form>\s+(?:as|to|into|in)\s+(?:a\s+|an\s+)?(?:common\s+|simple\s+|proper\s+|improper\s+|reduced\s+)?"
    r"(?:fraction|decimal|percent(?:age)?)(?:\s+in\s+(?:its\s+)?(?:lowest|simplest)\s+(?:terms|form))?)?\s*[?.]?\s*$",
    re.I,
)


def _stated_number(text: str) -> Fraction:
    body = text.strip().rstrip("%").strip()
    whole, _, frac = body.partition(" ")
    value = Fraction(whole) + (Fraction(frac.strip()) if frac.strip() else 0) * (
        -1 if whole.startswith("-") else 1
    )
    return value / 100 if text.strip().endswith("%") else value


def asked_conversion(problem: str) -> tuple[str, list[tuple[str, Fraction]]] | None:
    """(the number as written, [(each alternative, the exact value the key must have)]) when the asking sentence asks
    for one stated number in another form (`Value of 33.33%?`, `Convert 0.125 to a fraction.`; as a percent, the
    percent's number: 72 for `0.72`); a bare integer without a form asked (`What is 7?`) is no conversion."""
    m = _ASKS_CONVERSION.match(asking_sentence(problem))
    if m is None:
        return None
    parts = [p.strip() for p in re.split(r"\s+or\s+", m.group("nums"))]
    if not m.group("form") and not any(re.search(r"[%./]|\d\s+\d", p) for p in parts):
        return None
    # asked as a percent (`What is 0.72 as a percentage?`): the key is the percent's number, 72
    scale = 100 if re.search(r"percent", m.group("form") or "", re.I) else 1
    try:
        return m.group("nums").strip(), [(p, _stated_number(p) * scale) for p in parts]
    except (ValueError, ZeroDivisionError):
        return None


# `Solve for $y$:` on a line of its own, the equation displayed under it (OpenMathInstruct-2's augmented_math)
_SOLVE_FOR_LINE = re.compile(r"^(?:solve|find)\s+for\s+\$?(?P<var>[a-z])\$?\s*[:：.]?\s*$", re.I)


def asked_equation(problem: str) -> tuple[str, str | None] | None:
    """(the equation as written, the unknown the question names or None) when the asking sentence asks
    to solve one equation, or a `Solve for $y$:` line stands over it."""
    m = _ASKS_EQUATION.match(asking_sentence(problem))
    if m:
        return m.group("eq").strip(), m.group("var")
    lines = [x.strip() for x in (problem or "").strip().splitlines() if x.strip()]
    if len(lines) >= 2 and (solve := _SOLVE_FOR_LINE.match(lines[-2])):
        shown = (
            lines[-1].strip().strip("$").strip().removeprefix(r"\[").removesuffix(r"\]").strip().rstrip(".")
        )
        if shown.count("=") == 1:
            return shown, solve.group("var")
    return None


# Chinese numerals (`一千八百二十七`, `三萬六千`, `三分之二`): digits, the units within a myriad, the myriads
_CN_DIGITS = {
    c: i
    for i, s in enumerate(
        ("零〇", "一壹", "二两兩贰貳", "三叁參", "四肆", "五伍", "六陆陸", "七柒", "八捌", "九玖")
    )
    for c in s
}
_CN_UNITS = {"十": 10, "拾": 10, "百": 100, "佰": 100, "千": 1000, "仟": 1000}
_CN_MYRIADS = {"万": 10**4, "萬": 10**4, "亿": 10**8, "億": 10**8}
# `N分之M` is M/N; the classical `N分步之M` names the unit between (12/35 of a bu)
_CN_FRACTION = re.compile(r"(.+?)分[\u4e00-\u9fff]?之(.+)")


def chinese_number(text: str) -> Fraction | None:
    """The value of a whole Chinese numeral or a fraction written `N分之M`, or None for anything else: a run of
    bare digits (`一二三`, a date's `二〇二四`), a unit without a number after a digit run, mixed units (`六尺五寸`)."""
    fraction = _CN_FRACTION.fullmatch(text)
    if fraction:
        den, num = (chinese_number(part) for part in fraction.groups())
        return num / den if den and num is not None and "分" not in fraction.group(2) else None
    if not text or any(c not in _CN_DIGITS and c not in _CN_UNITS and c not in _CN_MYRIADS for c in text):
        return None
    # the largest myriad splits the numeral: `一亿二千万` is 1 x 10^8 + 2000 x 10^4
    for myriad in ("亿億", "万萬"):
        at = max(text.rfind(m) for m in myriad)
        if at >= 0:
            high = chinese_number(text[:at]) if at else None
            low = chinese_number(text[at + 1 :]) if at + 1 < len(text) else Fraction(0)
            if len(text) - at == 2 and text[-1] not in "零〇":
                return None  # `一万五`: spoken for 15,000
            return None if high is None or low is None else high * _CN_MYRIADS[text[at]] + low
    section, unit = 0, 1
    digit = None  # the digit waiting for its unit
    for c in text:
        if c in _CN_DIGITS:
            if digit not in (None, 0) and _CN_DIGITS[c] != 0:
                return None  # two digits side by side: a digit string, not a numeral
            digit = _CN_DIGITS[c] if _CN_DIGITS[c] != 0 else 0 if digit is None else digit
        else:
            section += (1 if digit is None else digit) * _CN_UNITS[c]
            unit, digit = _CN_UNITS[c], None
    if digit and unit > 10 and text[-2] not in "零〇":
        return None  # `三百五`: spoken for 350; written numerals put 零 before a lone last digit (`三百零五`)
    return Fraction(section + (digit or 0))
