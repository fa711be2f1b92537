"""What /readyz checks: the database, the broker, and a worker's recent heartbeat.

Each check is bounded by a short timeout so a dead dependency makes readiness fail fast
instead of hanging the probe. The heartbeat is a timestamp a worker writes to the broker's
Redis every HEARTBEAT_EVERY seconds (a beat-scheduled task), so a fresh one proves that beat
sends, the broker carries and a worker consumes.
"""

from __future__ import annotations

import logging
import time
from dataclasses import dataclass

import redis
from django.conf import settings
from django.db import connection

logger = logging.getLogger(__name__)

HEARTBEAT_KEY = "mockloop:worker-heartbeat"
HEARTBEAT_EVERY = 15  # seconds, the beat schedule's interval
HEARTBEAT_STALE_AFTER = 90  # seconds without one: no worker is consuming
TIMEOUT = 1.0  # seconds, for each dependency check
QUEUE = "celery"


@dataclass(frozen=True)
class Check:
    name: str
    ok: bool
    detail: str = ""


def _broker() -> redis.Redis:
    return redis.Redis.from_url(settings.CELERY_BROKER_URL, socket_connect_timeout=TIMEOUT,
                                socket_timeout=TIMEOUT)


def uses_broker() -> bool:
    return bool(settings.CELERY_BROKER_URL) and not settings.CELERY_TASK_ALWAYS_EAGER


def check_database() -> Check:
    try:
        with connection.cursor() as cursor:
            cursor.execute("SELECT 1")
        return Check("database", True)
    except Exception as error:  # any failure means not ready; say which
        return Check("database", False, f"{type(error).__name__}: {error}"[:200])


def check_broker() -> Check:
    if not uses_broker():
        return Check("broker", True, "tasks run in-process (no broker configured)")
    try:
        _broker().ping()
        return Check("broker", True)
    except redis.RedisError as error:
        return Check("broker", False, f"{type(error).__name__}: {error}"[:200])


def check_worker(now: float | None = None) -> Check:
    if not uses_broker():
        return Check("worker", True, "tasks run in-process (no worker needed)")
    seen = heartbeat_seen()
    if seen is None:
        return Check("worker", False, "no worker heartbeat seen")
    age = (now or time.time()) - seen
    if age > HEARTBEAT_STALE_AFTER:
        return Check("worker", False, f"last worker heartbeat {age:.0f} s ago")
    return Check("worker", True, f"heartbeat {age:.0f} s ago")


def heartbeat_record(now: float | None = None) -> None:
    """Called by the heartbeat task, in a worker."""
    if uses_broker():
        _broker().set(HEARTBEAT_KEY, f"{now or time.time():.3f}", ex=HEARTBEAT_STALE_AFTER * 10)


def heartbeat_seen() -> float | None:
    if not uses_broker():
        return None
    try:
        value = _broker().get(HEARTBEAT_KEY)
    except redis.RedisError:
        return None
    return float(value) if value else None


def queue_depth() -> int:
    """Messages waiting in the default queue (kombu keeps one Redis list per priority step)."""
    if not uses_broker():
        return 0
    try:
        client = _broker()
        keys = [QUEUE, *client.scan_iter(match=f"{QUEUE}\x06\x16*", count=100)]
        return sum(int(client.llen(key)) for key in keys)
    except redis.RedisError:
        return -1
