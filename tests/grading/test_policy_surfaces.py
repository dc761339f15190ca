"""Every learner surface shows exactly what grading.policy says, for every combination of mode,
feedback, answer release, attempt status and time (before or after the quiz closes)."""

from __future__ import annotations

import pytest

from courses.models import Quiz
from grading.services.closing import attempt_submit
from tests.grading import surfaces

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize(("mode", "feedback", "release", "status", "close"), surfaces.COMBINATIONS)
def test_pages_and_api_show_what_the_policy_says(
    learner_client, learner, mode, feedback, release, status, close
):
    built = surfaces.build(
        user=learner, mode=mode, feedback=feedback, release=release, status=status, close=close
    )
    surfaces.check_pages(learner_client, built)
    surfaces.check_api(surfaces.session_client(learner), built)


def test_feedback_never_hides_the_score_on_every_surface(learner_client, learner):
    """The disagreement this module ends: history showed the total the API hid."""
    built = surfaces.build(
        user=learner,
        mode=Quiz.Mode.EXAM,
        feedback=Quiz.Feedback.NEVER,
        release=Quiz.AnswerRelease.AFTER_SUBMISSION,
        status="submitted",
        close="before close",
    )
    assert built.attempt.score == 1  # the question was answered right: there is a score
    history = learner_client.get("/history/").content.decode()
    assert "1 / 2" not in history
    assert "Not shown for this quiz" in history
    results = learner_client.get(f"/attempts/{built.attempt.pk}/results/").content.decode()
    assert 'id="score"' not in results
    # "never" withholds the answer key too, whatever release says.
    assert surfaces.answer_of(built.variant) not in results
    api = surfaces.session_client(learner)
    assert api.get(f"/api/v1/attempts/{built.attempt.pk}/").json()["score"] is None
    result = api.get(f"/api/v1/attempts/{built.attempt.pk}/result/").json()
    (problem,) = [item for item in result["items"] if item["id"] == built.problem_item.pk]
    assert problem["correct_answer"] is None


def test_a_running_score_with_immediate_feedback_is_shown_as_so_far(learner_client, learner):
    built = surfaces.build(
        user=learner,
        mode=Quiz.Mode.PRACTICE,
        feedback=Quiz.Feedback.IMMEDIATELY,
        release=Quiz.AnswerRelease.AFTER_SUBMISSION,
        status="in_progress",
        close="before close",
    )
    history = learner_client.get("/history/").content.decode()
    assert "1 / 2</span> so far" in history
    attempt_submit(attempt=built.attempt)
    assert "so far" not in learner_client.get("/history/").content.decode()
