"""Debriefs converge: a version written while a score was missing is provisional, says which
question, and the late score (or the sweep, when that trigger is lost) writes the next one."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.urls import reverse
from django.utils import timezone

from interviews.models import Answer
from scoring import debriefs, reports
from scoring.models import Debrief
from tests.factories import UserFactory
from tests.scoring.test_reports import _score, build_finished_loop

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def _no_broker(monkeypatch):
    """Record what would be sent instead of talking to Redis."""
    sent: list[tuple[str, int]] = []
    monkeypatch.setattr("scoring.enqueue.enqueue",
                        lambda name, object_id: sent.append((name, object_id)) or True)
    return sent


def written_after_the_wait(loop) -> Debrief:
    """A debrief requested long enough ago that the build no longer waits for scores."""
    debrief = reports.debrief_request(loop=loop)
    Debrief.objects.filter(pk=debrief.pk).update(
        created_at=timezone.now() - reports.SCORING_WAIT - timedelta(seconds=1))
    reports.debrief_build(debrief_id=debrief.pk)
    debriefs.debrief_mark_provisional(debrief_id=debrief.pk)
    debrief.refresh_from_db()
    return debrief


def score_late(loop, position: int) -> Answer:
    answer = Answer.objects.get(loop_question__loop=loop, loop_question__position=position)
    _score(answer, answer.text, set(), 50.0)
    Answer.objects.filter(pk=answer.pk).update(scoring_status=Answer.ScoringStatus.SCORED)
    return answer


def test_written_with_a_pending_score_it_is_provisional_and_names_the_question():
    loop = build_finished_loop(UserFactory(), questions=5, unscored=(5,))
    debrief = written_after_the_wait(loop)
    assert debrief.status == Debrief.Status.READY
    assert debrief.provisional is True
    assert debrief.pending_questions == [5]


def test_the_late_score_writes_the_next_version_which_is_final():
    loop = build_finished_loop(UserFactory(), questions=5, unscored=(5,))
    first = written_after_the_wait(loop)
    answer = score_late(loop, 5)

    second = debriefs.debrief_converge_for_answer(answer_id=answer.pk)
    assert second is not None and second.version == first.version + 1
    assert second.reason == "Late score for Q5"
    reports.debrief_build(debrief_id=second.pk)
    debriefs.debrief_mark_provisional(debrief_id=second.pk)
    second.refresh_from_db()
    assert second.provisional is False
    assert all(q["scored"] for q in second.report["questions"])
    first.refresh_from_db()
    assert first.provisional is False  # superseded
    # Converging again changes nothing: one new version per late score.
    assert debriefs.debrief_converge(loop_id=loop.pk) is None


def test_a_score_landing_during_the_build_is_not_missed():
    """The check compares the stored report with the answers now, not a flag set earlier."""
    loop = build_finished_loop(UserFactory(), questions=3, unscored=(2,))
    debrief = reports.debrief_request(loop=loop)
    Debrief.objects.filter(pk=debrief.pk).update(
        created_at=timezone.now() - reports.SCORING_WAIT - timedelta(seconds=1))
    reports.debrief_build(debrief_id=debrief.pk)
    score_late(loop, 2)  # lands after the report was written, before it was marked
    debriefs.debrief_mark_provisional(debrief_id=debrief.pk)
    assert Debrief.objects.filter(loop=loop).count() == 2


def test_the_sweep_converges_when_the_trigger_was_lost():
    loop = build_finished_loop(UserFactory(), questions=5, unscored=(4,))
    first = written_after_the_wait(loop)
    score_late(loop, 4)  # the worker died before it could check the debrief
    assert [d.version for d in Debrief.objects.filter(loop=loop)] == [first.version]
    created = debriefs.provisional_sweep()
    assert len(created) == 1
    assert Debrief.objects.get(pk=created[0]).reason == "Late score for Q4"


def test_a_score_that_fails_for_good_ends_the_provisional_state_without_a_new_version():
    loop = build_finished_loop(UserFactory(), questions=3, unscored=(3,))
    debrief = written_after_the_wait(loop)
    Answer.objects.filter(loop_question__loop=loop, loop_question__position=3).update(
        scoring_status=Answer.ScoringStatus.FAILED)
    assert debriefs.provisional_sweep() == []
    debrief.refresh_from_db()
    assert debrief.provisional is False
    assert Debrief.objects.filter(loop=loop).count() == 1


def test_a_debrief_that_failed_for_want_of_scores_is_rewritten_when_one_arrives():
    loop = build_finished_loop(UserFactory(), questions=2, unscored=(1, 2))
    debrief = written_after_the_wait(loop)
    assert debrief.status == Debrief.Status.FAILED
    answer = score_late(loop, 1)
    again = debriefs.debrief_converge_for_answer(answer_id=answer.pk)
    assert again is not None and again.reason == "Scores arrived"


def test_candidate_sees_which_question_is_still_being_scored(client):
    candidate = UserFactory()
    loop = build_finished_loop(candidate, questions=5, unscored=(5,))
    written_after_the_wait(loop)
    client.force_login(candidate)
    page = client.get(reverse("scoring:debrief", kwargs={"public_id": loop.public_id}))
    assert "Provisional: Q5 is still being scored" in page.content.decode()


def test_a_final_debrief_says_nothing_about_being_provisional(client):
    candidate = UserFactory()
    loop = build_finished_loop(candidate, questions=2)
    written_after_the_wait(loop)
    client.force_login(candidate)
    page = client.get(reverse("scoring:debrief", kwargs={"public_id": loop.public_id}))
    assert "Provisional" not in page.content.decode()
