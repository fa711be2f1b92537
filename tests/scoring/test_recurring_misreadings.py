"""Issue 9, the README's thirteenth round (engine 2.11): misreadings that came back from one
writer's answers to the next (significance "by definition", a JIT compile said to stay off the
request path, the tools' roles swapped in new words, a rollback left to a person, one tool for
every model), a point whose only word is a term the answer defines wrongly elsewhere, and shares
checked in two more forms (after a difference, above a figure named by what it is) without
calling the right figure beside them wrong.

Every case has a wrong sentence and a right twin; each wrong sentence was checked to fail
before its change.
"""

from __future__ import annotations

import pytest

from scoring.engines.rubric import RubricEngine
from tests.scoring.test_engines import bank_question
from tests.scoring.test_engines import bank_verdict as verdict


def test_a_point_named_only_by_a_term_defined_wrongly_elsewhere_is_contradicted() -> None:
    answer = ("I will set the target 15ms as p99. p99 means the typical request, like the "
              "median one.")
    assert verdict("tiktok-20ms-budget", "tail-target-headroom", answer) == "contradicted"


def test_a_point_named_by_a_term_defined_rightly_stays_made() -> None:
    answer = "I will set the target 15ms as p99, which is the slow tail. Most requests are faster."
    assert verdict("tiktok-20ms-budget", "tail-target-headroom", answer) == "made"


@pytest.mark.parametrize("answer", [
    "On the 1ms gate, I think it's fine statistically: p99 is already an aggregate over "
    "thousands of requests, so any delta you see on it is by definition significant.",
    "The 1ms gate: I'd say it's fine statistically, because 1ms is below the threshold, which "
    "makes the difference statistically significant by definition, so no extra test is needed.",
])
def test_a_difference_called_significant_by_definition_is_contradicted(answer: str) -> None:
    assert verdict("instacart-canary-playbook", "significance", answer) == "contradicted"


def test_a_difference_tested_on_enough_samples_is_made() -> None:
    answer = ("I'd only call a 1ms delta significant once the canary has enough samples; with 2% "
              "traffic it isn't automatically significant.")
    assert verdict("instacart-canary-playbook", "significance", answer) == "made"


def test_launch_overhead_said_to_grow_with_the_batch_is_contradicted() -> None:
    answer = ("For the GPU, kernel launch overhead becomes bigger when the batch is bigger, "
              "because more kernels need to launch, so I prefer small batch.")
    assert verdict("tiktok-20ms-budget", "launch-overhead", answer) == "contradicted"


def test_batching_said_to_cost_nothing_is_contradicted() -> None:
    answer = ("I'd use a batch size of 8. But batching in general make every request faster "
              "since GPU is more efficient with more data together, there is no real cost to it.")
    assert verdict("tiktok-20ms-budget", "batching-tradeoff", answer) == "contradicted"


def test_a_jit_compile_said_to_stay_off_the_request_path_is_contradicted() -> None:
    answer = ("With cached bytecode the compilation is done ahead of time on the client side, so "
              "cache invalidation can't really hit the request path anymore; the SLI is more of "
              "a sanity check.")
    assert verdict("snowflake-jit-compilation-sli", "why-sli", answer) == "contradicted"


def test_a_jit_compile_on_the_request_path_is_made() -> None:
    answer = ("When the cache is invalidated, the next request pays the JIT compilation inside "
              "the request path, so compile time is a user-facing SLI.")
    assert verdict("snowflake-jit-compilation-sli", "why-sli", answer) != "contradicted"


def test_the_tools_roles_swapped_as_the_part_that_compiles_are_contradicted() -> None:
    answer = ("TorchServe is the part that compiles the model, it fuses the layers and converts "
              "to FP16, and TensorRT is the HTTP server that sits in front and handles requests.")
    assert verdict("stripe-fraud-tensorrt-vs-torchserve", "latency-advantage", answer) \
        == "contradicted"


def test_the_tools_roles_said_rightly_are_not_contradicted() -> None:
    answer = ("TensorRT is the part that compiles the model, fusing layers into FP16 kernels, so "
              "it is faster; TorchServe is the HTTP server that sits in front.")
    assert verdict("stripe-fraud-tensorrt-vs-torchserve", "latency-advantage", answer) \
        != "contradicted"


def test_the_lower_percentile_called_normally_the_higher_of_the_two_is_contradicted() -> None:
    answer = ("The SLA is p95 and the dashboard is p99; p95 is normally the higher of the two "
              "because it's averaged over more of the traffic, so I'd expect p95 around 12ms.")
    assert verdict("snapchat-p95-12ms-bid-requests", "percentile-mismatch", answer) \
        == "contradicted"


def test_the_higher_percentile_called_normally_the_higher_of_the_two_is_made() -> None:
    answer = ("The SLA is p95 and the dashboard is p99; p99 is normally the higher of the two, "
              "so p95 sits at or below the 12ms p99.")
    assert verdict("snapchat-p95-12ms-bid-requests", "percentile-mismatch", answer) != \
        "contradicted"


def test_word_error_rate_said_to_be_set_at_training_is_not_made() -> None:
    # The sentence commits the pitfall too, so the point it names wrongly earns nothing there.
    answer = ("Word error rate is set when the model is trained and evaluated; it can't change "
              "in production unless we ship a new model.")
    assert verdict("twilio-transcription-slis", "quality", answer) in {"contradicted", "missed"}
    assert verdict("twilio-transcription-slis", "wrong-basics", answer) == "made"


def test_word_error_rate_defined_rightly_is_made() -> None:
    answer = ("WER is the share of words transcribed wrong against a labelled sample; it can "
              "drift when audio changes.")
    assert verdict("twilio-transcription-slis", "quality", answer) == "made"


@pytest.mark.parametrize("answer", [
    "So for the platform my recommendation is simple, standardize everything on TensorRT and "
    "retire TorchServe.",
    "So my recommendation for the platform default is TensorRT for everything, there's really "
    "no reason to keep TorchServe in production.",
])
def test_one_tool_for_every_model_contradicts_a_default_per_model_type(answer: str) -> None:
    assert verdict("tensorrt-torchserve-tradeoffs", "recommendation", answer) == "contradicted"


def test_a_default_per_model_type_is_made() -> None:
    answer = ("My recommendation: TorchServe by default, and TensorRT for the stable "
              "latency-critical models; I would not retire TorchServe.")
    assert verdict("tensorrt-torchserve-tradeoffs", "recommendation", answer) == "made"


@pytest.mark.parametrize(("slug", "key", "answer"), [
    ("doordash-eta-canary", "auto-rollback",
     "If something goes bad on-call reverts the VirtualService by hand."),
    ("robinhood-bad-model-blast-radius", "auto-rollback",
     "And rollback I prefer a human decides, in brokerage automation flipping models by itself "
     "is more risky than helpful."),
])
def test_a_rollback_left_to_a_person_contradicts_an_automated_rollback(
        slug: str, key: str, answer: str) -> None:
    assert verdict(slug, key, answer) == "contradicted"


@pytest.mark.parametrize("answer", [
    "If p99 or error rate breaches, the pipeline reverts the VirtualService automatically; "
    "on-call can also revert by hand.",
    "If error rate spikes, we roll back, probably manually at first via a runbook, automating "
    "it later.",
])
def test_an_automated_rollback_with_a_manual_path_too_is_not_contradicted(answer: str) -> None:
    assert verdict("doordash-eta-canary", "auto-rollback", answer) != "contradicted"


def test_a_manual_revert_leaves_the_weighted_canary_in_its_sentence_alone() -> None:
    answer = "If something goes bad on-call reverts the VirtualService by hand."
    assert verdict("doordash-eta-canary", "weighted-canary", answer) != "contradicted"


def test_the_hop_called_effectively_free_is_contradicted() -> None:
    answer = ("The tokenization service would run in the same cluster, so the network call "
              "between them is effectively free and nothing of the 5ms gets lost on the way.")
    assert verdict("netflix-bert-tensorrt-preprocessing", "extra-hop", answer) == "contradicted"


def test_the_hop_with_its_cost_is_made() -> None:
    answer = ("The extra network hop to the tokenization service costs 1-2ms with serialization, "
              "so the net gain is smaller than 5ms.")
    assert verdict("netflix-bert-tensorrt-preprocessing", "extra-hop", answer) == "made"


def _calculations(slug: str, answer: str) -> list[str]:
    result = RubricEngine().score(bank_question(slug), answer)
    return [str(line) for line in result.feedback.get("calculations") or []]


def test_a_share_after_the_difference_of_two_figures_is_checked() -> None:
    answer = "Going from 12ms to 7ms takes 5ms off, about 60% of the latency gone."
    lines = _calculations("netflix-bert-tensorrt-preprocessing", answer)
    assert any("60%" in line and "41.7%" in line for line in lines)


def test_a_right_share_after_the_difference_is_not_flagged() -> None:
    answer = "Going from 12ms to 7ms takes 5ms off, about 40% of the latency gone."
    assert _calculations("netflix-bert-tensorrt-preprocessing", answer) == []


def test_a_right_figure_beside_a_wrong_share_is_not_called_wrong() -> None:
    # The share is off; the 5 ms is right, and no line may say "you wrote 5 ms; the correct
    # result is 5 ms".
    answer = "12 minus 7, so 5ms faster, which is a 60% cut."
    lines = _calculations("netflix-bert-tensorrt-preprocessing", answer)
    assert any("41.7%" in line for line in lines)
    assert not any("correct result is 12 minus 7 = 5" in line for line in lines)


def test_a_share_above_a_figure_named_by_what_it_is_is_checked() -> None:
    answer = ("p95 of 45ms means 95% of compiles are slower than 45ms, so the 80ms threshold "
              "sits 35% above today's p95, which is a sensible buffer.")
    lines = _calculations("snowflake-jit-compilation-sli", answer)
    assert any("35%" in line and "77.8%" in line for line in lines)


def test_a_right_share_above_a_figure_named_by_what_it_is_is_not_flagged() -> None:
    answer = "Today's p95 is 45ms, so the 80ms threshold sits about 78% above today's p95."
    assert _calculations("snowflake-jit-compilation-sli", answer) == []


def test_slices_in_a_bulleted_list_with_the_total_on_the_next_line_are_added_up() -> None:
    answer = ("I'd set ours to 15ms at p99. my split:\n- network in/out 3ms\n- feature store 5ms\n"
              "- preprocessing 2ms\n- batch wait 3ms\n- model 6ms\n- post 1ms\n"
              "that's the 15ms, leaving the 5ms buffer.")
    lines = _calculations("tiktok-20ms-budget", answer)
    assert any("add up to 20" in line for line in lines)


def test_bulleted_slices_that_make_the_total_are_not_flagged() -> None:
    answer = ("my split:\n- network 2ms\n- feature store 4ms\n- model 6ms\n- post 3ms\n"
              "that's the 15ms, leaving the 5ms buffer.")
    assert _calculations("tiktok-20ms-budget", answer) == []


@pytest.mark.parametrize("answer", [
    "I'd keep ETA accuracy out of the gate though.",
    "ETA accuracy I'd keep out of the canary decision.",
])
def test_a_point_kept_out_of_the_decision_is_not_made(answer: str) -> None:
    assert verdict("doordash-eta-canary", "business-metrics", answer) != "made"


def test_keeping_bad_outcomes_out_of_view_by_judging_the_point_is_made() -> None:
    answer = "I'd keep bad ETAs out of the customer's view by judging ETA accuracy in the canary."
    assert verdict("doordash-eta-canary", "business-metrics", answer) == "made"


# Bank phrases too loose to show their point: comparing canary with baseline is not yet asking
# whether a 1ms delta is signal, and naming Triton is not comparing batching and versioning.
def test_comparing_canary_with_baseline_alone_does_not_make_significance() -> None:
    answer = "I'd keep the gate and compare the canary against the baseline on p99."
    assert verdict("instacart-canary-playbook", "significance", answer) == "missed"


def test_the_same_window_with_enough_samples_makes_significance() -> None:
    answer = ("A 1ms delta can be noise, so I'd compare canary and baseline over the same window "
              "with enough samples.")
    assert verdict("instacart-canary-playbook", "significance", answer) == "made"


def test_naming_triton_alone_does_not_compare_batching_and_versioning() -> None:
    assert verdict("tensorrt-torchserve-tradeoffs", "batching-versioning",
                   "I'd put the engines behind Triton.") == "missed"


def test_triton_with_batching_and_versions_compares_them() -> None:
    answer = ("TorchServe has dynamic batching and a management API to register new versions; "
              "for TensorRT, Triton gives the same dynamic batching and version management.")
    assert verdict("tensorrt-torchserve-tradeoffs", "batching-versioning", answer) == "made"


@pytest.mark.parametrize("answer", [
    "Bigger batches spread the fixed launch cost over more requests, so throughput per GPU goes "
    "up pretty much for free.",
    "Batching: I'd use a small batch, because a bigger batch makes every request's kernel launch "
    "more expensive.",
])
def test_a_bigger_batch_said_to_be_free_or_to_cost_more_launches_is_contradicted(
        answer: str) -> None:
    assert verdict("pinterest-batch-size-tradeoff", "batching-tradeoff", answer) == "contradicted"


def test_a_batch_said_free_leaves_the_launch_cost_in_its_sentence_alone() -> None:
    answer = ("Bigger batches spread the fixed launch cost over more requests, so throughput per "
              "GPU goes up pretty much for free.")
    assert verdict("pinterest-batch-size-tradeoff", "launch-overhead", answer) != "contradicted"


def test_a_rising_hit_rate_called_the_warning_sign_is_contradicted() -> None:
    answer = ("I'd also watch the bytecode cache hit rate: if the hit rate starts climbing, that's "
              "the warning sign that compile times are about to go up.")
    assert verdict("snowflake-jit-compilation-sli", "cache-hit-rate", answer) == "contradicted"


def test_a_falling_hit_rate_called_the_warning_sign_is_made() -> None:
    answer = ("I'd watch the bytecode cache hit rate: if the hit rate starts falling, that's the "
              "warning sign that compile times are about to go up.")
    assert verdict("snowflake-jit-compilation-sli", "cache-hit-rate", answer) == "made"


# A point refused in full words is not made by one partial phrase said elsewhere.
def test_a_refused_point_is_not_made_by_one_partial_phrase_elsewhere() -> None:
    answer = ("Each cold start gets timed per phase: image pull, weight download, copying weights "
              "onto the GPU. I'd skip warm pools and pre-warming though; scale to zero is the "
              "whole product.")
    assert verdict("oracle-serverless-cold-starts", "mitigations", answer) == "contradicted"


def test_a_point_kept_beside_the_same_partial_phrase_is_made() -> None:
    answer = ("Each cold start gets timed per phase: image pull, weight download, copying weights "
              "onto the GPU. I'd keep a small warm pool for the latency-sensitive models.")
    assert verdict("oracle-serverless-cold-starts", "mitigations", answer) == "made"


def test_a_worry_waved_away_before_the_point_as_its_reason_keeps_the_point() -> None:
    answer = ("Also, I wouldn't read 65% as a problem by itself, a latency-sensitive service needs "
              "some slack for bursts.")
    assert verdict("pinterest-batch-size-tradeoff", "utilization-not-waste", answer) == "made"


def test_the_point_itself_treated_as_no_problem_is_still_waved_away() -> None:
    answer = "I wouldn't treat the kernel launch overhead as a problem, it's only 2ms."
    assert verdict("tiktok-20ms-budget", "launch-overhead", answer) != "made"


def test_a_negation_inside_a_condition_ends_at_the_main_clause() -> None:
    answer = "If the model doesn't answer in time we cut it off and return a default score."
    assert verdict("ad-ranking-latency-target", "breach-fallback", answer) == "made"


def test_a_negation_in_the_main_clause_still_refuses_the_fallback() -> None:
    answer = "We don't return a default score, we just wait."
    assert verdict("ad-ranking-latency-target", "breach-fallback", answer) != "made"


def test_a_figure_in_the_reason_for_a_fronted_refusal_makes_no_point() -> None:
    answer = "Memory I'd skip, an 80 GB card holds a 7B model many times over."
    assert verdict("gpu-cluster-sizing-method", "memory-fit", answer) != "made"


def test_a_fronted_topic_that_is_checked_keeps_its_figures() -> None:
    answer = ("Memory I'd check first: a 7B model in fp16 is 14 GB, and an 80 GB card holds it "
              "with room for the KV cache.")
    assert verdict("gpu-cluster-sizing-method", "memory-fit", answer) == "made"


def test_every_worker_given_the_full_core_count_is_contradicted() -> None:
    answer = ("Intra-op is on, so I'd just set every worker's thread count to the full core count "
              "and use the spare 60%.")
    assert verdict("shopify-torchserve-200k-rpm", "intra-op-threads", answer) == "contradicted"


def test_checking_that_no_worker_got_every_core_is_made() -> None:
    answer = ("With intra-op parallelism I'd also check they didnt give every worker all the "
              "cores, threads per worker times workers should be about the physical core count.")
    assert verdict("shopify-torchserve-200k-rpm", "intra-op-threads", answer) == "made"


def test_a_rate_carried_over_a_window_named_before_the_result_is_checked() -> None:
    answer = ("2% in 5 minutes is 0.4% a minute, so over an hour that's about 4%, which is still "
              "way above the 0.5% per hour in the SLI.")
    lines = _calculations("zoom-gpu-memory-leak-alert", answer)
    assert any("4%" in line and "24%" in line for line in lines)
    assert verdict("zoom-gpu-memory-leak-alert", "hourly-rate", answer) != "made"


def test_a_rate_carried_rightly_over_the_window_is_made() -> None:
    answer = "2% in 5 minutes is 0.4% a minute, so over an hour that's about 24%."
    assert _calculations("zoom-gpu-memory-leak-alert", answer) == []
    assert verdict("zoom-gpu-memory-leak-alert", "hourly-rate", answer) == "made"


def test_word_error_rate_fixed_at_training_commits_the_wrong_basics_pitfall() -> None:
    answer = ("Word error rate I wouldn't track in production, it's fixed when the model is "
              "trained and evaluated, it won't change once deployed.")
    assert verdict("twilio-transcription-slis", "wrong-basics", answer) == "made"


def test_jitter_said_to_add_nothing_over_constant_chunks_is_not_made() -> None:
    answer = ("Since the audio chunks are all the same length, processing time per chunk is "
              "basically constant, so percentiles and jitter don't add much on top of the average.")
    assert verdict("twilio-transcription-slis", "jitter", answer) == "contradicted"
    assert verdict("twilio-transcription-slis", "wrong-basics", answer) == "made"


def test_jitter_tracked_because_chunk_times_vary_is_made_and_commits_nothing() -> None:
    answer = ("Chunk processing time varies with GPU load, so I'd track jitter as p99 minus p50 "
              "of per-chunk latency, not just the average.")
    assert verdict("twilio-transcription-slis", "jitter", answer) == "made"
    assert verdict("twilio-transcription-slis", "wrong-basics", answer) == "missed"


def test_a_benchmark_taken_as_settled_commits_the_guarantee_pitfall() -> None:
    answer = ("A compiled FP16 engine has very stable latency, so once it benchmarked well I "
              "wouldn't keep re-running load tests on it.")
    assert verdict("snapchat-p95-12ms-bid-requests", "benchmark-as-guarantee", answer) == "made"


# Right answers that the calculation lines called wrong.
@pytest.mark.parametrize("answer", [
    "2% per 5 min × 12 windows = 24%/hour.",
    "2%/5min sustained = 24%/h.",
    "5 minutes is 0.4% per minute, and 60 minutes of that is 24% per hour.",
    "2% in five minutes, so a leak has to be fast to trigger it: sustained, that's 24% an hour.",
])
def test_a_right_hourly_rate_from_the_five_minute_rule_is_not_flagged(answer: str) -> None:
    assert _calculations("zoom-gpu-memory-leak-alert", answer) == []
    assert verdict("zoom-gpu-memory-leak-alert", "hourly-rate", answer) == "made"


def test_a_wrong_hourly_rate_from_the_five_minute_rule_is_still_flagged() -> None:
    answer = "2% per 5 min × 12 windows = 12%/hour."
    assert _calculations("zoom-gpu-memory-leak-alert", answer)
    assert verdict("zoom-gpu-memory-leak-alert", "hourly-rate", answer) != "made"


@pytest.mark.parametrize("answer", [
    "- ×1.2 → 1,500 A100s; if we go with the 10% margin some folks prefer, ×1.1 → 1,375.",
    "50,000 / 40 = 1,250, so 1,500 A100s with 20%; if the team is comfortable with a 10% margin "
    "it's 1,375.",
])
def test_a_second_margin_on_the_same_base_is_not_read_as_headroom_on_the_first_total(
        answer: str) -> None:
    assert not any("1,650" in line for line in _calculations(
        "azure-capacity-spreadsheet-review", answer))


def test_headroom_on_a_base_that_gives_the_wrong_total_is_still_flagged() -> None:
    answer = "50,000 / 40 = 1,250 A100s, and with 20% headroom that's 1,750."
    assert any("1,750" in line for line in _calculations(
        "azure-capacity-spreadsheet-review", answer))


def test_the_questions_figure_named_with_the_is_not_judged_as_the_candidates_result() -> None:
    answer = ("Before picking fixes I'd take the 25ms apart stage by stage in the infra team's "
              "budget sheet.")
    assert not any("25ms" in line for line in _calculations("lyft-18ms-cpu-stack", answer))


def test_a_wrong_gap_stated_as_the_result_is_still_flagged() -> None:
    answer = "The gap is 5ms."
    assert any("5ms" in line for line in _calculations("lyft-18ms-cpu-stack", answer))


def test_a_latency_range_about_something_else_is_not_judged_as_the_margin() -> None:
    answer = ("On the threshold, I'd go the other way round from 'what's p95 today': measure "
              "uncached compiles, say they're in the 200-300ms range at p95, and the cached p95 "
              "is 45.")
    assert not any("200-300" in line for line in _calculations(
        "snowflake-jit-compilation-sli", answer))


def test_a_wrong_margin_range_said_as_the_margin_is_still_flagged() -> None:
    answer = "The margin is 20-25ms above today's p95."
    assert any("20-25" in line for line in _calculations("snowflake-jit-compilation-sli", answer))


@pytest.mark.parametrize("answer", [
    "The 45-minute rebuild is a CI pipeline concern, not a serving concern, so I'd leave it out "
    "of the decision; the build team can parallelize it.",
    "The 45-minute engine rebuild I'd treat as a non-issue; it's CI time, nobody is waiting on it.",
])
def test_the_rebuild_waved_away_commits_the_dismissed_facts_pitfall(answer: str) -> None:
    assert verdict("stripe-fraud-tensorrt-vs-torchserve", "reversed-facts", answer) == "made"


def test_the_rebuild_weighed_commits_nothing() -> None:
    answer = "The 45-minute rebuild matters: with weekly retrains it delays every release."
    assert verdict("stripe-fraud-tensorrt-vs-torchserve", "reversed-facts", answer) == "missed"


def test_a_cost_paid_every_time_the_model_changes_is_no_universal_claim() -> None:
    answer = ("tensorRT will be faster bc it compiles the model (fuses layers, fp16/int8) but you "
              "pay for it every time the model changes: the engine has to be rebuilt per "
              "version, 45 min in their CI.")
    assert verdict("stripe-fraud-tensorrt-vs-torchserve", "reversed-facts", answer) == "missed"
    assert verdict("stripe-fraud-tensorrt-vs-torchserve", "rebuild-cost", answer) == "made"


@pytest.mark.parametrize("answer", [
    "TensorRT beats TorchServe on latency every single time.",
    "It'll beat TorchServe on latency every time, which is the only thing that matters.",
])
def test_faster_every_time_is_still_a_universal_claim(answer: str) -> None:
    assert verdict("stripe-fraud-tensorrt-vs-torchserve", "reversed-facts", answer) == "made"


@pytest.mark.parametrize("answer", [
    "During the 30 minute canary we watch the Grafana panel for QPS and errors by version.",
    "During the 30 minutes I'd watch the Grafana panel with QPS per version, plus latency and "
    "errors for the new tag versus the old one.",
])
def test_metrics_compared_by_version_during_the_canary_make_the_comparison(answer: str) -> None:
    assert verdict("airbnb-argo-cd-versioning", "canary-comparison", answer) in {"made", "partly"}


def test_watching_one_dashboard_without_versions_makes_no_comparison() -> None:
    answer = "During the 30 minute canary we watch the Grafana panel for QPS."
    assert verdict("airbnb-argo-cd-versioning", "canary-comparison", answer) == "missed"


# A bank phrase marked "partly:" shows only part of the point.
def test_a_canary_judged_on_latency_alone_makes_the_business_metrics_point_partly() -> None:
    answer = "I'd compare the canary's p99 latency and 5xx against the baseline."
    assert verdict("doordash-eta-canary", "business-metrics", answer) == "partly"


def test_a_canary_judged_on_eta_accuracy_too_makes_it_fully() -> None:
    answer = ("I'd compare the canary's p99 latency and 5xx against the baseline, and ETA "
              "accuracy against actual delivery times.")
    assert verdict("doordash-eta-canary", "business-metrics", answer) == "made"


def test_a_phrase_marked_partly_makes_a_point_partly_at_most() -> None:
    from dataclasses import replace

    from scoring.engines.base import CriterionSpec
    question = bank_question("doordash-eta-canary")
    spec = CriterionSpec(key="probe", label="Probe point", kind="concept", weight=1.0,
                         phrases=("partly: rollout dashboard",))
    probe = replace(question, criteria=(*question.criteria, spec))
    result = RubricEngine().score(probe, "Partly, I'd build a rollout dashboard for it, because "
                                         "people look at it.")
    assert next(v.verdict for v in result.criteria if v.key == "probe") == "partly"


def test_a_compile_said_off_the_request_path_outweighs_the_cause_named_elsewhere() -> None:
    answer = ("Also worth watching cache invalidations. Compilation in a JIT stack happens once "
              "when the process starts, it's not in the per-request path, so I see it more as a "
              "capacity metric.")
    assert verdict("snowflake-jit-compilation-sli", "why-sli", answer) == "contradicted"


def test_a_sync_window_said_not_to_affect_rollback_is_contradicted() -> None:
    answer = ("The 5-minute sync window matters for promotion, since the next stage starts a few "
              "minutes after merge, but it doesn't really affect rollback.")
    assert verdict("airbnb-argo-cd-versioning", "sync-window", answer) == "contradicted"


def test_a_sync_window_that_slows_rollback_too_is_made() -> None:
    answer = ("The 5-minute sync window slows promotion and rollback alike, so I'd roll back on "
              "the data plane.")
    assert verdict("airbnb-argo-cd-versioning", "sync-window", answer) == "made"


def test_an_engine_served_through_a_server_is_no_role_swap() -> None:
    answer = ("Recommendation: tight budget and weekly retrains, TensorRT served through Triton; "
              "daily retrains, TorchServe.")
    assert verdict("stripe-fraud-tensorrt-vs-torchserve", "reversed-facts", answer) == "missed"


def test_an_engine_said_to_serve_while_the_server_compiles_is_a_role_swap() -> None:
    answer = "TensorRT serves the requests and TorchServe compiles the model."
    assert verdict("stripe-fraud-tensorrt-vs-torchserve", "reversed-facts", answer) == "made"


# Strong answers charged a pitfall they argue against.
def test_the_remote_flag_call_given_as_the_reason_with_its_cost_is_not_committed() -> None:
    answer = ("Kill switch: a per-segment flag that sends a segment straight back to the old "
              "model; I'd keep flag state in-process and stream updates, since calling a flag "
              "service per request is ~200µs and at high QPS that's real latency and CPU.")
    assert verdict("robinhood-bad-model-blast-radius", "remote-flag-every-request", answer) \
        == "missed"


def test_the_remote_flag_call_accepted_as_fine_is_committed() -> None:
    answer = "I'd just call the flag service per request, it's ~200µs which is fine."
    assert verdict("robinhood-bad-model-blast-radius", "remote-flag-every-request", answer) \
        == "made"


def test_a_feature_denied_without_the_apostrophe_is_no_swap() -> None:
    answer = ("TensorRT is faster, but TRT doesnt run python preprocessing, so tokenization moves "
              "to a separate service.")
    assert verdict("stripe-fraud-tensorrt-vs-torchserve", "reversed-facts", answer) == "missed"


def test_a_feature_given_to_the_wrong_tool_is_still_a_swap() -> None:
    answer = "TRT runs the python preprocessing in its handlers."
    assert verdict("stripe-fraud-tensorrt-vs-torchserve", "reversed-facts", answer) == "made"


def test_the_spec_sheet_route_refused_is_not_committed() -> None:
    answer = ("I'd refuse to do this from peak TFLOPS, that path gives you ~20 GPUs and it's "
              "wrong by something like 60x.")
    assert verdict("google-a100-7b-50k-qps", "spec-sheet-estimate", answer) == "missed"


def test_the_spec_sheet_route_taken_is_committed() -> None:
    answer = "From peak TFLOPS the A100 does about 2,500 tokens a second, so about 20 GPUs."
    assert verdict("google-a100-7b-50k-qps", "spec-sheet-estimate", answer) == "made"


def test_the_spec_sheet_route_named_as_what_not_to_trust_is_not_committed() -> None:
    answer = ("The Azure team measured ~40 QPS per A100 for a 7B model under vLLM at 20ms p99, "
              "and I trust that more than TFLOPS math, which would tell you a couple dozen cards "
              "and be wildly off.")
    assert verdict("google-a100-7b-50k-qps", "spec-sheet-estimate", answer) == "missed"


def test_a_measured_rate_stated_after_its_conditions_is_no_wrong_arithmetic() -> None:
    answer = ("Assume ~10 tokens: T4 fp16 on 3B ≈ 120 tok/s measured → 12 QPS/GPU. "
              "30k/12 = 2,500, +20% ≈ 3,000 T4s.")
    assert _calculations("amazon-t4-3b-30k-qps", answer) == []


@pytest.mark.parametrize(("slug", "answer"), [
    ("zoom-gpu-memory-leak-alert", "0.5% per hour is about 0.04% per five minutes. The rule "
     "wants 2% in five minutes, which is roughly 48 times that."),
    ("zoom-gpu-memory-leak-alert", "The rule only fires at 2% per five minutes, which is 48 "
     "times the SLI limit - or, scaled the other way, 12 windows x 2% = 24% per hour."),
    ("amazon-t4-3b-30k-qps", "30,000 requests a second times 10 tokens is 300,000 tokens a "
     "second total. A T4 does about 120 tokens/s on this model in FP16, so 300,000 / 120 = 2,500 "
     "T4s just to keep up. I don't want any card above ~80% at peak, so 2,500 / 0.8 is about "
     "3,125."),
])
def test_right_figures_in_other_forms_are_not_called_wrong(slug: str, answer: str) -> None:
    assert _calculations(slug, answer) == []


# Found once held-out-21 had been measured and then read: pitfalls charged to answers that
# argue against them.
@pytest.mark.parametrize("answer", [
    "If nobody can tell me, maybe I'd assume the ranker gives us around 20ms, which seems typical "
    "for ad ranking, and aim for roughly 15ms at p99 internally so there's some slack.",
    "The auction, creative selection and logging take most of it, and ranking typically receives "
    "15 to 20ms.",
])
def test_what_callers_typically_allow_is_no_average_target(answer: str) -> None:
    assert verdict("ad-ranking-latency-target", "average-target", answer) == "missed"


def test_a_typical_request_as_the_target_is_an_average_target() -> None:
    answer = "A typical request should come back in 15ms."
    assert verdict("ad-ranking-latency-target", "average-target", answer) == "made"


def test_the_spec_sheet_figure_said_to_mislead_is_not_committed() -> None:
    answer = ("Starting point is the measured figure: ~40 QPS per A100 for a 7B model under vLLM "
              "while p99 stays at 20ms. Peak TFLOPS would suggest far more, but at this latency "
              "we're bound by memory bandwidth and the deadline.")
    assert verdict("google-a100-7b-50k-qps", "spec-sheet-estimate", answer) == "missed"


def test_a_flag_cost_kept_out_of_the_picture_is_not_waved_away() -> None:
    # 2.10 did not charge this; reading waved-away figures with the dismissal model (2.11) did
    # until a cost kept out of the picture was told apart.
    answer = ("Every model gets its own version number and we keep the previous one warm so we "
              "can swap back in seconds. People always bring up feature flags / kill switches "
              "here but for a ranking model that's overkill, the canary already limits who sees "
              "it, and it keeps the flag system's 200us out of the picture entirely.")
    assert verdict("robinhood-bad-model-blast-radius", "remote-flag-every-request", answer) \
        == "missed"


def test_a_controller_moving_the_weight_back_is_no_instant_git_revert() -> None:
    answer = ("When the canary analysis fails, Flagger returns the weight to the stable version "
              "within seconds, and the Git revert follows as housekeeping.")
    assert verdict("airbnb-argo-cd-versioning", "revert-is-instant", answer) == "missed"


def test_a_git_revert_taken_as_instant_is_committed() -> None:
    answer = "If the canary looks bad we git revert and the rollback happens within seconds."
    assert verdict("airbnb-argo-cd-versioning", "revert-is-instant", answer) == "made"
