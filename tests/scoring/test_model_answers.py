"""Every bundled question's own model answer must be judged correct (issue 9 QA): rating 4, no
number check marked wrong, no pitfall committed, no concept contradicted."""

from __future__ import annotations

import pytest
import yaml

from scoring.engines.rubric import RubricEngine
from tests.scoring.test_engines import BANK_FILE, bank_question


def bank_slugs() -> list[str]:
    data = yaml.safe_load(BANK_FILE.read_text())
    return [q["slug"] for topic in data["topics"] for q in topic["questions"]]


@pytest.mark.parametrize("slug", bank_slugs())
def test_the_model_answer_is_judged_correct(slug: str) -> None:
    question = bank_question(slug)
    outcome = RubricEngine().score(question, question.model_answer)
    wrong = [(n.criterion_key, n.found_text) for n in outcome.numbers
             if n.found_value is not None and not n.within_tolerance]
    assert wrong == []
    committed = [v.key for v in outcome.criteria if v.kind == "pitfall" and v.credit > 0]
    assert committed == []
    contradicted = [v.key for v in outcome.criteria if v.verdict == "contradicted"]
    assert contradicted == []
    assert outcome.rating == 4, (outcome.total, [(v.key, v.verdict) for v in outcome.criteria])


def test_the_model_answer_with_a_scale_suffix_is_still_correct() -> None:
    """"50k" for 50,000: the 1,250 in "1,250 x 1.2 = 1,500" is an operand, not the result."""
    question = bank_question("azure-capacity-spreadsheet-review")
    answer = question.model_answer.replace("50,000", "50k")
    outcome = RubricEngine().score(question, answer)
    assert outcome.feedback["calculations"] == []
    assert outcome.rating == 4
