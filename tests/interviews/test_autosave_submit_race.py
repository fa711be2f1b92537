"""The autosave cannot race the submit on the embedded SQLite default: a browser's click on
Submit blurs the answer box, so an autosave and the submit reach the server together. Fired
concurrently against a real server on SQLite (no DATABASE_URL), many times: every answer is
stored with the submitted text, no response is a 500, and the late draft changes nothing."""

from __future__ import annotations

import http.cookiejar
import json
import os
import socket
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request
from pathlib import Path

import pytest
from django.conf import settings

ROOT = Path(settings.BASE_DIR)
ROUNDS = 24
SERVICE_VARIABLES = {"DATABASE_URL", "REDIS_URL", "CELERY_BROKER_URL", "SECRET_KEY", "DEBUG",
                     "DJANGO_SETTINGS_MODULE", "DJANGO_ALLOW_ASYNC_UNSAFE"}

SETUP = """
import django, json
django.setup()
from django.contrib.auth import BACKEND_SESSION_KEY, HASH_SESSION_KEY, SESSION_KEY
from django.contrib.auth import get_user_model
from django.contrib.sessions.backends.db import SessionStore
from interviews import services
from interviews.models import Bank, Loop

user = get_user_model().objects.create_user("racer", password="a-long-unusual-phrase-42")
bank = Bank.objects.get(slug="inference-serving-ai-engineers")
loops = [str(services.loop_start(candidate=user, bank=bank, format=Loop.Format.SINGLE).public_id)
         for _ in range(%d)]
session = SessionStore()
session[SESSION_KEY] = str(user.pk)
session[BACKEND_SESSION_KEY] = "django.contrib.auth.backends.ModelBackend"
session[HASH_SESSION_KEY] = user.get_session_auth_hash()
session.save()
print(json.dumps({"loops": loops, "session": session.session_key}))
"""

CHECK = """
import django, json
django.setup()
from interviews.models import Answer, LoopQuestion
rows = [{"loop": str(lq.loop.public_id), "draft": lq.draft,
         "answers": [a.text for a in lq.answers.all()]}
        for lq in LoopQuestion.objects.select_related("loop").prefetch_related("answers")]
print(json.dumps(rows))
"""


@pytest.fixture
def sqlite_env(tmp_path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in SERVICE_VARIABLES}
    env.update(MOCKLOOP_DATA_DIR=str(tmp_path), MOCKLOOP_EMBEDDINGS="off",
               DJANGO_SETTINGS_MODULE="config.settings.dev")
    return env


def run(env: dict[str, str], *args: str) -> str:
    result = subprocess.run([sys.executable, *args], cwd=ROOT, env=env,  # noqa: S603
                            capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stdout + result.stderr
    return result.stdout


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


class Browser:
    """Just enough of a browser: one cookie jar, htmx's headers, the CSRF header."""

    def __init__(self, base: str, session: str) -> None:
        self.base = base
        self.jar = http.cookiejar.CookieJar()
        self.opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(self.jar))
        self.opener.addheaders = [("Cookie", f"sessionid={session}")]
        self.session = session

    def csrf(self) -> str:
        return next(c.value for c in self.jar if c.name == "csrftoken")

    def get(self, path: str) -> int:
        with self.opener.open(self.base + path, timeout=60) as response:  # noqa: S310
            response.read()
            return response.status

    def post(self, path: str, text: str, field: str = "text") -> tuple[int, str]:
        data = urllib.parse.urlencode({field: text}).encode()
        request = urllib.request.Request(self.base + path, data=data, headers={  # noqa: S310
            "HX-Request": "true", "X-CSRFToken": self.csrf(),
            "Cookie": f"sessionid={self.session}; csrftoken={self.csrf()}",
            "Referer": self.base + path})
        try:
            with urllib.request.urlopen(request, timeout=60) as response:  # noqa: S310
                return response.status, response.read().decode()
        except urllib.error.HTTPError as error:
            return error.code, error.read().decode()[:300]


def wait_for(base: str) -> None:
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        try:
            with urllib.request.urlopen(base + "/accounts/login/", timeout=5):  # noqa: S310
                return
        except OSError:
            time.sleep(0.3)
    raise AssertionError("the server did not start")


def test_autosave_and_submit_fired_together_store_every_answer(sqlite_env):
    run(sqlite_env, "manage.py", "migrate", "--noinput", "-v0")
    run(sqlite_env, "manage.py", "import_bank",
        "interviews/banks/inference-serving-ai-engineers.yaml")
    setup = json.loads(run(sqlite_env, "-c", SETUP % ROUNDS))
    port = free_port()
    server = subprocess.Popen(  # noqa: S603
        [sys.executable, "manage.py", "runserver", "--noreload", f"127.0.0.1:{port}"],
        cwd=ROOT, env=sqlite_env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    base = f"http://127.0.0.1:{port}"
    statuses: list[tuple[str, int, str]] = []
    try:
        wait_for(base)
        browser = Browser(base, setup["session"])
        for n, loop in enumerate(setup["loops"]):
            page = f"/loops/{loop}/q/1/"
            assert browser.get(page) == 200  # starts the clock, sets the CSRF cookie
            answer = f"Answer {n}: keep 5ms of headroom and measure p99 with a load test."
            # The blur's autosave carries the same text, or (as often) the text before the
            # last keystrokes; a second autosave lands just after.
            requests = [("draft", page + "draft/", answer[:-9]),
                        ("submit", page + "answer/", answer),
                        ("draft", page + "draft/", answer)]
            if n % 2:
                requests.reverse()
            barrier = threading.Barrier(len(requests))

            def fire(kind: str, path: str, text: str, barrier=barrier) -> None:
                barrier.wait()
                status, body = browser.post(path, text)
                statuses.append((kind, status, body))

            threads = [threading.Thread(target=fire, args=r) for r in requests]
            for thread in threads:
                thread.start()
            for thread in threads:
                thread.join(timeout=120)
    finally:
        server.terminate()
        server.wait(timeout=10)
        errors = server.stderr.read() if server.stderr else ""
    failed = [(kind, status, body) for kind, status, body in statuses if status != 200]
    assert not failed, f"{failed[:3]}\n{errors[-2000:]}"
    assert len(statuses) == 3 * ROUNDS
    assert "database is locked" not in errors

    rows = {row["loop"]: row for row in json.loads(run(sqlite_env, "-c", CHECK))}
    for n, loop in enumerate(setup["loops"]):
        answer = f"Answer {n}: keep 5ms of headroom and measure p99 with a load test."
        assert rows[loop]["answers"] == [answer], rows[loop]
        # A draft that arrived after the submit changed nothing.
        assert rows[loop]["draft"] == answer, rows[loop]
