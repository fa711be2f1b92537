"""The default engine beyond the dev CSV: team-written held-out answers to the bank's questions,
and short answers to computer-science questions from outside any bank (reference-only mode).

The floors sit a little below the figures reached when written, so a change that makes the
engine generalise worse fails here even if the dev CSV figures hold.
"""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path

import pytest
from django.core.management import call_command

from scoring.engines.rubric import word_overlap
from scoring.metrics import spearman

DATA = Path(__file__).resolve().parent / "data"
SHORT_ANSWERS = DATA / "short-answers-other-subject.csv"
HELDOUT = DATA / "heldout-style-inference.csv"
VALIDATION_2 = DATA / "validation-2-untouched.csv"
VALIDATION = DATA / "validation-fresh-wordings.csv"


def run(*args: str) -> dict:
    out = io.StringIO()
    call_command("evaluate_scorer", *args, stdout=out)
    return json.loads(out.getvalue())


def rows(path: Path) -> list[dict[str, str]]:
    with path.open(newline="", encoding="utf-8") as handle:
        return list(csv.DictReader(handle))


def overlap_spearman(path: Path) -> float:
    data = rows(path)
    return spearman([word_overlap(r["reference_answer"], r["answer"]) for r in data],
                    [float(r["score"]) for r in data])


@pytest.mark.django_db
def test_heldout_inference_answers_in_rubric_mode(bundled_bank) -> None:
    report = run(str(HELDOUT), "--bank", bundled_bank.slug)
    assert report["n"] == len(rows(HELDOUT))
    assert report["matched"] == report["n"]  # every question is the bank's, verbatim
    assert report["mode"] == "rubric"
    assert report["spearman"] >= 0.90  # 0.840 when written; 0.891 with engine 1.3, 0.926 with 1.4


@pytest.mark.django_db
def test_validation_fresh_wordings_in_rubric_mode(bundled_bank) -> None:
    # Written and graded before the engine scored it, and never tuned on: a change to the
    # engine or the bank's rubrics is kept only if these figures hold or improve.
    report = run(str(VALIDATION), "--bank", bundled_bank.slug)
    assert report["n"] == len(rows(VALIDATION)) == 35
    assert report["matched"] == report["n"]
    # 0.826 before engine 1.3, 0.864 with it, 0.874 with 1.4, 0.898 with the issue-9 engine
    assert report["spearman"] >= 0.89
    errors = report["mean_signed_error_by_kind"]
    # Over-scoring ceilings per kind (0-5 scale, after the linear fit), a little above the
    # figures with engine 1.3 (keyword-stuffed and paraphrase: 1.4); confident-wrong and
    # wrong-numbers are still over-scored. With the issue-9 engine confident-wrong fell from
    # +0.74 to +0.61 (ceiling tightened); short-precise moved from +0.38 to +0.41 as the fit
    # steepened (ceiling 0.45).
    # Engine 1.7 scored one negation answer (graded 2) 37 instead of 71; the refitted line
    # moved partial answers from -0.01 to +0.008 with no partial answer's total changing.
    # Off-topic answers total 0, so their signed error is the fit's intercept, which moves with
    # every other answer's total: they are held to "no higher than a zero total" instead.
    assert errors["off-topic"] <= report["intercept"] + 0.01
    # The dismissal model (fourth round) lowered three negation and verbose answers that wave
    # points away (graded 1-2); no partial answer's total changed, but the refitted line moved
    # their signed error from +0.008 to +0.037 (verbose-shallow: -0.25 to -0.245, same cause).
    # Eighth round: the Amazon question's clarify point now needs the asking, which lowered
    # three answers graded 1-2 (41 -> 17, 13 -> 8, 51 -> 46); no partial answer's total
    # changed, but the refitted line moved their signed error from +0.04 to +0.075 (and the
    # unchanged verbose-shallow answers' from -0.245 to -0.20).
    # Tenth round: one short-precise answer (graded 4) fell from 92.7 to 89.2 (the first
    # "Triton" it says sits inside another point's "Triton ensemble", so its recommendation is
    # partly made); no partial answer's total changed, but the refitted line moved their
    # signed error from +0.075 to +0.081.
    ceilings = {"keyword-stuffed": 0.0, "negation": 0.35, "partial": 0.085,
                "verbose-shallow": -0.19, "confident-wrong": 0.75, "wrong-numbers": 0.85,
                "short-precise": 0.45}
    for kind, ceiling in ceilings.items():
        assert errors[kind] <= ceiling, (kind, errors[kind])
    # And under-scoring floors for the answers that deserve credit.
    assert errors["paraphrase"] >= -0.85  # -0.96 with engine 1.3, -0.75 with 1.4
    assert errors["strong"] >= -0.9


@pytest.mark.django_db
def test_untouched_second_validation_set(bundled_bank) -> None:
    # Written after the engine was frozen and measured once (0.872 rubric, 0.764 reference-only);
    # a regression fixture from now on, never a tuning target.
    report = run(str(VALIDATION_2), "--bank", bundled_bank.slug)
    assert report["n"] == report["matched"] == len(rows(VALIDATION_2)) == 40
    assert report["spearman"] >= 0.85
    reference_only = run(str(VALIDATION_2), "--reference-only")
    assert reference_only["spearman"] >= 0.74


@pytest.mark.django_db
def test_heldout_inference_answers_in_reference_only_mode(bundled_bank) -> None:
    report = run(str(HELDOUT), "--reference-only")
    assert report["matched"] == 0
    assert report["spearman"] >= 0.80  # 0.835 when written
    assert report["spearman"] > overlap_spearman(HELDOUT)


@pytest.mark.django_db
def test_short_answers_from_another_subject_beat_word_overlap(bundled_bank) -> None:
    # The questions are in no bank, so even without --reference-only they are scored against
    # the CSV's reference answers.
    report = run(str(SHORT_ANSWERS))
    assert report["n"] == len(rows(SHORT_ANSWERS))
    assert report["matched"] == 0
    # 0.530 with the embedding model (scripts/bootstrap.sh installs it); 0.435 lexically alone.
    assert report["spearman"] >= 0.48
    baseline = overlap_spearman(SHORT_ANSWERS)  # 0.294 when written
    assert report["spearman"] > baseline + 0.18


def test_fixtures_cover_the_answer_kinds() -> None:
    heldout_kinds = {r["kind"] for r in rows(HELDOUT)}
    assert {r["kind"] for r in rows(VALIDATION)} == heldout_kinds
    assert {r["question"] for r in rows(VALIDATION)} == {r["question"] for r in rows(HELDOUT)}
    assert heldout_kinds >= {"strong", "paraphrase", "keyword-stuffed", "negation",
                             "wrong-numbers", "off-topic", "partial", "short-precise",
                             "verbose-shallow", "confident-wrong"}
    short = rows(SHORT_ANSWERS)
    assert len({r["question"] for r in short}) >= 8
    assert all(0 <= float(r["score"]) <= 5 for r in short)


VALIDATION_3 = DATA / "validation-3-untouched.csv"
VALIDATION_4 = DATA / "validation-4-untouched.csv"
VALIDATION_5 = DATA / "validation-5-untouched.csv"
VALIDATION_6 = DATA / "validation-6-untouched.csv"
VALIDATION_7 = DATA / "validation-7-untouched.csv"
VALIDATION_8 = DATA / "validation-8-untouched.csv"
VALIDATION_9 = DATA / "validation-9-untouched.csv"
VALIDATION_10 = DATA / "validation-10-untouched.csv"
VALIDATION_11 = DATA / "validation-11-untouched.csv"
VALIDATION_12 = DATA / "validation-12-untouched.csv"
VALIDATION_13 = DATA / "validation-13-untouched.csv"
VALIDATION_14 = DATA / "validation-14-untouched.csv"
VALIDATION_15 = DATA / "validation-15-untouched.csv"
VALIDATION_16 = DATA / "validation-16-untouched.csv"
VALIDATION_17 = DATA / "validation-17-untouched.csv"
VALIDATION_18 = DATA / "validation-18-untouched.csv"
VALIDATION_19 = DATA / "validation-19-untouched.csv"
VALIDATION_20 = DATA / "validation-20-untouched.csv"
VALIDATION_21 = DATA / "validation-21-untouched.csv"
VALIDATION_22 = DATA / "validation-22-untouched.csv"
VALIDATION_23 = DATA / "validation-23-untouched.csv"
VALIDATION_24 = DATA / "validation-24-untouched.csv"
VALIDATION_25 = DATA / "validation-25-untouched.csv"
CRITERIA_SETS = {name: DATA / f"{name}.jsonl" for name in (
    "criteria-dev-2", "criteria-heldout-2", "criteria-heldout-3", "criteria-heldout-4",
    "criteria-dev-3", "criteria-dev-4", "criteria-dev-5", "criteria-heldout-5",
    "criteria-heldout-6", "criteria-heldout-7", "criteria-heldout-8", "criteria-heldout-9",
    "criteria-heldout-10", "criteria-heldout-11", "criteria-heldout-12", "criteria-heldout-13",
    "criteria-heldout-14", "criteria-heldout-15", "criteria-heldout-16", "criteria-heldout-17",
    "criteria-heldout-18", "criteria-heldout-19", "criteria-heldout-20", "criteria-heldout-21",
    "criteria-heldout-22", "criteria-heldout-23", "criteria-heldout-24")}


def graded_set(path: Path, bank: str) -> dict:
    """A 42-answer graded CSV's report, every row matched to a bank question."""
    report = run(str(path), "--bank", bank)
    assert report["n"] == report["matched"] == 42
    return report


def graded_sets_hold(bank: str, *sets: tuple[Path, float, int]) -> None:
    """Each graded CSV keeps its Spearman floor and its ceiling of answers graded below 4 that
    are rated 4."""
    for path, floor, ceiling in sets:
        report = graded_set(path, bank)
        assert report["spearman"] >= floor, (path.name, report["spearman"])
        assert report["graded_below_4_rated_4"] <= ceiling, path.name


@pytest.mark.django_db
def test_the_second_rounds_graded_sets_hold(bundled_bank) -> None:
    # validation-3 was measured once at 0.827 (engine before the round 0.821) and then read;
    # validation-4 once at 0.894 (0.884 before), then read; validation-5 once at the very end:
    # 0.876 (0.887 with the engine before the round).
    third = graded_set(VALIDATION_3, bundled_bank.slug)
    assert third["spearman"] >= 0.87
    fourth = graded_set(VALIDATION_4, bundled_bank.slug)
    assert fourth["spearman"] >= 0.88
    fifth = graded_set(VALIDATION_5, bundled_bank.slug)
    assert fifth["spearman"] >= 0.88


@pytest.mark.django_db
def test_the_third_rounds_graded_sets_hold(bundled_bank) -> None:
    # validation-6 was measured once (0.820; 0.834 with engine 1.7), then read; validation-7
    # once at the very end: 0.872 (0.847 with engine 1.7), two answers graded below 4 rated 4
    # with either engine.
    sixth = graded_set(VALIDATION_6, bundled_bank.slug)
    # 0.820 before the dismissal model; it now withholds credit from points that negation
    # answers wave away (V6-02, V6-28, and V6-11's "memory isn't a concern"), which the
    # grader still put at 2-3.5 for their other content: 0.799.
    assert sixth["spearman"] >= 0.79
    assert sixth["graded_below_4_rated_4"] <= 3
    seventh = graded_set(VALIDATION_7, bundled_bank.slug)
    assert seventh["spearman"] >= 0.85
    assert seventh["graded_below_4_rated_4"] <= 2


@pytest.mark.django_db
def test_the_fourth_rounds_graded_set_holds(bundled_bank) -> None:
    # validation-8: measured at the start of the fourth round and at its end (0.889 both
    # times, five answers graded below 4 rated 4 both times), then read in the fifth: 0.927,
    # none (breakdowns and canary samples whose arithmetic is checked now).
    eighth = graded_set(VALIDATION_8, bundled_bank.slug)
    assert eighth["spearman"] >= 0.9
    assert eighth["graded_below_4_rated_4"] <= 1


@pytest.mark.django_db
def test_the_fifth_rounds_graded_set_holds(bundled_bank) -> None:
    # validation-9: never read; measured with engine 2.1 at the start of the fifth round
    # (0.886, one answer graded below 4 rated 4) and at its end (0.904, none).
    ninth = graded_set(VALIDATION_9, bundled_bank.slug)
    assert ninth["spearman"] >= 0.89
    assert ninth["graded_below_4_rated_4"] == 0


@pytest.mark.django_db
def test_the_sixth_rounds_graded_set_holds(bundled_bank) -> None:
    # validation-10: never read; 0.864 with engine 2.1, 2.2 and 2.3 alike (one answer graded
    # below 4 rated 4, V10-35, each time).
    tenth = graded_set(VALIDATION_10, bundled_bank.slug)
    assert tenth["spearman"] >= 0.85
    assert tenth["graded_below_4_rated_4"] <= 1


@pytest.mark.django_db
def test_the_seventh_rounds_graded_set_holds(bundled_bank) -> None:
    # validation-11: 0.871 with engine 2.3 and 2.4 alike (one answer graded below 4 rated 4
    # each time); read in the eighth round, 0.963 with 2.5 (a terse answer that condemned the
    # remote flag call had been charged the pitfall and scored 0).
    eleventh = graded_set(VALIDATION_11, bundled_bank.slug)
    assert eleventh["spearman"] >= 0.95
    assert eleventh["graded_below_4_rated_4"] <= 1


@pytest.mark.django_db
def test_the_eighth_rounds_graded_set_holds(bundled_bank) -> None:
    # validation-12: never read; 0.798 with engine 2.4, 0.810 with 2.5 (one answer graded below
    # 4 rated 4 each time).
    twelfth = graded_set(VALIDATION_12, bundled_bank.slug)
    assert twelfth["spearman"] >= 0.8
    assert twelfth["graded_below_4_rated_4"] <= 1


@pytest.mark.django_db
def test_the_ninth_rounds_graded_sets_hold(bundled_bank) -> None:
    # Never read. validation-13: 0.879 with engine 2.5 and 2.7 alike; validation-14 (written
    # mid-round): 0.912 with both; validation-15 (written at the end, measured once): 0.837
    # with both. One answer graded below 4 rated 4 in each, with each engine.
    # validation-15 was read in the eleventh round (engine 2.9: 0.906).
    graded_sets_hold(bundled_bank.slug, (VALIDATION_13, 0.86, 1), (VALIDATION_14, 0.89, 1),
                     (VALIDATION_15, 0.88, 1))


@pytest.mark.django_db
def test_the_tenth_rounds_graded_sets_hold(bundled_bank) -> None:
    # Never read. validation-16: 0.842 with engine 2.7 and 2.8 alike (one answer graded below 4
    # rated 4); validation-17 (written mid-round, measured once at the end): 0.850 with both,
    # three answers graded below 4 rated 4 with each (over issue 9's target of none). Both were
    # read in the eleventh round: engine 2.9 scores 0.930 (1) and 0.867 (2).
    graded_sets_hold(bundled_bank.slug, (VALIDATION_16, 0.90, 1), (VALIDATION_17, 0.85, 2))


@pytest.mark.django_db
def test_the_eleventh_rounds_graded_sets_hold(bundled_bank) -> None:
    # validation-18 (written at the start of the round, measured once with 2.8, then read):
    # 0.880 (2 graded below 4 rated 4) with 2.8, 0.901 (0) with 2.9. validation-19 (written
    # mid-round, never opened, measured once at the end): 0.818 (4) with 2.8, 0.852 (3) with
    # 2.9, over issue 9's target of none. Read in the twelfth round: 0.901 (1) with 2.10.
    graded_sets_hold(bundled_bank.slug, (VALIDATION_18, 0.89, 1), (VALIDATION_19, 0.89, 1))


@pytest.mark.django_db
def test_the_twelfth_rounds_graded_sets_hold(bundled_bank) -> None:
    # validation-20 (written at the start of the round, measured once with 2.9 and the first
    # 2.10, then read): 0.864 (1 graded below 4 rated 4) with both; 0.875 (0) with the last
    # 2.10. validation-21 (written mid-round, never opened, measured once at the end): 0.840 (2)
    # with 2.9 and with 2.10, short of issue 9's targets of 0.90 and none. Read in the
    # thirteenth round: 0.867 (0) and 0.892 (1) with 2.11.
    graded_sets_hold(bundled_bank.slug, (VALIDATION_20, 0.86, 0), (VALIDATION_21, 0.88, 1))


@pytest.mark.django_db
def test_the_thirteenth_rounds_graded_set_holds(bundled_bank) -> None:
    # validation-22 (written at the start of the round, measured once at the end): 0.812 (2
    # graded below 4 rated 4) with 2.10, 0.808 (2) with 2.11, short of issue 9's targets. Read
    # in the fourteenth round: 0.872 (1) with 2.12.
    graded_sets_hold(bundled_bank.slug, (VALIDATION_22, 0.86, 1))


@pytest.mark.django_db
def test_the_fourteenth_rounds_graded_set_holds(bundled_bank) -> None:
    # validation-23 (written at the start of the round, never opened, measured once at the end):
    # 0.865 (1 graded below 4 rated 4) with 2.11, 0.869 (1) with 2.12, short of issue 9's
    # targets of 0.90 and none. Read in the fifteenth round: 0.905 (0) with 2.13.
    graded_sets_hold(bundled_bank.slug, (VALIDATION_23, 0.89, 0))


@pytest.mark.django_db
def test_the_fifteenth_rounds_graded_set_holds(bundled_bank) -> None:
    # validation-24 (written at the start of the round, never opened, measured once at the end):
    # 0.853 (1 graded below 4 rated 4) with 2.12 and with 2.13, short of issue 9's targets of
    # 0.90 and none.
    graded_sets_hold(bundled_bank.slug, (VALIDATION_24, 0.845, 1))


@pytest.mark.django_db
def test_the_fifteenth_rounds_second_graded_set_holds(bundled_bank) -> None:
    # validation-25 (written mid-round, never opened, measured once at the end): 0.889 (1 graded
    # below 4 rated 4) with 2.13 and with 2.14, short of issue 9's targets of 0.90 and none.
    graded_sets_hold(bundled_bank.slug, (VALIDATION_25, 0.88, 1))


@pytest.mark.django_db
@pytest.mark.parametrize(("name", "floors"), [
    # Floors a little below the figures at the end of the second round of issue 9.
    ("criteria-dev-2", {"pitfall_recall": 0.95, "pitfall_precision": 0.9,
                        "wrong_numbers_flagged": 0.85, "evidence_precision": 0.93,
                        "rating_qwk": 0.85}),
    ("criteria-heldout-2", {"pitfall_recall": 0.85, "pitfall_precision": 0.95,
                            "wrong_numbers_flagged": 0.85, "evidence_precision": 0.93,
                            "rating_qwk": 0.8}),
    ("criteria-heldout-3", {"pitfall_recall": 0.95, "pitfall_precision": 0.9,
                            "wrong_numbers_flagged": 0.9, "evidence_precision": 0.95,
                            "rating_qwk": 0.85}),
    ("criteria-heldout-4", {"pitfall_recall": 0.65, "pitfall_precision": 0.85,
                            "wrong_numbers_flagged": 0.8, "evidence_precision": 0.93,
                            "rating_qwk": 0.8}),
    # The third round's tuning sets, and its held-out set measured once at the very end.
    ("criteria-dev-3", {"concept_macro_f1": 0.92, "pitfall_recall": 0.9,
                        "pitfall_precision": 0.95, "wrong_numbers_flagged": 0.95,
                        "evidence_precision": 0.93, "rating_qwk": 0.78}),
    ("criteria-dev-4", {"concept_macro_f1": 0.92, "pitfall_recall": 0.9,
                        "pitfall_precision": 0.95, "wrong_numbers_flagged": 0.75,
                        "evidence_precision": 0.93, "rating_qwk": 0.88}),
    ("criteria-dev-5", {"concept_macro_f1": 0.88, "pitfall_recall": 0.95,
                        "pitfall_precision": 0.88, "wrong_numbers_flagged": 0.8,
                        "evidence_precision": 0.91, "rating_qwk": 0.9}),
    ("criteria-heldout-5", {"concept_macro_f1": 0.88, "pitfall_recall": 0.8,
                            "pitfall_precision": 0.85, "wrong_numbers_flagged": 0.7,
                            "evidence_precision": 0.93, "rating_qwk": 0.79}),
    # Measured once at the very end of the third round; read in the fourth (where the
    # dismissal model was fitted on it).
    ("criteria-heldout-6", {"concept_macro_f1": 0.85, "pitfall_recall": 0.75,
                            "pitfall_precision": 0.7, "wrong_numbers_flagged": 0.65,
                            "evidence_precision": 0.95, "rating_qwk": 0.66,
                            "dismissed_credited_at_most": 0.1}),
    # The fourth round's held-out set: measured at its start and end (0.867 macro-F1, 19%
    # dismissed credited, 0.814 kappa at the end), read in the fifth round (0.888, 11.5%, 0.877;
    # the dismissal model is still not fitted on it).
    ("criteria-heldout-7", {"concept_macro_f1": 0.87, "pitfall_recall": 0.8,
                            "pitfall_precision": 0.95, "wrong_numbers_flagged": 0.9,
                            "evidence_precision": 0.92, "rating_qwk": 0.85,
                            "dismissed_credited_at_most": 0.15}),
    # The fifth round's held-out set: measured with engine 2.1 at the start of the round
    # (0.856 macro-F1, 0.757 kappa) and at its end (0.870, 0.778), then read in the sixth
    # (0.898, 0.814 with engine 2.3).
    ("criteria-heldout-8", {"concept_macro_f1": 0.89, "pitfall_recall": 0.8,
                            "pitfall_precision": 0.8, "wrong_numbers_flagged": 0.9,
                            "evidence_precision": 0.95, "rating_qwk": 0.8,
                            "missed_credited_at_most": 0.11,
                            "dismissed_credited_at_most": 0.08}),
    # The sixth round's held-out set: engine 2.1 0.859 macro-F1, 0.62 kappa, 7 graded 3.5 or
    # below rated 4; engine 2.3 0.865, 0.67, 4; read in the seventh round (2.4: 0.942, 0.81, 1).
    ("criteria-heldout-9", {"concept_macro_f1": 0.93, "pitfall_recall": 0.9,
                            "pitfall_precision": 0.9, "wrong_numbers_flagged": 0.85,
                            "evidence_precision": 0.95, "rating_qwk": 0.8,
                            "missed_credited_at_most": 0.1,
                            "dismissed_credited_at_most": 0.05}),
    # The seventh round's held-out set: engine 2.3 0.870 macro-F1, 20.6% missed credited, 0.78
    # kappa; engine 2.4 0.883, 18.3%, 0.80 (2 graded 3.5 or below rated 4); read in the eighth
    # round (2.5: 0.907, 12.2%, 0.84; dismissed credited 18.8% -> 9.4%).
    ("criteria-heldout-10", {"concept_macro_f1": 0.9, "pitfall_recall": 0.65,
                             "pitfall_precision": 0.95, "wrong_numbers_flagged": 0.75,
                             "evidence_precision": 0.94, "rating_qwk": 0.82,
                             "missed_credited_at_most": 0.13,
                             "dismissed_credited_at_most": 0.1}),
    # The eighth round's held-out set: never read; engine 2.4 0.867 macro-F1, 21.8% missed
    # credited, 25.9% dismissed credited, 0.81 kappa; engine 2.5 0.870 and the rest unchanged.
    # Read in the ninth round (2.5 -> 2.7: 0.870 -> 0.944 macro-F1, 21.8% -> 5.5% missed
    # credited, 25.9% -> 7.4% dismissed credited, 0.81 -> 0.89 kappa).
    # (Kappa 0.872 -> 0.860 in the twelfth round: CH11-24, graded 4, says a 3B model in fp16
    # is "about 3GB", now checked and blocking a 4; CH11-47's waved-away versioning now reads
    # as waved away.)
    ("criteria-heldout-11", {"concept_macro_f1": 0.93, "pitfall_recall": 0.9,
                             "pitfall_precision": 0.95, "wrong_numbers_flagged": 0.95,
                             "evidence_precision": 0.93, "rating_qwk": 0.85,
                             "missed_credited_at_most": 0.07,
                             "dismissed_credited_at_most": 0.1}),
    # The ninth round's held-out sets. held-out-12: measured with 2.5 (0.884) and 2.6 (0.890),
    # then read (2.7: 0.916). held-out-13: never read; 2.5 0.865, 2.6 0.873, 2.7 0.876.
    # held-out-14: written at the end, measured once with 2.5 and 2.7 (0.878 both).
    ("criteria-heldout-12", {"concept_macro_f1": 0.9, "pitfall_recall": 0.95,
                             "pitfall_precision": 0.95, "wrong_numbers_flagged": 0.9,
                             "evidence_precision": 0.95, "rating_qwk": 0.81,
                             "missed_credited_at_most": 0.09,
                             "dismissed_credited_at_most": 0.14}),
    # Read in the tenth round (2.7 -> 2.8): held-out-13 0.876 -> 0.901 macro-F1, 19.0% -> 13.5%
    # missed credited, 0.843 -> 0.896 kappa; held-out-14 0.878 -> 0.930, 21.2% -> 9.1%, 0.820 ->
    # 0.904.
    ("criteria-heldout-13", {"concept_macro_f1": 0.89, "pitfall_recall": 0.8,
                             "pitfall_precision": 0.9, "wrong_numbers_flagged": 0.9,
                             "evidence_precision": 0.94, "rating_qwk": 0.87,
                             "missed_credited_at_most": 0.14,
                             "dismissed_credited_at_most": 0.17}),
    ("criteria-heldout-14", {"concept_macro_f1": 0.92, "pitfall_recall": 0.85,
                             "pitfall_precision": 0.95, "wrong_numbers_flagged": 0.85,
                             "evidence_precision": 0.93, "rating_qwk": 0.88,
                             "missed_credited_at_most": 0.1,
                             "dismissed_credited_at_most": 0.05}),
    # The tenth round's held-out sets. held-out-15: measured once with 2.7 (0.905) and the first
    # 2.8 (0.905), then read (final 2.8: 0.927 macro-F1, 8.7% missed credited, 0.910 kappa).
    # held-out-16: measured once at the end, 2.7 and 2.8 alike (0.920, 11.9%, 10.5% dismissed
    # credited, 0.874 -> 0.868 kappa).
    ("criteria-heldout-15", {"concept_macro_f1": 0.91, "pitfall_recall": 0.85,
                             "pitfall_precision": 0.95, "wrong_numbers_flagged": 0.8,
                             "evidence_precision": 0.92, "rating_qwk": 0.89,
                             "missed_credited_at_most": 0.1,
                             "dismissed_credited_at_most": 0.16}),
    # Read in the eleventh round (engine 2.9: 0.937, 7.7%, 5.3%, 0.94 / 0.94, 0.875 kappa).
    ("criteria-heldout-16", {"concept_macro_f1": 0.92, "pitfall_recall": 0.9,
                             "pitfall_precision": 0.9, "wrong_numbers_flagged": 0.9,
                             "evidence_precision": 0.94, "rating_qwk": 0.86,
                             "missed_credited_at_most": 0.09,
                             "dismissed_credited_at_most": 0.06}),
    # The eleventh round's. held-out-17: measured once with 2.8 (0.885 macro-F1, 18.8% missed
    # credited, 14.3% dismissed credited, 0.68 / 0.81 pitfalls, 0.783 kappa), then read (2.9:
    # 0.951, 4.9%, 0%, 0.89 / 1.00, 0.854). held-out-18: never opened, measured once at the end,
    # 2.8 -> 2.9: 0.924 -> 0.921, 14.3% and 14.3% with both, 0.78 / 1.00, 0.894 kappa.
    ("criteria-heldout-17", {"concept_macro_f1": 0.93, "pitfall_recall": 0.85,
                             "pitfall_precision": 0.95, "wrong_numbers_flagged": 0.95,
                             "evidence_precision": 0.95, "rating_qwk": 0.84,
                             "missed_credited_at_most": 0.06,
                             "dismissed_credited_at_most": 0.02}),
    # Read in the twelfth round; 2.10: 0.953, 5.7%, 7.1%, 0.83 / 1.00, kappa 0.903.
    # Thirteenth round: CH18-09's "5ms over" was flagged only through a false line ("you wrote
    # 25ms", the question's figure, now referred to and not judged): 94% -> 87.5% flagged.
    ("criteria-heldout-18", {"concept_macro_f1": 0.94, "pitfall_recall": 0.8,
                             "pitfall_precision": 0.95, "wrong_numbers_flagged": 0.85,
                             "evidence_precision": 0.95, "rating_qwk": 0.89,
                             "missed_credited_at_most": 0.07,
                             "dismissed_credited_at_most": 0.08}),
    # The twelfth round. held-out-19: measured once with 2.9 and the first 2.10 (0.871 -> 0.880,
    # missed credited 22.7% -> 20.8%, dismissed 28.6% -> 17.9%), then read (last 2.10: 0.894,
    # 17.5%, 14.3%). held-out-20: never opened, measured once at the end, 2.9 -> 2.10: 0.864 ->
    # 0.866, 21.6% -> 21.1%, 13.3% both, pitfalls 0.88 / 0.93, wrong numbers 73%, kappa 0.782.
    # Both read in the thirteenth round; 2.11: held-out-19 0.917, 12.3%, 10.7%, 0.94 / 1.00,
    # wrong numbers 88%, kappa 0.884; held-out-20 0.912, 11.7%, 6.7%, 1.00 / 1.00, 87%, 0.867.
    ("criteria-heldout-19", {"concept_macro_f1": 0.9, "pitfall_recall": 0.9,
                             "pitfall_precision": 0.95, "wrong_numbers_flagged": 0.85,
                             "evidence_precision": 0.95, "rating_qwk": 0.87,
                             "missed_credited_at_most": 0.14,
                             "dismissed_credited_at_most": 0.12}),
    ("criteria-heldout-20", {"concept_macro_f1": 0.9, "pitfall_recall": 0.9,
                             "pitfall_precision": 0.95, "wrong_numbers_flagged": 0.85,
                             "evidence_precision": 0.94, "rating_qwk": 0.85,
                             "missed_credited_at_most": 0.13,
                             "dismissed_credited_at_most": 0.08}),
    # The thirteenth round's held-out set: measured once at the end, 2.10 -> 2.11: 0.909 ->
    # 0.914, missed credited 9.6% both, dismissed 7.7% both, pitfalls 0.80 / 0.71 -> 0.93 /
    # 0.70, wrong numbers 82% both, kappa 0.822 -> 0.831; then read (pitfalls 0.93 / 0.93,
    # kappa 0.848).
    ("criteria-heldout-21", {"concept_macro_f1": 0.9, "pitfall_recall": 0.9,
                             "pitfall_precision": 0.9, "wrong_numbers_flagged": 0.85,
                             "evidence_precision": 0.95, "rating_qwk": 0.84,
                             "missed_credited_at_most": 0.1,
                             "dismissed_credited_at_most": 0.08}),
    # The fourteenth round's held-out set: measured once, 2.11 -> 2.12 at its freeze: 0.889 both,
    # missed credited 15.3% both, dismissed 26.7% (4 of 15) both, pitfalls 1.00 / 0.94 both,
    # wrong numbers 93% both, right numbers 97% both, kappa 0.762 -> 0.787; then read (final
    # 2.12: 0.906, 11.0%, 26.7%, right numbers 100%, kappa 0.831).
    ("criteria-heldout-22", {"concept_macro_f1": 0.9, "pitfall_recall": 0.95,
                             "pitfall_precision": 0.9, "wrong_numbers_flagged": 0.9,
                             "right_numbers_accepted": 1.0, "evidence_precision": 0.96,
                             "rating_qwk": 0.82, "missed_credited_at_most": 0.12,
                             "dismissed_credited_at_most": 0.15}),
    # The fifteenth round's held-out set: measured once, 2.12 -> 2.13 at its freeze: 0.912 ->
    # 0.915, missed credited 13.4% -> 12.8%, dismissed 12.5% -> 8.3% (2 of 24), pitfalls 1.00 /
    # 0.95 both, wrong and right numbers 100% both, evidence 96.4% both, kappa 0.906 -> 0.911, 2
    # graded 3.5 or below rated 4 with both; then read (final 2.13: 0.932, 8.7%, kappa 0.912).
    ("criteria-heldout-23", {"concept_macro_f1": 0.92, "pitfall_recall": 0.95,
                             "pitfall_precision": 0.9, "wrong_numbers_flagged": 0.95,
                             "right_numbers_accepted": 1.0, "evidence_precision": 0.95,
                             "rating_qwk": 0.89, "missed_credited_at_most": 0.1,
                             "dismissed_credited_at_most": 0.09}),
    # The fifteenth round's second held-out set, never opened: measured once, 2.13 -> 2.14:
    # 0.896 -> 0.899, missed credited 12.6% -> 11.9%, dismissed 7.7% (2 of 26) both, pitfalls
    # 1.00 / 0.95 both, wrong numbers 89.5% (17 of 19) both, right 100% both, evidence 96.0%
    # both, kappa 0.907 both, none graded 3.5 or below rated 4.
    ("criteria-heldout-24", {"concept_macro_f1": 0.89, "pitfall_recall": 0.95,
                             "pitfall_precision": 0.9, "wrong_numbers_flagged": 0.85,
                             "right_numbers_accepted": 1.0, "evidence_precision": 0.95,
                             "rating_qwk": 0.89, "missed_credited_at_most": 0.125,
                             "dismissed_credited_at_most": 0.08}),
])
def test_criterion_level_figures_hold(bundled_bank, name: str, floors: dict) -> None:
    report = run(str(CRITERIA_SETS[name]), "--criteria", "--bank", bundled_bank.slug)
    for figure, floor in floors.items():
        if figure.endswith("_at_most"):
            found = report[figure.removesuffix("_at_most")]
            assert found <= floor, (figure, found)
        else:
            assert report[figure] >= floor, (figure, report[figure])
    # held-out-6 measured 4 (5 with engine 1.7), then 3, now 1; held-out-7 10 with engine 2.0,
    # 9 with 2.1, 2 with 2.2 (hedged short answers and contradicted points block a 4);
    # held-out-8 4 with 2.1 and 2 with 2.2; held-out-9 7 with 2.1 and 4 with 2.2 and 2.3, over
    # issue 9's target of 2 (said in the README), 1 with 2.4 now that it has been read.
    # held-out-14, measured once at the end of the ninth round: 3 with 2.5 and 2.7 alike.
    # held-out-16, measured once at the end of the tenth round: 3 with 2.7 and 2.8 alike, 1 with
    # 2.9 (read). held-out-17: 3 with 2.8 (measured once), 0 with 2.9; held-out-18: 1 with both.
    ceiling = 3 if name == "criteria-heldout-14" else 2
    assert report["graded_at_most_3_5_rated_4"] <= ceiling
