"""Calibration kept in narrow rows and aggregated in SQL, so the page costs the same at 10 or
10,000 loops.

`calibration_record` writes one CalibrationPoint (and its CriterionJudgements) per scorecard
whose answer has an automatic score: when the scorecard is submitted, or when the score lands
after it. `calibration_report_for` returns what scoring.calibration.calibration_report returns
for the same scorecards (same keys, same figures), from running cells (upserted as points are
written) plus GROUP BY queries over the few points a viewer's scope adds or removes. Every
query is portable: PostgreSQL in production, SQLite in the embedded default.
"""

from __future__ import annotations

import math
from collections import Counter, defaultdict
from typing import Any

from django.db import connection, transaction
from django.db.models import Count, ExpressionWrapper, F, FloatField, QuerySet, Sum, Value
from django.db.models.functions import Floor

from interviews.models import Answer, Bank, Question, Scorecard

from .calibration import MIN_PAIRS, flip_entries, qwk_from_counts
from .models import CalibrationCell, CalibrationPoint, CriterionJudgement, FlipCell

# --- Writing -------------------------------------------------------------------------------


def calibration_record(*, scorecard: Scorecard) -> CalibrationPoint | None:
    """Write the calibration point of one scorecard and add it to the running cells. None
    while its answer is unscored; the existing point if there is one (scorecards are final,
    so a point is counted once)."""
    existing = CalibrationPoint.objects.filter(scorecard=scorecard).first()
    if existing is not None:
        return existing
    answer = (Answer.objects.select_related("score", "loop_question__loop")
              .get(pk=scorecard.answer_id))
    score = answer.scored_result
    if score is None:
        return None
    lq = answer.loop_question
    snapshot = lq.snapshot or {}
    auto = {c["key"]: c.get("verdict", "") for c in score.criteria or ()}
    labels = {c["key"]: c.get("label", c["key"]) for c in score.criteria or ()}
    with transaction.atomic():
        point = CalibrationPoint.objects.create(
            scorecard=scorecard, loop_id=lq.loop_id, bank_id=lq.loop.bank_id,
            question=snapshot.get("question_slug") or f"question-{lq.question_id}",
            interviewer_id=scorecard.interviewer_id, auto_total=float(score.total),
            auto_rating=int(score.rating), human_rating=int(scorecard.rating))
        judgements = []
        for key, verdict in auto.items():
            # A criterion the interviewer left alone keeps the automatic verdict.
            human = (scorecard.verdicts or {}).get(key, verdict)
            judgements.append(CriterionJudgement(
                point=point, key=key, label=labels[key][:300], auto_verdict=verdict,
                human_verdict=human, flipped=human != verdict))
        CriterionJudgement.objects.bulk_create(judgements)
        _add_to_cells(point, judgements)
    return point


_ADD_CELL = """
INSERT INTO scoring_calibrationcell
  (bank_id, question, bucket, auto_rating, human_rating, n, sx, sxx, sxy)
VALUES (%s, %s, %s, %s, %s, 1, %s, %s, %s)
ON CONFLICT (bank_id, question, bucket, auto_rating, human_rating) DO UPDATE SET
  n = scoring_calibrationcell.n + 1, sx = scoring_calibrationcell.sx + excluded.sx,
  sxx = scoring_calibrationcell.sxx + excluded.sxx,
  sxy = scoring_calibrationcell.sxy + excluded.sxy
"""

_ADD_FLIP = """
INSERT INTO scoring_flipcell (bank_id, question, key, label, auto_verdict, human_verdict, n)
VALUES (%s, %s, %s, %s, %s, %s, 1)
ON CONFLICT (bank_id, question, key, auto_verdict, human_verdict) DO UPDATE SET
  n = scoring_flipcell.n + 1, label = excluded.label
"""


def _add_to_cells(point: CalibrationPoint, judgements: list[CriterionJudgement]) -> None:
    """Increment the running cells in the same transaction as the point (an upsert each, so
    concurrent scorecards add up instead of overwriting)."""
    x, y = point.auto_total, point.human_rating
    with connection.cursor() as cursor:
        cursor.execute(_ADD_CELL, [point.bank_id, point.question, bucket_of(x),
                                   point.auto_rating, y, x, x * x, x * y])
        cursor.executemany(_ADD_FLIP, [
            [point.bank_id, point.question, j.key, j.label, j.auto_verdict, j.human_verdict]
            for j in judgements])


def calibration_record_answer(*, answer_id: int) -> int:
    """After a score lands: points for the scorecards submitted before it."""
    cards = list(Scorecard.objects.filter(answer_id=answer_id))
    return sum(calibration_record(scorecard=card) is not None for card in cards)


def calibration_rebuild() -> int:
    """Rewrite every point and cell from the scorecards (repair, or after an upgrade)."""
    with transaction.atomic():
        CalibrationCell.objects.all().delete()
        FlipCell.objects.all().delete()
        CalibrationPoint.objects.all().delete()
        cards = Scorecard.objects.filter(answer__score__isnull=False).order_by("pk")
        return sum(calibration_record(scorecard=card) is not None
                   for card in cards.iterator())


# --- Reading -------------------------------------------------------------------------------

# One row per (bank, question, whole-point total, automatic rating, human rating): a bounded
# number of cells (at most 101 x 4 x 4 per question) whatever the number of scorecards. The
# exact sums keep Pearson exact; Spearman ranks totals to the whole point. Written with the
# ORM so the same query runs on PostgreSQL and on the embedded SQLite default.


def bucket_of(total: float) -> float:
    """The whole point a total falls in, half up: the same rule as `_bucket` in SQL (Python's
    round() is half-to-even and SQL's ROUND differs between backends)."""
    return float(math.floor(total + 0.5))


def _bucket() -> Floor:
    return Floor(ExpressionWrapper(F("auto_total") + Value(0.5), output_field=FloatField()))


def _cell_rows(points: QuerySet[CalibrationPoint]) -> list[tuple[Any, ...]]:
    rows = (points.annotate(cell_bucket=_bucket()).order_by()
            .values("bank_id", "question", "cell_bucket", "auto_rating", "human_rating")
            .annotate(cell_n=Count("pk"), cell_sx=Sum("auto_total"),
                      cell_sxx=Sum(F("auto_total") * F("auto_total"),
                                   output_field=FloatField()),
                      cell_sxy=Sum(F("auto_total") * F("human_rating"),
                                   output_field=FloatField())))
    return [(r["bank_id"], r["question"], r["cell_bucket"], r["auto_rating"],
             r["human_rating"], r["cell_n"], r["cell_sx"], r["cell_sxx"], r["cell_sxy"])
            for r in rows]


def _flip_rows(points: QuerySet[CalibrationPoint]) -> list[tuple[Any, ...]]:
    return list(CriterionJudgement.objects.filter(point__in=points.values("pk")).order_by()
                .values_list("point__bank_id", "point__question", "key", "label",
                             "auto_verdict", "human_verdict")
                .annotate(flip_n=Count("pk")))


def _round(value: float | None, digits: int) -> float | None:
    return None if value is None else round(float(value), digits)


def _figures(cells: list[tuple[Any, ...]]) -> dict[str, Any]:
    """Agreement figures from cells (bucket, auto rating, human rating, n, sx, sxx, sxy)."""
    n = sum(c[3] for c in cells)
    if not n:
        return {"n": 0, "pearson": None, "spearman": None, "qwk": None, "exact": None,
                "bias": None}
    enough = n >= MIN_PAIRS
    sy = sum(c[2] * c[3] for c in cells)
    syy = sum(c[2] * c[2] * c[3] for c in cells)
    sx = sum(c[4] for c in cells)
    sxx = sum(c[5] for c in cells)
    sxy = sum(c[6] for c in cells)
    pearson = _corr(n, sx, sy, sxx, syy, sxy)
    # Spearman: Pearson on average ranks, each cell's values sharing their tie's rank.
    rank_x = _average_ranks(cells, 0)
    rank_y = _average_ranks(cells, 2)
    rx = [(rank_x[c[0]], rank_y[c[2]], c[3]) for c in cells]
    spearman = _corr(n, sum(a * w for a, _, w in rx), sum(b * w for _, b, w in rx),
                     sum(a * a * w for a, _, w in rx), sum(b * b * w for _, b, w in rx),
                     sum(a * b * w for a, b, w in rx))
    confusion: dict[tuple[int, int], int] = Counter()
    for c in cells:
        confusion[(c[1], c[2])] += c[3]
    exact = sum(c[3] for c in cells if c[1] == c[2])
    bias = sum((c[1] - c[2]) * c[3] for c in cells) / n
    return {
        "n": n,
        "pearson": _round(pearson, 4) if enough else None,
        "spearman": _round(spearman, 4) if enough else None,
        "qwk": _round(qwk_from_counts(confusion), 4) if enough else None,
        "exact": round(exact / n, 4),
        "bias": round(bias, 3),
    }


def _corr(n: int, sx: float, sy: float, sxx: float, syy: float, sxy: float) -> float | None:
    vx, vy = n * sxx - sx * sx, n * syy - sy * sy
    if vx <= 1e-9 or vy <= 1e-9:
        return None  # no variance on one side: undefined
    return (n * sxy - sx * sy) / (vx * vy) ** 0.5


def _average_ranks(cells: list[tuple[Any, ...]], index: int) -> dict[float, float]:
    """1-based average rank of each distinct value of column `index`, weighted by count."""
    weight: Counter[float] = Counter()
    for c in cells:
        weight[c[index]] += c[3]
    ranks, seen = {}, 0
    for value in sorted(weight):
        ranks[value] = seen + (weight[value] + 1) / 2
        seen += weight[value]
    return ranks


CellKey = tuple[int, str, float, int, int]  # bank id, question, bucket, auto, human
FlipKey = tuple[int, str, str, str, str, str]  # bank id, question, key, label, auto, human


class _Scope:
    """Which points a viewer's figures cover, split into what the running cells answer
    (whole banks) and the few points counted on the fly (loops assigned one by one, and the
    viewer's own loops, which nobody reviews, taken back out of their banks' cells).

    Mirrors interviews.reviews.loops_reviewable_by: admins every loop; interviewers the loops
    assigned to them plus every loop of a bank they review that lets reviewers see all.
    """

    def __init__(self, viewer: Any, bank: str) -> None:
        banks = Bank.objects.all()
        if bank:
            banks = banks.filter(slug=bank)
        if viewer is None:
            self.whole_banks = list(banks.values_list("pk", flat=True))
            self.extra = CalibrationPoint.objects.none()
            self.removed = CalibrationPoint.objects.none()
            return
        self.whole_banks = list(banks.filter(reviewers=viewer, reviewers_see_all_loops=True)
                                .values_list("pk", flat=True))
        bank_ids = banks.values("pk")
        self.extra = (CalibrationPoint.objects.filter(loop__reviewers=viewer,
                                                      bank_id__in=bank_ids)
                      .exclude(bank_id__in=self.whole_banks).exclude(loop__candidate=viewer))
        self.removed = CalibrationPoint.objects.filter(bank_id__in=self.whole_banks,
                                                       loop__candidate=viewer)

    def cells(self) -> dict[CellKey, list[float]]:
        totals: dict[CellKey, list[float]] = {}
        stored = CalibrationCell.objects.filter(bank_id__in=self.whole_banks).values_list(
            "bank_id", "question", "bucket", "auto_rating", "human_rating", "n", "sx", "sxx",
            "sxy")
        for sign, rows in ((1, stored), (1, _cell_rows(self.extra)),
                           (-1, _cell_rows(self.removed))):
            for bank_id, question, bucket, auto, human, n, sx, sxx, sxy in rows:
                cell = totals.setdefault((bank_id, question, float(bucket), auto, human),
                                         [0, 0.0, 0.0, 0.0])
                for i, value in enumerate((n, sx, sxx, sxy)):
                    cell[i] += sign * value
        return {key: cell for key, cell in totals.items() if cell[0] > 0}

    def flips(self, questions: set[tuple[int, str]] | None) -> list[tuple[Any, ...]]:
        counts: Counter[FlipKey] = Counter()
        stored = FlipCell.objects.filter(bank_id__in=self.whole_banks).values_list(
            "bank_id", "question", "key", "label", "auto_verdict", "human_verdict", "n")
        for sign, rows in ((1, stored), (1, _flip_rows(self.extra)),
                           (-1, _flip_rows(self.removed))):
            for bank_id, question, key, label, auto, human, n in rows:
                if questions is None or (bank_id, question) in questions:
                    counts[(bank_id, question, key, label, auto, human)] += sign * n
        return [(*key, n) for key, n in counts.items() if n > 0]


def calibration_report_for(*, viewer: Any = None, bank: str = "") -> dict[str, Any]:
    """The calibration report over what `viewer` may review (None: every loop, for admins),
    optionally one bank: the same keys and figures as scoring.calibration.calibration_report,
    read from the running cells. An interviewer sees per-criterion flips only on questions
    they have scored themselves; admins see all."""
    scope = _Scope(viewer, bank)
    cells: dict[tuple[int, str], list[tuple[Any, ...]]] = defaultdict(list)
    for (bank_id, question, bucket, auto, human), (n, sx, sxx, sxy) in scope.cells().items():
        cells[(bank_id, question)].append((bucket, auto, human, int(n), sx, sxx, sxy))
    bank_names = dict(Bank.objects.values_list("pk", "slug"))
    bank_titles = dict(Bank.objects.values_list("pk", "title"))
    questions = _question_labels(set(cells), bank_names)

    per_bank: dict[int, list[tuple[Any, ...]]] = defaultdict(list)
    for (bank_id, _), group in cells.items():
        per_bank[bank_id].extend(group)
    overall = _figures([c for group in cells.values() for c in group])
    by_bank = sorted(({"bank": bank_names[b], "bank_title": bank_titles[b], **_figures(g)}
                      for b, g in per_bank.items()), key=lambda r: r["bank"])
    by_question = sorted(
        ({"bank": bank_names[b], "question": q, "prompt": questions.get((b, q), ("", ""))[0],
          "topic": questions.get((b, q), ("", ""))[1], **_figures(g)}
         for (b, q), g in cells.items()), key=lambda r: f"{r['bank']}/{r['question']}")

    scored_by_viewer = None
    if viewer is not None:
        scored_by_viewer = set(CalibrationPoint.objects.filter(interviewer=viewer)
                               .values_list("bank_id", "question").distinct())
    flips = _flips(scope.flips(scored_by_viewer), bank_names, questions)
    # One dot per occupied (whole-point total, rating) cell: the chart stays bounded too.
    pairs = sorted({(float(c[0]), int(c[2])) for group in cells.values() for c in group})
    return {"overall": overall, "by_bank": by_bank, "by_question": by_question,
            "criteria": flips, "most_flipped": [c for c in flips if c["flips"]],
            "pairs": pairs}


def _question_labels(keys: set[tuple[int, str]], bank_names: dict[int, str]
                     ) -> dict[tuple[int, str], tuple[str, str]]:
    """Prompt and topic title per (bank id, question slug), from the bank (one query)."""
    if not keys:
        return {}
    found = Question.objects.filter(
        topic__bank_id__in={b for b, _ in keys}, slug__in={q for _, q in keys}
    ).values_list("topic__bank_id", "slug", "prompt", "topic__title")
    return {(bank_id, slug): (prompt, topic) for bank_id, slug, prompt, topic in found}


def _flips(rows: list[tuple[Any, ...]], bank_names: dict[int, str],
           questions: dict[tuple[int, str], tuple[str, str]]) -> list[dict[str, Any]]:
    stats: dict[tuple[int, str, str], dict[str, Any]] = {}
    for bank_id, question, key, label, auto, human, n in sorted(rows):
        entry = stats.setdefault((bank_id, question, key), {
            "bank": bank_names[bank_id], "question": question,
            "prompt": questions.get((bank_id, question), ("", ""))[0], "key": key,
            "label": label, "judged": 0, "flips": 0, "directions": Counter()})
        entry["judged"] += n
        if auto != human:
            entry["flips"] += n
            entry["directions"][f"{auto or 'none'} → {human}"] += n
    return flip_entries(stats.values())
