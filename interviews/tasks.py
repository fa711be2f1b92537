"""Periodic housekeeping for loops (thin: the service does the work)."""

from __future__ import annotations

from celery import shared_task

from . import services


@shared_task(soft_time_limit=60, time_limit=90)
def expire_idle_loops() -> int:
    return services.loop_expire_idle()
