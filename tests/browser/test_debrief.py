"""Browser: a finished loop's debrief updates itself, shows the panel, tally and chart, prints.

Self-contained: the finished loop is built in the database (no dependency on the loop UI), and
the Chromium launch arguments are set here in case tests/browser/conftest.py does not exist.
"""

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
from tests.scoring.test_reports import build_finished_loop

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True),
              pytest.mark.usefixtures("no_broker_messages")]
ARTIFACTS = Path(os.environ.get("MOCKLOOP_SCREENSHOTS", "/tmp/mockloop-debrief"))  # noqa: S108


def test_debrief_updates_itself_then_shows_panel_tally_chart_and_prints(page: Page, live_server):
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    candidate = UserFactory(username="browser_candidate")
    loop = build_finished_loop(candidate, quality="strong", follow_up_on=(2,))
    debrief = reports.debrief_request(loop=loop)
    log_in(page, live_server, "browser_candidate")

    page.goto(f"{live_server.url}{reverse('scoring:debrief', args=[loop.public_id])}")
    expect(page.get_by_text("The panel is meeting")).to_be_visible()
    page.screenshot(path=str(ARTIFACTS / "debrief-pending.png"), full_page=True)

    reports.debrief_build(debrief_id=debrief.pk)  # as the task would; the page polls every 2s
    expect(page.get_by_test_id("tally")).to_contain_text("5-0 to hire", timeout=10_000)
    expect(page.get_by_role("status").first).to_contain_text("The debrief is ready")
    expect(page.locator(".panel-votes > li")).to_have_count(5)
    chart = page.get_by_role("img", name="Score per topic (0 to 100)")
    expect(chart).to_be_visible()
    expect(page.get_by_role("table").first).to_contain_text("Topic 0")
    page.screenshot(path=str(ARTIFACTS / "debrief-ready.png"), full_page=True)

    page.set_viewport_size({"width": 794, "height": 1123})  # A4 at 96 dpi
    page.emulate_media(media="print")
    expect(page.locator(".site-header")).to_be_hidden()
    expect(page.get_by_role("button", name="Print")).to_be_hidden()
    expect(page.get_by_test_id("tally")).to_be_visible()
    page.screenshot(path=str(ARTIFACTS / "debrief-print.png"), full_page=True)
    pdf = page.pdf(path=str(ARTIFACTS / "debrief-print.pdf"), format="A4")
    assert pdf.startswith(b"%PDF")
    assert Debrief.objects.get(pk=debrief.pk).status == Debrief.Status.READY


def test_rejected_debrief_and_progress_page(page: Page, live_server):
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    candidate = UserFactory(username="browser_candidate2")
    for quality in ("empty", "mixed", "strong"):
        loop = build_finished_loop(candidate, quality=quality)
        reports.debrief_build(debrief_id=reports.debrief_request(loop=loop).pk)
    log_in(page, live_server, "browser_candidate2")
    page.goto(f"{live_server.url}{reverse('scoring:debrief', args=[loop.public_id])}")
    expect(page.get_by_test_id("tally")).to_contain_text("to hire")
    first = candidate.loops.order_by("started_at").first()
    page.goto(f"{live_server.url}{reverse('scoring:debrief', args=[first.public_id])}")
    expect(page.get_by_test_id("tally")).to_contain_text("0-5 to reject")
    expect(page.get_by_role("heading", name="Practise these first")).to_be_visible()
    page.screenshot(path=str(ARTIFACTS / "debrief-reject.png"), full_page=True)
    page.goto(f"{live_server.url}{reverse('scoring:progress')}")
    expect(page.get_by_role("img", name="Scores over time, overall and per topic (0 to 100)")
           ).to_be_visible()
    expect(page.get_by_role("heading", name="Your weakest criteria")).to_be_visible()
    page.screenshot(path=str(ARTIFACTS / "progress.png"), full_page=True)


def test_another_candidate_cannot_open_the_debrief(page: Page, live_server):
    owner = UserFactory(username="owner_c")
    UserFactory(username="intruder_c")
    loop = build_finished_loop(owner)
    log_in(page, live_server, "intruder_c")
    response = page.goto(f"{live_server.url}{reverse('scoring:debrief', args=[loop.public_id])}")
    assert response is not None and response.status == 404


def test_two_scorecards_one_strong_no_hire_change_the_decision_and_no_name_leaks(
        page: Page, live_server, tmp_path):
    """The issue's "done when": two interviewers' scorecards (one Strong No Hire) change the
    tally and decision by the README's rule; the five rationales differ and the bar raiser
    names the wrong arithmetic; no reviewer's name reaches the candidate; the PDF is the print
    view (its pages are rendered to images under ARTIFACTS)."""
    import subprocess

    from interviews.models import Answer
    from interviews.reviews.services import scorecard_submit
    from scoring.models import ScoreResult

    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    candidate = UserFactory(username="committee_candidate")
    loop = build_finished_loop(candidate, quality="strong")
    wrong = "You wrote 50,000 / 40 = 1,000 GPUs; the correct result is 1,250 GPUs."
    ScoreResult.objects.filter(answer__loop_question__loop=loop,
                               answer__loop_question__position=2).update(
        feedback={"calculations": [wrong]})
    for username, position, vote, rating in (("ivy_reviewer", 3, "strong_no_hire", 1),
                                             ("ken_reviewer", 5, "hire", 3)):
        reviewer = UserFactory(username=username, first_name=username.title(), is_staff=True)
        answer = Answer.objects.select_related("loop_question__loop__bank").get(
            loop_question__loop=loop, loop_question__position=position)
        scorecard_submit(answer=answer, interviewer=reviewer, verdicts={}, rating=rating,
                         recommendation=vote, notes=f"Notes on Q{position}.")
    for debrief in loop.debriefs.filter(status="pending"):
        reports.debrief_build(debrief_id=debrief.pk)

    log_in(page, live_server, "committee_candidate")
    page.goto(f"{live_server.url}{reverse('scoring:debrief', args=[loop.public_id])}")
    tally = page.get_by_test_id("tally")
    expect(tally).to_contain_text("blocked by an interviewer's Strong No Hire: reject")
    expect(page.get_by_role("heading", name="Decision: No hire")).to_be_visible()
    expect(page.locator(".factors")).to_contain_text("Interviewer 1 voted Strong No Hire on Q3")
    rationales = page.locator(".panel-votes[data-testid=panel] .rationale").all_inner_texts()
    assert len(rationales) == 5 and len(set(rationales)) == 5
    sentences = [s for r in rationales for s in r.split(". ")]
    assert len(sentences) == len(set(sentences)), "two personas share a sentence"
    bar_raiser = page.locator(".vote", has_text="Bar raiser").locator(".rationale")
    expect(bar_raiser).to_contain_text("Q2 has wrong arithmetic")
    expect(page.get_by_test_id("dissent")).to_be_visible()
    body = page.locator("body").inner_text()
    for secret in ("ivy_reviewer", "ken_reviewer", "Ivy_Reviewer", "Ken_Reviewer"):
        assert secret not in body
    page.screenshot(path=str(ARTIFACTS / "debrief-committee.png"), full_page=True)

    with page.expect_download() as download_info:
        page.get_by_role("link", name="Download PDF").click()
    pdf = tmp_path / "debrief.pdf"
    download_info.value.save_as(pdf)
    text = subprocess.run(["pdftotext", str(pdf), "-"], check=True, capture_output=True,
                          text=True).stdout
    assert "Decision: No hire" in text and "ivy_reviewer" not in text
    subprocess.run(["pdftoppm", "-png", "-r", "60", str(pdf),
                    str(ARTIFACTS / "debrief-committee-pdf")], check=True)
    assert list(ARTIFACTS.glob("debrief-committee-pdf-*.png"))
