"""Issue 9, ninth round.

- Points put in other people's mouths and turned down ("people will tell you X, but I'd rather
  not", "I know the argument that X, I don't really buy it"), parked as a later problem or
  another team's job, or retired.
- Right rates per machine said after a comma or a dash, or "a second per A100".
- A cost avoided ("so we don't pay the 200us") or counted against a remote call is not a cost
  waved away.
- Terms defined in a wrong sense (a warm pool kept physically warm, blast radius as a count of
  models), and points only named in a string of terms.
- Derived figures checked against the candidate's own: a share said "with" its whole, a size
  over a bandwidth, streams per GPU from a real-time factor.

Sentences written for this file; each dismissal has a twin that keeps the point."""

from __future__ import annotations

import pytest

from scoring.engines.clauses import term_list
from scoring.engines.derived import derived_figures
from scoring.engines.numbers import find_quantities
from scoring.engines.rubric import RubricEngine
from scoring.engines.senses import wrong_definitions, wrong_glosses
from tests.scoring.test_engines import bank_question
from tests.scoring.test_features_and_senses import CREDITED, verdict

SIZING = ("Method: take the peak, divide by what one GPU sustains at the SLO. 50,000 / 40 = "
          "1,250 A100s. For zones, two surviving zones carry 1,250, so 625 per zone and 1,875 "
          "overall. ")


@pytest.mark.parametrize(("slug", "key", "rejected", "kept"), [
    ("gpu-cluster-sizing-method", "headroom-reasoning",
     SIZING + "People will tell you the zone spare already covers spikes, but I'd rather not "
              "mix the two, belt and braces.",
     SIZING + "The zone spare already covers spikes, so I wouldn't stack another 20% on it."),
    ("inference-slis-and-alerts", "burn-rate",
     "Top of the list is p99 latency. People like fancy error-budget burn-rate alerting, I find "
     "a plain 'p99 over 15ms for 5 minutes' page works fine.",
     "Top of the list is p99 latency. I'd page on error-budget burn rate, fast and slow "
     "windows, rather than a plain threshold."),
    ("pinterest-batch-size-tradeoff", "utilization-not-waste",
     "I'd sweep batch sizes. I know the argument that 65% is really burst headroom and "
     "shouldn't be touched, I don't really buy it, an idle third of a GPU is money on fire.",
     "I'd sweep batch sizes. 65% is really burst headroom and shouldn't be touched, an idle "
     "third of a GPU is what absorbs spikes."),
    ("canary-and-versioning-design", "bake-window",
     "Canary: Istio weights, 2% to start. A lot of people insist on a 10-15 minute bake after "
     "each shift - I'd rather not slow every rollout down.",
     "Canary: Istio weights, 2% to start, with a 10-15 minute bake after each shift before "
     "promoting."),
    ("inference-slis-and-alerts", "burn-rate",
     "Top of the list is p99 latency. Many teams page on error-budget burn rate. I disagree, "
     "a plain threshold is enough.",
     "Top of the list is p99 latency. Many teams page on error-budget burn rate, and I would "
     "too."),
])
def test_a_point_put_in_others_mouths_and_turned_down_is_not_made(
        slug: str, key: str, rejected: str, kept: str) -> None:
    assert verdict(slug, key, rejected) not in CREDITED
    assert verdict(slug, key, kept) in CREDITED


@pytest.mark.parametrize(("slug", "key", "parked", "kept"), [
    ("tiktok-20ms-budget", "measurement-plan",
     "I'd give myself 15ms p99. And the whole tracing-and-dashboards measurement story is a "
     "later problem, first version I'd ship it.",
     "I'd give myself 15ms p99. And the whole tracing-and-dashboards measurement story comes "
     "before launch: trace each stage and load test at peak."),
    ("oracle-serverless-cold-starts", "coldstart-latency",
     "The cold-start latency alert at 300ms I'd honestly retire. I'd page on 5xx.",
     "I'd honestly keep the cold-start latency alert at 300ms. I'd page on 5xx too."),
    ("oracle-serverless-cold-starts", "coldstart-latency",
     "I'd retire the cold-start latency alert. I'd page on 5xx.",
     "I'd keep the cold-start latency alert. I'd page on 5xx too."),
])
def test_a_point_parked_or_retired_is_not_made(slug: str, key: str, parked: str,
                                               kept: str) -> None:
    assert verdict(slug, key, parked) not in CREDITED
    assert verdict(slug, key, kept) in CREDITED


@pytest.mark.parametrize(("slug", "key", "answer", "found"), [
    # A rate said per machine after a comma or a dash, not only at the sentence's start.
    ("amazon-t4-3b-30k-qps", "qps-per-gpu",
     "A T4 does ~120 tokens/s in FP16, so 300,000 / 120 = 2,500 cards, which is the same as "
     "each card doing 12 QPS.", "12 QPS"),
    ("amazon-t4-3b-30k-qps", "qps-per-gpu",
     "A T4 does about 120 tokens/s on this model, so 300,000 / 120 = 2,500 cards — "
     "equivalently each T4 handles about 12 requests a second.", "12 requests a second"),
    # A rate said "a second", then what it is per.
    ("meta-80-a100-sanity-check", "per-gpu-qps",
     "If I divide it out, that's 45k / 80 ≈ 560 queries a second per A100.",
     "560 queries a second per A100"),
])
def test_a_right_rate_per_machine_is_accepted(slug: str, key: str, answer: str,
                                              found: str) -> None:
    outcome = RubricEngine().score(bank_question(slug), answer)
    check = next(c for c in outcome.numbers if c.criterion_key == key)
    assert (check.found_text, check.within_tolerance) == (found, True)


def test_a_thousands_separator_does_not_open_a_per_machine_clause() -> None:
    # "2,500 cards" is a count; its comma must not make "each" reach back over the figures.
    quantities = find_quantities("So 300,000 / 120 = 2,500 cards, about 12 requests a second.")
    assert [q.unit for q in quantities if q.value == 12] == ["qps"]


WRONG_SENSES = [
    # A gloss flagged with "and by that I mean".
    "I'd watch cold-start latency, and by that I mean how long the platform takes to scale a "
    "replica down to zero after it goes idle.",
    "To reduce cold starts I'd keep a warm pool, meaning we keep the GPU nodes physically warm "
    "by running a small dummy load so the hardware isn't cold when traffic arrives.",
    "Could be they're using continuous batching, which is basically caching answers for "
    "repeated prompts so most queries never hit the model.",
    "Dynamic batching is worth turning on, that's where the server resizes the model to fit "
    "the batch.",
    "First, shadow mode: we give the new model to a small group of real users and watch what "
    "they do.",
    "Blast radius is the number of models running at the same time.",
    "The 2ms launch overhead grows with batch size, every extra item in the batch launches its "
    "own kernels.",
]

RIGHT_SENSES = [
    "I'd watch cold-start latency, and by that I mean how long the first request waits while "
    "the replica loads the model.",
    "Keep a warm pool of two replicas with the model loaded so the first request doesn't pay "
    "the load.",
    "Continuous batching lets new sequences join the batch as others finish, token by token.",
    "Dynamic batching, meaning we hold requests for up to 2ms to form a batch.",
    "Shadow mode: we mirror live traffic to the new model and discard its answers.",
    "Blast radius is how many users see a bad model, so I'd keep it to 1% of traffic.",
    "The launch overhead is fixed per call, so bigger batches spread it across more requests "
    "and it's more efficient per item.",
]


@pytest.mark.parametrize("sentence", WRONG_SENSES)
def test_a_term_defined_in_a_wrong_sense_is_a_wrong_claim(sentence: str) -> None:
    assert wrong_definitions(sentence, lambda offset: 0) or wrong_glosses(
        sentence, lambda offset: 0)


# The review's right glosses and definitions that the first version of these senses flagged.
RIGHT_SENSES += [
    "I'd keep a warm pool - by that I mean a minimum of two GPU workers that already have the "
    "weights on the card.",
    "A warm pool means the spare cards stay warm: the weights are already on the GPU and CUDA is "
    "initialised.",
    "Continuous batching means new requests are slotted into the running batch as soon as others "
    "are done, which needs a paged KV cache.",
    "Dynamic batching, and by that I mean the server stacks concurrent arrivals into one forward "
    "pass, capped at batch 32.",
    "Shadow mode: we run the new model on requests from a small group of users, but only the old "
    "model's answer goes back to them.",
    "Shadow traffic is a tee of production requests, for a small number of users at first, to "
    "the candidate model, whose answers are dropped.",
    "Blast radius is everything a bad model running in prod can touch, so I'd cap it.",
    "Blast radius, and by that I mean how far a bad deploy spreads before we stop it.",
    "Launch overhead is about 2ms whatever the batch, while compute time scales with the batch.",
    "The launch overhead is the same for the whole batch and each extra item just shares it.",
    "I'd watch cold-start latency, and by that I mean the extra time a request waits when it "
    "lands on a replica that was just spun up from zero.",
    "I'd set an SLO, and by that I mean p99 under 15ms over 28 days.",
    "I'd watch p99, and by that I mean the latency that 1 in 100 requests exceeds.",
]


@pytest.mark.parametrize("sentence", RIGHT_SENSES)
def test_a_term_defined_in_its_right_sense_stands(sentence: str) -> None:
    assert not wrong_definitions(sentence, lambda offset: 0)
    assert not wrong_glosses(sentence, lambda offset: 0)


@pytest.mark.parametrize(("avoided", "waved"), [
    ("For the kill switch I'd use the flag system but cache the flag values in each process and "
     "stream updates so we don't pay the 200us on every request.",
     "For the kill switch I'd call the flag service on every request; the 200us is nothing, we "
     "don't need to cache it."),
])
def test_a_cost_avoided_is_not_a_cost_waved_away(avoided: str, waved: str) -> None:
    slug = "robinhood-bad-model-blast-radius"
    assert verdict(slug, "flag-latency", avoided) in CREDITED
    assert verdict(slug, "remote-flag-every-request", avoided) == "missed"
    assert verdict(slug, "remote-flag-every-request", waved) == "made"


def test_a_remote_flag_call_counted_as_a_cost_is_not_the_pitfall() -> None:
    slug, key = "robinhood-bad-model-blast-radius", "remote-flag-every-request"
    counted = ("A per-segment kill switch. Asking a remote flag service on every request costs "
               "~200µs, real latency and CPU at high QPS, so each server keeps flag state in "
               "memory with updates streamed in.")
    waved = ("A per-segment kill switch. Asking a remote flag service on every request costs "
             "~200µs, which is negligible, so I'd just call it.")
    assert verdict(slug, key, counted) == "missed"
    assert verdict(slug, key, waved) == "made"


STUFFED = ("I'd compare them on kernel fusion, FP16, INT8, dynamic batching, p99 latency, "
           "Triton, ensembles, .mar files, management API, Python handlers, engine rebuilds, CI "
           "time, GPU memory fragmentation, worker recycling and Torch-TensorRT, and then pick "
           "based on the latency budget and retrain cadence.")
# A terse answer that groups its points, and a stage budget: lists, but not strings of terms.
GROUPED = ("p99/p95 latency, errors+timeouts, jitter if streaming; queue depth, GPU util/mem "
           "growth; cold start, compile time, restarts; drift on a sampled quality metric.")
BUDGET = ("Budget: network 2, features 4, preprocessing 1, model 6, post 1, leaving 1ms spare, "
          "and I'd measure each stage under load.")


RAMP = ("I'd ramp 1%, 2%, 5%, 10%, 20%, 30%, 50%, 75% and 100%, with a 10-minute bake at each "
        "step.")
GATES = ("Gates before promotion: p99 delta under 1ms, error rate, timeouts, GPU memory, ETA "
         "MAE, late-delivery rate, cancellation rate, order volume and refund rate, all against "
         "the control.")


def test_a_string_of_terms_is_a_term_list() -> None:
    assert term_list(STUFFED)
    for listed in (GROUPED, BUDGET, RAMP, GATES):
        assert not term_list(listed)


def test_points_only_named_in_a_string_of_terms_are_at_most_partly_made() -> None:
    slug = "stripe-fraud-tensorrt-vs-torchserve"
    assert verdict(slug, "dynamic-batching", STUFFED) != "made"
    assert verdict(slug, "memory-fragmentation", STUFFED) != "made"


@pytest.mark.parametrize(("text", "actual"), [
    # A share of a whole said with "with", then what it comes to.
    ("Then a 1% canary: with ~20M daily users that's only around 2,000 people.", 200000.0),
    # A size over a bandwidth is a time: 14 GB / 2,000 GB/s = 7 ms.
    ("Every step streams the 14GB of fp16 weights at about 2 TB/s, which is ~0.7ms per step.",
     7.0),
    # A GPU busy 0.3 s per second of audio keeps up with about 1 / 0.3 streams.
    ("Real-time factor kept under 0.3, which means one GPU can handle about 30 concurrent "
     "streams.", 1 / 0.3),
])
def test_a_derived_figure_that_does_not_follow_is_flagged(text: str, actual: float) -> None:
    [flagged] = derived_figures(text, find_quantities(text))
    assert flagged.actual == pytest.approx(actual)


@pytest.mark.parametrize("text", [
    "Then a 1% canary: with ~20M daily users that's around 200,000 people.",
    "A 1% canary with 20M daily users is about 4 hours of traffic at peak.",
    "Every step streams the 14GB of fp16 weights at about 2 TB/s, which is ~7ms per step.",
    # The budget after "so", not the transfer time.
    "You read all 14GB of weights every step at ~2TB/s, so 20ms means prefill plus a token.",
    "Real-time factor kept under 0.3, which means one GPU can handle about 3 concurrent streams.",
])
def test_a_derived_figure_that_follows_or_is_another_quantity_stands(text: str) -> None:
    assert derived_figures(text, find_quantities(text)) == []


@pytest.mark.parametrize(("answer", "committed"), [
    ("I'd go with 15ms. I'd define it as average latency across all requests, that's the number "
     "that's easy to explain to product and it's stable.", True),
    ("I'd go with 15ms at p99. I'd define it as a tail percentile, not the average latency across "
     "all requests, since the average hides the slow ones.", False),
])
def test_a_target_defined_as_the_average_commits_the_pitfall(answer: str, committed: bool) -> None:
    said = verdict("ad-ranking-latency-target", "average-target", answer)
    assert (said == "made") is committed


@pytest.mark.parametrize(("slug", "key", "compared", "committed"), [
    ("meta-80-a100-sanity-check", "reuse-as-is",
     "45,000 over 80 is 562.5 QPS per GPU, versus the ~40 we use from Azure, so 14x.",
     "45,000 over 80 is 562.5 QPS per GPU, and I'd use that for our planning."),
    ("ad-ranking-latency-target", "average-target",
     "Ranking is one of several serial calls, so the ranking model typically gets 10-20ms. I'd "
     "promise 15ms at p99.",
     "A request typically takes 15ms, so that's my target."),
])
def test_a_figure_compared_or_a_usual_allowance_is_not_the_pitfall(
        slug: str, key: str, compared: str, committed: str) -> None:
    assert verdict(slug, key, compared) == "missed"
    assert verdict(slug, key, committed) == "made"


def test_the_error_rate_called_the_cleanest_signal_commits_only_5xx() -> None:
    slug, key = "oracle-serverless-cold-starts", "only-5xx"
    assert verdict(slug, key, "For me the cleanest signal on any serving platform is the error "
                              "rate. I'd page when 5xx goes over 1% for 5 minutes.") == "made"
    assert verdict(slug, key, "I'd track cold-start latency and rate, p99 on warm requests and "
                              "the error rate. The cleanest signal for cold starts is time to "
                              "first byte after scale-up.") == "missed"


# The review's false positives: right sentences in the new forms, each once flagged.
@pytest.mark.parametrize(("slug", "key", "answer"), [
    ("pinterest-batch-size-tradeoff", "utilization-not-waste",
     "I'd sweep batch sizes. I know the argument that 65% is burst headroom for spikes, though "
     "I'd still run a sweep to confirm the spare third really absorbs them."),
    ("tiktok-20ms-budget", "measurement-plan",
     "I'd give myself 15ms p99. A lot of people insist on load testing at 2x peak with a tracing "
     "span per stage - I'd rather not ship without it either."),
    ("doordash-eta-canary", "bake-window",
     "Canary at 2% with sticky users. A lot of teams insist on a 15 minute bake after each "
     "shift, and I'd do the same, however boring it is."),
    ("robinhood-bad-model-blast-radius", "per-version-monitoring",
     "Per-version dashboards against the baseline are my team's job: latency, errors and "
     "prediction drift split by model version."),
    ("canary-and-versioning-design", "bake-window",
     "Canary with Istio weights, 2% to start. After the 15-minute bake at each step I'd retire "
     "the old replicas."),
    ("robinhood-bad-model-blast-radius", "flag-latency",
     "The 200us flag lookup we don't pay per request: flag state lives in each process with "
     "streamed updates, behind a kill switch."),
])
def test_a_point_sided_with_kept_or_paid_for_once_stays_made(slug: str, key: str,
                                                             answer: str) -> None:
    assert verdict(slug, key, answer) in CREDITED


def test_a_remote_call_said_fine_only_for_a_toy_still_counts_as_a_cost() -> None:
    assert verdict("robinhood-bad-model-blast-radius", "remote-flag-every-request",
                   "Asking a remote flag service on every request costs ~200µs, fine for a toy "
                   "service but not at 50k QPS, so each server keeps flag state in memory."
                   ) == "missed"


@pytest.mark.parametrize("text", [
    "A 99.9% SLO across 30 days is about 43 minutes of error budget.",
    "20% headroom with 1,250 GPUs comes to 1,500 GPUs.",
    "At 65% utilization across 100 GPUs, that's 35 GPUs of idle burst headroom.",
    "At under 40% CPU with 200k requests a minute, that's about 3,333 requests a second.",
    "Reading 14GB at 2TB/s is about 10ms in practice, since we only get ~70% of peak bandwidth.",
    "A 14 GB model over 100 Gb/s takes about 1.1 s to pull.",
    "Real-time factor below 0.5 with one GPU running 16 concurrent streams, measured under load.",
    "I'd alert if the real-time factor goes over 0.8 on any GPU, and aim for about 20 concurrent "
    "streams per GPU.",
])
def test_totals_complements_practical_bandwidth_and_measured_loads_are_not_slips(
        text: str) -> None:
    assert derived_figures(text, find_quantities(text)) == []


@pytest.mark.parametrize(("slug", "key", "kept", "skipped"), [
    ("doordash-eta-canary", "versioned-shadow",
     "Many people skip shadow mode; I wouldn't. I'd mirror live requests to the new model first "
     "and compare its ETAs with prod.",
     "Many people skip shadow mode and so would I; I'd go straight to a 2% canary."),
    ("canary-and-versioning-design", "bake-window",
     "Some teams skip the bake window, but I'd never do that: 10 minutes at each step before "
     "promoting.",
     "Some teams skip the bake window and so would I, it slows everything down."),
])
def test_what_others_skip_and_the_candidate_keeps_is_made(slug: str, key: str, kept: str,
                                                          skipped: str) -> None:
    assert verdict(slug, key, kept) in CREDITED
    assert verdict(slug, key, skipped) not in CREDITED
