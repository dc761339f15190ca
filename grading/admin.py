"""Admin for what the grading engine drives: problems with variant previews, and learner records;
adding a user refuses the user names softgrade keeps for its own accounts."""

from __future__ import annotations

import json

from django import forms
from django.contrib import admin
from django.contrib.auth.admin import UserAdmin
from django.contrib.auth.forms import AdminUserCreationForm
from django.contrib.auth.models import User
from django.utils.html import format_html, format_html_join
from django.utils.safestring import mark_safe
from django.utils.translation import gettext, gettext_lazy
from django.utils.translation import gettext as _

from courses.admin import MarkupFieldsForm, markup_preview
from courses.admin_markup import plain_column
from courses.admin_publishing import PUBLISHING_ACTIONS, unpublishing_problems
from courses.content_versions import content_changed
from courses.markup import MarkupError, render_markup
from courses.models import Misconception, Problem
from courses.pool_admin import MemberMoveForm
from grading import accommodation_admin, engine  # noqa: F401 (registers QuizAccommodation)
from grading.admin_formula import FormulaEditorMixin, starter_params
from grading.deletions import attempt_delete, may_delete_attempts
from grading.families import problem_errors, variant_data
from grading.forms import username_unreserved
from grading.locale_numbers import decimal_separator
from grading.models import (
    Attempt,
    AttemptDeletion,
    PracticeStreak,
    Regrade,
    Response,
    ScoreChange,
    SolutionReveal,
    Variant,
)
from grading.services.overdue import overdue_attempts_close

PREVIEW_SEEDS = (1, 2, 3)


class ProblemForm(MemberMoveForm, MarkupFieldsForm):
    markup_fields = ("title", "prompt")
    family = forms.ChoiceField(choices=())

    class Meta:
        model = Problem
        fields = "__all__"

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        if "params" not in self.fields:
            return  # a formula problem's family and params are edited with its own form
        self.fields["family"].choices = [
            (key, f"{key}: {gettext(family.title)}")
            for key, family in sorted(engine.FAMILIES.items())
        ]
        specs = []
        for key, family in sorted(engine.FAMILIES.items()):
            names = ", ".join(
                _("%(name)s (default %(default)s)") % {"name": s.name, "default": repr(s.default)}
                for s in family.param_specs
            )
            names = names or _("no parameters")
            specs.append(f"{key}: {names}")
        self.fields["params"].help_text = _(
            "JSON; {} takes the family's defaults. Parameters per family — %(families)s"
        ) % {"families": "; ".join(specs)}

    def clean(self):
        cleaned = super().clean()
        for problem in unpublishing_problems(self):
            self.add_error("published", problem)
        family = cleaned.get("family")
        if family == engine.FORMULA_FAMILY and not cleaned.get("params"):
            # A new formula problem starts from a small working example, then opens in its form.
            cleaned["params"] = starter_params()
        if not family or "params" not in cleaned:
            return cleaned
        errors = problem_errors(
            family, cleaned["params"] or {}, cleaned.get("atol"), cleaned.get("rtol")
        )
        if not errors and family == engine.FORMULA_FAMILY:
            # Each mistake code must name a misconception, or learners get no explanation of it.
            # So must a property check's misconception, when it names one.
            named = engine.mistake_misconceptions(cleaned["params"] or {})
            checks = engine.property_misconceptions(cleaned["params"] or {})
            codes = {*named.values(), *checks.values()}
            known = set(Misconception.objects.filter(code__in=codes).values_list("code", flat=True))
            for code, misconception in sorted(named.items()):
                if misconception not in known:
                    errors[f"params.mistakes.{code}"] = _(
                        "no misconception has the code '%(code)s'"
                    ) % {"code": misconception}
            for check, misconception in checks.items():
                if misconception not in known:
                    number = check.removeprefix("property-")
                    errors[f"params.properties.{number}.misconception"] = _(
                        "no misconception has the code '%(code)s'"
                    ) % {"code": misconception}
        for name, message in errors.items():
            if name == "family":
                self.add_error("family", message)
            elif name == "tolerance":
                self.add_error("atol", message)
            else:
                self.add_error("params", f"{name.removeprefix('params.')}: {message}")
        return cleaned


@admin.register(Problem)
class ProblemAdmin(FormulaEditorMixin, admin.ModelAdmin):
    form = ProblemForm
    list_display = [
        plain_column("title", gettext_lazy("Title")),
        "slug",
        "family",
        "lesson",
        "tolerance",
        "exam_only",
        "published",
    ]
    list_filter = ["published", "lesson", "family", "exam_only"]
    actions = PUBLISHING_ACTIONS
    search_fields = ["title", "slug", "family", "prompt"]
    readonly_fields = ["variant_preview", "formula_editor"]
    fieldsets = [
        (
            None,
            {
                "fields": [
                    "lesson",
                    "title",
                    "slug",
                    "order",
                    "published",
                    "prompt",
                    "exam_only",
                    "solution_after_tries",
                ]
            },
        ),
        (
            gettext_lazy("Engine"),
            {"fields": ["family", "formula_editor", "params", "atol", "rtol"]},
        ),
        (gettext_lazy("Preview"), {"fields": ["variant_preview"]}),
    ]

    @admin.display(description=gettext_lazy("Tolerance"))
    def tolerance(self, obj: Problem) -> str:
        return _("family default") if obj.atol is None else f"atol {obj.atol}, rtol {obj.rtol}"

    def save_related(self, request, form, formsets, change):
        super().save_related(request, form, formsets, change)
        # The object and its inlines are saved: sheets showing it are rendered again.
        content_changed(problem_ids=[form.instance.pk])

    def change_view(self, request, object_id, form_url="", extra_context=None):
        seed = request.GET.get("seed", "")
        self._preview_seeds = (int(seed),) if seed.isdigit() else PREVIEW_SEEDS
        return super().change_view(request, object_id, form_url, extra_context)

    @admin.display(description=gettext_lazy("Variants"))
    def variant_preview(self, obj: Problem):
        if not obj.pk:
            return _("Save to preview generated variants.")
        seeds = getattr(self, "_preview_seeds", PREVIEW_SEEDS)
        # Learners read the problem's own prompt above every variant's numbers.
        blocks = [markup_preview(obj.prompt)] if obj.prompt else []
        for seed in seeds:
            try:
                data = variant_data(obj, seed)
                family = engine.get_family(obj.family)
                prompt = render_markup(family.prompt(data.givens, decimal_separator()))
            except (engine.ParamError, engine.UnknownFamily, MarkupError, ValueError) as exc:
                blocks.append(
                    format_html(
                        '<p class="errornote">{}</p>',
                        _("Seed %(seed)s: %(error)s") % {"seed": seed, "error": exc},
                    )
                )
                continue
            mistakes = format_html_join(
                "",
                "<li><code>{}</code>: {}</li>",
                ((code, engine.format_answer(value)) for code, value in data.mistakes.items()),
            )
            blocks.append(
                format_html(
                    _(
                        '<div class="sg-preview"><h4>Seed {seed}</h4>{prompt}'
                        "<p>Givens: <code>{givens}</code></p>"
                        "<p>Grading key (never shown to learners): <code>{key}</code></p>"
                        "<p>Answer: <code>{answer}</code></p>"
                        "<p>Mistakes offered:</p><ul>{mistakes}</ul></div>"
                    ),
                    seed=seed,
                    prompt=prompt,
                    givens=json.dumps(data.givens),
                    key=json.dumps(data.grading_key),
                    answer=engine.format_answer(data.answer),
                    mistakes=mistakes or format_html("<li>{}</li>", _("none for this variant")),
                )
            )
        hint = mark_safe(_("<p>Any seed: add <code>?seed=N</code> to this page's address.</p>"))
        return format_html("{}{}", format_html_join("", "{}", ((b,) for b in blocks)), hint)


class ViewOnly:
    """Everyone, superusers included, may look but not add, change or delete here."""

    def has_add_permission(self, request, obj=None):
        return False

    def has_change_permission(self, request, obj=None):
        return False

    def has_delete_permission(self, request, obj=None):
        return False


class RecordAdmin(ViewOnly, admin.ModelAdmin):
    """A learner's record is evidence, and an audit row is history: view only (an attempt is
    deleted only through grading/deletions.py)."""

    def get_readonly_fields(self, request, obj=None):
        return [f.name for f in self.model._meta.fields] + list(self.readonly_fields)


class RecordInline(ViewOnly, admin.TabularInline):
    extra = 0
    can_delete = False
    show_change_link = True


@admin.display(description=gettext_lazy("Choices picked"))
def picked_choices(response: Response) -> str:
    return ", ".join(str(choice) for choice in response.choices.all()) or "—"


@admin.register(Variant)
class VariantAdmin(RecordAdmin):
    list_display = ["problem", "user", "attempt", "counter", "seed", "family_version", "created_at"]
    list_filter = ["problem__lesson", "family"]
    search_fields = ["problem__slug", "user__username"]
    list_select_related = ["problem", "user", "attempt"]


class ResponseInline(RecordInline):
    model = Response
    fields = ["quiz_item", "status", "score", "counts_as_try", "text", "picked", "created_at"]
    readonly_fields = fields

    def get_queryset(self, request):
        return super().get_queryset(request).select_related("quiz_item").prefetch_related("choices")

    @admin.display(description=gettext_lazy("Choices picked"))
    def picked(self, obj: Response) -> str:
        return picked_choices(obj)


class ScoreChangeInline(RecordInline):
    model = ScoreChange
    fk_name = "attempt"
    fields = ["created_at", "kind", "quiz_item", "old_score", "new_score", "reason", "by_username"]
    readonly_fields = fields


class StartedStatusFilter(admin.SimpleListFilter):
    """The statuses an attempt in this list can have: a prepared one is in no list (the default
    manager leaves it out, grading.models.started_attempt), so it is not offered either."""

    title = gettext_lazy("status")
    parameter_name = "status__exact"  # as the field's own filter named it: links keep working

    def lookups(self, request, model_admin) -> list[tuple[str, str]]:
        return [(v, label) for v, label in Attempt.Status.choices if v != Attempt.Status.PREPARED]

    def queryset(self, request, queryset):
        return queryset.filter(status=self.value()) if self.value() else queryset


@admin.register(Attempt)
class AttemptAdmin(RecordAdmin):
    list_display = ["user", "quiz", "number", "status", "score", "max_score", "late", "started_at"]
    list_filter = ["quiz", StartedStatusFilter, "late"]
    search_fields = ["user__username", "quiz__slug"]
    list_select_related = ["user", "quiz"]
    inlines = [ResponseInline, ScoreChangeInline]

    # The list and the page show an attempt's status and score: one whose time ran out is closed
    # first (grading/services/overdue.py), as on every other page that shows attempts.
    def changelist_view(self, request, extra_context=None):
        overdue_attempts_close(among=self.get_queryset(request))
        return super().changelist_view(request, extra_context)

    def change_view(self, request, object_id, form_url="", extra_context=None):
        # A number's address is the number itself; anything else is the admin's "not found".
        if str(object_id).isdigit():
            overdue_attempts_close(among=self.get_queryset(request).filter(pk=int(object_id)))
        return super().change_view(request, object_id, form_url, extra_context)

    def has_delete_permission(self, request, obj=None):
        return may_delete_attempts(user=request.user)

    def get_deleted_objects(self, objs, request):
        # The attempt's variants and responses go with it through the service, which alone
        # needs a permission (their own admins refuse deleting them one by one), and which
        # deletes the responses first: they are what protects the variants here.
        deleted, counts, perms_needed, protected = super().get_deleted_objects(objs, request)
        if may_delete_attempts(user=request.user):
            perms_needed, protected = set(), []
        return deleted, counts, perms_needed, protected

    def delete_model(self, request, obj):
        attempt_delete(attempt=obj, by=request.user)

    def delete_queryset(self, request, queryset):
        for attempt in queryset:
            attempt_delete(attempt=attempt, by=request.user)


@admin.register(Response)
class ResponseAdmin(RecordAdmin):
    list_display = ["user", "status", "misconception", "score", "counts_as_try", "created_at"]
    list_filter = ["status", "misconception", "counts_as_try"]
    search_fields = ["user__username", "text", "misconception"]
    list_select_related = ["user"]
    readonly_fields = [picked_choices]
    exclude = ["choices"]


@admin.register(ScoreChange)
class ScoreChangeAdmin(RecordAdmin):
    list_display = [
        "created_at",
        "kind",
        "learner",
        "quiz_item",
        "old_score",
        "new_score",
        "by_username",
    ]
    list_filter = ["kind", "quiz_item__quiz"]
    search_fields = ["learner__username", "by_username", "reason"]
    list_select_related = ["learner", "quiz_item__quiz"]


@admin.register(Regrade)
class RegradeAdmin(RecordAdmin):
    list_display = [
        "created_at",
        "quiz_item",
        "responses_changed",
        "attempts_changed",
        "by_username",
    ]
    list_filter = ["quiz_item__quiz"]
    search_fields = ["by_username"]
    list_select_related = ["quiz_item__quiz"]


@admin.register(AttemptDeletion)
class AttemptDeletionAdmin(RecordAdmin):
    list_display = ["deleted_at", "learner_username", "quiz_slug", "number", "score", "by_username"]
    list_filter = ["quiz_slug"]
    search_fields = ["learner_username", "quiz_slug", "by_username", "reason"]


@admin.register(PracticeStreak)
class PracticeStreakAdmin(admin.ModelAdmin):
    list_display = ["user", "problem", "current", "best", "mastered_at"]
    list_filter = ["problem"]
    search_fields = ["user__username", "problem__slug"]
    list_select_related = ["user", "problem"]


@admin.register(SolutionReveal)
class SolutionRevealAdmin(admin.ModelAdmin):
    """Who saw which practice variant's worked solution, and when: a record, never edited."""

    list_display = ["user", "variant", "gave_up_early", "revealed_at"]
    list_filter = ["variant__problem", "gave_up_early"]
    search_fields = ["user__username", "variant__problem__slug"]
    list_select_related = ["user", "variant__problem"]

    def has_add_permission(self, request) -> bool:
        return False

    def has_change_permission(self, request, obj=None) -> bool:
        return False


class UserAddForm(AdminUserCreationForm):
    """Adding a user in the admin refuses the user names softgrade keeps for itself, as
    sign-up does."""

    def clean_username(self) -> str:
        return username_unreserved(super().clean_username())


admin.site.unregister(User)


@admin.register(User)
class SoftgradeUserAdmin(UserAdmin):
    add_form = UserAddForm
