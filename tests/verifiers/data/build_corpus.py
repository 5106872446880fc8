"""Writes labelled_corpus.jsonl from the hand-written tables below.

Every case is labelled by mathematical truth as a careful grader would judge it (never by what a
tool returns). The tables are the source; the JSONL is what tests and the benchmark read, so a
reviewer can diff labels in either place. Regenerate with:

    .venv/bin/python tests/verifiers/data/build_corpus.py

Huge adversarial inputs are not stored: a case may carry "pred_gen" / "gold_gen"
({"prefix": str, "repeat": str, "times": int, "suffix": str}) that `materialize` expands.
"""

from __future__ import annotations

import json
import os
import tempfile
from pathlib import Path

OUT = Path(__file__).with_name("labelled_corpus.jsonl")

CASES: list[dict] = []


def add(kind: str, pred: str, gold: str, equivalent: bool, note: str = "", **extra) -> None:
    CASES.append({"pred": pred, "gold": gold, "equivalent": equivalent, "kind": kind, "note": note, **extra})


def materialize(gen: dict) -> str:
    """Expand a {"prefix", "repeat", "times", "suffix"} generator into the string it stands for."""
    return gen.get("prefix", "") + gen["repeat"] * int(gen["times"]) + gen.get("suffix", "")


def reasoning(answer_line: str, distractors: tuple[int, ...] = (12, 7, 2024)) -> str:
    """A few hundred words of plausible working that mention other numbers, then the final line."""
    a, b, c = distractors
    body = (
        f"Let us set up the problem carefully. We are told that the total is {c} and that each group "
        f"contains {b} objects, so we first count how many complete groups fit. Dividing, we see that "
        f"{c} = {b} \\cdot {c // b} + {c % b}, so there are {c // b} complete groups and a remainder of "
        f"{c % b}. Next we consider the constraint on the second quantity, which must be a multiple of "
        f"{a}. Listing the candidates $ {a}, {2 * a}, {3 * a}, \\dots $ and checking each against the "
        "condition from the first paragraph, only a few survive. For each surviving candidate we compute "
        "the sum of its digits, because the problem asks for a number whose digit sum is prime. "
        "We also need to double-check the boundary cases: when the first quantity is zero the expression "
        f"degenerates, so we exclude it. Substituting back, the equation $x^2 - {a}x + {b} = 0$ has "
        f"discriminant ${a * a - 4 * b}$, which is what we expected. Combining the two conditions with "
        "the Chinese remainder theorem gives a unique residue, and the smallest positive representative "
        "is the one the problem wants. To be safe, let us verify the result by direct substitution into "
        "the original statement: every condition holds, the count is consistent with the remainder we "
        "found above, and no smaller value works because the previous candidate fails the divisibility "
        "test. Therefore we are confident in the final value.\n\n"
    )
    return body + answer_line


# --- DAPO integer answers: the formats models actually emit -------------------------------------
K = "dapo_integer"
for pred, note in [
    (r"\boxed{034}", "boxed with leading zero (AIME style)"),
    (r"\boxed{34}", "boxed"),
    ("Answer: 34.", "answer line with trailing period"),
    ("**34**", "bold markdown"),
    ("**Answer:** 34", "bold label"),
    ("**Answer: 34**", "bold whole line"),
    ("Answer: $34$", "dollar-wrapped value"),
    ("Answer:34", "no space after colon"),
    ("answer: 34", "lower-case label"),
    ("ANSWER: 34", "upper-case label"),
    ("Answer: 034", "leading zero on the answer line"),
    (r"Answer: \boxed{34}", "boxed inside the answer line"),
    (r"$\boxed{34}$", "boxed in math mode"),
    ("The answer is 34.", "short sentence"),
    (r"The final answer is $\boxed{34}$.", "sentence with boxed"),
    ("Answer: 34 ", "trailing whitespace"),
    ("Answer: $34$.", "dollar then period"),
    ("Final Answer: 34", "final answer label"),
    ("34", "bare"),
    ("Answer: \\(34\\)", "inline math delimiters"),
    (r"\fbox{34}", "fbox"),
    (reasoning("Answer: 34"), "long reasoning then the answer line"),
    (reasoning("Answer: $34$", (34, 5, 100)), "long reasoning that mentions 34 early and as answer"),
    (
        reasoning("Answer: 12\n\nWait, I made an arithmetic slip above; redoing it gives 34.\n\nAnswer: 34"),
        "two answer lines: the last one counts",
    ),
    (reasoning(r"Therefore the answer is $\boxed{34}$."), "long reasoning ending in a boxed answer"),
    (reasoning("**Answer:** 34"), "long reasoning ending in a bold label"),
]:
    add(K, pred, "34", True, note)
add(K, "Answer: 7", "007", True, "gold with leading zeros")
add(K, "Answer: 0", "0", True, "zero")
add(K, "Answer: 00", "0", True, "zero with leading zero")
add(K, "Answer: -7", "-7", True, "negative")
add(K, "Answer: \u22127", "-7", True, "unicode minus on the answer line")
add(K, "Answer: 1,000", "1000", True, "thousands separator on the answer line")
add(K, r"\boxed{2024}", "2024", True)
add(K, "Answer: 999", "999", True)
add(K, r"\boxed{\boxed{5}}", "5", True, "nested boxed")
add(K, r"\boxed{{5}}", "5", True, "extra braces")
add(K, "Answer: 123456789012345678901234567890", "123456789012345678901234567890", True, "big integer")
for pred, gold, note in [
    ("Answer: 35", "34", "off by one"),
    (r"\boxed{340}", "34", "extra digit"),
    ("Answer: 43", "34", "swapped digits"),
    ("Answer: -34", "34", "sign error"),
    ("Answer: 34", "-34", "sign error the other way"),
    (reasoning("Answer: 43", (34, 7, 2024)), "34", "reasoning mentions the gold but answers something else"),
    (
        reasoning("Answer: 34\n\nHmm, re-checking the remainder gives 35.\n\nAnswer: 35"),
        "34",
        "last answer line wrong",
    ),
    ("Answer: 34 or 35", "34", "hedged answer line"),
    ("The answer is 34 or 35.", "34", "hedged sentence"),
    (r"\boxed{34} or \boxed{35}", "35", "hedged between two boxes"),
    ("Answer: 3.4", "34", "decimal point slip"),
    ("Answer: 34", "340", "missing digit"),
    ("Answer: 1000", "100", "power of ten off"),
    ("Answer: 1,000", "1", "thousands separator is not a list"),
    ("Answer: 0", "10", "zero versus ten"),
    ("Answer: 7", "-7", "lost minus"),
    ("**35**", "34", "bold wrong"),
    (r"\boxed{034}", "340", "leading zero is not trailing zero"),
    ("Answer:", "34", "empty answer line"),
    ("", "34", "empty prediction"),
    ("I could not solve this problem.", "34", "no answer"),
    ("Answer: 34/1000", "34", "fraction, not the integer"),
]:
    add(K, pred, gold, False, note)

# --- Normalisation -------------------------------------------------------------------------------
K = "normalization"
for pred, gold, note in [
    (r"34 \text{ cm}", "34", "unit in text"),
    (r"\text{34}", "34", "value in text"),
    ("$34$", "34", "dollars"),
    ("$$34$$", "34", "display dollars"),
    (r"10,\!080", "10080", "\\! after thousands comma"),
    (r"10\,080", "10080", "thin space thousands separator"),
    ("10{,}080", "10080", "braced comma thousands separator"),
    (r"1\,000\,000", "1000000", "thin spaces"),
    ("1,000,000", "1000000", "commas"),
    ("13,535", "13535", "MATH-500 style"),
    (r"90^\circ", "90", "degrees"),
    (r"90^{\circ}", "90", "braced degrees"),
    ("90\u00b0", "90", "unicode degree sign"),
    (r"90 \text{ degrees}", "90", "degrees as a word"),
    ("90", r"90^\circ", "gold has degrees"),
    (r"\dfrac{3}{4}", r"\frac34", "dfrac"),
    (r"\tfrac{1}{2}", r"\frac{1}{2}", "tfrac"),
    (r"\frac{3}{4}.", r"\frac{3}{4}", "trailing period"),
    ("5.", "5", "trailing period on integer"),
    ("\u22125", "-5", "unicode minus"),
    ("\u2212\\frac{1}{2}", r"-\frac12", "unicode minus before fraction"),
    ("007", "7", "leading zeros"),
    ("x = 5", "5", "x = prefix"),
    ("x=5", "5", "x= prefix no spaces"),
    ("5", "x=5", "gold has the prefix"),
    ("n = 12", "12", "n = prefix"),
    (r"\$32,\!348", "32348", "dollar sign and separator"),
    ("32348", r"\$32,\!348", "gold has the currency"),
    (r"\$18.90", "18.9", "currency with cents"),
    (r"864 \mbox{ inches}^2", "864", "mbox unit squared"),
    (r"15 \text{ cm}^2", r"15\mbox{ cm}^2", "text vs mbox units"),
    (r"\left( 3, \frac{\pi}{2} \right)", r"(3,\frac{\pi}{2})", "left/right delimiters"),
    (r"\frac{270}7\text{ degrees}", r"\frac{270}{7}", "unbraced frac denominator and unit"),
    (r"\frac 59", r"\frac{5}{9}", "unbraced frac with space"),
    (r"5 \text{ meters}", r"5\text{ m}", "unit spelled out vs abbreviated"),
    (r"\mathbf{12}", "12", "bold math"),
    (r"\displaystyle 12", "12", "displaystyle"),
    ("  12  ", "12", "surrounding whitespace"),
    (r"\text{(C)}", "C", "choice letter in text"),
    ("(C)", r"\text{(C)}", "choice letter in parens"),
    (r"\textbf{(C) }", r"\text{(C)}", "bold choice"),
    (r"\text{Evelyn}", "Evelyn", "name in text"),
    (r"\text{even}", "even", "word in text"),
    (r"3 \ \text{inches}", "3", "explicit space and unit"),
    (r"2\,\text{hours}", "2", "thin space then unit"),
]:
    add(K, pred, gold, True, note)
for pred, gold, note in [
    ("x = 6", "5", "x = prefix, wrong value"),
    (r"90^\circ", "45", "degrees, wrong value"),
    ("10,080", "1080", "separator, wrong value"),
    (r"5 \text{ cm}", r"5 \text{ m}", "different units"),
    (r"5 \text{ m}", r"5 \text{ cm}", "different units reversed"),
    (r"5 \text{ km}", r"5 \text{ m}", "kilometres vs metres"),
    ("\u22125", "5", "unicode minus changes the sign"),
    ("007", "70", "leading zero vs trailing zero"),
    (r"\text{(D)}", r"\text{(C)}", "wrong choice"),
    (r"\text{west}", r"\text{east}", "wrong word"),
    (r"\dfrac{4}{3}", r"\frac34", "inverted fraction"),
    (r"\$32,\!348", "32,384", "transposed digits with separators"),
]:
    add(K, pred, gold, False, note)

# --- Numbers -------------------------------------------------------------------------------------
K = "number"
for pred, gold, note in [
    ("0.5", r"\frac12", "decimal vs fraction"),
    ("1/2", "0.5", "slash fraction vs decimal"),
    (r"\frac{2}{4}", r"\frac12", "unreduced fraction"),
    ("2/1", "2", "denominator one"),
    ("0.15", ".15", "missing leading zero"),
    (".0000672", r"6.72 \times 10^{-5}", "scientific notation"),
    ("6.72e-5", ".0000672", "e notation"),
    ("1e3", "1000", "e notation integer"),
    (r"1.5 \times 10^{3}", "1500", "times ten power"),
    (r"1.5\cdot 10^3", "1500", "cdot ten power"),
    ("10^{3}", "1000", "power of ten"),
    ("1.25", r"\frac54", "decimal vs frac"),
    ("5/4", "1.25", "slash vs decimal"),
    (r"1\frac{4}{5}", r"\frac95", "mixed number"),
    (r"4\frac{2}{3}", r"\frac{14}{3}", "mixed number, not a product"),
    (r"137 \frac{1}{2}", "137.5", "mixed number with space"),
    ("275/2", r"137 \frac{1}{2}", "improper vs mixed"),
    ("326.5", r"\frac{653}{2}", "decimal vs frac"),
    ("-0.5", r"-\frac{1}{2}", "negative decimal"),
    (r"-\frac12", r"\frac{-1}{2}", "minus placement"),
    (r"\frac{1}{-2}", r"-\frac12", "minus in denominator"),
    ("2.50", "2.5", "trailing zero decimal"),
    ("3.210", "3.21", "trailing zero decimal"),
    ("1.0", "1", "decimal integer"),
    (r"50\%", r"50\%", "percent both"),
    ("0.5", r"50\%", "decimal for a percent gold"),
    ("50", r"50\%", "number for a percent gold"),
    ("25%", r"25\%", "unescaped percent"),
    (r"\frac{1}{4}", r"25\%", "fraction for a percent gold"),
    (r"12.5\%", r"12.5\%", "decimal percent"),
    ("0.125", r"12.5\%", "decimal for decimal percent"),
    (r"\frac{243}{625}", "0.3888", "exact terminating decimal"),
    ("-0.96", r"-\frac{24}{25}", "negative terminating decimal"),
    ("0.34", r"\dfrac{17}{50}", "dfrac gold"),
    ("0.33", r"\dfrac{33}{100}", "hundredths"),
    (r"\frac{57}{160}", ".35625", "frac vs five-place decimal"),
    ("18.90", r"\$18.90", "currency gold"),
    ("1.2E2", "120", "upper-case E"),
    (r"3 \times 10^0", "3", "times ten to zero"),
    ("+5", "5", "explicit plus sign"),
    (r"0.\overline{3}", r"\frac13", "repeating decimal (overline)"),
    (r"1.2\overline{34}", r"\frac{611}{495}", "repeating decimal with a non-repeating part"),
    ("0.(3)", "1/3", "repeating decimal (parentheses)"),
    (r"0.\overline{142857}", r"\frac{1}{7}", "six-digit period"),
    (r"-0.\overline{6}", r"-\frac{2}{3}", "negative repeating decimal"),
    (r"0.\overline{9}", "1", "0.999... is 1"),
]:
    add(K, pred, gold, True, note)
for pred, gold, note in [
    ("0.333", r"\frac13", "truncated repeating decimal"),
    ("3.14", r"\pi", "pi approximation"),
    ("1.24", "1.25", "near-miss decimal"),
    ("1.2", "1.25", "rounded decimal"),
    ("4.67", r"\frac{14}{3}", "rounded fraction"),
    ("0.389", r"\frac{243}{625}", "rounded to three places"),
    ("3.2", "3.21", "dropped digit"),
    ("12", "120", "missing zero"),
    ("120", "12", "extra zero"),
    ("1/2", "2", "reciprocal"),
    ("0.5", "5", "decimal shift"),
    (r"\frac{5}{4}", r"\frac{4}{5}", "inverted"),
    (r"1.5 \times 10^{4}", "1500", "wrong exponent"),
    ("6.72e-4", ".0000672", "wrong exponent in e notation"),
    ("0.5", "50", "percent not said by the gold"),
    ("50", "0.5", "percent not said by the gold"),
    (r"50\%", "5", "percent vs five"),
    ("0.05", r"50\%", "wrong percent conversion"),
    (r"-\frac{1}{2}", r"\frac12", "sign error"),
    (r"1\frac{4}{5}", r"\frac45", "mixed number read as product would be 4/5; the mixed number is 9/5"),
    ("2.5", "2.05", "missing zero in decimal"),
    ("1.0001", "1", "close but not equal"),
    ("0.999", "1", "close but not equal"),
    (r"0.\overline{3}", "0.33", "repeating decimal vs its truncation"),
    (r"0.\overline{12}", r"\frac{1}{8}", "period 12 is 4/33, not 0.12 or 1/8"),
    (r"0.1\overline{2}", r"\frac{4}{33}", "repeat only the 2: 11/90"),
]:
    add(K, pred, gold, False, note)

# --- Structured answers --------------------------------------------------------------------------
K = "structured"
for pred, gold, note in [
    ("(1,2)", "(1, 2)", "tuple spacing"),
    ("[1,2]", "[1, 2]", "closed interval spacing"),
    ("(3,4]", "(3,4]", "half-open interval"),
    (r"(-\infty, 0]", r"(-\infty,0]", "infinite endpoint"),
    (r"(-\infty, 2) \cup (3, \infty)", r"(3,\infty)\cup(-\infty,2)", "union order"),
    (r"x \in [-2,7]", "[-2,7]", "membership prefix"),
    (r"-2 \le x \le 7", "[-2,7]", "inequality form of an interval"),
    (r"\{1,2,3\}", r"\{3,2,1\}", "set order"),
    ("3, 5, 7", "7, 5, 3", "several answers, any order"),
    ("1,-2", "-2, 1", "several answers, any order"),
    (r"-2, 1+\sqrt5, 1-\sqrt5", r"\{1\pm\sqrt{5},-2\}", "pm expanded in a list"),
    (r"1+\sqrt{19}, 1-\sqrt{19}", r"1 \pm \sqrt{19}", "pm expanded"),
    (
        r"\begin{bmatrix} -1 & 0 \\ 0 & -1 \end{bmatrix}",
        r"\begin{pmatrix} -1 & 0 \\ 0 & -1 \end{pmatrix}",
        "bmatrix vs pmatrix",
    ),
    (
        r"\begin{pmatrix} 0.2 \\ -3.6 \end{pmatrix}",
        r"\begin{pmatrix} 1/5 \\ -18/5 \end{pmatrix}",
        "decimal entries",
    ),
    (
        r"\begin{pmatrix} \frac15 \\ -\frac{18}5 \end{pmatrix}",
        r"\begin{pmatrix} 1/5 \\ -18/5 \end{pmatrix}",
        "frac entries",
    ),
    ("y=3+2x", "y = 2x + 3", "equation, terms reordered"),
    ("2x+3=y", "y = 2x + 3", "equation, sides swapped"),
    ("-5x + 7y - 11z - 4 = 0", "5x - 7y + 11z + 4 = 0", "plane equation negated"),
    ("y=-2x", "y = -2x", "equation spacing"),
    ("2<x", "x > 2", "inequality flipped"),
    (r"x \geq 2", r"x \ge 2", "geq vs ge"),
    (r"(2,\infty)", "x > 2", "interval for an inequality"),
    ("6-5i", "6 - 5i", "complex spacing"),
    ("-5i+6", "6 - 5i", "complex reordered"),
    ("274i+1", "1+274i", "complex reordered"),
    ("(6, 31, -1)", "(6,31,-1)", "triple"),
    (r"(\frac{3}{2}, -13)", r"\left( \frac{3}{2}, -13 \right)", "tuple with frac"),
    ("(1.5,-13)", r"\left( \frac{3}{2}, -13 \right)", "tuple with decimal"),
    (r"(3/5, 8/3]", r"\left(\frac{3}{5},\frac{8}{3}\right]", "half-open with slashes"),
    (r"(0.6, \frac83]", r"\left(\frac{3}{5},\frac{8}{3}\right]", "half-open with decimal"),
    (r"x = 1, x = -2", "1,-2", "several answers with prefixes"),
    (r"x=2 \text{ or } x=-3", "-3, 2", "several answers joined by or (a full solution set, not a hedge)"),
]:
    add(K, pred, gold, True, note)
for pred, gold, note in [
    ("(2,1)", "(1,2)", "ordered pair swapped"),
    ("(1,2)", "[1,2]", "open vs closed interval"),
    ("[1,2]", "(1,2)", "closed vs open"),
    ("(3,4)", "(3,4]", "half-open vs open"),
    ("[3,4]", "(3,4]", "closed vs half-open"),
    ("[3,4)", "(3,4]", "mirror half-open"),
    (r"(0,36)", r"(0,9) \cup (9,36)", "union with a hole vs whole interval"),
    (r"(-\infty, 2) \cup (3, \infty)", r"(-\infty, 2] \cup [3, \infty)", "open vs closed union"),
    ("3, 5", "3, 5, 7", "missing answer"),
    ("3, 5, 7, 9", "3, 5, 7", "extra answer"),
    ("-2", "-2,1", "one of two answers"),
    (r"1+\sqrt{19}", r"1 \pm \sqrt{19}", "one of the pm pair"),
    (r"\{1,2\}", r"\{1,2,3\}", "subset"),
    (
        r"\begin{pmatrix} -3.6 \\ 0.2 \end{pmatrix}",
        r"\begin{pmatrix} 1/5 \\ -18/5 \end{pmatrix}",
        "swapped entries",
    ),
    (
        r"\begin{pmatrix} 1 & 2 \\ 3 & 4 \end{pmatrix}",
        r"\begin{pmatrix} 1 & 3 \\ 2 & 4 \end{pmatrix}",
        "transposed",
    ),
    (
        r"\begin{pmatrix} 1 \\ 2 \end{pmatrix}",
        r"\begin{pmatrix} 1 \\ 2 \\ 0 \end{pmatrix}",
        "different shape",
    ),
    ("y = 2x - 3", "y = 2x + 3", "equation, sign of constant"),
    ("x=-5", "x=5", "equation sign"),
    ("x > 2", r"x \ge 2", "strict vs non-strict"),
    ("x < 3", r"x \le 3", "strict vs non-strict"),
    ("x < 2", "x > 2", "direction"),
    ("6+5i", "6 - 5i", "conjugate"),
    ("(6,-31,-1)", "(6,31,-1)", "sign inside triple"),
    ("(-29,15)", "(15,-29)", "swapped pair"),
    ("(1,2,3)", "(1,2)", "different length tuple"),
    (r"\{1,2\}", "(1,2)", "set vs ordered pair"),
]:
    add(K, pred, gold, False, note)

# --- Symbolic ------------------------------------------------------------------------------------
K = "symbolic"
for pred, gold, note in [
    (r"\sqrt{117}", r"3\sqrt{13}", "radical simplified"),
    (r"11\sqrt{2}", r"11\sqrt2", "unbraced sqrt"),
    (r"\sqrt{242}", r"11\sqrt2", "unsimplified radical"),
    (r"\frac{1}{\sqrt{3}}", r"\frac{\sqrt{3}}{3}", "rationalised"),
    (r"\frac{3}{4}\sqrt{3}", r"\frac{3\sqrt{3}}{4}", "coefficient placement"),
    (r"2\pi+18", r"18+2\pi", "reordered"),
    (r"288\pi", r"288 \pi", "spacing"),
    (r"20000/\pi", r"\frac{20000}{\pi}", "slash with pi"),
    ("-q + p", "p - q", "reordered expression"),
    ("(x-1)(x^4+x^2+1)", "x^5 - x^4 + x^3 - x^2 + x - 1", "factored polynomial"),
    ("2(k+1)", "2k+2", "factored linear"),
    (r"\frac{\cos x}{\sin x}", r"\cot x", "trig identity"),
    ("4n(2n+1)+1", "8n^2 + 4n + 1", "partly factored"),
    ("3R^{2}", "3R^2", "braced exponent"),
    ("5 r^5", "5r^5", "spacing"),
    (r"\frac{e-1}{e}", r"1 - \frac{1}{e}", "combined fraction"),
    (r"\frac{1}{2004!}", r"\frac{1}{2004!}", "factorial"),
    ("1024", "2^{10}", "power evaluated"),
    (r"\sin^2 x + \cos^2 x", "1", "pythagorean identity"),
    (r"\log_2 8", "3", "logarithm"),
    (r"\frac{\sqrt2}{2}", r"\frac{1}{\sqrt2}", "rationalised"),
    (r"\sqrt{8}", r"2\sqrt{2}", "radical"),
    (r"-\pi/6", r"-\frac{\pi}{6}", "slash form"),
    (r"11(1+\sqrt5)", r"11 \sqrt{5} + 11", "factored"),
    (r"2\sqrt3+1", r"1+2\sqrt{3}", "reordered"),
    (r"\binom{5}{2}", "10", "binomial"),
    ("5!", "120", "factorial value"),
    (r"2^3\cdot 3^2", "72", "product of powers"),
    (r"\sqrt{12}", r"2\sqrt{3}", "radical"),
    (r"\frac{9a+11}{20}", r"\frac{11+9a}{20}", "numerator reordered"),
    (r"\frac{11}{20}+\frac{9a}{20}", r"\frac{11+9a}{20}", "split fraction"),
    ("-13x+3", "3-13x", "linear reordered"),
    (r"\pi r^2", r"r^2\pi", "commuted"),
    (r"2\sqrt{5}", r"\sqrt{20}", "radical"),
    (r"\frac{\pi^2}{8}", r"\pi^2/8", "slash"),
    (r"e^{\ln 3}", "3", "exp of log"),
    (r"\sqrt[3]{27}", "3", "cube root"),
    ("8^{1/3}", "2", "fractional power"),
    (r"\tan \frac{\pi}{4}", "1", "trig value"),
    (r"\cos 0", "1", "trig value"),
    ("(a+b)^2", "a^2+2ab+b^2", "expanded square"),
]:
    add(K, pred, gold, True, note)
for pred, gold, note in [
    (r"\tan x", r"\cot x", "wrong trig function"),
    ("6r^2-4r+24", "6r^2-4r-24", "sign of constant"),
    ("1+1/e", "1-1/e", "sign"),
    (r"\frac{1}{2006!}", r"\frac{1}{2004!}", "nearby factorial"),
    (r"\sqrt{8}", r"2\sqrt{3}", "wrong radical"),
    (r"\frac{\pi}{6}", r"-\frac{\pi}{6}", "sign"),
    (r"1+3\sqrt2", r"1+2\sqrt3", "swapped radicand and coefficient"),
    ("p + q", "p - q", "sign"),
    ("x^3+3x+6", "x^3+3x-6", "sign of constant"),
    (r"\sqrt{39}", r"3\sqrt{13}", "wrong radical"),
    (r"2\pi", r"\pi", "factor of two"),
    ("2k", "2k+2", "missing constant"),
    ("a^2+b^2", "(a+b)^2", "missing cross term"),
    (r"\sin x", r"\cos x", "wrong function"),
    (r"\log_2 9", "3", "near logarithm"),
    ("2^{11}", "1024", "wrong power"),
    (r"\frac{\sqrt{3}}{2}", r"\frac{\sqrt{3}}{3}", "wrong denominator"),
    (r"18+\pi", r"18+2\pi", "missing coefficient"),
    ("3R^3", "3R^2", "wrong exponent"),
    ("x", "y", "different variables"),
    (r"e^{\pi}", r"\pi^{e}", "swapped exponent and base"),
]:
    add(K, pred, gold, False, note)

# --- Real MATH-500 answers with rewritings a model would write ----------------------------------
K = "math500"
for pred, gold in [
    (r"(3, \pi/2)", r"\left( 3, \frac{\pi}{2} \right)"),
    ("p-q", "p - q"),
    ("14/3", r"\frac{14}{3}"),
    ("Evelyn", r"\text{Evelyn}"),
    ("90", r"90^\circ"),
    (r"3 \sqrt{13}", r"3\sqrt{13}"),
    ("6-5i", "6 - 5i"),
    (r"\boxed{\pi}", r"\pi"),
    ("13535", "13535"),
    ("5", "x=5"),
    ("-2, 1", "1,-2"),
    ("52_{8}", "52_8"),
    (r"11 \sqrt{2}", r"11\sqrt2"),
    ("243/625", r"\frac{243}{625}"),
    ("7, 3, 5", "3, 5, 7"),
    (r"70\sqrt2", r"70 \sqrt{2}"),
    ("5/4", "1.25"),
    ("x^5-x^4+x^3-x^2+x-1", "x^5 - x^4 + x^3 - x^2 + x - 1"),
    (r"-\pi/6", r"-\frac{\pi}{6}"),
    ("3/20", "0.15"),
    ("(6, 31, -1)", "(6,31,-1)"),
    ("35/64", r"\frac{35}{64}"),
    ("40_{9}", "40_9"),
    (r"\frac{3}{4}\sqrt{3}", r"\frac{3\sqrt{3}}{4}"),
    (r"\frac{1}{\tan x}", r"\cot x"),
    ("(-2, 1)", "(-2,1)"),
    (r"1+\sqrt{19}, 1-\sqrt{19}", r"1 \pm \sqrt{19}"),
    ("east", r"\text{east}"),
    ("2(k+1)", "2k+2"),
    (
        r"\begin{pmatrix} -\frac13 \\ \frac23 \\ \frac53 \end{pmatrix}",
        r"\begin{pmatrix} -1/3 \\ 2/3 \\ 5/3 \end{pmatrix}",
    ),
    (r"145^{\circ}", r"145^\circ"),
    ("(3, 4]", "(3,4]"),
    ("4/3", r"\frac43"),
    ("even", r"\text{even}"),
    ("1 + 274i", "1+274i"),
    ("4210_5", "4210_{5}"),
    ("3840/289", r"\frac{3840}{289}"),
    ("28,800", "28800"),
    (r"\sqrt{45}", r"3 \sqrt{5}"),
    ("(15, -29)", "(15,-29)"),
    (r"\frac{1}{\sqrt{3}}", r"\frac{\sqrt{3}}{3}"),
    ("0.34", r"\dfrac{17}{50}"),
    ("270/7", r"\frac{270}7\text{ degrees}"),
    (r"6.72 \times 10^{-5}", ".0000672"),
    ("5x-7y+11z+4=0", "5x - 7y + 11z + 4 = 0"),
    (r"(2, \infty)", r"(2,\infty)"),
    ("10080", r"10,\!080"),
    ("(1.5, -13)", r"\left( \frac{3}{2}, -13 \right)"),
    ("11111111100", r"11,\! 111,\! 111,\! 100"),
    ("C", r"\text{(C)}"),
    (r"288\pi", r"288 \pi"),
    ("5/9", r"\frac 59"),
    ("32348", r"\$32,\!348"),
    ("3-13x", "-13x+3"),
    ("864", r"864 \mbox{ inches}^2"),
    ("9/5", r"1\frac{4}{5}"),
    ("0.33", r"\dfrac{33}{100}"),
    (r"2\pi + 18", r"18+2\pi"),
    ("(3/5, 8/3]", r"\left(\frac{3}{5},\frac{8}{3}\right]"),
    ("5.4", r"5.4 \text{ cents}"),
    ("9/19", r"\frac9{19}"),
    (r"(-\infty,0]", r"(-\infty, 0]"),
    (r"12 \pi", r"12\pi"),
    (r"\frac{9a+11}{20}", r"\frac{11+9a}{20}"),
    ("-0.96", r"-\frac{24}{25}"),
    ("4343_{6}", "4343_6"),
    (r"55^{\circ}", r"55^\circ"),
    ("58500", "58,500"),
    (r"11+11\sqrt5", r"11 \sqrt{5} + 11"),
    (r"(-\sqrt3, \sqrt3)", r"(-\sqrt{3}, \sqrt{3})"),
    ("ellipse", r"\text{ellipse}"),
    ("(1, -16, -4, 43)", "(1,-16,-4,43)"),
    (r"(9,36) \cup (0,9)", r"(0,9) \cup (9,36)"),
    ("[-2, 7]", r"x \in [-2,7]"),
    ("15x-80", "15x - 80"),
    (r"\sqrt{21}/5", r"\frac{\sqrt{21}}{5}"),
    ("Navin", r"\text{Navin}"),
    ("653/2", "326.5"),
    (r"\begin{pmatrix} 0.2 \\ -3.6 \end{pmatrix}", r"\begin{pmatrix} 1/5 \\ -18/5 \end{pmatrix}"),
    ("5r^{5}", "5r^5"),
    (r"-2, 1+\sqrt{5}, 1-\sqrt{5}", r"\{1\pm\sqrt{5},-2\}"),
    (r"\left[ \pi^2/8, 5\pi^2/4 \right]", r"\left[ \frac{\pi^2}{8}, \frac{5 \pi^2}{4} \right]"),
    ("57/160", ".35625"),
    (r"(3,\infty) \cup (-\infty,2)", r"(-\infty, 2) \cup (3, \infty)"),
    ("y=2x+3", "y = 2x + 3"),
    ("1, -2", "-2,1"),
    ("18.90", r"\$18.90"),
    ("75", r"75^\circ"),
    (r"8\pi", r"8 \pi"),
    ("15", r"15\mbox{ cm}^2"),
    ("275/2", r"137 \frac{1}{2}"),
    ("4n(2n+1)+1", "8n^2 + 4n + 1"),
    ("2/1005", r"\frac{2}{1005}"),
    ("36", r"\$36"),
    (r"(12,102) \cup (2,12)", r"(2,12) \cup (12,102)"),
    ("y=-2x", "y = -2x"),
    ("106", r"106^\circ"),
    ("B", r"\text{(B)}"),
    (r"\frac{7}{2}", r"\frac{7}{2}"),
    ("3.5", r"\frac{7}{2}"),
]:
    add(K, pred, gold, True, "real MATH-500 gold, model-style rewriting")
for pred, gold, note in [
    ("3/14", r"\frac{14}{3}", "inverted"),
    (r"\sqrt{39}", r"3\sqrt{13}", "wrong radical"),
    ("(6,-31,-1)", "(6,31,-1)", "sign in triple"),
    ("(-29, 15)", "(15,-29)", "swapped pair"),
    ("[3, 4)", "(3,4]", "mirror interval"),
    ("0.389", r"\frac{243}{625}", "rounded"),
    ("1.2", "1.25", "truncated"),
    ("1353", "13535", "dropped digit"),
    ("x^3+3x+6", "x^3+3x-6", "sign"),
    ("west", r"\text{east}", "wrong direction"),
    (r"\text{(D)}", r"\text{(C)}", "wrong choice"),
    ("odd", r"\text{even}", "wrong parity"),
    (r"\frac{\pi}{2}", r"\pi", "half"),
    ("(3, -2)", "(-2,1)", "wrong point"),
    (r"[\frac{3}{5}, \frac{8}{3}]", r"\left(\frac{3}{5},\frac{8}{3}\right]", "closed vs half-open"),
    ("-0.69", r"-\frac{24}{25}", "wrong value"),
    ("2k", "2k+2", "missing constant"),
    (r"(0, 36)", r"(0,9) \cup (9,36)", "lost the hole"),
    ("y = 2x - 3", "y = 2x + 3", "sign of intercept"),
    ("y = 2x", "y = -2x", "sign of slope"),
    ("1+274", "1+274i", "dropped i"),
    ("6+5i", "6 - 5i", "conjugate"),
    (
        r"\frac{5\pi^2}{4}",
        r"\left[ \frac{\pi^2}{8}, \frac{5 \pi^2}{4} \right]",
        "endpoint instead of interval",
    ),
    ("28000", "28800", "digit slip"),
    ("8n^2+4n-1", "8n^2 + 4n + 1", "sign of constant"),
    ("5r^4", "5r^5", "wrong exponent"),
    (r"\frac{2}{1004}", r"\frac{2}{1005}", "off-by-one denominator"),
    ("Evelyn and Navin", r"\text{Evelyn}", "two names for one"),
    ("0.35", ".35625", "truncated decimal"),
    ("12", r"12\pi", "dropped pi"),
    (r"(-\sqrt3, \sqrt3]", r"(-\sqrt{3}, \sqrt{3})", "half-open vs open"),
    ("(1,-16,4,43)", "(1,-16,-4,43)", "sign in quadruple"),
]:
    add(K, pred, gold, False, "real MATH-500 gold: " + note)

# --- Hard negatives named in the issue and their relatives ---------------------------------------
K = "hard_negative"
for pred, gold, note in [
    ("(1,2)", "[1,2]", "interval types"),
    ("[1,2]", "(1,2)", "interval types reversed"),
    ("12", "120", "missing zero"),
    ("120", "12", "extra zero"),
    (
        r"\frac{1}{2004!}",
        r"\frac{1}{2006!}",
        "nearby factorials (differ by ~1e-5780; a float compare says equal)",
    ),
    (r"\frac{1}{2006!}", r"\frac{1}{2004!}", "nearby factorials reversed"),
    ("2004!", "2006!", "huge factorials"),
    ("1-1/e", "1+1/e", "sign"),
    (r"1-\frac{1}{e}", r"1+\frac{1}{e}", "sign, LaTeX"),
    (r"5 \text{ cm}", r"5 \text{ m}", "units differ"),
    (r"5\,\mathrm{cm}", r"5\,\mathrm{m}", "mathrm units differ"),
    ("34 or 35", "34", "hedge"),
    ("35 or 34", "34", "hedge reversed"),
    (r"34 \text{ or } 35", "34", "hedge in LaTeX"),
    ("either 34 or 35", "34", "hedge in words"),
    ("34, 35", "34", "two answers for one"),
    ("34 and 35", "34", "two answers joined by and"),
    (r"34 \text{ and } 35", "35", "two answers for one, second matches"),
    ("-3", "3", "sign error"),
    ("3", "-3", "sign error"),
    (r"-\sqrt{3}", r"\sqrt3", "sign error radical"),
    ("3-2i", "3+2i", "conjugate"),
    ("(2,-1)", "(-2,1)", "negated pair"),
    ("(2,1)", "(1,2)", "swapped tuple"),
    ("(b,a)", "(a,b)", "swapped symbolic tuple"),
    ("1.414", r"\sqrt2", "near-miss decimal"),
    ("1.4142135623", r"\sqrt2", "more digits, still not equal"),
    ("2.718", "e", "near-miss e"),
    ("0.3333333333", r"\frac13", "long truncated repeating decimal"),
    ("0.1", "0.10000000001", "tiny difference"),
    (
        "100000000000000000001",
        "100000000000000000000",
        "big integers differing by one (float equality would say equal)",
    ),
    ("1e20", "100000000000000000001", "float-sized vs exact"),
    (r"10^{100}+1", r"10^{100}", "googol plus one"),
    (r"\frac{1}{3}", "1/4", "near fraction"),
    ("(1,2]", "[1,2)", "mirror half-open"),
    (r"\{1,2\}", "[1,2]", "set vs interval"),
    ("34.5", "34", "decimal not integer"),
    ("3/4", "34", "fraction digits"),
    ("3 4", "34", "split digits"),
    ("341", "34", "prefix match"),
    ("134", "34", "suffix match"),
    ("x^2", "2x", "power vs product"),
    (r"\sqrt{2}", r"\sqrt[3]{2}", "square vs cube root"),
    (r"\pi", r"\pi^2", "power"),
    ("True", "1", "word is not a number"),
    ("1/0", "0", "division by zero"),
    (r"\infty", "1000000", "infinity is not a number"),
    (r"\frac{0}{0}", "0", "indeterminate"),
]:
    add(K, pred, gold, False, note)

# --- Adversarial: must be False within the budget (the gold is never the same string) -----------
K = "adversarial"
for pred, gold, note in [
    ("5^{5^{5^{5^5}}}", "3125", "power tower (hangs naive evaluation and str())"),
    ("5^{5^{5^{5^{5}}}}", "5^{5^{5^{5}}}", "two power towers, different heights"),
    ("10^{10^{10}}", "10", "huge power"),
    ("10^{10^{10}}", "10^{10^{10}}+1", "huge power plus one"),
    ("9^{9^{9^{9}}}", "0", "power tower base 9"),
    ("2^{2^{2^{2^{2^{2}}}}}", "4", "tall tower of twos"),
    ("(10^{10^{10}})!", "1", "factorial of a huge number"),
    ("10^{10^{10}} - 10^{10^{10}} + 7", "8", "cancelling huge terms, still not 8"),
    (r"\frac{1}{2", r"\frac{1}{2}", "unterminated frac"),
    (r"\sqrt{", "2", "unterminated sqrt"),
    (r"\left(", "(1,2)", "unterminated left"),
    (r"\boxed{", "1", "unterminated boxed"),
    ("}{", "1", "unbalanced braces"),
    ("$$$$", "0", "only delimiters"),
    (r"\begin{pmatrix} 1 & 2", "(1,2)", "unterminated environment"),
    ("\x00", "0", "NUL byte"),
    ("34\x00", "34", "NUL byte after the value"),
    ("3\x004", "34", "NUL byte inside the value"),
    ("\x00\x00\x00", "\x00", "NUL bytes both sides (not a number)"),
    (r"\frac{\frac{\frac{1}{", "1", "nested unterminated fracs"),
    ("Answer: \x1b[31m34", "35", "terminal escape codes"),
    ("\ud7ff\ufffe\uffff", "1", "odd code points"),
    (r"\undefinedmacro{34}", "35", "unknown macro"),
    ("1" * 5000, "1", "5000-digit integer (past Python's int/str conversion limit)"),
    ("9" * 100, "9" * 99, "100-digit vs 99-digit integer"),
]:
    add(K, pred, gold, False, note)
add(
    K,
    "",
    "1",
    False,
    "10,000 nested braces",
    pred_gen={"prefix": "", "repeat": "{", "times": 10000, "suffix": "1" + "}" * 10000},
)
add(
    K,
    "",
    "2",
    False,
    "10,000 nested boxed",
    pred_gen={"prefix": "", "repeat": "\\boxed{", "times": 10000, "suffix": "1" + "}" * 10000},
)
add(
    K,
    "",
    "1",
    False,
    "10,000 open parentheses",
    pred_gen={"prefix": "", "repeat": "(", "times": 10000, "suffix": "1"},
)
add(
    K,
    "",
    "34",
    False,
    "1 MB string of x",
    pred_gen={"prefix": "", "repeat": "x", "times": 1_000_000, "suffix": ""},
)
add(
    K,
    "",
    "34",
    False,
    "1 MB string ending in a wrong answer line",
    pred_gen={"prefix": "", "repeat": "blah ", "times": 200_000, "suffix": "\nAnswer: 35"},
)
add(
    K,
    "",
    "9",
    False,
    "million-digit integer",
    pred_gen={"prefix": "", "repeat": "9", "times": 1_000_000, "suffix": ""},
)
add(
    K,
    "",
    "1",
    False,
    "1,000 nested square roots of 2 (about 1, not 1)",
    pred_gen={"prefix": "", "repeat": "\\sqrt{", "times": 1000, "suffix": "2" + "}" * 1000},
)
add(
    K,
    "",
    "0",
    False,
    "10,000 chained additions of 1 (equals 10000)",
    pred_gen={"prefix": "", "repeat": "1+", "times": 10000, "suffix": "0"},
)
add(
    K,
    "34",
    "",
    False,
    "gold is a 1 MB string",
    gold_gen={"prefix": "", "repeat": "3", "times": 1_000_000, "suffix": ""},
)


def write(path: Path = OUT) -> None:
    """Atomic write: temp file in the same folder, then os.replace."""
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".corpus.", suffix=".tmp")
    with os.fdopen(fd, "w", encoding="utf-8") as f:
        for case in CASES:
            f.write(json.dumps(case, ensure_ascii=True) + "\n")
    os.chmod(tmp, 0o644)
    os.replace(tmp, path)


if __name__ == "__main__":
    write()
    neg = sum(not c["equivalent"] for c in CASES)
    kinds: dict[str, int] = {}
    for c in CASES:
        kinds[c["kind"]] = kinds.get(c["kind"], 0) + 1
    print(f"{len(CASES)} cases ({neg} negatives) -> {OUT}")
    print(kinds)
