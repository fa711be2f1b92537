"""The candidate's loop in real headless Chromium: htmx, the timer, autosave, feedback."""

from __future__ import annotations

import re
import time

import pytest
from django.urls import reverse
from playwright.sync_api import Page, expect

from interviews import services
from interviews.models import Answer, Loop
from tests.browser.conftest import SHOTS
from tests.interviews.data import fake_score, make_bank

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

GOOD_ANSWER = ("Target 15ms p99 internally so we leave headroom for network jitter under the "
               "20ms contract. Kernel launch overhead is about 2ms, so I would trade batch size "
               "against queueing delay and load test with per-stage tracing to measure it.")


def question_url(live_server, loop, position=1):
    return live_server.url + reverse("interviews:question", args=[loop.public_id, position])


def start_loop(candidate, **kwargs):
    bank = make_bank(**{"topics": 2, "per_topic": 1, **kwargs})
    return services.loop_start(candidate=candidate, bank=bank, format=Loop.Format.FULL)


def test_sign_up_and_land_on_practice(page: Page, live_server, db):
    make_bank(topics=1, per_topic=1)
    page.goto(live_server.url + reverse("login"))
    page.screenshot(path=f"{SHOTS}/login.png", full_page=True)
    page.get_by_role("link", name="Sign up").first.click()
    page.get_by_label("Username").fill("first_timer")
    page.get_by_label("Password", exact=True).fill("a-long-unusual-phrase-42")
    page.get_by_label("Password confirmation").fill("a-long-unusual-phrase-42")
    page.screenshot(path=f"{SHOTS}/signup.png", full_page=True)
    page.get_by_role("button", name="Sign up").click()
    expect(page).to_have_url(live_server.url + "/")
    expect(page.get_by_role("heading", name="Practice")).to_be_visible()
    expect(page.get_by_text("first_timer")).to_be_visible()
    expect(page.get_by_role("button", name="Start")).to_be_visible()
    page.screenshot(path=f"{SHOTS}/home_new.png", full_page=True)


def test_full_loop_end_to_end_with_the_real_worker(page: Page, live_server, candidate,
                                                    login_as, celery_worker):
    bank = make_bank(topics=2, per_topic=1)
    login_as(candidate)
    page.goto(live_server.url + "/")
    page.get_by_role("button", name="Start").click()  # the default format is the full loop
    expect(page.get_by_role("heading", name="Question 1 of 2", exact=True)).to_be_visible()
    page.screenshot(path=f"{SHOTS}/question.png", full_page=True)
    for position in (1, 2):
        page.get_by_label("Your answer").fill(GOOD_ANSWER)
        page.get_by_role("button", name="Submit answer").click()
        # Scored by the worker; the page updates itself (htmx polling), no reload.
        expect(page.locator(".score-total")).to_be_visible(timeout=20_000)
        expect(page.locator("#score-announcer")).to_contain_text("Your answer is scored")
        # The model answer waits for the reply to the pushback, or for the candidate to skip it.
        skip = page.get_by_role("button", name="Skip the follow-up and see the model answer")
        if skip.count():
            expect(page.get_by_role("heading", name="Model answer")).to_have_count(0)
            skip.click()
        expect(page.get_by_role("heading", name="Model answer")).to_be_visible()
        page.screenshot(path=f"{SHOTS}/feedback_{position}.png", full_page=True)
        if position == 1:
            page.get_by_role("link", name="Next question").click()
            expect(page.get_by_role("heading", name="Question 2 of 2", exact=True)).to_be_visible()
    page.get_by_role("button", name="Finish loop and see the debrief").click()
    loop = Loop.objects.get(candidate=candidate, bank=bank)
    expect(page).to_have_url(live_server.url + reverse("scoring:debrief",
                                                       args=[loop.public_id]))
    assert loop.status == Loop.Status.FINISHED
    assert Answer.objects.filter(loop_question__loop=loop,
                                 scoring_status=Answer.ScoringStatus.SCORED).count() == 2
    page.screenshot(path=f"{SHOTS}/debrief.png", full_page=True)
    page.goto(live_server.url + "/")
    expect(page.get_by_role("cell", name="Finished")).to_be_visible()
    page.screenshot(path=f"{SHOTS}/home_after.png", full_page=True)


def test_autosave_survives_a_reload_and_a_lost_connection(page: Page, context, live_server,
                                                           candidate, login_as):
    loop = start_loop(candidate)
    login_as(candidate)
    page.goto(question_url(live_server, loop))
    box = page.get_by_label("Your answer")
    box.fill("First, the latency budget.")
    expect(page.locator("#draft-status")).to_contain_text("Saved", timeout=8_000)
    page.reload()
    expect(page.get_by_label("Your answer")).to_have_value("First, the latency budget.")
    assert loop.loop_questions.get(position=1).draft == "First, the latency budget."

    # The connection drops while typing; the tab is then closed. Nothing typed is lost.
    context.set_offline(True)
    page.get_by_label("Your answer").press("Control+End")
    page.get_by_label("Your answer").press_sequentially(" Then batching.")
    expect(page.locator("#draft-status")).to_contain_text("Not saved", timeout=8_000)
    page.close()
    context.set_offline(False)
    second = context.new_page()
    second.goto(question_url(live_server, loop))
    expect(second.get_by_label("Your answer")).to_have_value(
        "First, the latency budget. Then batching.")
    expect(second.locator("#draft-status")).to_contain_text("Saved", timeout=8_000)
    second.screenshot(path=f"{SHOTS}/restored.png", full_page=True)
    # The restored text reached the server too.
    assert loop.loop_questions.get(position=1).draft.endswith("Then batching.")


def test_double_submit_stores_one_answer(page: Page, context, live_server, candidate,
                                          login_as):
    loop = start_loop(candidate)
    login_as(candidate)
    other_tab = context.new_page()
    other_tab.goto(question_url(live_server, loop))
    page.goto(question_url(live_server, loop))
    page.get_by_label("Your answer").fill("Answer from the first tab.")
    page.get_by_role("button", name="Submit answer").dblclick()
    # The end state of a submit (scoring may be under way or already done): the results.
    expect(page.locator("#results-heading")).to_be_visible()
    other_tab.get_by_label("Your answer").fill("Answer from the second tab.")
    other_tab.get_by_role("button", name="Submit answer").click()
    expect(other_tab.get_by_text("the first answer was kept")).to_be_visible()
    other_tab.screenshot(path=f"{SHOTS}/second_tab.png", full_page=True)
    answers = Answer.objects.filter(loop_question__loop=loop)
    assert answers.count() == 1
    assert answers.get().text == "Answer from the first tab."


def test_countdown_runs_out_and_the_answer_is_marked_overtime(page: Page, live_server,
                                                               candidate, login_as):
    loop = start_loop(candidate, time_limit_seconds=3)
    login_as(candidate)
    page.goto(question_url(live_server, loop))
    clock = page.locator("#timer-clock")
    expect(clock).to_have_text(re.compile(r"0:0[0-3]"))
    expect(page.locator("#timer-note")).to_contain_text("Time's up", timeout=6_000)
    expect(clock).to_have_text("0:00")
    page.screenshot(path=f"{SHOTS}/overtime_timer.png", full_page=True)
    time.sleep(2.5)  # past the server's grace for network latency
    page.get_by_label("Your answer").fill("Late, but here is my design.")
    page.get_by_role("button", name="Submit answer").click()
    expect(page.locator(".overtime-mark")).to_have_text("Overtime")
    assert Answer.objects.get(loop_question__loop=loop).is_overtime


def test_keyboard_only_submit_with_ctrl_enter(page: Page, live_server, candidate, login_as):
    loop = start_loop(candidate)
    login_as(candidate)
    page.goto(question_url(live_server, loop))
    page.keyboard.press("Tab")  # skip link first: keyboard users reach the content
    expect(page.get_by_role("link", name="Skip to content")).to_be_focused()
    page.get_by_label("Your answer").focus()
    page.keyboard.type("Typed and submitted from the keyboard.")
    page.keyboard.press("Control+Enter")
    expect(page.locator("#results-heading")).to_be_visible()
    # Focus moves to the results heading after the swap.
    expect(page.locator("#results-heading")).to_be_focused()
    assert Answer.objects.get(loop_question__loop=loop).text == (
        "Typed and submitted from the keyboard.")


def test_refused_answer_keeps_the_text_and_says_why(page: Page, live_server, candidate,
                                                    login_as):
    loop = start_loop(candidate)
    login_as(candidate)
    page.set_viewport_size({"width": 390, "height": 844})  # phone-sized
    page.goto(question_url(live_server, loop))
    page.get_by_label("Your answer").fill("   ")
    page.get_by_role("button", name="Submit answer").click()
    expect(page.get_by_role("alert")).to_contain_text("the box is empty")
    expect(page.get_by_label("Your answer")).to_be_focused()
    page.screenshot(path=f"{SHOTS}/refused_phone.png", full_page=True)
    assert not Answer.objects.exists()


def test_feedback_highlights_show_the_criterion_on_hover_and_focus(page: Page, live_server,
                                                                    candidate, login_as):
    loop = start_loop(candidate)
    login_as(candidate)
    page.goto(question_url(live_server, loop))
    evidence = "I would leave headroom for network jitter."
    page.get_by_label("Your answer").fill(f"We set 25ms. {evidence} Then ship it.")
    page.get_by_role("button", name="Submit answer").click()
    expect(page.locator("#results-heading")).to_be_visible()
    fake_score(Answer.objects.get(loop_question__loop=loop), evidence_text=evidence)
    mark = page.locator("mark.evidence")
    expect(mark).to_be_visible(timeout=8_000)  # arrived by polling, no reload
    expect(mark).to_have_attribute("title", "Earned: Leaves headroom under the contract")
    assert mark.inner_text().startswith(evidence)
    mark.focus()
    tip = mark.evaluate("el => getComputedStyle(el, '::after').content")
    assert "Leaves headroom under the contract" in tip
    described = mark.get_attribute("aria-describedby")
    expect(page.locator(f"#{described}")).to_contain_text("Leaves headroom under the contract")
    expect(page.get_by_text("How would you know you actually hit the budget")).to_be_visible()
    expect(page.get_by_role("cell", name="20ms contract - 5ms network jitter = 15ms p99")
           ).to_be_visible()
    page.screenshot(path=f"{SHOTS}/highlights.png", full_page=True)
    # One reply to the pushback.
    page.get_by_label(re.compile("Your reply")).fill("I would load test with tracing.")
    expect(page.get_by_role("heading", name="Model answer")).to_have_count(0)
    page.get_by_role("button", name="Reply to the interviewer").click()
    expect(page.locator("#panel-follow_up")).to_be_visible()
    expect(page.get_by_role("heading", name="Model answer")).to_be_visible()
    assert Answer.objects.filter(loop_question__loop=loop, kind="follow_up").count() == 1


def test_save_draft_button_keeps_the_answer_box(page: Page, live_server, candidate, login_as):
    loop = start_loop(candidate)
    login_as(candidate)
    page.goto(question_url(live_server, loop))
    # Typed and saved at once: the click must not wait for (or be undone by) the autosave.
    page.get_by_label("Your answer").fill("Saved by the button.")
    page.get_by_role("button", name="Save draft").click()
    expect(page.locator("#draft-status")).to_contain_text("Saved", timeout=8_000)
    # Only the status changed: the box, the timer and the buttons are all still there.
    expect(page.get_by_label("Your answer")).to_have_value("Saved by the button.")
    expect(page.locator("#timer-clock")).to_be_visible()
    expect(page.get_by_role("button", name="Submit answer")).to_be_visible()
    expect(page.locator("#question-body #draft-status")).to_have_count(1)
    assert loop.loop_questions.get(position=1).draft == "Saved by the button."
    page.evaluate("localStorage.clear()")  # the server's copy alone restores it
    page.reload()
    expect(page.get_by_label("Your answer")).to_have_value("Saved by the button.")


def clock_seconds(page: Page) -> int:
    minutes, seconds = page.locator("#timer-clock").inner_text().split(":")
    return int(minutes) * 60 + int(seconds)


def test_countdown_keeps_running_through_autosaves(page: Page, live_server, candidate,
                                                   login_as):
    loop = start_loop(candidate, time_limit_seconds=30)
    login_as(candidate)
    page.goto(question_url(live_server, loop))
    announcer = page.locator("#timer-announcer")
    expect(announcer).to_have_text("One minute left.")  # under a minute from the start
    page.evaluate("document.getElementById('timer-announcer').textContent = ''")
    time.sleep(3)
    before = clock_seconds(page)
    assert before <= 28
    page.get_by_label("Your answer").fill("Typing while the clock runs.")
    expect(page.locator("#draft-status")).to_contain_text("Saved", timeout=8_000)  # autosave
    page.wait_for_timeout(1_200)
    after = clock_seconds(page)
    assert after < before, f"the clock went from {before}s back to {after}s"
    assert after <= 30 - 4
    # The warning is not repeated by the saves.
    expect(announcer).to_have_text("")


def test_clicking_submit_sends_no_autosave_after_the_answer(page: Page, live_server, candidate,
                                                          login_as):
    """The click on Submit blurs the box; its autosave must not chase the submit."""
    loop = start_loop(candidate)
    login_as(candidate)
    sent: list[str] = []
    page.on("request", lambda request: sent.append(request.url) if request.method == "POST"
            else None)
    page.goto(question_url(live_server, loop))
    page.get_by_label("Your answer").fill("Submitted with a click, right after typing.")
    page.get_by_role("button", name="Submit answer").click()
    expect(page.locator("#results-heading")).to_be_visible()
    page.wait_for_timeout(2_500)  # past the blur's delay and the typing delay
    submits = [i for i, url in enumerate(sent) if url.endswith("/answer/")]
    assert len(submits) == 1
    assert not [url for url in sent[submits[0]:] if url.endswith("/draft/")], sent
    lq = loop.loop_questions.get(position=1)
    assert lq.draft == "Submitted with a click, right after typing."
    assert Answer.objects.get(loop_question=lq).text == lq.draft
