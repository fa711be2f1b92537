"""The one place the app sends Celery tasks from.

Services call `enqueue("scoring.tasks.score_answer", answer_id)`; nothing here imports the
task modules at import time, so the dependency runs one way: tasks -> services -> enqueue.

Sending is fast and never raises: the broker connection has a short connect timeout and
publishing does not retry (CELERY_TASK_PUBLISH_RETRY=False), because on the request path a
candidate waits for it. Every row that needs work keeps a status that says so, and the sweep
re-sends whatever did not get through.
"""

from __future__ import annotations

import logging
from importlib import import_module
from typing import Any

from celery import current_app
from django.db import transaction

from ops import metrics

logger = logging.getLogger(__name__)


def _task(name: str) -> Any:
    """The registered task object (importing its module on first use)."""
    tasks = current_app.tasks
    if name not in tasks:
        import_module(name.rpartition(".")[0])
    return tasks[name]


def enqueue(task_name: str, object_id: int) -> bool:
    """Send a task for one row now. With the broker down: log, count, return False."""
    task = _task(task_name)
    try:
        task.delay(object_id)
    except Exception as error:  # the row's status still says it is due; the sweep re-sends it
        metrics.record_failure("enqueue", type(error).__name__)
        logger.warning("Could not enqueue %s(%s); the sweep will retry: %s", task_name,
                       object_id, error)
        return False
    return True


def enqueue_on_commit(task_name: str, object_id: int) -> None:
    """Send the task once the current transaction commits (at once outside one)."""
    transaction.on_commit(lambda: enqueue(task_name, object_id))
