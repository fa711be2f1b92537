"""Loop services: choosing questions, snapshots, answering, deadlines, expiry, finishing."""

from __future__ import annotations

import random
from datetime import timedelta

import pytest
from django.core.exceptions import ValidationError
from django.utils import timezone

from interviews import services
from interviews.models import Answer, Loop, LoopQuestion, Question
from scoring.models import Debrief
from tests.factories import CriterionFactory
from tests.interviews.data import fake_score, make_bank

pytestmark = pytest.mark.django_db


@pytest.fixture
def bank():
    return make_bank(topics=3, per_topic=3)


def test_full_loop_has_one_question_per_topic_in_topic_order(candidate, bank):
    loop = services.loop_start(candidate=candidate, bank=bank, format=Loop.Format.FULL)
    topics = [lq.snapshot["topic_slug"] for lq in loop.loop_questions.order_by("position")]
    assert topics == ["topic-0", "topic-1", "topic-2"]
    assert [lq.position for lq in loop.loop_questions.all()] == [1, 2, 3]


def test_topic_drill_has_three_distinct_questions_from_the_topic(candidate, bank):
    topic = bank.topics.get(slug="topic-1")
    loop = services.loop_start(candidate=candidate, bank=bank, format=Loop.Format.TOPIC,
                               topic=topic)
    lqs = list(loop.loop_questions.all())
    assert len(lqs) == 3
    assert {lq.snapshot["topic_slug"] for lq in lqs} == {"topic-1"}
    assert len({lq.question_id for lq in lqs}) == 3


def test_topic_drill_needs_a_topic(candidate, bank):
    with pytest.raises(ValidationError):
        services.loop_start(candidate=candidate, bank=bank, format=Loop.Format.TOPIC)


def test_single_question_loop(candidate, bank):
    loop = services.loop_start(candidate=candidate, bank=bank, format=Loop.Format.SINGLE)
    assert loop.loop_questions.count() == 1


def test_unpublished_bank_is_refused(candidate):
    hidden = make_bank(published=False)
    with pytest.raises(ValidationError):
        services.loop_start(candidate=candidate, bank=hidden, format=Loop.Format.SINGLE)


def test_no_question_repeats_until_the_pool_runs_out(candidate, bank):
    pool = set(Question.objects.filter(topic__bank=bank).values_list("pk", flat=True))
    seen = []
    for seed in range(len(pool)):
        loop = services.loop_start(candidate=candidate, bank=bank, format=Loop.Format.SINGLE,
                                   rng=random.Random(seed))
        seen.append(loop.loop_questions.get().question_id)
    assert set(seen) == pool  # nine loops, nine different questions
    # The pool is exhausted: the tenth repeats one, and the cycle starts again.
    loop = services.loop_start(candidate=candidate, bank=bank, format=Loop.Format.SINGLE)
    assert loop.loop_questions.get().question_id in pool


def test_other_candidates_history_does_not_affect_choice(candidate, other_candidate, bank):
    topic = bank.topics.get(slug="topic-0")
    for _ in range(3):
        services.loop_start(candidate=other_candidate, bank=bank, format=Loop.Format.SINGLE,
                            topic=topic)
    seen = set()
    for _ in range(3):
        loop = services.loop_start(candidate=candidate, bank=bank, format=Loop.Format.SINGLE,
                                   topic=topic)
        seen.add(loop.loop_questions.get().question_id)
    assert len(seen) == 3


def test_snapshot_freezes_question_time_limit_and_rubric(candidate, bank):
    loop = services.loop_start(candidate=candidate, bank=bank, format=Loop.Format.SINGLE)
    lq = loop.loop_questions.get()
    question = lq.question
    expected_keys = {"prompt", "company", "team", "when", "scenario", "constraints",
                     "difficulty", "time_limit_seconds", "model_answer", "pushback",
                     "mistakes", "facts", "topic_slug", "topic_title", "question_slug", "spec"}
    assert expected_keys <= set(lq.snapshot)
    assert [c["key"] for c in lq.snapshot["spec"]["criteria"]] == ["headroom", "measure",
                                                                    "budget"]
    assert lq.rubric_version == question.rubric_version == 1

    # The bank is edited after the loop started: the loop keeps what it started with.
    question.prompt = "An entirely new prompt"
    question.time_limit_seconds = 60
    question.rubric_version = 2
    question.save()
    CriterionFactory(question=question, key="new-point")
    lq.refresh_from_db()
    assert lq.snapshot["prompt"].startswith("Question ")
    assert lq.time_limit_seconds == 600
    assert lq.rubric_version == 1
    assert "new-point" not in [c["key"] for c in lq.snapshot["spec"]["criteria"]]


@pytest.fixture
def loop_question(candidate, bank):
    loop = services.loop_start(candidate=candidate, bank=bank, format=Loop.Format.FULL)
    return loop.loop_questions.select_related("loop").get(position=1)


def test_first_view_starts_the_clock_and_reloads_do_not_restart_it(loop_question):
    assert loop_question.started_at is None
    first = timezone.now() - timedelta(minutes=3)
    services.loop_question_show(loop_question=loop_question, now=first)
    services.loop_question_show(loop_question=loop_question, now=timezone.now())
    loop_question.refresh_from_db()
    assert loop_question.started_at == first


def test_answer_within_time_is_not_overtime(loop_question, django_capture_on_commit_callbacks):
    services.loop_question_show(loop_question=loop_question)
    with django_capture_on_commit_callbacks() as callbacks:
        result = services.answer_submit(loop_question=loop_question, text="Leave headroom.")
    assert result.created and not result.answer.is_overtime
    assert result.answer.scoring_status == Answer.ScoringStatus.QUEUED
    assert len(callbacks) == 1  # scoring enqueued on commit


def test_answer_after_the_time_limit_is_accepted_but_marked_overtime(loop_question):
    started = timezone.now() - timedelta(seconds=loop_question.time_limit_seconds + 30)
    services.loop_question_show(loop_question=loop_question, now=started)
    result = services.answer_submit(loop_question=loop_question, text="Late but complete.")
    assert result.created
    assert result.answer.is_overtime


def test_double_submit_stores_one_answer(loop_question):
    first = services.answer_submit(loop_question=loop_question, text="First")
    second = services.answer_submit(loop_question=loop_question, text="Second")
    assert first.created and not second.created
    assert second.answer.pk == first.answer.pk
    assert Answer.objects.filter(loop_question=loop_question).count() == 1
    assert Answer.objects.get(loop_question=loop_question).text == "First"


@pytest.mark.parametrize("text", ["", "   \n\t  "])
def test_empty_and_whitespace_answers_are_refused(loop_question, text):
    with pytest.raises(ValidationError, match="empty"):
        services.answer_submit(loop_question=loop_question, text=text)
    assert not Answer.objects.exists()


def test_over_long_answer_is_refused(loop_question, settings):
    with pytest.raises(ValidationError, match="limit is 20,000"):
        services.answer_submit(loop_question=loop_question,
                               text="x" * (settings.MOCKLOOP_ANSWER_MAX_CHARS + 1))
    services.answer_submit(loop_question=loop_question,
                           text="x" * settings.MOCKLOOP_ANSWER_MAX_CHARS)
    assert Answer.objects.count() == 1


def test_draft_save_keeps_the_text_and_marks_activity(loop_question):
    services.draft_save(loop_question=loop_question, text="half a thought")
    loop_question.refresh_from_db()
    assert loop_question.draft == "half a thought"
    assert loop_question.draft_saved_at is not None


def test_a_draft_save_after_the_submit_is_a_no_op(loop_question):
    # The click on Submit blurs the box: its autosave can reach the server after the answer.
    services.answer_submit(loop_question=loop_question, text="The submitted answer.")
    loop_question.refresh_from_db()
    saved_at = loop_question.draft_saved_at
    assert services.draft_save(loop_question=loop_question, text="The submitted answ") is False
    loop_question.refresh_from_db()
    assert loop_question.draft == "The submitted answer."
    assert loop_question.draft_saved_at == saved_at
    assert Answer.objects.get().text == "The submitted answer."


def test_the_htmx_autosave_after_the_submit_says_submitted_not_saved(client, loop_question):
    from django.urls import reverse

    services.answer_submit(loop_question=loop_question, text="The submitted answer.")
    client.force_login(loop_question.loop.candidate)
    url = reverse("interviews:draft_save",
                  args=[loop_question.loop.public_id, loop_question.position])
    response = client.post(url, {"text": "late"}, headers={"HX-Request": "true"})
    assert response.status_code == 200 and response.content == b"Answer submitted."
    loop_question.refresh_from_db()
    assert loop_question.draft == "The submitted answer."


def test_idle_loop_is_resumable_until_it_expires(loop_question, settings):
    loop = loop_question.loop
    now = timezone.now()
    almost = now - settings.MOCKLOOP_LOOP_IDLE_EXPIRY + timedelta(minutes=5)
    Loop.objects.filter(pk=loop.pk).update(last_activity_at=almost)
    assert services.loop_expire_idle(now=now) == 0
    services.draft_save(loop_question=loop_question, text="still here")  # resumable

    Loop.objects.filter(pk=loop.pk).update(
        last_activity_at=now - settings.MOCKLOOP_LOOP_IDLE_EXPIRY - timedelta(minutes=1))
    assert services.loop_expire_idle(now=now) == 1
    loop.refresh_from_db()
    assert loop.status == Loop.Status.EXPIRED
    with pytest.raises(services.LoopClosed):
        services.answer_submit(loop_question=LoopQuestion.objects.get(pk=loop_question.pk),
                               text="too late")


def test_idle_expiry_is_configurable(loop_question, settings):
    settings.MOCKLOOP_LOOP_IDLE_EXPIRY = timedelta(hours=1)
    Loop.objects.filter(pk=loop_question.loop_id).update(
        last_activity_at=timezone.now() - timedelta(hours=2))
    assert services.loop_expire_idle() == 1


def test_follow_up_needs_a_scored_answer_with_pushback(loop_question):
    answer = services.answer_submit(loop_question=loop_question, text="Leave headroom.").answer
    with pytest.raises(ValidationError, match="no pushback"):
        services.follow_up_submit(loop_question=loop_question, text="I would load test.")
    fake_score(answer)
    first = services.follow_up_submit(loop_question=loop_question, text="I would load test.")
    second = services.follow_up_submit(loop_question=loop_question, text="Again")
    assert first.created and not second.created
    assert first.answer.kind == Answer.Kind.FOLLOW_UP
    assert first.answer.scoring_status == Answer.ScoringStatus.QUEUED


def test_finishing_closes_the_loop_and_requests_a_debrief(loop_question):
    loop = loop_question.loop
    assert services.loop_finish(loop=loop) is True
    loop.refresh_from_db()
    assert loop.status == Loop.Status.FINISHED and loop.finished_at is not None
    assert Debrief.objects.filter(loop=loop, version=1).exists()
    assert services.loop_finish(loop=loop) is False  # a second finish asks for nothing more
    assert Debrief.objects.filter(loop=loop).count() == 1
    with pytest.raises(services.LoopClosed):
        services.draft_save(loop_question=loop_question, text="after the end")


def test_full_loop_from_the_bundled_bank_snapshots_every_question(candidate, bundled_bank):
    loop = services.loop_start(candidate=candidate, bank=bundled_bank, format=Loop.Format.FULL)
    lqs = list(loop.loop_questions.all())
    assert len(lqs) == bundled_bank.topics.filter(questions__isnull=False).distinct().count()
    assert all(lq.snapshot["spec"]["prompt"] == lq.snapshot["prompt"] for lq in lqs)


@pytest.mark.django_db(transaction=True)
def test_an_answer_racing_a_finish_is_refused_not_lost(candidate):
    """loop_finish and answer_submit lock the same loop row: an answer that arrives after the
    finish has committed is refused with LoopClosed instead of slipping past the debrief."""
    import threading

    from django.db import connection, transaction

    from tests.interviews.data import make_bank

    loop = services.loop_start(candidate=candidate, bank=make_bank(topics=1, per_topic=1),
                               format=Loop.Format.SINGLE)
    loop_question = loop.loop_questions.get()
    services.loop_question_show(loop_question=loop_question)
    finished = threading.Event()
    release = threading.Event()

    def finish_slowly() -> None:
        with transaction.atomic():
            locked = Loop.objects.select_for_update().get(pk=loop.pk)
            locked.finish()
            finished.set()
            release.wait(5)  # hold the row lock while the answer tries to get in
        connection.close()

    worker = threading.Thread(target=finish_slowly)
    worker.start()
    assert finished.wait(5)
    threading.Timer(0.5, release.set).start()
    with pytest.raises(services.LoopClosed):
        services.answer_submit(loop_question=loop_question, text="I would keep headroom.")
    worker.join()
    assert not loop_question.answers.exists()
