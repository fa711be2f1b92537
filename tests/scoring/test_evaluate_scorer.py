"""evaluate_scorer on the graded dev CSV against the real bundled bank, and its input errors."""

from __future__ import annotations

import csv
import io
import json
import re
from pathlib import Path

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError

from interviews.bankfiles import parse_bank
from scoring.engines.base import (
    CriterionVerdict,
    NumberCheck,
    QuestionSpec,
    ScoreOutcome,
    Span,
    register,
)
from scoring.engines.rubric import word_overlap
from scoring.metrics import grade_band, spearman
from tests.conftest import BUNDLED_BANK

DEV_CSV = Path(__file__).resolve().parent / "data" / "graded-answers-dev.csv"

KEYS = {"n", "pearson", "spearman", "rmse", "mae_by_kind", "mean_signed_error_by_kind",
        "matched", "mode", "engine"}


def run(*args: str) -> dict:
    out = io.StringIO()
    call_command("evaluate_scorer", *args, stdout=out)
    return json.loads(out.getvalue())


@pytest.mark.django_db
def test_rubric_mode_matches_every_row_and_agrees_with_graders(bundled_bank) -> None:
    report = run(str(DEV_CSV), "--bank", bundled_bank.slug)
    assert set(report) >= KEYS
    assert report["n"] == 35
    assert report["matched"] == 35
    assert report["mode"] == "rubric"
    assert report["spearman"] >= 0.93  # 0.935 when written; 0.956 with engine 1.2
    assert report["pearson"] >= 0.88
    # No kind of weak answer is systematically over-scored after the linear fit.
    for kind in ("keyword-stuffed", "negation", "confident-wrong", "verbose-shallow",
                 "wrong-numbers"):
        assert report["mean_signed_error_by_kind"][kind] < 0.35, kind


@pytest.mark.django_db
def test_reference_only_mode_beats_word_overlap(bundled_bank) -> None:
    report = run(str(DEV_CSV), "--reference-only")
    assert report["matched"] == 0
    assert report["mode"] == "reference-only"
    with DEV_CSV.open(newline="", encoding="utf-8") as handle:
        rows = list(csv.DictReader(handle))
    baseline = spearman([word_overlap(r["reference_answer"], r["answer"]) for r in rows],
                        [float(r["score"]) for r in rows])
    assert report["spearman"] >= 0.86  # 0.869 when written; 0.875 with engine 1.2, 0.873 with 1.4
    assert report["spearman"] > baseline + 0.1


def write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "graded.csv"
    path.write_text(text, encoding="utf-8")
    return path


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("question,score\nWhat?,3\n", "missing columns answer"),
        ("question,answer,score,reference_answer\nWhat?,An answer,high,Ref\n", "not a number"),
        ("", "empty file"),
        ("question,answer,score\n", "no data rows"),
        ("question,answer,score\nNot in any bank?,An answer,3\n", "no reference_answer"),
    ],
)
def test_malformed_csv_gives_a_clear_error(tmp_path, text: str, message: str) -> None:
    with pytest.raises(CommandError, match=message):
        run(str(write(tmp_path, text)))


@pytest.mark.django_db
def test_nonexistent_path_gives_a_clear_error(tmp_path) -> None:
    with pytest.raises(CommandError, match="no such file"):
        run(str(tmp_path / "missing.csv"))


@pytest.mark.django_db
def test_unknown_engine_gives_a_clear_error(tmp_path) -> None:
    path = write(tmp_path, "question,answer,score,reference_answer\nQ?,A,1,R\n")
    with pytest.raises(CommandError, match="Unknown scoring engine"):
        run(str(path), "--engine", "no-such-engine")


# --- --criteria: criterion-labelled JSONL --------------------------------------------------

CRITERIA_DEV = Path(__file__).resolve().parent / "data" / "criteria-dev.jsonl"
CRITERIA_HELDOUT = Path(__file__).resolve().parent / "data" / "criteria-heldout.jsonl"
GOLD: dict[str, dict] = {}  # answer text -> its labelled row, for the test engines below


def _spans(answer: str, entry) -> list[Span]:
    sentences = entry.get("evidence", []) if isinstance(entry, dict) else []
    return [Span(answer.find(s), answer.find(s) + len(s)) for s in sentences]


def _label(entry) -> str:
    return entry if isinstance(entry, str) else entry["label"]


@register
class OracleEngine:
    """Says exactly what the grader said: every figure should be perfect."""

    name = "test-oracle"
    version = "test"
    invert = False

    def score(self, question: QuestionSpec, answer: str) -> ScoreOutcome:
        row = GOLD[answer]
        verdicts, checks = [], []
        for criterion in question.criteria:
            entry = row["labels"][criterion.key]
            label = _label(entry)
            present = label in {"made", "partly", "committed"}
            if self.invert:
                present = not present
            verdict = "made" if present else "missed"
            spans = _spans(answer, entry) if present else []
            verdicts.append(CriterionVerdict(
                key=criterion.key, label=criterion.label, kind=criterion.kind, verdict=verdict,
                weight=criterion.weight, credit=1.0 if present else 0.0, evidence=spans))
            if criterion.kind == "numeric":
                wrong = label == "wrong" and not self.invert
                checks.append(NumberCheck(
                    criterion_key=criterion.key, expected_value=1.0, unit=criterion.unit,
                    tolerance_percent=5.0, found_value=2.0 if wrong else None,
                    span=(_spans(answer, entry) or [None])[0] if wrong else None,
                    within_tolerance=present))
        rating = 5 - grade_band(row["grade"]) if self.invert else grade_band(row["grade"])
        return ScoreOutcome(total=0.0, rating=rating, criteria=verdicts, numbers=checks,
                            feedback={}, engine=self.name, engine_version=self.version,
                            rubric_version=1)


@register
class ContraryEngine(OracleEngine):
    """Says the opposite of the grader every time."""

    name = "test-contrary"
    invert = True


def _load_gold(path: Path) -> list[dict]:
    rows = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line]
    GOLD.update({row["answer"]: row for row in rows})
    return rows


@pytest.mark.django_db
@pytest.mark.parametrize("path", [CRITERIA_DEV, CRITERIA_HELDOUT], ids=["dev", "heldout"])
def test_criteria_oracle_engine_scores_perfectly(bundled_bank, path: Path) -> None:
    rows = _load_gold(path)
    report = run(str(path), "--criteria", "--engine", "test-oracle")
    assert report["mode"] == "criteria"
    assert report["answers"] == len(rows)
    assert report["concept_accuracy"] == report["concept_macro_f1"] == 1.0
    assert report["missed_credited"] == report["dismissed_credited"] == 0.0
    assert report["pitfall_recall"] == report["pitfall_precision"] == 1.0
    assert report["wrong_numbers_flagged"] == report["right_numbers_accepted"] == 1.0
    assert report["evidence_precision"] == 1.0
    assert report["rating_qwk"] == 1.0
    assert report["graded_at_most_3_5_rated_4"] == 0


@pytest.mark.django_db
def test_criteria_contrary_engine_scores_worst(bundled_bank) -> None:
    rows = _load_gold(CRITERIA_DEV)
    report = run(str(CRITERIA_DEV), "--criteria", "--engine", "test-contrary", "--details")
    assert report["concept_accuracy"] == report["concept_macro_f1"] == 0.0
    assert report["missed_credited"] == report["dismissed_credited"] == 1.0
    assert report["pitfall_recall"] == report["pitfall_precision"] == 0.0
    assert report["wrong_numbers_flagged"] == report["right_numbers_accepted"] == 0.0
    assert report["rating_qwk"] < 0
    low = sum(1 for row in rows if row["grade"] <= 3.5 and grade_band(row["grade"]) == 1)
    assert report["graded_at_most_3_5_rated_4"] == low
    assert len(report["disagreements"]) >= report["concepts"]


def test_labelled_sets_are_well_formed() -> None:
    """Every criterion of the real bank labelled, all five topics in each part, ids unique."""
    from scoring.management.commands.evaluate_scorer import LABELS_BY_KIND

    bank = parse_bank(BUNDLED_BANK.read_bytes())
    topic_of = {q.slug: t.slug for t in bank.topics for q in t.questions}
    kinds = {q.slug: {c.key: c.kind for c in q.rubric} for t in bank.topics for q in t.questions}
    seen: set[str] = set()
    for path in (CRITERIA_DEV, CRITERIA_HELDOUT):
        rows = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]
        assert len({topic_of[row["question"]] for row in rows}) == 5, path
        for row in rows:
            assert row["id"] not in seen
            seen.add(row["id"])
            assert set(row["labels"]) == set(kinds[row["question"]]), row["id"]
            for key, entry in row["labels"].items():
                assert _label(entry) in LABELS_BY_KIND[kinds[row["question"]][key]], row["id"]
    assert len(seen) >= 60


def _jsonl(tmp_path, *rows) -> Path:
    path = tmp_path / "labels.jsonl"
    path.write_text("\n".join(r if isinstance(r, str) else json.dumps(r) for r in rows),
                    encoding="utf-8")
    return path


def _row(**changes) -> dict:
    labels = {"rps": {"label": "made", "evidence": "That is about 3,333 per second."},
              "intra-op-threads": "missed", "latency-watch": "missed", "worker-restarts": "missed",
              "gpu-fragmentation": "missed", "gpu-move-risks": "missed",
              "headroom-check": "missed"}
    row = {"id": "T1", "question": "shopify-torchserve-200k-rpm", "grade": 1,
           "answer": "That is about 3,333 per second.", "labels": labels}
    row.update(changes)
    return row


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("content", "message"),
    [
        ("", "no labelled answers"),
        ("{not json", "not valid JSON"),
        ("[1, 2]", "expected a JSON object"),
        (json.dumps({"id": "x"}), "missing fields question, answer, grade, labels"),
        (_row(question="no-such-question"), "'no-such-question' not in the bank"),
        (_row(grade=7), "grade 7 is not a number from 0 to 5"),
        (_row(grade="high"), "grade 'high' is not a number"),
        (_row(labels={"rps": "made"}), "unlabelled: intra-op-threads"),
        (_row(labels={**_row()["labels"], "bogus": "made"}), "unknown: bogus"),
        (_row(labels={**_row()["labels"], "rps": "partly"}), "'partly' is not a numeric label"),
        (_row(labels={**_row()["labels"], "rps": {"label": "made", "evidence": "Nowhere."}}),
         "evidence 'Nowhere.' is not in the answer"),
        (_row(labels={**_row()["labels"],
                      "latency-watch": {"label": "made", "dismissed": True}}),
         "a dismissed point is labelled missed or contradicted"),
    ],
)
def test_malformed_labelled_file_gives_a_clear_error(bundled_bank, tmp_path, content,
                                                     message: str) -> None:
    with pytest.raises(CommandError, match=re.escape(message)):
        run(str(_jsonl(tmp_path, content)), "--criteria")


@pytest.mark.django_db
def test_repeated_id_gives_a_clear_error(bundled_bank, tmp_path) -> None:
    with pytest.raises(CommandError, match=":2: id 'T1' appears twice"):
        run(str(_jsonl(tmp_path, _row(), _row())), "--criteria")


def test_pitfall_committed_reads_verdicts_and_an_explicit_flag() -> None:
    from scoring.management.commands.evaluate_scorer import pitfall_committed

    def verdict(said: str) -> CriterionVerdict:
        return CriterionVerdict(key="p", label="P", kind="pitfall", verdict=said, weight=1,
                                credit=0)

    assert pitfall_committed(verdict("made"))
    assert pitfall_committed(verdict("committed"))
    assert not pitfall_committed(verdict("missed"))
    assert not pitfall_committed(None)
    flagged = verdict("missed")
    flagged.committed = False  # an engine that says so explicitly wins over the verdict
    assert not pitfall_committed(flagged)
    flagged.committed = True
    assert pitfall_committed(flagged)


def test_a_wrong_number_counts_as_flagged_only_where_the_grader_put_it() -> None:
    from scoring.management.commands.evaluate_scorer import GoldLabel, criterion_pair

    answer = "Stage two takes 2ms. 200k per minute is 200,000 / 60 = 33,000 per second."
    sentence = answer.index("200k"), len(answer)
    gold = GoldLabel(key="rps", kind="numeric", label="wrong", dismissed=False,
                     sentences=(sentence,))
    verdict = CriterionVerdict(key="rps", label="RPS", kind="numeric", verdict="missed",
                               weight=1, credit=0)

    def check(start: int, end: int) -> NumberCheck:
        return NumberCheck(criterion_key="rps", expected_value=3333, unit="rps",
                           tolerance_percent=3, found_value=2.0, span=Span(start, end))

    stray = check(answer.index("2ms"), answer.index("2ms") + 3)
    on_label = check(answer.index("33,000"), answer.index("33,000") + 6)
    assert not criterion_pair(gold, verdict, stray).flagged
    assert criterion_pair(gold, verdict, on_label).flagged
    assert not criterion_pair(gold, verdict, None).flagged
    line = "You wrote 200,000 / 60 = 33,000; the correct result is 3,333."
    assert criterion_pair(gold, verdict, None, answer=answer, calculations=[line]).flagged
    elsewhere = "You wrote 2ms (Stage); the correct result is 1ms."
    assert not criterion_pair(gold, verdict, None, answer=answer, calculations=[elsewhere]).flagged
    accepted = CriterionVerdict(key="rps", label="RPS", kind="numeric", verdict="made",
                                weight=1, credit=1)
    assert not criterion_pair(gold, accepted, on_label, answer=answer,
                              calculations=[line]).flagged


@pytest.mark.django_db
def test_criteria_with_an_unknown_bank_gives_a_clear_error(bundled_bank, tmp_path) -> None:
    with pytest.raises(CommandError, match="No questions found for bank 'nope'"):
        run(str(_jsonl(tmp_path, _row())), "--criteria", "--bank", "nope")


def test_a_derived_figure_line_quoting_the_labelled_sentence_counts_as_flagged() -> None:
    from scoring.management.commands.evaluate_scorer import GoldLabel, _calculation_shown

    answer = "Intro. 25 against 18 is about 5ms over, so we are fine."
    start = answer.index("25")
    gold = GoldLabel(key="gap", kind="numeric", label="wrong", dismissed=False,
                     sentences=((start, len(answer)),))
    quoted = ['You wrote "25 against 18 is about 5ms"; from your own figures, 25 - 18 gives 7 ms.']
    assert _calculation_shown(answer, gold, quoted)
    elsewhere = ['You wrote "30 against 20 is 5ms"; from your own figures, 30 - 20 gives 10 ms.']
    assert not _calculation_shown(answer, gold, elsewhere)
