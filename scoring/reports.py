"""Debrief reports: request a new version on commit, build it in a task.

(The lead wrote this contract; the debrief helper owns and fills in `debrief_build`.)
"""

from __future__ import annotations

from django.db import transaction
from django.db.models import Max

from interviews.models import Loop

from .models import Debrief


def debrief_request(*, loop: Loop, reason: str = "Loop finished") -> Debrief:
    """Create the next debrief version (old versions are kept) and build it after commit."""
    from .tasks import build_debrief

    with transaction.atomic():
        Loop.objects.select_for_update().filter(pk=loop.pk).first()
        latest = loop.debriefs.aggregate(latest=Max("version"))["latest"] or 0
        debrief = Debrief.objects.create(loop=loop, version=latest + 1, reason=reason)
    transaction.on_commit(lambda: build_debrief.delay(debrief.pk))
    return debrief


def debrief_build(*, debrief_id: int) -> Debrief | None:
    """Write the report for one debrief version. Safe to run twice (status guard)."""
    raise NotImplementedError
