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
