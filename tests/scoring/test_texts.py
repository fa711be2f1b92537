"""Text that reads right: plurals, 'just now', no doubled labels, no self-contradiction, and
stored texts that fit their columns; ids in URLs are ASCII digits only."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.template.loader import render_to_string
from django.urls import reverse
from django.utils import timezone

from interviews.models import Answer, Notification, Scorecard
from interviews.reviews.services import scorecard_submit
from scoring import panel, reports
from scoring.models import Debrief
from scoring.text import ago, fit, plural
from tests.factories import UserFactory
from tests.scoring.test_panel import BAND
from tests.scoring.test_reports import build_finished_loop

pytestmark = pytest.mark.django_db


def test_plurals_agree_with_their_number():
    assert plural(1, "problem") == "1 problem" and plural(2, "problem") == "2 problems"
    one = render_to_string("admin/interviews/bank/import.html", {"errors": ["bad key"]})
    many = render_to_string("admin/interviews/bank/import.html", {"errors": ["a", "b"]})
    assert "Fix this problem:" in one and "Fix these 1" not in one
    assert "Fix these 2 problems:" in many


def test_just_now_never_zero_minutes_ago():
    now = timezone.now()
    assert ago(now - timedelta(seconds=20), now) == "just now"
    assert ago(now - timedelta(minutes=3), now) == "3\xa0minutes ago"
    html = render_to_string("reviews/_notifications.html", {"notifications": [
        Notification(message="Hi", created_at=now)]})
    assert "just now" in html and "0\xa0minutes" not in html


def test_no_doubled_labels(client, candidate):
    assert panel.plain_name("Dana (hiring manager)", "hiring_manager") == "Dana"
    assert panel.plain_name("Jordan (peer engineer)", "peer") == "Jordan"
    assert panel.plain_name("Kim (the quiet one)", "peer") == "Kim (the quiet one)"
    loop = build_finished_loop(candidate, quality="mixed", questions=1)  # "Dana (hiring manager)"
    score = Answer.objects.get(loop_question__loop=loop).score
    score.criteria = [*score.criteria, {
        "key": "avg", "label": "Pitfall: states the target as an average", "kind": "pitfall",
        "verdict": "made", "credit": 1.0, "weight": 1.0, "evidence": [], "feedback": ""}]
    score.save()
    reports.debrief_build(debrief_id=reports.debrief_request(loop=loop).pk)
    client.force_login(candidate)
    pid = {"public_id": loop.public_id}
    page = client.get(reverse("scoring:debrief", kwargs=pid)).content.decode()
    markdown = client.get(reverse("scoring:debrief_markdown", kwargs=pid)).content.decode()
    assert "States the target as an average" in page
    for text in (page, markdown):
        assert "Pitfall: Pitfall:" not in text and "Pitfall:</span> Pitfall:" not in text
        assert "pitfall \u201cPitfall:" not in text
        assert "(hiring manager) (Hiring manager)" not in text
        assert "(hiring manager)</strong> <span class=\"muted\">Hiring manager" not in text
    assert "<strong>Dana</strong> <span class=\"muted\">Hiring manager</span>" in page


def test_the_offer_never_says_zero_votes_move_it_up():
    votes = [panel.PersonaVote("peer", "Peer", "A", "hire", "Hire", 70, 70, .3, "x", [])] * 5
    offer = panel.make_offer(BAND, 75.0, votes)
    assert "0 of 5" not in " ".join(offer["reasons"])
    assert any("No one voted Strong Hire" in r for r in offer["reasons"])
    strong = [panel.PersonaVote("peer", "Peer", "A", "strong_hire", "Strong Hire", 90, 90, .3,
                                "x", [])]
    assert "1 of 1 vote was Strong Hire" in " ".join(
        panel.make_offer(BAND, 90.0, strong)["reasons"])


def test_an_overridden_miss_does_not_keep_the_engines_partly_note(candidate):
    loop = build_finished_loop(candidate, quality="mixed", questions=1)
    answer = Answer.objects.get(loop_question__loop=loop)
    score = answer.score
    score.criteria = [{**c, "verdict": "partly", "credit": 0.5,
                       "feedback": "Only partly covered"} if c["key"] == "canary" else c
                      for c in score.criteria]
    score.save()
    Scorecard.objects.create(answer=answer, interviewer=UserFactory(), rating=2,
                             recommendation="no_hire", verdicts={"canary": "missed"})
    report = reports.debrief_build(debrief_id=reports.debrief_request(loop=loop).pk).report
    missed = {c["key"]: c for c in report["questions"][0]["missed"]}
    assert "canary" in missed and "partly" not in missed["canary"]["feedback"].lower()


def test_long_names_and_titles_fit_their_columns(client, candidate):
    """A full name over 200 characters and a 200-character bank title: scorecards save."""
    loop = build_finished_loop(candidate, questions=1)
    loop.bank.title = "T" * 200
    loop.bank.show_reviewer_names = True
    loop.bank.save()
    reviewer = UserFactory(first_name="F" * 150, last_name="L" * 150, is_staff=True)
    answer = Answer.objects.select_related("loop_question__loop__bank").get(
        loop_question__loop=loop)
    card = scorecard_submit(answer=answer, interviewer=reviewer, verdicts={}, rating=3,
                            recommendation="hire", notes="ok")
    assert card.pk
    debrief = loop.debriefs.order_by("-version").first()
    assert len(debrief.reason) <= 200
    note = Notification.objects.filter(user=candidate).latest("created_at")
    assert len(note.message) <= 300 and note.message.endswith("\u2026")
    built = reports.debrief_build(debrief_id=debrief.pk)
    assert built.status == Debrief.Status.READY
    shown = reports.report_for_display(loop, built.report)
    assert len(shown["human_votes"][0]["interviewer"]) <= 80
    assert fit("x" * 10, limit=5) == "xxxx\u2026"


@pytest.mark.parametrize("version", ["²", "١", "1.0", "-1", "9" * 30, " 1"])
def test_debrief_versions_are_ascii_digits_only(client, candidate, version):
    loop = build_finished_loop(candidate, questions=1)
    reports.debrief_build(debrief_id=reports.debrief_request(loop=loop).pk)
    client.force_login(candidate)
    for name in ("debrief", "debrief_status", "debrief_markdown", "debrief_pdf"):
        url = reverse(f"scoring:{name}", kwargs={"public_id": loop.public_id})
        assert client.get(url, {"version": version}).status_code == 404, (name, version)
    url = reverse("scoring:debrief", kwargs={"public_id": loop.public_id})
    assert client.get(url, {"version": "1"}).status_code == 200


def test_old_versions_that_named_a_reviewer_or_admin_are_shown_without_the_name():
    labels = {7: "Interviewer 1"}
    assert reports.reason_text("Scorecard by admin on Q3", labels, show_names=False) == \
        "Scorecard on Q3"
    assert reports.reason_text("Requested by root", labels, show_names=False) == \
        "Requested by an admin"
    assert reports.reason_text("Scorecard by {interviewer:7} on Q3", labels,
                               show_names=False) == "Scorecard by Interviewer 1 on Q3"
    assert reports.reason_text("Loop finished", labels, show_names=False) == "Loop finished"
    # Candidate text quoted in a report is never rewritten, only ids are labelled.
    quoted = {"quotes": ["Scorecard by me on Q3", "Requested by the client"]}
    assert reports.render_labels(quoted, labels) == quoted
