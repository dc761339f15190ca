"""The exam-day learners save as the exam page's script does: the form's fields as FormData
asking for JSON, acknowledged by the JSON's count, the next save under the JSON's token
(driven in a child process with a scripted client, as in test_exam_load_retries)."""

from __future__ import annotations

import json

from tests.bench.test_exam_load_retries import OUTAGE_PAGE, PRELUDE, browse

SCRIPT_SAVE = (
    PRELUDE
    + r"""
sheet = load.form(
    '<form action="/attempts/1/save/" id="sheet"><input type="hidden" name="token" value="t-1">'
    '<input type="text" name="item-3-answer"></form>',
    form_id="sheet",
)
fields, answers = load.sheet_fields(sheet, save=0, learner=1, action="save")
fresh = load.script_save(browser, sheet, fields, answers, "/attempts/1/")
print(json.dumps({
    "token": None if fresh is None else fresh.hidden["token"], "sent": sent,
    "headers": headers_sent, "acks": run.acks, "errors": run.errors,
}))
"""
)


def saved(count: int, token: str = "t-2") -> dict:
    body = {"code": "saved", "message": "", "saved": count, "unreadable": 0, "token": token}
    return {"kind": "status", "status": 200, "text": json.dumps(body)}


def test_a_save_is_formdata_asking_for_json_acknowledged_by_its_count():
    seen = browse([saved(1)], child_code=SCRIPT_SAVE)

    (headers,) = seen["headers"]
    assert headers["Accept"] == "application/json"
    assert headers["Content-Type"].startswith("multipart/form-data; boundary=")
    assert 'name="item-3-answer"\r\n\r\n1.01\r\n' in seen["sent"][0]
    assert seen["acks"] == [
        {"learner": "bench-learner-1", "kind": "save", "token": "t-1", "answers": {"3": "1.01"}}
    ]
    assert seen["token"] == "t-2"  # the next save goes under the JSON's token
    assert seen["errors"] == []


def test_a_save_sent_again_that_finds_its_sheet_stored_is_acknowledged():
    seen = browse([OUTAGE_PAGE, saved(0)], child_code=SCRIPT_SAVE)

    assert len(seen["sent"]) == 2
    assert [ack["token"] for ack in seen["acks"]] == ["t-1"]
    assert seen["errors"] == []


def test_a_json_that_does_not_confirm_the_save_is_an_error():
    seen = browse([saved(0)], child_code=SCRIPT_SAVE)

    assert seen["acks"] == []
    assert [error["kind"] for error in seen["errors"]] == ["save"]
    assert seen["token"] == "t-2"


def test_a_refused_save_is_an_error_and_the_learner_stops():
    refused = {"code": "refused", "message": "No."}
    seen = browse(
        [{"kind": "status", "status": 409, "text": json.dumps(refused)}], child_code=SCRIPT_SAVE
    )

    assert seen["token"] is None
    assert (seen["acks"], [error["status"] for error in seen["errors"]]) == ([], [409])
