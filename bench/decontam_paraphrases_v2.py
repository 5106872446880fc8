"""A second, untuned planted set of *paraphrased* benchmark copies (issue 21, item 6).

The first set (bench/decontam_paraphrased.jsonl) has been looked at in both halves, so it is
development data. This one is written before any change it is meant to measure and is run
through the decontaminator once. Its items are MATH-500 problems NOT in the first set (every
AIME 2024/2025 and AMC 2023 item is already there), weighted to SHORT problems, the case the
first set's misses came from: 80 items under 200 characters and 40 longer ones. Each is copied
five ways with edit vocabularies written for this set (none of the first set's phrase lists):

- `number`: one or two numbers changed (a coefficient, an exponent, a point's coordinate);
- `sentence`: one sentence added (a context line, a units or rounding remark, a chain-of-thought
  instruction as in instruction-tuning sets);
- `reworded`: the question restated (Compute -> What is the value of, What is -> Evaluate / Find,
  If A, find B -> Find B, given A; synonyms), as a human paraphraser would;
- `latex`: other markup (\\[ \\] or $$ display math, \\left( \\right), \\tfrac, ASCII math without
  dollars, spaces inside math, \\cdot for juxtaposition);
- `copy`: as found in another dataset: its own preamble or template (Alpaca-style
  "### Instruction", "Q: ... A:", "<problem>" tags, a topic label, a numbered exercise),
  sometimes with other markup or a number changed as well.

    PYTHONPATH=. .venv/bin/python bench/decontam_paraphrases_v2.py   # rewrites bench/data/decontam_paraphrased_v2.jsonl
"""

from __future__ import annotations

import json
import random
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != ROOT / "bench"]
OUT = ROOT / "bench" / "data" / "decontam_paraphrased_v2.jsonl"
V1 = ROOT / "bench" / "data" / "decontam_paraphrased.jsonl"
KINDS = ("number", "sentence", "reworded", "latex", "copy")
SHORT_CHARS = 200
N_SHORT = 80
N_LONG = 40
SEED = 2102

_NUM = re.compile(r"(?<![\w.\\])(\d+)(?!\d)")

OPENERS = [
    "This exercise comes from a high-school algebra review sheet.",
    "Here is a problem from a precalculus homework set.",
    "A student asked the following on a math help forum.",
    "The next question tests basic problem-solving skills.",
    "Try the following question.",
]
CLOSERS = [
    "Let's think step by step and output the final answer within \\boxed{}.",
    "Do not use a calculator.",
    "Write your answer in lowest terms if it is a fraction.",
    "Make sure to simplify your final answer.",
    "Explain your reasoning briefly.",
    "Answer with a single expression.",
]
# question restatements, tried in order; the first that applies is used
RESTATE = [
    (r"^Compute (.+?)\.?$", ["What is the value of {0}?", "Calculate {0}.", "Evaluate {0}."]),
    (r"^What is (.+?)\?$", ["Evaluate {0}.", "Determine {0}.", "Find {0}."]),
    (r"^Find (.+?)\.?$", ["Determine {0}.", "What is {0}?", "Please compute {0}."]),
    (r"^Evaluate (.+?)\.?$", ["Compute {0}.", "What does {0} equal?", "Find the value of {0}."]),
    (r"^Simplify (.+?)\.?$", ["Write {0} in simplest form.", "Reduce {0} as far as possible."]),
    (r"^How many (.+?)\?$", ["Count the {0}.", "Determine the number of {0}.", "Find how many {0}."]),
    (r"^Solve for (.+?)\.?$", ["Find {0}.", "Determine the value of {0}."]),
    (r"^Determine (.+?)\.?$", ["Find {0}.", "What is {0}?"]),
    (r"^Express (.+?)\.?$", ["Write {0}.", "Give {0}."]),
    (r"^Solve (.+?)\.?$", ["Find the solution of {0}.", "Work out {0}."]),
    (r"^Add (.+?) to (.+?)\.$", ["What is {1} plus {0}?", "Find the sum of {1} and {0}."]),
    (r"^If (.+?), (what|find|compute|how|determine)(.+)$", None),  # clause order swapped, below
]
SYNONYMS = [
    (r"\bpositive integer\b", "positive whole number"),
    (r"\bintegers\b", "whole numbers"),
    (r"\bsmallest\b", "least"),
    (r"\blargest\b", "greatest"),
    (r"\bExpress your answer\b", "Give your answer"),
    (r"\bexpress your answer\b", "give your answer"),
    (r"\bcommon fraction\b", "fraction in lowest terms"),
    (r"\bsimplest radical form\b", "simplified radical form"),
    (r"\bthe value of\b", "the value for"),
    (r"\bdistinct\b", "different"),
    (r"\bsatisfies\b", "meets"),
    (r"\bsatisfy\b", "meet"),
    (r"\bthe sum of\b", "the total of"),
    (r"\bthe product of\b", "the result of multiplying"),
    (r"\bdigits\b", "digit places"),
    (r"\bshown\b", "pictured"),
    (r"\bwhere\b", "with"),
    (r"\bdegrees\b", "degrees of arc"),
]
PREAMBLES = [
    "### Instruction:\nSolve the following math problem.\n\n### Input:\n{0}\n\n### Response:",
    "Q: {0}\nA:",
    "<problem>\n{0}\n</problem>",
    "[Topic: {1}] {0}",
    "Exercise {2}. {0}",
    "User: {0}\nAssistant: Let me solve this.",
    "Problem statement: {0} (Source: practice set)",
]


def _keep_case(found: str, new: str) -> str:
    return new[0].upper() + new[1:] if found[:1].isupper() else new[0].lower() + new[1:]


def change_numbers(text: str, rng: random.Random) -> str:
    """One number (sometimes two) changed by a small step; a text without numbers gets one added."""
    spots = list(_NUM.finditer(text))
    if not spots:
        return text.rstrip(".") + ", where the constant is 3."
    chosen = {rng.choice(spots).start()}
    if len(spots) > 3 and rng.random() < 0.4:
        chosen.add(rng.choice(spots).start())
    out, last = [], 0
    for m in spots:
        if m.start() in chosen:
            v = int(m.group(1))
            new = v + rng.choice([1, 2, 5]) if v < 10 else v + rng.choice([-2, -1, 1, 3, 10])
            out += [text[last : m.start()], str(max(new, 1))]
            last = m.end()
    return "".join(out) + text[last:]


def add_sentence(text: str, rng: random.Random) -> str:
    if rng.random() < 0.4:
        return f"{rng.choice(OPENERS)} {text}"
    return f"{text} {rng.choice(CLOSERS)}"


def _split_last(text: str) -> tuple[str, str]:
    """(everything before the last sentence, the last sentence): a sentence ends at . or ? (a
    closing $ may follow) before white space and a capital letter."""
    ends = list(re.finditer(r"[.?]\$?\s+(?=[A-Z\\$])", text))
    if not ends:
        return "", text.strip()
    cut = ends[-1].end()
    return text[:cut].strip(), text[cut:].strip()


def reword(text: str, rng: random.Random) -> str:
    head, last = _split_last(text)
    new_last = last
    for pattern, forms in RESTATE:
        m = re.match(pattern, last, flags=re.S)
        if not m:
            continue
        if forms is None:  # If A, find B. -> Find B, given that A.
            verb_rest = (m.group(2) + m.group(3)).rstrip(".?")
            ask = _keep_case("X", verb_rest)
            new_last = f"{ask}, given that {m.group(1)}" + ("?" if last.endswith("?") else ".")
        else:
            new_last = rng.choice(forms).format(*m.groups())
        break
    out = f"{head} {new_last}".strip() if head else new_last
    out = re.sub(r"^Let (\$[^$]+\$) be\b", lambda mm: f"Suppose {mm.group(1)} is", out)
    for pattern, repl in SYNONYMS:
        if rng.random() < 0.8:
            out = re.sub(pattern, lambda mm, r=repl: _keep_case(mm.group(0), r), out)
    if out == text:  # nothing applied: restate as a request
        out = f"Please answer this: {text[0].lower()}{text[1:]}"
    return out


def _ascii_math(text: str) -> str:
    out = re.sub(r"\\[dt]?frac\{([^{}]*)\}\{([^{}]*)\}", r"(\1)/(\2)", text)
    out = re.sub(r"\\sqrt\{([^{}]*)\}", r"sqrt(\1)", out)
    out = re.sub(r"\\(cdot|times)", "*", out)
    out = re.sub(r"\\(le|leq)\b", "<=", out)
    out = re.sub(r"\\(ge|geq)\b", ">=", out)
    out = re.sub(r"\\pi\b", "pi", out)
    out = re.sub(r"\\(left|right)", "", out)
    out = re.sub(r"\^\{([^{}]*)\}", r"^(\1)", out)
    out = re.sub(r"\\text\{([^{}]*)\}", r"\1", out)
    return out.replace("$", "")


def other_markup(text: str, rng: random.Random) -> str:
    style = rng.choice(["display", "ascii", "tfrac_left", "spaced"])
    if style == "display" and "$" in text:
        return re.sub(
            r"\$([^$]+)\$", lambda m: rng.choice([r"\[" + m.group(1) + r"\]", "$$" + m.group(1) + "$$"]), text
        )
    if style == "tfrac_left" and ("\\frac" in text or "(" in text):
        out = text.replace("\\frac", "\\tfrac").replace("\\dfrac", "\\tfrac")
        return re.sub(r"(?<!\\left)(?<!\\)\(([^()$]*)\)", r"\\left(\1\\right)", out)
    if style == "spaced" and "$" in text:
        return re.sub(
            r"\$([^$]+)\$", lambda m: "$ " + re.sub(r"([=+\-<>])", r" \1 ", m.group(1)) + " $", text
        )
    if "$" not in text:  # plain text: numbers put in math mode, as a LaTeX-minded copier would
        return re.sub(r"(?<![\w.])(\d+(?:\.\d+)?)(?![\d.]\d)", lambda m: f"${m.group(1)}$", text)
    ascii_text = _ascii_math(text)
    return ascii_text if ascii_text != text else text.replace("$", "\\(", 1).replace("$", "\\)", 1)


def as_copied(text: str, subject: str, number: int, rng: random.Random) -> str:
    body = text
    r = rng.random()
    if r < 0.35:
        body = other_markup(body, rng)
    elif r < 0.55:
        body = change_numbers(body, rng)
    return rng.choice(PREAMBLES).format(body, subject, number)


def choose_items(seed: int = SEED) -> list[dict]:
    from mathdata.benchmarks import item_key, load_benchmark

    used = {json.loads(line)["item"] for line in V1.read_text(encoding="utf-8").splitlines() if line.strip()}
    rows = [r for r in load_benchmark("math500").to_pylist() if f"math500:{item_key(r)}" not in used]
    short = [r for r in rows if len(r["original_problem"]) < SHORT_CHARS]
    long = [r for r in rows if len(r["original_problem"]) >= SHORT_CHARS]
    rng = random.Random(seed)
    return rng.sample(short, N_SHORT) + rng.sample(long, N_LONG)


def planted(seed: int = SEED) -> list[dict]:
    from mathdata.benchmarks import item_key

    rng = random.Random(seed + 1)
    out = []
    for number, r in enumerate(choose_items(seed), 1):
        text = r["original_problem"]
        subject = (r.get("transform_detail") or r.get("competition") or "math").split(":")[0]
        edits = {
            "number": lambda t: change_numbers(t, rng),
            "sentence": lambda t: add_sentence(t, rng),
            "reworded": lambda t: reword(t, rng),
            "latex": lambda t: other_markup(t, rng),
            "copy": lambda t, k=number, s=subject: as_copied(t, s, k, rng),
        }
        for kind in KINDS:
            copy = text
            for _ in range(8):  # every copy differs from the item
                copy = edits[kind](text)
                if copy != text:
                    break
            out.append(
                {
                    "item": f"math500:{item_key(r)}",
                    "benchmark": "math500",
                    "kind": kind,
                    "short": len(text) < SHORT_CHARS,
                    "text": copy,
                }
            )
    return out


def main() -> int:
    rows = planted()
    OUT.parent.mkdir(parents=True, exist_ok=True)
    OUT.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), encoding="utf-8")
    n_short = sum(r["short"] for r in rows) // len(KINDS)
    print(
        f"wrote {OUT}: {len(rows)} copies of {len(rows) // len(KINDS)} problems ({n_short} under {SHORT_CHARS} chars)"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
