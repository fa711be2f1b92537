"""Debrief and progress pages (the debrief helper owns this module)."""

from __future__ import annotations

from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpRequest, HttpResponse
from django.views.decorators.http import require_GET


@require_GET
@login_required
def debrief_detail(request: HttpRequest, public_id: str) -> HttpResponse:
    raise Http404


@require_GET
@login_required
def progress(request: HttpRequest) -> HttpResponse:
    raise Http404
