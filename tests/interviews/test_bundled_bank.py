"""The first bank, authored from the source: counts, verbatim prompts, consistent numbers."""

from __future__ import annotations

import csv
import re
from io import StringIO

import pytest
from django.conf import settings
from django.core.management import call_command

from interviews.bankfiles import parse_bank
from interviews.models import Bank, PanelPersona, Question, RubricCriterion
from tests.conftest import BUNDLED_BANK

SOURCE_QUESTIONS = [
    "What latency budget would you set for a model that must return scores within 20ms?",
    "Estimate the number of A100 GPUs needed to serve a 7B parameter LLM at 50k QPS with 20ms "
    "latency.",
    "How many T4 GPUs would you allocate for a 3B parameter model serving 30k QPS?",
    "Compare TensorRT and TorchServe for serving a fraud detection model with strict latency "
    "requirements.",
    "Describe a canary rollout strategy for a new ranking model that affects delivery time "
    "estimates.",
    "How would you prevent a bad model from affecting all users?",
    "Which SLIs would you monitor for a real‑time transcription serving system?",
]
DEV_SET = settings.BASE_DIR / "tests" / "scoring" / "data" / "graded-answers-dev.csv"


def normalise(text: str) -> str:
    return " ".join(text.replace("\u2011", "-").split())


def test_bundled_bank_validates():
    bank = parse_bank(BUNDLED_BANK.read_bytes())
    assert [t.slug for t in bank.topics] == [
        "latency-budgets", "gpu-capacity-sizing", "tensorrt-vs-torchserve",
        "canary-rollouts-versioning", "monitoring-slis-alerts"]
    assert sum(len(t.questions) for t in bank.topics) >= 20


def test_bundled_bank_import_counts(bundled_bank):
    assert bundled_bank.topics.count() == 5
    assert Question.objects.filter(topic__bank=bundled_bank).count() >= 20
    assert PanelPersona.objects.filter(bank=bundled_bank).count() == 5
    assert bundled_bank.compensation.base_min == 185_000
    assert bundled_bank.compensation.base_max == 210_000
    for question in Question.objects.filter(topic__bank=bundled_bank):
        assert question.criteria.exists(), question.slug
        assert question.model_answer, question.slug


def test_every_interviewer_question_is_verbatim(bundled_bank):
    prompts = {normalise(p) for p in Question.objects.values_list("prompt", flat=True)}
    for prompt in SOURCE_QUESTIONS:
        assert normalise(prompt) in prompts, prompt


def test_graded_dev_questions_match_bank_prompts_exactly(bundled_bank):
    with DEV_SET.open(encoding="utf-8") as handle:
        questions = {row["question"] for row in csv.DictReader(handle)}
    prompts = set(Question.objects.values_list("prompt", flat=True))
    assert questions <= prompts, questions - prompts


def test_gpu_sizing_uses_correct_arithmetic(bundled_bank):
    """50,000 QPS at 40 QPS per A100 is 1,250 GPUs; with 20% headroom, 1,500."""
    numeric = RubricCriterion.objects.filter(
        question__topic__bank=bundled_bank, kind=RubricCriterion.Kind.NUMERIC)
    values = {c.expected_value for c in numeric}
    assert 1500 in values or 1250 in values
    for criterion in numeric:
        assert criterion.unit and criterion.tolerance_percent is not None, criterion.key


def test_reimport_is_idempotent(bundled_bank):
    counts = (Question.objects.count(), RubricCriterion.objects.count())
    call_command("import_bank", str(BUNDLED_BANK), verbosity=0)
    assert (Question.objects.count(), RubricCriterion.objects.count()) == counts
    assert Bank.objects.count() == 1
    assert set(Question.objects.values_list("rubric_version", flat=True)) == {1}


def test_export_after_import_is_identical_to_the_file(bundled_bank):
    out = StringIO()
    call_command("export_bank", bundled_bank.slug, stdout=out)
    assert out.getvalue() == BUNDLED_BANK.read_text(encoding="utf-8")


@pytest.mark.parametrize("persona_role", ["hiring_manager", "bar_raiser", "tech_lead", "sre",
                                          "peer"])
def test_panel_has_each_role(bundled_bank, persona_role):
    assert bundled_bank.personas.filter(role=persona_role).exists()


# --- Scenarios set the scene; they never give the rubric away ------------------------------

# Words of a debrief or a rubric, not of an interviewer setting the scene: what a past candidate
# did or missed, how they were voted on, what graders praised, where the question came from.
LEAK_PATTERNS = [
    r"\bcandidates?\b", r"\bmiss(?:ed|ing)\b", r"\bdid(?:n't| not) (?:mention|reference|discuss)",
    r"\breported\b", r"\bpraised\b", r"\bscorecards?\b", r"\bdebrief", r"hiring committee",
    r"\bHC\b", r"\bvot(?:e|ed|es)\b", r"\breject", r"\brubric", r"interview notes",
    r"\bfeedback\b", r"\bomitted\b", r"\bfailed to\b", r"point of the question",
    r"question generali[sz]es", r"\bthe bank\b", r"\bthe source", r"\bin the interview\b",
]


def scenario_leaks(scenario: str, criteria, given: str = "") -> list[str]:
    """Leak patterns, criterion labels and multi-word rubric phrases found in a scenario.
    A phrase the prompt or constraints already state (`given`) is the situation, not a leak."""
    found = [p for p in LEAK_PATTERNS if re.search(p, scenario, flags=re.IGNORECASE)]
    text, known = normalise(scenario).lower(), normalise(given).lower()
    for criterion in criteria:
        wanted = [criterion.label.removeprefix("Pitfall: ")]
        wanted += [p for p in criterion.phrases if len(p.split()) >= 3]
        found += [w for w in wanted
                  if normalise(w).lower() in text and normalise(w).lower() not in known]
    return found


@pytest.mark.parametrize("old", [
    "As the senior engineer reported in the interview, the SLA requires p95 under 12ms.",
    "The reported candidate proposed monitoring only HTTP 5xx errors, missing the cold-start "
    "metric, and the debrief resulted in a 2-3 reject.",
    "The reported feedback noted the candidate cited the Airbnb infra blog correctly but did not "
    "mention the Argo CD sync window of 5 minutes.",
    "The interview notes praised the candidate who cited that internal model and adjusted for a "
    "10% safety margin.",
    "Note that the bank has not reconciled this figure; that gap is the point of the question.",
])
def test_leak_check_catches_backstage_notes(old: str) -> None:
    assert scenario_leaks(old, [])


def test_leak_check_catches_a_rubric_label_in_the_scenario() -> None:
    bank = parse_bank(BUNDLED_BANK.read_bytes())
    question = bank.topics[0].questions[0]
    label = question.rubric[0].label
    assert scenario_leaks(f"The team wants to know: {label}.", question.rubric) == [label]


def test_no_scenario_leaks_the_rubric_or_a_past_interview():
    bank = parse_bank(BUNDLED_BANK.read_bytes())
    leaks = {q.slug: scenario_leaks(q.scenario, q.rubric, " ".join([q.prompt, *q.constraints]))
             for topic in bank.topics for q in topic.questions}
    assert {slug: found for slug, found in leaks.items() if found} == {}
    assert all(q.scenario.strip() for topic in bank.topics for q in topic.questions)
