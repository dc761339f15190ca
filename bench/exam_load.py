"""The load generator of the exam-day benchmark: Locust users that take the exam as browsers do.

Run by bench/exam_day.py, never by hand: it reads a plan (JSON) on stdin and writes events, one
JSON object a line, on stdout: {"event": "steady"} once every learner has the attempt page (or
has failed trying), {"event": "submitting"} when the first learner submits, {"event": "done",
"cpu": …} when every learner has finished (with the process's own CPU seconds then), and last
{"event": "result", …} with every latency (and when each request was answered), error and
acknowledgement. Locust patches the standard library for gevent on import, so this runs in its
own process, away from Django.

Phase "exam": every learner (a Locust FastHttpUser with a session made beforehand) opens the
quiz page at its own arrival instant (the plan spreads them over the minutes before the exam
opens), waits for the opening instant and starts an attempt as the waiting room's script does
then (the start form's POST with the CSRF token read from the quiz page, or its cookie), opens
the attempt page, then `saves` times thinks and saves the whole sheet, thinks once more and
submits it through the page's form, and opens the results. A save is what the Save answers
button does in a browser with the page's script (static/js/autosave.js): the form's fields
posted as FormData asking for JSON, acknowledged by the JSON's count saved, its token sent with
the next save. With the plan's `script` false it is what the button does without the script:
the form posted, and the attempt page it redirects to, acknowledged by its "Saved 16 answers.".
Phase "signin": a few clients sign the plan's learners in through the sign-in form, one after
another, as fast as the app allows.
Every request has a timeout; the plan's deadline ends the phase whatever is still running.

A request answered 503 (the service briefly unavailable) or whose connection dropped is sent
again unchanged, as the exam page's script does: after the response's Retry-After, or 2 s, the
same form with the same submission token, until it is answered or the deadline comes. Each
such answer (and any other 5xx or no answer) is kept in `interruptions` with its time, apart
from the errors: a request that got its answer in the end is not an error.
"""

from __future__ import annotations

import json
import os
import random
import re
import secrets
import sys
import time
from pathlib import Path
from urllib.parse import urlencode

import gevent
from gevent.event import Event
from locust import FastHttpUser, constant, task
from locust.env import Environment
from locust.exception import StopUser

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.exam_pages import (
    Cookies,
    PageError,
    form,
    hidden,
    multipart,
    sheet_fields,
    start_token,
    with_token,
)

ATTEMPT_PAGE = re.compile(r"/attempts/\d+/$")


class Run:
    """What one phase records: latencies per kind of request, errors, acknowledgements."""

    def __init__(self, plan: dict) -> None:
        self.plan = plan
        self.pending = list(reversed(plan["learners"]))
        self.latencies: dict[str, list[float]] = {}
        self.times: dict[str, list[float]] = {}  # kind → when each request was answered
        self.errors: list[dict] = []
        self.acks: list[dict] = []
        self.interruptions: list[dict] = []  # 5xx or no answer: when, what, whether sent again
        self.reached: dict[str, float] = {}  # learner → seconds from the start to the attempt page
        self.submitted: list[str] = []
        self.settled = 0  # learners who have the attempt page or have given up on it
        self.finished = 0
        self.steady_said = self.submitting_said = False
        self.done = Event()

    def event(self, name: str, **details) -> None:
        line = {"event": name, "at": time.time(), "pid": os.getpid(), **details}
        print(json.dumps(line), flush=True)

    def error(self, kind: str, status: int, learner: str, error: object = "") -> None:
        self.errors.append(
            {"kind": kind, "status": status, "learner": learner, "error": str(error)[:200]}
        )

    def settle(self) -> None:
        self.settled += 1
        if self.settled == len(self.plan["learners"]) and not self.steady_said:
            self.steady_said = True
            self.event("steady")

    def finish(self) -> None:
        self.finished += 1
        if self.finished == len(self.plan["learners"]):
            self.done.set()


class Browser:
    """One learner's browser: its cookies, the instance it talks to, and timed requests."""

    def __init__(self, client, run: Run, spec: dict) -> None:
        self.client, self.run, self.spec = client, run, spec
        self.cookies = Cookies({"sessionid": spec["session"]} if spec.get("session") else {})
        self.base = run.plan["servers"][spec["server"]]
        self.resent = False  # whether the last request had to be sent more than once

    def request(
        self, kind: str, method: str, path: str, *, fields=None, expect=(200,), referer="",
        script=False,
    ):  # fmt: skip
        self.resent = False
        while True:
            headers = {"Cookie": self.cookies.header()} if self.cookies.values else {}
            body = None
            if method == "POST":
                # As a browser posts a form: urlencoded, with Origin and Referer of the page;
                # the page's script sends the form's FormData (multipart) and asks for JSON.
                headers["Origin"] = self.base
                headers["Referer"] = self.base + referer
                if script:
                    boundary = f"----softgradeBench{secrets.token_hex(8)}"
                    headers["Content-Type"], body = multipart(fields or [], boundary=boundary)
                    headers["Accept"] = "application/json"
                else:
                    headers["Content-Type"] = "application/x-www-form-urlencoded"
                    body = urlencode(fields or [])
            started = time.perf_counter()
            response = self.client.request(
                method, self.base + path, name=kind, data=body, headers=headers,
                allow_redirects=False,
            )  # fmt: skip
            elapsed = (time.perf_counter() - started) * 1000
            self.run.latencies.setdefault(kind, []).append(elapsed)
            self.run.times.setdefault(kind, []).append(time.time())
            status = response.status_code or 0
            if response.headers is not None:
                self.cookies.update(response.headers.getlist("set-cookie"))
            if status in expect:
                return response
            wait = self.interrupted(kind, status, response)
            if wait is None or time.time() + wait >= self.run.plan["deadline"]:
                failure = getattr(response, "error", "") or ""
                self.run.error(kind, status, self.spec["name"], failure)
                return None
            self.resent = True
            gevent.sleep(wait)

    def interrupted(self, kind: str, status: int, response) -> float | None:
        """Keep a 5xx or a request without an answer in `interruptions`; the seconds to wait
        before sending it again, or None when the page's script would not send it again."""
        error = getattr(response, "error", None)
        timed_out = isinstance(error, TimeoutError) or "timed out" in str(error or "").lower()
        if status and status < 500:
            return None
        text = (response.text or "") if status else ""
        retry_after = response.headers.get("retry-after", "") if response.headers else ""
        wait = float(retry_after) if retry_after.isdigit() else 2.0
        again = status == 503 or (status == 0 and not timed_out)
        self.run.interruptions.append(
            {
                "kind": kind,
                "status": str(status) if status else ("timeout" if timed_out else "no answer"),
                "at": time.time(),
                "learner": self.spec["name"],
                # The outage page or the API's JSON error, with Retry-After: what a 503 must be.
                "clear": status == 503
                and bool(retry_after)
                and ("briefly unavailable" in text or '"unavailable"' in text),
                "trace": "Traceback" in text,
                "sent_again": again,
            }
        )
        return wait if again else None


def think(run: Run, rng: random.Random) -> None:
    low, high = run.plan["think_seconds"]
    gevent.sleep(rng.uniform(low, high) * run.plan["think_scale"])


def take_exam(client, run: Run, spec: dict) -> None:
    """One learner's exam, from its arrival on the quiz page to the results page."""
    browser = Browser(client, run, spec)
    rng = random.Random(spec["index"])
    quiz_path = f"/quizzes/{run.plan['quiz']}/"
    opening = run.plan["opens_at"]
    gevent.sleep(max(0.0, spec.get("arrive_at", opening) - time.time()))
    try:
        quiz_page = browser.request("quiz page", "GET", quiz_path)
        if quiz_page is None:
            return
        token = start_token(quiz_page.text, browser.cookies)
        gevent.sleep(max(0.0, opening - time.time()))
        started = browser.request(
            "start",
            "POST",
            f"{quiz_path}start/",
            fields=[("csrfmiddlewaretoken", token)],
            expect=(302,),
            referer=quiz_path,
        )
        if started is None:
            return
        attempt_path = started.headers.get("location", "")
        if not ATTEMPT_PAGE.search(attempt_path):
            # A refused start goes back to the quiz page with the reason as a message.
            run.error("start", 302, spec["name"], f"redirected to {attempt_path}")
            return
        page = browser.request("attempt page", "GET", attempt_path)
        if page is None:
            return
        sheet = form(page.text, form_id="sheet")
        run.reached[spec["name"]] = time.time() - opening
    except PageError as error:
        run.error("page", 0, spec["name"], error)
        return
    finally:
        run.settle()
    saves = run.plan["saves"]
    for save in range(saves + 1):
        think(run, rng)
        if spec.get("switch_after") == save:
            # This learner's next request goes to the other instance, session and all.
            browser.base = run.plan["servers"][1 - spec["server"]]
        action = "submit" if save == saves else "save"
        if action == "submit" and not run.submitting_said:
            run.submitting_said = True
            run.event("submitting")
        fields, answers = sheet_fields(sheet, save=save, learner=spec["index"], action=action)
        if action == "save" and run.plan.get("script", True):
            sheet = script_save(browser, sheet, fields, answers, attempt_path)
            if sheet is None:
                return
            continue
        posted = browser.request(
            action, "POST", sheet.action, fields=fields, expect=(302,), referer=attempt_path
        )
        if posted is None:
            return
        # Sent again after a lost answer: the first one may have been stored (same token).
        resent = browser.resent
        target = posted.headers.get("location", "")
        ack = {"learner": spec["name"], "kind": action, "token": sheet.hidden.get("token", "")}
        if action == "submit":
            if "/results/" not in target:
                run.error("submit", 302, spec["name"], f"redirected to {target}")
                return
            run.acks.append({**ack, "answers": answers})
            run.submitted.append(spec["name"])
            browser.request("results page", "GET", target)
            return
        page = browser.request("attempt page", "GET", target)
        if page is None:
            return
        # The page after a save says what was saved (Django's messages): the acknowledgement.
        if f"Saved {len(answers)} answers." in page.text or (
            resent and "Nothing new to save." in page.text
        ):
            run.acks.append({**ack, "answers": answers})
        else:
            run.error("save", 302, spec["name"], "the page after the save did not confirm it")
        try:
            sheet = form(page.text, form_id="sheet")
        except PageError as error:
            run.error("page", 0, spec["name"], error)
            return


def script_save(browser: Browser, sheet, fields: list, answers: dict, attempt_path: str):
    """A save as the page's script sends it; the sheet with the JSON's fresh token, or None when
    the learner cannot go on."""
    run, name = browser.run, browser.spec["name"]
    posted = browser.request(
        "save", "POST", sheet.action, fields=fields, referer=attempt_path, script=True
    )
    if posted is None:
        return None
    try:
        body = json.loads(posted.text)
    except (TypeError, ValueError):
        run.error("save", 200, name, "the save's answer was not JSON")
        return None
    # Sent again after a lost answer: the first one may have been stored (same token), and then
    # this one finds nothing new (a sheet is stored whole or not at all).
    saved = body.get("saved")
    if body.get("code") == "saved" and (saved == len(answers) or (browser.resent and saved == 0)):
        ack = {"learner": name, "kind": "save", "token": sheet.hidden.get("token", "")}
        run.acks.append({**ack, "answers": answers})
    else:
        run.error("save", 200, name, f"the JSON did not confirm the save: {body}")
    # A save not taken keeps its token, as the script does; the next one goes under it.
    return with_token(sheet, body["token"]) if body.get("token") else sheet


def sign_in(client, run: Run, spec: dict) -> None:
    """One learner signs in through the sign-in form, as a browser does."""
    browser = Browser(client, run, spec)
    page = browser.request("sign-in page", "GET", "/accounts/login/")
    if page is None:
        return
    try:
        login = form(page.text, action_contains="login")
    except PageError as error:
        run.error("page", 0, spec["name"], error)
        return
    fields = [
        ("csrfmiddlewaretoken", hidden(login, "csrfmiddlewaretoken")),
        ("username", spec["name"]),
        ("password", spec["password"]),
    ]
    signed = browser.request(
        "sign-in",
        "POST",
        login.action or "/accounts/login/",
        fields=fields,
        expect=(302,),
        referer="/accounts/login/",
    )
    if signed is not None:
        run.acks.append({"learner": spec["name"], "kind": "sign-in", "token": ""})


def main() -> int:
    plan = json.load(sys.stdin)
    if not all(server.startswith("http://127.0.0.1:") for server in plan["servers"]):
        raise SystemExit("the exam-day load goes to servers on 127.0.0.1 only")
    run = Run(plan)
    phase = sign_in if plan["phase"] == "signin" else take_exam

    class Learner(FastHttpUser):
        host = plan["servers"][0]
        wait_time = constant(0)
        network_timeout = connection_timeout = plan["request_timeout"]

        @task
        def work(self) -> None:
            while run.pending:
                spec = run.pending.pop()
                try:
                    phase(self.client, run, spec)
                finally:
                    run.finish()
                if plan["phase"] != "signin":
                    break  # a learner is one user; sign-in clients take the next learner
            raise StopUser

    users = plan.get("clients") or len(plan["learners"])
    environment = Environment(user_classes=[Learner])
    runner = environment.create_local_runner()
    began = time.time()
    runner.start(users, spawn_rate=users)
    run.done.wait(timeout=max(0.0, plan["deadline"] - time.time()))
    ended = time.time()
    cpu = os.times()
    run.event("done", cpu=cpu.user + cpu.system)
    runner.quit()
    run.event(
        "result",
        phase=plan["phase"],
        began=began,
        ended=ended,
        learners=len(plan["learners"]),
        finished=run.finished,
        latencies=run.latencies,
        times=run.times,
        errors=run.errors,
        acks=run.acks,
        reached=run.reached,
        submitted=run.submitted,
        interruptions=run.interruptions,
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
