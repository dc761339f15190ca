"""A Statement runs the read its queryset defines, compiled once per connection."""

from __future__ import annotations

import pytest
from django.core.exceptions import ImproperlyConfigured
from django.db import connection
from django.test.utils import CaptureQueriesContext

from config.statements import Statement, columns, instance
from courses.models import Quiz
from grading import engine, services
from grading.api import selectors
from grading.models import Attempt, Response, Variant
from integrations.api.scope import Scope
from tests.factories import QuizFactory, UserFactory

pytestmark = pytest.mark.django_db

MARKER = -(2**40) - 1

by_slug = Statement(
    lambda slug: Quiz.objects.filter(slug=slug).order_by("pk").values_list(*columns(Quiz)),
    slug="(marker: slug)",
)


def test_rows_are_what_the_queryset_gives_with_the_same_conversions():
    opens = QuizFactory(slug="a-quiz").opens_at
    QuizFactory(slug="another")
    rows = by_slug.rows(slug="a-quiz")
    assert rows == list(by_slug.queryset(slug="a-quiz"))
    assert len(rows) == 1
    quiz = instance(Quiz, rows[0], 0)
    assert (quiz.slug, quiz.opens_at) == ("a-quiz", opens)
    assert not quiz._state.adding  # loaded, so saving it updates the row
    assert by_slug.rows(slug="no-such-quiz") == []


def test_values_are_bound_never_pasted_into_the_sql():
    QuizFactory(slug="plain")
    with CaptureQueriesContext(connection) as queries:
        assert by_slug.rows(slug="x' OR '1'='1") == []
    # The SQL Django ran is the compiled text with a placeholder, whatever the value.
    assert queries[0]["sql"].count("'1'='1") <= 1
    assert Quiz.objects.filter(slug="plain").exists()


def test_the_sql_is_compiled_once_per_connection(monkeypatch):
    statement = Statement(
        lambda slug: Quiz.objects.filter(slug=slug).values_list("pk"), slug="(marker)"
    )
    compiled = []
    real = Statement._compile
    monkeypatch.setattr(
        Statement, "_compile", lambda self, conn: compiled.append(conn) or real(self, conn)
    )
    for slug in ("a", "b", "c"):
        statement.rows(slug=slug)
    assert compiled == [connection]


def test_the_answer_reads_agree_with_their_querysets(shipped_bank):
    """Each hot read of the answer path, run through its Statement and as a plain queryset."""
    learner, stranger = UserFactory(), UserFactory()
    quiz = Quiz.objects.get(slug="attention-practice")
    attempt = services.attempt_start(user=learner, quiz=quiz)
    variant = Variant.objects.filter(attempt=attempt).first()
    item = variant.quiz_item
    answer = engine.get_family(variant.family).solve(variant.givens).answer
    for text, key in ((answer * 1.5, "k-1"), ("[[", ""), (answer * 2.5, "")):
        text = text if isinstance(text, str) else engine.format_answer(text)
        services.response_submit(attempt=attempt, item=item, text=text, idempotency_key=key)
    for user, expected in ((learner, 1), (stranger, 0)):
        for ids in ((attempt.pk, item.pk), (attempt.pk, -5), (-5, item.pk)):
            found = selectors._VARIANT_FOR_LEARNER.rows(
                attempt_id=ids[0], item_id=ids[1], user_id=user.pk
            )
            assert found == list(
                selectors.variant_to_answer_rows(
                    scope=Scope.of(user=user), attempt_id=ids[0], item_id=ids[1]
                )
            )
            assert len(found) == (expected if ids == (attempt.pk, item.pk) else 0)
    tries = services._TRIES.rows(attempt_id=attempt.pk, item_id=item.pk)
    assert tries == list(services.tries_and_key_rows(attempt_id=attempt.pk, item_id=item.pk))
    assert [row[3] for row in tries] == ["incorrect", "incorrect"]  # the invalid one is no try
    keyed = dict(attempt_id=attempt.pk, item_id=-5, user_id=learner.pk, key="k-1")
    assert services._TRIES_AND_KEY.rows(**keyed) == list(services.tries_and_key_rows(**keyed))
    assert len(services._TRIES_AND_KEY.rows(**keyed)) == 1  # the key's earlier answer


def test_a_loaded_variant_comes_with_its_attempt_quiz_and_item(shipped_bank):
    learner = UserFactory()
    attempt = services.attempt_start(user=learner, quiz=Quiz.objects.get(slug="attention-practice"))
    stored = Variant.objects.filter(attempt=attempt).first()
    loaded = selectors.variant_to_answer(
        scope=Scope.of(user=learner), attempt_id=attempt.pk, item_id=stored.quiz_item_id
    )
    assert (loaded.pk, loaded.givens, loaded.seed) == (stored.pk, stored.givens, stored.seed)
    assert loaded.attempt == attempt
    assert loaded.attempt.updated_at == attempt.updated_at
    assert loaded.attempt.quiz.tries_per_item == attempt.quiz.tries_per_item
    assert loaded.quiz_item.points == stored.quiz_item.points
    assert isinstance(loaded.attempt, Attempt)


def test_a_marker_must_reach_the_sql_unchanged():
    lost = Statement(lambda pk: Quiz.objects.filter(slug=str(pk)).values_list("pk"), pk=MARKER)
    with pytest.raises(ImproperlyConfigured, match="not among the query's parameters"):
        lost.rows(pk=1)


def test_only_values_list_querysets_and_distinct_markers():
    with pytest.raises(ImproperlyConfigured, match="values_list"):
        Statement(lambda pk: Quiz.objects.filter(pk=pk), pk=MARKER).rows(pk=1)
    twins = Statement(
        lambda a, b: Response.objects.filter(pk=a, attempt_id=b).values_list("pk"),
        a=MARKER,
        b=MARKER,
    )
    with pytest.raises(ImproperlyConfigured, match="marker of its own"):
        twins.rows(a=1, b=2)


def test_arguments_are_checked():
    with pytest.raises(TypeError, match="takes"):
        by_slug.rows(slug="a", extra=1)
    with pytest.raises(TypeError, match="must be str"):
        by_slug.rows(slug=3)
