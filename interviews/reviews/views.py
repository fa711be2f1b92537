"""Interviewers' pages: the review queue, a loop to review, a scorecard per answer, and
calibration. Thin: access through services.loops_reviewable_by (everything else is a 404,
never a 403, so nobody learns which loops exist), then a form or a template.
"""

from __future__ import annotations

from typing import Any
from uuid import UUID

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.db.models import Prefetch
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect
from django.template.response import TemplateResponse
from django.urls import reverse
from django.utils import timezone
from django.utils.http import url_has_allowed_host_and_scheme
from django.views.decorators.http import require_GET, require_http_methods, require_POST

from scoring import charts
from scoring.calibration_store import calibration_report_for

from ..context_processors import is_interviewer
from ..models import Answer, Bank, Loop, LoopQuestion, Notification, Scorecard
from ..templatetags.candidate import verdict_shown
from .forms import QueueFilterForm, ScorecardForm
from .services import (
    ScorecardRefused,
    automatic_criteria,
    loops_reviewable_by,
    queue_page,
    scorecard_submit,
)

PAGE_SIZE = 25
FLIPS_CHARTED = 12


def _require_interviewer(request: HttpRequest) -> None:
    if not is_interviewer(request.user):
        raise Http404


def _reviewable_loop(request: HttpRequest, public_id: UUID) -> Loop:
    return get_object_or_404(
        loops_reviewable_by(request.user).select_related("bank", "candidate", "topic"),
        public_id=public_id)


def _reviewer_banks(user: Any) -> list[Bank]:
    if user.is_staff:
        return list(Bank.objects.order_by("title"))
    return list(Bank.objects.filter(pk__in=loops_reviewable_by(user).values("bank_id"))
                .order_by("title"))


@require_GET
@login_required
def queue(request: HttpRequest) -> HttpResponse:
    _require_interviewer(request)
    form = QueueFilterForm(request.GET or None, banks=_reviewer_banks(request.user))
    page, rows = queue_page(request.user, form.filters(), request.GET.get("page"), PAGE_SIZE)
    query = request.GET.copy()
    query.pop("page", None)
    context = {"form": form, "page": page, "rows": rows, "query": query.urlencode()}
    template = "reviews/queue.html#table" if request.htmx else "reviews/queue.html"
    return TemplateResponse(request, template, context)


@require_GET
@login_required
def loop_review(request: HttpRequest, public_id: UUID) -> HttpResponse:
    loop = _reviewable_loop(request, public_id)
    mine = Scorecard.objects.filter(interviewer=request.user)
    loop_questions = LoopQuestion.objects.filter(loop=loop).order_by("position").prefetch_related(
        Prefetch("answers", queryset=Answer.objects.select_related("score").prefetch_related(
            Prefetch("scorecards", queryset=mine, to_attr="my_cards"), "scorecards")))
    rows = []
    for lq in loop_questions:
        answers = sorted(lq.answers.all(), key=lambda a: a.kind != Answer.Kind.INITIAL)
        rows.append({"lq": lq, "answers": [{
            "answer": a,
            "score": a.scored_result,
            "mine": a.my_cards[0] if a.my_cards else None,
            "cards": len(a.scorecards.all()),
        } for a in answers]})
    return TemplateResponse(request, "reviews/loop.html", {"loop": loop, "rows": rows})


def _scorecard_context(request: HttpRequest, loop: Loop, answer: Answer,
                       form: ScorecardForm | None = None) -> dict[str, Any]:
    criteria = automatic_criteria(answer)
    cards = list(answer.scorecards.select_related("interviewer").order_by("submitted_at"))
    mine = next((c for c in cards if c.interviewer_id == request.user.pk), None)
    if mine is None and form is None:
        form = ScorecardForm(criteria=criteria, initial=_automatic_initial(answer))
    for card in cards:
        card.rows = [{"label": c["label"], "auto": _shown(c, c["verdict"]).lower(),
                      "verdict": _shown(c, card.verdicts.get(c["key"], c["verdict"])),
                      "flipped": c["verdict"] != card.verdicts.get(c["key"], c["verdict"])}
                     for c in criteria]
    return {
        "loop": loop, "answer": answer, "lq": answer.loop_question,
        "snapshot": answer.loop_question.snapshot or {},
        "criteria": criteria, "form": form, "mine": mine,
        # Structured-interview rule: the others' scorecards stay hidden until yours is in.
        "others": [c for c in cards if c.interviewer_id != request.user.pk] if mine else [],
        "hidden_others": 0 if mine else len(cards),
        "score": answer.scored_result,
        "initial_text": _initial_text(answer),
    }


def _shown(criterion: dict[str, Any], verdict: str | None) -> str:
    """A verdict in the words the candidate reads (a pitfall: Avoided / Fell into it)."""
    return verdict_shown({**criterion, "verdict": verdict}) if verdict else ""


def _automatic_initial(answer: Answer) -> dict[str, Any]:
    """The automatic scorecard is the draft: its rating pre-fills the form."""
    if answer.scored_result is not None:
        return {"rating": answer.scored_result.rating}
    return {}


def _initial_text(answer: Answer) -> str:
    """A follow-up is judged with the answer it follows; show that answer too."""
    if answer.kind != Answer.Kind.FOLLOW_UP:
        return ""
    first = answer.loop_question.answers.filter(kind=Answer.Kind.INITIAL).first()
    return first.text if first else ""


@require_http_methods(["GET", "POST"])
@login_required
def scorecard(request: HttpRequest, public_id: UUID, position: int, kind: str) -> HttpResponse:
    loop = _reviewable_loop(request, public_id)
    answer = get_object_or_404(
        Answer.objects.select_related("score", "loop_question"),
        loop_question__loop=loop, loop_question__position=position, kind=kind)
    answer.loop_question.loop = loop
    template = "reviews/scorecard.html"
    if request.method == "GET":
        return TemplateResponse(request, template, _scorecard_context(request, loop, answer))

    form = ScorecardForm(request.POST, criteria=automatic_criteria(answer))
    partial = f"{template}#scorecard" if request.htmx else template
    if not form.is_valid():
        # htmx 2 does not swap 4xx responses by default: the partial with errors is a 200.
        return TemplateResponse(request, partial, _scorecard_context(request, loop, answer, form),
                                status=200 if request.htmx else 400)
    try:
        scorecard_submit(answer=answer, interviewer=request.user, verdicts=form.verdicts(),
                         rating=form.cleaned_data["rating"],
                         recommendation=form.cleaned_data["recommendation"],
                         notes=form.cleaned_data["notes"])
    except ScorecardRefused as error:
        messages.error(request, str(error))
    else:
        messages.success(request, "Scorecard submitted. The candidate's debrief is being "
                                  "updated with your vote.")
    if request.htmx:
        return TemplateResponse(request, partial, _scorecard_context(request, loop, answer))
    return redirect(request.path)


@require_GET
@login_required
def calibration(request: HttpRequest) -> HttpResponse:
    _require_interviewer(request)
    banks = _reviewer_banks(request.user)
    bank = request.GET.get("bank", "")
    if bank and bank not in {b.slug for b in banks}:
        bank = ""
    # Admins calibrate on every scorecard; interviewers on the loops they may review, and
    # see per-criterion flips only on questions they have scored themselves.
    report = calibration_report_for(viewer=None if request.user.is_staff else request.user,
                                    bank=bank)
    overall = report["overall"]
    context: dict[str, Any] = {"report": report, "banks": banks, "bank": bank}
    if overall["n"]:
        context["scatter"] = charts.agreement_scatter(
            report["pairs"], title="Automatic total against the interviewer's rating",
            desc=(f"{overall['n']} scorecards. Each dot marks the scorecards at one automatic "
                  f"total (horizontal axis, to the whole point) and one interviewer's 1-4 "
                  f"rating (vertical). Shaded "
                  f"cells are where the automatic rating matches. Pearson "
                  f"{_fmt(overall['pearson'])}, Spearman {_fmt(overall['spearman'])}, "
                  f"quadratic weighted kappa {_fmt(overall['qwk'])}."))
    flipped = report["most_flipped"][:FLIPS_CHARTED]
    if flipped:
        context["flip_chart"] = charts.flip_bars(
            flipped, title="Criteria interviewers flip most often",
            desc="Share of scorecards that changed the automatic verdict, per criterion: "
                 + "; ".join(f"{c['label']} {c['flips']} of {c['judged']}" for c in flipped)
                 + ".")
    return TemplateResponse(request, "reviews/calibration.html", context)


def _fmt(value: float | None) -> str:
    return "not enough data" if value is None else f"{value:.2f}"


@require_POST
@login_required
def notifications_read(request: HttpRequest) -> HttpResponse:
    """Mark the user's unread notifications read (only their own: the filter is the check)."""
    Notification.objects.filter(user=request.user, read_at__isnull=True) \
        .update(read_at=timezone.now())
    if request.htmx:
        return HttpResponse("")
    next_url = request.POST.get("next", "")
    if not url_has_allowed_host_and_scheme(next_url, allowed_hosts={request.get_host()},
                                           require_https=request.is_secure()):
        next_url = reverse("interviews:home")
    return redirect(next_url)
