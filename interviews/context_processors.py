"""Role flags for the navigation: each role sees what it can do."""

from __future__ import annotations

import contextlib
from typing import Any

from django.core.cache import cache
from django.http import HttpRequest

INTERVIEWER_GROUP = "Interviewers"


def roles(request: HttpRequest) -> dict[str, Any]:
    user = getattr(request, "user", None)
    if user is None or not user.is_authenticated:
        return {"is_interviewer": False, "is_admin": False}
    return {"is_interviewer": is_interviewer(user), "is_admin": user.is_staff}


def is_interviewer(user: Any) -> bool:
    if not user.is_authenticated:
        return False
    if user.is_staff:
        return True
    cached = getattr(user, "_is_interviewer", None)
    if cached is None:
        cached = _cached_membership(user)
        user._is_interviewer = cached
    return cached


# Membership is read on every page (navigation, access checks): keep it in the cache rather
# than query the groups each request. Changes take effect at once (the cache key is dropped
# when the user's groups change) or within the TTL when the group itself is edited.
MEMBERSHIP_TTL_SECONDS = 300


def _membership_key(user_id: int) -> str:
    return f"roles:interviewer:{user_id}"


def _cached_membership(user: Any) -> bool:
    try:
        cached = cache.get(_membership_key(user.pk))
    except Exception:  # cache down: the database answers, as before
        cached = None
    if cached is not None:
        return bool(cached)
    member = user.groups.filter(name=INTERVIEWER_GROUP).exists()
    with contextlib.suppress(Exception):
        cache.set(_membership_key(user.pk), int(member), MEMBERSHIP_TTL_SECONDS)
    return member


def forget_membership(user_id: int) -> None:
    with contextlib.suppress(Exception):
        cache.delete(_membership_key(user_id))
