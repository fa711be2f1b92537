"""Candidate pages over HTTP: plain posts (no JavaScript) and htmx requests."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.urls import reverse
from django.utils import timezone

from interviews import services
from interviews.models import Answer, Loop, LoopQuestion
from scoring.models import Debrief
from tests.interviews.data import fake_score, make_bank

pytestmark = pytest.mark.django_db
HX = {"HX-Request": "true"}


@pytest.fixture
def bank():
    return make_bank(topics=3, per_topic=2)


@pytest.fixture
def loop(candidate, bank):
    return services.loop_start(candidate=candidate, bank=bank, format=Loop.Format.FULL)


@pytest.fixture
def cclient(client, candidate):
    client.force_login(candidate)
    return client


def url(name, loop, position=None):
    args = [loop.public_id] + ([position] if position is not None else [])
    return reverse(f"interviews:{name}", args=args)


def submit(client, loop, position=1, text="I would leave headroom for network jitter.", **kw):
    return client.post(url("answer_submit", loop, position), {"text": text}, **kw)


# --- Home ------------------------------------------------------------------------------------


def test_home_shows_each_format_s_total_length_before_starting(cclient):
    make_bank(topics=5, per_topic=3, time_limit_seconds=900)
    html = cclient.get(reverse("interviews:home")).content.decode()
    assert "5 questions × 15 min = 75 min" in html  # full loop: one per topic
    assert "3 questions × 15 min = 45 min" in html  # topic drill
    assert "1 question × 15 min = 15 min" in html


def test_home_length_says_about_when_time_limits_differ(cclient):
    bank = make_bank(topics=2, per_topic=1, time_limit_seconds=600)
    from interviews.models import Question

    Question.objects.filter(topic__bank=bank, topic__slug="topic-1").update(
        time_limit_seconds=1200)
    html = cclient.get(reverse("interviews:home")).content.decode()
    assert "2 questions × 10–20 min ≈ 30 min" in html


def test_a_long_bank_description_is_expandable_not_cut_off(cclient):
    bank = make_bank(topics=1, per_topic=1)
    words = [f"word{n}" for n in range(120)]
    bank.description = " ".join(words[:50]) + "\n\n" + " ".join(words[50:])
    bank.save()
    html = cclient.get(reverse("interviews:home")).content.decode()
    assert "word119" in html and "word0" in html  # every word is on the page
    assert "…" not in html and "word39 ..." not in html
    assert '<details class="more">' in html and "Read the full description" in html
    lead = html.index("word39 ") if "word39 " in html else html.index("word39")
    assert lead < html.index("Read the full description") < html.index("word40")


def test_a_short_bank_description_has_nothing_to_expand(cclient):
    bank = make_bank(topics=1, per_topic=1)
    bank.description = "Short and complete."
    bank.save()
    html = cclient.get(reverse("interviews:home")).content.decode()
    assert "Short and complete." in html and "Read the full description" not in html


def test_home_lists_banks_formats_and_own_past_loops(cclient, bank, loop, other_candidate):
    services.loop_start(candidate=other_candidate, bank=bank, format=Loop.Format.SINGLE)
    finished = services.loop_start(candidate=loop.candidate, bank=bank,
                                   format=Loop.Format.SINGLE)
    answer = services.answer_submit(loop_question=finished.loop_questions.get(),
                                    text="headroom").answer
    fake_score(answer, total=71)
    services.loop_finish(loop=finished)
    response = cclient.get(reverse("interviews:home"))
    html = response.content.decode()
    assert bank.title in html
    for label in ("Full loop (one question per topic)", "Topic drill", "Single question"):
        assert label in html
    assert "In progress" in html and "Finished" in html
    assert "71/100" in html
    assert str(finished.public_id) in html and str(loop.public_id) in html
    assert html.count("<tr>") == 1 + 2  # header + the candidate's two loops, not the other's


def test_anonymous_visitors_are_sent_to_log_in(client):
    response = client.get(reverse("interviews:home"))
    assert response.status_code == 302 and "/login/" in response["Location"]


def test_start_loop_by_plain_post_redirects_to_question_one(cclient, bank, candidate):
    topic = bank.topics.get(slug="topic-1")
    response = cclient.post(reverse("interviews:loop_start"),
                            {"bank": bank.slug, "format": "topic", "topic": topic.pk})
    loop = Loop.objects.get(candidate=candidate)
    assert response.status_code == 302
    assert response["Location"] == url("question", loop, 1)
    assert loop.format == "topic" and loop.loop_questions.count() == 2  # topic has two


def test_topic_drill_without_topic_shows_why(cclient, bank):
    response = cclient.post(reverse("interviews:loop_start"),
                            {"bank": bank.slug, "format": "topic"}, follow=True)
    assert "Choose a topic for a topic drill." in response.content.decode()
    assert not Loop.objects.exists()


# --- Question page -----------------------------------------------------------------------


def test_question_page_shows_scenario_prompt_progress_and_timer(cclient, loop):
    response = cclient.get(url("question", loop, 2))
    html = response.content.decode()
    lq = loop.loop_questions.get(position=2)
    assert response.status_code == 200
    assert "Question 2 of 3" in html
    assert lq.snapshot["scenario"] in html
    assert "Question 1." in html  # the prompt of topic 1's question
    assert 'role="timer"' in html and 'data-remaining="600"' in html
    assert 'aria-current="step"' in html
    lq.refresh_from_db()
    assert lq.started_at is not None


def test_model_answer_and_mistakes_are_revealed_only_after_submitting(cclient, loop):
    snapshot = loop.loop_questions.get(position=1).snapshot
    html = cclient.get(url("question", loop, 1)).content.decode()
    assert "Model answer" not in html and snapshot["model_answer"][:30] not in html
    assert snapshot["mistakes"][0]["bad"] not in html
    submit(cclient, loop)
    fake_score(Answer.objects.get(), pushback=None)  # nothing to follow up: it opens at once
    html = cclient.get(url("question", loop, 1)).content.decode()
    assert snapshot["model_answer"][:30] in html
    assert snapshot["mistakes"][0]["bad"] in html


def model_answer_shown(client, loop, position=1):
    snapshot = loop.loop_questions.get(position=position).snapshot
    html = client.get(url("question", loop, position)).content.decode()
    return snapshot["model_answer"][:30] in html and snapshot["mistakes"][0]["bad"] in html


def test_model_answer_stays_closed_beside_the_reply_box_until_the_follow_up(cclient, loop):
    submit(cclient, loop)
    assert not model_answer_shown(cclient, loop)  # scoring under way: no pushback known yet
    fake_score(Answer.objects.get())  # with a pushback
    html = cclient.get(url("question", loop, 1)).content.decode()
    assert "Reply to the interviewer" in html
    assert not model_answer_shown(cclient, loop)
    response = cclient.post(url("follow_up_submit", loop, 1),
                            {"follow_up-text": "I would load test with tracing."})
    assert response.status_code == 302
    assert model_answer_shown(cclient, loop)


def test_declining_the_follow_up_opens_the_model_answer_and_closes_the_reply(cclient, loop):
    submit(cclient, loop)
    fake_score(Answer.objects.get())
    response = cclient.post(url("follow_up_decline", loop, 1), headers=HX)
    assert response.status_code == 200
    html = response.content.decode()
    snapshot = loop.loop_questions.get(position=1).snapshot
    assert snapshot["model_answer"][:30] in html and "Reply to the interviewer" not in html
    assert model_answer_shown(cclient, loop)
    # A reply sent afterwards (another tab) is refused with a reason, not stored.
    response = cclient.post(url("follow_up_submit", loop, 1),
                            {"follow_up-text": "Now that I have read the model answer..."})
    assert response.status_code == 422
    assert "chose to see the model answer" in response.content.decode()
    assert not Answer.objects.filter(kind=Answer.Kind.FOLLOW_UP).exists()


def test_declining_before_answering_changes_nothing(cclient, loop):
    response = cclient.post(url("follow_up_decline", loop, 1))
    assert response.status_code == 302
    assert loop.loop_questions.get(position=1).follow_up_declined_at is None
    assert not model_answer_shown(cclient, loop)


def test_another_candidate_cannot_decline_my_follow_up(client, other_candidate, loop):
    client.force_login(other_candidate)
    assert client.post(url("follow_up_decline", loop, 1)).status_code == 404


def test_a_finished_loop_shows_the_model_answer(cclient, loop):
    submit(cclient, loop)
    fake_score(Answer.objects.get())
    services.loop_finish(loop=loop)
    assert model_answer_shown(cclient, loop)


def test_reloading_does_not_restart_the_countdown(cclient, loop):
    lq = loop.loop_questions.get(position=1)
    LoopQuestion.objects.filter(pk=lq.pk).update(started_at=timezone.now() - timedelta(seconds=100))
    html = cclient.get(url("question", loop, 1)).content.decode()
    assert 'data-remaining="499"' in html or 'data-remaining="500"' in html


def test_htmx_draft_save_says_saved_and_the_draft_comes_back_on_reload(cclient, loop):
    response = cclient.post(url("draft_save", loop, 1), {"text": "A half-written thought"},
                            headers=HX)
    assert response.status_code == 200
    assert response.content.decode().startswith("Saved")
    html = cclient.get(url("question", loop, 1)).content.decode()
    assert ">A half-written thought</textarea>" in html


def test_plain_draft_save_redirects_back(cclient, loop):
    response = cclient.post(url("draft_save", loop, 1), {"text": "no js draft"})
    assert response.status_code == 302 and response["Location"] == url("question", loop, 1)
    assert loop.loop_questions.get(position=1).draft == "no js draft"


def test_plain_submit_redirects_to_results_and_queues_scoring(cclient, loop):
    response = submit(cclient, loop)
    assert response.status_code == 302
    assert response["Location"] == url("question", loop, 1) + "#results"
    answer = Answer.objects.get()
    assert answer.scoring_status == Answer.ScoringStatus.QUEUED
    html = cclient.get(url("question", loop, 1)).content.decode()
    assert "Scoring under way" in html
    assert 'hx-trigger="every 2s"' in html


def test_htmx_submit_returns_the_question_body_partial(cclient, loop):
    response = submit(cclient, loop, headers=HX)
    html = response.content.decode()
    assert response.status_code == 200
    assert html.lstrip().startswith('<div id="question-body">')
    assert "<html" not in html
    assert "Scoring under way" in html and "Next question" in html


def test_double_submit_stores_one_answer_and_keeps_the_first(cclient, loop):
    submit(cclient, loop, text="first click")
    response = submit(cclient, loop, text="second click", headers=HX)
    assert Answer.objects.count() == 1
    assert Answer.objects.get().text == "first click"
    assert "the first answer was kept" in response.content.decode()


@pytest.mark.parametrize(("text", "message"), [
    ("", "the box is empty"),
    ("   \n  ", "the box is empty"),
    ("y" * 20_001, "the limit is 20,000"),
])
def test_refused_answers_say_why_next_to_the_box_and_keep_the_text(cclient, loop, text,
                                                                   message):
    response = submit(cclient, loop, text=text)
    html = response.content.decode()
    assert response.status_code == 422
    assert message in html
    assert 'id="answer-error"' in html and 'aria-invalid="true"' in html
    assert f">{text}</textarea>" in html
    assert not Answer.objects.exists()
    htmx = submit(cclient, loop, text=text, headers=HX)
    assert htmx.status_code == 200 and message in htmx.content.decode()


def test_over_long_refused_answer_is_kept_as_the_draft(cclient, loop):
    submit(cclient, loop, text="z" * 20_050)
    assert loop.loop_questions.get(position=1).draft == "z" * 20_050


def test_overtime_answer_is_accepted_and_marked(cclient, loop):
    lq = loop.loop_questions.get(position=1)
    LoopQuestion.objects.filter(pk=lq.pk).update(
        started_at=timezone.now() - timedelta(seconds=lq.time_limit_seconds + 60))
    html = cclient.get(url("question", loop, 1)).content.decode()
    assert "Time's up. You can still submit" in html
    submit(cclient, loop)
    assert Answer.objects.get().is_overtime
    assert "Overtime" in cclient.get(url("question", loop, 1)).content.decode()


# --- Scoring status and feedback ------------------------------------------------------------


def test_polling_continues_while_pending_and_stops_with_286_when_scored(cclient, loop):
    submit(cclient, loop)
    pending = cclient.get(url("answer_status", loop, 1), headers=HX)
    assert pending.status_code == 200
    assert 'hx-trigger="every 2s"' in pending.content.decode()
    fake_score(Answer.objects.get(), total=62)
    done = cclient.get(url("answer_status", loop, 1), headers=HX)
    html = done.content.decode()
    assert done.status_code == 286
    assert "hx-trigger" not in html
    assert 'id="score-announcer"' in html and 'hx-swap-oob="true"' in html
    assert "Your answer is scored: 62 out of 100" in html


def test_delayed_scoring_says_so_and_lets_the_candidate_carry_on(cclient, loop):
    submit(cclient, loop)
    Answer.objects.update(submitted_at=timezone.now() - timedelta(minutes=2))
    html = cclient.get(url("answer_status", loop, 1), headers=HX).content.decode()
    assert "Scoring is taking longer than usual" in html
    page = cclient.get(url("question", loop, 1)).content.decode()
    assert "Next question" in page


def test_failed_scoring_can_be_retried(cclient, loop):
    submit(cclient, loop)
    Answer.objects.update(scoring_status=Answer.ScoringStatus.FAILED, scoring_error="boom")
    assert "Retry scoring" in cclient.get(url("question", loop, 1)).content.decode()
    cclient.post(url("answer_retry", loop, 1))
    assert Answer.objects.get().scoring_status == Answer.ScoringStatus.QUEUED


def test_feedback_shows_score_criteria_highlights_numbers_and_pushback(cclient, loop):
    text = "We set 25ms. I would leave headroom for network jitter. Then ship it."
    submit(cclient, loop, text=text)
    fake_score(Answer.objects.get(), total=62, rating=3,
               evidence_text="I would leave headroom for network jitter.")
    html = cclient.get(url("question", loop, 1)).content.decode()
    assert "62<span" in html and "Rating 3 of 4" in html
    assert "Leaves headroom under the contract</strong> — Made" in html
    assert "Names a measurement plan</strong> — Missed" in html
    assert ('<mark class="evidence made" tabindex="0" title="Earned: Leaves headroom under the '
            'contract"') in html
    assert 'aria-describedby="criterion-initial-headroom"' in html
    assert 'id="criterion-initial-headroom"' in html
    assert ">I would leave headroom for network jitter.<span" in html
    # Numbers: the candidate's beside the expected, with the worked calculation.
    assert "25ms" in html and "15 ms" in html
    assert "20ms contract - 5ms network jitter = 15ms p99" in html
    assert "How would you know you actually hit the budget in production?" in html
    assert 'name="follow_up-text"' in html


def test_follow_up_is_stored_once_and_shown_with_its_score(cclient, loop):
    submit(cclient, loop, text="Leave headroom.")
    initial = Answer.objects.get()
    fake_score(initial, total=50)
    follow_url = url("follow_up_submit", loop, 1)
    response = cclient.post(follow_url, {"follow_up-text": "I would load test with tracing."})
    assert response.status_code == 302
    cclient.post(follow_url, {"follow_up-text": "again"})
    follow_up = Answer.objects.get(kind=Answer.Kind.FOLLOW_UP)
    assert follow_up.text == "I would load test with tracing."
    fake_score(follow_up, total=80)
    html = cclient.get(url("question", loop, 1)).content.decode()
    assert "Question score with your follow-up: <strong>65/100</strong>" in html
    assert 'name="follow_up-text"' not in html  # one chance only


def test_empty_follow_up_is_refused_with_a_message(cclient, loop):
    submit(cclient, loop)
    fake_score(Answer.objects.get())
    response = cclient.post(url("follow_up_submit", loop, 1), {"follow_up-text": "  "})
    assert response.status_code == 422
    assert "the box is empty" in response.content.decode()


# --- Finishing and ownership --------------------------------------------------------------


def test_finishing_closes_the_loop_requests_a_debrief_and_redirects_there(cclient, loop):
    for position in (1, 2, 3):
        submit(cclient, loop, position)
    html = cclient.get(url("question", loop, 3)).content.decode()
    assert "Finish loop and see the debrief" in html
    response = cclient.post(url("loop_finish", loop))
    assert response["Location"] == reverse("scoring:debrief", args=[loop.public_id])
    loop.refresh_from_db()
    assert loop.status == Loop.Status.FINISHED
    assert Debrief.objects.filter(loop=loop).count() == 1


def test_ending_early_closes_the_loop_and_requests_a_debrief(cclient, loop):
    submit(cclient, loop, 1)
    response = cclient.post(url("loop_finish", loop), {"early": "1"})
    assert response.status_code == 302
    loop.refresh_from_db()
    assert loop.status == Loop.Status.FINISHED
    assert Debrief.objects.get(loop=loop).reason == "Candidate ended the loop early"


def test_htmx_finish_redirects_the_page(cclient, loop):
    response = cclient.post(url("loop_finish", loop), headers=HX)
    assert response["HX-Redirect"] == reverse("scoring:debrief", args=[loop.public_id])


def test_loop_detail_resumes_at_the_first_unanswered_question(cclient, loop):
    submit(cclient, loop, 1)
    response = cclient.get(url("loop_detail", loop))
    assert response["Location"] == url("question", loop, 2)


def test_an_idle_loop_expires_and_takes_no_more_answers(cclient, loop, settings):
    Loop.objects.filter(pk=loop.pk).update(
        last_activity_at=timezone.now() - settings.MOCKLOOP_LOOP_IDLE_EXPIRY - timedelta(1))
    response = submit(cclient, loop)
    assert response.status_code == 302
    assert not Answer.objects.exists()
    loop.refresh_from_db()
    assert loop.status == Loop.Status.EXPIRED
    page = cclient.get(url("loop_detail", loop))
    assert "Expired" in page.content.decode()


OWNED_URLS = [
    ("get", "loop_detail", None), ("post", "loop_finish", None),
    ("get", "question", 1), ("post", "draft_save", 1), ("post", "answer_submit", 1),
    ("post", "follow_up_submit", 1), ("get", "answer_status", 1), ("post", "answer_retry", 1),
]


@pytest.mark.parametrize(("method", "name", "position"), OWNED_URLS)
def test_another_candidate_gets_404_on_every_loop_url(client, other_candidate, loop, method,
                                                      name, position):
    submit_as_owner = services.answer_submit(loop_question=loop.loop_questions.get(position=1),
                                             text="mine")
    fake_score(submit_as_owner.answer)
    client.force_login(other_candidate)
    response = getattr(client, method)(url(name, loop, position), {"text": "theirs"},
                                       headers=HX)
    assert response.status_code == 404
    assert Answer.objects.count() == 1
    loop.refresh_from_db()
    assert loop.status == Loop.Status.IN_PROGRESS


# --- Query counts ---------------------------------------------------------------------------


def _many_loops(candidate, bank, count):
    for _ in range(count):
        past = services.loop_start(candidate=candidate, bank=bank, format=Loop.Format.FULL)
        for lq in past.loop_questions.all():
            fake_score(services.answer_submit(loop_question=lq, text="headroom").answer)
        services.loop_finish(loop=past)


def test_home_queries_do_not_grow_with_past_loops(cclient, candidate, bank,
                                                  django_assert_max_num_queries):
    _many_loops(candidate, bank, 2)
    # 12: one ranks the next drill, one prefetches scorecards (a loop's score includes
    # interviewers' ratings).
    with django_assert_max_num_queries(12) as few:
        cclient.get(reverse("interviews:home"))
    _many_loops(candidate, bank, 25)
    with django_assert_max_num_queries(len(few.captured_queries)):
        response = cclient.get(reverse("interviews:home"))
    assert response.content.decode().count("Debrief<span") == 27


def test_question_page_queries_do_not_grow_with_past_loops(cclient, candidate, bank, loop,
                                                           django_assert_max_num_queries):
    _many_loops(candidate, bank, 25)
    submit(cclient, loop)
    fake_score(Answer.objects.get(loop_question__loop=loop), evidence_text="headroom")
    with django_assert_max_num_queries(12):
        response = cclient.get(url("question", loop, 1))
    assert response.status_code == 200
    with django_assert_max_num_queries(12):
        cclient.get(url("question", loop, 2))
    with django_assert_max_num_queries(10):
        cclient.get(url("answer_status", loop, 1), headers=HX)


@pytest.mark.parametrize("path", ["draft_save", "answer_submit"])
def test_nul_bytes_lose_nothing_and_cause_no_error(cclient, loop, path):
    """PostgreSQL text refuses NUL; a pasted NUL must not turn a save into a server error."""
    response = cclient.post(url(path, loop, 1), {"text": "keep headroom\x00 for jitter"})
    assert response.status_code in {302, 422}
    loop_question = loop.loop_questions.get(position=1)
    saved = loop_question.draft or loop_question.answers.get().text
    assert saved.replace("\x00", "") == "keep headroom for jitter"


def test_garbage_start_requests_are_refused_clearly(cclient, bank):
    response = cclient.post(reverse("interviews:loop_start"),
                            {"bank": "not-a-number", "format": "<script>", "topic": "999999"})
    assert response.status_code in {302, 400}
    assert not Loop.objects.exists()


def test_feedback_shows_the_candidates_calculation_beside_the_correct_one(cclient, loop):
    submit(cclient, loop, text="50,000 / 40 = 1,000 GPUs.")
    answer = Answer.objects.get()
    score = fake_score(answer)
    line = "You wrote 50,000 / 40 = 1,000 GPUs; the correct result is 50,000 / 40 = 1,250 GPUs."
    score.feedback = {**score.feedback, "calculations": [line]}
    score.save()
    html = cclient.get(url("question", loop, 1)).content.decode()
    assert "Your calculations" in html
    assert "50,000 / 40 = 1,000 GPUs; the correct result is 50,000 / 40 = 1,250" in html


@pytest.mark.parametrize(("text", "number", "shown"), [
    ("45,000 / 80 is about 562 per GPU, about 14 times Azure's 40.",
     {"criterion_key": "azure", "expected_value": 1125, "unit": "GPUs", "tolerance_percent": 5,
      "found_value": 14.0, "found_text": "14 times", "method_credit": True,
      "worked_calculation": "45,000 / 40 = 1,125"}, "same result, said as a ratio"),
    ("TensorRT makes the 12ms p99 7ms, so the engine is 42% faster.",
     {"criterion_key": "gain", "expected_value": 5, "unit": "ms", "tolerance_percent": 10,
      "found_value": 42.0, "found_text": "42%", "method_credit": False,
      "worked_calculation": "12 - 7 = 5 ms"}, "same result, said as a percentage"),
])
def test_a_result_said_in_another_form_shows_as_the_same_result_not_off(cclient, loop, text,
                                                                       number, shown):
    submit(cclient, loop, text=text)
    score = fake_score(Answer.objects.get())
    score.numbers = [{**number, "span": None, "within_tolerance": True, "another_form": True}]
    score.save()
    html = cclient.get(url("question", loop, 1)).content.decode()
    assert shown in html
    assert "badge-bad" not in html
