"""How well the automatic scorer agrees with interviewers, in plain Python (no ORM).

Input: rows as produced by interviews.reviews.services.scorecard_rows_for_calibration, one per human
scorecard: the automatic total (0-100), rating (1-4) and verdicts beside the interviewer's
rating and verdicts. Output: Pearson and Spearman between the automatic total and the human
rating, quadratic weighted kappa between the two 1-4 ratings, overall, per bank and per
question; per criterion how often interviewers flipped the automatic verdict, most flipped
first: those are the rubric entries to fix.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from .metrics import pearson, quadratic_weighted_kappa, spearman

# Below this many scorecards a correlation says nothing; the figures are None ("too few").
MIN_PAIRS = 3


def agreement(rows: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    """Agreement figures for one group of rows. Correlations are None with fewer than
    MIN_PAIRS rows or when one side has no variance (the correlation is undefined then)."""
    totals = [float(r["auto_total"]) for r in rows]
    auto_ratings = [int(r["auto_rating"]) for r in rows]
    human = [int(r["human_rating"]) for r in rows]
    n = len(rows)
    enough = n >= MIN_PAIRS
    varied = len(set(totals)) > 1 and len(set(human)) > 1
    exact = sum(a == h for a, h in zip(auto_ratings, human, strict=True))
    return {
        "n": n,
        "pearson": round(pearson(totals, human), 4) if enough and varied else None,
        "spearman": round(spearman(totals, human), 4) if enough and varied else None,
        "qwk": round(quadratic_weighted_kappa(auto_ratings, human), 4) if enough else None,
        "exact": round(exact / n, 4) if n else None,
        # Positive: the scorer rates higher than interviewers do.
        "bias": round(sum(a - h for a, h in zip(auto_ratings, human, strict=True)) / n, 3)
        if n else None,
    }


def _grouped(rows: Iterable[Mapping[str, Any]], key: str) -> dict[str, list[Mapping[str, Any]]]:
    groups: dict[str, list[Mapping[str, Any]]] = {}
    for row in rows:
        groups.setdefault(row[key], []).append(row)
    return groups


def criterion_flips(rows: Sequence[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """Per (bank, question, criterion): how many scorecards judged it, how many flipped the
    automatic verdict and in which directions. Most flips first, then highest flip rate."""
    stats: dict[tuple[str, str, str], dict[str, Any]] = {}
    for row in rows:
        human = row["human_verdicts"]
        for key, auto in row["auto_verdicts"].items():
            entry = stats.setdefault((row["bank"], row["question"], key), {
                "bank": row["bank"], "question": row["question"],
                "prompt": row.get("prompt", ""), "key": key,
                "label": row.get("criteria", {}).get(key, key),
                "judged": 0, "flips": 0, "directions": Counter()})
            entry["judged"] += 1
            verdict = human.get(key, auto)
            if verdict != auto:
                entry["flips"] += 1
                entry["directions"][f"{auto or 'none'} → {verdict}"] += 1
    return flip_entries(stats.values())


def flip_entries(tallies: Iterable[dict[str, Any]]) -> list[dict[str, Any]]:
    """Finish per-criterion flip tallies (judged, flips, directions Counter) into the rows the
    calibration page shows: rate, agreement, directions most common first; most flips first."""
    result = []
    for entry in tallies:
        entry["rate"] = round(entry["flips"] / entry["judged"], 4)
        entry["agreement"] = round(1 - entry["rate"], 4)
        entry["directions"] = entry["directions"].most_common()
        result.append(entry)
    result.sort(key=lambda e: (-e["flips"], -e["rate"], e["bank"], e["question"], e["key"]))
    return result


def calibration_report(rows: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    """Everything the calibration page and `evaluate_scorer --scorecards` show."""
    by_bank = [
        {"bank": slug, "bank_title": group[0].get("bank_title", slug), **agreement(group)}
        for slug, group in sorted(_grouped(rows, "bank").items())
    ]
    by_question = [
        {"bank": group[0]["bank"], "question": group[0]["question"],
         "prompt": group[0].get("prompt", ""), "topic": group[0].get("topic", ""),
         **agreement(group)}
        for _, group in sorted(_grouped(
            [{**r, "_q": f"{r['bank']}/{r['question']}"} for r in rows], "_q").items())
    ]
    flips = criterion_flips(rows)
    return {
        "overall": agreement(rows),
        "by_bank": by_bank,
        "by_question": by_question,
        "criteria": flips,
        "most_flipped": [c for c in flips if c["flips"]],
        "pairs": [(float(r["auto_total"]), int(r["human_rating"])) for r in rows],
    }


def qwk_from_counts(counts: Mapping[tuple[int, int], int], min_rating: int = 1,
                    max_rating: int = 4) -> float | None:
    """Quadratic weighted kappa from a confusion matrix {(auto, human): count}: the same
    figure as metrics.quadratic_weighted_kappa on the expanded lists, in O(cells)."""
    total = sum(counts.values())
    if not total:
        return None
    size = max_rating - min_rating + 1
    hist_a = Counter[int]()
    hist_b = Counter[int]()
    for (a, b), n in counts.items():
        hist_a[a] += n
        hist_b[b] += n
    numerator = denominator = 0.0
    for i in range(min_rating, max_rating + 1):
        for j in range(min_rating, max_rating + 1):
            weight = (i - j) ** 2 / (size - 1) ** 2
            numerator += weight * counts.get((i, j), 0)
            denominator += weight * hist_a[i] * hist_b[j] / total
    return 1.0 if denominator == 0 else 1.0 - numerator / denominator
