"""ORM rows to the engine's plain QuestionSpec, so engines never touch the database."""

from __future__ import annotations

from typing import Any

from scoring.engines.base import CriterionSpec, QuestionSpec


def criterion_spec_from_model(criterion: Any) -> CriterionSpec:
    return CriterionSpec(
        key=criterion.key,
        label=criterion.label,
        kind=criterion.kind,
        weight=float(criterion.weight),
        checks=criterion.checks or "",
        phrases=tuple(str(p) for p in (criterion.phrases or ())),
        expected_value=criterion.expected_value,
        unit=criterion.unit or "",
        tolerance_percent=criterion.tolerance_percent,
        feedback_hit=criterion.feedback_hit or "",
        feedback_miss=criterion.feedback_miss or "",
    )


def question_spec_from_model(question: Any) -> QuestionSpec:
    """A QuestionSpec for an interviews.models.Question and its rubric criteria, in order."""
    # Meta.ordering is (order, id) already; a fresh order_by would discard a prefetch.
    criteria = question.criteria.all()
    return QuestionSpec(
        prompt=question.prompt,
        model_answer=question.model_answer or "",
        criteria=tuple(criterion_spec_from_model(c) for c in criteria),
        pushback=tuple(str(p) for p in (question.pushback or ())),
        facts=tuple(str(f) for f in (question.facts or ())),
        scenario=question.scenario or "",
        rubric_version=int(question.rubric_version or 1),
    )
