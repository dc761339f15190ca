"""The load side of the API benchmark: a small, bounded HTTP client in its own process.

Reads a plan (JSON) on stdin, runs each phase with one thread per client over http.client, and
prints the measurements (JSON) on stdout. Every phase stops after its request count or its time
limit, whichever comes first, so the benchmark always ends by itself. Only 127.0.0.1 is allowed.
"""

from __future__ import annotations

import http.client
import json
import statistics
import sys
import threading
import time
from urllib.parse import urlsplit


def _percentile(samples: list[float], fraction: float) -> float:
    ordered = sorted(samples)
    return ordered[min(len(ordered) - 1, int(fraction * len(ordered)))] if ordered else 0.0


def run_phase(host: str, port: int, token: str, requests: list[list[dict]], seconds: float):
    """One thread per client, each sending its own list of requests until done or out of time."""
    latencies: list[list[float]] = [[] for _ in requests]
    outcomes: list[list[dict]] = [[] for _ in requests]
    start_line = threading.Barrier(len(requests) + 1)
    deadline: list[float] = [0.0]

    def client(index: int) -> None:
        start_line.wait()
        for planned in requests[index]:
            if time.perf_counter() > deadline[0]:
                return
            headers = {"Authorization": f"Bearer {token}", "Accept": "application/json"}
            body = None
            if planned.get("body") is not None:
                body = json.dumps(planned["body"]).encode()
                headers["Content-Type"] = "application/json"
            if planned.get("key"):
                headers["Idempotency-Key"] = planned["key"]
            began = time.perf_counter()
            try:
                connection = http.client.HTTPConnection(host, port, timeout=10)
                connection.request(planned["method"], planned["path"], body=body, headers=headers)
                response = connection.getresponse()
                payload = response.read()
                connection.close()
            except OSError as exc:
                outcomes[index].append({"status": 0, "error": str(exc)})
                continue
            latencies[index].append(time.perf_counter() - began)
            outcome = {"status": response.status}
            if planned.get("key") and response.status in (200, 201):
                outcome["key"] = planned["key"]
                outcome["id"] = json.loads(payload)["id"]
            outcomes[index].append(outcome)

    threads = [threading.Thread(target=client, args=(i,)) for i in range(len(requests))]
    for thread in threads:
        thread.start()
    deadline[0] = time.perf_counter() + seconds
    began = time.perf_counter()
    start_line.wait()
    for thread in threads:
        thread.join()
    elapsed = time.perf_counter() - began
    flat = [sample for samples in latencies for sample in samples]
    results = [outcome for per_client in outcomes for outcome in per_client]
    statuses: dict[str, int] = {}
    for outcome in results:
        statuses[str(outcome["status"])] = statuses.get(str(outcome["status"]), 0) + 1
    ok = [o for o in results if 200 <= o["status"] < 300]
    return {
        "requests": len(results),
        "ok": len(ok),
        "statuses": statuses,
        "seconds": round(elapsed, 3),
        "per_second": round(len(ok) / elapsed, 1) if elapsed else 0.0,
        "p50_ms": round(_percentile(flat, 0.50) * 1000, 2),
        "p90_ms": round(_percentile(flat, 0.90) * 1000, 2),
        "p99_ms": round(_percentile(flat, 0.99) * 1000, 2),
        "max_ms": round(max(flat, default=0.0) * 1000, 2),
        "mean_ms": round(statistics.fmean(flat) * 1000, 2) if flat else 0.0,
        "acknowledged": [{"key": o["key"], "id": o["id"]} for o in ok if "key" in o],
        "latencies_ms": [round(sample * 1000, 3) for sample in flat],
    }


def main() -> int:
    plan = json.load(sys.stdin)
    parts = urlsplit(plan["url"])
    if parts.hostname != "127.0.0.1":
        raise SystemExit("The load client only talks to 127.0.0.1.")
    report = {}
    for phase in plan["phases"]:
        report[phase["name"]] = run_phase(
            parts.hostname, parts.port, plan["token"], phase["requests"], phase["seconds"]
        )
    json.dump(report, sys.stdout)
    return 0


if __name__ == "__main__":
    sys.exit(main())
