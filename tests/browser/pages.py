"""Steps a person takes in the browser, shared by the browser tests."""

from __future__ import annotations

from django.urls import reverse
from playwright.sync_api import Page

PASSWORD = "correct horse battery staple"  # what tests.factories.UserFactory sets


def log_in_with_form(page: Page, live_server: object, username: str) -> None:
    """Log in through the real form, as a person would."""
    page.goto(f"{live_server.url}{reverse('login')}")
    page.fill("input[name=username]", username)
    page.fill("input[name=password]", PASSWORD)
    page.get_by_role("button", name="Log in").click()
    page.wait_for_load_state()

