"""The worker's heartbeat (beat sends it every HEARTBEAT_EVERY seconds)."""

from __future__ import annotations

from celery import shared_task

from . import health


@shared_task(ignore_result=True, expires=health.HEARTBEAT_EVERY * 2)
def heartbeat() -> None:
    health.heartbeat_record()
