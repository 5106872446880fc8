"""Answer forms with their own rules of equality, decided with string work only.

- multiple choice: several letters (`ACD`, a multi-select key) against letters in any joined form
  (`A、C、D`, `A, C and D`): the same set; a gold letter (`C`, `(C)`, `\\text{(A)}`, `C. {x | -3<x<4}`, `A（$10\\rm i$）`) against a letter
  with or without its option text (`C. x = 42`, `\\mathcal{B}`), or against the option's content;
  in a short answer the one letter that is asserted counts (`not A ... therefore B`: B), a letter
  that is negated (`not A`, `can't be A or B`, `不是 A`, `non A`) is excluded, not offered;
- clock times: `20:34`, `20:34:00` and `08:34 P.M.` are the same time;
- ratios written with colons: `2:4:6:\\ldots` is `1:2:3:\\ldots` (proportional terms), `1:4:9:\\ldots`
  is not; terms after an ellipsis are never guessed;
- set-builder notation `\\{x \\mid -3 < x < 4\\}`: the condition, for the interval rules;
- quantities in two units of one dimension: `12 inches` is `1 foot`, `2 hours 30 minutes` is `2.5 hours`
  (exact factors: SI prefixes, the inch as 2.54 cm, the foot, yard and mile from it; seconds to weeks).
"""

from __future__ import annotations

import math
import re
from fractions import Fraction

_LETTER = r"[A-E]"
# a choice letter: A-E, or up to J (MMLU-Pro's ten options) when written as a letter alone or in brackets
_CHOICE = re.compile(
    r"^\s*(?:\\text\{\s*)?(?:\\mathcal\{|\\mathrm\{|\\textbf\{|\\mathbf\{)?(?P<open>\()?\s*(?P<l>[A-J])\s*"
    r"(?P<close>\))?\s*\}?\s*\}?(?P<rest>.*)$",
    re.DOTALL,
)
_TEXT_BRACES = re.compile(r"\\text\{([^{}]*)\}")
_NEGATED = re.compile(
    r"(?:\bnot\b|n't\b|\bnon\b|\bpas\b|\bnicht\b|不是|不)(?:\W+[a-z]+){0,6}?[\W]*?"
    r"(?P<ls>(?<![A-Za-z])[A-E](?:\s*(?:or|and|,|/|或|和|ou|et)\s*[A-E])*)(?![A-Za-z])",
)
# a letter of MMLU-Pro's F-J, in brackets or alone (not `I`, the pronoun): another letter named beside one of A-E
_LATER_LETTER = re.compile(r"\(\s*([F-J])\s*\)|(?<![A-Za-z\\*+\-/^=\d{(])([FGHJ])(?![A-Za-z*+\-/^=\d}'’)])")
_BARE_LETTER = re.compile(r"(?<![A-Za-z\\*+\-/^=\d{])[A-E](?![A-Za-z*+\-/^=\d}])")  # not `E*2`, `\\mathrm{E}`


_LOWER_CHOICE = re.compile(r"\s*\(?([a-hj])\)(?=\s*\S|\s*$)")  # not `(i)`, a roman numeral


def choice(s: str) -> tuple[str, str] | None:
    """(letter, option text) of a choice answer (`C`, `(C)`, `C. x = 42`, `\\text{(A)} 12`, `(a) 42`), else None."""
    if "**" in s:
        s = s.replace("**", "")  # `A**（$x = 2$）`: a bold letter, its value after it
    low = _LOWER_CHOICE.match(s)
    if low:  # `(a) 42`, `a) 42`: a lower-case label in brackets is the option's letter
        s = s[: low.start(1)] + low.group(1).upper() + s[low.end(1) :]
    m = _CHOICE.match(_TEXT_BRACES.sub(r"\1", s) if "\\text{" in s[1:] else s)  # `\text{B（}a=1\text{）}`
    if m is None or (m.group("open") and not m.group("close")):
        return None
    if m.group("close") and not m.group("open"):  # `C) -3/7`: a label written `C)`, as options often are
        rest = m.group("rest").strip()
        return (m.group("l"), rest) if m.group("l") <= "E" and (not rest or rest[0] not in ".:：)") else None
    rest = m.group("rest").strip()
    if (
        m.group("l") > "E" and rest and not m.group("open")
    ):  # F-J alone or bracketed: `F = ma`, `G(x)` are not
        return None  # options, `(H) False, True` is
    if rest and not m.group("open") and rest[0] in "（(" and rest[-1] in "）)":  # `A（$10\\rm i$）`
        return m.group("l"), rest[1:-1].strip()
    if rest and not m.group("open") and rest[0] not in ".:：)。":
        return None  # `A = 5`, `B不是 A`: not a letter with its option
    if re.search(r"\(\s*[A-Ea-e]\s*\)|\bor\b|\band\b", rest):
        return None  # `(A) or (C)`: several letters offered
    value = rest.lstrip(".:：)。").strip()
    if value.startswith("}") and s.lstrip().startswith("\\text{"):
        value = value[1:].strip()  # `\text{B. } [-1, 0]`: the brace closes the letter's `\text`
    return m.group("l"), value


def asserted_letter(text: str) -> str | None:
    """In a short answer, the one choice letter that is not negated (`It's not A, therefore B`)."""
    if len(text) > 300:
        return None
    negated = {c for m in _NEGATED.finditer(text) for c in re.findall(_LETTER, m.group("ls"))}
    rest = _NEGATED.sub(" ", text)
    found = {m.group(0) for m in _BARE_LETTER.finditer(rest)} - negated
    found |= {m.group(1) or m.group(2) for m in _LATER_LETTER.finditer(rest)}  # `(B) and (H)`: two letters
    return found.pop() if len(found) == 1 else None


# several choice letters: a gold written together in order (`ACD`), an answer joined by commas, 、, and
_LETTERS_GOLD = re.compile(r"\s*([A-J]{2,})\s*")
_LETTERS_SEP = re.compile(r"\s*(?:[,，、;；/]|\band\b|和|及)\s*|\s+")


def letters(gold: str, pred: str) -> bool | None:
    """True/False when `gold` is several choice letters in order (`ACD`, a multi-select key) and `pred`
    names letters (`A、C、D`, `A, C and D`, `ACD`): the same set; None otherwise."""
    m = _LETTERS_GOLD.fullmatch(gold)
    if m is None or list(m.group(1)) != sorted(set(m.group(1))):
        return None
    body = _TEXT_BRACES.sub(r"\1", pred).strip().strip("$ .。")
    parts = [x for x in _LETTERS_SEP.split(body) if x]
    if len(parts) == 1 and parts[0] == m.group(1):  # written together: only as the gold writes it
        parts = list(parts[0])
    if not parts or not all(re.fullmatch(r"[A-J]", x) for x in parts):
        return None
    return set(parts) == set(m.group(1)) and len(parts) == len(set(parts))


def compare_choice(pred: str, gold: str) -> bool | None:
    """True/False when the gold is one choice letter (see the module docstring; several: `letters`), else None."""
    g = choice(gold)
    if g is None:
        return None
    letter, content = g
    p = choice(pred)
    if p is not None:
        return p[0] == letter
    if content and pred.replace(" ", "") == content.replace(" ", ""):
        return True
    a = asserted_letter(pred)
    return None if a is None else a == letter


_CLOCK = re.compile(
    r"^\s*(?P<h>\d{1,2}):(?P<m>\d{2})(?::(?P<s>\d{2}))?\s*(?:\\text\{\s*)?(?P<ap>[ap])?\.?\s*(?:m\.?)?\s*\}?\s*$",
    re.IGNORECASE,
)


def clock_seconds(s: str) -> int | None:
    """Seconds after midnight of a clock time (`20:34`, `20:34:00`, `08:34 P.M.`), else None."""
    m = _CLOCK.match(s)
    if m is None:
        return None
    h, mi, sec = int(m.group("h")), int(m.group("m")), int(m.group("s") or 0)
    ap = (m.group("ap") or "").lower()
    if mi > 59 or sec > 59 or h > 24 or (ap and not 1 <= h <= 12):
        return None
    if ap == "p" and h != 12:
        h += 12
    elif ap == "a" and h == 12:
        h = 0
    return h * 3600 + mi * 60 + sec


_ELLIPSIS = re.compile(r"\\[lc]?dots[bcm]?(?![a-zA-Z])|\.\.\.|\u2026")


def ratio_terms(s: str) -> tuple[list[Fraction], bool] | None:
    """(terms, open-ended) of a colon ratio `1:2:3` / `1:2:3:\\ldots`, else None."""
    if ":" not in s:
        return None
    parts = [p.strip() for p in s.split(":")]
    open_ended = bool(parts) and bool(_ELLIPSIS.fullmatch(parts[-1]))
    if open_ended:
        parts = parts[:-1]
    terms = []
    for p in parts:
        try:
            terms.append(Fraction(p))
        except (ValueError, ZeroDivisionError):
            return None
    return (terms, open_ended) if len(terms) >= 2 else None


def ratios_equal(a: tuple[list[Fraction], bool], b: tuple[list[Fraction], bool]) -> bool:
    (ta, oa), (tb, ob) = a, b
    if oa != ob or len(ta) != len(tb) or any(x == 0 for x in ta + tb):
        return ta == tb and oa == ob
    k = ta[0] / tb[0]
    return all(x == k * y for x, y in zip(ta, tb, strict=True))


_SET_BUILDER = re.compile(
    r"^(?:\\\{|\{)?\s*(?P<v>\\?[a-zA-Z]+)\s*(?:\\mid|\||\\vert)\s*(?P<cond>.+?)\s*(?:\\\}|\})?$"
)


def set_builder_condition(s: str) -> str | None:
    """`\\{x \\mid -3<x<4\\}` -> `-3<x<4` (the condition of a one-variable set), else None."""
    m = _SET_BUILDER.match(s.strip())
    if m is None or m.group("v") not in m.group("cond"):
        return None
    cond = m.group("cond")
    cond = re.sub(r"^\s*" + re.escape(m.group("v")) + r"\s*\\in\s*\\mathbb\{R\}\s*,?", "", cond)
    return cond.strip() or None


# exact factors to one base unit per dimension (units as `verifiers.normalize.split_unit` spells them)
_FACTOR: dict[str, tuple[str, Fraction]] = {
    "mm": ("length", Fraction(1, 1000)),
    "cm": ("length", Fraction(1, 100)),
    "m": ("length", Fraction(1)),
    "km": ("length", Fraction(1000)),
    "in": ("length", Fraction(254, 10000)),
    "ft": ("length", Fraction(3048, 10000)),
    "yd": ("length", Fraction(9144, 10000)),
    "mi": ("length", Fraction(1609344, 1000)),
    "s": ("time", Fraction(1)),
    "min": ("time", Fraction(60)),
    "h": ("time", Fraction(3600)),
    "days": ("time", Fraction(86400)),
    "week": ("time", Fraction(604800)),
    "weeks": ("time", Fraction(604800)),
    "mg": ("mass", Fraction(1, 1000)),
    "g": ("mass", Fraction(1)),
    "kg": ("mass", Fraction(1000)),
    "mL": ("volume", Fraction(1, 1000)),
    "L": ("volume", Fraction(1)),
    "gal": ("volume", Fraction(3785411784, 10**9)),  # the US liquid gallon, exact by definition
    "qt": ("volume", Fraction(3785411784, 4 * 10**9)),
    "pt": ("volume", Fraction(3785411784, 8 * 10**9)),
    "oz": ("mass", Fraction(28349523125, 10**9)),  # the avoirdupois ounce
    "lb": ("mass", Fraction(45359237, 10**5)),  # the avoirdupois pound, exact by definition
}
_PLAIN = re.compile(r"-?\d+(?:\.\d+)?")
_IN_DOLLARS = re.compile(r"\$\s*\d|\bdollars?\b", re.I)
_CENTS_NAMED = re.compile(r"\bcents?\b|¢", re.I)
# `2 hours 30` (what split_unit leaves of `2 hours 30 minutes`): a whole part in a larger unit, then the rest
_COMPOUND = re.compile(r"(\d+(?:\.\d+)?)\s*([A-Za-z]+)\.?\s*(?:and\s+)?(\d+(?:\.\d+)?)")


def _unit_of(word: str) -> str | None:
    from verifiers.normalize import split_unit

    unit = split_unit("1 " + word)[1]
    unit = {"kilometers": "km", "kilometres": "km", "millimeters": "mm", "millimetres": "mm", "metres": "m",
            "centimetres": "cm", "milliliters": "mL", "millilitres": "mL", "litres": "L", "kilograms": "kg",
            "milligrams": "mg", "hours": "h", "days": "days", "weeks": "weeks", "gallons": "gal", "gallon": "gal",
            "quarts": "qt", "quart": "qt", "pints": "pt", "pint": "pt", "ounces": "oz", "ounce": "oz", "pounds": "lb",
            "pound": "lb", "lbs": "lb"}.get(unit, unit)  # fmt: skip
    return unit if unit in _FACTOR else None


def exact_conversion(amount: str, from_word: str, to_word: str) -> Fraction | None:
    """`amount` `from_word` in `to_word`, exactly (`1`, `mile`, `meters`: 1609.344), or None when either word is no
    unit this module knows or the two measure different things (`quantity` does the arithmetic)."""
    a, b = _unit_of(from_word), _unit_of(to_word)
    q = quantity(amount, a) if b is not None else None
    return q[1] / _FACTOR[b][1] if q is not None and q[0] == _FACTOR[b][0] else None


def quantity(body: str, unit: str | None) -> tuple[str, Fraction] | None:
    """(dimension, exact value in the base unit) of `body` in `unit` (`2.5`, `h`; `2 hours 30`, `min`), or None."""
    if unit not in _FACTOR:
        return None
    dim, factor = _FACTOR[unit]
    body = body.strip()
    if _PLAIN.fullmatch(body):
        return dim, Fraction(body) * factor
    m = _COMPOUND.fullmatch(body)
    big = _unit_of(m.group(2)) if m else None
    if big is None or _FACTOR[big][0] != dim or _FACTOR[big][1] <= factor:
        return None
    return dim, Fraction(m.group(1)) * _FACTOR[big][1] + Fraction(m.group(3)) * factor


def same_quantity(p_body: str, p_unit: str | None, g_body: str, g_unit: str | None) -> bool | None:
    """Two quantities written in units of one dimension: equal after conversion (True / False), or None
    when either is not a plain quantity in a known unit (then the units are compared as written)."""
    p, g = quantity(p_body, p_unit), quantity(g_body, g_unit)
    if p is None or g is None or p[0] != g[0]:
        return None
    return p[1] == g[1]


# units of science answers that `split_unit` leaves alone (SciBench writes `50.7 $\\mathrm{atm}$`): two different
# ones are two different quantities (no conversion is tried: `50.7 bar` is not `50.7 atm`)
SCIENCE_UNITS = frozenset(
    ["atm", "bar", "mbar", "Pa", "hPa", "kPa", "MPa", "GPa", "torr", "Torr", "mmHg", "J", "kJ", "MJ", "cal", "kcal",
     "eV", "keV", "MeV", "GeV", "W", "kW", "MW", "N", "kN", "V", "mV", "kV", "A", "mA", "Hz", "kHz", "MHz", "GHz", "K",
     "mol", "mmol", "M", "mM", "T", "Wb", "F"]
)  # fmt: skip
_SCIENCE_UNIT = re.compile(
    r"[\d}](?:\s|~|\\[ ,;!])*(?:\\(?:mathrm|text|rm|textrm|operatorname)\s*\{\s*~?\s*(?P<t>[A-Za-z]+)\s*\}"
    r"|(?P<w>[A-Za-z]+))\s*\.?\s*$"
)


def science_unit(answer: str) -> str | None:
    """The science unit written after a number (`50.7\\ \\mathrm{bar}`, `50.7 $\\mathrm{atm}$`, `3 kJ`), else None."""
    m = _SCIENCE_UNIT.search(answer.replace("$", " ").rstrip())
    unit = m and (m.group("t") or m.group("w"))
    return unit if unit in SCIENCE_UNITS else None


_ASKED = re.compile(
    r"\b(?:in|how many|number of|express(?:ed)? (?:it |your answer |the answer )?in)\s+(?:units of\s+)?"
    r"(millimet(?:er|re)s?|centimet(?:er|re)s?|met(?:er|re)s?|kilomet(?:er|re)s?|inch(?:es)?|f(?:ee|oo)t|yards?|"
    r"miles?|seconds?|minutes?|hours?|days?|weeks?|milligrams?|grams?|kilograms?|millilit(?:er|re)s?|lit(?:er|re)s?)\b",
    re.IGNORECASE,
)


def asked_unit(question: str) -> str | None:
    """The unit a question asks its answer in (`How many minutes ...`, `... in centimeters?`), as `split_unit`
    spells it, when it names exactly one."""
    units = {_unit_of(m.group(1).lower()) for m in _ASKED.finditer(question or "")}
    units.discard(None)
    return units.pop() if len(units) == 1 else None


# choice labels: `\textbf{(A) }`, `(A)`, or `A.` / `A．` / `A、` / `A:` (these start a line)
_OPTION_LABEL = re.compile(
    r"\\(?:textbf|mathrm|text|textrm|mathbf|rm)\s*\{\s*\(\s*(?P<w>[A-J])\s*\)[^{}]{0,12}\}|\(\s*(?P<b>[A-J])\s*\)"
    r"|(?:(?<=\s)|^)(?:Option\s+)?(?P<d>[A-J])\s*[.．、:：)](?=\s|\$|\d|-\s*\d)"  # `Option A: $2\sqrt{3}\pi$`
)
_CHOICE_JUNK = re.compile(r"\\q?quad|\\[ ,;:!]|~|\$|\\\\|\\newline|\\hspace\{[^}]*\}|\\qquad")


def clean_choice(value: str) -> str:
    """An option's text without LaTeX spacing, `$` and trailing punctuation."""
    value = _CHOICE_JUNK.sub(" ", value)
    return re.sub(r"\s+", " ", value).strip().rstrip(",;.").strip()


# lower-case labels `a.` / `a)` (LANTITE, MathQA): only as a run of four or more, the first starting a line; never
# `(a)`, which labels the parts of a problem
_CHINESE_STEM_END = re.compile(
    r"[\u4e00-\u9fff？：]$|[(（]\s*(?:\\q?quad)?\s*[)）]\s*[.。]?$"
)  # `的 ( ). A. ...`, `一定正确的是？ A. ...`
_LOWER_LABEL = re.compile(r"(?:(?<=\s)|^)(?P<d>[a-e])\s*[.)](?=\s)")


def _paragraph_end(text: str, start: int) -> int:
    blank = text.find("\n\n", start)
    return blank if blank != -1 else len(text)


def options(text: str) -> tuple[int, dict[str, str]] | None:
    """(where the choices start, {letter: option text}) when `text` ends with choices (A) .. (D/E): the last
    run of labels A, B, C, D[, E] in order and of one style; dotted labels (`A.`) start their own line and
    three of them suffice, bracketed ones need four; a bare `(A)` inside a sentence is no choice list.
    Lower-case labels (`a. 320 550 b. 321 000 ...`) are read, as upper-case letters, when no upper-case run is."""
    found = _options(text, _OPTION_LABEL, 3)
    if found is None and re.search(r"(?:^|\n)\s*a\s*[.)]\s", text):
        found = _options(text, _LOWER_LABEL, 4)
        if found is not None:
            found = found[0], {k.upper(): v for k, v in found[1].items()}
    return found


def choice_options(text: str) -> tuple[int, dict[str, str]] | None:
    """The options a verifier reads a response against: `options`, or MathQA's one-line list (`a ) 18 , b ) 20`).
    The pipeline's corpus steps read `options` alone (a MathQA key is the option's value, not its letter)."""
    return options(text) or mathqa_options(text)


# MathQA's one-line options: `Options: a ) 18 , b ) 20 , c ) 22 , d ) 23 , e ) 24`
_MATHQA = re.compile(
    r"\ba \) (.+?) , b \) (.+?) , c \) (.+?) , d \) (.+?)(?: , e \) (.+?))?(?=\s*(?:\(|\n|$))"
)


def mathqa_options(text: str) -> tuple[int, dict[str, str]] | None:
    """MathQA's options, written on one line as `a ) x , b ) y , ...` (read as upper-case letters)."""
    found = list(_MATHQA.finditer(text))
    if not found:
        return None
    m = found[-1]
    return m.start(), {k: v.strip() for k, v in zip("ABCDE", m.groups(), strict=True) if v is not None}


def _options(text: str, label: re.Pattern, dotted_min: int) -> tuple[int, dict[str, str]] | None:
    labels = list(label.finditer(text))

    def letter(m: re.Match) -> str:
        return (m.groupdict().get("w") or m.groupdict().get("b") or m["d"]).upper()

    for start in range(len(labels) - 1, -1, -1):
        if letter(labels[start]) != "A":
            continue
        dotted = labels[start]["d"] is not None
        run = [labels[start]]
        for m in labels[start + 1 :]:
            if letter(m) == "ABCDEFGHIJ"[len(run)] and (m["d"] is not None) == dotted:
                run.append(m)
            if len(run) == 10:  # MMLU-Pro's ten options
                break
        if len(run) < (dotted_min if dotted else 4):
            continue
        wrapped = sum(1 for m in run if m.groupdict().get("w")) >= len(run) - 1
        before = text[: run[0].start()].rstrip(" \t$")
        # a Chinese stem runs its options on in one line: `则双曲线的方程为 ( ) A. ... B. ...`, `编号是 A. (1)(3) B. ...`
        inline = len(run) >= 4 and _CHINESE_STEM_END.search(before) is not None
        if dotted and before and not inline and not text[: run[0].start()].rstrip(" \t").endswith("\n"):
            continue  # `A.` labels start their own line: `at point A. Then B. ...` is prose
        if not wrapped and before and not inline and not before.endswith(("\n", "?", ".", ":", "\\]")):
            continue  # a bare "(A)" inside a sentence is not a choice list (a display `\[z = c.\]` ends one)
        choices = {}
        for i, m in enumerate(run):
            # the last option ends at a blank line: `Enter the letter of the correct option.` is no part of it
            end = run[i + 1].start() if i + 1 < len(run) else _paragraph_end(text, m.end())
            value = clean_choice(text[m.end() : end])
            # `(A)A)59`: the label written twice (AGIEval's AQuA rows)
            choices[letter(m)] = re.sub(r"^\(?" + letter(m) + r"\)\s*(?=\S)", "", value)
        if all(choices.values()):
            return run[0].start(), choices
    return None


# the parts of a multi-part answer: `（1）... （2）...`, `(1) ... (2) ...`, `(I) ... (II) ...`, `① ... ②`
_PART = re.compile(r"(?:^|(?<=[\s;；,，。.:：]))(?:[（(]\s*(\d|I{1,3}|IV|Ⅰ|Ⅱ|Ⅲ|Ⅳ)\s*[）)]|([①②③④]))")
_ROMAN = {"I": 1, "II": 2, "III": 3, "IV": 4, "Ⅰ": 1, "Ⅱ": 2, "Ⅲ": 3, "Ⅳ": 4}
_CIRCLED = {"①": 1, "②": 2, "③": 3, "④": 4}
# a part whose answer is a proof: `证明见解析` ("see the solution for the proof"), `略`, `proof`
_PROOF_PART = re.compile(
    r"^\s*(?:证明见解析|证明略|见解析|详见解析|证明见详解|略|证明|proof|see (?:the )?solution)\s*[。.；;]?\s*$",
    re.I,
)


def parts(s: str) -> list[str] | None:
    """The parts of a multi-part answer in order (`（1）证明见解析；（2）3+\\sqrt{2}` -> two parts), when it is one
    labelled 1, 2, ... from its start; else None."""
    marks = list(_PART.finditer(s))
    if len(marks) < 2 or s[: marks[0].start()].strip():
        return None
    numbers = [
        int(m.group(1))
        if (m.group(1) or "").isdigit()
        else _ROMAN.get(m.group(1) or "", _CIRCLED.get(m.group(2) or "", 0))
        for m in marks
    ]
    if numbers != list(range(1, len(marks) + 1)):
        return None
    ends = [m.start() for m in marks[1:]] + [len(s)]
    return [s[m.end() : e].strip().strip("；;，,。").strip() for m, e in zip(marks, ends, strict=True)]


_CIRCLED_LABELS = "①②③④⑤⑥⑦⑧⑨⑩"


# options numbered at the end of a statement, circled (`① 6 ② 7 ③ 8 ④ 9 ⑤ 10`) or bracketed as an exam's LaTeX sets
# them (`\text{(1) 6}\\ \text{(2) 7}\\ ...`): labels, not numbers
_NUMBERED_LABEL = re.compile(r"(?:\\text\s*\{\s*)?(?:\((?P<n>[1-9])\)|(?P<c>[①-⑨]))")
_NUMBERED_JUNK = re.compile(r"\\end\s*\{array\}|\\\\|\$")


def _unwrapped(content: str) -> str:
    """An option's text without the `\\text{` label wrapper's own braces (`6}`, `} -\\frac{1}{4}`)."""
    content = _NUMBERED_JUNK.sub(" ", content).strip()
    while content.count("}") > content.count("{") and (content.startswith("}") or content.endswith("}")):
        content = content[1:] if content.startswith("}") else content[:-1]
        content = content.strip()
    return content


def numbered_options(text: str) -> tuple[list[re.Match], list[str]] | None:
    """(the labels, the options' texts) when a statement ends with four or five options numbered in order (1)-(4)/(5)
    or ①-④/⑤, each a short value (not a part of the problem: no question in it); else None."""
    labels = list(_NUMBERED_LABEL.finditer(text))
    for first in range(len(labels) - 3):
        run = labels[first:]
        numbers = [int(m["n"]) if m["n"] else _CIRCLED_LABELS.index(m["c"]) + 1 for m in run]
        if numbers not in ([1, 2, 3, 4], [1, 2, 3, 4, 5]):
            continue
        ends = [m.start() for m in run[1:]] + [len(text)]
        contents = [clean_choice(_unwrapped(text[m.end() : end])) for m, end in zip(run, ends, strict=True)]
        if any(not c or len(c) > 40 or re.search(r"[?？]|求|find|compute", c, re.I) for c in contents):
            return None
        return run, contents
    return None


def circled_numbering(text: str) -> str:
    """The statement with numbered options (`\\text{(2) 7}`) written with circled labels (`② 7`), one per line, so the
    circled-option rules read them; unchanged when it has none."""
    found = numbered_options(text)
    if found is None or all(m["c"] for m in found[0]):
        return text
    run, contents = found
    return text[: run[0].start()] + "".join(f"\n{_CIRCLED_LABELS[i]} {c}" for i, c in enumerate(contents))


def circled_choices(question: str, gold: str, pred: str) -> tuple[str, str, str] | None:
    """A choice question whose options are labelled with circled digits (`① 6  ② 7  ③ 8  ④ 9  ⑤ 10`, Korean and
    Japanese exams) written with letters instead, in the question, the gold and the response (`답 ④` -> `답 (D)`), so
    that the option rules read them: a circled digit is a label, not the number it looks like (`②` is the option
    whose content is 1/2). A gold written as the bare option number (`3`, as an exam harness stores it) is that
    option's label when no option's content is that number. None when the question has no such options."""
    labels = [c for c in question if c in _CIRCLED_LABELS]
    n = 0
    while n < len(labels) and labels[n] == _CIRCLED_LABELS[n]:
        n += 1
    if n < 3 or len(set(labels)) != n:
        return None
    letters = {c: "ABCDEFGHIJ"[i] for i, c in enumerate(_CIRCLED_LABELS[:n])}
    q = re.sub(f"[{_CIRCLED_LABELS[:n]}]", lambda m: f"\n({letters[m.group(0)]}) ", question)
    found = options(q)
    if found is None or len(found[1]) != n:
        return None
    g = gold.strip()
    if len(g) == 1 and g in letters:
        g = letters[g]
    elif (
        re.fullmatch(r"[1-9]", g)
        and int(g) <= n
        and not any(re.fullmatch(rf"\$?\s*{g}\s*\$?\.?", t.strip()) for t in found[1].values())
    ):
        g = "ABCDEFGHIJ"[int(g) - 1]  # `3` for option ③, where no option is the number 3
    else:
        g = gold
    p = re.sub(f"[{_CIRCLED_LABELS[:n]}]", lambda m: f"({letters[m.group(0)]})", pred)
    return q, g, p


def value_part(gold: str) -> str | None:
    """A multi-part gold whose other parts are proofs (`（1）证明见解析；（2）3+\\sqrt{2}`): its one valued part."""
    ps = parts(gold)
    if ps is None:
        return None
    valued = [p for p in ps if not _PROOF_PART.match(p)]
    return valued[0] if len(valued) == 1 and len(ps) > 1 else None


_FACTOR_COMPLETELY = re.compile(r"\bfactor\w*\b[^.?]*\bcompletely\b|\bcompletely factor|\bfully factor", re.I)
_GROUP = re.compile(r"\(([^()]+)\)")
_TERM = re.compile(r"\s*([+-]?)\s*(\d*)\s*(?:\*\s*)?([a-z](?:\s*\^\s*\{?\d+\}?)?)?\s*")


def factored_incompletely(answer: str, question: str) -> bool:
    """The question asks to factor completely and a factor of `answer` still has a common integer factor in
    its coefficients (`(6-2x)(6+2x)` for `36-4x^2`: 2 divides both terms of each factor)."""
    if not _FACTOR_COMPLETELY.search(question or ""):
        return False
    for group in _GROUP.finditer(answer.replace(" ", "")):
        body = group.group(1)
        if not re.fullmatch(r"[-+\d a-z^{}*]+", body):
            continue
        coefficients, pos = [], 0
        while pos < len(body):
            m = _TERM.match(body, pos)
            if m is None or m.end() == pos or not (m.group(2) or m.group(3)):
                coefficients = []
                break
            coefficients.append(int(m.group(2) or "1"))
            pos = m.end()
        if len(coefficients) >= 2 and math.gcd(*coefficients) > 1:
            return True
    return False


_LOWEST = re.compile(
    r"lowest terms|simplest (?:fractional )?(?:form|terms)|reduced (?:form|fraction)|fully reduced|最简|^\s*Simplify\b"
    r"|\bas an? common fraction\b",  # MATH's convention: a common fraction is in lowest terms
    re.I,
)
_SIMPLEST_RADICAL = re.compile(r"simplest radical form|\bsimplify\b", re.I)  # `Simplify` asks it too
_AS_PERCENT = re.compile(
    r"as a percent|in percent|as a percentage|what percent|percentage|百分之几|百分数|百分率", re.I
)
# any mention of percent, in the languages the labelled sets hold (the rules step reads it too): without one, `30%`
# is no answer to "how many elves"
PERCENT_MENTIONED = re.compile(
    r"%|percent|per cent|百分|por ?ciento|porcentaje|porcentagem|prozent|pourcent|pour cent|percentual|per cento"
    r"|процент|persen|yüzde|phần trăm|퍼센트|パーセント|割合|비율|प्रतिशत|ร้อยละ|asilimia|শতাংশ|శాతం|procent|prosent"
    r"|percento|درصد|المئة|المئوية|אחוז|pct\b",
    re.I,
)
_FRACTION = re.compile(r"^-?\\?d?frac\{(\d+)\}\{(\d+)\}$|^-?(\d+)/(\d+)$")
_RADICAL = re.compile(r"\\sqrt\{([^{}]*)\}")
_AREA_ASKED = re.compile(r"\bin\s+(square|cubic)\s+(\w+)|\bin\s+(km/h|m/s|mph|km/hr)\b", re.I)


# forms MATH's questions name: "as a common fraction", "as an improper fraction", "as a mixed number", "rationalize
# the denominator", "in interval notation", `in the form "$y = mx + b$"`, a plane with `A > 0` and gcd 1, "Factor"
_AS_FRACTION = re.compile(
    r"\b(?:as|in the form of) an? (?:common |simple |single |improper |reduced )?fraction\b|fractional form",
    re.I,
)
_AS_MIXED = re.compile(r"\bas an? mixed number\b", re.I)
_MIXED_NUMBER = re.compile(r"^-?\d+\\frac")  # `2\frac{1}{4}`
_NOT_A_FRACTION = re.compile(r"\d\.\d|^-?\.\d|%|\\overline|\\dot")
_NOT_RATIONAL = re.compile(
    r"\\(?:log|ln|sqrt|sin|cos|tan|pi)(?![a-zA-Z])"
)  # `\log_4 8` is no common fraction
_AS_DECIMAL = re.compile(
    r"\bas a decimal\b|\bto a (?:terminating )?decimal\b|\bin decimal form\b|\bdecimal to the nearest\b", re.I
)
_WRITTEN_AS_FRACTION = re.compile(r"\\frac|^-?\d+/\d+$|\\times\s*10\^")
_RATIONAL_DENOMINATOR = re.compile(
    r"rationali[sz]e (?:the |its |your )?denominator|rational denominator|simplest radical form|^\s*Simplify\b",
    re.I,
)  # a simplified radical expression has no radical below the line (MATH's convention)
_RADICAL_BELOW = re.compile(r"\\frac\{(?:[^{}]|\{[^{}]*\})*\}\{(?:[^{}]|\{[^{}]*\})*\\sqrt|/\(?\d*\\sqrt")
_INTERVAL_ASKED = re.compile(r"interval notation", re.I)
# (also with the spaces removed: `-2\\lex\\le7` is `\\le` then the variable `x`, `\\left` is no inequality)
_INEQUALITY = re.compile(r"<|>|\\[lg]eq?\b|\\[lg]eqslant|\\[lg]t\b|\\[lg]e(?=[a-zA-Z](?![a-zA-Z]))|[≤≥]")
_SLOPE_FORM_ASKED = re.compile(r"in the form\W{0,4}y\s*=\s*mx\s*\+\s*b|slope[- ]intercept form", re.I)
_PLANE_FORM_ASKED = re.compile(r"A\s*>\s*0", re.I)
_FACTOR_ASKED = re.compile(
    r"^\s*(?:Completely\s+)?Factor\b|\bfactor (?:the )?(?:expression|polynomial)\b", re.I
)


# two terms added or subtracted (not a leading sign): `\frac{1}{3}+\frac{1}{4}`, `1-\frac{1}{4}`
_SUM_OF_TERMS = re.compile(r"(?<=[\d}])\s*[-+]\s*(?=[\d\\])")
_FRACTION_FORM_ASKED = re.compile(r"in the form\W{0,4}\\[dt]?frac\s*\{", re.I)
# the fractions of the question are to be combined into one
_ONE_FRACTION_ASKED = re.compile(
    r"\b(?:as|into|to)\s+(?:a\s+)?single\s+(?:fraction|rational\s+expression)"
    r"|\b(?:subtract|add|combine)\b[^.?!]{0,60}?\bthen\s+simplify",
    re.I,
)
# "Expand", or a polynomial's standard form (`in the form $Ar^2 + Br + C$`): a sum of terms, no product with a sum
_EXPANSION_ASKED = re.compile(
    r"\bexpand\b|\bin the form\W{0,4}A\s*[a-z]\s*\^\s*\{?\s*\d\s*\}?\s*\+\s*B", re.I
)
_PRODUCT_WITH_SUM = re.compile(r"(?:[\w}]|\))\((?:[^()]*\w[+-][^()]*)\)|\((?:[^()]*\w[+-][^()]*)\)\s*[\^(]")


def _single_fraction(s: str) -> bool:
    """`s` is one `\\frac{...}{...}` (a sign before it allowed) and nothing else."""
    s = s.strip().lstrip("-").replace("\\dfrac", "\\frac").replace("\\tfrac", "\\frac")
    if re.fullmatch(r"\\frac\s*(?:\d|\{[^{}]*\})\s*(?:\d|\{[^{}]*\})", s):
        return True  # `\frac12`, `\frac{\pi}2`
    if not s.startswith("\\frac{"):
        return False
    depth, groups = 0, 0
    for i in range(len("\\frac"), len(s)):
        depth += {"{": 1, "}": -1}.get(s[i], 0)
        if depth == 0:
            if s[i] != "}":
                return False
            groups += 1
            if groups == 2:
                return i == len(s) - 1
    return False


# a question that demands its answer in digits: `Output only 0 or 1.`, `in arabic numerals`, `Write the answer in digits`
_DIGITS_ASKED = re.compile(
    r"\b(?:only|just)\s+0\s+or\s+1\b|\b0\s+or\s+1\s+only\b|\b(?:in|using|with)\s+(?:arabic\s+)?(?:numerals|digits)\b"
    r"|\b(?:arabic\s+)?(?:numerals|digits)\s+only\b|\barabic\s+numerals\b|阿拉伯数字",
    re.IGNORECASE,
)


_SCIENTIFIC_ASKED = re.compile(
    r"\bin\s+(?:standard\s+|normali[sz]ed\s+)?scientific\s+notation\b", re.IGNORECASE
)
# `1.6\times10^{4}`, `1.6×10^4`, `1.6*10^4`, `1.6e4` (no spaces): a coefficient, then a power of ten
_SCIENTIFIC = re.compile(r"-?(\d+(?:\.\d+)?)(?:(?:\\times|×|\*|\\cdot|x)10\^\{?[-−]?\d+\}?|[eE][-+]?\d+)")


def _named_form_missing(a: str, gold: str, question: str) -> str | None:
    """`form_not_asked` for the forms a question names (see above); `a` without spaces or `$`."""
    g = gold.replace(" ", "").replace("$", "")
    if _SCIENTIFIC_ASKED.search(question) and re.search(r"\d", a):
        m = _SCIENTIFIC.match(a.replace(",", ""))
        if m is None or not 1 <= float(m.group(1)) < 10:
            return (
                "not_the_asked_form"  # `16,000` or `16 \times 10^3` for "Express ... in scientific notation"
            )
    if (
        a.replace("-", "").isalpha()
        and a.isascii()
        and any(c.isdigit() for c in g)
        and _DIGITS_ASKED.search(question)
    ):
        return "not_the_asked_form"  # `ANSWER: zero` for "Output only 0 or 1"
    if _SLOPE_FORM_ASKED.search(question) and g.startswith("y=") and not a.startswith("y="):
        return "not_the_asked_form"  # `2x-y+3=0` for `y = mx + b`
    if _PLANE_FORM_ASKED.search(question) and "gcd" in question and a.endswith("=0"):
        terms = re.findall(r"[+-]?[^+-]+", a[:-2])
        coefficients = [re.match(r"([+-]?)(\d*)", t) for t in terms]
        if coefficients and all(re.fullmatch(r"[+-]?\d*[a-z]?", t) for t in terms):
            if coefficients[0].group(1) == "-":
                return "not_the_asked_form"  # `A > 0` asked
            if math.gcd(*(int(c.group(2) or "1") for c in coefficients)) > 1:
                return "not_the_asked_form"  # gcd 1 asked
    if _FACTOR_ASKED.search(question) and "(" in g and "(" not in a:
        return "not_factored"  # `xy+3x+2y+6` for "Factor"
    if _EXPANSION_ASKED.search(question) and not re.search(r"\bfactor", question, re.I):
        plain = a.replace("\\left", "").replace("\\right", "")
        if _PRODUCT_WITH_SUM.search(plain.rsplit("=", 1)[-1]) and not _PRODUCT_WITH_SUM.search(g):
            return "not_expanded"  # `x(x^2+3)-6`, `2(3r^2-2r-12)` for "Expand" or "in the form $Ar^2+Br+C$"
    if "=" in a and "=" not in g:
        a = a.rsplit("=", 1)[1]  # `\sqrt{117}=3\sqrt{13}`: the chain's last member is the answer's form
    if _FRACTION_FORM_ASKED.search(question) and _single_fraction(g) and not _single_fraction(a):
        return "not_the_asked_form"  # `\frac{\pi^2}{9}-1` for "in the form $\frac{a\pi^2+b\pi+c}{d}$"
    if (
        a.count("\\frac") >= 2
        and _ONE_FRACTION_ASKED.search(question)
        and _single_fraction(g.rsplit(":", 1)[-1])
        and not _single_fraction(a)
    ):
        return "not_the_asked_form"  # `\frac{6}{q}-\frac{2}{p}` for "Subtract the rational expressions, then simplify"
    fraction_gold = not _NOT_A_FRACTION.search(g) and not _MIXED_NUMBER.match(g)
    if (
        _AS_FRACTION.search(question)
        and fraction_gold
        and (_NOT_A_FRACTION.search(a) or _MIXED_NUMBER.match(a))
    ):
        return "not_a_fraction"  # `0.375`, `37.5%`, `0.\overline{3}`, `2\frac14` for "a common fraction"
    if (
        _AS_FRACTION.search(question)
        and fraction_gold
        and _NOT_RATIONAL.search(a)
        and not _NOT_RATIONAL.search(g)
    ):
        return "not_a_fraction"  # `\log_4 8` for "Express your answer as a common fraction"
    if _AS_FRACTION.search(question) and _single_fraction(g) and _SUM_OF_TERMS.search(a):
        return "not_a_fraction"  # `\frac{1}{3}+\frac{1}{4}` for "as a common fraction": a sum left undone
    if _AS_DECIMAL.search(question) and not _WRITTEN_AS_FRACTION.search(g) and _WRITTEN_AS_FRACTION.search(a):
        return "not_a_decimal"  # `\frac{15}{100}`, `4\frac12`, `6.72\times 10^{-5}` for "as a decimal"
    if _AS_MIXED.search(question) and _MIXED_NUMBER.match(g) and not _MIXED_NUMBER.match(a):
        return "not_a_mixed_number"
    if _RATIONAL_DENOMINATOR.search(question) and _RADICAL_BELOW.search(a) and not _RADICAL_BELOW.search(g):
        return "denominator_not_rational"  # `\frac{1}{\sqrt{2}}`
    if _INTERVAL_ASKED.search(question) and _INEQUALITY.search(a) and not _INEQUALITY.search(g):
        return "not_interval_notation"  # `1 < x \le 4` for "in interval notation"
    return None


# an integer written as a computation left undone: `\binom{10}{2}`, `5!\cdot 3!`, `2^8-1`, `115+256`, `\approx 540`
# (powers of ten and scientific notation are ways to write a number, `10^3`, `1.2 \times 10^4`)
_UNDONE = re.compile(
    r"(?<=[\d})!.])\s*[-+*/×÷·]\s*(?=[\d\\({.])|\\times|\\cdot|!|\\d?binom|\\[dt]?frac|\\gcd|\\operatorname|\\sqrt"
    r"|\^(?!\s*\{?\s*\\circ)|\\approx|≈|\\sim"
)
_POWER_OF_TEN = re.compile(
    r"-?(?:\d+(?:\.\d+)?\s*(?:\\times|\\cdot|\*|×)\s*)?10\^\{?-?\d+\}?|-?\d+(?:\.\d+)?[eE][-+]?\d+"
)


_ORDINAL_MARK = re.compile(
    r"\^\s*\{\s*(?:\\(?:mathrm|text|textrm)\s*\{\s*)?(?:st|nd|rd|th)\s*\}?\s*\}|\^\s*(?:st|nd|rd|th)\b"
)


# a residue's modulus written after it: `\pmod{18}`, `(\bmod 7)`, `(mod 9)`
MODULUS_AFTER = re.compile(
    r"\s*(?:\\pmod\s*\{?\s*\d+\s*\}?|\(\s*(?:\\bmod|\\mod|mod)\s*\{?\s*\d+\s*\}?\s*\))\s*$"
)


def left_undone(answer: str, gold: str) -> bool:
    """An integer gold answered by a computation not carried out (`\\binom{10}{2}` for 45, `2^8-1` for 255): equal
    by arithmetic, but the number asked for was never written; its last `=` member is read (`m+n = 194` is done)."""
    if not re.fullmatch(r"\s*-?\d+(?:\.0+)?\s*", gold.replace(",", "").replace("$", "")):  # `243.0` too
        return False
    a = answer.replace("$", "").strip().rsplit("=", 1)[-1].strip()
    if "equiv" in a:  # `10^{13} \equiv 10 \pmod{11}`: the congruence's last member, without its modulus
        a = MODULUS_AFTER.sub("", a.rsplit("\\equiv", 1)[-1]).strip()
    a = _ORDINAL_MARK.sub("", a)  # `12^{\mathrm{th}}`
    a = re.sub(
        r"\\(?:text|mathrm|textrm|mbox)\s*\{[^{}]*\}(?:\s*\^\s*\{?\s*[23]\s*\}?)?", "", a
    )  # `\text{ cm}^2`
    a = re.sub(r"\^\s*\{?\s*\\circ\s*\}?|\\[,;!]|\{,\}", "", a).strip()
    a = re.sub(r"\s+[A-Za-z]{3,}\.?$", "", a)  # `5.2 × 10^4 dollars`: the unit word is no operation
    if not a or re.fullmatch(r"-?[\d,.\s]+", a) or _POWER_OF_TEN.fullmatch(a):
        return False
    return _UNDONE.search(a) is not None


_RATIONAL = r"(?:\\[dt]?frac\s*\{\s*\d+\s*\}\s*\{\s*\d+\s*\}|\d+\s*/\s*\d+|\d+)"
_RATIONAL_SUM = re.compile(rf"\s*-?\s*{_RATIONAL}(?:\s*[-+]\s*{_RATIONAL})+\s*")


def fractions_uncombined(answer: str, gold: str) -> bool:
    """A fraction gold answered by a sum of fractions not carried out (`1/9 - 15/16` for -119/144, also before its
    rounding: `1/9 - 15/16 ≈ -0.826`): equal by arithmetic, but the one number asked for was never written."""
    if not re.fullmatch(rf"\s*-?\s*{_RATIONAL}\s*", gold.replace("$", "")) or "/" not in gold + gold.replace(
        "frac", "/"
    ):
        return False
    exact = re.split(r"\\approx|≈", answer.replace("$", ""))[0].rsplit("=", 1)[-1]
    # two fractions or more: `1 + \frac{1}{4036081}` is a whole number and a fraction, as a mixed number is written
    return _RATIONAL_SUM.fullmatch(exact) is not None and len(re.findall(r"/|frac", exact)) >= 2


_SIMPLE_TERM = re.compile(r"\s*([+-]?)\s*(\d+(?:\.\d+)?)?\s*\*?\s*([a-zA-Z])?\s*")


def _like_terms(expr: str) -> dict[str, int] | None:
    """{term kind: how many terms}, for a sum of simple terms (`6+12i-3i`: {'': 1, 'i': 2}); None for
    anything else (brackets, powers, fractions, commands)."""
    kinds: dict[str, int] = {}
    at = 0
    expr = expr.strip()
    while at < len(expr):
        m = _SIMPLE_TERM.match(expr, at)
        if not m or m.end() == at or not (m.group(2) or m.group(3)) or (at and not m.group(1)):
            return None
        kinds[m.group(3) or ""] = kinds.get(m.group(3) or "", 0) + 1
        at = m.end()
    return kinds or None


def like_terms_uncombined(answer: str, gold: str) -> bool:
    """A sum whose like terms are not collected where the gold's are (`6+12i-3i` for `6+9i`, `3x+2x` for `5x`):
    equal by arithmetic, but the simplification asked for was not done."""
    a = like = _like_terms(answer.replace("$", "").rsplit("=", 1)[-1])
    g = _like_terms(gold.replace("$", "").rsplit("=", 1)[-1])
    if like is None or g is None:
        return False
    return any(n > 1 and g.get(kind, 0) <= 1 for kind, n in a.items())


# the unit words a question works in (each spelled as `_FACTOR` spells it through `_unit_of`)
_UNIT_WORDS = re.compile(
    r"\b(millimet(?:er|re)s?|mm|centimet(?:er|re)s?|cm|met(?:er|re)s|kilomet(?:er|re)s?|km|inch(?:es)?|f(?:ee|oo)t|"
    r"yards?|miles?|seconds?|minutes?|hours?|days?|weeks?|milligrams?|mg|grams?|kilograms?|kg|millilit(?:er|re)s?|"
    r"lit(?:er|re)s?|gallons?|quarts?|pints?|ounces?|pounds?|lbs?)\b",
    re.IGNORECASE,
)
_POWER_ASKED = re.compile(r"\bin\s+(mm|cm|m|km)\s*\^\s*\{?\s*([23])\s*\}?")


# an area unit: `square miles`, `sq. ft`, `km^2`, `km²`
_SQUARE_UNIT = re.compile(
    r"\b(?:square|sq\.?)\s+([A-Za-z]+)|\b([A-Za-z]{1,3})\s*(?:\^\s*\{?\s*2\s*\}?|²)", re.IGNORECASE
)


def _square_of(unit: str) -> str | None:
    """The length unit of an area unit (`square kilometers` -> `km`, `mi^2` -> `mi`), or None."""
    m = _SQUARE_UNIT.fullmatch(unit.strip())
    if m is None:
        return None
    length = _unit_of((m.group(1) or m.group(2)).lower())
    return length if length is not None and _FACTOR[length][0] == "length" else None


_LENGTHS = {"mm": "mm", "millimeter": "mm", "millimetre": "mm", "cm": "cm", "centimeter": "cm", "centimetre": "cm",
            "m": "m", "meter": "m", "metre": "m", "km": "km", "kilometer": "km", "kilometre": "km", "in": "in",
            "inch": "in", "inche": "in", "ft": "ft", "foot": "ft", "feet": "ft", "yd": "yd", "yard": "yd", "mi": "mi",
            "mile": "mi"}  # fmt: skip
_MEASURE_AT_END = re.compile(
    r"\d\s*(?P<sq>square\s+|sq\.?\s*)?(?P<u>[A-Za-z]+?)s?\.?\s*(?P<pow>\^\s*\{?\s*2\s*\}?|²)?\s*\.?\s*$",
    re.IGNORECASE,
)
_AN_AREA_ASKED = re.compile(r"\b(?:area|surface\s+area)\b", re.I)
_LENGTH_ASKED = re.compile(
    r"\b(?:perimeter|circumference|length|distance|height|width|breadth|hypotenuse|radius|diameter)\b", re.I
)


def _measure_of(text: str) -> tuple[str, str] | None:
    """(`area` or `length`, the length unit) of a value written with a unit of area or length (`264 m²`, `264 sq.cm`,
    `96 cm`), else None."""
    m = _MEASURE_AT_END.search(text.replace("$", " ").replace("\\,", " "))
    unit = _LENGTHS.get(m.group("u").lower()) if m else None
    if unit is None:
        return None
    return ("area" if m.group("sq") or m.group("pow") else "length"), unit


def measure_not_asked(answer: str, gold: str, question: str) -> bool:
    """An area where a length is the answer or the reverse (`16 m²` for "What is the perimeter of the square?", `96 cm`
    for an area in sq.cm), or the gold's own measure in another unit with the same number (`264 m²` for `264
    sq.cm`): the number agrees, the quantity does not."""
    said = _measure_of(answer)
    if said is None:
        return False
    wanted = _measure_of(gold)
    if wanted is not None:
        return said != wanted
    asking = asking_sentence(question)
    if _AN_AREA_ASKED.search(asking):
        return said[0] != "area"
    if _LENGTH_ASKED.search(asking):
        return said[0] != "length"
    return False


def plain_units(question: str) -> str:
    """The question with its LaTeX units written plainly (`$\\mathrm{km} / \\mathrm{h}$` -> `km/h`)."""
    q = re.sub(r"\\(?:mathrm|text|textrm|rm)\s*\{\s*~?\s*([^{}]*)\}", r"\1", question or "")
    return re.sub(r"\s*/\s*", "/", q.replace("$", " ").replace("~", " "))


def units_disagree(answer: str, option: str) -> bool:
    """An answer and an option that write the same number beside units of one dimension but another size (`40.0
    L` for the option `40.0 ml`, `5 kg` for `5 g`): another quantity. Units this module does not know never
    disagree (`cm^3` beside `ml` is left alone)."""
    from verifiers.normalize import split_unit

    a, o = split_unit(answer)[1], split_unit(option.strip().rstrip("."))[1]
    ua, uo = (u if u in _FACTOR else _unit_of(u) if u else None for u in (a, o))
    return (
        ua is not None
        and uo is not None
        and _FACTOR[ua][0] == _FACTOR[uo][0]
        and _FACTOR[ua][1] != _FACTOR[uo][1]
    )


# a speed names the length unit a question works in (`30mph`: miles; `60 km/h`: kilometres)
_SPEED_UNITS = (
    ("mi", re.compile(r"\d\s*mph\b|\bmiles?\s+(?:per|an|a)\s+hour\b", re.I)),
    ("km", re.compile(r"\d\s*(?:km/h|kmph|kph|km/hr)\b|\bkilomet(?:er|re)s?\s+(?:per|an|a)\s+hour\b", re.I)),
)


# what "how many" counts (`How many bolts ...`); `how many more`, `how many of` and a verb after it name nothing
_HOW_MANY_COUNTED = re.compile(r"\bhow\s+many\s+([A-Za-z]+)", re.I)
_NUMBER_THEN_WORD = re.compile(
    r"\s*-?\d[\d.,]*\s*[A-Za-z]{3,}\.?\s*"
)  # `3 quarts`: the unit a word right after it
_NO_NOUN = frozenset({"do", "does", "did", "are", "is", "were", "was", "will", "would", "can", "could", "should",
                      "more", "less", "fewer", "of", "times", "total", "in", "different", "distinct", "possible",
                      "such", "other", "whole", "real", "positive", "negative", "integer", "integers"})  # fmt: skip


# currencies by sign and name: an answer in one the question never uses is another quantity (`€460` for dollars)
_CURRENCIES = {
    "dollar": r"\$|\bdollars?\b|\bUSD\b",
    "euro": r"€|\beuros?\b|\bEUR\b",
    "pound": r"£|\bpounds? sterling\b|\bGBP\b",
    "yen": r"¥|\byen\b|\bJPY\b",
    "rupee": r"₹|\brupees?\b|\bRs\.?|\bINR\b",
    "won": r"₩|\bwon\b(?= *$)|\bKRW\b",
}


def other_currency(answer: str, question: str) -> str | None:
    """The currency an answer is written in when the question prices only in another (`**€460**` for a question in
    dollars), else None."""
    named = [c for c, pattern in _CURRENCIES.items() if re.search(pattern, answer, re.I)]
    if len(named) != 1:
        return None
    used = {c for c, pattern in _CURRENCIES.items() if re.search(pattern, question, re.I)}
    return named[0] if used and named[0] not in used else None


# a question that measures in abstract units (`square units`, `sides 5, 5 and 6 units`): no metre or inch is in it
_ABSTRACT_UNITS = re.compile(r"\b(?:square|cubic)\s+units?\b|\d\s+units?\b(?!\s+(?:of|digit))", re.I)


def unit_not_used(answer: str, gold: str, question: str) -> bool:
    """An answer whose unit is not the one the question asks (`8 hours` for "how many minutes", `166 cm^3` for
    "in cm^2"), or, when it asks none, not one it works in where it works in others of that dimension (`45 seconds`
    for a question in minutes): the number agrees, the quantity does not."""
    from verifiers.normalize import split_unit

    unit = split_unit(answer)[1]
    if not unit or split_unit(gold)[1]:
        return False  # no unit written, or the gold has its own (compared as written)
    q = plain_units(question)
    if unit == "cents" and _IN_DOLLARS.search(question) and not _CENTS_NAMED.search(question):
        return True  # `#### 300 cents` for a question priced in dollars: 3 dollars, not the 300 asked
    square = _square_of(unit)
    length = square or (unit if unit in _FACTOR else _unit_of(unit))
    if _ABSTRACT_UNITS.search(q) and (
        square or (length and _FACTOR[length][0] in ("length", "area", "volume"))
    ):
        return True  # `12 cm^2` for "the number of square units in the area of a triangle with sides 5, 5, 6 units"
    worked = {_square_of(m.group(0)) for m in _SQUARE_UNIT.finditer(q)} - {None}
    if square and worked:
        return square not in worked  # `350 square kilometers` for a question in square miles
    power = _POWER_ASKED.search(q)
    if power:
        return unit.replace("^", "") != power.group(1) + power.group(2)
    u = unit if unit in _FACTOR else _unit_of(unit)
    if u is None:
        return False
    asked = asked_unit(q)
    if asked is not None:
        return asked != u
    counted = _HOW_MANY_COUNTED.search(asking_sentence(question))
    if (
        counted
        and _unit_of(counted.group(1).lower()) is None
        and counted.group(1).lower() not in _NO_NOUN
        and _NUMBER_THEN_WORD.fullmatch(answer)
    ):
        return True  # `3 quarts` for "How many bolts does it take?": a measure where a count is asked
    used = {_unit_of(w.lower()) for w in _UNIT_WORDS.findall(q)} - {None}
    used |= {
        length for length, speed in _SPEED_UNITS if speed.search(q)
    }  # `30mph`: the question works in miles
    same = {x for x in used if _FACTOR[x][0] == _FACTOR[u][0]}
    return bool(same) and u not in same


# the asking sentence asks for an amount of money: `How much in dollars does she make?`, `What is her annual salary?`
_MONEY_ASKED = re.compile(
    r"\bhow\s+much\b[^?]*\b(?:dollars?|money|cost|costs|earn|earns|earned|make|makes|made|pay|pays|paid|spend|spends|"
    r"spent|charge|charges|charged|save|saves|saved|owe|owes)\b|\b(?:in|how\s+many)\s+dollars\b|\b(?:salary|profit|fees?|"
    r"price|revenue|income|wages?|earnings|cost)\b",
    re.IGNORECASE,
)
_MONEY_WORDS = frozenset({"dollar", "dollars", "cent", "cents", "usd", "euro", "euros", "each", "per", "a", "an", "total",
                          "in", "of", "more", "less", "every", "profit", "left", "altogether"})  # fmt: skip
_PERIODS = {"hour": "hour", "hourly": "hour", "day": "day", "daily": "day", "week": "week", "weekly": "week",
            "month": "month", "monthly": "month", "quarter": "quarter", "quarterly": "quarter", "year": "year",
            "yearly": "year", "annual": "year", "annually": "year"}  # fmt: skip
_PERIOD_ASKED = re.compile(
    r"\b(hourly|daily|weekly|monthly|quarterly|yearly|annual|annually)\b"
    r"|\b(?:per|a|each|every|for\s+(?:the|this|that|one|a))\s+(hour|day|week|month|quarter|year)\b",
    re.I,
)
_PERIOD_STATED = re.compile(
    r"^\s*(?:per|a|each|every|/)\s*(hour|day|week|month|quarter|year)\b"
    r"|^\s*(hourly|daily|weekly|monthly|quarterly|yearly|annually)\b",
    re.I,
)


def asking_sentence(question: str) -> str:
    """The question's last sentence with a `?` (or its last sentence)."""
    q = question.strip()
    head = q.rsplit("?", 1)[0] if "?" in q else q.rstrip(".")
    return re.split(r"(?<=[.!?])\s+|\n", head)[-1]


_TOTAL_ASKED = re.compile(r"\b(?:in total|in all|altogether|total|combined)\b", re.I)
_COUNTED_NOUN = re.compile(r"\d[\d,]*\s+([A-Za-z]+)")


_PERCENT_ASKED = re.compile(r"\bwhat\s+(?:percent(?:age)?|%)\b|\bhow\s+many\s+percent\b", re.I)


def quantity_not_asked(line: str, number: str, question: str) -> bool:
    """The number the answer line commits to is labelled as another quantity than the one asked: a count of
    one of the question's things where an amount of money is asked (`She sells 18 eggs.` for "How much in
    dollars does she make?", `10,000 people` for the difference in fees), a count of them where a percentage is
    asked (`60 students` for "What percentage of the students ...?"), an amount per one of them where a total is
    asked (`$15 per student`), or money per another period than the one asked (`$57,500 per month` for "her annual
    salary", `\\boxed{\\$460} per hour` for "her earnings for this week")."""
    asking = asking_sentence(question)
    at = re.search(r"(?<![\d.,])" + re.escape(number) + r"(?![\d])", line)
    if at is None or not asking:
        return False
    after = re.sub(r"^[}$*)\\]+", "", line[at.end() :])  # `\boxed{\$460} per hour`: past the box's end
    counted = {
        w.lower() for w in _COUNTED_NOUN.findall(question)
    }  # what the question counts: `16 eggs`, `5 students`
    if _PERCENT_ASKED.search(asking):  # `60 students` for "What percentage of the students ...?"
        word = re.match(r"\s+([A-Za-z]+)", after)
        return bool(word) and word.group(1).lower() in counted
    if _MONEY_ASKED.search(asking) and "$" not in line[max(0, at.start() - 2) : at.start()]:
        word = re.match(r"\s+([A-Za-z]+)", after)
        noun = word.group(1).lower() if word else ""
        if noun and noun not in _MONEY_WORDS and noun in counted:
            return True
    per = re.match(r"\s*(?:per|each|a)\s+([A-Za-z]+)", after)
    if (
        per
        and _TOTAL_ASKED.search(asking)
        and per.group(1).lower().rstrip("s") in {w.rstrip("s") for w in counted}
    ):
        return True
    stated = _PERIOD_STATED.match(after)
    clause = asking.rsplit(",", 1)[-1]  # `If she works 50 weeks a year, ..., what's her annual salary`
    asked = {_PERIODS[(m.group(1) or m.group(2)).lower()] for m in _PERIOD_ASKED.finditer(clause)}
    if stated and len(asked) == 1:
        return _PERIODS[(stated.group(1) or stated.group(2)).lower()] not in asked
    return False


_ORDER_ASKED = re.compile(
    r"\b(?:in\s+(?:increasing|ascending|decreasing|descending)\s+order|from\s+(?:least|smallest|lowest)\s+to\s+"
    r"(?:greatest|largest|highest)|from\s+(?:greatest|largest|highest)\s+to\s+(?:least|smallest|lowest))\b",
    re.IGNORECASE,
)


def order_not_kept(answer: str, question: str) -> bool:
    """A list of numbers not in the order the question asks for (`15, 14, 6, 4` for "in increasing order")."""
    m = _ORDER_ASKED.search(question or "")
    if m is None:
        return False
    items = [
        x.strip()
        for x in re.sub(r"^[\s(\[{]+|[\s)\]}.]+$", "", answer.replace("\\{", "").replace("\\}", "")).split(
            ","
        )
    ]
    if len(items) < 2 or not all(_PLAIN.fullmatch(x) for x in items):
        return False
    values = [Fraction(x) for x in items]
    rising = (
        re.search(r"increasing|ascending|least\s+to|smallest\s+to|lowest\s+to", m.group(0), re.I) is not None
    )
    return values != sorted(values, reverse=not rising)


# Chinese units, longest first within a dimension; `钱` (money) asks any of 元/角/分
_ZH_UNITS = {
    "length": ("毫米", "厘米", "分米", "千米", "公里", "米"),
    "area": ("平方毫米", "平方厘米", "平方分米", "平方千米", "平方米", "公顷"),
    "volume": ("立方厘米", "立方分米", "立方米", "毫升", "升"),
    "mass": ("千克", "公斤", "克", "吨"),
    "money": ("元", "角"),
}
_ZH_UNIT = "|".join(sorted({u for us in _ZH_UNITS.values() for u in us}, key=len, reverse=True))
_ZH_ASKED = re.compile(r"(?:多少|几)\s*(" + _ZH_UNIT + r"|钱)")
_ZH_STATED = re.compile(r"\d(?:\.\d+)?\s*(" + _ZH_UNIT + r")")


# Japanese: `何ドル稼ぎますか` asks dollars, `何回` times; an answer line's `18個` (pieces) or `18 ユーロ` is another
# quantity (`分` before `の` is a fraction's, `3分の1`, not minutes)
_JA_UNIT = "|".join(sorted(("ドル", "円", "ユーロ", "個", "回", "人", "時間", "分", "秒", "本", "枚", "冊", "匹", "台", "日",
                            "年", "歳", "メートル", "センチ", "キロ", "グラム"), key=len, reverse=True))  # fmt: skip
_JA_ASKED = re.compile(r"何\s*(" + _JA_UNIT + r")(?!の)")
_JA_STATED = re.compile(r"\d(?:\.\d+)?\s*(" + _JA_UNIT + r")(?!の)")


def chinese_unit_not_asked(pred: str, question: str) -> bool:
    """A Chinese or Japanese answer line whose number carries a unit other than the one the question asks
    (`多少平方米` answered `112米`, `多少钱` answered `39千克`, `何ドル` answered `18個`)."""
    asked = _ZH_ASKED.findall(question or "")
    if not asked and (ja := _JA_ASKED.findall(question or "")) and len(set(ja)) == 1:
        lines = [x for x in pred.strip().splitlines() if x.strip()]
        stated = _JA_STATED.findall(lines[-1]) if lines else []
        return bool(stated) and stated[-1] != ja[0]
    if len(set(asked)) != 1:
        return False
    lines = [x for x in pred.strip().splitlines() if x.strip()]
    stated = _ZH_STATED.findall(lines[-1]) if lines else []
    if not stated:
        return False
    want = asked[0]
    return stated[-1] not in (_ZH_UNITS["money"] if want == "钱" else (want,))


# the question's last asking sentence asks how many of something: `How many students are enrolled this year?`
_HOW_MANY_ASKED = re.compile(r"\bhow\s+many\b", re.I)


def _asked_clause(question: str) -> str:
    """What the last `?` asks, from the last period before it (`` when nothing is asked with a `?`)."""
    return question.rsplit("?", 1)[0].rsplit(".", 1)[-1] if "?" in question else ""


def _count_asked(question: str) -> bool:
    """The asking sentence (the last with a `?`) asks how many, and names no percent itself: a count, whatever
    percentages the statement used on the way (`a 20% increase ... How many students are enrolled?`)."""
    asking = _asked_clause(question)
    return bool(_HOW_MANY_ASKED.search(asking)) and not PERCENT_MENTIONED.search(asking)


def _money_asked(question: str) -> bool:
    """The asking sentence asks an amount of money (`What was the original price of the book?`) and names no percent
    itself: a price, whatever discounts in percent the statement gave on the way."""
    asking = _asked_clause(question)
    return bool(_MONEY_ASKED.search(asking)) and not PERCENT_MENTIONED.search(asking)


def form_not_asked(answer: str, gold: str, question: str) -> str | None:
    """The reason an answer equal to the gold is not in the form its question asks for, or None: a fraction not
    in lowest terms, a radical not in simplest form, a decimal where a percent is asked, a unit of area or speed
    other than the one asked, and the forms a question names (`_named_form_missing`)."""
    a = answer.replace(" ", "").replace("$", "").replace("\\dfrac", "\\frac").replace("\\tfrac", "\\frac")
    named = _named_form_missing(a, gold, question)
    if named is not None:
        return named
    if "=" in a and "=" not in gold:
        a = a.rsplit("=", 1)[1]
    if (
        _LOWEST.search(question)
        and _FRACTION.match(gold.replace(" ", "").replace("$", ""))
        and _PLAIN.fullmatch(a)
    ):
        return "not_a_fraction"  # `0.75` for "Simplify the fraction 45/60 (write in lowest terms)"
    if _LOWEST.search(question):
        m = _FRACTION.match(a)
        if m:
            num, den = (int(x) for x in (m.group(1) or m.group(3), m.group(2) or m.group(4)))
            if math.gcd(num, den) > 1:
                return "not_in_lowest_terms"
    if _SIMPLEST_RADICAL.search(question):
        for r in _RADICAL.finditer(a):
            inner = r.group(1)
            if re.search(r"\\cdot|\*|\\times", inner) or (
                inner.isdigit() and any(int(inner) % (k * k) == 0 for k in range(2, 32))
            ):
                return "not_simplest_radical"
    count = re.fullmatch(r"(-?\d+(?:\.\d+)?)\\?%", a)
    if (
        count
        and "%" not in gold
        and (not PERCENT_MENTIONED.search(question) or _count_asked(question) or _money_asked(question))
    ):
        final = gold.rsplit("####", 1)[-1]  # a GSM8K solution's final line
        g = re.fullmatch(r"-?\d+(?:\.\d+)?", final.replace(" ", "").replace("$", "").replace(",", ""))
        if g and float(g.group(0)) == float(count.group(1)):
            return "percent_not_asked"  # `30%` for "How many elves are left?" (gold 30), `26%` for a price
    if _AS_PERCENT.search(question) and "%" in gold and "%" not in a and re.fullmatch(r"0?\.\d+", a):
        return "not_a_percent"  # `0.5` for "expressed as a percent" (gold 50%)
    asked = _AREA_ASKED.search(plain_units(question))
    if asked:
        unit = re.search(
            r"\\(?:text|mathrm)\{\s*([a-zA-Z/]+)\s*\}\s*(\^\s*\{?\s*([23])\s*\}?)?|(m/s|km/h)", answer
        )
        if unit:
            name = (unit.group(1) or unit.group(4) or "").lower()
            power = unit.group(3)
            if asked.group(3):
                if name and name != asked.group(3).lower().replace("km/hr", "km/h"):
                    return "unit_mismatch"
            else:
                want = {"square": "2", "cubic": "3"}[asked.group(1).lower()]
                word = asked.group(2).lower()
                abbrev = {"meters": "m", "metres": "m", "centimeters": "cm", "centimetres": "cm", "kilometers": "km",
                          "feet": "ft", "inches": "in", "units": "units"}.get(word, word)  # fmt: skip
                if name and (name != abbrev or (power or "1") != want):
                    return "unit_mismatch"
    return None
