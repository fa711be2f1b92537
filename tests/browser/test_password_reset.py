"""A forgotten password reset end to end in Chromium, from the login page's link (issue 12)."""

from __future__ import annotations

import re

import pytest
from django.core import mail
from django.urls import reverse
from playwright.sync_api import Page, expect

from tests.browser.conftest import SHOTS
from tests.factories import UserFactory

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]
NEW_PASSWORD = "a-fresh-memorable-phrase-81"


def test_forgotten_password_is_reset_from_the_login_page(page: Page, live_server):
    user = UserFactory(username="forgetful", email="forgetful@example.com")
    page.goto(live_server.url + reverse("login"))
    page.get_by_role("link", name="Forgot password?").click()
    page.get_by_label("Email").fill("forgetful@example.com")
    page.get_by_role("button", name="Send the reset link").click()
    expect(page.get_by_role("heading", name="Check your e-mail")).to_be_visible()

    assert len(mail.outbox) == 1
    message = mail.outbox[0]
    assert message.to == ["forgetful@example.com"] and "password" in message.subject.lower()
    link = re.search(r"https?://\S+/reset/\S+/", message.body).group(0)
    page.goto(link)  # Django swaps the token for a session key and redirects to set-password
    page.get_by_label("New password", exact=True).fill(NEW_PASSWORD)
    page.get_by_label("New password confirmation").fill(NEW_PASSWORD)
    page.get_by_role("button", name="Set my password").click()
    expect(page.get_by_role("heading", name="Your password is set")).to_be_visible()
    page.screenshot(path=f"{SHOTS}/password-reset-complete.png", full_page=True)

    page.get_by_role("link", name="Log in", exact=True).last.click()
    page.fill("input[name=username]", "forgetful")
    page.fill("input[name=password]", NEW_PASSWORD)
    page.get_by_role("button", name="Log in").click()
    expect(page).to_have_url(re.compile(re.escape(live_server.url + reverse("interviews:home"))))
    user.refresh_from_db()
    assert user.check_password(NEW_PASSWORD)

    page.goto(link)  # a used link no longer works
    expect(page.get_by_role("heading", name="This link no longer works")).to_be_visible()
