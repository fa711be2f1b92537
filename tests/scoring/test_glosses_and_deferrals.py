"""Issue 9, eighth round: the candidate's own flagged gloss of a term ("burn rate, by which I
mean ...", "a bake, as I understand it, is ...", "immutable tags. To me that means ..."), judged
by whether it says what the term means; percentiles ranked the wrong way round against one named
earlier; a term defined wrongly that leaves only its name elsewhere; and points put off until
after launch or parked as separate projects. Sentences written for this file; each wrong gloss has
a twin that says the term right."""

from __future__ import annotations

import pytest

from scoring.engines.relations import (
    reversed_percentiles,
    turned_facts,
)
from scoring.engines.senses import (
    wrong_definitions,
    wrong_glosses,
)
from scoring.engines.text import tokenize
from tests.scoring.test_features_and_senses import CREDITED, claimed, verdict

WRONG_GLOSSES = [
    # No wrong sense was written for these: the gloss says none of what the term means.
    "I'd put a circuit breaker on the model - by that I mean batching requests together so the "
    "GPU handles bursts - and move on.",
    "For alerting I'd use burn rate, which I think of as how fast GPU memory is burning up.",
    "I'd also track cache hit rate, by which I mean how many requests per second hit the JIT "
    "compiler.",
    "For versioning I'd use immutable tags, by which I mean one tag per model family that CI "
    "just moves to the newest build.",
    "I'd want the gate to be statistically significant, which to me means making it stricter, "
    "like 0.5ms.",
    "Dynamic batching, meaning we switch batch sizes between model versions, helps too.",
    "The sync window in Argo is a maintenance window when syncs are allowed.",
    "Jitter, by which I mean the total time a chunk spends in the pipeline, should stay low.",
    "Headroom, as I understand it, is how busy the GPUs already are.",
]

# The same flagged glosses said right, in the words candidates use.
RIGHT_GLOSSES = [
    "burn rate, by which I mean how fast we're spending the error budget relative to the SLO",
    'A canary, as I understand it, is a small slice of live traffic on the new model',
    'p99, by which I mean the slowest 1% of requests',
    'jitter, by which I mean how much the per-chunk latency swings from one chunk to the next',
    'dynamic batching, by which I mean holding requests for a couple of ms to group them',
    'the bake window, by which I mean how long we sit at each traffic step before promoting',
    'sticky assignment, by which I mean the same user always hits the same version',
    'TTFT, by which I mean how long until the first token shows up',
    'headroom, by which I mean spare capacity we keep unused for spikes',
    'throughput, by which I mean requests per second per GPU',
    'the KV cache, by which I mean the keys and values of past tokens kept on the GPU',
    'MIG, by which I mean slicing an A100 into up to seven isolated instances',
    'saturation, by which I mean how close the GPU is to full',
    "the error budget, by which I mean the 0.1% of requests we're allowed to fail",
    'quantization, by which I mean storing weights in INT8 instead of FP16',
    'rollback, by which I mean sending traffic back to the last good version',
    'the SLO, by which I mean the target we promise, 99.9% under 300ms',
    'shadow mode, by which I mean mirroring live traffic to the new model and '
    'discarding its answers',
    'a fallback, by which I mean returning a cached or default score',
    'a kill switch, by which I mean a flag that routes everyone back to the old model instantly',
    'a circuit breaker, by which I mean when the model times out too often we stop '
    'calling it and use the default',
    'intra-op threads, by which I mean the threads PyTorch uses inside one operator',
    'launch overhead, by which I mean the fixed cost of launching kernels on each call',
    'optimization profiles, by which I mean the min, opt and max shapes the engine is built for',
    'cold start latency, by which I mean the time from a new replica starting to '
    'serving its first request',
    'real-time factor, by which I mean processing time divided by audio length',
    'WER, by which I mean the share of words transcribed wrong',
    'prediction drift, by which I mean the distribution of scores shifting',
    'memory utilization, by which I mean how many GB of the card are allocated',
    "tensor parallelism, by which I mean splitting each layer's matrices across GPUs",
    'continuous batching, by which I mean adding new requests to the batch at each decode step',
    'a warm pool, by which I mean replicas kept loaded and idle',
    'blue-green, by which I mean two full environments and we flip traffic',
    'the sync window, by which I mean the up to 5 minutes Argo CD takes to apply a commit',
    'a data-plane rollback, by which I mean shifting traffic at the mesh',
    'immutable tags, by which I mean every build gets a new tag that nobody ever changes',
    'layer fusion, by which I mean merging several ops into one kernel',
    'fragmentation, by which I mean free memory split into pieces too small to use',
    "OpenVINO, by which I mean Intel's CPU inference toolkit",
    'SLIs, by which I mean the measurements we alert on, like p99 and error rate',
    'statistical significance, by which I mean the difference is bigger than the noise',
    'the cache hit rate, by which I mean how often a request finds its compiled '
    'kernel already there',
    'the median, by which I mean the middle request',
    'p50, which I think of as the typical request',
    "burn rate, which I take to mean how many times faster than allowed we're using up the budget",
    'a bake, as I understand it, is time spent at a step watching metrics before moving on',
    'the canary, which as I understand it is 5% of users',
    'error budget, to me that means how much unreliability the SLO leaves us',
    "throughput, which I'd define as completed inferences per second",
    'headroom, as I think of it, is the gap between peak load and what the fleet can take',
    'a kill switch, by which I mean one toggle that turns the new model off',
    'the rollback, by which I mean going back to v41',
    'jitter, by which I mean the p99 minus the p50 of per-chunk delay',
    'quantization, by which I mean going from 16 bits per weight to 8',
    'throughput, by which I mean how many requests we finish each second',
    'MIG, by which I mean partitioning one A100 into smaller GPUs',
]


@pytest.mark.parametrize("sentence", WRONG_GLOSSES)
def test_a_flagged_gloss_that_says_none_of_what_the_term_means_is_wrong(sentence: str) -> None:
    assert claimed(wrong_definitions, sentence)


@pytest.mark.parametrize("sentence", RIGHT_GLOSSES)
def test_a_flagged_gloss_that_says_the_term_right_stands(sentence: str) -> None:
    assert not claimed(wrong_definitions, sentence)
    assert not claimed(wrong_glosses, sentence)


def test_a_gloss_closed_by_a_dash_leaves_what_follows_alone() -> None:
    answer = ("I'd target 15ms at p99 and use a circuit breaker on the model - by that I mean "
              "batching requests together - and I'd write a per-stage budget with an owner for "
              "each stage: network 2, features 3, model 6, spare 4.")
    assert verdict("snapchat-p95-12ms-bid-requests", "timeout-fallback", answer) not in CREDITED
    assert verdict("snapchat-p95-12ms-bid-requests", "stage-budget", answer) in CREDITED


@pytest.mark.parametrize(("wrong", "right"), [
    ("p99 means 99% of the time we're faster, p95 means 95%, so p95 is the stricter one.",
     "p99 means 99% of the time we're faster, p95 means 95%, so p99 is the stricter one."),
    ("Between p99 and p95, p99 is the easier target.",
     "Between p99 and p95, p95 is the easier target."),
])
def test_a_percentile_ranked_against_one_named_earlier(wrong: str, right: str) -> None:
    assert claimed(reversed_percentiles, wrong)
    assert not claimed(reversed_percentiles, right)


def test_a_term_defined_wrongly_is_not_made_by_its_name_said_elsewhere() -> None:
    wrong = ("I'd go with 15ms p99. To be clear: p99 is the average latency over the fastest 99 "
             "percent of requests, a robust mean.")
    right = ("I'd go with 15ms p99. To be clear: p99 is the latency the slowest 1 percent of "
             "requests exceed, the tail the timeout cuts.")
    assert verdict("ad-ranking-latency-target", "tail-percentile", wrong) not in CREDITED
    assert verdict("ad-ranking-latency-target", "tail-percentile", right) in CREDITED


@pytest.mark.parametrize(("slug", "key", "waved", "kept"), [
    ("lyft-18ms-cpu-stack", "cpu-levers",
     "I'd keep the CPU stack. We can tune threads and such after launch.",
     "I'd keep the CPU stack. We can tune threads and such before launch."),
    ("pinterest-batch-size-tradeoff", "other-levers",
     "I'd try 16. FP16 or packing replicas onto the same GPU is a separate conversation, not "
     "for now.",
     "I'd try 16. FP16 or packing two replicas onto the same GPU would also raise utilisation."),
    ("pinterest-batch-size-tradeoff", "other-levers",
     "I'd try 16. FP16 or packing replicas onto the same GPU is a problem for another day.",
     "I'd try 16, and FP16 or packing replicas onto the same GPU on the side."),
])
def test_a_point_put_off_or_parked_is_not_made(slug: str, key: str, waved: str,
                                               kept: str) -> None:
    assert verdict(slug, key, waved) not in CREDITED
    assert verdict(slug, key, kept) in CREDITED


@pytest.mark.parametrize(("condemned", "committed"), [
    ("Per-segment kill switch with flag state cached in-process and pushed updates (remote "
     "200us eval per request is too costly at high QPS).",
     "Per-segment kill switch; the 200us flag check is negligible, so I'd call the service "
     "every time."),
    ("Calling the flag service per request would be a mistake at this QPS, so I'd cache flags "
     "locally.",
     "Calling the flag service per request is fine at this QPS, so no need to cache flags."),
    ("For emergencies, an off switch per segment. Asking a remote flag service costs ~0.2ms on "
     "each request and burns a lot of CPU at this volume, so each server holds the switch "
     "states in memory.",
     "For emergencies, an off switch per segment. I'd just ask the flag server on every "
     "request, it's only 10ms of CPU."),
])
def test_a_mistake_named_and_then_condemned_is_not_committed(condemned: str,
                                                            committed: str) -> None:
    key = "remote-flag-every-request"
    assert verdict("robinhood-bad-model-blast-radius", key, condemned) == "missed"
    assert verdict("robinhood-bad-model-blast-radius", key, committed) == "made"


@pytest.mark.parametrize(("answer", "credited"), [
    ("A T4 gets about 120 tokens/s for a 3B model. With ~10 output tokens per request that's 12 "
     "requests per second per card, so 30,000 / 12 = 2,500 T4s.", False),
    ("At 120 tokens/s and 10 tokens generated per request, each T4 serves 12 requests a "
     "second, so 2,500 T4s, 3,000 with 20% on top.", False),
    ("I'd confirm tokens per request and the latency SLO first. At 10 tokens and 120 tokens/s "
     "per T4 that's 12 requests a second each, so 2,500 T4s.", True),
    ("Before any math: what latency do they need, and how many tokens does a request generate? "
     "Taking 10 tokens, each T4 serves 12 requests a second, so 2,500 T4s.", True),
])
def test_naming_the_quantities_is_not_asking_for_them(answer: str, credited: bool) -> None:
    assert (verdict("amazon-t4-3b-30k-qps", "clarify", answer) in CREDITED) is credited


@pytest.mark.parametrize(("wrong", "right"), [
    ("Batching mostly affects the average, so I don't expect the p99 to move much.",
     "Batching raises the average a little and the p99 more, since every request waits."),
    ("Going to 16 raises throughput, and a bigger batch won't move the p99 much.",
     "Going to 16 raises throughput, but a bigger batch will move the p99 up."),
])
def test_batching_said_to_spare_the_tail_is_turned_round(wrong: str, right: str) -> None:
    assert claimed(turned_facts, wrong)
    assert not claimed(turned_facts, right)


# Said right, in forms this round's readings must leave alone (found in review).
GLOSSES_AND_CONCLUSIONS = [
    "I'd assume 15ms at p99, by which I mean end-to-end from the ad server, not just model time.",
    "A circuit breaker, by which I mean when the model errors out we return the cached ranking "
    "instead.",
    "Dynamic batching, by which I mean Triton holding requests up to 2ms to form a batch.",
    "Jitter, for me, is the bigger concern on this path.",
    "A canary, to me, is the single most important safety net in an ML rollout.",
    "Error rate is flat and so is jitter. To me that means the canary is healthy.",
    "The cache hit rate is the ratio of hits to lookups at our peak load.",
    "Cache hit rate means the share of requests per second we answer straight away.",
]


@pytest.mark.parametrize("sentence", GLOSSES_AND_CONCLUSIONS)
def test_glosses_of_scope_opinions_and_conclusions_are_not_wrong_definitions(
        sentence: str) -> None:
    assert not claimed(wrong_definitions, sentence)


@pytest.mark.parametrize("sentence", [
    "Offline batch scoring runs on a separate GPU pool, so it won't touch the p99.",
    "A 2ms max batch delay won't move the p99 much against a 50ms budget.",
    "Without dynamic batching we won't hurt the p99, but throughput drops by half.",
    "Turning off batching only raises the average cost per request.",
])
def test_batch_jobs_capped_delays_and_batching_off_are_not_turned_facts(sentence: str) -> None:
    assert not claimed(turned_facts, sentence)


@pytest.mark.parametrize("answer", [
    "Per-segment kill switch. I'd call the flag service on every request; 200us isn't too "
    "costly at our QPS.",
    "Per-segment kill switch. I'd call the flag service on every request, which is not too "
    "expensive at this volume.",
    "Per-segment kill switch. I'd call the flag service on every request, since caching flags "
    "locally is way too risky with stale state.",
])
def test_a_mistake_defended_or_an_alternative_condemned_is_still_committed(answer: str) -> None:
    assert verdict("robinhood-bad-model-blast-radius", "remote-flag-every-request",
                   answer) == "made"


@pytest.mark.parametrize(("sentence", "kept"), [
    ("Traffic will triple down the road, so I'd size for 3x.", "Traffic"),
    ("Canary and shadow traffic, those are not overkill for a payments model.", "Canary"),
    ("We will look at p99 and error rate after launch every five minutes.", "p99"),
    ("TensorRT needs optimization profiles, and those aren't needed in TorchServe.",
     "profiles"),
])
def test_predictions_double_negatives_and_monitoring_after_launch_keep_their_words(
        sentence: str, kept: str) -> None:
    token = next(t for t in tokenize(sentence) if t.text == kept)
    assert not token.negated


def test_a_definition_ends_where_another_percentiles_clause_begins() -> None:
    assert not claimed(wrong_definitions,
                       "p50 is the lower number and p99 the higher, since the tail is slower.")
    assert claimed(wrong_definitions, "p50 is the tail latency and p99 the typical one.")
