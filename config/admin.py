"""The admin site, with its login under the same throttle as the site's (README, "Security")."""

from __future__ import annotations

from django.contrib import admin
from django.http import HttpRequest, HttpResponse

from interviews.forms import ThrottledAdminAuthenticationForm


class MockloopAdminSite(admin.AdminSite):
    login_form = ThrottledAdminAuthenticationForm

    def login(self, request: HttpRequest, extra_context: dict | None = None) -> HttpResponse:
        response = super().login(request, extra_context)
        form = (getattr(response, "context_data", None) or {}).get("form")
        if getattr(form, "throttled", False):
            response.status_code = 429
        return response
