"""A Statement runs the read its queryset defines, compiled once per connection; insert_guarded
writes a row and moves another, all or nothing."""

from __future__ import annotations

import os
import subprocess
import sys
from datetime import timedelta
from pathlib import Path

import pytest
from django.core.exceptions import ImproperlyConfigured
from django.db import IntegrityError, connection, transaction
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from api.scope import Scope
from config.statements import Guard, Statement, columns, insert_guarded, instance
from courses.models import Quiz
from grading import engine, services
from grading.api import selectors
from grading.models import Attempt, Response, Variant
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
    for user, expected in ((learner, 2), (stranger, 0)):  # one row per counted try
        for ids in ((attempt.pk, item.pk), (attempt.pk, -5), (-5, item.pk)):
            found = selectors._VARIANT_FOR_LEARNER.rows(
                attempt_id=ids[0], item_id=ids[1], user_id=user.pk
            )
            assert found == list(
                selectors.variant_to_answer_rows(
                    scope=Scope(user=user), attempt_id=ids[0], item_id=ids[1]
                )
            )
            assert len(found) == (expected if ids == (attempt.pk, item.pk) else 0)
    tries = services._TRIES.rows(attempt_id=attempt.pk, item_id=item.pk)
    assert tries == list(services.tries_and_key_rows(attempt_id=attempt.pk, item_id=item.pk))
    assert [row[3] for row in tries] == ["incorrect", "incorrect"]  # the invalid one is no try
    keyed = dict(attempt_id=attempt.pk, item_id=-5, user_id=learner.pk, key="k-1")
    assert services._TRIES_AND_KEY.rows(**keyed) == list(services.tries_and_key_rows(**keyed))
    assert len(services._TRIES_AND_KEY.rows(**keyed)) == 1  # the key's earlier answer


def test_a_loaded_variant_comes_with_its_attempt_quiz_item_and_tries(shipped_bank):
    learner = UserFactory()
    attempt = services.attempt_start(user=learner, quiz=Quiz.objects.get(slug="attention-practice"))
    stored = Variant.objects.filter(attempt=attempt).first()
    item = stored.quiz_item
    answer = engine.get_family(stored.family).solve(stored.givens).answer
    for text in ("[[", engine.format_answer(answer * 3), engine.format_answer(answer * 5)):
        services.response_submit(attempt=attempt, item=item, text=text)
    loaded, tries = selectors.variant_to_answer(
        scope=Scope(user=learner), attempt_id=attempt.pk, item_id=stored.quiz_item_id
    )
    counted = Response.objects.filter(attempt=attempt, counts_as_try=True).order_by("created_at")
    assert [t.id for t in tries] == [r.pk for r in counted]  # the invalid answer is no try
    assert [t.status for t in tries] == ["incorrect", "incorrect"]
    assert tries[0].created_at == counted[0].created_at
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


# --- insert_guarded ---------------------------------------------------------------------------


def _answer_row(attempt: Attempt, **fields) -> Response:
    item = attempt.quiz.items.filter(problem__isnull=False).first()
    values = {
        "user_id": attempt.user_id,
        "attempt": attempt,
        "quiz_item": item,
        "variant": Variant.objects.get(attempt=attempt, quiz_item=item),
        "text": "0.5",
        "status": "incorrect",
        "score": 0.0,
        "misconception": "std-for-variance",
        "feedback": "That is the standard deviation.",
        "detail": {"expected_shape": [2], "notes": ["a", "b"]},
        "idempotency_key": "",
        **fields,
    }
    return Response(**values)


@pytest.fixture
def open_attempt(shipped_bank):
    return services.attempt_start(
        user=UserFactory(), quiz=Quiz.objects.get(slug="attention-practice")
    )


def _guard(attempt: Attempt, expected, score: float) -> Guard:
    return Guard(
        model=Attempt,
        pk=attempt.pk,
        field="updated_at",
        expected=expected,
        values={"score": score, "updated_at": timezone.now()},
    )


@pytest.mark.django_db(transaction=True)
def test_an_inserted_row_is_what_save_would_store(open_attempt):
    """Outside a transaction, as in production (on PostgreSQL: the one-statement path)."""
    saved = _answer_row(open_attempt, idempotency_key="by-save")
    saved.save(force_insert=True)
    inserted = _answer_row(open_attempt, idempotency_key="by-insert")
    assert insert_guarded(inserted, _guard(open_attempt, open_attempt.updated_at, 2.5))
    assert inserted.pk is not None
    assert not inserted._state.adding
    stored = Response.objects.get(pk=inserted.pk)
    twin = Response.objects.get(pk=saved.pk)
    for field in Response._meta.concrete_fields:
        if field.name not in ("id", "idempotency_key", "created_at"):
            assert getattr(stored, field.attname) == getattr(twin, field.attname), field.name
    assert stored.created_at == inserted.created_at  # auto_now_add applied, as save() does
    assert Attempt.objects.get(pk=open_attempt.pk).score == 2.5


@pytest.mark.django_db(transaction=True)
def test_a_stale_guard_writes_nothing(open_attempt):
    stale = open_attempt.updated_at - timedelta(seconds=1)
    row = _answer_row(open_attempt)
    assert insert_guarded(row, _guard(open_attempt, stale, 9.0)) is False
    assert row.pk is None
    assert not Response.objects.filter(attempt=open_attempt).exists()
    assert Attempt.objects.get(pk=open_attempt.pk).score == open_attempt.score


@pytest.mark.django_db(transaction=True)
def test_a_duplicate_key_raises_with_nothing_written(open_attempt):
    assert insert_guarded(_answer_row(open_attempt, idempotency_key="once"))
    fresh = Attempt.objects.get(pk=open_attempt.pk)
    with pytest.raises(IntegrityError):
        insert_guarded(
            _answer_row(open_attempt, idempotency_key="once"),
            _guard(fresh, fresh.updated_at, 7.0),
        )
    assert Attempt.objects.get(pk=open_attempt.pk).score == fresh.score
    assert Response.objects.filter(idempotency_key="once").count() == 1
    # The connection is usable afterwards (no transaction left aborted).
    assert Response.objects.filter(attempt=open_attempt).count() == 1


@pytest.mark.django_db(transaction=True)
def test_on_postgresql_a_guarded_insert_is_one_statement(open_attempt):
    row, guard = _answer_row(open_attempt), _guard(open_attempt, open_attempt.updated_at, 1)
    with CaptureQueriesContext(connection) as statements:
        assert insert_guarded(row, guard)
    if connection.vendor == "postgresql":
        assert len(statements) == 1, [q["sql"] for q in statements]
        assert statements[0]["sql"].startswith("WITH guard AS (UPDATE")
    else:  # the transaction, its insert and its update
        assert len(statements) <= 4


def test_inside_a_transaction_a_refused_guard_leaves_the_transaction_usable(open_attempt):
    """In the caller's transaction it runs in a savepoint: refusing undoes only its own rows."""
    with transaction.atomic():
        kept = _answer_row(open_attempt, idempotency_key="kept")
        assert insert_guarded(kept)
        refused = _answer_row(open_attempt, idempotency_key="refused")
        stale = open_attempt.updated_at - timedelta(seconds=1)
        assert insert_guarded(refused, _guard(open_attempt, stale, 3.0)) is False
        assert list(
            Response.objects.filter(attempt=open_attempt).values_list("idempotency_key", flat=True)
        ) == ["kept"]


def test_only_new_rows_are_inserted(open_attempt):
    row = _answer_row(open_attempt)
    row.save()
    with pytest.raises(ValueError, match="already has a pk"):
        insert_guarded(row)


_THREADS_SCRIPT = """
import gc, threading
import django
django.setup()
from django.db import connection, connections
from config.statements import Statement, columns
from courses.models import Quiz
with connection.schema_editor() as editor:
    editor.create_model(Quiz)
statement = Statement(
    lambda slug: Quiz.objects.filter(slug=slug).values_list(*columns(Quiz)), slug="(marker)"
)
def request():
    statement.rows(slug="a-quiz")
    connections.close_all()
for _ in range(4):
    thread = threading.Thread(target=request)
    thread.start()
    thread.join()
gc.collect()
print(len(statement._compiled))
"""


def test_a_finished_threads_connection_and_its_compiled_sql_are_freed(tmp_path):
    """A server with a thread per request (runserver) has a connection per thread: what a
    Statement compiled for one must not keep it alive once the thread is done. SQLite's date
    converters are methods of the connection's operations, the case that did."""
    environment = {k: v for k, v in os.environ.items() if k != "DJANGO_SETTINGS_MODULE"}
    environment.update(
        DJANGO_SETTINGS_MODULE="config.settings.base",
        DATABASE_URL=f"sqlite:///{tmp_path / 'threads.sqlite3'}",
    )
    result = subprocess.run(
        [sys.executable, "-c", _THREADS_SCRIPT],
        cwd=Path(__file__).resolve().parents[2],
        env=environment,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.split()[-1] == "0"
