"""scoring.calibration on constructed sets whose agreement is known in advance."""

from __future__ import annotations

import pytest

from scoring.calibration import agreement, calibration_report, criterion_flips

TOTALS = (20.0, 45.0, 70.0, 95.0)  # evenly spaced: linear in the rating


def row(total: float, auto_rating: int, human_rating: int, *, flips: dict[str, str] | None = None,
        bank: str = "bank-a", question: str = "q1") -> dict:
    auto = {"a": "made", "b": "missed", "c": "partly"}
    return {"bank": bank, "bank_title": bank.title(), "question": question,
            "prompt": f"Prompt {question}?", "topic": "Topic", "kind": "initial",
            "criteria": {"a": "Point A", "b": "Point B", "c": "Point C"},
            "auto_total": total, "auto_rating": auto_rating, "auto_verdicts": auto,
            "human_rating": human_rating, "human_verdicts": {**auto, **(flips or {})},
            "interviewer_id": 1}


def test_perfect_agreement_is_one_everywhere():
    rows = [row(t, r, r) for t, r in zip(TOTALS, (1, 2, 3, 4), strict=True)]
    figures = agreement(rows)
    assert figures == {"n": 4, "pearson": 1.0, "spearman": 1.0, "qwk": 1.0, "exact": 1.0,
                       "bias": 0.0}


def test_reversed_ratings_are_minus_one():
    rows = [row(t, r, 5 - r) for t, r in zip(TOTALS, (1, 2, 3, 4), strict=True)]
    figures = agreement(rows)
    assert figures["pearson"] == pytest.approx(-1.0)
    assert figures["spearman"] == pytest.approx(-1.0)
    assert figures["qwk"] == pytest.approx(-1.0)  # every rating as far off as it can be
    assert figures["exact"] == 0.0


def test_off_by_one_is_positive_but_below_one_and_shows_the_bias():
    # The scorer rates one point above the interviewer on three of four; ranks still agree.
    rows = [row(20, 2, 1), row(45, 3, 2), row(70, 4, 3), row(95, 4, 4)]
    figures = agreement(rows)
    assert figures["spearman"] == pytest.approx(1.0)
    assert 0 < figures["qwk"] < 1
    assert figures["exact"] == 0.25
    assert figures["bias"] == 0.75  # the scorer is generous


def test_too_few_or_flat_gives_no_correlation():
    assert agreement([row(20, 1, 1), row(95, 4, 4)])["pearson"] is None  # n < 3
    flat = agreement([row(50, 2, 3), row(60, 3, 3), row(70, 3, 3)])
    assert flat["pearson"] is None and flat["spearman"] is None  # no human variance
    assert flat["qwk"] is not None
    assert agreement([])["n"] == 0


def test_flips_are_counted_per_criterion_most_flipped_first():
    rows = [
        row(20, 1, 1, flips={"b": "made"}),
        row(45, 2, 2, flips={"b": "made", "a": "missed"}),
        row(70, 3, 3, flips={"b": "partly"}),
        row(95, 4, 4),
    ]
    flips = criterion_flips(rows)
    assert [(c["key"], c["flips"], c["judged"]) for c in flips] == [
        ("b", 3, 4), ("a", 1, 4), ("c", 0, 4)]
    assert flips[0]["label"] == "Point B"
    assert flips[0]["rate"] == 0.75 and flips[0]["agreement"] == 0.25
    assert flips[0]["directions"] == [("missed → made", 2), ("missed → partly", 1)]


def test_report_groups_by_bank_and_question():
    rows = [row(t, r, r) for t, r in zip(TOTALS, (1, 2, 3, 4), strict=True)]
    rows += [row(t, r, 5 - r, bank="bank-b", question="q9")
             for t, r in zip(TOTALS, (1, 2, 3, 4), strict=True)]
    report = calibration_report(rows)
    by_bank = {b["bank"]: b for b in report["by_bank"]}
    assert by_bank["bank-a"]["pearson"] == 1.0 and by_bank["bank-a"]["n"] == 4
    assert by_bank["bank-b"]["pearson"] == pytest.approx(-1.0)
    assert [(q["bank"], q["question"]) for q in report["by_question"]] == [
        ("bank-a", "q1"), ("bank-b", "q9")]
    assert report["overall"]["n"] == 8
    assert report["most_flipped"] == []  # nobody flipped a verdict
    assert len(report["pairs"]) == 8
