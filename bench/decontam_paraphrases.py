"""The planted set of *paraphrased* benchmark copies (issue 21): written before any threshold was
tuned, split by problem into a tuning half and a held-out half.

150 benchmark problems (all 30 AIME 2024, all 30 AIME 2025, all 40 AMC 2023, 50 MATH-500 items
with at least 25 words: short MATH items are matched exactly, not fuzzily), each copied five
ways, the edits seen in copies in other public sets:

- `number`: one or two numbers changed (an exponent, a count, a length; 2024 -> 2025);
- `sentence`: a sentence added before, inside or after the statement (a story opener, an
  answer-format instruction, "put your final answer within \\boxed{}", a hint);
- `reworded`: the wording changed phrase by phrase (Find -> Determine, "the number of" -> "how
  many", "Let ... be" -> "Suppose ... is", ...) and the question moved to the front;
- `latex`: other markup (plain text, Unicode symbols, \\( \\) delimiters with \\dfrac and braces,
  a Markdown header and line breaks);
- `copy`: as a copy turns up in another dataset: a "Problem N." or contest header, other markup,
  sometimes a number changed, the closing question cut off, or answer options appended.

Each problem lands in half "tune" or "heldout" by a hash of its item key (its five copies stay
together), so no tuning decision sees a held-out problem in any form.

    PYTHONPATH=. .venv/bin/python bench/decontam_paraphrases.py   # rewrites bench/data/decontam_paraphrased.jsonl
"""

from __future__ import annotations

import hashlib
import json
import random
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != ROOT / "bench"]
OUT = ROOT / "bench" / "data" / "decontam_paraphrased.jsonl"
KINDS = ("number", "sentence", "reworded", "latex", "copy")
MATH500_ITEMS = 50
MIN_WORDS = 25

_NUMBER = re.compile(r"(?<![\w.])(\d+)(?![\d.]*\d*[a-zA-Z]{2})")

PREFIXES = [
    "In a recent mathematics competition, students were given the following problem.",
    "Solve the following problem.",
    "This question appeared on a practice test for a math olympiad.",
    "A teacher poses this question to her class.",
    "Consider the situation described below.",
    "Read the problem carefully before answering.",
    "The following is a challenging problem.",
]
SUFFIXES = [
    "Express your answer as an integer.",
    "Give your answer in simplest form.",
    "Justify your answer.",
    "Please reason step by step, and put your final answer within \\boxed{}.",
    "Note that the answer is an integer between 0 and 999, inclusive.",
    "Show all of your work.",
    "(Hint: consider small cases first.)",
    "Return your final response as 'Final Answer: \\boxed{<answer>}'.",
]
MIDDLES = [
    "Assume all quantities are exact.",
    "Think about this carefully.",
    "This is a well-known type of problem.",
]
# phrase -> rewordings, applied where they occur (case kept for the first letter)
REWORD = [
    (r"\bFind the number of\b", ["Determine how many", "Compute the number of", "How many are there of"]),
    (r"\bFind the sum of\b", ["Compute the sum of", "Determine the sum of", "What is the sum of"]),
    (r"\bFind\b", ["Determine", "Compute", "Calculate", "Work out"]),
    (r"\bWhat is the value of\b", ["Find the value of", "Compute", "Evaluate"]),
    (r"\bWhat is\b", ["Find", "Determine", "Compute"]),
    (r"\bHow many\b", ["What is the number of", "Find how many", "Determine how many"]),
    (r"\bLet\b", ["Suppose", "Assume", "Consider"]),
    (r"\bsuch that\b", ["so that", "with the property that", "for which"]),
    (r"\bpositive integers\b", ["positive whole numbers", "integers greater than zero"]),
    (r"\bpositive integer\b", ["positive whole number", "integer greater than zero"]),
    (r"\breal numbers\b", ["reals", "real values"]),
    (r"\brelatively prime\b", ["coprime"]),
    (r"\bthe probability that\b", ["the chance that", "the likelihood that"]),
    (r"\bthe remainder when\b", ["the residue when", "what remains when"]),
    (r"\bis divided by\b", ["is divided by", "is taken modulo"]),
    (r"\bequilateral triangle\b", ["triangle with all sides equal"]),
    (r"\bthere exist\b", ["there are", "one can find"]),
    (r"\bthere exists\b", ["there is", "one can find"]),
    (r"\bdistinct\b", ["different"]),
    (r"\bthe greatest\b", ["the largest", "the maximum"]),
    (r"\bthe least\b", ["the smallest", "the minimum"]),
    (r"\bsatisfy\b", ["fulfil", "obey"]),
    (r"\bsatisfies\b", ["fulfils", "obeys"]),
    (r"\bpoints\b", ["points"]),
    (r"\bwhere\b", ["in which", "where"]),
    (r"\bcan be written as\b", ["can be expressed as", "equals"]),
    (r"\bIf\b", ["Suppose", "Given that", "Assuming"]),
    (r"\bEach\b", ["Every"]),
    (r"\beach\b", ["every"]),
    (r"\bconsists of\b", ["is made up of", "contains"]),
    (r"\bCompute\b", ["Calculate", "Evaluate", "Find"]),
    (r"\bEnter\b", ["Give", "Write"]),
    (r"\bare removed from\b", ["are deleted from", "are taken out of"]),
    (r"\bintersect at\b", ["meet at", "cross at"]),
    (r"\bthe equation\b", ["the relation", "the formula"]),
    (r"\bis equal to\b", ["equals", "comes to"]),
    (r"\bthe diagram\b", ["the figure", "the picture"]),
    (r"\bis a factor of\b", ["divides", "is a divisor of"]),
    (r"\bin the form\b", ["in the shape", "as"]),
]
UNICODE = [
    (r"\\cdot\b", "·"),
    (r"\\times\b", "×"),
    (r"\\leq?\b", "≤"),
    (r"\\geq?\b", "≥"),
    (r"\\neq?\b", "≠"),
    (r"\\pi\b", "π"),
    (r"\\infty\b", "∞"),
    (r"\\angle\b", "∠"),
    (r"\\triangle\b", "△"),
    (r"\\circ\b", "°"),
    (r"\^2(?![\d])", "²"),
    (r"\^3(?![\d])", "³"),
    (r"\\sqrt\{([^{}]*)\}", r"√(\1)"),
    (r"\\d?frac\{([^{}]*)\}\{([^{}]*)\}", r"(\1)/(\2)"),
    (r"\$", ""),
]


def _half(key: str) -> str:
    return "tune" if int(hashlib.sha256(key.encode()).hexdigest(), 16) % 2 == 0 else "heldout"


def _sentences(text: str) -> list[str]:
    """Sentences split at '. ', '? ' outside math ($...$ may hold periods)."""
    parts, buf, in_math = [], "", False
    for i, ch in enumerate(text):
        buf += ch
        if ch == "$":
            in_math = not in_math
        if not in_math and ch in ".?" and (i + 1 == len(text) or text[i + 1] in " \n"):
            parts.append(buf.strip())
            buf = ""
    if buf.strip():
        parts.append(buf.strip())
    return parts


def change_numbers(text: str, rng: random.Random) -> str:
    """One or two numbers (an exponent first where there is one) changed to a nearby value."""
    spots = [m for m in _NUMBER.finditer(text)]
    if not spots:
        return text + " Use 7 in place of the given value."
    exps = [m for m in spots if m.start() > 0 and text[m.start() - 1] in "^{"]
    chosen = {(rng.choice(exps) if exps and rng.random() < 0.5 else rng.choice(spots)).start()}
    if len(spots) > 2 and rng.random() < 0.5:
        chosen.add(rng.choice(spots).start())
    out, last = [], 0
    for m in spots:
        if m.start() in chosen:
            v = int(m.group(1))
            new = v + rng.choice([1, 2, 3, -1]) if v > 3 else v + rng.choice([1, 2, 4])
            if v in (2023, 2024, 2025):
                new = v + rng.choice([1, 2, -1])
            out += [text[last : m.start()], str(max(new, 0))]
            last = m.end()
    return "".join(out) + text[last:]


def add_sentence(text: str, rng: random.Random) -> str:
    where = rng.choice(["before", "after", "after", "inside", "both"])
    if where == "before":
        return f"{rng.choice(PREFIXES)} {text}"
    if where == "after":
        return f"{text} {rng.choice(SUFFIXES)}"
    if where == "both":
        return f"{rng.choice(PREFIXES)} {text} {rng.choice(SUFFIXES)}"
    s = _sentences(text)
    if len(s) < 2:
        return f"{text} {rng.choice(MIDDLES)}"
    k = rng.randrange(1, len(s))
    return " ".join([*s[:k], rng.choice(MIDDLES), *s[k:]])


def reword(text: str, rng: random.Random) -> str:
    out = text
    for pattern, choices in REWORD:
        if rng.random() < 0.85:
            out = re.sub(pattern, lambda m, c=choices: _keep_case(m.group(0), rng.choice(c)), out, flags=re.I)
    s = _sentences(out)
    if len(s) >= 3 and re.match(r"(Determine|Compute|Calculate|Work out|Find|What|How)", s[-1]):
        q = s[-1].rstrip(".?")
        out = f"{q}, given the following. " + " ".join(s[:-1])
    return out


def _keep_case(found: str, new: str) -> str:
    return new[0].upper() + new[1:] if found[:1].isupper() else new[0].lower() + new[1:]


def _strip_latex(text: str) -> str:
    """bench/pipelines_decontam.py's re-typing without LaTeX (loaded by path: bench/ is off sys.path)."""
    import importlib.util

    spec = importlib.util.spec_from_file_location("_pd", ROOT / "bench" / "pipelines_decontam.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod.strip_latex(text)


def other_markup(text: str, rng: random.Random) -> str:
    style = rng.choice(["plain", "unicode", "delimiters", "markdown"])
    if style == "plain":
        return _strip_latex(text)
    if style == "unicode":
        out = text
        for pattern, repl in UNICODE:
            out = re.sub(pattern, repl, out)
        return out
    if style == "delimiters":
        out = re.sub(r"\$([^$]+)\$", r"\\(\1\\)", text)
        out = re.sub(r"\\frac", r"\\dfrac", out)
        out = re.sub(r"\^(\w)", r"^{\1}", out)
        return re.sub(r"\(", r"\\left(", out, count=1) if "\\(" not in out else out
    return "**Problem.**\n\n" + "\n".join(_sentences(text))


def as_copied(text: str, rng: random.Random, number: int) -> str:
    out = other_markup(text, rng) if rng.random() < 0.6 else text
    if rng.random() < 0.3:
        out = change_numbers(out, rng)
    s = _sentences(out)
    if len(s) >= 3 and rng.random() < 0.3:
        out = " ".join(s[:-1])  # the closing question cut off, as in some scraped copies
    if rng.random() < 0.3:
        opts = "   ".join(f"({c}) {v}" for c, v in zip("ABCDE", rng.sample(range(1, 999), 5), strict=True))
        out = f"{out}\n\n{opts}"
    header = rng.choice([f"Problem {number}. ", f"{number}. ", "Question: ", f"## Task {number}\n\n", ""])
    return header + out


def planted(seed: int = 21) -> list[dict]:
    from mathdata.benchmarks import item_key, list_benchmarks, load_benchmark

    rng = random.Random(seed)
    rows = []
    for name in list_benchmarks():
        items = load_benchmark(name).to_pylist()
        if name == "math500":
            long = [r for r in items if len(r["original_problem"].split()) >= MIN_WORDS]
            items = random.Random(seed).sample(long, MATH500_ITEMS)
        for number, r in enumerate(items, 1):
            key = f"{name}:{item_key(r)}"
            text = r["original_problem"]
            edits = {
                "number": lambda t: change_numbers(t, rng),
                "sentence": lambda t: add_sentence(t, rng),
                "reworded": lambda t: reword(t, rng),
                "latex": lambda t: other_markup(t, rng),
                "copy": lambda t, k=number: as_copied(t, rng, k),
            }
            copies = {}
            for kind, edit in edits.items():
                for _ in range(8):  # every copy differs from the item (markup a text lacks changes nothing)
                    copies[kind] = edit(text)
                    if copies[kind] != text:
                        break
            for kind in KINDS:
                rows.append(
                    {"item": key, "benchmark": name, "kind": kind, "half": _half(key), "text": copies[kind]}
                )
    return rows


def main() -> int:
    rows = planted()
    OUT.parent.mkdir(parents=True, exist_ok=True)
    OUT.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), encoding="utf-8")
    halves = {h: sum(r["half"] == h for r in rows) for h in ("tune", "heldout")}
    print(f"wrote {OUT}: {len(rows)} copies of {len(rows) // len(KINDS)} problems; {halves}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
