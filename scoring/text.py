"""Small text helpers for stored and shown texts: fit a column, agree with a number, say when."""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any

from django.utils import timezone
from django.utils.timesince import timesince


def fit(text: str, model: Any = None, field: str = "", *, limit: int | None = None) -> str:
    """`text` cut to the column's max_length (or `limit`), ending in an ellipsis when cut, so
    a long name or title never makes a save fail."""
    if limit is None:
        limit = model._meta.get_field(field).max_length
    if limit is None or len(text) <= limit:
        return text
    return text[: max(0, limit - 1)].rstrip() + "\u2026"


def plural(count: int, word: str, many: str = "") -> str:
    """'1 problem', '2 problems'."""
    return f"{count} {word if count == 1 else (many or word + 's')}"


JUST_NOW = timedelta(minutes=1)


def ago(when: datetime | None, now: datetime | None = None) -> str:
    """'just now' under a minute, else Django's '3 minutes ago' ('0 minutes ago' never)."""
    if when is None:
        return ""
    now = now or timezone.now()
    if now - when < JUST_NOW:
        return "just now"
    return f"{timesince(when, now)} ago"
