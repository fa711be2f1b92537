"""Test banks built with factories (the bundled bank file may not import yet)."""

from __future__ import annotations

from interviews.models import Bank, RubricCriterion
from tests.factories import BankFactory, CriterionFactory, QuestionFactory, TopicFactory


def make_bank(*, topics: int = 3, per_topic: int = 3, time_limit_seconds: int = 600,
              published: bool = True) -> Bank:
    bank = BankFactory(is_published=published)
    for t in range(topics):
        topic = TopicFactory(bank=bank, slug=f"topic-{t}", title=f"Topic {t}", order=t)
        for q in range(per_topic):
            question = QuestionFactory(topic=topic, slug=f"q-{t}-{q}", order=q,
                                       time_limit_seconds=time_limit_seconds,
                                       prompt=f"Question {t}.{q}: what latency budget would you "
                                              "set for a model that must answer within 20ms?")
            CriterionFactory(question=question, key="headroom", order=0)
            CriterionFactory(question=question, key="measure", order=1,
                             label="Names a measurement plan", weight=1.0,
                             phrases=["load test", "tracing", "measure"],
                             feedback_hit="You said how you would measure it.",
                             feedback_miss="Say how you would know you hit the budget.")
            CriterionFactory(question=question, key="budget", order=2, label="Internal budget",
                             kind=RubricCriterion.Kind.NUMERIC, weight=1.0, phrases=["p99"],
                             expected_value=15, unit="ms", tolerance_percent=20)
    return bank


def fake_score(answer, *, total: float = 62.0, rating: int = 3, pushback: str | None =
               "How would you know you actually hit the budget in production?",
               evidence_text: str | None = None):
    """What the worker would store, written directly (for tests that don't run the worker).
    The 'headroom' criterion is made with evidence on `evidence_text` (first occurrence)."""
    from django.utils import timezone

    from interviews.models import Answer
    from scoring.models import ScoreResult

    text = answer.text
    spans = []
    if evidence_text and evidence_text in text:
        start = text.index(evidence_text)
        spans = [{"start": start, "end": start + len(evidence_text)}]
    criteria = [
        {"key": "headroom", "label": "Leaves headroom under the contract", "kind": "concept",
         "verdict": "made" if spans else "missed", "weight": 2.0, "credit": 1.0 if spans else 0,
         "evidence": spans, "feedback": "You left headroom under the 20ms contract."},
        {"key": "measure", "label": "Names a measurement plan", "kind": "concept",
         "verdict": "missed", "weight": 1.0, "credit": 0.0, "evidence": [],
         "feedback": "Say how you would know you hit the budget."},
        {"key": "budget", "label": "Internal budget", "kind": "numeric", "verdict": "partly",
         "weight": 1.0, "credit": 0.5, "evidence": [], "feedback": ""},
    ]
    numbers = [{"criterion_key": "budget", "expected_value": 15.0, "unit": "ms",
                "tolerance_percent": 20.0, "found_value": 25.0, "found_text": "25ms",
                "span": None, "within_tolerance": False, "method_credit": True,
                "worked_calculation": "20ms contract - 5ms network jitter = 15ms p99"}]
    result = ScoreResult.objects.create(
        answer=answer, engine="fake", engine_version="1", rubric_version=1, total=total,
        rating=rating, criteria=criteria, numbers=numbers,
        feedback={"strengths": ["Left headroom"], "misses": ["No measurement plan"],
                  "pushback": pushback, "calculations": [], "summary": "A solid start."})
    Answer.objects.filter(pk=answer.pk).update(scoring_status=Answer.ScoringStatus.SCORED,
                                               status_changed_at=timezone.now())
    answer.scoring_status = Answer.ScoringStatus.SCORED
    return result
