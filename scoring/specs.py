"""Convert bank models into the engines' plain QuestionSpec (the only ORM-aware scoring glue)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from .engines.base import CriterionSpec, QuestionSpec

if TYPE_CHECKING:
    from interviews.models import Question


def question_spec_from_model(question: Question) -> QuestionSpec:
    """Use prefetched `criteria` when available so a loop start costs no extra queries."""
    return QuestionSpec(
        prompt=question.prompt,
        model_answer=question.model_answer,
        criteria=tuple(
            CriterionSpec(
                key=criterion.key,
                label=criterion.label,
                kind=criterion.kind,
                weight=criterion.weight,
                checks=criterion.checks,
                phrases=tuple(criterion.phrases),
                expected_value=criterion.expected_value,
                unit=criterion.unit,
                tolerance_percent=criterion.tolerance_percent,
                feedback_hit=criterion.feedback_hit,
                feedback_miss=criterion.feedback_miss,
            )
            for criterion in question.criteria.all()
        ),
        pushback=tuple(question.pushback),
        facts=tuple(question.facts),
        scenario=question.scenario,
        rubric_version=question.rubric_version,
    )
