from __future__ import annotations

from typing import Any

from django import forms
from django.contrib.auth.forms import AuthenticationForm, UserCreationForm
from django.core.exceptions import ValidationError

from . import throttle
from .models import Bank, Loop, Topic


class ThrottledAuthenticationForm(AuthenticationForm):
    """Django's login form, refusing guesses at speed per account and per address."""

    error_messages = {
        **AuthenticationForm.error_messages,
        "throttled": (
            "Too many failed log-in attempts. For your security, wait %(minutes)s minutes "
            "before trying again."
        ),
    }

    throttled = False

    def clean(self) -> dict[str, Any]:
        username = self.cleaned_data.get("username") or ""
        address = throttle.client_address(self.request)
        if throttle.is_locked(username=username, address=address):
            self.throttled = True
            raise ValidationError(self.error_messages["throttled"], code="throttled",
                                  params={"minutes": throttle.lockout_minutes()})
        try:
            cleaned = super().clean()
        except ValidationError:
            throttle.record_failure(username=username, address=address)
            raise
        throttle.record_success(username=username, address=address)
        return cleaned


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

