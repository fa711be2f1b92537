"""The admin's question preview in the candidate's styling, and the interviewer's scorecard
showing the answer with the evidence highlights the candidate saw."""

from __future__ import annotations

import pytest
from django.urls import reverse

from interviews import services
from interviews.models import Answer, Loop
from scoring.models import ScoreResult
from tests.factories import CriterionFactory, QuestionFactory
from tests.interviews.data import fake_score, make_bank

pytestmark = pytest.mark.django_db

EVIDENCE = "I would leave headroom for network jitter."


def test_question_preview_uses_the_candidate_page_and_minutes(client, admin_user):
    question = QuestionFactory(time_limit_seconds=900)
    CriterionFactory(question=question)
    client.force_login(admin_user)
    response = client.get(reverse("admin:interviews_question_preview", args=[question.pk]))
    assert response.status_code == 200
    html = response.content.decode()
    assert "15 min" in html and "900 s" not in html
    assert "/static/css/app.css" in html and "admin/css/base.css" not in html
    # The same markup as the candidate's page: the folded scenario and the sticky prompt.
    assert 'id="question-context"' in html and 'class="question-sticky"' in html
    assert question.prompt in html and "Leaves headroom under the contract" in html
    assert 'style="' not in html  # nothing inline under the CSP


def test_question_preview_stays_staff_only(client, candidate):
    question = QuestionFactory()
    client.force_login(candidate)
    response = client.get(reverse("admin:interviews_question_preview", args=[question.pk]))
    assert response.status_code == 302 and "/admin/login/" in response.url


@pytest.fixture
def reviewed(candidate, interviewer):
    bank = make_bank(topics=1, per_topic=1)
    loop = services.loop_start(candidate=candidate, bank=bank, format=Loop.Format.SINGLE)
    answer = services.answer_submit(loop_question=loop.loop_questions.get(),
                                    text=f"We set 25ms. {EVIDENCE} Then ship it.").answer
    result = fake_score(answer, evidence_text=EVIDENCE)
    result.criteria = [*result.criteria, {
        "key": "no-bake", "label": "Pitfall: no bake window", "kind": "pitfall",
        "verdict": "missed", "weight": 1.0, "credit": 0.0, "evidence": [], "feedback": ""}]
    result.save()
    services.loop_finish(loop=loop)
    loop.reviewers.add(interviewer)
    return loop, answer


def test_scorecard_shows_the_answer_with_the_candidate_s_highlights(client, interviewer,
                                                                    reviewed, monkeypatch):
    monkeypatch.setattr("scoring.tasks.build_debrief.delay", lambda *a, **k: None)
    loop, answer = reviewed
    client.force_login(interviewer)
    html = client.get(reverse("reviews:scorecard", args=[loop.public_id, 1, "initial"])
                      ).content.decode()
    assert '<mark class="evidence made"' in html
    assert f"{EVIDENCE}" in html.split('<mark class="evidence made"', 1)[1].split("</mark>")[0]
    assert 'title="Earned: Leaves headroom under the contract"' in html


def test_scorecard_reads_an_avoided_pitfall_as_avoided(client, interviewer, reviewed):
    loop, _ = reviewed
    client.force_login(interviewer)
    html = client.get(reverse("reviews:scorecard", args=[loop.public_id, 1, "initial"])
                      ).content.decode()
    pitfall = html.split("Pitfall: no bake window", 1)[1].split("</fieldset>", 1)[0]
    assert "Automatic: <strong>Avoided</strong>" in pitfall
    assert "Missed" not in pitfall.split('<div class="radios">')[0]


def test_scorecard_of_a_follow_up_highlights_the_reply_only(client, interviewer, candidate):
    bank = make_bank(topics=1, per_topic=1)
    loop = services.loop_start(candidate=candidate, bank=bank, format=Loop.Format.SINGLE)
    lq = loop.loop_questions.get()
    first = services.answer_submit(loop_question=lq, text="First answer here.").answer
    fake_score(first)
    reply = services.follow_up_submit(loop_question=lq, text=f"{EVIDENCE} More.").answer
    # The follow-up's spans are on "first answer + blank line + reply", as the scorer sees it.
    start = len(first.text) + 2
    ScoreResult.objects.create(
        answer=reply, engine="fake", engine_version="1", rubric_version=1, total=70, rating=3,
        criteria=[{"key": "headroom", "label": "Leaves headroom under the contract",
                   "kind": "concept", "verdict": "made", "weight": 2.0, "credit": 1.0,
                   "evidence": [{"start": start, "end": start + len(EVIDENCE)}]}],
        numbers=[], feedback={})
    Answer.objects.filter(pk=reply.pk).update(scoring_status=Answer.ScoringStatus.SCORED)
    services.loop_finish(loop=loop)
    loop.reviewers.add(interviewer)
    client.force_login(interviewer)
    html = client.get(reverse("reviews:scorecard", args=[loop.public_id, 1, "follow_up"])
                      ).content.decode()
    marked = html.split('<mark class="evidence made"', 1)[1].split("<span", 1)[0]
    assert marked.split(">", 1)[1] == EVIDENCE
