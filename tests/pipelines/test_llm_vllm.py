"""The LLM stage against a real vLLM OpenAI server on CPU (a tiny random Qwen2 built locally).

Its replies are nonsense, so this checks what must hold against a real server: requests go
out and are counted with their token usage, replies are cached (a rerun makes no request),
unusable replies are rejected with the reason, and the solver check scores real samples.
Needs the vLLM venv (`bash scripts/vllm_cpu_setup.sh`, at .venv-vllm or $VLLM_VENV); skips without it.
"""

import asyncio
import contextlib
import json
import os
import signal
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import httpx
import pytest

from mathdata.schema import new_record
from pipelines.llm import LLMClient, LLMSettings
from pipelines.rewrite import rewrite_record
from pipelines.validate import validate_record

pytestmark = pytest.mark.integration

ROOT = Path(__file__).parents[2]
MODEL = "tiny-qwen"


@pytest.fixture(scope="module")
def vllm_url(tmp_path_factory):
    py = Path(os.environ.get("VLLM_VENV", ROOT / ".venv-vllm")) / "bin" / "python"
    if not py.exists():
        pytest.skip(f"no vLLM venv at {py.parent.parent}; create it with: bash scripts/vllm_cpu_setup.sh")
    work = tmp_path_factory.mktemp("vllm")
    model = work / "model"
    subprocess.run(
        [sys.executable, str(ROOT / "scripts" / "make_tiny_model.py"), str(model)],
        check=True,
        capture_output=True,
    )
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    env = {k: v for k, v in os.environ.items() if k not in ("VIRTUAL_ENV", "PYTHONPATH")}
    env.update(
        VLLM_CPU_KVCACHE_SPACE="1",
        HF_HUB_OFFLINE="1",
        TRANSFORMERS_OFFLINE="1",
        VLLM_NO_USAGE_STATS="1",
        TMPDIR=str(work),
        TORCHINDUCTOR_CACHE_DIR=str(Path(tempfile.gettempdir()) / "dapo-vllm-cpu-inductor-cache"),
    )
    cmd = [
        str(py),
        "-m",
        "vllm.entrypoints.openai.api_server",
        "--model",
        str(model),
        "--served-model-name",
        MODEL,
    ]
    cmd += [
        "--dtype",
        "float32",
        "--max-model-len",
        "2048",
        "--enforce-eager",
        "--host",
        "127.0.0.1",
        "--port",
        str(port),
    ]
    log = work / "server.log"
    with open(log, "wb") as fh:
        proc = subprocess.Popen(
            cmd, stdout=fh, stderr=subprocess.STDOUT, env=env, cwd=work, start_new_session=True
        )
    try:
        deadline = time.monotonic() + 300
        while True:
            if proc.poll() is not None:
                pytest.fail(f"vLLM exited ({proc.returncode}):\n{log.read_text(errors='replace')[-3000:]}")
            with contextlib.suppress(httpx.HTTPError):
                if httpx.get(f"http://127.0.0.1:{port}/health", timeout=2).status_code == 200:
                    break
            if time.monotonic() > deadline:
                pytest.fail(f"vLLM not healthy after 300 s:\n{log.read_text(errors='replace')[-3000:]}")
            time.sleep(0.5)
        yield f"http://127.0.0.1:{port}/v1"
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(proc.pid, signal.SIGTERM)
        try:
            proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait(timeout=10)


def _run(client: LLMClient, coros):
    async def go():
        try:
            return await asyncio.gather(*coros)
        finally:
            await client.aclose()

    return asyncio.run(go())


def test_rewrite_and_solver_against_real_vllm(vllm_url, tmp_path):
    settings = LLMSettings(
        base_url=vllm_url,
        model=MODEL,
        max_tokens=48,
        concurrency=2,
        temperature=1.0,
        timeout_s=180,
    )
    recs = [
        new_record(
            source="import:t",
            original_problem=f"Find all pairs (x, y) of positive integers with x + y = {i}.",
            original_answer=f"(1, {i - 1}), ({i - 1}, 1)",
        )
        for i in range(3, 6)
    ]
    client = LLMClient(settings, cache_dir=tmp_path / "cache")
    # no format retry here: one request per record, so the usage and cache counts are exact
    outs = _run(client, [rewrite_record(r, client, format_retries=0) for r in recs])
    assert client.usage["requests"] == 3 and client.usage["completions"] == 3
    assert client.usage["prompt_tokens"] > 3 * 500  # the few-shot prompt really went out
    assert 0 < client.usage["completion_tokens"] <= 3 * 48
    # a random model cannot follow the format: each record is rejected with the parse reason
    assert all(o["status"].startswith(("llm_unparsed:", "kept")) for o in outs)
    assert any(o["status"].startswith("llm_unparsed:") for o in outs)

    again = LLMClient(settings, cache_dir=tmp_path / "cache")
    outs2 = _run(again, [rewrite_record(r, again, format_retries=0) for r in recs])
    assert again.usage["requests"] == 0 and again.usage["cache_hits"] == 3
    assert [o["status"] for o in outs2] == [o["status"] for o in outs]

    # the default asks once more when a reply cannot be read (not when it declines): the record says
    # so, and the client made exactly one request more
    retry = LLMClient(settings)
    first = _run(retry, [rewrite_record(recs[0], retry)])[0]
    detail = json.loads(first.get("transform_detail") or "{}")
    retried = "(after 1 format retry)" in first["status"] or detail.get("format_retries") == 1
    assert retry.usage["requests"] == 1 + retried

    ruled = new_record(
        source="import:t", original_problem="Compute the ratio.", original_answer="\\frac{3}{8}"
    )
    ruled = _run(LLMClient(settings), [rewrite_record(ruled, None)])[0]
    solver = LLMClient(settings, cache_dir=tmp_path / "cache")
    checked = _run(solver, [validate_record(ruled, llm=solver, solver_k=2)])[0]
    assert solver.usage["requests"] == 2
    assert checked["status"] in (
        "kept",
        "solver_disagrees: 0/2 samples agree",
        "solver_disagrees: 1/2 samples agree",
    )
    assert '"solver_k_n"' in checked["checks"]


def test_difficulty_against_real_vllm(vllm_url, tmp_path):
    """n samples per problem go to the real server, are scored, cached, and a rerun asks nothing."""
    from pipelines.difficulty import difficulty_record

    settings = LLMSettings(
        base_url=vllm_url,
        model=MODEL,
        max_tokens=24,
        concurrency=2,
        temperature=1.0,
        timeout_s=180,
    )
    rec = new_record(
        source="import:t",
        original_problem="What is 2+3?",
        problem="What is 2+3?",
        answer="5",
        original_answer="5",
    )
    client = LLMClient(settings, cache_dir=tmp_path / "cache")
    (out,) = _run(client, [difficulty_record(rec, client, n=3, max_pass=0.9)])
    d = __import__("json").loads(out["checks"])["difficulty"]
    assert d["model"] == MODEL and d["n"] == 3 and 0 <= d["correct"] <= 3
    assert d["pass_rate"] == round(d["correct"] / 3, 4)
    assert client.usage["completions"] == 3 and client.usage["completion_tokens"] > 0
    again = LLMClient(settings, cache_dir=tmp_path / "cache")
    (out2,) = _run(again, [difficulty_record(rec, again, n=3, max_pass=0.9)])
    assert again.usage["requests"] == 0 and out2["checks"] == out["checks"]
