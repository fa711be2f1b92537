from __future__ import annotations

from typing import Any

from django import forms
from django.conf import settings
from django.contrib.admin.forms import AdminAuthenticationForm
from django.contrib.auth.forms import (
    AuthenticationForm,
    PasswordChangeForm,
    PasswordResetForm,
    UserCreationForm,
)
from django.core.exceptions import ValidationError
from django.http import HttpRequest

from . import throttle
from .models import Bank, Loop, Topic

THROTTLED_MESSAGE = ("Too many failed attempts. For your security, wait %(minutes)s minutes "
                     "before trying again.")


THROTTLED_LOGIN_MESSAGE = ("Too many failed log-in attempts. For your security, wait "
                           "%(minutes)s minutes before trying again.")


def _refuse_if_throttled(form: Any, *, username: str, address: str, message: str) -> None:
    """Raise the throttle's form error (and mark the form) while the account or address waits."""
    try:
        throttle.login_check(username=username, address=address)
    except throttle.Throttled as refused:
        form.throttled = True
        raise ValidationError(message, code="throttled",
                              params={"minutes": refused.minutes}) from None


class ThrottledLoginMixin:
    """Checks the shared throttle before Django's own credential check, counts the outcome.

    Mixed into the site's and the admin's login forms so both ways in share one policy.
    """

    throttled = False
    request: Any
    cleaned_data: dict[str, Any]

    def clean(self) -> dict[str, Any]:
        username = self.cleaned_data.get("username") or ""
        address = throttle.client_address(self.request)
        _refuse_if_throttled(self, username=username, address=address,
                             message=THROTTLED_LOGIN_MESSAGE)
        try:
            cleaned = super().clean()  # type: ignore[misc]
        except ValidationError:
            # A right password refused for another reason (a candidate at the admin login)
            # is not a guess.
            if getattr(self, "user_cache", None) is None:
                throttle.login_failed(username=username, address=address)
            raise
        throttle.login_succeeded(username=username, address=address)
        return cleaned


class ThrottledAuthenticationForm(ThrottledLoginMixin, AuthenticationForm):
    """Django's login form, refusing guesses at speed per account and per address."""


class ThrottledAdminAuthenticationForm(ThrottledLoginMixin, AdminAuthenticationForm):
    """The admin's login form (staff only), under the same throttle as the site's."""


class ThrottledPasswordChangeForm(PasswordChangeForm):
    """Password change: a wrong old password counts as a failed login for the account."""

    throttled = False

    def __init__(self, user: Any, *args: Any, request: HttpRequest | None = None,
                 **kwargs: Any) -> None:
        super().__init__(user, *args, **kwargs)
        self.request = request

    def clean_old_password(self) -> str:
        username = self.user.get_username()
        address = throttle.client_address(self.request)
        _refuse_if_throttled(self, username=username, address=address, message=THROTTLED_MESSAGE)
        try:
            old_password = super().clean_old_password()
        except ValidationError:
            throttle.login_failed(username=username, address=address)
            raise
        throttle.login_succeeded(username=username, address=address)
        return old_password


class ThrottledPasswordResetForm(PasswordResetForm):
    """Reset requests are rate-limited per address and per e-mail, whether or not it exists."""

    throttled = False

    def __init__(self, *args: Any, request: HttpRequest | None = None, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.request = request

    def clean_email(self) -> str:
        email = self.cleaned_data["email"]
        try:
            throttle.rate_limit(
                action="password-reset",
                keys=[f"address:{throttle.client_address(self.request)}", f"email:{email}"],
                limit=settings.MOCKLOOP_PASSWORD_RESET_MAX_REQUESTS,
                window=settings.MOCKLOOP_PASSWORD_RESET_WINDOW_SECONDS)
        except throttle.Throttled as refused:
            self.throttled = True
            raise ValidationError(
                "Too many reset requests. Wait %(minutes)s minutes, then check your inbox "
                "(and spam folder) before asking again.", code="throttled",
                params={"minutes": refused.minutes}) from None
        return email


class SignUpForm(UserCreationForm):
    email = forms.EmailField(label="Email (optional)", required=False,
                             help_text="Only used to reset your password.")

    class Meta(UserCreationForm.Meta):
        fields = ("username", "email")


class StartLoopForm(forms.Form):
    bank = forms.ModelChoiceField(queryset=Bank.objects.published(), label="Bank",
                                  to_field_name="slug")
    format = forms.ChoiceField(choices=Loop.Format.choices, label="Format")
    topic = forms.ModelChoiceField(queryset=Topic.objects.all(), required=False,
                                   label="Topic",
                                   help_text="Needed for a topic drill; optional otherwise.")
    criterion = forms.CharField(required=False, max_length=200, label="Criterion",
                                help_text="The weak point a criterion drill trains.")

    def clean(self) -> dict[str, Any]:
        cleaned = super().clean()
        bank, topic = cleaned.get("bank"), cleaned.get("topic")
        if topic is not None and bank is not None and topic.bank_id != bank.pk:
            self.add_error("topic", "That topic is not in this bank.")
        if cleaned.get("format") == Loop.Format.TOPIC and topic is None:
            self.add_error("topic", "Choose a topic for a topic drill.")
        if cleaned.get("format") == Loop.Format.DRILL and not cleaned.get("criterion"):
            self.add_error("criterion", "Choose the criterion to drill.")
        return cleaned


class AnswerForm(forms.Form):
    text = forms.CharField(
        label="Your answer", strip=False, required=False,
        widget=forms.Textarea(attrs={"rows": 14, "spellcheck": "true"}))

    def clean_text(self) -> str:
        from .services import answer_validate

        return answer_validate(self.cleaned_data.get("text") or "")


class DraftForm(forms.Form):
    text = forms.CharField(strip=False, required=False)

