"""Bring an answer string to a canonical written form before comparing.

Only surface form is touched here (LaTeX wrappers, units, separators, unicode); no maths is
evaluated, so every step is a bounded regex and `normalize` is safe on any input.
"""

from __future__ import annotations

import re

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
}
_UNICODE_RE = re.compile("|".join(map(re.escape, _UNICODE)))

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
)
_UNIT_ALT = "|".join(sorted((re.escape(u) for u in UNITS), key=len, reverse=True))
# a unit written as \text{ cm}, \mbox{cm}, \mathrm{cm} (optionally squared), or as a plain word after a number
_TEXT_UNIT = re.compile(
    r"\\(?:text|mbox|mathrm|textrm|rm)\s*\{\s*(?P<u>(?:"
    + _UNIT_ALT
    + r"))\s*\}(?P<p>\s*\^\s*\{?\s*[23]\s*\}?)?\s*$"
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
    "sq units": "square units",
}

_SPACES = re.compile(
    r"(?<!\\)\\[,;:! ]|\\q?quad\b|~|\\(?:displaystyle|left|right|big|Big|bigg|Bigg)(?![a-zA-Z])"
)
_TEXT_CMD = re.compile(
    r"\\(?:text|textbf|textit|textrm|mathrm|mathbf|mbox|operatorname|rm|bf)\s*\{([^{}]*)\}"
)
_DEGREES = re.compile(r"\^\s*\{?\s*\\circ\s*\}?|\\circ|\\degree|\^\s*\{\s*o\s*\}|\s*degrees?\b")
_PREFIX = re.compile(r"^\s*\\?[a-zA-Z]{1,6}(?:_\{?[a-zA-Z0-9]{1,4}\}?)?(?:\([a-z]\))?\s*=\s*(?=[^=])")
_THOUSANDS = re.compile(r"^[-+]?\d{1,3}(?:,\d{3})+(?:\.\d+)?$")
_INT = re.compile(r"^[-+]?\d+(?:\.0*)?$")
_WS = re.compile(r"\s+")
_WS_AROUND = re.compile(r"\s*([^\w\\\s])\s*|(?<=\d)\s+(?=\d{3}(?!\d))")
_SUFFIX = re.compile(r"(?<=[^=<>])\s*=\s*\\?[a-zA-Z]{1,6}(?:_\{?[a-zA-Z0-9]{1,4}\}?)?\s*$")
_FRAC_SHORT = re.compile(r"\\frac\s*(\d)\s*(\d)")
_FRAC_SHORT2 = re.compile(r"\\frac\s*\{([^{}]*)\}\s*(\d)")
_SQRT_SHORT = re.compile(r"\\sqrt\s*(\d)")
_WRAPPERS = (("$$", "$$"), ("$", "$"), ("\\(", "\\)"), ("\\[", "\\]"), ("\\boxed{", "}"), ("\\fbox{", "}"))


def split_unit(answer: str) -> tuple[str, str | None]:
    """Split a trailing unit off (`5 \\text{ cm}` -> (`5`, `cm`)); the unit is canonicalised."""
    s = _SPACES.sub(" ", answer).strip().rstrip(".").strip()
    for pat in (_TEXT_UNIT, _WORD_UNIT):
        m = pat.search(s)
        if m and m.start() > 0:
            unit = _UNIT_CANON.get(m.group("u"), m.group("u"))
            power = re.sub(r"\D", "", m.group("p") or "")
            return s[: m.start()].strip(), unit + (f"^{power}" if power else "")
    return answer, None


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
    s = _UNICODE_RE.sub(lambda m: _UNICODE[m.group(0)], answer)
    s = _unwrap(s)
    s = s.replace("\\dfrac", "\\frac").replace("\\tfrac", "\\frac").replace("{,}", ",")
    s = s.replace("\\%", "%").replace("\\$", "").replace("\\infin", "\\infty")
    s = _SPACES.sub(" ", s)
    s = split_unit(s)[0]
    for _ in range(3):
        s = _TEXT_CMD.sub(lambda m: m.group(1), s)
    s = _DEGREES.sub("", s)
    s = _unwrap(s).strip().rstrip(".").strip()
    if s.count("=") == 1 and not re.search(r"[<>]|\\[lgn]eq?(?![a-zA-Z])", s):
        stripped = _PREFIX.sub("", s, count=1)
        s = stripped if stripped != s else _SUFFIX.sub("", s, count=1)
    s = _WS.sub(" ", s).strip()
    s = _WS_AROUND.sub(lambda m: m.group(1) or "", s)
    s = _FRAC_SHORT.sub(r"\\frac{\1}{\2}", s)
    s = _FRAC_SHORT2.sub(r"\\frac{\1}{\2}", s)
    s = _SQRT_SHORT.sub(r"\\sqrt{\1}", s)
    if _THOUSANDS.match(s):
        s = s.replace(",", "")
    if _INT.match(s):
        s = _canon_int_text(s)
    return s


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
