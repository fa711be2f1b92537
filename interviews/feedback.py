"""Turn a ScoreResult into what the feedback panel shows: highlighted text, criteria, numbers.

Pure functions over plain data, so they are cheap to test and cost no queries.
"""

from __future__ import annotations

from bisect import bisect_right
from dataclasses import dataclass, field
from typing import Any

from scoring.engines.text import split_sentences

EARNING_VERDICTS = {"made", "partly"}


@dataclass
class Segment:
    text: str
    criteria: list[dict[str, Any]] = field(default_factory=list)

    @property
    def tip(self) -> str:
        parts = []
        for criterion in self.criteria:
            if criterion["kind"] == "pitfall":
                parts.append(f"Cost points: {criterion['label']}")
            elif criterion["verdict"] == "partly":
                parts.append(f"Partly earned: {criterion['label']}")
            else:
                parts.append(f"Earned: {criterion['label']}")
        return "; ".join(parts)

    @property
    def css(self) -> str:
        if any(c["kind"] == "pitfall" for c in self.criteria):
            return "pitfall"
        if all(c["verdict"] == "partly" for c in self.criteria):
            return "partly"
        return "made"

    @property
    def describedby(self) -> str:
        return " ".join(f"criterion-{c['anchor']}" for c in self.criteria)


def criterion_anchor(answer_kind: str, key: str) -> str:
    return f"{answer_kind}-{key}"


def highlight(text: str, criteria: list[dict[str, Any]], *, offset: int = 0,
              answer_kind: str = "initial") -> list[Segment]:
    """Split `text` into segments; each marked one lists the criteria its sentences earned.

    `offset` maps spans scored on a longer text (a follow-up is scored after its first
    answer) back onto `text`; spans outside it are dropped.
    """
    spans: list[tuple[int, int, dict[str, Any]]] = []
    # Engines point at words; people read sentences, so each mark covers its whole sentence.
    sentences = split_sentences(text)
    sentence_starts = [sentence.start for sentence in sentences]
    for criterion in criteria:
        is_pitfall_hit = criterion.get("kind") == "pitfall" and criterion.get("verdict") in {
            "made", "contradicted"}
        if criterion.get("verdict") not in EARNING_VERDICTS and not is_pitfall_hit:
            continue
        info = {"key": criterion["key"], "label": criterion.get("label", criterion["key"]),
                "verdict": criterion.get("verdict"), "kind": criterion.get("kind", "concept"),
                "anchor": criterion_anchor(answer_kind, criterion["key"])}
        for span in criterion.get("evidence") or []:
            start = max(0, int(span["start"]) - offset)
            end = min(len(text), int(span["end"]) - offset)
            if end > start:
                spans.append((*_sentence_around(sentences, sentence_starts, start, end), info))
    if not spans:
        return [Segment(text)] if text else []
    cuts = sorted({0, len(text), *(s for s, _, _ in spans), *(e for _, e, _ in spans)})
    segments: list[Segment] = []
    for start, end in zip(cuts, cuts[1:], strict=False):
        covering = [info for s, e, info in spans if s <= start and end <= e]
        unique = list({info["key"]: info for info in covering}.values())
        if segments and [c["key"] for c in segments[-1].criteria] == [c["key"] for c in unique]:
            segments[-1].text += text[start:end]
        else:
            segments.append(Segment(text[start:end], unique))
    return segments


def _sentence_around(sentences: list[Any], starts: list[int], start: int, end: int
                     ) -> tuple[int, int]:
    index = bisect_right(starts, start) - 1
    if index < 0:
        return start, end
    first = sentences[index]
    last_index = max(index, bisect_right(starts, end - 1) - 1)
    last = sentences[last_index]
    return min(start, first.start), max(end, last.end)


VERDICT_LABELS = {"made": "Made", "partly": "Partly made", "missed": "Missed",
                  "contradicted": "Contradicted"}


def criteria_rows(criteria: list[dict[str, Any]], *, answer_kind: str) -> list[dict[str, Any]]:
    rows = []
    for criterion in criteria:
        verdict = criterion.get("verdict", "missed")
        kind = criterion.get("kind", "concept")
        if kind == "pitfall":
            # For a pitfall, "made" means the answer fell into it.
            good = verdict not in {"made", "contradicted"}
            shown = "Avoided" if good else "Fell into it"
        else:
            good = verdict == "made"
            shown = VERDICT_LABELS.get(verdict, verdict)
        rows.append({**criterion, "anchor": criterion_anchor(answer_kind, criterion["key"]),
                     "shown": shown, "good": good,
                     "partly": kind != "pitfall" and verdict == "partly",
                     # Only earned points are highlighted (an overridden miss keeps its spans).
                     "has_evidence": bool(criterion.get("evidence"))
                     and (kind == "pitfall" or verdict in EARNING_VERDICTS)})
    return rows


def number_rows(numbers: list[dict[str, Any]], criteria: list[dict[str, Any]]
                ) -> list[dict[str, Any]]:
    labels = {c["key"]: c.get("label", c["key"]) for c in criteria}
    return [{**number, "label": labels.get(number.get("criterion_key"), "")}
            for number in numbers]


RATING_LABELS = {1: "Strong no hire", 2: "Lean no hire", 3: "Lean hire", 4: "Strong hire"}
