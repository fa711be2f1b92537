"""Forms for the interviewers' pages: the queue's filters and the scorecard."""

from __future__ import annotations

from typing import Any

from django import forms

from ..models import Bank, Scorecard, Topic
from .services import QUEUE_STATUSES, VERDICT_LABELS, QueueFilters

RATING_CHOICES = [(4, "4 — Strong"), (3, "3 — Good"), (2, "2 — Weak"), (1, "1 — Poor")]


class QueueFilterForm(forms.Form):
    bank = forms.ChoiceField(required=False, label="Bank")
    topic = forms.ChoiceField(required=False, label="Topic")
    since = forms.DateField(required=False, label="Finished from",
                            widget=forms.DateInput(attrs={"type": "date"}))
    until = forms.DateField(required=False, label="Finished until",
                            widget=forms.DateInput(attrs={"type": "date"}))
    status = forms.ChoiceField(required=False, label="Status",
                               choices=list(QUEUE_STATUSES.items()))

    def __init__(self, *args: Any, banks: list[Bank], **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.fields["bank"].choices = [("", "All banks")] + [(b.slug, b.title) for b in banks]
        topics = Topic.objects.filter(bank__in=banks).select_related("bank") \
            .order_by("bank__title", "order")
        self.fields["topic"].choices = [("", "All topics")] + [
            (str(t.pk), f"{t.title} ({t.bank.title})" if len(banks) > 1 else t.title)
            for t in topics]

    def filters(self) -> QueueFilters:
        if not self.is_valid():
            return QueueFilters()
        data = self.cleaned_data
        return QueueFilters(bank=data["bank"] or "",
                            topic=int(data["topic"]) if data["topic"] else None,
                            since=data["since"], until=data["until"],
                            status=data["status"] or "to_review")


def verdict_choices(criterion: dict[str, Any]) -> list[tuple[str, str]]:
    """A concept's four verdicts; a pitfall's two, worded as the candidate reads them. The
    stored values stay the rubric's: a pitfall the engine marked partly (read as avoided) or
    contradicted (fell into it) keeps that value, so confirming it is not counted as a flip."""
    if criterion.get("kind") != "pitfall":
        return list(VERDICT_LABELS.items())
    auto = criterion.get("verdict")
    fell = "contradicted" if auto == "contradicted" else "made"
    avoided = "partly" if auto == "partly" else "missed"
    return [(avoided, "Avoided"), (fell, "Fell into it")]


class ScorecardForm(forms.Form):
    """A radio group per rubric criterion (pre-filled with the automatic verdict), a rating,
    a recommendation and notes. Field names of criteria are `c-<key>`."""

    rating = forms.TypedChoiceField(label="Rating", choices=RATING_CHOICES, coerce=int,
                                    widget=forms.RadioSelect)
    recommendation = forms.ChoiceField(
        label="Recommendation", widget=forms.RadioSelect,
        choices=[(v, label) for v, label in Scorecard.Recommendation.choices])
    notes = forms.CharField(label="Notes for the candidate", required=False, max_length=4000,
                            widget=forms.Textarea(attrs={"rows": 5}))

    def __init__(self, *args: Any, criteria: list[dict[str, Any]], **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.criteria = criteria
        for c in criteria:
            self.fields[f"c-{c['key']}"] = forms.ChoiceField(
                label=c["label"], choices=verdict_choices(c),
                widget=forms.RadioSelect, initial=c["verdict"] or None)

    def criterion_fields(self) -> list[tuple[dict[str, Any], forms.BoundField]]:
        return [(c, self[f"c-{c['key']}"]) for c in self.criteria]

    def verdicts(self) -> dict[str, str]:
        return {c["key"]: self.cleaned_data[f"c-{c['key']}"] for c in self.criteria}
