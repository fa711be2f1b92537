"""Liveness, readiness, metrics, and the error pages that must work with the database down.

Access: /healthz and /readyz are public and say nothing private (a load balancer probes them);
/metrics needs the MOCKLOOP_METRICS_TOKEN bearer token when one is set, else a local caller.
"""

from __future__ import annotations

import hmac
import sys

from django.conf import settings
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_GET
from prometheus_client import CONTENT_TYPE_LATEST

from . import health, metrics
from .outage import is_connection_failure, outage_response


@never_cache
@require_GET
def healthz(request: HttpRequest) -> HttpResponse:
    """Liveness: the process answers. No dependency is checked (a restart would not fix one)."""
    return JsonResponse({"status": "ok"})


@never_cache
@require_GET
def readyz(request: HttpRequest) -> HttpResponse:
    """Readiness: database and broker reachable, a worker heartbeat seen recently."""
    checks = [health.check_database(), health.check_broker(), health.check_worker()]
    ready = all(check.ok for check in checks)
    body = {"status": "ready" if ready else "not ready",
            "checks": {c.name: {"ok": c.ok, "detail": c.detail} for c in checks}}
    return JsonResponse(body, status=200 if ready else 503)


def _metrics_allowed(request: HttpRequest) -> bool:
    token = settings.MOCKLOOP_METRICS_TOKEN
    if token:
        given = request.headers.get("Authorization", "").removeprefix("Bearer ").strip()
        return hmac.compare_digest(given.encode(), token.encode())
    return request.META.get("REMOTE_ADDR") in {"127.0.0.1", "::1"}


@never_cache
@require_GET
def metrics_view(request: HttpRequest) -> HttpResponse:
    if not _metrics_allowed(request):
        return HttpResponse("Forbidden: set MOCKLOOP_METRICS_TOKEN and send it as a bearer "
                            "token, or scrape from this host.", status=403,
                            content_type="text/plain")
    return HttpResponse(metrics.exposition(), content_type=CONTENT_TYPE_LATEST)


def server_error(request: HttpRequest) -> HttpResponse:
    """handler500: a lost database connection gets the 503 page; anything else (a bad query
    included) a plain 500 page. Neither touches the session or the database, so they cannot
    fail a second time."""
    error = sys.exc_info()[1]
    if error is not None and is_connection_failure(error):
        return outage_response(request, error)
    from django.template import loader

    return HttpResponse(loader.get_template("500.html").render(), status=500)
