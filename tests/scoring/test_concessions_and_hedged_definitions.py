"""Issue 9, seventh round: points conceded to others and turned down ("someone will bring up X,
but ..."), a waved point that keeps only a figure said elsewhere, and wrong definitions said
through a hedge, a qualifier or a verb ("OpenVINO, which as I understand it memoizes ...").
Sentences written for this file; each wrong claim has a twin that states the fact right."""

from __future__ import annotations

import pytest

from scoring.engines.dismissals import conceded_then_dismissed
from scoring.engines.relations import (
    launch_overhead_gone,
    misattributed_features,
    reversed_percentile_shares,
    reversed_percentiles,
    turned_facts,
)
from scoring.engines.rubric import RubricEngine
from scoring.engines.senses import wrong_definitions
from tests.scoring.test_engines import bank_question
from tests.scoring.test_features_and_senses import CREDITED, claimed, verdict


def conceded(sentence: str, point: str) -> bool:
    return conceded_then_dismissed(sentence, 0, len(sentence), sentence.index(point))


@pytest.mark.parametrize(("sentence", "point"), [
    ("Someone will bring up the kernel launch overhead, but honestly that's a "
     "micro-optimisation and I'd leave it out.", "kernel launch"),
    ("I've also heard Triton ensembles suggested for this, but that's a whole new serving "
     "platform for one model, so no.", "Triton"),
    ("Drift dashboards come up a lot, but that's the data science team's problem.", "Drift"),
    ("People often push for a bake after every step, but it isn't needed here.", "bake"),
])
def test_a_point_others_bring_up_and_the_candidate_turns_down_is_waved_away(
        sentence: str, point: str) -> None:
    assert conceded(sentence, point)


@pytest.mark.parametrize(("sentence", "point"), [
    ("Someone will bring up the kernel launch overhead, but they're right, so I budget 2ms.",
     "kernel launch"),
    ("I've also heard Triton ensembles suggested for this, and I'd use one here.", "Triton"),
])
def test_a_point_others_bring_up_and_the_candidate_keeps_stands(sentence: str,
                                                                 point: str) -> None:
    assert not conceded(sentence, point)


BUDGET = "I'd target 15ms at p99: 2ms network, 3ms features, 6ms model, 2ms spare. "


def test_a_point_waved_away_is_not_made_by_a_figure_said_elsewhere() -> None:
    waved = BUDGET + ("The kernel launch overhead is a non-issue here, I wouldn't set aside "
                      "any budget for it.")
    kept = BUDGET + "The kernel launch overhead is a fixed 2ms per call, so it gets its own line."
    assert verdict("tiktok-20ms-budget", "launch-overhead", waved) not in CREDITED
    assert verdict("tiktok-20ms-budget", "launch-overhead", kept) in CREDITED


def test_a_concession_turned_down_leaves_only_a_figure_and_is_not_made() -> None:
    answer = BUDGET + ("Someone will bring up the 2ms kernel launch overhead, but honestly "
                       "that's a micro-optimisation and I wouldn't carve out budget for it.")
    assert verdict("tiktok-20ms-budget", "launch-overhead", answer) not in CREDITED


WRONG_AND_RIGHT = [
    ("We could try OpenVINO, which as I understand it caches earlier predictions so repeats "
     "skip the model.",
     "We could try OpenVINO, which as I understand it runs the model on Intel CPUs faster."),
    ("INT8 quantization, which speeds things up by spreading each layer over more cores, "
     "comes next.",
     "INT8 quantization, which stores weights at lower precision, comes next."),
    ("Memory fragmentation on TorchServe is when the weights on disk get corrupted over time.",
     "Memory fragmentation on TorchServe is when free memory is broken up into small blocks."),
    ("The kernel launch overhead is only paid once when the model is loaded, so after warm-up "
     "each call costs just the math.",
     "The kernel launch overhead is paid on every call, so after warm-up it is still there."),
    ("Its dynamic batching means it picks a different model version for each request.",
     "Its dynamic batching means it groups several requests into one forward pass."),
    ("I'd make the canary sticky, meaning the canary stays pinned on the same set of hosts.",
     "I'd make the canary sticky, meaning the same user always gets the same model."),
    ("I'd page on burn rate, which is just the raw error percentage over the last minute.",
     "I'd page on burn rate, which is how many times faster than allowed we spend the "
     "error budget."),
]


@pytest.mark.parametrize(("wrong", "right"), WRONG_AND_RIGHT)
def test_terms_defined_wrongly_through_a_hedge_qualifier_or_verb(wrong: str, right: str) -> None:
    assert claimed(wrong_definitions, wrong)
    assert claimed(wrong_definitions, right) == []


def test_a_wrong_definition_said_through_which_contradicts_its_point() -> None:
    answer = ("We're 7ms over. On the CPU side I'd try OpenVINO, which as I understand it "
              "memoizes previous predictions so repeat requests skip the model entirely.")
    assert verdict("lyft-18ms-cpu-stack", "cpu-levers", answer) == "contradicted"


@pytest.mark.parametrize(("finder", "wrong", "right"), [
    (reversed_percentiles,
     "The figure is at p95, which is a stricter bar than p99, so the tail is covered.",
     "The figure is at p95, which is a looser bar than p99, so the tail is unknown."),
    (reversed_percentile_shares,
     "I'd state it as p99, meaning 99% of requests are allowed to be slower than 15ms.",
     "I'd state it as p99, meaning 99% of requests are faster than 15ms."),
])
def test_percentile_order_and_share_said_the_wrong_way(finder, wrong: str, right: str) -> None:
    assert claimed(finder, wrong)
    assert claimed(finder, right) == []


def test_a_single_stage_named_is_not_a_per_stage_budget() -> None:
    answer = ("11.3 against a 12ms ceiling leaves 0.7ms, so we're inside the SLA. "
              "Maybe keep an eye on feature fetch latency too.")
    assert verdict("snapchat-p95-12ms-bid-requests", "stage-budget", answer) not in CREDITED


def committed(slug: str, key: str, answer: str) -> bool:
    return verdict(slug, key, answer) == "made"  # a pitfall verdict of "made" is committed


@pytest.mark.parametrize(("slug", "key", "criticised", "made"), [
    ("instacart-canary-playbook", "errors-only",
     "It starts small, good. What bothers me is that the only things checked are latency and "
     "5xx, so I'd add click-through and add-to-cart.",
     "It starts small, good. The only things checked are latency and 5xx, and that's enough."),
    ("ad-ranking-latency-target", "average-target",
     "I'd set 15ms at p99, which is why the target is stricter than an average of 15ms.",
     "I'd set the target at 15ms on average, measured over a minute."),
])
def test_a_mistake_named_to_criticise_or_compare_is_not_committed(
        slug: str, key: str, criticised: str, made: str) -> None:
    assert not committed(slug, key, criticised)
    assert committed(slug, key, made)


def test_going_straight_to_a_bigger_batch_to_fill_an_idle_card_chases_utilisation() -> None:
    chased = ("A third of an expensive GPU sitting idle is money we're throwing away, so I'd go "
              "straight to batch 64 and get the card close to fully loaded.")
    kept = ("A third of an expensive GPU sitting idle is money we're throwing away, so I'd go "
            "straight to batch 64 if p99 stays inside the budget.")
    assert committed("pinterest-batch-size-tradeoff", "chase-utilization", chased)
    assert not committed("pinterest-batch-size-tradeoff", "chase-utilization", kept)


def test_room_left_above_normal_is_the_margin_and_is_checked() -> None:
    def margin(answer: str):
        outcome = RubricEngine().score(bank_question("snowflake-jit-compilation-sli"), answer)
        return next(c for c in outcome.numbers if c.criterion_key == "margin")

    wrong = margin("The cached p95 is 45ms and the alert is at 80ms, so there's about 25ms of "
                   "room above normal.")
    right = margin("The cached p95 is 45ms and the alert is at 80ms, so there's about 35ms of "
                   "room above normal.")
    assert (wrong.found_value, wrong.within_tolerance) == (25, False)
    assert (right.found_value, right.within_tolerance) == (35, True)


def test_more_machinery_than_a_service_needs_waves_the_point_away() -> None:
    waved = ("I'd page on p99 and errors. Error budget burn-rate alerting feels like more "
             "machinery than a single service needs; a plain threshold on p99 does the job.")
    kept = ("I'd page on p99 and errors. Error budget burn-rate alerting is worth the "
            "machinery: a fast burn pages, a slow burn files a ticket.")
    assert verdict("inference-slis-and-alerts", "burn-rate", waved) not in CREDITED
    assert verdict("inference-slis-and-alerts", "burn-rate", kept) in CREDITED


def test_a_point_someone_else_will_raise_and_the_candidate_waves_off_is_not_made() -> None:
    waved = ("TensorRT is 5ms faster at p99. Someone will say the tokenizer service and the "
             "engine can drift out of sync, but the tokenizer never changes, so I wouldn't "
             "build any lockstep versioning around it.")
    kept = ("TensorRT is 5ms faster at p99. The tokenizer service and the engine can drift out "
            "of sync, so I'd version them in lockstep and deploy them together.")
    assert verdict("netflix-bert-tensorrt-preprocessing", "version-skew", waved) \
        not in CREDITED
    assert verdict("netflix-bert-tensorrt-preprocessing", "version-skew", kept) in CREDITED


# Senses written ahead of any answer that needed them: each wrong use has a right twin.
SENSES_AHEAD = [
    ("If a call breaches, the circuit breaker retries it on another replica until it gets a "
     "real score.",
     "If calls keep breaching, the circuit breaker trips and we serve the default score."),
    ("The fallback means we retry on another replica until the full model answers.",
     "The fallback means we serve a cached score or a popularity ranking."),
    ("Headroom is how busy the cards already are, so 78% is our headroom.",
     "Headroom is the spare capacity left for spikes, so 22% here."),
    ("Throughput is how long a single request takes end to end.",
     "Throughput is how many requests per second one card sustains."),
    ("The KV cache is where we cache the whole responses for repeated prompts.",
     "The KV cache keeps the attention keys and values of earlier tokens."),
    ("Tensor parallelism means running more replicas of the model behind the balancer.",
     "Tensor parallelism means splitting each layer's matrices across GPUs."),
    ("MIG, which is a way to combine several GPUs into one big card.",
     "MIG, which is a way to partition one GPU into isolated slices."),
    ("The kill switch shuts down the whole service until we retrain.",
     "The kill switch is a flag that routes traffic back to the old model in seconds."),
    ("Time to first token is the time to generate the whole response.",
     "Time to first token is the wait until the first token starts streaming."),
    ("The sync window is the bake period we watch the canary for.",
     "The sync window is the delay before Argo applies what's in Git."),
    ("Canary rollout means you run both models side by side on full traffic all day.",
     "Canary rollout means a small slice of real traffic goes to the new model first."),
    ("Rollback, which means restoring the prediction database from last night's snapshot.",
     "Rollback, which means pointing traffic back at the previous version in the registry."),
    # Right definitions in words the senses did not know before.
    ("Dynamic batching is just running several model copies at once.",
     "Dynamic batching is where you set a max batch size and a max batch delay."),
    ("Intra-op parallelism means adding more worker processes.",
     "Intra-op parallelism means each inference uses several threads."),
    ("The error budget is how many GPUs we can afford this quarter.",
     "The error budget is the share of requests the SLO allows to fail."),
    ("GPU memory fragmentation, which is where the engine gets sharded over several GPUs.",
     "GPU memory fragmentation, which is where free memory is split into small pieces."),
    ("Memory fragmentation is when the model gets split over two GPUs.",
     "Memory fragmentation is when free memory is split into small blocks."),
]


@pytest.mark.parametrize(("wrong", "right"), SENSES_AHEAD)
def test_terms_of_the_subject_misused_are_wrong_definitions(wrong: str, right: str) -> None:
    assert claimed(wrong_definitions, wrong)
    assert claimed(wrong_definitions, right) == []


TURNED_AND_RIGHT = [
    ("The engine is compiled once per GPU family and new model weights can be swapped in "
     "without a rebuild.",
     "The engine is compiled per model version, so new weights can't be swapped in without "
     "a rebuild."),
    ("I'd pick TensorRT since the rebuild doesn't apply to retrains.",
     "I'd pick TensorRT since the rebuild applies to every retrain and CI can absorb it."),
    ("The rebuild is the catch, but I think that's only triggered when we upgrade the GPU "
     "driver.",
     "The rebuild is the catch: it's triggered by every new model version."),
    ("I'd use an immutable tag per environment, like price-model:prod, and re-point it to the "
     "newest build on each promotion.",
     "I'd use an immutable tag per build and never move it; promotion edits the manifest."),
    ("If the p-value comes out high, the difference is real, so we block the promotion.",
     "If the p-value comes out low, the difference is real, so we block the promotion."),
    ("TorchServe is actually faster at p99, 7ms against TensorRT's 12ms.",
     "TorchServe is faster to ship, but TensorRT is 7ms against its 12ms at p99."),
    ("TensorRT was the slower one in our benchmark.",
     "TensorRT is slower to update because of the rebuild."),
    ("INT8 weights take more memory than FP16 weights.",
     "INT8 weights take half the memory of FP16 weights."),
    ("Dynamic batching adds no latency because requests never wait.",
     "Dynamic batching adds up to the max delay of latency while requests wait."),
    ("Argo CD applies a Git change instantly, so a revert is the rollback.",
     "Argo CD applies a Git change within its sync window, up to five minutes."),
    ("With TensorRT we can change input shapes freely at runtime.",
     "With TensorRT input shapes must fall inside the optimization profiles."),
]


@pytest.mark.parametrize(("wrong", "right"), TURNED_AND_RIGHT)
def test_facts_turned_round_in_plain_relations(wrong: str, right: str) -> None:
    assert claimed(turned_facts, wrong)
    assert claimed(turned_facts, right) == []


def test_weights_swapped_without_a_rebuild_contradict_the_rebuild_point() -> None:
    answer = ("TensorRT is faster, 7ms against 12ms at p99. The 45-minute rebuild is the "
              "catch, but the engine is compiled once per GPU family and new model weights can "
              "be swapped in without a rebuild.")
    assert verdict("stripe-fraud-tensorrt-vs-torchserve", "reversed-facts", answer) == "made"


BAKE = "a bake window after every traffic step"
DEFERRED_OR_WAVED = [
    "{X} is premature at this point.", "I'd push {X} to a later phase.", "I'd punt on {X}.",
    "{X} strikes me as over-engineering.", "{X} feels like gold-plating.",
    "{X} is a distraction here.", "Forget about {X}, it won't move the needle.",
    "{X} is someone else's concern.", "{X} is out of scope for v1.",
    "{X} is academic at this scale.", "I'd deprioritise {X}.", "{X} won't matter in practice.",
    "{X} is overrated.", "{X} adds nothing here.", "{X} is a second-order concern.",
    "{X} is a v2 problem.", "{X} is not a priority.", "{X} is something we can revisit later.",
    "Tbh {X} is just bureaucracy.", "{X} can wait until we have real traffic.",
    "{X}? Not needed at this scale.", "{X} only matters at Google scale.",
    "I'd leave {X} out for now.",
    "{X}? I'd skip it.", "{X} can be skipped.", "I'm skeptical of {X}, it rarely pays off.",
    "{X} is more trouble than it's worth.", "{X} sounds good on paper, but I wouldn't do it.",
    "I'd hold off on {X}.", "{X} feels excessive.", "{X}: not needed.",
    "{X} doesn't buy us much.", "{X} is low value.",
    "{X} is the kind of thing we can add later.", "{X} mostly adds complexity.",
    "{X} would slow us down for no real gain.",
    "I'd rather keep it simple and leave out {X}.",
    "Frankly {X} is theatre for a 2% canary.",
    "We could do {X}, but honestly nobody will look at it.",
    "I've seen teams insist on {X}; I think it's mostly ceremony.",
    "{X} sounds rigorous but in practice it just slows releases down.",
    "{X} would be my last priority.",
    "The last thing I'd add is {X}, and only if we have spare time.",
    "{X} is not in my plan.", "{X} doesn't fit a weekly cadence, so it's out.",
    "{X} is something SRE can own later if they want it.", "People overrate {X}.",
    "{X} is a nice idea that I'd leave for a later iteration.",
]


@pytest.mark.parametrize("template", DEFERRED_OR_WAVED)
def test_a_point_deferred_or_waved_off_in_everyday_words_is_not_made(template: str) -> None:
    sentence = template.replace("{X}", BAKE)
    answer = "I'd ramp 2, 10, 50, 100. " + sentence[0].upper() + sentence[1:]
    assert verdict("instacart-canary-playbook", "bake-each-step", answer) not in CREDITED


@pytest.mark.parametrize(("slug", "key", "answer"), [
    ("instacart-canary-playbook", "bake-each-step",
     "Promoting straight from 2% is premature, so I'd hold a 10-minute bake after every "
     "traffic step."),
    ("tiktok-20ms-budget", "launch-overhead",
     "Forget averages: the 2ms kernel launch overhead is a fixed cost per call, so it gets its "
     "own line."),
    ("inference-slis-and-alerts", "burn-rate",
     "I'd park the dashboards and start with error-budget burn-rate alerting, fast and slow "
     "burn."),
    ("tiktok-20ms-budget", "launch-overhead",
     "We can't defer the 2ms kernel launch overhead: it's a fixed cost per call, so it's in "
     "the budget."),
])
def test_the_same_words_around_a_point_kept_leave_it_made(slug: str, key: str,
                                                         answer: str) -> None:
    assert verdict(slug, key, answer) in CREDITED


@pytest.mark.parametrize(("slug", "key", "answer"), [
    ("snapchat-p95-12ms-bid-requests", "benchmark-as-guarantee",
     "The switch to TensorRT fixed it, case closed."),
    ("pinterest-batch-size-tradeoff", "chase-utilization",
     "The GPU is at 35%, so I'd crank the batch size up to 128 to use the whole card."),
    ("meta-80-a100-sanity-check", "reuse-as-is",
     "We can take their 562 QPS per A100 and size our fleet with it directly."),
    ("instacart-canary-playbook", "errors-only",
     "If there's no 5xx spike, the model's good enough to promote."),
])
def test_pitfalls_committed_in_plain_words(slug: str, key: str, answer: str) -> None:
    assert committed(slug, key, answer)


@pytest.mark.parametrize(("slug", "key", "answer"), [
    ("snapchat-p95-12ms-bid-requests", "benchmark-as-guarantee",
     "TensorRT got us to 11.3ms, but I'd re-measure p95 on every release."),
    ("pinterest-batch-size-tradeoff", "chase-utilization",
     "I'd raise the batch size only while p99 stays under 10ms, then stop."),
    ("meta-80-a100-sanity-check", "reuse-as-is",
     "562 QPS per GPU is far above Azure's 40, so I'd check the workload before planning on "
     "it."),
    ("instacart-canary-playbook", "errors-only",
     "5xx alone misses a model that's fast but wrong, so I'd add CTR and add-to-cart."),
])
def test_the_same_pitfalls_avoided_are_not_charged(slug: str, key: str, answer: str) -> None:
    assert not committed(slug, key, answer)


def test_launch_overhead_said_to_disappear_on_gpus_is_wrong() -> None:
    assert claimed(launch_overhead_gone, "On GPUs the kernel launch overhead disappears.")
    assert claimed(launch_overhead_gone,
                   "With CUDA graphs the kernel launch overhead disappears on GPUs.") == []


@pytest.mark.parametrize(("slug", "key", "answer"), [
    ("ad-ranking-latency-target", "ask-first",
     "I'd check with whoever calls us what their deadline is before picking a number."),
    ("snapchat-p95-12ms-bid-requests", "timeout-fallback",
     "If a request runs late we bail out and submit a floor bid instead of missing the auction."),
    ("snowflake-jit-compilation-sli", "windowed-alert",
     "I'd alert when p95 stays over 80ms, not on individual slow compiles."),
])
def test_points_made_in_the_candidates_own_words_are_credited(slug: str, key: str,
                                                             answer: str) -> None:
    assert verdict(slug, key, answer) in CREDITED


@pytest.mark.parametrize(("wrong", "right"), [
    ("TensorRT's .mar archives make versioning easy.",
     "TorchServe's .mar archives make versioning easy."),
    ("TorchServe builds an engine per GPU type.", "TensorRT builds an engine per GPU type."),
    ("With TensorRT we keep our Python handlers for tokenization.",
     "With TorchServe we keep our Python handlers for tokenization."),
    ("TorchServe does INT8 calibration and layer fusion.",
     "TensorRT does INT8 calibration and layer fusion."),
    ("TensorRT exposes a management API to register model versions.",
     "TorchServe exposes a management API to register model versions."),
])
def test_more_tool_features_said_of_the_other_tool(wrong: str, right: str) -> None:
    assert claimed(misattributed_features, wrong)
    assert claimed(misattributed_features, right) == []


def test_a_version_said_of_the_rebuild_is_not_torchserves_version_management() -> None:
    answer = ("TensorRT gets its speed from compiling the model. The downside is every new "
              "model version needs the engine rebuilt, which here is 45 minutes in CI. "
              "TorchServe is much easier to operate day to day.")
    assert verdict("stripe-fraud-tensorrt-vs-torchserve", "torchserve-ops", answer) \
        not in CREDITED


@pytest.mark.parametrize("slug", ["stripe-fraud-tensorrt-vs-torchserve",
                                  "uber-weekly-model-release-train", "doordash-eta-canary",
                                  "twilio-transcription-slis", "lyft-18ms-cpu-stack"])
def test_the_question_copied_back_makes_no_point_and_no_mistake(slug: str) -> None:
    question = bank_question(slug)
    outcome = RubricEngine().score(question, f"So, to restate: {question.scenario} "
                                             f"{question.prompt}")
    assert [v.key for v in outcome.criteria if v.verdict in {"made", "partly"}] == []
    assert outcome.total < 10


def test_the_scenes_facts_used_in_the_candidates_own_sentence_still_count() -> None:
    answer = ("At Stripe the fraud model sits in the payment authorization path, and every "
              "model version needs the engine recompiled, which is 45 minutes of CI per "
              "release, so I'd lean TorchServe unless retrains are rare.")
    assert verdict("stripe-fraud-tensorrt-vs-torchserve", "rebuild-cost", answer) in CREDITED
