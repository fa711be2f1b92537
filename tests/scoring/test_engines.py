"""The rubric engine on small hand-built questions (no database), and on bundled bank
questions read straight from the YAML for audit regressions."""

from __future__ import annotations

from pathlib import Path

import yaml

from scoring.engines.base import CriterionSpec, QuestionSpec, get_engine
from scoring.engines.rubric import RubricEngine, _pick_pushback, word_overlap
from scoring.engines.text import tokenize

LATENCY = QuestionSpec(
    prompt="What latency budget would you set for a model that must return scores within 20ms?",
    model_answer=(
        "The 20ms is the caller's contract, so I'd set an internal target of about 15ms p99, "
        "keeping 5ms of headroom for network jitter. Kernel launch overhead adds about 2ms per "
        "call, which is why CUDA graphs pay off. Bigger batches raise GPU utilization but add "
        "queueing delay, so I'd cap the batch wait at 2ms."
    ),
    criteria=(
        CriterionSpec("headroom", "Leaves headroom under the 20ms contract", weight=2,
                      phrases=("headroom for network jitter", "buffer under the contract"),
                      feedback_hit="Good: you kept headroom under the contract.",
                      feedback_miss="Keep headroom under the caller's 20ms."),
        CriterionSpec("launch", "Budgets GPU kernel launch overhead", weight=2,
                      phrases=("kernel launch overhead", "fixed cost of dispatching each GPU call"),
                      feedback_hit="Good: you budgeted launch overhead.",
                      feedback_miss="Budget the fixed per-call GPU launch overhead."),
        CriterionSpec("batching", "Batching trades throughput for queueing delay", weight=2,
                      phrases=("bigger batches add queueing delay", "cap the batch wait")),
        CriterionSpec("target", "Sets an internal target of about 15ms", kind="numeric",
                      weight=2, phrases=("internal target",), expected_value=15, unit="ms",
                      tolerance_percent=10),
        CriterionSpec("ignores-launch", "Dismisses launch overhead", kind="pitfall", weight=1,
                      phrases=("ignore launch overhead", "no kernel launch overhead")),
    ),
    pushback=(
        "What happens to your budget when the network wobbles?",
        "Where does the fixed per-call GPU launch cost go in your budget?",
    ),
)

CANARY = QuestionSpec(
    prompt="Describe a canary rollout strategy.",
    criteria=(
        CriterionSpec("bake", "Waits a bake window after each step", weight=2,
                      phrases=("bake window", "let caches warm before judging")),
        CriterionSpec("rollback", "Rolls back automatically", weight=2,
                      phrases=("automatic rollback", "auto rollback")),
        CriterionSpec("skips-bake", "Skips the bake window", kind="pitfall", weight=1,
                      phrases=("no bake window", "skip the bake window")),
    ),
)

GPU_COUNT = QuestionSpec(
    prompt="Estimate the number of A100 GPUs needed to serve a 7B model at 50k QPS.",
    model_answer="Measured 40 QPS per GPU, so 50,000 / 40 = 1,250 GPUs.",
    criteria=(
        CriterionSpec("per-gpu", "Starts from measured per-GPU QPS", weight=1,
                      phrases=("measured QPS per GPU", "benchmark per GPU")),
        CriterionSpec("count", "Reaches about 1,250 GPUs", kind="numeric", weight=3,
                      phrases=("50,000 / 40", "divide peak QPS by per-GPU QPS"),
                      expected_value=1250, unit="GPUs", tolerance_percent=10),
    ),
)

STRONG = (
    "The 20ms is the caller's contract, so I'd set an internal target of 15ms p99 and keep 5ms "
    "of headroom for network jitter we don't control. Kernel launch overhead costs about 2ms "
    "per call, which is why CUDA graphs are worth it. Bigger batches raise utilization but add "
    "queueing delay, so I'd cap the batch wait at 2ms."
)
PARAPHRASE = (
    "I'd aim at an internal target near 15ms, leaving a buffer under the contract because the "
    "hops wobble. Every call to the GPU has a fixed cost of dispatching the work, about 2ms, "
    "so that comes out of compute. Bigger batches keep the card busy but add queueing delay, "
    "so I'd cap the batch wait."
)


def engine() -> RubricEngine:
    return RubricEngine()


def verdict(outcome, key: str):
    return next(v for v in outcome.criteria if v.key == key)


def test_registered_as_default_engine() -> None:
    assert isinstance(get_engine("rubric"), RubricEngine)


def test_strong_answer_scores_high() -> None:
    outcome = engine().score(LATENCY, STRONG)
    assert outcome.total >= 80
    assert outcome.rating == 4


def test_paraphrase_is_credited() -> None:
    outcome = engine().score(LATENCY, PARAPHRASE)
    assert verdict(outcome, "launch").verdict == "made"
    assert verdict(outcome, "headroom").verdict == "made"
    assert outcome.total >= 60


def test_point_mentioned_only_to_reject_it_earns_nothing() -> None:
    outcome = engine().score(CANARY, "Ramp 5 -> 50 -> 100 with auto rollback on 5xx spikes. "
                                     "I wouldn't bother with a bake window, metrics are instant.")
    bake = verdict(outcome, "bake")
    assert bake.verdict == "contradicted"
    assert bake.credit == 0
    assert verdict(outcome, "rollback").verdict == "made"


def test_rejecting_a_point_can_trigger_a_pitfall() -> None:
    rejected = engine().score(CANARY, "Auto rollback on errors. I'd skip the bake window though.")
    kept = engine().score(CANARY, "Auto rollback on errors, after a 15 minute bake window.")
    assert verdict(rejected, "skips-bake").verdict == "made"
    assert verdict(kept, "skips-bake").verdict == "missed"
    assert rejected.total < kept.total


def test_dismissal_after_the_point_is_a_rejection() -> None:
    outcome = engine().score(LATENCY, "Kernel launch overhead is microseconds so I'd ignore it.")
    assert verdict(outcome, "launch").verdict == "contradicted"


def test_bare_buzzword_list_scores_below_reasoned_answer() -> None:
    buzzwords = ("headroom, network jitter, kernel launch overhead, batching, queueing delay, "
                 "batch wait, internal target, p99, CUDA graphs")
    listed = engine().score(LATENCY, buzzwords)
    reasoned = engine().score(LATENCY, STRONG)
    assert listed.total < 50
    assert reasoned.total - listed.total >= 30


def test_numeric_criterion_within_tolerance_is_made() -> None:
    outcome = engine().score(GPU_COUNT, "Measured QPS per GPU is 40, so 50,000 / 40 = 1,250 GPUs.")
    assert verdict(outcome, "count").verdict == "made"
    [check] = outcome.numbers
    assert check.within_tolerance
    assert check.found_value == 1250


def test_right_method_wrong_arithmetic_gets_method_credit_only() -> None:
    outcome = engine().score(GPU_COUNT, "Measured QPS per GPU is 40, so 50,000 / 40 = 125 GPUs.")
    count = verdict(outcome, "count")
    assert count.verdict == "partly"
    assert 0 < count.credit < 1
    [check] = outcome.numbers
    assert check.method_credit
    assert not check.within_tolerance
    assert check.found_value == 125


def test_calculation_feedback_shows_both_results() -> None:
    outcome = engine().score(GPU_COUNT, "Measured QPS per GPU is 40, so 50,000 / 40 = 125 GPUs.")
    text = " ".join(outcome.feedback["calculations"])
    assert "50,000 / 40 = 125" in text
    assert "1,250" in text


def test_wrong_number_without_method_gets_nothing() -> None:
    outcome = engine().score(GPU_COUNT, "Spec sheet says 312 TFLOPS, so about 20 GPUs.")
    assert verdict(outcome, "count").credit == 0


def test_off_topic_empty_and_near_empty_score_near_zero() -> None:
    off_topic = ("I'd use XGBoost and tune hyperparameters with Optuna, and spend most time on "
                 "feature engineering because that moves AUC.")
    for answer in (off_topic, "", "   ", "headroom"):
        assert engine().score(LATENCY, answer).total <= 10, answer


def test_reference_only_mode_scores_against_model_answer() -> None:
    spec = QuestionSpec(prompt=LATENCY.prompt, model_answer=LATENCY.model_answer)
    assert spec.reference_only
    strong = engine().score(spec, STRONG)
    off = engine().score(spec, "Use Kubernetes with a Helm chart and GitHub Actions for CI.")
    assert strong.total >= 70
    assert off.total <= 10
    assert strong.criteria
    assert all(v.key.startswith("ref-") for v in strong.criteria)


def test_reference_only_mode_beats_word_overlap_on_negation() -> None:
    spec = QuestionSpec(prompt=LATENCY.prompt, model_answer=LATENCY.model_answer)
    negated = ("I wouldn't keep headroom for network jitter. Kernel launch overhead is negligible. "
               "I wouldn't cap the batch wait either.")
    # Word overlap rewards the rejected points; the engine must not.
    assert word_overlap(spec.model_answer, negated) > 0.15
    assert engine().score(spec, negated).total < engine().score(spec, PARAPHRASE).total
    assert engine().score(spec, negated).total <= 20


def test_evidence_spans_point_to_the_matching_text() -> None:
    outcome = engine().score(LATENCY, STRONG)
    launch = verdict(outcome, "launch")
    quoted = " ".join(STRONG[s.start : s.end] for s in launch.evidence).lower()
    assert "kernel" in quoted
    assert "launch" in quoted
    assert "overhead" in quoted
    target = verdict(outcome, "target")
    assert any(STRONG[s.start : s.end] == "15ms" for s in target.evidence)


def test_no_feedback_praises_a_point_not_made() -> None:
    answer = "I'd keep 5ms of headroom for network jitter, because the hops wobble."
    outcome = engine().score(LATENCY, answer)
    praised = set(outcome.feedback["strengths"])
    made = {v.feedback for v in outcome.criteria if v.verdict == "made"}
    assert praised <= made
    assert "Good: you budgeted launch overhead." not in praised
    assert "Good: you kept headroom under the contract." in praised


def test_pushback_targets_the_most_important_miss() -> None:
    answer = ("Internal target 15ms p99 with headroom for network jitter; bigger batches add "
              "queueing delay, so cap the batch wait.")
    outcome = engine().score(LATENCY, answer)
    assert outcome.feedback["pushback"] == LATENCY.pushback[1]


def test_feedback_has_all_sections() -> None:
    feedback = engine().score(LATENCY, STRONG).feedback
    assert set(feedback) == {"strengths", "misses", "pushback", "calculations", "summary"}
    assert feedback["summary"]


def test_deterministic() -> None:
    first = engine().score(LATENCY, PARAPHRASE).to_dict()
    second = RubricEngine().score(LATENCY, PARAPHRASE).to_dict()
    assert first == second


def test_negation_scope_stops_at_clause_boundary() -> None:
    tokens = {t.lower: t.negated for t in tokenize("I wouldn't reserve headroom, but I'd batch.")}
    assert tokens["headroom"] is True
    assert tokens["batch"] is False


# --- Evidence, contradictions, pitfalls and arithmetic in prose --------------------------


def test_phrase_with_a_number_needs_that_number() -> None:
    question = QuestionSpec(prompt="Size it.", criteria=(
        CriterionSpec("anchor", "Anchors on a measured figure", phrases=("40 QPS",)),
    ))
    assert verdict(engine().score(question, "We benchmarked about 40 QPS per GPU at 20ms, "
                                  "so that is our anchor."), "anchor").verdict == "made"
    outcome = engine().score(question, "Throughput in QPS depends on the model, so it varies "
                             "with batch size and sequence length.")
    assert verdict(outcome, "anchor").verdict == "missed"


def test_bare_list_item_is_at_most_partly_made() -> None:
    listed = engine().score(CANARY, "- bake window\n- auto rollback\n- canary")
    reasoned = engine().score(CANARY, "I'd wait out a bake window after each step because "
                              "caches are cold, and rely on auto rollback if 5xx spikes.")
    assert verdict(listed, "bake").credit <= 0.6
    assert verdict(reasoned, "bake").verdict == "made"


def test_rejected_point_costs_more_than_a_missing_one() -> None:
    no_pitfall = QuestionSpec(prompt=CANARY.prompt,
                              criteria=tuple(c for c in CANARY.criteria if c.kind != "pitfall"))
    silent = engine().score(no_pitfall, "Ship to 5% of traffic and rely on automatic rollback if "
                            "errors spike, because that limits the damage.")
    rejecting = engine().score(no_pitfall, "Ship to 5% of traffic and rely on automatic "
                               "rollback if errors spike, because that limits the damage. "
                               "A bake window is pointless overhead, so I would skip it.")
    assert verdict(rejecting, "bake").verdict == "contradicted"
    assert rejecting.total < silent.total


def test_point_made_in_the_same_sentence_as_a_pitfall_earns_nothing() -> None:
    question = QuestionSpec(prompt="Which SLIs?", criteria=(
        CriterionSpec("quality", "Tracks transcription quality", phrases=("accuracy drift",)),
        CriterionSpec("latency", "Tracks tail latency", phrases=("p99 latency",)),
        CriterionSpec("fixed", "Says accuracy never changes", kind="pitfall",
                      phrases=("accuracy is fixed",)),
    ))
    outcome = engine().score(question, "I'd alert on p99 latency because users see the tail. "
                             "Accuracy is fixed after training, so accuracy drift is no concern.")
    assert verdict(outcome, "fixed").verdict == "made"
    assert verdict(outcome, "quality").credit == 0


def test_wrong_arithmetic_in_prose_is_penalised() -> None:
    question = QuestionSpec(prompt="Would you cache feature flags?", criteria=(
        CriterionSpec("cost", "Works out the evaluation cost", phrases=("flag evaluation cost",)),
    ))
    right = engine().score(question, "Flag evaluation cost is 200µs per request, and at 50k QPS "
                           "that's 10 seconds of CPU per second, so I'd cache flags locally.")
    wrong = engine().score(question, "Flag evaluation cost is 200µs per request, and at 50k QPS "
                           "that's only 10ms of CPU per second, so I'd cache flags locally.")
    assert wrong.total < right.total - 10
    assert any("Check the arithmetic" in line for line in wrong.feedback["calculations"])


def test_far_off_result_costs_more_than_no_result() -> None:
    method = ("I'd start from measured QPS per GPU, because spec sheets overstate throughput, "
              "then divide peak QPS by per-GPU QPS.")
    silent = engine().score(GPU_COUNT, method)
    far_off = engine().score(GPU_COUNT, method + " That lands at about 20 GPUs in total.")
    assert verdict(silent, "count").credit == verdict(far_off, "count").credit
    assert far_off.total < silent.total


def test_method_in_prose_gets_method_credit() -> None:
    outcome = engine().score(GPU_COUNT, "Take the measured throughput per GPU and divide 50k "
                             "by 40 per GPU to get the fleet size before headroom.")
    count = verdict(outcome, "count")
    assert count.verdict == "partly"
    assert outcome.numbers[0].method_credit


# --- Short references from outside the bank --------------------------------------------

RECURSION = QuestionSpec(
    prompt="What is recursion?",
    model_answer=("Recursion is when a function calls itself on a smaller instance of the same "
                  "problem, with a base case that stops the calls."),
)


def test_a_short_correct_answer_to_a_short_reference_is_not_scaled_down_for_length() -> None:
    short = engine().score(RECURSION, "A function that calls itself.")
    wrong = engine().score(RECURSION, "When a loop repeats until a condition becomes false.")
    assert short.total >= 30
    assert wrong.total <= 12  # 0 lexically; the embedding model sees a loose resemblance
    assert short.total > wrong.total + 25


def test_restating_the_question_earns_little_in_reference_only_mode() -> None:
    spec = QuestionSpec(prompt="What is a hash table used for?",
                        model_answer="A hash table stores key-value pairs and finds the value "
                                     "for a key in constant time on average.")
    restated = engine().score(spec, "A hash table is a table that is used for hashing.")
    answered = engine().score(spec, "Looking up the value stored for a key in constant time.")
    assert restated.total < 30  # rating 1 (under 15 lexically; the model gives it some credit)
    assert restated.rating == 1
    assert answered.total > restated.total + 25


def test_british_and_american_spellings_share_a_key() -> None:
    british = {t.key for t in tokenize("initialised initialises quantised")}
    american = {t.key for t in tokenize("initialized initializes quantized")}
    assert british == american
    assert tokenize("halves")[0].key == tokenize("half")[0].key
    assert tokenize("elements")[0].key == "element"  # not "ele"


def test_the_domain_thesaurus_does_not_rewrite_general_words() -> None:
    # "default", "cell", "buffer" and "the tail" mean other things outside inference serving.
    for phrase, key in (("default", "fallback"), ("cells", "region"), ("buffer", "headroom"),
                        ("the tail", "percentile")):
        assert key not in {t.key for t in tokenize(phrase)}, phrase


PER_GPU = QuestionSpec(
    prompt="A team serves 45,000 QPS on 80 A100s. Sanity-check it against 40 QPS per A100.",
    model_answer="45,000 / 80 = 562.5 QPS per GPU, about 14 times the 40 QPS per A100.",
    criteria=(
        CriterionSpec("per-gpu", "Computes ~562.5 QPS per GPU", kind="numeric", weight=2,
                      phrases=("562", "per GPU"), expected_value=562.5, unit="QPS per GPU",
                      tolerance_percent=5),
        CriterionSpec("workload", "Asks what a query is", weight=1,
                      phrases=("what a query is", "tokens per request")),
    ),
)

HOURLY = QuestionSpec(
    prompt="The leak SLI is 0.5% per hour; the alert fires on 2% growth over five minutes.",
    criteria=(
        CriterionSpec("hourly", "Converts the alert to ~24% per hour", kind="numeric", weight=2,
                      phrases=("per hour",), expected_value=24, unit="percent per hour",
                      tolerance_percent=5),
    ),
)

RPS = QuestionSpec(
    prompt="A TorchServe deployment handles 200k requests per minute. What is that per second?",
    scenario="The engineer reported 200k RPM at under 40% CPU.",
    criteria=(
        CriterionSpec("rps", "Converts 200k RPM to ~3,333 RPS", kind="numeric", weight=2,
                      phrases=("3,333", "per second"), expected_value=3333,
                      unit="requests per second", tolerance_percent=3),
        CriterionSpec("watch", "Watches p99 latency", weight=1, phrases=("p99 latency",)),
    ),
)


def test_numeric_criterion_in_a_compound_unit_is_made_by_the_stated_rate() -> None:
    for answer in ("45,000 / 80 = 562.5 QPS per GPU, so I'd ask what a query is.",
                   "That is 562.5 QPS/GPU, so I'd ask what a query is.",
                   "Each card does 562.5 per GPU-second... 562.5 per GPU, so ask what a query is."):
        check = engine().score(PER_GPU, answer).numbers[0]
        assert check.within_tolerance, answer
        assert check.found_value == 562.5
    for answer in ("2% x 12 = 24% per hour, far above the SLI.",
                   "Sustained, that is 24 percent an hour, 48 times the SLI."):
        outcome = engine().score(HOURLY, answer)
        assert verdict(outcome, "hourly").verdict == "made", answer
        assert outcome.numbers[0].found_value == 24


def test_a_number_copied_from_the_question_does_not_earn_a_converted_criterion() -> None:
    restated = engine().score(RPS, "It handles 200k requests per minute, and I'd watch p99 "
                                   "latency per model because the tail is what users feel.")
    converted = engine().score(RPS, "200k requests per minute / 60 is about 3,333 requests per "
                                    "second, and I'd watch p99 latency per model.")
    assert verdict(restated, "rps").verdict != "made"
    assert not restated.numbers[0].within_tolerance
    assert verdict(converted, "rps").verdict == "made"
    # A figure the question gave is not the candidate's wrong result either.
    quoted = engine().score(PER_GPU, "Azure saw 40 QPS per A100, so I'd ask what a query is.")
    assert verdict(quoted, "per-gpu").verdict == "missed"
    assert "per-gpu" not in {c.criterion_key for c in quoted.numbers if c.found_value}


def test_order_of_magnitude_slip_nothing_else_charges_costs_more() -> None:
    question = QuestionSpec(prompt="Describe a canary rollout.", criteria=(
        CriterionSpec("canary", "Starts with a small canary", phrases=("2% canary",)),
        CriterionSpec("bake", "Bakes before judging", phrases=("bake 15 minutes",)),
    ))
    base = ("Start with a 2% canary and bake 15 minutes before judging, because caches warm. "
            "We do ~100k orders/hour, so 2% for 15 minutes gives us ~{} orders in the canary.")
    near = engine().score(question, base.format("100"))  # 5x off
    far = engine().score(question, base.format("30,000"))  # 60x off
    right = engine().score(question, base.format("500"))
    assert right.total - near.total >= 15
    assert near.total - far.total >= 10


def test_a_pitfall_about_a_limit_needs_the_limit() -> None:
    question = QuestionSpec(prompt="Which SLIs for live transcription?", criteria=(
        CriterionSpec("jitter", "Monitors jitter", phrases=("chunk jitter",)),
        CriterionSpec("avg-only", "Averages only", kind="pitfall", weight=1,
                      phrases=("average latency only",)),
    ))
    fine = engine().score(question, "Track chunk jitter, because captions stutter even when "
                                    "average latency is fine.")
    only = engine().score(question, "Track chunk jitter and average latency only.")
    assert verdict(fine, "avg-only").verdict == "missed"
    assert verdict(only, "avg-only").verdict == "made"


# --- Generalisation rules (engine 1.3) ------------------------------------------------------


def test_step_lists_and_named_metrics_are_not_arithmetic() -> None:
    from scoring.engines.text import reasoning_markers

    def marked(text: str) -> list[str]:
        return [text[a:b].strip() for a, b in reasoning_markers(text)]

    assert marked("p99/5xx/ETA MAE, sample size") == []  # "p99" is a name, not a number
    assert marked("ramp 2/10/50/100, 2-10-25-50-100, 2 -> 10 -> 25") == []  # a list of steps
    assert marked("50,000 / 40 = 1,250 GPUs") == ["/", "="]
    assert marked("~40 QPS -> 1,250 GPUs") == ["->"]


def test_bare_term_list_with_slashes_is_not_reasoned() -> None:
    question = QuestionSpec(prompt="Describe a canary rollout.", criteria=(
        CriterionSpec("metrics", "Compares latency and errors", phrases=("p99 latency",)),
        CriterionSpec("ramp", "Ramps gradually", phrases=("ramp",)),
        CriterionSpec("rollback", "Rolls back automatically", phrases=("automated rollback",)),
    ))
    stuffed = engine().score(question, "shadow mode, canary, p99/5xx latency, sample size, "
                                       "ramp 2/10/50/100, automated rollback, sticky users")
    reasoned = engine().score(question, "Compare p99 latency against the baseline, ramp "
                                        "gradually because errors show late, and use automated "
                                        "rollback so a regression reverts without a human.")
    assert reasoned.total - stuffed.total >= 20


def test_too_noisy_and_safe_to_ignore_are_dismissals() -> None:
    def negated(text: str) -> set[str]:
        return {t.lower for t in tokenize(text) if t.negated}

    assert "percentiles" in negated("I'd budget the mean, percentiles are too noisy to use.")
    assert "zone" in negated("I'd add headroom; zone failures are rare enough to ignore.")
    assert "headroom" not in negated("I'd add headroom; zone failures are rare enough to ignore.")


def test_negated_verdict_dismisses_its_clause() -> None:
    def negated(text: str) -> set[str]:
        return {t.lower for t in tokenize(text) if t.negated}

    assert "quantization" in negated("Quantization isn't worth it, it hurts quality.")
    assert "shadowing" in negated("Shadowing wasn't needed for this model.")
    assert "rebuilding" in negated("Rebuilding engines isn't a real cost if CI does it.")
    question = QuestionSpec(prompt="How many GPUs?", criteria=(
        CriterionSpec("quant", "Considers quantization", phrases=("quantization",)),
    ))
    dismissed = engine().score(question, "Quantization isn't worth it, it only hurts quality.")
    assert verdict(dismissed, "quant").verdict != "made"


def test_two_phrases_for_the_same_words_are_one_piece_of_evidence() -> None:
    one = QuestionSpec(prompt="How do you limit a bad model?", criteria=(
        CriterionSpec("rollback", "Rolls back", phrases=("rollback",)),
        CriterionSpec("other", "Other point", phrases=("per-version dashboards",)),
    ))
    two = QuestionSpec(prompt="How do you limit a bad model?", criteria=(
        CriterionSpec("rollback", "Rolls back", phrases=("rollback", "roll back")),
        CriterionSpec("other", "Other point", phrases=("per-version dashboards",)),
    ))
    answer = "If errors climb we roll back to the previous version, because users notice."
    assert (verdict(engine().score(two, answer), "rollback").credit
            == verdict(engine().score(one, answer), "rollback").credit)


# --- Generalisation rules (engine 1.4) ------------------------------------------------------


def test_traffic_splits_are_not_arithmetic() -> None:
    from scoring.engines.text import reasoning_markers

    def marked(text: str) -> list[str]:
        return [text[a:b].strip() for a, b in reasoning_markers(text)]

    assert marked("Istio 98/2, then 95/5 and 90/10, a 50%/50% split") == []
    assert marked("96/4 = 24") == ["/", "="]  # a division with its result stays one
    assert marked("1,250/20 per zone") == ["/"]
    stuffed = "shadow mode, 2% canary, Istio {}weights, bake window, automatic rollback"
    with_split = engine().score(CANARY, stuffed.format("98/2 "))
    assert with_split.total == engine().score(CANARY, stuffed.format("")).total


def test_spelled_numbers_earn_numeric_and_phrase_credit() -> None:
    answer = ("Measured per-GPU QPS is about forty, so fifty thousand divided by forty gives "
              "twelve hundred and fifty GPUs.")
    assert verdict(engine().score(GPU_COUNT, answer), "count").verdict == "made"
    bake = QuestionSpec(prompt="Describe a canary rollout.", criteria=(
        CriterionSpec("bake", "Waits 10-15 minutes after each step", phrases=("15 minutes",)),
    ))
    waited = engine().score(bake, "After every weight change I'd wait ten to fifteen minutes "
                                  "so caches warm up before judging the canary.")
    assert verdict(waited, "bake").verdict == "made"


COMPARE = QuestionSpec(
    prompt="Compare TensorRT and TorchServe for serving a fraud model with strict latency.",
    criteria=(
        CriterionSpec("latency", "Explains TensorRT's latency advantage", weight=2,
                      checks="The answer explains why TensorRT is faster (kernel fusion, FP16).",
                      phrases=("kernel fusion", "compiles", "FP16", "lower latency", "faster")),
        CriterionSpec("updates", "Covers TorchServe's easy updates", weight=1,
                      phrases=("management API", "easier to update")),
    ),
)


def test_a_point_said_of_the_wrong_alternative_is_not_credited() -> None:
    wrong = engine().score(COMPARE, "For serving I'd pick TorchServe, which compiles the model "
                                    "to optimised kernels and has the lowest latency you can get.")
    assert verdict(wrong, "latency").verdict == "contradicted"
    right = engine().score(COMPARE, "I'd pick TensorRT, which compiles the model with kernel "
                                    "fusion and FP16, so it has lower latency than TorchServe.")
    assert verdict(right, "latency").verdict == "made"


def test_a_comparison_turned_round_contradicts_the_point() -> None:
    reversed_ = engine().score(COMPARE, "TensorRT is slower than TorchServe even with kernel "
                                        "fusion and FP16, because engines are rebuilt.")
    assert verdict(reversed_, "latency").verdict == "contradicted"
    other_way = engine().score(COMPARE, "TorchServe has lower latency, so kernel fusion in "
                                        "TensorRT is not worth it.")
    assert verdict(other_way, "latency").verdict == "contradicted"
    # The same facts said the right way round, or about something else, are still credited.
    for answer in (
        "TorchServe is slower than TensorRT because TensorRT uses kernel fusion and FP16.",
        "With TorchServe you get faster iteration, while TensorRT has lower latency thanks to "
        "kernel fusion and FP16.",
        "TensorRT is faster because of kernel fusion and FP16; TorchServe is easier to update "
        "through its management API.",
    ):
        assert verdict(engine().score(COMPARE, answer), "latency").verdict == "made", answer


# --- Audit regressions on the bundled bank's own questions ------------------------------------

BANK_FILE = (Path(__file__).resolve().parents[2]
             / "interviews/banks/inference-serving-ai-engineers.yaml")


def bank_question(slug: str) -> QuestionSpec:
    """A bank question as the engine sees it, built straight from the YAML."""
    data = yaml.safe_load(BANK_FILE.read_text())
    for topic in data["topics"]:
        for question in topic["questions"]:
            if question["slug"] != slug:
                continue
            criteria = tuple(CriterionSpec.from_dict(
                {**item, "expected_value": item.get("expected")}) for item in question["rubric"])
            return QuestionSpec(prompt=question["prompt"], model_answer=question["model_answer"],
                                criteria=criteria, pushback=tuple(question.get("pushback", ())),
                                scenario=question.get("scenario") or "")
    raise LookupError(slug)


def bank_verdict(slug: str, key: str, answer: str) -> str:
    """The engine's verdict on one criterion of a bank question for an answer."""
    result = RubricEngine().score(bank_question(slug), answer)
    return next(v.verdict for v in result.criteria if v.key == key)


def test_numbers_table_shows_the_candidates_own_result_for_the_criterion() -> None:
    question = bank_question("google-a100-7b-50k-qps")
    answer = ("I'd anchor on a measured benchmark: one A100 does about 40 QPS at 20ms p99. "
              "So 50,000 / 40 = 1,000 GPUs. With 20% headroom for spikes that is 1,200 GPUs.")
    outcome = engine().score(question, answer)
    check = next(n for n in outcome.numbers if n.criterion_key == "gpus-before-headroom")
    # The base count the candidate computed is 1,000, not the 1,200 they gave after headroom.
    assert check.found_value == 1000
    assert check.found_text in answer and "1,000" in check.found_text
    assert not check.within_tolerance
    assert check.method_credit
    assert verdict(outcome, "gpus-before-headroom").verdict == "partly"
    for check in outcome.numbers:
        if check.found_text:
            assert check.found_text in answer
    lines = outcome.feedback["calculations"]
    assert any("You wrote 50,000 / 40 = 1,000" in line
               and "the correct result is 50,000 / 40 = 1,250" in line for line in lines)
    assert len([line for line in lines if "50,000 / 40 = 1,000" in line]) == 1


def test_a_number_for_another_quantity_does_not_earn_a_numeric_criterion() -> None:
    question = bank_question("gpu-cluster-sizing-method")
    answer = ("I'd divide peak by the measured per-GPU throughput at the SLO: 50,000 / 40 = "
              "1,250 GPUs. For zone loss, each zone needs 500 GPUs, 1,500 total. Add 20% "
              "headroom: 1,800 GPUs. Check the KV cache fits in GPU memory.")
    outcome = engine().score(question, answer)
    zone = verdict(outcome, "zone-loss-count")
    assert zone.verdict != "made"
    assert not any("1,800" in answer[s.start : s.end] for s in zone.evidence)
    hit = next(c.feedback_hit for c in question.criteria if c.key == "zone-loss-count")
    assert hit not in outcome.feedback["strengths"]
    check = next(n for n in outcome.numbers if n.criterion_key == "zone-loss-count")
    assert check.found_text == "1,500"
    assert not check.within_tolerance
    # The right zone-loss count, said as such, still earns it.
    right = engine().score(question, answer.replace(
        "each zone needs 500 GPUs, 1,500 total", "two zones must carry 1,250, so 1,875 total"))
    assert verdict(right, "zone-loss-count").verdict == "made"


def test_phrase_words_far_apart_or_across_clauses_are_not_the_phrase() -> None:
    question = bank_question("pinterest-batch-size-tradeoff")
    answer = ("Raising the batch size would improve utilization, but each request then waits "
              "longer and p99 goes up. I'd use dynamic batching with a short timeout so that a "
              "quiet hour cannot stall requests. "
              "65% utilization leaves headroom for bursts.")
    outcome = engine().score(question, answer)
    first_end = answer.index(" I'd use")
    wait = verdict(outcome, "batch-wait")
    assert wait.verdict == "made"
    assert wait.evidence and all(s.start > first_end for s in wait.evidence)
    spare = verdict(outcome, "utilization-not-waste")
    assert spare.verdict == "made"
    quoted = " ".join(answer[s.start : s.end] for s in spare.evidence)
    assert "headroom" in quoted and "bursts" in quoted
    # Without the dynamic batching sentence nothing there says "batch wait".
    alone = engine().score(question, answer.replace(
        " I'd use dynamic batching with a short timeout so that a quiet hour cannot stall "
        "requests.", ""))
    assert verdict(alone, "batch-wait").verdict == "missed"


def test_pushback_skips_lines_about_points_already_made() -> None:
    question = bank_question("pinterest-batch-size-tradeoff")
    answer = ("Bigger batches raise throughput per GPU, but each request waits for the batch to "
              "fill and a larger batch takes longer, which lands in p99. I'd run a sweep over 8, "
              "16, 32 and 64 at 2x peak and plot p99 against throughput. I'd cap the batch wait "
              "at 1-2ms with dynamic batching, since at low traffic batches won't fill. 65% "
              "utilization isn't wasted: it is the spare capacity that absorbs bursts. Kernel "
              "launch overhead is a fixed per-call cost that CUDA graphs cut, and INT8 or packing "
              "two replicas per GPU are other levers.")
    outcome = engine().score(question, answer)
    assert verdict(outcome, "p99-headroom").verdict != "made"
    assert outcome.feedback["summary"].endswith(
        "Most important gap: Picks the largest batch that still leaves headroom under the SLO.")
    pushback = outcome.feedback["pushback"]
    # Every bank line probes a point this answer made (batch cost, the sweep, low traffic,
    # utilization): the criterion's own advice, as a question, is asked instead.
    assert pushback not in question.pushback
    assert pushback == "Could you state the stopping rule?"


def test_pushback_prefers_a_line_about_the_miss_over_one_about_a_made_point() -> None:
    made = CriterionSpec("trade", "Bigger batches cost the first request latency",
                         phrases=("bigger batch", "request arrives first"))
    missed = CriterionSpec("stop", "Picks the largest batch under the SLO",
                           phrases=("largest batch",), feedback_miss="State the stopping rule.")
    lines = ("What does a bigger batch do to a request that arrives first?",
             "Which is the largest batch you would still run?")
    assert _pick_pushback(lines, missed, (made,)) == lines[1]
    assert _pick_pushback(lines[:1], missed, (made,)) == "Could you state the stopping rule?"
    assert _pick_pushback(lines, missed) == lines[1]


# --- A breakdown and its claimed total (engine 1.6) ------------------------------------------


def test_a_breakdown_whose_parts_do_not_add_up_to_the_claimed_total_is_wrong_arithmetic() -> None:
    parts = ("My split would be: network and serialization 3ms, feature store lookup 5ms, "
             "preprocessing 2ms, batch queue wait 4ms, model inference 6ms, post-processing "
             "{}. That adds up to the 15ms so it fits exactly.")
    wrong = engine().score(LATENCY, parts.format("1ms"))
    assert "You wrote 3 + 5 + 2 + 4 + 6 + 1 = 15 ms; the parts add up to 21 ms." in (
        wrong.feedback["calculations"])
    unflagged = engine().score(LATENCY, parts.format("1ms").replace("15ms", "21ms"))
    assert not unflagged.feedback["calculations"]
    assert wrong.total < unflagged.total


def test_a_breakdown_that_adds_up_is_not_flagged() -> None:
    from scoring.engines.numbers import find_sum_claims

    right = ("2ms network, 3ms features, 1ms preprocessing, 2ms queue, 5ms model, 1ms post, "
             "1ms slack: 15ms in total.")
    assert find_sum_claims(right) == []
    assert not engine().score(LATENCY, right).feedback["calculations"]
    assert find_sum_claims("Of the 20ms budget I'd give 3ms to network, 5ms to features, 6ms "
                           "to the model and 4ms to post-processing, which adds up to 18ms.") == []
    # "fits in" is a ceiling: a sum under it is fine, one over it is not.
    fits = "Network 3ms, features 5ms, model {}ms, post 1ms. It all fits in the 20ms budget."
    assert find_sum_claims(fits.format(6)) == []
    assert find_sum_claims(fits.format(16))


def test_a_list_followed_by_an_unrelated_total_is_not_a_sum() -> None:
    from scoring.engines.numbers import find_sum_claims

    for text in (
        "Network 3ms, features 5ms, model 6ms. Separately, the retry timeout totals 50ms.",
        "Network 3ms, features 5ms, model 6ms. In total we handle 20k QPS.",
        "Latency is 12ms at p50, 18ms at p95 and 30ms at p99. The tail adds up to 30ms.",
        "Under load we see 14ms, 20ms and 30ms. The stages add up to 30ms.",
        "We could use 5ms windows, 10ms windows or 20ms windows. Altogether 20ms is fine.",
    ):
        assert find_sum_claims(text) == [], text
