"""The exam-day bench's class as it arrives: when each learner opens the quiz page, and the CSRF
token its start sends at the opening instant (the start form's, the sign-out form's, or the
cookie's), read from the quiz page today (a notice) and in the waiting room (a start button)."""

import pytest

from bench.exam_pages import Cookies, PageError, arrivals, start_token


def test_the_class_arrives_one_per_slot_over_the_seconds_before_the_opening():
    times = arrivals(5, seconds=300.0, opening=1000.0)

    assert len(times) == 5
    assert all(700.0 <= at < 1000.0 for at in times)
    # One learner in each 60 s slot, in slot order: a steady rate, never all at once.
    assert [int((at - 700.0) // 60) for at in times] == [0, 1, 2, 3, 4]
    assert times == sorted(times)


def test_the_arrivals_are_the_same_for_the_same_seed_and_differ_for_another():
    assert arrivals(50, seconds=30.0, opening=0.0) == arrivals(50, seconds=30.0, opening=0.0)
    assert arrivals(50, seconds=30.0, opening=0.0) != arrivals(
        50, seconds=30.0, opening=0.0, seed=23
    )


def test_without_arrival_seconds_everyone_opens_the_page_at_the_opening_instant():
    assert arrivals(3, seconds=0.0, opening=42.0) == [42.0, 42.0, 42.0]
    assert arrivals(0, seconds=300.0, opening=42.0) == []


def test_negative_arrival_is_refused():
    with pytest.raises(ValueError, match="cannot be negative"):
        arrivals(3, seconds=-1.0, opening=0.0)


SIGN_OUT = (
    '<form method="post" action="/accounts/logout/" class="inline-form">'
    '<input type="hidden" name="csrfmiddlewaretoken" value="sign-out-token">'
    "<button>Sign out</button></form>"
)
WAITING_ROOM = (
    SIGN_OUT + '<form method="post" action="/quizzes/exam/start/" data-opens-at="…">'
    '<input type="hidden" name="csrfmiddlewaretoken" value="start-token">'
    "<button disabled>Start attempt 1</button></form>"
)
NOT_OPEN_YET = SIGN_OUT + '<p class="notice">This quiz opens at 09:00.</p>'


def test_the_start_sends_the_waiting_rooms_start_form_token():
    assert start_token(WAITING_ROOM, Cookies({"csrftoken": "cookie"})) == "start-token"


def test_a_page_without_a_start_form_gives_its_sign_out_forms_token():
    assert start_token(NOT_OPEN_YET, Cookies({"csrftoken": "cookie"})) == "sign-out-token"


def test_a_page_without_any_form_gives_the_csrf_cookie():
    page = '<p class="notice">This quiz opens at 09:00.</p>'

    assert start_token(page, Cookies({"csrftoken": "cookie", "sessionid": "s"})) == "cookie"


def test_a_page_without_a_token_and_no_cookie_cannot_start():
    with pytest.raises(PageError, match="no CSRF token"):
        start_token('<form action="/search/"><input name="q"></form>', Cookies({"sessionid": "s"}))
