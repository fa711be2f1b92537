"""Issue 9, fourth round: points waved away in words no clause rule names, read by the fitted
dismissal model (scoring/engines/dismissals.py). Sentences written for this file; each
dismissal has a twin that makes the point and keeps its credit."""

from __future__ import annotations

import json

import pytest

from scoring.engines import dismissals
from scoring.engines.rubric import RubricEngine
from tests.scoring.test_engines import bank_question


def verdict(slug: str, key: str, answer: str) -> tuple[str, float]:
    found = {v.key: v for v in RubricEngine().score(bank_question(slug), answer).criteria}[key]
    return found.verdict, found.credit


@pytest.mark.parametrize("answer", [
    "Zone failure planning I'd leave to the SRE team, honestly.",
    "Zone outages are rare enough that planning for a zone failure feels like gold-plating.",
])
def test_a_point_waved_away_in_unwritten_words_earns_nothing(answer: str) -> None:
    said, credit = verdict("azure-capacity-spreadsheet-review", "redundancy", answer)
    assert said in {"missed", "contradicted"}
    assert credit == 0


def test_the_same_point_made_keeps_its_credit() -> None:
    said, credit = verdict("azure-capacity-spreadsheet-review", "redundancy",
                           "Zone failure I'd plan for by keeping spare GPUs in every other zone.")
    assert said == "made"
    assert credit == 1.0


def test_a_point_after_but_is_read_without_the_dismissal_before_it() -> None:
    text = "Sticky users I'd leave to the platform team, but the ramp I'd keep at 2, 10, 50."
    start = text.index("ramp")
    assert dismissals.stretch(text, 0, len(text), start).startswith("but the ramp")
    assert not dismissals.waves_away(text, 0, len(text), start)
    # The point conceded before "but" is read with its dismissal after it.
    conceded = "Some teams run a 10% scenario too, but I'd not bother with two versions."
    assert dismissals.stretch(conceded, 0, len(conceded), 17) == conceded
    # (The model refit in the twelfth round reads it at 0.74, just under its threshold; the
    # concession rule takes it back.)
    assert dismissals.waves_away(conceded, 0, len(conceded), 17) \
        or dismissals.conceded_then_dismissed(conceded, 0, len(conceded), 17)


def test_words_the_model_was_not_fitted_on_read_as_one_placeholder() -> None:
    weights, _, _ = dismissals._model()
    found = dismissals.features("the zorblax I'd skip", weights)
    assert dismissals.PLACEHOLDER in found
    assert "zorblax" not in found
    assert "skip" in found


def test_the_fitted_model_never_saw_the_unread_held_out_set() -> None:
    data = json.loads(dismissals.CUES_PATH.read_text(encoding="utf-8"))
    # The unread set of the round is held out of the fit (held-out-19 to -23 were read, and
    # joined the fit in the fifteenth round).
    assert "criteria-heldout-24.jsonl" not in data["files"]
    assert "criteria-heldout-22.jsonl" in data["files"]
    assert 0.5 <= data["threshold"] < 1


@pytest.mark.parametrize(("sentence", "point", "taken_back"), [
    ("You could divide by the number of live streams, but per-GPU memory is what runs out, "
     "so I'd skip that.", "divide", True),
    ("Some teams would add add-to-cart gates, but the canary isn't where ranking quality is "
     "judged.", "add-to-cart", True),
    ("Some teams skip the bake, but I wouldn't.", "bake", False),
    ("You could use a static threshold, but I'd add a burn-rate alert as well.", "static", False),
    ("I'd shadow it first, and you could add a canary, but don't skip the bake.", "canary", False),
])
def test_a_point_conceded_to_others_and_turned_down_is_not_made(sentence: str, point: str,
                                                                taken_back: bool) -> None:
    at = sentence.index(point)
    assert dismissals.conceded_then_dismissed(sentence, 0, len(sentence), at) is taken_back


def test_a_conceded_then_skipped_normalisation_earns_nothing() -> None:
    conceded = ("You could normalise by the number of active streams, but honestly memory per "
                "GPU is what OOMs, so I'd leave it out.")
    made = "I'd normalise the growth by the number of active streams, since load moves memory."
    assert verdict("zoom-gpu-memory-leak-alert", "load-normalization", conceded)[1] == 0
    assert verdict("zoom-gpu-memory-leak-alert", "load-normalization", made)[0] == "made"
