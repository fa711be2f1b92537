"""What the candidate sees, reusable on other pages: the highlighted answer, verdicts worded
for their kind, time limits in minutes."""

from __future__ import annotations

from typing import Any

from django import template

from interviews import feedback

register = template.Library()


@register.filter
def minutes(seconds: Any) -> str:
    """900 -> '15 min' (a time limit as the candidate reads it)."""
    try:
        value = int(seconds)
    except (TypeError, ValueError):
        return ""
    whole, rest = divmod(value, 60)
    if rest == 0:
        return f"{whole} min"
    return f"{value / 60:.1f} min" if whole else f"{value} s"


@register.filter
def verdict_shown(criterion: dict[str, Any]) -> str:
    """A verdict in words for its kind: a pitfall 'missed' was avoided, not failed."""
    verdict = criterion.get("verdict") or ""
    if not verdict:
        return ""
    return feedback.criteria_rows([{"key": criterion.get("key", ""), **criterion}],
                                  answer_kind="initial")[0]["shown"]


@register.inclusion_tag("interviews/_highlighted_answer.html")
def answer_highlights(answer: Any, preceding: str = "") -> dict[str, Any]:
    """The answer with the evidence highlights the candidate saw. A follow-up is scored after
    its first answer (`preceding`), so its spans are shifted back onto the reply."""
    score = answer.scored_result
    if score is None:
        return {"segments": [feedback.Segment(answer.text)]}
    offset = len(preceding) + 2 if preceding else 0
    return {"segments": feedback.highlight(answer.text, score.criteria, offset=offset,
                                           answer_kind=answer.kind)}
