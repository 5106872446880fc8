"""Bring an answer string to a canonical written form before comparing.

Only surface form is touched here (LaTeX wrappers, units, separators, unicode); no maths is
evaluated, so every step is a bounded regex and `normalize` is safe on any input.
"""

from __future__ import annotations

import re
import unicodedata
from fractions import Fraction

_UNICODE = {
    "\u2212": "-",
    "\u2013": "-",
    "\u2014": "-",
    "\u00d7": "\\times ",
    "\u22c5": "\\cdot ",
    "\u00b7": "\\cdot ",
    "\u00f7": "/",
    "\u2044": "/",
    "\u03c0": "\\pi ",
    "\u221e": "\\infty ",
    "\u221a": "\\sqrt",
    "\u2264": "\\le ",
    "\u2265": "\\ge ",
    "\u2260": "\\ne ",
    "\u00a0": " ",
    "\u2009": " ",
    "\u202f": " ",
    "\u200b": "",
    "\ufeff": "",
    "\uff1a": ":",
    "\u00b0": "^\\circ",
    "\u2205": "\\emptyset ",
    "\u00bd": "\\frac{1}{2}",
    "\u2153": "\\frac{1}{3}",
    "\u2154": "\\frac{2}{3}",
    "\u00bc": "\\frac{1}{4}",
    "\u00be": "\\frac{3}{4}",
    "\u2155": "\\frac{1}{5}",
    "\u2156": "\\frac{2}{5}",
    "\u2157": "\\frac{3}{5}",
    "\u2158": "\\frac{4}{5}",
    "\u2159": "\\frac{1}{6}",
    "\u215a": "\\frac{5}{6}",
    "\u2150": "\\frac{1}{7}",
    "\u215b": "\\frac{1}{8}",
    "\u215c": "\\frac{3}{8}",
    "\u215d": "\\frac{5}{8}",
    "\u215e": "\\frac{7}{8}",
    "\u2151": "\\frac{1}{9}",
    "\u2152": "\\frac{1}{10}",
    "\u20ac": "",
    "\u00a3": "",
    "\u00a5": "",
    "\u2248": "\\approx ",
}
_SUPERSCRIPTS = dict(
    zip("\u2070\u00b9\u00b2\u00b3\u2074\u2075\u2076\u2077\u2078\u2079\u207b", "0123456789-", strict=True)
)
_SUPER_RUN = re.compile("[" + "".join(_SUPERSCRIPTS) + "]+")
_UNICODE_RE = re.compile("|".join(map(re.escape, _UNICODE)))
_ROOT_DIGITS = re.compile("\u221a" + r"\s*(\d+(?:\.\d+)?)")
# Chinese words between two values: 或 (or) is a hedge, 和/与/及/以及 (and) and 、 join a list
_VALUE_END, _VALUE_START = r"(?<=[0-9A-Za-z)\]}|$])", r"(?=[-+0-9A-Za-z(\[{\\$|])"
_CJK_OR = re.compile(_VALUE_END + r"\s*(?:或者|或)\s*" + _VALUE_START)
_CJK_AND = re.compile(_VALUE_END + r"\s*(?:以及|和|与|及)\s*" + _VALUE_START)
_CJK_JOINER_TEXT = re.compile(r"\\(?:text|mbox|mathrm)\s*\{\s*(或者|或|以及|和|与|及)\s*\}")
# a number times a scale word is that number scaled (`5万` = 50000, `2.5 million` = 2500000), never the
# bare number with a unit dropped; 千 before a unit is the prefix kilo (`3千米` is 3 km), not a scale
_SCALE_OF = {"万亿": 10**12, "亿": 10**8, "万": 10**4, "만": 10**4, "억": 10**8, "trillion": 10**12, "billion": 10**9,
             "million": 10**6, "thousand": 10**3}  # fmt: skip
_SCALED = re.compile(
    r"(?<![\d.])(\d+(?:\.\d+)?)\s*(?:\\text\{\s*)?(万亿|亿|万|만|억|(?:tr|b|m)illion|thousand)(?![A-Za-z])(?:\s*\})?"
)

_MONEY_SCALE = {"k": 10**3, "K": 10**3, "M": 10**6, "bn": 10**9}
_MONEY_SCALED = re.compile(
    r"(\$\s*)(\d+(?:\.\d+)?)\s?(k|K|M|bn)(?![A-Za-z^_({]|\s*\$)"
)  # `$20k$`: 20 times k

UNITS = (
    "mm",
    "cm",
    "m",
    "km",
    "in",
    "inch",
    "inches",
    "ft",
    "feet",
    "foot",
    "yd",
    "yards",
    "mi",
    "miles",
    "mile",
    "mg",
    "g",
    "kg",
    "grams",
    "lb",
    "lbs",
    "oz",
    "s",
    "sec",
    "seconds",
    "second",
    "min",
    "minutes",
    "minute",
    "h",
    "hr",
    "hrs",
    "hours",
    "hour",
    "days",
    "day",
    "weeks",
    "years",
    "ml",
    "mL",
    "l",
    "L",
    "liters",
    "units",
    "unit",
    "square units",
    "sq units",
    "cubic units",
    "dollars",
    "dollar",
    "cents",
    "cent",
    "mph",
    "m/s",
    "km/h",
    "meters",
    "meter",
    "centimeters",
    "inches",
    "degrees",
    "degree",
    "radians",
    "rad",
    "people",
    "students",
    "ways",
    "cm^2",
    "m^2",
    "km^2",
    "in^2",
    "ft^2",
    "units^2",
    "cm^3",
    "m^3",
    "ft^3",
    "in^3",
    "nm",
    "Å",
)
_UNIT_ALT = "|".join(sorted((re.escape(u) for u in UNITS), key=len, reverse=True))
# a unit written as \text{ cm}, \mbox{cm}, \mathrm{cm} (optionally squared), or as a plain word after a number
_TEXT_UNIT = re.compile(
    r"\\(?:text|mbox|mathrm|textrm|rm)\s*\{\s*(?P<u>(?:"
    + _UNIT_ALT
    + r"))\s*\}(?P<p>\s*\^\s*\{?\s*[23]\s*\}?)?\s*$"
)
_ATTACHED_UNIT = re.compile(
    r"(?<=\d)(?P<u>mm|cm|km|kg|mg|ml|mL|m|g|s|h)(?P<p>\s*\^\s*\{?\s*[23]\s*\}?)\s*$"
    r"|(?<=\d)(?P<u2>[A-Za-z]{4,})\s*$"
)  # `1,000.99m^2`, `10weeks`; never `10cm` or `5m` (a product with variables, as far as a reader knows)
# a number followed by what it counts: `9 apples`, `17\text{ any text}`, `2 (hours)`
_COUNTED_WORDS = re.compile(
    r"(?<=\d)\s*(?:\\text\{\s*(?P<t>[A-Za-z][A-Za-z ]*?)\s*\}|\s(?P<w>[A-Za-z]{3,}(?:\s[A-Za-z]{3,})?)"
    r"|\(\s*(?P<pw>[A-Za-z][A-Za-z ]+?)\s*\))\s*$"
)
_WORD_UNIT = re.compile(r"(?<=[\d}])\s+(?P<u>(?:" + _UNIT_ALT + r"))(?P<p>\s*\^\s*\{?\s*[23]\s*\}?)?\s*$")
_UNIT_CANON = {
    "inch": "in",
    "inches": "in",
    "feet": "ft",
    "foot": "ft",
    "yards": "yd",
    "miles": "mi",
    "mile": "mi",
    "grams": "g",
    "lbs": "lb",
    "sec": "s",
    "seconds": "s",
    "second": "s",
    "minutes": "min",
    "minute": "min",
    "hr": "h",
    "hrs": "h",
    "hours": "h",
    "hour": "h",
    "day": "days",
    "ml": "mL",
    "l": "L",
    "liters": "L",
    "unit": "units",
    "dollar": "dollars",
    "cent": "cents",
    "meters": "m",
    "meter": "m",
    "centimeters": "cm",
    "degree": "degrees",
    "rad": "radians",
    "sq units": "square units",
}

# a time written in two units (`2 hours 40 minutes`, `3 min and 20 s`): 60 of the smaller make one of the larger (an
# answer in the smaller unit, equal to a gold in it when the question asks no unit: `verifiers.check._form_asked`)
COMPOUND_TIME = re.compile(
    r"(\d+)\s*(?:hours?|hrs?|h|minutes?|mins?)\s*,?\s*(?:and\s+)?(\d+)\s*(minutes?|mins?|seconds?|secs?|s)",
    re.I,
)
UNIT_WORD_FORMS = frozenset(_UNIT_CANON)  # the spellings a unit is also written in (`inches`, `hours`)

_SPACES = re.compile(
    r"(?<!\\)\\[,;:! ]|\\q?quad\b|~|\\(?:displaystyle|left|right|(?:big|Big|bigg|Bigg)[lr]?)(?![a-zA-Z])"
    r"|\\hspace\*?\s*\{[^{}]*\}"
)
_TEXT_CMD = re.compile(
    r"\\(?:text|textbf|textit|textrm|mathrm|mathbf|mbox|operatorname|rm|bf)\s*\{([^{}]*)\}"
)
_FONT_SWITCH = re.compile(r"\\(?:rm|bf|it|mathrm|mathit)(?![a-zA-Z])\s*(?=[a-zA-Z])")  # `10\rm i`: 10i
_DEGREES = re.compile(r"\^\s*\{?\s*\\circ\s*\}?|\\circ|\\degree|\^\s*\{\s*o\s*\}|\s*degrees?\b")
_PREFIX = re.compile(
    r"^\s*(?:\\?[a-zA-Z]{1,6}(?:_\{\\?[a-zA-Z0-9]{1,4}\}|_[a-zA-Z0-9])?(?:\([a-z]\))?"
    # a quantity named by an operator applied to something: `\mathbb{E}[W_\tau]`, `P(A)`, `Var(X)`
    r"|(?:\\mathbb\{[A-Z]\}|\\operatorname\{[A-Za-z]+\}|[A-Z][a-z]{0,3})\s*(?:\[[^=\[\]]{1,30}\]|\([^=()]{1,30}\)))"
    r"\s*=\s*(?=[^=])"
)
_MINUS_WORD = re.compile(
    r"^(?:minus|menos|moins|минус|マイナス|마이너스|eksi|âm|hasi|ลบ)\s*(?=\d)", re.IGNORECASE
)
_PERCENT_FIRST = re.compile(r"^%\s*(\d+(?:\.\d+)?)$")
_PART_OF = re.compile(r"^(\d+)\s*(?:分の|분의|分之)\s*(\d+)$")
_INDIAN_GROUPS = re.compile(r"^[-+]?\d{1,2}(?:,\d{2})+,\d{3}(?:\.\d+)?$")
_APOSTROPHE_GROUPS = re.compile(r"^[-+]?\d{1,3}(?:'\d{3})+(?:\.\d+)?$")
_THOUSANDS = re.compile(r"^[-+]?[1-9]\d{0,2}(?:,\d{3})+(?:\.\d+)?$")
# `\\frac` written with its backslash doubled (over-escaped JSON): one backslash, for known commands only
_DOUBLED = re.compile(
    r"(?<!\\)\\\\(?=(?:frac|dfrac|tfrac|sqrt|left|right|le|ge|leq|geq|ne|neq|lt|gt|pi|cdot|times|infty|in|text|"
    r"mathrm|boxed|circ|cup|cap|pm)(?![a-zA-Z]))"
)
# a text whose LaTeX was escaped twice (a JSON or SQL dump written as a string again): every
# backslash doubled, and at least one doubled backslash before a command or a math delimiter
_DOUBLED_TEXT = re.compile(
    r"\\\\(?:[()\[\]]|(?:frac|dfrac|tfrac|sqrt|left|right|le|ge|leq|geq|ne|neq|pi|cdot|times|div|infty|text|"
    r"mathrm|boxed|circ|pm|angle|triangle|overline|begin|end)(?![a-zA-Z]))"
)
_BACKSLASH_RUN = re.compile(r"\\+")


def undoubled_backslashes(text: str) -> str:
    r"""`\\( \\frac{5}{24} \\)` -> `\( \frac{5}{24} \)` when the whole text was escaped twice.

    Only when no backslash in the text stands alone (every run has even length) and one doubled
    backslash opens a command or a math delimiter: a real LaTeX line break `\\` sits among single
    backslashes (`\begin{cases}`), so a text that has any is left as it is."""
    if "\\\\" not in text or not _DOUBLED_TEXT.search(text):
        return text
    runs = _BACKSLASH_RUN.findall(text)
    if any(len(r) % 2 for r in runs):
        return text
    return _BACKSLASH_RUN.sub(lambda m: "\\" * (len(m.group(0)) // 2), text)


_INT = re.compile(r"^[-+]?\d+(?:\.0*)?$")
_WS = re.compile(r"\s+")
_WS_AROUND = re.compile(r"\s*([^\w\\\s])(\s*)|(?<=\d)\s+(?=\d{3}(?!\d))")
# `32, 349` is a list of two numbers, never the thousands-separated 32349: that space is kept
_TYPESET_COMMA = re.compile(r",\s*\\[!,]\s*")
_THIN_GROUP = re.compile(r"(?<=\d)\\[,;!]\s*(?=\d{3}(?!\d))")
_LIST_COMMA = re.compile(r"(?<=\d),\s+(?=\d{3}(?!\d))")
_SUFFIX = re.compile(r"(?<=[^=<>])\s*=\s*\\?[a-zA-Z]{1,6}(?:_\{?[a-zA-Z0-9]{1,4}\}?)?\s*$")
_FRAC_SHORT = re.compile(r"\\frac\s*(\d)\s*(\d)")
_FRAC_SHORT2 = re.compile(r"\\frac\s*\{([^{}]*)\}\s*(\d)")
_FRAC_SHORT3 = re.compile(r"\\frac\s*(\d)\s*\{")  # `\\frac9{19}`: a brace-less numerator
_SQRT_SHORT = re.compile(r"\\sqrt\s*(\d)")
_WRAPPERS = (("$$", "$$"), ("$", "$"), ("\\(", "\\)"), ("\\[", "\\]"), ("\\boxed{", "}"), ("\\fbox{", "}"))


def braced_short_commands(s: str) -> str:
    """TeX's brace-less arguments made explicit: `\\frac12`, `\\frac{270}7`, `\\sqrt3` -> `\\frac{1}{2}`,
    `\\frac{270}{7}`, `\\sqrt{3}` (a parser reads the short forms wrongly or not at all)."""
    s = _FRAC_SHORT.sub(r"\\frac{\1}{\2}", s)
    s = _FRAC_SHORT2.sub(r"\\frac{\1}{\2}", s)
    s = _FRAC_SHORT3.sub(r"\\frac{\1}{", s)
    return _SQRT_SHORT.sub(r"\\sqrt{\1}", s)


_COLOR = re.compile(r"\\(?:text)?color\s*\{[a-zA-Z]+\}")
_BOLD = re.compile(r"\\(?:boldsymbol|bm|mathbf)\s*\{")


def _bold_unwrapped(s: str) -> str:
    """`\\boldsymbol{\\frac{\\sqrt{6}}{3}}` -> `\\frac{\\sqrt{6}}{3}`: bold type around math, braces nested."""
    for _ in range(8):
        m = _BOLD.search(s)
        if m is None:
            return s
        depth, i = 1, m.end()
        while i < len(s) and depth:
            depth += {"{": 1, "}": -1}.get(s[i], 0)
            i += 1
        if depth:
            return s
        s = s[: m.start()] + s[m.end() : i - 1] + s[i:]
    return s


def split_unit(answer: str) -> tuple[str, str | None]:
    """Split a trailing unit off (`5 \\text{ cm}` -> (`5`, `cm`)); the unit is canonicalised."""
    plain = _SPACES.sub(" ", _ANGSTROM.sub("Å", answer)).strip().rstrip(".").strip()
    s = _scaled(plain)  # `5 thousand dollars`: 5000, dollars
    compound = COMPOUND_TIME.fullmatch(s)
    if compound:  # `2 hours 40 minutes`: one amount, in the smaller unit (160 minutes)
        unit = compound.group(3).lower()
        return str(60 * int(compound.group(1)) + int(compound.group(2))), "min" if unit.startswith(
            "m"
        ) else "s"
    for pat in (_TEXT_UNIT, _WORD_UNIT):
        m = pat.search(s)
        if m and m.start() > 0:
            unit = _UNIT_CANON.get(m.group("u"), m.group("u"))
            power = re.sub(r"\D", "", m.group("p") or "")
            return s[: m.start()].strip(), unit + (f"^{power}" if power else "")
    m = _COUNTED_WORDS.search(s)
    if m and m.start() > 0 and re.fullmatch(r"[-+$]?\s*(?:\d+\s+\d+/)?[\d.,]+", s[: m.start()].strip()):
        words = (m.group("t") or m.group("w") or m.group("pw")).lower().strip()
        if words not in ("or", "and", "to", "times", "pi"):
            return s[: m.start()].strip(), " ".join(_UNIT_CANON.get(w, w) for w in words.split())
    m = _ATTACHED_UNIT.search(s)  # `1,000.99m^2`: only units that are never a product with a variable
    if m and m.start() > 0:
        u = m.group("u") or m.group("u2")
        power = re.sub(r"\D", "", m.group("p") or "")
        return s[: m.start()].strip(), _UNIT_CANON.get(u, u) + (f"^{power}" if power else "")
    return (answer if s == plain else s), None  # no unit: the answer as given, scaled if it had a scale word


def _unwrap(s: str) -> str:
    for _ in range(4):
        before = s
        s = s.strip()
        if s.startswith("{") and s.endswith("}") and _balanced(s[1:-1]):
            s = s[1:-1]
        for left, right in _WRAPPERS:
            if s.startswith(left) and s.endswith(right) and len(s) >= len(left) + len(right):
                inner = s[len(left) : len(s) - len(right)]
                if right != "}" or _balanced(inner):
                    s = inner
        if s == before:
            break
    return s


def _balanced(s: str) -> bool:
    depth = 0
    for c in s:
        if c == "{":
            depth += 1
        elif c == "}":
            depth -= 1
            if depth < 0:
                return False
    return depth == 0


_LEADING_EQUALS = re.compile(r"^\s*=\s*(?=\S)")
_LOG_E = re.compile(r"\\log\s*_\s*\{?\s*e\s*\}?(?![a-zA-Z])")


_ANGSTROM = re.compile(
    r"\\(?:overset\s*\{\s*\\circ\s*\}\s*\{\s*A\s*\}|mathring\s*\{\s*A\s*\}|AA(?![A-Za-z]))"
)
_PRIMED = re.compile(r"(?<![\\A-Za-z])([A-Za-z])('+)(?!\s*\()")  # `M'`, `x''` (not `f'(x)`, a derivative)


def normalize(answer: str) -> str:
    """Canonical surface form (see _normalize_once), applied to a fixed point so that
    normalize(normalize(x)) == normalize(x)."""
    s = _normalize_once(answer)
    for _ in range(4):
        again = _normalize_once(s)
        if again == s:
            break
        s = again
    return s


def _normalize_once(answer: str) -> str:
    """Canonical surface form: no `$`, `\\text{}`, units, degrees, spacing macros or `x =` prefix.

    `\\dfrac`/`\\tfrac` become `\\frac`, thousands separators and leading zeros of integers
    go, unicode minus and friends become ASCII/LaTeX, `\\%` becomes `%`.
    """
    s = _unicode(answer)
    if "\\\\" in s:
        s = _DOUBLED.sub(lambda _m: "\\", s)
    s = _unwrap(s)
    one_cell = _ONE_CELL_MATRIX.fullmatch(s.strip())
    if one_cell:  # `\\begin{matrix}5\\end{matrix}`: a bracketless one-cell layout is its cell
        s = one_cell.group(1)
    s = s.replace("\\dfrac", "\\frac").replace("\\tfrac", "\\frac")
    s = _ANGSTROM.sub("Å", s)  # `4260 \\, \\overset{\\circ}{A}`: the angstrom, a unit
    if "'" in s:  # `M'` is another quantity than `M` (the parser drops the prime: `\frac{M'}{M}` would be 1)
        s = _PRIMED.sub(lambda m: f"{m.group(1)}_{{{'p' * len(m.group(2))}}}", s)
    s = _LOG_E.sub(r"\\ln", s)  # `\log_e 2` is `\ln 2`
    s = _LEADING_EQUALS.sub("", s)  # `Perimeter $= 2\pi + 18$`: the span starts at the sign
    s = s.replace("\\%", "%").replace("\\$", "").replace("\\infin", "\\infty")
    s = _TYPESET_COMMA.sub(
        ",", s.replace("{,}", ",").replace("{, }", ",").replace("{:}", ":")
    )  # `10,\!080`: a typeset thousands comma
    if "\\" in s:
        s = _THIN_GROUP.sub("", s)  # `57\,500`: digit groups set apart by a thin space
    s = _SPACES.sub(" ", s)
    if s.count("$") >= 2 and s.count("$") % 2 == 0:  # `$28$ percent`: inline math inside words
        s = s.replace("$", " ")
    if "\\(" in s and "\\)" in s:
        s = s.replace("\\(", " ").replace("\\)", " ")
    s = _relations(s)
    s = _currency(s)
    s = _PERCENT_WORD.sub("%", s)
    s = split_unit(s)[0]
    for _ in range(3):
        s = _TEXT_CMD.sub(lambda m: m.group(1), s)
    if "\\b" in s or "\\mathbf" in s:
        s = _bold_unwrapped(s)
    if (
        "color" in s
    ):  # `\color{blue}{5}`, `\textcolor{red}{5}`, `\color{blue} 5`: the colour is no part of the value
        s = _COLOR.sub("", s)
    s = _FONT_SWITCH.sub("", s)
    s = _plain_math(s)
    if _TRIG.search(s):  # degrees inside trigonometric functions are angles: sin(90^\circ - x) = cos x
        s = _DEGREE_NUM.sub(lambda m: f"\\frac{{{m.group(1)}\\pi}}{{180}}", s)
    s = _DEGREES.sub("", s)
    s = _EMPTY.sub(lambda _m: "\\emptyset", s)
    s = _unwrap(s).strip().rstrip(".").strip()
    if s.endswith(",") and not s.endswith(
        "\\,"
    ):  # `\[ \mathbb{E}[W_\tau] = 0, \]`: the display's punctuation
        s = s[:-1].rstrip()
    if s.endswith("\\") and not s.endswith("\\\\"):
        s = s[:-1].rstrip()  # `185\`: a stray backslash left by the extraction
    if s.count("=") == 1 and not re.search(r"[<>]|\\[lgn]eq?(?![a-zA-Z])", s):
        stripped = _PREFIX.sub("", s, count=1)
        s = stripped if stripped != s else _SUFFIX.sub("", s, count=1)
    s = _WS.sub(" ", s).strip()
    s = _WS_AROUND.sub(_ws_around, s)
    s = braced_short_commands(s)
    m = _ORDINAL.fullmatch(s)
    if m:
        s = m.group(1)
    if s[:1].isalpha():
        s = _MINUS_WORD.sub("-", s)  # `minus 5`, `минус 5`, `マイナス5`
    if s.startswith("%"):
        s = _PERCENT_FIRST.sub(r"\1%", s)  # `%25` (Turkish): 25%
    if not s.isascii():
        s = _PART_OF.sub(r"\\frac{\2}{\1}", s)  # `4分の3`, `2분의 1`: three quarters, one half
    if ("," in s or "'" in s) and (_INDIAN_GROUPS.match(s) or _APOSTROPHE_GROUPS.match(s)):
        s = s.replace(",", "").replace("'", "")  # `4,50,000` (lakh grouping), `1'500` (Swiss)
    if _THOUSANDS.match(s):
        s = s.replace(",", "")
    if _INT.match(s):
        s = _canon_int_text(s)
    elif s and s[0].isalpha() and s.replace("-", " ").replace(" ", "").isalpha():
        n = number_from_words(s)
        if n is not None:
            s = str(n)
        elif s.lower() in _VERDICT_WORDS:
            s = _VERDICT_WORDS[s.lower()]
    return s


# a verdict on a solution (a critic's answer) in its usual synonyms: `incorrect` is `wrong`
_VERDICT_WORDS = {"incorrect": "wrong", "wrong": "wrong", "correct": "correct"}


def _ws_around(m: re.Match) -> str:
    if m.group(1) == "," and m.group(2) and _LIST_COMMA.match(m.string, m.start(1)):
        return ", "
    return m.group(1) or ""


_OTHER_DIGIT = re.compile(r"[^\x00-\x7f](?<=\d)")  # a decimal digit outside ASCII


def _unicode(s: str) -> str:
    """Unicode spellings as ASCII/LaTeX: minus, ×, √, π, superscripts, vulgar fractions, full-width."""
    if s.isascii():
        return s
    s = _SUPER_RUN.sub(lambda m: "^{" + "".join(_SUPERSCRIPTS[c] for c in m.group(0)) + "}", s)
    s = _ROOT_DIGITS.sub(r"\\sqrt{\1}", s)  # `√26` is the root of 26 (LaTeX's `\sqrt26` is not)
    s = _UNICODE_RE.sub(lambda m: _UNICODE[m.group(0)], s)
    if not s.isascii():
        s = unicodedata.normalize("NFKC", s)  # full-width digits, letters and brackets
        # digits of other scripts (`١٨`, `۱۸`, `१८`, `১৮`, `๑๘`) and the Arabic decimal and thousands marks
        s = (
            _OTHER_DIGIT.sub(lambda m: str(unicodedata.digit(m.group(0))), s)
            .replace("\u066b", ".")
            .replace("\u066c", ",")
        )
        s = chinese_joiners(s)
    return s


# Chinese words that qualify a value ("between", "or more", "about", "at least"...): such an answer is
# compared as written, never read as the numbers in it (`10和11之间` is not the list 10, 11)
CHINESE_QUALIFIER = re.compile(
    r"之间|以上|以下|以内|以外|左右|大约|约|至少|至多|最多|最少|超过|不超过|不到|不足|多于|少于|大于|小于"
)


def chinese_joiners(s: str) -> str:
    """`5或10` -> `5 or 10`, `5和10` / `5、10` -> a list: read before an answer is split at `=` or `,`."""
    if s.isascii():
        return s
    s = _CJK_JOINER_TEXT.sub(r" \1 ", s)  # `x=3 \text{ 或 } x=2`: the joiner written as LaTeX text
    return _CJK_AND.sub(" and ", _CJK_OR.sub(" or ", s)).replace("\u3001", ", ")


def _scaled(s: str) -> str:
    """`5万` -> `50000`, `1.2 million` -> `1200000` (exact: the decimal as written, times the scale)."""
    from decimal import Decimal

    def times(m: re.Match) -> str:
        v = Decimal(m.group(1)) * _SCALE_OF[m.group(2)]
        return format(v.normalize(), "f")

    if (
        "$" in s
    ):  # `$20k`, `$1.5M`, `$2bn`: money's magnitude letters, only after a currency sign (`300 K` is kelvin)
        s = _MONEY_SCALED.sub(
            lambda m: m.group(1) + format((Decimal(m.group(2)) * _MONEY_SCALE[m.group(3)]).normalize(), "f"),
            s,
        )
    return _SCALED.sub(times, s) if ("illion" in s or "thousand" in s or not s.isascii()) else s


_REL_CANON = (
    (re.compile(r"\\leqslant(?![a-zA-Z])|\\leq(?![a-zA-Z])|<=|=<"), "\\le "),
    (re.compile(r"\\geqslant(?![a-zA-Z])|\\geq(?![a-zA-Z])|>=|=>"), "\\ge "),
    (re.compile(r"\\neq(?![a-zA-Z])|!=|<>"), "\\ne "),
    (re.compile(r"\\lt(?![a-zA-Z])"), "<"),
    (re.compile(r"\\gt(?![a-zA-Z])"), ">"),
)


def _relations(s: str) -> str:
    """One spelling per relation: \\le \\ge \\ne < > (from <=, \\leq, \\leqslant, !=, \\neq, \\lt, ...)."""
    if not any(c in s for c in "<>=!\\"):
        return s
    for pat, rep in _REL_CANON:
        s = pat.sub(lambda _m, r=rep: r, s)
    return s


_PERCENT_WORD = re.compile(
    r"(?<=[\d}])\s*(?:percentage|percent|pct)(?![a-zA-Z])|(?<=[\d}])\s*per\s*cent(?![a-zA-Z])"
)
_MONEY = re.compile(r"^\s*\$\s*(?=[-+]?\.?\d)|(?<=\d)\s*\$\s*$")
# currency signs and codes written before an amount (`R$ 37.500`, `Rs. 750`, `₹4,50,000`, `US$ 5`): the one list, also
# read by the rules step (pipelines.rules) off source keys
CURRENCY_BEFORE = r"R\$|US\$|Rp\.?|Rs\.?|RS\.?|INR|USD|GH₵|GHS|₵|₦|₱|₹|€|£|¥|₩|₫|฿|₽|KSh|TL|shilingi"
_OTHER_CURRENCY = re.compile(
    r"^\s*(?:" + CURRENCY_BEFORE + r")\s*(?=[-\d])"
    r"|(?<=\d)\s*(?:€|₽|₩|₫|฿|TL|원|円|元|руб(?:\.|лей|ля|ль)?|đồng|shilingi|ريال|روپے)\s*$"
)
_CURRENCY_WORD = re.compile(r"(?<=\d)\s*(?:USD|EUR|GBP)\s*$|^\s*(?:USD|EUR|GBP)\s*(?=\d)")
# a number followed by what it counts, in parentheses: `9 (apples)` (ASDiv's answer style)
_COUNTED = re.compile(r"(?<=\d)\s*\((?:[A-Za-z][A-Za-z ]+)\)\s*$")


def _currency(s: str) -> str:
    """A lone `$` before or after a number is money, not a math delimiter ($1,000.99, 1,000.99$); so are the
    signs and words of other currencies (`R$ 37.500`, `Rp50.000`, `₹4,50,000`, `3.000 TL`, `100 원`)."""
    if s.count("$") == 1 and not s.lstrip().startswith("R$"):
        s = _MONEY.sub("", s)
    s = _CURRENCY_WORD.sub("", s)
    if not s.isascii() or "R" in s or "US" in s or "TL" in s or "KSh" in s or "shilingi" in s:
        s = _OTHER_CURRENCY.sub("", s)
    return _COUNTED.sub("", s)


_SQRT_PAREN = re.compile(r"(?:\\sqrt|(?<![a-zA-Z\\])sqrt)\s*\(")
_POW_PAREN = re.compile(r"\^\s*\(")
# `\\begin{matrix}5\\end{matrix}`: the bracketless `matrix` environment with one cell (no `&`, no `\\\\`)
_ONE_CELL_MATRIX = re.compile(
    r"\\begin\{matrix\}\s*((?:(?!\\\\|&|\\begin|\\end).)+?)\s*\\end\{matrix\}", re.DOTALL
)
# Python's `**` between two operands (markdown bold `**41**` has no operand before its first `**`)
_PY_POWER_ATOM = re.compile(r"(?<=[\w)}\]])\s*\*\*\s*(-?\s*\d+(?:\.\d+)?|-?\s*[A-Za-z])(?![\w(.])")
_PY_POWER = re.compile(r"(?<=[\w)}\]])\s*\*\*\s*(?=[\w(.{])")
_PI_WORD = re.compile(r"(?<![a-zA-Z\\])pi(?![a-zA-Z])")
# plain-text function calls (`cos(x)^2`, `log(x)/log(10)`): the LaTeX command, so they parse as functions
_FUNC_CALL = re.compile(
    r"(?<![a-zA-Z\\])(arcsin|arccos|arctan|sinh|cosh|tanh|sin|cos|tan|cot|sec|csc|log|ln)(?=\s*\()"
)
_EXP_PAREN = re.compile(r"(?<![a-zA-Z\\])exp\s*\(")
# `12^{\mathrm{th}}`, `12^{th}`, `12th`, `1st`: the number an ordinal names
_ORDINAL = re.compile(
    r"(\d+)\s*(?:\^\s*\{\s*(?:\\(?:mathrm|text|textrm|rm)\s*\{\s*)?(?:st|nd|rd|th)\s*\}?\s*\}|\^\s*(?:st|nd|rd|th)|(?:st|nd|rd|th))"
)
_TRIG = re.compile(r"\\(?:sin|cos|tan|cot|sec|csc)(?![a-zA-Z])")
_DEGREE_NUM = re.compile(r"(\d+(?:\.\d+)?)\s*\^\s*\{?\s*\\circ\s*\}?")
_EMPTY = re.compile(r"\\varnothing(?![a-zA-Z])|\\emptyset(?![a-zA-Z])|\\\{\s*\\\}|^\{\s*\}$")


def _paren_to_brace(s: str, opener: re.Pattern, head: str) -> str:
    """`sqrt(2)` / `\\sqrt(2)` -> `\\sqrt{2}`, `x^(1/2)` -> `x^{1/2}`: the parenthesis that closes the call."""
    for _ in range(8):
        m = opener.search(s)
        if m is None:
            return s
        depth, i = 0, m.end() - 1
        while i < len(s):
            if s[i] == "(":
                depth += 1
            elif s[i] == ")":
                depth -= 1
                if depth == 0:
                    break
            i += 1
        if i >= len(s):
            return s  # unbalanced: leave it (it will not parse)
        s = s[: m.start()] + head + "{" + s[m.end() : i] + "}" + s[i + 1 :]
    return s


def _plain_math(s: str) -> str:
    """Plain-text maths as LaTeX: `3*sqrt(2)` -> `3*\\sqrt{2}`, `x^(1/2)` -> `x^{1/2}`, `pi` -> `\\pi`,
    Python's power `(x+1)**2` -> `(x+1)^2`, `x**-2` -> `x^{-2}`."""
    if "**" in s:
        s = _PY_POWER_ATOM.sub(r"^{\1}", s)
        s = _PY_POWER.sub("^", s)
    if "sqrt" in s:
        s = _paren_to_brace(s, _SQRT_PAREN, "\\sqrt")
    if "^(" in s.replace(" ", ""):
        s = _paren_to_brace(s, _POW_PAREN, "^")
    if "pi" in s:
        s = _PI_WORD.sub(lambda _m: "\\pi ", s)
    if "(" in s:
        s = _FUNC_CALL.sub(r"\\\1", s)
        if "exp" in s:
            s = _paren_to_brace(s, _EXP_PAREN, "e^")  # `exp(16)-1` -> `e^{16}-1`
    return s


# English number words, one list for the toolkit (decontamination and the rules read them too)
NUMBER_WORDS = ("zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten",
                "eleven", "twelve", "thirteen", "fourteen", "fifteen", "sixteen", "seventeen", "eighteen",
                "nineteen")  # fmt: skip
TENS_WORDS = {
    "twenty": 2,
    "thirty": 3,
    "forty": 4,
    "fifty": 5,
    "sixty": 6,
    "seventy": 7,
    "eighty": 8,
    "ninety": 9,
}
_ONES = {w: i for i, w in enumerate(NUMBER_WORDS)}
_TENS = {w: 10 * d for w, d in TENS_WORDS.items()}
_SCALES = {"hundred": 100, "thousand": 1_000, "million": 1_000_000, "billion": 1_000_000_000}


def number_from_words(text: str) -> int | None:
    """`thirty-four` -> 34, `one hundred and five` -> 105; None unless the whole text is a number word."""
    words = text.lower().replace("-", " ").split()
    if not words or len(words) > 12:
        return None
    total = current = 0
    seen = False
    for w in words:
        if w == "and" and seen:
            continue
        if w in _ONES:
            current += _ONES[w]
        elif w in _TENS:
            current += _TENS[w]
        elif w == "hundred" and seen:
            current *= 100
        elif w in _SCALES and seen:
            total += current * _SCALES[w]
            current = 0
        else:
            return None
        seen = True
    return total + current if seen else None


def _canon_int_text(s: str) -> str:
    """`+034.00` -> `34`; string work only, so a 5,000-digit integer costs nothing."""
    sign = "-" if s.startswith("-") else ""
    digits = s.lstrip("+-").split(".", 1)[0].lstrip("0") or "0"
    return "0" if digits == "0" else sign + digits


def canonical_integer(answer: str) -> str | None:
    """The answer as a canonical integer string (`"034"` -> `"34"`, `"27.0"` -> `"27"`), else None."""
    if not isinstance(answer, str) or len(answer) > 10_000 or "\x00" in answer:
        return None
    s = normalize(answer)
    return s if re.fullmatch(r"-?(?:0|[1-9]\d*)", s) else None


# a number printed from binary floating point (Math23K's key `14.399999999999999`, a program's `26.000000000000004`):
# 12 decimals or more
FLOAT_PRINT = re.compile(r"\s*(-?\d+\.\d{12,})\s*")  # (searched in a statement, a number printed so)


def float_rendering(answer: str) -> str | None:
    """The value a number printed from binary floating point stands for when it is whole or a terminating decimal
    (`59.99999999999999` -> `60`, `14.399999999999999` -> `14.4`): the fraction with denominator at most 1000 within
    1e-12 (relative) of it, when the key has 15 significant digits or more (a double's own precision). Not a search
    over the statement: a double printed to its full precision names one small fraction. A repeating value
    (`0.6666666666666667`) stays as written (a labeller reads such a key as an approximation the question did not
    ask for), and None is returned for any other key."""
    m = FLOAT_PRINT.fullmatch(answer or "")
    if m is None or len(m.group(1).replace("-", "").replace(".", "").lstrip("0")) < 15:
        return None
    x = Fraction(m.group(1))
    f = x.limit_denominator(1000)
    if abs(f - x) > Fraction(1, 10**12) * max(1, abs(x)):
        return None
    den = f.denominator
    while den % 2 == 0 or den % 5 == 0:
        den //= 2 if den % 2 == 0 else 5
    if den != 1:
        return None
    if f.denominator == 1:
        return str(f.numerator)
    # written as the decimal it is, so that the decimal rules decide it as they decide `14.4`
    digits = next(d for d in range(1, 40) if (f * 10**d).denominator == 1)
    return f"{float(f):.{digits}f}"
