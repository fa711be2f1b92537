"""Calibration kept in narrow rows and aggregated in SQL, so the page costs the same at 10 or
10,000 loops.

`calibration_record` writes one CalibrationPoint (and its CriterionJudgements) per scorecard
whose answer has an automatic score: when the scorecard is submitted, or when the score lands
after it. `calibration_report_for` returns what scoring.calibration.calibration_report returns
for the same scorecards (same keys, same figures), computed by PostgreSQL: correlations with
corr() over ranks from window functions, the confusion matrix and flip counts with GROUP BY.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from typing import Any

from django.db import connection, transaction
from django.db.models import QuerySet

from interviews.models import Answer, Bank, Loop, Question, Scorecard

from .calibration import MIN_PAIRS, qwk_from_counts
from .models import CalibrationPoint, CriterionJudgement

# --- Writing -------------------------------------------------------------------------------


def calibration_record(*, scorecard: Scorecard) -> CalibrationPoint | None:
    """(Re)write the calibration point of one scorecard; None while its answer is unscored."""
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
        CalibrationPoint.objects.filter(scorecard=scorecard).delete()
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
    return point


def calibration_record_answer(*, answer_id: int) -> int:
    """After a score lands: points for the scorecards submitted before it."""
    cards = list(Scorecard.objects.filter(answer_id=answer_id))
    return sum(calibration_record(scorecard=card) is not None for card in cards)


def calibration_rebuild() -> int:
    """Rewrite every point (after an upgrade, or to repair): the management command's work."""
    cards = Scorecard.objects.filter(answer__score__isnull=False).order_by("pk")
    return sum(calibration_record(scorecard=card) is not None for card in cards.iterator())


# --- Reading -------------------------------------------------------------------------------

_AGREEMENT_SQL = """
WITH p AS ({points}),
r AS (
  SELECT p.*,
    (rank() OVER w0a + count(*) OVER w0 + 1 - rank() OVER w0ad) / 2.0 AS ra0,
    (rank() OVER w0h + count(*) OVER w0 + 1 - rank() OVER w0hd) / 2.0 AS rh0,
    (rank() OVER w1a + count(*) OVER w1 + 1 - rank() OVER w1ad) / 2.0 AS ra1,
    (rank() OVER w1h + count(*) OVER w1 + 1 - rank() OVER w1hd) / 2.0 AS rh1,
    (rank() OVER w2a + count(*) OVER w2 + 1 - rank() OVER w2ad) / 2.0 AS ra2,
    (rank() OVER w2h + count(*) OVER w2 + 1 - rank() OVER w2hd) / 2.0 AS rh2
  FROM p
  WINDOW w0 AS (), w0a AS (ORDER BY auto_total), w0ad AS (ORDER BY auto_total DESC),
    w0h AS (ORDER BY human_rating), w0hd AS (ORDER BY human_rating DESC),
    w1 AS (PARTITION BY bank_id), w1a AS (w1 ORDER BY auto_total),
    w1ad AS (w1 ORDER BY auto_total DESC), w1h AS (w1 ORDER BY human_rating),
    w1hd AS (w1 ORDER BY human_rating DESC),
    w2 AS (PARTITION BY bank_id, question), w2a AS (w2 ORDER BY auto_total),
    w2ad AS (w2 ORDER BY auto_total DESC), w2h AS (w2 ORDER BY human_rating),
    w2hd AS (w2 ORDER BY human_rating DESC)
)
SELECT GROUPING(bank_id, question) AS level, bank_id, question, count(*) AS n,
  corr(auto_total, human_rating) AS pearson,
  CASE GROUPING(bank_id, question) WHEN 3 THEN corr(ra0, rh0) WHEN 1 THEN corr(ra1, rh1)
       ELSE corr(ra2, rh2) END AS spearman,
  sum(CASE WHEN auto_rating = human_rating THEN 1 ELSE 0 END) AS exact,
  avg(auto_rating - human_rating) AS bias
FROM r
GROUP BY GROUPING SETS ((), (bank_id), (bank_id, question))
"""

_CONFUSION_SQL = """
WITH p AS ({points})
SELECT GROUPING(bank_id, question) AS level, bank_id, question, auto_rating, human_rating,
  count(*) AS n
FROM p
GROUP BY GROUPING SETS ((auto_rating, human_rating), (bank_id, auto_rating, human_rating),
                       (bank_id, question, auto_rating, human_rating))
"""

_FLIPS_SQL = """
WITH p AS ({points})
SELECT p.bank_id, p.question, j.key, max(j.label), j.auto_verdict, j.human_verdict, count(*)
FROM p JOIN scoring_criterionjudgement j ON j.point_id = p.id
GROUP BY p.bank_id, p.question, j.key, j.auto_verdict, j.human_verdict
"""

_PAIRS_SQL = """
WITH p AS ({points})
SELECT round(auto_total::numeric, 0)::float AS total, human_rating FROM p
GROUP BY 1, 2 ORDER BY 1, 2
"""

_LEVELS = {3: "overall", 1: "bank", 0: "question"}


def _points(loops: QuerySet[Loop] | None, bank: str) -> QuerySet[CalibrationPoint]:
    points = CalibrationPoint.objects.all()
    if loops is not None:
        points = points.filter(loop__in=loops.values("pk"))
    if bank:
        points = points.filter(bank__slug=bank)
    return points.values("id", "bank_id", "question", "auto_total", "auto_rating",
                         "human_rating")


def _run(sql: str, points: QuerySet[Any]) -> list[tuple[Any, ...]]:
    inner, params = points.query.sql_with_params()
    with connection.cursor() as cursor:
        cursor.execute(sql.format(points=inner), params)
        return cursor.fetchall()


def _round(value: float | None, digits: int) -> float | None:
    return None if value is None else round(float(value), digits)


def _figures(row: tuple[Any, ...], confusion: dict[tuple[int, int], int]) -> dict[str, Any]:
    _, _, _, n, pearson, spearman, exact, bias = row
    enough = n >= MIN_PAIRS
    qwk = qwk_from_counts(confusion) if enough else None
    return {
        "n": n,
        "pearson": _round(pearson, 4) if enough else None,
        "spearman": _round(spearman, 4) if enough else None,
        "qwk": _round(qwk, 4),
        "exact": round(exact / n, 4) if n else None,
        "bias": _round(bias, 3) if n else None,
    }


def calibration_report_for(*, loops: QuerySet[Loop] | None = None, bank: str = "",
                           flips_by: Any = None) -> dict[str, Any]:
    """The calibration report over the points of `loops` (None: every loop), optionally one
    bank. `flips_by`: limit the per-criterion flips to questions this interviewer scored
    (None: every question, for admins)."""
    points = _points(loops, bank)
    confusion: dict[tuple[str, Any, Any], dict[tuple[int, int], int]] = defaultdict(dict)
    for level, bank_id, question, auto, human, n in _run(_CONFUSION_SQL, points):
        confusion[(_LEVELS[level], bank_id, question)][(auto, human)] = n
    rows = _run(_AGREEMENT_SQL, points)
    bank_names = dict(Bank.objects.values_list("pk", "slug"))
    bank_titles = dict(Bank.objects.values_list("pk", "title"))
    questions = _question_labels({(r[1], r[2]) for r in rows if r[0] == 0}, bank_names)

    overall = {"n": 0, "pearson": None, "spearman": None, "qwk": None, "exact": None,
               "bias": None}
    by_bank, by_question = [], []
    for row in rows:
        level, bank_id, question = _LEVELS[row[0]], row[1], row[2]
        figures = _figures(row, confusion[(level, bank_id, question)])
        if level == "overall":
            overall = figures
        elif level == "bank":
            by_bank.append({"bank": bank_names[bank_id], "bank_title": bank_titles[bank_id],
                            **figures})
        else:
            prompt, topic = questions.get((bank_id, question), ("", ""))
            by_question.append({"bank": bank_names[bank_id], "question": question,
                                "prompt": prompt, "topic": topic, **figures})
    by_bank.sort(key=lambda r: r["bank"])
    by_question.sort(key=lambda r: f"{r['bank']}/{r['question']}")

    flip_points = points
    if flips_by is not None:
        scored = CalibrationPoint.objects.filter(interviewer=flips_by).values("bank_id",
                                                                               "question")
        flip_points = points.filter(
            bank_id__in=scored.values("bank_id"),
            question__in=scored.filter(bank_id__in=points.values("bank_id")).values("question"))
        mine = set(scored.values_list("bank_id", "question"))
    flips = _flips(_run(_FLIPS_SQL, flip_points), bank_names, questions)
    if flips_by is not None:  # the IN pair above is per column; keep exact pairs only
        by_slug = {bank_names[b]: b for b in bank_names}
        flips = [f for f in flips if (by_slug[f["bank"]], f["question"]) in mine]
    pairs = [(float(total), int(human)) for total, human in _run(_PAIRS_SQL, points)]
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
    for bank_id, question, key, label, auto, human, n in rows:
        entry = stats.setdefault((bank_id, question, key), {
            "bank": bank_names[bank_id], "question": question,
            "prompt": questions.get((bank_id, question), ("", ""))[0], "key": key,
            "label": label, "judged": 0, "flips": 0, "directions": Counter()})
        entry["judged"] += n
        if auto != human:
            entry["flips"] += n
            entry["directions"][f"{auto or 'none'} → {human}"] += n
    result = []
    for entry in stats.values():
        entry["rate"] = round(entry["flips"] / entry["judged"], 4)
        entry["agreement"] = round(1 - entry["rate"], 4)
        entry["directions"] = entry["directions"].most_common()
        result.append(entry)
    result.sort(key=lambda e: (-e["flips"], -e["rate"], e["bank"], e["question"], e["key"]))
    return result
