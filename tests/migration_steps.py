"""Moving the test database to a point in the migration graph and back, for the tests of a data
migration: what rows made before it become after it."""

from __future__ import annotations

from django.db import connection
from django.db.migrations.executor import MigrationExecutor


def migrate(targets) -> MigrationExecutor:
    """Migrate the test database to `targets` (app, migration) nodes; a fresh executor after it,
    whose loader knows the state reached."""
    MigrationExecutor(connection).migrate(targets)
    return MigrationExecutor(connection)
