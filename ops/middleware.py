"""Request latency by view, for the SLI histogram (label: url name, bounded cardinality)."""

from __future__ import annotations

import time
from typing import Any

from django.http import HttpRequest, HttpResponse

from . import metrics


class RequestMetricsMiddleware:
    def __init__(self, get_response: Any) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        started = time.perf_counter()
        response = self.get_response(request)
        match = getattr(request, "resolver_match", None)
        view = (match.view_name if match is not None else "") or "unresolved"
        metrics.REQUEST_SECONDS.labels(
            view=view, method=request.method or "", status=f"{response.status_code // 100}xx",
        ).observe(time.perf_counter() - started)
        return response
