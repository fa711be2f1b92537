"""Agreement statistics used by evaluate_scorer and the calibration page."""

from __future__ import annotations

import pytest

from scoring.metrics import (
    agreement_report,
    linear_fit,
    mae_by_group,
    pearson,
    quadratic_weighted_kappa,
    ranks,
    rmse,
    spearman,
)


def test_pearson_perfect_and_inverse() -> None:
    assert pearson([1, 2, 3], [2, 4, 6]) == pytest.approx(1.0)
    assert pearson([1, 2, 3], [3, 2, 1]) == pytest.approx(-1.0)


def test_pearson_flat_side_is_zero() -> None:
    assert pearson([1, 1, 1], [1, 2, 3]) == 0.0


def test_ranks_average_ties() -> None:
    assert ranks([10, 20, 20, 30]) == [1, 2.5, 2.5, 4]


def test_spearman_with_ties_matches_known_value() -> None:
    # Pearson on average ranks [1, 2.5, 2.5, 4] vs [1, 2, 3, 4].
    assert spearman([1, 2, 2, 3], [1, 2, 3, 4]) == pytest.approx(0.9486833, rel=1e-6)


def test_spearman_is_rank_only() -> None:
    assert spearman([1, 2, 3, 4], [1, 4, 9, 1000]) == pytest.approx(1.0)


def test_linear_fit_and_rmse() -> None:
    slope, intercept = linear_fit([0, 50, 100], [0, 2.5, 5])
    assert (slope, intercept) == (pytest.approx(0.05), pytest.approx(0.0))
    assert rmse([1, 2], [1, 4]) == pytest.approx(2 ** 0.5)


def test_mae_by_group() -> None:
    assert mae_by_group([1, 2, 3], [2, 2, 5], ["a", "a", "b"]) == {"a": 0.5, "b": 2.0}


def test_agreement_report_fits_before_errors() -> None:
    report = agreement_report([0, 50, 100], [1, 3, 5], ["x", "y", "x"])
    assert report["n"] == 3
    assert report["rmse"] == pytest.approx(0.0)
    assert report["mae_by_kind"] == {"x": 0.0, "y": 0.0}


def test_qwk_perfect_agreement() -> None:
    assert quadratic_weighted_kappa([1, 2, 3, 4], [1, 2, 3, 4]) == pytest.approx(1.0)


def test_qwk_penalises_far_disagreement_more() -> None:
    near = quadratic_weighted_kappa([1, 2, 3, 4], [2, 2, 3, 4])
    far = quadratic_weighted_kappa([1, 2, 3, 4], [4, 2, 3, 4])
    assert near > far


def test_qwk_known_value() -> None:
    # Reversed ratings on a 1-4 scale: complete systematic disagreement.
    assert quadratic_weighted_kappa([1, 2, 3, 4], [4, 3, 2, 1]) == pytest.approx(-1.0)


def test_qwk_rejects_out_of_range() -> None:
    with pytest.raises(ValueError, match="rating outside"):
        quadratic_weighted_kappa([0], [1])


def test_mean_signed_error_by_group_keeps_the_sign() -> None:
    from scoring.metrics import mean_signed_error_by_group

    result = mean_signed_error_by_group([3, 1, 2], [1, 2, 2], ["a", "b", "a"])
    assert result == {"a": pytest.approx(1.0), "b": pytest.approx(-1.0)}


def test_agreement_report_has_signed_errors() -> None:
    report = agreement_report([10, 20, 30, 40], [1, 2, 3, 5], ["x", "x", "y", "y"])
    assert set(report["mean_signed_error_by_kind"]) == {"x", "y"}
    assert report["slope"] > 0


# --- Criterion-level agreement (hand-computed) -------------------------------------------


@pytest.mark.parametrize(("grade", "band"), [(0, 1), (1.5, 1), (2, 2), (2.5, 2), (3, 3),
                                             (3.5, 3), (4, 4), (5, 4)])
def test_grade_band_edges(grade: float, band: int) -> None:
    from scoring.metrics import grade_band

    assert grade_band(grade) == band


def test_binary_scores_hand_computed() -> None:
    from scoring.metrics import binary_scores

    # Positive class: tp 2, fp 1, fn 1 -> F1 4/6; negative class: tp 1, fp 1, fn 1 -> 2/4.
    result = binary_scores([True, True, True, False, False], [True, True, False, True, False])
    assert result["accuracy"] == pytest.approx(0.6)
    assert result["macro_f1"] == pytest.approx((4 / 6 + 0.5) / 2)


def _pairs():
    from scoring.metrics import CriterionPair as P

    return [
        P("concept", "made", credited=True, evidence_on_label=True),           # c1
        P("concept", "partly", credited=True, evidence_on_label=False),        # c2
        P("concept", "missed", credited=True),                                 # c3
        P("concept", "contradicted", credited=False, evidence_on_label=True),  # c4
        P("concept", "missed", dismissed=True, credited=True),                 # c5
        P("concept", "missed", dismissed=True, credited=False),                # c6
        P("concept", "made", credited=False, evidence_on_label=True),          # c7
        P("concept", "missed", credited=False),                                # c8
        P("pitfall", "committed", committed=True, evidence_on_label=True),     # p1
        P("pitfall", "committed", committed=False, evidence_on_label=True),    # p2
        P("pitfall", "avoided", committed=True),                               # p3
        P("pitfall", "avoided", committed=False),                              # p4
        P("pitfall", "committed", committed=True),                             # p5
        P("numeric", "wrong", flagged=True),                                   # n1
        P("numeric", "wrong", accepted=True, credited=True),                   # n2
        P("numeric", "wrong"),                                                 # n3
        P("numeric", "made", accepted=True, credited=True, evidence_on_label=True),  # n4
        P("numeric", "made"),                                                  # n5
        P("numeric", "missed"),                                                # n6
    ]


def test_criteria_report_hand_computed() -> None:
    from scoring.metrics import criteria_report

    report = criteria_report(_pairs(), [5, 3.5, 2, 0.5], [4, 4, 2, 1])
    # Concepts: present c1 c2 c7, credited c1 c2 c3 c5 -> right c1 c2 c4 c6 c8 = 5 of 8.
    assert report["concepts"] == 8
    assert report["concept_accuracy"] == pytest.approx(5 / 8)
    # F1 present: tp 2, fp 2, fn 1 -> 4/7; F1 absent: tp 3, fp 1, fn 2 -> 6/9.
    assert report["concept_macro_f1"] == pytest.approx((4 / 7 + 6 / 9) / 2, abs=1e-4)
    assert (report["missed_credited"], report["missed_points"]) == (0.4, 5)  # c3 c5 of 5
    assert (report["dismissed_credited"], report["dismissed_points"]) == (0.5, 2)
    # Pitfalls: committed p1 p2 p5, charged p1 p3 p5.
    assert report["pitfall_recall"] == pytest.approx(2 / 3, abs=1e-4)
    assert report["pitfall_precision"] == pytest.approx(2 / 3, abs=1e-4)
    assert (report["wrong_numbers_flagged"], report["wrong_numbers"]) == (
        pytest.approx(1 / 3, abs=1e-4), 3)
    assert (report["right_numbers_accepted"], report["right_numbers"]) == (0.5, 2)
    # Evidence counts only points both sides find: c1 (on), c2 (off), p1 (on), n4 (on).
    assert (report["evidence_precision"], report["evidence_points"]) == (0.75, 4)
    # Bands [4, 3, 2, 1] against ratings [4, 4, 2, 1]: one step apart once; by hand the
    # expected weighted disagreement is 4/3 against an observed 1/9, so kappa = 1 - 1/12.
    assert report["rating_qwk"] == pytest.approx(11 / 12, abs=1e-4)
    assert report["graded_at_most_3_5_rated_4"] == 1
    assert report["rating_confusion"] == {"1": {"1": 1}, "2": {"2": 1}, "3": {"4": 1},
                                          "4": {"4": 1}}


def test_criteria_report_with_nothing_to_count_gives_none_not_zero() -> None:
    from scoring.metrics import CriterionPair, criteria_report

    report = criteria_report([CriterionPair("concept", "made", credited=True)], [4], [4])
    assert report["pitfall_recall"] is None
    assert report["wrong_numbers_flagged"] is None
    assert report["dismissed_credited"] is None
    assert report["missed_credited"] is None
    assert report["concept_accuracy"] == 1.0
