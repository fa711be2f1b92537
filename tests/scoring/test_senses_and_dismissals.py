"""Issue 9, third round: a term defined wrongly, a point waved off in more of the ways people
wave points off, a rejection whose subject comes before its negator, and pitfalls committed in
plain words. Every sentence below is written for this file (none is copied from a data set);
each wrong form has a right twin that must keep its credit."""

from __future__ import annotations

import pytest

from scoring.engines.numbers import find_quantities
from scoring.engines.relations import wrong_claims
from scoring.engines.rubric import RubricEngine
from scoring.engines.senses import wrong_definitions
from scoring.engines.text import tokenize
from tests.scoring.test_engines import bank_question

CREDITED = {"made", "partly"}


def verdicts(slug: str, answer: str) -> dict[str, str]:
    return {v.key: v.verdict for v in RubricEngine().score(bank_question(slug), answer).criteria}


WRONG_SENSES = [
    ("inference-slis-and-alerts", "burn-rate",
     "I'd page on burn rate, meaning how quickly the cluster eats through its electricity "
     "budget, with a fast and a slow window."),
    ("shopify-torchserve-200k-rpm", "intra-op-threads",
     "Intra-op parallelism just means more worker processes taking different requests at once, "
     "so I'd raise it with the worker count."),
    ("shopify-torchserve-200k-rpm", "gpu-fragmentation",
     "GPU memory fragmentation is basically a fancy name for a leak in the model code, so I'd "
     "restart pods nightly."),
    ("tiktok-20ms-budget", "launch-overhead",
     "Kernel launch overhead is the one-off cost of loading the weights at startup, so the 2ms "
     "is paid once and then it's gone."),
    ("robinhood-bad-model-blast-radius", "validate-shadow",
     "First shadow mode, where the new model serves all the live traffic while the old one "
     "waits in reserve."),
    ("doordash-eta-canary", "bake-window",
     "The 15-minute stabilization window, as far as I know, is how long Istio takes to push the "
     "new weights to the sidecars."),
    ("twilio-transcription-slis", "throughput-saturation",
     "For capacity, the real-time factor is compute time over audio length, and we want it well "
     "above 1 so we keep up."),
]

RIGHT_SENSES = [
    ("inference-slis-and-alerts", "burn-rate",
     "I'd page on burn rate, meaning how fast we spend the error budget against the SLO: a fast "
     "burn over an hour pages, a slow burn over six hours opens a ticket."),
    ("doordash-eta-canary", "bake-window",
     "The 15-minute stabilization window is the time we hold after each traffic shift and watch "
     "the canary's metrics settle before deciding anything."),
]


@pytest.mark.parametrize(("slug", "key", "answer"), WRONG_SENSES)
def test_a_term_defined_wrongly_contradicts_its_point(slug: str, key: str, answer: str) -> None:
    assert verdicts(slug, answer)[key] == "contradicted"


@pytest.mark.parametrize(("slug", "key", "answer"), RIGHT_SENSES)
def test_the_same_term_defined_rightly_is_credited(slug: str, key: str, answer: str) -> None:
    assert verdicts(slug, answer)[key] in CREDITED


@pytest.mark.parametrize("text", [
    "Fragmentation is not a leak: free memory is split into pieces too small to allocate.",
    "Jitter is the variation in per-chunk latency, not the average.",
    "Intra-op threads split a single operator's matrix work across cores.",
])
def test_right_or_denied_definitions_are_not_wrong_claims(text: str) -> None:
    assert wrong_definitions(text, lambda offset: 0) == []


DISMISSED = [
    ("lyft-18ms-cpu-stack", "budget-spreadsheet",
     "The stage-by-stage sheet the infra team keeps, I'd skip that honestly, it's bookkeeping; "
     "the model is obviously the slow part."),
    ("inference-slis-and-alerts", "burn-rate",
     "I'd watch p99, errors, saturation and cold starts. Error budgets and burn rates, overkill "
     "for a team our size."),
    ("tiktok-20ms-budget", "measurement-plan",
     "As for load tests at twice peak with tracing per stage, I think that's a luxury for a "
     "model this small."),
    ("robinhood-bad-model-blast-radius", "per-version-monitoring",
     "Canary to 1% with a flag. Dashboards split per model version; we can live without that, "
     "the global error graph will do."),
    ("twilio-transcription-slis", "quality",
     "Chunk latency at p99 and stream errors. I'd leave word error rate out of production "
     "monitoring."),
    ("robinhood-bad-model-blast-radius", "validate-shadow",
     "Canary to 1% with a flag. Shadowing the new model on real traffic beforehand I wouldn't "
     "do, it doubles the compute."),
]


@pytest.mark.parametrize(("slug", "key", "answer"), DISMISSED)
def test_a_point_waved_off_is_not_credited(slug: str, key: str, answer: str) -> None:
    assert verdicts(slug, answer)[key] not in CREDITED


def test_a_point_kept_in_the_same_words_is_still_credited() -> None:
    answer = ("Canary to 1% with a flag. I'd split dashboards per model version and compare "
              "latency, errors and score distribution against the old version.")
    assert verdicts("robinhood-bad-model-blast-radius", answer)["per-version-monitoring"] \
        in CREDITED


COMMITTED = [
    # A rejection whose subject comes before its negator ("GPU is never the bottleneck").
    ("twilio-transcription-slis", "wrong-basics",
     "I'd track chunk latency. The GPU is pretty much never the bottleneck in transcription."),
    ("lyft-18ms-cpu-stack", "cpu-only-at-25ms",
     "I'd get it out the door on CPU as it is and chip away at the latency over the next "
     "sprints."),
    ("airbnb-argo-cd-versioning", "revert-is-instant",
     "If something's wrong we git revert the commit and we're immediately back on the old "
     "version."),
    ("doordash-eta-canary", "no-bake",
     "5% through Istio; if p99 and errors look flat after a couple of minutes we go to 25%, "
     "then 100."),
    ("instacart-canary-playbook", "errors-only",
     "Keep the Spinnaker rollback: if the new model isn't throwing errors, it's doing its job."),
    ("ad-ranking-latency-target", "average-target",
     "I'd commit to this: add up the latencies of every request and divide by the count, and "
     "that has to come out at 12 or below."),
    ("amazon-t4-3b-30k-qps", "unsupported-guess",
     "I'd ballpark it at 55 T4s for the 30k QPS, maybe 65 to be safe."),
    ("azure-capacity-spreadsheet-review", "accepts-1250",
     "50k QPS over 40 a card gives 1,250 cards, and the headroom is built into that, so we're "
     "covered."),
    ("tensorrt-torchserve-tradeoffs", "always-faster",
     "TensorRT is the better engine, so I'd make it the default for every team."),
]

AVOIDED = [
    ("twilio-transcription-slis", "wrong-basics",
     "I'd track chunk latency at p99; the GPU is often the bottleneck, so chart its queue."),
    ("lyft-18ms-cpu-stack", "cpu-only-at-25ms",
     "I wouldn't ship the CPU design as it is: 25ms misses the 18ms line by 7ms."),
    ("airbnb-argo-cd-versioning", "revert-is-instant",
     "Aborting the Rollout drops the canary weight to zero within seconds, and the git revert "
     "follows to keep Git honest."),
    ("amazon-t4-3b-30k-qps", "unsupported-guess",
     "Each T4 handles about 12 QPS for this model, so 30k QPS needs 30,000 / 12 = 2,500 T4s."),
]


@pytest.mark.parametrize(("slug", "key", "answer"), COMMITTED)
def test_a_pitfall_in_plain_words_is_charged(slug: str, key: str, answer: str) -> None:
    assert verdicts(slug, answer)[key] == "made"


@pytest.mark.parametrize(("slug", "key", "answer"), AVOIDED)
def test_its_right_twin_is_not_charged(slug: str, key: str, answer: str) -> None:
    assert verdicts(slug, answer)[key] == "missed"


@pytest.mark.parametrize(("text", "wrong"), [
    ("Queueing delay goes down as the batch size goes up.", True),
    ("Latency goes up as batch size grows, so I cap the wait.", False),
    ("A larger batch actually helps latency too.", True),
    ("The p50 sits above p99 for most services.", True),
    ("Alert if p99 goes above 15ms for five minutes.", False),
    ("p99 at 11.3ms is under the p95 target of 12ms.", False),
])
def test_relations_said_the_wrong_way_round(text: str, wrong: bool) -> None:
    claims = wrong_claims(tokenize(text), text, lambda offset: 0)
    assert bool(claims) is wrong, claims


def test_a_tools_point_said_of_the_other_tool_in_its_own_sentence_is_contradicted() -> None:
    # The criterion's label names TorchServe; its checks name TensorRT in passing.
    answer = ("TensorRT, on the other hand, is the serving side: it gives you Python handlers "
              "for preprocessing and a management API for versions.")
    engine = RubricEngine()
    question = bank_question("stripe-fraud-tensorrt-vs-torchserve")
    wrong = next(v for v in engine.score(question, answer).criteria if v.key == "torchserve-ops")
    right = ("TorchServe is the serving side: it gives you Python handlers for preprocessing "
             "and a management API for versions.")
    kept = next(v for v in engine.score(question, right).criteria if v.key == "torchserve-ops")
    # Only the words said of the right tool count ("TensorRT ... preprocessing" is its part).
    assert wrong.verdict != "made" and kept.verdict == "made"
    assert not any("handlers" in answer[s.start:s.end] for s in wrong.evidence)


def test_a_word_the_question_already_says_earns_nothing_on_its_own() -> None:
    # "timeout" is in the TikTok scene (the caller times out at 20ms): echoing it is not a
    # plan for a breach. Saying what happens on a breach is.
    echo = "I'd keep our p99 well inside the caller's timeout."
    plan = "On a breach I'd cut the call at 18ms and serve a cached fallback score instead."
    assert verdicts("tiktok-20ms-budget", echo)["breach-handling"] == "missed"
    assert verdicts("tiktok-20ms-budget", plan)["breach-handling"] in CREDITED


def test_a_given_rate_restated_beside_a_wrong_conversion_is_not_the_answer() -> None:
    # The question gives 2% per five minutes; the candidate's claim is the 12% per hour.
    outcome = RubricEngine().score(bank_question("zoom-gpu-memory-leak-alert"),
                                   "2% per five minutes is 12% per hour if it keeps going.")
    check = next(c for c in outcome.numbers if c.criterion_key == "hourly-rate")
    assert not check.within_tolerance and check.found_text == "12% per hour"
    right = RubricEngine().score(bank_question("zoom-gpu-memory-leak-alert"),
                                 "2% per five minutes is 24% per hour if it keeps going.")
    assert next(c for c in right.numbers if c.criterion_key == "hourly-rate").within_tolerance


def test_a_rate_said_each_is_per_the_machines_just_counted() -> None:
    outcome = RubricEngine().score(bank_question("meta-80-a100-sanity-check"),
                                   "45,000 QPS over 80 GPUs is about 56 QPS each.")
    check = next(c for c in outcome.numbers if c.criterion_key == "per-gpu-qps")
    assert check.found_text == "56 QPS each" and not check.within_tolerance
    right = RubricEngine().score(bank_question("meta-80-a100-sanity-check"),
                                 "45,000 QPS over 80 GPUs is about 562 QPS each.")
    assert next(c for c in right.numbers if c.criterion_key == "per-gpu-qps").within_tolerance


def test_a_budget_split_into_stage_figures_is_the_breakdown_and_its_evidence() -> None:
    answer = ("I'd target 15ms at p99. Rough split of the 15: about 2 for the RPC hop, 4 for "
              "pulling features, 1 preprocessing, 5 on the GPU and 1 post. Dashboards per stage "
              "would show where time goes.")
    outcome = RubricEngine().score(bank_question("tiktok-20ms-budget"), answer)
    verdict = next(v for v in outcome.criteria if v.key == "stage-budget")
    split = answer.index("Rough split")
    assert verdict.verdict == "made"
    assert verdict.evidence and all(split <= s.start < answer.index("Dashboards")
                                    for s in verdict.evidence)
    # Two figures are not a breakdown.
    short = "I'd target 15ms at p99, with 2 for the network and 5 on the GPU."
    assert verdicts("tiktok-20ms-budget", short)["stage-budget"] != "made"


def test_or_faster_about_a_cadence_is_not_a_claim_that_a_tool_is_faster() -> None:
    cadence = ("TensorRT wins on speed, about 7ms against 12ms. My pick: if retrains come weekly "
               "or faster, TorchServe; otherwise TensorRT with builds off the release path.")
    assert verdicts("stripe-fraud-tensorrt-vs-torchserve", cadence)["reversed-facts"] == "missed"
    claim = "Honestly TorchServe is faster here, so I'd pick it."
    assert verdicts("stripe-fraud-tensorrt-vs-torchserve", claim)["reversed-facts"] == "made"


def test_a_negation_stops_at_a_spaced_dash() -> None:
    # "not the default - 200us per check ..." rejects the default, not the figure after the dash,
    # so the cost stated and then designed around is no dismissed figure.
    answer = ("I'd use a per-segment flag, but not the way their flag system works by default "
              "- 200us per evaluation at 50k QPS is 10 CPU-seconds every second, so I'd cache "
              "flag state in-process and stream updates.")
    assert verdicts("robinhood-bad-model-blast-radius", answer)["remote-flag-every-request"] \
        == "missed"


@pytest.mark.parametrize(("slug", "key", "answer", "committed"), [
    ("meta-80-a100-sanity-check", "reuse-as-is",
     "Their setup is close to ours, so it broadly holds and I'd be comfortable building our plan "
     "on it.", True),
    ("meta-80-a100-sanity-check", "reuse-as-is",
     "It looks too good: 562 QPS a card is 14x our 40, so I'd question the workload before "
     "building our plan on it.", False),
    ("zoom-gpu-memory-leak-alert", "rule-catches-leaks",
     "Yes, it'll catch it: any leak grows past 2% in some five-minute window eventually.", True),
    ("zoom-gpu-memory-leak-alert", "rule-catches-leaks",
     "No. 2% per five minutes is 24% per hour, so a 1% per hour leak breaks the SLI and never "
     "fires it.", False),
    ("google-a100-7b-50k-qps", "spec-sheet-estimate",
     "Working from compute: an A100 does about 300 teraflops, a token costs 14 GFLOPs, so in "
     "principle a card pushes 20,000 tokens a second and 30 cards will do.", True),
    ("google-a100-7b-50k-qps", "spec-sheet-estimate",
     "I wouldnt start from the datasheet FLOPs; one card sustains about 40 QPS in our tests at "
     "20ms p99, so 50,000 / 40 = 1,250 cards.", False),
    ("twilio-transcription-slis", "wrong-basics",
     "Latency per chunk at p99. WER I'd skip in prod, the model's accuracy is locked in once "
     "it's trained.", True),
])
def test_pitfalls_said_as_endorsements_yes_answers_and_peak_compute(
        slug: str, key: str, answer: str, committed: bool) -> None:
    assert (verdicts(slug, answer)[key] == "made") is committed


@pytest.mark.parametrize(("slug", "key", "answer"), [
    ("snapchat-p95-12ms-bid-requests", "benchmark-as-guarantee",
     "FP16 got us there, and once the engine is built the latency is locked in, so I don't see "
     "the point of re-running load tests."),
    ("pinterest-batch-size-tradeoff", "chase-utilization",
     "I'd go from 8 straight to 32; small batches are just inefficient on a GPU."),
    ("google-a100-7b-50k-qps", "spec-sheet-estimate",
     "An A100 does roughly three hundred teraflops. A token costs 14 GFLOPs, so a card can in "
     "theory push 20,000 tokens a second. We would not need many; I'd benchmark one later."),
    ("stripe-fraud-tensorrt-vs-torchserve", "reversed-facts",
     "The serialized engine is just a file: build it on whatever box CI has and copy it to every "
     "inference node."),
    ("instacart-canary-playbook", "errors-only",
     "The 5xx rollback is the real protection: if search is returning 200s, the model is doing "
     "its job."),
    ("zoom-gpu-memory-leak-alert", "rule-catches-leaks",
     "Any leak that matters shows up as growth inside five minutes, and Alertmanager will catch "
     "it."),
    ("oracle-serverless-cold-starts", "only-5xx",
     "I'd page on the rate of 500s. If requests are succeeding, that's what matters."),
])
def test_more_pitfalls_in_plain_words(slug: str, key: str, answer: str) -> None:
    assert verdicts(slug, answer)[key] == "made"


# More terms of the bank with the senses people confuse them with. Each wrong definition has a
# right one beside it that must not be taken for a wrong claim.
MORE_WRONG_DEFINITIONS = [
    "Dynamic batching, which, if I remember right, means TorchServe recompiles the graph for "
    "each request's shape.",
    "Memory fragmentation problems, which is when one big engine is sharded across several GPUs "
    "over NVLink.",
    "By immutable tags I mean a hotfix can be re-pushed over the same tag.",
    "A data-plane rollback means restoring the feature database from last night's backup.",
    "Optimization profiles are basically TensorRT's config.properties, where workers and ports "
    "are set.",
    "Quantization is just pruning away some layers so the model is smaller.",
    "Sticky bucketing means the gateway caches the predictions per request.",
    "The SLI is the target we promise customers, say 99.9%.",
    "The SLO is the contract with refunds to customers when it's missed.",
    "Layer fusion means merging several models onto the same GPUs.",
    "Continuous batching is basically continuous deployment of retrained models.",
    "A warm pool is a CDN that caches the responses.",
    "Blue-green means sending 5% of the traffic to the new version and ramping gradually.",
]
MORE_RIGHT_DEFINITIONS = [
    "Dynamic batching, which, if I remember right, means the server waits a few ms to group "
    "concurrent requests into one forward pass.",
    "Memory fragmentation, which is when free memory is split into pieces too small to use.",
    "By immutable tags I mean a tag is never overwritten once pushed; a hotfix gets a new tag.",
    "A data-plane rollback means shifting the traffic weights back in the mesh, in seconds.",
    "Optimization profiles are the min, opt and max input shapes the engine is built for.",
    "Quantization is running the weights in lower precision, INT8 instead of FP16.",
    "Sticky bucketing means the same user always gets the same model, by hashing the user id.",
    "The SLI is what we measure: the share of requests answered under 200ms.",
    "The SLO is our internal target on that indicator, stricter than the contract.",
    "Layer fusion means merging several layers into one kernel to save memory round trips.",
    "Continuous batching means new sequences join the batch as others finish, token by token.",
    "A warm pool is a set of replicas with the model loaded and ready.",
    "Blue-green means two full environments and switching all the traffic at once.",
]


@pytest.mark.parametrize("text", MORE_WRONG_DEFINITIONS)
def test_more_terms_defined_wrongly_are_wrong_claims(text: str) -> None:
    assert [claim.kind for claim in wrong_definitions(text, lambda offset: 0)] == ["definition"]


@pytest.mark.parametrize("text", MORE_RIGHT_DEFINITIONS)
def test_more_terms_defined_rightly_are_not_wrong_claims(text: str) -> None:
    assert wrong_definitions(text, lambda offset: 0) == []


@pytest.mark.parametrize(("slug", "key", "answer"), [
    ("stripe-fraud-tensorrt-vs-torchserve", "dynamic-batching",
     "TensorRT for the hot path. TorchServe's edge is dynamic batching, which, as far as I know, "
     "means it re-traces the model graph for every request's shape."),
    ("airbnb-argo-cd-versioning", "immutable-tags",
     "Every version gets a Docker tag, and by immutable I mean we can overwrite the tag with a "
     "patched build when there's a hotfix."),
    ("airbnb-argo-cd-versioning", "data-plane-rollback",
     "In an emergency I'd do a data-plane rollback, which means restoring the predictions table "
     "from the snapshot we took before the canary."),
])
def test_a_criterions_own_term_defined_wrongly_is_contradicted(slug: str, key: str,
                                                               answer: str) -> None:
    assert verdicts(slug, answer)[key] == "contradicted"


def test_a_wrong_definition_is_not_a_core_fact_turned_round() -> None:
    # The question's "reverses the core facts" pitfall is about which tool is faster or
    # portable; a confused word contradicts its own point but does not commit that pitfall.
    answer = ("TensorRT for fraud: it fuses layers and runs FP16, 7 vs 12ms at p99 in the Netflix "
              "numbers. The catch is the 45-minute rebuild on every retrain. TorchServe's edge is "
              "dynamic batching, which, as far as I know, means it re-traces the model graph for "
              "every request's shape.")
    result = verdicts("stripe-fraud-tensorrt-vs-torchserve", answer)
    assert result["dynamic-batching"] == "contradicted"
    assert result["reversed-facts"] == "missed"


def test_a_term_with_too_before_its_definition_is_still_defined() -> None:
    text = "Jitter too, which is basically the mean network delay on each inbound packet."
    assert [claim.kind for claim in wrong_definitions(text, lambda offset: 0)] == ["definition"]


def test_a_clause_after_a_semicolon_that_points_back_goes_on_with_the_wrong_claim() -> None:
    # The figure after the ";" is the wrong sense's figure ("it" is the training), so the
    # bake window is not made by it.
    answer = ("Canary on 5% first. The bake window is the time the model spends fine-tuning on "
              "fresh data before it ships; I'd give it around 10-15 minutes of training.")
    assert verdicts("canary-and-versioning-design", answer)["bake-window"] == "contradicted"


@pytest.mark.parametrize(("slug", "key", "answer"), [
    # Phrases that named another point or the question itself were taken out of the bank: a
    # word that every answer says earns no point.
    ("ad-ranking-latency-target", "breach-fallback",
     "First I'd ask the caller what their timeout is, then set 15ms p99 under it."),
    ("gpu-cluster-sizing-method", "power-cooling",
     "I'd size from a measured per-GPU rate and check per-zone capacity so a zone can fail."),
    ("tensorrt-torchserve-tradeoffs", "recommendation",
     "TensorRT should simply be the platform default, it compiles to the fastest kernels."),
    ("google-a100-7b-50k-qps", "redundancy-power",
     "At 40 QPS per A100, 50,000 / 40 is 1,250, so about 160 eight-GPU servers."),
])
def test_a_phrase_of_another_point_earns_nothing(slug: str, key: str, answer: str) -> None:
    assert verdicts(slug, answer)[key] not in CREDITED


def test_a_dismissal_whose_clause_opens_with_its_subject_reaches_back_over_the_comma() -> None:
    answer = ("TensorRT gives 7 vs 12ms at p99 on the Netflix numbers. The extra hop is "
              "microseconds, I wouldn't bother modelling it.")
    assert verdicts("netflix-bert-tensorrt-preprocessing", answer)["extra-hop"] not in CREDITED


def test_a_point_waved_off_in_words_is_not_made_by_a_figure_said_elsewhere() -> None:
    # "1-2ms" shares only its figure with a phrase of the point; the point itself is dismissed.
    answer = ("15ms p99 for us out of the 20. The 2ms launch overhead is a non-issue once "
              "you're batching. Batching I'd do, keeping the wait to maybe 1-2ms.")
    assert verdicts("tiktok-20ms-budget", answer)["launch-overhead"] == "contradicted"


def test_not_stacking_more_headroom_on_zone_redundancy_is_the_point() -> None:
    answer = ("50,000 / 40 = 1,250 A100s. With one of three zones allowed to fail the fleet is "
              "1,875, which leaves a third idle, so I'd not stack another 20% on top.")
    assert verdicts("gpu-cluster-sizing-method", answer)["headroom-reasoning"] in CREDITED


MORE_WRONG_SENSES = [
    ("snowflake-jit-compilation-sli", "cache-hit-rate",
     "Compile time belongs on the hot path. I'd also track the cache hit rate, meaning how many "
     "queries per second hit the JIT compiler, since more load there means slower compiles."),
    ("meta-80-a100-sanity-check", "memory-peak",
     "45,000 over 80 is about 562 QPS per GPU. 78% memory utilization means the cards are "
     "computing 78% of the time, so they're fairly busy but not saturated."),
    ("inference-slis-and-alerts", "burn-rate",
     "p99 and error rate. And I'd track the error budget, which as I understand it is the amount "
     "of GPU spend we're allowed per month, and alert when we burn through it too fast."),
    ("instacart-canary-playbook", "bake-each-step",
     "The 10-minute bake is where Spinnaker pre-compiles and warms the new model image before "
     "it gets any of the 2%, which is good practice."),
]
MORE_RIGHT_SENSES = [
    ("snowflake-jit-compilation-sli", "cache-hit-rate",
     "I'd watch the cache hit rate, the share of queries that find compiled code in the cache, "
     "because a deploy that wipes it sends compile time up."),
    ("meta-80-a100-sanity-check", "memory-peak",
     "78% memory utilization means 78% of the 80GB is in use at peak, so there's room for the "
     "KV cache but not much more."),
]


@pytest.mark.parametrize(("slug", "key", "answer"), MORE_WRONG_SENSES)
def test_more_terms_defined_wrongly_contradict_their_point(slug: str, key: str,
                                                            answer: str) -> None:
    assert verdicts(slug, answer)[key] == "contradicted"


@pytest.mark.parametrize(("slug", "key", "answer"), MORE_RIGHT_SENSES)
def test_more_terms_defined_rightly_are_credited(slug: str, key: str, answer: str) -> None:
    assert verdicts(slug, answer)[key] in CREDITED


def test_an_error_budget_of_allowed_failures_is_no_wrong_definition() -> None:
    text = "The error budget is the number of failed requests we are allowed to fail per month."
    assert wrong_definitions(text, lambda offset: 0) == []


@pytest.mark.parametrize(("slug", "key", "answer"), [
    # A pronoun after a spaced dash points back over it.
    ("azure-capacity-spreadsheet-review", "redundancy",
     "With the 20% it claims, it should read 1,500. Same with zone failures - that's a "
     "non-issue once the 20% is in there."),
    # "micro-optimizations" waves its clause away.
    ("canary-and-versioning-design", "control-costs",
     "Argo Rollouts with 5% canaries and automated analysis. Things like flag evaluation "
     "overhead or sync window delay are micro-optimizations, I wouldn't design around them."),
    # A dismissal whose clause opens with an adverb reaches back over the comma.
    ("oracle-serverless-cold-starts", "coldstart-latency",
     "Page on the rate of 500s. Cold starts of 300ms are a latency nuisance, probably not worth "
     "an alert on their own."),
])
def test_more_dismissal_forms(slug: str, key: str, answer: str) -> None:
    assert verdicts(slug, answer)[key] not in CREDITED


@pytest.mark.parametrize(("slug", "key", "answer"), [
    # Phrases that name a means or a neighbouring point were taken out of the bank.
    ("airbnb-argo-cd-versioning", "canary-clock",
     "Unique tags, promotion by PR. During the 30 minutes I'd watch the Grafana panel with QPS "
     "per version, plus latency and errors."),
    ("oracle-serverless-cold-starts", "phase-breakdown",
     "On the fix side, a warm pool of idle replicas, pre-pulled images and weights cached on "
     "local NVMe."),
    ("oracle-serverless-cold-starts", "coldstart-latency",
     "I'd also track what fraction of requests land on a replica that's still starting up."),
    ("google-a100-7b-50k-qps", "token-and-batch-limits",
     "50,000 / 40 is 1,250 GPUs; vLLM's continuous batching should keep those cards busy."),
])
def test_a_phrase_of_a_means_or_a_neighbour_earns_nothing(slug: str, key: str,
                                                          answer: str) -> None:
    assert verdicts(slug, answer)[key] not in CREDITED


@pytest.mark.parametrize(("text", "wrong"), [
    ("p95 is a stricter, higher number than p99 because it covers more requests.", True),
    ("p95 is a lower number than p99.", False),
    ("The dashboard shows p99 and p99 is always the smaller number, the p95 sits above it.",
     True),
    ("p99 is always the bigger number, so p95 sits below it.", False),
    ("p95 can never be higher than p99.", False),
    ("p99 can never be lower than p95.", False),
])
def test_percentile_orders_said_with_a_noun(text: str, wrong: bool) -> None:
    claims = wrong_claims(tokenize(text), text, lambda offset: 0)
    assert any(claim.kind == "percentile" for claim in claims) == wrong


@pytest.mark.parametrize("answer", [
    "The SLA is written on p95 but the panel shows p99. p95 can never be higher than p99, so "
    "we have 0.7ms at most.",
    "p95 is always at or below p99, so if p99 is 11.3 we're compliant with 0.7ms to spare.",
    "The 95th percentile can never sit above the 99th, so p95 is 11.3ms or lower.",
])
def test_the_percentile_order_said_plainly_notices_the_mismatch(answer: str) -> None:
    assert verdicts("snapchat-p95-12ms-bid-requests", answer)["percentile-mismatch"] in CREDITED


def test_a_rate_whose_clause_opens_per_gpu_is_per_gpu() -> None:
    outcome = RubricEngine().score(
        bank_question("meta-80-a100-sanity-check"),
        "Per GPU that's 45,000 / 80, about 562 QPS. At 40 per A100 the same 45k would need "
        "1,125 GPUs.")
    check = next(c for c in outcome.numbers if c.criterion_key == "per-gpu-qps")
    assert check.within_tolerance and check.found_text == "562 QPS"
    assert not any("40 per A100" in line for line in outcome.feedback["calculations"])


def test_a_rate_after_another_figure_is_not_read_per_gpu() -> None:
    quantities = find_quantities("Each GPU serves 40 QPS, so 45,000 QPS needs 1,125 of them.")
    assert [q.unit for q in quantities][:2] == ["qps/gpu", "qps"]


def test_a_per_gpu_phrase_that_belongs_to_a_figure_does_not_open_the_clause() -> None:
    quantities = find_quantities("At Azure's 40 per GPU, 45k QPS would need around 112 GPUs.")
    assert [q.unit for q in quantities] == ["/gpu", "qps", "gpu"]


def test_a_bare_figure_named_by_a_phrase_does_not_hide_the_stated_count() -> None:
    outcome = RubricEngine().score(
        bank_question("meta-80-a100-sanity-check"),
        "562 QPS a GPU is suspicious next to Azure's 40. If we took Azure's number, 45k QPS "
        "would need around 112 GPUs, so Meta is doing something different.")
    check = next(c for c in outcome.numbers if c.criterion_key == "azure-comparison")
    assert check.found_text == "112 GPUs" and not check.within_tolerance
    assert any("10x too low" in line for line in outcome.feedback["calculations"])


def test_a_circuit_breaker_is_not_a_budget_broken_down() -> None:
    assert "break" not in {t.key for t in tokenize("put a circuit breaker on the call")}
    outcome = RubricEngine().score(
        bank_question("tiktok-20ms-budget"),
        "What I would do is put a circuit breaker on the call so if we're close to 20 we return "
        "a default score instead of nothing.")
    verdict = next(v for v in outcome.criteria if v.key == "stage-budget")
    assert verdict.verdict == "missed"


@pytest.mark.parametrize(("slug", "key", "answer"), [
    # A concession waved off with "I'd not get hung up on that".
    ("snapchat-p95-12ms-bid-requests", "percentile-mismatch",
     "Someone will say the SLA is on p95 while the panel shows p99, but I'd not get hung up on "
     "that."),
    # "that's CI's job, it doesn't really factor in".
    ("netflix-bert-tensorrt-preprocessing", "rebuild-cost",
     "The engine rebuild for each new model version - that's CI's job, it doesn't really "
     "factor into the choice."),
    # "..., but I wouldn't wait on it".
    ("doordash-eta-canary", "bake-window",
     "I know the runbook asks for a 15-minute stabilization period, but I wouldn't wait on it."),
    # A fronted object with an adverb before the verb, or opened by "And".
    ("oracle-serverless-cold-starts", "coldstart-latency",
     "The 300ms cold-start alert I'd actually drop, it's going to be noisy with every "
     "scale-up."),
    ("snowflake-jit-compilation-sli", "cache-hit-rate",
     "And tracking cache hits I'd skip; it's only a proxy."),
    # "it's a lot of math for little gain": "it's" six words back points over the comma.
    ("inference-slis-and-alerts", "burn-rate",
     "Same with burn-rate alerting, it's a lot of math for little gain over a plain threshold."),
])
def test_dismissal_forms_of_the_third_round(slug: str, key: str, answer: str) -> None:
    assert verdicts(slug, answer)[key] not in CREDITED


def test_a_bare_pronoun_far_from_too_slow_does_not_dismiss_the_clause() -> None:
    tokens = tokenize("So the CPU design is 25 ms and limit is 18 ms, it mean we are 7 ms "
                      "too slow.")
    assert not any(t.negated for t in tokens if t.lower in {"design", "limit"})


@pytest.mark.parametrize(("slug", "key", "answer"), [
    # Haste: waiting said to slow the release.
    ("doordash-eta-canary", "no-bake",
     "A couple minutes of data is plenty to see if something's broken, and waiting just slows "
     "the release down."),
    # Errors taken as the only thing that can go wrong.
    ("instacart-canary-playbook", "errors-only",
     "If the new model isn't throwing errors there's not much else that can go badly wrong."),
    # Utilisation chased until the card is pegged.
    ("pinterest-batch-size-tradeoff", "chase-utilization",
     "Go from 8 to 32, maybe 64, until the card is basically pegged."),
    # The doubted figure taken as the basis of the plan.
    ("meta-80-a100-sanity-check", "reuse-as-is",
     "Meta runs a well-tuned stack, so I'd believe it and take their per-GPU number as the "
     "basis for our plan."),
])
def test_pitfalls_of_the_third_round_in_plain_words(slug: str, key: str, answer: str) -> None:
    assert verdicts(slug, answer)[key] == "made"


@pytest.mark.parametrize(("slug", "key", "answer"), [
    ("doordash-eta-canary", "no-bake",
     "I'd hold the release for the full 15 minutes; waiting costs little next to a bad model."),
    ("pinterest-batch-size-tradeoff", "chase-utilization",
     "Going from 8 to 32 keeps the card pegged but I'd watch p99 against the 50ms budget."),
])
def test_the_same_words_with_the_caveat_commit_nothing(slug: str, key: str, answer: str) -> None:
    assert verdicts(slug, answer)[key] != "made"


@pytest.mark.parametrize(("slug", "key", "answer"), [
    # A tail percentile defined as the middle of the distribution.
    ("tiktok-20ms-budget", "tail-target-headroom",
     "I'd track it as p99, by which I mean the typical request, the middle of the distribution."),
    # A term in quotation marks, defined as model copies.
    ("stripe-fraud-tensorrt-vs-torchserve", "dynamic-batching",
     "TorchServe's 'dynamic batching' is really just running several model copies in parallel."),
    # Shadowing defined as real users seeing the new model.
    ("robinhood-bad-model-blast-radius", "validate-shadow",
     "Main tool is shadow deployment: route 5% of real users to the new model so they see its "
     "results."),
    # Cold-start latency defined as the autoscaler's decision time.
    ("oracle-serverless-cold-starts", "coldstart-latency",
     "I'd monitor cold-start latency, which I'd define as the time the autoscaler takes to "
     "decide to add a replica."),
    # "which I take to mean": a definition.
    ("inference-slis-and-alerts", "burn-rate",
     "For alerts I'd use burn rate, which I take to mean how fast the GPUs burn through their "
     "power budget."),
])
def test_terms_of_the_third_round_defined_wrongly(slug: str, key: str, answer: str) -> None:
    assert verdicts(slug, answer)[key] == "contradicted"


@pytest.mark.parametrize(("slug", "key", "answer"), [
    ("tiktok-20ms-budget", "tail-target-headroom",
     "I'd hold us to 15ms at p99, by which I mean the slowest 1% of requests, leaving 5ms of "
     "headroom."),
    ("oracle-serverless-cold-starts", "coldstart-latency",
     "I'd monitor cold-start latency, which I'd define as the time from a new replica starting "
     "up until it serves its first request."),
])
def test_terms_of_the_third_round_defined_rightly(slug: str, key: str, answer: str) -> None:
    assert verdicts(slug, answer)[key] in CREDITED


@pytest.mark.parametrize(("slug", "key", "answer"), [
    ("doordash-eta-canary", "auto-rollback",
     "If the canary is clearly worse or errors spike, automation rolls it back and pings the "
     "owner."),
    ("canary-and-versioning-design", "rollback", "Auto rollback on regression."),
    ("instacart-canary-playbook", "ramp",
     "I'd add a bigger step after 2% instead of going straight to 100."),
    ("airbnb-argo-cd-versioning", "immutable-tags",
     "Each version gets its own Docker tag, never reused."),
    ("airbnb-argo-cd-versioning", "canary-clock",
     "The 30 minutes only count from the moment the new version is taking real traffic."),
    ("snowflake-jit-compilation-sli", "why-sli",
     "Compile runs in line with every request, so a cache miss adds latency the generic graphs "
     "show but can't explain."),
])
def test_points_of_the_third_round_in_candidates_words(slug: str, key: str, answer: str) -> None:
    assert verdicts(slug, answer)[key] in CREDITED


@pytest.mark.parametrize(("waved", "made"), [
    ("The latency and frame-drop SLIs look fine to me as written.",
     "I'd pin the latency SLI to p99 and the frame-drop rate to a 5-minute rolling window."),
])
def test_points_accepted_as_written_are_not_made(waved: str, made: str) -> None:
    question = bank_question("zoom-gpu-memory-leak-alert")
    found = {v.key: v.verdict for v in RubricEngine().score(question, waved).criteria}
    assert found["percentile-windows"] in {"missed", "contradicted"}
    found = {v.key: v.verdict for v in RubricEngine().score(question, made).criteria}
    assert found["percentile-windows"] == "made"


@pytest.mark.parametrize("text", [
    "Also their 18ms is a p95; I have no idea what the p99 looks like, and our SLO is on p99.",
    "Keep a warm pool so we don't let the hot models scale to zero.",
])
def test_a_gap_in_knowledge_or_a_purpose_is_not_a_rejection(text: str) -> None:
    negated = {t.lower for t in tokenize(text) if t.negated}
    assert not negated & {"p99", "keep", "warm", "pool"}


def test_a_fronted_rejection_with_an_adverb_still_rejects() -> None:
    negated = {t.lower for t in tokenize(
        "The 2ms launch overhead I honestly wouldn't budget separately.") if t.negated}
    assert {"launch", "overhead"} <= negated
    kept = {t.lower for t in tokenize("The 2ms launch overhead I would budget separately.")
            if t.negated}
    assert not kept
