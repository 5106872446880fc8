"""The real-model suite's shared chores: where the models are, the small word-problem corpus, the RL config.

Used by tests/real_model/ and by hand for the figures in bench/results/real_model.md. The models come
from `bash scripts/real_model_setup.sh` (cache: $DAPO_CACHE, default ~/.cache/dapo-toolkit).

    python bench/real_model.py corpus OUT_DIR [--n 16]   # records + verl/train.parquet of short GSM8K problems
    python bench/real_model.py rewrite-set RULES_BUILD OUT_DIR [--olympiad 20] [--scibench 10]
        # the problems a rules-only build left `needs_llm`, as source-format JSONL + OUT_DIR/build.yaml
    python bench/real_model.py rewrite-report BUILD_OUT [--kept-out FILE]   # part 1 counts (+ kept rows)
    python bench/real_model.py judge EVAL_OUT... [--flips-out FILE]   # part 3: judge on rule negatives
        # (endpoint and model from OPENAI_BASE_URL / DAPO_JUDGE_MODEL; DAPO_JUDGE_CACHE, DAPO_JUDGE_TIMEOUT)
    python bench/real_model.py difficulty-set OUT_DIR   # OUT_DIR/build.yaml: difficulty on 25 MAWPS + 25 GSM8K
    python bench/real_model.py difficulty-report BUILD_OUT   # part 4: pass-rate histogram, seconds, tokens
    python bench/real_model.py dequantize GGUF OUT_DIR [--dtype bfloat16]
        # the GGUF as a plain save_pretrained directory (weights, tokenizer, chat template): what vLLM's
        # CPU engine can serve (vLLM 0.32 reads no GGUF itself; see real_model.md)
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
SMOL_FILE = "SmolLM2-135M-Instruct.Q4_1.gguf"
QWEN_FILE = "qwen2.5-coder-1.5b-instruct-q4_k_m.gguf"
GSM8K = REPO / "data" / "sources" / "gsm8k_test.jsonl"
if (
    str(REPO) not in sys.path[:1]
):  # run as a script, bench/ comes first and bench/mathdata.py shadows the package
    sys.path.insert(0, str(REPO))


def model_dir() -> Path:
    """The setup script's model folder ($DAPO_CACHE/models)."""
    return Path(os.environ.get("DAPO_CACHE", Path.home() / ".cache" / "dapo-toolkit")) / "models"


def model_file(name: str) -> Path:
    """A model the setup script joined and checked; a clear error with the fix when it is missing."""
    f = model_dir() / name
    if not (f.is_file() and (f.parent / (f.name + ".sha256-ok")).is_file()):
        raise FileNotFoundError(f"{f}: not set up (or not checked); run: bash scripts/real_model_setup.sh")
    return f


def gsm8k_solution(answer_field: str) -> tuple[str, str]:
    """(worked solution ending in an `Answer: N` line, N) from GSM8K's `... #### N` answer field;
    the <<calculator>> annotations are dropped, they are not part of the prose."""
    body, _, final = answer_field.rpartition("####")
    final = final.strip().replace(",", "")
    if not re.fullmatch(r"-?\d+", final):
        raise ValueError(f"GSM8K answer {final!r} is not an integer")
    body = re.sub(r"<<[^>]*>>", "", body).strip()
    return f"{body}\nAnswer: {final}", final


def short_word_problems(n: int, *, path: Path = GSM8K) -> list[dict]:
    """The `n` shortest GSM8K problems (by statement length: the cheapest to roll out on a CPU), as
    records with their worked solutions, split train."""
    from mathdata.schema import new_record

    rows = [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
    rows.sort(key=lambda r: (len(r["question"]), r["question"]))
    out = []
    for r in rows[:n]:
        solution, answer = gsm8k_solution(r["answer"])
        q = r["question"].strip()
        out.append(new_record(source="gsm8k", original_problem=q, problem=q, answer=answer, solution=solution,
                              split="train"))  # fmt: skip
    return out


def write_corpus(out: Path, n: int = 16) -> Path:
    """OUT/records (the store `dapo sft` reads) and OUT/verl/train.parquet (what `dapo train` reads)."""
    from mathdata.export import to_verl
    from mathdata.store import read_table, write_records

    out = Path(out)
    write_records(out / "records", short_word_problems(n))
    to_verl(read_table(out / "records"), out / "verl" / "train.parquet")
    return out / "verl" / "train.parquet"


# `dapo train` (dapo preset) on SmolLM2-135M: small on purpose (two CPU cores). Dynamic sampling
# stays on; when a few generation batches hold no informative group the step trains on those it has
# (on_max_gen_batches: train) rather than stopping the smoke run. SmolLM2 answers almost no GSM8K
# problem right, so filtering on correctness (DAPO's acc) can find no group at all (it did, on the
# fresh machine of 2026-11-27: 0 of 2 groups in 3 batches); groups are kept when their rewards differ
# (filter_metric: reward: the overlong shaping and the rare right answer separate samples).
RL_SETS = [
    "rollout.n=4",
    "rollout.max_new_tokens=64",
    "rollout.temperature=1.0",
    "data.max_prompt_len=256",
    "algo.max_gen_batches=3",
    "algo.on_max_gen_batches=train",
    "algo.filter_metric=reward",
    "algo.overlong_buffer=16",
    "optim.lr=1e-5",
    "optim.warmup_steps=1",
    "train.prompts_per_step=2",
    "train.gen_prompts=4",
    "train.mini_batch_size=8",
    "train.save_every=1",
    "train.threads=1",
    "train.seed=0",
]


def free_port() -> int:
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@contextlib.contextmanager
def llama_server(model: Path, *, alias: str, n_ctx: int = 4096, threads: int | None = None, log: Path | None = None,
                 python: str = sys.executable, ready_s: float = 600):  # fmt: skip
    """llama.cpp's OpenAI-compatible server on loopback for `model` (one request at a time); yields the
    base URL (http://127.0.0.1:PORT/v1) once /v1/models answers, and stops the server on exit."""
    import subprocess
    import time
    import urllib.request

    # One thread unless DAPO_LLAMA_THREADS says otherwise: on a loaded 2-core machine llama.cpp's two
    # threads spin-wait for each other (one greedy MATH request had not returned after 14 min with 2, see
    # bench/results/real_model.md); on an idle machine set DAPO_LLAMA_THREADS to the core count.
    threads = threads or int(os.environ.get("DAPO_LLAMA_THREADS", "1"))
    port = free_port()
    cmd = ["nice", "-n", "10", python, "-m", "llama_cpp.server", "--model", str(model), "--model_alias", alias,
           "--host", "127.0.0.1", "--port", str(port), "--n_ctx", str(n_ctx), "--n_threads", str(threads), "--n_threads_batch", str(threads)]  # fmt: skip
    sink = open(log, "w") if log else subprocess.DEVNULL  # noqa: SIM115 (closed below)
    proc = subprocess.Popen(cmd, stdout=sink, stderr=subprocess.STDOUT)
    url = f"http://127.0.0.1:{port}/v1"
    try:
        deadline = time.monotonic() + ready_s
        while True:
            if proc.poll() is not None:
                raise RuntimeError(f"llama_cpp.server exited {proc.returncode} before answering; see {log}")
            try:
                with urllib.request.urlopen(url + "/models", timeout=5) as r:
                    if r.status == 200:
                        break
            except OSError:
                pass
            if time.monotonic() > deadline:
                raise TimeoutError(f"llama_cpp.server did not answer on {url} within {ready_s:.0f} s")
            time.sleep(2)
        yield url
    finally:
        proc.terminate()
        try:
            proc.wait(30)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
        if log:
            sink.close()


def _shared_sources() -> Path:
    """../shared/data/sources beside the checkout (a clone, CI's), or two levels up (a worktree in
    /work/wt/NAME); DAPO_SHARED_SOURCES overrides."""
    if "DAPO_SHARED_SOURCES" in os.environ:
        return Path(os.environ["DAPO_SHARED_SOURCES"])
    for up in (REPO.parent, REPO.parent.parent):
        if (up / "shared" / "data" / "sources").is_dir():
            return up / "shared" / "data" / "sources"
    return REPO.parent / "shared" / "data" / "sources"


SOURCES = _shared_sources()
# (source file, the source's id column, record source name, needs_llm reasons that qualify)
REWRITE_SOURCES = {
    "olympiad": ("olympiadbench.jsonl", ("id", "question"), "import:olympiadbench",
                 ("expression in variables", "irrational form", "tuple", "interval", "equation or function")),
    "scibench": ("scibench.jsonl", ("problemid", "problem_text"), "import:scibench", ("decimal not proven exact",)),
}  # fmt: skip


def rule_misses(rules_build: Path, source: str, reasons: tuple[str, ...], n: int) -> list[tuple[str, str]]:
    """(source_ref, statement) of the `n` shortest records a rules-only build left `needs_llm` for one of `reasons`
    (shortest: the cheapest prompts on a CPU; a bias toward short statements, said in the results)."""
    from mathdata.store import read_table

    rows = [r for r in read_table(Path(rules_build) / "records").to_pylist()
            if r["source"] == source and str(r["status"]).startswith("needs_llm")
            and any(x in r["status"] for x in reasons)]  # fmt: skip
    rows.sort(key=lambda r: (len(r["original_problem"]), str(r["source_ref"])))
    return [(str(r["source_ref"]), r["original_problem"].strip()) for r in rows[:n]]


def write_rewrite_set(rules_build: Path, out: Path, counts: dict[str, int], llm: dict) -> Path:
    """OUT/<source>.jsonl (the chosen rows, verbatim) and OUT/build.yaml: the LLM rewrite + solver
    agreement build of issue 24 part 1 over them. Returns the config path."""

    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    sources = []
    for key, n in counts.items():
        fname, (id_col, text_col), name, reasons = REWRITE_SOURCES[key]
        refs = set(rule_misses(rules_build, name, reasons, n))  # (id, statement): SciBench repeats ids
        lines = [line for line in (SOURCES / fname).read_text().splitlines() if line.strip()
                 and (str(json.loads(line)[id_col]), str(json.loads(line)[text_col]).strip()) in refs]  # fmt: skip
        if len(lines) != len(refs):
            raise ValueError(f"{SOURCES / fname}: found {len(lines)} of the {len(refs)} rows chosen")
        (out / fname).write_text("\n".join(lines) + "\n")
        src = {"kind": "import", "name": name.split(":", 1)[1], "path": fname}
        if key == "scibench":
            src["mapping"] = {"original_problem": "problem_text", "original_answer": "answer_number",
                              "source_ref": "problemid"}  # fmt: skip
        sources.append(src)
    cfg = {
        "name": "real-model-rewrite",
        "description": "Rule misses (OlympiadBench expressions, SciBench decimals) through the LLM rewrite, "
        "checked by solver agreement from the same model.",
        "sources": sources,
        "llm": llm,
        "rewrite": {"rules": True, "llm": True},
        "validate": {
            "consistency": True,
            "solver": {"enabled": True, "k": REWRITE_SOLVER_K, "temperature": 0.7},
        },
    }
    return _write_build(out, cfg)


# one request at a time, explicit per-reply token bound, long timeouts: ~3 tokens/s on a shared CPU
REWRITE_LLM = {"concurrency": 1, "timeout_s": 1800, "max_retries": 1, "max_tokens": 384, "temperature": 0.0}
REWRITE_SOLVER_K = 2


def write_difficulty_config(out: Path, *, per_source: int = 25, n: int = 2, max_tokens: int = 128) -> Path:
    """OUT/build.yaml: the difficulty stage (issue 24 part 4) over the first `per_source` MAWPS and
    GSM8K test problems (easy and harder word problems, so the pass rates can spread), rules only
    (integer answers), `n` samples per problem of at most `max_tokens` tokens."""

    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    cfg = {
        "name": "real-model-difficulty",
        "description": "Pass rate of a real model on word problems (issue 24 part 4).",
        "sources": [
            {
                "kind": "import",
                "name": "mawps",
                "path": str(SOURCES / "qwen_eval_mawps.jsonl"),
                "limit": per_source,
                "mapping": {"original_problem": "input", "original_answer": "target", "source_ref": "idx"},
            },
            # +1: the rules leave one of the first 25 (a candle's centimetres per hour) to a solver
            {
                "kind": "import",
                "name": "gsm8k",
                "path": str(SOURCES / "gsm8k_test.jsonl"),
                "limit": per_source + 1,
            },
        ],  # fmt: skip
        "llm": {"concurrency": 1, "timeout_s": 900, "max_retries": 1, "max_tokens": max_tokens},
        "rewrite": {"rules": True},
        "validate": {"consistency": True},
        "difficulty": {"enabled": True, "n": n, "temperature": 1.0},
    }
    return _write_build(out, cfg)


def _write_build(out: Path, cfg: dict) -> Path:
    """OUT/build.yaml for a one-stage measurement: no dedup, decontamination or export."""
    import yaml

    cfg = {**cfg, "dedup": {"enabled": False}, "decontaminate": {"enabled": False}, "export": {"verl": False}}
    path = out / "build.yaml"
    path.write_text(yaml.safe_dump(cfg, sort_keys=False))
    return path


def _reason(status: str) -> str:
    """A status's reason class: `llm_unparsed: llm declined`, `solver_disagrees`, `kept`, ..."""
    head, _, rest = status.partition(":")
    if head == "llm_unparsed":
        rest = rest.strip()
        for cls in ("llm declined", "is not an integer", "sections, expected 1", "not valid JSON", "empty"):
            if cls in rest:
                return f"llm_unparsed: {cls}" + (" (after a format retry)" if "format retr" in rest else "")
        return "llm_unparsed: other"
    return head


def rewrite_report(build: Path, kept_out: Path | None = None) -> dict:
    """Issue 24 part 1 counts from a build's own records: replies that parsed, kept, rejected by reason;
    with `kept_out`, every kept LLM rewrite as blind-labelling rows (statement and answers only)."""
    from collections import Counter

    from mathdata.store import read_table

    rows = read_table(Path(build) / "records").to_pylist()
    llm_rows = [
        r for r in rows if r["transform"] == "llm" or str(r["status"]).startswith(("llm_", "needs_llm"))
    ]
    parsed = [r for r in llm_rows if r["transform"] == "llm"]
    retried = [r for r in llm_rows if "format_retries" in (r["transform_detail"] or "")
               or "format retr" in str(r["status"])]  # fmt: skip
    kept = [r for r in parsed if r["status"] == "kept"]
    solver = Counter()
    for r in parsed:
        got = json.loads(r["checks"] or "{}").get("solver") or {}
        if isinstance(got, dict) and "agree" in got:
            solver[f"{got['agree']}/{got['k']}"] += 1
    report = {
        "records": len(rows),
        "sent_to_llm": len(llm_rows),
        "parsed": len(parsed),
        "format_retried": len(retried),
        "format_retried_then_parsed": sum(1 for r in retried if r["transform"] == "llm"),
        "kept": len(kept),
        "by_reason": dict(Counter(_reason(str(r["status"])) for r in llm_rows).most_common()),
        "solver_agreement": dict(sorted(solver.items())),
    }
    if kept_out is not None:
        lines = [json.dumps({"id": r["id"], "original_problem": r["original_problem"],
                             "original_answer": r["original_answer"], "rewritten_problem": r["problem"],
                             "rewritten_answer": r["answer"]}, ensure_ascii=False) for r in kept]  # fmt: skip
        Path(kept_out).write_text("".join(line + "\n" for line in lines))
    return report


def judge_rule_negatives(eval_dirs: list[Path], judge: dict, flips_out: Path | None = None) -> dict:
    """Issue 24 part 3: the verifier's judge (verifiers.batch.score_batch with `judge`, the reward's
    own path) on the responses the rules graded wrong in `dapo eval` runs (their samples.parquet) of
    bundled benchmarks. Counts by judge reason; with `flips_out`, every flipped verdict as
    blind-labelling rows (problem, gold, the response's extracted final answer)."""
    from collections import Counter

    import pyarrow.parquet as pq

    from evals.benchmarks import load_benchmark_problems
    from verifiers.batch import score_batch
    from verifiers.judge import judgeable

    negatives, questions = [], {}
    for d in eval_dirs:
        for r in pq.read_table(Path(d) / "samples.parquet").to_pylist():
            if r["correct"]:
                continue
            if r["benchmark"] not in questions:
                questions[r["benchmark"]] = {
                    p.id: p.problem for p in load_benchmark_problems(r["benchmark"]).problems
                }
            negatives.append({**r, "question": questions[r["benchmark"]][r["problem_id"]], "run": str(d)})
    sent = [r for r in negatives if judgeable(r["reason"], r["extracted_answer"])]
    results = score_batch([r["response"] for r in sent], [r["gold"] for r in sent], workers=1, judge=judge,
                          questions=[r["question"] for r in sent],
                          cut_off=[r["finish_reason"] == "length" for r in sent])  # fmt: skip
    flips = [(r, res) for r, res in zip(sent, results, strict=True) if res.acc == 1.0]
    if flips_out is not None:
        Path(flips_out).write_text("".join(json.dumps({"id": f"{r['benchmark']}:{r['problem_id']}:{r['sample_index']}",
            "problem": r["question"], "gold": r["gold"], "final_answer": res.extracted}, ensure_ascii=False) + "\n"
            for r, res in flips))  # fmt: skip
    return {
        "rule_negatives": len(negatives),
        "not_judgeable": dict(Counter(r["reason"] for r in negatives if r not in sent)),
        "sent_to_judge": len(sent),
        "judge_reasons": dict(Counter(res.reason for res in results)),
        "flipped": len(flips),
        "flipped_cases": [(r["problem_id"], r["gold"], res.extracted) for r, res in flips],
    }


def difficulty_report(build: Path) -> dict:
    """Issue 24 part 4 figures from a build's own records and summary: the pass-rate histogram (all and
    by source), the records marked, the stage's seconds and the endpoint's token usage."""
    from collections import Counter

    from mathdata.store import read_table

    rows = read_table(Path(build) / "records").to_pylist()
    rates: dict[str, list[float]] = {}
    for r in rows:
        d = json.loads(r["checks"] or "{}").get("difficulty")
        if isinstance(d, dict) and d.get("pass_rate") is not None:
            rates.setdefault(r["source"], []).append(d["pass_rate"])
    summary = json.loads((Path(build) / "summary.json").read_text())
    stage = next((s for s in summary["stages"] if s["name"] == "difficulty"), {})
    every = [x for v in rates.values() for x in v]
    return {
        "problems_rated": len(every),
        "histogram": dict(sorted(Counter(every).items())),
        "by_source": {k: dict(sorted(Counter(v).items())) for k, v in sorted(rates.items())},
        "mean_pass_rate": round(sum(every) / len(every), 4) if every else None,
        "status": dict(Counter(str(r["status"]).split(":")[0] for r in rows)),
        "difficulty_seconds": stage.get("seconds"),
        "llm_usage": summary.get("llm_usage"),
    }


def dequantize(gguf: Path, out: Path, dtype: str = "float32") -> Path:
    """The GGUF unpacked by the trainer's own loader (transformers, dequantised) and saved as a
    save_pretrained directory with its tokenizer and chat template, temp dir then rename."""
    from trainer.model import load_model, load_tokenizer, save_policy

    save_policy(load_model(gguf, dtype=dtype), load_tokenizer(gguf), out)
    return out


def main(argv: list[str]) -> None:
    if len(argv) >= 2 and argv[0] == "difficulty-report":
        print(json.dumps(difficulty_report(Path(argv[1])), indent=1))
        return
    if len(argv) >= 2 and argv[0] == "judge":
        dirs = [Path(a) for a in argv[1:] if not a.startswith("--") and a != argv[argv.index("--flips-out") + 1]] \
            if "--flips-out" in argv else [Path(a) for a in argv[1:] if not a.startswith("--")]  # fmt: skip
        flips_out = Path(argv[argv.index("--flips-out") + 1]) if "--flips-out" in argv else None
        judge = {"concurrency": 1, "call_timeout_s": float(os.environ.get("DAPO_JUDGE_TIMEOUT", "300")),
                 "max_retries": 1, "cache_dir": os.environ.get("DAPO_JUDGE_CACHE")}  # fmt: skip
        print(json.dumps(judge_rule_negatives(dirs, judge, flips_out), indent=1, ensure_ascii=False))
        return
    if len(argv) >= 2 and argv[0] == "rewrite-report":
        kept_out = Path(argv[argv.index("--kept-out") + 1]) if "--kept-out" in argv else None
        print(json.dumps(rewrite_report(Path(argv[1]), kept_out), indent=1))
        return
    if len(argv) >= 2 and argv[0] == "difficulty-set":
        print(write_difficulty_config(Path(argv[1])))
        return
    if len(argv) >= 3 and argv[0] == "rewrite-set":
        counts = {
            "olympiad": int(argv[argv.index("--olympiad") + 1]) if "--olympiad" in argv else 20,
            "scibench": int(argv[argv.index("--scibench") + 1]) if "--scibench" in argv else 10,
        }
        print(write_rewrite_set(Path(argv[1]), Path(argv[2]), counts, REWRITE_LLM))
        return
    if len(argv) >= 3 and argv[0] == "dequantize":
        dtype = argv[argv.index("--dtype") + 1] if "--dtype" in argv else "float32"
        print(dequantize(Path(argv[1]), Path(argv[2]), dtype))
        return
    if len(argv) >= 2 and argv[0] == "corpus":
        n = int(argv[argv.index("--n") + 1]) if "--n" in argv else 16
        print(write_corpus(Path(argv[1]), n))
        return
    raise SystemExit(__doc__)


if __name__ == "__main__":
    main(sys.argv[1:])
