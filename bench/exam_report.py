"""The exam-day bench's verdict and printout: the goals a run is held to (issue 22), what it
missed of them, and the report printed as tables (count, p50, p95, p99, max per kind of request;
whole-box CPU per phase, with the load average at each phase's start and end)."""

from __future__ import annotations

from bench import exam_faults
from bench.exam_cpu import GROUPS, arrival_less_idle, submit_less_saves

GOALS = {  # learners: (seconds from the opening to the last attempt page, saves p99 in ms)
    3000: (35.0, 2000.0),
    1000: (10.0, 500.0),
}
# Whole-box CPU (application, PostgreSQL, Redis, load generator) per unit of a phase, in ms.
CPU_GOALS_MS = {"start": 15.0, "saves": 10.0}
# A run counts only on a quiet machine: the 1-minute load average at its start at most this.
QUIET_LOAD = 1.5
# 3,000 learners' goals beyond speed, which the verdict checks for every run anyway.
GUARANTEES = ("no error", "nothing lost", "every learner submits")


def quiet(load_average: tuple[float, float, float] | list[float]) -> bool:
    return load_average[0] <= QUIET_LOAD


def goals(report: dict) -> list[tuple[str, str, bool]]:
    """Each goal that applies to the run: what it asks, what the run measured, and whether the
    figure meets it (a goal counts as met only when the run is also quiet, see `verdict`)."""
    exam, stored = report["exam"], report["stored"]
    rows = []
    for phase, limit in CPU_GOALS_MS.items():
        figure = exam.get("cpu", {}).get(phase, {}).get("ms_per_unit")
        if figure is not None:
            unit, text, met = exam["cpu"][phase]["unit"], f"{figure} ms", figure <= limit
            reached = exam.get("reached", exam["learners"])
            if phase == "start" and reached < exam["learners"]:
                # The phase then ended with the give-ups: it holds retries and others' saves.
                text += f" ({reached}/{exam['learners']} reached the attempt page)"
                met = False
            rows.append((f"{phase}: ≤ {limit:g} ms CPU per {unit}", text, met))
    if exam["learners"] in GOALS:
        seconds, p99 = GOALS[exam["learners"]]
        last = exam["last_attempt_page_s"]
        rows.append(
            (
                f"last on the attempt page ≤ {seconds:g} s",
                f"{last} s",
                last is not None and last <= seconds,
            )
        )
        saves_p99 = exam["requests"].get("save", {}).get("p99_ms")
        rows.append(
            (
                f"saves p99 < {p99:g} ms",
                f"{saves_p99} ms",
                saves_p99 is not None and saves_p99 < p99,
            )
        )
    if exam["learners"] == 3000:
        lost = stored["missing"] + stored["duplicated"] + stored["submits_not_stored"]
        rows += [
            ("no error", str(exam["errors"] or "none"), not exam["errors"]),
            (
                "nothing lost",
                f"{lost} lost or twice",
                not lost and not stored.get("partial_sheets"),
            ),
            (
                "every learner submits",
                f"{stored['learners_submitted']}/{stored['learners']}",
                stored["learners_submitted"] == stored["learners"],
            ),
        ]
    return rows


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
    problems += [
        f"{goal}: {figure}"
        for goal, figure, met in goals(report)
        if not met and goal not in GUARANTEES
    ]
    if "load_average_at_start" in report and not quiet(report["load_average_at_start"]):
        load = report["load_average_at_start"][0]
        problems.append(f"not quiet: load average {load:.2f} > {QUIET_LOAD} at the start")
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
        f"({exam['switching']} switching), arriving over {exam.get('arrival_s', 0)} s, "
        f"{exam['seconds']} s; phases (s after the opening) {exam['phases_s']}"
    )
    print(
        f"last learner on the attempt page {exam['last_attempt_page_s']} s after the opening; "
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
    if exam.get("cpu"):
        print_cpu(exam["cpu"])
    print_goals(report)
    problems = verdict(report)
    checked = "goals" if exam["learners"] in GOALS else "goals (no speed goal for this N)"
    print(f"{checked}: " + ("met" if not problems else "MISSED: " + "; ".join(problems)))


def print_cpu(phases: dict) -> None:
    """Whole-box CPU seconds per phase and process group, per unit, and the load average."""
    print("\nwhole-box CPU, from the processes' own counters (s; ms per unit):")
    print(
        f"  {'phase':<9}{'secs':>7}"
        + "".join(f"{group:>11}" for group in GROUPS)
        + f"{'total':>8}{'count':>7}  {'ms per unit':<20}load average start → end"
    )
    for name, phase in phases.items():
        per = phase["ms_per_unit"]
        per_text = f"{per} / {phase['unit']}" if per is not None else "-"
        first, last = phase["load_average"]
        print(
            f"  {name:<9}{phase['seconds']:>7}"
            + "".join(f"{phase['cpu_s'][group]:>11}" for group in GROUPS)
            + f"{phase['cpu_total_s']:>8}{phase['count']:>7}  {per_text:<20}"
            f"{first[0]:.2f} → {last[0]:.2f}"
        )
    rested = arrival_less_idle(phases)
    if rested is not None:
        print(f"  arrival less the CPU at rest (the idle phase's rate): {rested} ms per quiz page")
    less = submit_less_saves(phases)
    if less is not None:
        late = phases["submit"]["late_saves"]
        print(
            f"  submit with its results page, less its phase's {late} saves: {less} ms per submit"
        )


def print_goals(report: dict) -> None:
    load = report.get("load_average_at_start")
    calm = load is None or quiet(load)
    if load is not None:
        state = "quiet" if calm else "NOT QUIET: no goal counts as met"
        print(f"\nload average at the start {load[0]:.2f} (≤ {QUIET_LOAD} is quiet): {state}")
    for goal, figure, met in goals(report):
        verdict_text = (
            "met" if met and calm else ("NOT MET" if not met else "met on a busy machine")
        )
        print(f"  goal {goal}: {figure}: {verdict_text}")


def print_requests(requests: dict) -> None:
    print(f"  {'request':<16}{'count':>7}{'p50 ms':>9}{'p95 ms':>9}{'p99 ms':>9}{'max ms':>9}")
    for kind, stats in requests.items():
        if stats["count"]:
            print(
                f"  {kind:<16}{stats['count']:>7}{stats['p50_ms']:>9}{stats['p95_ms']:>9}"
                f"{stats['p99_ms']:>9}{stats['max_ms']:>9}"
            )
