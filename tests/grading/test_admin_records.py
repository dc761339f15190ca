"""In the admin a learner's record is evidence: nobody adds or changes it; deleting an attempt
needs its own permission and goes through the logged service; the audit trail is shown."""

from __future__ import annotations

import pytest
from django.contrib.auth.models import Permission
from django.urls import reverse

from grading.models import Attempt, AttemptDeletion, Response, ScoreChange, Variant
from grading.overrides import item_score_override
from tests.factories import InstructorFactory, UserFactory
from tests.grading.exam_records import exam_build, sit

pytestmark = pytest.mark.django_db


@pytest.fixture
def superuser_client(client):
    client.force_login(InstructorFactory())
    return client


@pytest.fixture
def records():
    exam = exam_build()
    attempt = sit(exam, UserFactory(username="ben"), choice="B", factor=1.05)  # 0 of 5
    return exam, attempt


def staff_client(client, *codenames: str):
    staff = UserFactory(is_staff=True)
    staff.user_permissions.add(
        *Permission.objects.filter(content_type__app_label="grading", codename__in=codenames)
    )
    client.force_login(staff)
    return client


def response_user(client) -> str:
    return client.get(reverse("admin:index")).wsgi_request.user.username


def test_nobody_adds_a_record_in_the_admin(superuser_client, records):
    for model in ("attempt", "response", "variant"):
        url = reverse(f"admin:grading_{model}_add")
        assert superuser_client.get(url).status_code == 403
        assert superuser_client.post(url, {}).status_code == 403
    assert (Attempt.objects.count(), Response.objects.count(), Variant.objects.count()) == (1, 2, 1)


def test_posting_a_changed_response_changes_nothing(superuser_client, records):
    exam, attempt = records
    answer = Response.objects.get(attempt=attempt, quiz_item=exam.question_item)
    url = reverse("admin:grading_response_change", args=[answer.pk])
    page = superuser_client.get(url)
    assert page.status_code == 200
    html = page.content.decode()
    assert 'name="_save"' not in html  # a view page, no form to save
    assert "Choices picked" in html
    edited = {
        "choices": [exam.choices["A"].pk],
        "text": "changed",
        "status": "correct",
        "score": "1",
        "counts_as_try": "on",
    }
    assert superuser_client.post(url, edited).status_code == 403
    answer.refresh_from_db()
    assert [c.text for c in answer.choices.all()] == ["B"]
    assert (answer.status, answer.score, answer.text) == ("incorrect", 0.0, "")


def test_posting_a_changed_attempt_or_variant_changes_nothing(superuser_client, records):
    _exam, attempt = records
    url = reverse("admin:grading_attempt_change", args=[attempt.pk])
    posted = superuser_client.post(url, {"score": "5", "status": "in_progress", "late": "on"})
    assert posted.status_code == 403
    attempt.refresh_from_db()
    assert (attempt.score, attempt.status, attempt.late) == (0.0, "submitted", False)
    variant = Variant.objects.get(attempt=attempt)
    givens = variant.givens
    url = reverse("admin:grading_variant_change", args=[variant.pk])
    assert superuser_client.post(url, {"givens": "{}", "atol": "1"}).status_code == 403
    variant.refresh_from_db()
    assert variant.givens == givens


def test_the_attempt_page_shows_its_answers_and_its_audit_trail_read_only(
    superuser_client, records
):
    exam, attempt = records
    item_score_override(
        attempt=attempt,
        item=exam.question_item,
        score=1.5,
        reason="B is defensible.",
        by=InstructorFactory(username="prof"),
    )
    html = superuser_client.get(
        reverse("admin:grading_attempt_change", args=[attempt.pk])
    ).content.decode()
    assert "B is defensible." in html
    assert "prof" in html
    assert 'name="_save"' not in html
    assert 'name="responses-0-text"' not in html  # inline rows are shown, not editable


def test_record_lists_keep_their_filters_and_search(superuser_client, records):
    _exam, attempt = records
    listing = superuser_client.get(
        reverse("admin:grading_attempt_changelist"), {"q": "ben", "status__exact": "submitted"}
    )
    assert listing.status_code == 200
    assert list(listing.context["cl"].result_list) == [attempt]
    for model in ("response", "variant", "scorechange", "regrade", "attemptdeletion"):
        assert superuser_client.get(reverse(f"admin:grading_{model}_changelist")).status_code == 200


def test_audit_rows_are_read_only_in_the_admin(superuser_client, records):
    exam, attempt = records
    change = item_score_override(
        attempt=attempt, item=exam.problem_item, score=1, reason="Fair.", by=InstructorFactory()
    )
    url = reverse("admin:grading_scorechange_change", args=[change.pk])
    assert superuser_client.post(url, {"new_score": "3", "reason": "x"}).status_code == 403
    assert superuser_client.get(reverse("admin:grading_scorechange_add")).status_code == 403
    delete = reverse("admin:grading_scorechange_delete", args=[change.pk])
    assert superuser_client.post(delete, {"post": "yes"}).status_code == 403
    change.refresh_from_db()
    assert (change.new_score, change.reason) == (1.0, "Fair.")


def test_responses_and_variants_cannot_be_deleted_in_the_admin(superuser_client, records):
    _exam, attempt = records
    answer = Response.objects.filter(attempt=attempt).first()
    url = reverse("admin:grading_response_delete", args=[answer.pk])
    assert superuser_client.post(url, {"post": "yes"}).status_code == 403
    assert Response.objects.filter(pk=answer.pk).exists()


def test_staff_without_the_permission_cannot_delete_an_attempt(client, records):
    _exam, attempt = records
    client = staff_client(client, "view_attempt", "delete_attempt", "change_attempt")
    url = reverse("admin:grading_attempt_delete", args=[attempt.pk])
    assert client.post(url, {"post": "yes"}).status_code == 403
    changelist = reverse("admin:grading_attempt_changelist")
    posted = client.post(
        changelist, {"action": "delete_selected", "_selected_action": [attempt.pk], "post": "yes"}
    )
    assert posted.status_code in (200, 302)
    assert Attempt.objects.filter(pk=attempt.pk).exists()
    assert not AttemptDeletion.objects.exists()


@pytest.mark.parametrize("who", ["superuser", "granted staff"])
def test_an_admin_deletion_goes_through_the_logged_service(client, records, who):
    exam, attempt = records
    if who == "superuser":
        client.force_login(InstructorFactory())
    else:
        client = staff_client(client, "view_attempt", "delete_attempt_record")
    url = reverse("admin:grading_attempt_delete", args=[attempt.pk])
    page = client.get(url)
    assert page.status_code == 200  # the confirmation page, with nothing said to block it
    assert not page.context["protected"]
    assert not page.context["perms_lacking"]
    assert client.post(url, {"post": "yes"}).status_code == 302
    assert not Attempt.objects.exists()
    log = AttemptDeletion.objects.get()
    assert (log.attempt_id, log.learner_username, log.quiz_slug) == (
        attempt.pk,
        "ben",
        exam.quiz.slug,
    )
    assert log.by_username == response_user(client)


def test_the_bulk_delete_action_also_logs_each_attempt(superuser_client):
    exam = exam_build()
    attempts = [sit(exam, UserFactory(), choice="A", factor=1.0) for _ in range(2)]
    posted = superuser_client.post(
        reverse("admin:grading_attempt_changelist"),
        {"action": "delete_selected", "_selected_action": [a.pk for a in attempts], "post": "yes"},
    )
    assert posted.status_code == 302
    assert not Attempt.objects.exists()
    assert sorted(AttemptDeletion.objects.values_list("attempt_id", flat=True)) == sorted(
        a.pk for a in attempts
    )
    assert not ScoreChange.objects.exists()
