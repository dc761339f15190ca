"""bench/faults.py: each fault is broken, brought back and checked; what the check saw is kept."""

from __future__ import annotations

import importlib.util
import os
import subprocess
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

spec = importlib.util.spec_from_file_location(
    "bench_faults", Path(__file__).resolve().parents[2] / "bench" / "faults.py"
)
faults = importlib.util.module_from_spec(spec)
sys.modules["bench_faults"] = faults
spec.loader.exec_module(faults)


@pytest.fixture
def server(tmp_path):
    """A stand-in for /health/: 503 while the flag file exists (the part is down)."""
    flag = tmp_path / "down"

    class Health(BaseHTTPRequestHandler):
        def do_GET(self):
            down = flag.exists()
            body = b'{"database": "ok", "cache": "%s"}' % (b"unavailable" if down else b"ok")
            self.send_response(503 if down else 200)
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args):
            pass

    httpd = ThreadingHTTPServer(("127.0.0.1", 0), Health)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{httpd.server_address[1]}", flag
    httpd.shutdown()


def test_a_part_down_then_back_is_seen_as_503_then_recovered(server):
    url, flag = server
    fault = faults.Fault("redis", stop=f"touch {flag}", start=f"rm {flag}", down_for=0.3)
    plan = faults.FaultPlan(base_url=url, faults=[fault], poll=0.05, timeout=5)
    (result,) = plan.run()
    assert result.statuses["503"] >= 1
    assert result.after_return == {"200": 1}
    assert result.recovered_after is not None
    assert not flag.exists()
    assert "| redis |" in faults.format_results([result])


def test_a_part_that_never_returns_is_reported_not_recovered(server):
    url, flag = server
    fault = faults.Fault("redis", stop=f"touch {flag}", start="true", down_for=0.1)
    plan = faults.FaultPlan(base_url=url, faults=[fault], poll=0.05, timeout=0.5)
    (result,) = plan.start().join()
    assert result.recovered_after is None
    assert not result.ok
    assert set(result.after_return) == {"503"}
    assert "MISSED" in faults.format_results([result])


def test_a_failing_command_stops_the_plan_saying_which(server):
    url, _ = server
    plan = faults.FaultPlan(base_url=url, faults=[faults.Fault("redis", stop="false", start="")])
    with pytest.raises(RuntimeError, match="'false' failed"):
        plan.start().join()


def test_a_master_s_workers_are_its_children():
    child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(30)"])
    try:
        assert child.pid in faults.workers_of(os.getpid())
    finally:
        child.kill()
        child.wait()


def test_the_worker_fault_needs_the_master_s_pid(server):
    url, _ = server
    with pytest.raises(ValueError, match="master's pid"):
        faults.FaultPlan(base_url=url, faults=[faults.Fault("worker")]).run()


def test_the_runner_takes_its_commands_from_the_command_line(server, capsys):
    url, flag = server
    code = faults.main(
        [
            "--url", url, "--only", "redis", "--down-for", "0.2",
            "--redis-stop", f"touch {flag}", "--redis-start", f"rm {flag}",
            "--redis-up", f"test ! -e {flag}",
        ]
    )  # fmt: skip
    assert code == 0
    assert "| redis |" in capsys.readouterr().out


def test_with_other_instances_a_fault_is_recovered_only_when_every_one_answers(tmp_path):
    flags = [tmp_path / "first-down", tmp_path / "second-down"]
    urls = []
    servers = []
    for flag in flags:

        class Health(BaseHTTPRequestHandler):
            down = flag

            def do_GET(self):
                self.send_response(503 if self.down.exists() else 200)
                self.end_headers()
                self.wfile.write(b'{"database": "ok", "cache": "ok"}')

            def log_message(self, *args):
                pass

        httpd = ThreadingHTTPServer(("127.0.0.1", 0), Health)
        threading.Thread(target=httpd.serve_forever, daemon=True).start()
        servers.append(httpd)
        urls.append(f"http://127.0.0.1:{httpd.server_address[1]}")
    try:
        # The part's start brings back the first instance only; the second stays at 503.
        fault = faults.Fault(
            "redis", stop=f"touch {flags[0]} {flags[1]}", start=f"rm {flags[0]}", down_for=0.1
        )
        plan = faults.FaultPlan(
            base_url=urls[0], also_check=(urls[1],), faults=[fault], poll=0.05, timeout=0.5
        )
        (result,) = plan.run()
        assert result.recovered_after is None
        assert result.after_return["200"] >= 1  # the first instance
        assert result.after_return["503"] >= 1  # the second
    finally:
        for httpd in servers:
            httpd.shutdown()


def test_the_longest_a_plan_takes_is_each_part_down_and_recovering_at_the_goal():
    plan = faults.FaultPlan(
        base_url="http://127.0.0.1:9", settle=7, faults=faults.default_faults(3)
    )

    # worker: 0 s down; Redis and PostgreSQL 3 s each; 10 s recovery each; two settlings.
    assert plan.longest() == 3 + 3 + 3 * faults.RECOVERY_GOAL + 2 * 7


def test_restore_starts_only_the_parts_that_are_not_up(tmp_path):
    up = {kind: tmp_path / f"{kind}-up" for kind in ("redis", "postgresql")}
    up["redis"].touch()
    plan = faults.FaultPlan(
        base_url="http://127.0.0.1:9",
        faults=[
            faults.Fault("worker"),
            *(
                faults.Fault(kind, stop="false", start=f"touch {flag}", up=f"test -e {flag}")
                for kind, flag in up.items()
            ),
        ],
    )

    assert plan.restore() == ["postgresql"]
    assert up["postgresql"].exists()
    assert plan.restore() == []


def test_a_part_is_started_again_even_when_watching_it_fails(server, monkeypatch):
    url, flag = server
    fault = faults.Fault("redis", stop=f"touch {flag}", start=f"rm {flag}", down_for=5)
    plan = faults.FaultPlan(base_url=url, faults=[fault])

    def interrupted(until, seen):
        raise KeyboardInterrupt

    monkeypatch.setattr(plan, "_watch_until", interrupted)
    with pytest.raises(KeyboardInterrupt):
        plan.run()
    assert not flag.exists()
