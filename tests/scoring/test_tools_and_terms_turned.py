"""Issue 9, tenth round: facts of the tools and terms said the wrong way round.

- CUDA graphs said to put model replicas on one GPU (they capture and replay kernel launches).
- Memory utilization read as busy time, with the "headroom" it leaves called compute headroom.
- A TensorRT rebuild called a one-off per GPU type that later model versions reuse.
- Memory fragmentation called a TensorRT issue (TorchServe's eager allocator fragments), and the
  rebuild said to be "for TorchServe".
- A numeric result said in the criterion's own ratio form ("about 14 times the 40 per A100"
  where the criterion counts 1,125 GPUs) is accepted, and not shown as off.
- A traffic ramp written out as increasing shares ("go to 25%, then 100%") makes the ramp point;
  "go from 2% straight to 100%" no longer does through the phrase "instead of going straight to
  100", which names what the point rejects.
- "Larger batches" say what the rubric's "bigger batches" say.
- TorchServe said to have no batching, and TorchServe's Python handlers given to TensorRT by "its".
- Spare capacity read as the same share of extra traffic ("40% CPU, 60% headroom, so 60% more
  traffic": a fleet 40% busy takes 150% more) is shown as a derived figure and turns the point.
- "I'd not worry whether the 40% is peak or average" matched the phrase "peak not average"
  because the subject of a rejection agreed negated or not; negated from before, it opposes.
- "FP16 or packing replicas, those are separate projects": a dismissal after "those are" points
  back over the comma.
- "Jitter I'd define as the average latency" is a definition; "cache hit rate, by which I mean
  the fraction of requests that hit the 80ms threshold" is not saved by the word "fraction".
- A cold-start rate defined as replicas spun up per hour, or "the same thing measured per hour".
- An alert written with its threshold and window ("page when 5xx goes over 1% for 5 minutes")
  makes the windowed-alert point that the rubric names "sustained" or "over a window".
- "I'd count on keeping basically all 5ms" commits the Netflix pitfall (new bank phrases); what
  follows "before claiming" is not claimed.
- A phrase's number is read where the phrase says it: "... into the 1,250 range, ... so I'd sign
  off on 1,250" signs off on the second 1,250 and commits the pitfall.
- A phrase that rejects in words the negation marking hears ("says nothing about the last 5%")
  matches where the answer rejects the same way; new phrases for the p95 caveat.
- Lyft headroom said as "about 15 at p99 to have room for jitter" or "a bit of margin" (bank
  phrases).
- "A slow first request is expected behaviour" waves the cold-start latency point away.
- "~670kW" says the rubric's "kW": a unit written onto its number is a word of the answer.
- Facts turned round in other words: p95 "the looser, bigger figure"; a bigger batch whose queue
  "empties quicker"; launch overhead that "gets worse with batch size"; an engine that "runs on any
  GPU"; "give every worker as many threads as the box has"; a sync window that "only matters on the
  way up"; a rising cache hit rate as "compiling more".
- "50 000 / 40 = 1 250 GPUs": groups of three digits split by spaces are one number (not before a
  time unit: "3 100ms" stays three of 100ms).
- "Keeping replicas warm defeats the point", "a stabilization period just slows the rollout": waved.
- "45k / 80 ≈ 560 QPS each": a rate said of each machine is a per-GPU rate.
- "TensorRT makes that 7, so the engine alone is about 42% faster": the criterion's own share
  form of the 5ms gain is the same result, shown as "said as a percentage" with its own figure.
- "Keep going until utilization is up in the 90s" chases utilization (bank phrases).
- "We never overwrite a tag" is an immutable tag (bank phrases); "over 80ms for a few minutes" is a
  windowed alert.

Sentences written for this file; each wrong one has a right twin that stands."""

from __future__ import annotations

import pytest

from scoring.engines.numbers import find_quantities
from scoring.engines.relations import (
    misattributed_features,
    portable_engines,
    reversed_batching,
    reversed_percentiles,
    turned_facts,
)
from scoring.engines.rubric import RubricEngine
from scoring.engines.senses import wrong_definitions
from tests.scoring.test_engines import bank_question
from tests.scoring.test_features_and_senses import CREDITED, claimed, verdict

TURNED = [
    ("CUDA graphs let you put two model replicas on the same GPU, another way to lift "
     "utilization.",
     "CUDA graphs let you capture the kernel launches once and replay them, so the per-launch "
     "CPU overhead goes away."),
    ("The 78% memory utilization is good news, it means the GPUs are only busy 78% of the time "
     "so there's 22% compute headroom left.",
     "The 78% memory utilization means 78% of the card's memory is in use, so there's some "
     "headroom left."),
]


@pytest.mark.parametrize(("wrong", "right"), TURNED)
def test_a_term_given_another_terms_sense_is_a_wrong_definition(wrong: str, right: str) -> None:
    assert claimed(wrong_definitions, wrong)
    assert claimed(wrong_definitions, right) == []


@pytest.mark.parametrize(("wrong", "right"), [
    ("The 45-minute rebuild is a one-off per GPU type, so once it's built later model versions "
     "reuse it.",
     "The 45-minute rebuild is per model version, so new versions can't reuse the old engine."),
    ("Memory fragmentation is mostly a TensorRT issue, since engines grab workspace up front.",
     "Memory fragmentation is mostly a TorchServe issue over long uptimes."),
    ("Memory fragmentation is mostly a TensorRT issue, since engines grab workspace up front.",
     "Fragmentation is not a TensorRT problem, it preallocates."),
])
def test_a_tool_fact_turned_round_is_a_wrong_claim(wrong: str, right: str) -> None:
    assert claimed(turned_facts, wrong)
    assert claimed(turned_facts, right) == []


FRAUD = ("TensorRT is faster, about 7ms vs 12ms p99 on TorchServe, because it fuses layers and "
         "runs FP16. ")


@pytest.mark.parametrize(("slug", "key", "wrong", "right"), [
    ("pinterest-batch-size-tradeoff", "launch-overhead",
     "I'd raise the batch carefully. Also CUDA graphs let you put two model replicas on the same "
     "GPU, that's another lever beyond batching.",
     "I'd raise the batch carefully. Also CUDA graphs let you capture the kernel launches once "
     "and replay them, cutting the fixed launch overhead per batch."),
    ("stripe-fraud-tensorrt-vs-torchserve", "rebuild-cost",
     FRAUD + "The 45-minute rebuild is a one-off per GPU type: once the engine's built for our "
             "T4s, later model versions reuse it, so frequent retrains aren't an issue.",
     FRAUD + "The 45-minute rebuild comes with every model version, so frequent retrains "
             "hurt."),
    ("stripe-fraud-tensorrt-vs-torchserve", "memory-fragmentation",
     FRAUD + "Memory fragmentation is mostly a TensorRT issue, so I'd watch memory on the TRT "
             "side.",
     FRAUD + "Memory fragmentation is mostly a TorchServe issue over long uptimes, so I'd "
             "watch per-worker memory there."),
])
def test_a_point_stated_the_wrong_way_round_is_contradicted(slug: str, key: str, wrong: str,
                                                             right: str) -> None:
    assert verdict(slug, key, wrong) == "contradicted"
    assert verdict(slug, key, right) in CREDITED


@pytest.mark.parametrize(("wrong", "right"), [
    ("The 45 minute rebuild is for TorchServe .mar archives, I believe.",
     "The 45 minute rebuild is for TensorRT only."),
    ("Optimization profiles are mostly a TorchServe problem.",
     "Optimization profiles are for TorchServe not needed at all."),
])
def test_a_tools_cost_said_to_be_for_the_other_tool_is_misattributed(wrong: str,
                                                                     right: str) -> None:
    assert claimed(misattributed_features, wrong)
    assert claimed(misattributed_features, right) == []


META = ("45,000 QPS over 80 A100s is about 562 QPS per GPU. ")


@pytest.mark.parametrize(("answer", "made"), [
    (META + "That's about 14 times the ~40 per A100 that Azure reports, too big a gap to trust.",
     True),
    (META + "562.5 per GPU is 14x Azure's 40.", True),
    (META + "That's about 40 times the ~40 per A100 that Azure reports.", False),
])
def test_a_result_said_as_the_criterions_own_ratio_is_accepted(answer: str, made: bool) -> None:
    outcome = RubricEngine().score(bank_question("meta-80-a100-sanity-check"), answer)
    check = next(c for c in outcome.numbers if c.criterion_key == "azure-comparison")
    verdicts = {v.key: v.verdict for v in outcome.criteria}
    assert (verdicts["azure-comparison"] == "made") is made
    assert check.within_tolerance is made and check.another_form is made
    # Never shown as "off" in the calculation lines when it is right.
    shown_off = any("14" in line and "correct result" in line
                    for line in outcome.feedback.get("calculations") or [])
    assert not (made and shown_off)



@pytest.mark.parametrize(("text", "seconds"), [
    ("which is about seven tenths of a millisecond", 0.0007),
    ("so 0.7 of a millisecond, but I don't fully trust that", 0.0007),
    ("a quarter of a second", 0.25),
    ("three quarters of a millisecond", 0.00075),
])
def test_a_fraction_of_a_unit_of_time_is_a_quantity(text: str, seconds: float) -> None:
    found = [q for q in find_quantities(text) if q.unit == "s"]
    assert len(found) == 1 and found[0].value == pytest.approx(seconds)


@pytest.mark.parametrize("text", ["a quarter of the traffic", "an idle third of a GPU",
                                  "2 of a kind"])
def test_a_fraction_of_something_else_is_not_a_time(text: str) -> None:
    assert [q for q in find_quantities(text) if q.unit == "s"] == []


def test_a_margin_said_in_tenths_of_a_millisecond_is_accepted() -> None:
    answer = ("The SLA is p95 and the panel shows p99; p95 can't sit above p99, so p95 is at "
              "most 11.3ms. That leaves at least seven tenths of a millisecond in reserve, "
              "barely 6% of the 12ms, so it's compliant, not safe.")
    outcome = RubricEngine().score(bank_question("snapchat-p95-12ms-bid-requests"), answer)
    check = next(c for c in outcome.numbers if c.criterion_key == "margin")
    assert check.within_tolerance


AZURE = ("50,000 / 40 = 1,250 A100s, and with 20% headroom 1,250 x 1.2 = 1,500. ")


@pytest.mark.parametrize(("waved", "kept"), [
    (AZURE + "On the 40 QPS itself, re-litigating how the benchmark was run isn't a good use "
             "of anyone's time.",
     AZURE + "On the 40 QPS itself, I'd ask how the benchmark was run: prompt lengths, batch "
             "size and the latency target it was measured at."),
    (AZURE + "Re-checking the benchmark conditions behind the 40 QPS is not a good use of "
             "our time.",
     AZURE + "Re-checking the benchmark conditions behind the 40 QPS is a good use of our "
             "time."),
])
def test_a_point_waved_off_as_not_worth_the_time_is_not_made(waved: str, kept: str) -> None:
    slug, key = "azure-capacity-spreadsheet-review", "benchmark-conditions"
    assert verdict(slug, key, waved) not in CREDITED
    assert verdict(slug, key, kept) in CREDITED


INSTACART = ("Keep the 2% start and the automatic Spinnaker rollback on 5xx. The 1ms latency gate "
             "alone is thin, so I'd add error rate and a business metric like add-to-cart rate. ")


@pytest.mark.parametrize("ramp", [
    "After the bake I'd go to 25%, then 100%, with a bake at each.",
    "If it holds, move it to 10%, then 50, then everyone, baking at each step.",
])
def test_a_ramp_written_out_as_increasing_shares_is_made(ramp: str) -> None:
    assert verdict("instacart-canary-playbook", "ramp", INSTACART + ramp) in CREDITED


@pytest.mark.parametrize("not_a_ramp", [
    "After the bake I'd go from 2% straight to 100%.",
    "I'd also try batch sizes 8, 16, 32 on the new model before the canary.",
    "If it holds, move it to 50%, then 10%, to compare.",
])
def test_shares_that_are_not_a_stepwise_ramp_do_not_make_it(not_a_ramp: str) -> None:
    assert verdict("instacart-canary-playbook", "ramp", INSTACART + not_a_ramp) not in CREDITED


def test_larger_batches_are_the_bigger_batches_of_the_rubric() -> None:
    answer = ("I'd give myself 15ms p99 out of the 20. For batching, larger batches get more out "
              "of the GPU but requests wait longer, so keep the window small, a couple ms.")
    assert verdict("tiktok-20ms-budget", "batching-tradeoff", answer) in CREDITED


@pytest.mark.parametrize(("wrong", "right"), [
    ("TorchServe on the other hand has no real batching, each request runs alone.",
     "TorchServe on the other hand has dynamic batching, with a max batch delay per model."),
    ("TorchServe can't batch, so every request pays the full launch cost.",
     "TorchServe can batch too, with batch_size and max_batch_delay in the model config."),
])
def test_torchserve_said_not_to_batch_is_a_turned_fact(wrong: str, right: str) -> None:
    assert claimed(turned_facts, wrong)
    assert claimed(turned_facts, right) == []


def test_a_feature_given_by_its_to_the_tool_just_named_is_misattributed() -> None:
    wrong = ("On flexibility I'd actually lean TensorRT too: its Python handlers let teams put "
             "tokenization right in the engine.")
    right = ("On flexibility I'd lean TorchServe: its Python handlers let teams put "
             "tokenization right next to the model.")
    assert claimed(misattributed_features, wrong)
    assert claimed(misattributed_features, right) == []


SHOPIFY = "200,000 requests per minute is about 3,333 per second. "


@pytest.mark.parametrize(("misread", "right", "shown"), [
    ("At under 40% CPU there's 60% of headroom left, meaning we could push roughly 60% more "
     "traffic through the same fleet.",
     "At under 40% CPU there's 60% of headroom left, meaning we could push roughly 150% more "
     "traffic through the same fleet, if the 40% is the peak.", "(100 - 40) / 40 gives 150%"),
    ("GPU utilization is 50%, so we can take 50% more load.",
     "GPU utilization is 50% and we cap at 80%, so we can take about 60% more load.",
     "(100 - 50) / 50 gives 100%"),
])
def test_spare_capacity_read_as_the_same_share_of_more_traffic_is_wrong(
        misread: str, right: str, shown: str) -> None:
    engine = RubricEngine()
    question = bank_question("shopify-torchserve-200k-rpm")
    wrong_outcome = engine.score(question, SHOPIFY + misread)
    right_outcome = engine.score(question, SHOPIFY + right)
    assert any(shown in line for line in wrong_outcome.feedback["calculations"])
    assert not any("(100 -" in line for line in right_outcome.feedback["calculations"])
    assert verdict("shopify-torchserve-200k-rpm", "headroom-check", SHOPIFY + misread) \
        not in CREDITED


@pytest.mark.parametrize(("waved", "kept"), [
    ("I'd honestly not worry about whether the 40% is peak or average; 40% is low either way.",
     "I'd check the 40% is measured at peak, not average, before calling it headroom."),
    ("I wouldn't worry about whether the 40% is peak or average, there's loads of room.",
     "I'd want the 40% at peak, not average, before I trust the headroom."),
])
def test_a_rejections_subject_negated_from_before_opposes_it(waved: str, kept: str) -> None:
    # The bank's phrase "peak not average" is a rejection whose subject ("peak") comes first.
    assert verdict("shopify-torchserve-200k-rpm", "headroom-check", SHOPIFY + waved) \
        not in CREDITED
    assert verdict("shopify-torchserve-200k-rpm", "headroom-check", SHOPIFY + kept) in CREDITED


PINTEREST = ("Going from 8 to 16 should raise throughput, but each request waits longer, so p99 "
             "goes up. I'd try 16 in a canary and watch p99. ")


@pytest.mark.parametrize(("waved", "kept"), [
    ("FP16 or packing replicas onto the same GPU, those are separate projects.",
     "FP16 or packing replicas onto the same GPU, those are the next levers I'd pull."),
    ("FP16 or packing replicas onto the same GPU, these are another project, not for now.",
     "FP16 or packing replicas onto the same GPU, these are what I'd try first."),
])
def test_a_dismissal_after_those_are_points_back_over_the_comma(waved: str, kept: str) -> None:
    slug, key = "pinterest-batch-size-tradeoff", "other-levers"
    assert verdict(slug, key, PINTEREST + waved) not in CREDITED
    assert verdict(slug, key, PINTEREST + kept) in CREDITED


@pytest.mark.parametrize(("wrong", "right"), [
    ("Jitter I'd define as the average latency across all streams, if that goes up, captions "
     "lag.",
     "Jitter I'd define as the variation in per-chunk latency, so captions arrive unevenly."),
    ("I'd also track cache hit rate, by which I mean the fraction of requests that hit the "
     "80ms threshold.",
     "I'd also track cache hit rate, by which I mean the fraction of requests served from the "
     "compiled cache."),
])
def test_a_term_said_first_and_then_defined_wrongly_is_caught(wrong: str, right: str) -> None:
    assert claimed(wrong_definitions, wrong)
    assert claimed(wrong_definitions, right) == []


@pytest.mark.parametrize(("wrong", "right"), [
    ("I'd track cold start latency with p50 and p99, and the cold start rate, meaning how many "
     "replicas we spin up per hour.",
     "I'd track cold start latency with p50 and p99, and the cold start rate, meaning the share "
     "of requests that land on a cold replica."),
    ("Cold-start latency is the p99 of requests on a cold replica. The cold-start rate is the "
     "same thing measured per hour.",
     "Cold-start latency is the p99 of requests on a cold replica. The cold-start rate is how "
     "often requests hit a cold replica."),
])
def test_a_cold_start_rate_defined_as_replicas_or_latency_is_wrong(wrong: str,
                                                                   right: str) -> None:
    assert claimed(wrong_definitions, wrong)
    assert claimed(wrong_definitions, right) == []


ORACLE = ("I'd track cold-start latency at p99 and the share of requests that hit a cold "
          "replica. ")


@pytest.mark.parametrize(("answer", "credited"), [
    ("I'd page when 5xx goes over 1% for 5 minutes.", True),
    ("Page if p99 stays above 300ms over 10 min.", True),
    ("I'd page when 5xx goes over 1%.", False),
    ("I'd page on any request over 300ms, no need to wait for 5 minutes.", False),
    ("I wouldn't page when p99 is over 300ms for 10 minutes.", False),
    ("Page when p99 is over 300ms for a few minutes.", True),
])
def test_an_alert_written_with_threshold_and_window_is_a_windowed_alert(answer: str,
                                                                         credited: bool) -> None:
    said = verdict("oracle-serverless-cold-starts", "alert-thresholds", ORACLE + answer)
    assert (said in CREDITED) is credited


NETFLIX = "The engine is 12ms vs 7ms at p99, so 5ms faster. "


@pytest.mark.parametrize(("committed", "avoided"), [
    ("Inside one datacenter an RPC is well under a millisecond, so I'd count on keeping "
     "basically all 5ms.",
     "The new hop has its own tail, so I wouldn't count on keeping all 5ms; I'd measure the "
     "composed path."),
    ("It's an internal call, sub-millisecond, so the bulk of the 5ms survives.",
     "The extra hop and its queue can eat much of the win, so I'd measure before claiming the "
     "bulk of the 5ms survives."),
])
def test_the_engine_win_kept_whole_end_to_end_is_the_pitfall(committed: str,
                                                            avoided: str) -> None:
    slug, key = "netflix-bert-tensorrt-preprocessing", "always-faster"
    assert verdict(slug, key, NETFLIX + committed) == "made"
    assert verdict(slug, key, NETFLIX + avoided) != "made"


def test_a_phrases_number_is_read_where_the_phrase_says_it() -> None:
    said = ("Forty QPS per card is the architect's measured number, 50k divided by 40 gets you "
            "into the 1,250 range, and that's the figure with the 20% built in, so I'd sign off "
            "on 1,250.")
    refused = ("Forty QPS per card is the architect's measured number, 50k divided by 40 gets "
               "you into the 1,250 range, and with 20% on top that's 1,500, so I wouldn't sign "
               "off on 1,250.")
    outcome = RubricEngine().score(bank_question("azure-capacity-spreadsheet-review"), said)
    pitfall = next(v for v in outcome.criteria if v.key == "accepts-1250")
    assert pitfall.verdict == "made"
    assert any(said[s.start : s.end] == "1,250" and s.start > said.index("sign off")
               for s in pitfall.evidence)
    assert verdict("azure-capacity-spreadsheet-review", "accepts-1250", refused) != "made"


META = "The cluster handles 80 A100s worth of traffic at an 18ms p95. "


@pytest.mark.parametrize(("caveat", "none"), [
    ("That 18ms p95 tells me nothing about the last 5% of requests, and our SLO is at p99.",
     "That 18ms p95 tells me we're fine, and our SLO is at p99."),
    ("And 18ms is p95; we don't know the p99.",
     "And 18ms is p95; I know the p99 from our own load test."),
    ("And p95 hides the slowest 5%, which is what our p99 SLO cares about.",
     "And the 18ms is comfortably under our 20ms budget."),
])
def test_a_p95_said_to_leave_the_tail_unknown_makes_the_caveat(caveat: str,
                                                               none: str) -> None:
    slug, key = "meta-80-a100-sanity-check", "percentile-caveat"
    assert verdict(slug, key, META + caveat) in CREDITED
    assert verdict(slug, key, META + none) not in CREDITED


LYFT = "We're at 25ms p99 and the page fires above 18, so I need to find 7ms. "


@pytest.mark.parametrize(("below", "at"), [
    ("I'd really aim for about 15 at p99 to have room for jitter.",
     "I'd aim for just under 18 at p99, that's the line."),
    ("I'd get us under 18 with a bit of margin.",
     "I'd get us to 17.9 and call it done."),
])
def test_a_target_below_the_paging_line_said_without_units_makes_headroom(below: str,
                                                                          at: str) -> None:
    assert verdict("lyft-18ms-cpu-stack", "headroom", LYFT + below) in CREDITED
    assert verdict("lyft-18ms-cpu-stack", "headroom", LYFT + at) not in CREDITED


def test_a_cost_called_expected_behaviour_is_waved_away() -> None:
    opening = "I'd track the share of requests that hit a cold replica. "
    waved = ("The cold-start alert at 300ms I'd honestly retire: a slow first request after "
             "scale-to-zero is expected behaviour on serverless.")
    kept = ("I'd keep the cold-start alert at 300ms: a slow first request after scale-to-zero "
            "is what users feel.")
    slug, key = "oracle-serverless-cold-starts", "coldstart-latency"
    assert verdict(slug, key, opening + waved) not in CREDITED
    assert verdict(slug, key, opening + kept) in CREDITED


def test_a_unit_written_onto_its_number_is_said() -> None:
    opening = "We need 1,667 A100s at peak with headroom. "
    slug, key = "gpu-cluster-sizing-method", "power-cooling"
    assert verdict(slug, key, opening + "That's ~210 servers, ~670kW, need DC sign-off per "
                                        "zone.") in CREDITED
    assert verdict(slug, key, opening + "That's ~210 servers, need DC sign-off per zone.") \
        not in CREDITED


@pytest.mark.parametrize(("finder", "wrong", "right"), [
    (reversed_percentiles,
     "My worry is that p95 is the looser, bigger figure, it takes in more of the slow requests "
     "than p99 does.",
     "p95 is the looser, smaller figure, so if p99 is 11.3 the p95 is at most 11.3."),
    (reversed_batching,
     "With a bigger batch the queue empties quicker, so each request actually spends less time "
     "waiting, and the tail should come down.",
     "With a bigger batch each request spends more time waiting, so the tail goes up."),
    (turned_facts,
     "The thing that gets worse with batch size is the kernel launch overhead, because you "
     "launch more kernels for a bigger batch.",
     "Kernel launch overhead is fixed per call, so a bigger batch spreads it over more "
     "requests."),
    (portable_engines,
     "The 45-minute rebuild is a one-time thing, since once you build the engine it runs on any "
     "GPU we have.",
     "The engine is built per GPU type, so it does not run on any GPU we have."),
    (turned_facts,
     "Intra-op: more threads = faster, I'd give every worker as many threads as the box has.",
     "I'd give each worker a share of the cores so workers times threads matches the box."),
    (turned_facts,
     "The 5-minute sync window only matters on the way up, it delays promotion a bit.",
     "The 5-minute sync window matters both ways: it delays rollback as much as promotion."),
    (turned_facts,
     "If the hit rate goes up it means we're compiling more, so a rising hit rate is the "
     "warning sign.",
     "If the hit rate goes down it means we're compiling more, so a falling hit rate is the "
     "warning sign."),
])
def test_serving_facts_turned_round_in_other_words(finder, wrong: str, right: str) -> None:
    assert claimed(finder, wrong)
    assert claimed(finder, right) == []


@pytest.mark.parametrize(("text", "values"), [
    ("So 50 000 / 40 = 1 250 GPUs just to carry the peak.", [50000, 40, 1250]),
    ("with 10% it is 1 375, with 20% it is 1 500.", [10, 1375, 20, 1500]),
    ("50\u202f000 QPS at peak", [50000]),
    ("we'd run 3 100ms batches", [3, 0.1]),
])
def test_groups_of_three_digits_split_by_spaces_are_one_number(text: str,
                                                               values: list[float]) -> None:
    assert [q.value for q in find_quantities(text)] == pytest.approx(values)


def test_a_count_written_with_spaces_between_digit_groups_is_judged() -> None:
    answer = ("So 50 000 / 40 = 1 250 GPUs just to carry the peak. Then headroom for spikes, "
              "deploys, dead nodes: with 20% it is 1 500; I would plan ~1 500.")
    outcome = RubricEngine().score(bank_question("google-a100-7b-50k-qps"), answer)
    checks = {c.criterion_key: c for c in outcome.numbers}
    assert checks["gpus-before-headroom"].within_tolerance
    assert checks["gpus-with-headroom"].within_tolerance


@pytest.mark.parametrize(("slug", "key", "waved", "kept"), [
    ("oracle-serverless-cold-starts", "mitigations",
     "I'd track cold-start latency at p99. Keeping replicas warm defeats the point of "
     "serverless.",
     "I'd track cold-start latency at p99. Keeping a few replicas warm at peak hours is worth "
     "the cost."),
    ("doordash-eta-canary", "bake-window",
     "I'd shift 5% to the canary and compare it with the baseline. Waiting around for a "
     "10-minute stabilization period just slows the rollout.",
     "I'd shift 5% to the canary and compare it with the baseline. A 10-minute stabilization "
     "period before judging keeps the rollout honest."),
])
def test_a_point_said_to_defeat_the_purpose_or_just_slow_things_is_waved_away(
        slug: str, key: str, waved: str, kept: str) -> None:
    assert verdict(slug, key, waved) not in CREDITED
    assert verdict(slug, key, kept) in CREDITED


@pytest.mark.parametrize(("answer", "right"), [
    ("Ok quick math: 45k / 80 ≈ 560 QPS each.", True),
    ("Ok quick math: 45k / 80 is about 700 QPS each.", False),
])
def test_a_rate_said_of_each_machine_is_a_per_gpu_rate(answer: str, right: bool) -> None:
    outcome = RubricEngine().score(bank_question("meta-80-a100-sanity-check"), answer)
    check = next(c for c in outcome.numbers if c.criterion_key == "per-gpu-qps")
    assert check.found_value is not None
    assert check.within_tolerance is right


@pytest.mark.parametrize(("answer", "made"), [
    ("Today the TorchServe path is 12ms p99 at the model; TensorRT makes that 7, so the engine "
     "alone is about 42% faster.", True),
    ("Today the TorchServe path is 12ms p99 at the model; TensorRT makes that 7, so the engine "
     "alone is about 60% faster.", False),
])
def test_the_engine_gain_said_as_the_criterions_share_is_the_same_result(answer: str,
                                                                          made: bool) -> None:
    outcome = RubricEngine().score(bank_question("netflix-bert-tensorrt-preprocessing"), answer)
    check = next(c for c in outcome.numbers if c.criterion_key == "engine-gain")
    assert check.within_tolerance is made and check.another_form is made
    if made:
        assert check.found_value == 42 and check.found_text == "42%"


def test_a_label_is_not_read_as_the_rejection_its_words_carry() -> None:
    # The label "Asks for the per-GPU peak memory instead of the mean" describes the point.
    answer = ("78% memory utilization means 78% of the 80GB is in use at peak, so there's room "
              "for the KV cache but not much more.")
    assert verdict("meta-80-a100-sanity-check", "memory-peak", answer) in CREDITED


def test_a_heard_rejection_needs_its_rejecting_word() -> None:
    # The pitfall phrase "200us is nothing" is not committed by a cost counted against.
    question = bank_question("robinhood-bad-model-blast-radius")
    outcome = RubricEngine().score(question, question.model_answer)
    pitfall = next(v for v in outcome.criteria if v.key == "remote-flag-every-request")
    assert pitfall.verdict != "made"


@pytest.mark.parametrize(("committed", "avoided"), [
    ("I'd move from 8 to 32, maybe 64, and keep going until utilization is up in the 90s.",
     "I'd try 16 and 32 and stop where p99 hits 9ms, not keep going until utilization is in "
     "the 90s."),
    ("I'd keep raising the batch until the GPU is full.",
     "I wouldn't keep raising the batch until the GPU is full; p99 is the limit."),
])
def test_raising_the_batch_until_the_gpu_is_full_chases_utilization(committed: str,
                                                                    avoided: str) -> None:
    opening = "Going from 8 to 16 should raise throughput but p99 goes up. "
    slug, key = "pinterest-batch-size-tradeoff", "chase-utilization"
    assert verdict(slug, key, opening + committed) == "made"
    assert verdict(slug, key, opening + avoided) != "made"


@pytest.mark.parametrize(("answer", "credited"), [
    ("Every model build gets its own Docker tag, something like price-model:2024-05-14-a1b2c3, "
     "and we never overwrite a tag.", True),
    ("We overwrite the stable tag on every build.", False),
])
def test_a_tag_never_overwritten_is_an_immutable_tag(answer: str, credited: bool) -> None:
    assert (verdict("airbnb-argo-cd-versioning", "immutable-tags", answer) in CREDITED) \
        is credited
