"""`dapo eval --endpoint`: draw evaluation samples from any OpenAI-compatible server.

An `evals.store.Sampler` on the pipelines LLM client (pipelines/llm.py), so requests get
its bounded concurrency, retries with backoff on 429/5xx/timeouts/garbled bodies (Retry-After
honoured) and request counting. Its reply cache is not used: the evaluation's own sample store
(DIR/samples.jsonl) is the cache, and every sample is handed to it the moment it arrives.
One request per sample (n=1), so a killed run loses at most the requests in flight; chat mode
posts to /chat/completions, completion mode to /completions with the raw prompt.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable

from evals.store import Job, Response, SamplingParams
from pipelines.llm import LLMClient, LLMError, LLMSettings


class EndpointSampler:
    def __init__(
        self,
        base_url: str,
        model: str,
        *,
        api_key: str | None = None,
        concurrency: int = 32,
        timeout_s: float = 600.0,
        max_retries: int = 6,
        backoff_s: float = 1.0,
    ):
        self.settings = LLMSettings(
            enabled=True,
            base_url=base_url,
            model=model,
            api_key=api_key,
            concurrency=concurrency,
            timeout_s=timeout_s,
            max_retries=max_retries,
            backoff_s=backoff_s,
        )
        self.usage: dict = {}
        self._checked = False  # preflight runs before the first request, not when the store has every sample

    def preflight(self, timeout_s: float = 10.0) -> None:
        """Fail fast, in one line, when nothing answers at the URL or it does not serve the model
        (GET /models); a server without that route is not checked."""
        import httpx

        url = self.settings.base_url.rstrip("/") + "/models"
        headers = {"Authorization": f"Bearer {self.settings.api_key or 'EMPTY'}"}
        try:
            r = httpx.get(url, headers=headers, timeout=timeout_s)
        except httpx.HTTPError as e:
            raise LLMError(
                f"cannot reach {self.settings.base_url} ({type(e).__name__}: {e}); is the server running "
                "and is the URL its OpenAI base (ending in /v1)?"
            ) from None
        if r.status_code != 200:
            return
        try:
            served = [m["id"] for m in r.json().get("data", [])]
        except (ValueError, KeyError, TypeError, AttributeError):
            return
        if served and self.settings.model not in served:
            shown = ", ".join(served[:10]) + (" ..." if len(served) > 10 else "")
            raise LLMError(
                f"{self.settings.base_url} does not serve model {self.settings.model!r}; it serves: {shown}"
            )

    def describe(self) -> dict:
        # what decides the samples: the server and the model; concurrency and retries do not
        return {"kind": "endpoint", "base_url": self.settings.base_url, "model": self.settings.model}

    def run(self, jobs: list[Job], params: SamplingParams, emit: Callable[[Job, Response], None]) -> None:
        if not jobs:
            return
        if not self._checked:
            self.preflight()
            self._checked = True
        asyncio.run(self._run(jobs, params, emit))

    def _body(self, job: Job, params: SamplingParams) -> tuple[str, dict]:
        body = {
            "model": self.settings.model,
            "temperature": params.temperature,
            "top_p": params.top_p,
            "max_tokens": params.max_tokens,
        }
        if params.seed is not None:  # a per-sample seed: the same run twice draws the same samples
            body["seed"] = (params.seed * 1_000_003 + int(job.key[:8], 16) + job.index) % (2**31)
        if isinstance(job.prompt, str):
            return "/completions", {**body, "prompt": job.prompt}
        return "/chat/completions", {**body, "messages": job.prompt}

    async def _run(self, jobs: list[Job], params: SamplingParams, emit) -> None:
        client = LLMClient(self.settings, cache_dir=None)

        async def one(job: Job) -> tuple[Job, Response]:
            path, body = self._body(job, params)
            c = await client.send(body, path=path)
            return job, Response(c.text, c.completion_tokens, c.finish_reason)

        # a bounded window of tasks (the client's semaphore bounds what is on the wire; the window
        # keeps a 16k-sample run from holding 16k coroutines and their request bodies at once)
        window = max(2 * self.settings.concurrency, 64)
        pending: set[asyncio.Task] = set()
        it = iter(jobs)
        try:
            while True:
                while len(pending) < window:
                    job = next(it, None)
                    if job is None:
                        break
                    pending.add(asyncio.create_task(one(job)))
                if not pending:
                    break
                done, pending = await asyncio.wait(pending, return_when=asyncio.FIRST_COMPLETED)
                failed = None
                for t in done:  # keep every sample that arrived before raising a failure
                    if t.exception() is not None:
                        failed = failed or t.exception()
                    else:
                        emit(*t.result())
                if failed is not None:
                    raise failed  # an LLMError ends the run; the store keeps what arrived
        except LLMError as e:
            raise LLMError(
                f"{self.settings.base_url}: a request failed (transient errors are retried up to "
                f"{self.settings.max_retries} times): {e}"
            ) from e
        finally:
            for t in pending:
                t.cancel()
            await asyncio.gather(*pending, return_exceptions=True)
            self.usage = dict(client.usage)
            await client.aclose()
