"""A criterion's verdict record and the feedback line that goes with it.
"""

from __future__ import annotations

from scoring.engines.base import (
    CriterionSpec,
    CriterionVerdict,
    Span,
)


def _verdict(criterion: CriterionSpec, verdict: str, credit: float,
             spans: list[Span]) -> CriterionVerdict:
    return CriterionVerdict(
        key=criterion.key, label=criterion.label, kind=criterion.kind, verdict=verdict,
        weight=criterion.weight, credit=credit, evidence=spans,
        feedback=_criterion_feedback(criterion, verdict),
    )


def _criterion_feedback(criterion: CriterionSpec, verdict: str) -> str:
    if criterion.kind == "pitfall":
        if verdict != "made":
            return ""
        return criterion.feedback_hit or f"Pitfall: {criterion.label}."
    if verdict == "made":
        return criterion.feedback_hit or f"You covered: {criterion.label}."
    miss = criterion.feedback_miss or f"Not covered: {criterion.label}."
    if verdict == "contradicted":
        return f"You dismissed this point ({criterion.label}), but it matters. {miss}"
    if verdict == "partly":
        return f"Only partly covered ({criterion.label}). {miss}"
    return miss
