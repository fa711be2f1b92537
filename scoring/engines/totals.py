"""The 0-100 total of a rubric-scored answer: weighted credit, less pitfalls, rejected points,
wrong results and wrong arithmetic, scaled by how reasoned and how long the answer is.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from scoring.engines.base import (
    CriterionVerdict,
)
from scoring.engines.clauses import Document, _sentence_of, _sentences_of
from scoring.engines.numbers import (
    compatible,
)
from scoring.engines.text import (
    function_word_ratio,
)

MAGNITUDE_AT = math.log(10)


# An order-of-magnitude slip that no criterion already charges (no pitfall in its sentence, no
# numeric criterion in its result's unit) usually drives a conclusion ("~30,000 orders, plenty
# to judge on"): it costs more than a near miss.
MAGNITUDE_PENALTY = 0.35


ARITHMETIC_PENALTY = 0.2  # of the total, per wrong calculation (at most two)


WRONG_RESULT_PENALTY = 0.3  # share of a numeric criterion's weight lost for a wrong answer


CONTRADICTION_PENALTY = 0.25  # share of a criterion's weight lost for rejecting its point


def reasoning_factor(doc: Document, expected: float = 1.0) -> float:
    """1 for reasoned prose; down to about 0.5 for a bare list of right terms.

    `expected` (0..1) is how much reasoning the question calls for: a one-line reference
    answer ("a function that calls itself") sets no example of reasons to give, so a terse
    answer to it is not charged as a bare list."""
    words = doc.word_count
    if not words:
        return 0.0
    markers = len(doc.markers)
    reasons = min(1.0, markers / max(2.0, words / 30))
    listiness = min(1.0, max(0.0, (0.24 - function_word_ratio(doc.tokens)) / 0.14))
    shortfall = 0.5 * listiness * (1 - reasons) + 0.12 * (1 - listiness) * (1 - reasons)
    return 1.0 - expected * shortfall


def length_factor(doc: Document, enough: float = 12) -> float:
    """Near-empty answers cannot show a point, whatever words they happen to contain.
    `enough` is the word count below which an answer is scaled down."""
    return min(1.0, doc.word_count / enough)


def wrong_arithmetic(doc: Document) -> int:
    return sum(1 for c in doc.calculations if not c.correct) + len(doc.implied)


def arithmetic_penalty(doc: Document, charged: set[int] | None = None,
                       units: tuple[str, ...] = ()) -> float:
    """Share of the total lost for wrong arithmetic: ARITHMETIC_PENALTY per wrong calculation,
    MAGNITUDE_PENALTY for one off by 10x or more that nothing else charges (a pitfall made in
    its sentence, or a numeric criterion in its result's unit); the two worst count."""
    costs: list[float] = []
    for calculation in [*(c for c in doc.calculations if not c.correct), *doc.implied]:
        if calculation.kind == "derived" and calculation.end in doc.wrong_result_ends:
            continue  # a figure in words that a numeric criterion already charges as wrong
        stated, actual = calculation.stated, calculation.actual
        ratio = stated / actual if stated > 0 and 0 < actual < math.inf else 0.0
        off = abs(math.log(ratio)) if ratio > 0 else math.inf  # a product too big for a float
        result = next((q for q in doc.quantities if q.end == calculation.end), None)
        sentences = {_sentence_of(doc, calculation.start), _sentence_of(doc, calculation.end - 1)}
        judged = result is not None and any(compatible(result, unit) for unit in units)
        severe = off >= MAGNITUDE_AT and not (sentences & (charged or set())) and not judged
        costs.append(MAGNITUDE_PENALTY if severe else ARITHMETIC_PENALTY)
    return sum(sorted(costs, reverse=True)[:2])


# A total of 100 says every point was made: while any point's credit is short, the total is
# kept below 100 by half the weight not earned (coverage of 0.91 can score at most 95.5).
UNEARNED_CEILING = 0.5
# A point partly made earns this share of its partial credit: graders give a half-made point
# less than half its weight (on the labelled sets this lifted the rating's kappa by 0.01-0.03
# while Spearman on the graded CSVs moved by under 0.01).
PARTLY_SHARE = 0.8


# Deductions take at most this much of what the points made earn: graders keep some credit for
# the right points of an answer that also dismisses or gets others wrong ("right on TensorRT's
# latency edge with numbers, but dismisses the rebuild cost and batching": 2/5, not 0), and a
# floor at zero left such answers level with ones that made no point. 0.3 from the read graded
# CSVs (mean Spearman 0.916 -> 0.918; 0.1-0.5 all helped, the higher floors lost on the
# fresh-wordings set); no rating moved.
PENALTY_FLOOR = 0.3


@dataclass(frozen=True)
class TotalBreakdown:
    total: float  # the 0-100 total
    before: float  # what the points made would score before any deduction
    reasons: tuple[str, ...]  # why it was lowered: pitfalls, rejected points, wrong numbers


def rubric_total(doc: Document, verdicts: list[CriterionVerdict],
                 pitfall_sentences: set[int] | None = None,
                 wrong_keys: set[str] | None = None,
                 numeric_units: tuple[str, ...] = ()) -> float:
    """0-100 from weighted credit, less pitfalls, rejected points, wrong results and
    wrong arithmetic, scaled by how reasoned and how long the answer is."""
    return rubric_breakdown(doc, verdicts, pitfall_sentences, wrong_keys, numeric_units).total


def rubric_breakdown(doc: Document, verdicts: list[CriterionVerdict],
                     pitfall_sentences: set[int] | None = None,
                     wrong_keys: set[str] | None = None,
                     numeric_units: tuple[str, ...] = ()) -> TotalBreakdown:
    """The total, what the points made alone would score, and the deductions between them."""
    positive = [v for v in verdicts if v.kind != "pitfall"]
    possible = sum(v.weight for v in positive) or 1.0
    coverage = sum(v.weight * v.credit * (PARTLY_SHARE if v.verdict == "partly" else 1.0)
                   for v in positive) / possible
    reasons: list[str] = []
    pitfalls = [v for v in verdicts if v.kind == "pitfall" and v.credit]
    penalty = sum(v.weight for v in pitfalls)
    reasons += [f"pitfall: {_plain(v.label)}" for v in pitfalls]
    # A rejected point already charged as a pitfall (same sentence) is not charged twice.
    charged = pitfall_sentences or set()
    rejected = [v for v in positive
                if v.verdict == "contradicted" and not _sentences_of(doc, v.evidence) & charged]
    penalty += sum(CONTRADICTION_PENALTY * v.weight for v in rejected)
    reasons += [f"point rejected: {v.label}" for v in rejected]
    wrong_results = wrong_keys if wrong_keys is not None else set()
    wrong = [v for v in positive if v.kind == "numeric" and v.key in wrong_results]
    penalty += sum(WRONG_RESULT_PENALTY * v.weight for v in wrong)
    reasons += [f"wrong number: {v.label}" for v in wrong]
    arithmetic = arithmetic_penalty(doc, charged, numeric_units)
    if arithmetic:
        reasons.append("wrong arithmetic")
    penalty = penalty / possible + arithmetic
    shaped = min(1.0, coverage / 0.85)
    ceiling = 100.0 - 100 * UNEARNED_CEILING * max(0.0, 1.0 - coverage)
    before = min(ceiling, 100 * shaped * reasoning_factor(doc) * length_factor(doc))
    total = max(before - 100 * penalty, PENALTY_FLOOR * before)
    return TotalBreakdown(total=round(min(100.0, max(0.0, total)), 1),
                          before=round(max(0.0, before), 1), reasons=tuple(reasons))


def _plain(label: str) -> str:
    return label.removeprefix("Pitfall:").strip()
