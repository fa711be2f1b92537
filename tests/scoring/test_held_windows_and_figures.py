"""Issue 9, the README's fifteenth round (engine 2.13): a threshold held for a window said
without repeating its figure, a percentile's name that names no point beside a figure, a
bulleted breakdown totalled as "thats ~14ms" or "= 15", a point used as the reason for
turning down what others do, and a count over a bake from the step's own rate (a right one no
longer called wrong for leaving out the share before it, a wrong one now flagged), and a
retrain cadence said as "every day".

Every case has a wrong sentence and a right twin; each wrong sentence was checked to fail
before its change.
"""

from __future__ import annotations

import pytest

from tests.scoring.test_engines import bank_verdict as verdict
from tests.scoring.test_own_words import calculations

SNOWFLAKE = "snowflake-jit-compilation-sli"
LYFT = "lyft-18ms-cpu-stack"
TIKTOK = "tiktok-20ms-budget"
ROBINHOOD = "robinhood-bad-model-blast-radius"
DOORDASH = "doordash-eta-canary"


@pytest.mark.parametrize("answer", [
    "I'd keep 80 but only alert if it stays above for a few minutes; one slow compile shouldn't "
    "wake anyone up.",
    "Keep the 80ms line and page only when p95 remains over it for five minutes.",
])
def test_a_threshold_held_for_a_window_without_its_figure_is_a_windowed_alert(answer: str) -> None:
    assert verdict(SNOWFLAKE, "windowed-alert", answer) == "made"


@pytest.mark.parametrize("answer", [
    "I'd keep 80 and alert the moment it goes above; one slow compile should page.",
    "Keep the 80ms line; it stays above our normal p95, which is fine.",
])
def test_a_threshold_without_a_held_window_is_no_windowed_alert(answer: str) -> None:
    assert verdict(SNOWFLAKE, "windowed-alert", answer) == "missed"


def test_a_target_said_as_a_figure_and_a_percentile_is_no_alerting_point() -> None:
    # "p99 above 15ms" is one of the guard's phrases; a target of 15ms p99 says nothing of
    # timeouts, fallbacks or alerts.
    answer = ("25 against 18 means I'm 7ms over, about 28%, so I'd aim for 15ms p99 as the "
              "real goal.")
    assert verdict(LYFT, "timeout-alerts", answer) == "missed"
    assert verdict(LYFT, "headroom", answer) == "made"


def test_an_alert_on_p99_above_15ms_is_still_the_alerting_point() -> None:
    answer = ("Guards: a hard timeout at 16ms with a fallback ranking, and an alert when p99 "
              "goes above 15ms, before the 18ms page.")
    assert verdict(LYFT, "timeout-alerts", answer) == "made"


_STAGES = ("My split of the 15:\n- network + serialisation 3ms\n- feature fetch 5ms\n"
           "- preprocessing 2ms\n- batch queue wait 3ms\n- model forward {model}ms\n"
           "- postprocessing 1ms\n{claim} ~14ms, so 1ms of slack left inside the 15.")


@pytest.mark.parametrize("claim", ["thats", "that’s"])
def test_a_bulleted_breakdown_totalled_with_a_typed_thats_is_checked(claim: str) -> None:
    found = calculations(TIKTOK, _STAGES.format(model=6, claim=claim))
    assert any("add up to 20" in line for line in found), found


def test_a_bulleted_breakdown_that_does_total_its_claim_is_not_flagged() -> None:
    assert calculations(TIKTOK, _STAGES.format(model=0, claim="thats")) == []


_BILL = ("I hold myself to 15ms at p99. Spend the 15 like a bill:\n• RPC in/out + proto decode: 2\n"
         "• feature store read: 3\n• transforms: 1\n• waiting in the batcher: ≤2\n"
         "• forward pass: 5, of which ~2 is fixed launch + sync cost, so CUDA graphs\n"
         "• post + encode: 1\n• slack: 1\n= {total}.")


def test_a_bare_list_that_totals_its_claim_is_not_called_a_wrong_product() -> None:
    # 2 + 3 + 1 + 2 + 5 + 1 + 1 = 15; the "~2 of which" is part of the forward pass.
    assert calculations(TIKTOK, _BILL.format(total=15)) == []


def test_a_bare_list_with_a_wrong_total_is_shown_as_its_sum() -> None:
    found = calculations(TIKTOK, _BILL.format(total=19))
    assert any("add up to 15" in line for line in found), found


_FLAGS = ("Some teams add per-segment feature flags as a kill switch, but every flag check is a "
          "network call of ~200µs, so {then}")


def test_the_cost_given_as_the_reason_for_refusing_flags_is_no_point_made() -> None:
    answer = _FLAGS.format(then="I'd leave them out entirely - the rollback is fast enough.")
    assert verdict(ROBINHOOD, "flag-latency", answer) in {"missed", "contradicted"}


def test_the_cost_handled_after_what_others_do_is_still_the_point() -> None:
    answer = _FLAGS.format(then="I'd cache the flag state locally with streamed updates.")
    assert verdict(ROBINHOOD, "flag-latency", answer) == "made"


_BAKE_COUNT = ("Sample size: we do about 6,000 orders/hour, so 2% is 120 orders/hour, and a 15 min "
               "bake already gives ~{count} delivered orders, so 15 min per step is enough.")


def test_a_count_over_the_bake_from_the_steps_rate_is_not_called_wrong() -> None:
    # 120 an hour over 15 minutes is 30; the 2% before it was the step before.
    assert calculations(DOORDASH, _BAKE_COUNT.format(count=30)) == []


def test_a_wrong_count_over_the_bake_is_flagged() -> None:
    found = calculations(DOORDASH, _BAKE_COUNT.format(count=300))
    assert any("gives 30" in line for line in found), found


STRIPE = "stripe-fraud-tensorrt-vs-torchserve"


@pytest.mark.parametrize("cadence", ["every day", "each day", "nightly"])
def test_a_cadence_in_other_words_ties_the_recommendation_to_it(cadence: str) -> None:
    answer = f"If the team pushes new weights {cadence}, I'd stay on TorchServe."
    assert verdict(STRIPE, "recommendation", answer) in {"made", "partly"}


def test_a_choice_tied_to_no_cadence_is_no_cadence_based_recommendation() -> None:
    answer = "If the team pushes new weights often, I'd stay on TorchServe."
    assert verdict(STRIPE, "recommendation", answer) == "missed"


# After held-out-23 was measured and opened: terms defined wrongly in new words.
ORACLE = "oracle-serverless-cold-starts"


@pytest.mark.parametrize(("slug", "key", "wrong", "right"), [
    (DOORDASH, "versioned-shadow",
     "Step one is a shadow deployment, meaning we send about 5% of real customers to the new "
     "model and show them its ETAs.",
     "Step one is a shadow deployment, meaning the new model scores mirrored requests and its "
     "ETAs are logged, never shown."),
    (ORACLE, "mitigations",
     "To reduce cold starts, provisioned concurrency, which means giving each container more "
     "vCPUs so it boots faster.",
     "To reduce cold starts, provisioned concurrency, which means keeping a few containers "
     "initialised and warm ahead of traffic."),
    (ORACLE, "coldstart-rate",
     "Cold-start rate I'd define as the p95 of that cold-start latency over the hour.",
     "Cold-start rate I'd define as the share of requests that land on a cold replica."),
    (ORACLE, "request-health",
     "For request health I'd watch 5xx and 429s, since a 429 means the model server crashed.",
     "For request health I'd watch 5xx and 429s, since a 429 means we are throttling callers."),
    (STRIPE, "dynamic-batching",
     "Dynamic batching is a TensorRT feature where it flips precision between FP16 and INT8 per "
     "request.",
     "Dynamic batching is where TorchServe groups requests that arrive within a few ms into one "
     "batch."),
    (TIKTOK, "batching-tradeoff",
     "For batching I'd go big, because bigger batches make the GPU more efficient and so every "
     "request in the batch actually finishes sooner.",
     "Bigger batches make the GPU more efficient, but every request in the batch waits for it to "
     "fill, so I'd cap the wait at 2ms."),
])
def test_a_term_defined_wrongly_in_new_words_contradicts_its_point(
        slug: str, key: str, wrong: str, right: str) -> None:
    assert verdict(slug, key, wrong) == "contradicted"
    assert verdict(slug, key, right) in {"made", "partly"}


AIRBNB = "airbnb-argo-cd-versioning"


@pytest.mark.parametrize("answer", [
    "So each version gets a Docker tag, and I'd keep a moving tag like prod-latest that we "
    "repoint to whichever version is live.",
    "Each model version goes in the registry, and we just deploy the :latest tag so the manifest "
    "never changes.",
])
def test_a_tag_that_moves_contradicts_immutable_versions(answer: str) -> None:
    assert verdict(AIRBNB, "immutable-tags", answer) == "contradicted"


@pytest.mark.parametrize("answer", [
    "Each version gets an immutable registry version and its own Docker tag; never latest, and "
    "we never repoint a tag.",
    "Each version gets its own git sha tag in the registry, and I'd never use the latest tag.",
])
def test_tags_that_never_move_stay_immutable_versions(answer: str) -> None:
    assert verdict(AIRBNB, "immutable-tags", answer) == "made"


# The bank: a label that repeated the scenario's figure ("Makes the 1ms gate statistically
# meaningful") credited any answer that repeated the scenario, and the scenario's own SLI name
# ("frame drops") credited pinning it to a window.
INSTACART = "instacart-canary-playbook"
ZOOM = "zoom-gpu-memory-leak-alert"


def test_repeating_the_1ms_gate_is_no_significance_point() -> None:
    answer = "The 1ms gate is fine as it is, I'd keep the 10-minute bake and promote on it."
    assert verdict(INSTACART, "significance", answer) == "missed"


def test_asking_whether_the_1ms_delta_is_noise_is_the_significance_point() -> None:
    answer = ("At 2% for 10 minutes a 1ms delta may be noise: compare against the baseline in the "
              "same window and wait for enough samples.")
    assert verdict(INSTACART, "significance", answer) == "made"


def test_naming_frame_drops_pins_them_to_no_window() -> None:
    answer = ("For the other SLIs, latency under 100ms and frame drops under 0.1% look fine as "
              "they are.")
    assert verdict(ZOOM, "percentile-windows", answer) == "missed"


def test_a_frame_drop_rate_over_a_window_is_pinned() -> None:
    answer = ("The 100ms needs a stated percentile, p99, and the frame-drop rate needs a rolling "
              "window with a minimum sample count.")
    assert verdict(ZOOM, "percentile-windows", answer) == "made"


# Bank phrases and a label that stated the opposite of their point: "headroom on top" is what
# the point argues against stacking, "a new version" is no version management.
CLUSTER = "gpu-cluster-sizing-method"
TRADEOFFS = "tensorrt-torchserve-tradeoffs"


def test_headroom_stacked_on_top_is_no_reasoning_about_redundancy() -> None:
    answer = "I'd add 20% headroom on top of that for spikes, so 1,500 GPUs."
    assert verdict(CLUSTER, "headroom-reasoning", answer) == "missed"


def test_redundancy_that_already_covers_spikes_is_the_reasoning() -> None:
    answer = ("With all three zones up we run at two-thirds utilization, so that one-third spare "
              "already covers spikes; no extra 20% on top.")
    assert verdict(CLUSTER, "headroom-reasoning", answer) == "made"


def test_shipping_a_new_version_is_no_version_management() -> None:
    answer = "TensorRT is faster; TorchServe makes it easy to ship a new version of the model."
    assert verdict(TRADEOFFS, "batching-versioning", answer) == "missed"


def test_a_management_api_and_dynamic_batching_are_compared() -> None:
    answer = ("TorchServe has dynamic batching and a management API to register versions; "
              "TensorRT gets both through Triton.")
    assert verdict(TRADEOFFS, "batching-versioning", answer) == "made"
