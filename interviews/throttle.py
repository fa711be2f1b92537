"""Login throttling: failed attempts counted per account and per client address in the cache.

The cache is Redis in every real deployment, so the counters are shared by all web processes.
A window starts at the first failure and lasts MOCKLOOP_LOGIN_WINDOW_SECONDS; once either
counter reaches MOCKLOOP_LOGIN_MAX_ATTEMPTS, logins for that account or from that address are
refused (even with the right password) until the window ends.
"""

from __future__ import annotations

import hashlib

from django.conf import settings
from django.core.cache import cache
from django.http import HttpRequest

PREFIX = "login-failures"


def client_address(request: HttpRequest | None) -> str:
    # REMOTE_ADDR only: X-Forwarded-For is client-controlled unless a trusted proxy sets it.
    if request is None:
        return "unknown"
    return request.META.get("REMOTE_ADDR") or "unknown"


def _keys(username: str, address: str) -> tuple[str, str]:
    account = hashlib.sha256(username.strip().casefold().encode()).hexdigest()[:32]
    return f"{PREFIX}:account:{account}", f"{PREFIX}:address:{address}"


def is_locked(*, username: str, address: str) -> bool:
    limit = settings.MOCKLOOP_LOGIN_MAX_ATTEMPTS
    counts = cache.get_many(_keys(username, address))
    return any(count >= limit for count in counts.values())


def record_failure(*, username: str, address: str) -> None:
    window = settings.MOCKLOOP_LOGIN_WINDOW_SECONDS
    for key in _keys(username, address):
        # add() starts the window only once; incr() keeps its expiry.
        if not cache.add(key, 1, timeout=window):
            try:
                cache.incr(key)
            except ValueError:  # expired between add and incr
                cache.add(key, 1, timeout=window)


def record_success(*, username: str, address: str) -> None:
    # The account's own counter resets; the address keeps counting guesses at other accounts.
    cache.delete(_keys(username, address)[0])


def lockout_minutes() -> int:
    return max(1, round(settings.MOCKLOOP_LOGIN_WINDOW_SECONDS / 60))
