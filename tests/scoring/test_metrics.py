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
