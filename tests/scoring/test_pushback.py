"""Pushback that asks without answering, and follow-ups credited only for new substance
(issue 9)."""

from __future__ import annotations

import re

import pytest
import yaml

from scoring.engines.base import CriterionSpec
from scoring.engines.followup import follow_up_text, pushback_statements
from scoring.engines.rubric import RubricEngine, as_question, gives_answer_away
from tests.scoring.test_engines import BANK_FILE, bank_question

SLUGS = [q["slug"] for t in yaml.safe_load(BANK_FILE.read_text())["topics"]
         for q in t["questions"]]


@pytest.mark.parametrize("slug", SLUGS)
def test_bank_pushback_lines_ask_without_giving_the_answer(slug: str) -> None:
    question = bank_question(slug)
    for line in question.pushback:
        assert not gives_answer_away(line, question.criteria), line


@pytest.mark.parametrize("slug", SLUGS)
def test_the_pushback_picked_states_no_figure_the_rubric_wants(slug: str) -> None:
    question = bank_question(slug)
    for answer in ("I'm not sure where to start with this one.",
                   "I'd measure it first and then decide, keeping some headroom."):
        pushback = RubricEngine().score(question, answer).feedback["pushback"]
        assert pushback and "?" in pushback
        assert not gives_answer_away(pushback, question.criteria), pushback


def test_advice_becomes_a_question_without_its_figures() -> None:
    win = CriterionSpec("engine-gain", "Quantifies the 5ms (~40%) engine gain", kind="numeric",
                        expected_value=5, unit="ms", tolerance_percent=10,
                        feedback_miss="Quantify the win, 12ms - 7ms = 5ms at p99 (about 40%), "
                                      "before weighing costs.")
    assert as_question(win) == "Could you quantify the win?"
    slices = CriterionSpec("stage-budget", "Splits the budget by stage",
                           feedback_miss="Break the 12ms into per-stage slices with owners.")
    assert as_question(slices) == "Could you break it into per-stage slices with owners?"
    count = CriterionSpec("gpus", "Computes ~1,500 GPUs with 20% headroom", kind="numeric",
                          expected_value=1500, unit="GPUs", tolerance_percent=3)
    assert not re.search(r"\d", as_question(count))


OLD_PUSHBACK = "0.7ms is under 6% of the budget. Are you comfortable with that?"
FIRST = ("The dashboard shows p99 but the SLA is p95, so I'd compare like with like. I'd break "
         "the 12ms into per-stage slices and load test at peak.")


def test_restating_the_pushback_earns_nothing() -> None:
    question = bank_question("snapchat-p95-12ms-bid-requests")
    engine = RubricEngine()
    first = engine.score(question, FIRST)
    parrot = engine.score(question, follow_up_text(
        FIRST, "0.7ms is under 6% of the budget, so I'm not comfortable.", OLD_PUSHBACK))
    margin = {v.key: v for v in parrot.criteria}["margin"]
    assert margin.verdict != "made"
    assert parrot.total <= first.total + 1


def test_new_substance_in_a_follow_up_earns_credit() -> None:
    question = bank_question("snapchat-p95-12ms-bid-requests")
    engine = RubricEngine()
    first = engine.score(question, FIRST)
    reply = engine.score(question, follow_up_text(
        FIRST, "12 - 11.3 leaves about 0.7ms of margin, which is thin, so I'd alert at 11ms.",
        "How much margin is actually left under the SLA, and is that enough?"))
    assert {v.key: v for v in reply.criteria}["margin"].verdict == "made"
    assert reply.total > first.total


def test_only_statements_of_fact_count_as_the_pushbacks_substance() -> None:
    assert pushback_statements(OLD_PUSHBACK) == "0.7ms is under 6% of the budget."
    assert pushback_statements("Where does the 15ms go? Break it down stage by stage.") == ""
    assert follow_up_text("a", "b", "How much margin is left?") == "a\n\nb"


@pytest.mark.django_db
def test_the_scoring_service_blanks_the_pushbacks_statements_in_a_follow_up() -> None:
    from interviews.models import Answer, Loop, LoopQuestion
    from scoring.models import ScoreResult
    from scoring.services import scoring_text
    from tests.factories import QuestionFactory, UserFactory

    question = QuestionFactory()
    loop = Loop.objects.create(candidate=UserFactory(), bank=question.topic.bank,
                               format=Loop.Format.FULL)
    lq = LoopQuestion.objects.create(loop=loop, question=question, position=1, rubric_version=1,
                                     snapshot={})
    first = Answer.objects.create(loop_question=lq, text=FIRST)
    ScoreResult.objects.create(answer=first, engine="rubric", engine_version="1",
                               rubric_version=1, total=40, rating=2, criteria=[],
                               feedback={"pushback": OLD_PUSHBACK})
    reply = Answer.objects.create(loop_question=lq, kind=Answer.Kind.FOLLOW_UP,
                                  text="0.7ms is under 6% of the budget, so it's thin.")
    text = scoring_text(reply)
    assert text.startswith(FIRST) and len(text) == len(FIRST) + 2 + len(reply.text)
    assert "0.7ms" not in text and "thin" in text
