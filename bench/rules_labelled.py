"""Evaluation: the offline rule steps against blind labels of real and synthetic answers.

Two labellers, who never read or ran the project's code, labelled (question, original_answer)
pairs from the real sources (OlympiadBench, GSM8K, MATH-500, AIME/AMC, the Qwen evaluation
sets) and synthetic variants: the answer's kind (integer, exact_number, rounded_as_asked,
approximate, several_values, expression, non_numeric, multiple_choice, needs_context,
complex, units_required) and its exact value as a sympy string when one exists
(tests/pipelines/data/rule_labels_{A,B}.jsonl; their notes beside them).

Each pair goes through the same steps `dapo build` runs offline (classify, rules-only rewrite,
validate). A record that leaves them `kept` is a kept rewrite; it is

- **wrong** when its kind says no single exact value exists (approximate, several_values,
  expression, non_numeric, needs_context, complex), when the label gives no exact value, or
  when the value its integer stands for under the rule's stated transform (rebuilt from
  `transform_detail` by `pipelines.rules.recompute`) differs from the label's exact value;
- **right** otherwise.

"Right rewrites kept" is measured over the cases whose label gives an exact value that our
conventions can turn into one integer (an integer, a rational, (a+b sqrt c)/d, or a rational
multiple of pi). Targets: 0 wrong kept, >= 85% right kept.

Two sets are scored separately: the **old** set (A+B, which the rules were developed against)
and the **new** set C (`rule_labels_C.jsonl`, labelled blind before the code ran on it: SciBench,
MAWPS, CMATH, college math, Minerva, MMLU-STEM). C adds a `value_source` field (exact_arithmetic,
physical_constants, transcendental, tabulated_or_measured, not_numeric), a `key_wrong` flag (the
same as a `why` starting "SOURCE KEY WRONG") and the kind `not_unique` (no unique answer: scored
like the other kinds without an exact value). Wrong and right kept are reported per class (the
issue's failure classes, by labelled kind) and, for C, per value source.

Set D (`rule_labels_D.jsonl`, same format as C: OlympiadBench, SciBench, TheoremQA) was labelled
blind while the rules of issue 21's second round were written, and opened only after they were
committed: it measures them honestly. Rows whose case_id is also in A or B (development data) are
left out of D's figures and reported apart as an agreement check between the two labellers
(kind and exact value).

Set E (`rule_labels_E.jsonl`, 2026-11-29: AGIEval AQuA/SAT/MATH/Gaokao, GSM-hard, SingleEq, algebra word
problems, Omni-MATH) was measured once as it arrived; its multiple-choice rows take the keyed option's
value from a second blind labeller (`rule_labels_E.mc_values.jsonl`).

    .venv/bin/python bench/rules_labelled.py [--set old|new|D|E|both|all] [--json out.json] [--show-wrong] [--show-missed]
        [--scibench ../shared/data/sources/scibench.jsonl]

`--scibench` runs every row of SciBench (580 unlabelled science decimals) through the same
steps and lists each rewrite kept with its proof (issue 21 expects almost none: a kept one must
rest on the key's exact form, never on constants).

Runs against whatever `pipelines` is first on the path (so it can measure an older checkout).
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from collections import Counter, defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
# bench/ holds files named like the packages (mathdata.py, pipelines.py): keep it off the path
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != ROOT / "bench"]
DATA = ROOT / "tests" / "pipelines" / "data"
LABELS = [DATA / f"rule_labels_{x}.jsonl" for x in "AB"]  # the old set
LABELS_NEW = [DATA / "rule_labels_C.jsonl"]  # the new set, labelled blind for issue 21
LABELS_D = [DATA / "rule_labels_D.jsonl"]  # a third blind set, labelled after the rules it measures
LABELS_E = [DATA / "rule_labels_E.jsonl"]  # a fourth, from sources none of A-D used (2026-11-29)
LABELS_G = [
    DATA / "rule_labels_G.jsonl"
    # a fifth, from 11 sources none of A-E used (2026-11-29, second session)
]
# a sixth, from 8 sources none of A-G used, 147 of 187 science, applied or finance rows (2026-11-29, third)
LABELS_H = [DATA / "rule_labels_H.jsonl"]
# a seventh: competition sources (MathOdyssey, PutnamBench, miniF2F's AIME/AMC, CMMLU mathematics; 2026-11-29)
LABELS_I = [DATA / "rule_labels_I.jsonl"]
# an eighth: Open-Reasoner-Zero's RL corpus, JEEBench, LANTITE numeracy tests (2026-11-29)
LABELS_J = [DATA / "rule_labels_J.jsonl"]
# a ninth: multilingual (MGSM in nine languages, Korean MWP sets), QAMLC, MMLU elementary, Math401 (2026-11-29)
LABELS_K = [DATA / "rule_labels_K.jsonl"]
# a tenth: AoPS-style contest files (AIME 1983-2024 csv, HMMT February 2025, AIMO reference, PDF-extracted contests)
LABELS_L = [DATA / "rule_labels_L.jsonl"]
LABELS_N = [DATA / "rule_labels_N.jsonl"]
LABELS_O = [DATA / "rule_labels_O.jsonl"]
LABELS_P = [DATA / "rule_labels_P.jsonl"]
LABELS_Q = [DATA / "rule_labels_Q.jsonl"]
LABELS_R = [DATA / "rule_labels_R.jsonl"]
LABELS_S2 = [DATA / "rule_labels_S2.jsonl"]
LABELS_U2 = [DATA / "rule_labels_U2.jsonl"]
LABELS_S3 = [DATA / "rule_labels_S3.jsonl"]
LABELS_V2 = [DATA / "rule_labels_V2.jsonl"]
LABELS_X2 = [DATA / "rule_labels_X2.jsonl"]
LABELS_Y2 = [DATA / "rule_labels_Y2.jsonl"]
LABELS_Z2 = [DATA / "rule_labels_Z2.jsonl"]
LABELS_A3 = [DATA / "rule_labels_A3.jsonl"]
LABELS_B3 = [DATA / "rule_labels_B3.jsonl"]
LABELS_C3 = [DATA / "rule_labels_C3.jsonl"]
LABELS_D3 = [DATA / "rule_labels_D3.jsonl"]
LABELS_E3 = [DATA / "rule_labels_E3.jsonl"]
LABELS_F3 = [DATA / "rule_labels_F3.jsonl"]
LABELS_G3 = [DATA / "rule_labels_G3.jsonl"]
LABELS_H3 = [DATA / "rule_labels_H3.jsonl"]
LABELS_I3 = [DATA / "rule_labels_I3.jsonl"]
LABELS_J3 = [DATA / "rule_labels_J3.jsonl"]
LABELS_K3 = [DATA / "rule_labels_K3.jsonl"]
LABELS_L3 = [DATA / "rule_labels_L3.jsonl"]
# non-English worksheets and exam keys (German physics, Spanish chemistry, Japanese, Turkish, Indonesian; 2026-11-30)
LABELS_M3 = [DATA / "rule_labels_M3.jsonl"]
# science, engineering economics and statistics files, SciBench's own repository, MATHCOUNTS countdown (2026-11-30)
LABELS_N3 = [DATA / "rule_labels_N3.jsonl"]
# competition answer keys (Chinese national college competition papers, Korean and US banks; 2026-11-30)
LABELS_O3 = [DATA / "rule_labels_O3.jsonl"]
# applied money, percent and rate problems: Chinese grade-6 sets, GATE/aptitude banks, statistics (2026-11-30)
LABELS_P3 = [DATA / "rule_labels_P3.jsonl"]
# university and contest-prep problem sets with their keys (probability, number theory, calculus; 2026-11-30)
LABELS_Q3 = [DATA / "rule_labels_Q3.jsonl"]
LABELS_R3 = [DATA / "rule_labels_R3.jsonl"]
# labelled as "S3" by its helper (/work/labels/S3); renamed T3 here, S3 being an earlier set
LABELS_T3 = [DATA / "rule_labels_T3.jsonl"]
LABELS_U3 = [DATA / "rule_labels_U3.jsonl"]
# statistics, finance and physics course exercises with their keys (stats courses, an MScFE, K-12 physics; 2026-11-30)
LABELS_V3 = [DATA / "rule_labels_V3.jsonl"]
# middle-school worksheets and quiz banks: rates, percents, units, time and money (US, UK, India; 2026-11-30)
LABELS_W3 = [DATA / "rule_labels_W3.jsonl"]
# exam and olympiad keys in Czech, Romanian, Hungarian, Dutch, Greek, Thai and Latvian (2026-11-30)
LABELS_X3 = [DATA / "rule_labels_X3.jsonl"]
# probability, counting and geometry keys from school and pre-university banks (2026-11-30)
LABELS_Y3 = [DATA / "rule_labels_Y3.jsonl"]
# physics and chemistry banks: mole concept, ionic equilibrium, mechanics units, LLM-eval physics (2026-11-30)
LABELS_Z3 = [DATA / "rule_labels_Z3.jsonl"]
# training-corpus copies: MATH and MATH-500 rows in evaluation repositories, a MathInstruct subset (2026-11-30)
LABELS_A4 = [DATA / "rule_labels_A4.jsonl"]
# keys that are written solutions: GSM8K train (`#### N`), MATH-format training records, a synthetic corpus (2026-11-30)
LABELS_B4 = [DATA / "rule_labels_B4.jsonl"]
# non-English keys as solutions or answer sentences: Math23K and Ape210K, gaokao fill-in, Portuguese, Korean, Russian (2026-11-30)
LABELS_C4 = [DATA / "rule_labels_C4.jsonl"]
# standardized-test banks: GRE, digital SAT, Common Core grade 6, SVAMP, MultiArith, GSM8K forks, a missing-premise SVAMP (2026-11-30)
LABELS_D4 = [DATA / "rule_labels_D4.jsonl"]
# contest answer files: CMIMC 2018 (relay included), UIL number sense, YMC, OpenPOTD, NAT and AMC-style banks
# (2026-11-30, thirteenth session)
LABELS_E4 = [DATA / "rule_labels_E4.jsonl"]
# college and university exercise banks (calculus, linear algebra, discrete math), SOA-style actuarial and LP items
# (2026-11-30, thirteenth session)
LABELS_F4 = [DATA / "rule_labels_F4.jsonl"]
# perturbed word problems: GSM-IC, GSM-Symbolic, GSM-ALT templates, SVAMP variants (CLLM, PRP, FLARE), MiP items
# (2026-11-30, thirteenth session)
LABELS_G4 = [DATA / "rule_labels_G4.jsonl"]
# geometry and measurement items of image benchmarks and banks (MathVista/MATH-Vision copies, DynaMath, SolidGeo,
# MV-MATH, MathScape) whose figures the text lacks (2026-11-30, thirteenth session)
LABELS_H4 = [DATA / "rule_labels_H4.jsonl"]
LABELS_I4 = [DATA / "rule_labels_I4.jsonl"]
LABELS_J4 = [DATA / "rule_labels_J4.jsonl"]
# LLM-made and augmented data (MetaMathQA/FOBAR samples, GPT-3.5 keys to ALG-514/DRAW-1K, reasoning-gym tasks,
# generated banks) and geometry/measurement banks (2026-11-30, fifteenth session)
LABELS_K4 = [DATA / "rule_labels_K4.jsonl"]
# held out from K4's fixes: ChatGPT answers stored as keys to DRAW-1K / ALG-514, MetaMathQA samples (2026-11-30)
LABELS_L4 = [DATA / "rule_labels_L4.jsonl"]
# algebra, precalculus and calculus drill banks: equations a key is substituted into, systems, complex numbers
# (2026-11-30, fifteenth session; held out from K4's and L4's classes and the substitution of a key)
LABELS_M4 = [DATA / "rule_labels_M4.jsonl"]
# number theory and counting: base conversions, modular arithmetic, counting keys as expressions (2026-11-30)
LABELS_N4 = [DATA / "rule_labels_N4.jsonl"]
# Hindi, Marathi, Nepali, Arabic (ArMATH), Persian banks and Zambian/Zimbabwean school tests (2026-11-30)
LABELS_O4 = [DATA / "rule_labels_O4.jsonl"]
# recent contests as evaluation files store them: AMC 2023 rewritten to integers, AIME 2024/2025, HMMT February 2025
LABELS_P4 = [DATA / "rule_labels_P4.jsonl"]
# English-language school arithmetic and measurement banks (Australia, New Zealand, UK KS2/11+/GCSE, South Africa)
LABELS_R4 = [DATA / "rule_labels_R4.jsonl"]
# recent benchmark files as evaluation code keeps them: JEEBench, MatSciBench, SciEval, GSM-Hard, SVAMP, MathQA, AGIEval
LABELS_Q4 = [DATA / "rule_labels_Q4.jsonl"]
# science and applied problems with decimal keys: chemistry education banks, physics and engineering drills
LABELS_S4 = [DATA / "rule_labels_S4.jsonl"]
# AoPS wiki contest pages as GitHub repositories scrape them (AMC 8/10, AIME), choices written in LaTeX in the statement
LABELS_T4 = [DATA / "rule_labels_T4.jsonl"]
# geometry and trigonometry worksheets and quiz banks: triangles, circles, polygons, trigonometric values
LABELS_U4 = [DATA / "rule_labels_U4.jsonl"]
LABELS_V4 = [DATA / "rule_labels_V4.jsonl"]
LABELS_W4 = [DATA / "rule_labels_W4.jsonl"]
# keys that state one value in a file's dress (scripts, units and counters, Unicode fractions, bold and LaTeX wrappers,
# answer sentences) and keys that give their value before bracketed working (2026-12-01, pre-registered classes)
LABELS_X4 = [DATA / "rule_labels_X4.jsonl"]
# short answers easy to misread as one number: blanks, conversions, clock times, ratios, mixed numbers, sequences,
# roundings to the nearest ten, quiz banks in English, Indonesian, French and Spanish (2026-12-01)
LABELS_Z4 = [DATA / "rule_labels_Z4.jsonl"]
# Chinese, Japanese and Korean sources: the Nine Chapters, Korean banking and word-problem sets, JMMLU, SPI aptitude,
# the 2024 Korean CSAT (2026-12-01)
LABELS_Y4 = [DATA / "rule_labels_Y4.jsonl"]
# multiple choice not lettered A-D: options in arrays keyed by index or text, numbered labels, sub-question parts
# (JEE-style, Hindi, Korean, Turkish, aptitude banks; 2026-12-01)
LABELS_A5 = [DATA / "rule_labels_A5.jsonl"]
# keys with words around or instead of a value (answer sentences, hedges, remarks) and questions about bounds:
# challenging word problems, Brazilian and Indonesian entrance exams, Hindi textbooks (2026-12-01)
LABELS_B5 = [DATA / "rule_labels_B5.jsonl"]
# multiple-choice rows of E carry no exact value (labeller E followed C); a second blind labeller read
# the value of the keyed option (or the true value where the key is wrong) from the options
OPTION_VALUES = {"E": DATA / "rule_labels_E.mc_values.jsonl"}
SETS = {
    "old": LABELS,
    "new": LABELS_NEW,
    "D": LABELS_D,
    "E": LABELS_E,
    "G": LABELS_G,
    "H": LABELS_H,
    "I": LABELS_I,
    "J": LABELS_J,
    "K": LABELS_K,
    "L": LABELS_L,
    "N": LABELS_N,
    "O": LABELS_O,
    "P": LABELS_P,
    "Q": LABELS_Q,
    "R": LABELS_R,
    "S2": LABELS_S2,
    "U2": LABELS_U2,
    "S3": LABELS_S3,
    "V2": LABELS_V2,
    "X2": LABELS_X2,
    "Y2": LABELS_Y2,
    "Z2": LABELS_Z2,
    "A3": LABELS_A3,
    "B3": LABELS_B3,
    "C3": LABELS_C3,
    "D3": LABELS_D3,
    "E3": LABELS_E3,
    "F3": LABELS_F3,
    "G3": LABELS_G3,
    "H3": LABELS_H3,
    "I3": LABELS_I3,
    "J3": LABELS_J3,
    "K3": LABELS_K3,
    "L3": LABELS_L3,
    "M3": LABELS_M3,
    "N3": LABELS_N3,
    "O3": LABELS_O3,
    "P3": LABELS_P3,
    "Q3": LABELS_Q3,
    "R3": LABELS_R3,
    "T3": LABELS_T3,
    "U3": LABELS_U3,
    "V3": LABELS_V3,
    "W3": LABELS_W3,
    "X3": LABELS_X3,
    "Y3": LABELS_Y3,
    "Z3": LABELS_Z3,
    "A4": LABELS_A4,
    "B4": LABELS_B4,
    "C4": LABELS_C4,
    "D4": LABELS_D4,
    "E4": LABELS_E4,
    "F4": LABELS_F4,
    "G4": LABELS_G4,
    "H4": LABELS_H4,
    "I4": LABELS_I4,
    "J4": LABELS_J4,
    "K4": LABELS_K4,
    "L4": LABELS_L4,
    "M4": LABELS_M4,
    "N4": LABELS_N4,
    "O4": LABELS_O4,
    "P4": LABELS_P4,
    "Q4": LABELS_Q4,
    "R4": LABELS_R4,
    "S4": LABELS_S4,
    "T4": LABELS_T4,
    "U4": LABELS_U4,
    "V4": LABELS_V4,
    "W4": LABELS_W4,
    "X4": LABELS_X4,
    "Z4": LABELS_Z4,
    "Y4": LABELS_Y4,
    "A5": LABELS_A5,
    "B5": LABELS_B5,
}
# --set: one set, "both" (old and new, as before D existed) or "all"
SET_CHOICES = {name: [name] for name in SETS} | {"both": ["old", "new"], "all": list(SETS)}
NO_EXACT_KINDS = {
    "approximate",
    "several_values",
    "expression",
    "non_numeric",
    "needs_context",
    "complex",
    "not_unique",
}
# the failure classes (issues 12 and 21), per labelled kind
CLASS_OF_KIND = {
    "approximate": "1-2 approximate / rounded",
    "rounded_as_asked": "1-2 approximate / rounded",
    "several_values": "3 several values",
    "not_unique": "4 not unique",
    "needs_context": "5 context",
    "complex": "5 context",
    "multiple_choice": "5 context",
    "units_required": "5 context",
    "expression": "no exact number",
    "non_numeric": "no exact number",
    "integer": "exact integer",
    "exact_number": "exact non-integer",
}


def key_is_wrong(label: dict) -> bool:
    """The labeller found the source key itself wrong (`key_wrong`, or a `why` saying so)."""
    return bool(label.get("key_wrong")) or label.get("why", "").upper().startswith("SOURCE KEY WRONG")


def load_jsonl(path: Path, required: tuple[str, ...] = ()) -> list[dict]:
    """Rows of a JSON Lines file; a bad row names its file and line."""
    rows = []
    for n, line in enumerate(Path(path).read_text(encoding="utf-8").splitlines(), 1):
        if not line.strip():
            continue
        try:
            row = json.loads(line)
        except json.JSONDecodeError as e:
            raise ValueError(f"{path}:{n}: not JSON ({e.msg}); fix or drop the line") from e
        missing = [k for k in required if k not in row]
        if missing:
            raise ValueError(f"{path}:{n}: row lacks {missing}")
        rows.append(row)
    return rows


def load_labels(paths=LABELS) -> list[dict]:
    """Labels from JSON Lines files."""
    return [
        row
        for p in paths
        for row in load_jsonl(p, ("case_id", "file", "question", "original_answer", "kind"))
    ]


# a later set whose labeller took rows an earlier set holds (the repositories were missing from the list of used
# ones it was given): those rows count with the earlier set only, and serve as a check of the two labellers
REPEATS = {"G4": "D4"}


def labels_of(name: str) -> tuple[list[dict], list[dict]]:
    """(the labels a set is scored on, its rows also in an earlier set): D and E leave out their rows also in
    the development sets A/B, G4 its rows also in D4 (`REPEATS`); E's multiple-choice rows get their option
    values."""
    labels = load_labels(SETS[name])
    if name in OPTION_VALUES:
        labels = with_option_values(labels, OPTION_VALUES[name])
    if name not in ("old", "new", "D", "E"):  # labellers from G on wrote the unrounded value
        labels = [rounded_as_labelled(lab) for lab in labels]
    if name in ("D", "E"):
        return without_development_rows(labels)
    if name in REPEATS:
        earlier = {lab["case_id"] for lab in load_labels(SETS[REPEATS[name]])}
        return [x for x in labels if x["case_id"] not in earlier], [
            x for x in labels if x["case_id"] in earlier
        ]
    return labels, []


def rounded_as_labelled(lab: dict) -> dict:
    """Labeller G wrote a rounded_as_asked row's unrounded value and the rounding asked (A-E wrote the rounded
    value): the right answer is that value rounded as asked (`451**(1/10)`, nearest integer: 2)."""
    import sympy

    from pipelines.rules import _round_places

    if lab["kind"] != "rounded_as_asked" or not lab.get("rounding") or lab.get("exact_value") in (None, ""):
        return lab
    places = _round_places(lab["rounding"])
    if places is None and re.search(r"nearest (integer|whole number)", lab["rounding"], re.I):
        places = 0
    scale = re.search(
        r"nearest (hundred thousand|ten thousand|ten|hundred|thousand|million)s?\b", lab["rounding"], re.I
    )
    if places is None and scale:  # `nearest thousand` (E3's German `auf Tausender`): a negative place
        places = -{
            "ten": 1,
            "hundred": 2,
            "thousand": 3,
            "ten thousand": 4,
            "hundred thousand": 5,
            "million": 6,
        }[
            scale.group(1).lower()
        ]  # the longer names first: R4's `nearest hundred thousand` is not `nearest hundred`
    written = re.search(r"nearest (10+)\b", lab["rounding"])
    if places is None and written:  # Z4's `to the nearest 10`: the place written in digits
        places = -(len(written.group(1)) - 1)
    value = sympy.sympify(lab["exact_value"])
    if places is None and re.search(
        r"integ(?:er|ral) part|truncat|\bfloor\b|rounded? down", lab["rounding"], re.I
    ):
        # Y3's `integral part (truncate)`: the whole part, not the nearest integer
        return {
            **lab,
            "exact_value": str(sympy.floor(value)),
            "exact_from": f"{lab['exact_value']} truncated as asked",
        }
    if places is None:
        return lab
    unit = sympy.Rational(10) ** places
    # half away from zero, as schools round (`45` to the nearest 10 is 50; `round` gives 40)
    scaled = value * unit
    if not scaled.is_Rational:
        scaled = sympy.Rational(str(scaled.evalf(40)))
    rounded = sympy.sign(scaled) * sympy.floor(abs(scaled) + sympy.Rational(1, 2)) / unit
    return {**lab, "exact_value": str(rounded), "exact_from": f"{lab['exact_value']} rounded as asked"}


def with_option_values(labels: list[dict], path: Path) -> list[dict]:
    """Multiple-choice labels without an exact value get the option value a second labeller read."""
    values = {row["case_id"]: row for row in load_jsonl(path)}
    out = []
    for lab in labels:
        v = values.get(lab["case_id"])
        if lab["kind"] == "multiple_choice" and lab.get("exact_value") is None and v and v["option_value"]:
            lab = {**lab, "exact_value": v["option_value"], "exact_from": "option value, second labeller"}
        out.append(lab)
    return out


def without_development_rows(labels: list[dict]) -> tuple[list[dict], list[dict]]:
    """(blind rows, rows whose case_id is also in the development sets A/B)."""
    seen = {row["case_id"] for row in load_labels(LABELS)}
    return [r for r in labels if r["case_id"] not in seen], [r for r in labels if r["case_id"] in seen]


def labeller_agreement(overlap: list[dict], earlier: list[Path] = LABELS) -> dict:
    """Kind and exact value of the earlier label (the development sets A/B unless named) against the blind one, per
    shared case_id."""
    import sympy

    dev = {row["case_id"]: row for row in load_labels(earlier)}
    rows = []
    for blind in overlap:
        old = dev[blind["case_id"]]
        a, b = exact_value(old), exact_value(blind)
        same_value = (a is None and b is None) or (
            a is not None and b is not None and sympy.simplify(a - b) == 0
        )
        rows.append(
            {
                "case_id": blind["case_id"],
                "kind_dev": old["kind"],
                "kind_blind": blind["kind"],
                "value_dev": old.get("exact_value"),
                "value_blind": blind.get("exact_value"),
                "same_kind": old["kind"] == blind["kind"],
                "same_value": bool(same_value),
            }
        )
    return {
        "shared": len(rows),
        "same_kind": sum(r["same_kind"] for r in rows),
        "same_value": sum(r["same_value"] for r in rows),
        "rows": rows,
    }


def _run_steps(records: list[dict]) -> list[dict]:
    try:
        from pipelines.report import run_offline_steps
    except ImportError:  # an older checkout: the same three stages by hand, as its build did
        import asyncio

        from pipelines.classify import classify
        from pipelines.rewrite import rewrite_record
        from pipelines.validate import check_record

        return [check_record(asyncio.run(rewrite_record(classify(r), None))) for r in records]
    return run_offline_steps(records)


def exact_value(label: dict):
    import sympy

    if label.get("exact_value") in (None, ""):
        return None
    try:  # exact as written (rational=True: decimals are rationals); nsimplify would round (3^59+1)/(4*3^59) to 1/4
        return sympy.sympify(label["exact_value"], rational=True)
    except (sympy.SympifyError, TypeError, ValueError, SyntaxError):
        return None


def rewritable(value) -> bool:
    """Our conventions give this value one integer: integer, rational, (a+b sqrt c)/d, q*pi."""
    import sympy

    if not isinstance(value, sympy.Expr) or not value.is_real:  # None, or a tuple (`200, 360, 160`)
        return False
    if value.is_Rational:
        return True
    if value.has(sympy.pi):
        return sympy.simplify(value / sympy.pi).is_Rational
    from pipelines.rules import _radical_parts

    return _radical_parts(value) is not None


def judge(label: dict, record: dict) -> tuple[str, str]:
    """('wrong' | 'right' | 'not_kept', why) for one labelled case after the steps."""
    import sympy

    from pipelines.rules import recompute

    if record["status"] != "kept":
        return "not_kept", record["status"][:80]
    kind = label["kind"]
    if kind in NO_EXACT_KINDS:
        return "wrong", f"kept a rewrite of a {kind} answer"
    ex = exact_value(label)
    if ex is None:
        return "wrong", "kept, but the label gives no exact value"
    rule = record.get("transform") or "identity"
    try:
        detail = json.loads(record.get("transform_detail") or "{}")
        got = recompute(rule, detail, record["answer"])
    except (ValueError, KeyError, TypeError) as e:
        return "wrong", f"transform_detail does not rebuild a value ({e})"
    candidates = [got]
    if rule == "percent" or detail.get("unit") == "percent":
        candidates.append(got / 100)  # 62.5% may be labelled 5/8 or 62.5
    if any(sympy.simplify(c - ex) == 0 for c in candidates):
        return "right", f"{rule}: {got}"
    return "wrong", f"{rule} stands for {_shown(got)}, the label's exact value is {_shown(ex)}"


def _shown(value) -> str:
    """A value as text; an integer too long to print (a factorial-sized exact value) by its length."""
    import sympy

    if isinstance(value, sympy.Integer) and abs(value.p).bit_length() > 3000:
        return f"<an integer of about {int(abs(value.p).bit_length() * 0.30103)} digits>"
    return str(value)


def evaluate(labels: list[dict]) -> dict:
    from mathdata.schema import new_record

    # a row whose source stores no statement never becomes a record (the schema refuses an empty problem)
    empty = {i for i, lab in enumerate(labels) if not str(lab["question"]).strip()}
    records = [
        new_record(
            source=f"labelled:{lab['file']}",
            original_problem=lab["question"],
            original_answer=lab["original_answer"],
            source_key=lab["case_id"],
        )
        for i, lab in enumerate(labels)
        if i not in empty
    ]
    ran = iter(_run_steps(records))
    refused = {"status": "rejected: empty statement (no record is made of it)"}
    out = [dict(refused) if i in empty else next(ran) for i in range(len(labels))]
    by_kind: dict[str, Counter] = defaultdict(Counter)
    by_class: dict[str, Counter] = defaultdict(Counter)
    by_source: dict[str, Counter] = defaultdict(Counter)
    cases = []
    for lab, rec in zip(labels, out, strict=True):
        verdict, why = judge(lab, rec)
        ex = exact_value(lab)
        key_wrong = key_is_wrong(lab)
        # a rule rewrites the key; when the labeller found the key itself wrong (class 4) no rule
        # rewrite can be right: such cases count in `wrong` when kept, never in `eligible`
        eligible = lab["kind"] not in NO_EXACT_KINDS and rewritable(ex) and not key_wrong
        buckets = [by_kind[lab["kind"]], by_class[CLASS_OF_KIND.get(lab["kind"], "other")]]
        if lab.get("value_source"):
            buckets.append(by_source[lab["value_source"]])
        for bucket in buckets:
            bucket["cases"] += 1
            bucket[verdict] += 1
            bucket["eligible"] += eligible
            bucket["right_eligible"] += eligible and verdict == "right"
            bucket["wrong_key_wrong"] += verdict == "wrong" and key_wrong
        cases.append(
            {
                "case_id": lab["case_id"],
                "kind": lab["kind"],
                "file": lab["file"],
                "value_source": lab.get("value_source"),
                "verdict": verdict,
                "eligible": eligible,
                "source_key_wrong": key_wrong,
                "why": why,
                "status": rec["status"][:120],
                "transform": rec.get("transform"),
                "answer": rec.get("answer"),
                "original_answer": lab["original_answer"][:80],
                "exact_value": lab.get("exact_value"),
            }
        )
    total = Counter()
    for c in by_kind.values():
        total.update(c)
    return {
        "cases": len(labels),
        "wrong_kept": total["wrong"],
        "wrong_kept_source_key_wrong": total["wrong_key_wrong"],
        "right_kept": total["right"],
        "eligible": total["eligible"],
        "right_kept_of_eligible": total["right_eligible"],
        "right_kept_rate": round(total["right_eligible"] / max(total["eligible"], 1), 4),
        "by_kind": {k: dict(v) for k, v in sorted(by_kind.items())},
        "by_class": {k: dict(v) for k, v in sorted(by_class.items())},
        "by_value_source": {k: dict(v) for k, v in sorted(by_source.items())},
        "details": cases,
    }


def _rate(c: dict) -> str:
    return f"{c.get('right_eligible', 0) / c['eligible']:.0%}" if c.get("eligible") else "-"


def print_result(name: str, res: dict, show_wrong: bool = False, show_missed: bool = False) -> None:
    """The summary line, then wrong and right kept per kind, per class and per value source."""
    print(
        f"[{name}] {res['cases']} labelled cases: wrong rewrites kept {res['wrong_kept']} (target 0; "
        f"{res['wrong_kept_source_key_wrong']} of them rewrite a source key the labeller found wrong); "
        f"right rewrites kept {res['right_kept_of_eligible']}/{res['eligible']} = {res['right_kept_rate']:.1%} "
        f"of eligible (target >= 85%)"
    )
    for title, table in (
        ("kind", res["by_kind"]),
        ("class", res["by_class"]),
        ("value source", res["by_value_source"]),
    ):
        if not table:
            continue
        print(
            f"  {title:<26}{'cases':>6}{'wrong':>7}{'(key wrong)':>12}{'right':>7}{'elig.':>7}{'right/elig.':>12}"
        )
        for key, c in table.items():
            print(
                f"  {key:<26}{c['cases']:>6}{c.get('wrong', 0):>7}{c.get('wrong_key_wrong', 0):>12}"
                f"{c.get('right', 0):>7}{c.get('eligible', 0):>7}{_rate(c):>12}"
            )
    for d in res["details"]:
        if (show_wrong and d["verdict"] == "wrong") or (
            show_missed and d["eligible"] and d["verdict"] != "right"
        ):
            keys = ("case_id", "kind", "verdict", "why", "status", "original_answer", "exact_value")
            print(json.dumps({k: d[k] for k in keys}, ensure_ascii=False))


def scan_scibench(path: Path, *, with_unit: bool = True) -> dict:
    """Every SciBench row through the offline steps (unlabelled): what is kept, and with which proof.

    With `with_unit` the row's `unit` field rides along as import metadata (as `dapo build`'s
    importer keeps short unmapped columns in `checks.import.extra`); without it, the text alone.
    """
    from mathdata.schema import new_record

    rows = load_jsonl(path)
    records = []
    for r in rows:
        rec = new_record(
            source="scibench",
            original_problem=r["problem_text"],
            original_answer=r["answer_latex"],
            source_key=str(r.get("problemid")),
        )
        if with_unit:
            rec["checks"] = json.dumps(
                {"import": {"extra": {"unit": r.get("unit", ""), "source": r.get("source")}}}
            )
        records.append(rec)
    out = _run_steps(records)
    outcomes = Counter()
    kept = []
    for r, rec in zip(rows, out, strict=True):
        status = rec["status"]
        outcomes[
            "kept"
            if status == "kept"
            else status.split(":")[0] + (": science" if "science" in status else "")
        ] += 1
        if status == "kept":
            detail = json.loads(rec.get("transform_detail") or "{}")
            kept.append(
                {
                    "problemid": r.get("problemid"),
                    "answer": r["answer_latex"],
                    "transform": rec.get("transform"),
                    "proof": detail.get("proof"),
                }
            )
    by_transform = Counter(k["transform"] for k in kept)
    return {
        "rows": len(rows),
        "outcomes": dict(outcomes.most_common()),
        "kept_by_transform": dict(by_transform),
        "kept": kept,
    }


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument(
        "--set",
        choices=tuple(SET_CHOICES),
        default="all",
        help="old = A+B, new = C, D = set D, E = set E; both = old+new",
    )
    ap.add_argument("--json", type=Path, help="write the full result (with every case) here")
    ap.add_argument("--show-wrong", action="store_true")
    ap.add_argument("--show-missed", action="store_true", help="eligible cases not kept")
    ap.add_argument(
        "--scibench",
        type=Path,
        help="also run every row of this SciBench file (unlabelled) and list the rewrites kept",
    )
    args = ap.parse_args(argv)
    out = {}
    for name in SET_CHOICES[args.set]:
        if not all(p.exists() for p in SETS[name]):
            print(f"[{name}] no labels at {', '.join(str(p) for p in SETS[name])}; skipped")
            continue
        labels, overlap = labels_of(name)
        if name in ("D", "E") or name in REPEATS:
            earlier = SETS[REPEATS[name]] if name in REPEATS else LABELS
            agreement = labeller_agreement(overlap, earlier)
            print(
                f"[{name}] {len(overlap)} rows also in {REPEATS.get(name, 'A/B')} left out of {name}'s figures; "
                "labeller agreement on them: "
                f"kind {agreement['same_kind']}/{agreement['shared']}, exact value "
                f"{agreement['same_value']}/{agreement['shared']}"
            )
            for r in agreement["rows"]:
                if not (r["same_kind"] and r["same_value"]):
                    print(f"  differs {json.dumps(r, ensure_ascii=False)}")
        out[name] = evaluate(labels)
        if name in ("D", "E"):
            out[name]["development_overlap"] = agreement
        print_result(name, out[name], args.show_wrong, args.show_missed)
    if args.scibench:
        for with_unit in (False, True):
            res = scan_scibench(args.scibench, with_unit=with_unit)
            label = "scibench, with its unit field" if with_unit else "scibench, text only"
            print(f"[{label}] {res['rows']} rows: {res['outcomes']}; kept by rule {res['kept_by_transform']}")
            for k in res["kept"]:
                print(f"  kept {k['problemid']} {k['answer']!r} {k['transform']}: {k['proof']}")
            out[label] = res
    if args.json:
        args.json.write_text(json.dumps(out, indent=1, ensure_ascii=False))
    return 0


if __name__ == "__main__":
    sys.exit(main())
