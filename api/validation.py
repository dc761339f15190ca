"""Input that is refused by name: unknown body fields and unknown query parameters are errors,
so a misspelt `updated_since` never silently returns everything."""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from django.utils.translation import gettext as _
from rest_framework import serializers
from rest_framework.exceptions import ErrorDetail, ValidationError


def _refuse_unknown(names: Iterable[str], known: Iterable[str], what: str) -> None:
    known = sorted(known)
    code = f"unknown_{what}"  # unknown_field, unknown_parameter
    for name in names:
        if name not in known:
            # The names are identifiers: listed as they are, in any language.
            listed = ", ".join(known) or _("none")
            if what == "field":
                message = _("Unknown field; the known ones are: %(known)s.")
            else:
                message = _("Unknown query parameter; the known ones are: %(known)s.")
            raise ValidationError({name: [ErrorDetail(message % {"known": listed}, code)]})


class StrictSerializer(serializers.Serializer):
    """A request body or a set of query parameters: every name must be a declared field, and a
    text field takes only a JSON string (DRF alone would turn 12 or true into text)."""

    def to_internal_value(self, data):
        if isinstance(data, Mapping):
            _refuse_unknown(data, self.fields, "field")
            for name, field in self.fields.items():
                value = data.get(name)
                text_field = isinstance(field, serializers.CharField)
                if text_field and value is not None and not isinstance(value, str):
                    raise ValidationError({name: [ErrorDetail(_("Send a string."), "invalid")]})
        return super().to_internal_value(data)


class WholeNumberField(serializers.IntegerField):
    """A JSON integer and nothing else: not "2", not 2.0, not true."""

    def to_internal_value(self, data):
        if type(data) is not int:
            self.fail("invalid")
        return super().to_internal_value(data)


def query_params(request, serializer_class: type[StrictSerializer], paging: Iterable[str] = ()):
    """Validated query parameters; the paginator's own parameters are let through."""
    raw = request.query_params
    _refuse_unknown(raw, [*serializer_class().fields, *paging], "parameter")
    for name in set(paging) & set(raw) & {"page", "page_size"}:
        # The paginator would quietly fall back to its defaults on a bad number.
        values = raw.getlist(name)
        if len(values) > 1 or not values[0].isdigit() or int(values[0]) < 1:
            raise ValidationError({name: [ErrorDetail(_("Use a whole number from 1."), "invalid")]})
    serializer = serializer_class(data={name: raw.get(name) for name in raw if name not in paging})
    serializer.is_valid(raise_exception=True)
    return serializer.validated_data


def paging_params(view) -> tuple[str, ...]:
    paginator = getattr(view, "paginator", None)
    if paginator is None:
        return ()
    return tuple(
        name
        for name in (
            getattr(paginator, "page_query_param", None),
            getattr(paginator, "cursor_query_param", None),
            getattr(paginator, "page_size_query_param", None),
        )
        if name
    )
