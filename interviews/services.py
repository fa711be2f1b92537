"""What candidates do with loops: start one, see a question, save drafts, answer, finish.

Views stay thin and call these; every function is keyword-only and atomic.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from django.conf import settings
from django.core.exceptions import ValidationError
from django.db import IntegrityError, transaction
from django.db.models import Count, Exists, OuterRef, Prefetch
from django.utils import timezone

from scoring.services import answer_enqueue_scoring
from scoring.specs import question_spec_from_model

from .models import Answer, Bank, Loop, LoopQuestion, Question, RubricCriterion, Topic

TOPIC_DRILL_SIZE = 3
CRITERION_DRILL_SIZE = 3
# Network latency between the countdown hitting zero and the POST arriving is not overtime.
OVERTIME_GRACE = timedelta(seconds=2)
# Drafts are kept even when over the answer limit (nothing typed is lost), within reason.
DRAFT_MAX_CHARS = 100_000


class LoopClosed(Exception):
    """The loop is finished or expired: it takes no more drafts or answers."""


@dataclass(frozen=True)
class SubmitResult:
    answer: Answer
    created: bool  # False: a double submit; the first answer was kept


# --- Starting ------------------------------------------------------------------------------


def _questions_with_criteria() -> Any:
    return Question.objects.prefetch_related(
        Prefetch("criteria", queryset=RubricCriterion.objects.order_by("order", "id"))
    ).select_related("topic")


def _seen_counts(*, candidate: Any, bank: Bank) -> Counter[int]:
    rows = (
        LoopQuestion.objects.filter(loop__candidate=candidate, loop__bank=bank,
                                    question__isnull=False)
        .values("question_id")
        .annotate(n=Count("id"))
    )
    return Counter({row["question_id"]: row["n"] for row in rows})


def _pick(pool: Sequence[Question], seen: Counter[int], count: int, rng: random.Random
          ) -> list[Question]:
    """Least-seen first, random among equals: nobody sees a question twice until the pool
    runs out, and then the cycle starts again."""
    shuffled = list(pool)
    rng.shuffle(shuffled)
    shuffled.sort(key=lambda question: seen[question.pk])  # stable: keeps the shuffle for ties
    return shuffled[:count]


def snapshot_for(question: Question) -> dict[str, Any]:
    """Everything the loop needs later, frozen: bank edits never change a loop or debrief."""
    return {
        "prompt": question.prompt,
        "company": question.company,
        "team": question.team,
        "when": question.when,
        "scenario": question.scenario,
        "constraints": list(question.constraints),
        "difficulty": question.difficulty,
        "difficulty_label": question.get_difficulty_display(),
        "time_limit_seconds": question.time_limit_seconds,
        "model_answer": question.model_answer,
        "pushback": list(question.pushback),
        "mistakes": list(question.mistakes),
        "facts": list(question.facts),
        "topic_slug": question.topic.slug,
        "topic_title": question.topic.title,
        "question_slug": question.slug,
        "spec": question_spec_from_model(question).to_dict(),
    }


def loop_start(
    *,
    candidate: Any,
    bank: Bank,
    format: str,
    topic: Topic | None = None,
    criterion: str = "",
    rng: random.Random | None = None,
) -> Loop:
    """Choose the questions and freeze them into the loop. Raises ValidationError when the
    bank cannot supply the format (unpublished bank, no questions, topic from elsewhere).

    A criterion drill (`format="drill"`, `criterion` = a rubric criterion's label) is a loop
    of the questions whose rubrics train that criterion, never-seen ones first."""
    rng = rng or random.Random()  # noqa: S311 - question order, not security
    if not bank.is_published:
        raise ValidationError("That bank is not published.")
    if topic is not None and topic.bank_id != bank.pk:
        raise ValidationError("That topic is not in this bank.")
    questions = list(_questions_with_criteria().filter(topic__bank=bank))
    if not questions:
        raise ValidationError("This bank has no questions yet.")
    seen = _seen_counts(candidate=candidate, bank=bank)

    if format == Loop.Format.FULL:
        by_topic: dict[int, list[Question]] = {}
        for question in questions:
            by_topic.setdefault(question.topic_id, []).append(question)
        ordered_topics = sorted(by_topic.values(),
                                key=lambda qs: (qs[0].topic.order, qs[0].topic_id))
        chosen = [_pick(pool, seen, 1, rng)[0] for pool in ordered_topics]
    elif format == Loop.Format.TOPIC:
        if topic is None:
            raise ValidationError("Choose a topic for a topic drill.")
        pool = [question for question in questions if question.topic_id == topic.pk]
        if not pool:
            raise ValidationError("That topic has no questions yet.")
        chosen = _pick(pool, seen, TOPIC_DRILL_SIZE, rng)
    elif format == Loop.Format.SINGLE:
        pool = [q for q in questions if topic is None or q.topic_id == topic.pk]
        if not pool:
            raise ValidationError("That topic has no questions yet.")
        chosen = _pick(pool, seen, 1, rng)
    elif format == Loop.Format.DRILL:
        from .practice import questions_training

        if not criterion.strip():
            raise ValidationError("Choose the criterion to drill.")
        training = set(questions_training(bank=bank, label=criterion).values_list("pk", flat=True))
        pool = [question for question in questions if question.pk in training]
        if not pool:
            raise ValidationError("No question in this bank trains that criterion any more.")
        chosen = _pick(pool, seen, CRITERION_DRILL_SIZE, rng)
    else:
        raise ValidationError("Unknown loop format.")

    now = timezone.now()
    with transaction.atomic():
        loop = Loop.objects.create(
            candidate=candidate, bank=bank, format=format,
            topic=topic if format in (Loop.Format.TOPIC, Loop.Format.SINGLE) else None,
            focus=criterion.strip()[:200] if format == Loop.Format.DRILL else "",
            started_at=now, last_activity_at=now,
        )
        LoopQuestion.objects.bulk_create(
            LoopQuestion(loop=loop, question=question, position=position,
                         snapshot=snapshot_for(question), rubric_version=question.rubric_version)
            for position, question in enumerate(chosen, start=1)
        )
    return loop


# --- Expiry --------------------------------------------------------------------------------


def loop_is_idle_expired(*, loop: Loop, now: datetime | None = None) -> bool:
    now = now or timezone.now()
    return (loop.status == Loop.Status.IN_PROGRESS
            and loop.last_activity_at < now - settings.MOCKLOOP_LOOP_IDLE_EXPIRY)


def loop_check_expiry(*, loop: Loop, now: datetime | None = None) -> Loop:
    """Expire lazily on access too, so an idle loop closes even if the periodic task lags."""
    if loop_is_idle_expired(loop=loop, now=now):
        Loop.objects.filter(pk=loop.pk, status=Loop.Status.IN_PROGRESS).update(
            status=Loop.Status.EXPIRED)
        loop.status = Loop.Status.EXPIRED
    return loop


def loop_expire_idle(*, now: datetime | None = None) -> int:
    """Close every loop idle for longer than MOCKLOOP_LOOP_IDLE_EXPIRY (periodic task)."""
    now = now or timezone.now()
    cutoff = now - settings.MOCKLOOP_LOOP_IDLE_EXPIRY
    return Loop.objects.active().filter(last_activity_at__lt=cutoff).update(
        status=Loop.Status.EXPIRED)


def _touch(loop: Loop, now: datetime) -> None:
    Loop.objects.filter(pk=loop.pk).update(last_activity_at=now)
    loop.last_activity_at = now


def _lock_open_loop(loop_question: LoopQuestion, now: datetime) -> None:
    """Hold the loop row until the answer commits, so a finish running at the same moment
    either sees this answer in its debrief or refuses it (loop_finish locks the same row)."""
    locked = Loop.objects.select_for_update().get(pk=loop_question.loop_id)
    if locked.status != Loop.Status.IN_PROGRESS:
        raise LoopClosed(f"This loop is {locked.get_status_display().lower()}.")


def _require_open(loop: Loop, now: datetime) -> None:
    loop_check_expiry(loop=loop, now=now)
    if loop.status != Loop.Status.IN_PROGRESS:
        raise LoopClosed(f"This loop is {loop.get_status_display().lower()}.")


# --- Answering -----------------------------------------------------------------------------


def loop_question_show(*, loop_question: LoopQuestion, now: datetime | None = None
                       ) -> LoopQuestion:
    """Start the question's clock on its first view (never restart it on reloads)."""
    now = now or timezone.now()
    loop = loop_question.loop
    if loop.status != Loop.Status.IN_PROGRESS:
        return loop_question
    with transaction.atomic():
        _touch(loop, now)  # the loop row first: every writer locks loop, then question
        if loop_question.started_at is None:
            updated = LoopQuestion.objects.filter(pk=loop_question.pk,
                                                  started_at__isnull=True).update(started_at=now)
            if updated:
                loop_question.started_at = now
            else:  # another tab started it first
                loop_question.refresh_from_db(fields=["started_at"])
    return loop_question


def draft_save(*, loop_question: LoopQuestion, text: str, now: datetime | None = None
               ) -> bool:
    """Keep the draft. Returns False, saving nothing, once the question is answered: the
    submit carries its own text, so an autosave that arrives after it (a blur fired by the
    click on Submit) must not overwrite the stored draft or fail the page."""
    now = now or timezone.now()
    _require_open(loop_question.loop, now)
    # NUL cannot be typed and PostgreSQL text refuses it; drop it rather than lose the draft.
    text = text.replace("\x00", "")[:DRAFT_MAX_CHARS]
    answered = Answer.objects.filter(loop_question=OuterRef("pk"), kind=Answer.Kind.INITIAL)
    with transaction.atomic():
        # Lock order matches answer_submit (loop row, then question row); the other order
        # deadlocks against a submit racing this autosave.
        _touch(loop_question.loop, now)
        # One conditional UPDATE: no read-then-write window for a submit to slip into.
        saved = LoopQuestion.objects.filter(pk=loop_question.pk).exclude(Exists(answered)).update(
            draft=text, draft_saved_at=now)
    if saved:
        loop_question.draft, loop_question.draft_saved_at = text, now
    return bool(saved)


def answer_validate(text: str) -> str:
    """Refuse empty, whitespace-only and over-long answers; the caller keeps the text."""
    limit = settings.MOCKLOOP_ANSWER_MAX_CHARS
    if not text or not text.strip():
        raise ValidationError("Write an answer before submitting: the box is empty.",
                              code="empty")
    if len(text) > limit:
        raise ValidationError(
            f"Your answer is {len(text):,} characters; the limit is {limit:,}. "
            f"Shorten it by {len(text) - limit:,} characters and submit again.", code="too_long")
    return text


def _create_answer(*, loop_question: LoopQuestion, kind: str, text: str, now: datetime,
                   is_overtime: bool) -> SubmitResult:
    try:
        with transaction.atomic():
            answer = Answer.objects.create(
                loop_question=loop_question, kind=kind, text=text, submitted_at=now,
                is_overtime=is_overtime, status_changed_at=now)
            answer_enqueue_scoring(answer=answer)
    except IntegrityError:
        # Double click, retry after a network error, or another tab: keep the first answer.
        existing = Answer.objects.get(loop_question=loop_question, kind=kind)
        return SubmitResult(answer=existing, created=False)
    return SubmitResult(answer=answer, created=True)


def _stored_answer(loop_question: LoopQuestion, kind: str) -> SubmitResult | None:
    """A repeat submit returns the answer already stored, whatever the new text says."""
    existing = Answer.objects.filter(loop_question=loop_question, kind=kind).first()
    return SubmitResult(answer=existing, created=False) if existing is not None else None


def answer_submit(*, loop_question: LoopQuestion, text: str, now: datetime | None = None
                  ) -> SubmitResult:
    """Store the candidate's answer once and queue it for scoring. After the time limit it is
    still accepted, marked overtime."""
    now = now or timezone.now()
    if (existing := _stored_answer(loop_question, Answer.Kind.INITIAL)) is not None:
        return existing
    answer_validate(text)
    _require_open(loop_question.loop, now)
    with transaction.atomic():
        _lock_open_loop(loop_question, now)
        if loop_question.started_at is None:  # answered without the page (e.g. a stale form)
            LoopQuestion.objects.filter(pk=loop_question.pk, started_at__isnull=True).update(
                started_at=now)
            loop_question.refresh_from_db(fields=["started_at"])
        deadline = loop_question.deadline
        is_overtime = deadline is not None and now > deadline + OVERTIME_GRACE
        result = _create_answer(loop_question=loop_question, kind=Answer.Kind.INITIAL,
                                text=text, now=now, is_overtime=is_overtime)
        if result.created:
            LoopQuestion.objects.filter(pk=loop_question.pk).update(draft=text,
                                                                    draft_saved_at=now)
        _touch(loop_question.loop, now)
    return result


def pushback_for(answer: Answer) -> str | None:
    """The interviewer's pushback for the answer's most important miss, once it is scored."""
    score = answer.scored_result
    if score is None:
        return None
    return (score.feedback or {}).get("pushback") or None


def follow_up_submit(*, loop_question: LoopQuestion, text: str, now: datetime | None = None
                     ) -> SubmitResult:
    """One reply to the interviewer's pushback, scored with the first answer."""
    now = now or timezone.now()
    if (existing := _stored_answer(loop_question, Answer.Kind.FOLLOW_UP)) is not None:
        return existing
    answer_validate(text)
    _require_open(loop_question.loop, now)
    if loop_question.follow_up_declined_at is not None:
        raise ValidationError("You chose to see the model answer, so this question takes no "
                              "reply.", code="declined")
    initial = (Answer.objects.select_related("score")
               .filter(loop_question=loop_question, kind=Answer.Kind.INITIAL).first())
    if initial is None or pushback_for(initial) is None:
        raise ValidationError("There is no pushback to answer yet.", code="no_pushback")
    with transaction.atomic():
        _lock_open_loop(loop_question, now)
        result = _create_answer(loop_question=loop_question, kind=Answer.Kind.FOLLOW_UP,
                                text=text, now=now, is_overtime=False)
        _touch(loop_question.loop, now)
    return result


def follow_up_decline(*, loop_question: LoopQuestion, now: datetime | None = None) -> bool:
    """The candidate skips the reply to see the model answer. Only after an answer, and only
    while no reply is stored; returns False when there was nothing to decline."""
    now = now or timezone.now()
    answers = set(Answer.objects.filter(loop_question=loop_question).values_list("kind",
                                                                                  flat=True))
    if Answer.Kind.INITIAL not in answers or Answer.Kind.FOLLOW_UP in answers:
        return False
    updated = LoopQuestion.objects.filter(pk=loop_question.pk,
                                          follow_up_declined_at__isnull=True).update(
        follow_up_declined_at=now)
    loop_question.refresh_from_db(fields=["follow_up_declined_at"])
    return bool(updated)


def model_answer_open(*, loop_question: LoopQuestion, answers: dict[str, Answer],
                      pushback: str | None, loop_open: bool) -> bool:
    """The model answer (and the common mistakes) open only once they cannot help the
    reply: after the follow-up, after the candidate declines it, when the score asks for no
    follow-up, or when the loop is closed."""
    initial = answers.get(Answer.Kind.INITIAL)
    if not loop_open:
        return True
    if initial is None:
        return False
    if Answer.Kind.FOLLOW_UP in answers or loop_question.follow_up_declined_at is not None:
        return True
    return initial.scored_result is not None and not pushback


# --- Finishing -----------------------------------------------------------------------------


def loop_finish(*, loop: Loop, reason: str = "Loop finished") -> bool:
    """Close the loop and request its debrief. Returns False if it was already closed."""
    from scoring.reports import debrief_request

    with transaction.atomic():
        locked = Loop.objects.select_for_update().get(pk=loop.pk)
        if locked.status != Loop.Status.IN_PROGRESS:
            loop.status = locked.status
            return False
        locked.finish()
        loop.status, loop.finished_at = locked.status, locked.finished_at
        debrief_request(loop=locked, reason=reason)
    return True
