"""The exam-day benchmark's pure parts: reading forms, the cookie jar, answer sheets and
percentiles."""

import itertools

import pytest
from django.test import RequestFactory

from bench.exam_pages import (
    Cookies,
    Form,
    PageError,
    form,
    multipart,
    percentile,
    sheet_fields,
    summary,
    with_token,
)

SHEET = """
<form method="post" action="/quizzes/q/start/"><input type="hidden" name="csrfmiddlewaretoken"
 value="start-token"></form>
<form method="post" action="/attempts/7/save/" id="sheet" data-submit-once>
  <input type="hidden" name="csrfmiddlewaretoken" value="a&amp;b">
  <input type='hidden' name='token' value=tok-1>
  <input type="text" name="item-3-answer" id="item-3-answer" value="">
  <textarea name="item-4-answer" rows="3"></textarea>
  <input type="radio" name="item-5-choice" value="11" id="x"><label for="x">a > b</label>
  <input type="radio" name="item-5-choice" value="12" checked>
  <input type="checkbox" name="item-6-choice" value="21">
  <input type="checkbox" name="item-6-choice" value="22">
  <button type="submit" name="action" value="save">Save</button>
</form>
"""


def test_a_form_is_found_by_id_with_its_hidden_fields_and_items_in_page_order():
    sheet = form(SHEET, form_id="sheet")

    assert sheet.action == "/attempts/7/save/"
    assert sheet.hidden == {"csrfmiddlewaretoken": "a&b", "token": "tok-1"}
    assert list(sheet.items.items()) == [
        (3, "text"),
        (4, "text"),
        (5, ("11", "12")),
        (6, ("21", "22")),
    ]
    assert sheet.multiple == {6}


def test_a_form_is_found_by_its_action():
    start = form(SHEET, action_contains="/start/")

    assert start.action == "/quizzes/q/start/"
    assert start.hidden == {"csrfmiddlewaretoken": "start-token"}
    assert start.items == {}


@pytest.mark.parametrize(
    "lookup", [{"form_id": "missing"}, {"action_contains": "/submit/"}], ids=["id", "action"]
)
def test_a_page_without_the_form_is_a_page_error(lookup):
    with pytest.raises(PageError):
        form(SHEET, **lookup)


def test_a_sheet_sends_the_hidden_fields_every_item_and_the_action():
    fields, answers = sheet_fields(form(SHEET, form_id="sheet"), save=0, learner=7, action="save")

    assert fields == [
        ("csrfmiddlewaretoken", "a&b"),
        ("token", "tok-1"),
        ("item-3-answer", "1.07"),
        ("item-4-answer", "1.07"),
        ("item-5-choice", "12"),
        ("item-6-choice", "22"),
        ("action", "save"),
    ]
    assert answers == {"3": "1.07", "4": "1.07", "5": [12], "6": [22]}


def test_every_save_changes_every_answer_so_each_one_is_recorded():
    sheet = Form(action="/a/", hidden={}, items={1: "text", 2: ("5", "6"), 3: ("7", "8", "9")})
    for learner in range(5):
        sent = [sheet_fields(sheet, save=n, learner=learner, action="save")[1] for n in range(6)]
        for before, after in itertools.pairwise(sent):
            assert all(before[item] != after[item] for item in before)


def test_the_scripts_save_goes_under_the_fresh_token_and_the_rest_stays():
    sheet = form(SHEET, form_id="sheet")
    fresh = with_token(sheet, "tok-2")

    assert fresh.hidden == {"csrfmiddlewaretoken": "a&b", "token": "tok-2"}
    assert (fresh.action, fresh.items, fresh.multiple) == (sheet.action, sheet.items, {6})
    assert sheet.hidden["token"] == "tok-1"


def test_a_form_sent_as_formdata_reads_back_field_by_field():
    fields, _ = sheet_fields(form(SHEET, form_id="sheet"), save=1, learner=3, action="save")
    content_type, body = multipart(fields, boundary="----softgradeBench42")

    request = RequestFactory().generic("POST", "/", body, content_type=content_type)

    assert content_type == "multipart/form-data; boundary=----softgradeBench42"
    assert list(request.POST.lists()) == [(name, [value]) for name, value in fields]


def test_cookies_are_kept_replaced_and_deleted_as_a_browser_does():
    cookies = Cookies({"sessionid": "s1"})
    cookies.update(["csrftoken=c1; expires=Tue, 30 Nov 2027 00:00:00 GMT; Path=/; Secure"])
    cookies.update(['messages="m1"; HttpOnly; Path=/; Secure', "sessionid=s2; Path=/"])
    assert cookies.header() == 'sessionid=s2; csrftoken=c1; messages="m1"'

    # Django's delete_cookie: an empty value, Max-Age 0.
    cookies.update(['messages=""; expires=Thu, 01 Jan 1970 00:00:00 GMT; Max-Age=0; Path=/'])
    assert cookies.values == {"sessionid": "s2", "csrftoken": "c1"}


def test_a_malformed_set_cookie_changes_nothing():
    cookies = Cookies({"a": "1"})
    cookies.update(["\x00not a cookie"])
    assert cookies.values == {"a": "1"}


@pytest.mark.parametrize(
    ("samples", "fraction", "expected"),
    [
        ([1, 2, 3, 4], 0.5, 2),
        ([4, 3, 2, 1], 0.5, 2),
        (list(range(1, 101)), 0.99, 99),
        (list(range(1, 101)), 0.95, 95),
        (list(range(1, 1001)), 0.99, 990),
        ([5], 0.99, 5),
        ([1, 2, 3], 1.0, 3),
        ([1, 2, 3], 0.0, 1),
    ],
)
def test_percentiles_are_nearest_rank(samples, fraction, expected):
    assert percentile(samples, fraction) == expected


def test_no_samples_has_no_percentile_and_a_summary_says_so():
    with pytest.raises(ValueError, match="no samples"):
        percentile([], 0.5)
    assert summary([]) == {"count": 0}


def test_a_summary_rounds_to_a_tenth_of_a_millisecond():
    assert summary([1.04, 2.26, 3.0, 10.55]) == {
        "count": 4,
        "p50_ms": 2.3,
        "p95_ms": 10.6,
        "p99_ms": 10.6,
        "max_ms": 10.6,
    }
