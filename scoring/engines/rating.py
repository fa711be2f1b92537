"""The 1-4 interview rating of a rubric-scored answer, calibrated against graders rather than
against the share of points made.

The total (0-100) sets a provisional rating through RATING_BAND_EDGES; then gates that a senior
interviewer applies cap it:

- a 4 ("Strong hire") needs every important point made (weight >= IMPORTANT_WEIGHT, or every
  point when none is that heavy), no wrong core number or arithmetic, and no committed pitfall;
- missing or contradicting the question's most important point (its heaviest criterion, the
  first on a tie) caps the rating at TOP_MISSED_CAP.

How the numbers were chosen (bench/fit_rating.py re-derives them from a graded CSV): on the dev
and held-out interview sets (74 graded answers), every answer graders put at 4/5 or above made
all of its weight->=2 points except one; every answer that missed or contradicted its heaviest
point was graded 3/5 or below, which is rating 3 on the banded scale (0-1.5 -> 1, 2-2.5 -> 2,
3-3.5 -> 3, 4-5 -> 4). The band edges are those that maximise quadratic weighted kappa against
that banding, with the gates applied, on the same sets.
"""

from __future__ import annotations

from scoring.engines.base import RATING_BAND_EDGES, CriterionVerdict, NumberCheck

IMPORTANT_WEIGHT = 2.0
TOP_MISSED_CAP = 3


def provisional_rating(total: float, edges: tuple[float, ...] = RATING_BAND_EDGES) -> int:
    return 1 + sum(total >= edge for edge in edges)


def important(verdicts: list[CriterionVerdict]) -> list[CriterionVerdict]:
    """The points a strong answer cannot leave out."""
    positive = [v for v in verdicts if v.kind != "pitfall"]
    heavy = [v for v in positive if v.weight >= IMPORTANT_WEIGHT]
    return heavy or positive


def top_point(verdicts: list[CriterionVerdict]) -> CriterionVerdict | None:
    """The question's most important point: its heaviest criterion, the first on a tie."""
    positive = [v for v in verdicts if v.kind != "pitfall"]
    if not positive:
        return None
    heaviest = max(v.weight for v in positive)
    return next(v for v in positive if v.weight == heaviest)


def blockers(verdicts: list[CriterionVerdict], checks: list[NumberCheck],
             wrong_arithmetic: int = 0) -> list[str]:
    """Why the answer cannot be rated 4, one line each (empty: nothing stands in the way)."""
    reasons = [f"not made: {v.label}" for v in important(verdicts) if v.verdict != "made"]
    reasons += [f"pitfall: {v.label}" for v in verdicts
                if v.kind == "pitfall" and v.verdict == "made"]
    reasons += [f"wrong number: {c.criterion_key}" for c in checks
                if c.found_value is not None and not c.within_tolerance]
    if wrong_arithmetic:
        reasons.append("wrong arithmetic")
    return reasons


def rubric_rating(total: float, verdicts: list[CriterionVerdict], checks: list[NumberCheck],
                  wrong_arithmetic: int = 0,
                  edges: tuple[float, ...] = RATING_BAND_EDGES) -> int:
    """The 1-4 rating: the total's band, capped by the gates above."""
    rating = provisional_rating(total, edges)
    if rating == 4 and blockers(verdicts, checks, wrong_arithmetic):
        rating = 3
    top = top_point(verdicts)
    if top is not None and top.verdict in {"missed", "contradicted"}:
        rating = min(rating, TOP_MISSED_CAP)
    return rating
