"""gunicorn settings (gunicorn config.wsgi -c config/gunicorn.py), from the environment."""

from __future__ import annotations

import os

bind = f"{os.environ.get('HOST', '127.0.0.1')}:{os.environ.get('PORT', '8000')}"
workers = int(os.environ.get("WEB_CONCURRENCY", "3"))
timeout = 30
graceful_timeout = 20
accesslog = "-"


def child_exit(server, worker) -> None:  # noqa: ANN001 - gunicorn's hook signature
    """Prometheus multiprocess mode: drop a dead worker's live gauges."""
    if os.environ.get("PROMETHEUS_MULTIPROC_DIR"):
        from prometheus_client import multiprocess

        multiprocess.mark_process_dead(worker.pid)
