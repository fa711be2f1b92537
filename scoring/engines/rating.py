"""The 1-4 interview rating of a rubric-scored answer, calibrated against graders rather than
against the share of points made.

The total (0-100) sets a provisional rating through RATING_BAND_EDGES; then gates that a senior
interviewer applies cap it:

- a 4 ("Strong hire") needs every important point made (weight >= IMPORTANT_WEIGHT, or every
  point when none is that heavy), at least MADE_SHARE_FOR_4 of the rubric's weight made, no
  wrong core number or arithmetic, no committed pitfall, and no point contradicted (stated
  wrongly or waved away, however light: in the fifth round this took the labelled sets'
  "graded 3.5 or below, rated 4" from 12 to 10 and validation-8's from 1 to 0, kappa unchanged);
- missing or contradicting the question's most important point (its heaviest criterion, the
  first on a tie) caps the rating at TOP_MISSED_CAP;
- stating that point's figure wrong (a numeric top point judged off) caps it at TOP_WRONG_CAP:
  on the second round's labelled sets, graders put such answers at 2-2.5 (it lifted the
  rating's kappa there and on the first round's held-out set; a cap for any wrong weight-2
  figure lowered it, so it stays with the top point);
- a short answer (at most HEDGED_ANSWER_WORDS words) that hedges twice or more ("probably",
  "maybe", "I guess", a point put as a question) is not a 4: in the eleven labelled sets and
  ten graded CSVs read by the fifth round, every such answer the other gates rated 4 was graded
  3.5 or below (6 of 6), while no answer graded 4 or above was both that short and that hedged
  (the graded CSVs' "short-precise" answers, all graded 4-4.5, state their points flatly).

How the numbers were chosen (bench/fit_rating.py re-derives them from graded files), with
grades banded onto the rating scale as 0-1.5 -> 1, 2-2.5 -> 2, 3-3.5 -> 3, 4-5 -> 4:
- on the dev and held-out interview sets (74 graded answers), every answer graded 4/5 or above
  made all of its weight->=2 points but one, and every answer that missed or contradicted its
  heaviest point was graded 3/5 or below (rating 3);
- with the criterion-labelled dev set added (100 answers), every answer graded 4.5 or 5 made at
  least 0.82 of its rubric's weight, while the one answer graded 2 that the other gates still
  rated 4 (a 22-word list) made 0.75: the share gate sat between them, at 0.8;
- in the eleventh round (engine 2.9) it rose to 0.88: over every graded file then in the
  repository (2,090 answers: 28 labelled sets and 22 graded CSVs), a sweep of the gate from 0.8
  to 0.95 with everything else fixed took "graded below 4, rated 4" from 32 to 19 at 0.88 (16 at
  0.9, 9 at 0.92) while answers graded 4 or above and rated 4 went from 404 to 380 (369, 280)
  and kappa from 0.859 to 0.856 (0.854, 0.834). Past 0.88 each false 4 removed costs about
  four true ones; on held-out-16 (first opened that round) 0.88 took its false 4s from 3 to 2
  and its kappa from 0.868 to 0.872;
- the band edges were (35, 60, 80) until the fifth round of issue 9: a grid search for the
  edges that maximise quadratic weighted kappa with the gates applied found (35, 50, 55), only
  0.001-0.009 better on the same 74 or 100 answers, and lower edges for 4 are the costly
  direction (false confidence);
- they were (45, 70, 90) from engine 2.3 to 2.11, chosen where the engine meets answers it was
  not tuned on: on each held-out set's first measurement (held-out-7 with engine 2.0, held-out-8
  with 2.1; 140 answers), totals run higher than on read sets (the points credited though missed
  are 19-21% there, 5-10% on read sets), and a grid search of the edges with each answer's gates
  kept raised kappa from 0.777 to 0.812 and cut "graded 3.5 or below, rated 4" from 14 to 12
  (both sets moved the same way: 0.794 -> 0.836, 0.757 -> 0.785). On the read sets, where totals
  are already close, kappa fell from 0.880 to 0.871; every bundled model answer is still a 4,
  and the graded CSVs' answers graded 4 or above rated 4 went from 88 to 86 of 142.
- they are now (35, 65, 90) (engine 2.12): the top edge stays, so no answer becomes a 4 that
  was not one; the lower two came down because fresh sets no longer run high below the top
  (points credited though missed were about 10% on held-out-21's first measurement, not
  19-21%). With every other gate fixed, on the three most recently written labelled sets
  (held-out-19 to -21, 216 answers) kappa rose from 0.867 to 0.885, and over every read labelled
  set from 0.881 to 0.891 (the best pair on a grid of 35-45 by 60-70; the recent three alone
  preferred (35, 60) at 0.895), with "graded 3.5 or below, rated 4" unchanged.
"""

from __future__ import annotations

import re

from scoring.engines.base import RATING_BAND_EDGES, CriterionVerdict, NumberCheck

IMPORTANT_WEIGHT = 2.0
MADE_SHARE_FOR_4 = 0.88  # of the rubric's positive weight, made in full (0.8 until engine 2.9)
TOP_MISSED_CAP = 3
TOP_WRONG_CAP = 2
HEDGED_ANSWER_WORDS = 90
HEDGES_AGAINST_4 = 2
HEDGE = re.compile(r"\b(?:probably|maybe|perhaps|i guess|i think|i suppose|somehow|something "
                   r"like|kind of|sort of|not sure|or so)\b|\?", re.IGNORECASE)


def hedges(text: str) -> list[str]:
    """The hedges of a short answer that leave its points unsure (empty for longer answers,
    where a hedge or two sits among points stated flatly)."""
    if len(text.split()) > HEDGED_ANSWER_WORDS:
        return []
    found = [match.group(0).lower() for match in HEDGE.finditer(text)]
    return found if len(found) >= HEDGES_AGAINST_4 else []


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


def held_back_by_hedges(total: float, verdicts: list[CriterionVerdict],
                        checks: list[NumberCheck], wrong_arithmetic: int,
                        hedged: list[str]) -> bool:
    """Whether the hedges alone keep an answer that would be a 4 at 3 (with nothing else in the
    way, its most important point is made, so no cap applies either)."""
    return bool(hedged) and provisional_rating(total) == 4 \
        and not blockers(verdicts, checks, wrong_arithmetic)


def hedging_note(hedged: list[str]) -> str:
    """The summary's line on a 4 held back by hedges, quoting up to three of them."""
    said = [f"“{h}”" for h in hedged if h != "?"][:3]
    said += ["points put as questions"] if "?" in hedged else []
    return (f"Rated 3, not 4: a short answer that hedges its points ({', '.join(said)}) "
            "leaves the interviewer unsure you know them.")


def blockers(verdicts: list[CriterionVerdict], checks: list[NumberCheck],
             wrong_arithmetic: int = 0, hedged: list[str] | None = None) -> list[str]:
    """Why the answer cannot be rated 4, one line each (empty: nothing stands in the way)."""
    reasons = [f"not made: {v.label}" for v in important(verdicts) if v.verdict != "made"]
    positive = [v for v in verdicts if v.kind != "pitfall"]
    possible = sum(v.weight for v in positive)
    made = sum(v.weight for v in positive if v.verdict == "made")
    if possible and made / possible < MADE_SHARE_FOR_4:
        reasons.append(f"made {made:g} of {possible:g} of the rubric's weight")
    reasons += [f"pitfall: {v.label}" for v in verdicts
                if v.kind == "pitfall" and v.verdict == "made"]
    reasons += [f"contradicted: {v.label}" for v in verdicts
                if v.kind != "pitfall" and v.verdict == "contradicted"]
    reasons += [f"wrong number: {c.criterion_key}" for c in checks
                if c.found_value is not None and not c.within_tolerance]
    if wrong_arithmetic:
        reasons.append("wrong arithmetic")
    if hedged:
        reasons.append("hedged: " + ", ".join(dict.fromkeys(hedged)))
    return reasons


def rubric_rating(total: float, verdicts: list[CriterionVerdict], checks: list[NumberCheck],
                  wrong_arithmetic: int = 0,
                  edges: tuple[float, ...] = RATING_BAND_EDGES,
                  hedged: list[str] | None = None) -> int:
    """The 1-4 rating: the total's band, capped by the gates above."""
    rating = provisional_rating(total, edges)
    if rating == 4 and blockers(verdicts, checks, wrong_arithmetic, hedged):
        rating = 3
    top = top_point(verdicts)
    if top is not None and top.verdict in {"missed", "contradicted"}:
        rating = min(rating, TOP_MISSED_CAP)
    if top is not None and top.kind == "numeric" and any(
            c.criterion_key == top.key and c.found_value is not None and not c.within_tolerance
            for c in checks):
        # The question's most important figure, stated wrong: graders put these at 2-2.5.
        rating = min(rating, TOP_WRONG_CAP)
    return rating
