"""Issue 9, the README's twelfth round (engine 2.10): the reason given for refusing a point,
trade-offs and definitions turned round in new words, and a headroom total checked against a
base said a sentence earlier.

Every case has a wrong sentence and, where the rule could over-reach, a right twin; each was
checked to fail before its change.
"""

from __future__ import annotations

import pytest

from scoring.engines.rubric import RubricEngine
from tests.scoring.test_engines import bank_question
from tests.scoring.test_engines import bank_verdict as verdict


# The cost named as the reason for refusing the kill switch is not the point "kill switch with
# its 200us cost handled".
def test_the_reason_given_for_refusing_a_point_does_not_make_it() -> None:
    answer = ("Shadow first. What I would not add is a feature-flag kill switch: at 200 "
              "microseconds per evaluation it costs too much latency in this path, so I'd rely "
              "on the canary and rollback and skip flags entirely.")
    assert verdict("robinhood-bad-model-blast-radius", "flag-latency", answer) != "made"


def test_a_refused_remote_call_with_the_fix_after_so_makes_the_point() -> None:
    answer = ("I would not call the flag service on every request: at 200 microseconds per call "
              "that hurts, so I'd cache flag state locally with streamed updates.")
    assert verdict("robinhood-bad-model-blast-radius", "flag-latency", answer) == "made"


def test_refusing_extra_headroom_is_the_point_when_the_point_is_a_refusal() -> None:
    # "No extra 20% on top" is one of the point's own phrases: turning it down makes it.
    answer = ("Three zones of 625 is 1,875 in total; without the zone requirement it would be "
              "1,250. I'd not add more headroom on top, since in normal operation we already "
              "run at two-thirds load.")
    assert verdict("gpu-cluster-sizing-method", "headroom-reasoning", answer) == "made"


@pytest.mark.parametrize("answer", [
    "Batching helps here too, if we group more requests together each one gets out faster since "
    "the GPU handles them in one go, so I'd push batch size up.",
    "Bigger batches are actually better for latency too, since each request rides along in a "
    "more efficient pass through the GPU.",
])
def test_bigger_batches_said_to_speed_each_request_up_are_contradicted(answer: str) -> None:
    assert verdict("pinterest-batch-size-tradeoff", "batching-tradeoff", answer) == "contradicted"


def test_bigger_batches_better_for_throughput_only_stay_made() -> None:
    answer = ("If we group more requests together, each one waits longer, but the GPU does more "
              "work per pass: bigger batches are better for throughput and worse for p99.")
    assert verdict("pinterest-batch-size-tradeoff", "batching-tradeoff", answer) == "made"


def test_dynamic_batching_that_holds_requests_until_the_batch_is_full_is_contradicted() -> None:
    answer = ("I'd turn on dynamic batching, which means the server holds requests until the "
              "batch is completely full and only then runs it, so no GPU cycles go to waste.")
    assert verdict("pinterest-batch-size-tradeoff", "batch-wait", answer) == "contradicted"


def test_dynamic_batching_that_holds_requests_until_full_or_a_timeout_is_made() -> None:
    answer = ("I'd turn on dynamic batching, which holds requests until the batch is full or "
              "2ms pass, whichever comes first, so the wait is bounded.")
    assert verdict("pinterest-batch-size-tradeoff", "batch-wait", answer) == "made"


@pytest.mark.parametrize("wrong", [
    "If it was a p99 number it's the optimistic one, I'd want the p50 figure since that's the "
    "stricter bar for capacity.",
    "I'd want the median, since the median is the more conservative number for capacity.",
])
def test_the_low_percentile_called_the_strict_one_contradicts_a_point_checked_on_percentiles(
        wrong: str) -> None:
    answer = ("50,000 / 40 = 1,250 is with zero headroom; with 20% it's 1,500 A100s. I'd check "
              f"which percentile and batch size the 40 QPS was measured at. {wrong}")
    assert verdict("azure-capacity-spreadsheet-review", "benchmark-conditions",
                   answer) == "contradicted"


def test_the_high_percentile_called_the_strict_one_keeps_the_point() -> None:
    answer = ("50,000 / 40 = 1,250 is with zero headroom; with 20% it's 1,500 A100s. I'd check "
              "which percentile and batch size the 40 QPS was measured at. If it was a p50 "
              "number it's the optimistic one, I'd want the p99 figure since that's the stricter "
              "bar for capacity.")
    assert verdict("azure-capacity-spreadsheet-review", "benchmark-conditions", answer) == "made"


def _calculations(slug: str, answer: str) -> list[str]:
    result = RubricEngine().score(bank_question(slug), answer)
    return [str(line) for line in result.feedback.get("calculations") or []]


def test_headroom_on_a_base_said_the_sentence_before_is_checked() -> None:
    answer = ("One A100 does about 40 requests/s at 20 ms p99, so 50,000/40 = 1,250 A100s "
              "before any headroom. With 20% headroom for spikes, deploys and dead nodes thats "
              "about 1,400.")
    lines = _calculations("google-a100-7b-50k-qps", answer)
    assert any("1,400" in line and "1,500" in line for line in lines)
    result = RubricEngine().score(bank_question("google-a100-7b-50k-qps"), answer)
    assert result.rating < 4


@pytest.mark.parametrize("answer", [
    "One A100 does about 40 requests/s at 20 ms p99, so 50,000/40 = 1,250 A100s before any "
    "headroom. With 20% headroom for spikes, deploys and dead nodes thats about 1,500.",
    "1,250 x 1.2 = 1,500 with 20% on top, and I'd round to 1,600 for the zones.",
])
def test_a_right_headroom_total_is_not_marked_off(answer: str) -> None:
    assert not any("1,500 gpu" in line for line in _calculations("google-a100-7b-50k-qps",
                                                                 answer))


def test_a_computed_base_with_a_long_aside_before_its_total_is_checked() -> None:
    answer = ("50,000/40 = 1,250 A100s, and with 20% headroom for spikes and failures that's "
              "1,400.")
    lines = _calculations("google-a100-7b-50k-qps", answer)
    assert any("1,400" in line and "1,500" in line for line in lines)


@pytest.mark.parametrize("answer", [
    "The poll interval we're not concerned about at all.",
    "The Argo CD sync delay we're not losing sleep over, a revert lands when it lands.",
])
def test_a_point_fronted_and_then_not_worried_about_is_not_made(answer: str) -> None:
    assert verdict("airbnb-argo-cd-versioning", "sync-window", answer) != "made"


def test_a_point_fronted_and_then_worried_about_is_made() -> None:
    answer = ("The Argo CD sync delay I'm worried about: a revert can take up to five minutes "
              "to land, so rollback has to shift weights in the data plane instead.")
    assert verdict("airbnb-argo-cd-versioning", "sync-window", answer) == "made"


def test_the_tool_picked_because_it_is_the_other_tools_role_is_contradicted() -> None:
    answer = ("For the fraud path I'd pick TorchServe, because it's the one that compiles the "
              "model graph and fuses kernels, so it comes out ahead, something like 7ms p99 "
              "where TensorRT is closer to 12.")
    assert verdict("stripe-fraud-tensorrt-vs-torchserve", "latency-advantage",
                   answer) == "contradicted"


def test_the_tool_picked_because_it_is_its_own_role_is_made() -> None:
    answer = ("For the fraud path I'd pick TensorRT, because it's the one that compiles the "
              "model graph and fuses kernels, so it comes out ahead, something like 7ms p99 "
              "where TorchServe is closer to 12.")
    assert verdict("stripe-fraud-tensorrt-vs-torchserve", "latency-advantage", answer) == "made"


def test_the_remote_flag_call_named_as_a_condition_with_its_cost_is_not_committed() -> None:
    answer = ("I'd also add a kill switch flag per user segment; since each flag check is around "
              "200us if you call the flag service, I'd keep the flag values cached in memory in "
              "each pod and push updates to it.")
    assert verdict("robinhood-bad-model-blast-radius", "remote-flag-every-request",
                   answer) == "missed"


@pytest.mark.parametrize("answer", [
    "If we call the flag service on every request, that's only 10ms of CPU, fine.",
    "We call the flag service on every request.",
])
def test_the_remote_flag_call_accepted_is_committed(answer: str) -> None:
    assert verdict("robinhood-bad-model-blast-radius", "remote-flag-every-request",
                   answer) == "made"


def test_a_model_named_by_its_size_is_no_operand_of_a_measured_rate() -> None:
    answer = ("What matters is how many requests one card really handles in a load test while "
              "staying inside 20 ms, and for a 7B model on vLLM that's roughly forty a second "
              "per A100. Fifty thousand over forty gives twelve hundred and fifty cards.")
    assert not any("forty" in line for line in _calculations("google-a100-7b-50k-qps", answer))


@pytest.mark.parametrize("answer", [
    "A 3B model in fp16 is roughly 3 GB, so it barely touches the 16 GB.",
    "On memory, 3B params in fp16 is about 12GB, so on a 16GB T4 there's only ~4GB left for KV "
    "cache.",
    "The 3B model is ~12 GB in FP16 so it fits in 16 GB.",
])
def test_weights_memory_off_from_parameters_times_bytes_is_flagged_and_contradicts_the_fit(
        answer: str) -> None:
    assert any("6 GB" in line for line in _calculations("amazon-t4-3b-30k-qps", answer))
    assert verdict("amazon-t4-3b-30k-qps", "memory-fit", answer) == "contradicted"


@pytest.mark.parametrize("answer", [
    "The 3B model is ~6 GB in FP16 so it fits in 16 GB with room for the KV cache.",
    "A 3B model in int8 is about 3 GB, which leaves most of the 16 GB T4 for the KV cache.",
    "3B params in fp16 is 6GB of weights plus the KV cache, roughly 9 GB in all on a 16 GB T4.",
])
def test_right_weights_memory_is_not_flagged(answer: str) -> None:
    assert not any("GB" in line for line in _calculations("amazon-t4-3b-30k-qps", answer))
    assert verdict("amazon-t4-3b-30k-qps", "memory-fit", answer) != "contradicted"


def test_cards_counted_by_pointing_back_at_them_with_no_basis_is_the_pitfall() -> None:
    answer = "T4s are solid inference cards, so I'd start with around 60 of them and autoscale."
    assert verdict("amazon-t4-3b-30k-qps", "unsupported-guess", answer) == "made"


def test_cards_counted_from_a_rate_per_card_are_no_guess() -> None:
    answer = "Each T4 does about 12 QPS for this model, so 30,000 / 12 = 2,500 of them."
    assert verdict("amazon-t4-3b-30k-qps", "unsupported-guess", answer) == "missed"


def test_a_count_said_to_cover_the_headroom_is_accepted_as_including_it() -> None:
    answer = ("50,000 over 40 is 1,250, and I'd assume the architect already built the 20% into "
              "the 40 QPS figure, so 1,250 covers the headroom.")
    assert verdict("azure-capacity-spreadsheet-review", "accepts-1250", answer) == "made"


def test_a_count_said_not_to_cover_the_headroom_is_not_accepted() -> None:
    answer = ("50,000 over 40 is 1,250, which doesn't cover the headroom: with 20% it is 1,500 "
              "A100s.")
    assert verdict("azure-capacity-spreadsheet-review", "accepts-1250", answer) == "missed"


def test_no_feature_flags_for_their_cost_is_not_the_point_of_handling_the_cost() -> None:
    answer = ("Per-version dashboards and automatic rollback. And no feature flags either, 200µs "
              "per request is too much at our QPS, so no per-segment kill switch, rollback "
              "covers it.")
    assert verdict("robinhood-bad-model-blast-radius", "flag-latency", answer) != "made"


def test_a_share_of_a_rate_over_the_window_said_without_over_is_checked() -> None:
    answer = ("We do about 100k orders an hour, so at 2% the 15 minute window is roughly 2,000 "
              "canary orders.")
    lines = _calculations("doordash-eta-canary", answer)
    assert any("2,000" in line and "500" in line for line in lines)


def test_a_right_share_of_a_rate_over_the_window_is_not_marked_off() -> None:
    answer = ("We do about 100k orders an hour, so at 2% the 15 minute window is roughly 500 "
              "canary orders.")
    assert not any("500" in line for line in _calculations("doordash-eta-canary", answer))


def test_a_number_glued_to_another_word_is_not_the_phrases_number() -> None:
    answer = ("With 20% on top that's 24 GPUs, which is three 8-GPU servers, so this is a pretty "
              "small deployment.")
    assert verdict("google-a100-7b-50k-qps", "quantization", answer) == "missed"


@pytest.mark.parametrize("answer", ["I'd benchmark 8-bit weights to cut the fleet.",
                                    "I'd try 8 bit weights before buying more cards."])
def test_the_phrases_own_glued_number_still_makes_it(answer: str) -> None:
    assert verdict("google-a100-7b-50k-qps", "quantization", answer) == "made"


def test_tools_picked_for_the_other_tools_strengths_are_contradicted() -> None:
    answer = ("For a platform I'd put fast-moving models on TensorRT because the handlers make "
              "iteration easy, and the latency-critical stuff on TorchServe for the compiled "
              "speed.")
    assert verdict("tensorrt-torchserve-tradeoffs", "recommendation", answer) == "contradicted"


def test_tools_picked_for_their_own_strengths_are_not_contradicted() -> None:
    answer = ("For a platform I'd put fast-moving models on TorchServe because the handlers make "
              "iteration easy, and the latency-critical stuff on TensorRT for the compiled "
              "speed.")
    assert verdict("tensorrt-torchserve-tradeoffs", "recommendation", answer) != "contradicted"


def test_bigger_batches_said_not_to_hurt_latency_are_contradicted() -> None:
    answer = ("Bigger batches don't really hurt latency because the GPU processes the whole "
              "batch in parallel, it's the same single forward pass whether you have 8 or 64.")
    assert verdict("pinterest-batch-size-tradeoff", "batching-tradeoff", answer) == "contradicted"


def test_bigger_batches_said_not_to_come_free_stay_made() -> None:
    answer = ("Bigger batches don't come for free: they raise p99 because requests wait for the "
              "batch to fill, though throughput goes up.")
    assert verdict("pinterest-batch-size-tradeoff", "batching-tradeoff", answer) == "made"


def test_a_launch_cost_said_to_grow_with_the_batch_is_contradicted() -> None:
    answer = "I'd watch kernel launch overhead, because the launch cost grows with the batch size."
    assert verdict("pinterest-batch-size-tradeoff", "launch-overhead", answer) == "contradicted"


def test_p99_defined_after_an_aside_as_an_average_is_contradicted() -> None:
    answer = ("The contract is 20ms so my budget is 20ms, measured as p99, which for me means the "
              "average latency of 99% of requests once you drop the worst 1% as outliers.")
    assert verdict("tiktok-20ms-budget", "tail-target-headroom", answer) == "contradicted"


@pytest.mark.parametrize("answer", [
    "For fraud I'd go with TorchServe for the speed.",
    "With weekly retrains I'd go TensorRT for the flexibility.",
])
def test_a_tool_picked_for_the_other_tools_strength_is_contradicted(answer: str) -> None:
    assert verdict("stripe-fraud-tensorrt-vs-torchserve", "recommendation",
                   answer) == "contradicted"


@pytest.mark.parametrize("answer", [
    "For fraud I'd go with TensorRT for the speed, given weekly retrains.",
    "I'd go with TorchServe for fast iteration, since the model retrains daily.",
])
def test_a_tool_picked_for_its_own_strength_is_not_contradicted(answer: str) -> None:
    assert verdict("stripe-fraud-tensorrt-vs-torchserve", "recommendation",
                   answer) != "contradicted"


def test_a_batch_said_to_go_as_high_as_memory_allows_is_contradicted() -> None:
    answer = ("Memory is no issue either: 14 GB of weights on an 80 GB card means we can run huge "
              "batches, so the batch size can go as high as memory allows.")
    assert verdict("google-a100-7b-50k-qps", "token-and-batch-limits", answer) == "contradicted"


def test_a_batch_said_not_to_go_as_high_as_memory_allows_is_made() -> None:
    answer = ("Memory is no issue: 14 GB of weights on an 80 GB card leaves room for KV cache, but "
              "the 20ms budget caps the batch long before memory does, so the batch can't go as "
              "high as memory allows.")
    assert verdict("google-a100-7b-50k-qps", "token-and-batch-limits", answer) == "made"


@pytest.mark.parametrize("answer", [
    "p95 of 45ms means 95% of compiles are faster than 45ms, and the threshold at 80ms is 35% "
    "above that, a reasonable cushion.",
    "The threshold at 80ms is 35% above the 45ms p95.",
])
def test_a_share_above_another_figure_is_checked(answer: str) -> None:
    lines = _calculations("snowflake-jit-compilation-sli", answer)
    assert any("35%" in line and "77.8%" in line for line in lines)


@pytest.mark.parametrize("answer", [
    "The threshold at 80ms is about 78% above the 45ms p95.",
    "45ms is 44% below the 80ms threshold.",
])
def test_a_right_share_above_another_figure_is_not_marked_off(answer: str) -> None:
    assert not any("%" in line for line in _calculations("snowflake-jit-compilation-sli",
                                                         answer))


def test_a_cost_conceded_then_called_negligible_after_but_is_waved_away() -> None:
    answer = ("For the kill switch I'd put a per-segment feature flag in the ranking service and "
              "check it on each request against the flag service. The 200 microseconds per check "
              "sounds scary, but at 50k QPS it's 50,000 x 200us = 10ms of CPU per second, which is "
              "negligible.")
    assert verdict("robinhood-bad-model-blast-radius", "flag-latency", answer) == "contradicted"


def test_a_cost_made_negligible_by_caching_keeps_the_point() -> None:
    answer = ("The flag check costs 200 microseconds, but we cache flag state locally, which is "
              "why the per-request cost is negligible.")
    assert verdict("robinhood-bad-model-blast-radius", "flag-latency", answer) == "made"


def test_stage_slices_said_to_be_the_target_with_so_thats_are_summed() -> None:
    answer = ("Budget per stage: network 3ms, feature fetch 4ms, preprocessing 2ms, queue/batch "
              "wait 3ms, model 6ms, postprocessing 2ms, so that's the 15.")
    assert any("add up to 20" in line for line in _calculations("tiktok-20ms-budget", answer))


def test_stage_slices_that_make_the_target_with_so_thats_are_not_marked_off() -> None:
    answer = ("Budget per stage: network 3ms, feature fetch 4ms, preprocessing 2ms, queue/batch "
              "wait 2ms, model 3ms, postprocessing 1ms, so that's the 15.")
    assert _calculations("tiktok-20ms-budget", answer) == []
