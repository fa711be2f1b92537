"""Scoring pipeline: enqueue on commit, score once per answer, sweep up what got stuck."""

from __future__ import annotations

import logging
import time
from typing import Any

from django.conf import settings
from django.db import transaction
from django.utils import timezone

from interviews.models import Answer
from ops import metrics

from .calibration_store import calibration_record_answer
from .engines.base import Engine, QuestionSpec, get_engine, load_engine_modules
from .engines.followup import follow_up_text
from .enqueue import enqueue, enqueue_on_commit
from .models import Debrief, ScoreResult

logger = logging.getLogger(__name__)

SCORE_TASK = "scoring.tasks.score_answer"
DEBRIEF_TASK = "scoring.tasks.build_debrief"


def answer_enqueue_scoring(*, answer: Answer) -> None:
    """Queue scoring once the answer's transaction commits (in-process with no broker)."""
    enqueue_on_commit(SCORE_TASK, answer.pk)


def _gave_up(attempts: int) -> str:
    return (f"Scoring failed {attempts} times, the most allowed for one answer; an "
            "interviewer can still review it.")


def scoring_text(answer: Answer) -> str:
    """A follow-up is scored together with the answer it follows, so it can recover credit,
    but not for what the pushback itself stated (scoring.engines.followup)."""
    if answer.kind == Answer.Kind.FOLLOW_UP:
        initial = (answer.loop_question.answers.select_related("score")
                   .filter(kind=Answer.Kind.INITIAL).first())
        if initial is not None:
            score = getattr(initial, "score", None)
            pushback = str(((score.feedback if score else None) or {}).get("pushback") or "")
            return follow_up_text(initial.text, answer.text, pushback)
    return answer.text


def configured_engine() -> Engine:
    """The engine named in settings (engines are loaded once per worker process)."""
    load_engine_modules(settings.MOCKLOOP_SCORING_ENGINE_MODULES)
    return get_engine(settings.MOCKLOOP_SCORING_ENGINE)


def answer_score(*, answer_id: int) -> ScoreResult | None:
    """Score one answer. Safe to run twice: the status guard and the one-to-one score row
    make a rerun a no-op once a score exists."""
    with transaction.atomic():
        answer = (
            Answer.objects.select_for_update()
            .select_related("loop_question")
            .filter(pk=answer_id)
            .first()
        )
        if answer is None:
            return None
        if answer.scoring_status == Answer.ScoringStatus.SCORED:
            return ScoreResult.objects.filter(answer=answer).first()
        if answer.scoring_attempts >= settings.MOCKLOOP_SCORING_MAX_ATTEMPTS:
            # A poison answer (or one a crash keeps killing) stops here, automatic or manual.
            answer_mark_failed(answer_id=answer_id, reason=_gave_up(answer.scoring_attempts))
            metrics.record_failure("scoring", "attempts_exhausted")
            return None
        answer.scoring_status = Answer.ScoringStatus.SCORING
        answer.scoring_attempts += 1
        answer.status_changed_at = timezone.now()
        answer.save(update_fields=["scoring_status", "scoring_attempts", "status_changed_at"])

    started = time.perf_counter()
    try:
        spec = QuestionSpec.from_dict(answer.loop_question.snapshot["spec"])
        outcome = configured_engine().score(spec, scoring_text(answer))
    except Exception as error:
        answer_mark_failed(answer_id=answer_id, reason=f"{type(error).__name__}: {error}")
        metrics.record_failure("scoring", type(error).__name__)
        raise
    duration_ms = (time.perf_counter() - started) * 1000

    with transaction.atomic():
        answer = Answer.objects.select_for_update().get(pk=answer_id)
        existing = ScoreResult.objects.filter(answer=answer).first()
        if existing is not None:  # another delivery got there first
            return existing
        data = outcome.to_dict()
        result = ScoreResult.objects.create(
            answer=answer,
            engine=outcome.engine,
            engine_version=outcome.engine_version,
            rubric_version=outcome.rubric_version,
            total=round(max(0.0, min(100.0, outcome.total)), 1),
            rating=outcome.rating,
            criteria=data["criteria"],
            numbers=data["numbers"],
            feedback=data["feedback"],
            duration_ms=duration_ms,
        )
        answer.scoring_status = Answer.ScoringStatus.SCORED
        answer.scoring_error = ""
        answer.status_changed_at = timezone.now()
        answer.save(update_fields=["scoring_status", "scoring_error", "status_changed_at"])
        calibration_record_answer(answer_id=answer_id)  # scorecards that came before the score
        waited = (result.created_at - answer.submitted_at).total_seconds()
        transaction.on_commit(lambda: metrics.SUBMIT_TO_SCORE_SECONDS.observe(max(0.0, waited)))
    return result


def answer_mark_failed(*, answer_id: int, reason: str) -> None:
    Answer.objects.filter(pk=answer_id).exclude(
        scoring_status=Answer.ScoringStatus.SCORED
    ).update(
        scoring_status=Answer.ScoringStatus.FAILED,
        scoring_error=reason[:1000],
        status_changed_at=timezone.now(),
    )


def scoring_sweep(*, older_than: Any = None) -> list[int]:
    """Re-enqueue answers stuck in queued/scoring (lost message, killed worker, Redis restart).
    Answers that used up their attempts are marked failed instead of re-sent."""
    if older_than is None:
        older_than = settings.MOCKLOOP_SCORING_STUCK_AFTER
    now = timezone.now()
    due = Answer.objects.filter(
        scoring_status__in=[Answer.ScoringStatus.QUEUED, Answer.ScoringStatus.SCORING],
        status_changed_at__lt=now - older_than)
    limit = settings.MOCKLOOP_SCORING_MAX_ATTEMPTS
    for answer_id, attempts in due.filter(scoring_attempts__gte=limit).values_list(
            "pk", "scoring_attempts"):
        answer_mark_failed(answer_id=answer_id, reason=_gave_up(attempts))
        metrics.record_failure("scoring", "attempts_exhausted")
    stuck = list(due.filter(scoring_attempts__lt=limit).values_list("pk", flat=True))
    if stuck:
        # Touch them so the next sweep does not resend while these are in flight.
        Answer.objects.filter(pk__in=stuck).update(status_changed_at=now)
    for answer_id in stuck:
        enqueue(SCORE_TASK, answer_id)
    return stuck


def debrief_sweep(*, older_than: Any = None) -> list[int]:
    """Re-send debriefs still pending (lost message, broker down when the loop finished)."""
    if older_than is None:
        older_than = settings.MOCKLOOP_SCORING_STUCK_AFTER
    cutoff = timezone.now() - older_than
    pending = list(Debrief.objects.filter(status=Debrief.Status.PENDING, created_at__lt=cutoff)
                   .values_list("pk", flat=True))
    for debrief_id in pending:
        enqueue(DEBRIEF_TASK, debrief_id)
    return pending


def answer_retry_scoring(*, answer: Answer) -> bool:
    """Put a failed answer back in the queue (the candidate's 'retry' button). Refused, with
    the reason stored on the answer, once it has used MOCKLOOP_SCORING_MAX_ATTEMPTS."""
    attempts = Answer.objects.filter(pk=answer.pk).values_list(
        "scoring_attempts", flat=True).first()
    if attempts is None:
        return False
    if attempts >= settings.MOCKLOOP_SCORING_MAX_ATTEMPTS:
        Answer.objects.filter(pk=answer.pk, scoring_status=Answer.ScoringStatus.FAILED).update(
            scoring_error=_gave_up(attempts))
        return False
    updated = Answer.objects.filter(
        pk=answer.pk, scoring_status=Answer.ScoringStatus.FAILED).update(
        scoring_status=Answer.ScoringStatus.QUEUED, scoring_error="",
        status_changed_at=timezone.now())
    if updated:
        answer_enqueue_scoring(answer=answer)
    return bool(updated)

