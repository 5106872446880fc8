"""A polite HTTP fetcher: on-disk cache keyed by URL, robots.txt, a rate limit, retries.

Scraping a wiki is slow and the pages rarely change, so every page is fetched once and then
read from the cache; `offline=True` never touches the network and reads only the cache or a
folder of saved pages (a mirror such as `wget -r` writes, or plain `Title.html` files).
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import threading
import time
import urllib.robotparser
from datetime import UTC, datetime
from pathlib import Path
from urllib.parse import parse_qs, unquote, urlsplit

import httpx
from tenacity import RetryCallState, Retrying, retry_if_exception, stop_after_attempt

from mathdata.files import atomic_write

USER_AGENT = "dapo-toolkit-pipelines/0.1 (math corpus builder; polite: robots.txt, 1 req/s, cached)"
RETRY_STATUS = {429, 500, 502, 503, 504}


class FetchError(RuntimeError):
    """A page could not be had: disallowed, missing offline, or failed after retries."""


def _retryable(exc: BaseException) -> bool:
    if isinstance(exc, httpx.HTTPStatusError):
        return exc.response.status_code in RETRY_STATUS
    return isinstance(exc, httpx.TimeoutException | httpx.TransportError)


def saved_page_candidates(url: str) -> list[str]:
    """Relative paths under a saved-pages folder that may hold `url`, most specific first.

    `https://host/wiki/index.php/2024_AIME_I_Problems/Problem_1` is found as
    `host/wiki/index.php/2024_AIME_I_Problems/Problem_1[.html]`, ..., down to
    `2024_AIME_I_Problems/Problem_1[.html]` and `Problem_1[.html]`; `index.php?title=T` as `T`.
    """
    parts = urlsplit(url)
    path = unquote(parts.path).strip("/")
    title = parse_qs(parts.query).get("title")
    if title:
        path = title[0].strip("/")
    segments = [parts.netloc, *path.split("/")] if path else [parts.netloc]
    out = []
    for i in range(len(segments)):
        rel = "/".join(segments[i:])
        out += [rel, rel + ".html"]
    return out


class Fetcher:
    """GET pages politely; use as a context manager so the HTTP client is closed."""

    def __init__(
        self,
        cache_dir: str | os.PathLike | None = None,
        *,
        offline: bool = False,
        saved_pages: str | os.PathLike | None = None,
        rate_limit: float = 1.0,
        user_agent: str = USER_AGENT,
        timeout: float = 30.0,
        max_retries: int = 5,
        backoff: float = 1.0,
        respect_robots: bool = True,
    ) -> None:
        if rate_limit <= 0:
            raise ValueError(f"rate_limit is requests per second and must be > 0, got {rate_limit}")
        self.cache_dir = Path(cache_dir) if cache_dir else None
        self.saved_pages = Path(saved_pages) if saved_pages else None
        if self.saved_pages and not self.saved_pages.is_dir():
            raise FetchError(f"saved pages folder {self.saved_pages} does not exist")
        self.offline = offline
        self.interval = 1.0 / rate_limit
        self.user_agent = user_agent
        self.max_retries = max_retries
        self.backoff = backoff
        self.respect_robots = respect_robots
        self.requests = 0  # real HTTP requests made, robots.txt included
        self._client = (
            None
            if offline
            else httpx.Client(headers={"User-Agent": user_agent}, timeout=timeout, follow_redirects=True)
        )
        self._robots: dict[str, urllib.robotparser.RobotFileParser] = {}
        self._lock = threading.Lock()
        self._last_request = 0.0

    def __enter__(self) -> Fetcher:
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def close(self) -> None:
        if self._client is not None:
            self._client.close()

    # ---- cache -------------------------------------------------------------------------

    def _cache_path(self, url: str) -> Path | None:
        if self.cache_dir is None:
            return None
        h = hashlib.sha256(url.encode()).hexdigest()
        return self.cache_dir / h[:2] / f"{h}.html"

    def cached(self, url: str) -> str | None:
        """The page from the cache or the saved-pages folder, or None."""
        path = self._cache_path(url)
        if path is not None and path.exists():
            return path.read_text(encoding="utf-8")
        if self.saved_pages is not None:
            for rel in saved_page_candidates(url):
                p = self.saved_pages / rel
                if p.is_file():
                    return p.read_text(encoding="utf-8")
        return None

    def _store(self, url: str, text: str, status: int) -> None:
        path = self._cache_path(url)
        if path is None:
            return
        meta = {"url": url, "status": status, "retrieved_at": datetime.now(UTC).isoformat()}
        atomic_write(path.with_suffix(".json"), json.dumps(meta).encode())
        atomic_write(path, text.encode("utf-8"))

    # ---- network -----------------------------------------------------------------------

    def _wait_turn(self) -> None:
        with self._lock:
            delay = self._last_request + self.interval - time.monotonic()
            if delay > 0:
                time.sleep(delay)
            self._last_request = time.monotonic()

    def _wait_retry(self, state: RetryCallState) -> float:
        """Exponential backoff, or the server's Retry-After when it says more (capped at 60 s)."""
        wait = self.backoff * 2 ** (state.attempt_number - 1)
        exc = state.outcome.exception() if state.outcome else None
        if isinstance(exc, httpx.HTTPStatusError):
            with contextlib.suppress(ValueError):  # an HTTP date instead of seconds: ignore it
                wait = max(wait, float(exc.response.headers.get("Retry-After", 0)))
        return min(wait, 60.0)

    def _request(self, url: str) -> httpx.Response:
        def once() -> httpx.Response:
            self._wait_turn()
            self.requests += 1
            r = self._client.get(url)
            if r.status_code in RETRY_STATUS:
                r.raise_for_status()
            return r

        retrying = Retrying(
            retry=retry_if_exception(_retryable),
            stop=stop_after_attempt(self.max_retries + 1),
            wait=self._wait_retry,
            reraise=True,
        )
        try:
            return retrying(once)
        except httpx.HTTPStatusError as e:
            raise FetchError(
                f"GET {url} failed with HTTP {e.response.status_code} after {self.max_retries + 1} attempts"
            ) from e
        except (httpx.TimeoutException, httpx.TransportError) as e:
            raise FetchError(
                f"GET {url} failed after {self.max_retries + 1} attempts: {type(e).__name__}: {e}"
            ) from e

    def allowed(self, url: str) -> bool:
        """Whether the site's robots.txt lets our User-Agent fetch `url` (fetched once per host)."""
        if not self.respect_robots:
            return True
        parts = urlsplit(url)
        root = f"{parts.scheme}://{parts.netloc}"
        rp = self._robots.get(root)
        if rp is None:
            rp = urllib.robotparser.RobotFileParser(root + "/robots.txt")
            text = self.cached(root + "/robots.txt")
            if text is None:
                r = self._request(root + "/robots.txt")
                if r.status_code in (401, 403):
                    rp.disallow_all = True
                elif r.status_code >= 400:
                    rp.allow_all = True
                else:
                    text = r.text
                    self._store(root + "/robots.txt", text, r.status_code)
            if text is not None:
                rp.parse(text.splitlines())
            delay = rp.crawl_delay(self.user_agent)
            if delay:
                self.interval = max(self.interval, float(delay))
            self._robots[root] = rp
        return rp.can_fetch(self.user_agent, url)

    def get(self, url: str) -> str:
        """The page's text: from the cache if there, else fetched (never fetched when offline)."""
        text = self.cached(url)
        if text is not None:
            return text
        if self.offline:
            where = [str(p) for p in (self.cache_dir, self.saved_pages) if p]
            raise FetchError(
                f"offline: {url} is not in {' or '.join(where) or 'any cache (none configured)'}; "
                "fetch it once online, or save the page there"
            )
        if not self.allowed(url):
            raise FetchError(f"robots.txt of {urlsplit(url).netloc} disallows {url} for {self.user_agent!r}")
        r = self._request(url)
        if r.status_code >= 400:
            raise FetchError(f"GET {url} returned HTTP {r.status_code}")
        self._store(url, r.text, r.status_code)
        return r.text
