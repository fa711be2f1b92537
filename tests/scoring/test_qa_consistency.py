"""QA pass on main: figures and verdicts the candidate reads agree with each other.

A question's rating is its counted score's own; once an interviewer has reviewed a question,
its page leads with the interviewer's result and keeps the automatic one only as the
superseded view."""

from __future__ import annotations

import re
import subprocess

import pytest
from django.urls import reverse

from interviews.models import Answer, Scorecard
from scoring import reports
from scoring.results import RATING_BANDS, question_result
from tests.factories import UserFactory
from tests.scoring.test_reports import build_finished_loop

pytestmark = pytest.mark.django_db


def test_a_follow_up_questions_rating_is_the_band_of_the_score_it_counts(client, candidate,
                                                                          tmp_path):
    # Q2: 38 on the answer, 80 with the follow-up: it counts 59, rating 2 (band 35-59), not
    # the follow-up's own rating 4.
    loop = build_finished_loop(candidate, quality="mixed", follow_up_on=(2,))
    lq = loop.loop_questions.get(position=2)
    result = question_result(lq.answers.prefetch_related("scorecards").select_related("score"))
    assert (result.total, result.rating) == (59.0, 2)
    reports.debrief_build(debrief_id=reports.debrief_request(loop=loop).pk)
    client.force_login(candidate)
    pid = {"public_id": loop.public_id}
    debrief = client.get(reverse("scoring:debrief", kwargs=pid)).content.decode()
    assert re.search(r'id="q-2".*?<strong>59/100</strong> · rating 2/4', debrief, re.DOTALL)
    markdown = client.get(reverse("scoring:debrief_markdown", kwargs=pid)).content.decode()
    assert re.search(r"### Q2\..*?score 59/100 · rating 2/4", markdown, re.DOTALL)
    pdf = tmp_path / "debrief.pdf"
    pdf.write_bytes(client.get(reverse("scoring:debrief_pdf", kwargs=pid)).content)
    text = subprocess.run(["pdftotext", str(pdf), "-"], check=True, capture_output=True,
                          text=True).stdout
    assert re.search(r"59/100\s*·\s*rating\s*2/4", text), text
    assert not re.search(r"59/100\s*·\s*rating\s*4/4", text)


def test_a_reviewed_question_leads_with_the_interviewers_result(client, candidate):
    loop = build_finished_loop(candidate, quality="strong")
    answer = Answer.objects.get(loop_question__loop=loop, loop_question__position=3)
    # The engine made every point (92/100, rating 4) and praised each; the interviewer
    # contradicts one.
    score = answer.score
    for c in score.criteria:
        c["feedback"] = f"Well done: {c['label'].lower()}."
    score.feedback = {**score.feedback, "summary": "A strong answer.",
                      "strengths": [c["feedback"] for c in score.criteria]}
    score.save()
    Scorecard.objects.create(answer=answer, interviewer=UserFactory(), rating=1,
                             recommendation="strong_no_hire", notes="Wrong on headroom.",
                             verdicts={"headroom": "contradicted"})
    client.force_login(candidate)
    body = client.get(reverse("interviews:question", kwargs={
        "public_id": loop.public_id, "position": 3})).content.decode()
    band_top = int(RATING_BANDS[1][1])  # a rating-1 review moves it to the top of that band
    assert f"counts as <strong>{band_top}/100</strong>, rating 1 of 4" in body
    # No competing headline: the automatic 92 appears only labelled as superseded.
    assert "Rating 4 of 4" not in body and "Strong hire" not in body
    assert re.search(r"Automatic scorer's view, superseded by the interviewer's review: "
                     r"92/100, rating 4 of 4", body)
    assert "92/100" not in body.replace("review: 92/100", "")
    # The contradicted point is neither highlighted as earned nor praised.
    assert re.search(r"<strong>[^<]*headroom[^<]*</strong> — Contradicted", body, re.I)
    assert not re.search(r"Earned: [^;\"]*headroom", body, re.I)
    assert "Contradicted <span class=\"hint\">(highlighted below)" not in body
    assert "Well done: leaves headroom" not in body and "A strong answer." not in body
    assert "Well done: waits for a stabilization window" in body  # praise that still holds


def test_a_contradicted_point_is_said_as_stated_wrongly_not_missed(client, candidate):
    loop = build_finished_loop(candidate, quality="strong", questions=2)
    answer = Answer.objects.get(loop_question__loop=loop, loop_question__position=2)
    Scorecard.objects.create(answer=answer, interviewer=UserFactory(), rating=1,
                             recommendation="strong_no_hire", verdicts={"headroom": "contradicted"})
    reports.debrief_build(debrief_id=reports.debrief_request(loop=loop).pk)
    client.force_login(candidate)
    pid = {"public_id": loop.public_id}
    debrief = client.get(reverse("scoring:debrief", kwargs=pid)).content.decode()
    q2 = debrief[debrief.index('id="q-2"'):]
    assert '<span class="verdict">Stated wrongly:</span> Leaves headroom' in q2
    assert '<span class="verdict">Missed:</span> Leaves headroom' not in q2
    markdown = client.get(reverse("scoring:debrief_markdown", kwargs=pid)).content.decode()
    assert "- Stated wrongly: Leaves headroom" in markdown
    assert "left out \u201cLeaves headroom" not in debrief and "Omitted \u201cLeaves" not in debrief
