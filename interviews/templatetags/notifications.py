"""`{% notifications_for user %}`: a user's unread notifications, with a mark-read form."""

from __future__ import annotations

from typing import Any

from django import template

from interviews.models import Notification
from scoring.text import ago as _ago

register = template.Library()
SHOWN = 5


@register.inclusion_tag("reviews/_notifications.html", takes_context=True)
def notifications_for(context: template.Context, user: Any) -> dict[str, Any]:
    if not getattr(user, "is_authenticated", False):
        return {"notifications": [], "unread": 0}
    unread = list(Notification.objects.filter(user=user, read_at__isnull=True)
                  .order_by("-created_at")[:SHOWN + 1])
    request = context.get("request")
    return {"notifications": unread[:SHOWN], "more": len(unread) > SHOWN,
            "csrf_token": context.get("csrf_token"),
            "next": request.get_full_path() if request is not None else ""}


@register.filter
def ago(value: Any) -> str:
    """'just now' under a minute (never '0 minutes ago'), else '3 minutes ago'."""
    return _ago(value)
