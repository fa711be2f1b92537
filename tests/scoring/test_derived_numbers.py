"""Numbers judged against the quantity the question asks and the sentence talks about, and
derived figures checked against the candidate's own inputs (issue 9)."""

from __future__ import annotations

import pytest

from scoring.engines.derived import derived_figures
from scoring.engines.numbers import find_quantities
from scoring.engines.rubric import RubricEngine
from tests.scoring.test_engines import bank_question


def derived(text: str) -> list:
    return derived_figures(text, find_quantities(text))


@pytest.mark.parametrize("text", [
    "TensorRT is 7ms vs 12ms on TorchServe, so about 70% faster.",
    "From 12ms to 7ms is a 10x speed-up, so 10x faster.",
    "1,250 GPUs with 20% headroom is 1,750 GPUs.",
    # The share said a few words after the comparison, past a percentile label.
    "The benchmark is 12ms vs 7ms at p99, so TensorRT cuts the latency by about 58%.",
    # A gap given again as a share that follows from neither figure.
    "We're at 25 and the page fires at anything over 18, so 7ms over, roughly 15% too slow.",
])
def test_a_derived_figure_that_does_not_follow_is_flagged(text: str) -> None:
    assert len(derived(text)) == 1


@pytest.mark.parametrize("text", [
    "TensorRT is 7ms vs 12ms on TorchServe, so about 42% faster.",
    "TensorRT is 7ms vs 12ms on TorchServe, about 40% lower latency.",
    "7ms vs 12ms means TorchServe is about 70% slower.",
    "TensorRT is 7ms vs 12ms on TorchServe, so 1.7x faster.",
    "1,250 GPUs with 20% headroom is 1,500 GPUs.",
    "The benchmark is 12ms vs 7ms at p99, so TensorRT cuts the latency by about 42%.",
    # The gap's share of either figure is a valid route.
    "We're at 25 against 18, so 7ms over, roughly 39% too slow.",
    "We're at 25 against 18, so 7ms over, about 28% too slow.",
])
def test_every_valid_route_is_accepted(text: str) -> None:
    assert derived(text) == []


def outcome(slug: str, answer: str):
    return RubricEngine().score(bank_question(slug), answer)


def test_the_issues_70_percent_is_shown_against_the_candidates_own_figures() -> None:
    result = outcome("netflix-bert-tensorrt-preprocessing",
                     "TensorRT runs at 7ms vs 12ms on TorchServe, so about 70% faster. But "
                     "preprocessing moves to a separate microservice.")
    assert any("(12 - 7) / 12" in line for line in result.feedback["calculations"])


def test_a_right_calculation_is_not_marked_off_by_an_unasked_margin() -> None:
    result = outcome("azure-capacity-spreadsheet-review",
                     "The spreadsheet is wrong: 50,000 / 40 = 1,250 is the bare count with no "
                     "headroom. With 20% headroom it's 1,250 x 1.2 = 1,500 GPUs.")
    assert result.feedback["calculations"] == []
    ten = next(n for n in result.numbers if n.criterion_key == "gpus-10pct")
    assert ten.found_value is None  # 1,500 is the 20% figure, not a wrong 10% one
    assert not any(n.found_value is not None and not n.within_tolerance for n in result.numbers)


def test_a_figure_for_a_different_percentage_is_not_judged_against_this_one() -> None:
    result = outcome("azure-capacity-spreadsheet-review",
                     "50,000 / 40 = 1,250 with no headroom, so 20% headroom makes it 1,750 GPUs.")
    ten = next(n for n in result.numbers if n.criterion_key == "gpus-10pct")
    twenty = next(n for n in result.numbers if n.criterion_key == "gpus-20pct")
    assert ten.found_value is None
    assert twenty.found_value == 1750 and not twenty.within_tolerance


def test_an_order_of_magnitude_slip_is_flagged() -> None:
    result = outcome("shopify-torchserve-200k-rpm",
                     "200k requests per minute is about 33,000 RPS, so I'd add workers.")
    rps = next(n for n in result.numbers if n.criterion_key == "rps")
    assert rps.found_value == 33000 and not rps.within_tolerance
    assert any("order of magnitude" in line for line in result.feedback["calculations"])


def test_a_stage_figure_is_not_judged_as_the_margin() -> None:
    result = outcome("snapchat-p95-12ms-bid-requests",
                     "The p99 is 11.3ms against a 12ms p95 budget, so I'd look at the tail. I'd "
                     "budget network 2ms, features 3ms, model 5ms and alert early.")
    margin = next(n for n in result.numbers if n.criterion_key == "margin")
    assert margin.found_value is None
    assert result.feedback["calculations"] == []


@pytest.mark.parametrize("text", [
    # A range of headroom gives a range of totals: the bank's own wording (issue 9 QA).
    "Without the zone requirement I'd plan 1,250 plus 10-20% headroom, 1,375-1,500.",
    "1,250 plus 10-20% headroom is about 1,438 GPUs.",
    # The first number of a chain is an operand, not the result: the result follows "=".
    "1,250 is the bare need with no headroom, and 20% headroom makes it 1,250 x 1.2 = 1,500.",
])
def test_a_headroom_range_or_chain_that_follows_is_accepted(text: str) -> None:
    assert derived(text) == []


def test_a_headroom_range_that_does_not_follow_is_flagged() -> None:
    assert len(derived("1,250 plus 10-20% headroom, 1,750-1,900 GPUs.")) == 1


def test_headroom_said_earlier_in_the_sentence_claims_the_count() -> None:
    result = outcome("google-a100-7b-50k-qps",
                     "So 50,000 divided by 40 is 125 GPUs. Then 20% on top for spikes and "
                     "deploys, so 150 A100s.")
    check = next(n for n in result.numbers if n.criterion_key == "gpus-with-headroom")
    assert check.found_text == "150 A100s" and not check.within_tolerance
    base = next(n for n in result.numbers if n.criterion_key == "gpus-before-headroom")
    assert base.found_text == "125 GPUs"


@pytest.mark.parametrize(("text", "stated", "actual"), [
    # A share of an hourly rate over a 15-minute window: 40,000 x 2% x 0.25 = 200.
    ("We take about 40k orders an hour, so 2% over the 15-minute window is about 8,000 "
     "orders, plenty to judge on.", 8000, 200),
    # A share of an hourly rate said per minute: 1% of 60,000 an hour is 10 a minute.
    ("We do 60k orders an hour, so 1% is about 600 orders a minute.", 600, 10),
])
def test_a_share_of_a_rate_is_checked_in_its_time_unit(text: str, stated: float,
                                                       actual: float) -> None:
    [calculation] = derived(text)
    assert calculation.stated == stated
    assert calculation.actual == pytest.approx(actual)


@pytest.mark.parametrize("text", [
    "We take about 40k orders an hour, so 2% over the 15-minute window is about 200 orders.",
    "We do 60k orders an hour, so 1% is 600 orders an hour, about 10 a minute.",
])
def test_a_share_of_a_rate_done_right_is_accepted(text: str) -> None:
    assert derived(text) == []


def test_a_canary_sample_off_by_forty_times_blocks_a_strong_hire() -> None:
    answer = ("Version every model in the registry and shadow it first, then a sticky 2% canary "
              "through Istio weights with a 15-minute bake after each step. We take about 40k "
              "orders an hour, so 2% over the 15 minutes is about 8,000 orders, plenty to judge "
              "ETA error against the baseline, then ramp 2, 10, 50, 100 with automatic rollback "
              "on latency, errors or ETA error.")
    outcome = RubricEngine().score(bank_question("doordash-eta-canary"), answer)
    assert any("8,000" in line for line in outcome.feedback["calculations"])
    assert outcome.rating <= 3


def test_an_error_budget_after_a_latency_bar_is_checked() -> None:
    # "99.5% of chunks under 500ms over 30 days": the budget is 0.5% of 30 days, 3.6 hours.
    [calculation] = derived("An SLO of 99.5% of chunks under 500ms over 30 days gives an error "
                            "budget of about 36 hours a month.")
    assert (calculation.stated, calculation.actual) == (36, pytest.approx(3.6))
    assert derived("An SLO of 99.5% of chunks under 500ms over 30 days gives an error budget of "
                   "about 3.6 hours.") == []


@pytest.mark.parametrize(("text", "stated", "actual"), [
    ("2% of 400,000 orders an hour is 80,000 orders an hour.", 80000, 8000),
    ("5% of 200 GPUs is 100 GPUs.", 100, 10),
    ("11.3 against a 12ms SLA leaves 0.7ms, which is about 16% of the budget.", 16, 5.83),
    ("We spend 5ms of the 20ms, or roughly 50% of the budget, in the model.", 50, 25),
])
def test_a_share_of_a_figure_or_a_figure_as_a_share_is_checked(text: str, stated: float,
                                                               actual: float) -> None:
    [calculation] = derived(text)
    assert calculation.stated == stated
    assert calculation.actual == pytest.approx(actual, rel=0.01)


@pytest.mark.parametrize("text", [
    "2% of 400,000 orders an hour is 8,000 orders an hour.",
    "11.3 against a 12ms SLA leaves 0.7ms, which is about 6% of the budget.",
    # Against the 11.3 already spent, 0.7 is 6.2%: either whole is a valid route.
    "11.3 against a 12ms SLA leaves 0.7ms, which is about 6.2% of the budget.",
    "We spend 5ms of the 20ms, or roughly 25% of the budget, in the model.",
])
def test_a_share_that_follows_from_the_sentence_is_accepted(text: str) -> None:
    assert derived(text) == []


@pytest.mark.parametrize(("text", "flagged"), [
    ("0.5% an hour is about 2% per five minutes.", True),
    ("0.5% an hour is about 0.04% per five minutes.", False),
    ("200k requests a minute is about 33,000 requests a second.", True),
    ("200k requests a minute is about 3,300 requests a second.", False),
])
def test_a_rate_put_in_another_time_unit_keeps_its_value(text: str, flagged: bool) -> None:
    assert bool(derived(text)) is flagged


def test_a_given_figure_put_in_other_units_is_not_marked_off_as_the_result() -> None:
    result = outcome("zoom-gpu-memory-leak-alert",
                     "No. The SLI's 0.5% an hour is about 0.04% per five minutes, far under the "
                     "rule's 2%, so a slow leak never trips it.")
    check = next(c for c in result.numbers if c.criterion_key == "hourly-rate")
    assert check.found_value is None
    assert result.feedback["calculations"] == []


def test_a_wrong_conversion_is_charged_once_not_as_a_result_and_again_as_arithmetic() -> None:
    answer = ("No. 2% every five minutes works out to 12% an hour if it keeps going, far above "
              "the 0.5%/h SLI, so a slow leak never trips the rule. I'd add a long-window "
              "alert on the slope of memory over six hours.")
    result = outcome("zoom-gpu-memory-leak-alert", answer)
    check = next(c for c in result.numbers if c.criterion_key == "hourly-rate")
    assert check.found_text == "12% an hour" and not check.within_tolerance
    assert "wrong arithmetic" not in result.feedback["summary"]


@pytest.mark.parametrize(("text", "actual"), [
    ("80 A100s at 400 W each is about 320 kW.", 32),
    ("On power, each A100 is around 400 W, so 80 of them are about 3.2 kW.", 32),
    ("1,250 GPUs at $2 an hour is 25,000 dollars an hour.", 2500),
    ("1,500 GPUs at 40 QPS each is 6,000 QPS.", 60000),
])
def test_a_count_times_a_per_item_figure_is_checked(text: str, actual: float) -> None:
    [calculation] = derived(text)
    assert calculation.actual == pytest.approx(actual)


@pytest.mark.parametrize("text", [
    "80 A100s at 400 W each is about 32 kW.",
    "On power, each A100 is around 400 W, so 80 of them are about 32 kW.",
    "1,250 GPUs at $2 an hour is $2,500 an hour.",
    "1,500 GPUs at 40 QPS each is 60,000 QPS.",
])
def test_a_count_times_a_per_item_figure_done_right_is_accepted(text: str) -> None:
    assert derived(text) == []
