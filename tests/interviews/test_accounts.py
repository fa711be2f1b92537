"""Accounts: sign up, log in (throttled), log out, change password; navigation per role."""

from __future__ import annotations

import pytest
from django.contrib.auth import get_user_model
from django.urls import reverse

pytestmark = pytest.mark.django_db
PASSWORD = "correct horse battery staple"


def login(client, username, password, address="10.0.0.1"):
    return client.post(reverse("login"), {"username": username, "password": password},
                       REMOTE_ADDR=address)


def test_sign_up_creates_a_candidate_and_logs_them_in(client):
    response = client.post(reverse("interviews:signup"), {
        "username": "newbie", "email": "", "password1": "a-long-unusual-phrase-42",
        "password2": "a-long-unusual-phrase-42"})
    assert response.status_code == 302 and response["Location"] == reverse("interviews:home")
    user = get_user_model().objects.get(username="newbie")
    assert not user.groups.exists() and not user.is_staff  # candidate is the default role
    home = client.get(reverse("interviews:home"))
    assert home.status_code == 200 and "newbie" in home.content.decode()


def test_sign_up_errors_are_shown_next_to_the_fields(client):
    response = client.post(reverse("interviews:signup"), {
        "username": "newbie", "password1": "a-long-unusual-phrase-42", "password2": "different"})
    assert response.status_code == 400
    assert "password fields didn" in response.content.decode()
    assert not get_user_model().objects.filter(username="newbie").exists()


def test_login_page_posts_to_the_throttled_view(client):
    html = client.get(reverse("login")).content.decode()
    assert f'action="{reverse("login")}"' in html
    assert '<label for="id_username">' in html and '<label for="id_password">' in html


def test_log_in_and_log_out(client, candidate):
    response = login(client, "candidate_a", PASSWORD)
    assert response.status_code == 302 and response["Location"] == reverse("interviews:home")
    response = client.post(reverse("logout"))
    assert response.status_code == 302
    assert client.get(reverse("interviews:home")).status_code == 302


def test_change_password(client, candidate):
    client.force_login(candidate)
    response = client.post(reverse("password_change"), {
        "old_password": PASSWORD, "new_password1": "another-long-phrase-77",
        "new_password2": "another-long-phrase-77"})
    assert response["Location"] == reverse("password_change_done")
    assert "Password changed" in client.get(reverse("password_change_done")).content.decode()
    candidate.refresh_from_db()
    assert candidate.check_password("another-long-phrase-77")


def test_failed_logins_lock_the_account_even_from_other_addresses(client, candidate, settings):
    for attempt in range(settings.MOCKLOOP_LOGIN_MAX_ATTEMPTS):
        response = login(client, "candidate_a", "wrong", address=f"10.0.1.{attempt}")
        assert response.status_code == 200
    # The right password, from a fresh address, is refused while the account is locked.
    response = login(client, "candidate_a", PASSWORD, address="10.9.9.9")
    assert response.status_code == 429
    assert "Too many failed log-in attempts" in response.content.decode()
    assert "_auth_user_id" not in client.session


def test_a_successful_login_resets_the_account_counter(client, candidate, settings):
    for attempt in range(settings.MOCKLOOP_LOGIN_MAX_ATTEMPTS - 1):
        login(client, "candidate_a", "wrong", address=f"10.0.3.{attempt}")
    assert login(client, "candidate_a", PASSWORD, address="10.0.3.50").status_code == 302
    client.logout()
    for attempt in range(settings.MOCKLOOP_LOGIN_MAX_ATTEMPTS - 1):
        login(client, "candidate_a", "wrong", address=f"10.0.4.{attempt}")
    assert login(client, "candidate_a", PASSWORD, address="10.0.4.50").status_code == 302


def test_the_lock_ends_with_the_window(client, candidate, settings):
    from django.core.cache import cache

    for attempt in range(settings.MOCKLOOP_LOGIN_MAX_ATTEMPTS):
        login(client, "candidate_a", "wrong", address=f"10.0.5.{attempt}")
    assert login(client, "candidate_a", PASSWORD, address="10.0.5.99").status_code == 429
    redis = cache._cache.get_client()
    keys = list(redis.scan_iter("*login-failures:account:*"))
    window = settings.MOCKLOOP_LOGIN_WINDOW_SECONDS
    assert keys and all(0 < redis.ttl(key) <= window for key in keys)
    cache.clear()  # the window passes
    assert login(client, "candidate_a", PASSWORD, address="10.0.5.99").status_code == 302


@pytest.mark.parametrize(("who", "sees", "hidden"), [
    ("candidate", ["Practice", "Progress"], ["Review", "Admin"]),
    ("interviewer", ["Practice", "Progress", "Review"], ["Admin"]),
    ("admin_user", ["Practice", "Review", "Admin"], []),
])
def test_navigation_shows_each_role_what_it_can_do(client, request, who, sees, hidden):
    client.force_login(request.getfixturevalue(who))
    html = client.get(reverse("interviews:home")).content.decode()
    nav = html.split('aria-label="Main"')[1].split("</nav>")[0]
    for label in sees:
        assert f">{label}</a>" in nav
    for label in hidden:
        assert f">{label}</a>" not in nav


def test_anonymous_navigation_offers_log_in_and_sign_up(client):
    html = client.get(reverse("login")).content.decode()
    nav = html.split('aria-label="Main"')[1].split("</nav>")[0]
    assert ">Log in</a>" in nav and ">Sign up</a>" in nav and "Practice" not in nav


def test_django_login_url_is_throttled_too(client, candidate):
    """Guessing through /accounts/login/ directly is throttled like the form's own URL."""
    for _ in range(5):
        response = client.post(reverse("login"), {"username": "candidate_a", "password": "nope"},
                               REMOTE_ADDR="10.9.9.9")
        assert response.status_code == 200
    blocked = client.post(reverse("login"), {"username": "candidate_a", "password": PASSWORD},
                          REMOTE_ADDR="10.9.9.9")
    assert blocked.status_code == 429
