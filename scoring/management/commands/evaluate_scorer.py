"""Score a graded CSV with an engine and print agreement with the graders as one JSON object."""

from __future__ import annotations

import csv
import json
from pathlib import Path
from typing import Any

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError

from interviews.models import Question
from scoring.engines.base import QuestionSpec, get_engine
from scoring.engines.text import normalise_whitespace
from scoring.metrics import agreement_report
from scoring.specs import question_spec_from_model


class Command(BaseCommand):
    help = "Score a graded CSV (question, answer, score[, reference_answer, kind]); report."

    def add_arguments(self, parser: Any) -> None:
        parser.add_argument("file", type=Path)
        parser.add_argument("--bank", help="Only match questions in the bank with this slug.")
        parser.add_argument("--engine", help="Engine name (default: the configured engine).")
        parser.add_argument("--reference-only", action="store_true",
                            help="Ignore rubrics: score every row against its reference answer.")

    def handle(self, *args: Any, **options: Any) -> None:
        path: Path = options["file"]
        if not path.exists():
            raise CommandError(f"{path}: no such file")
        with path.open(newline="", encoding="utf-8") as handle:
            rows = list(csv.DictReader(handle))
        missing = {"question", "answer", "score"} - set(rows[0] if rows else ())
        if missing:
            raise CommandError(f"{path}: missing columns {', '.join(sorted(missing))}")
        name = options["engine"] or getattr(settings, "MOCKLOOP_SCORING_ENGINE", "rubric")
        try:
            engine = get_engine(name)
        except LookupError as error:
            raise CommandError(str(error)) from error
        bank_specs = {} if options["reference_only"] else self._bank_specs(options["bank"])
        totals: list[float] = []
        scores: list[float] = []
        kinds: list[str] = []
        for number, row in enumerate(rows, start=2):
            spec = self._spec_for(row, bank_specs, number, path)
            totals.append(engine.score(spec, row["answer"]).total)
            scores.append(float(row["score"]))
            kinds.append(row.get("kind") or "all")
        self.stdout.write(json.dumps(agreement_report(totals, scores, kinds)))

    def _bank_specs(self, bank: str | None) -> dict[str, QuestionSpec]:
        questions = Question.objects.select_related("topic__bank").prefetch_related("criteria")
        if bank:
            questions = questions.filter(topic__bank__slug=bank)
        return {normalise_whitespace(q.prompt).lower(): question_spec_from_model(q)
                for q in questions}

    def _spec_for(self, row: dict[str, str], bank_specs: dict[str, QuestionSpec], number: int,
                  path: Path) -> QuestionSpec:
        spec = bank_specs.get(normalise_whitespace(row["question"]).lower())
        if spec is not None:
            return spec
        reference = (row.get("reference_answer") or "").strip()
        if not reference:
            raise CommandError(f"{path}:{number}: question not in the bank and no reference_answer")
        return QuestionSpec(prompt=row["question"], model_answer=reference)
