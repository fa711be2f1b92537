"""A database outage gives a clear 503 page that says the text is kept, never a bare 500, and
logs one line per request, not a second error (the old `_session_cache` AttributeError)."""

from __future__ import annotations

import logging

import pytest
from django.db import OperationalError
from django.db.backends.utils import CursorWrapper
from django.test import Client
from django.urls import reverse

from tests.factories import UserFactory
from tests.scoring.test_reports import build_finished_loop

pytestmark = pytest.mark.django_db


@pytest.fixture
def outage(monkeypatch):
    """Every query fails as it does while PostgreSQL restarts."""
    def down(self, *args, **kwargs):
        raise OperationalError("connection failed: Connection refused")

    def start() -> None:
        monkeypatch.setattr(CursorWrapper, "execute", down)
        monkeypatch.setattr(CursorWrapper, "executemany", down)

    return start


@pytest.fixture
def signed_in(db):
    user = UserFactory()
    client = Client(raise_request_exception=False)
    client.force_login(user)
    return client, user


def assert_outage_page(response, caplog) -> None:
    assert response.status_code == 503
    assert response["Retry-After"]
    text = response.content.decode()
    assert "briefly unavailable" in text
    # Django's one line per 5xx response is all; no traceback, no second exception.
    errors = [r.getMessage() for r in caplog.records if r.levelno >= logging.ERROR]
    assert all(m.startswith("Service Unavailable:") for m in errors), errors
    assert not any(r.exc_info for r in caplog.records)
    assert not any("_session_cache" in r.getMessage() or "AttributeError" in r.getMessage()
                   for r in caplog.records)


def test_a_page_during_an_outage_is_a_503_not_a_500(signed_in, outage, caplog):
    client, _ = signed_in
    outage()
    with caplog.at_level(logging.INFO):
        response = client.get(reverse("interviews:home"))
    assert_outage_page(response, caplog)
    assert "Reload this page" in response.content.decode()


def test_submit_during_an_outage_says_the_text_is_kept_and_to_retry(signed_in, outage,
                                                                      caplog):
    client, user = signed_in
    loop = build_finished_loop(user, questions=1)
    url = reverse("interviews:answer_submit",
                  kwargs={"public_id": loop.public_id, "position": 1})
    outage()
    with caplog.at_level(logging.INFO):
        response = client.post(url, {"text": "My answer"})
    assert_outage_page(response, caplog)
    text = response.content.decode()
    assert "Your text is kept in your browser" in text
    assert "submit again" in text


def test_htmx_submit_during_an_outage_gets_an_alert_fragment(signed_in, outage, caplog):
    client, user = signed_in
    loop = build_finished_loop(user, questions=1)
    url = reverse("interviews:answer_submit",
                  kwargs={"public_id": loop.public_id, "position": 1})
    outage()
    response = client.post(url, {"text": "My answer"}, HTTP_HX_REQUEST="true")
    assert response.status_code == 503
    assert "<html" not in response.content.decode()
    assert 'role="alert"' in response.content.decode()


class FailingSessionSave:
    """Stands in for SessionMiddleware saving the session after the view, with the database
    gone: the error is raised in a middleware, where process_exception never sees it."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        self.get_response(request)
        raise OperationalError("server closed the connection unexpectedly")


def test_an_error_outside_any_view_is_a_503_too(settings, caplog):
    settings.MIDDLEWARE = [*settings.MIDDLEWARE[:3], "tests.ops.test_outage.FailingSessionSave",
                           *settings.MIDDLEWARE[3:]]
    client = Client(raise_request_exception=False)
    with caplog.at_level(logging.INFO):
        response = client.get(reverse("login"))
    assert response.status_code == 503
    assert "briefly unavailable" in response.content.decode()


def test_any_other_error_is_a_plain_500_page_without_the_database(settings):
    settings.MIDDLEWARE = [*settings.MIDDLEWARE, "tests.ops.test_outage.Broken"]
    client = Client(raise_request_exception=False)
    response = client.get(reverse("login"))
    assert response.status_code == 500
    assert "Something went wrong on our side" in response.content.decode()


class Broken:
    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        raise RuntimeError("a bug")


# --- Only a lost connection is an outage ----------------------------------------------------


def _interviewer_client():
    user = UserFactory(interviewer=True)
    client = Client(raise_request_exception=False)
    client.force_login(user)
    return client


def _errors(caplog) -> list[logging.LogRecord]:
    return [r for r in caplog.records if r.levelno >= logging.ERROR]


def _fail_with(monkeypatch, sql: str) -> None:
    """The calibration page runs `sql` (a real statement that fails on the real database)."""
    from django.db import connection

    def report(**kwargs):
        with connection.cursor() as cursor:
            cursor.execute(sql)
        raise AssertionError("the statement should have failed")

    monkeypatch.setattr("interviews.reviews.views.calibration_report_for", report)


def test_a_bad_query_is_a_plain_500_logged_once_not_an_outage(monkeypatch, caplog):
    """A statement timeout is a psycopg OperationalError too, but the database answered: a
    retry would not help, so no "reload" page and no outage metric."""
    _fail_with(monkeypatch, "SET LOCAL statement_timeout = 1; SELECT pg_sleep(0.5)")
    client = _interviewer_client()
    with caplog.at_level(logging.INFO):
        response = client.get(reverse("reviews:calibration"))
    assert response.status_code == 500
    assert "Something went wrong on our side" in response.content.decode()
    assert not any("Database unavailable" in r.getMessage() for r in caplog.records)
    errors = _errors(caplog)
    assert len(errors) == 1 and errors[0].exc_info, [r.getMessage() for r in errors]
    assert "QueryCanceled" in repr(errors[0].exc_info[1].__cause__)


def test_an_sqlite_syntax_error_is_a_500_not_an_outage(monkeypatch, caplog):
    """The embedded default's own error type for a bad query (what `::numeric` raised)."""
    import sqlite3

    from django.db import OperationalError as DjangoOperationalError

    def report(**kwargs):
        try:
            sqlite3.connect(":memory:").execute("SELECT round(1.5::numeric, 0)")
        except sqlite3.OperationalError as error:
            raise DjangoOperationalError(*error.args) from error

    monkeypatch.setattr("interviews.reviews.views.calibration_report_for", report)
    client = _interviewer_client()
    with caplog.at_level(logging.INFO):
        response = client.get(reverse("reviews:calibration"))
    assert response.status_code == 500
    assert len(_errors(caplog)) == 1


@pytest.mark.django_db(transaction=True)
def test_a_connection_killed_mid_request_is_a_503(monkeypatch, caplog):
    """PostgreSQL ends the session (as on a restart): SQLSTATE 57P01, a real lost connection."""
    from django.db import connection

    _fail_with(monkeypatch, "SELECT pg_terminate_backend(pg_backend_pid())")
    client = _interviewer_client()
    with caplog.at_level(logging.INFO):
        response = client.get(reverse("reviews:calibration"))
    # The test client keeps connections across requests (a server closes unusable ones when
    # the request ends): drop the dead one so the test's flush reconnects.
    connection.close()
    assert_outage_page(response, caplog)
