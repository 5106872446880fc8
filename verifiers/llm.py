"""The toolkit's one OpenAI-compatible client: settings, retries (tenacity), reply cache, concurrency.

Every model call goes through `LLMClient`: the corpus build's rewrite, solver, difficulty and
decontamination-judge steps (async, `complete`), `dapo eval`'s endpoint sampler (`send`) and the
verifier's judge (threads, `send_sync`). This module is the only place an OpenAI client is made.

Works with any server that speaks `/v1/chat/completions` (vLLM in production, the scripted
test server on loopback). Each reply is cached on disk under a hash of the model and the full
request, so re-running a build costs no requests. Requests in flight are bounded by a
semaphore held per attempt (a retry waiting out its backoff gives its slot to another request);
429, 5xx, timeouts and garbled bodies are retried with backoff (honouring Retry-After); a
request and token budget stops a run before it spends more than it was given.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import os
from dataclasses import dataclass
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field, model_validator

from verifiers.files import atomic_write

USES = ("rewrite", "solver", "difficulty", "judge", "decontam_judge")


def resolve_endpoint(
    base_url: str | None, model: str | None, api_key: str | None, *, model_env: str, what: str
) -> tuple[str, str, str]:
    """(base_url, model, api_key) with the environment filled in; a clear error naming what is missing."""
    base_url = base_url or os.environ.get("OPENAI_BASE_URL")
    model = model or os.environ.get(model_env)
    api_key = api_key or os.environ.get("OPENAI_API_KEY") or "EMPTY"
    missing = [
        n
        for n, v in (("base_url (or env OPENAI_BASE_URL)", base_url), (f"model (or env {model_env})", model))
        if not v
    ]
    if missing:
        raise ValueError(f"{what} is configured but {' and '.join(missing)} is not set")
    return base_url, model, api_key


class LLMModels(BaseModel):
    """Per-use model overrides of `llm.model` (unset: the endpoint's model)."""

    model_config = ConfigDict(extra="forbid")

    rewrite: str | None = None
    solver: str | None = None
    difficulty: str | None = None
    judge: str | None = None
    decontam_judge: str | None = None


class LLMSettings(BaseModel):
    """Where the endpoint is and how hard to use it (the build's `llm:` section). Unset fields fall
    back to the environment."""

    model_config = ConfigDict(extra="forbid")

    @model_validator(mode="before")
    @classmethod
    def _drop_enabled(cls, data):
        # `enabled` and `cross_check` belonged to the old `rewrite.llm` section (now `rewrite.llm: true`
        # and `rewrite.cross_check`); code that still passes enabled=True loses nothing
        if isinstance(data, dict) and "enabled" in data:
            data = {k: v for k, v in data.items() if k != "enabled"}
        return data

    base_url: str | None = Field(None, description="env OPENAI_BASE_URL")
    model: str | None = Field(None, description="env DAPO_LLM_MODEL")
    api_key: str | None = Field(None, description="env OPENAI_API_KEY")
    concurrency: int = Field(16, ge=1)
    timeout_s: float = Field(120.0, gt=0)
    max_retries: int = Field(4, ge=0)
    backoff_s: float = Field(0.5, ge=0, description="first retry wait; doubles, plus jitter, up to 30 s")
    max_requests: int | None = Field(None, ge=0, description="HTTP requests allowed, retries included")
    max_tokens_total: int | None = Field(None, ge=0, description="prompt + completion tokens allowed")
    max_tokens: int = Field(2048, ge=1, description="per reply")
    temperature: float = 0.0
    cache_dir: str | None = Field(None, description="default: <out>/llm_cache")
    models: LLMModels = Field(default_factory=LLMModels)

    def resolved(self) -> LLMSettings:
        """Fill base_url, model and api_key from the environment; fail clearly when missing."""
        base_url, model, api_key = resolve_endpoint(
            self.base_url, self.model, self.api_key, model_env="DAPO_LLM_MODEL", what="llm"
        )
        return self.model_copy(update={"base_url": base_url, "model": model, "api_key": api_key})

    def model_for(self, use: str) -> str | None:
        """The model a use (one of USES) asks: its override, else `model`."""
        return getattr(self.models, use) or self.model

    @property
    def in_flight(self) -> int:
        """Requests a caller keeps queued for the client: 4x `concurrency`, so the semaphore (the real
        limit) never waits on the caller. The one place concurrency is scaled."""
        return 4 * self.concurrency


class BudgetExceeded(RuntimeError):
    """The request or token budget is spent; the record is rejected, the run goes on."""


class LLMError(RuntimeError):
    """The endpoint kept failing after every retry."""


class OutOfTime(RuntimeError):
    """`send_sync`'s deadline passed (the judge's call budget); the caller's fallback stands."""


@dataclass
class Completion:
    text: str
    cached: bool
    prompt_tokens: int = 0
    completion_tokens: int = 0
    finish_reason: str | None = None  # "stop", "length" (cut at max_tokens), ... as the server said


def _retryable(exc: BaseException) -> bool:
    import openai

    if isinstance(exc, openai.APIStatusError):
        return exc.status_code == 429 or exc.status_code >= 500
    # timeouts, refused/reset connections, and 200s whose body is not the JSON it should be
    return isinstance(
        exc,
        openai.APITimeoutError | openai.APIConnectionError | openai.APIResponseValidationError | ValueError,
    )


def _retry_after(exc: BaseException) -> float | None:
    response = getattr(exc, "response", None)
    if response is None:
        return None
    for header, scale in (("retry-after-ms", 0.001), ("retry-after", 1.0)):
        value = response.headers.get(header)
        if value is not None:
            try:
                return max(0.0, float(value) * scale)
            except ValueError:
                return None
    return None


def _read_reply(data) -> tuple[str, int, int, str | None]:
    """(text, prompt tokens, completion tokens, finish reason) of a chat or text completion body;
    ValueError if malformed."""
    try:
        choice = data["choices"][0]
        text = choice["message"]["content"] if "message" in choice else choice["text"]
        usage = data.get("usage") or {}
        pt, ct = int(usage.get("prompt_tokens") or 0), int(usage.get("completion_tokens") or 0)
        finish = choice.get("finish_reason")
    except (KeyError, IndexError, TypeError, AttributeError) as e:
        raise ValueError(f"malformed completion body: {type(e).__name__} {e}") from e
    if text is not None and not isinstance(text, str):
        raise ValueError("malformed completion body: content is not a string")
    return text or "", pt, ct, finish if isinstance(finish, str) else None


class LLMClient:
    """One client per run. `usage` counts requests, cache hits, retries, failures and tokens."""

    def __init__(self, settings: LLMSettings, cache_dir: str | Path | None = None):
        self.settings = settings.resolved()
        cache = cache_dir or self.settings.cache_dir
        self.cache_dir = Path(cache) if cache else None
        self.usage = {
            "requests": 0,
            "completions": 0,
            "cache_hits": 0,
            "retries": 0,
            "failures": 0,
            "budget_refusals": 0,
            "prompt_tokens": 0,
            "completion_tokens": 0,
        }
        self._sem: asyncio.Semaphore | None = None
        self._client = None
        import threading

        self._sync_lock = threading.Lock()
        self._sync_client = None
        self._sync_sem = None

    def _key(self, messages: list[dict], temperature: float, sample: int, model: str | None = None) -> str:
        blob = json.dumps(
            {
                "model": model or self.settings.model,
                "messages": messages,
                "temperature": temperature,
                "max_tokens": self.settings.max_tokens,
                "sample": sample,
            },
            sort_keys=True,
            ensure_ascii=False,
        )
        return hashlib.sha256(blob.encode()).hexdigest()

    def _cache_path(self, key: str) -> Path | None:
        return self.cache_dir / key[:2] / f"{key}.json" if self.cache_dir else None

    def _spend_check(self) -> None:
        s, u = self.settings, self.usage
        if s.max_requests is not None and u["requests"] >= s.max_requests:
            u["budget_refusals"] += 1
            raise BudgetExceeded(f"request budget of {s.max_requests} spent")
        if (
            s.max_tokens_total is not None
            and u["prompt_tokens"] + u["completion_tokens"] >= s.max_tokens_total
        ):
            u["budget_refusals"] += 1
            raise BudgetExceeded(f"token budget of {s.max_tokens_total} spent")

    def for_use(self, use: str) -> LLMUse:
        """This client (same semaphore, cache, budget, usage) asking `settings.model_for(use)`."""
        return LLMUse(self, use)

    async def complete(
        self,
        messages: list[dict],
        *,
        temperature: float | None = None,
        sample: int = 0,
        model: str | None = None,
    ) -> Completion:
        """Chat completion for `messages`; `sample` distinguishes repeated draws of one prompt;
        `model` overrides `settings.model` (a per-use override, see `for_use`)."""
        temperature = self.settings.temperature if temperature is None else temperature
        key = self._key(messages, temperature, sample, model)
        path = self._cache_path(key)
        if path is not None and path.exists():
            try:
                hit = json.loads(path.read_text(encoding="utf-8"))
                self.usage["cache_hits"] += 1
                # finish_reason too: a reply cut at max_tokens is graded differently (only an answer
                # line or a box counts), so a replay without it could change a verdict
                return Completion(hit["text"], True, hit.get("prompt_tokens", 0), hit.get("completion_tokens", 0),
                                  hit.get("finish_reason"))  # fmt: skip
            except (json.JSONDecodeError, KeyError):
                path.unlink(missing_ok=True)  # a torn entry cannot happen with atomic writes; be safe
        out = await self._request(messages, temperature, model)
        if path is not None:
            atomic_write(
                path,
                json.dumps(
                    {
                        "text": out.text,
                        "prompt_tokens": out.prompt_tokens,
                        "completion_tokens": out.completion_tokens,
                        "finish_reason": out.finish_reason,
                        "model": model or self.settings.model,
                    },
                    ensure_ascii=False,
                ),
            )
        return out

    async def _request(
        self, messages: list[dict], temperature: float, model: str | None = None
    ) -> Completion:
        body = {
            "model": model or self.settings.model,
            "messages": messages,
            "temperature": temperature,
            "max_tokens": self.settings.max_tokens,
        }
        return await self.send(body)

    async def send(self, body: dict, *, path: str = "/chat/completions") -> Completion:
        """POST `body` to `path` (`/chat/completions` or `/completions`) with this client's bounded
        concurrency, retries and budget, but no reply cache (callers that keep their own, such as
        `dapo eval`'s sample store, use this). Sampling fields (top_p, seed, ...) pass through."""
        from tenacity import AsyncRetrying

        if self._sem is None:
            self._sem = asyncio.Semaphore(self.settings.concurrency)
        if self._client is None:
            self._client = _openai_client(self.settings, sync=False)
        retrying = self._retrying(AsyncRetrying)
        try:
            async for attempt in retrying:
                with attempt:
                    # a slot is held per attempt, not across the backoff between attempts: a
                    # request waiting to retry is not in flight, and holding its slot while it
                    # sleeps (0.5 s and up) would leave the endpoint below `concurrency`
                    async with self._sem:
                        self._spend_check()
                        self.usage["requests"] += 1
                        # the generic `post` of the same client, read as plain JSON: the typed
                        # `chat.completions.create` walks every message through a TypedDict
                        # transform and builds pydantic models, several ms of CPU per request,
                        # which caps throughput long before a vLLM fleet does
                        data = await self._client.post(path, cast_to=dict, body=body)
                    text, pt, ct, finish = _read_reply(data)
        except BudgetExceeded:
            raise
        except Exception as e:
            self.usage["failures"] += 1
            raise LLMError(f"{type(e).__name__}: {str(e)[:200]}") from e
        self.usage["completions"] += 1
        self.usage["prompt_tokens"] += pt
        self.usage["completion_tokens"] += ct
        return Completion(text, False, pt, ct, finish)

    def _retrying(self, retrying_cls, deadline: float | None = None):
        """tenacity's retry loop with this client's policy: retry 429/5xx/timeouts/garbled bodies,
        exponential backoff with jitter (up to 30 s) or the server's Retry-After (up to 60 s); with a
        `deadline` (time.monotonic), a wait that would pass it raises OutOfTime instead."""
        import time

        from tenacity import retry_if_exception, stop_after_attempt, wait_exponential_jitter

        backoff = wait_exponential_jitter(
            multiplier=self.settings.backoff_s, jitter=self.settings.backoff_s, max=30
        )

        def wait(state) -> float:
            exc = state.outcome.exception() if state.outcome else None
            after = _retry_after(exc) if exc else None
            w = min(after, 60.0) if after is not None else backoff(state)
            if deadline is not None and time.monotonic() + w >= deadline:
                raise OutOfTime("call budget spent")
            return w

        def before_sleep(state) -> None:
            self.usage["retries"] += 1

        return retrying_cls(
            stop=stop_after_attempt(self.settings.max_retries + 1),
            wait=wait,
            retry=retry_if_exception(_retryable),
            before_sleep=before_sleep,
            reraise=True,
        )

    def send_sync(
        self, body: dict, *, deadline: float | None = None, path: str = "/chat/completions"
    ) -> Completion:
        """`send` from threads (the verifier's judge): the same retries, budget and concurrency limit
        (a thread semaphore); `deadline` (time.monotonic) bounds the whole call, retries included:
        each attempt's HTTP timeout is what is left of it, and past it OutOfTime is raised."""
        import threading
        import time

        from tenacity import Retrying

        with self._sync_lock:
            if self._sync_client is None:
                self._sync_client = _openai_client(self.settings, sync=True)
                self._sync_sem = threading.Semaphore(self.settings.concurrency)
        try:
            for attempt in self._retrying(Retrying, deadline):
                with attempt:
                    timeout = self.settings.timeout_s
                    if deadline is not None:
                        timeout = min(timeout, deadline - time.monotonic())
                        if timeout <= 0:
                            raise OutOfTime("call budget spent")
                    with self._sync_sem:
                        with self._sync_lock:
                            self._spend_check()
                            self.usage["requests"] += 1
                        data = self._sync_client.with_options(timeout=timeout).post(
                            path, cast_to=dict, body=body
                        )
                    text, pt, ct, finish = _read_reply(data)
        except (BudgetExceeded, OutOfTime):
            raise
        except Exception as e:
            with self._sync_lock:
                self.usage["failures"] += 1
            raise LLMError(f"{type(e).__name__}: {str(e)[:200]}") from e
        with self._sync_lock:
            self.usage["completions"] += 1
            self.usage["prompt_tokens"] += pt
            self.usage["completion_tokens"] += ct
        return Completion(text, False, pt, ct, finish)

    async def aclose(self) -> None:
        if self._client is not None:
            await self._client.close()
            self._client = None

    def close(self) -> None:
        """Close the thread-side client (`send_sync`)."""
        if self._sync_client is not None:
            self._sync_client.close()
            self._sync_client = None


class LLMUse:
    """An `LLMClient` seen by one use (rewrite, solver, ...): its model, the client's everything else."""

    def __init__(self, client, use: str) -> None:
        if use not in USES:
            raise ValueError(f"llm: unknown use {use!r}; known: {', '.join(USES)}")
        self.client, self.use = client, use
        self.model = client.settings.model_for(use)
        self.settings = client.settings.model_copy(update={"model": self.model})

    async def complete(self, messages, *, temperature=None, sample=0):
        return await self.client.complete(messages, temperature=temperature, sample=sample, model=self.model)

    @property
    def usage(self) -> dict:
        return self.client.usage

    async def aclose(self) -> None:
        await self.client.aclose()


def _openai_client(settings: LLMSettings, *, sync: bool):
    """The toolkit's only OpenAI client constructor (a test greps for it)."""
    import httpx
    import openai

    n = settings.concurrency
    # keep one idle connection per slot: with httpx's default of 100 kept-alive connections, a
    # concurrency above 100 would open a new connection per request
    limits = httpx.Limits(max_connections=max(n, 100), max_keepalive_connections=n)
    common = dict(
        base_url=settings.base_url,
        api_key=settings.api_key,
        timeout=settings.timeout_s,
        max_retries=0,  # tenacity owns retries so they are counted and budgeted
    )
    if sync:
        return openai.OpenAI(**common, http_client=openai.DefaultHttpxClient(limits=limits))
    return openai.AsyncOpenAI(**common, http_client=openai.DefaultAsyncHttpxClient(limits=limits))
