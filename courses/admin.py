"""The authoring tool: instructors write lessons, questions and quizzes here.

Questions and their choices are in admin_questions; Problem is registered by the grading app,
which owns the engine that previews its variants. `MarkupFieldsForm` and `markup_preview` are
imported from here by the other admin modules.
"""

from __future__ import annotations

from django import forms
from django.contrib import admin
from django.urls import path, reverse
from django.utils.html import format_html
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from accounts.admin_times import ZONED_DATE_TIMES

from . import admin_questions  # noqa: F401 (registers Question with its choices)
from .admin_markup import LabelledRowsMixin, MarkupFieldsForm, markup_preview, plain_column
from .admin_publishing import PUBLISHING_ACTIONS
from .attempted_quizzes import prepared_attempts_discard
from .bank.rules import quiz_policy_problems
from .content_versions import content_changed
from .models import Course, KeyTerm, Lesson, Misconception, Quiz, QuizItem
from .moodle_admin import export_moodle_xml, moodle_import_view
from .pool_admin import (
    foreign_draw_errors,
    lesson_move_errors,
    pool_draw_problems,
    quiz_draws_view,
)
from .publishing import unpublished_in
from .quiz_items_admin import (
    CONFIRM_FIELD,
    DIGEST_FIELD,
    NextOrderFormSetMixin,
    attempted_items_clean,
    attempts_notice,
    confirm_field,
    digest_field,
    digest_shown,
    quiz_items_save,
)


class CourseForm(MarkupFieldsForm):
    markup_fields = ("title", "summary")

    class Meta:
        model = Course
        fields = "__all__"


@admin.register(Course)
class CourseAdmin(admin.ModelAdmin):
    form = CourseForm
    list_display = [plain_column("title", gettext_lazy("Title")), "slug", "updated_at"]
    search_fields = ["title", "slug"]
    prepopulated_fields = {"slug": ["title"]}


class KeyTermForm(MarkupFieldsForm):
    markup_fields = ("term", "definition")

    class Meta:
        model = KeyTerm
        fields = "__all__"


class KeyTermInline(admin.TabularInline):
    model = KeyTerm
    form = KeyTermForm
    extra = 0
    fields = ["order", "slug", "term", "definition", "definition_preview"]
    readonly_fields = ["definition_preview"]

    @admin.display(description=gettext_lazy("Preview"))
    def definition_preview(self, obj: KeyTerm):
        return markup_preview(obj.definition) if obj.pk else "-"


class LessonForm(MarkupFieldsForm):
    markup_fields = ("title", "summary", "body")

    class Meta:
        model = Lesson
        fields = "__all__"

    def clean(self):
        cleaned = super().clean()
        lesson_move_errors(self, cleaned)
        return cleaned


@admin.register(Lesson)
class LessonAdmin(admin.ModelAdmin):
    form = LessonForm
    list_display = [
        plain_column("title", gettext_lazy("Title")),
        "course",
        "order",
        "minutes",
        "updated_at",
    ]
    list_filter = ["course"]
    search_fields = ["title", "slug", "body"]
    prepopulated_fields = {"slug": ["title"]}
    inlines = [KeyTermInline]
    actions = [export_moodle_xml]
    readonly_fields = ["body_preview", "questions"]
    fieldsets = [
        (None, {"fields": ["course", "title", "slug", "order", "minutes", "summary"]}),
        (gettext_lazy("Body"), {"fields": ["body", "body_preview"]}),
        (gettext_lazy("Questions"), {"fields": ["questions"]}),
    ]

    def get_urls(self):
        view = self.admin_site.admin_view(lambda request: moodle_import_view(self, request))
        own = [path("import-moodle-xml/", view, name="courses_lesson_moodle_import")]
        return own + super().get_urls()

    @admin.display(description=gettext_lazy("Questions"))
    def questions(self, obj: Lesson):
        if not obj.pk:
            return _("Save the lesson to add questions to it.")
        # A question added from here knows its lesson: its pickers list this lesson's first.
        return format_html(
            _(
                '<a href="{add}?lesson={lesson}">Add a question to this lesson</a> · '
                '<a href="{list}?lesson__id__exact={lesson}">Its questions</a>'
            ),
            add=reverse("admin:courses_question_add"),
            list=reverse("admin:courses_question_changelist"),
            lesson=obj.pk,
        )

    @admin.display(description=gettext_lazy("Preview"))
    def body_preview(self, obj: Lesson):
        return markup_preview(obj.body) if obj.pk else _("Save to see the rendered lesson.")


@admin.register(KeyTerm)
class KeyTermAdmin(admin.ModelAdmin):
    form = KeyTermForm
    list_display = [plain_column("term", gettext_lazy("Term")), "slug", "lesson"]
    list_filter = ["lesson"]
    search_fields = ["term", "definition"]
    readonly_fields = ["definition_preview"]

    @admin.display(description=gettext_lazy("Preview"))
    def definition_preview(self, obj: KeyTerm):
        return markup_preview(obj.definition) if obj.pk else "-"


class MisconceptionForm(MarkupFieldsForm):
    markup_fields = ("title", "explanation")

    class Meta:
        model = Misconception
        fields = "__all__"


@admin.register(Misconception)
class MisconceptionAdmin(admin.ModelAdmin):
    form = MisconceptionForm
    # Placeholders an import made are marked, filtered and listed after the lesson's own.
    list_display = ["code", plain_column("title", gettext_lazy("Title")), "lesson", "imported"]
    list_filter = ["imported", "lesson"]
    ordering = ["lesson", "imported", "code"]
    search_fields = ["code", "title", "explanation"]
    readonly_fields = ["explanation_preview"]

    @admin.display(description=gettext_lazy("Preview"))
    def explanation_preview(self, obj: Misconception):
        return markup_preview(obj.explanation) if obj.pk else "-"


class QuizItemInlineFormSet(LabelledRowsMixin, NextOrderFormSetMixin, forms.BaseInlineFormSet):
    # Who saves (QuizItemInline.get_formset): a points change on an attempted quiz is theirs.
    user = None

    def clean(self):
        # First: a removal from an attempted quiz gets its plain error, not the list of
        # protected objects the model formset's own clean would raise for it.
        attempted_items_clean(self, user=self.user)
        if any(getattr(form, "cleaned_data", {}).get("DELETE") for form in self.forms):
            # Attempts prepared ahead of their start would keep a removed item (and the list
            # of protected objects would name them): they are made afresh after the change.
            prepared_attempts_discard(quiz=self.instance)
        super().clean()
        kept = []
        for number, form in enumerate(self.forms, start=1):
            data = getattr(form, "cleaned_data", None)
            if not data or data.get("DELETE"):
                continue
            if sum(bool(data.get(name)) for name in ("question", "problem", "pool")) != 1:
                raise forms.ValidationError(
                    _("Item %(number)s must name exactly one of a question, a problem or a pool.")
                    % {"number": number}
                )
            kept.append((number, data))
        foreign_draw_errors(self, kept)
        for problem in pool_draw_problems(
            (number, data["pool"]) for number, data in kept if data.get("pool")
        ):
            raise forms.ValidationError(problem)
        # The quiz's form has already put its "published" box on the instance.
        if self.instance.published:
            found = unpublished_in(
                (number, data.get("question"), data.get("problem"), data.get("pool"))
                for number, data in kept
            )
            if found:
                raise forms.ValidationError(
                    [
                        _("A published quiz holds only published content: %(item)s.")
                        % {"item": item}
                        for item in found
                    ]
                    + [_("Publish them first, or leave the quiz unpublished.")]
                )


class QuizItemInline(admin.TabularInline):
    model = QuizItem
    formset = QuizItemInlineFormSet
    extra = 0
    fields = ["order", "question", "problem", "pool", "points"]
    autocomplete_fields = ["question", "problem", "pool"]

    def get_formset(self, request, obj=None, **kwargs):
        formset = super().get_formset(request, obj, **kwargs)
        formset.user = request.user
        return formset


class ShuffleSelect(forms.NullBooleanSelect):
    """Empty, on or off, where empty is worded as the rule it stands for."""

    def __init__(self, attrs=None):
        super().__init__(attrs)
        self.choices = [
            ("unknown", _("By mode: on for exams, off for practice quizzes")),
            ("true", _("On")),
            ("false", _("Off")),
        ]


class QuizForm(MarkupFieldsForm):
    markup_fields = ("title", "description")
    regrade_attempts = confirm_field()
    regrade_digest = digest_field()

    class Meta:
        model = Quiz
        fields = "__all__"
        widgets = {"shuffle_items": ShuffleSelect, "shuffle_choices": ShuffleSelect}

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["extra_try_penalty"].required = False

    def clean_extra_try_penalty(self) -> float:
        # Left empty: no penalty, as a bank that leaves the field out.
        return self.cleaned_data.get("extra_try_penalty") or 0.0

    def clean(self):
        cleaned = super().clean()
        for problem in quiz_policy_problems(
            mode=cleaned.get("mode"),
            show_feedback=cleaned.get("show_feedback"),
            release_answers=cleaned.get("release_answers"),
            has_close=cleaned.get("closes_at") is not None,
            extra_try_penalty=cleaned.get("extra_try_penalty") or 0.0,
        ):
            raise forms.ValidationError(problem[0].upper() + problem[1:] + ".")
        return cleaned


@admin.register(Quiz)
class QuizAdmin(admin.ModelAdmin):
    form = QuizForm
    formfield_overrides = ZONED_DATE_TIMES
    list_display = [
        plain_column("title", gettext_lazy("Title")),
        "mode",
        "lesson",
        "time_limit_minutes",
        "attempts_allowed",
        "published",
    ]
    list_filter = ["published", "lesson", "mode"]
    actions = PUBLISHING_ACTIONS
    search_fields = ["title", "slug"]
    prepopulated_fields = {"slug": ["title"]}
    inlines = [QuizItemInline]
    readonly_fields = ["description_preview", "learner_preview", "pool_draws", "attempts_summary"]
    fieldsets = [
        (
            None,
            {
                "fields": [
                    "lesson",
                    "title",
                    "slug",
                    "description",
                    "description_preview",
                    "mode",
                    "published",
                    "learner_preview",
                    "pool_draws",
                ]
            },
        ),
        (
            gettext_lazy("Limits"),
            {
                "fields": [
                    "time_limit_minutes",
                    "overdue_handling",
                    "grace_minutes",
                    "attempts_allowed",
                    "tries_per_item",
                    "extra_try_penalty",
                    "rounding_retries",
                ]
            },
        ),
        (gettext_lazy("Attempts"), {"fields": ["attempts_summary", CONFIRM_FIELD, DIGEST_FIELD]}),
        (gettext_lazy("Availability"), {"fields": ["opens_at", "closes_at"]}),
        (gettext_lazy("Policy"), {"fields": ["show_feedback", "release_answers"]}),
        (
            gettext_lazy("Order"),
            {
                "fields": ["shuffle_items", "shuffle_choices"],
                "description": gettext_lazy(
                    "Each attempt draws its own order, kept on every reload and in "
                    "its results. A change applies to attempts started afterwards."
                ),
            },
        ),
    ]

    class Media:
        # The items table fits a 1280 px screen; a row added counts its order up.
        css = {"all": ["css/admin-quiz.css"]}
        js = ["js/admin-quiz-items.js"]

    def get_urls(self):
        view = self.admin_site.admin_view(
            lambda request, object_id: quiz_draws_view(self, request, object_id)
        )
        own = [path("<path:object_id>/draws/", view, name="courses_quiz_draws")]
        return own + super().get_urls()

    def render_change_form(self, request, context, *args, **kwargs):
        digest_shown(context)
        return super().render_change_form(request, context, *args, **kwargs)

    def save_related(self, request, form, formsets, change):
        super().save_related(request, form, formsets, change)
        # The object and its inlines are saved: sheets showing it are rendered again.
        content_changed(quiz_ids=[form.instance.pk])

    def save_formset(self, request, form, formset, change):
        if formset.model is QuizItem:
            quiz_items_save(formset, request=request)
        else:
            super().save_formset(request, form, formset, change)

    @admin.display(description=gettext_lazy("Attempts"))
    def attempts_summary(self, obj: Quiz):
        return attempts_notice(obj)

    @admin.display(description=gettext_lazy("Draws from a pool"))
    def pool_draws(self, obj: Quiz):
        if not obj.pk:
            return _("Save the quiz first, then add items that draw from a pool.")
        url = reverse("admin:courses_quiz_draws", args=[obj.pk])
        return format_html(
            _(
                '<a href="{url}">Draw k members from a pool</a> (adds k items at the end, each '
                "drawing a different member per attempt)"
            ),
            url=url,
        )

    @admin.display(description=gettext_lazy("Preview"))
    def description_preview(self, obj: Quiz):
        return markup_preview(obj.description) if obj.pk and obj.description else "-"

    @admin.display(description=gettext_lazy("As a learner"))
    def learner_preview(self, obj: Quiz):
        """A link to the quiz's instructor page, whose button starts a preview (a POST: a form
        cannot sit inside the admin's own form)."""
        if not obj.pk:
            return _("Save the quiz first, then preview it as a learner.")
        url = reverse("teaching:quiz-results", kwargs={"slug": obj.slug})
        return format_html(
            _(
                '<a href="{url}#preview">Preview as a learner</a> (on the quiz\'s instructor '
                "page; counted nowhere)"
            ),
            url=url,
        )
