"""The question page on a phone (390x844) and a laptop (1280x800), in real Chromium: the
answer box on the first screen, the prompt and countdown in view while typing, the scenario
folded on a phone; and a weak criterion on the progress page starting a drill."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.db.models.functions import Length
from django.urls import reverse
from django.utils import timezone
from playwright.sync_api import Page, expect

from interviews import services
from interviews.models import Loop, LoopQuestion, Question
from tests.browser.conftest import SHOTS
from tests.interviews.test_practice import MARGIN, drill_bank, finished_loop_with_report

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

PHONE = {"width": 390, "height": 844}
LAPTOP = {"width": 1280, "height": 800}
LONG_ANSWER = "\n".join(f"Line {n}: batching, queueing and the p99 budget." for n in range(60))


def longest_question_loop(candidate, bundled_bank) -> Loop:
    """A loop on the bundled question with the longest prompt: the hardest case to fit."""
    question = (Question.objects.filter(topic__bank=bundled_bank)
                .annotate(n=Length("prompt")).order_by("-n").first())
    now = timezone.now()
    loop = Loop.objects.create(candidate=candidate, bank=bundled_bank,
                               format=Loop.Format.SINGLE, started_at=now, last_activity_at=now)
    LoopQuestion.objects.create(loop=loop, question=question, position=1,
                                snapshot=services.snapshot_for(question),
                                rubric_version=question.rubric_version)
    return loop


def in_viewport(page: Page, selector: str) -> bool:
    box = page.locator(selector).bounding_box()
    height = page.viewport_size["height"]
    return box is not None and box["y"] >= -1 and box["y"] + box["height"] <= height + 1


@pytest.mark.parametrize(("size", "name"), [(PHONE, "phone"), (LAPTOP, "laptop")])
def test_box_on_the_first_screen_and_prompt_and_countdown_stay_in_view(
        page: Page, live_server, candidate, login_as, bundled_bank, size, name):
    loop = longest_question_loop(candidate, bundled_bank)
    login_as(candidate)
    page.set_viewport_size(size)
    page.goto(live_server.url + reverse("interviews:question", args=[loop.public_id, 1]))
    box = page.get_by_label("Your answer")
    expect(box).to_be_visible()
    top = box.bounding_box()["y"]
    # The box starts on the first screen with room to type in it (at least 120 px shown).
    assert top + 120 <= size["height"], f"answer box starts at y={top:.0f} on {name}"
    page.screenshot(path=f"{SHOTS}/question_{name}.png")

    context = page.locator("#question-context")
    if name == "phone":
        expect(context).not_to_have_attribute("open", "")  # folded, one tap away
        context.locator("summary").click()
        expect(context.get_by_role("heading", name="Constraints")).to_be_visible()
        page.screenshot(path=f"{SHOTS}/question_{name}_context_open.png", full_page=True)
        context.locator("summary").click()
    else:
        expect(context).to_have_attribute("open", "")
        expect(context.get_by_role("heading", name="Scenario")).to_be_visible()

    # Type a long answer, then scroll to the bottom of the box as someone typing would.
    box.click()
    box.fill(LONG_ANSWER)
    box.press("Control+End")
    expect(box).to_be_focused()
    page.evaluate("window.scrollTo(0, document.body.scrollHeight)")
    page.wait_for_timeout(200)
    assert page.evaluate("window.scrollY") > 200  # the page really scrolled
    expect(page.locator("#timer-clock")).to_be_visible()
    assert in_viewport(page, "#timer-clock"), "the countdown scrolled out of view"
    assert in_viewport(page, "#prompt-heading"), "the prompt scrolled out of view"
    prompt = page.locator("#prompt").bounding_box()
    assert prompt["y"] < size["height"] / 2 and prompt["height"] > 20
    # Scrolled back into the box's middle, both are still in view.
    box.evaluate("el => el.scrollIntoView({block: 'center'})")
    assert in_viewport(page, "#timer-clock") and in_viewport(page, "#prompt-heading")
    page.screenshot(path=f"{SHOTS}/question_{name}_typing.png")


def test_countdown_leaves_with_the_answer_box_after_the_submit(page: Page, live_server,
                                                               candidate, login_as,
                                                               bundled_bank):
    loop = longest_question_loop(candidate, bundled_bank)
    login_as(candidate)
    page.set_viewport_size(PHONE)
    page.goto(live_server.url + reverse("interviews:question", args=[loop.public_id, 1]))
    page.get_by_label("Your answer").fill("Keep 20% headroom and measure p99 with tracing.")
    page.get_by_role("button", name="Submit answer").click()
    expect(page.locator("#results-heading")).to_be_visible()
    expect(page.locator("#timer")).to_have_count(0)
    expect(page.locator("#prompt")).to_be_visible()
    # The feedback gets the whole screen: the prompt no longer sticks over the results.
    assert page.locator("#question-sticky").evaluate(
        "el => getComputedStyle(el).position") == "static"
    heading = page.locator("#results-heading").bounding_box()
    sticky = page.locator("#question-sticky").bounding_box()
    assert heading["y"] >= sticky["y"] + sticky["height"]
    page.screenshot(path=f"{SHOTS}/question_phone_results.png")


def test_a_weak_criterion_on_the_progress_page_starts_a_drill_that_trains_it(
        page: Page, live_server, candidate, login_as):
    bank, _ = drill_bank()
    now = timezone.now()
    finished_loop_with_report(candidate, bank, now - timedelta(days=1),
                              [([], [("margin", MARGIN)])])
    login_as(candidate)
    page.set_viewport_size(PHONE)
    page.goto(live_server.url + reverse("scoring:progress"))
    weak = page.locator(".weak-criterion").filter(has_text=MARGIN)
    expect(weak).to_be_visible()
    page.screenshot(path=f"{SHOTS}/progress_drills.png", full_page=True)
    weak.get_by_role("button", name="Drill it").click()
    expect(page.get_by_role("heading", name="Question 1 of 3")).to_be_visible()
    expect(page.locator(".drill-focus")).to_have_text(f"Drill: {MARGIN}")
    drill = Loop.objects.get(format=Loop.Format.DRILL)
    prompts = {lq.snapshot["prompt"] for lq in drill.loop_questions.all()}
    assert prompts == {"Prompt q-a?", "Prompt q-b?", "Prompt q-c?"}
    expect(page.locator("#prompt")).to_have_text(
        drill.loop_questions.get(position=1).snapshot["prompt"])
    page.screenshot(path=f"{SHOTS}/drill_question.png")
    # The home page suggests the same drill.
    page.goto(live_server.url + "/")
    expect(page.get_by_role("heading", name="Your next drill")).to_be_visible()
    expect(page.locator(".next-drill")).to_contain_text(MARGIN)
    page.screenshot(path=f"{SHOTS}/home_next_drill.png", full_page=True)


def test_admin_preview_looks_like_the_candidate_page(page: Page, live_server, admin_user,
                                                     login_as, bundled_bank):
    question = Question.objects.filter(topic__bank=bundled_bank).first()
    login_as(admin_user)
    page.set_viewport_size(LAPTOP)
    page.goto(live_server.url + reverse("admin:interviews_question_preview", args=[question.pk]))
    expect(page.locator(".question-sticky .prompt")).to_be_visible()
    expect(page.locator("#question-context")).to_have_attribute("open", "")
    expect(page.locator(".question-meta")).to_contain_text(
        f"{question.time_limit_seconds // 60} min")
    # The candidate's stylesheet is applied (the sticky prompt card), not the admin's.
    assert page.locator(".question-sticky").evaluate(
        "el => getComputedStyle(el).position") == "sticky"
    page.screenshot(path=f"{SHOTS}/admin_preview.png", full_page=True)
