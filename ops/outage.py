"""Database outages become a clear 503 page, not a bare 500 and a second error.

`DatabaseOutageMiddleware.process_exception` answers any view (or template) that fails on a
database error; `ops.views.server_error` covers errors raised outside views (a session save in
a middleware). The page is rendered without a request context: context processors read the
session and the user, which need the database that just failed.
"""

from __future__ import annotations

import logging
from typing import Any

from django.db import DatabaseError, InterfaceError, OperationalError
from django.http import HttpRequest, HttpResponse
from django.template import loader

from . import metrics

logger = logging.getLogger(__name__)

DATABASE_ERRORS = (OperationalError, InterfaceError)
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
        if isinstance(exception, DATABASE_ERRORS) or (
                isinstance(exception, DatabaseError) and _connection_lost(exception)):
            return outage_response(request, exception)
        return None


def _connection_lost(error: DatabaseError) -> bool:
    text = str(error).lower()
    return "connection" in text and ("closed" in text or "refused" in text)
