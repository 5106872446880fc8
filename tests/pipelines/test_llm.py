"""The LLM client against a real scripted server process: cache, retries, budget, concurrency."""

import asyncio
import time

import pytest

from pipelines.llm import BudgetExceeded, LLMClient, LLMError, LLMSettings


def _client(server, tmp_path, **kw) -> LLMClient:
    kw.setdefault("backoff_s", 0.05)
    settings = LLMSettings(base_url=server.base_url, model="scripted", **kw)
    return LLMClient(settings, cache_dir=tmp_path / "cache")


def _ask(client: LLMClient, prompts: list[str], **kw):
    async def go():
        try:
            return await asyncio.gather(
                *(client.complete([{"role": "user", "content": p}], **kw) for p in prompts),
                return_exceptions=True,
            )
        finally:
            await client.aclose()

    return asyncio.run(go())


def test_cache_hit_makes_no_request_even_in_a_new_client(server, tmp_path):
    server.script("hello {sample}")
    first = _ask(_client(server, tmp_path), ["p1"])
    assert first[0].text == "hello 0" and not first[0].cached
    assert _ask(_client(server, tmp_path), ["p1"])[0].cached
    again = _client(server, tmp_path)
    out = _ask(again, ["p1"])
    assert out[0].cached and out[0].text == first[0].text
    assert again.usage["requests"] == 0 and again.usage["cache_hits"] == 1
    # a different model is a different cache key
    other = LLMClient(LLMSettings(base_url=server.base_url, model="other"), cache_dir=tmp_path / "cache")
    assert not _ask(other, ["p1"])[0].cached


def test_a_cached_reply_keeps_its_finish_reason_and_its_verdict(server, tmp_path):
    """A reply cut at max_tokens is graded strictly (only an answer line or a box counts); the cache
    used to drop finish_reason, so a rerun from it graded the same text leniently: the integration test
    against vLLM saw difficulty 0/3 become 1/3 with no request made."""
    from pipelines.validate import solver_agreement

    server.script(
        "Answer: 7", rules=[{"match": "cut", "content": "We add: 2 + 3 = 5", "finish_reason": "length"}]
    )
    first = _ask(_client(server, tmp_path), ["cut"])[0]
    assert first.finish_reason == "length" and not first.cached
    again = _ask(_client(server, tmp_path), ["cut"])[0]
    assert again.cached and again.finish_reason == "length"

    record = {"problem": "cut: what is 2 + 3?", "answer": "5"}

    async def agreement(c):
        try:
            return await solver_agreement(record, c, 3)
        finally:
            await c.aclose()

    verdicts = []
    for _ in range(2):  # the second pass is served from the cache alone
        c = _client(server, tmp_path)
        verdicts.append(asyncio.run(agreement(c)))
    assert verdicts[0] == verdicts[1] == (0, 3)  # cut replies without an answer line: not agreement
    assert c.usage["requests"] == 0


def test_samples_are_distinct_cache_entries(server, tmp_path):
    server.script("draw {sample}")
    c = _client(server, tmp_path)
    out = _ask(c, ["same"] * 1, temperature=1.0) + _ask(
        _client(server, tmp_path), ["same"], temperature=1.0, sample=1
    )
    assert out[0].text != out[1].text
    assert server.stats()["requests"] == 2


@pytest.mark.parametrize("action", ["429", "500", "malformed", "hang"])
def test_retries_transient_failures(server, tmp_path, action):
    server.script("ok", rules=[{"match": "flaky", "action": action, "times": 2, "hang_s": 5}])
    c = _client(server, tmp_path, timeout_s=0.5, max_retries=3)
    out = _ask(c, ["flaky"])
    assert out[0].text == "ok"
    assert c.usage["retries"] == 2 and c.usage["requests"] == 3
    assert server.stats()["by_action"][action] == 2


def test_retry_after_is_honoured(server, tmp_path):
    server.script("ok", rules=[{"action": "429", "times": 1, "retry_after": 0.6}])
    c = _client(server, tmp_path)
    t0 = time.perf_counter()
    assert _ask(c, ["x"])[0].text == "ok"
    assert time.perf_counter() - t0 >= 0.6


def test_gives_up_after_max_retries(server, tmp_path):
    server.script("ok", rules=[{"action": "500"}])
    c = _client(server, tmp_path, max_retries=2)
    out = _ask(c, ["always failing"])
    assert isinstance(out[0], LLMError)
    assert server.stats()["requests"] == 3
    assert c.usage["failures"] == 1


def test_client_errors_are_not_retried(server, tmp_path):
    server.script({"action": "reply", "content": "x"}, rules=[])
    c = LLMClient(LLMSettings(base_url=server.base_url + "/nope", model="m"), cache_dir=tmp_path)
    out = _ask(c, ["q"])
    assert isinstance(out[0], LLMError) and "404" in str(out[0])
    assert c.usage["requests"] == 1


def test_request_budget(server, tmp_path):
    server.script("fine")
    c = _client(server, tmp_path, max_requests=3, concurrency=1)
    out = _ask(c, [f"q{i}" for i in range(5)])
    assert sum(isinstance(r, BudgetExceeded) for r in out) == 2
    assert server.stats()["requests"] == 3
    # cached answers stay free once the budget is spent
    assert _ask(_client(server, tmp_path, max_requests=0), ["q0"])[0].cached


def test_token_budget(server, tmp_path):
    server.script("x" * 400)  # ~100 completion tokens per reply
    c = _client(server, tmp_path, max_tokens_total=150, concurrency=1)
    out = _ask(c, [f"q{i}" for i in range(4)])
    ok = [r for r in out if not isinstance(r, Exception)]
    assert len(ok) == 2 and all(isinstance(r, BudgetExceeded) for r in out[2:])
    assert c.usage["prompt_tokens"] + c.usage["completion_tokens"] >= 150


def test_concurrency_is_bounded(server, tmp_path):
    server.script({"content": "ok", "latency": 0.2})
    c = _client(server, tmp_path, concurrency=4)
    t0 = time.perf_counter()
    out = _ask(c, [f"q{i}" for i in range(16)])
    elapsed = time.perf_counter() - t0
    assert all(r.text == "ok" for r in out)
    assert server.stats()["max_inflight"] == 4
    assert elapsed >= 4 * 0.2 * 0.95  # 16 requests, 4 at a time, 0.2 s each


def test_a_request_waiting_to_retry_gives_its_slot_away(server, tmp_path):
    # one slot; "slow" is refused with a 1 s Retry-After: while it waits, "fast" runs
    server.script("ok", rules=[{"match": "slow", "action": "429", "times": 1, "retry_after": 1}])
    c = _client(server, tmp_path, concurrency=1)
    done: dict[str, float] = {}

    async def go():
        t0 = time.perf_counter()

        async def one(p: str):
            await c.complete([{"role": "user", "content": p}])
            done[p] = time.perf_counter() - t0

        try:
            await asyncio.gather(one("slow"), one("fast"))
        finally:
            await c.aclose()

    asyncio.run(go())
    assert done["fast"] < 0.8 <= done["slow"]
    assert server.stats()["max_inflight"] == 1


def test_connections_are_kept_alive(server, tmp_path):
    server.script({"content": "ok", "latency": 0.05})
    c = _client(server, tmp_path, concurrency=4)
    assert all(r.text == "ok" for r in _ask(c, [f"q{i}" for i in range(40)]))
    stats = server.stats()
    # one connection per slot, plus the one this stats call itself opened
    assert stats["requests"] == 40 and stats["connections"] <= 4 + 1


def test_missing_endpoint_is_a_clear_error(monkeypatch):
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)
    monkeypatch.delenv("DAPO_LLM_MODEL", raising=False)
    with pytest.raises(ValueError, match="OPENAI_BASE_URL"):
        LLMClient(LLMSettings())


def test_env_fills_the_endpoint(monkeypatch, server, tmp_path):
    server.script("from env")
    monkeypatch.setenv("OPENAI_BASE_URL", server.base_url)
    monkeypatch.setenv("DAPO_LLM_MODEL", "env-model")
    c = LLMClient(LLMSettings(), cache_dir=tmp_path)
    assert c.settings.model == "env-model"
    assert _ask(c, ["q"])[0].text == "from env"
