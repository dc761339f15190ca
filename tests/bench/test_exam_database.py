"""The exam-day benchmark's database side: the exam it makes, the forms its learners post (read
from the real pages, CSRF enforced; saves as the page's script sends them, or as the form
without it), and the check that every acknowledged save and submit is stored once."""

import time

import pytest
from django.test import Client

from bench.exam_database import EXAM_SLUG, ITEMS, LEARNER_PREFIX, exam_make, open_at, verify
from bench.exam_pages import (
    Cookies,
    form,
    hidden,
    multipart,
    sheet_fields,
    start_token,
    with_token,
)
from courses.models import Quiz
from grading.models import Attempt, Response

pytestmark = pytest.mark.django_db


@pytest.fixture
def exam(shipped_bank):
    return exam_make(learners=2, signins=1, signin_hasher="default", minutes=30)


def browser(session: str) -> Client:
    client = Client(enforce_csrf_checks=True)
    client.cookies["sessionid"] = session
    return client


def take(client: Client, *, learner: int, saves: int, script: bool = True) -> list[dict]:
    """The bench learner's journey, through the test client: what it acknowledges (saves as
    bench/exam_load.py sends them: as the page's script does, or with `script` False as the
    form does without it)."""
    start = form(client.get(f"/quizzes/{EXAM_SLUG}/").content.decode(), action_contains="/start/")
    started = client.post(
        start.action, {"csrfmiddlewaretoken": hidden(start, "csrfmiddlewaretoken")}
    )
    assert started.status_code == 302
    sheet = form(client.get(started["Location"]).content.decode(), form_id="sheet")
    acks = []
    for save in range(saves + 1):
        action = "submit" if save == saves else "save"
        fields, answers = sheet_fields(sheet, save=save, learner=learner, action=action)
        ack = {"learner": f"{LEARNER_PREFIX}{learner}", "kind": action, "answers": answers}
        acks.append({**ack, "token": sheet.hidden["token"]})
        if action == "save" and script:
            content_type, body = multipart(fields, boundary="----softgradeBench0")
            posted = client.post(
                sheet.action, body, content_type=content_type, HTTP_ACCEPT="application/json"
            )
            assert posted.json()["saved"] == ITEMS
            sheet = with_token(sheet, posted.json()["token"])
            continue
        posted = client.post(sheet.action, _as_dict(fields))
        assert posted.status_code == 302
        if action == "submit":
            assert "/results/" in posted["Location"]
        else:
            page = client.get(posted["Location"]).content.decode()
            assert f"Saved {ITEMS} answers." in page
            sheet = form(page, form_id="sheet")
    return acks


def _as_dict(fields: list[tuple[str, str]]) -> dict[str, list[str]]:
    data: dict[str, list[str]] = {}
    for name, value in fields:
        data.setdefault(name, []).append(value)
    return data


def names(exam) -> list[str]:
    return [learner["name"] for learner in exam["learners"]]


def test_the_exam_has_16_items_and_every_learner_a_working_session(exam):
    assert exam["items"] == ITEMS
    for learner in exam["learners"]:
        page = browser(learner["session"]).get(f"/quizzes/{EXAM_SLUG}/")
        assert page.status_code == 200
        assert form(page.content.decode(), action_contains="/start/")


def test_the_bench_learner_reads_its_start_token_before_the_opening_and_starts_at_it(exam):
    """As bench/exam_load.py does: the quiz page before the exam opens, the token from it, the
    start refused before the opening and taken at it, landing on the attempt page."""
    opening = time.time() + 3600
    assert open_at(at=opening)["opens_at"].startswith(
        time.strftime("%Y-%m-%dT%H:%M", time.gmtime(opening))
    )
    client = browser(exam["learners"][0]["session"])
    page = client.get(f"/quizzes/{EXAM_SLUG}/").content.decode()
    jar = Cookies({name: morsel.value for name, morsel in client.cookies.items()})
    token = start_token(page, jar)
    start = f"/quizzes/{EXAM_SLUG}/start/"

    early = client.post(start, {"csrfmiddlewaretoken": token})
    assert (early.status_code, early["Location"]) == (302, f"/quizzes/{EXAM_SLUG}/")

    open_at(at=time.time() - 1)
    started = client.post(start, {"csrfmiddlewaretoken": token})
    attempt = Attempt.objects.get(user__username=exam["learners"][0]["name"])
    assert (started.status_code, started["Location"]) == (302, f"/attempts/{attempt.pk}/")
    assert Quiz.objects.get(slug=EXAM_SLUG).opens_at.timestamp() < time.time()


@pytest.mark.parametrize("script", [True, False], ids=["script", "no script"])
def test_what_the_learners_acknowledge_is_stored_once_and_every_one_submitted(exam, script):
    acks = []
    for n, learner in enumerate(exam["learners"]):
        acks += take(browser(learner["session"]), learner=n, saves=2, script=script)

    stored = verify(acks=acks, learners=names(exam))

    assert stored["acknowledged"] == 2 * 3 * ITEMS  # two saves and the submit's sheet each
    assert stored["stored"] == stored["acknowledged"]
    assert (stored["missing"], stored["invalid"], stored["unacknowledged"]) == (0, 0, 0)
    assert (stored["duplicated"], stored["partial_sheets"]) == (0, 0)
    assert (stored["submits_acknowledged"], stored["submits_not_stored"]) == (2, 0)
    assert stored["learners_submitted"] == stored["learners"] == 2
    assert Response.objects.count() == 2 * 3 * ITEMS


def test_an_acknowledged_answer_that_is_missing_or_different_is_counted(exam):
    acks = take(browser(exam["learners"][0]["session"]), learner=0, saves=1)
    Response.objects.filter(
        idempotency_key=f"{acks[0]['token']}:sheet:{next(iter(acks[0]['answers']))}"
    ).delete()
    item = next(key for key, value in acks[1]["answers"].items() if isinstance(value, str))
    acks[1]["answers"][item] = "41"

    stored = verify(acks=acks, learners=names(exam))

    assert stored["missing"] == 2
    assert stored["stored"] == stored["acknowledged"] - 2


def test_a_sheet_stored_in_part_is_counted_whether_acknowledged_or_not(exam):
    acks = take(browser(exam["learners"][0]["session"]), learner=0, saves=2)
    for ack in acks[:2]:
        item = next(iter(ack["answers"]))
        Response.objects.filter(idempotency_key=f"{ack['token']}:sheet:{item}").delete()

    stored = verify(acks=acks[1:], learners=names(exam))

    assert stored["partial_sheets"] == 2  # the unacknowledged first sheet and the second
    assert stored["missing"] == 1


def test_a_stored_answer_nobody_acknowledged_is_counted_apart_not_as_lost(exam):
    acks = take(browser(exam["learners"][0]["session"]), learner=0, saves=1)

    stored = verify(acks=acks[1:], learners=names(exam))

    assert (stored["missing"], stored["unacknowledged"]) == (0, ITEMS)


def test_an_acknowledged_submit_whose_attempt_is_not_submitted_is_counted(exam):
    acks = take(browser(exam["learners"][0]["session"]), learner=0, saves=0)
    Attempt.objects.update(status=Attempt.Status.IN_PROGRESS, submitted_at=None)

    stored = verify(acks=acks, learners=names(exam))

    assert stored["submits_not_stored"] == 1
    assert stored["learners_submitted"] == 0
