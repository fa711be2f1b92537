from __future__ import annotations

import pytest
from django.db import transaction

from interviews.models import Answer, Loop, LoopQuestion
from scoring.specs import question_spec_from_model
from tests.factories import CriterionFactory, UserFactory

STRONG_ANSWER = (
    "I'd target 15ms p99 internally, leaving 5ms of headroom for network jitter because the "
    "caller's 20ms contract sees the tail. The kernel launch overhead of about 2ms is a fixed "
    "cost per call, so I'd batch, trading batch size against queueing delay, and prove it with a "
    "load test and per-stage tracing as the measurement plan."
)


@pytest.fixture
def scorable_question(db):
    criterion = CriterionFactory()
    CriterionFactory(question=criterion.question, key="launch", label="Kernel launch overhead",
                     phrases=["kernel launch", "launch overhead", "fixed cost per call"])
    return criterion.question


def make_answer(question, text: str = STRONG_ANSWER, *, enqueue: bool = False) -> Answer:
    """A submitted answer in a loop whose snapshot holds the question's rubric."""
    from scoring.services import answer_enqueue_scoring

    with transaction.atomic():
        loop = Loop.objects.create(candidate=UserFactory(), bank=question.topic.bank,
                                   format=Loop.Format.SINGLE)
        loop_question = LoopQuestion.objects.create(
            loop=loop, question=question, position=1, rubric_version=question.rubric_version,
            snapshot={"prompt": question.prompt,
                      "spec": question_spec_from_model(question).to_dict()})
        answer = Answer.objects.create(loop_question=loop_question, text=text)
        if enqueue:
            answer_enqueue_scoring(answer=answer)
    return answer
