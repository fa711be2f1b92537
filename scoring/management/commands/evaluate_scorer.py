"""Score a graded CSV with an engine and print agreement with the graders as one JSON object.

With --criteria the file is JSONL instead: one answer a line, every rubric criterion labelled
by a grader (the format is in tests/scoring/data/README.md), and the report is criterion-level.
"""

from __future__ import annotations

import csv
import json
import math
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError

from interviews.models import Question
from scoring.engines.base import (
    CriterionVerdict,
    Engine,
    NumberCheck,
    QuestionSpec,
    Span,
    get_engine,
)
from scoring.engines.text import normalise_whitespace
from scoring.metrics import LABELS_BY_KIND, CriterionPair, agreement_report, criteria_report
from scoring.specs import question_spec_from_model

REQUIRED_COLUMNS = ("question", "answer", "score")


class Command(BaseCommand):
    help = ("Score a graded CSV (question, answer, score[, reference_answer, kind]), or a "
            "criterion-labelled JSONL file with --criteria; print the agreement as JSON.")

    def add_arguments(self, parser: Any) -> None:
        parser.add_argument("file", type=Path, nargs="?",
                            help="The graded CSV, or criterion-labelled JSONL with --criteria "
                                 "(not needed with --scorecards).")
        parser.add_argument("--scorecards", action="store_true",
                            help="Use interviewers' scorecards as the labelled set and print "
                                 "the calibration page's figures (stored automatic scores).")
        parser.add_argument("--bank", help="Only match questions in the bank with this slug.")
        parser.add_argument("--engine", help="Engine name (default: the configured engine).")
        parser.add_argument("--reference-only", action="store_true",
                            help="Ignore rubrics: score every row against its reference answer.")
        parser.add_argument("--criteria", action="store_true",
                            help="FILE is criterion-labelled JSONL: report criterion-level "
                                 "agreement and the rating's kappa.")
        parser.add_argument("--details", action="store_true",
                            help="With --criteria: also list every disagreement.")

    def handle(self, *args: Any, **options: Any) -> None:
        if options["scorecards"]:
            self._scorecards(options["bank"] or "")
            return
        path: Path | None = options["file"]
        if path is None:
            raise CommandError("Give a graded CSV file, or --scorecards.")
        name = options["engine"] or getattr(settings, "MOCKLOOP_SCORING_ENGINE", "rubric")
        if options["criteria"]:
            items = read_labelled(path, self._bank_specs_by_slug(options["bank"]))
            engine = self._engine(name)
            report = criteria_evaluation(engine, items, details=options["details"])
            report["mode"] = "criteria"
            report["engine"] = name
            self.stdout.write(json.dumps(report))
            return
        rows = self._read_rows(path)
        engine = self._engine(name)
        bank_specs = {} if options["reference_only"] else self._bank_specs(options["bank"])
        if options["bank"] and not options["reference_only"] and not bank_specs:
            raise CommandError(f"No questions found for bank {options['bank']!r}")
        totals: list[float] = []
        scores: list[float] = []
        kinds: list[str] = []
        # The costliest error of a practice tool: a top rating for an answer graders put lower.
        below_4_rated_4: list[str] = []
        matched = 0
        for number, row in enumerate(rows, start=2):
            scores.append(self._score_of(row, number, path))
            spec, from_bank = self._spec_for(row, bank_specs, number, path)
            matched += from_bank
            outcome = engine.score(spec, row["answer"] or "")
            totals.append(outcome.total)
            kinds.append((row.get("kind") or "").strip() or "all")
            if outcome.rating == 4 and scores[-1] < 4:
                below_4_rated_4.append(row.get("id") or f"line {number}")
        report = agreement_report(totals, scores, kinds)
        report["matched"] = matched
        report["graded_below_4_rated_4"] = len(below_4_rated_4)
        report["graded_below_4_rated_4_ids"] = below_4_rated_4
        report["mode"] = "reference-only" if options["reference_only"] else "rubric"
        report["engine"] = name
        self.stdout.write(json.dumps(report))

    @staticmethod
    def _engine(name: str) -> Engine:
        try:
            return get_engine(name)
        except LookupError as error:
            raise CommandError(str(error)) from error

    @staticmethod
    def _bank_specs_by_slug(bank: str | None) -> dict[str, list[QuestionSpec]]:
        questions = Question.objects.select_related("topic__bank").prefetch_related("criteria")
        if bank:
            questions = questions.filter(topic__bank__slug=bank)
        specs: dict[str, list[QuestionSpec]] = {}
        for question in questions:
            specs.setdefault(question.slug, []).append(question_spec_from_model(question))
        if bank and not specs:
            raise CommandError(f"No questions found for bank {bank!r}")
        return specs

    def _scorecards(self, bank: str) -> None:
        # The same rows and figures as the calibration page (interviews.reviews.views).
        from interviews.reviews.services import scorecard_rows_for_calibration
        from scoring.calibration import calibration_report

        rows = scorecard_rows_for_calibration(bank=bank)
        if not rows:
            raise CommandError("No scorecards on scored answers yet"
                               + (f" for bank {bank!r}" if bank else ""))
        report = calibration_report(rows)
        report.pop("pairs")
        report["mode"] = "scorecards"
        self.stdout.write(json.dumps(report))

    def _read_rows(self, path: Path) -> list[dict[str, str]]:
        if not path.is_file():
            raise CommandError(f"{path}: no such file")
        try:
            with path.open(newline="", encoding="utf-8-sig") as handle:
                reader = csv.DictReader(handle)
                columns = [c.strip() for c in (reader.fieldnames or [])]
                reader.fieldnames = columns or None
                rows = list(reader)
        except UnicodeDecodeError as error:
            raise CommandError(f"{path}: not UTF-8 text ({error.reason})") from error
        except csv.Error as error:
            raise CommandError(f"{path}: not a readable CSV ({error})") from error
        if not columns:
            raise CommandError(f"{path}: empty file (expected a header row with "
                               f"{', '.join(REQUIRED_COLUMNS)})")
        missing = [c for c in REQUIRED_COLUMNS if c not in columns]
        if missing:
            raise CommandError(f"{path}: missing columns {', '.join(missing)}")
        if not rows:
            raise CommandError(f"{path}: no data rows")
        return rows

    @staticmethod
    def _score_of(row: dict[str, str], number: int, path: Path) -> float:
        raw = (row.get("score") or "").strip()
        try:
            value = float(raw)
        except ValueError:
            raise CommandError(f"{path}:{number}: score {raw!r} is not a number") from None
        if not math.isfinite(value):
            raise CommandError(f"{path}:{number}: score {raw!r} is not a finite number")
        return value

    def _bank_specs(self, bank: str | None) -> dict[str, QuestionSpec]:
        questions = Question.objects.select_related("topic__bank").prefetch_related("criteria")
        if bank:
            questions = questions.filter(topic__bank__slug=bank)
        return {normalise_whitespace(q.prompt).lower(): question_spec_from_model(q)
                for q in questions}

    def _spec_for(self, row: dict[str, str], bank_specs: dict[str, QuestionSpec], number: int,
                  path: Path) -> tuple[QuestionSpec, bool]:
        question = row.get("question") or ""
        spec = bank_specs.get(normalise_whitespace(question).lower())
        if spec is not None:
            return spec, True
        reference = (row.get("reference_answer") or "").strip()
        if not reference:
            raise CommandError(f"{path}:{number}: question not in the bank and no reference_answer")
        return QuestionSpec(prompt=question, model_answer=reference), False


# --- Criterion-labelled JSONL (--criteria) -------------------------------------------------


@dataclass(frozen=True)
class GoldLabel:
    key: str
    kind: str
    label: str
    dismissed: bool
    sentences: tuple[tuple[int, int], ...]  # where the labelled sentences sit in the answer


@dataclass(frozen=True)
class LabelledAnswer:
    id: str
    spec: QuestionSpec
    answer: str
    grade: float
    labels: tuple[GoldLabel, ...]


def read_labelled(path: Path, specs: dict[str, list[QuestionSpec]]) -> list[LabelledAnswer]:
    """Every line of a criterion-labelled JSONL file, checked against the bank's rubrics."""
    if not path.is_file():
        raise CommandError(f"{path}: no such file")
    try:
        lines = path.read_text(encoding="utf-8-sig").splitlines()
    except UnicodeDecodeError as error:
        raise CommandError(f"{path}: not UTF-8 text ({error.reason})") from error
    items: list[LabelledAnswer] = []
    seen: set[str] = set()
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        item = _labelled_answer(line, specs, f"{path}:{number}")
        if item.id in seen:
            raise CommandError(f"{path}:{number}: id {item.id!r} appears twice")
        seen.add(item.id)
        items.append(item)
    if not items:
        raise CommandError(f"{path}: no labelled answers (expected one JSON object a line)")
    return items


def _labelled_answer(line: str, specs: dict[str, list[QuestionSpec]],
                     where: str) -> LabelledAnswer:
    try:
        data = json.loads(line)
    except json.JSONDecodeError as error:
        raise CommandError(f"{where}: not valid JSON ({error.msg})") from None
    if not isinstance(data, dict):
        raise CommandError(f"{where}: expected a JSON object")
    missing = [f for f in ("id", "question", "answer", "grade", "labels") if f not in data]
    if missing:
        raise CommandError(f"{where}: missing fields {', '.join(missing)}")
    answer, slug, labels = data["answer"], data["question"], data["labels"]
    if not isinstance(answer, str) or not isinstance(slug, str) or not isinstance(labels, dict):
        raise CommandError(f"{where}: answer and question must be strings, labels an object")
    found = specs.get(slug, [])
    if len(found) != 1:
        problem = "not in the bank" if not found else "in more than one topic (use --bank)"
        raise CommandError(f"{where}: question {slug!r} {problem}")
    spec = found[0]
    grade = data["grade"]
    if isinstance(grade, bool) or not isinstance(grade, int | float) \
            or not 0 <= grade <= 5 or not math.isfinite(grade):
        raise CommandError(f"{where}: grade {grade!r} is not a number from 0 to 5")
    keys = [c.key for c in spec.criteria]
    unknown = sorted(set(labels) - set(keys))
    unlabelled = [k for k in keys if k not in labels]
    if unknown or unlabelled:
        raise CommandError(f"{where}: labels must cover exactly the question's criteria "
                           f"(unknown: {', '.join(unknown) or 'none'}; "
                           f"unlabelled: {', '.join(unlabelled) or 'none'})")
    gold = tuple(_gold_label(c.key, c.kind, labels[c.key], answer, f"{where}: {c.key}")
                 for c in spec.criteria)
    return LabelledAnswer(id=str(data["id"]), spec=spec, answer=answer, grade=float(grade),
                          labels=gold)


def _gold_label(key: str, kind: str, raw: Any, answer: str, where: str) -> GoldLabel:
    entry = {"label": raw} if isinstance(raw, str) else raw
    if not isinstance(entry, dict) or not isinstance(entry.get("label"), str):
        raise CommandError(f"{where}: expected a label string or an object with a label")
    label, allowed = entry["label"], LABELS_BY_KIND[kind]
    if label not in allowed:
        raise CommandError(f"{where}: {label!r} is not a {kind} label "
                           f"({', '.join(sorted(allowed))})")
    dismissed = entry.get("dismissed", False)
    if not isinstance(dismissed, bool):
        raise CommandError(f"{where}: dismissed must be true or false")
    if dismissed and label not in {"missed", "contradicted"}:
        raise CommandError(f"{where}: a dismissed point is labelled missed or contradicted")
    evidence = entry.get("evidence", [])
    evidence = [evidence] if isinstance(evidence, str) else evidence
    if not isinstance(evidence, list) or not all(isinstance(e, str) and e for e in evidence):
        raise CommandError(f"{where}: evidence must be a sentence or a list of sentences")
    sentences = []
    for sentence in evidence:
        start = answer.find(sentence)
        if start < 0:
            raise CommandError(f"{where}: evidence {sentence[:60]!r} is not in the answer")
        sentences.append((start, start + len(sentence)))
    return GoldLabel(key=key, kind=kind, label=label, dismissed=dismissed,
                     sentences=tuple(sentences))


# How the engine's result reads as a yes/no. Kept small so a new verdict needs one edit here.
CREDITED_VERDICTS = frozenset(["made", "partly"])
# A pitfall verdict says the mistake is in the answer ("made" today; "committed" if an engine
# names it so; "contradicted" is read as a hit, as scoring.reports does).
PITFALL_HIT_VERDICTS = frozenset(["made", "committed", "contradicted"])


def pitfall_committed(verdict: CriterionVerdict | None) -> bool:
    """Whether the engine charged the pitfall; an explicit `committed` flag wins if present."""
    if verdict is None:
        return False
    flag = getattr(verdict, "committed", None)
    if flag is not None:
        return bool(flag)
    return verdict.verdict in PITFALL_HIT_VERDICTS


def _overlaps(span: Span, sentences: tuple[tuple[int, int], ...]) -> bool:
    return any(span.start < end and span.end > start for start, end in sentences)


def evidence_on_label(spans: list[Span], sentences: tuple[tuple[int, int], ...]) -> bool | None:
    """Whether every evidence span lies (at least partly) on a labelled sentence."""
    if not spans or not sentences:
        return None
    return all(_overlaps(span, sentences) for span in spans)


# The candidate's own words quoted in a calculation line of the feedback ("You wrote 200,000 /
# 60 = 33,000; the correct result is ...", 'Check the arithmetic in "..."').
_QUOTED = re.compile(r'^You wrote (.+?)(?: \(|; )|^Check the arithmetic in "(.+?)"')


def _calculation_shown(answer: str, gold: GoldLabel, calculations: list[str]) -> bool:
    """A calculation line of the feedback quotes a figure from the labelled sentence."""
    labelled = [answer[start:end] for start, end in gold.sentences]
    for line in calculations:
        match = _QUOTED.match(str(line))
        # The derived-figure lines quote the candidate's words in quotation marks.
        quoted = match and (match.group(1) or match.group(2) or "").strip().strip('"')
        if quoted and any(ch.isdigit() for ch in quoted) \
                and any(quoted in sentence for sentence in labelled):
            return True
    return False


def criterion_pair(gold: GoldLabel, verdict: CriterionVerdict | None, check: NumberCheck | None,
                   *, answer: str = "", calculations: list[str] | None = None) -> CriterionPair:
    """The grader's label beside the engine's verdict, reduced to the booleans metrics needs."""
    said = verdict.verdict if verdict else "missed"
    spans = list(verdict.evidence) if verdict else []
    accepted = flagged = False
    if gold.kind == "numeric":
        accepted = said == "made" or bool(check and check.within_tolerance)
        # Shown as off: the engine found a number and judged it off where the grader marked the
        # sentence (the labelled number, not a stray one elsewhere), or the feedback's
        # calculation lines correct a figure quoted from that sentence.
        judged_off = bool(check and check.found_value is not None and (
            not gold.sentences or (check.span and _overlaps(check.span, gold.sentences))))
        flagged = not accepted and (said == "contradicted" or judged_off
                                    or _calculation_shown(answer, gold, calculations or []))
    return CriterionPair(
        kind=gold.kind, label=gold.label, dismissed=gold.dismissed,
        credited=said in CREDITED_VERDICTS and gold.kind != "pitfall",
        committed=gold.kind == "pitfall" and pitfall_committed(verdict),
        accepted=accepted, flagged=flagged,
        evidence_on_label=evidence_on_label(spans, gold.sentences))


def criteria_evaluation(engine: Engine, items: list[LabelledAnswer], *,
                        details: bool = False) -> dict[str, Any]:
    pairs: list[CriterionPair] = []
    ratings: list[int] = []
    disagreements: list[dict[str, Any]] = []
    for item in items:
        outcome = engine.score(item.spec, item.answer)
        ratings.append(outcome.rating)
        verdicts = {v.key: v for v in outcome.criteria}
        checks = {c.criterion_key: c for c in outcome.numbers}
        for gold in item.labels:
            verdict = verdicts.get(gold.key)
            pair = criterion_pair(gold, verdict, checks.get(gold.key), answer=item.answer,
                                  calculations=list(outcome.feedback.get("calculations") or []))
            pairs.append(pair)
            if details and _disagrees(pair):
                disagreements.append({"id": item.id, "key": gold.key, "label": gold.label,
                                      "dismissed": gold.dismissed,
                                      "engine": verdict.verdict if verdict else None,
                                      "evidence_on_label": pair.evidence_on_label})
        if details and outcome.rating == 4 and item.grade <= 3.5:
            disagreements.append({"id": item.id, "grade": item.grade, "rating": 4,
                                  "total": outcome.total})
    report = criteria_report(pairs, [i.grade for i in items], ratings)
    if details:
        report["disagreements"] = disagreements
    return report


def _disagrees(pair: CriterionPair) -> bool:
    if pair.kind == "pitfall":
        return pair.committed != pair.gold_present or (
            pair.committed and pair.gold_present and pair.evidence_on_label is False)
    if pair.kind == "numeric" and pair.label == "wrong":
        return not pair.flagged
    if pair.kind == "numeric":
        return pair.accepted != (pair.label == "made")
    off_label = pair.gold_present and pair.credited and pair.evidence_on_label is False
    return pair.credited != pair.gold_present or off_label
