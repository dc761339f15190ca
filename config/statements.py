"""Reads on the answer path, compiled to SQL once per connection instead of on every request.

Django turns a queryset into SQL each time it is evaluated. For the small, indexed reads an
answer makes (its API key, its variant with attempt, quiz and item, the item's earlier tries)
building the SQL costs five to ten times running it: ~0.4 ms of compiling against ~0.05 ms of
SQLite work for the scoped variant lookup. A Statement is built from an ordinary values_list
queryset, so the ORM stays the one definition of the read (joins, scoping, column types, each
database's SQL); it compiles that queryset once per database connection with marker values in
place of the arguments, remembers where each marker landed among the bound parameters, and from
then on binds the real values and runs the same SQL, applying the same converters Django would.
Values are always bound as parameters, never pasted into the SQL.
"""

from __future__ import annotations

import weakref
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from django.core.exceptions import ImproperlyConfigured
from django.db import connections
from django.db.models import Model, QuerySet
from django.db.models.query import ValuesListIterable

Marker = int | str


@dataclass(frozen=True)
class _Compiled:
    sql: str
    params: tuple[Any, ...]
    slots: dict[str, tuple[int, ...]]
    # (column position, Django's converters for it, the column's expression)
    converters: tuple[tuple[int, tuple[Callable, ...], Any], ...]


class Statement:
    """A values_list read whose SQL is compiled once per connection and reused.

    `build(**markers)` returns the queryset; each marker is a value of its argument's type that
    appears nowhere else in the query (a large negative id, a string no row holds), so its place
    among the parameters can be found. `rows(**values)` runs the read with the real values.
    """

    def __init__(self, build: Callable[..., QuerySet], **markers: Marker):
        self._build = build
        self._markers = markers
        self._compiled: weakref.WeakKeyDictionary[Any, _Compiled] = weakref.WeakKeyDictionary()

    def queryset(self, **values: Marker) -> QuerySet:
        """The same read as an ordinary queryset (what `rows` must always agree with)."""
        return self._build(**values)

    def rows(self, *, using: str = "default", **values: Marker) -> list[tuple]:
        """Every row the read returns for these values, converted as Django would."""
        if values.keys() != self._markers.keys():
            raise TypeError(f"Statement takes {sorted(self._markers)}, got {sorted(values)}.")
        connection = connections[using]
        compiled = self._compiled.get(connection)
        if compiled is None:
            compiled = self._compiled[connection] = self._compile(connection)
        params = list(compiled.params)
        for name, slots in compiled.slots.items():
            value = values[name]
            if type(value) is not type(self._markers[name]):
                raise TypeError(f"{name} must be {type(self._markers[name]).__name__}.")
            for slot in slots:
                params[slot] = value
        with connection.cursor() as cursor:
            cursor.execute(compiled.sql, params)
            rows = cursor.fetchall()
        if not compiled.converters:
            return rows
        converted = []
        for fetched in rows:
            row = list(fetched)
            for position, converters, expression in compiled.converters:
                value = row[position]
                for converter in converters:
                    value = converter(value, expression, connection)
                row[position] = value
            converted.append(tuple(row))
        return converted

    def _compile(self, connection) -> _Compiled:
        queryset = self._build(**self._markers)
        if queryset._iterable_class is not ValuesListIterable or queryset._fields is None:
            raise ImproperlyConfigured("A Statement is built from a values_list() queryset.")
        if len(set(self._markers.values())) != len(self._markers):
            raise ImproperlyConfigured("Each argument needs a marker of its own.")
        compiler = queryset.query.get_compiler(connection=connection)
        sql, params = compiler.as_sql()
        slots = {}
        for name, marker in self._markers.items():
            wanted = (type(marker), marker)
            found = tuple(i for i, param in enumerate(params) if (type(param), param) == wanted)
            if not found:
                raise ImproperlyConfigured(
                    f"The marker for {name} ({marker!r}) is not among the query's parameters: "
                    "its value must reach the SQL unchanged."
                )
            slots[name] = found
        fields = [column[0] for column in compiler.select[: compiler.col_count]]
        converters = tuple(
            (position, tuple(functions), expression)
            for position, (functions, expression) in compiler.get_converters(fields).items()
        )
        return _Compiled(sql=sql, params=tuple(params), slots=slots, converters=converters)


def columns(model: type[Model], path: str = "") -> list[str]:
    """The values_list names of a model's concrete columns, reached through `path` (a__b)."""
    prefix = f"{path}__" if path else ""
    return [prefix + field.attname for field in model._meta.concrete_fields]


def instance(model: type[Model], row: tuple, start: int, using: str = "default") -> Model:
    """A model instance from its columns (in `columns` order) at `row[start:]`, as loaded."""
    fields = model._meta.concrete_fields
    values = row[start : start + len(fields)]
    return model.from_db(using, [field.attname for field in fields], values)
