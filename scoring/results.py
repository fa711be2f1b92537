"""One score per question, everywhere: the effective result of a loop question.

A question's score is the answer's automatic total, plus half of what a follow-up to pushback
added (`effective_total`); once an interviewer has submitted a scorecard, the latest one
overrides the verdicts and the rating, and the total is moved into that rating's band. Home,
loop summary, question page, debrief, progress, review queue, PDF and Markdown all read it from
here (`question_result`), so no page can disagree with another.

Plain reads only: callers prefetch `answers` (with `score`) and each answer's `scorecards`,
so one loop costs the same few queries whatever its size.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from .engines.base import RATING_BAND_EDGES, rating_for_total

FOLLOW_UP_RECOVERY_SHARE = 0.5
VERDICTS = ("made", "partly", "missed", "contradicted")

# A human rating moves the automatic total into that rating's band. The top of a band is a
# whole point under the next edge, so no page rounds a rating-3 question up to the rating-4 80.
_EDGES = (0.0, *RATING_BAND_EDGES, 101.0)
RATING_BANDS: dict[int, tuple[float, float]] = {
    rating: (_EDGES[rating - 1], _EDGES[rating] - 1.0) for rating in range(1, 5)}


def effective_total(initial_total: float | None, follow_up_total: float | None) -> float | None:
    """A question's automatic score: the answer's, plus half of what the follow-up added."""
    if initial_total is None:
        return None
    if follow_up_total is None:
        return initial_total
    gain = max(0.0, follow_up_total - initial_total)
    return round(initial_total + FOLLOW_UP_RECOVERY_SHARE * gain, 1)


def override_total(total: float | None, rating: int) -> float:
    """The automatic total moved into the band of an interviewer's 1-4 rating."""
    low, high = RATING_BANDS[rating]
    return round(min(high, max(low, total or 0.0)), 1)


@dataclass(frozen=True)
class QuestionScore:
    """What a question counts as. `total` None: nothing scored yet."""

    total: float | None
    rating: int | None
    automatic_total: float | None  # before any interviewer's override
    initial_total: float | None
    follow_up_total: float | None
    criteria: tuple[dict[str, Any], ...] = ()  # the deciding score's criteria, verdicts final
    reviewed: bool = False
    scorecards: tuple[Any, ...] = ()  # newest first
    initial: Any = None
    follow_up: Any = None
    verdict_source: Any = None  # the ScoreResult whose criteria are the final ones
    changed: dict[str, tuple[str, str]] = field(default_factory=dict)  # key: (auto, human)

    @property
    def latest_card(self) -> Any:
        return self.scorecards[0] if self.scorecards else None


def _scored(answer: Any) -> Any:
    return answer.scored_result if answer is not None else None


def question_result(answers: Iterable[Any]) -> QuestionScore:
    """The effective result of one loop question, from its (prefetched) answers."""
    by_kind = {a.kind: a for a in answers}
    initial, follow_up = by_kind.get("initial"), by_kind.get("follow_up")
    initial_score, follow_score = _scored(initial), _scored(follow_up)
    initial_total = initial_score.total if initial_score is not None else None
    follow_total = follow_score.total if follow_score is not None else None
    automatic = effective_total(initial_total, follow_total)
    cards = tuple(sorted((c for a in by_kind.values() for c in a.scorecards.all()),
                         key=lambda c: (c.submitted_at, c.pk), reverse=True))
    # The follow-up's score covers answer + follow-up, so its verdicts are the final ones.
    source = follow_score if follow_score is not None else initial_score
    criteria = [dict(c) for c in (source.criteria or ())] if source is not None else []
    rating = source.rating if source is not None else None
    if rating is not None and automatic is not None and follow_score is not None:
        # The question counts the blended total, not the follow-up's own: its rating is the
        # blend's band, still held under the follow-up's gates (a wrong number caps it).
        rating = min(int(rating), rating_for_total(automatic))
    total = automatic
    changed: dict[str, tuple[str, str]] = {}
    if cards and automatic is not None:
        latest = cards[0]
        for c in criteria:
            human = (latest.verdicts or {}).get(c.get("key"))
            if human in VERDICTS and human != c.get("verdict"):
                changed[c["key"]] = (c.get("verdict", ""), human)
                c["automatic_verdict"] = c.get("verdict", "")
                c["verdict"] = human
                c["feedback"] = ""  # the engine's note was about its own verdict
        rating = int(latest.rating)
        total = override_total(automatic, rating)
    return QuestionScore(
        total=total, rating=rating, automatic_total=automatic, initial_total=initial_total,
        follow_up_total=follow_total, criteria=tuple(criteria),
        reviewed=bool(cards) and automatic is not None, scorecards=cards, initial=initial,
        follow_up=follow_up, verdict_source=source, changed=changed)


def loop_total(loop_questions: Iterable[Any], *, unanswered_as_zero: bool = False
               ) -> float | None:
    """A loop's overall score: the mean of its scored questions, as the debrief's overall.
    A finished loop's unanswered questions count as 0 there (`unanswered_as_zero`)."""
    totals = []
    for lq in loop_questions:
        answers = list(lq.answers.all())
        initial = next((a for a in answers if a.kind == "initial"), None)
        if initial is None or not (initial.text or "").strip():
            if unanswered_as_zero:
                totals.append(0.0)
            continue
        total = question_result(answers).total
        if total is not None:
            totals.append(total)
    return round(sum(totals) / len(totals), 1) if totals else None
