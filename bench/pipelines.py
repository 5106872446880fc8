"""Benchmark: the LLM rewriting stage against the scripted OpenAI-compatible server.

The server answers every request after 200 ms; the client may have 32 requests in flight, so
the server's capacity is 32 / 0.2 = 160 requests/s. We run the real rewrite stage (runner +
rules + LLM client + Parquet shards) over N records that the rules cannot rewrite, report the
achieved requests/s as a share of that capacity (target >= 90%), then run the stage again on
a fresh output with the same cache: it must make zero requests.

    .venv/bin/python bench/pipelines.py [--n 1600] [--latency 0.2] [--concurrency 32]

Writes bench/results/pipelines.json and prints it.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
# this file is named like the package it measures: keep bench/ off the import path
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != ROOT / "bench"]
sys.path[:0] = [str(ROOT), str(ROOT / "tests" / "pipelines")]

from scripted_server import ScriptedServer  # noqa: E402

REPLY = (
    "<format>A set of ordered pairs.</format>\n<problem>Find the sum of all coordinates of the "
    "solutions.</problem>\n<solution>Add them.</solution>\n<answer>42</answer>"
)


def records(n: int) -> list[dict]:
    from mathdata.schema import new_record

    return [
        new_record(
            source="bench",
            original_problem=f"Find all pairs (x, y) with x + y = {i}.",
            original_answer=f"({i}, 0), (0, {i})",
        )
        for i in range(n)
    ]


async def stage(recs: list[dict], out: Path, settings, cache: Path, server) -> tuple[float, dict]:
    from pipelines.llm import LLMClient
    from pipelines.rewrite import rewrite_record
    from pipelines.runner import run_stage_async

    client = LLMClient(settings, cache_dir=cache)
    await client.complete([{"role": "user", "content": "warm-up"}])  # imports and connection set-up
    client.usage = dict.fromkeys(client.usage, 0)
    server.reset()  # the server's counters cover the stage alone, like the clock below
    t0 = time.perf_counter()
    try:
        stats = await run_stage_async(
            "rewrite",
            recs,
            out,
            lambda r: rewrite_record(r, client),
            chunk_size=256,
            window=4 * settings.concurrency,
        )
    finally:
        await client.aclose()
    elapsed = time.perf_counter() - t0
    assert stats.status.get("kept") == len(recs), stats.status
    return elapsed, client.usage


def _cpu_seconds(pid: int) -> float:
    """User + system CPU seconds of a process (Linux /proc)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=1600)
    ap.add_argument("--latency", type=float, default=0.2)
    ap.add_argument("--concurrency", type=int, default=32)
    args = ap.parse_args()

    from pipelines.llm import LLMSettings

    recs = records(args.n)
    capacity = args.concurrency / args.latency
    with ScriptedServer(latency=args.latency) as server, tempfile.TemporaryDirectory() as tmp:
        server.script(REPLY)
        settings = LLMSettings(
            enabled=True, base_url=server.base_url, model="scripted", concurrency=args.concurrency
        )
        cache = Path(tmp) / "cache"
        cpu0, srv0 = time.process_time(), _cpu_seconds(server.proc.pid)
        cold_s, cold = asyncio.run(stage(recs, Path(tmp) / "out1", settings, cache, server))
        client_cpu, server_cpu = time.process_time() - cpu0, _cpu_seconds(server.proc.pid) - srv0
        served = server.stats()
        mean_inflight = served["busy_seconds"] / (served["last_end"] - served["first_start"])
        server.script(REPLY)  # resets the counters
        warm_s, warm = asyncio.run(stage(recs, Path(tmp) / "out2", settings, cache, server))
        rerun_requests = server.stats()["requests"]
    rps = cold["requests"] / cold_s
    result = {
        "benchmark": "pipelines LLM stage vs scripted server",
        "records": args.n,
        "latency_s": args.latency,
        "concurrency": args.concurrency,
        "server_capacity_rps": capacity,
        "achieved_rps": round(rps, 1),
        "share_of_capacity": round(rps / capacity, 3),
        "target_share": 0.9,
        "meets_target": rps / capacity >= 0.9,
        "server_peak_inflight": served["max_inflight"],
        # seen from the server: the time-average of requests in flight from the first request's
        # arrival to the last reply, and how many connections the client opened (keep-alive: one
        # per slot, not one per request)
        "server_mean_inflight": round(mean_inflight, 1),
        "server_new_connections": served["connections"],
        "cold_seconds": round(cold_s, 2),
        "cold_usage": cold,
        "rerun_seconds": round(warm_s, 2),
        "rerun_requests_seen_by_server": rerun_requests,
        "rerun_cache_hits": warm["cache_hits"],
        "rerun_zero_requests": rerun_requests == 0 and warm["requests"] == 0,
        "client_cpu_ms_per_request": round(1000 * client_cpu / cold["requests"], 2),
        "server_cpu_ms_per_request": round(1000 * server_cpu / cold["requests"], 2),
        "client_cores_needed_at_capacity": round(client_cpu / cold["requests"] * capacity, 2),
        "cpu_count": os.cpu_count(),
        "load_average_1m": round(os.getloadavg()[0], 1),
    }
    out = ROOT / "bench" / "results" / "pipelines.json"
    out.parent.mkdir(parents=True, exist_ok=True)
    tmp_file = out.with_suffix(".json.tmp")
    tmp_file.write_text(json.dumps(result, indent=2) + "\n")
    os.replace(tmp_file, out)
    print(json.dumps(result, indent=2))
    print(
        f"LLM stage: {rps:.1f} req/s of {capacity:.0f} capacity = {100 * rps / capacity:.1f}% "
        f"(target >= 90%); {mean_inflight:.1f} of {args.concurrency} in flight on average at the "
        f"server, {served['connections']} new connections; re-run requests: {rerun_requests}; client CPU "
        f"{result['client_cpu_ms_per_request']} ms/request; load average {result['load_average_1m']} on "
        f"{os.cpu_count()} cores"
    )


if __name__ == "__main__":
    main()
