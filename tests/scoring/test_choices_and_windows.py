"""Issue 9, the README's fourteenth round (engine 2.12): an engine said to survive retrains in
new words, a "recommendation" that commits to nothing, a rate counted over a window, a rate said
of "one card", a window at a rate and one cell of several, deductions that no longer level an
answer that made a point with one that made none, a point shown only by a "partly:" phrase and
fragments of others, a right step in other units beside a wrong result in the asked ones, a
figure from the question put forward as the answer, and six terms defined wrongly.

Every case has a wrong sentence and a right twin; each wrong sentence was checked to fail
before its change.
"""

from __future__ import annotations

import pytest

from scoring.engines.rubric import RubricEngine
from tests.scoring.test_derived_numbers import derived
from tests.scoring.test_engines import bank_question
from tests.scoring.test_engines import bank_verdict as verdict

STRIPE = "stripe-fraud-tensorrt-vs-torchserve"


# The build is named in one sentence and waved off in the next (the dismissal rules read a
# "but that's fine" said in the same sentence, not this).
@pytest.mark.parametrize("answer", [
    "The compile step for the NVIDIA engine takes 45 minutes in your CI. Once the engine exists "
    "it stays valid across model versions, so later retrains skip the rebuild.",
    "The engine build takes 45 minutes in CI. It is a one-time cost per GPU type, and we "
    "already have the T4 plan.",
])
def test_an_engine_said_to_survive_retrains_contradicts_the_rebuild_cost(answer: str) -> None:
    assert verdict(STRIPE, "rebuild-cost", answer) == "contradicted"
    assert verdict(STRIPE, "reversed-facts", answer) == "made"


def test_a_rebuild_per_gpu_type_and_model_version_stays_made() -> None:
    answer = ("The engine build takes 45 minutes in CI. It is a one-time cost per GPU type and "
              "model version, so every retrain pays it again.")
    assert verdict(STRIPE, "rebuild-cost", answer) == "made"
    assert verdict(STRIPE, "reversed-facts", answer) == "missed"


_TERMS = ("TensorRT: kernel fusion, FP16, INT8 calibration, engine build, Triton backend. "
          "TorchServe: .mar archive, management API, Python handler, dynamic batching, "
          "maxBatchDelay, workers, memory fragmentation. Trade-off: latency vs retrain cadence. ")


def test_a_recommendation_that_commits_to_nothing_is_not_made() -> None:
    assert verdict(STRIPE, "recommendation", _TERMS + "Recommendation: depends on "
                   "requirements.") == "missed"


@pytest.mark.parametrize("choice", [
    "Recommendation: TensorRT behind Triton if retrains stay weekly, TorchServe if daily.",
    "Weekly retrains and a tight budget -> TensorRT on Triton; daily retrains -> TorchServe.",
    "Retraining weekly or less, TensorRT behind Triton; retraining daily, TorchServe.",
    "So I'd say TensorRT behind Triton while retrains stay weekly.",
])
def test_a_recommendation_in_any_committed_form_is_made(choice: str) -> None:
    assert verdict(STRIPE, "recommendation", _TERMS + choice) in {"made", "partly"}


@pytest.mark.parametrize(("text", "stated", "actual"), [
    # 1,200 an hour over a quarter of an hour is 300, not 1,200.
    ("We do ~60,000 orders an hour, 2% of that is 1,200 orders per hour, so the 15-minute "
     "window gives us 1,200 orders with a known outcome.", 1200, 300),
    ("At 1,200 orders per hour, over 15 minutes that is about 1,200 orders.", 1200, 300),
    # 40 a second for 10 minutes is 24,000.
    ("The canary sees 40 requests per second, so in 10 minutes we get 2,400 requests.",
     2400, 24000),
])
def test_a_rate_counted_over_a_window_is_checked(text: str, stated: float,
                                                 actual: float) -> None:
    [calculation] = derived(text)
    assert calculation.stated == stated
    assert calculation.actual == pytest.approx(actual)


@pytest.mark.parametrize("text", [
    "We do ~60,000 orders an hour, 2% of that is 1,200 orders per hour, so the 15-minute "
    "window gives us 300 orders with a known outcome.",
    "At 1,200 orders per hour, over the 15 minutes that is about 300 orders.",
    "The canary sees 40 requests per second, so in 10 minutes we get 24,000 requests.",
])
def test_a_rate_counted_over_a_window_done_right_is_accepted(text: str) -> None:
    assert derived(text) == []


def test_a_canary_sample_counted_at_the_hourly_rate_shows_in_the_feedback() -> None:
    answer = ("I'd start with 2% through Istio weights and wait out the 15-minute window before "
              "looking, comparing p99, errors and ETA error against actual delivery time. We do "
              "~60,000 orders an hour, 2% of that is 1,200 orders per hour, so the 15-minute "
              "window gives us 1,200 orders with a known outcome, plenty to compare MAE.")
    outcome = RubricEngine().score(bank_question("doordash-eta-canary"), answer)
    assert any("1,200 orders" in line and "300" in line
               for line in outcome.feedback["calculations"])


AMAZON = "amazon-t4-3b-30k-qps"
_TOKENS = ("First I'd ask the latency target and how many tokens a request generates. If we "
           "take 10 output tokens, the T4 in FP16 gives about 120 tokens per second for the 3B "
           "model, so one card is serving {qps} QPS. Other way to see it: 30,000 QPS x 10 tokens "
           "= 300,000 tokens per second, divide by 120 is 2,500 T4.")


def test_one_card_said_serving_a_rate_gives_the_rate_per_card() -> None:
    outcome = RubricEngine().score(bank_question(AMAZON), _TOKENS.format(qps=12))
    check = next(n for n in outcome.numbers if n.criterion_key == "qps-per-gpu")
    assert check.within_tolerance and check.found_text == "12 QPS"


def test_each_card_said_serving_a_rate_in_an_aside_gives_the_rate_per_card() -> None:
    answer = ("Each T4 manages ~120 tokens/s in FP16 for this model, so 300,000 / 120 = 2,500 "
              "cards (same as saying each card serves 12 requests/s).")
    outcome = RubricEngine().score(bank_question(AMAZON), answer)
    check = next(n for n in outcome.numbers if n.criterion_key == "qps-per-gpu")
    assert check.within_tolerance and check.found_text == "12 requests/s"


def test_one_card_said_serving_a_wrong_rate_is_judged_wrong() -> None:
    outcome = RubricEngine().score(bank_question(AMAZON), _TOKENS.format(qps=40))
    check = next(n for n in outcome.numbers if n.criterion_key == "qps-per-gpu")
    assert check.found_text == "40 QPS" and not check.within_tolerance


def test_a_cards_token_rate_is_not_read_as_a_result() -> None:
    answer = ("3B in FP16 on a T4 manages roughly 120 tokens/s within a sane latency bound, so "
              "that's 12 requests/s per card at 10 tokens each, and 30,000 / 12 = 2,500 T4s.")
    outcome = RubricEngine().score(bank_question(AMAZON), answer)
    assert outcome.feedback["calculations"] == []


def test_deductions_leave_some_credit_for_the_points_an_answer_made() -> None:
    dismissive = ("The 45-minute engine rebuild isn't worth worrying about, it runs in CI. Dynamic "
                  "batching is overkill for fraud too.")
    with_a_point = RubricEngine().score(bank_question(STRIPE), (
        "TensorRT, no contest. Fusion plus INT8 takes a BERT-sized model from about 12ms p99 down "
        "to about 7ms, and in a payment path that is what matters. " + dismissive))
    without = RubricEngine().score(bank_question(STRIPE), (
        "TensorRT, no contest, it is the NVIDIA one and fraud is important. " + dismissive))
    assert without.total == 0
    assert with_a_point.total > without.total
    assert with_a_point.feedback["summary"]


_ROLLOUT = ("Shadow it first, model pinned to a versioned image. Then Istio 98/2, wait the 15 "
            "minutes after each change, compare p99 latency and 5xx against baseline, ramp 2 -> "
            "10 -> 50 -> 100, and Argo Rollouts reverts automatically if something regresses. ")


def test_a_partly_phrase_and_fragments_of_the_label_make_a_point_only_partly() -> None:
    answer = _ROLLOUT + ("I'd keep ETA accuracy out of the gate though. You only know if an ETA "
                         "was right 40 minutes later, that's too slow to be useful for a rollout, "
                         "so latency and errors are what I'd judge on.")
    assert verdict("doordash-eta-canary", "business-metrics", answer) == "partly"


def test_the_point_said_in_full_beside_a_partly_phrase_is_made() -> None:
    answer = _ROLLOUT + ("The gate also compares ETA error against actual delivery time and the "
                         "late-delivery rate, since latency and errors are not the whole story.")
    assert verdict("doordash-eta-canary", "business-metrics", answer) == "made"


@pytest.mark.parametrize(("text", "stated", "actual"), [
    # The window named first, then the rate: 2,000 a second for 5 minutes is 600,000.
    ("Automated rollback when a guardrail breaches for 5 minutes - at our 2,000 req/s that "
     "window only exposes about 10,000 predictions from a bad model.", 10000, 600000),
    # One of four cells is a quarter of the users, not 2.5%.
    ("We run the fleet as 4 independent cells and ship to one cell at a time, so a bad model "
     "can touch at most 2.5% of users, and inside that first cell it starts as a 1% canary.",
     2.5, 25),
])
def test_a_window_at_a_rate_and_one_cell_of_several_are_checked(text: str, stated: float,
                                                                 actual: float) -> None:
    [calculation] = derived(text)
    assert (calculation.stated, calculation.actual) == (stated, pytest.approx(actual))


@pytest.mark.parametrize("text", [
    "Automated rollback when a guardrail breaches for 5 minutes - at our 2,000 req/s that "
    "window only exposes about 600,000 predictions.",
    "We run the fleet as 4 independent cells and ship to one cell at a time, so a bad model can "
    "touch at most 25% of users.",
    # A canary inside one cell: the canary's share of the cell's share.
    "We run 4 cells, and a 1% canary in one cell at a time touches only 0.25% of users.",
])
def test_a_window_at_a_rate_and_one_cell_done_right_are_accepted(text: str) -> None:
    assert derived(text) == []


ZOOM = "zoom-gpu-memory-leak-alert"


def test_a_right_step_does_not_hide_a_wrong_result_in_the_asked_units() -> None:
    answer = ("Convert the rule to the SLI's units: 2% over five minutes is 0.4% per minute, "
              "times 60 is about 2.4% per hour. So the rule only trips on leaks roughly five "
              "times faster than the SLI allows.")
    outcome = RubricEngine().score(bank_question(ZOOM), answer)
    check = next(n for n in outcome.numbers if n.criterion_key == "hourly-rate")
    assert check.found_text == "2.4% per hour" and not check.within_tolerance
    assert any("2.4% per hour" in line for line in outcome.feedback["calculations"])


def test_the_same_steps_with_the_right_result_stay_made() -> None:
    answer = ("Convert the rule to the SLI's units: 2% over five minutes is 0.4% per minute, "
              "times 60 is about 24% per hour, so the rule only trips on leaks roughly 48 "
              "times faster than the SLI allows.")
    assert verdict(ZOOM, "hourly-rate", answer) == "made"


AZURE = "azure-capacity-spreadsheet-review"


@pytest.mark.parametrize("answer", [
    "Looks right to me. 50,000 / 40 = 1,250, and the sheet says that's with 20% headroom baked "
    "in, which is what you'd want. I'd sign off on 1,250 for procurement.",
    "40 QPS per card is the measured number, 50k QPS over that gives the 1,250, and the note "
    "says the 20% headroom is in there, so procurement gets 1,250 A100s.",
])
def test_a_given_figure_put_forward_as_the_answer_is_judged(answer: str) -> None:
    outcome = RubricEngine().score(bank_question(AZURE), answer)
    check = next(n for n in outcome.numbers if n.criterion_key == "gpus-20pct")
    assert check.found_value == 1250 and not check.within_tolerance
    # Judged against the 20% count only, and the right division is not called wrong.
    other = next(n for n in outcome.numbers if n.criterion_key == "gpus-10pct")
    assert other.found_value is None
    assert not any("50,000 / 40" in line for line in outcome.feedback["calculations"])


def test_a_given_figure_restated_as_the_bare_requirement_is_not_judged() -> None:
    answer = ("50,000 / 40 = 1,250, and that is the bare requirement: the 20% headroom was never "
              "applied, so I would not sign off on 1,250; with 20% it is 1,500 A100s.")
    outcome = RubricEngine().score(bank_question(AZURE), answer)
    check = next(n for n in outcome.numbers if n.criterion_key == "gpus-20pct")
    assert check.within_tolerance and check.found_value == 1500


# Terms defined wrongly in new words (read in held-out-22 after its one measurement; the KV cache
# as the weights' storage came from two writers in two rounds).
@pytest.mark.parametrize(("slug", "key", "wrong", "right"), [
    ("amazon-t4-3b-30k-qps", "memory-fit",
     "On memory, the KV cache is where the 6GB of FP16 weights live, so it's fixed and batch "
     "size doesn't affect memory at all. A T4 has 16GB so the 3B model fits.",
     "On memory, the 3B model is 6GB of FP16 weights on a 16GB T4, and the KV cache holds the "
     "attention keys and values per token in flight, so it grows with batch and context."),
    ("oracle-serverless-cold-starts", "coldstart-rate",
     "I'd track the cold-start rate, meaning how many milliseconds a new replica needs before "
     "it can serve, and alert when that goes over 300ms.",
     "I'd track the cold-start rate, meaning the share of requests that land on a cold "
     "replica, and alert when it goes over 1%."),
    ("oracle-serverless-cold-starts", "mitigations",
     "To cut cold starts I'd use provisioned concurrency, which just means capping how many "
     "requests a replica accepts at once.",
     "To cut cold starts I'd use provisioned concurrency, which keeps replicas initialised and "
     "warm ahead of traffic."),
    ("shopify-torchserve-200k-rpm", "gpu-fragmentation",
     "On the GPU the main risk is memory fragmentation, which means the model weights are split "
     "in fragments over several GPUs.",
     "On the GPU the main risk is memory fragmentation, which means free memory broken up into "
     "small blocks over long uptimes, so a big allocation fails and we recycle workers."),
    ("canary-and-versioning-design", "bake-window",
     "Then a 5% canary. The bake window is the time it takes CI to build and push the image, "
     "usually 10-15 minutes.",
     "Then a 5% canary. The bake window is the 10-15 minutes we hold each step and watch the "
     "metrics before the next one."),
    ("tiktok-20ms-budget", "launch-overhead",
     "The kernel launch overhead is about 2ms per sample in the batch, so bigger batch cost more "
     "launch time and I prefer batch of 1 or 2.",
     "The kernel launch overhead is about 2ms per call, the same for the whole batch, so "
     "batching spreads it."),
])
def test_a_term_defined_wrongly_contradicts_its_point(slug: str, key: str, wrong: str,
                                                      right: str) -> None:
    assert verdict(slug, key, wrong) == "contradicted"
    assert verdict(slug, key, right) in {"made", "partly"}
