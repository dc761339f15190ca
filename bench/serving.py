"""What the benchmarks share: the app under gunicorn with production settings on 127.0.0.1.

`backend_env` names the database and the shared cache (Redis when it answers) in an environment
for production settings; `serve` starts gunicorn on a free loopback port and waits until it
answers; `stop` ends it and its workers.
"""

from __future__ import annotations

import contextlib
import json
import os
import secrets
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PG_ADMIN = "postgres://postgres@127.0.0.1:5432/postgres"
WORKERS = 4
# The listen queue: at an exam's opening every learner's start arrives within a second, and
# gunicorn's default (2,048) drops the rest, which the learners' browsers then send again. The
# kernel caps it at net.core.somaxconn (4,096 on this machine kind); docs/deploy.md says the same.
BACKLOG = 4096


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def postgres_available() -> bool:
    try:
        import psycopg

        with psycopg.connect(PG_ADMIN, connect_timeout=3):
            return True
    except Exception:
        return False


def redis_url() -> str:
    """The shared cache production uses for rate limits, when Redis answers; else local memory."""
    try:
        with socket.create_connection(("127.0.0.1", 6379), timeout=1):
            return "redis://127.0.0.1:6379/9"
    except OSError:
        return "locmemcache://"


def backend_env(*, database: str, **overrides: str) -> dict[str, str]:
    """An environment for production settings on loopback: one random SECRET_KEY per run."""
    return {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "config.settings.production",
        "SECRET_KEY": secrets.token_urlsafe(64),
        "ALLOWED_HOSTS": "127.0.0.1,testserver",
        "DATABASE_URL": database,
        "CACHE_URL": redis_url(),
        # Plain HTTP on loopback: no TLS proxy in front of the bench server.
        "SECURE_SSL_REDIRECT": "False",
        "LOG_LEVEL": "WARNING",
        **overrides,
    }


def json_child(
    argv: list[str],
    *,
    env: dict[str, str],
    arguments: dict | None = None,
    cwd: Path = ROOT,
    timeout: float,
) -> dict:
    """Run `python argv…` (a bench script's stage, in its own process), `arguments` as JSON on its
    input; the JSON object on the last line of its output. Its error output when it fails."""
    child = subprocess.run(
        [sys.executable, *argv],
        input=json.dumps(arguments) if arguments is not None else None,
        env=env,
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=timeout,
    )
    if child.returncode != 0:
        raise SystemExit(f"{' '.join(argv)} failed:\n{child.stderr[-4000:]}")
    return json.loads(child.stdout.strip().splitlines()[-1])


def fresh_postgres_database(name: str) -> str:
    """Drop and create database `name`; returns its DATABASE_URL."""
    import psycopg

    with psycopg.connect(PG_ADMIN, autocommit=True) as connection:
        connection.execute(f"DROP DATABASE IF EXISTS {name} WITH (FORCE)")
        connection.execute(f"CREATE DATABASE {name}")
    return f"postgres://postgres@127.0.0.1:5432/{name}"


@dataclass
class Server:
    """One gunicorn instance: its port, the environment it runs with, and its master process."""

    port: int
    env: dict[str, str]
    workers: int
    process: subprocess.Popen

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"


def serve(
    env: dict[str, str],
    port: int,
    *,
    workers: int = WORKERS,
    probe: str = "/api/v1/",
    extra_args: tuple[str, ...] = (),
) -> Server:
    """gunicorn serving the app on 127.0.0.1:`port`, once `probe` answers (within 20 s)."""
    process = subprocess.Popen(
        [
            str(Path(sys.executable).parent / "gunicorn"),
            "config.wsgi:application",
            "--bind",
            f"127.0.0.1:{port}",
            "--workers",
            str(workers),
            "--backlog",
            str(BACKLOG),
            "--log-level",
            "warning",
            *extra_args,
        ],
        cwd=ROOT,
        env=env,
        start_new_session=True,
    )
    server = Server(port=port, env=env, workers=workers, process=process)
    for _ in range(100):
        with (
            contextlib.suppress(OSError),
            urllib.request.urlopen(f"{server.url}{probe}", timeout=1),
        ):
            return server
        if process.poll() is not None:
            raise SystemExit("gunicorn exited before serving")
        time.sleep(0.2)
    stop(server)
    raise SystemExit("gunicorn did not answer within 20 s")


def stop(server: Server) -> None:
    with contextlib.suppress(ProcessLookupError):
        os.killpg(server.process.pid, signal.SIGTERM)
    try:
        server.process.wait(timeout=15)
    except subprocess.TimeoutExpired:
        os.killpg(server.process.pid, signal.SIGKILL)
        server.process.wait()
