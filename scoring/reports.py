"""Debrief reports: request a new version on commit, build it in a task.

`debrief_request` (the lead's contract) creates the next version; `debrief_build` loads the loop,
turns answers, scores and scorecards into the panel's plain inputs, runs `scoring.panel`, and
stores the JSON report. Markdown and PDF renderings of a stored report live here too.
"""

from __future__ import annotations

import logging
import re
from datetime import timedelta
from decimal import ROUND_HALF_UP, Decimal
from typing import Any

from django.db import InterfaceError, OperationalError, transaction
from django.db.models import Max, Prefetch
from django.urls import reverse
from django.utils import timezone

from interviews.models import Answer, Bank, Loop, LoopQuestion, Notification, Question, Scorecard

from . import panel
from .enqueue import enqueue_on_commit
from .models import Debrief
from .results import QuestionScore, question_result
from .services import DEBRIEF_TASK
from .text import fit

logger = logging.getLogger(__name__)

REPORT_SCHEMA = 1
# How long a debrief waits for answers still being scored before it is written without them.
SCORING_WAIT = timedelta(minutes=3)
PENDING_SCORING = (Answer.ScoringStatus.QUEUED, Answer.ScoringStatus.SCORING)
# Stored texts name interviewers by id ("{interviewer:12}"); labels are rendered when shown.
INTERVIEWER_TOKEN = re.compile(r"\{interviewer:(\d+)\}")


class ScoresPending(Exception):
    """Some answers are still being scored; the task retries later."""


def debrief_request(*, loop: Loop, reason: str = "Loop finished") -> Debrief:
    """Create the next debrief version (old versions are kept) and build it after commit."""
    with transaction.atomic():
        Loop.objects.select_for_update().filter(pk=loop.pk).first()
        latest = loop.debriefs.aggregate(latest=Max("version"))["latest"] or 0
        debrief = Debrief.objects.create(loop=loop, version=latest + 1,
                                         reason=fit(reason, Debrief, "reason"))
    enqueue_on_commit(DEBRIEF_TASK, debrief.pk)
    return debrief


def debrief_build(*, debrief_id: int, now: Any = None) -> Debrief | None:
    """Write the report for one debrief version. Safe to run twice (status guard).

    Raises ScoresPending while answers are still being scored, for at most SCORING_WAIT after
    the request; after that the report is written from the scores there are, and says so.
    """
    now = now or timezone.now()
    with transaction.atomic():
        debrief = (Debrief.objects.select_for_update().select_related("loop")
                   .filter(pk=debrief_id).first())
        if debrief is None or debrief.status != Debrief.Status.PENDING:
            return debrief
        loop = _load_loop(debrief.loop_id)
        pending = [a for lq in loop.loop_questions.all() for a in lq.answers.all()
                   if a.scoring_status in PENDING_SCORING]
        if pending and now - debrief.created_at < SCORING_WAIT:
            raise ScoresPending(f"{len(pending)} answer(s) still being scored")
        try:
            data, notes = panel_input_for(loop)
            if not any(q.counts for q in data.questions):
                raise ValueError("No answer in this loop has a score yet.")
            report = panel.run_panel(data)
        except (OperationalError, InterfaceError):
            raise  # transient: the task retries
        except Exception as error:
            logger.exception("Debrief %s failed", debrief_id)
            debrief.status = Debrief.Status.FAILED
            debrief.error = f"{type(error).__name__}: {error}"[:1000]
            debrief.save(update_fields=["status", "error"])
            return debrief
        report.update(
            schema=REPORT_SCHEMA,
            version=debrief.version,
            reason=debrief.reason,
            generated_at=now.isoformat(),
            notes=notes,
            loop=_loop_summary(loop),
        )
        debrief.report = report
        debrief.status = Debrief.Status.READY
        debrief.ready_at = now
        debrief.error = ""
        debrief.save(update_fields=["report", "status", "ready_at", "error"])
        Notification.objects.create(
            user_id=loop.candidate_id,
            message=fit(f"Your debrief for {loop.bank.title} is ready: "
                        f"{report['tally']['text']}.", Notification, "message"),
            url=reverse("scoring:debrief", kwargs={"public_id": loop.public_id}),
        )
    return debrief


def _load_loop(loop_id: int) -> Loop:
    answers = Answer.objects.select_related("score").prefetch_related(
        Prefetch("scorecards", queryset=Scorecard.objects.select_related("interviewer")))
    return (
        Loop.objects.select_related("bank", "bank__compensation", "candidate")
        .prefetch_related(
            "bank__personas",
            Prefetch("loop_questions", queryset=LoopQuestion.objects.prefetch_related(
                Prefetch("answers", queryset=answers))),
        )
        .get(pk=loop_id)
    )


def _loop_summary(loop: Loop) -> dict[str, Any]:
    return {
        "public_id": str(loop.public_id),
        "bank_title": loop.bank.title,
        "bank_slug": loop.bank.slug,
        "role": loop.bank.role,
        "format": loop.format,
        "format_label": loop.get_format_display(),
        "started_at": loop.started_at.isoformat(),
        "finished_at": loop.finished_at.isoformat() if loop.finished_at else None,
    }


def panel_input_for(loop: Loop) -> tuple[panel.PanelInput, list[str]]:
    """The ORM-to-panel glue: everything the committee needs, as plain dataclasses."""
    notes: list[str] = []
    bank = loop.bank
    questions: list[panel.QuestionResult] = []
    human_votes: list[panel.HumanVote] = []
    for lq in loop.loop_questions.all():
        result, votes = _question_result(lq)
        questions.append(result)
        human_votes.extend(votes)
        if not result.counts:
            notes.append(f"Q{lq.position} had no score when this debrief was written; "
                         "it is left out of the totals.")
    human_votes.sort(key=lambda h: (h.question_position, h.interviewer_id or 0))
    personas = tuple(
        panel.Persona(role=p.role, name=p.name, strictness=p.strictness,
                      topic_weights={k: float(v) for k, v in (p.topic_weights or {}).items()},
                      weighs_most=p.weighs_most)
        for p in bank.personas.all()
    )
    band = _band(bank)
    topic_questions: dict[str, list[panel.PracticeQuestion]] = {}
    for slug, prompt, topic_slug in (
        Question.objects.filter(topic__bank=bank)
        .order_by("topic__order", "order", "id")
        .values_list("slug", "prompt", "topic__slug")
    ):
        topic_questions.setdefault(topic_slug, []).append(
            panel.PracticeQuestion(question_slug=slug, prompt=prompt, topic_slug=topic_slug))
    data = panel.PanelInput(
        questions=tuple(questions),
        personas=personas,
        decision_rule=bank.decision_rule,
        band=band,
        seed=str(loop.public_id),
        human_votes=tuple(human_votes),
        topic_questions={k: tuple(v) for k, v in topic_questions.items()},
    )
    return data, notes


def interviewer_token(user_id: int) -> str:
    return f"{{interviewer:{user_id}}}"


def interviewer_labels(loop: Loop) -> dict[int, str]:
    """What the candidate sees for each interviewer of `loop`: "Interviewer N", numbered by
    their first scorecard on this loop (scorecards are final, so N never changes between
    versions), or their name when the bank allows it. One query."""
    rows = (Scorecard.objects.filter(answer__loop_question__loop=loop).order_by("pk")
            .values_list("interviewer_id", "interviewer__first_name", "interviewer__last_name",
                         "interviewer__username"))
    labels: dict[int, str] = {}
    for user_id, first, last, username in rows:
        if user_id in labels:
            continue
        name = f"{first} {last}".strip() or username
        labels[user_id] = (fit(name, limit=80) if loop.bank.show_reviewer_names
                           else f"Interviewer {len(labels) + 1}")
    return labels


_LEGACY_REASON = re.compile(r"^Scorecard by .+ on (Q\d+)$", re.DOTALL)
_LEGACY_ADMIN = re.compile(r"^Requested by .+$", re.DOTALL)


def render_labels(value: Any, labels: dict[int, str]) -> Any:
    """A stored report (or text) with interviewer ids turned into labels, for display."""
    if isinstance(value, str):
        return INTERVIEWER_TOKEN.sub(
            lambda m: labels.get(int(m.group(1)), "An interviewer"), value)
    if isinstance(value, dict):
        return {k: render_labels(v, labels) for k, v in value.items()}
    if isinstance(value, list):
        return [render_labels(v, labels) for v in value]
    return value


def reason_text(reason: str, labels: dict[int, str], *, show_names: bool) -> str:
    """A version's reason for display. Versions written before ids were stored named the
    reviewer or admin; unless the bank shows names, that name is dropped here."""
    if INTERVIEWER_TOKEN.search(reason) or show_names:
        return render_labels(reason, labels)
    return _LEGACY_ADMIN.sub("Requested by an admin",
                             _LEGACY_REASON.sub(r"Scorecard on \1", reason))


def report_for_display(loop: Loop, report: dict[str, Any],
                       labels: dict[int, str] | None = None) -> dict[str, Any]:
    labels = interviewer_labels(loop) if labels is None else labels
    shown = render_labels(report, labels)
    if "reason" in shown:
        shown["reason"] = reason_text(report["reason"], labels,
                                      show_names=loop.bank.show_reviewer_names)
    return shown


def _band(bank: Bank) -> panel.Band | None:
    try:
        band = bank.compensation
    except Bank.compensation.RelatedObjectDoesNotExist:
        return None
    return panel.Band(
        currency=band.currency, base_min=band.base_min, base_max=band.base_max,
        equity_min_percent=band.equity_min_percent, equity_max_percent=band.equity_max_percent,
        sign_on_min=band.sign_on_min, sign_on_max=band.sign_on_max, source_note=band.source_note)


def _question_result(lq: LoopQuestion) -> tuple[panel.QuestionResult, list[panel.HumanVote]]:
    snapshot = lq.snapshot or {}
    spec = snapshot.get("spec") or {}
    answers = list(lq.answers.all())
    result = question_result(answers)
    initial, follow_up = result.initial, result.follow_up
    specs = {c["key"]: c for c in spec.get("criteria", ())}
    common = {
        "position": lq.position,
        "question_slug": snapshot.get("question_slug", ""),
        "prompt": snapshot.get("prompt") or spec.get("prompt", ""),
        "topic_slug": snapshot.get("topic_slug", ""),
        "topic_title": snapshot.get("topic_title") or snapshot.get("topic_slug", ""),
    }
    if initial is None or not initial.text.strip():
        # Nothing submitted: a zero, with every point missing.
        criteria = tuple(
            panel.CriterionResult(key=c["key"], label=plain_label(c["label"]),
                                  kind=c.get("kind", "concept"), verdict="missed",
                                  weight=float(c.get("weight", 1.0)), credit=0.0,
                                  feedback=c.get("feedback_miss", ""))
            for c in spec.get("criteria", ())
        )
        return panel.QuestionResult(**common, total=0.0, rating=1, criteria=criteria,
                                    answered=False), []
    if result.total is None:
        return panel.QuestionResult(**common, total=None, overtime=initial.is_overtime), []

    verdict_text = initial.text
    if result.follow_up_total is not None:
        verdict_text = f"{initial.text}\n\n{follow_up.text}"
    criteria = [_criterion(c, verdict_text, specs.get(c.get("key"), {}), result)
                for c in result.criteria]
    votes = [panel.HumanVote(
        interviewer=interviewer_token(card.interviewer_id), interviewer_id=card.interviewer_id,
        recommendation=card.recommendation, question_position=lq.position,
        rating=card.rating, notes=card.notes) for card in result.scorecards]
    initial_score = initial.scored_result
    feedback = (initial_score.feedback or {}) if initial_score is not None else {}
    follow_prompt = ""
    if follow_up is not None:
        follow_prompt = feedback.get("pushback") or next(iter(spec.get("pushback", ())), "")
    return panel.QuestionResult(
        **common,
        total=result.total,
        rating=result.rating or 1,
        criteria=tuple(criteria),
        overtime=initial.is_overtime or bool(follow_up and follow_up.is_overtime),
        initial_total=result.initial_total,
        follow_up_total=result.follow_up_total,
        follow_up_prompt=follow_prompt or "",
        follow_up_text=follow_up.text if follow_up is not None else "",
        human_reviewed=result.reviewed,
        calculations=tuple(_calculations(result)),
        buzzword_list=_buzzword_list(result, verdict_text),
    ), votes


def _calculations(result: QuestionScore) -> list[str]:
    source = result.verdict_source
    lines = list(((source.feedback or {}) if source is not None else {}).get("calculations")
                 or ())
    return [str(line) for line in lines]


def _buzzword_list(result: QuestionScore, text: str) -> bool:
    """The engine's flag when it gives one (read defensively), else the text's own shape."""
    feedback = (result.verdict_source.feedback or {}) if result.verdict_source else {}
    for key in ("buzzword_list", "bare_list", "buzzword_only"):
        if isinstance(feedback.get(key), bool):
            return feedback[key]
    return panel.looks_like_buzzword_list(text)


_LABEL_PREFIX = re.compile(r"^\s*pitfall\s*:\s*", re.IGNORECASE)


def plain_label(label: str) -> str:
    """'Pitfall: states p99 as an average' -> 'States p99 as an average' (the page says
    "Pitfall" beside it already)."""
    stripped = _LABEL_PREFIX.sub("", label)
    return stripped[:1].upper() + stripped[1:] if stripped else label


def _criterion(data: dict[str, Any], text: str, spec: dict[str, Any],
               result: QuestionScore) -> panel.CriterionResult:
    quotes: list[str] = []
    verdict = data.get("verdict", "missed")
    overridden = data.get("key") in result.changed
    if not overridden or verdict in ("made", "partly", "contradicted"):
        for span in data.get("evidence") or ():
            quote = panel.sentence_around(text, int(span["start"]), int(span["end"]))
            if quote and quote not in quotes:
                quotes.append(quote)
    kind = data.get("kind", "concept")
    credit = data.get("credit")
    feedback = data.get("feedback", "")
    if overridden:
        # The engine's note was about its own verdict ("Only partly covered"): say what the
        # interviewer's verdict means instead.
        credit = ((1.0 if verdict in ("made", "contradicted") else 0.0) if kind == "pitfall"
                  else panel.VERDICT_CREDIT.get(verdict, 0.0))
        feedback = spec.get("feedback_hit", "") if verdict == "made" else (
            spec.get("feedback_miss", "") if verdict in ("missed", "contradicted") else "")
    return panel.CriterionResult(
        key=data["key"], label=plain_label(data.get("label", data["key"])), kind=kind,
        verdict=verdict, weight=float(data.get("weight", 1.0)), credit=credit,
        quotes=tuple(quotes[:2]), feedback=feedback)


# --- renderings ------------------------------------------------------------------------------


def _money(amount: int | float, currency: str) -> str:
    return f"{currency} {amount:,.0f}"


_MD_SPECIAL = re.compile(r"([\\`*_{}\[\]<>|~&])")


def md(text: Any) -> str:
    """Candidate- and bank-written text, safe inside Markdown: every character Markdown or HTML
    would act on is backslash-escaped (so `<git-sha>` shows as written), one line."""
    flat = " ".join(str(text).split())
    escaped = _MD_SPECIAL.sub(r"\\\1", flat)
    escaped = re.sub(r"^(\d+)([.)])", r"\1\\\2", escaped)  # "1. " would start a list
    return re.sub(r"^([#+=-])", r"\\\1", escaped)  # so would "- ", and "#" a heading


def report_markdown(report: dict[str, Any]) -> str:
    """The report as Markdown: pass it a report rendered for display (report_for_display)."""
    loop = report.get("loop", {})
    decision = report["decision"]
    out: list[str] = [
        f"# Debrief: {md(loop.get('bank_title', ''))}",
        "",
        f"{md(loop.get('role', ''))} · {md(loop.get('format_label', ''))} · "
        f"version {report.get('version', 1)} ({md(report.get('reason', ''))})",
        "",
        f"**Decision: {decision['label']}** — {md(report['tally']['text'])}. "
        f"Rule: {md(decision['rule_label'])}. Overall {_whole(report['overall'])}/100.",
        "",
        "What decided it:",
        "",
        *[f"- {md(factor)}" for factor in decision["factors"]],
        "",
        "## The panel",
        "",
    ]
    for vote in report["votes"]:
        out += [f"- **{md(vote['name'])}** ({md(vote['role_label'])}): "
                f"**{vote['vote_label']}**. {md(_without_vote(vote))}"]
    if report.get("human_votes"):
        out += ["", "### Interviewers", ""]
        out += [f"- {md(h['interviewer'])} (Q{h['question_position']}, rating {h['rating']}/4): "
                f"**{h['recommendation_label']}**" + (f". {md(h['notes'])}" if h["notes"] else "")
                for h in report["human_votes"]]
    if report.get("dissent"):
        out += ["", "### Dissent", ""]
        out += [f"- {md(d['name'])} ({md(d['role_label'])}) voted {d['vote_label']}: "
                f"{md(d['why'])}" for d in report["dissent"]]
    offer = report.get("offer")
    if offer:
        cur = offer["currency"]
        out += ["", "## Offer", "",
                f"- Base: {_money(offer['base'], cur)}",
                f"- Equity: {offer['equity_percent']:.3f}%",
                f"- Sign-on: {_money(offer['sign_on'], cur)}",
                "", *[f"- {md(reason)}" for reason in offer["reasons"]]]
    if report.get("practice"):
        out += ["", "## Practise first", ""]
        for i, item in enumerate(report["practice"], 1):
            linked = "; ".join(md(q["prompt"]) for q in item["questions"])
            out += [f"{i}. **{md(item['title'])}** — {md(item['why'])} Train with: {linked}"]
    out += ["", "## Topics", "", "| Topic | Score |", "| --- | --- |"]
    out += [f"| {md(t['title'])} | {_fmt_score(t['score'])} |" for t in report["topics"]]
    out += ["", "## Questions", ""]
    for q in report["questions"]:
        out += [f"### Q{q['position']}. {md(q['prompt'])}", "",
                f"{md(q['topic_title'])} · score {_fmt_score(q['score'])} · rating {q['rating']}/4"
                + (" · overtime" if q["overtime"] else "")
                + (" · reviewed by an interviewer" if q["human_reviewed"] else ""), ""]
        for c in q["made"]:
            quote = f' — "{md(c["quotes"][0])}"' if c["quotes"] else ""
            out.append(f"- Made{' (partly)' if c['verdict'] == 'partly' else ''}: "
                       f"{md(c['label'])}{quote}")
        out += [f"- {'Stated wrongly' if c['verdict'] == 'contradicted' else 'Missed'}: "
                f"{md(c['label'])}" for c in q["missed"]]
        out += [f"- Pitfall: {md(c['label'])}" for c in q["pitfalls"]]
        out += [f"- Calculation: {md(line)}" for line in q.get("calculations", ())]
        if q["follow_up_text"]:
            out += ["", f"Follow-up ({md(q['follow_up_prompt'])}): "
                        f"{_whole(q['initial_total'])} → {_whole(q['follow_up_total'])}, "
                        f"counted as {_fmt_score(q['score'])}.", "",
                    f"> {md(q['follow_up_text'])}"]
        out.append("")
    out += [f"_{md(note)}_" for note in report.get("notes", [])]
    return "\n".join(out).rstrip() + "\n"


def _without_vote(vote: dict[str, Any]) -> str:
    """The rationale without its leading vote ("Hire: ..."): the line names the vote already."""
    text = vote["rationale"]
    for sep in (": ", ". "):
        head = vote["vote_label"] + sep
        if text.startswith(head):
            rest = text[len(head):]
            return rest[:1].upper() + rest[1:]
    return text


def _fmt_score(score: float | None) -> str:
    return "not scored" if score is None else f"{_whole(score)}/100"


def _whole(value: float) -> int:
    """Round half up, as the page's |floatformat:0 does, so page, Markdown and PDF agree."""
    return int(Decimal(str(value)).quantize(Decimal(1), rounding=ROUND_HALF_UP))


def html_to_pdf(html: str) -> bytes:
    """The print view as a PDF: WeasyPrint lays out the same HTML with the same stylesheets
    (print media), fonts from the system (DejaVu, Noto CJK). Only our static files are read."""
    from weasyprint import HTML  # imported here: only the download needs it

    return HTML(string=html, base_url="file:///", url_fetcher=_static_fetcher()).write_pdf()


def _static_fetcher() -> Any:
    """A WeasyPrint fetcher that resolves /static/... to the file on disk and refuses every
    other URL: no network, no file outside the static directories."""
    import mimetypes
    from urllib.parse import urlparse

    from django.conf import settings
    from django.contrib.staticfiles import finders
    from weasyprint.urls import URLFetcher, URLFetcherResponse

    prefix = "/" + settings.STATIC_URL.strip("/") + "/"

    class StaticOnly(URLFetcher):
        def fetch(self, url: str, headers: Any = None) -> URLFetcherResponse:
            path = urlparse(url).path
            found = finders.find(path[len(prefix):]) if path.startswith(prefix) else None
            if not found or not str(found).endswith((".css", ".svg", ".png", ".ttf", ".woff2")):
                raise ValueError(f"Not fetched in a PDF: {url}")
            with open(found, "rb") as handle:
                body = handle.read()
            kind = mimetypes.guess_type(str(found))[0] or "application/octet-stream"
            return URLFetcherResponse(url, body=body, headers={"Content-Type": kind})

    return StaticOnly()
