"""Agreement statistics in plain Python, shared by evaluate_scorer and the calibration page."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass


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


# --- Criterion-level agreement (evaluate_scorer --criteria) ----------------------------------
#
# Gold labels come from a labelled JSONL file; the engine's side arrives already reduced to
# booleans (credited, committed, accepted, flagged, evidence on the labelled sentence), so the
# arithmetic below knows nothing of the engine's result shape and is checked by hand.

CONCEPT_LABELS = frozenset(["made", "partly", "missed", "contradicted"])
NUMERIC_LABELS = frozenset(["made", "wrong", "missed"])
PITFALL_LABELS = frozenset(["committed", "avoided"])
LABELS_BY_KIND = {"concept": CONCEPT_LABELS, "numeric": NUMERIC_LABELS, "pitfall": PITFALL_LABELS}

# A 0-5 grade becomes a 1-4 rating where these grades start ratings 2, 3 and 4: below 2 is a
# strong no hire, 2-2.5 lean no hire, 3-3.5 lean hire, 4 and above strong hire.
GRADE_BAND_EDGES = (2.0, 3.0, 4.0)


def grade_band(grade: float) -> int:
    """The 1-4 interview rating a grader's 0-5 grade corresponds to."""
    return 1 + sum(grade >= edge for edge in GRADE_BAND_EDGES)


@dataclass(frozen=True)
class CriterionPair:
    """One labelled criterion of one answer, beside what the engine said about it.

    `label` is the grader's (see LABELS_BY_KIND). The engine's side: `credited` (a concept or
    number earned credit), `committed` (a pitfall was charged), `accepted` (a number was judged
    right), `flagged` (a number was shown as off), `evidence_on_label` (None when the engine
    gave no evidence or the grader no sentence; else whether every evidence span overlaps a
    labelled sentence)."""

    kind: str
    label: str
    dismissed: bool = False
    credited: bool = False
    committed: bool = False
    accepted: bool = False
    flagged: bool = False
    evidence_on_label: bool | None = None

    @property
    def gold_present(self) -> bool:
        """The grader says the point is in the answer (a pitfall: the mistake is)."""
        return self.label in {"made", "partly", "committed"}


def _share(hits: int, total: int) -> float | None:
    return round(hits / total, 4) if total else None


def binary_scores(gold: Sequence[bool], predicted: Sequence[bool]) -> dict[str, float]:
    """Accuracy and macro-F1 (mean of the positive and negative classes' F1) of yes/no calls."""
    _check(gold, predicted)
    if not gold:
        return {"accuracy": 0.0, "macro_f1": 0.0}
    pairs = list(zip(gold, predicted, strict=True))
    f1s = []
    for cls in (True, False):
        tp = sum(1 for g, p in pairs if g is cls and p is cls)
        fp = sum(1 for g, p in pairs if g is not cls and p is cls)
        fn = sum(1 for g, p in pairs if g is cls and p is not cls)
        f1s.append(2 * tp / (2 * tp + fp + fn) if tp else 0.0)
    return {"accuracy": sum(1 for g, p in pairs if g == p) / len(pairs),
            "macro_f1": sum(f1s) / 2}


def criteria_report(pairs: Sequence[CriterionPair], grades: Sequence[float],
                    ratings: Sequence[int]) -> dict:
    """Criterion-level and rating agreement between graders and the engine, as one dict.

    Concepts: accuracy and macro-F1 of "credited" against made-or-partly (contradicted counts
    as not made); the share of not-made points credited, and of dismissed points credited.
    Pitfalls: recall and precision of "committed". Numbers: the share of wrong numbers flagged
    and of right numbers accepted. Evidence: the share of points both sides find present whose
    evidence lies on the labelled sentence. Ratings: quadratic weighted kappa against the banded
    grade, and how many answers graded 3.5 or below were rated 4."""
    concepts = [p for p in pairs if p.kind == "concept"]
    scores = binary_scores([p.gold_present for p in concepts], [p.credited for p in concepts])
    not_made = [p for p in concepts if not p.gold_present]
    dismissed = [p for p in concepts if p.dismissed and not p.gold_present]
    pitfalls = [p for p in pairs if p.kind == "pitfall"]
    committed = [p for p in pitfalls if p.label == "committed"]
    charged = [p for p in pitfalls if p.committed]
    numbers = [p for p in pairs if p.kind == "numeric"]
    wrong = [p for p in numbers if p.label == "wrong"]
    right = [p for p in numbers if p.label == "made"]
    evidenced = [p for p in pairs if p.evidence_on_label is not None and p.gold_present
                 and (p.committed if p.kind == "pitfall" else p.credited)]
    _check(grades, ratings)
    bands = [grade_band(g) for g in grades]
    return {
        "answers": len(grades),
        "concepts": len(concepts),
        "concept_accuracy": round(scores["accuracy"], 4),
        "concept_macro_f1": round(scores["macro_f1"], 4),
        "missed_credited": _share(sum(p.credited for p in not_made), len(not_made)),
        "missed_points": len(not_made),
        "dismissed_credited": _share(sum(p.credited for p in dismissed), len(dismissed)),
        "dismissed_points": len(dismissed),
        "pitfall_recall": _share(sum(p.committed for p in committed), len(committed)),
        "pitfall_precision": _share(sum(p.label == "committed" for p in charged), len(charged)),
        "pitfalls_committed": len(committed),
        "pitfalls_charged": len(charged),
        "wrong_numbers_flagged": _share(sum(p.flagged for p in wrong), len(wrong)),
        "wrong_numbers": len(wrong),
        "right_numbers_accepted": _share(sum(p.accepted for p in right), len(right)),
        "right_numbers": len(right),
        "evidence_precision": _share(sum(bool(p.evidence_on_label) for p in evidenced),
                                     len(evidenced)),
        "evidence_points": len(evidenced),
        "rating_qwk": round(quadratic_weighted_kappa(ratings, bands), 4) if grades else None,
        "graded_at_most_3_5_rated_4": sum(1 for g, r in zip(grades, ratings, strict=True)
                                          if g <= 3.5 and r == 4),
        "rating_confusion": _confusion(bands, ratings),
    }


def _confusion(bands: Sequence[int], ratings: Sequence[int]) -> dict[str, dict[str, int]]:
    """{banded grade: {engine rating: count}}, to see where the ratings disagree."""
    table: dict[str, dict[str, int]] = {}
    for band, rating in zip(bands, ratings, strict=True):
        row = table.setdefault(str(band), {})
        row[str(rating)] = row.get(str(rating), 0) + 1
    return {b: dict(sorted(table[b].items())) for b in sorted(table)}
