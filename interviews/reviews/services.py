"""Interviewers' side of a loop: who may review what, the review queue, scorecards, and the
rows the calibration page (and `evaluate_scorer --scorecards`) compute agreement from.

Access is decided in one place, `loops_reviewable_by`: every review view fetches its loop
through it, so a loop outside it is a 404 whoever asks.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date
from typing import Any

from django.db import IntegrityError, transaction
from django.db.models import Count, Exists, OuterRef, Q, QuerySet, Subquery
from django.db.models.functions import Coalesce, Left, Trim
from django.urls import reverse
from django.utils import timezone

from scoring.results import loop_total
from scoring.text import fit

from ..context_processors import is_interviewer
from ..models import Answer, Bank, Loop, LoopQuestion, Notification, Scorecard

VERDICTS: tuple[str, ...] = ("made", "partly", "missed", "contradicted")
VERDICT_LABELS: dict[str, str] = {"made": "Made", "partly": "Partly", "missed": "Missed",
                                  "contradicted": "Contradicted"}
QUEUE_STATUSES: dict[str, str] = {
    "to_review": "Not yet reviewed by you",
    "reviewed": "Reviewed by you",
    "unreviewed": "No interviewer yet",
    "all": "All",
}


class ScorecardRefused(Exception):
    """The interviewer already submitted a scorecard for this answer; scorecards are final."""


# --- Who may review what -------------------------------------------------------------------


def loops_reviewable_by(user: Any) -> QuerySet[Loop]:
    """Finished loops `user` may review: admins all; interviewers the loops assigned to them
    plus every loop of a bank they review if that bank lets reviewers see all its loops.

    Nobody reviews their own loop. EXISTS subqueries rather than joins, so no DISTINCT.
    """
    loops = Loop.objects.finished()
    if not getattr(user, "is_authenticated", False) or not is_interviewer(user):
        return loops.none()
    loops = loops.exclude(candidate=user)
    if user.is_staff:
        return loops
    # Uncorrelated IN subqueries: each runs once and is hashed, where EXISTS per loop ran
    # once per finished loop (the queue's count grew with every loop anyone finished).
    assigned = Loop.reviewers.through.objects.filter(user_id=user.pk).values("loop_id")
    see_all = Bank.objects.filter(reviewers=user, reviewers_see_all_loops=True).values("pk")
    return loops.filter(Q(pk__in=assigned) | Q(bank_id__in=see_all))


def answers_reviewable_by(user: Any) -> QuerySet[Answer]:
    return Answer.objects.filter(loop_question__loop__in=loops_reviewable_by(user))


# --- The queue -----------------------------------------------------------------------------


@dataclass
class QueueFilters:
    bank: str = ""  # bank slug
    topic: int | None = None  # Topic pk: loops with a question from it (or drilling it)
    since: date | None = None  # finished on or after
    until: date | None = None  # finished on or before
    status: str = "to_review"


def review_queue(user: Any, filters: QueueFilters | None = None) -> QuerySet[Loop]:
    """The loops `user` may review, filtered, newest finished first. Light on purpose: page
    it, then add the figures to the page's rows only (`with_queue_figures`), so a deep page
    does not compute subqueries for every row it skips."""
    filters = filters or QueueFilters()
    loops = loops_reviewable_by(user).order_by("-finished_at", "-pk")
    if filters.bank:
        loops = loops.filter(bank__slug=filters.bank)
    if filters.topic:
        in_topic = LoopQuestion.objects.filter(loop=OuterRef("pk"),
                                               question__topic_id=filters.topic)
        loops = loops.filter(Q(topic_id=filters.topic) | Q(Exists(in_topic)))
    if filters.since:
        loops = loops.filter(finished_at__date__gte=filters.since)
    if filters.until:
        loops = loops.filter(finished_at__date__lte=filters.until)
    # The loops this interviewer scored: an index-only scan of (interviewer, loop), hashed once.
    mine = Scorecard.objects.filter(interviewer_id=user.pk).values("loop_id")
    anyone = Scorecard.objects.filter(loop=OuterRef("pk"))
    if filters.status == "to_review":
        loops = loops.exclude(pk__in=mine)
    elif filters.status == "reviewed":
        loops = loops.filter(pk__in=mine)
    elif filters.status == "unreviewed":
        loops = loops.filter(~Exists(anyone))
    return loops


def with_queue_figures(loops: QuerySet[Loop], user: Any) -> QuerySet[Loop]:
    """Each loop with bank, candidate and topic joined, its answer (not follow-up) and
    scorecard counts, and whether `user` reviewed it: one query, narrow columns."""
    mine = Scorecard.objects.filter(loop=OuterRef("pk"), interviewer_id=user.pk)
    answers = (Answer.objects.filter(loop_question__loop=OuterRef("pk"),
                                     kind=Answer.Kind.INITIAL)
               .values("loop_question__loop").annotate(n=Count("pk")).values("n"))
    cards = (Scorecard.objects.filter(loop=OuterRef("pk"))
             .values("loop").annotate(n=Count("pk")).values("n"))
    return loops.select_related("bank", "candidate", "topic").only(
        "id", "public_id", "finished_at", "format", "candidate__username", "bank__title",
        "topic__title").annotate(
        answer_count=Coalesce(Subquery(answers), 0),
        scorecard_count=Coalesce(Subquery(cards), 0),
        reviewed_by_me=Exists(mine),
    )


@dataclass
class _Scored:
    total: float
    rating: int
    criteria: tuple[()] = ()  # a total does not depend on the verdicts


@dataclass
class _Card:
    pk: int
    rating: int
    submitted_at: Any
    verdicts: dict[str, str] | None = None  # the queue shows totals, not verdicts


@dataclass
class _Related:
    items: list[Any]

    def all(self) -> list[Any]:
        return self.items


@dataclass
class _QueueAnswer:
    """What scoring.results reads of an answer to total a question, and nothing more."""

    kind: str
    text: str  # its first non-blank character: whether there is text at all
    scored_result: _Scored | None
    scorecards: _Related


@dataclass
class _QueueQuestion:
    answers: _Related


def queue_scores(loop_ids: list[int]) -> dict[int, float | None]:
    """Each loop's debrief overall (scoring.results.loop_total, overrides included) from two
    narrow queries: no answer text, evidence, criteria or snapshot is read, and no model
    instance is built, so a page of 25 loops costs the same whatever the queue's size."""
    cards: dict[int, list[Any]] = {}
    for answer_id, pk, rating, submitted_at in Scorecard.objects.filter(
            loop_id__in=loop_ids).values_list("answer_id", "pk", "rating", "submitted_at"):
        cards.setdefault(answer_id, []).append(
            _Card(pk=pk, rating=rating, submitted_at=submitted_at))
    questions: dict[int, dict[int, _QueueQuestion]] = {lid: {} for lid in loop_ids}
    rows = (LoopQuestion.objects.filter(loop_id__in=loop_ids).order_by()
            .annotate(text_head=Left(Trim("answers__text"), 1))
            .values_list("loop_id", "pk", "answers__pk", "answers__kind",
                         "answers__scoring_status", "text_head", "answers__score__total",
                         "answers__score__rating"))
    for loop_id, lq_id, answer_id, kind, status, head, total, rating in rows:
        question = questions[loop_id].setdefault(lq_id, _QueueQuestion(_Related([])))
        if answer_id is None:
            continue
        scored = (_Scored(total=total, rating=rating)
                  if status == Answer.ScoringStatus.SCORED and total is not None else None)
        question.answers.items.append(_QueueAnswer(
            kind=kind, text=head or "", scored_result=scored,
            scorecards=_Related(cards.get(answer_id, []))))
    return {loop_id: loop_total(qs.values(), unanswered_as_zero=True)
            for loop_id, qs in questions.items()}


# Past this many loops the queue says "more than N" instead of counting them all: the count
# then reads at most N + 1 rows of the (status, finished_at, id) index, whatever the total.
QUEUE_COUNT_CAP = 500


@dataclass
class QueuePage:
    """What the queue template reads of a page (a Paginator's Page without its full count)."""

    number: int
    per_page: int
    count: int  # capped at QUEUE_COUNT_CAP + 1
    has_next: bool

    cap: int = QUEUE_COUNT_CAP

    @property
    def count_is_capped(self) -> bool:
        return self.count > QUEUE_COUNT_CAP

    @property
    def has_previous(self) -> bool:
        return self.number > 1

    def previous_page_number(self) -> int:
        return self.number - 1

    def next_page_number(self) -> int:
        return self.number + 1

    @property
    def num_pages(self) -> int:
        return max(self.number, -(-min(self.count, QUEUE_COUNT_CAP) // self.per_page))


def _page_number(raw: Any) -> int:
    try:
        return max(1, min(int(raw), 100_000))
    except (TypeError, ValueError):
        return 1


def queue_page(user: Any, filters: QueueFilters, page_number: Any,
               per_page: int = 25) -> tuple[QueuePage, list[Loop]]:
    """A page of the queue: a capped count, the page's ids (one more, to know if a next page
    exists), then the page's rows with their figures: the same few queries, each bounded by
    the page or the cap, for any size of queue. Each row's `score` is the debrief's overall:
    interviewers' overrides included (scoring.results)."""
    ids_query = review_queue(user, filters).values_list("pk", flat=True)
    count = ids_query[:QUEUE_COUNT_CAP + 1].count()
    number = _page_number(page_number)
    last = max(1, -(-min(count, QUEUE_COUNT_CAP) // per_page))
    if count <= QUEUE_COUNT_CAP:
        number = min(number, last)  # like Paginator.get_page: past the end is the last page
    start = (number - 1) * per_page
    ids = list(ids_query[start:start + per_page + 1])
    page = QueuePage(number=number, per_page=per_page, count=count,
                     has_next=len(ids) > per_page)
    rows = list(with_queue_figures(Loop.objects.filter(pk__in=ids[:per_page]), user)
                .order_by("-finished_at", "-pk"))
    scores = queue_scores([loop.pk for loop in rows])
    for loop in rows:
        loop.score = scores[loop.pk]
    return page, rows


# --- Scorecards ----------------------------------------------------------------------------


def automatic_criteria(answer: Answer) -> list[dict[str, Any]]:
    """The rubric as the scorer judged this answer, else (not scored) the snapshot's rubric
    with no automatic verdict. Each: key, label, kind, verdict (or ""), feedback."""
    score = answer.scored_result
    if score is not None and score.criteria:
        return [{"key": c["key"], "label": c.get("label", c["key"]),
                 "kind": c.get("kind", "concept"), "verdict": c.get("verdict", ""),
                 "feedback": c.get("feedback", "")} for c in score.criteria]
    spec = (answer.loop_question.snapshot or {}).get("spec") or {}
    return [{"key": c["key"], "label": c.get("label", c["key"]),
             "kind": c.get("kind", "concept"), "verdict": "", "feedback": ""}
            for c in spec.get("criteria", ())]


def scorecard_submit(*, answer: Answer, interviewer: Any, verdicts: dict[str, str], rating: int,
                     recommendation: str, notes: str = "") -> Scorecard:
    """Store an interviewer's scorecard, request a new debrief version, notify the candidate.

    Scorecards are final: a second submission by the same interviewer for the same answer is
    refused (ScorecardRefused). Once submitted the interviewer sees the other scorecards, so
    allowing edits would let them drift toward the others, and the calibration figures would
    no longer measure independent judgements. Admins can still correct one in the admin.
    """
    from scoring.calibration_store import calibration_record
    from scoring.reports import debrief_request, interviewer_token

    keys = {c["key"] for c in automatic_criteria(answer)}
    unknown = set(verdicts) - keys
    if unknown or any(v not in VERDICTS for v in verdicts.values()):
        raise ValueError(f"Unknown criteria or verdicts: {sorted(unknown) or verdicts}")
    if not 1 <= int(rating) <= 4:
        raise ValueError("Rating must be 1 to 4.")
    if recommendation not in Scorecard.Recommendation.values:
        raise ValueError(f"Unknown recommendation {recommendation!r}")
    loop = answer.loop_question.loop
    position = answer.loop_question.position
    with transaction.atomic():
        try:
            with transaction.atomic():  # a savepoint: the unique constraint decides races
                card = Scorecard.objects.create(
                    answer=answer, interviewer=interviewer, verdicts=dict(verdicts),
                    rating=int(rating), recommendation=recommendation, notes=notes.strip(),
                    submitted_at=timezone.now())
        except IntegrityError as error:
            raise ScorecardRefused(
                "You have already submitted a scorecard for this answer.") from error
        calibration_record(scorecard=card)
        # The reason names the interviewer by id: the candidate's page renders "Interviewer N"
        # (or the name, if the bank allows it) when it shows the version.
        debrief_request(loop=loop, reason=f"Scorecard by {interviewer_token(interviewer.pk)} "
                                          f"on Q{position}")
        Notification.objects.create(
            user_id=loop.candidate_id,
            message=fit(f"An interviewer reviewed your answer to Q{position} of your "
                        f"{loop.bank.title} loop: rating {card.rating}/4, "
                        f"{card.get_recommendation_display()}. Your debrief is being updated.",
                        Notification, "message"),
            url=reverse("scoring:debrief", kwargs={"public_id": loop.public_id}),
        )
    return card


# --- Calibration rows ----------------------------------------------------------------------


def scorecard_rows_for_calibration(*, user: Any = None, bank: str = "") -> list[dict[str, Any]]:
    """One plain dict per scorecard whose answer has an automatic score: what the scorer said
    beside what the interviewer said. `user` limits to the loops they may review (None: all).

    Keys: bank, bank_title, question, prompt, topic, kind, criteria ({key: label}),
    auto_total, auto_rating, auto_verdicts, human_rating, human_verdicts, interviewer_id.
    """
    cards = Scorecard.objects.filter(answer__score__isnull=False)
    if user is not None:
        cards = cards.filter(answer__in=answers_reviewable_by(user))
    if bank:
        cards = cards.filter(answer__loop_question__loop__bank__slug=bank)
    cards = cards.select_related("answer__score", "answer__loop_question__loop__bank") \
        .order_by("pk")
    rows = []
    for card in cards:
        answer = card.answer
        lq = answer.loop_question
        snapshot = lq.snapshot or {}
        score = answer.score
        auto = {c["key"]: c.get("verdict", "") for c in score.criteria or ()}
        rows.append({
            "bank": lq.loop.bank.slug,
            "bank_title": lq.loop.bank.title,
            "question": snapshot.get("question_slug") or f"question-{lq.question_id}",
            "prompt": snapshot.get("prompt") or (snapshot.get("spec") or {}).get("prompt", ""),
            "topic": snapshot.get("topic_title") or snapshot.get("topic_slug", ""),
            "kind": answer.kind,
            "criteria": {c["key"]: c.get("label", c["key"]) for c in score.criteria or ()},
            "auto_total": float(score.total),
            "auto_rating": int(score.rating),
            "auto_verdicts": auto,
            "human_rating": int(card.rating),
            # A criterion the interviewer left alone keeps the automatic verdict.
            "human_verdicts": {k: card.verdicts.get(k, v) for k, v in auto.items()},
            "interviewer_id": card.interviewer_id,
        })
    return rows
