"""The forms of the override and regrade pages. They only read what was sent; whether a score
or a fix is acceptable is the services' decision (grading/overrides.py, grading/regrade_fixes.py),
whose refusals the pages show beside the form."""

from __future__ import annotations

from django import forms
from django.forms.boundfield import BoundField, BoundWidget
from django.utils.translation import gettext
from django.utils.translation import gettext_lazy as _

from courses.models import Choice, Misconception, Question, QuizItem
from courses.plain_math import plain_math
from grading.overrides import REASON_MAX_LENGTH
from grading.regrade_fixes import ChoiceFix, QuestionFix, ToleranceFix
from grading.templatetags.grading_display import choice_letter


class OverrideForm(forms.Form):
    """A new score for one item of one attempt, in points, and why."""

    score = forms.FloatField(label=_("New score (points)"))
    reason = forms.CharField(
        label=_("Reason"),
        max_length=REASON_MAX_LENGTH,
        widget=forms.Textarea(attrs={"rows": 3}),
        help_text=_("Kept with the learner's record: the audit shows who changed what and why."),
    )

    def __init__(self, *args, item: QuizItem, **kwargs):
        super().__init__(*args, label_suffix="", **kwargs)
        points = item.points
        self.fields["score"].widget.attrs.update({"min": 0, "max": points, "step": "any"})
        self.fields["score"].help_text = gettext(
            "From 0 to %(points)s (the item's points). An override is points: it keeps them if "
            "the item's points change later (capped at them)."
        ) % {"points": points}


class QuestionFixForm(forms.Form):
    """Which choices are correct, and the misconception behind each wrong one.

    `correct` is one choice for a single-choice or true/false question (radio buttons), any
    number for a multiple-choice one (checkboxes); `misconception_<choice id>` names a
    misconception of the lesson, or the one the choice names now.
    """

    def __init__(
        self,
        *args,
        question: Question,
        choices: list[Choice],
        misconceptions: list[Misconception],
        **kwargs,
    ):
        super().__init__(*args, label_suffix="", **kwargs)
        self.choices = choices
        options = [(str(c.pk), f"{choice_letter(n)}. {c.text}") for n, c in enumerate(choices, 1)]
        if question.kind == Question.Kind.MULTIPLE:
            correct = forms.MultipleChoiceField(widget=forms.CheckboxSelectMultiple)
            initial = [str(c.pk) for c in choices if c.is_correct]
        else:
            correct = forms.ChoiceField(widget=forms.RadioSelect)
            initial = next((str(c.pk) for c in choices if c.is_correct), None)
        correct.choices, correct.required, correct.initial = options, False, initial
        correct.label = gettext("Correct")
        self.fields["correct"] = correct
        for number, choice in enumerate(choices, start=1):
            named = {m.pk: m for m in misconceptions}
            if choice.misconception is not None:
                named.setdefault(choice.misconception.pk, choice.misconception)
            self.fields[f"misconception_{choice.pk}"] = forms.TypedChoiceField(
                label=gettext("Misconception behind %(letter)s when it is wrong")
                % {"letter": choice_letter(number)},
                choices=[("", gettext("None (a correct choice)"))]
                + [(m.pk, f"{plain_math(m.title)} ({m.code})") for m in named.values()],
                coerce=int,
                empty_value=None,
                required=False,
                initial=choice.misconception.pk if choice.misconception else None,
            )

    def rows(self) -> list[tuple[str, Choice, BoundWidget, BoundField]]:
        """Per choice: its letter, the choice, its input among the correct ones and its
        misconception field, for the template to lay out together."""
        inputs = self["correct"].subwidgets
        return [
            (choice_letter(number), choice, inputs[number - 1], self[f"misconception_{choice.pk}"])
            for number, choice in enumerate(self.choices, start=1)
        ]

    def fix(self) -> QuestionFix:
        picked = self.cleaned_data.get("correct") or []
        picked = {picked} if isinstance(picked, str) else set(picked)
        return QuestionFix(
            choices=tuple(
                ChoiceFix(
                    choice_id=choice.pk,
                    is_correct=str(choice.pk) in picked,
                    misconception_id=self.cleaned_data.get(f"misconception_{choice.pk}"),
                )
                for choice in self.choices
            )
        )


class ToleranceFixForm(forms.Form):
    """A problem's tolerance: both numbers, or both left empty for its family's default."""

    atol = forms.FloatField(label=_("Absolute tolerance"), required=False)
    rtol = forms.FloatField(label=_("Relative tolerance"), required=False)

    def __init__(self, *args, **kwargs):
        super().__init__(*args, label_suffix="", **kwargs)
        for name in ("atol", "rtol"):
            self.fields[name].widget.attrs.update({"min": 0, "step": "any"})

    def fix(self) -> ToleranceFix:
        return ToleranceFix(atol=self.cleaned_data["atol"], rtol=self.cleaned_data["rtol"])


FixForm = QuestionFixForm | ToleranceFixForm


def fix_form(*, item: QuizItem, data=None, question_now=None) -> FixForm:
    """The fix form for the item, bound to `data` when given; its initial values are the item as
    it stands."""
    if item.problem_id:
        problem = item.problem
        return ToleranceFixForm(data, initial={"atol": problem.atol, "rtol": problem.rtol})
    return QuestionFixForm(
        data,
        question=item.question,
        choices=question_now.choices,
        misconceptions=question_now.misconceptions,
    )


def fix_fields(form: FixForm) -> list[tuple[str, str]]:
    """The fix a valid form holds as name/value pairs: the apply form sends them again, and a
    refused apply returns to the preview of the same fix."""
    pairs = [("fix", "1")]
    for name in form.fields:
        pairs += [(name, value) for value in form.data.getlist(name) if value != ""]
    return pairs
