"""Issue 9, the README's tenth round (engine 2.8): what an answer says, read for what it means.

- "not something from the datasheet" rejects what follows; "drop to FP16" lowers a level.
- Dismissals: "is noise", "shouldn't be an issue", "are edge cases", "is normal churn", "mostly
  slows you down", "leave as is"; a negated drop keeps the point ("I'd never skip the bake").
- What a tool has is what it does ("TorchServe's compile step", "TensorRT's management API");
  a recommendation with the tools' places swapped; facts turned round (batches that "even out"
  or make each request "wait less", dynamic shapes as TensorRT's strength, a manifest that
  "never has to change").
- Terms defined in a sense they do not have: dynamic batching by free memory or the driver, a
  Triton ensemble as copies, a sync window as the canary's minutes, queue depth as accuracy,
  burn rate for availability only, a bake before any traffic, fragmentation as a CPU heap thing.
- A point only reported as others' advice is not made; a phrase said inside another point's
  longer phrase belongs to that point ("per-stage tracing" is no per-stage budget).
- A committed pitfall's evidence is the sentence that commits it most plainly; short plain
  pitfalls ("I'd skip the bake") are committed.
"""

from __future__ import annotations

import pytest

from scoring.engines.rubric import RubricEngine
from scoring.engines.senses import wrong_definitions
from tests.scoring.test_engines import bank_question
from tests.scoring.test_engines import bank_verdict as verdict


@pytest.mark.parametrize(("slug", "key", "answer"), [
    # "not something from the datasheet" rejects the datasheet, not the measured figure.
    ("google-a100-7b-50k-qps", "measured-benchmark",
     "The measured figure is ~40 QPS per A100 at 20ms p99 with vLLM, not something from the "
     "datasheet, so an 8-GPU box does 320 QPS."),
    # "drop to FP16" lowers the precision; it waves nothing away.
    ("tensorrt-torchserve-tradeoffs", "latency-cost",
     "Compiled engines fuse kernels and drop to FP16/INT8, the Netflix BERT case was 7 vs "
     "12ms at p99, so at scale that's real GPU money."),
])
def test_a_point_beside_a_contrast_or_a_lowered_level_is_credited(slug: str, key: str,
                                                                  answer: str) -> None:
    assert verdict(slug, key, answer) in {"made", "partly"}


@pytest.mark.parametrize(("slug", "key", "answer"), [
    ("meta-80-a100-sanity-check", "power-draw",
     "Power and rack limits are the datacenter team's problem, not something capacity "
     "planning needs to get into."),
    ("tensorrt-torchserve-tradeoffs", "latency-cost",
     "Compiled engines fuse kernels, but I'd drop FP16 and INT8 from the discussion, the "
     "latency difference isn't something I'd worry about."),
])
def test_the_same_words_still_wave_a_point_away(slug: str, key: str, answer: str) -> None:
    assert verdict(slug, key, answer) not in {"made", "partly"}


@pytest.mark.parametrize(("slug", "key", "waved", "made"), [
    ("shopify-torchserve-200k-rpm", "worker-restarts",
     "I'd watch CPU utilization mostly, and the restart alert; five restarts an hour is normal "
     "churn for TorchServe, so I'd probably raise that threshold.",
     "I'd alert on worker restarts: five an hour is well above normal churn for TorchServe, so "
     "I'd page with the OOM or crash cause attached."),
    ("doordash-eta-canary", "bake-window",
     "The 15-minute stabilization thing on the dashboard mostly slows you down.",
     "I'd wait out a 15-minute stabilization window after each weight change before judging."),
    ("inference-slis-and-alerts", "operational",
     "Cold starts and compile time are edge cases for most stacks.",
     "I'd track cold starts, compile time and restarts, since those edge cases hurt the tail."),
])
def test_new_dismissals_wave_a_point_away_and_leave_its_plain_statement(
        slug: str, key: str, waved: str, made: str) -> None:
    assert verdict(slug, key, waved) not in {"made", "partly"}
    assert verdict(slug, key, made) in {"made", "partly"}


@pytest.mark.parametrize(("slug", "key", "wrong", "right"), [
    ("stripe-fraud-tensorrt-vs-torchserve", "rebuild-cost",
     "The flip side is TorchServe's compile step, which takes around 45 minutes per version "
     "in CI.",
     "The flip side is TensorRT's compile step, which takes around 45 minutes per version in "
     "CI."),
    ("tensorrt-torchserve-tradeoffs", "preprocessing-shapes",
     "TensorRT's management API makes versioning easy, and because it's Python-based you can "
     "write preprocessing handlers in it.",
     "TorchServe's management API makes versioning easy, and because it's Python-based you can "
     "write preprocessing handlers in it."),
    ("tiktok-20ms-budget", "batching-tradeoff",
     "For batching I'd go big, because larger batches clear the queue faster so each request "
     "actually waits less.",
     "Larger batches raise throughput but each request waits longer, so p99 goes up."),
    ("pinterest-batch-size-tradeoff", "batching-tradeoff",
     "Latency-wise bigger batches mean more work per call, sure, but throughput goes way up so "
     "per-request it evens out.",
     "Bigger batches mean more work per call, so throughput goes up but each request waits "
     "longer and p99 rises."),
    ("shopify-torchserve-200k-rpm", "gpu-fragmentation",
     "On GPUs with TensorRT, memory fragmentation is a CPU heap thing and doesn't apply to GPU "
     "memory.",
     "On GPUs, memory fragmentation is free memory broken into small blocks the allocator "
     "can't use, which TensorRT avoids by allocating up front."),
    ("tensorrt-torchserve-tradeoffs", "preprocessing-shapes",
     "Dynamic shapes are TensorRT's strong suit, TorchServe needs fixed profiles.",
     "TorchServe takes dynamic shapes and Python preprocessing freely, while TensorRT needs "
     "fixed optimization profiles."),
    ("airbnb-argo-cd-versioning", "gitops-promotion",
     "For versioning I'd use tags like model-latest per environment so the manifest never has "
     "to change; Argo CD just pulls whatever latest points to.",
     "For versioning I'd pin an immutable tag in the manifest and promote by editing it in "
     "Git; Argo CD syncs the change."),
    ("tensorrt-torchserve-tradeoffs", "preprocessing-shapes",
     "Shapes are the other axis: TensorRT copes with variable sequence lengths out of the box, "
     "whereas TorchServe wants inputs padded to one fixed length.",
     "Shapes are the other axis: TorchServe copes with variable sequence lengths out of the "
     "box, whereas TensorRT wants inputs padded to one fixed length per profile."),
    ("inference-slis-and-alerts", "burn-rate",
     "For paging I'd use error-budget burn rate, where the slow burn over an hour pages and the "
     "fast burn over six hours opens a ticket.",
     "For paging I'd use error-budget burn rate, where the fast burn over an hour pages and the "
     "slow burn over six hours opens a ticket."),
    ("canary-and-versioning-design", "control-costs",
     "People sometimes worry about the overhead of the controls themselves, flag lookups or "
     "GitOps sync lag, but that's noise next to model latency.",
     "People sometimes worry about the overhead of the controls themselves, flag lookups or "
     "GitOps sync lag, and I'd budget for both: flags cached in memory, a known sync lag."),
    ("tiktok-20ms-budget", "launch-overhead",
     "The 2ms kernel launch overhead they mentioned is really the cost of loading the kernels "
     "and weights onto the GPU when a pod starts, so it's a cold-start issue.",
     "The 2ms kernel launch overhead they mentioned is a fixed cost per call, whatever the "
     "batch."),
    ("pinterest-batch-size-tradeoff", "batching-tradeoff",
     "A batch of 32 takes about the same wall time as a batch of 8, so bigger batches actually "
     "bring the p99 down per request.",
     "Bigger batches raise throughput but push the p99 up, since each request waits for the "
     "batch to fill."),
    ("pinterest-batch-size-tradeoff", "batch-wait",
     "I'd use dynamic batching, meaning the server swaps to a smaller model variant when load "
     "spikes.",
     "I'd use dynamic batching, meaning the server waits up to 2ms to group requests into one "
     "batch."),
    ("stripe-fraud-tensorrt-vs-torchserve", "latency-advantage",
     "TorchServe takes the PyTorch model and compiles it ahead of time into a fused, FP16 "
     "engine, which is where its speed comes from.",
     "TensorRT takes the PyTorch model and compiles it ahead of time into a fused, FP16 engine, "
     "which is where its speed comes from."),
    ("stripe-fraud-tensorrt-vs-torchserve", "recommendation",
     "I'd go TorchServe for the hot path and TensorRT for the less latency critical models.",
     "I'd go TensorRT for the hot path and TorchServe for the models that change often."),
    ("tensorrt-torchserve-tradeoffs", "recommendation",
     "For a platform I'd pick TensorRT as the default for fast-changing models because of that "
     "versioning API, and TorchServe for the latency-critical ones.",
     "For a platform I'd pick TorchServe as the default for fast-changing models because of "
     "that versioning API, and TensorRT for the latency-critical ones."),
])
def test_a_point_stated_wrongly_is_contradicted_and_its_twin_made(slug: str, key: str, wrong: str,
                                                                  right: str) -> None:
    # Tools given each other's features or places, effects and schemes turned round, a point
    # waved off as noise.
    assert verdict(slug, key, wrong) == "contradicted"
    assert verdict(slug, key, right) in {"made", "partly"}


@pytest.mark.parametrize(("wrong", "right"), [
    ("I'd turn on dynamic batching, which means the batch size adapts to the GPU memory "
     "that's free.",
     "I'd turn on dynamic batching, which means requests that arrive within a 2ms wait are "
     "grouped into one batch."),
    ("I'd use dynamic batching where the batch size is picked automatically by the GPU driver.",
     "I'd use dynamic batching where the batch size grows with the queue, capped by a max "
     "delay."),
    ("I'd use a Triton ensemble, which as I understand it means running several copies of the "
     "engine across GPUs for redundancy.",
     "I'd use a Triton ensemble, which means the tokenizer and the engine run as one pipeline "
     "in the same server."),
    ("Argo CD's sync window is the 5 minutes of the canary where traffic is split.",
     "Argo CD's sync window is the up to 5 minutes before Argo CD applies a Git change."),
    ("Saturation: queue depth tells you about the model's accuracy.",
     "Saturation: queue depth tells you how many requests are waiting."),
    ("Burn rate alerts are for availability SLOs only, they don't apply to latency.",
     "Burn rate alerts measure how fast the error budget is spent, for latency SLOs too."),
    ("The bake-off is meant to happen before you shift any traffic: you run the new model for "
     "10 minutes on a staging box.",
     "The bake is the 10 minutes you hold after each traffic shift and watch the canary."),
])
def test_a_term_defined_in_a_sense_it_does_not_have_is_a_wrong_definition(wrong: str,
                                                                         right: str) -> None:
    assert wrong_definitions(wrong, lambda _: 0)
    assert wrong_definitions(right, lambda _: 0) == []


@pytest.mark.parametrize(("answer", "credited"), [
    ("Some people say you should go ask the caller what their timeout is first. I'd just pick "
     "15ms and move on.", False),
    ("You'll hear that you should ask the caller what their timeout is first.", False),
    ("Some people say you should go ask the caller what their timeout is first, and they're "
     "right.", True),
    ("Some people say you should go ask the caller what their timeout is first, and I do.",
     True),
    ("I'd go ask the caller what their timeout is first.", True),
])
def test_a_point_only_reported_as_others_advice_is_not_made(answer: str, credited: bool) -> None:
    said = verdict("ad-ranking-latency-target", "ask-first", answer)
    assert (said in {"made", "partly"}) is credited


def test_a_pitfall_committed_twice_is_shown_where_it_is_said_most_plainly() -> None:
    answer = ("Ad ranking is real time, so I'd just go with 10ms average. Ad ranking is real "
              "time, so a 10ms mean feels right, most public numbers are in that range.")
    outcome = RubricEngine().score(bank_question("ad-ranking-latency-target"), answer)
    pitfall = next(v for v in outcome.criteria if v.key == "average-target")
    assert pitfall.verdict == "made"
    first_sentence_end = answer.index(".") + 1
    assert pitfall.evidence
    assert all(span.end <= first_sentence_end for span in pitfall.evidence)


@pytest.mark.parametrize(("answer", "credited"), [
    # "per-stage tracing" is the measurement point's phrase: its "per-stage" is no budget.
    ("I'd target 15ms p99. Prove it with load tests and per-stage tracing.", False),
    ("I'd target 15ms p99 and defend it with a per-stage budget, each stage with an owner.",
     True),
])
def test_a_phrase_said_inside_another_points_longer_phrase_belongs_to_that_point(
        answer: str, credited: bool) -> None:
    said = verdict("ad-ranking-latency-target", "stage-budget", answer)
    assert (said in {"made", "partly"}) is credited


@pytest.mark.parametrize(("slug", "key", "committed", "avoided"), [
    ("canary-and-versioning-design", "no-bake",
     "I'd skip the bake; if the new version is broken you see it in the first minute.",
     "I'd never skip the bake: 10-15 minutes after each weight change before judging."),
])
def test_a_pitfall_said_in_short_plain_words_is_committed(slug: str, key: str, committed: str,
                                                          avoided: str) -> None:
    assert verdict(slug, key, committed) == "made"
    assert verdict(slug, key, avoided) != "made"


@pytest.mark.parametrize("kept", [
    "I'd never skip the bake window: 10-15 minutes after each weight change before judging.",
    "We don't ever skip the bake window after a weight change.",
])
def test_a_negated_drop_keeps_the_point(kept: str) -> None:
    # Two negations cancel: the bake is kept, so neither the pitfall nor a dismissal.
    assert verdict("canary-and-versioning-design", "no-bake", kept) != "made"
    assert verdict("canary-and-versioning-design", "bake-window", kept) in {"made", "partly"}


def test_a_longer_phrase_claims_its_words_only_when_said_as_one_phrase() -> None:
    # "per-stage split, load tests and tracing" has every word of "per-stage tracing", apart.
    said = verdict("ad-ranking-latency-target", "stage-budget",
                   "Target 15ms p99. Justify it with a per-stage split, load tests and tracing.")
    assert said in {"made", "partly"}


def test_a_phrase_claimed_by_a_longer_one_still_counts_where_it_is_said_again() -> None:
    answer = ("With TensorRT you'd push preprocessing to a separate service or a Triton "
              "ensemble. My pick for Stripe: TensorRT behind Triton, since the payment path is "
              "latency-critical.")
    assert verdict("stripe-fraud-tensorrt-vs-torchserve", "recommendation", answer) in {
        "made", "partly"}


@pytest.mark.parametrize(("answer", "committed"), [
    ("It's wrong, 50k / 40 is 1,250 with no headroom at all. With the 20% they claim, it's "
     "1,500 A100s. I'd correct that line before it goes to procurement, note that 1,250 is the "
     "bare requirement, and otherwise leave it as is.", False),
    ("1,250 GPUs looks right to me, I'd send it to procurement.", True),
])
def test_a_corrected_count_sent_on_is_not_signed_off(answer: str, committed: bool) -> None:
    said = verdict("azure-capacity-spreadsheet-review", "accepts-1250", answer)
    assert (said == "made") is committed


@pytest.mark.parametrize(("answer", "committed"), [
    ("I'd add relevance guardrails and let those trigger the Spinnaker rollback too, not only "
     "5xx.", False),
    ("I'd gate the rollback on only errors.", True),
])
def test_not_only_is_the_opposite_of_an_only_mistake(answer: str, committed: bool) -> None:
    said = verdict("instacart-canary-playbook", "errors-only", answer)
    assert (said == "made") is committed


def test_a_longer_phrase_that_ends_on_the_shorter_ones_word_does_not_claim_it() -> None:
    # "automated rollback" is a rollback still: the revert point keeps its word.
    answer = ("Canary first, 1% then ramp. Automated rollback to the last version on guardrail "
              "regressions.")
    assert verdict("robinhood-bad-model-blast-radius", "versioned-revert", answer) in {
        "made", "partly"}


def test_a_dash_after_a_line_break_opens_a_list_item_not_a_definition() -> None:
    assert wrong_definitions("- GPU mem + queue depth\n- WER drift on sampled audio",
                             lambda _: 0) == []
