"""A figure is judged against the quantity its sentence names, even when the clauses between
the name and the figure speak of other things (issue 9)."""

from __future__ import annotations

import pytest

from scoring.engines.rubric import RubricEngine
from tests.scoring.test_engines import bank_question

BASE = "At 40 QPS per A100, 50,000 / 40 = 1,250 GPUs. "


def zone_check(answer: str):
    result = RubricEngine().score(bank_question("gpu-cluster-sizing-method"), BASE + answer)
    return next(c for c in result.numbers if c.criterion_key == "zone-loss-count")


@pytest.mark.parametrize("answer", [
    # A third on top of 1,250 is the slip: losing a zone leaves two thirds, so 1,250 / (2/3).
    "For losing one of three zones, we lose a third of capacity, so I'd add a third on top: "
    "1,250 × 1.33 ≈ 1,667 GPUs, spread evenly across zones.",
    "To survive one of three zones going down I'd add a zone's worth, a third extra: "
    "1,250 x 1.33 ≈ 1,667, about 555 per zone.",
])
def test_a_zone_count_said_after_other_clauses_is_judged(answer: str) -> None:
    check = zone_check(answer)
    assert check.found_value == pytest.approx(1667)
    assert not check.within_tolerance


def test_the_right_zone_count_in_the_same_shape_is_accepted() -> None:
    check = zone_check("For losing one of three zones, we lose a third of capacity, so the "
                       "other two must carry it all: 1,250 x 1.5 = 1,875 GPUs.")
    assert check.within_tolerance


def test_a_count_after_a_headroom_clause_is_not_taken_for_the_zone_count() -> None:
    # 2,000 is the zone count plus spike headroom: another quantity, never the zone figure.
    check = zone_check("For losing one of three zones, 1,250 x 1.5 = 1,875 GPUs. I'd also want "
                       "20% headroom on top of that for spikes, so about 2,250 total.")
    assert check.within_tolerance
    assert check.found_value == pytest.approx(1875)


def hourly_check(answer: str):
    result = RubricEngine().score(bank_question("zoom-gpu-memory-leak-alert"), answer)
    check = next(c for c in result.numbers if c.criterion_key == "hourly-rate")
    return check, result.feedback.get("calculations") or []


def test_the_given_leak_rate_repeated_is_never_shown_as_the_candidates_result() -> None:
    # "per hour" is the criterion's unit, not a word that claims a result: the scenario's 0.5%
    # an hour, repeated, is not a wrong conversion of the alert.
    check, calculations = hourly_check(
        "A leak that breaks 0.5% an hour keeps growing, and the rule will catch it. I'd leave "
        "the rule alone.")
    assert check.found_value != pytest.approx(0.5)
    assert not any("0.5% an hour" in line for line in calculations)


def test_a_share_said_over_an_hour_is_judged_as_the_hourly_rate() -> None:
    check, calculations = hourly_check(
        "A leak that breaks 0.5% an hour keeps growing. Over an hour that rule adds up to "
        "2% x 60 = 120%, so it's extremely sensitive.")
    assert check.found_value == pytest.approx(120)
    assert not check.within_tolerance
    assert any("120%" in line for line in calculations)


def test_the_right_share_said_over_an_hour_is_accepted() -> None:
    check, _ = hourly_check("Over an hour that rule adds up to 2% x 12 = 24%, far above the "
                            "0.5% an hour the SLI allows.")
    assert check.within_tolerance


def test_two_and_a_half_thousand_is_2500() -> None:
    from scoring.engines.numbers import find_quantities

    found = find_quantities("Thirty thousand divided by twelve is two and a half thousand cards.")
    assert [q.value for q in found] == [30000.0, 12.0, 2500.0]
    assert [q.value for q in find_quantities("two and a half milliseconds")] == [0.0025]
