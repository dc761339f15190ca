"""The bank format, declared once: each entity a bank holds as a list of field specs.

Validation (`validate`), the defaults it fills in, the rows the importer writes and the YAML the
exporter writes are all driven by these specs, so a new field of the format is one line here
(plus the model field it fills). docs/bank-format.md shows the same format by example.

A field the author leaves out takes its default, or is reported if required. Its kind reads
what is written: `is_empty` says which values count as left out too (null, or blank text; not for
a kind whose null is simply wrong), `clean` returns the value to carry on and what is wrong with
it, if anything. Cross-field rules live in `rules`.
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from datetime import datetime
from typing import Any, ClassVar

from django.db import models
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from ..models import Misconception, Pool, Problem, Question, Quiz
from . import rules

BANK_FORMAT = 1
SLUG_CHARS = frozenset("abcdefghijklmnopqrstuvwxyz0123456789-")
# What a reference to a key the bank does not hold says (%(key)s: the key as written).
NO_MISCONCEPTION = gettext_lazy("unknown misconception code %(key)s")
NO_QUESTION = gettext_lazy("no question %(key)s in this bank")
NO_PROBLEM = gettext_lazy("no problem %(key)s in this bank")

Cleaned = tuple[Any, str | None]  # the value to carry on, and what is wrong with it (or None)


def _got(message: str, value: Any, **more: Any) -> str:
    """A kind's complaint, naming the value as written (its repr) as %(value)s."""
    return message % {"value": repr(value), **more}


class Kind:
    """Any value, null counting as left out; the kinds below narrow it."""

    default: Any = None

    def is_empty(self, value: Any) -> bool:
        return value is None

    def clean(self, value: Any, default: Any) -> Cleaned:
        return value, None


class Text(Kind):
    default = ""

    def is_empty(self, value: Any) -> bool:
        return value is None or value == ""

    def clean(self, value: Any, default: Any) -> Cleaned:
        if not isinstance(value, str):
            return "", _("must be text, got %(type)s") % {"type": type(value).__name__}
        return value, None


class Slug(Text):
    def clean(self, value: Any, default: Any) -> Cleaned:
        value, problem = super().clean(value, default)
        if value and (set(value) - SLUG_CHARS or value.startswith("-")):
            problem = _got(_("%(value)s is not a slug (lowercase letters, digits, -)"), value)
        return value, problem


@dataclass(frozen=True)
class Whole(Kind):
    minimum: int

    def clean(self, value: Any, default: Any) -> Cleaned:
        if isinstance(value, bool) or not isinstance(value, int):
            return default, _got(_("must be a whole number, got %(value)s"), value)
        if value < self.minimum:
            return value, _("must be at least %(minimum)s, got %(value)s") % {
                "minimum": self.minimum,
                "value": value,
            }
        return value, None


class Number(Kind):
    """A number ≥ 0 that is never optional where it appears (a tolerance's atol and rtol).

    A wrong value is carried on as written, so the family's own check sees it too.
    """

    def is_empty(self, value: Any) -> bool:
        return False

    def clean(self, value: Any, default: Any) -> Cleaned:
        if isinstance(value, bool) or not isinstance(value, int | float) or value < 0:
            return value, _got(_("must be a number ≥ 0, got %(value)s"), value)
        return value, None


class Share(Kind):
    """A share of something from 0 to 1: a number, or a fraction written "1/3" so a third is
    exact rather than 0.33 (a quiz's penalty per extra try)."""

    def clean(self, value: Any, default: Any) -> Cleaned:
        if isinstance(value, str) and value.count("/") == 1:
            top, bottom = (part.strip() for part in value.split("/"))
            if top.isdigit() and bottom.isdigit() and int(bottom) > 0:
                value = int(top) / int(bottom)
        if isinstance(value, bool) or not isinstance(value, int | float) or not 0 <= value <= 1:
            message = _("must be a number from 0 to 1 or a fraction such as 1/3, got %(value)s")
            return default, _got(message, value)
        return float(value), None


class Flag(Kind):
    def clean(self, value: Any, default: Any) -> Cleaned:
        if not isinstance(value, bool):
            return default, _got(_("must be true or false, got %(value)s"), value)
        return value, None


@dataclass(frozen=True)
class OneOf(Kind):
    choices: type[models.TextChoices]  # the model field's choices: the bank allows their values

    def is_empty(self, value: Any) -> bool:
        return False  # null is not one of the options (left out, the field takes its default)

    def clean(self, value: Any, default: Any) -> Cleaned:
        options = self.choices.values
        if value not in options:
            message = _("must be one of %(options)s; got %(value)s")
            return default, _got(message, value, options=", ".join(options))
        return value, None


class Moment(Kind):
    def clean(self, value: Any, default: Any) -> Cleaned:
        if not isinstance(value, datetime):
            message = _("must be a date and time such as 2027-01-31T23:59:00Z, got %(value)s")
            return None, _got(message, value)
        if value.tzinfo is None:
            return None, _("needs a time zone, e.g. a trailing Z for UTC")
        return value, None


@dataclass(frozen=True)
class Const(Kind):
    value: Any

    def is_empty(self, value: Any) -> bool:
        return False

    def clean(self, value: Any, default: Any) -> Cleaned:
        if value != self.value:
            return value, _got(_("must be %(expected)s; got %(value)s"), value, expected=self.value)
        return value, None


class Params(Kind):
    """An engine family's parameters: free-form here, checked by the family (rules)."""

    default: ClassVar[dict] = {}

    def is_empty(self, value: Any) -> bool:
        return not value

    def clean(self, value: Any, default: Any) -> Cleaned:
        if not isinstance(value, dict):
            return {}, _("must be a mapping of parameter names to values")
        return value, None


@dataclass(frozen=True, eq=False)
class Ref(Kind):
    """The key of an entity elsewhere in the same bank; the model field holds that row."""

    target: Entity
    unknown: str  # the message for a key the bank does not hold, given its repr as %(key)s

    def is_empty(self, value: Any) -> bool:
        return value is None or value == ""


@dataclass(frozen=True, eq=False)
class Refs(Kind):
    """The keys of entities elsewhere in the same bank, a list; the model's many-to-many field
    holds those rows (written by the importer, in key order by the exporter)."""

    target: Entity
    unknown: str  # the message for a key the bank does not hold, given its repr as %(key)s
    default: ClassVar[list] = []

    def is_empty(self, value: Any) -> bool:
        return value is None or value == []

    def clean(self, value: Any, default: Any) -> Cleaned:
        if not isinstance(value, list) or not all(isinstance(key, str) for key in value):
            return [], _("must be a list of %(entity)s %(field)ss, got %(value)s") % {
                "entity": self.target.noun,
                "field": self.target.key,
                "value": repr(value),
            }
        if len(set(value)) != len(value):
            return value, _("names a member twice")
        return value, None


@dataclass(frozen=True, eq=False)
class Nested(Kind):
    """A mapping of the entity's fields; `flatten` puts them among its parent's fields."""

    entity: Entity
    flatten: bool = False


@dataclass(frozen=True, eq=False)
class ListOf(Kind):
    """A list of entities. `label` names an item inside its parent ("choice 2"); a
    top-level section names it by list and key instead ("questions[3] (q-why-sqrt)")."""

    entity: Entity
    label: str = ""
    empty: str = ""  # the message when the list may not be empty
    order_by: tuple[str, ...] = ()  # the export's order, when not the model's own


@dataclass(frozen=True)
class Field:
    name: str  # as written in the bank
    kind: Kind
    required: bool = False
    default: Any = None  # None: the kind's default
    markup: bool = False  # Markdown + math, checked with courses.markup.check_markup
    term_links: bool = False  # may link the lesson's key terms as [[slug]]
    model_field: str = ""  # the model's name for it, when different
    sparse: bool = False  # the export writes it only when it differs from the default

    @property
    def attr(self) -> str:
        return self.model_field or self.name

    def fallback(self) -> Any:
        """The value of a field left out (a fresh copy: normalised banks are mutable)."""
        return copy.copy(self.kind.default if self.default is None else self.default)


Rule = Callable[[dict, int], Iterable[tuple[str, str]]]


@dataclass(frozen=True, eq=False)
class Entity:
    noun: str  # in messages: "duplicate question slug", "question q-x"
    fields: tuple[Field, ...]
    key: str = ""  # the field that names it: unique in a bank
    model: Any = None  # set when the key is unique across lessons: no bank may take it over
    rules: tuple[Rule, ...] = ()

    def __iter__(self) -> Iterator[Field]:
        return iter(self.fields)

    @property
    def allowed(self) -> set[str]:
        return {field.name for field in self.fields}


def required(name: str, kind: Kind, **options: Any) -> Field:
    return Field(name, kind, required=True, **options)


# Left out: the file's `published`; left out there too, a new row starts unpublished and a stored
# one keeps its state (bank.publishing fills in true or false before anything is written).
PUBLISHED = Field("published", Flag(), sparse=True)

COURSE = Entity(
    "course",
    (
        required("slug", Slug()),
        required("title", Text(), markup=True),
        Field("summary", Text(), markup=True),
    ),
    key="slug",
)
LESSON = Entity(
    "lesson",
    (
        required("slug", Slug()),
        required("title", Text(), markup=True),
        Field("summary", Text(), markup=True),
        Field("order", Whole(minimum=1), default=1),
        Field("minutes", Whole(minimum=1), default=20),
        required("body", Text(), markup=True, term_links=True),
    ),
    key="slug",
)
KEY_TERM = Entity(
    "key term",
    (
        required("slug", Slug()),
        required("term", Text(), markup=True),
        required("definition", Text(), markup=True),
    ),
    key="slug",
)
MISCONCEPTION = Entity(
    "misconception",
    (
        required("code", Slug()),
        required("title", Text(), markup=True),
        required("explanation", Text(), markup=True),
        # A placeholder a Moodle XML import made (listed last in pickers, marked "imported").
        Field("imported", Flag(), default=False, sparse=True),
    ),
    key="code",
    model=Misconception,
)
CHOICE = Entity(
    "choice",
    (
        required("text", Text(), markup=True),
        Field("correct", Flag(), default=False, model_field="is_correct"),
        Field("pinned", Flag(), default=False, sparse=True),
        Field("misconception", Ref(MISCONCEPTION, NO_MISCONCEPTION), sparse=True),
        Field("feedback", Text(), markup=True),
    ),
    rules=(rules.wrong_choice_names_a_misconception,),
)
QUESTION = Entity(
    "question",
    (
        required("slug", Slug()),
        Field("title", Text(), markup=True, sparse=True),  # a name for the lists; the slug if empty
        Field("kind", OneOf(Question.Kind), default=Question.Kind.SINGLE),
        required("prompt", Text(), markup=True),
        Field("explanation", Text(), markup=True),
        Field("choices", ListOf(CHOICE, label="choice")),
        PUBLISHED,
    ),
    key="slug",
    model=Question,
    rules=(rules.question_choices_fit_kind,),
)
TOLERANCE = Entity("tolerance", (required("atol", Number()), required("rtol", Number())))
PROBLEM = Entity(
    "problem",
    (
        required("slug", Slug()),
        required("title", Text(), markup=True),
        required("family", Text()),
        Field("params", Params()),
        Field("prompt", Text(), markup=True),
        Field("tolerance", Nested(TOLERANCE, flatten=True), sparse=True),
        Field("exam_only", Flag(), default=False, sparse=True),
        Field("solution_after_tries", Whole(minimum=1), default=3, sparse=True),
        PUBLISHED,
    ),
    key="slug",
    model=Problem,
    rules=(rules.problem_makes_variants,),
)
POOL = Entity(
    "pool",
    (
        required("slug", Slug()),
        required("title", Text()),
        Field("questions", Refs(QUESTION, NO_QUESTION), sparse=True),
        Field("problems", Refs(PROBLEM, NO_PROBLEM), sparse=True),
    ),
    key="slug",
    model=Pool,
    rules=(rules.pool_has_members,),
)
QUIZ_ITEM = Entity(
    "item",
    (
        Field("question", Ref(QUESTION, NO_QUESTION), sparse=True),
        Field("problem", Ref(PROBLEM, NO_PROBLEM), sparse=True),
        Field("pool", Ref(POOL, gettext_lazy("no pool %(key)s in this bank")), sparse=True),
        Field("points", Whole(minimum=1), default=1, sparse=True),
    ),
    rules=(rules.item_names_one_target,),
)
Release = Quiz.AnswerRelease
QUIZ = Entity(
    "quiz",
    (
        required("slug", Slug()),
        required("title", Text(), markup=True),
        Field("description", Text(), markup=True),
        Field("mode", OneOf(Quiz.Mode), default=Quiz.Mode.PRACTICE),
        Field("time_limit_minutes", Whole(minimum=1)),  # none: no limit
        Field(
            "overdue_handling",
            OneOf(Quiz.OverdueHandling),
            default=Quiz.OverdueHandling.SUBMIT,
            sparse=True,
        ),
        Field("grace_minutes", Whole(minimum=0), default=0, sparse=True),
        Field("attempts_allowed", Whole(minimum=1)),  # none: unlimited
        Field("tries_per_item", Whole(minimum=1), default=1),
        Field("extra_try_penalty", Share(), default=0.0, sparse=True),
        Field("rounding_retries", Flag(), default=True, sparse=True),
        Field("show_feedback", OneOf(Quiz.Feedback), default=Quiz.Feedback.IMMEDIATELY),
        Field("release_answers", OneOf(Release), default=Release.AFTER_SUBMISSION),
        Field("opens_at", Moment(), sparse=True),
        Field("closes_at", Moment(), sparse=True),
        # Left out: the quiz's mode decides (Quiz.shuffles_items, Quiz.shuffles_choices).
        Field("shuffle_items", Flag(), sparse=True),
        Field("shuffle_choices", Flag(), sparse=True),
        Field(
            "items",
            ListOf(QUIZ_ITEM, label="item", empty=gettext_lazy("a quiz needs at least one item")),
        ),
        PUBLISHED,
    ),
    key="slug",
    model=Quiz,
    rules=(rules.quiz_window_and_policy,),
)

SECTIONS = (
    Field("key_terms", ListOf(KEY_TERM)),
    Field("misconceptions", ListOf(MISCONCEPTION)),
    Field("questions", ListOf(QUESTION)),
    Field("problems", ListOf(PROBLEM)),
    Field("pools", ListOf(POOL, order_by=("slug",))),
    Field("quizzes", ListOf(QUIZ, order_by=("id",))),
)
DOCUMENT = Entity(
    "bank",
    (
        required("format", Const(BANK_FORMAT)),
        required("course", Nested(COURSE)),
        required("lesson", Nested(LESSON)),
        PUBLISHED,
        *SECTIONS,
    ),
)
