"""Score a graded CSV with an engine and print agreement with the graders as one JSON object."""

from __future__ import annotations

import csv
import json
import math
from pathlib import Path
from typing import Any

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError

from interviews.models import Question
from scoring.engines.base import QuestionSpec, get_engine
from scoring.engines.text import normalise_whitespace
from scoring.metrics import agreement_report
from scoring.specs import question_spec_from_model

REQUIRED_COLUMNS = ("question", "answer", "score")


class Command(BaseCommand):
    help = "Score a graded CSV (question, answer, score[, reference_answer, kind]); report."

    def add_arguments(self, parser: Any) -> None:
        parser.add_argument("file", type=Path, nargs="?",
                            help="The graded CSV (not needed with --scorecards).")
        parser.add_argument("--scorecards", action="store_true",
                            help="Use interviewers' scorecards as the labelled set and print "
                                 "the calibration page's figures (stored automatic scores).")
        parser.add_argument("--bank", help="Only match questions in the bank with this slug.")
        parser.add_argument("--engine", help="Engine name (default: the configured engine).")
        parser.add_argument("--reference-only", action="store_true",
                            help="Ignore rubrics: score every row against its reference answer.")

    def handle(self, *args: Any, **options: Any) -> None:
        if options["scorecards"]:
            self._scorecards(options["bank"] or "")
            return
        path: Path | None = options["file"]
        if path is None:
            raise CommandError("Give a graded CSV file, or --scorecards.")
        rows = self._read_rows(path)
        name = options["engine"] or getattr(settings, "MOCKLOOP_SCORING_ENGINE", "rubric")
        try:
            engine = get_engine(name)
        except LookupError as error:
            raise CommandError(str(error)) from error
        bank_specs = {} if options["reference_only"] else self._bank_specs(options["bank"])
        if options["bank"] and not options["reference_only"] and not bank_specs:
            raise CommandError(f"No questions found for bank {options['bank']!r}")
        totals: list[float] = []
        scores: list[float] = []
        kinds: list[str] = []
        matched = 0
        for number, row in enumerate(rows, start=2):
            scores.append(self._score_of(row, number, path))
            spec, from_bank = self._spec_for(row, bank_specs, number, path)
            matched += from_bank
            totals.append(engine.score(spec, row["answer"] or "").total)
            kinds.append((row.get("kind") or "").strip() or "all")
        report = agreement_report(totals, scores, kinds)
        report["matched"] = matched
        report["mode"] = "reference-only" if options["reference_only"] else "rubric"
        report["engine"] = name
        self.stdout.write(json.dumps(report))

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
