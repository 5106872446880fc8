"""The fetcher against a real HTTP server on loopback: cache, robots.txt, rate limit, retries, offline."""

import threading
import time
from collections import Counter
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from pipelines.sources.fetch import USER_AGENT, Fetcher, FetchError, saved_page_candidates

ROBOTS = "User-agent: *\nDisallow: /private/\n"


class _Handler(BaseHTTPRequestHandler):
    hits: Counter
    agents: list

    def log_message(self, *args):  # keep pytest output clean
        pass

    def _send(self, status: int, body: str = "", headers: dict | None = None):
        data = body.encode()
        self.send_response(status)
        self.send_header("Content-Type", "text/html; charset=utf-8")
        self.send_header("Content-Length", str(len(data)))
        for k, v in (headers or {}).items():
            self.send_header(k, v)
        self.end_headers()
        self.wfile.write(data)

    def do_GET(self):
        self.hits[self.path] += 1
        self.agents.append(self.headers.get("User-Agent"))
        n = self.hits[self.path]
        if self.path == "/robots.txt":
            return self._send(200, ROBOTS)
        if self.path.startswith("/wiki/index.php/"):
            return self._send(200, f"<html><body>page {self.path} é</body></html>")
        if self.path == "/flaky":  # 503 twice, then fine
            return self._send(503) if n <= 2 else self._send(200, "recovered")
        if self.path == "/busy":  # 429 asking to wait a moment
            return self._send(429, headers={"Retry-After": "0.2"}) if n == 1 else self._send(200, "served")
        if self.path == "/slow":  # first answer too late for the client's timeout
            if n == 1:
                time.sleep(1.0)
            return self._send(200, "on time")
        if self.path == "/down":
            return self._send(500)
        return self._send(404, "no such page")


@pytest.fixture
def server():
    handler = type("H", (_Handler,), {"hits": Counter(), "agents": []})
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=httpd.serve_forever, args=(0.05,), daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{httpd.server_address[1]}", handler
    httpd.shutdown()
    httpd.server_close()


def _fetcher(tmp_path, **kw):
    kw = {"rate_limit": 100.0, "backoff": 0.01, "timeout": 0.5, "max_retries": 3} | kw
    return Fetcher(tmp_path / "cache", **kw)


def test_fetches_once_then_serves_from_cache(server, tmp_path):
    base, h = server
    url = f"{base}/wiki/index.php/2024_AIME_I_Problems/Problem_1"
    with _fetcher(tmp_path) as f:
        assert "2024_AIME_I_Problems/Problem_1 é" in f.get(url)
        assert f.get(url) == f.get(url)
    assert h.hits["/wiki/index.php/2024_AIME_I_Problems/Problem_1"] == 1
    assert h.hits["/robots.txt"] == 1
    assert set(h.agents) == {USER_AGENT}
    # A fresh fetcher on the same cache makes no request at all, robots.txt included.
    with _fetcher(tmp_path) as f:
        assert "Problem_1" in f.get(url)
        assert f.requests == 0
    assert sum(h.hits.values()) == 2


def test_robots_txt_is_honoured(server, tmp_path):
    base, h = server
    with _fetcher(tmp_path) as f, pytest.raises(FetchError, match="robots.txt .* disallows .*/private/x"):
        f.get(f"{base}/private/x")
    assert h.hits["/private/x"] == 0
    with _fetcher(tmp_path / "b", respect_robots=False) as f, pytest.raises(FetchError, match="HTTP 404"):
        f.get(f"{base}/private/x")
    assert h.hits["/private/x"] == 1


def test_retries_503_429_and_timeouts_then_succeeds(server, tmp_path):
    base, h = server
    with _fetcher(tmp_path) as f:
        assert f.get(f"{base}/flaky") == "recovered"
        t0 = time.monotonic()
        assert f.get(f"{base}/busy") == "served"
        assert time.monotonic() - t0 >= 0.2  # Retry-After was respected
        assert f.get(f"{base}/slow") == "on time"
    assert h.hits["/flaky"] == 3
    assert h.hits["/busy"] == 2
    assert h.hits["/slow"] == 2


def test_gives_up_with_a_clear_error(server, tmp_path):
    base, h = server
    with _fetcher(tmp_path, max_retries=2) as f:
        with pytest.raises(FetchError, match=r"/down failed with HTTP 500 after 3 attempts"):
            f.get(f"{base}/down")
        with pytest.raises(FetchError, match="HTTP 404"):
            f.get(f"{base}/missing")
    assert h.hits["/down"] == 3
    assert not list((tmp_path / "cache").rglob("*.tmp"))
    # Failures are not cached: only robots.txt is.
    assert len(list((tmp_path / "cache").rglob("*.html"))) == 1


def test_rate_limit_spaces_requests(server, tmp_path):
    base, _ = server
    with _fetcher(tmp_path, rate_limit=10.0) as f:
        t0 = time.monotonic()
        for i in range(4):
            f.get(f"{base}/wiki/index.php/P{i}")
        elapsed = time.monotonic() - t0
    # robots.txt + 4 pages = 5 requests, at least 4 gaps of 0.1 s
    assert elapsed >= 0.4


def test_offline_reads_cache_and_saved_pages_and_names_what_is_missing(server, tmp_path):
    base, h = server
    url = f"{base}/wiki/index.php/A_Page"
    with _fetcher(tmp_path) as f:
        f.get(url)
    before = sum(h.hits.values())
    saved = tmp_path / "saved" / "2024_AIME_I_Problems"
    saved.mkdir(parents=True)
    (saved / "Problem_2.html").write_text("<p>saved copy</p>", encoding="utf-8")
    with Fetcher(tmp_path / "cache", offline=True, saved_pages=tmp_path / "saved") as f:
        assert "A_Page" in f.get(url)
        assert f.get("https://artofproblemsolving.com/wiki/index.php/2024_AIME_I_Problems/Problem_2") == (
            "<p>saved copy</p>"
        )
        with pytest.raises(FetchError, match=r"offline: .*Problem_3 is not in .*cache or .*saved"):
            f.get(f"{base}/wiki/index.php/2024_AIME_I_Problems/Problem_3")
    assert sum(h.hits.values()) == before


def test_saved_page_candidates_cover_mirrors_titles_and_query_urls():
    c = saved_page_candidates("https://h.org/wiki/index.php/2024_AIME_I_Problems/Problem_1")
    assert c[0] == "h.org/wiki/index.php/2024_AIME_I_Problems/Problem_1"
    assert "2024_AIME_I_Problems/Problem_1.html" in c
    c = saved_page_candidates("https://h.org/wiki/index.php?title=2024_AIME_I_Answer_Key&action=raw")
    assert "2024_AIME_I_Answer_Key.html" in c


def test_bad_settings_are_refused(tmp_path):
    with pytest.raises(ValueError, match="rate_limit"):
        Fetcher(tmp_path, rate_limit=0)
    with pytest.raises(FetchError, match="saved pages folder .* does not exist"):
        Fetcher(tmp_path, offline=True, saved_pages=tmp_path / "nope")
