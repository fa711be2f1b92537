"""Debrief reports: request a new version on commit, build it in a task.

`debrief_request` (the lead's contract) creates the next version; `debrief_build` loads the loop,
turns answers, scores and scorecards into the panel's plain inputs, runs `scoring.panel`, and
stores the JSON report. Markdown and PDF renderings of a stored report live here too.
"""

from __future__ import annotations

import logging
from datetime import timedelta
from decimal import ROUND_HALF_UP, Decimal
from typing import Any

from django.db import InterfaceError, OperationalError, transaction
from django.db.models import Max, Prefetch
from django.urls import reverse
from django.utils import timezone

from interviews.models import Answer, Bank, Loop, LoopQuestion, Notification, Question, Scorecard

from . import panel
from .engines.base import RATING_BAND_EDGES
from .enqueue import enqueue_on_commit
from .models import Debrief
from .services import DEBRIEF_TASK, effective_total

logger = logging.getLogger(__name__)

REPORT_SCHEMA = 1
# How long a debrief waits for answers still being scored before it is written without them.
SCORING_WAIT = timedelta(minutes=3)
PENDING_SCORING = (Answer.ScoringStatus.QUEUED, Answer.ScoringStatus.SCORING)
# A human rating moves the automatic total into that rating's band (see rating_for_total).
_EDGES = (0.0, *RATING_BAND_EDGES, 100.1)
RATING_BANDS: dict[int, tuple[float, float]] = {
    rating: (_EDGES[rating - 1], _EDGES[rating] - 0.1) for rating in range(1, 5)}


class ScoresPending(Exception):
    """Some answers are still being scored; the task retries later."""


def debrief_request(*, loop: Loop, reason: str = "Loop finished") -> Debrief:
    """Create the next debrief version (old versions are kept) and build it after commit."""
    with transaction.atomic():
        Loop.objects.select_for_update().filter(pk=loop.pk).first()
        latest = loop.debriefs.aggregate(latest=Max("version"))["latest"] or 0
        debrief = Debrief.objects.create(loop=loop, version=latest + 1, reason=reason)
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
            message=f"Your debrief for {loop.bank.title} is ready: {report['tally']['text']}.",
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
    reviewer_names: dict[int, str] = {}
    for lq in loop.loop_questions.all():
        result, votes = _question_result(lq, bank, reviewer_names)
        questions.append(result)
        human_votes.extend(votes)
        if not result.counts:
            notes.append(f"Q{lq.position} had no score when this debrief was written; "
                         "it is left out of the totals.")
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


def _band(bank: Bank) -> panel.Band | None:
    try:
        band = bank.compensation
    except Bank.compensation.RelatedObjectDoesNotExist:
        return None
    return panel.Band(
        currency=band.currency, base_min=band.base_min, base_max=band.base_max,
        equity_min_percent=band.equity_min_percent, equity_max_percent=band.equity_max_percent,
        sign_on_min=band.sign_on_min, sign_on_max=band.sign_on_max, source_note=band.source_note)


def _question_result(lq: LoopQuestion, bank: Bank, reviewer_names: dict[int, str],
                     ) -> tuple[panel.QuestionResult, list[panel.HumanVote]]:
    snapshot = lq.snapshot or {}
    spec = snapshot.get("spec") or {}
    answers = {a.kind: a for a in lq.answers.all()}
    initial = answers.get(Answer.Kind.INITIAL)
    follow_up = answers.get(Answer.Kind.FOLLOW_UP)
    initial_score = _score_of(initial)
    follow_score = _score_of(follow_up)
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
            panel.CriterionResult(key=c["key"], label=c["label"], kind=c.get("kind", "concept"),
                                  verdict="missed", weight=float(c.get("weight", 1.0)), credit=0.0,
                                  feedback=c.get("feedback_miss", ""))
            for c in spec.get("criteria", ())
        )
        return panel.QuestionResult(**common, total=0.0, rating=1, criteria=criteria,
                                    answered=False), []
    if initial_score is None:
        return panel.QuestionResult(**common, total=None, overtime=initial.is_overtime), []

    # The follow-up's score covers answer + follow-up, so its verdicts are the final ones.
    verdict_score, verdict_text = initial_score, initial.text
    if follow_score is not None:
        verdict_score, verdict_text = follow_score, f"{initial.text}\n\n{follow_up.text}"
    total = effective_total(initial_score.total,
                            follow_score.total if follow_score is not None else None)
    rating = verdict_score.rating
    criteria = [_criterion(c, verdict_text) for c in verdict_score.criteria or ()]

    # Human scorecards: the latest one overrides verdicts and rating; each is a human vote.
    cards = sorted((card for a in answers.values() for card in a.scorecards.all()),
                   key=lambda card: card.submitted_at, reverse=True)
    votes = []
    for card in cards:
        if card.interviewer_id not in reviewer_names:
            reviewer_names[card.interviewer_id] = (
                card.interviewer.get_full_name() or card.interviewer.get_username()
                if bank.show_reviewer_names else f"Interviewer {len(reviewer_names) + 1}")
        votes.append(panel.HumanVote(
            interviewer=reviewer_names[card.interviewer_id],
            recommendation=card.recommendation, question_position=lq.position,
            rating=card.rating, notes=card.notes))
    human = bool(cards)
    if cards:
        latest = cards[0]
        criteria = [_override(c, latest.verdicts.get(c.key)) for c in criteria]
        rating = latest.rating
        low, high = RATING_BANDS[rating]
        total = min(high, max(low, total or 0.0))

    follow_prompt = ""
    if follow_up is not None:
        follow_prompt = ((initial_score.feedback or {}).get("pushback")
                         or next(iter(spec.get("pushback", ())), ""))
    return panel.QuestionResult(
        **common,
        total=total,
        rating=rating,
        criteria=tuple(criteria),
        overtime=initial.is_overtime or bool(follow_up and follow_up.is_overtime),
        initial_total=initial_score.total,
        follow_up_total=follow_score.total if follow_score is not None else None,
        follow_up_prompt=follow_prompt or "",
        follow_up_text=follow_up.text if follow_up is not None else "",
        human_reviewed=human,
        calculations=tuple((initial_score.feedback or {}).get("calculations", ())),
    ), votes


def _score_of(answer: Answer | None) -> Any:
    return answer.scored_result if answer is not None else None


def _criterion(data: dict[str, Any], text: str) -> panel.CriterionResult:
    quotes: list[str] = []
    for span in data.get("evidence") or ():
        quote = panel.sentence_around(text, int(span["start"]), int(span["end"]))
        if quote and quote not in quotes:
            quotes.append(quote)
    return panel.CriterionResult(
        key=data["key"], label=data.get("label", data["key"]), kind=data.get("kind", "concept"),
        verdict=data.get("verdict", "missed"), weight=float(data.get("weight", 1.0)),
        credit=data.get("credit"), quotes=tuple(quotes[:2]), feedback=data.get("feedback", ""))


def _override(criterion: panel.CriterionResult, verdict: str | None) -> panel.CriterionResult:
    if verdict not in panel.VERDICT_RANK or verdict == criterion.verdict:
        return criterion
    keep_quotes = verdict in ("made", "partly", "contradicted")
    credit = (1.0 if verdict in ("made", "contradicted") else 0.0) if criterion.is_pitfall \
        else panel.VERDICT_CREDIT[verdict]
    return panel.CriterionResult(
        key=criterion.key, label=criterion.label, kind=criterion.kind, verdict=verdict,
        weight=criterion.weight, credit=credit,
        quotes=criterion.quotes if keep_quotes else (), feedback=criterion.feedback)


# --- renderings ------------------------------------------------------------------------------


def _money(amount: int | float, currency: str) -> str:
    return f"{currency} {amount:,.0f}"


def report_markdown(report: dict[str, Any]) -> str:
    loop = report.get("loop", {})
    out: list[str] = [
        f"# Debrief: {loop.get('bank_title', '')}",
        "",
        f"{loop.get('role', '')} · {loop.get('format_label', '')} · "
        f"version {report.get('version', 1)} ({report.get('reason', '')})",
        "",
        f"**Decision: {report['decision']['label']}** — {report['tally']['text']}. "
        f"Rule: {report['decision']['rule_label']}. Overall {_whole(report['overall'])}/100.",
        "",
        "What decided it:",
        "",
        *[f"- {factor}" for factor in report["decision"]["factors"]],
        "",
        "## The panel",
        "",
    ]
    for vote in report["votes"]:
        out += [f"- **{vote['name']}** ({vote['role_label']}): **{vote['vote_label']}**. "
                f"{vote['rationale']}"]
    if report.get("human_votes"):
        out += ["", "### Interviewers", ""]
        out += [f"- {h['interviewer']} (Q{h['question_position']}, rating {h['rating']}/4): "
                f"**{h['recommendation_label']}**" + (f". {h['notes']}" if h["notes"] else "")
                for h in report["human_votes"]]
    offer = report.get("offer")
    if offer:
        cur = offer["currency"]
        out += ["", "## Offer", "",
                f"- Base: {_money(offer['base'], cur)}",
                f"- Equity: {offer['equity_percent']:.3f}%",
                f"- Sign-on: {_money(offer['sign_on'], cur)}",
                "", *[f"- {reason}" for reason in offer["reasons"]]]
    if report.get("practice"):
        out += ["", "## Practise first", ""]
        for i, item in enumerate(report["practice"], 1):
            linked = "; ".join(q["prompt"] for q in item["questions"])
            out += [f"{i}. **{item['title']}** — {item['why']} Train with: {linked}"]
    out += ["", "## Topics", "", "| Topic | Score |", "| --- | --- |"]
    out += [f"| {t['title']} | {_fmt_score(t['score'])} |" for t in report["topics"]]
    out += ["", "## Questions", ""]
    for q in report["questions"]:
        out += [f"### Q{q['position']}. {q['prompt']}", "",
                f"{q['topic_title']} · score {_fmt_score(q['score'])} · rating {q['rating']}/4"
                + (" · overtime" if q["overtime"] else "")
                + (" · reviewed by an interviewer" if q["human_reviewed"] else ""), ""]
        for c in q["made"]:
            quote = f' — "{c["quotes"][0]}"' if c["quotes"] else ""
            out.append(f"- Made{' (partly)' if c['verdict'] == 'partly' else ''}: "
                       f"{c['label']}{quote}")
        out += [f"- Missed: {c['label']}" for c in q["missed"]]
        out += [f"- Pitfall: {c['label']}" for c in q["pitfalls"]]
        out += [f"- Calculation: {line}" for line in q.get("calculations", ())]
        if q["follow_up_text"]:
            out += ["", f"Follow-up ({q['follow_up_prompt']}): "
                        f"{_whole(q['initial_total'])} → {_whole(q['follow_up_total'])}, "
                        f"counted as {_fmt_score(q['score'])}."]
        out.append("")
    out += [f"_{note}_" for note in report.get("notes", [])]
    return "\n".join(out).rstrip() + "\n"


def _fmt_score(score: float | None) -> str:
    return "not scored" if score is None else f"{_whole(score)}/100"


def _whole(value: float) -> int:
    """Round half up, as the page's |floatformat:0 does, so page, Markdown and PDF agree."""
    return int(Decimal(str(value)).quantize(Decimal(1), rounding=ROUND_HALF_UP))


_PDF_REPLACEMENTS = str.maketrans({"—": "-", "–": "-", "·": "-", "→": "->", "…": "...",
                                   "“": '"', "”": '"', "‘": "'", "’": "'", "≈": "~"})


def report_pdf(report: dict[str, Any]) -> bytes:
    """A one-to-two page packet from the Markdown text, in fpdf2's built-in fonts."""
    from fpdf import FPDF  # imported here: only the download needs it

    pdf = FPDF(format="A4")
    pdf.set_auto_page_break(auto=True, margin=15)
    pdf.add_page()
    pdf.set_title(f"Debrief: {report.get('loop', {}).get('bank_title', '')}")
    for line in report_markdown(report).splitlines():
        text = line.translate(_PDF_REPLACEMENTS).encode("latin-1", "replace").decode("latin-1")
        text = text.replace("**", "").replace("_", "")
        if line.startswith("# "):
            pdf.set_font("Helvetica", "B", 15)
            pdf.multi_cell(0, 8, text[2:], new_x="LMARGIN", new_y="NEXT")
        elif line.startswith("## "):
            pdf.set_font("Helvetica", "B", 12)
            pdf.ln(2)
            pdf.multi_cell(0, 7, text[3:], new_x="LMARGIN", new_y="NEXT")
        elif line.startswith("### "):
            pdf.set_font("Helvetica", "B", 10)
            pdf.multi_cell(0, 5.5, text[4:], new_x="LMARGIN", new_y="NEXT")
        elif not line.strip():
            pdf.ln(1.5)
        else:
            pdf.set_font("Helvetica", "", 9)
            pdf.multi_cell(0, 4.6, text, new_x="LMARGIN", new_y="NEXT")
    return bytes(pdf.output())
