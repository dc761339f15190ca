"""The formula problem editor in the admin: a page with the form (grading/formula_form.py) and a
live preview beside it, and the preview endpoint its script posts to.

Both pages ask the problem admin's own change permission for the problem, behind the admin
site's staff check and CSRF protection. The preview works without the script: the form's
Preview button posts the whole page and gets it back with the preview of what was typed.
"""

from __future__ import annotations

from django.contrib import admin, messages
from django.contrib.admin.utils import unquote
from django.core.exceptions import PermissionDenied
from django.http import Http404, HttpResponseRedirect
from django.shortcuts import render
from django.template.response import TemplateResponse
from django.urls import path, reverse
from django.utils.html import format_html
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy
from django.views.decorators.http import require_POST

from courses.models import Problem
from courses.plain_math import plain_math
from grading import engine
from grading.families import formula_report
from grading.formula_form import FormulaEditor
from grading.formula_preview import (
    PREVIEW_SEEDS,
    FieldProblem,
    field_problems,
    formula_preview,
)

STARTER_PARAMS = {
    "variables": {"x": {"min": 1, "max": 9, "step": 1}},
    "answer": "2 * x",
    "prompt": "What is $2x$ for $x = {@x@}$?",
}


def starter_params() -> dict:
    """What a new formula problem starts from, so it saves and opens in the formula form."""
    return {**STARTER_PARAMS, "variables": dict(STARTER_PARAMS["variables"])}


class FormulaEditorMixin:
    """For ProblemAdmin: formula problems are edited with fields, other families as before."""

    def get_urls(self):
        info = self.opts.app_label, self.opts.model_name
        wrap = self.admin_site.admin_view
        return [
            path(
                "<path:object_id>/formula/",
                wrap(self.formula_view),
                name="{}_{}_formula".format(*info),
            ),
            path(
                "<path:object_id>/formula/preview/",
                wrap(require_POST(self.formula_preview_view)),
                name="{}_{}_formula_preview".format(*info),
            ),
            *super().get_urls(),
        ]

    def get_readonly_fields(self, request, obj=None):
        fields = list(super().get_readonly_fields(request, obj))
        if obj is not None and obj.family == engine.FORMULA_FAMILY:
            # Edited with the formula form, never as raw JSON; the family stays, since its
            # params would no longer be checked against the family they were written for.
            fields += ["family", "params"]
        return fields

    @admin.display(description=gettext_lazy("Formula"))
    def formula_editor(self, obj: Problem):
        if obj.pk is None or obj.family != engine.FORMULA_FAMILY:
            return _("Formula problems are edited with a form of their own once saved.")
        url = reverse("admin:courses_problem_formula", args=[obj.pk])
        return format_html('<a class="button" href="{}">{}</a>', url, _("Edit the formula problem"))

    def response_add(self, request, obj, post_url_continue=None):
        if obj.family == engine.FORMULA_FAMILY:
            return HttpResponseRedirect(reverse("admin:courses_problem_formula", args=[obj.pk]))
        return super().response_add(request, obj, post_url_continue)

    def _formula_problem(self, request, object_id) -> Problem:
        problem = self.get_object(request, unquote(object_id))
        if problem is None or problem.family != engine.FORMULA_FAMILY:
            raise Http404(_("No formula problem with that id."))
        if not self.has_change_permission(request, problem):
            raise PermissionDenied
        return problem

    def formula_view(self, request, object_id):
        problem = self._formula_problem(request, object_id)
        if request.method != "POST":
            editor = FormulaEditor.build(problem)
            preview = _preview_context(editor, True, request.GET.get("seed", ""))
            return self._render_editor(request, problem, editor, preview)
        editor = FormulaEditor.build(problem, request.POST)
        valid = editor.is_valid()
        if valid and "_preview" not in request.POST:
            data = editor.form.cleaned_data
            problem.params = editor.params
            problem.atol, problem.rtol = data.get("atol"), data.get("rtol")
            problem.save(update_fields=["params", "atol", "rtol"])
            self.log_change(request, problem, [{"changed": {"fields": ["params"]}}])
            messages.success(request, _("The formula problem was saved."))
            return HttpResponseRedirect(request.path)
        return self._render_editor(request, problem, editor, _preview_context(editor, valid))

    def formula_preview_view(self, request, object_id):
        problem = self._formula_problem(request, object_id)
        editor = FormulaEditor.build(problem, request.POST)
        valid = editor.is_valid()
        return render(
            request, "admin/grading/_formula_preview.html", _preview_context(editor, valid)
        )

    def _render_editor(self, request, problem, editor, preview: dict):
        context = {
            **self.admin_site.each_context(request),
            "opts": self.opts,
            "original": problem,
            "title": _("Formula problem: %(title)s") % {"title": plain_math(problem.title)},
            "editor": editor,
            "preview_url": reverse("admin:courses_problem_formula_preview", args=[problem.pk]),
            "change_url": reverse("admin:courses_problem_change", args=[problem.pk]),
            **preview,
        }
        return TemplateResponse(request, "admin/grading/formula_editor.html", context)


def _named_forms(editor: FormulaEditor) -> list[tuple[str, object]]:
    """The editor's forms with how the preview names them: the problem's fields by their label,
    a variable's, mistake's or property check's by its row."""
    rows = [("", editor.form)]
    for heading, formset in (
        (_("Variable %(number)s"), editor.variables),
        (_("Mistake %(number)s"), editor.mistakes),
        (_("Property check %(number)s"), editor.properties),
    ):
        for number, form in enumerate(formset.forms, start=1):
            rows.append((heading % {"number": number}, form))
    return rows


def _preview_context(editor: FormulaEditor, valid: bool, seed_text: str = "") -> dict:
    """The preview of what the editor holds: variants and the 50-seed report, or the note that
    the errors on the form come first."""
    if editor.form.is_bound:
        if not valid:
            problems = field_problems(_named_forms(editor))
            problems += [
                FieldProblem("", _("Random variables"), str(e))
                for e in editor.variables.non_form_errors()
            ]
            return {"preview_errors": True, "problems": problems}
        data = editor.form.cleaned_data
        params, report, seed = editor.params, editor.report, data.get("seed")
        atol, rtol = data.get("atol"), data.get("rtol")
    else:
        problem = editor.problem
        params, atol, rtol = problem.params, problem.atol, problem.rtol
        report, errors = formula_report(params, atol, rtol)
        if errors:
            return {"preview_errors": True}
        seed = int(seed_text) if seed_text.isdigit() else None
    seeds = (seed,) if seed is not None else PREVIEW_SEEDS
    return {
        # Learners read the problem's own prompt above every variant's.
        "problem_prompt": editor.problem.prompt,
        "variants": formula_preview(params, atol, rtol, seeds),
        "report": report,
        "withheld": sorted((report.withheld if report else {}).items()),
        "preview_errors": False,
    }
