"""Debrief and progress pages. Thin: access, one query or two, a template.

Every loop lookup goes through `loop_for_viewer`, so who may read a debrief is decided in one
place: candidates their own, staff any. Interviewers review through /review/ instead, because the
debrief shows other interviewers' votes and they fill in their own scorecard first.
"""

from __future__ import annotations

import re
from typing import Any
from uuid import UUID

from django.contrib.auth.decorators import login_required
from django.db.models import QuerySet
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404
from django.template.loader import render_to_string
from django.template.response import TemplateResponse
from django.utils.dateparse import parse_datetime
from django.views.decorators.http import require_GET
from django_htmx.http import HttpResponseStopPolling

from interviews import practice
from interviews.models import Bank, Loop, Topic

from . import charts, reports
from .models import Debrief

TEMPLATE = "scoring/debrief.html"
# Only ASCII digits: str.isdigit() also accepts "²" and other Unicode digits, which int() or
# the database then reject.
VERSION = re.compile(r"[0-9]{1,9}")


def loops_for_viewer(user: Any) -> QuerySet[Loop]:
    """The loops whose debriefs `user` may read."""
    loops = Loop.objects.select_related("bank")
    if user.is_staff:
        return loops
    return loops.for_candidate(user)


def loop_for_viewer(user: Any, public_id: UUID | str) -> Loop:
    return get_object_or_404(loops_for_viewer(user), public_id=public_id)


def _debrief(request: HttpRequest, loop: Loop) -> Debrief | None:
    """The requested version (?version=N), else the latest; old versions stay readable."""
    debriefs = Debrief.objects.filter(loop=loop)
    version = request.GET.get("version", "")
    if version:
        if not VERSION.fullmatch(version):
            raise Http404("No such version.")
        return get_object_or_404(debriefs, version=int(version))
    return debriefs.order_by("-version").first()


def _report_context(loop: Loop, debrief: Debrief | None,
                    labels: dict[int, str] | None = None) -> dict[str, Any]:
    context: dict[str, Any] = {"loop": loop, "debrief": debrief}
    if debrief is None or debrief.status != Debrief.Status.READY:
        return context
    # Interviewers are stored by id; the candidate sees "Interviewer N" (or names, if allowed).
    report = reports.report_for_display(loop, debrief.report, labels)
    topics = report.get("topics", [])
    scored = ", ".join(
        f"{t['title']} {t['score']:.0f}" if t["score"] is not None else f"{t['title']} not scored"
        for t in topics)
    context.update(
        report=report,
        topic_chart=charts.bar_chart(
            [(t["title"], t["score"]) for t in topics],
            title="Score per topic (0 to 100)",
            desc=f"Bar chart of topic scores out of 100: {scored}.",
        ),
        offer_text=_offer_text(report.get("offer")),
        practice=_practice(loop, report),
    )
    return context


def _offer_text(offer: dict[str, Any] | None) -> dict[str, str]:
    if not offer:
        return {}
    cur, band = offer["currency"], offer["band"]
    return {
        "base": f"{cur} {offer['base']:,}",
        "sign_on": f"{cur} {offer['sign_on']:,}",
        "band": (f"Band: base {cur} {band['base'][0]:,}–{band['base'][1]:,}, equity "
                 f"{band['equity_percent'][0]:g}–{band['equity_percent'][1]:g}%, sign-on "
                 f"{cur} {band['sign_on'][0]:,}–{band['sign_on'][1]:,}."),
    }


def _practice(loop: Loop, report: dict[str, Any]) -> list[dict[str, Any]]:
    """Practice items with links: questions of this loop jump to their card; every item can
    start a topic drill (interviews:loop_start takes bank slug, format and topic id)."""
    items = report.get("practice", [])
    if not items:
        return []
    topic_ids = dict(Topic.objects.filter(
        bank=loop.bank, slug__in={item["topic_slug"] for item in items}
    ).values_list("slug", "pk"))
    positions = {q["question_slug"]: q["position"] for q in report.get("questions", [])}
    return [{
        **item,
        "topic_id": topic_ids.get(item["topic_slug"]),
        "links": [{**q, "url": f"#q-{positions[q['question_slug']]}"
                   if q["question_slug"] in positions else ""} for q in item["questions"]],
    } for item in items]


@require_GET
@login_required
def debrief_detail(request: HttpRequest, public_id: str) -> HttpResponse:
    loop = loop_for_viewer(request.user, public_id)
    return TemplateResponse(request, TEMPLATE, _page_context(loop, _debrief(request, loop)))


def _page_context(loop: Loop, debrief: Debrief | None) -> dict[str, Any]:
    labels = reports.interviewer_labels(loop)
    context = _report_context(loop, debrief, labels)
    versions = list(Debrief.objects.filter(loop=loop).order_by("-version")
                    .values("version", "status", "reason", "created_at"))
    for v in versions:
        v["reason"] = reports.reason_text(v["reason"], labels,
                                          show_names=loop.bank.show_reviewer_names)
    context["versions"] = versions
    return context


@require_GET
@login_required
def debrief_status(request: HttpRequest, public_id: str) -> HttpResponse:
    """Polled every 2s while the report is written; 286 stops the polling once it is done."""
    loop = loop_for_viewer(request.user, public_id)
    debrief = _debrief(request, loop)
    context = _report_context(loop, debrief)
    if debrief is None or debrief.status == Debrief.Status.PENDING:
        return TemplateResponse(request, f"{TEMPLATE}#pending", context)
    partial = "report" if debrief.status == Debrief.Status.READY else "failed"
    response = TemplateResponse(request, f"{TEMPLATE}#{partial}", {**context, "oob": True})
    response.render()
    return HttpResponseStopPolling(response.content)


def _ready_debrief(request: HttpRequest, public_id: str) -> tuple[Loop, Debrief]:
    loop = loop_for_viewer(request.user, public_id)
    debrief = _debrief(request, loop)
    if debrief is None or debrief.status != Debrief.Status.READY:
        raise Http404("The debrief is not ready yet.")
    return loop, debrief


def _filename(loop: Loop, debrief: Debrief, ext: str) -> str:
    return f"debrief-{loop.bank.slug}-{str(loop.public_id)[:8]}-v{debrief.version}.{ext}"


@require_GET
@login_required
def debrief_markdown(request: HttpRequest, public_id: str) -> HttpResponse:
    loop, debrief = _ready_debrief(request, public_id)
    report = reports.report_for_display(loop, debrief.report)
    response = HttpResponse(reports.report_markdown(report),
                            content_type="text/markdown; charset=utf-8")
    response["Content-Disposition"] = f'attachment; filename="{_filename(loop, debrief, "md")}"'
    return response


@require_GET
@login_required
def debrief_pdf(request: HttpRequest, public_id: str) -> HttpResponse:
    loop, debrief = _ready_debrief(request, public_id)
    # The print view itself: the page's template and stylesheets, laid out for print media.
    html = render_to_string(TEMPLATE, {**_page_context(loop, debrief), "pdf": True}, request)
    response = HttpResponse(reports.html_to_pdf(html), content_type="application/pdf")
    response["Content-Disposition"] = f'attachment; filename="{_filename(loop, debrief, "pdf")}"'
    return response


@require_GET
@login_required
def progress(request: HttpRequest) -> HttpResponse:
    # One query for the newest ready debrief of each loop, one for the banks a drill can use.
    history = progress_history(list(practice.ready_debriefs_for(request.user)))
    banks = {bank.slug: bank for bank in Bank.objects.published()}
    practice.attach_drill_targets(history["weakest"], banks)
    return TemplateResponse(request, "scoring/progress.html", history)


def progress_history(debriefs: list[Debrief]) -> dict[str, Any]:
    """Scores over time (overall and per topic) and the weakest criteria across loops."""
    rows = []
    topic_titles: dict[str, str] = {}
    for debrief in debriefs:
        report = debrief.report
        when = parse_datetime(report.get("loop", {}).get("finished_at") or "") \
            or debrief.loop.started_at
        topics = {t["slug"]: t["score"] for t in report.get("topics", [])}
        for t in report.get("topics", []):
            topic_titles.setdefault(t["slug"], t["title"])
        rows.append({"debrief": debrief, "loop": debrief.loop, "when": when,
                     "overall": report.get("overall"), "topics": topics,
                     "decision": report.get("decision", {}).get("label", ""),
                     "tally": report.get("tally", {}).get("text", "")})
    x_labels = [f"{i + 1}. {row['when']:%b %-d}" for i, row in enumerate(rows)]
    series: list[tuple[str, list[float | None]]] = [
        ("Overall", [row["overall"] for row in rows])]
    series += [(title, [row["topics"].get(slug) for row in rows])
               for slug, title in topic_titles.items()]
    summary = "; ".join(f"{label}: {row['overall']:.0f}" for label, row in zip(
        x_labels, rows, strict=True) if row["overall"] is not None)
    chart = charts.line_chart(
        x_labels, series, title="Scores over time, overall and per topic (0 to 100)",
        desc=f"Line chart of overall loop scores in order: {summary}.") if rows else None
    for row in rows:
        row["topic_cells"] = [row["topics"].get(slug) for slug in topic_titles]
    return {"rows": rows, "topic_titles": list(topic_titles.values()), "chart": chart,
            "weakest": practice.weak_criteria(
                (d.report, row["when"]) for d, row in zip(debriefs, rows, strict=True))}
