"""Role flags for the navigation: each role sees what it can do."""

from __future__ import annotations

from typing import Any

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
        cached = user.groups.filter(name=INTERVIEWER_GROUP).exists()
        user._is_interviewer = cached
    return cached
