"""A real vLLM OpenAI-compatible server on CPU (loopback), driven by the openai client.

The server runs from the vLLM venv on the tiny random Qwen2 of
scripts/make_tiny_model.py, so its replies are nonsense: the tests check the protocol
(chat completions, n, logprobs, usage, concurrency, errors), not the content.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import socket
import subprocess
import time
from pathlib import Path

import httpx
import pytest

pytestmark = pytest.mark.integration

MODEL_NAME = "tiny-qwen"
STARTUP_TIMEOUT_S = 240.0


def _free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _tail(path: Path, n: int = 4000) -> str:
    try:
        return path.read_text(errors="replace")[-n:]
    except OSError:
        return "<no log>"


@pytest.fixture(scope="module")
def vllm_server(vllm_py: Path, make_vllm_env, tiny_model_dir: Path, tmp_path_factory: pytest.TempPathFactory):
    """Start ``python -m vllm.entrypoints.openai.api_server`` and yield its base URL."""
    work = tmp_path_factory.mktemp("vllm_server")
    log_path = work / "server.log"
    port = _free_port()
    cmd = [
        str(vllm_py),
        "-m",
        "vllm.entrypoints.openai.api_server",
        "--model",
        str(tiny_model_dir),
        "--served-model-name",
        MODEL_NAME,
        "--dtype",
        "float32",
        "--max-model-len",
        "512",
        "--enforce-eager",
        "--host",
        "127.0.0.1",
        "--port",
        str(port),
    ]
    t0 = time.monotonic()
    with open(log_path, "wb") as log:
        proc = subprocess.Popen(
            cmd,
            stdout=log,
            stderr=subprocess.STDOUT,
            stdin=subprocess.DEVNULL,
            env=make_vllm_env(work / "tmp"),
            cwd=str(work),
            start_new_session=True,  # own process group: teardown kills engine + workers too
        )
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = t0 + STARTUP_TIMEOUT_S
        while True:
            if proc.poll() is not None:
                pytest.fail(f"vLLM server exited with {proc.returncode}:\n{_tail(log_path)}")
            try:
                if httpx.get(f"{base}/health", timeout=2.0).status_code == 200:
                    break
            except httpx.HTTPError:
                pass
            if time.monotonic() > deadline:
                pytest.fail(f"vLLM server not healthy after {STARTUP_TIMEOUT_S} s:\n{_tail(log_path)}")
            time.sleep(0.5)
        startup_s = time.monotonic() - t0
        print(f"vLLM server healthy after {startup_s:.1f} s on port {port}")
        yield {"base_url": f"{base}/v1", "startup_s": startup_s, "log": log_path}
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(proc.pid, signal.SIGTERM)
        try:
            proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait(timeout=10)
        # Children (EngineCore, worker) share the group; make sure none is left behind.
        with contextlib.suppress(ProcessLookupError):
            os.killpg(proc.pid, signal.SIGKILL)


@pytest.fixture()
def client(vllm_server):
    import openai

    with openai.OpenAI(base_url=vllm_server["base_url"], api_key="unused", timeout=120.0, max_retries=0) as c:
        yield c


def test_models_lists_the_served_model(client) -> None:
    ids = [m.id for m in client.models.list().data]
    assert ids == [MODEL_NAME]


def test_chat_completion_basic(client) -> None:
    r = client.chat.completions.create(
        model=MODEL_NAME,
        messages=[{"role": "system", "content": "Be brief."}, {"role": "user", "content": "What is 2 + 2?"}],
        max_tokens=16,
        temperature=1.0,
    )
    assert len(r.choices) == 1
    ch = r.choices[0]
    assert ch.message.role == "assistant"
    assert isinstance(ch.message.content, str)
    assert ch.finish_reason in ("stop", "length")
    assert 1 <= r.usage.completion_tokens <= 16
    assert r.usage.prompt_tokens > 5  # the chat template wrapped the messages


def test_n_samples_with_logprobs(client) -> None:
    r = client.chat.completions.create(
        model=MODEL_NAME,
        messages=[{"role": "user", "content": "Find the remainder when 2^10 is divided by 7."}],
        max_tokens=24,
        temperature=1.0,
        n=4,
        logprobs=True,
        top_logprobs=1,
    )
    assert len(r.choices) == 4
    for ch in r.choices:
        toks = ch.logprobs.content
        assert toks, "no per-token logprobs"
        assert all(t.logprob <= 0.0 for t in toks)
        assert all(len(t.top_logprobs) == 1 for t in toks)
    assert r.usage.completion_tokens == sum(len(ch.logprobs.content) for ch in r.choices)


def test_greedy_is_deterministic_and_throughput(client) -> None:
    kw = dict(
        model=MODEL_NAME,
        messages=[{"role": "user", "content": "Hello"}],
        max_tokens=128,
        temperature=0.0,
        extra_body={"ignore_eos": True},
    )
    a = client.chat.completions.create(**kw)
    t = time.perf_counter()
    b = client.chat.completions.create(**kw)
    dt = time.perf_counter() - t
    assert a.choices[0].message.content == b.choices[0].message.content
    assert b.usage.completion_tokens == 128
    print(f"vLLM CPU server: 128 tokens in {dt:.3f} s = {128 / dt:.0f} tokens/s (one request)")


def test_concurrent_requests(vllm_server) -> None:
    import openai

    async def run() -> list:
        async with openai.AsyncOpenAI(
            base_url=vllm_server["base_url"], api_key="unused", timeout=120.0, max_retries=0
        ) as c:
            return await asyncio.gather(
                *[
                    c.chat.completions.create(
                        model=MODEL_NAME,
                        messages=[{"role": "user", "content": f"Compute {i} + {i}."}],
                        max_tokens=32,
                    )
                    for i in range(16)
                ]
            )

    t = time.perf_counter()
    results = asyncio.run(run())
    dt = time.perf_counter() - t
    assert len(results) == 16
    assert all(r.choices and isinstance(r.choices[0].message.content, str) for r in results)
    tokens = sum(r.usage.completion_tokens for r in results)
    print(f"vLLM CPU server: 16 concurrent requests, {tokens} tokens in {dt:.2f} s")


def test_bad_requests_are_http_errors(client) -> None:
    import openai

    with pytest.raises(openai.NotFoundError):
        client.chat.completions.create(
            model="no-such-model", messages=[{"role": "user", "content": "hi"}], max_tokens=4
        )
    # Asking for more tokens than the context holds (max-model-len 512) is a 400.
    with pytest.raises(openai.BadRequestError):
        client.chat.completions.create(
            model=MODEL_NAME, messages=[{"role": "user", "content": "hi"}], max_tokens=4096
        )
