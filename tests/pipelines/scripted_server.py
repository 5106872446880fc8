"""A small OpenAI-compatible chat server with scripted faults, run as a real process on loopback.

    python tests/pipelines/scripted_server.py [--port 0] [--latency 0.2] [--max-concurrency 32]

Prints `PORT <n>` once listening. POST /v1/chat/completions answers from a script that tests
replace at run time with POST /admin/script:

    {"default": {"content": "..."},            # reply when no rule matches
     "rules": [{"match": "substring of the last user message",   # optional
                "times": 2,                    # optional: rule is used this many times
                "action": "reply|429|500|malformed|hang",
                "content": "...", "retry_after": 1, "latency": 0.5}]}

`content` may contain `{sample}` (a per-prompt request counter, 0, 1, 2, ...); a rule may also set
`finish_reason` ("stop" by default; "length" is a reply cut at max_tokens) and `tokens` (the
completion_tokens reported; default len(content) // 4 + 1). POST /v1/completions (a raw `prompt`
instead of messages) answers from the same script with a text-completion body. GET /admin/stats
returns request counts, connections accepted, the peak number of requests in flight and the
time-integral of requests in flight (the concurrency a client achieved, seen from the server);
POST /admin/reset clears them.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


class State:
    def __init__(self, latency: float, max_concurrency: int | None):
        self.lock = threading.Lock()
        self.latency = latency
        self.gate = threading.BoundedSemaphore(max_concurrency) if max_concurrency else None
        self.script: dict = {"default": {"content": "Answer: 0"}, "rules": []}
        self.reset()

    def reset(self) -> None:
        """New stats; requests still in flight from before (an earlier test's hung call) no longer count."""
        with self.lock:
            self.epoch = getattr(self, "epoch", 0) + 1
            self.stats = {
                "requests": 0,
                "by_action": {},
                "inflight": 0,
                "max_inflight": 0,
                "prompts": {},
                # the integral of requests in flight over time, and the first and last moment
                # any was in flight (time.monotonic()): busy_seconds / (last_end - first_start)
                # is the mean number in flight, the concurrency a client actually achieved
                "busy_seconds": 0.0,
                "first_start": None,
                "last_end": None,
                "connections": 0,
            }
            self._since = time.monotonic()

    def tick(self, delta: int) -> None:
        """A request enters (+1) or leaves (-1) flight; call with the lock held."""
        now, s = time.monotonic(), self.stats
        s["busy_seconds"] += s["inflight"] * (now - self._since)
        self._since = now
        s["inflight"] += delta
        if delta > 0:
            s["max_inflight"] = max(s["max_inflight"], s["inflight"])
            if s["first_start"] is None:
                s["first_start"] = now
        else:
            s["last_end"] = now

    def pick(self, text: str) -> dict:
        with self.lock:
            for rule in self.script.get("rules", []):
                if rule.get("match") and rule["match"] not in text:
                    continue
                if "times" in rule:
                    if rule["times"] <= 0:
                        continue
                    rule["times"] -= 1
                return rule
            return self.script.get("default", {})


STATE: State


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"  # keep-alive, as a real server would
    # TCP_NODELAY, as uvicorn (vLLM) sets it: the stdlib leaves Nagle on, and a reply goes out in
    # two writes (headers, then body), so the body waited for the client's delayed ACK (40 ms on
    # Linux) and every request took 240+ ms instead of the scripted 200 ms
    disable_nagle_algorithm = True

    def log_message(self, *args) -> None:  # quiet
        pass

    def setup(self) -> None:
        super().setup()
        with STATE.lock:
            STATE.stats["connections"] += 1

    def _send(self, code: int, body: bytes, headers: dict | None = None) -> None:
        self.send_response(code)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        for k, v in (headers or {}).items():
            self.send_header(k, str(v))
        self.end_headers()
        self.wfile.write(body)

    def _json(self, code: int, obj, headers: dict | None = None) -> None:
        self._send(code, json.dumps(obj).encode(), headers)

    def _body(self) -> dict:
        n = int(self.headers.get("Content-Length") or 0)
        return json.loads(self.rfile.read(n) or b"{}")

    def do_GET(self) -> None:
        if self.path == "/admin/stats":
            with STATE.lock:
                return self._json(200, STATE.stats)
        if self.path == "/v1/models":
            return self._json(200, {"object": "list", "data": [{"id": "scripted", "object": "model"}]})
        self._json(404, {"error": {"message": "not found"}})

    def do_POST(self) -> None:
        if self.path == "/admin/script":
            script = self._body()
            with STATE.lock:
                STATE.script = script
                if "latency" in script:
                    STATE.latency = float(script["latency"])
            return self._json(200, {"ok": True})
        if self.path == "/admin/reset":
            STATE.reset()
            return self._json(200, {"ok": True})
        if self.path not in ("/v1/chat/completions", "/v1/completions"):
            return self._json(404, {"error": {"message": "not found"}})
        req = self._body()
        if STATE.gate:
            STATE.gate.acquire()
        try:
            self._complete(req)
        finally:
            if STATE.gate:
                STATE.gate.release()

    def _complete(self, req: dict) -> None:
        chat = self.path == "/v1/chat/completions"
        messages = (
            (req.get("messages") or []) if chat else [{"role": "user", "content": req.get("prompt", "")}]
        )
        text = messages[-1]["content"] if messages else ""
        rule = STATE.pick(text)
        action = rule.get("action", "reply")
        with STATE.lock:
            s = STATE.stats
            s["requests"] += 1
            s["by_action"][action] = s["by_action"].get(action, 0) + 1
            STATE.tick(+1)
            epoch = STATE.epoch
            key = str(hash(text))
            sample = s["prompts"].get(key, 0)
            s["prompts"][key] = sample + 1
        try:
            time.sleep(float(rule.get("latency", STATE.latency)))
            if action == "429":
                return self._json(
                    429,
                    {"error": {"message": "rate limited", "type": "rate_limit"}},
                    {"Retry-After": rule.get("retry_after", 0)},
                )
            if action == "500":
                return self._json(500, {"error": {"message": "scripted failure"}})
            if action == "malformed":
                return self._send(200, b'{"id": "x", "choices": [ {"message": ')
            if action == "hang":
                time.sleep(float(rule.get("hang_s", 30)))
                return self._json(500, {"error": {"message": "hung"}})
            content = str(rule.get("content", "")).replace("{sample}", str(sample))
            prompt_tokens = sum(len(m.get("content", "")) for m in messages) // 4 + 1
            completion_tokens = int(rule.get("tokens", len(content) // 4 + 1))
            finish = rule.get("finish_reason", "stop")
            if chat:
                choice = {
                    "index": 0,
                    "message": {"role": "assistant", "content": content},
                    "finish_reason": finish,
                }
            else:
                choice = {"index": 0, "text": content, "logprobs": None, "finish_reason": finish}
            self._json(
                200,
                {
                    "id": f"{'chatcmpl' if chat else 'cmpl'}-{time.monotonic_ns()}",
                    "object": "chat.completion" if chat else "text_completion",
                    "created": int(time.time()),
                    "model": req.get("model", "scripted"),
                    "choices": [choice],
                    "usage": {
                        "prompt_tokens": prompt_tokens,
                        "completion_tokens": completion_tokens,
                        "total_tokens": prompt_tokens + completion_tokens,
                    },
                },
            )
        except (BrokenPipeError, ConnectionResetError):
            pass  # the client gave up (timeout); nothing to answer
        finally:
            with STATE.lock:
                if STATE.epoch == epoch:  # a request from before a reset left the old stats
                    STATE.tick(-1)


class Server(ThreadingHTTPServer):
    daemon_threads = True
    # the listen() backlog: a class attribute, because the constructor already listens (set on
    # the instance afterwards, as this file once did, the stdlib's 5 stayed): 32 clients
    # connecting at once overflowed the accept queue and some connections were reset a second
    # later (ReadError, one retry each)
    request_queue_size = 1024


class ScriptedServer:
    """Start this file as a subprocess on a free loopback port; drive it over HTTP."""

    def __init__(self, latency: float = 0.0, max_concurrency: int | None = None):
        import subprocess

        cmd = [sys.executable, __file__, "--latency", str(latency)]
        if max_concurrency:
            cmd += ["--max-concurrency", str(max_concurrency)]
        self.proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, text=True)
        line = self.proc.stdout.readline()
        if not line.startswith("PORT "):
            self.proc.kill()
            raise RuntimeError(f"scripted server did not start: {line!r}")
        self.port = int(line.split()[1])
        self.base_url = f"http://127.0.0.1:{self.port}/v1"

    def _call(self, path: str, payload: dict | None = None) -> dict:
        import urllib.request

        data = None if payload is None else json.dumps(payload).encode()
        req = urllib.request.Request(
            f"http://127.0.0.1:{self.port}{path}", data=data, method="POST" if data else "GET"
        )
        with urllib.request.urlopen(req, timeout=10) as r:
            return json.loads(r.read())

    def script(self, default: str | dict = "Answer: 0", rules: list[dict] | None = None, **extra) -> None:
        default = {"content": default} if isinstance(default, str) else default
        self._call("/admin/script", {"default": default, "rules": rules or [], **extra})
        self._call("/admin/reset", {})

    def reset(self) -> None:
        """Clear the counters, keeping the script."""
        self._call("/admin/reset", {})

    def stats(self) -> dict:
        return self._call("/admin/stats")

    def close(self) -> None:
        self.proc.kill()
        self.proc.wait(timeout=10)

    def __enter__(self) -> ScriptedServer:
        return self

    def __exit__(self, *exc) -> None:
        self.close()


def main() -> None:
    global STATE
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--port", type=int, default=0)
    ap.add_argument("--latency", type=float, default=0.0)
    ap.add_argument("--max-concurrency", type=int, default=None)
    args = ap.parse_args()
    STATE = State(args.latency, args.max_concurrency)
    server = Server(("127.0.0.1", args.port), Handler)
    print(f"PORT {server.server_address[1]}", flush=True)
    with contextlib.suppress(KeyboardInterrupt):
        server.serve_forever(poll_interval=0.05)


if __name__ == "__main__":
    main()
