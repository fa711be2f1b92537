"""The embedded default (no DATABASE_URL, no REDIS_URL) keeps working: SQLite, in-process
scoring and debriefs, and a server that answers. Runs in subprocesses so nothing leaks in."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest
from django.conf import settings

ROOT = Path(settings.BASE_DIR)
SERVICE_VARIABLES = {"DATABASE_URL", "REDIS_URL", "CELERY_BROKER_URL", "SECRET_KEY", "DEBUG",
                     "DJANGO_SETTINGS_MODULE", "DJANGO_ALLOW_ASYNC_UNSAFE"}

FULL_LOOP_IN_PROCESS = """
import django
django.setup()
from django.contrib.auth import get_user_model
from interviews.models import Bank, Loop
from interviews import services
from scoring.models import Debrief

user = get_user_model().objects.get(username="candidate")
bank = Bank.objects.get(slug="inference-serving-ai-engineers")
loop = services.loop_start(candidate=user, bank=bank, format=Loop.Format.SINGLE)
loop_question = loop.loop_questions.get()
services.loop_question_show(loop_question=loop_question)
result = services.answer_submit(
    loop_question=loop_question,
    text="I'd keep 5ms of headroom under the budget and measure p99 with a load test.")
result.answer.refresh_from_db()
print("answer:", result.answer.scoring_status)
services.loop_finish(loop=loop)
print("debrief:", Debrief.objects.get(loop=loop).status)
"""


@pytest.fixture
def embedded_env(tmp_path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in SERVICE_VARIABLES}
    env["MOCKLOOP_DATA_DIR"] = str(tmp_path)
    env["DJANGO_SETTINGS_MODULE"] = "config.settings.dev"
    return env


def manage(env: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(  # noqa: S603
        [sys.executable, "manage.py", *args], cwd=ROOT, env=env, capture_output=True,
        text=True, timeout=300)


def test_embedded_default_runs_a_loop_in_process(embedded_env, tmp_path):
    for command in (["migrate", "--noinput", "-v0"],
                    ["import_bank", "interviews/banks/inference-serving-ai-engineers.yaml"],
                    ["seed_demo_users"]):
        result = manage(embedded_env, *command)
        assert result.returncode == 0, result.stdout + result.stderr
    assert (tmp_path / "mockloop.sqlite3").exists()
    assert "candidate" in result.stdout and "password:" in result.stdout

    again = manage(embedded_env, "seed_demo_users")  # idempotent: same passwords printed
    assert again.stdout == result.stdout

    loop = subprocess.run(  # noqa: S603
        [sys.executable, "-c", FULL_LOOP_IN_PROCESS], cwd=ROOT, env=embedded_env,
        capture_output=True, text=True, timeout=300)
    assert loop.returncode == 0, loop.stdout + loop.stderr
    assert "answer: scored" in loop.stdout
    assert "debrief: ready" in loop.stdout


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def test_embedded_default_serves_pages(embedded_env):
    assert manage(embedded_env, "migrate", "--noinput", "-v0").returncode == 0
    port = free_port()
    server = subprocess.Popen(  # noqa: S603
        [sys.executable, "manage.py", "runserver", "--noreload", f"127.0.0.1:{port}"],
        cwd=ROOT, env=embedded_env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        body = ""
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/accounts/login/") as page:  # noqa: S310
                    body = page.read().decode()
                    break
            except OSError:
                time.sleep(0.3)
        assert "Log in" in body
        with urllib.request.urlopen(  # noqa: S310
                f"http://127.0.0.1:{port}/static/js/htmx-2.0.10.min.js") as script:
            assert b'version:"2.0.10"' in script.read()
        assert '/static/js/htmx-2.0.10.min.js' in body
    finally:
        server.terminate()
        server.wait(timeout=10)


SQLITE_SETTINGS = """
import django
django.setup()
from django.db import connection
with connection.cursor() as cursor:
    cursor.execute("PRAGMA journal_mode")
    print("journal:", cursor.fetchone()[0])
    cursor.execute("PRAGMA busy_timeout")
    print("busy_timeout:", cursor.fetchone()[0])
print("mode:", connection.transaction_mode)
"""


def test_embedded_sqlite_is_set_up_for_concurrent_requests(embedded_env):
    """WAL, a busy timeout and immediate write transactions (issue 10: autosave beside submit)."""
    result = subprocess.run(  # noqa: S603
        [sys.executable, "-c", SQLITE_SETTINGS], cwd=ROOT, env=embedded_env,
        capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    assert "journal: wal" in result.stdout
    assert "busy_timeout: 20000" in result.stdout
    assert "mode: IMMEDIATE" in result.stdout
