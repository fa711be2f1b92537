"""One throttle for every way in: site login, admin login, password change, sign-up, reset.

Policy (README, "Security"):
- Per account: MOCKLOOP_LOGIN_MAX_ATTEMPTS failures in MOCKLOOP_LOGIN_WINDOW_SECONDS lock that
  account, from every address, even with the right password, until the window ends.
- Per client address: after MOCKLOOP_LOGIN_ADDRESS_SLOWDOWN_AFTER failures in the window the
  address is *slowed*, never locked: from it, an account that already has a failure in the
  window gets no further tries until the window ends, so a guesser gets one try per account
  instead of five. An account with a clean record still logs in with its right password, so
  people sharing a proxy's address are not locked out by someone guessing at other accounts.
- Sign-up and password-reset requests are counted per address (and per e-mail for resets).
- The client address is REMOTE_ADDR, or with MOCKLOOP_TRUSTED_PROXY_COUNT = N > 0 the N-th
  X-Forwarded-For entry from the right (the one the outermost trusted proxy saw).
- The counters live in the cache (Redis in real deployments, shared by all processes). If the
  cache is unreachable the throttle fails open: the attempt is let through and the error logged,
  so an outage of Redis never turns into an outage of logins.
"""

from __future__ import annotations

import hashlib
import logging
from collections.abc import Iterable

from django.conf import settings
from django.core.cache import cache
from django.http import HttpRequest

logger = logging.getLogger(__name__)
PREFIX = "login-failures"


class Throttled(Exception):
    """Refused before the credentials were checked; `minutes` is how long to wait."""

    def __init__(self, minutes: int) -> None:
        super().__init__(minutes)
        self.minutes = minutes


def client_address(request: HttpRequest | None) -> str:
    if request is None:
        return "unknown"
    remote = request.META.get("REMOTE_ADDR") or "unknown"
    proxies = settings.MOCKLOOP_TRUSTED_PROXY_COUNT
    if proxies <= 0:
        return remote  # X-Forwarded-For is client-controlled unless a trusted proxy sets it
    hops = [hop.strip() for hop in request.META.get("HTTP_X_FORWARDED_FOR", "").split(",")]
    hops = [hop for hop in hops if hop]
    # Each trusted proxy appends the address it saw; entries left of those are forgeable.
    return hops[-proxies] if len(hops) >= proxies else remote


def _digest(value: str) -> str:
    return hashlib.sha256(value.strip().casefold().encode()).hexdigest()[:32]


def _account_key(username: str) -> str:
    return f"{PREFIX}:account:{_digest(username)}"


def _address_key(address: str) -> str:
    return f"{PREFIX}:address:{address}"


def _get_many(keys: Iterable[str]) -> dict[str, int] | None:
    try:
        return cache.get_many(list(keys))
    except Exception:  # any cache backend error: fail open
        logger.warning("Throttle cache unreachable; letting the attempt through", exc_info=True)
        return None


def _increment(keys: Iterable[str], window: int) -> None:
    try:
        for key in keys:
            # add() starts the window only once; incr() keeps its expiry.
            if not cache.add(key, 1, timeout=window):
                try:
                    cache.incr(key)
                except ValueError:  # expired between add and incr
                    cache.add(key, 1, timeout=window)
    except Exception:
        logger.warning("Throttle cache unreachable; attempt not counted", exc_info=True)


def _minutes(window: int) -> int:
    return max(1, round(window / 60))


def lockout_minutes() -> int:
    return _minutes(settings.MOCKLOOP_LOGIN_WINDOW_SECONDS)


def login_check(*, username: str, address: str) -> None:
    """Raise Throttled if this account may not be tried now from this address."""
    account, by_address = _account_key(username), _address_key(address)
    counts = _get_many((account, by_address))
    if counts is None:
        return
    failures = counts.get(account, 0)
    if failures >= settings.MOCKLOOP_LOGIN_MAX_ATTEMPTS:
        raise Throttled(lockout_minutes())
    slowed = counts.get(by_address, 0) >= settings.MOCKLOOP_LOGIN_ADDRESS_SLOWDOWN_AFTER
    if slowed and failures > 0:
        raise Throttled(lockout_minutes())


def login_failed(*, username: str, address: str) -> None:
    _increment((_account_key(username), _address_key(address)),
               settings.MOCKLOOP_LOGIN_WINDOW_SECONDS)


def login_succeeded(*, username: str, address: str) -> None:
    # The account's own counter resets; the address keeps counting guesses at other accounts.
    try:
        cache.delete(_account_key(username))
    except Exception:
        logger.warning("Throttle cache unreachable; counter not reset", exc_info=True)


def rate_limit(*, action: str, keys: Iterable[str], limit: int, window: int) -> None:
    """Count one `action` for each key; raise Throttled once any key is over `limit`."""
    scoped = [f"rate:{action}:{_digest(key)}" for key in keys]
    counts = _get_many(scoped)
    if counts is None:
        return
    if any(counts.get(key, 0) >= limit for key in scoped):
        raise Throttled(_minutes(window))
    _increment(scoped, window)
