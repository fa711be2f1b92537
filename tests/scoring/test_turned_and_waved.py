"""Issue 9, the README's eleventh round (engine 2.9): points turned round or waved away in the
words candidates use, and mistakes found only where the answer makes them.

Every case has a wrong sentence and, where the rule could over-reach, a right twin; each was
checked to fail before its change.
"""

from __future__ import annotations

import pytest

from scoring.engines.rubric import RubricEngine
from tests.scoring.test_engines import bank_question
from tests.scoring.test_engines import bank_verdict as verdict


# The batch-size trade-off turned round, however it is worded, contradicts the point even when a
# vaguer sentence elsewhere names bigger batches.
@pytest.mark.parametrize("answer", [
    "I'd go to a bigger batch, it helps. Bigger batches are more efficient per request, so the "
    "per-request latency should actually go down or stay about the same.",
    "For batching, the larger the batch the lower each request's latency, since the GPU is more "
    "efficient with big batches, so I'd push the batch size as high as memory allows.",
    "A bigger batch spreads the fixed kernel launch cost over more requests, so each request's "
    "latency actually goes down and the p99 improves along with utilization.",
    "For the GPU, the 2ms kernel launch overhead is exactly why you want huge batches, like 256: "
    "the launch cost gets amortised so every request gets faster.",
    "Going from 8 to a bigger batch would help both things, actually. Because the launch "
    "overhead is paid once per batch, the lower each one's latency gets, so p99 should drop as "
    "the batch grows.",
])
def test_a_batch_trade_off_turned_round_is_contradicted(answer: str) -> None:
    assert verdict("pinterest-batch-size-tradeoff", "batching-tradeoff", answer) == "contradicted"


def test_the_batch_trade_off_stated_right_is_made() -> None:
    answer = ("Bigger batches raise throughput, but each request waits longer for the batch to "
              "fill and runs longer, so p99 goes up; I'd sweep batch sizes against the 10ms SLO.")
    assert verdict("pinterest-batch-size-tradeoff", "batching-tradeoff", answer) == "made"


def test_enough_requests_asks_for_a_sample_and_calls_no_signal_enough() -> None:
    answer = ("Keep the 2% start, the 10 min bake and the Spinnaker auto-rollback. Add: re-bake "
              "at each step of a 2/10/25/50/100 ramp, gate on CTR, add-to-cart and null results "
              "not just 5xx + latency, and check the 1ms delta is real by comparing against "
              "baseline in the same window with enough requests.")
    result = RubricEngine().score(bank_question("instacart-canary-playbook"), answer)
    found = {v.key: v.verdict for v in result.criteria}
    assert found["errors-only"] == "missed"
    assert found["quality-gates"] == "made"


@pytest.mark.parametrize("answer", [
    "Spinnaker rolls back on 5xx, and that's enough for a ranking model.",
    "5xx is enough for the rollback, so I'd keep the playbook as is.",
])
def test_a_signal_called_enough_is_still_the_pitfall(answer: str) -> None:
    assert verdict("instacart-canary-playbook", "errors-only", answer) == "made"


# Points waved away in words the clause rules did not know.
@pytest.mark.parametrize(("slug", "key", "answer"), [
    ("ad-ranking-latency-target", "tail-percentile",
     "I'd go with 10ms average for the model call. I'd skip the p99 business, tail percentiles "
     "jump around too much to manage against, and the mean is a steadier thing to hold a team to."),
    ("oracle-serverless-cold-starts", "coldstart-latency",
     "For a serverless platform I'd page on 5xx. Cold starts are mostly a cost of scaling to "
     "zero, so an alert on 300ms cold starts would only spam the on-call."),
    ("twilio-transcription-slis", "jitter",
     "I'd track average latency per request and the error rate. Jitter isn't really a thing "
     "when the chunks are all equal."),
    ("uber-weekly-model-release-train", "validation",
     "Training writes the model into the registry as a new immutable version. Same with the "
     "schema checks and offline comparisons, they're ceremony for a weekly refresh."),
    ("netflix-bert-tensorrt-preprocessing", "extra-hop",
     "TensorRT gets the model from 12 to 7ms. The tokenizer service would sit in the same rack, "
     "so the extra call costs next to nothing and we hold on to essentially all of the gain."),
])
def test_a_point_waved_away_is_not_made(slug: str, key: str, answer: str) -> None:
    assert verdict(slug, key, answer) in {"contradicted", "missed"}


@pytest.mark.parametrize(("slug", "key", "answer"), [
    ("twilio-transcription-slis", "jitter",
     "Beyond p99 per chunk I'd track jitter, the spread of chunk processing times, because a "
     "steady average can hide stalls that break real-time captions."),
    ("uber-weekly-model-release-train", "validation",
     "Every version passes schema checks and an offline comparison against the current model "
     "before it takes any traffic."),
])
def test_the_same_points_stated_are_made(slug: str, key: str, answer: str) -> None:
    assert verdict(slug, key, answer) in {"made", "partly"}


def test_a_contrast_waved_away_on_both_sides_is_not_the_caveat() -> None:
    # "p95 vs p99 is splitting hairs" does not say "their number is p95, not p99".
    waved = ("45k divided by 80 is about 562 per GPU. And p95 vs p99 is splitting hairs at "
             "18ms, the tail won't be very different.")
    assert verdict("meta-80-a100-sanity-check", "percentile-caveat", waved) != "made"
    said = ("45k divided by 80 is about 562 per GPU. Their claim is p95 not p99, so the tail "
            "beyond it is unknown and I'd measure our own.")
    assert verdict("meta-80-a100-sanity-check", "percentile-caveat", said) == "made"


# Pitfalls committed in plain words.
@pytest.mark.parametrize(("slug", "key", "answer"), [
    ("stripe-fraud-tensorrt-vs-torchserve", "reversed-facts",
     "For a strict budget I'd use TensorRT no matter how often the fraud team retrains."),
    ("stripe-fraud-tensorrt-vs-torchserve", "reversed-facts",
     "TensorRT's big selling point is that you compile the engine once and then ship it to "
     "whatever GPU you like, which is nice operationally."),
    ("doordash-eta-canary", "no-bake",
     "I wouldn't wait around for a stabilization window, the routing change takes effect "
     "instantly, so I'd start comparing the canary from minute one and promote if it looks "
     "clean."),
    ("pinterest-batch-size-tradeoff", "chase-utilization",
     "I'd roll straight to 64 and keep going while the GPU has room, since idle SMs are money "
     "on the table."),
    ("instacart-canary-playbook", "errors-only",
     "Spinnaker rolling back on 5xx covers the failure modes that actually matter, if the model "
     "is broken it'll throw errors."),
])
def test_a_pitfall_in_plain_words_is_committed(slug: str, key: str, answer: str) -> None:
    assert verdict(slug, key, answer) == "made"


# The same ground covered without the mistake, and mistakes named only to avoid them.
@pytest.mark.parametrize(("slug", "key", "answer"), [
    ("stripe-fraud-tensorrt-vs-torchserve", "reversed-facts",
     "I'd use TensorRT if retrains are weekly or slower, and TorchServe if they're daily, "
     "because of the 45-minute rebuild."),
    ("pinterest-batch-size-tradeoff", "chase-utilization",
     "I'd pick whatever batch still comes in under 10ms at p99 after a sweep of 16 and 32."),
    ("doordash-eta-canary", "no-bake",
     "I'd wait out the 15-minute stabilization window after each weight change before "
     "comparing the canary, then promote."),
    ("azure-capacity-spreadsheet-review", "accepts-1250",
     "Signing off at 1,250 would have the fleet at 100% of its benchmarked capacity at peak, so "
     "the first spike or rolling deploy pushes p99 past 20ms."),
    ("robinhood-bad-model-blast-radius", "remote-flag-every-request",
     "The kill switch is the router's cell-to-version map, held in memory and pushed on change, "
     "so there's no per-request flag call and none of that 200 microsecond tax on the hot path."),
])
def test_the_mistake_avoided_or_criticised_is_not_committed(slug: str, key: str,
                                                            answer: str) -> None:
    assert verdict(slug, key, answer) == "missed"


@pytest.mark.parametrize(("slug", "key", "answer"), [
    ("azure-capacity-spreadsheet-review", "accepts-1250", "I'd sign off on 1,250 as is."),
    ("robinhood-bad-model-blast-radius", "remote-flag-every-request",
     "The 200us flag lookup is negligible, I'd evaluate flags remotely per request."),
])
def test_the_mistake_itself_is_still_committed(slug: str, key: str, answer: str) -> None:
    assert verdict(slug, key, answer) == "made"


# A figure names no point by itself: the "8" of "an 8-GPU box" is not "8-bit", a "2ms"
# queueing slice is not the ~2ms launch overhead.
@pytest.mark.parametrize(("slug", "key", "figure_only", "said"), [
    ("google-a100-7b-50k-qps", "quantization",
     "Our measured number is ~40 QPS per A100 at 20ms p99, so an 8-GPU box does about 320 QPS "
     "and 50,000 over 320 is about 156 boxes.",
     "Before buying I'd try INT8 or 8-bit weights, which could cut the fleet a lot."),
    ("tiktok-20ms-budget", "launch-overhead",
     "I'd allocate roughly 2ms network and RPC, 4ms features, 2ms queueing in the batcher and "
     "7ms forward pass.",
     "Inside the GPU slice I'd reserve about 2ms for kernel launch overhead, paid on every call."),
])
def test_a_figure_alone_makes_no_point(slug: str, key: str, figure_only: str, said: str) -> None:
    assert verdict(slug, key, figure_only) == "missed"
    assert verdict(slug, key, said) in {"made", "partly"}


# Percentiles turned round contradict every point about percentiles, wherever else they are named.
@pytest.mark.parametrize(("slug", "key", "answer"), [
    ("snapchat-p95-12ms-bid-requests", "percentile-mismatch",
     "p99 is 11.3ms, and since the SLA is on p95, and p95 sits above p99 in the tail, I'd expect "
     "p95 is somewhere around 11.6 or so, still under 12."),
    ("inference-slis-and-alerts", "user-slis",
     "For latency I'd track p50, since that's the tail, the slow requests users complain about, "
     "plus error rate."),
    ("oracle-serverless-cold-starts", "coldstart-latency",
     "For the alert I'd use the p5 of cold-start time, since the low percentiles are where the "
     "slow outliers are, and page when it's above 300ms."),
])
def test_percentiles_turned_round_contradict_the_point(slug: str, key: str, answer: str) -> None:
    assert verdict(slug, key, answer) == "contradicted"


@pytest.mark.parametrize(("slug", "key", "answer"), [
    ("snapchat-p95-12ms-bid-requests", "percentile-mismatch",
     "The SLA is on p95 but the dashboard shows p99, and p95 sits below p99, so 11.3ms at p99 "
     "bounds the p95 from above."),
    ("oracle-serverless-cold-starts", "coldstart-latency",
     "I'd alert on the p99 of cold-start latency, since the high percentiles are where the slow "
     "first requests show, and page when it stays above 300ms for 10 minutes."),
])
def test_percentiles_in_order_keep_the_point(slug: str, key: str, answer: str) -> None:
    assert verdict(slug, key, answer) in {"made", "partly"}


# Terms defined in a sense they do not have, each with its right twin.
@pytest.mark.parametrize(("slug", "key", "wrong", "right"), [
    ("instacart-canary-playbook", "sticky",
     "I'd definitely add sticky assignment, meaning the old canary pods stick around after "
     "promotion so Spinnaker has something to roll back to.",
     "I'd add sticky assignment, meaning each user is hashed to the same bucket so they always "
     "see the same model."),
    ("canary-and-versioning-design", "bake-window",
     "The bake window is the build stage where CI bakes the weights into the image, usually "
     "10-15 minutes.",
     "The bake window is the 10-15 minutes we hold after each weight change and watch the canary "
     "before the next step."),
    ("pinterest-batch-size-tradeoff", "batch-wait",
     "Dynamic batching just means the server grows the batch size on its own when the GPU has "
     "free cycles, so there's no timeout to worry about.",
     "Dynamic batching means the server collects requests that arrive within a max delay of "
     "1-2ms into one batch."),
    ("amazon-t4-3b-30k-qps", "memory-fit",
     "Memory is fine: 3B in FP16 is ~6 GB on a 16 GB card, and the KV cache is just a compressed "
     "copy of those weights kept for fast lookup, so it doesn't need room of its own.",
     "3B in FP16 is ~6 GB on a 16 GB card, leaving ~10 GB for the KV cache, which holds keys and "
     "values per token and caps the batch size."),
    ("gpu-cluster-sizing-method", "memory-fit",
     "The KV cache sits in host memory, so on the GPU we only need to fit the weights and 80 GB "
     "is plenty.",
     "The weights and the KV cache, which grows with tokens in flight, both have to fit in the "
     "80 GB of GPU memory."),
])
def test_a_term_defined_wrongly_contradicts_its_point(slug: str, key: str, wrong: str,
                                                      right: str) -> None:
    assert verdict(slug, key, wrong) == "contradicted"
    assert verdict(slug, key, right) in {"made", "partly"}


def test_a_share_that_does_not_follow_is_flagged_with_a_percentile_between_the_figures() -> None:
    from scoring.engines.clauses import analyse

    wrong = analyse("On a BERT-style model it's 7ms p99 vs 12ms on TorchServe, so TensorRT cuts "
                    "the tail by about 70%.")
    assert [(c.stated, c.expression) for c in wrong.implied] == [(70.0, "(12 - 7) / 12")]
    right = analyse("On a BERT-style model it's 7ms p99 vs 12ms on TorchServe, so TensorRT cuts "
                    "the tail by about 40%.")
    assert right.implied == []


def test_a_breakdown_that_overruns_its_target_is_flagged_past_a_share_of_one_part() -> None:
    from scoring.engines.numbers import find_sum_claims

    over = ("Per stage: network + serialization 3ms, feature fetch 5ms, preprocessing 2ms, batch "
            "queue 3ms, model compute 6ms including the ~2ms kernel launch overhead we measured, "
            "and postprocessing 1ms, so that all fits in the 15ms.")
    assert [(c.stated, c.actual) for c in find_sum_claims(over)] == [(15.0, 20.0)]
    fits = ("Per stage: network 3ms, features 4ms, model 6ms including the ~2ms launch overhead, "
            "batching 1ms and post 1ms, so that all fits in the 15ms.")
    assert find_sum_claims(fits) == []


def test_a_cost_said_not_to_be_free_is_not_waved_away() -> None:
    counted = ("Four: a per-segment kill switch that routes a segment back to the old model. But "
               "the flag check isn't free, ~200µs per request remotely; at 50k QPS that's 10 "
               "CPU-seconds every second, plus 200µs on every request, so each server keeps flag "
               "state in memory and gets updates streamed to it.")
    result = RubricEngine().score(bank_question("robinhood-bad-model-blast-radius"), counted)
    found = {v.key: v.verdict for v in result.criteria}
    assert found["remote-flag-every-request"] == "missed"
    assert found["flag-latency"] == "made"
    waved = ("I also wouldnt cache feature flags locally, 200 microseconds per request is "
             "nothing, just call the flag service every time so it's always fresh.")
    assert verdict("robinhood-bad-model-blast-radius", "remote-flag-every-request",
                   waved) == "made"


def test_sentences_typed_in_lower_case_are_still_sentences() -> None:
    lower = ("tensorrt is the faster one since it compiles and optimises the graph (fusing layers, "
             "lower precision), so for a strict latency budget it has the edge. the problem is "
             "the engine has to be rebuilt every time the model changes, and fraud models get "
             "retrained a lot, so that slows down shipping new versions. torchserve is slower but "
             "deploying a new version is just uploading it.")
    result = RubricEngine().score(bank_question("stripe-fraud-tensorrt-vs-torchserve"), lower)
    found = {v.key: v.verdict for v in result.criteria}
    assert found["reversed-facts"] == "missed"
    assert found["rebuild-cost"] == "made"
    assert found["latency-advantage"] == "made"


def test_the_reason_given_for_skipping_a_point_does_not_make_it() -> None:
    skipped = ("I'd target 15ms p99. And I'd skip batching entirely, batching only adds waiting, "
               "so one request per GPU call.")
    result = RubricEngine().score(bank_question("tiktok-20ms-budget"), skipped)
    found = {v.key: v.verdict for v in result.criteria}
    assert found["batching-tradeoff"] == "contradicted"
    assert found["launch-overhead"] != "made"  # "per GPU call" is no per-call launch cost
    kept = ("I'd skip fixed batches, but dynamic batching with a 1ms cap on the wait keeps p99 "
            "in check.")
    assert verdict("tiktok-20ms-budget", "batching-tradeoff", kept) == "made"
    # A plain "not" is no refusal: "p99 and not a mean, the mean hides the slow requests".
    plain = ("It's got to be p99 and not a mean, the mean hides the slow requests the caller's "
             "timeout will drop.")
    assert verdict("ad-ranking-latency-target", "tail-percentile", plain) == "made"


def test_a_cost_called_too_high_is_counted_not_waved_off() -> None:
    answer = ("Per-segment kill-switch flag, cached in-process (a remote check is ~200us/req, too "
              "costly at high QPS).")
    result = RubricEngine().score(bank_question("robinhood-bad-model-blast-radius"), answer)
    found = {v.key: v.verdict for v in result.criteria}
    assert found["flag-latency"] == "made"
    assert found["remote-flag-every-request"] == "missed"
    # The mistake itself, the cost waved off, is still the pitfall.
    waved = "The 200us flag lookup is negligible, I'd evaluate flags remotely per request."
    assert verdict("robinhood-bad-model-blast-radius", "remote-flag-every-request",
                   waved) == "made"


def test_a_share_of_a_rate_over_a_window_is_checked_when_the_rate_sits_between() -> None:
    from scoring.engines.clauses import analyse

    wrong = analyse("On sample size I'm not worried: 2% of roughly 100k orders an hour over the 15 "
                    "minutes is about 30,000 orders, so one window is plenty to decide.")
    assert [(c.stated, round(c.actual)) for c in wrong.implied] == [(30000.0, 500)]
    right = analyse("2% of roughly 100k orders an hour over the 15 minutes is about 500 orders.")
    assert right.implied == []


def test_torchserve_said_to_handle_one_request_at_a_time_is_a_fact_turned_round() -> None:
    wrong = ("For latency, TensorRT is faster because it batches requests dynamically across "
             "clients, whereas TorchServe handles one request at a time, that's where the 7 vs "
             "12ms kind of gap comes from I believe.")
    assert verdict("stripe-fraud-tensorrt-vs-torchserve", "latency-advantage",
                   wrong) == "contradicted"
    right = ("TorchServe batches requests dynamically with a max delay, so it doesn't just handle "
             "one request at a time.")
    assert verdict("stripe-fraud-tensorrt-vs-torchserve", "dynamic-batching", right) == "made"
