"""Numbers with units and scale, tolerance checks and the candidate's own arithmetic."""

from __future__ import annotations

import pytest

from scoring.engines.numbers import (
    find_calculations,
    find_quantities,
    find_sum_claims,
    within_tolerance,
)
from scoring.engines.rubric import RubricEngine
from tests.scoring.test_engines import bank_question
from tests.scoring.test_features_and_senses import verdict


def only(text: str):
    quantities = find_quantities(text)
    assert len(quantities) == 1, quantities
    return quantities[0]


@pytest.mark.parametrize(
    ("text", "value", "unit"),
    [
        ("15ms", 0.015, "s"),
        ("2 ms", 0.002, "s"),
        ("1,250 GPUs", 1250, "gpu"),
        ("50k QPS", 50000, "qps"),
        ("20%", 20, "%"),
        ("200us", 0.0002, "s"),
        ("200µs", 0.0002, "s"),
        ("45 minutes", 2700, "s"),
        ("1.5k", 1500, ""),
        ("$185,000", 185000, "$"),
        ("120 tokens/s", 120, "token/s"),
        ("600 RPM", 10, "qps"),
    ],
)
def test_reads_value_scale_and_unit(text: str, value: float, unit: str) -> None:
    quantity = only(f"about {text} here")
    assert quantity.value == pytest.approx(value)
    assert quantity.unit == unit


def test_reads_a_range_as_low_and_high() -> None:
    quantity = only("land around 1,375-1,500 GPUs")
    assert (quantity.low, quantity.high) == (1375, 1500)


def test_model_names_and_percentile_labels_are_not_numbers() -> None:
    assert find_quantities("p99 on an A100 or a T4 with fp16 and 5xx errors") == []


def test_tolerance_uses_units() -> None:
    quantity = only("target 15ms")
    assert within_tolerance(quantity, 15, "ms", 10)
    assert within_tolerance(quantity, 0.015, "s", 10)
    assert not within_tolerance(quantity, 15, "s", 10)
    assert not within_tolerance(quantity, 15, "GPUs", 10)


def test_tolerance_bounds() -> None:
    quantity = only("1,400 GPUs")
    assert within_tolerance(quantity, 1500, "GPUs", 10)
    assert not within_tolerance(quantity, 1500, "GPUs", 5)


def test_wrong_arithmetic_is_found_and_corrected() -> None:
    [calculation] = find_calculations("So 50,000 / 40 = 125 GPUs.")
    assert not calculation.correct
    assert calculation.corrected() == "50,000 / 40 = 1,250"


def test_right_arithmetic_passes() -> None:
    [calculation] = find_calculations("30,000 ÷ 12 = 2,500 T4s")
    assert calculation.correct


def test_operations_in_symbols_and_prose() -> None:
    from scoring.engines.numbers import find_operations

    for text in ("50,000 / 40 = 1,250", "divide 50k by 40 per GPU", "50k divided by 40"):
        ops = find_operations(text)
        assert [(o.a, o.op, o.b) for o in ops] == [(50000, "/", 40)], text


def test_implied_arithmetic_is_checked_with_units_and_rates() -> None:
    from scoring.engines.numbers import find_implied_calculations

    assert find_implied_calculations("at 50k QPS and 200µs per request that's only 10ms of CPU")
    assert not find_implied_calculations("at 50k QPS and 200µs per request that's 10 seconds")
    sample = "~100k orders/hour, so 2% for 15 minutes gives ~{} orders"
    assert find_implied_calculations(sample.format("30,000"))
    assert not find_implied_calculations(sample.format("500"))
    assert not find_implied_calculations("With 1,250 GPUs and 20% headroom that's 1,500")
    assert not find_implied_calculations("at 12 QPS per T4, 30k QPS means 2,500 T4s")


@pytest.mark.parametrize(
    ("text", "unit", "expected"),
    [
        ("562.5 QPS per GPU", "QPS per GPU", 562.5),
        ("562.5 QPS/GPU", "QPS per GPU", 562.5),
        ("40 QPS per A100", "QPS per GPU", 40),
        ("562.5 per GPU", "QPS per GPU", 562.5),
        ("24% per hour", "percent per hour", 24),
        ("24%/hour", "% per hour", 24),
        ("24 percent an hour", "percent per hour", 24),
        ("0.4% per minute", "percent per hour", 24),
        ("2% per 5 minutes", "percent per hour", 24),
        ("3,333 requests per second", "requests per second", 3333),
        ("3,333 per second", "requests per second", 3333),
        ("200k requests per minute", "requests per second", 3333),
    ],
)
def test_rates_and_per_unit_figures_compare_with_compound_units(
        text: str, unit: str, expected: float) -> None:
    quantity = only(f"that is {text} in total")
    assert within_tolerance(quantity, expected, unit, 1), (quantity, unit)


def test_a_rate_is_not_a_total_and_a_division_is_not_a_rate() -> None:
    assert not within_tolerance(only("562.5 QPS"), 562.5, "QPS per GPU", 5)
    assert not within_tolerance(only("24%"), 24, "percent per hour", 5)
    assert not within_tolerance(only("40 QPS per GPU"), 40, "GPUs", 5)
    assert [q.text for q in find_quantities("1,250 GPUs / 2 zones = 625")] == [
        "1,250 GPUs", "2 zones", "625"]
    [calculation] = find_calculations("2% x 12 = 24% per hour")
    assert calculation.correct


def test_prose_arithmetic_check_skips_ramps_contrasts_and_unrelated_units() -> None:
    from scoring.engines.numbers import find_implied_calculations

    assert not find_implied_calculations("if it holds, ramp 5 -> 25 -> 50 -> 100")
    assert not find_implied_calculations(
        "T4 FP16 on a 3B model ≈ 120 tok/s (measured) -> 12 QPS/GPU.")
    assert not find_implied_calculations(
        "~7ms vs ~12ms p99, but every retrain means a ~45 min rebuild.")
    # Still caught: a rate times a cost across a semicolon, in resource-time units.
    assert find_implied_calculations(
        "a remote flag check is ~200µs; at 20k QPS that's 4 CPU-milliseconds per second")


def test_phrase_numbers_match_exactly_unless_the_phrase_says_about() -> None:
    from scoring.engines.rubric import analyse, make_pattern, match_pattern

    def score(phrase: str, answer: str) -> float:
        return match_pattern(analyse(answer), make_pattern(phrase))[0].score

    assert score("11ms", "the model takes 11.3ms at p99") == 0
    assert score("11ms", "the model takes 11ms at p99") == 1
    for written in ("1,250", "1250", "1.25k"):
        assert score("1,250 GPUs", f"so we need {written} GPUs") == 1, written
    assert score("0.7ms", "leaves 700us of margin") == 1
    assert score("~1,250 GPUs", "so we need 1,220 GPUs") == 1
    assert score("~1,250 GPUs", "so we need 1,100 GPUs") == 0


@pytest.mark.parametrize(
    ("text", "low", "high", "unit"),
    [
        ("about a dozen requests a second", 12, 12, "qps"),
        ("thirty thousand requests a second", 30000, 30000, "qps"),
        ("wait ten to fifteen minutes after", 600, 900, "s"),
        ("keep twenty percent spare", 20, 20, "%"),
        ("adds two milliseconds", 0.002, 0.002, "s"),
        ("a couple of milliseconds", 0.002, 0.002, "s"),
        ("half a second", 0.5, 0.5, "s"),
        ("one and a half minutes", 90, 90, "s"),
        ("twenty-five GPUs", 25, 25, "gpu"),
        ("twelve hundred and fifty cards", 1250, 1250, "gpu"),
    ],
)
def test_reads_numbers_written_in_words(text: str, low: float, high: float, unit: str) -> None:
    quantity = only(text)
    assert (quantity.low, quantity.high) == (pytest.approx(low), pytest.approx(high))
    assert quantity.unit == unit
    # The span is the words as written, so evidence highlights the candidate's text.
    assert text[quantity.start : quantity.end] == quantity.text
    assert quantity.text.split()[-1] in text


def test_small_number_words_without_a_unit_are_not_numbers() -> None:
    assert find_quantities("two options here, no one else, a token or two") == []
    assert find_quantities("thousands of users") == []
    assert find_quantities("two zones", spelled=False) == []  # phrases keep their words


@pytest.mark.parametrize(("text", "stated"), [
    ("50k / 40 = 1,250", 1250), ("40k / 12 = 3.3k", 3300), ("1,250 x 1.2 = 1.5k", 1500)])
def test_scale_suffixes_on_either_side_of_a_calculation(text: str, stated: float) -> None:
    [calculation] = find_calculations(text)
    assert calculation.correct
    assert calculation.stated == pytest.approx(stated)


def test_a_worked_result_is_shown_exactly_not_truncated() -> None:
    from scoring.engines.numbers import format_number

    assert format_number(562.5) == "562.5"
    assert format_number(1437.5) == "1,437.5"
    assert format_number(1437.25) == "1,437"


def test_a_per_card_rate_after_a_longer_lead_in_is_read_per_card() -> None:
    # "That's the same as saying each card handles 12 requests a second": 12 QPS per T4.
    outcome = RubricEngine().score(
        bank_question("amazon-t4-3b-30k-qps"),
        "That's the same as saying each card handles 12 requests a second.")
    check = next(c for c in outcome.numbers if c.criterion_key == "qps-per-gpu")
    assert check.found_value == 12
    assert check.within_tolerance


def test_a_breakdown_said_to_add_up_to_a_bare_total_is_checked_in_its_own_unit() -> None:
    # "That adds up to the 15": the slices add to 20ms; the sub-item in brackets is not a part.
    text = ("Breakdown: network 3ms, feature store 4ms, preprocessing 2ms, batch wait 3ms, "
            "model 6ms (about 2ms of which is launch overhead), postprocess 2ms. That adds up "
            "to the 15, so we keep our 5ms margin.")
    [claim] = find_sum_claims(text)
    assert (claim.stated, claim.actual, claim.unit) == (15, 20, "ms")
    right = ("Breakdown: network 2ms, feature store 4ms, preprocessing 2ms, batch wait 2ms, "
             "model 4ms (about 2ms of which is launch overhead), postprocess 1ms. That adds up "
             "to the 15, so we keep our 5ms margin.")
    assert find_sum_claims(right) == []


@pytest.mark.parametrize(("text", "seconds"), [
    ("a 15-minute bake", 900.0), ("the 5-minute sync window", 300.0),
    ("a 45-minute rebuild", 2700.0), ("a 24-hour soak", 86400.0), ("a 200-ms timeout", 0.2),
])
def test_a_time_unit_joined_by_a_hyphen_is_the_figures_unit(text: str, seconds: float) -> None:
    (quantity,) = find_quantities(text)
    assert quantity.unit == "s" and quantity.value == pytest.approx(seconds)


def test_a_figure_in_seconds_does_not_match_a_phrase_in_minutes() -> None:
    # The bank's "15-minute" phrase is not said by "every 15 seconds ... a minute or two".
    answer = ("I'd send 5% of traffic to the new model. Prometheus scrapes every 15 seconds, so "
              "within a minute or two you can see whether errors moved.")
    assert verdict("doordash-eta-canary", "bake-window", answer) == "missed"
