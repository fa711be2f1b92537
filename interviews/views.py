"""Candidate pages: accounts, the practice home, a loop's questions, answers and feedback.

Thin views over interviews.services. Every loop is fetched through
Loop.objects.for_candidate(request.user), so another candidate's loop is a 404.
"""

from __future__ import annotations

import math
import re
from datetime import timedelta
from typing import Any

from django.conf import settings
from django.contrib import messages
from django.contrib.auth import login
from django.contrib.auth.decorators import login_required
from django.contrib.auth.views import LoginView, PasswordChangeView, PasswordResetView
from django.core.exceptions import ValidationError
from django.db.models import Avg, Count, Exists, Max, Min, OuterRef, Prefetch
from django.http import HttpRequest, HttpResponse, HttpResponseRedirect
from django.shortcuts import get_object_or_404, redirect
from django.template.response import TemplateResponse
from django.urls import reverse
from django.utils import timezone
from django.views.decorators.http import require_GET, require_http_methods, require_POST
from django_htmx.http import HttpResponseClientRedirect, HttpResponseStopPolling

from scoring.models import ScoreResult
from scoring.results import loop_total, question_result
from scoring.services import answer_retry_scoring

from . import feedback, practice, services, throttle
from .forms import (
    AnswerForm,
    DraftForm,
    SignUpForm,
    StartLoopForm,
    ThrottledAuthenticationForm,
    ThrottledPasswordChangeForm,
    ThrottledPasswordResetForm,
)
from .models import Answer, Bank, Loop, LoopQuestion, Topic

PAST_LOOPS_SHOWN = 50
# After this long in the queue, tell the candidate scoring is delayed and they can move on.
SCORING_DELAY_NOTICE = timedelta(seconds=20)
POLL_SECONDS = 2
ALREADY_ANSWERED = ("This question was already answered (perhaps in another tab or by a double "
                    "click); the first answer was kept.")


# --- Accounts ------------------------------------------------------------------------------


class ThrottledFormMixin:
    """Gives the form the request (for the client address) and answers a throttled form 429."""

    def get_form_kwargs(self) -> dict[str, Any]:
        kwargs = super().get_form_kwargs()  # type: ignore[misc]
        kwargs["request"] = self.request  # type: ignore[attr-defined]
        return kwargs

    def form_invalid(self, form: Any) -> HttpResponse:
        response = super().form_invalid(form)  # type: ignore[misc]
        if getattr(form, "throttled", False):
            response.status_code = 429
        return response


class ThrottledLoginView(ThrottledFormMixin, LoginView):
    authentication_form = ThrottledAuthenticationForm
    redirect_authenticated_user = True


class ThrottledPasswordChangeView(ThrottledFormMixin, PasswordChangeView):
    form_class = ThrottledPasswordChangeForm


class ThrottledPasswordResetView(ThrottledFormMixin, PasswordResetView):
    form_class = ThrottledPasswordResetForm


login_view = ThrottledLoginView.as_view()
password_change = ThrottledPasswordChangeView.as_view()
password_reset = ThrottledPasswordResetView.as_view()


@require_http_methods(["GET", "POST"])
def signup(request: HttpRequest) -> HttpResponse:
    if request.user.is_authenticated:
        return redirect("interviews:home")
    form = SignUpForm(request.POST or None)
    if request.method == "POST":
        try:
            throttle.rate_limit(action="signup", keys=[throttle.client_address(request)],
                                limit=settings.MOCKLOOP_SIGNUP_MAX_PER_ADDRESS,
                                window=settings.MOCKLOOP_SIGNUP_WINDOW_SECONDS)
        except throttle.Throttled as refused:
            form = SignUpForm(request.POST)
            form.add_error(None, f"Too many sign-ups from your network. Try again in "
                                 f"{refused.minutes} minutes.")
            return TemplateResponse(request, "registration/signup.html", {"form": form},
                                    status=429)
        if form.is_valid():
            user = form.save()  # no group: every sign-up is a candidate
            login(request, user, backend="django.contrib.auth.backends.ModelBackend")
            messages.success(request,
                             "Welcome! Pick a bank and a format to start your first loop.")
            return redirect("interviews:home")
    return TemplateResponse(request, "registration/signup.html", {"form": form},
                            status=400 if form.errors else 200)


# --- Home ----------------------------------------------------------------------------------


def _loop_score(loop: Loop) -> float | None:
    """The loop's score as its debrief counts it (scoring.results: follow-ups, interviewers'
    overrides, and, once the loop is closed, unanswered questions as 0)."""
    return loop_total(loop.loop_questions.all(),
                      unanswered_as_zero=loop.status != Loop.Status.IN_PROGRESS)


DESCRIPTION_LEAD_WORDS = 40
_WORD_END = re.compile(r"\S+")


def _split_description(text: str, words: int = DESCRIPTION_LEAD_WORDS) -> tuple[str, str]:
    """The first `words` words and the rest, line breaks kept: the rest opens on request."""
    ends = [match.end() for match in _WORD_END.finditer(text)]
    if len(ends) <= words:
        return text, ""
    cut = ends[words - 1]
    return text[:cut], text[cut:].strip()


def loop_length_label(count: int, shortest: int | None, longest: int | None,
                      average: float | None) -> str:
    """'5 questions x 15 min = 75 min' (or a range and an estimate when limits differ)."""
    if not count or shortest is None or longest is None or average is None:
        return ""
    noun = "question" if count == 1 else "questions"
    low, high = round(shortest / 60), round(longest / 60)
    if low == high:
        return f"{count} {noun} × {low} min = {count * low} min"
    return f"{count} {noun} × {low}–{high} min ≈ {round(count * average / 60)} min"


def _format_rows(bank: Bank) -> list[dict[str, str]]:
    topics = list(bank.topics.all())
    sizes = {
        Loop.Format.FULL: len(topics),
        Loop.Format.TOPIC: min(services.TOPIC_DRILL_SIZE,
                               max((t.question_count for t in topics), default=0)),
        Loop.Format.SINGLE: 1 if topics else 0,
    }
    return [{"value": value, "label": label,
             "length": loop_length_label(sizes[value], bank.shortest_limit, bank.longest_limit,
                                         bank.average_limit)}
            for value, label in Loop.Format.choices if value in sizes]


@require_GET
@login_required
def home(request: HttpRequest) -> HttpResponse:
    limits = "topics__questions__time_limit_seconds"
    banks = list(Bank.objects.published().annotate(
        shortest_limit=Min(limits), longest_limit=Max(limits), average_limit=Avg(limits),
    ).prefetch_related(
        Prefetch("topics", queryset=Topic.objects.annotate(question_count=Count("questions"))
                 .filter(question_count__gt=0))))
    for bank in banks:
        bank.formats = _format_rows(bank)
        bank.description_lead, bank.description_rest = _split_description(bank.description)
    by_slug = {bank.slug: bank for bank in banks}
    # The next drill: the weakest criterion (same ranking as the progress page) that a
    # published bank can still train.
    suggestion = next((weak for weak in practice.weak_criteria_for(candidate=request.user)
                       if weak["bank_slug"] in by_slug), None)
    answers = Answer.objects.select_related("score").only(
        "id", "kind", "text", "loop_question_id", "scoring_status", "score__id", "score__total",
        "score__rating", "score__criteria", "score__answer_id").prefetch_related("scorecards")
    loops_qs = (Loop.objects.for_candidate(request.user).select_related("bank", "topic")
                .prefetch_related(Prefetch(
                    "loop_questions",
                    queryset=LoopQuestion.objects.only("id", "loop_id", "position")
                    .prefetch_related(Prefetch("answers", queryset=answers)))))
    loops = list(loops_qs[:PAST_LOOPS_SHOWN + 1])
    for loop in loops:
        loop.score = _loop_score(loop)
        loop.question_count = len(loop.loop_questions.all())
        loop.answered_count = sum(
            1 for lq in loop.loop_questions.all()
            if any(a.kind == Answer.Kind.INITIAL for a in lq.answers.all()))
        loop.is_idle_expired = services.loop_is_idle_expired(loop=loop)
    return TemplateResponse(request, "interviews/home.html", {
        "banks": banks,
        "suggestion": suggestion,
        "suggested_bank": by_slug.get(suggestion["bank_slug"]) if suggestion else None,
        "loops": loops[:PAST_LOOPS_SHOWN],
        "more_loops": len(loops) > PAST_LOOPS_SHOWN,
    })


# --- Loops ---------------------------------------------------------------------------------


def _candidate_loop(request: HttpRequest, public_id: Any) -> Loop:
    loop = get_object_or_404(
        Loop.objects.for_candidate(request.user).select_related("bank"), public_id=public_id)
    return services.loop_check_expiry(loop=loop)


def _loop_question(loop: Loop, position: int) -> LoopQuestion:
    loop_question = get_object_or_404(LoopQuestion.objects.filter(loop=loop), position=position)
    loop_question.loop = loop  # already loaded; saves a query per access
    return loop_question


def _question_url(loop: Loop, position: int) -> str:
    return reverse("interviews:question", kwargs={"public_id": loop.public_id,
                                                  "position": position})


@require_POST
@login_required
def loop_start(request: HttpRequest) -> HttpResponse:
    form = StartLoopForm(request.POST)
    if form.is_valid():
        try:
            loop = services.loop_start(candidate=request.user, bank=form.cleaned_data["bank"],
                                       format=form.cleaned_data["format"],
                                       topic=form.cleaned_data["topic"],
                                       criterion=form.cleaned_data["criterion"])
        except ValidationError as error:
            messages.error(request, " ".join(error.messages))
        else:
            url = _question_url(loop, 1)
            return HttpResponseClientRedirect(url) if request.htmx else redirect(url)
    else:
        for errors in form.errors.values():
            for error in errors:
                messages.error(request, error)
    return redirect("interviews:home")


def _progress(loop: Loop) -> list[dict[str, Any]]:
    answered = Answer.objects.filter(loop_question=OuterRef("pk"), kind=Answer.Kind.INITIAL)
    return list(LoopQuestion.objects.filter(loop=loop).annotate(answered=Exists(answered))
                .order_by("position").values("position", "answered"))


@require_GET
@login_required
def loop_detail(request: HttpRequest, public_id: Any) -> HttpResponse:
    """In progress: go to the first unanswered question. Closed: a summary of the loop."""
    loop = _candidate_loop(request, public_id)
    progress = _progress(loop)
    if loop.status == Loop.Status.IN_PROGRESS and progress:
        current = next((p["position"] for p in progress if not p["answered"]),
                       progress[-1]["position"])
        return redirect(_question_url(loop, current))
    loop_questions = list(
        LoopQuestion.objects.filter(loop=loop).order_by("position").prefetch_related(
            Prefetch("answers", queryset=Answer.objects.select_related("score")
                     .prefetch_related("scorecards"))))
    rows = []
    for loop_question in loop_questions:
        result = question_result(loop_question.answers.all())
        rows.append({"loop_question": loop_question, "initial": result.initial,
                     "total": result.total, "reviewed": result.reviewed})
    return TemplateResponse(request, "interviews/loop_detail.html", {"loop": loop, "rows": rows})


@require_POST
@login_required
def loop_finish(request: HttpRequest, public_id: Any) -> HttpResponse:
    loop = _candidate_loop(request, public_id)
    ended_early = request.POST.get("early") == "1"
    if loop.status == Loop.Status.EXPIRED:
        messages.error(request, "This loop expired after being left idle, so it has no debrief.")
        return redirect(loop.get_absolute_url())
    reason = "Candidate ended the loop early" if ended_early else "Loop finished"
    services.loop_finish(loop=loop, reason=reason)
    url = reverse("scoring:debrief", kwargs={"public_id": loop.public_id})
    return HttpResponseClientRedirect(url) if request.htmx else redirect(url)


# --- One question --------------------------------------------------------------------------


def _answers(loop_question: LoopQuestion) -> dict[str, Answer]:
    return {answer.kind: answer for answer in loop_question.answers.select_related("score")
            .prefetch_related("scorecards").order_by("id")}


def _answer_panel(answer: Answer | None, *, offset: int = 0) -> dict[str, Any] | None:
    if answer is None:
        return None
    score: ScoreResult | None = answer.scored_result
    panel: dict[str, Any] = {"answer": answer, "score": score, "segments": None,
                             "offset": offset}
    now = timezone.now()
    panel["pending"] = answer.scoring_status in {Answer.ScoringStatus.QUEUED,
                                                 Answer.ScoringStatus.SCORING}
    panel["delayed"] = panel["pending"] and now - answer.submitted_at > SCORING_DELAY_NOTICE
    panel["failed"] = answer.scoring_status == Answer.ScoringStatus.FAILED
    if score is not None:
        panel["segments"] = feedback.highlight(answer.text, score.criteria, offset=offset,
                                               answer_kind=answer.kind)
        panel["criteria"] = feedback.criteria_rows(score.criteria, answer_kind=answer.kind)
        panel["numbers"] = feedback.number_rows(score.numbers, score.criteria)
        panel["rating_label"] = feedback.RATING_LABELS.get(score.rating, "")
        panel["fb"] = score.feedback or {}
    else:
        panel["segments"] = [feedback.Segment(answer.text)]
    return panel


def _question_context(request: HttpRequest, loop: Loop, loop_question: LoopQuestion, *,
                      form: AnswerForm | None = None, follow_up_form: AnswerForm | None = None,
                      announce: bool = False, notice: str = "") -> dict[str, Any]:
    answers = _answers(loop_question)
    initial = answers.get(Answer.Kind.INITIAL)
    follow_up = answers.get(Answer.Kind.FOLLOW_UP)
    progress = _progress(loop)
    total = len(progress)
    position = loop_question.position
    now = timezone.now()
    deadline = loop_question.deadline
    remaining = math.ceil((deadline - now).total_seconds()) if deadline else None
    is_open = loop.status == Loop.Status.IN_PROGRESS
    initial_panel = _answer_panel(initial)
    follow_up_panel = _answer_panel(follow_up, offset=len(initial.text) + 2 if initial else 0)
    pushback = services.pushback_for(initial) if initial else None
    pending = any(p and p["pending"] for p in (initial_panel, follow_up_panel))
    result = question_result(answers.values())
    question_total = result.total if initial_panel and initial_panel["score"] else None
    review = _interviewer_review(loop, result, initial_panel, follow_up_panel)
    if form is None and initial is None:
        form = AnswerForm(initial={"text": loop_question.draft})
    if (follow_up_form is None and follow_up is None and pushback
            and loop_question.follow_up_declined_at is None):
        follow_up_form = AnswerForm(prefix="follow_up")
    return {
        "loop": loop, "lq": loop_question, "snap": loop_question.snapshot,
        "position": position, "total": total, "progress": progress,
        "is_open": is_open, "form": form, "follow_up_form": follow_up_form,
        "initial": initial_panel, "follow_up": follow_up_panel, "pushback": pushback,
        "question_total": question_total, "question_rating": result.rating,
        "pending": pending, "review": review,
        "model_answer_open": services.model_answer_open(
            loop_question=loop_question, answers=answers, pushback=pushback, loop_open=is_open),
        "announce": announce, "notice": notice,
        "remaining": remaining, "deadline": deadline,
        "remaining_label": _clock(remaining) if remaining is not None else "",
        "limit_minutes": round(loop_question.time_limit_seconds / 60), "poll_seconds": POLL_SECONDS,
        "next_position": position + 1 if position < total else None,
        "unanswered": sum(1 for p in progress if not p["answered"]),
        "max_chars": settings.MOCKLOOP_ANSWER_MAX_CHARS,
        "storage_key": f"mockloop:draft:{loop.public_id}:{position}",
        "draft_saved_ms": int(loop_question.draft_saved_at.timestamp() * 1000)
        if loop_question.draft_saved_at else 0,
    }


def _interviewer_review(loop: Loop, result: Any, initial_panel: dict[str, Any] | None,
                        follow_up_panel: dict[str, Any] | None) -> dict[str, Any] | None:
    """Once an interviewer has scored this question: their rating and notes, and the rubric
    rows showing their verdicts (the automatic ones are replaced, as in the debrief)."""
    if not result.reviewed:
        return None
    from scoring.reports import interviewer_labels

    labels = interviewer_labels(loop)
    for panel in (initial_panel, follow_up_panel):
        if panel and panel["score"] is not None:
            _apply_review(panel, result)
    return {"rating": result.rating, "changed": len(result.changed), "cards": [
        {"label": labels.get(card.interviewer_id, "An interviewer"), "rating": card.rating,
         "recommendation": card.get_recommendation_display(), "notes": card.notes}
        for card in result.scorecards]}


def _apply_review(panel: dict[str, Any], result: Any) -> None:
    """A reviewed question's panel reads the interviewer's verdicts: rubric rows, highlights
    and praise follow them, and the automatic score is kept only as the superseded view."""
    score, kind = panel["score"], panel["answer"].kind
    if score is result.verdict_source:
        criteria = [dict(c) for c in result.criteria]
    else:  # the first answer under a follow-up: the interviewer's verdicts still decide
        criteria = [dict(c) for c in score.criteria or ()]
        for c in criteria:
            if c.get("key") in result.changed:
                c["automatic_verdict"] = c.get("verdict", "")
                c["verdict"], c["feedback"] = result.changed[c["key"]][1], ""
    overturned = {c.get("feedback") for c in score.criteria or ()
                  if c.get("key") in result.changed and c.get("feedback")}
    fb = dict(panel["fb"])
    fb.pop("summary", None)  # the engine's one-line verdict on its own score
    for part in ("strengths", "misses"):
        fb[part] = [line for line in fb.get(part) or () if line not in overturned]
    panel.update(
        superseded=True, fb=fb, criteria=feedback.criteria_rows(criteria, answer_kind=kind),
        segments=feedback.highlight(panel["answer"].text, criteria,
                                    offset=panel.get("offset", 0), answer_kind=kind))


def _clock(seconds: int) -> str:
    seconds = max(0, seconds)
    return f"{seconds // 60}:{seconds % 60:02d}"


def _render_question(request: HttpRequest, loop: Loop, loop_question: LoopQuestion,
                     partial: str | None = None, status: int = 200, **kwargs: Any
                     ) -> TemplateResponse:
    template = "interviews/question.html" + (f"#{partial}" if partial else "")
    return TemplateResponse(request, template,
                            _question_context(request, loop, loop_question, **kwargs),
                            status=status)


@require_GET
@login_required
def question(request: HttpRequest, public_id: Any, position: int) -> HttpResponse:
    loop = _candidate_loop(request, public_id)
    loop_question = _loop_question(loop, position)
    services.loop_question_show(loop_question=loop_question)
    return _render_question(request, loop, loop_question)


def _closed(request: HttpRequest, loop: Loop, error: services.LoopClosed) -> HttpResponse:
    messages.error(request, f"{error} It takes no more answers.")
    url = loop.get_absolute_url()
    return HttpResponseClientRedirect(url) if request.htmx else redirect(url)


@require_POST
@login_required
def draft_save(request: HttpRequest, public_id: Any, position: int) -> HttpResponse:
    loop = _candidate_loop(request, public_id)
    loop_question = _loop_question(loop, position)
    form = DraftForm(request.POST)
    text = form.data.get("text", "")
    try:
        saved = services.draft_save(loop_question=loop_question, text=text)
    except services.LoopClosed as error:
        if request.htmx:
            return HttpResponse(f"Not saved: {error}", status=200)
        return _closed(request, loop, error)
    if not saved:  # the answer was submitted first; it carries its own text
        if request.htmx:
            return HttpResponse("Answer submitted.", status=200)
        return redirect(_question_url(loop, position) + "#results")
    if request.htmx:
        return TemplateResponse(request, "interviews/question.html#draft-status",
                                {"lq": loop_question})
    messages.success(request, "Draft saved.")
    return redirect(_question_url(loop, position))


@require_POST
@login_required
def answer_submit(request: HttpRequest, public_id: Any, position: int) -> HttpResponse:
    loop = _candidate_loop(request, public_id)
    loop_question = _loop_question(loop, position)
    if loop_question.answers.filter(kind=Answer.Kind.INITIAL).exists():
        # A double submit or a second tab: the first answer stands, whatever this one says.
        if request.htmx:
            return _render_question(request, loop, loop_question, "question-body",
                                    notice=ALREADY_ANSWERED)
        messages.info(request, ALREADY_ANSWERED)
        return redirect(_question_url(loop, position) + "#results")
    form = AnswerForm(request.POST)
    if not form.is_valid():
        # Refused: keep the text (also as the draft) and say why next to the box.
        try:
            services.draft_save(loop_question=loop_question, text=form.data.get("text", ""))
        except services.LoopClosed as error:
            return _closed(request, loop, error)
        if request.htmx:  # htmx swaps 2xx only
            return _render_question(request, loop, loop_question, "question-body", form=form)
        return _render_question(request, loop, loop_question, form=form, status=422)
    try:
        result = services.answer_submit(loop_question=loop_question,
                                         text=form.cleaned_data["text"])
    except services.LoopClosed as error:
        return _closed(request, loop, error)
    notice = ALREADY_ANSWERED if not result.created else ""
    if request.htmx:
        return _render_question(request, loop, loop_question, "question-body", notice=notice)
    if notice:
        messages.info(request, notice)
    return redirect(_question_url(loop, position) + "#results")


@require_POST
@login_required
def follow_up_submit(request: HttpRequest, public_id: Any, position: int) -> HttpResponse:
    loop = _candidate_loop(request, public_id)
    loop_question = _loop_question(loop, position)
    form = AnswerForm(request.POST, prefix="follow_up")
    if form.is_valid():
        try:
            services.follow_up_submit(loop_question=loop_question,
                                      text=form.cleaned_data["text"])
        except services.LoopClosed as error:
            return _closed(request, loop, error)
        except ValidationError as error:
            form.add_error("text", error)
    if form.errors:
        if request.htmx:
            return _render_question(request, loop, loop_question, "question-body",
                                    follow_up_form=form)
        return _render_question(request, loop, loop_question, follow_up_form=form, status=422)
    if request.htmx:
        return _render_question(request, loop, loop_question, "question-body")
    return redirect(_question_url(loop, position) + "#follow-up")


@require_POST
@login_required
def follow_up_decline(request: HttpRequest, public_id: Any, position: int) -> HttpResponse:
    """Skip the reply to the pushback and open the model answer."""
    loop = _candidate_loop(request, public_id)
    loop_question = _loop_question(loop, position)
    if loop.status == Loop.Status.IN_PROGRESS:
        services.follow_up_decline(loop_question=loop_question)
    if request.htmx:
        return _render_question(request, loop, loop_question, "question-body")
    return redirect(_question_url(loop, position) + "#model-answer")


@require_GET
@login_required
def answer_status(request: HttpRequest, public_id: Any, position: int) -> HttpResponse:
    """Polled while scoring runs; 286 stops the polling once nothing is pending."""
    loop = _candidate_loop(request, public_id)
    loop_question = _loop_question(loop, position)
    if not request.htmx:
        return redirect(_question_url(loop, position) + "#results")
    context = _question_context(request, loop, loop_question, announce=True)
    response = TemplateResponse(request, "interviews/question.html#results", context)
    if not context["pending"]:
        response.render()
        return HttpResponseStopPolling(response.content)
    return response


@require_POST
@login_required
def answer_retry(request: HttpRequest, public_id: Any, position: int) -> HttpResponse:
    loop = _candidate_loop(request, public_id)
    loop_question = _loop_question(loop, position)
    for answer in loop_question.answers.filter(scoring_status=Answer.ScoringStatus.FAILED):
        answer_retry_scoring(answer=answer)
    if request.htmx:
        return _render_question(request, loop, loop_question, "results")
    return HttpResponseRedirect(_question_url(loop, position) + "#results")
