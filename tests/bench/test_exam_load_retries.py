"""The exam-day learners send a request again as the exam page's script does: a 503 after its
Retry-After and a dropped connection after 2 s, unchanged, until answered or the deadline; a
timeout or a 500 is an error. Each is kept with its time, apart from the errors.

bench/exam_load.py imports Locust, which patches the standard library for gevent on import, so
the learner's browser is driven in a child process, with a scripted client and no real waits.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

# A learner's browser with a scripted client: what it sent (bodies and headers) and waited.
PRELUDE = r"""
import json, sys, time
import bench.exam_load as load

class Headers(dict):
    def getlist(self, name):
        return [v for k, v in self.items() if k == name]

class Answer:
    def __init__(self, status, text="", headers=None, error=None):
        self.status_code, self.text, self.error = status, text, error
        self.headers = Headers(headers or {}) if status else None

def answer(spec):
    kind = spec["kind"]
    if kind == "dropped":
        return Answer(0, error=ConnectionResetError("connection closed."))
    if kind == "timeout":
        return Answer(0, error=TimeoutError("timed out"))
    return Answer(spec["status"], spec.get("text", ""), spec.get("headers"))

case = json.loads(sys.stdin.read())
sent, headers_sent, waits = [], [], []
load.gevent.sleep = waits.append

class Client:
    script = [answer(spec) for spec in case["answers"]]
    def request(self, method, url, name, data, headers, allow_redirects):
        sent.append(data if isinstance(data, str) else data.decode())
        headers_sent.append(headers)
        return self.script.pop(0)

run = load.Run(
    {"learners": [], "servers": ["http://127.0.0.1:1"], "deadline": time.time() + case["deadline"]}
)
browser = load.Browser(Client(), run, {"name": "bench-learner-1", "server": 0})
"""

CHILD = (
    PRELUDE
    + r"""
response = browser.request(
    "save", "POST", "/attempts/1/save/", fields=[("token", "t-1"), ("action", "save")],
    expect=(302,),
)
print(json.dumps({
    "answered": None if response is None else response.status_code,
    "resent": browser.resent, "sent": sent, "waits": waits,
    "interruptions": run.interruptions, "errors": run.errors,
}))
"""
)

OUTAGE_PAGE = {
    "kind": "status",
    "status": 503,
    "text": "<h1>softgrade is briefly unavailable</h1>",
    "headers": {"retry-after": "5"},
}


def browse(answers: list[dict], deadline: float = 3600, child_code: str = CHILD) -> dict:
    child = subprocess.run(
        [sys.executable, "-c", child_code],
        input=json.dumps({"answers": answers, "deadline": deadline}),
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert child.returncode == 0, child.stderr[-2000:]
    return json.loads(child.stdout.strip().splitlines()[-1])


def test_a_503_and_a_dropped_connection_are_sent_again_unchanged_until_answered():
    seen = browse([OUTAGE_PAGE, {"kind": "dropped"}, {"kind": "status", "status": 302}])

    assert seen["answered"] == 302
    assert seen["resent"] is True
    assert seen["sent"] == ["token=t-1&action=save"] * 3  # the same sheet, the same token
    assert seen["waits"] == [5.0, 2.0]  # Retry-After, then the page's first wait
    assert [(i["status"], i["clear"], i["sent_again"]) for i in seen["interruptions"]] == [
        ("503", True, True),
        ("no answer", False, True),
    ]
    assert seen["errors"] == []


def test_a_503_without_the_outage_page_is_sent_again_but_marked_unclear():
    bare = {"kind": "status", "status": 503, "text": "Service Unavailable"}

    seen = browse([bare, {"kind": "status", "status": 302}])

    assert seen["answered"] == 302
    assert seen["waits"] == [2.0]  # no Retry-After
    assert [i["clear"] for i in seen["interruptions"]] == [False]


def test_a_timeout_or_a_500_is_an_error_and_not_sent_again():
    for answer, status in (
        ({"kind": "timeout"}, "timeout"),
        ({"kind": "status", "status": 500, "text": "Traceback (most recent call last)"}, "500"),
    ):
        seen = browse([answer])

        assert seen["answered"] is None
        assert len(seen["sent"]) == 1
        assert [(i["status"], i["sent_again"]) for i in seen["interruptions"]] == [(status, False)]
        assert seen["interruptions"][0]["trace"] is (status == "500")
        assert [error["kind"] for error in seen["errors"]] == ["save"]


def test_past_the_deadline_a_503_is_an_error_and_not_sent_again():
    seen = browse([OUTAGE_PAGE], deadline=2)

    assert seen["answered"] is None
    assert seen["waits"] == []
    assert [error["status"] for error in seen["errors"]] == [503]
