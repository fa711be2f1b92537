"""Database outages become a clear 503 page, not a bare 500 and a second error.

`DatabaseOutageMiddleware.process_exception` answers any view (or template) that fails on a
database error; `ops.views.server_error` covers errors raised outside views (a session save in
a middleware). The page is rendered without a request context: context processors read the
session and the user, which need the database that just failed.
"""

from __future__ import annotations

import logging
from typing import Any

from django.db import InterfaceError, OperationalError, connections
from django.http import HttpRequest, HttpResponse
from django.template import loader

from . import metrics

logger = logging.getLogger(__name__)

RETRY_AFTER_SECONDS = 5


def outage_response(request: HttpRequest, error: BaseException) -> HttpResponse:
    metrics.record_failure("database", type(error).__name__)
    logger.warning("Database unavailable for %s %s: %s", request.method, request.path,
                   str(error).strip().splitlines()[0] if str(error).strip() else repr(error))
    _forget_session(request)
    is_htmx = request.headers.get("HX-Request") == "true"
    body = loader.get_template("503.html").render({"htmx": is_htmx, "is_post":
                                                    request.method == "POST"})
    response = HttpResponse(body, status=503)
    response["Retry-After"] = str(RETRY_AFTER_SECONDS)
    if is_htmx:
        # htmx does not swap error responses by default; retarget to the page's alert region.
        response["HX-Retarget"] = "#outage"
        response["HX-Reswap"] = "innerHTML"
    return response


def _forget_session(request: HttpRequest) -> None:
    """Stop SessionMiddleware from saving (or re-reading) a session it never loaded: with the
    database down that raised AttributeError('_session_cache') as a second error."""
    session: Any = getattr(request, "session", None)
    if session is not None:
        session.accessed = False
        session.modified = False


class DatabaseOutageMiddleware:
    def __init__(self, get_response: Any) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        return self.get_response(request)

    def process_exception(self, request: HttpRequest, exception: Exception
                          ) -> HttpResponse | None:
        if is_connection_failure(exception):
            return outage_response(request, exception)
        return None  # anything else, database errors included, is a plain 500 (logged once)


# SQLSTATE classes that mean "the database is not there right now": 08 connection exception,
# 57P0x shutdown / crash / cannot connect now, 53300 too many connections. Not 57014 (a
# statement timeout) and not syntax or constraint errors: a retry would not help those.
_UNAVAILABLE_SQLSTATES = ("08", "57P", "53300")
# Failures raised before or without a server reply carry no SQLSTATE; their drivers' words.
_UNAVAILABLE_PHRASES = (
    "connection refused", "connection failed", "could not connect", "connection timed out",
    "timeout expired", "no route to host", "server closed the connection",
    "connection already closed", "connection is closed", "connection is lost",
    "terminating connection", "could not receive data", "could not send data",
    "consuming input failed", "ssl connection has been closed", "the database system is",
    "database is locked", "unable to open database file",
)


def is_connection_failure(error: BaseException) -> bool:
    """A lost, refused or busy database connection (worth "reload in a moment"), as opposed to
    a bug or a bad query, which must stay a 500 rather than pose as an outage."""
    if not isinstance(error, (OperationalError, InterfaceError)):
        return False
    sqlstate = getattr(error.__cause__, "sqlstate", None)
    if sqlstate:
        return sqlstate.startswith(_UNAVAILABLE_SQLSTATES)
    text = str(error).lower()
    return any(phrase in text for phrase in _UNAVAILABLE_PHRASES) or _a_connection_broke()


def _a_connection_broke() -> bool:
    """psycopg marks a connection broken when its socket dies mid-query (no SQLSTATE then)."""
    for connection in connections.all(initialized_only=True):
        raw = connection.connection
        if raw is not None and (getattr(raw, "broken", False) or getattr(raw, "closed", False)):
            return True
    return False
