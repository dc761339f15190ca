"""What every authoring form shares: text that cannot render is refused on its own field, a
read-only field shows it rendered as a learner will read it, and a change list shows a title's
math as plain text ("√dₖ", not "$\\sqrt{d_k}$")."""

from __future__ import annotations

from collections.abc import Callable

from django import forms
from django.contrib import admin
from django.utils.html import format_html
from django.utils.translation import gettext as _

from .markup import MarkupError, check_markup, render_markup
from .plain_math import plain_math


def plain_column(field: str, description: str) -> Callable[[object], str]:
    """A change list column showing `field` with its $math$ as plain Unicode text (the model's
    `__str__` does the same), still ordered by the field."""

    @admin.display(description=description, ordering=field)
    def column(obj) -> str:
        return plain_math(getattr(obj, field) or "")

    column.__name__ = f"{field}_plain"
    return column


def markup_preview(text: str):
    """Rendered Markdown + math for a read-only admin field, or the reason it cannot render."""
    try:
        return format_html('<div class="sg-preview">{}</div>', render_markup(text))
    except MarkupError as exc:
        return format_html(
            '<p class="errornote">{}</p>', _("Cannot render: %(error)s") % {"error": exc}
        )


class MarkupFieldsForm(forms.ModelForm):
    """Rejects text that cannot render (a bad formula, HTML or a link in a formula), naming the
    formula, on the field that holds it."""

    markup_fields: tuple[str, ...] = ()

    def clean(self):
        cleaned = super().clean()
        for name in self.markup_fields:
            for problem in check_markup(cleaned.get(name) or ""):
                self.add_error(name, problem)
        return cleaned


class LabelledRowsMixin:
    """For a tabular inline's formset: a row shows each field's label only once, in the column's
    head, so each field (and the row's Delete box) also carries it as its aria-label, and a
    screen reader names every box it reaches."""

    def add_fields(self, form, index):
        super().add_fields(form, index)
        for name, field in form.fields.items():
            if not field.widget.is_hidden:
                label = _("Delete") if name == "DELETE" else str(field.label or name)
                # A related field's wrapper keeps the attributes of the widget it wraps.
                widget = getattr(field.widget, "widget", field.widget)
                widget.attrs.setdefault("aria-label", label)
