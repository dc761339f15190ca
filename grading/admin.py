"""Admin for what the grading engine drives: problems with variant previews, and learner records."""

from __future__ import annotations

import json

from django import forms
from django.contrib import admin
from django.utils.html import format_html, format_html_join
from django.utils.safestring import mark_safe

from courses.markup import MarkupError, render_markup
from courses.models import Misconception, Problem
from grading import engine
from grading.families import problem_errors, variant_data
from grading.models import Attempt, PracticeStreak, Response, Variant

PREVIEW_SEEDS = (1, 2, 3)


class ProblemForm(forms.ModelForm):
    family = forms.ChoiceField(choices=())

    class Meta:
        model = Problem
        fields = "__all__"

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["family"].choices = [
            (key, f"{key}: {family.title}") for key, family in sorted(engine.FAMILIES.items())
        ]
        specs = []
        for key, family in sorted(engine.FAMILIES.items()):
            names = ", ".join(f"{s.name} (default {s.default!r})" for s in family.param_specs)
            specs.append(f"{key}: {names or 'no parameters'}")
        self.fields["params"].help_text = (
            "JSON; {} takes the family's defaults. Parameters per family — " + "; ".join(specs)
        )

    def clean(self):
        cleaned = super().clean()
        family = cleaned.get("family")
        if not family or "params" not in cleaned:
            return cleaned
        errors = problem_errors(
            family, cleaned["params"] or {}, cleaned.get("atol"), cleaned.get("rtol")
        )
        if not errors and family == engine.FORMULA_FAMILY:
            # Each mistake code must name a misconception, or learners get no explanation of it.
            codes = set((cleaned["params"] or {}).get("mistakes", {}))
            known = set(Misconception.objects.filter(code__in=codes).values_list("code", flat=True))
            for code in sorted(codes - known):
                errors[f"params.mistakes.{code}"] = f"no misconception has the code {code!r}"
        for name, message in errors.items():
            if name == "family":
                self.add_error("family", message)
            elif name == "tolerance":
                self.add_error("atol", message)
            else:
                self.add_error("params", f"{name.removeprefix('params.')}: {message}")
        return cleaned


@admin.register(Problem)
class ProblemAdmin(admin.ModelAdmin):
    form = ProblemForm
    list_display = ["title", "slug", "family", "lesson", "tolerance"]
    list_filter = ["lesson", "family"]
    search_fields = ["title", "slug", "family", "prompt"]
    readonly_fields = ["variant_preview"]
    fieldsets = [
        (None, {"fields": ["lesson", "title", "slug", "order", "prompt"]}),
        ("Engine", {"fields": ["family", "params", "atol", "rtol"]}),
        ("Preview", {"fields": ["variant_preview"]}),
    ]

    @admin.display(description="Tolerance")
    def tolerance(self, obj: Problem) -> str:
        return "family default" if obj.atol is None else f"atol {obj.atol}, rtol {obj.rtol}"

    def change_view(self, request, object_id, form_url="", extra_context=None):
        seed = request.GET.get("seed", "")
        self._preview_seeds = (int(seed),) if seed.isdigit() else PREVIEW_SEEDS
        return super().change_view(request, object_id, form_url, extra_context)

    @admin.display(description="Variants")
    def variant_preview(self, obj: Problem):
        if not obj.pk:
            return "Save to preview generated variants."
        seeds = getattr(self, "_preview_seeds", PREVIEW_SEEDS)
        blocks = []
        for seed in seeds:
            try:
                data = variant_data(obj, seed)
                family = engine.get_family(obj.family)
                prompt = render_markup(family.prompt(data.givens))
            except (engine.ParamError, engine.UnknownFamily, MarkupError, ValueError) as exc:
                blocks.append(format_html('<p class="errornote">Seed {}: {}</p>', seed, exc))
                continue
            mistakes = format_html_join(
                "",
                "<li><code>{}</code>: {}</li>",
                ((code, engine.format_answer(value)) for code, value in data.mistakes.items()),
            )
            blocks.append(
                format_html(
                    '<div class="sg-preview"><h4>Seed {}</h4>{}<p>Givens: <code>{}</code></p>'
                    "<p>Answer: <code>{}</code></p><p>Mistakes offered:</p><ul>{}</ul></div>",
                    seed,
                    prompt,
                    json.dumps(data.givens),
                    engine.format_answer(data.answer),
                    mistakes or mark_safe("<li>none for this variant</li>"),
                )
            )
        hint = mark_safe("<p>Any seed: add <code>?seed=N</code> to this page's address.</p>")
        return format_html("{}{}", format_html_join("", "{}", ((b,) for b in blocks)), hint)


@admin.register(Variant)
class VariantAdmin(admin.ModelAdmin):
    list_display = ["problem", "user", "attempt", "counter", "seed", "family_version", "created_at"]
    list_filter = ["problem__lesson", "family"]
    search_fields = ["problem__slug", "user__username"]
    list_select_related = ["problem", "user", "attempt"]
    readonly_fields = [f.name for f in Variant._meta.fields]

    def has_add_permission(self, request):
        return False


@admin.register(Attempt)
class AttemptAdmin(admin.ModelAdmin):
    list_display = ["user", "quiz", "number", "status", "score", "max_score", "late", "started_at"]
    list_filter = ["quiz", "status", "late"]
    search_fields = ["user__username", "quiz__slug"]
    list_select_related = ["user", "quiz"]
    readonly_fields = [f.name for f in Attempt._meta.fields]

    def has_add_permission(self, request):
        return False


@admin.register(Response)
class ResponseAdmin(admin.ModelAdmin):
    list_display = ["user", "status", "misconception", "score", "counts_as_try", "created_at"]
    list_filter = ["status", "misconception", "counts_as_try"]
    search_fields = ["user__username", "text", "misconception"]
    list_select_related = ["user"]
    readonly_fields = [f.name for f in Response._meta.fields]

    def has_add_permission(self, request):
        return False


@admin.register(PracticeStreak)
class PracticeStreakAdmin(admin.ModelAdmin):
    list_display = ["user", "problem", "current", "best", "mastered_at"]
    list_filter = ["problem"]
    search_fields = ["user__username", "problem__slug"]
    list_select_related = ["user", "problem"]
