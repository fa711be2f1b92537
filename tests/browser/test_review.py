"""Browser: an interviewer reviews a loop (flips a criterion, submits) and the candidate's
debrief shows the human vote; calibration and the candidate's notice are rendered too."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from django.urls import reverse
from playwright.sync_api import Page, expect

from scoring import reports
from scoring.models import Debrief
from tests.browser.pages import log_in_with_form as log_in
from tests.factories import UserFactory
from tests.scoring.test_reports import build_bank, build_finished_loop

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True),
              pytest.mark.usefixtures("no_broker_messages")]
SHOTS = Path(os.environ.get("MOCKLOOP_SCREENSHOTS", "/tmp/mockloop-review"))  # noqa: S108


def build_pending_debrief(loop) -> Debrief:
    return Debrief.objects.filter(loop=loop, status=Debrief.Status.PENDING).latest("version")


def test_interviewer_flips_a_criterion_and_the_candidate_sees_the_human_vote(page: Page,
                                                                             live_server):
    SHOTS.mkdir(parents=True, exist_ok=True)
    candidate = UserFactory(username="review_candidate")
    interviewer = UserFactory(username="review_interviewer", interviewer=True)
    loop = build_finished_loop(candidate, bank=build_bank(topics=3), questions=3)
    loop.reviewers.add(interviewer)
    reports.debrief_build(debrief_id=reports.debrief_request(loop=loop).pk)

    log_in(page, live_server, "review_interviewer")
    page.get_by_role("link", name="Review", exact=True).click()
    expect(page.get_by_role("heading", name="Review queue")).to_be_visible()
    expect(page.get_by_role("cell", name="92/100")).to_be_visible()  # the automatic score
    page.screenshot(path=str(SHOTS / "queue.png"), full_page=True)

    page.get_by_role("link", name="Review review_candidate's").click()
    expect(page.get_by_role("heading", name="review_candidate's loop")).to_be_visible()
    page.screenshot(path=str(SHOTS / "loop.png"), full_page=True)
    page.get_by_role("link", name="Score Q1 answer").click()

    canary = page.get_by_role("group", name="Waits for a stabilization window")
    expect(canary.get_by_label("Made")).to_be_checked()  # the automatic verdict is the draft
    page.screenshot(path=str(SHOTS / "scorecard-form.png"), full_page=True)
    canary.get_by_label("Missed").check()
    page.get_by_role("group", name="Rating").get_by_label("2 — Weak").check()
    page.get_by_label("No Hire", exact=True).check()
    page.get_by_label("Notes for the candidate").fill("Never says how the canary is judged.")
    page.get_by_role("button", name="Submit scorecard").click()

    expect(page.get_by_text("Scorecard submitted")).to_be_visible()
    expect(page.get_by_text("flipped from made")).to_be_visible()
    page.screenshot(path=str(SHOTS / "scorecard-submitted.png"), full_page=True)

    reports.debrief_build(debrief_id=build_pending_debrief(loop).pk)  # as the task would

    page.get_by_role("link", name="Calibration").click()
    expect(page.get_by_role("heading", name="Criteria interviewers flip most")).to_be_visible()
    expect(page.get_by_role("img", name="Criteria interviewers flip most often")).to_be_visible()
    page.screenshot(path=str(SHOTS / "calibration.png"), full_page=True)

    page.context.clear_cookies()
    log_in(page, live_server, "review_candidate")
    notices = page.get_by_role("region", name="New for you")
    expect(notices).to_contain_text("An interviewer reviewed your answer to Q1")
    page.screenshot(path=str(SHOTS / "home-notifications.png"), full_page=True)
    notices.get_by_role("link", name="An interviewer reviewed").click()
    expect(page.get_by_role("heading", name="Interviewers' scorecards")).to_be_visible()
    human = page.locator(".panel-votes.human")
    expect(human).to_contain_text("No Hire")
    expect(human).to_contain_text("Never says how the canary is judged.")
    expect(human).to_contain_text("Interviewer 1")
    expect(human).not_to_contain_text("review_interviewer")  # names hidden by default
    page.screenshot(path=str(SHOTS / "debrief-human-vote.png"), full_page=True)

    page.goto(f"{live_server.url}{reverse('interviews:home')}")
    page.get_by_role("button", name="Mark all as read").click()
    expect(page.get_by_role("region", name="New for you")).to_have_count(0)


def test_an_htmx_submit_during_a_database_outage_shows_the_alert_and_keeps_the_text(
        page: Page, live_server, monkeypatch):
    """htmx does not swap a 503 by itself: site.js lets the outage fragment into #outage."""
    from django.db import OperationalError

    candidate = UserFactory(username="outage_candidate")
    interviewer = UserFactory(username="outage_interviewer", interviewer=True)
    loop = build_finished_loop(candidate, bank=build_bank(topics=1), questions=1)
    loop.reviewers.add(interviewer)

    log_in(page, live_server, "outage_interviewer")
    page.goto(live_server.url + reverse("reviews:scorecard", kwargs={
        "public_id": loop.public_id, "position": 1, "kind": "initial"}))
    page.get_by_role("group", name="Rating").get_by_label("2 — Weak").check()
    page.get_by_label("No Hire", exact=True).check()
    page.get_by_label("Notes for the candidate").fill("Kept through the outage.")

    def down(**kwargs):
        raise OperationalError("connection failed: Connection refused")

    monkeypatch.setattr("interviews.reviews.views.scorecard_submit", down)
    with page.expect_response(lambda r: r.status == 503):
        page.get_by_role("button", name="Submit scorecard").click()
    alert = page.locator("#outage").get_by_role("alert")
    expect(alert).to_be_visible()
    expect(alert).to_contain_text("Nothing you typed is lost")
    expect(page.get_by_label("Notes for the candidate")).to_have_value(
        "Kept through the outage.")
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SHOTS / "outage-alert.png"), full_page=True)
