"""Interviewers: who may see what (every role against every URL), scorecards overriding the
debrief, the queue's filters and query count, and calibration on a known set."""

from __future__ import annotations

import io
import json
from datetime import timedelta

import pytest
from django.core.management import CommandError, call_command
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse
from django.utils import timezone

from interviews.models import Answer, Bank, Loop, LoopQuestion, Notification, Scorecard
from interviews.reviews.services import (
    QUEUE_COUNT_CAP,
    QueueFilters,
    ScorecardRefused,
    loops_reviewable_by,
    queue_page,
    review_queue,
    scorecard_rows_for_calibration,
    scorecard_submit,
)
from scoring import reports
from scoring.models import Debrief, ScoreResult
from scoring.results import RATING_BANDS
from tests.factories import UserFactory
from tests.scoring.test_reports import build_bank, build_finished_loop

PASSWORD = "correct horse battery staple"
KEYS = ("headroom", "measured-rate", "canary")


@pytest.fixture(autouse=True)
def _no_broker(monkeypatch):
    """Debriefs are built synchronously in these tests; send nothing to Redis."""
    monkeypatch.setattr("scoring.tasks.build_debrief.delay", lambda *a, **k: None)


@pytest.fixture
def other_interviewer(db):
    return UserFactory(username="interviewer_2", interviewer=True)


@pytest.fixture
def world(candidate, other_candidate, interviewer, other_interviewer, admin_user):
    bank = build_bank(topics=2)
    loop = build_finished_loop(candidate, bank=bank, questions=2)
    loop.reviewers.add(interviewer)
    return {"bank": bank, "loop": loop, "anonymous": None, "candidate_a": candidate,
            "candidate_b": other_candidate, "interviewer_assigned": interviewer,
            "interviewer_not_assigned": other_interviewer, "admin": admin_user}


def card_data(**overrides) -> dict[str, str]:
    data = {f"c-{key}": "made" for key in KEYS}
    data.update({"rating": "3", "recommendation": "hire", "notes": "Clear and measured."})
    data.update(overrides)
    return data


# --- The permission matrix ------------------------------------------------------------------

ROLES = ["anonymous", "candidate_a", "candidate_b", "interviewer_assigned",
         "interviewer_not_assigned", "admin"]
LOGIN = "login"
# URL name -> expected status per role, in ROLES order. 302 for a POST is the redirect back to
# the scorecard; LOGIN is the redirect to log in.
MATRIX = {
    "queue": [LOGIN, 404, 404, 200, 200, 200],
    "loop_review": [LOGIN, 404, 404, 200, 404, 200],
    "scorecard_get": [LOGIN, 404, 404, 200, 404, 200],
    "scorecard_post": [LOGIN, 404, 404, 302, 404, 302],
    "calibration": [LOGIN, 404, 404, 200, 200, 200],
    # Not the reviewers' views: the candidate's own pages stay the candidate's. Interviewers
    # review through the review pages; the debrief view admits staff but not interviewers.
    "candidate_loop": [LOGIN, 200, 404, 404, 404, 404],
    "debrief": [LOGIN, 200, 404, 404, 404, 200],
}


def _assert_outcome(response, expected, case: str) -> None:
    if expected == LOGIN:
        assert response.status_code == 302, case
        assert response["Location"].startswith(reverse("login")), case
    else:
        assert response.status_code == expected, case


def _request(client, name: str, loop: Loop):
    pid = loop.public_id
    if name == "queue":
        return client.get(reverse("reviews:queue") + "?status=all")
    if name == "loop_review":
        return client.get(reverse("reviews:loop", args=[pid]))
    if name == "scorecard_get":
        return client.get(reverse("reviews:scorecard", args=[pid, 1, "initial"]))
    if name == "scorecard_post":
        return client.post(reverse("reviews:scorecard", args=[pid, 1, "initial"]), card_data())
    if name == "calibration":
        return client.get(reverse("reviews:calibration"))
    if name == "candidate_loop":
        return client.get(reverse("interviews:loop_detail", args=[pid]))
    return client.get(reverse("scoring:debrief", args=[pid]))


@pytest.mark.parametrize("name", list(MATRIX))
@pytest.mark.parametrize("role", ROLES)
def test_permission_matrix(client, world, role, name):
    expected = MATRIX[name][ROLES.index(role)]
    user = world[role]
    if user is not None:
        client.force_login(user)
    response = _request(client, name, world["loop"])
    _assert_outcome(response, expected, f"{role} on {name}")
    stored = Scorecard.objects.filter(answer__loop_question__loop=world["loop"]).count()
    assert stored == (1 if name == "scorecard_post" and expected == 302 else 0)


def test_queue_lists_only_reviewable_loops(client, world):
    client.force_login(world["interviewer_not_assigned"])
    response = client.get(reverse("reviews:queue") + "?status=all")
    assert str(world["loop"].public_id) not in response.content.decode()
    client.force_login(world["interviewer_assigned"])
    response = client.get(reverse("reviews:queue") + "?status=all")
    assert str(world["loop"].public_id) in response.content.decode()


def test_bank_reviewers_see_all_loops_only_when_the_bank_allows_it(world):
    reviewer = world["interviewer_not_assigned"]
    bank, loop = world["bank"], world["loop"]
    bank.reviewers.add(reviewer)
    assert not loops_reviewable_by(reviewer).filter(pk=loop.pk).exists()
    bank.reviewers_see_all_loops = True
    bank.save()
    assert loops_reviewable_by(reviewer).filter(pk=loop.pk).exists()
    # A candidate made a bank reviewer is still not an interviewer; nobody reviews their own.
    bank.reviewers.add(world["candidate_b"])
    assert not loops_reviewable_by(world["candidate_b"]).exists()
    own = build_finished_loop(reviewer, bank=bank, questions=1)
    assert not loops_reviewable_by(reviewer).filter(pk=own.pk).exists()


def test_unfinished_loops_are_not_reviewable(world):
    loop = world["loop"]
    Loop.objects.filter(pk=loop.pk).update(status=Loop.Status.IN_PROGRESS)
    assert not loops_reviewable_by(world["interviewer_assigned"]).exists()
    assert not loops_reviewable_by(world["admin"]).exists()


def test_notifications_can_only_be_marked_read_by_their_owner(client, world):
    mine = Notification.objects.create(user=world["candidate_a"], message="Hello")
    theirs = Notification.objects.create(user=world["candidate_b"], message="Hi")
    assert client.post(reverse("reviews:notifications_read")).status_code == 302
    client.force_login(world["candidate_a"])
    response = client.post(reverse("reviews:notifications_read"),
                           {"next": "https://evil.example/"})
    assert response["Location"] == reverse("interviews:home")
    mine.refresh_from_db()
    theirs.refresh_from_db()
    assert mine.read_at is not None and theirs.read_at is None


# --- Scorecards and the debrief -------------------------------------------------------------


def _answer(loop: Loop, position: int = 1) -> Answer:
    return Answer.objects.select_related("score", "loop_question__loop__bank").get(
        loop_question__loop=loop, loop_question__position=position, kind="initial")


def test_override_regenerates_the_debrief_with_the_human_vote(world):
    loop = world["loop"]
    first = reports.debrief_build(debrief_id=reports.debrief_request(loop=loop).pk)
    assert first.report["human_votes"] == []
    card = scorecard_submit(
        answer=_answer(loop), interviewer=world["interviewer_assigned"],
        verdicts={"headroom": "made", "measured-rate": "made", "canary": "missed"},
        rating=2, recommendation="no_hire", notes="Never says how the canary is judged.")
    assert card.submitted_at is not None and card.interviewer == world["interviewer_assigned"]

    latest = Debrief.objects.filter(loop=loop).order_by("-version").first()
    assert latest.version == 2 and latest.status == Debrief.Status.PENDING
    # Stored with the interviewer's id, never their username; labelled when shown.
    reviewer_id = world["interviewer_assigned"].pk
    assert latest.reason == f"Scorecard by {{interviewer:{reviewer_id}}} on Q1"
    assert "interviewer_1" not in latest.reason
    report = reports.debrief_build(debrief_id=latest.pk).report
    shown = reports.report_for_display(loop, report)
    assert shown["reason"] == "Scorecard by Interviewer 1 on Q1"
    assert shown["human_votes"] == [{
        "interviewer": "Interviewer 1", "interviewer_id": reviewer_id,
        "recommendation": "no_hire", "question_position": 1,
        "rating": 2, "notes": "Never says how the canary is judged.",
        "recommendation_label": "No Hire"}]
    q1 = report["questions"][0]
    assert q1["human_reviewed"] is True and q1["rating"] == 2
    assert "canary" in {c["key"] for c in q1["missed"]}
    assert first.report["questions"][0]["rating"] == 4  # the old version is kept as it was

    # One notice for the review (with a link to the debrief), one when the new version is ready.
    note = Notification.objects.get(user=world["candidate_a"], message__contains="reviewed")
    assert note.url == reverse("scoring:debrief", kwargs={"public_id": loop.public_id})
    assert "Q1" in note.message and "No Hire" in note.message


def test_reviewer_names_are_shown_only_when_the_bank_says_so(world):
    world["bank"].show_reviewer_names = True
    world["bank"].save()
    reviewer = world["interviewer_assigned"]
    reviewer.first_name, reviewer.last_name = "Ines", "Ortiz"
    reviewer.save()
    scorecard_submit(answer=_answer(world["loop"]), interviewer=reviewer,
                     verdicts={}, rating=4, recommendation="strong_hire")
    latest = Debrief.objects.filter(loop=world["loop"]).order_by("-version").first()
    report = reports.debrief_build(debrief_id=latest.pk).report
    shown = reports.report_for_display(world["loop"], report)
    assert shown["human_votes"][0]["interviewer"] == "Ines Ortiz"
    assert shown["reason"] == "Scorecard by Ines Ortiz on Q1"


def test_a_second_scorecard_by_the_same_interviewer_is_refused(world):
    answer = _answer(world["loop"])
    kwargs = {"answer": answer, "interviewer": world["interviewer_assigned"], "verdicts": {},
              "rating": 3, "recommendation": "hire"}
    scorecard_submit(**kwargs)
    with pytest.raises(ScorecardRefused):
        scorecard_submit(**{**kwargs, "rating": 1})
    assert Scorecard.objects.get(answer=answer).rating == 3
    assert Debrief.objects.filter(loop=world["loop"]).count() == 1  # no debrief for a refusal


def test_scorecard_rejects_unknown_criteria_and_bad_values(world):
    answer = _answer(world["loop"])
    who = world["interviewer_assigned"]
    for bad in ({"verdicts": {"nope": "made"}}, {"verdicts": {"canary": "great"}},
                {"rating": 5}, {"recommendation": "maybe"}):
        kwargs = {"verdicts": {}, "rating": 3, "recommendation": "hire", **bad}
        with pytest.raises(ValueError):  # noqa: PT011 - each message differs
            scorecard_submit(answer=answer, interviewer=who, **kwargs)
    assert not Scorecard.objects.exists()


def test_scorecard_form_is_prefilled_and_others_stay_hidden_until_yours_is_in(client, world):
    loop = world["loop"]
    world["loop"].reviewers.add(world["interviewer_not_assigned"])
    scorecard_submit(answer=_answer(loop), interviewer=world["interviewer_assigned"],
                     verdicts={"canary": "missed"}, rating=2, recommendation="no_hire",
                     notes="SECRET-NOTE from the first interviewer")
    url = reverse("reviews:scorecard", args=[loop.public_id, 1, "initial"])
    client.force_login(world["interviewer_not_assigned"])
    page = client.get(url).content.decode()
    assert "SECRET-NOTE" not in page
    assert "1 other scorecard will be shown" in page
    # The automatic verdicts are the draft: every criterion was made by the strong answer.
    for key in KEYS:
        assert f'name="c-{key}" value="made" id="id_c-{key}_0" required checked' in page
    assert 'name="rating" value="4" id="id_rating_0" required checked' in page

    response = client.post(url, card_data(**{"c-headroom": "partly"}), HTTP_HX_REQUEST="true")
    assert response.status_code == 200
    body = response.content.decode()
    assert "<html" not in body  # the partial only
    assert "SECRET-NOTE" in body and "flipped from made" in body


def test_invalid_scorecard_shows_errors(client, world):
    url = reverse("reviews:scorecard", args=[world["loop"].public_id, 1, "initial"])
    client.force_login(world["interviewer_assigned"])
    response = client.post(url, card_data(recommendation=""))
    assert response.status_code == 400
    assert "This field is required" in response.content.decode()
    response = client.post(url, card_data(recommendation=""), HTTP_HX_REQUEST="true")
    assert response.status_code == 200 and "This field is required" in response.content.decode()
    assert not Scorecard.objects.exists()


def test_resubmitting_through_the_page_says_it_is_final(client, world):
    url = reverse("reviews:scorecard", args=[world["loop"].public_id, 1, "initial"])
    client.force_login(world["interviewer_assigned"])
    client.post(url, card_data())
    response = client.post(url, card_data(rating="1"), follow=True)
    assert "already submitted" in response.content.decode()
    assert Scorecard.objects.get().rating == 3


def test_unknown_answer_kind_or_position_is_404(client, world):
    client.force_login(world["interviewer_assigned"])
    pid = world["loop"].public_id
    assert client.get(reverse("reviews:scorecard", args=[pid, 1, "follow_up"])).status_code \
        == 404
    assert client.get(reverse("reviews:scorecard", args=[pid, 9, "initial"])).status_code == 404


# --- The queue ------------------------------------------------------------------------------


def test_queue_filters_by_bank_topic_date_and_status(world):
    admin, loop = world["admin"], world["loop"]
    other_bank = build_bank(topics=1)
    other = build_finished_loop(world["candidate_b"], bank=other_bank, questions=1)
    Loop.objects.filter(pk=other.pk).update(finished_at=timezone.now() - timedelta(days=10))

    def ids(**kw) -> set[int]:
        return set(review_queue(admin, QueueFilters(**{"status": "all", **kw}))
                   .values_list("pk", flat=True))

    assert ids() == {loop.pk, other.pk}
    assert ids(bank=other_bank.slug) == {other.pk}
    topic = world["bank"].topics.order_by("order").last()  # loop's Q2 is from this topic
    assert ids(topic=topic.pk) == {loop.pk}
    today = timezone.localdate()
    assert ids(since=today - timedelta(days=1)) == {loop.pk}
    assert ids(until=today - timedelta(days=5)) == {other.pk}
    scorecard_submit(answer=_answer(loop), interviewer=admin, verdicts={}, rating=3,
                     recommendation="hire")
    assert ids(status="reviewed") == {loop.pk}
    assert ids(status="to_review") == {other.pk}
    assert ids(status="unreviewed") == {other.pk}


def test_queue_shows_the_debrief_score_and_counts_answers_not_follow_ups(world):
    loop = world["loop"]
    first = _answer(loop, 1)
    follow = Answer.objects.create(loop_question=first.loop_question, kind="follow_up",
                                   text="And a canary.", scoring_status="scored")
    ScoreResult.objects.create(answer=follow, engine="test", engine_version="1",
                               rubric_version=1, total=96.0, rating=4, criteria=[])
    Scorecard.objects.create(answer=_answer(loop, 2), interviewer=world["interviewer_assigned"],
                             verdicts={}, rating=1, recommendation="strong_no_hire")
    page, rows = queue_page(world["admin"], QueueFilters(status="all"), 1)
    row = next(r for r in rows if r.pk == loop.pk)
    assert row.answer_count == 2 and row.scorecard_count == 1  # the follow-up is not an answer
    report = reports.debrief_build(debrief_id=reports.debrief_request(loop=loop).pk).report
    # The rating-1 scorecard moves that answer to the top of the rating-1 band.
    assert row.score == report["overall"] == pytest.approx((94.0 + RATING_BANDS[1][1]) / 2,
                                                           abs=0.1)


def _bulk_loops(bank, candidate, n: int, lq_template: LoopQuestion) -> None:
    now = timezone.now()
    loops = Loop.objects.bulk_create([
        Loop(candidate=candidate, bank=bank, format=Loop.Format.SINGLE,
             status=Loop.Status.FINISHED, finished_at=now - timedelta(minutes=i))
        for i in range(n)])
    lqs = LoopQuestion.objects.bulk_create([
        LoopQuestion(loop=loop, question=lq_template.question, position=1,
                     snapshot=lq_template.snapshot, rubric_version=1) for loop in loops])
    answers = Answer.objects.bulk_create([
        Answer(loop_question=lq, text="An answer.", scoring_status="scored") for lq in lqs])
    ScoreResult.objects.bulk_create([
        ScoreResult(answer=a, engine="test", engine_version="1", rubric_version=1,
                    total=50.0, rating=2, criteria=[]) for a in answers])


def _queue_queries(client, query: str = "?status=all") -> tuple[int, str]:
    with CaptureQueriesContext(connection) as ctx:
        response = client.get(reverse("reviews:queue") + query)
    assert response.status_code == 200
    return len(ctx.captured_queries), response.content.decode()


@pytest.mark.parametrize("role", ["admin", "interviewer_assigned"])
def test_queue_query_count_does_not_grow_with_loops(client, world, role,
                                                    django_assert_max_num_queries):
    # The interviewer sees the bulk loops as a reviewer of a bank that shows all its loops.
    world["bank"].reviewers.add(world["interviewer_assigned"])
    Bank.objects.filter(pk=world["bank"].pk).update(reviewers_see_all_loops=True)
    template = LoopQuestion.objects.filter(loop=world["loop"]).first()
    _bulk_loops(world["bank"], world["candidate_b"], 9, template)
    client.force_login(world[role])
    small, page = _queue_queries(client)
    assert "10 loops" in page
    _bulk_loops(world["bank"], world["candidate_b"], 2990, template)
    large, page = _queue_queries(client)
    # Past the cap the count stops reading rows: "more than", and pages still go on.
    assert f"More than {QUEUE_COUNT_CAP} loops" in page and "page 1<" in page
    deep, page = _queue_queries(client, "?status=all&page=119")
    assert "page 119<" in page and 'rel="next"' in page and 'rel="prev"' in page
    last, page = _queue_queries(client, "?status=all&page=120")
    assert "page 120<" in page and 'rel="next"' not in page
    assert page.count('>Review<span class="sr-only">') == 25  # loops 2976-3000 reachable
    assert small == large == deep == last, (small, large, deep, last)
    # 10, plus loop questions, answers and scorecards for the page's scores (scoring.results).
    with django_assert_max_num_queries(13):
        client.get(reverse("reviews:queue") + "?status=to_review&page=60")


# --- Calibration ----------------------------------------------------------------------------


def _known_set(world) -> None:
    """Four loops whose automatic ratings 1..4 the interviewer matches exactly (perfect
    agreement), and who flips `canary` on every card and `headroom` on one."""
    bank = world["bank"]
    reviewer = world["interviewer_assigned"]
    for quality_total, rating in ((20.0, 1), (45.0, 2), (70.0, 3), (95.0, 4)):
        loop = build_finished_loop(world["candidate_a"], bank=bank, questions=1)
        loop.reviewers.add(reviewer)
        answer = _answer(loop)
        ScoreResult.objects.filter(answer=answer).update(total=quality_total, rating=rating)
        flips = {"canary": "missed"}
        if rating == 4:
            flips["headroom"] = "partly"
        scorecard_submit(answer=_answer(loop), interviewer=reviewer, verdicts=flips,
                         rating=rating, recommendation="hire")


def test_calibration_rows_and_page_on_a_known_set(client, world):
    _known_set(world)
    admin = world["admin"]
    rows = scorecard_rows_for_calibration()
    assert len(rows) == 4
    assert rows[0]["auto_verdicts"]["canary"] == "made"
    assert rows[0]["human_verdicts"] == {"headroom": "made", "measured-rate": "made",
                                         "canary": "missed"}
    # The unassigned interviewer's calibration covers no loop of theirs.
    assert scorecard_rows_for_calibration(user=world["interviewer_not_assigned"]) == []

    client.force_login(admin)
    page = client.get(reverse("reviews:calibration")).content.decode()
    overall = page[page.index('data-testid="overall"'):page.index("</dl>")]
    assert overall.count("1.00") == 3  # Pearson, Spearman, kappa
    criteria = page[page.index('data-testid="criteria"'):]
    assert criteria.index("Waits for a stabilization window") < criteria.index(
        "Leaves headroom") < criteria.index("Sizes the fleet")
    assert "4 of 4" in criteria and "made → missed ×4" in criteria
    assert "<title" in page and "<desc" in page  # the charts are labelled


def test_evaluate_scorer_reads_the_scorecards(world):
    _known_set(world)
    out = io.StringIO()
    call_command("evaluate_scorer", "--scorecards", stdout=out)
    report = json.loads(out.getvalue())
    assert report["mode"] == "scorecards"
    assert report["overall"] == {"n": 4, "pearson": 1.0, "spearman": 1.0, "qwk": 1.0,
                                 "exact": 1.0, "bias": 0.0}
    assert [c["key"] for c in report["most_flipped"]] == ["canary", "headroom"]
    with pytest.raises(CommandError):
        call_command("evaluate_scorer", "--scorecards", "--bank", "no-such-bank")


def test_admin_assigns_loops_to_an_interviewer(client, world):
    loop, reviewer = world["loop"], world["interviewer_not_assigned"]
    client.force_login(world["admin"])
    url = reverse("admin:interviews_loop_changelist")
    data = {"action": "assign_to_interviewer", "_selected_action": [loop.pk]}
    page = client.post(url, data)
    assert page.status_code == 200 and "Assign to an interviewer" in page.content.decode()
    response = client.post(url, {**data, "apply": "Assign", "interviewer": reviewer.pk})
    assert response.status_code == 302
    assert loops_reviewable_by(reviewer).filter(pk=loop.pk).exists()


# The candidate's own URLs and the debrief's downloads, with a ready debrief: only the candidate
# (and staff, for the debrief) get anything; everyone else gets 404 or is sent to log in.
OWNER_MATRIX = {
    "debrief_status": [LOGIN, 286, 404, 404, 404, 286],
    "debrief_markdown": [LOGIN, 200, 404, 404, 404, 200],
    "debrief_pdf": [LOGIN, 200, 404, 404, 404, 200],
    "question": [LOGIN, 200, 404, 404, 404, 404],
    "answer_status": [LOGIN, 302, 404, 404, 404, 404],
    "draft_save": [LOGIN, 302, 404, 404, 404, 404],
    "answer_submit": [LOGIN, 302, 404, 404, 404, 404],
    "loop_finish": [LOGIN, 302, 404, 404, 404, 404],
}


@pytest.fixture
def world_with_debrief(world):
    from scoring import reports

    reports.debrief_build(debrief_id=reports.debrief_request(loop=world["loop"]).pk)
    return world


def _owner_request(client, name: str, loop: Loop):
    pid = loop.public_id
    if name.startswith("debrief"):
        return client.get(reverse(f"scoring:{name}", args=[pid]))
    if name in {"question", "answer_status"}:
        return client.get(reverse(f"interviews:{name}", args=[pid, 1]))
    if name == "loop_finish":
        return client.post(reverse("interviews:loop_finish", args=[pid]))
    return client.post(reverse(f"interviews:{name}", args=[pid, 1]), {"text": "Sneaky edit."})


@pytest.mark.parametrize("name", list(OWNER_MATRIX))
@pytest.mark.parametrize("role", ROLES)
def test_owner_only_urls(client, world_with_debrief, role, name):
    expected = OWNER_MATRIX[name][ROLES.index(role)]
    user = world_with_debrief[role]
    if user is not None:
        client.force_login(user)
    loop = world_with_debrief["loop"]
    response = _owner_request(client, name, loop)
    _assert_outcome(response, expected, f"{role} on {name}")
    # Nobody changed the finished loop's answers.
    assert not loop.loop_questions.filter(answers__text="Sneaky edit.").exists()


def test_scorecards_know_their_loop_on_save_and_from_the_backfill(world):
    """The queue reads (interviewer, loop) from scorecards: set on save, and filled by the
    migration for scorecards written before the column existed."""
    import importlib

    from django.apps import apps

    loop = world["loop"]
    card = Scorecard.objects.create(answer=_answer(loop, 1),
                                    interviewer=world["interviewer_assigned"], verdicts={},
                                    rating=2, recommendation="no_hire")
    assert card.loop_id == loop.pk
    Scorecard.objects.filter(pk=card.pk).update(loop=None)
    migration = importlib.import_module("interviews.migrations.0004_issue11_scorecard_loop")
    migration.fill_loops(apps, None)
    card.refresh_from_db()
    assert card.loop_id == loop.pk
    _, rows = queue_page(world["interviewer_assigned"], QueueFilters(status="reviewed"), 1)
    assert [row.pk for row in rows] == [loop.pk]
