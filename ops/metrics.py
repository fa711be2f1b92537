"""Prometheus metrics (prometheus-client, used directly).

Two kinds:
- Events counted where they happen (request latency by view, submit-to-score, failures by
  reason). Under gunicorn and Celery prefork these live in several processes: set
  PROMETHEUS_MULTIPROC_DIR (one empty directory shared by web and workers on a host) and the
  client writes them to files that /metrics aggregates.
- State read from the database and broker at scrape time (answers by scoring status, queue
  depth, debrief age), by `StateCollector`, so every process reports the same truth and
  nothing drifts.
"""

from __future__ import annotations

import logging
import os
import time
from collections.abc import Iterator
from typing import Any

from prometheus_client import (
    CollectorRegistry,
    Counter,
    Histogram,
    disable_created_metrics,
    generate_latest,
    multiprocess,
)
from prometheus_client.core import GaugeMetricFamily
from prometheus_client.registry import REGISTRY, Collector

logger = logging.getLogger(__name__)
disable_created_metrics()  # the *_created series double the output and no alert uses them

REQUEST_SECONDS = Histogram(
    "mockloop_request_seconds", "Time to answer a request, by view (url name).",
    ["view", "method", "status"],
    buckets=(0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0))
SUBMIT_TO_SCORE_SECONDS = Histogram(
    "mockloop_submit_to_score_seconds", "From an answer's submit to its stored score.",
    buckets=(0.1, 0.25, 0.5, 1.0, 2.0, 5.0, 10.0, 30.0, 60.0, 120.0, 300.0))
FAILURES = Counter(
    "mockloop_failures", "Failures by where they happened and why.", ["where", "reason"])


def record_failure(where: str, reason: str) -> None:
    FAILURES.labels(where=where, reason=reason[:60]).inc()


class StateCollector(Collector):
    """Gauges computed from the database and broker when Prometheus scrapes."""

    def collect(self) -> Iterator[GaugeMetricFamily]:
        up = GaugeMetricFamily("mockloop_state_up",
                               "1 if the database answered the state queries, else 0.")
        try:
            families = list(self._collect())
        except Exception as error:  # a scrape during an outage still returns the events
            logger.warning("Metrics state unavailable: %s", error)
            families = []
        up.add_metric([], 1.0 if families else 0.0)
        yield up
        yield from families

    def _collect(self) -> Iterator[GaugeMetricFamily]:
        from django.db.models import Count, Min
        from django.utils import timezone

        from interviews.models import Answer
        from scoring.models import Debrief

        from . import health

        answers = GaugeMetricFamily("mockloop_answers", "Answers by scoring status.",
                                    labels=["status"])
        counts = dict(Answer.objects.order_by().values_list("scoring_status")
                      .annotate(n=Count("pk")).values_list("scoring_status", "n"))
        for status in Answer.ScoringStatus.values:
            answers.add_metric([status], counts.get(status, 0))
        yield answers

        now = timezone.now()
        age = GaugeMetricFamily(
            "mockloop_debrief_age_seconds",
            "Age of the oldest debrief still being written (pending) and of the oldest "
            "provisional one (written while scores were missing); 0 when there is none.",
            labels=["state"])
        oldest_pending = Debrief.objects.filter(status=Debrief.Status.PENDING).aggregate(
            t=Min("created_at"))["t"]
        oldest_provisional = Debrief.objects.filter(
            status=Debrief.Status.READY, provisional=True).aggregate(t=Min("ready_at"))["t"]
        for state, started in (("pending", oldest_pending), ("provisional", oldest_provisional)):
            age.add_metric([state], (now - started).total_seconds() if started else 0.0)
        yield age

        depth = GaugeMetricFamily("mockloop_queue_depth",
                                  "Messages waiting in the Celery queue (-1: broker down).")
        depth.add_metric([], health.queue_depth())
        yield depth

        heartbeat = GaugeMetricFamily("mockloop_worker_heartbeat_age_seconds",
                                      "Seconds since a worker last ran the heartbeat task.")
        seen = health.heartbeat_seen()
        heartbeat.add_metric([], time.time() - seen if seen else float("inf"))
        yield heartbeat


def exposition() -> bytes:
    """The text Prometheus scrapes: events (all processes when multiprocess) + state."""
    registry = CollectorRegistry()
    if os.environ.get("PROMETHEUS_MULTIPROC_DIR"):
        multiprocess.MultiProcessCollector(registry)
        registry.register(StateCollector())
        return generate_latest(registry)
    registry.register(_Forward(REGISTRY))
    registry.register(StateCollector())
    return generate_latest(registry)


class _Forward(Collector):
    """The process's default registry, inside a registry of our own."""

    def __init__(self, source: Any) -> None:
        self.source = source

    def collect(self) -> Iterator[Any]:
        yield from self.source.collect()
