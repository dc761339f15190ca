"""The exam-day bench's fault mode: the plan it builds from the run's options and servers, the
runs it refuses, and how it judges what the plan and the learners met."""

from __future__ import annotations

import threading
from dataclasses import asdict
from types import SimpleNamespace

import pytest

from bench import exam_day, exam_faults, exam_report
from bench.faults import DEFAULT_COMMANDS, Fault, FaultPlan, FaultResult


def options(*argv: str):
    return exam_day.parser().parse_args(["--faults", *argv])


def test_the_plan_breaks_a_worker_of_the_first_instance_then_redis_then_postgresql():
    args = options("--fault-down-for", "3", "--fault-settle", "7")

    plan = exam_faults.plan_for(args, ["http://127.0.0.1:8001", "http://127.0.0.1:8002"], 4321)

    assert [fault.kind for fault in plan.faults] == ["worker", "redis", "postgresql"]
    assert (plan.base_url, plan.gunicorn_pid) == ("http://127.0.0.1:8001", 4321)
    assert plan.also_check == ("http://127.0.0.1:8002",)
    assert plan.settle == 7
    for fault in plan.faults[1:]:
        # This machine's real services, each brought back by its own start command.
        assert (fault.stop, fault.start, fault.up) == DEFAULT_COMMANDS[fault.kind]
        assert fault.down_for == 3
    assert "pg_ctlcluster --skip-systemctl-redirect" in plan.faults[2].stop


def test_a_run_too_short_for_the_plan_is_refused_saying_what_would_fit():
    args = options("--think-scale", "0.3", "--saves", "4")

    refusal = exam_faults.too_short(args)

    # First fault after 9 s (one shortest think), the plan up to 60 s; a learner may submit
    # after 5 shortest thinks, 45 s.
    assert "at least 69 s" in refusal
    assert "can submit after 45 s" in refusal
    assert "--think-scale to 0.5 or --saves to 7" in refusal
    assert exam_faults.too_short(options("--think-scale", "0.5", "--saves", "4")) == ""
    assert exam_faults.too_short(options("--think-scale", "0.3", "--saves", "7")) == ""


def test_without_the_default_delay_the_scale_it_names_fits():
    args = options("--think-scale", "0.1", "--fault-delay", "0", "--fault-settle", "5")

    refusal = exam_faults.too_short(args)

    assert "--think-scale to 0.34" in refusal  # 50 s of plan over 5 shortest thinks
    fitted = options("--think-scale", "0.34", "--fault-delay", "0", "--fault-settle", "5")
    assert exam_faults.too_short(fitted) == ""


def test_the_bench_refuses_before_starting_and_adds_no_hook_without_faults():
    with pytest.raises(SystemExit, match="--faults needs a steady part"):
        exam_day.fault_hooks(options("--think-scale", "0.2"))
    assert exam_day.fault_hooks(exam_day.parser().parse_args([])) == []
    assert len(exam_day.fault_hooks(options("--think-scale", "0.5"))) == 1


# --- the hook, against stand-in parts ---------------------------------------------------------


def test_the_hook_records_a_failing_plan_and_starts_again_what_it_left_down(tmp_path, monkeypatch):
    down = tmp_path / "redis-down"
    # The stop command stops the part and then fails: the plan stops there, the part down.
    broken = Fault(
        "redis", stop=f"touch {down} && false", start=f"rm {down}", up=f"test ! -e {down}"
    )
    monkeypatch.setattr(
        exam_faults,
        "plan_for",
        lambda args, urls, pid: FaultPlan(base_url=urls[0], gunicorn_pid=pid, faults=[broken]),
    )
    steady = SimpleNamespace(
        servers=[SimpleNamespace(url="http://127.0.0.1:9", process=SimpleNamespace(pid=1))],
        ended=threading.Event(),
    )

    record = exam_faults.hook(options("--fault-delay", "0"))(steady)

    assert "failed" in record["error"]
    assert record["restored"] == ["redis"]
    assert not down.exists()
    assert record["results"] == []
    assert record["submitting_began_meanwhile"] is False


# --- what the plan and the learners met -------------------------------------------------------


def result(kind: str, began_at: float, down: float, recovered: float | None, **statuses) -> dict:
    return asdict(
        FaultResult(
            kind=kind,
            began_at=began_at,
            down_seconds=down,
            recovered_after=recovered,
            statuses={"200": 3, **{k.removeprefix("s"): v for k, v in statuses.items()}},
        )
    )


def met(at: float, status: str = "503", *, clear: bool = True, trace: bool = False) -> dict:
    return {
        "kind": "save",
        "status": status,
        "at": at,
        "learner": "bench-learner-1",
        "clear": clear,
        "trace": trace,
        "sent_again": status in ("503", "no answer"),
    }


def exam_with(results: list[dict], interruptions: list[dict], error: str = "") -> dict:
    record = {"hook": "faults", "results": results, "error": error, "restored": []}
    return {"steady_hooks": [{"hook": "other"}, record], "interruptions": interruptions}


def test_each_interruption_belongs_to_the_fault_under_way_and_is_timed_from_its_return():
    results = [
        result("worker", 1000.0, 0.0, 0.8),
        result("postgresql", 1020.0, 5.0, 0.4, s503=40),
    ]
    interruptions = [
        met(1000.1, "no answer"),
        met(1021.0),
        met(1024.5),
        met(1026.5),  # 1.5 s after PostgreSQL returned (at 1025.0)
    ]

    faults = exam_faults.report(exam_with(results, interruptions))

    worker, postgresql = faults["faults"]
    assert worker["learners_after_return"] == {"no answer": 1}
    assert worker["learners_last_after_return"] == pytest.approx(0.1)
    assert postgresql["learners_during"] == {"503": 2}
    assert postgresql["learners_after_return"] == {"503": 1}
    assert postgresql["learners_last_after_return"] == pytest.approx(1.5)
    assert postgresql["sent_again"] == 3
    assert faults["unexplained"] == {}
    assert exam_faults.problems(faults) == []
    assert "| postgresql | 503×2 | 503×1 | 1.50 s | 3 |" in exam_faults.format_report(faults)


def test_a_slow_recovery_a_500_an_unclear_503_and_a_stack_trace_each_miss_the_goal():
    results = [
        result("redis", 1000.0, 5.0, 12.0),
        result("postgresql", 1030.0, 5.0, 0.5, s500=1),
    ]
    interruptions = [
        met(990.0),  # before any fault
        met(1016.5),  # 11.5 s after Redis returned
        met(1031.0, "500", trace=True),
        met(1032.0, clear=False),
    ]

    missed = exam_faults.problems(exam_faults.report(exam_with(results, interruptions)))

    assert missed == [
        "redis: /health/ not recovered within 10 s",
        "redis: learners' requests still failed 11.5 s after its return",
        "postgresql: /health/ answered 500",
        "postgresql: 1 × 5xx other than 503",
        "postgresql: 1 × 503 without the outage page or Retry-After",
        "postgresql: 1 × stack trace",
        "interrupted before any fault: {'503': 1}",
    ]


def test_a_plan_that_never_ran_or_stopped_misses_the_goal():
    assert exam_faults.problems(exam_faults.report({"steady_hooks": []})) == [
        "the fault plan did not run (the steady part never began)"
    ]
    stopped = exam_faults.report(exam_with([], [], error="RuntimeError: 'x' failed (1)"))
    assert exam_faults.problems(stopped) == ["the fault plan stopped: RuntimeError: 'x' failed (1)"]
    assert exam_faults.format_report({"ran": False}) == "faults: the plan did not run"


# --- the run's verdict --------------------------------------------------------------------------


def run_report(*, faults: dict | None = None, interruptions=(), **stored) -> dict:
    report = {
        "exam": {
            "learners": 200,
            "errors": {},
            "interruptions": list(interruptions),
            "requests": {},
            "last_attempt_page_s": 3.0,
        },
        "stored": {
            "missing": 0,
            "duplicated": 0,
            "submits_not_stored": 0,
            "partial_sheets": 0,
            "learners_submitted": 200,
            "learners": 200,
            **stored,
        },
    }
    if faults is not None:
        report["faults"] = faults
    return report


def test_the_verdict_counts_the_faults_misses_and_lost_or_partial_work():
    clean = exam_faults.report(exam_with([result("worker", 1000.0, 0.0, 0.5)], [met(1000.2)]))
    slow = exam_faults.report(exam_with([result("worker", 1000.0, 0.0, 14.0)], []))

    assert exam_report.verdict(run_report(faults=clean)) == []
    assert exam_report.verdict(run_report(faults=slow)) == [
        "worker: /health/ not recovered within 10 s"
    ]
    assert exam_report.verdict(run_report(faults=clean, missing=2, partial_sheets=1)) == [
        "acknowledged work not stored once",
        "1 sheets stored in part",
    ]


def test_without_faults_a_request_sent_again_after_a_503_is_a_miss():
    assert exam_report.verdict(run_report(interruptions=[met(1.0), met(2.0, "timeout")])) == [
        "1 requests answered 503 or dropped, sent again"
    ]
