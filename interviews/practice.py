"""Practice that follows the gaps: a candidate's weakest rubric criteria, read from their
debriefs, and the bank questions whose rubrics train each one.

The progress page lists the weak criteria (each starts a criterion drill) and the home page
suggests the first of them, so both read the same ranking from here.
"""

from __future__ import annotations

from collections.abc import Iterable
from datetime import datetime
from typing import Any

from django.db.models import OuterRef, Q, QuerySet, Subquery
from django.utils.dateparse import parse_datetime

from .models import Bank, Question, RubricCriterion

WEAKEST_SHOWN = 5


def ready_debriefs_for(candidate: Any) -> QuerySet[Any]:
    """The newest ready debrief of each of the candidate's loops, oldest loop first (one
    query; older versions stay in the database)."""
    from scoring.models import Debrief

    ready = Debrief.objects.filter(status=Debrief.Status.READY)
    newest = ready.filter(loop=OuterRef("loop")).order_by("-version").values("version")[:1]
    return (ready.filter(loop__candidate=candidate, version=Subquery(newest))
            .select_related("loop", "loop__bank")
            .order_by("loop__started_at", "loop_id"))


def _when(report: dict[str, Any], fallback: datetime | None) -> datetime | None:
    loop = report.get("loop", {})
    return parse_datetime(loop.get("finished_at") or "") or fallback


def weak_criteria(reports: Iterable[tuple[dict[str, Any], datetime | None]], *,
                  limit: int = WEAKEST_SHOWN) -> list[dict[str, Any]]:
    """Criteria by how often they were missed, across every loop (partly counts half).

    Equal miss rates are ordered by how recently the criterion was last missed, then by how
    often, never by the alphabet: the gap you showed yesterday comes before last month's.
    Each entry names its bank and criterion keys so a drill can find the questions that
    train it.
    """
    stats: dict[tuple[str, str], dict[str, Any]] = {}
    for order, (report, when) in enumerate(reports):
        bank_slug = report.get("loop", {}).get("bank_slug", "")
        for q in report.get("questions", []):
            if not q.get("scored", True):
                continue
            for bucket, miss in (("made", None), ("missed", 1.0), ("pitfalls", 1.0)):
                for c in q.get(bucket, []):
                    entry = stats.setdefault((bank_slug, c["label"].lower()), {
                        "label": c["label"], "topic": q.get("topic_title", ""),
                        "bank_slug": bank_slug, "keys": set(), "seen": 0, "missed": 0.0,
                        "pitfall": c.get("kind") == "pitfall", "last_missed": None,
                        "last_order": -1})
                    entry["seen"] += 1
                    entry["keys"].add(c.get("key", ""))
                    weight = miss if miss is not None else (
                        0.5 if c.get("verdict") == "partly" else 0.0)
                    entry["missed"] += weight
                    if weight > 0:
                        entry["last_order"] = order
                        entry["last_missed"] = when
    weak = [s for s in stats.values() if s["missed"] > 0]
    for entry in weak:
        entry["rate"] = entry["missed"] / entry["seen"]
        entry["keys"] = sorted(k for k in entry["keys"] if k)
    weak.sort(key=lambda s: (-s["rate"], -s["last_order"], -s["missed"], -s["seen"]))
    return weak[:limit]


def weak_criteria_for(*, candidate: Any, limit: int = WEAKEST_SHOWN) -> list[dict[str, Any]]:
    return weak_criteria(((d.report, _when(d.report, d.loop.started_at))
                          for d in ready_debriefs_for(candidate)), limit=limit)


def criteria_training(*, bank: Bank, label: str, keys: Iterable[str] = ()
                      ) -> QuerySet[RubricCriterion]:
    """Rubric criteria in `bank` that train the weak point: the same label, or a key shared
    with a criterion of that label (the bank reuses a key for one idea across questions)."""
    in_bank = RubricCriterion.objects.filter(question__topic__bank=bank)
    same_label = in_bank.filter(label__iexact=label.strip())
    all_keys = set(keys) | set(same_label.values_list("key", flat=True))
    return in_bank.filter(Q(label__iexact=label.strip()) | Q(key__in=all_keys))


def questions_training(*, bank: Bank, label: str, keys: Iterable[str] = ()
                       ) -> QuerySet[Question]:
    criteria = criteria_training(bank=bank, label=label, keys=keys)
    return Question.objects.filter(pk__in=criteria.values("question_id"))


def attach_drill_targets(weak: list[dict[str, Any]], banks: dict[str, Bank]) -> None:
    """Mark each weak criterion with the published bank a drill can start from (or None)."""
    for entry in weak:
        entry["bank"] = banks.get(entry["bank_slug"])
