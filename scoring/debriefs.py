"""Debriefs that converge: a version written while scores were missing says so, and the late
score writes the next version.

`debrief_build` (scoring.reports) waits a while for pending scores, then writes the report
without them. After each build `debrief_mark_provisional` records which questions the report
had no score for; after each score `debrief_converge` compares the loop's latest report with
the answers as they are now and requests a new version as soon as one of those questions has
its score. The sweep calls `debrief_converge` for every provisional debrief, so a lost trigger
(a worker killed between the score and the check) is covered too. The comparison is with the
stored report, not with a flag set at one moment, so a score landing during a build is never
missed.
"""

from __future__ import annotations

from typing import Any

from django.db import transaction

from interviews.models import Answer, Loop

from .models import Debrief
from .reports import debrief_request

PENDING = (Answer.ScoringStatus.QUEUED, Answer.ScoringStatus.SCORING)


def _unscored_in_report(report: dict[str, Any]) -> set[int]:
    """Positions the report had no score for: an answer not scored, or a follow-up whose
    score is not in yet."""
    positions = set()
    for question in report.get("questions", ()):
        initial_missing = question.get("answered") and not question.get("scored")
        follow_up_missing = (question.get("follow_up_text")
                             and question.get("follow_up_total") is None)
        if initial_missing or follow_up_missing:
            positions.add(int(question["position"]))
    return positions


def _statuses(loop_id: int, positions: set[int]) -> dict[int, set[str]]:
    rows = Answer.objects.filter(loop_question__loop_id=loop_id,
                                 loop_question__position__in=positions).values_list(
        "loop_question__position", "scoring_status")
    found: dict[int, set[str]] = {}
    for position, status in rows:
        found.setdefault(position, set()).add(status)
    return found


def _late_positions(report: dict[str, Any], statuses: dict[int, set[str]]) -> list[int]:
    """Questions the report had no score for whose answers are all scored now."""
    return sorted(p for p in _unscored_in_report(report)
                  if statuses.get(p) and statuses[p] <= {Answer.ScoringStatus.SCORED})


def debrief_mark_provisional(*, debrief_id: int) -> Debrief | None:
    """After a build: mark the version provisional if some of its questions are still being
    scored, then converge at once (the score may have landed while the report was written)."""
    debrief = Debrief.objects.filter(pk=debrief_id, status=Debrief.Status.READY).first()
    if debrief is None:
        return None
    positions = _unscored_in_report(debrief.report or {})
    statuses = _statuses(debrief.loop_id, positions)
    pending = sorted(p for p in positions if statuses.get(p, set()) & set(PENDING))
    if pending:
        Debrief.objects.filter(pk=debrief.pk).update(provisional=True, pending_questions=pending)
    if positions:
        debrief_converge(loop_id=debrief.loop_id)
    return debrief


def debrief_converge(*, loop_id: int) -> Debrief | None:
    """Request the next version if the latest report lacks a score that exists now.

    Returns the new version, or None. A latest version still pending builds from the current
    scores anyway; a failed one (no score at all when written) is rewritten once any arrives.
    """
    with transaction.atomic():
        loop = Loop.objects.select_for_update().filter(pk=loop_id,
                                                       status=Loop.Status.FINISHED).first()
        if loop is None:
            return None
        latest = Debrief.objects.filter(loop_id=loop_id).order_by("-version").first()
        if latest is None or latest.status == Debrief.Status.PENDING:
            return None
        if latest.status == Debrief.Status.FAILED:
            scored = Answer.objects.filter(loop_question__loop_id=loop_id,
                                           scoring_status=Answer.ScoringStatus.SCORED).exists()
            return debrief_request(loop=loop, reason="Scores arrived") if scored else None
        report = latest.report or {}
        positions = _unscored_in_report(report)
        if not positions:
            return None
        statuses = _statuses(loop_id, positions)
        late = _late_positions(report, statuses)
        if late:
            Debrief.objects.filter(pk=latest.pk).update(provisional=False)
            names = ", ".join(f"Q{p}" for p in late)
            return debrief_request(loop=loop, reason=f"Late score for {names}")
        still_pending = sorted(p for p in positions if statuses.get(p, set()) & set(PENDING))
        if latest.provisional and not still_pending:
            # Whatever was pending ended without a score (failed for good): final as it is.
            Debrief.objects.filter(pk=latest.pk).update(provisional=False)
        elif still_pending != list(latest.pending_questions or []) and latest.provisional:
            Debrief.objects.filter(pk=latest.pk).update(pending_questions=still_pending)
    return None


def debrief_converge_for_answer(*, answer_id: int) -> Debrief | None:
    """After an answer's score: converge its loop's debrief (no-op for loops in progress)."""
    loop_id = (Answer.objects.filter(pk=answer_id, loop_question__loop__status=Loop.Status.FINISHED)
               .values_list("loop_question__loop_id", flat=True).first())
    return debrief_converge(loop_id=loop_id) if loop_id is not None else None


def provisional_sweep() -> list[int]:
    """Converge every provisional debrief (covers a trigger lost with a killed worker)."""
    loop_ids = list(Debrief.objects.filter(status=Debrief.Status.READY, provisional=True)
                    .values_list("loop_id", flat=True).distinct())
    return [d.pk for loop_id in loop_ids if (d := debrief_converge(loop_id=loop_id))]
