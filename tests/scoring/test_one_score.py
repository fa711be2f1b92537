"""One overridden loop, walked through every page and export: each shows the same figures
(scoring.results is the only place a question's score is decided), and no page shows the
candidate a reviewer's name."""

from __future__ import annotations

import re
import subprocess

import pytest
from django.urls import reverse

from interviews.models import Answer, Scorecard
from scoring import reports
from scoring.results import RATING_BANDS, loop_total, question_result
from tests.factories import UserFactory
from tests.scoring.test_reports import build_finished_loop

pytestmark = pytest.mark.django_db


def _fig(pattern: str, text: str) -> int:
    match = re.search(pattern, text, re.DOTALL)
    assert match, pattern
    return int(match.group(1))


@pytest.fixture
def overridden(candidate):
    """Scorecards on Q3 (Strong No Hire, rating 1) and Q5 (rating 4), a follow-up on Q2."""
    loop = build_finished_loop(candidate, quality="mixed", follow_up_on=(2,))
    reviewers = [UserFactory(username="dana_admin", first_name="Dana", last_name="Reviewer"),
                 UserFactory(username="lee_admin", first_name="Lee", last_name="Reviewer")]
    for reviewer, position, rating, vote, notes in (
            (reviewers[0], 3, 1, "strong_no_hire", "Never sized the fleet."),
            (reviewers[1], 5, 4, "hire", "Good canary plan.")):
        answer = Answer.objects.get(loop_question__loop=loop, loop_question__position=position)
        Scorecard.objects.create(answer=answer, interviewer=reviewer, rating=rating,
                                 recommendation=vote, notes=notes,
                                 verdicts={"canary": "made", "headroom": "missed"})
    reports.debrief_build(debrief_id=reports.debrief_request(loop=loop).pk)
    return loop


def test_every_page_and_export_shows_the_same_scores(client, candidate, admin_user,
                                                     overridden, tmp_path):
    loop = overridden
    lqs = list(loop.loop_questions.prefetch_related("answers__score", "answers__scorecards")
               .order_by("position"))
    expected = {lq.position: reports._whole(question_result(lq.answers.all()).total)
                for lq in lqs}
    overall = reports._whole(loop_total(lqs, unanswered_as_zero=True))
    # The overrides moved them into their ratings' bands.
    assert expected[3] <= RATING_BANDS[1][1] and expected[5] >= RATING_BANDS[4][0]
    client.force_login(candidate)
    seen: dict[str, str] = {}

    def page(name: str, url: str) -> str:
        response = client.get(url)
        assert response.status_code == 200, name
        seen[name] = body = response.content.decode()
        return body

    pid = {"public_id": loop.public_id}
    home = page("home", reverse("interviews:home"))
    assert _fig(r"(\d+)/100</td>", home) == overall
    summary = page("loop summary", reverse("interviews:loop_detail", kwargs=pid))
    for position in (2, 3, 5):
        assert _fig(rf"<td>{position}</td>.*?(\d+)/100", summary) == expected[position]
    for position in (3, 5):
        question = page(f"Q{position}", reverse("interviews:question",
                                                kwargs={**pid, "position": position}))
        assert _fig(r"Your answer: (\d+)/100", question) == expected[position]
    q3 = seen["Q3"]
    assert "Never sized the fleet." in q3 and "Interviewer 1" in q3 and "rating 1 of 4" in q3
    debrief = page("debrief", reverse("scoring:debrief", kwargs=pid))
    assert _fig(r"Overall <strong>(\d+)/100", debrief) == overall
    for position in (2, 3, 5):
        assert _fig(rf'id="q-{position}".*?<strong>(\d+)/100', debrief) == expected[position]
    progress = page("progress", reverse("scoring:progress"))
    assert _fig(r"<td><strong>(\d+)</strong></td>", progress) == overall
    markdown = page("markdown", reverse("scoring:debrief_markdown", kwargs=pid))
    assert _fig(r"Overall (\d+)/100", markdown) == overall
    for position in (2, 3, 5):
        assert _fig(rf"### Q{position}\..*?score (\d+)/100", markdown) == expected[position]
    pdf = tmp_path / "debrief.pdf"
    pdf.write_bytes(client.get(reverse("scoring:debrief_pdf", kwargs=pid)).content)
    text = subprocess.run(["pdftotext", str(pdf), "-"], check=True, capture_output=True,
                          text=True).stdout
    assert _fig(r"Overall (\d+)/100", text) == overall
    # Nothing the candidate sees names a reviewer (the bank hides names).
    for name, body in [*seen.items(), ("pdf", text)]:
        for secret in ("dana_admin", "lee_admin", "Reviewer"):
            assert secret not in body, (name, secret)
    # The interviewer's queue shows the same loop score.
    client.force_login(admin_user)
    queue = client.get(reverse("reviews:queue") + "?status=all").content.decode()
    assert _fig(r"<strong>(\d+)</strong>/100", queue) == overall


def test_interviewer_labels_stay_the_same_across_versions(overridden):
    """Interviewer 1 is whoever scored first on this loop, in every version."""
    loop = overridden
    first = reports.interviewer_labels(loop)
    # A third interviewer reviews an earlier question: nobody is renumbered.
    answer = Answer.objects.get(loop_question__loop=loop, loop_question__position=1)
    late = UserFactory(username="late_admin")
    Scorecard.objects.create(answer=answer, interviewer=late, rating=2, verdicts={},
                             recommendation="no_hire")
    reports.debrief_build(debrief_id=reports.debrief_request(loop=loop).pk)
    again = reports.interviewer_labels(loop)
    assert {k: again[k] for k in first} == first and again[late.pk] == "Interviewer 3"
    versions = list(loop.debriefs.order_by("version"))
    shown = [{h["interviewer_id"]: h["interviewer"]
              for h in reports.report_for_display(loop, d.report)["human_votes"]}
             for d in versions]
    for uid, label in shown[0].items():
        assert shown[1][uid] == label
