"""Check a parsed bank against the schema: plain data in, a normalised bank or every issue out.

Two passes over the document. The first reads every entity's fields by their kind (type, required,
default, allowed values, unique keys); the second checks what needs the whole bank: markup (a
lesson body may link any key term), references between entities and the cross-field rules. Last,
keys that belong to another lesson in the database are refused. Every issue carries its location
(file › entity › field); nothing here writes to the database.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from django.utils.translation import gettext as _

from ..markup import check_markup
from . import rules
from .issues import BankError, BankIssue
from .publishing import published_quiz_issues, resolve_published
from .schema import DOCUMENT, KEY_TERM, POOL, QUIZ, Entity, Field, ListOf, Nested, Ref, Refs


@dataclass
class Located:
    """One entity of the bank, normalised, with where it is and its position in its list."""

    entity: Entity
    values: dict
    where: str
    position: int


@dataclass
class _Reader:
    source: str
    issues: list[BankIssue] = field(default_factory=list)
    found: list[Located] = field(default_factory=list)

    def add(self, where: str, message: str) -> None:
        self.issues.append(BankIssue(f"{self.source} › {where}", message))

    def mapping(self, value: Any, where: str) -> dict:
        if not isinstance(value, dict):
            self.add(
                where,
                _("must be a mapping of fields, got %(type)s") % {"type": type(value).__name__},
            )
            return {}
        return value

    def unknown_fields(self, raw: dict, entity: Entity, where: str) -> None:
        allowed = entity.allowed
        for name in sorted(set(raw) - allowed, key=str):
            self.add(
                f"{where}.{name}",
                _("unknown field (allowed: %(fields)s)") % {"fields": ", ".join(sorted(allowed))},
            )

    def entity(self, entity: Entity, raw: Any, where: str, position: int = 0) -> dict:
        """The entity's fields, normalised, and noted for the second pass."""
        values: dict = {}
        self.found.append(Located(entity, values, where, position))
        self.fields(entity, self.mapping(raw, where), where, values)
        return values

    def fields(self, entity: Entity, raw: dict, where: str, values: dict) -> None:
        self.unknown_fields(raw, entity, where)
        for spec in entity:
            self.field(spec, raw, where, values)

    def field(self, spec: Field, raw: dict, parent: str, values: dict) -> None:
        kind, where, value = spec.kind, at(parent, spec.name), raw.get(spec.name)
        if spec.name not in raw and not spec.required and not isinstance(kind, Nested | ListOf):
            values[spec.name] = spec.fallback()
        elif isinstance(kind, Nested):
            self.nested(spec, kind, value, where, values)
        elif isinstance(kind, ListOf):
            values[spec.name] = self.items(kind, value, parent, where)
        elif kind.is_empty(value):
            if spec.required:
                self.add(where, _("is required"))
            values[spec.name] = spec.fallback()
        else:
            values[spec.name], problem = kind.clean(value, spec.fallback())
            if problem:
                self.add(where, problem)

    def nested(self, spec: Field, kind: Nested, value: Any, where: str, values: dict) -> None:
        """A mapping inside an entity; a flattened one (a tolerance) fills its parent's values."""
        if value is None and not spec.required:
            if kind.flatten:
                values.update({sub.name: sub.fallback() for sub in kind.entity})
            else:
                values[spec.name] = None
        elif kind.flatten:
            self.fields(kind.entity, self.mapping(value, where), where, values)
        else:
            values[spec.name] = self.entity(kind.entity, value, where)

    def items(self, kind: ListOf, value: Any, parent: str, where: str) -> list[dict]:
        raw_items: list = []
        if isinstance(value, list):
            raw_items = value
        elif value is not None:
            self.add(where, _("must be a list, got %(type)s") % {"type": type(value).__name__})
        if not raw_items and kind.empty:
            self.add(where, str(kind.empty))
        entity, items, seen = kind.entity, [], set()
        for index, raw in enumerate(raw_items):
            if kind.label:  # inside its parent: "questions[3] (q-x) › choice 2"
                item_where = f"{parent} › {kind.label} {index + 1}"
            else:  # a section of the file: "questions[3] (q-x)"
                item_where = label(where, index, raw, entity.key)
            item = self.entity(entity, raw, item_where, index + 1)
            if entity.key:
                key = item[entity.key]
                if key in seen:
                    message = _("duplicate %(entity)s %(field)s %(key)s") % {
                        "entity": entity.noun,
                        "field": entity.key,
                        "key": repr(key),
                    }
                    self.add(f"{item_where}.{entity.key}", message)
                seen.add(key)
            items.append(item)
        return items


def at(where: str, name: str) -> str:
    return f"{where}.{name}" if where else name


def label(section: str, index: int, raw: Any, key: str) -> str:
    name = raw.get(key) if isinstance(raw, dict) else None
    return f"{section}[{index + 1}]" + (f" ({name})" if isinstance(name, str) and name else "")


def validate_bank(document: Any, *, source: str = "bank") -> dict:
    """Check a parsed bank; return it normalised, or raise BankError listing every issue."""
    reader = _Reader(source)
    raw = reader.mapping(document, "file")
    if not raw:
        raise BankError(reader.issues or [BankIssue(source, _("the bank is empty"))])
    reader.unknown_fields(raw, DOCUMENT, "file")
    bank: dict = {}
    for spec in DOCUMENT:
        reader.field(spec, raw, "", bank)
    _check_content(reader)
    _check_keys_owned_elsewhere(reader, bank["lesson"]["slug"])
    resolve_published(reader.found, file_published=bank["published"])
    for where, message in published_quiz_issues(reader.found):
        reader.add(where, message)
    if reader.issues:
        raise BankError(reader.issues)
    return bank


def _check_content(reader: _Reader) -> None:
    """Markup, references and cross-field rules, once every key of the bank is known."""
    keys = {
        entity: {found.values[entity.key] for found in reader.found if found.entity is entity}
        for entity in {found.entity for found in reader.found if found.entity.key}
    }
    term_slugs = keys.get(KEY_TERM, set())
    for found in reader.found:
        values, where = found.values, found.where
        for spec in found.entity:
            value = values.get(spec.name)
            if spec.markup:
                links = term_slugs if spec.term_links else None
                for problem in check_markup(value, term_slugs=links):
                    reader.add(f"{where}.{spec.name}", problem)
            if isinstance(spec.kind, Ref) and value is not None:
                known = keys.get(spec.kind.target, set())
                if not (isinstance(value, str) and value in known):
                    reader.add(f"{where}.{spec.name}", spec.kind.unknown % {"key": repr(value)})
            if isinstance(spec.kind, Refs):
                known = keys.get(spec.kind.target, set())
                for key in value or []:
                    if key not in known:
                        reader.add(f"{where}.{spec.name}", spec.kind.unknown % {"key": repr(key)})
        for rule in found.entity.rules:
            for name, message in rule(values, found.position):
                reader.add(at(where, name) if name else where, message)
    _check_pool_draws(reader)


def _check_pool_draws(reader: _Reader) -> None:
    """No quiz draws from a pool in more items than the pool has members."""
    sizes = {
        found.values["slug"]: len(found.values["questions"]) + len(found.values["problems"])
        for found in reader.found
        if found.entity is POOL
    }
    for found in reader.found:
        if found.entity is not QUIZ:
            continue
        numbers: dict[str, list[int]] = {}
        for number, item in enumerate(found.values["items"], start=1):
            if item.get("pool") in sizes:
                numbers.setdefault(item["pool"], []).append(number)
        for pool, items in numbers.items():
            problem = rules.pool_draw_problem(pool=repr(pool), size=sizes[pool], items=items)
            if problem:
                reader.add(f"{found.where}.items", problem)


def _check_keys_owned_elsewhere(reader: _Reader, lesson_slug: str) -> None:
    """Keys are global: a bank may not take over another lesson's question, problem or quiz."""
    for entity in dict.fromkeys(found.entity for found in reader.found if found.entity.model):
        values = [f.values[entity.key] for f in reader.found if f.entity is entity]
        taken = entity.model.objects.filter(**{f"{entity.key}__in": [v for v in values if v]})
        taken = taken.exclude(lesson__slug=lesson_slug)
        for key, other in taken.values_list(entity.key, "lesson__slug"):
            reader.add(
                f"{entity.noun} {key}",
                _("%(field)s already belongs to lesson %(lesson)s")
                % {"field": entity.key, "lesson": repr(other)},
            )
