"""debrief_build against the real database: grounded, idempotent, patient, and human-aware."""

from __future__ import annotations

import time
from datetime import timedelta

import pytest
from django.utils import timezone

from interviews.models import Answer, Loop, LoopQuestion, Notification, Scorecard
from interviews.services import snapshot_for
from scoring import reports
from scoring.engines.base import rating_for_total
from scoring.models import Debrief, ScoreResult
from tests.factories import (
    BankFactory,
    CompensationBandFactory,
    CriterionFactory,
    PersonaFactory,
    QuestionFactory,
    TopicFactory,
    UserFactory,
)

ROLES = [("hiring_manager", "Dana (hiring manager)", 0.5), ("bar_raiser", "Morgan (bar raiser)",
         0.9), ("tech_lead", "Priya (tech lead)", 0.6), ("sre", "Sam (SRE)", 0.6),
         ("peer", "Alex (peer)", 0.3)]
POINTS = [
    ("headroom", "Leaves headroom under the contract",
     "We keep 20% headroom under the 20ms contract for jitter."),
    ("measured-rate", "Sizes the fleet from a measured per-GPU rate",
     "I size the fleet from a measured rate of 40 requests per second per GPU."),
    ("canary", "Waits for a stabilization window before judging the canary",
     "The canary runs through a 30 minute stabilization window before we judge it."),
]


def build_bank(*, decision_rule: str = "majority", topics: int = 5, show_names: bool = False):
    bank = BankFactory(decision_rule=decision_rule, show_reviewer_names=show_names)
    for role, name, strictness in ROLES:
        PersonaFactory(bank=bank, role=role, name=name, strictness=strictness)
    CompensationBandFactory(bank=bank)
    for t in range(topics):
        topic = TopicFactory(bank=bank, slug=f"topic-{t}", title=f"Topic {t}", order=t)
        for qn in range(2):
            question = QuestionFactory(topic=topic, slug=f"t{t}-q{qn}",
                                       prompt=f"Question {qn} on topic {t}?")
            for i, (key, label, _) in enumerate(POINTS):
                CriterionFactory(question=question, key=key, label=label, weight=2.0, order=i)
    return bank


def build_finished_loop(candidate, *, bank=None, quality: str = "strong", questions: int = 5,
                        follow_up_on: tuple[int, ...] = (), unscored: tuple[int, ...] = (),
                        overtime_on: tuple[int, ...] = ()) -> Loop:
    """A finished loop with scored answers, written straight to the database (no engine)."""
    bank = bank or build_bank()
    loop = Loop.objects.create(candidate=candidate, bank=bank, format=Loop.Format.FULL,
                               status=Loop.Status.FINISHED, finished_at=timezone.now())
    bank_questions = [t.questions.first() for t in bank.topics.order_by("order")][:questions]
    for position, question in enumerate(bank_questions, 1):
        lq = LoopQuestion.objects.create(
            loop=loop, question=question, position=position, rubric_version=1,
            snapshot=snapshot_for(question))  # exactly what loop_start stores
        if quality == "strong":
            text = " ".join(sentence for _, _, sentence in POINTS)
            made = {key for key, _, _ in POINTS}
            total = 92.0
        elif quality == "mixed":
            text = f"{POINTS[0][2]} Then we ship it to everyone at once."
            made = {POINTS[0][0]}
            total = 38.0
        else:
            text = "I am not sure. Maybe a bigger server would do."
            made = set()
            total = 4.0
        answer = Answer.objects.create(
            loop_question=lq, text=text, is_overtime=position in overtime_on,
            scoring_status=(Answer.ScoringStatus.QUEUED if position in unscored
                            else Answer.ScoringStatus.SCORED))
        if position not in unscored:
            _score(answer, text, made, total)
        if position in follow_up_on:
            follow = Answer.objects.create(
                loop_question=lq, kind=Answer.Kind.FOLLOW_UP,
                text=POINTS[1][2] + " " + POINTS[2][2],
                scoring_status=Answer.ScoringStatus.SCORED)
            _score(follow, f"{text}\n\n{follow.text}", {k for k, _, _ in POINTS}, 80.0)
    return loop


def _score(answer: Answer, text: str, made: set[str], total: float) -> ScoreResult:
    criteria = []
    for key, label, sentence in POINTS:
        hit = key in made
        start = text.find(sentence[:20]) if hit else -1
        criteria.append({
            "key": key, "label": label, "kind": "concept", "weight": 2.0,
            "verdict": "made" if hit else "missed", "credit": 1.0 if hit else 0.0,
            "evidence": [{"start": start + 3, "end": start + 15}] if hit else [],
            "feedback": "" if hit else f"Say it: {label.lower()}."})
    rating = rating_for_total(total)
    return ScoreResult.objects.create(
        answer=answer, engine="test", engine_version="1", rubric_version=1, total=total,
        rating=rating, criteria=criteria, feedback={"pushback": "How would you know it's safe?"})


def new_debrief(loop: Loop, reason: str = "Loop finished") -> Debrief:
    return reports.debrief_request(loop=loop, reason=reason)


@pytest.fixture
def strong_loop(candidate):
    return build_finished_loop(candidate)


def test_build_writes_a_report_grounded_in_the_candidates_answers(strong_loop):
    debrief = new_debrief(strong_loop)
    debrief = reports.debrief_build(debrief_id=debrief.pk)
    assert debrief.status == Debrief.Status.READY
    report = debrief.report
    assert len(report["questions"]) == 5 and len(report["votes"]) == 5
    assert report["decision"]["outcome"] == "hire"
    assert report["tally"]["text"] == "5-0 to hire"
    texts = " ".join(Answer.objects.filter(loop_question__loop=strong_loop)
                     .values_list("text", flat=True))
    quotes = [quote for q in report["questions"] for c in q["made"] for quote in c["quotes"]]
    assert quotes and all(quote in texts for quote in quotes)
    assert "We keep 20% headroom under the 20ms contract for jitter." in quotes
    assert report["offer"]["base"] >= 185_000 and report["loop"]["bank_title"]
    assert Notification.objects.filter(user=strong_loop.candidate,
                                       message__contains="5-0 to hire").count() == 1


def test_build_twice_is_harmless(strong_loop):
    debrief = new_debrief(strong_loop)
    first = reports.debrief_build(debrief_id=debrief.pk).report
    second = reports.debrief_build(debrief_id=debrief.pk)
    assert second.report == first
    assert Notification.objects.count() == 1
    assert reports.debrief_build(debrief_id=999_999) is None


def test_same_scores_give_the_same_report_in_a_new_version(strong_loop):
    one = reports.debrief_build(debrief_id=new_debrief(strong_loop).pk)
    two = reports.debrief_build(debrief_id=new_debrief(strong_loop, "Score changed").pk)
    assert (one.version, two.version) == (1, 2)
    assert Debrief.objects.filter(loop=strong_loop).count() == 2  # the old one is kept
    strip = ("version", "reason", "generated_at")
    assert {k: v for k, v in one.report.items() if k not in strip} == \
        {k: v for k, v in two.report.items() if k not in strip}


def test_empty_answers_are_rejected_unanimously_with_a_practice_plan(candidate):
    loop = build_finished_loop(candidate, quality="empty")
    report = reports.debrief_build(debrief_id=new_debrief(loop).pk).report
    assert report["tally"]["text"] == "0-5 to reject"
    assert report["offer"] is None
    assert len(report["practice"]) == 3
    assert all(item["questions"] for item in report["practice"])


def test_waits_for_answers_still_being_scored_then_writes_without_them(candidate):
    loop = build_finished_loop(candidate, unscored=(2,))
    debrief = new_debrief(loop)
    with pytest.raises(reports.ScoresPending):
        reports.debrief_build(debrief_id=debrief.pk)
    debrief.refresh_from_db()
    assert debrief.status == Debrief.Status.PENDING
    later = timezone.now() + reports.SCORING_WAIT + timedelta(seconds=1)
    debrief = reports.debrief_build(debrief_id=debrief.pk, now=later)
    assert debrief.status == Debrief.Status.READY
    q2 = debrief.report["questions"][1]
    assert q2["score"] is None and not q2["scored"]
    assert any("Q2" in note for note in debrief.report["notes"])


def test_follow_up_recovers_half_the_gain_and_is_shown(candidate):
    loop = build_finished_loop(candidate, quality="mixed", follow_up_on=(1,), overtime_on=(3,))
    report = reports.debrief_build(debrief_id=new_debrief(loop).pk).report
    q1, q3 = report["questions"][0], report["questions"][2]
    assert (q1["initial_total"], q1["follow_up_total"], q1["score"]) == (38.0, 80.0, 59.0)
    assert q1["follow_up_prompt"] == "How would you know it's safe?"
    assert {c["key"] for c in q1["made"]} == {"headroom", "measured-rate", "canary"}
    assert q3["overtime"] and not q1["overtime"]


def test_a_scorecard_overrides_the_automatic_verdicts_and_adds_a_human_vote(candidate):
    loop = build_finished_loop(candidate, quality="mixed")
    answer = Answer.objects.get(loop_question__loop=loop, loop_question__position=2)
    Scorecard.objects.create(
        answer=answer, interviewer=UserFactory(username="rev", first_name="Riley"),
        verdicts={"canary": "made", "headroom": "missed"}, rating=3,
        recommendation=Scorecard.Recommendation.HIRE, notes="Solid on rollouts.")
    report = reports.debrief_build(debrief_id=new_debrief(loop).pk).report
    q2 = report["questions"][1]
    assert {c["key"] for c in q2["made"]} == {"canary"}
    assert "headroom" in {c["key"] for c in q2["missed"]}
    assert q2["human_reviewed"] and q2["rating"] == 3 and 60 <= q2["score"] < 80
    reviewer_id = answer.scorecards.get().interviewer_id
    # Stored by id; shown as a label rendered when the page is drawn.
    assert report["human_votes"] == [{
        "interviewer": f"{{interviewer:{reviewer_id}}}", "interviewer_id": reviewer_id,
        "recommendation": "hire", "question_position": 2,
        "rating": 3, "notes": "Solid on rollouts.", "recommendation_label": "Hire"}]
    shown = reports.report_for_display(loop, report)
    assert shown["human_votes"][0]["interviewer"] == "Interviewer 1"
    # No vote may call the overridden point missing.
    for vote in report["votes"]:
        for cite in vote["cites"]:
            if cite["position"] == 2 and cite["key"] == "canary":
                assert cite["status"] == "made"


def test_a_better_answer_does_not_lower_the_panel(candidate):
    weak = reports.debrief_build(debrief_id=new_debrief(
        build_finished_loop(candidate, quality="mixed")).pk).report
    strong = reports.debrief_build(debrief_id=new_debrief(
        build_finished_loop(candidate, quality="strong")).pk).report
    order = ["strong_no_hire", "no_hire", "hire", "strong_hire"]
    for w, s in zip(weak["votes"], strong["votes"], strict=True):
        assert order.index(s["vote"]) >= order.index(w["vote"])


@pytest.mark.worker
@pytest.mark.django_db(transaction=True)
def test_the_real_task_builds_the_debrief_through_a_worker():
    from celery.contrib.testing.worker import start_worker

    from config.celery import app

    candidate = UserFactory(username="worker_candidate")
    loop = build_finished_loop(candidate)
    with start_worker(app, pool="solo", perform_ping_check=False):
        debrief = new_debrief(loop)  # autocommit: on_commit fires at once and enqueues
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            debrief.refresh_from_db()
            if debrief.status != Debrief.Status.PENDING:
                break
            time.sleep(0.2)
    assert debrief.status == Debrief.Status.READY
    assert debrief.report["tally"]["text"] == "5-0 to hire"


def test_the_candidates_calculation_is_shown_beside_the_correct_one(candidate):
    from scoring.models import ScoreResult

    loop = build_finished_loop(candidate, questions=1)
    line = "You wrote 50,000 / 40 = 1,000 GPUs; the correct result is 50,000 / 40 = 1,250 GPUs."
    ScoreResult.objects.filter(answer__loop_question__loop=loop).update(
        feedback={"pushback": "Check the division?", "calculations": [line]})
    debrief = reports.debrief_build(debrief_id=new_debrief(loop).pk)
    assert debrief.report["questions"][0]["calculations"] == [line]
    assert f"- Calculation: {line}" in reports.report_markdown(debrief.report)


def test_markdown_rounds_like_the_page(candidate):
    """26.5 is 27 on the page (|floatformat:0 rounds half up); the download must agree."""
    from django.template.defaultfilters import floatformat

    debrief = reports.debrief_build(debrief_id=new_debrief(build_finished_loop(candidate)).pk)
    report = {**debrief.report, "overall": 26.5}
    assert f"Overall {floatformat(26.5, 0)}/100." in reports.report_markdown(report)
