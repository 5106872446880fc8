"""The real-model suite's shared chores: where the models are, the small word-problem corpus, the RL config.

Used by tests/real_model/ and by hand for the figures in bench/results/real_model.md. The models come
from `bash scripts/real_model_setup.sh` (cache: $DAPO_CACHE, default ~/.cache/dapo-toolkit).

    python bench/real_model.py corpus OUT_DIR [--n 16]   # records + verl/train.parquet of short GSM8K problems
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
# (on_max_gen_batches: train) rather than stopping the smoke run.
RL_SETS = [
    "rollout.n=4",
    "rollout.max_new_tokens=64",
    "rollout.temperature=1.0",
    "data.max_prompt_len=256",
    "algo.max_gen_batches=3",
    "algo.on_max_gen_batches=train",
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


def main(argv: list[str]) -> None:
    if len(argv) >= 2 and argv[0] == "corpus":
        n = int(argv[argv.index("--n") + 1]) if "--n" in argv else 16
        print(write_corpus(Path(argv[1]), n))
        return
    raise SystemExit(__doc__)


if __name__ == "__main__":
    main(sys.argv[1:])
