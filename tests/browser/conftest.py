"""Real headless Chromium (Debian's) against the live server, with an optional real worker."""

from __future__ import annotations

import os
import tempfile

import pytest
from django.conf import settings as django_settings
from django.contrib.auth import BACKEND_SESSION_KEY, HASH_SESSION_KEY, SESSION_KEY
from django.contrib.sessions.backends.db import SessionStore
from playwright.sync_api import expect

SHOTS = os.environ.get("MOCKLOOP_SHOTS_DIR", tempfile.gettempdir())
# Two cores shared with a live server and a worker thread: give assertions room, not sleeps.
expect.set_options(timeout=10_000)


@pytest.fixture(scope="session")
def browser_type_launch_args():
    return {
        "executable_path": "/usr/bin/chromium",
        "args": ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync", "--no-first-run",
                 "--disable-quic"],
    }


@pytest.fixture
def celery_worker():
    """A real Celery worker (solo pool, in a thread) consuming the real Redis broker."""
    from celery.contrib.testing.worker import start_worker

    from config import celery_app

    celery_app.control.purge()  # messages left by earlier tests point at rows that are gone
    with start_worker(celery_app, pool="solo", perform_ping_check=False, loglevel="WARNING",
                      shutdown_timeout=10):
        yield


@pytest.fixture
def login_as(live_server, context):
    """Log a user in by session cookie (the log-in form itself is tested separately)."""

    def _login(user):
        session = SessionStore()
        session[SESSION_KEY] = str(user.pk)
        session[BACKEND_SESSION_KEY] = "django.contrib.auth.backends.ModelBackend"
        session[HASH_SESSION_KEY] = user.get_session_auth_hash()
        session.save()
        context.add_cookies([{"name": django_settings.SESSION_COOKIE_NAME,
                              "value": session.session_key, "url": live_server.url}])
        return user

    return _login


@pytest.fixture
def no_broker_messages(monkeypatch):
    """For tests that build debriefs themselves: leave nothing queued in Redis for later runs."""
    monkeypatch.setattr("scoring.tasks.build_debrief.delay", lambda *args, **kwargs: None)
