"""The admin's form for a formula problem: fields and rows instead of JSON.

The form only translates: fields become the engine's params (grading/engine/problems/formula.py
is the one definition of the format) and the engine's located errors come back onto the field
they are about. Whether the params make a usable problem is decided by families.formula_report.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from django import forms
from django.db.models import Case, IntegerField, Value, When
from django.utils.translation import gettext, gettext_lazy

from courses.misconception_labels import misconception_label
from courses.models import Misconception, Problem
from grading import engine
from grading.engine.problems.formula_shape import SHAPES, read_shaped, written
from grading.families import formula_report

_INTEGER = re.compile(r"^[+-]?\d+$")
_STEP_BREAK = re.compile(r"\n\s*\n")


def _number(text: str) -> int | float:
    """A number as typed: whole numbers stay whole, so saved params read as written."""
    text = text.strip()
    return int(text) if _INTEGER.match(text) else float(text)


class NumberField(forms.CharField):
    """A number kept as int when typed whole (FloatField would turn 16 into 16.0)."""

    def to_python(self, value: Any) -> int | float | None:
        text = super().to_python(value)
        if not text:
            return None
        try:
            return _number(text)
        except ValueError:
            raise forms.ValidationError(gettext("Enter a number, e.g. 2 or 0.5.")) from None


class FormulaForm(forms.Form):
    prompt = forms.CharField(
        widget=forms.Textarea(attrs={"rows": 4, "cols": 80}),
        help_text=gettext_lazy(
            "Markdown with $…$ math; {@name@} shows a variable's value (other braces stay LaTeX's)."
        ),
    )
    shape = forms.ChoiceField(
        choices=[(shape, shape.capitalize()) for shape in SHAPES],
        help_text=gettext_lazy("What the learner enters: one number, a vector or a matrix."),
    )
    answer = forms.CharField(
        widget=forms.TextInput(attrs={"size": 80}),
        help_text=(
            gettext_lazy(
                "A formula of the variables, e.g. d_k * s^2 (^ is a power); a vector as "
                "[a + b, a - b]; a matrix as [[a, 0], [0, b]]. Allowed: + − × / ^, sqrt, exp, ln, "
                "log, e, pi."
            )
        ),
    )
    atol = forms.FloatField(
        required=False,
        label=gettext_lazy("Absolute tolerance"),
        help_text=gettext_lazy("Both or neither; empty: 1%."),
    )
    rtol = forms.FloatField(required=False, label=gettext_lazy("Relative tolerance"))
    solution = forms.CharField(
        required=False,
        widget=forms.Textarea(attrs={"rows": 4, "cols": 80}),
        label=gettext_lazy("Worked solution"),
        help_text=(
            gettext_lazy(
                "Optional: steps separated by a blank line, Markdown with $…$ math; {@name@} shows "
                "the learner's value. The answer for the learner's numbers is added as a last step."
            )
        ),
    )
    seed = forms.IntegerField(
        required=False,
        min_value=0,
        label=gettext_lazy("Preview seed"),
        help_text=gettext_lazy("Any seed to preview."),
    )


class VariableForm(forms.Form):
    name = forms.CharField(max_length=40, widget=forms.TextInput(attrs={"size": 8}))
    kind = forms.ChoiceField(
        choices=[("range", gettext_lazy("Range")), ("list", gettext_lazy("List of values"))],
        initial="range",
    )
    min = NumberField(required=False, widget=forms.TextInput(attrs={"size": 6}))
    max = NumberField(required=False, widget=forms.TextInput(attrs={"size": 6}))
    step = NumberField(required=False, widget=forms.TextInput(attrs={"size": 6}))
    values = forms.CharField(
        required=False,
        widget=forms.TextInput(attrs={"size": 16}),
        help_text=gettext_lazy("For a list: numbers separated by commas."),
    )
    decimals = forms.IntegerField(
        required=False,
        min_value=0,
        max_value=10,
        label=gettext_lazy("Decimals shown"),
        help_text=gettext_lazy("Displayed format: empty shows the value as drawn."),
    )

    def clean(self):
        cleaned = super().clean()
        if cleaned.get("kind") == "list":
            try:
                cleaned["values"] = [
                    _number(part)
                    for part in (cleaned.get("values") or "").split(",")
                    if part.strip()
                ]
            except ValueError:
                self.add_error(
                    "values", gettext("List numbers separated by commas, e.g. 16, 64, 256.")
                )
            else:
                if not cleaned["values"]:
                    self.add_error("values", gettext("List at least one value."))
        elif cleaned.get("kind") == "range":
            for name in ("min", "max", "step"):
                if cleaned.get(name) is None and name not in self.errors:
                    self.add_error(name, gettext("A range needs min, max and step."))
        return cleaned

    def spec(self) -> dict[str, Any]:
        data = self.cleaned_data
        if data["kind"] == "list":
            spec: dict[str, Any] = {"choices": data["values"]}
        else:
            spec = {"min": data["min"], "max": data["max"], "step": data["step"]}
        if data.get("decimals") is not None:
            spec["decimals"] = data["decimals"]
        return spec


class MistakeForm(forms.Form):
    code = forms.SlugField(max_length=80, widget=forms.TextInput(attrs={"size": 14}))
    formula = forms.CharField(widget=forms.TextInput(attrs={"size": 28}))
    misconception = forms.ModelChoiceField(
        queryset=Misconception.objects.none(),
        to_field_name="code",
        required=False,
        empty_label=gettext_lazy("(the one with the mistake's code)"),
        help_text=gettext_lazy("Empty: the misconception with the mistake's code."),
    )
    feedback = forms.CharField(
        required=False,
        widget=forms.Textarea(attrs={"rows": 2, "cols": 30}),
        help_text=gettext_lazy(
            "Optional: what a learner who makes this mistake reads, possibly with tries "
            "left: why it is wrong, never the answer."
        ),
    )

    def __init__(self, *args, misconceptions=None, **kwargs):
        super().__init__(*args, **kwargs)
        if misconceptions is not None:
            self.fields["misconception"].queryset = misconceptions
        self.fields["misconception"].label_from_instance = misconception_label


class PropertyForm(forms.Form):
    """A property check on the learner's answer, with its feedback (formula_properties)."""

    check = forms.CharField(
        widget=forms.TextInput(attrs={"size": 24}),
        help_text=gettext_lazy(
            "What every right answer has, e.g. sum(x) = 1, x >= 0, rowsums(x) = 0, "
            "symmetric(x), x[1] > x[2]; x is the answer, entries count from 1."
        ),
    )
    feedback = forms.CharField(
        widget=forms.Textarea(attrs={"rows": 2, "cols": 30}),
        help_text=gettext_lazy(
            "What a learner whose answer fails the check reads: never the answer."
        ),
    )
    misconception = forms.ModelChoiceField(
        queryset=Misconception.objects.none(),
        to_field_name="code",
        required=False,
        empty_label=gettext_lazy("(none)"),
        help_text=gettext_lazy("Optional: the misconception a failed check shows."),
    )

    def __init__(self, *args, misconceptions=None, **kwargs):
        super().__init__(*args, **kwargs)
        if misconceptions is not None:
            self.fields["misconception"].queryset = misconceptions
        self.fields["misconception"].label_from_instance = misconception_label


VariableFormSet = forms.formset_factory(VariableForm, extra=2, can_delete=True, max_num=20)
MistakeFormSet = forms.formset_factory(MistakeForm, extra=2, can_delete=True, max_num=20)
PropertyFormSet = forms.formset_factory(PropertyForm, extra=1, can_delete=True, max_num=20)


def misconceptions_for(problem: Problem):
    """Every misconception, the problem's own lesson's first; in each part the named ideas
    before the placeholders an import made."""
    return Misconception.objects.select_related("lesson").order_by(
        Case(
            When(lesson_id=problem.lesson_id, then=Value(0)),
            default=Value(1),
            output_field=IntegerField(),
        ),
        "imported",
        "code",
    )


def initial_from_params(problem: Problem) -> tuple[dict, list[dict], list[dict]]:
    """The form's, the variables' and the mistakes' initial data from the saved params."""
    params = problem.params if isinstance(problem.params, dict) else {}
    shape = params.get("shape", "number")
    answer = params.get("answer", "")
    main = {
        "prompt": params.get("prompt", ""),
        "shape": shape,
        "answer": written(answer) if isinstance(answer, str | list) else "",
        "atol": problem.atol,
        "rtol": problem.rtol,
        "solution": "\n\n".join(params.get("solution") or []),
    }
    variables = []
    # By name: PostgreSQL's jsonb does not keep the order keys were saved in (it orders them by
    # length), so the saved order is not the author's on every database; by name it is the same.
    for name, spec in sorted((params.get("variables") or {}).items()):
        row: dict[str, Any] = {"name": name, "decimals": spec.get("decimals")}
        if "choices" in spec:
            row.update(kind="list", values=", ".join(str(v) for v in spec["choices"]))
        else:
            row.update(
                kind="range", min=spec.get("min"), max=spec.get("max"), step=spec.get("step")
            )
        variables.append(row)
    mistakes = []
    for code, entry in (params.get("mistakes") or {}).items():
        formula = engine.mistake_formula(entry)
        row = {"code": code, "formula": written(formula) if isinstance(formula, str | list) else ""}
        if isinstance(entry, dict):
            row["misconception"] = entry.get("misconception")
            row["feedback"] = entry.get("feedback", "")
        mistakes.append(row)
    return main, variables, mistakes


def property_rows(problem: Problem) -> list[dict]:
    """The property checks' initial rows, in the author's order (a list keeps it)."""
    params = problem.params if isinstance(problem.params, dict) else {}
    raw = params.get("properties")
    return (
        [dict(entry) for entry in raw if isinstance(entry, dict)] if isinstance(raw, list) else []
    )


@dataclass
class FormulaEditor:
    """The form and its two row sets, bound together; .params once valid."""

    problem: Problem
    form: FormulaForm
    variables: Any
    mistakes: Any
    properties: Any
    params: dict[str, Any] = field(default_factory=dict)
    report: engine.FormulaReport | None = None

    @classmethod
    def build(cls, problem: Problem, data=None) -> FormulaEditor:
        main, variables, mistakes = initial_from_params(problem)
        choices = misconceptions_for(problem)
        return cls(
            problem=problem,
            form=FormulaForm(data, initial=main),
            variables=VariableFormSet(data, initial=variables, prefix="variables"),
            mistakes=MistakeFormSet(
                data,
                initial=mistakes,
                prefix="mistakes",
                form_kwargs={"misconceptions": choices},
            ),
            properties=PropertyFormSet(
                data,
                initial=property_rows(problem),
                prefix="properties",
                form_kwargs={"misconceptions": choices},
            ),
        )

    def rows(self, formset) -> list:
        # A blank extra row has no cleaned data; a saved row counts even when unchanged.
        return [f for f in formset.forms if f.cleaned_data and not f.cleaned_data.get("DELETE")]

    def is_valid(self) -> bool:
        """Every field readable and the engine's check passed; errors land on their fields."""
        valid = [
            self.form.is_valid(),
            self.variables.is_valid(),
            self.mistakes.is_valid(),
            self.properties.is_valid(),
        ]
        if not all(valid):
            return False
        self.params = self._params()
        self._check_codes()
        if self.has_errors():
            return False
        data = self.form.cleaned_data
        self.report, errors = formula_report(self.params, data.get("atol"), data.get("rtol"))
        for key, message in errors.items():
            self._place(key.removeprefix("params."), message)
        return not self.has_errors()

    def has_errors(self) -> bool:
        forms_ = [self.form, *self.variables.forms, *self.mistakes.forms, *self.properties.forms]
        return any(f.errors for f in forms_) or bool(self.variables.non_form_errors())

    def _params(self) -> dict[str, Any]:
        data = self.form.cleaned_data
        shape = data["shape"]
        params: dict[str, Any] = {
            "variables": {
                row.cleaned_data["name"]: row.spec() for row in self.rows(self.variables)
            },
            "answer": read_shaped(data["answer"], shape),
            "mistakes": {},
            "prompt": data["prompt"],
        }
        if shape != "number":
            params["shape"] = shape
        for row in self.rows(self.mistakes):
            mistake = row.cleaned_data
            formula = read_shaped(mistake["formula"], shape)
            picked = mistake.get("misconception")
            extra = {}
            if picked is not None and picked.code != mistake["code"]:
                extra["misconception"] = picked.code
            if mistake.get("feedback", "").strip():
                extra["feedback"] = mistake["feedback"].strip()
            params["mistakes"][mistake["code"]] = (
                {"formula": formula, **extra} if extra else formula
            )
        properties = []
        for row in self.rows(self.properties):
            check = row.cleaned_data
            entry = {"check": check["check"].strip(), "feedback": check["feedback"].strip()}
            if check.get("misconception") is not None:
                entry["misconception"] = check["misconception"].code
            properties.append(entry)
        if properties:
            params["properties"] = properties
        steps = [step.strip() for step in _STEP_BREAK.split(data.get("solution") or "")]
        if any(steps):
            params["solution"] = [step for step in steps if step]
        old = self.problem.params if isinstance(self.problem.params, dict) else {}
        if "version" in old:
            params["version"] = old["version"]
        return params

    def _check_codes(self) -> None:
        """Names and codes are keys of the params: each once. A mistake without a picked
        misconception needs one with its code, or learners would get no explanation."""
        # No variable at all is allowed: one fixed answer (an imported numerical question).
        _mark_repeats(
            self.rows(self.variables), "name", gettext("Another variable is named '%(value)s'.")
        )
        mistakes = self.rows(self.mistakes)
        _mark_repeats(mistakes, "code", gettext("Another mistake has the code '%(value)s'."))
        # add_error drops the field from cleaned_data, so a repeated code is read with .get.
        unpicked = {
            r.cleaned_data.get("code") for r in mistakes if not r.cleaned_data["misconception"]
        }
        known = set(Misconception.objects.filter(code__in=unpicked).values_list("code", flat=True))
        for row in mistakes:
            code = row.cleaned_data.get("code")
            if code and code in unpicked - known and not row.cleaned_data["misconception"]:
                row.add_error(
                    "misconception",
                    gettext(
                        "Pick the misconception this mistake shows (none has the code '%(code)s')."
                    )
                    % {"code": code},
                )

    def _place(self, key: str, message: str) -> None:
        """Put one engine error on the field it is about, e.g. 'mistakes.halved' → that row's
        formula, 'variables.s' → that row, 'tolerance' → the absolute tolerance."""
        head, _, rest = key.partition(".")
        if head in ("answer", "shape", "prompt", "solution"):
            self.form.add_error(head, message)
        elif head == "tolerance":
            self.form.add_error("atol", message)
        elif head == "variables" and rest:
            row = next(r for r in self.rows(self.variables) if r.cleaned_data["name"] == rest)
            row.add_error(_variable_field(row, message), message)
        elif head == "mistakes" and rest:
            code, _, part = rest.partition(".")
            row = next(r for r in self.rows(self.mistakes) if r.cleaned_data["code"] == code)
            row.add_error(part or "formula", message)
        elif head == "properties" and rest:
            number, _, part = rest.partition(".")
            self.rows(self.properties)[int(number) - 1].add_error(part or "check", message)
        else:
            self.form.add_error(None, f"{key}: {message}")


def _mark_repeats(rows: list, name: str, message: str) -> set[str]:
    """Mark each row whose field repeats an earlier row's; return the values seen."""
    seen: set[str] = set()
    for row in rows:
        value = row.cleaned_data[name]
        if value in seen:
            row.add_error(name, message % {"value": value})
        seen.add(value)
    return seen


def _variable_field(row: VariableForm, message: str) -> str:
    if "decimals" in message:
        return "decimals"
    if row.cleaned_data["kind"] == "list":
        return "values" if "choice" in message else "name"
    for name in ("step", "min", "max"):
        if message.startswith(name) or f"{name} must" in message:
            return name
    return "name"
