"""Agreement statistics in plain Python, shared by evaluate_scorer and the calibration page."""

from __future__ import annotations

import math
from collections.abc import Sequence


def _check(a: Sequence[float], b: Sequence[float]) -> None:
    if len(a) != len(b):
        raise ValueError("sequences differ in length")


def mean(values: Sequence[float]) -> float:
    return sum(values) / len(values) if values else 0.0


def pearson(a: Sequence[float], b: Sequence[float]) -> float:
    """Pearson correlation; 0.0 when either side has no variance."""
    _check(a, b)
    if len(a) < 2:
        return 0.0
    ma, mb = mean(a), mean(b)
    cov = sum((x - ma) * (y - mb) for x, y in zip(a, b, strict=True))
    va = sum((x - ma) ** 2 for x in a)
    vb = sum((y - mb) ** 2 for y in b)
    if va == 0 or vb == 0:
        return 0.0
    return cov / math.sqrt(va * vb)


def ranks(values: Sequence[float]) -> list[float]:
    """1-based ranks, ties sharing their average rank."""
    order = sorted(range(len(values)), key=lambda i: values[i])
    result = [0.0] * len(values)
    i = 0
    while i < len(order):
        j = i
        while j + 1 < len(order) and values[order[j + 1]] == values[order[i]]:
            j += 1
        average = (i + j) / 2 + 1
        for k in range(i, j + 1):
            result[order[k]] = average
        i = j + 1
    return result


def spearman(a: Sequence[float], b: Sequence[float]) -> float:
    """Spearman correlation with ties (Pearson on average ranks)."""
    _check(a, b)
    return pearson(ranks(a), ranks(b))


def linear_fit(x: Sequence[float], y: Sequence[float]) -> tuple[float, float]:
    """Least-squares slope and intercept of y on x; a flat x gives slope 0 at the mean of y."""
    _check(x, y)
    mx, my = mean(x), mean(y)
    vx = sum((v - mx) ** 2 for v in x)
    if vx == 0:
        return 0.0, my
    slope = sum((u - mx) * (v - my) for u, v in zip(x, y, strict=True)) / vx
    return slope, my - slope * mx


def rmse(predicted: Sequence[float], actual: Sequence[float]) -> float:
    _check(predicted, actual)
    if not predicted:
        return 0.0
    return math.sqrt(mean([(p - a) ** 2 for p, a in zip(predicted, actual, strict=True)]))


def _mean_error_by_group(predicted: Sequence[float], actual: Sequence[float],
                         groups: Sequence[str], *, absolute: bool) -> dict[str, float]:
    _check(predicted, actual)
    _check(predicted, groups)
    errors: dict[str, list[float]] = {}
    for p, a, g in zip(predicted, actual, groups, strict=True):
        errors.setdefault(g, []).append(abs(p - a) if absolute else p - a)
    return {g: mean(errors[g]) for g in sorted(errors)}


def mae_by_group(predicted: Sequence[float], actual: Sequence[float],
                 groups: Sequence[str]) -> dict[str, float]:
    """Mean absolute error per group label, groups in sorted order."""
    return _mean_error_by_group(predicted, actual, groups, absolute=True)


def mean_signed_error_by_group(predicted: Sequence[float], actual: Sequence[float],
                               groups: Sequence[str]) -> dict[str, float]:
    """Mean of predicted - actual per group: positive means the group is over-scored."""
    return _mean_error_by_group(predicted, actual, groups, absolute=False)


def quadratic_weighted_kappa(a: Sequence[int], b: Sequence[int], min_rating: int = 1,
                             max_rating: int = 4) -> float:
    """Cohen's kappa with quadratic weights between two raters on an integer scale."""
    _check(a, b)
    n = max_rating - min_rating + 1
    if not a or n < 2:
        return 0.0
    observed = [[0.0] * n for _ in range(n)]
    for x, y in zip(a, b, strict=True):
        if not (min_rating <= x <= max_rating and min_rating <= y <= max_rating):
            raise ValueError(f"rating outside {min_rating}-{max_rating}")
        observed[x - min_rating][y - min_rating] += 1
    total = len(a)
    hist_a = [sum(row) for row in observed]
    hist_b = [sum(observed[i][j] for i in range(n)) for j in range(n)]
    numerator = denominator = 0.0
    for i in range(n):
        for j in range(n):
            weight = (i - j) ** 2 / (n - 1) ** 2
            expected = hist_a[i] * hist_b[j] / total
            numerator += weight * observed[i][j]
            denominator += weight * expected
    return 1.0 if denominator == 0 else 1.0 - numerator / denominator


def agreement_report(totals: Sequence[float], scores: Sequence[float],
                     kinds: Sequence[str] | None = None) -> dict:
    """Correlations, and errors on the graders' scale after a linear fit of totals to scores."""
    slope, intercept = linear_fit(totals, scores)
    fitted = [slope * t + intercept for t in totals]
    groups = list(kinds) if kinds is not None else ["all"] * len(totals)
    return {
        "n": len(totals),
        "pearson": round(pearson(totals, scores), 4),
        "spearman": round(spearman(totals, scores), 4),
        "rmse": round(rmse(fitted, scores), 4),
        "slope": round(slope, 6),
        "intercept": round(intercept, 4),
        "mae_by_kind": {k: round(v, 4) for k, v in mae_by_group(fitted, scores, groups).items()},
        "mean_signed_error_by_kind": {
            k: round(v, 4)
            for k, v in mean_signed_error_by_group(fitted, scores, groups).items()},
    }
