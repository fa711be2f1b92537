"""Thin Celery tasks: an id in, a service called. Status guards make reruns harmless.

Dependencies run one way: tasks import services, reports and debriefs; those send tasks by
name through scoring.enqueue and never import this module.
"""

from __future__ import annotations

from celery import shared_task
from django.db import InterfaceError, OperationalError

from . import debriefs, reports, services

TRANSIENT_ERRORS = (OperationalError, InterfaceError, ConnectionError, TimeoutError)


@shared_task(
    acks_late=True,
    autoretry_for=TRANSIENT_ERRORS,
    retry_backoff=2,
    retry_backoff_max=120,
    retry_jitter=True,
    max_retries=6,
    soft_time_limit=60,
    time_limit=90,
)
def score_answer(answer_id: int) -> None:
    services.answer_score(answer_id=answer_id)
    debriefs.debrief_converge_for_answer(answer_id=answer_id)


@shared_task(soft_time_limit=60, time_limit=90)
def sweep_stuck() -> int:
    return (len(services.scoring_sweep()) + len(services.debrief_sweep())
            + len(debriefs.provisional_sweep()))


# Waiting for scores is not an error: retry every few seconds until reports.SCORING_WAIT passes,
# after which debrief_build writes the report without the missing scores (marked provisional).
DEBRIEF_SCORES_RETRY_SECONDS = 3
DEBRIEF_SCORES_MAX_RETRIES = 100


@shared_task(
    bind=True,
    acks_late=True,
    autoretry_for=TRANSIENT_ERRORS,
    retry_backoff=2,
    retry_backoff_max=120,
    max_retries=6,
    soft_time_limit=60,
    time_limit=90,
)
def build_debrief(self, debrief_id: int) -> None:
    try:
        reports.debrief_build(debrief_id=debrief_id)
    except reports.ScoresPending as pending:
        # Own retry budget, above SCORING_WAIT / countdown: the wait itself is bounded by time.
        raise self.retry(exc=pending, countdown=DEBRIEF_SCORES_RETRY_SECONDS,
                         max_retries=DEBRIEF_SCORES_MAX_RETRIES) from None
    debriefs.debrief_mark_provisional(debrief_id=debrief_id)
