"""One throttle for every way in (issue 10): site and admin login, password change, sign-up,
password reset; per-account lock, per-address slowdown, trusted proxies, cache outage."""

from __future__ import annotations

import re
import socket

import pytest
from django.contrib.auth import get_user_model
from django.core import mail
from django.urls import reverse

pytestmark = pytest.mark.django_db
PASSWORD = "correct horse battery staple"
ADMIN_LOGIN = "/admin/login/"


def login(client, username, password, address="10.0.0.1", url=None, **extra):
    return client.post(url or reverse("login"), {"username": username, "password": password},
                       REMOTE_ADDR=address, **extra)


def logged_in_as(client) -> str | None:
    return client.session.get("_auth_user_id")


def test_admin_login_is_locked_after_failures_at_the_site_login(client, admin_user, settings):
    """The probe: five failures at /accounts/login/, then the right password at /admin/login/."""
    for attempt in range(settings.MOCKLOOP_LOGIN_MAX_ATTEMPTS):
        login(client, "admin_1", "wrong", address=f"10.1.0.{attempt}")
    response = login(client, "admin_1", PASSWORD, address="10.1.9.9", url=ADMIN_LOGIN)
    assert response.status_code == 429
    assert "Too many failed log-in attempts" in response.content.decode()
    assert logged_in_as(client) is None


def test_admin_login_failures_count_and_lock(client, admin_user, settings):
    """Eight wrong passwords at /admin/login/ then the right one: the account is locked."""
    statuses = [login(client, "admin_1", "wrong", address=f"10.2.0.{n}", url=ADMIN_LOGIN)
                .status_code for n in range(8)]
    limit = settings.MOCKLOOP_LOGIN_MAX_ATTEMPTS
    assert statuses == [200] * limit + [429] * (8 - limit)
    assert login(client, "admin_1", PASSWORD, url=ADMIN_LOGIN).status_code == 429
    assert login(client, "admin_1", PASSWORD).status_code == 429  # and at the site login
    assert logged_in_as(client) is None


def test_admin_login_still_works(client, admin_user):
    response = login(client, "admin_1", PASSWORD, url=ADMIN_LOGIN)
    assert response.status_code == 302 and logged_in_as(client) == str(admin_user.pk)


def test_a_candidate_at_the_admin_login_is_refused_but_not_counted(client, candidate, settings):
    for _ in range(settings.MOCKLOOP_LOGIN_MAX_ATTEMPTS + 1):
        response = login(client, "candidate_a", PASSWORD, url=ADMIN_LOGIN)
        assert response.status_code == 200 and "staff account" in response.content.decode()
    assert login(client, "candidate_a", PASSWORD).status_code == 302  # not locked


def test_one_address_cannot_lock_everyone_out(client, candidate, settings):
    """Failures for made-up users from a shared (proxy) address never lock out a right password
    for an account that is not itself under attack."""
    for attempt in range(settings.MOCKLOOP_LOGIN_ADDRESS_SLOWDOWN_AFTER * 3):
        login(client, f"made-up-{attempt}", "wrong", address="10.3.0.1")
    response = login(client, "candidate_a", PASSWORD, address="10.3.0.1")
    assert response.status_code == 302 and logged_in_as(client) == str(candidate.pk)


def test_a_slowed_address_gets_one_try_per_account(client, candidate, other_candidate, settings):
    for attempt in range(settings.MOCKLOOP_LOGIN_ADDRESS_SLOWDOWN_AFTER):
        login(client, f"made-up-{attempt}", "wrong", address="10.4.0.1")
    # From the slowed address: the first wrong guess at an account is answered, the next is not.
    assert login(client, "candidate_b", "wrong", address="10.4.0.1").status_code == 200
    assert login(client, "candidate_b", PASSWORD, address="10.4.0.1").status_code == 429
    # Before the slowdown the same account would have had MAX_ATTEMPTS tries; other addresses
    # still do, and the right password from elsewhere logs in.
    assert login(client, "candidate_b", PASSWORD, address="10.4.0.2").status_code == 302


def test_the_client_address_is_read_through_trusted_proxies(client, candidate, settings):
    settings.MOCKLOOP_TRUSTED_PROXY_COUNT = 1
    settings.MOCKLOOP_LOGIN_ADDRESS_SLOWDOWN_AFTER = 2
    for attempt in range(2):
        login(client, f"made-up-{attempt}", "wrong", address="172.16.0.1",
              HTTP_X_FORWARDED_FOR=f"1.1.1.1, 203.0.113.{attempt}")
    login(client, "candidate_a", "wrong", address="172.16.0.1",
          HTTP_X_FORWARDED_FOR="203.0.113.50")
    # 203.0.113.50 is not slowed (its own count is 1), though every request came from the proxy.
    assert login(client, "candidate_a", "still wrong", address="172.16.0.1",
                 HTTP_X_FORWARDED_FOR="203.0.113.50").status_code == 200
    # A forged leftmost entry does not change who the proxy says the client is.
    for attempt in range(2):
        login(client, f"other-{attempt}", "wrong", address="172.16.0.1",
              HTTP_X_FORWARDED_FOR=f"9.9.9.{attempt}, 203.0.113.60")
    login(client, "candidate_a", "wrong", address="172.16.0.1",
          HTTP_X_FORWARDED_FOR="1.2.3.4, 203.0.113.60")
    assert login(client, "candidate_a", PASSWORD, address="172.16.0.1",
                 HTTP_X_FORWARDED_FOR="5.6.7.8, 203.0.113.60").status_code == 429


def test_forwarded_for_is_ignored_by_default(client, candidate, settings):
    assert settings.MOCKLOOP_TRUSTED_PROXY_COUNT == 0
    settings.MOCKLOOP_LOGIN_ADDRESS_SLOWDOWN_AFTER = 2
    for attempt in range(2):  # a forged header per request must not dodge the address count
        login(client, f"made-up-{attempt}", "wrong", address="10.5.0.1",
              HTTP_X_FORWARDED_FOR=f"198.51.100.{attempt}")
    login(client, "candidate_a", "wrong", address="10.5.0.1",
          HTTP_X_FORWARDED_FOR="198.51.100.77")
    assert login(client, "candidate_a", PASSWORD, address="10.5.0.1",
                 HTTP_X_FORWARDED_FOR="198.51.100.78").status_code == 429


def dead_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@pytest.fixture
def cache_down(settings):
    settings.CACHES = {"default": {
        "BACKEND": "django.core.cache.backends.redis.RedisCache",
        "LOCATION": f"redis://127.0.0.1:{dead_port()}/0"}}


def test_logins_work_when_the_cache_is_down(client, candidate, cache_down, caplog):
    from django.core.cache import cache

    with pytest.raises(Exception):  # noqa: B017, PT011 - the cache really is unreachable
        cache.get("anything")
    assert login(client, "candidate_a", "wrong").status_code == 200
    response = login(client, "candidate_a", PASSWORD)
    assert response.status_code == 302 and logged_in_as(client) == str(candidate.pk)
    assert "Throttle cache unreachable" in caplog.text


def test_password_change_is_throttled(client, candidate, settings):
    client.force_login(candidate)
    url = reverse("password_change")

    def change(old):
        return client.post(url, {"old_password": old, "new_password1": "another-long-phrase-77",
                                 "new_password2": "another-long-phrase-77"})

    statuses = [change(f"wrong-{n}").status_code for n in range(7)]
    limit = settings.MOCKLOOP_LOGIN_MAX_ATTEMPTS
    assert statuses == [200] * limit + [429] * (7 - limit)
    response = change(PASSWORD)
    assert response.status_code == 429 and "Too many failed attempts" in response.content.decode()
    candidate.refresh_from_db()
    assert candidate.check_password(PASSWORD)
    # The same account counter guards the login.
    client.logout()
    assert login(client, "candidate_a", PASSWORD).status_code == 429


def test_admin_password_change_is_throttled_too(client, admin_user, settings):
    client.force_login(admin_user)
    url = reverse("admin:password_change")
    statuses = [client.post(url, {"old_password": f"wrong-{n}",
                                  "new_password1": "another-long-phrase-77",
                                  "new_password2": "another-long-phrase-77"}).status_code
                for n in range(settings.MOCKLOOP_LOGIN_MAX_ATTEMPTS + 1)]
    assert statuses[-1] == 429 and set(statuses[:-1]) == {200}
    response = client.post(url, {"old_password": PASSWORD,
                                 "new_password1": "another-long-phrase-77",
                                 "new_password2": "another-long-phrase-77"})
    assert response.status_code == 429
    admin_user.refresh_from_db()
    assert admin_user.check_password(PASSWORD)


def test_sign_up_is_rate_limited_per_address(client, settings):
    settings.MOCKLOOP_SIGNUP_MAX_PER_ADDRESS = 3
    url = reverse("interviews:signup")
    for n in range(3):
        client.post(url, {"username": f"user{n}", "password1": "a-long-unusual-phrase-42",
                          "password2": "a-long-unusual-phrase-42"}, REMOTE_ADDR="10.6.0.1")
        client.logout()
    response = client.post(url, {"username": "user9", "password1": "a-long-unusual-phrase-42",
                                 "password2": "a-long-unusual-phrase-42"}, REMOTE_ADDR="10.6.0.1")
    assert response.status_code == 429 and "Too many sign-ups" in response.content.decode()
    assert not get_user_model().objects.filter(username="user9").exists()
    other = client.post(url, {"username": "user9", "password1": "a-long-unusual-phrase-42",
                              "password2": "a-long-unusual-phrase-42"}, REMOTE_ADDR="10.6.0.2")
    assert other.status_code == 302


def test_password_reset_requests_are_throttled(client, candidate, settings):
    candidate.email = "a@example.com"
    candidate.save()
    url = reverse("password_reset")
    limit = settings.MOCKLOOP_PASSWORD_RESET_MAX_REQUESTS
    statuses = [client.post(url, {"email": "a@example.com"}, REMOTE_ADDR=f"10.7.0.{n}")
                .status_code for n in range(limit + 2)]
    assert statuses == [302] * limit + [429] * 2
    assert len(mail.outbox) == limit


def test_password_reset_page_is_the_same_whether_the_address_exists(client, candidate):
    candidate.email = "a@example.com"
    candidate.save()
    url = reverse("password_reset")
    known = client.post(url, {"email": "a@example.com"}, follow=True)
    unknown = client.post(url, {"email": "nobody@example.com"}, follow=True)
    assert known.redirect_chain == unknown.redirect_chain
    def page(response):  # the CSRF token is masked afresh on every response
        return re.sub(r'"x-csrftoken": "[^"]+"', "", response.content.decode())

    assert page(known) == page(unknown) and "Check your e-mail" in page(known)
    assert len(mail.outbox) == 1 and mail.outbox[0].to == ["a@example.com"]


def test_login_page_links_to_password_reset(client):
    html = client.get(reverse("login")).content.decode()
    assert f'href="{reverse("password_reset")}">Forgot password?</a>' in html
