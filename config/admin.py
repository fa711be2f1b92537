"""The admin site, with its login and password change under the same throttle as the site's
(README, "Security")."""

from __future__ import annotations

from django.contrib import admin
from django.http import HttpRequest, HttpResponse
from django.urls import reverse

from interviews.forms import ThrottledAdminAuthenticationForm, ThrottledPasswordChangeForm
from interviews.views import ThrottledPasswordChangeView


class ThrottledAdminPasswordChangeForm(ThrottledPasswordChangeForm):
    required_css_class = "required"  # as the admin's own form


class MockloopAdminSite(admin.AdminSite):
    login_form = ThrottledAdminAuthenticationForm

    def login(self, request: HttpRequest, extra_context: dict | None = None) -> HttpResponse:
        response = super().login(request, extra_context)
        form = (getattr(response, "context_data", None) or {}).get("form")
        if getattr(form, "throttled", False):
            response.status_code = 429
        return response

    def password_change(self, request: HttpRequest,
                        extra_context: dict | None = None) -> HttpResponse:
        # AdminSite.password_change, with the throttled view and form.
        request.current_app = self.name
        defaults = {
            "form_class": ThrottledAdminPasswordChangeForm,
            "success_url": reverse("admin:password_change_done", current_app=self.name),
            "extra_context": {**self.each_context(request), **(extra_context or {})},
        }
        if self.password_change_template is not None:
            defaults["template_name"] = self.password_change_template
        return ThrottledPasswordChangeView.as_view(**defaults)(request)
