"""Practice that follows the gaps: weak criteria ranked from debriefs, criterion drills, and
the home page's suggestion of the next drill."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.urls import reverse
from django.utils import timezone

from interviews import practice, services
from interviews.models import Loop
from scoring.models import Debrief
from tests.factories import BankFactory, CriterionFactory, QuestionFactory, TopicFactory

pytestmark = pytest.mark.django_db

MARGIN = "Adds a safety margin to the GPU count"
TRACING = "Traces each stage of the request"
BAKE = "Waits out a bake window"


def drill_bank(slug: str = "drills"):
    """Five questions over two topics. 'margin' is trained by q-a, q-b and q-c (q-c names it
    differently but shares the key); tracing only by q-d; the bake window only by q-e."""
    bank = BankFactory(slug=slug, title=f"Bank {slug}")
    capacity = TopicFactory(bank=bank, slug="capacity", title="Capacity", order=0)
    latency = TopicFactory(bank=bank, slug="latency", title="Latency", order=1)
    questions = {}
    for slug_, topic, key, label in (
        ("q-a", capacity, "margin", MARGIN),
        ("q-b", capacity, "margin", MARGIN),
        ("q-c", latency, "margin", "Keeps headroom for a zone loss"),
        ("q-d", latency, "tracing", TRACING),
        ("q-e", latency, "bake", BAKE),
    ):
        question = QuestionFactory(topic=topic, slug=slug_, prompt=f"Prompt {slug_}?")
        CriterionFactory(question=question, key=key, label=label)
        CriterionFactory(question=question, key="other", label="Something else entirely")
        questions[slug_] = question
    return bank, questions


def report(bank_slug: str, finished_at, questions):
    """A debrief report as scoring.panel writes it: per question, made/missed/pitfalls."""
    return {
        "loop": {"bank_slug": bank_slug, "finished_at": finished_at.isoformat()},
        "overall": 50.0, "topics": [], "decision": {"label": "No hire"},
        "tally": {"text": "0-5"},
        "questions": [
            {"position": i + 1, "question_slug": f"x-{i}", "topic_slug": "t",
             "topic_title": "Capacity", "scored": True,
             "made": [{"key": k, "label": lab, "kind": "concept", "verdict": "made"}
                      for k, lab in made],
             "missed": [{"key": k, "label": lab, "kind": "concept", "verdict": "missed"}
                        for k, lab in missed],
             "pitfalls": []}
            for i, (made, missed) in enumerate(questions)],
    }


def finished_loop_with_report(candidate, bank, finished_at, questions):
    loop = Loop.objects.create(candidate=candidate, bank=bank, format=Loop.Format.SINGLE,
                               status=Loop.Status.FINISHED, started_at=finished_at,
                               finished_at=finished_at)
    Debrief.objects.create(loop=loop, version=1, status=Debrief.Status.READY,
                           report=report(bank.slug, finished_at, questions))
    return loop


# --- Ranking --------------------------------------------------------------------------------


def test_equal_miss_rates_rank_the_most_recent_miss_first_not_the_alphabet():
    now = timezone.now()
    old = report("b", now - timedelta(days=9), [([], [("a", "Alpha point")])])
    new = report("b", now, [([], [("z", "Zulu point")])])
    weak = practice.weak_criteria([(old, now - timedelta(days=9)), (new, now)])
    assert [w["label"] for w in weak] == ["Zulu point", "Alpha point"]  # both missed 1 of 1
    assert weak[0]["last_missed"] == now


def test_equal_rates_and_recency_rank_the_more_often_missed_first():
    now = timezone.now()
    both = report("b", now, [([], [("a", "Alpha point"), ("z", "Zulu point")]),
                             ([], [("z", "Zulu point")])])
    weak = practice.weak_criteria([(both, now)])
    assert [w["label"] for w in weak] == ["Zulu point", "Alpha point"]
    assert weak[0]["missed"] == 2 and weak[0]["keys"] == ["z"]


def test_a_higher_miss_rate_still_comes_first():
    now = timezone.now()
    older = report("b", now - timedelta(days=1), [([], [("a", "Always missed")])])
    newer = report("b", now, [([("z", "Sometimes missed")], []),
                              ([], [("z", "Sometimes missed")])])
    weak = practice.weak_criteria([(older, now - timedelta(days=1)), (newer, now)])
    assert [w["label"] for w in weak] == ["Always missed", "Sometimes missed"]


# --- Drills ---------------------------------------------------------------------------------


def test_a_drill_holds_only_questions_whose_rubrics_train_the_criterion(candidate):
    bank, questions = drill_bank()
    loop = services.loop_start(candidate=candidate, bank=bank, format=Loop.Format.DRILL,
                               criterion=MARGIN)
    slugs = {lq.snapshot["question_slug"] for lq in loop.loop_questions.all()}
    # Same label, or the same key under another label: all three train it, nothing else.
    assert slugs == {"q-a", "q-b", "q-c"}
    assert loop.format == Loop.Format.DRILL and loop.focus == MARGIN and loop.topic is None


def test_a_drill_puts_questions_never_seen_first(candidate):
    bank, questions = drill_bank()
    seen = services.loop_start(candidate=candidate, bank=bank, format=Loop.Format.SINGLE)
    seen.loop_questions.all().delete()
    from interviews.models import LoopQuestion

    for position, slug in enumerate(("q-a", "q-b"), start=1):
        LoopQuestion.objects.create(loop=seen, question=questions[slug], position=position,
                                    snapshot=services.snapshot_for(questions[slug]),
                                    rubric_version=1)
    for _ in range(5):  # the choice among equals is random; the order by novelty is not
        loop = services.loop_start(candidate=candidate, bank=bank, format=Loop.Format.DRILL,
                                   criterion=MARGIN)
        first = loop.loop_questions.get(position=1).snapshot["question_slug"]
        assert first == "q-c"
        loop.delete()


def test_a_drill_for_a_criterion_no_question_trains_is_refused(candidate):
    bank, _ = drill_bank()
    from django.core.exceptions import ValidationError

    with pytest.raises(ValidationError, match="trains that criterion"):
        services.loop_start(candidate=candidate, bank=bank, format=Loop.Format.DRILL,
                            criterion="Not in this bank")


def test_a_drill_post_without_a_criterion_says_why(client, candidate):
    bank, _ = drill_bank()
    client.force_login(candidate)
    response = client.post(reverse("interviews:loop_start"),
                           {"bank": bank.slug, "format": "drill"}, follow=True)
    assert "Choose the criterion to drill." in response.content.decode()
    assert not Loop.objects.exists()


# --- Pages ----------------------------------------------------------------------------------


def test_each_weak_criterion_on_the_progress_page_starts_a_drill_that_trains_it(client,
                                                                                candidate):
    bank, _ = drill_bank()
    now = timezone.now()
    finished_loop_with_report(candidate, bank, now - timedelta(days=2),
                              [([], [("margin", MARGIN)]), ([("bake", BAKE)], [])])
    finished_loop_with_report(candidate, bank, now,
                              [([], [("tracing", TRACING)])])
    client.force_login(candidate)
    response = client.get(reverse("scoring:progress"))
    weakest = response.context["weakest"]
    # Both missed every time; tracing was missed more recently.
    assert [w["label"] for w in weakest] == [TRACING, MARGIN]
    html = response.content.decode()
    assert html.count('name="format" value="drill"') == 2
    assert f'name="criterion" value="{TRACING}"' in html
    start = client.post(reverse("interviews:loop_start"),
                        {"bank": bank.slug, "format": "drill", "criterion": TRACING})
    drill = Loop.objects.get(format=Loop.Format.DRILL)
    assert start.url == reverse("interviews:question", args=[drill.public_id, 1])
    assert [lq.snapshot["question_slug"] for lq in drill.loop_questions.all()] == ["q-d"]


def test_home_suggests_the_next_drill_from_the_same_ranking(client, candidate):
    bank, _ = drill_bank()
    now = timezone.now()
    finished_loop_with_report(candidate, bank, now - timedelta(days=2),
                              [([], [("margin", MARGIN)])])
    finished_loop_with_report(candidate, bank, now, [([], [("tracing", TRACING)])])
    client.force_login(candidate)
    html = client.get(reverse("interviews:home")).content.decode()
    assert "Your next drill" in html
    assert f'name="criterion" value="{TRACING}"' in html
    assert f'name="criterion" value="{MARGIN}"' not in html


def test_home_suggests_nothing_without_debriefs_or_for_an_unpublished_bank(client, candidate):
    bank, _ = drill_bank()
    client.force_login(candidate)
    assert "Your next drill" not in client.get(reverse("interviews:home")).content.decode()
    finished_loop_with_report(candidate, bank, timezone.now(), [([], [("margin", MARGIN)])])
    bank.is_published = False
    bank.save()
    assert "Your next drill" not in client.get(reverse("interviews:home")).content.decode()


def test_progress_and_home_queries_stay_constant_as_debriefs_grow(
        client, candidate, django_assert_max_num_queries):
    bank, _ = drill_bank()
    now = timezone.now()
    client.force_login(candidate)
    finished_loop_with_report(candidate, bank, now, [([], [("margin", MARGIN)])])
    with django_assert_max_num_queries(20) as progress_few:
        client.get(reverse("scoring:progress"))
    with django_assert_max_num_queries(30) as home_few:
        client.get(reverse("interviews:home"))
    for day in range(1, 9):
        finished_loop_with_report(candidate, bank, now - timedelta(days=day),
                                  [([], [("margin", MARGIN), ("tracing", TRACING)]),
                                   ([("bake", BAKE)], [("margin", MARGIN)])])
    with django_assert_max_num_queries(len(progress_few.captured_queries)):
        assert client.get(reverse("scoring:progress")).status_code == 200
    with django_assert_max_num_queries(len(home_few.captured_queries)):
        assert client.get(reverse("interviews:home")).status_code == 200


def test_starting_a_drill_costs_the_same_queries_as_the_bank_grows(
        client, candidate, django_assert_max_num_queries):
    bank, _ = drill_bank()
    client.force_login(candidate)
    data = {"bank": bank.slug, "format": "drill", "criterion": MARGIN}
    with django_assert_max_num_queries(40) as few:
        client.post(reverse("interviews:loop_start"), data)
    capacity = bank.topics.get(slug="capacity")
    for n in range(10):
        question = QuestionFactory(topic=capacity, slug=f"more-{n}")
        CriterionFactory(question=question, key="margin", label=MARGIN)
    with django_assert_max_num_queries(len(few.captured_queries)):
        assert client.post(reverse("interviews:loop_start"), data).status_code == 302
    assert Loop.objects.filter(format=Loop.Format.DRILL).count() == 2
