"""The exam-day bench's verdict and printout: the goals a run is held to, what it missed of
them, and the report printed as tables (count, p50, p95, p99, max per kind of request)."""

from __future__ import annotations

from bench import exam_faults

GOALS = {  # learners: (seconds to the last attempt page, saves p99 in ms)
    3000: (20.0, 1000.0),
    1000: (7.0, 300.0),
}


def verdict(report: dict) -> list[str]:
    """What the run missed of the goals (empty: every goal met)."""
    exam, stored = report["exam"], report["stored"]
    problems = []
    if exam["errors"]:
        problems.append(f"errors {exam['errors']}")
    if stored["missing"] or stored["duplicated"] or stored["submits_not_stored"]:
        problems.append("acknowledged work not stored once")
    if stored.get("partial_sheets"):
        problems.append(f"{stored['partial_sheets']} sheets stored in part")
    if "faults" in report:
        problems += exam_faults.problems(report["faults"])
    else:
        resent = sum(1 for i in exam.get("interruptions", []) if i["sent_again"])
        if resent:
            problems.append(f"{resent} requests answered 503 or dropped, sent again")
    if stored["learners_submitted"] != stored["learners"]:
        problems.append(
            f"{stored['learners'] - stored['learners_submitted']} learners not submitted"
        )
    goal = GOALS.get(exam["learners"])
    if goal:
        seconds, p99 = goal
        if exam["last_attempt_page_s"] is None or exam["last_attempt_page_s"] > seconds:
            problems.append(f"last attempt page {exam['last_attempt_page_s']} s > {seconds} s")
        saves_p99 = exam["requests"].get("save", {}).get("p99_ms", 0)
        if saves_p99 >= p99:
            problems.append(f"saves p99 {saves_p99} ms ≥ {p99} ms")
    return problems


def print_report(report: dict) -> None:
    if "signin" in report:
        signin = report["signin"]
        print(
            f"\nsign-in: {signin['signed_in']}/{signin['learners']} in {signin['seconds']} s = "
            f"{signin['per_second']} sign-ins/s; errors {signin['errors'] or 'none'}"
        )
        print_requests(signin["requests"])
    exam, stored = report["exam"], report["stored"]
    print(
        f"\nexam: {exam['learners']} learners, {exam['instances']} instance(s) "
        f"({exam['switching']} switching), {exam['seconds']} s; phases {exam['phases_s']}"
    )
    print(
        f"last learner on the attempt page {exam['last_attempt_page_s']} s after the start; "
        f"{exam['reached']} reached it, {exam['submitted']} submitted; "
        f"errors {exam['errors'] or 'none'}"
    )
    print_requests(exam["requests"])
    if "faults" in report:
        print("\n" + exam_faults.format_report(report["faults"]) + "\n")
    print(
        f"stored: {stored['stored']}/{stored['acknowledged']} acknowledged answers, "
        f"{stored['missing']} missing, {stored['duplicated']} duplicated, "
        f"{stored['unacknowledged']} unacknowledged; submits {stored['submits_acknowledged']} "
        f"acknowledged, {stored['submits_not_stored']} not stored; "
        f"{stored['learners_submitted']}/{stored['learners']} learners submitted; "
        f"{stored.get('partial_sheets', 0)} sheets stored in part"
    )
    problems = verdict(report)
    checked = "goals" if exam["learners"] in GOALS else "goals (no speed goal for this N)"
    print(f"{checked}: " + ("met" if not problems else "MISSED: " + "; ".join(problems)))


def print_requests(requests: dict) -> None:
    print(f"  {'request':<16}{'count':>7}{'p50 ms':>9}{'p95 ms':>9}{'p99 ms':>9}{'max ms':>9}")
    for kind, stats in requests.items():
        if stats["count"]:
            print(
                f"  {kind:<16}{stats['count']:>7}{stats['p50_ms']:>9}{stats['p95_ms']:>9}"
                f"{stats['p99_ms']:>9}{stats['max_ms']:>9}"
            )
