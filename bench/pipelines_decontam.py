"""Decontamination recall on re-typed benchmark copies, and false hits on clean problems.

Every item of the bundled evaluation sets (AIME 2024/2025, AMC 2023, MATH-500: 600 items) is
planted four times in a training table, re-typed the way copies turn up in other datasets:

- `plain`: LaTeX stripped to plain text (`\\frac{3}{4}` -> `3/4`, `\\sqrt{2}` -> `sqrt(2)`, no `$`);
- `options`: five answer options inlined after the statement, AMC style;
- `spelled`: numbers up to 100 written in words ("twelve", "forty-two");
- `all`: the three together.

Clean problems are the real sources under data/sources/ (OlympiadBench, GSM8K, ASDiv, SVAMP,
CARP): none of them is a copy of the bundled sets, so every hit on them is a false hit. Each
carries the statement the integer rules rewrite it to as `problem` (a build checks both), so an
answer-format sentence the rules append cannot pass for contamination.
The same script measures any checkout: `PYTHONPATH=<checkout> python bench/pipelines_decontam.py`.

`--paraphrased` measures the paraphrased copies of bench/data/decontam_paraphrased.jsonl (issue 21:
changed numbers, added sentences, rewordings, other markup, copies as found in other sets; made
by bench/decontam_paraphrases.py before any tuning) per half: the fuzzy layer's settings were
chosen on the `tune` half only; the `heldout` half was the measurement (the short-item layer was
then chosen on both halves). `--planted bench/data/decontam_paraphrased_v2.jsonl` measures the second
set (bench/decontam_paraphrases_v2.py), written before the short-item layer.
`--planted bench/data/decontam_paraphrased_v3.jsonl` measures the third set: 280 copies of 70
items in 4 kinds (number, reworded, context, mixed) and 60 near-miss negatives, hand-written by a
writer who never saw the code (notes: bench/data/decontam_paraphrased_v3.md); a copy must be
marked contaminated by the benchmark it came from, a negative must stay kept. `--layers` compares the
word n-grams alone (before issue 21) with all layers, on the same rows.

    .venv/bin/python bench/pipelines_decontam.py [--json out.json]
    .venv/bin/python bench/pipelines_decontam.py --paraphrased --clean-dir ../shared/data/sources
"""

from __future__ import annotations

import argparse
import json
import random
import re
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
# bench/ holds files named like the packages: keep it off the import path
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != ROOT / "bench"]

from verifiers.normalize import NUMBER_WORDS, TENS_WORDS  # noqa: E402

SOURCES = ROOT / "data" / "sources"
CLEAN = {"olympiadbench.jsonl": "question", "gsm8k_test.jsonl": "question"}
# more clean sets when a folder holding them is given (--clean-dir, e.g. the shared data/sources)
EXTRA_CLEAN = {
    "qwen_eval_asdiv.jsonl": "question",
    "qwen_eval_svamp.jsonl": "Question",
    "qwen_eval_carp_en.jsonl": "content",
    "qwen_eval_mawps.jsonl": "input",
    "scibench.jsonl": "problem_text",
    "qwen_eval_cmath.jsonl": "question",
    "qwen_eval_gaokao_math_cloze.jsonl": "question",
    "qwen_eval_gaokao2024_mix.jsonl": "question",
    "qwen_eval_cn_middle_school.jsonl": "question",
}
PARAPHRASED = ROOT / "bench" / "data" / "decontam_paraphrased.jsonl"
_ONES = NUMBER_WORDS
_TENS = {d: w for w, d in TENS_WORDS.items()}


def words(n: int) -> str:
    if n < 20:
        return _ONES[n]
    if n < 100:
        t, u = divmod(n, 10)
        return _TENS[t] + (f"-{_ONES[u]}" if u else "")
    return "one hundred" if n == 100 else str(n)


def _unbrace(text: str, command: str, fmt) -> str:
    """Replace `\\command{a}{b}` (one brace level) using fmt(a, b) until none is left."""
    pat = re.compile(r"\\" + command + r"\s*\{([^{}]*)\}\s*\{([^{}]*)\}")
    for _ in range(6):
        new = pat.sub(lambda m: fmt(m.group(1), m.group(2)), text)
        if new == text:
            break
        text = new
    return text


def strip_latex(text: str) -> str:
    """The statement as someone would type it without LaTeX."""
    t = re.sub(r"\\[dt]frac", r"\\frac", text)
    t = re.sub(r"\\begin\{[pbv]?matrix\}", "[", t)
    t = re.sub(r"\\end\{[pbv]?matrix\}", "]", t)
    t = re.sub(r"\\(begin|end)\{[a-z*]+\}", " ", t)
    t = t.replace("\\\\", "; ").replace("&", ",").replace("\\|", "||")
    t = re.sub(r"\\pmod\s*\{([^{}]*)\}", r"(mod \1)", t)
    t = re.sub(r"\\(overline|overrightarrow|vec|mathbf|bold|boldsymbol|bar|hat)\s*\{([^{}]*)\}", r"\2", t)
    for _ in range(4):
        t = re.sub(r"\\sqrt\s*\{([^{}]*)\}", r"sqrt(\1)", t)
    t = _unbrace(t, "frac", lambda a, b: f"({a})/({b})" if len(a) > 1 or len(b) > 1 else f"{a}/{b}")
    t = re.sub(r"\\frac\s*(\w)\s*(\w)", r"\1/\2", t)  # \frac12, \frac x2
    t = re.sub(r"\\(text|textbf|mathrm|mathbf|operatorname|mbox)\s*\{([^{}]*)\}", r"\2", t)
    t = re.sub(r"\^\{([^{}]*)\}", r"^\1", t)
    t = re.sub(r"_\{([^{}]*)\}", r"_\1", t)
    repl = {
        r"\cdot": "*",
        r"\times": "x",
        r"\le": "<=",
        r"\leq": "<=",
        r"\ge": ">=",
        r"\geq": ">=",
        r"\neq": "!=",
        r"\pi": "pi",
        r"\infty": "infinity",
        r"\ldots": "...",
        r"\dots": "...",
        r"\cdots": "...",
        r"\div": "/",
        r"\equiv": "==",
    }
    for k in sorted(repl, key=len, reverse=True):
        t = re.sub(re.escape(k) + r"(?![A-Za-z])", repl[k], t)
    t = re.sub(r"\\left|\\right|\\[,;:!]|\\quad|\\qquad|\\displaystyle|\\\[|\\\]|\\\(|\\\)|\$", " ", t)
    t = re.sub(r"\\([A-Za-z]+)", r" \1 ", t)  # any other command: its name, as a word
    t = t.replace("{", " ").replace("}", " ")
    return re.sub(r"[ \t]+", " ", t).strip()


def inline_options(text: str, answer: str, rng: random.Random) -> str:
    """Five AMC-style options on the statement's last line, the key among them."""
    try:
        k = int(float(answer))
        opts = sorted({k, k + 1, k + 2, max(0, k - 1), k * 2 + 3})
        while len(opts) < 5:
            opts.append(opts[-1] + 7)
        opts = [str(o) for o in opts[:5]]
    except (TypeError, ValueError):
        opts = [answer or "0", "1", "2", "3", "4"]
    rng.shuffle(opts)
    body = r"\qquad ".join(rf"\textbf{{({L})}}\ {o}" for L, o in zip("ABCDE", opts, strict=True))
    return f"{text}\n\n${body}$"


def spell_numbers(text: str) -> str:
    return re.sub(
        r"(?<![\d.\\^_{])\b(\d{1,3})\b(?![\d.])",
        lambda m: words(int(m.group(1))) if int(m.group(1)) <= 100 else m.group(1),
        text,
    )


VARIANTS = {
    "plain": lambda t, a, rng: strip_latex(t),
    "options": lambda t, a, rng: inline_options(t, a, rng),
    "spelled": lambda t, a, rng: spell_numbers(t),
    "all": lambda t, a, rng: inline_options(spell_numbers(strip_latex(t)), a, rng),
}


def planted_rows(seed: int = 0) -> tuple[list[dict], list[str]]:
    """(records, expected item key per record) for every bundled item x every variant."""
    from mathdata.benchmarks import item_key, list_benchmarks, load_benchmark
    from mathdata.schema import new_record

    rng = random.Random(seed)
    rows, expect = [], []
    for name in list_benchmarks():
        for r in load_benchmark(name).to_pylist():
            key = f"{name}:{item_key(r)}"
            for variant, f in VARIANTS.items():
                text = f(r["original_problem"], r.get("original_answer"), rng)
                rows.append(
                    new_record(
                        source=f"planted:{variant}", original_problem=text, source_key=f"{key}:{variant}"
                    )
                )
                expect.append(key)
    return rows, expect


def source_answer(row: dict) -> str | None:
    """A clean source row's answer as written (each file names it differently; GSM8K's after ####)."""
    for field in ("final_answer", "answer_number", "answer", "Answer", "target"):
        a = row.get(field)
        if isinstance(a, list):
            a = a[0] if len(a) == 1 else None
        if a is not None and str(a).strip():
            return str(a).split("####")[-1].strip()
    return None


def _rewritten(question: str, row: dict) -> str | None:
    """The statement as the integer rules rewrite it (a build checks this column too), if they do."""
    from pipelines.rules import Rewrite, apply_rules

    answer = row.get("final_answer", row.get("answer"))
    if isinstance(answer, list):
        answer = answer[0] if len(answer) == 1 else None
    if not isinstance(answer, str | int | float) or "####" in str(answer):
        return None
    out = apply_rules(question, str(answer))
    return out.problem if isinstance(out, Rewrite) and out.problem != question else None


def clean_rows(extra_dir: Path | None = None, *, answers: bool = True) -> list[dict]:
    """The clean problems as records, with their answers as written (`answers`: the semantic
    layer's answer rule reads them)."""
    from mathdata.schema import new_record

    rows = []
    files = [(SOURCES / f, k) for f, k in CLEAN.items()]
    if extra_dir is not None:
        files += [(extra_dir / f, k) for f, k in EXTRA_CLEAN.items() if (extra_dir / f).exists()]
    for path, field in files:
        file = path.name
        for i, line in enumerate(path.read_text(encoding="utf-8").splitlines()):
            if line.strip():
                row = json.loads(line)
                q = row.get(field)
                if isinstance(q, str) and q.strip():
                    rows.append(
                        new_record(
                            source=f"clean:{file}",
                            original_problem=q,
                            original_answer=source_answer(row) if answers else None,
                            problem=_rewritten(q, row),
                            source_key=f"{file}#{i}",
                        )
                    )
    return rows


def measure(seed: int = 0, extra_clean: Path | None = None, *, semantic: bool = False) -> dict:
    from mathdata.decontam import decontaminate
    from mathdata.schema import to_table

    planted, expect = planted_rows(seed)
    clean = clean_rows(extra_clean)
    t0, cpu0 = time.perf_counter(), time.process_time()
    table, report = decontaminate(to_table(planted + clean), semantic=semantic)
    seconds, cpu = time.perf_counter() - t0, time.process_time() - cpu0
    status = table.column("status").to_pylist()
    per_variant: dict = {}
    missed = []
    for row, want, st in zip(planted, expect, status[: len(planted)], strict=True):
        v = row["source"].split(":", 1)[1]
        c = per_variant.setdefault(v, {"planted": 0, "caught": 0, "caught_right_item": 0})
        c["planted"] += 1
        if st.startswith("contaminated:"):
            c["caught"] += 1
            c["caught_right_item"] += st == f"contaminated:{want}"
        else:
            missed.append({"item": want, "variant": v, "text": row["original_problem"][:160]})
    false_hits = [
        {"source": r["source"], "status": st, "text": r["original_problem"][:120]}
        for r, st in zip(clean, status[len(planted) :], strict=True)
        if st != "kept"
    ]
    caught = sum(c["caught"] for c in per_variant.values())
    return {
        "planted": len(planted),
        "recall": round(caught / len(planted), 4),
        "per_variant": per_variant,
        "clean": len(clean),
        "false_hits": len(false_hits),
        "false_hit_rows": false_hits,
        "missed": missed,
        "semantic": semantic,
        "by_method": report["by_method"],
        "seconds": round(seconds, 2),
        "cpu_seconds": round(cpu, 2),
    }


NEGATIVE_KINDS = ("negative", "near_miss", "near-miss", "other_question", "new_numbers")


def read_negative_answers(path: Path) -> dict:
    """`id` -> answer of the planted negatives, from a JSON Lines file of {id, answer} written by someone who
    solved them (no answer: null, left without one)."""
    out = {}
    for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if line.strip():
            row = json.loads(line)
            if "id" not in row or "answer" not in row:
                raise ValueError(f"{path}:{n}: a row needs `id` and `answer` (null for none)")
            out[row["id"]] = row["answer"]
    return out


def read_planted(path: Path, negative_answers: dict | None = None) -> tuple[list[dict], list[dict]]:
    """(copies, negatives) of a planted file, each {item, kind, text, half[, short]}.

    Three layouts: v1/v2 rows {item, benchmark, kind, text}; the dev near-miss rows (kind
    `other_question` / `new_numbers`: not copies); the v3 hand-written rows {id, kind, benchmark,
    source_id, original, copy}, whose near-miss negatives carry a negative kind. `item` is
    `<benchmark>:<item key>` where the row names one; a v3 copy counts as caught when it is marked
    contaminated by the benchmark it came from."""
    copies, negatives = [], []
    by_text: dict | None = None
    answers: dict | None = None
    for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if not line.strip():
            continue
        row = json.loads(line)
        text = row.get("text", row.get("copy"))
        if not isinstance(text, str) or not text.strip():
            raise ValueError(f"{path}:{n}: no copy text (field `text` or `copy`)")
        kind = str(row.get("kind", ""))
        bench = row.get("benchmark") or str(row.get("item", "")).split(":", 1)[0]
        bench = bench.removesuffix(".jsonl")
        item = row.get("item")
        if item is None and row.get("original"):  # v3: the item whose text the copy was made from
            by_text = by_text if by_text is not None else _items_by_text()
            item = by_text.get((bench, row["original"].strip()), f"{bench}:?{row.get('source_id')}")
        out = {"item": item, "benchmark": bench, "kind": kind, "text": text, "half": row.get("half", "all")}
        if kind in ANSWER_KEEPING and "number changed" not in str(row.get("note", "")):
            answers = answers if answers is not None else _item_answers()
            out["answer"] = answers.get(item)
        if "short" in row:
            out["short"] = row["short"]
        is_negative = row.get("negative") is True or row.get("is_copy") is False
        if is_negative or kind.lower() in NEGATIVE_KINDS:  # its solved answer: the file's own (v7), or given
            solved = (negative_answers or {}).get(row.get("id"), row.get("answer"))
            if solved:
                out["answer"] = str(solved)
        (negatives if is_negative or kind.lower() in NEGATIVE_KINDS else copies).append(out)
    return copies, negatives


# planted kinds whose copy keeps its item's answer, by the writers' instructions (a `mixed` copy
# whose note says a number changed does not; `number` copies never do; negatives have none)
ANSWER_KEEPING = {"reworded", "context", "mixed", "sentence", "latex", "copy"}


def _item_answers() -> dict:
    """`benchmark:item key` -> the item's answer as written, over the bundled sets."""
    from mathdata.benchmarks import item_key, list_benchmarks, load_benchmark

    return {
        f"{name}:{item_key(r)}": r["original_answer"]
        for name in list_benchmarks()
        for r in load_benchmark(name).to_pylist()
    }


def _items_by_text() -> dict:
    """(benchmark, problem text) -> `benchmark:item key` over the bundled sets (v3 names an item by
    its row in the shared files, whose ids are not the bundled keys; the text is verbatim)."""
    from mathdata.benchmarks import item_key, list_benchmarks, load_benchmark

    return {
        (name, r["original_problem"].strip()): f"{name}:{item_key(r)}"
        for name in list_benchmarks()
        for r in load_benchmark(name).to_pylist()
    }


def measure_paraphrased(
    extra_clean: Path | None = None,
    *,
    fuzzy: bool = True,
    planted_file: Path = PARAPHRASED,
    semantic: bool = False,
    judge=None,
    judge_from: float | None = None,
    answers: bool = True,
    negative_answers: dict | None = None,
    clean: bool = True,
) -> dict:
    """Recall per half and edit kind on the planted paraphrased copies, false hits on clean rows
    and on the file's near-miss negatives. A file without halves (v2, v3) is one half, `all`; v2
    is also split into short/long items. A copy counts as caught when marked contaminated by its
    own benchmark (`right_item`: by its own item). `answers`: the rows carry their answers (copies
    that keep their item's, clean problems their own), so the semantic layer's answer rule can
    fire; `by_answer` counts the copies only it caught (the recall without it is recall minus
    those: the rule only decides rows no other layer hit). `negative_answers` (id -> answer): the
    negatives carry them, so the answer rule can flag a near miss that shares its item's answer.
    `clean=False` leaves the clean problems out (a row's verdict depends on that row alone)."""
    from mathdata.decontam import decontaminate
    from mathdata.schema import new_record, to_table

    copies, negatives = read_planted(planted_file, negative_answers)
    planted = [
        new_record(
            source=f"planted:{c['kind']}",
            original_problem=c["text"],
            original_answer=c.get("answer") if answers else None,
            source_key=f"{c['item']}:{c['kind']}#{i}",
        )
        for i, c in enumerate(copies + negatives)
    ]
    clean = clean_rows(extra_clean, answers=answers) if clean else []
    t0, cpu0 = time.perf_counter(), time.process_time()
    table, report = decontaminate(to_table(planted + clean), fuzzy=fuzzy, semantic=semantic, judge=judge,
                                  judge_from=judge_from)  # fmt: skip
    seconds, cpu = time.perf_counter() - t0, time.process_time() - cpu0
    status = table.column("status").to_pylist()
    negative_status = status[len(copies) : len(planted)]
    status = status[: len(copies)] + status[len(planted) :]
    halves: dict = {}
    missed = []
    method = {h["id"]: h["method"] for h in report["hits"]}
    for c, r, st in zip(copies, planted[: len(copies)], status[: len(copies)], strict=True):
        h = halves.setdefault(c["half"], {"planted": 0, "caught": 0, "right_item": 0, "by_kind": {}})
        k = h["by_kind"].setdefault(c["kind"], [0, 0])
        h["planted"] += 1
        k[1] += 1
        if st.startswith(f"contaminated:{c['benchmark']}:"):
            h["caught"] += 1
            k[0] += 1
            h["right_item"] += st == f"contaminated:{c['item']}"
            if method.get(r["id"]) == "answer":
                by_answer = h.setdefault("by_answer", {})
                by_answer[c["kind"]] = by_answer.get(c["kind"], 0) + 1
        if "short" in c:  # v2: items under 200 characters apart
            n = h.setdefault("by_length", {}).setdefault("short" if c["short"] else "long", [0, 0])
            n[0] += st.startswith("contaminated:")
            n[1] += 1
        if not st.startswith(f"contaminated:{c['benchmark']}:"):
            missed.append(
                {
                    "half": c["half"],
                    "kind": c["kind"],
                    "item": c["item"],
                    "status": st,
                    "text": c["text"][:200],
                }
            )
    judged = {b["id"] for b in report.get("borderline", [])}
    for c, r in zip(copies, planted[: len(copies)], strict=True):
        if r["id"] in judged:
            halves[c["half"]]["borderline"] = halves[c["half"]].get("borderline", 0) + 1
    for h in halves.values():
        h["recall"] = round(h["caught"] / h["planted"], 4)
        # what a judge that answers every borderline pair right would add (an upper bound)
        h["recall_with_perfect_judge"] = round((h["caught"] + h.get("borderline", 0)) / h["planted"], 4)
    false_hits = [
        {"source": r["source"], "status": st, "text": r["original_problem"][:120]}
        for r, st in zip(clean, status[len(copies) :], strict=True)
        if st != "kept"
    ]
    negative_by_kind: dict = {}
    negative_hits = []
    for c, r, st in zip(negatives, planted[len(copies) :], negative_status, strict=True):
        k = negative_by_kind.setdefault(c["kind"], [0, 0])
        k[1] += 1
        if st != "kept":
            k[0] += 1
            negative_hits.append(
                {
                    "kind": c["kind"],
                    "item": c["item"],
                    "status": st,
                    "method": method.get(r["id"]),
                    "answer": c.get("answer"),
                    "text": c["text"][:200],
                }
            )
    judge_hits = {h["id"] for h in report["hits"] if h["method"] == "judge"}
    groups = {"copies": planted[: len(copies)], "negatives": planted[len(copies) :], "clean": clean}
    judge_yes = {g: sum(r["id"] in judge_hits for r in rows) for g, rows in groups.items()}
    by_source: dict = {}
    for r in clean:
        by_source[r["source"]] = by_source.get(r["source"], 0) + 1
    return {
        "planted_file": str(
            planted_file.relative_to(ROOT) if planted_file.is_relative_to(ROOT) else planted_file
        ),
        "fuzzy": fuzzy,
        "semantic": report.get("semantic"),
        "settings": report.get("fuzzy"),
        "halves": halves,
        "clean": len(clean),
        "clean_by_source": by_source,
        "false_hits": len(false_hits),
        "false_hit_rows": false_hits,
        "negatives": len(negatives),
        "negatives_flagged": len(negative_hits),
        "negatives_flagged_by_kind": negative_by_kind,
        "negative_hit_rows": negative_hits,
        "borderline_on_clean": sum(b["id"] in {r["id"] for r in clean} for b in report.get("borderline", [])),
        "missed": missed,
        "by_method": report["by_method"],
        "answers": answers,
        "negatives_flagged_if_they_shared_the_answer": (
            negatives_answer_bound(negatives) if answers and semantic and negatives else None
        ),
        "judge_yes": judge_yes if judge is not None else None,
        "seconds": round(seconds, 2),
        "cpu_seconds": round(cpu, 2),
    }


def negatives_answer_bound(negatives: list[dict]) -> int:
    """Negatives the answer rule would flag if each had its nearest item's answer (the planted
    negatives have no answers: an upper bound of what the rule could do to them)."""
    from mathdata.decontam import build_index, decontaminate
    from mathdata.decontam_semantic import load_encoder, nearest
    from mathdata.schema import new_record, to_table

    sem = build_index(semantic=True).semantic
    _, top = nearest(load_encoder()([c["text"] for c in negatives]), sem["emb"])
    rows = [
        new_record(
            source="negative",
            original_problem=c["text"],
            original_answer=sem["answers"][r][0],
            source_key=f"neg#{i}",
        )  # fmt: skip
        for i, (c, r) in enumerate(zip(negatives, top.tolist(), strict=True))
    ]
    _, report = decontaminate(to_table(rows), semantic=True)
    return report["by_method"].get("answer", 0)


def _print_paraphrased(res: dict) -> None:
    label = "all layers" if res["fuzzy"] else "word n-grams only (before issue 21)"
    label += " + semantic" if res.get("semantic") else ""
    print(
        f"{label}: false hits {res['false_hits']} of {res['clean']} clean problems; {res['seconds']} s "
        f"({res['cpu_seconds']} CPU s); hits by method {res['by_method']}"
    )
    if res["negatives"]:
        kinds = ", ".join(f"{k} {c}/{n}" for k, (c, n) in res["negatives_flagged_by_kind"].items())
        print(f"  near-miss negatives flagged {res['negatives_flagged']} of {res['negatives']} ({kinds})")
    for half, h in res["halves"].items():
        kinds = ", ".join(f"{k} {c}/{n}" for k, (c, n) in h["by_kind"].items())
        print(f"  {half:<8} recall {h['recall']:.4f} ({h['caught']}/{h['planted']}; {kinds})")
        if h.get("by_answer"):
            n = sum(h["by_answer"].values())
            print(f"           of them by the answer rule only: {n} {h['by_answer']} (without it "
                  f"{(h['caught'] - n) / h['planted']:.4f})")  # fmt: skip
        if "by_length" in h:
            print("           " + ", ".join(f"{k} items {c}/{n}" for k, (c, n) in h["by_length"].items()))
        if res["fuzzy"]:
            print(
                f"           borderline (for a judge) {h.get('borderline', 0)}: recall with a perfect judge "
                f"{h['recall_with_perfect_judge']:.4f}"
            )
    if res["fuzzy"]:
        print(
            f"  clean problems with a borderline pair (judge calls on clean data): {res['borderline_on_clean']}"
        )
    if res.get("negatives_flagged_if_they_shared_the_answer") is not None:
        print(f"  negatives the answer rule would flag if each had its nearest item's answer: "
              f"{res['negatives_flagged_if_they_shared_the_answer']}")  # fmt: skip
    if res.get("judge_yes") is not None:
        j = res["judge_yes"]
        print(
            f"  judge said YES on {j['copies']} copies, {j['negatives']} negatives, {j['clean']} clean problems"
            f" ({res['judge_usage']})"
        )


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--json", type=Path)
    ap.add_argument("--show", action="store_true", help="print missed copies and false hits")
    ap.add_argument("--clean-dir", type=Path, help="folder with more clean sets (ASDiv, SVAMP, CARP JSONL)")
    ap.add_argument("--paraphrased", action="store_true", help="the planted paraphrased copies, per half")
    ap.add_argument("--layers", action="store_true", help="with --paraphrased: also without the new layers")
    ap.add_argument(
        "--semantic", action="store_true", help="add the sentence-embedding layer (the [semantic] extra)"
    )
    ap.add_argument(
        "--planted",
        type=Path,
        default=PARAPHRASED,
        help="with --paraphrased: the planted file (e.g. the v2 set)",
    )
    ap.add_argument("--judge-endpoint", dest="judge_endpoint",
                    help="with --paraphrased: decide the borderline pairs with the LLM judge of "
                         "pipelines/decontam_judge.py through this OpenAI-compatible endpoint")  # fmt: skip
    ap.add_argument("--judge-model", dest="judge_model", help="the endpoint's model name")
    ap.add_argument("--judge-from", dest="judge_from", type=float,
                    help="with --semantic: the cosine from which a nearest item is a borderline pair (default 0.7)")  # fmt: skip
    ap.add_argument("--no-answers", dest="answers", action="store_false",
                    help="with --paraphrased: rows without their answers (the answer rule cannot fire)")  # fmt: skip
    ap.add_argument("--negative-answers", dest="negative_answers", type=Path,
                    help="with --paraphrased: JSON Lines {id, answer} solving the planted negatives")  # fmt: skip
    ap.add_argument("--no-clean", dest="clean", action="store_false",
                    help="with --paraphrased: the planted rows only (no false-hit count on clean problems)")  # fmt: skip
    ap.add_argument("--judge-cache", dest="judge_cache", type=Path, help="the judge's reply cache (resumes)")
    ap.add_argument("--judge-max-tokens", dest="judge_max_tokens", type=int, default=16,
                    help="per reply (the judge answers one word; a longer reply is read for YES/NO)")  # fmt: skip
    args = ap.parse_args(argv)
    if args.paraphrased:
        judge, client = None, None
        if args.judge_endpoint:
            from pipelines.decontam_judge import llm_judge
            from verifiers.llm import LLMClient, LLMSettings

            client = LLMClient(
                LLMSettings(base_url=args.judge_endpoint, model=args.judge_model, api_key="none", concurrency=1,
                            timeout_s=600, max_tokens=args.judge_max_tokens, temperature=0.0),
                cache_dir=args.judge_cache,
            )  # fmt: skip
            judge = llm_judge(client)
        out = {
            "all_layers": measure_paraphrased(
                args.clean_dir,
                planted_file=args.planted.resolve(),
                semantic=args.semantic,
                judge=judge,
                judge_from=args.judge_from,
                answers=args.answers,
                negative_answers=read_negative_answers(args.negative_answers)
                if args.negative_answers
                else None,
                clean=args.clean,
            )
        }
        if client is not None:
            out["all_layers"]["judge_usage"] = dict(client.usage)
            out["all_layers"]["judge_model"] = args.judge_model
        if args.layers:
            out["word_ngrams_only"] = measure_paraphrased(
                args.clean_dir, fuzzy=False, planted_file=args.planted.resolve()
            )
        for res in out.values():
            _print_paraphrased(res)
            if args.show:
                for m in res["missed"]:
                    print("MISSED", json.dumps(m, ensure_ascii=False))
                for h in res["false_hit_rows"]:
                    print("FALSE", json.dumps(h, ensure_ascii=False))
                for h in res["negative_hit_rows"]:
                    print("NEGATIVE FLAGGED", json.dumps(h, ensure_ascii=False))
        if args.json:
            args.json.write_text(json.dumps(out, indent=1, ensure_ascii=False))
        return 0
    res = measure(extra_clean=args.clean_dir, semantic=args.semantic)
    print(
        f"recall {res['recall']:.4f} on {res['planted']} planted re-typed copies; "
        f"false hits {res['false_hits']} of {res['clean']} clean problems; {res['seconds']} s "
        f"({res['cpu_seconds']} CPU s){' with the semantic layer' if res['semantic'] else ''}"
    )
    for v, c in res["per_variant"].items():
        print(
            f"  {v:<8} {c['caught']}/{c['planted']} caught ({c['caught_right_item']} naming the right item)"
        )
    if args.show:
        for m in res["missed"][:40]:
            print("MISSED", json.dumps(m, ensure_ascii=False))
        for h in res["false_hit_rows"]:
            print("FALSE", json.dumps(h, ensure_ascii=False))
    if args.json:
        args.json.write_text(json.dumps(res, indent=1, ensure_ascii=False))
    return 0


if __name__ == "__main__":
    sys.exit(main())
