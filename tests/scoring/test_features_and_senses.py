"""Issue 9, fifth round: a tool's features said of the other tool, real-time factor wanted the
wrong way, and a point's own term defined wrongly anywhere in the answer. Sentences written
for this file; each wrong claim has a twin that states the fact right and keeps its credit."""

from __future__ import annotations

import pytest

from scoring.engines.relations import (
    launch_overhead_gone,
    misattributed_features,
    portable_engines,
    quantization_gains_precision,
    reversed_batching,
    reversed_percentile_shares,
    reversed_percentiles,
    reversed_real_time_factor,
    unbounded_batch_waits,
    wrong_claims,
    wrong_precision_sizes,
)
from scoring.engines.rubric import RubricEngine
from scoring.engines.senses import average_definitions, wrong_definitions
from scoring.engines.text import tokenize
from tests.scoring.test_engines import bank_question

CREDITED = {"made", "partly"}


def verdict(slug: str, key: str, answer: str) -> str:
    outcome = RubricEngine().score(bank_question(slug), answer)
    return {v.key: v.verdict for v in outcome.criteria}[key]


def claimed(finder, text: str) -> list[str]:
    return [text[c.span.start : c.span.end] for c in finder(text, lambda offset: 0)]


SHAPES_SWAPPED = ("For flexibility, TensorRT copes with variable-length input shapes natively, "
                  "whereas TorchServe requires fixed optimization profiles for every shape range.")
SHAPES_RIGHT = ("For flexibility, TorchServe copes with dynamic shapes and Python handlers, "
                "whereas TensorRT requires fixed optimization profiles for every shape range.")


def test_dynamic_shapes_and_profiles_said_of_the_wrong_tool_are_contradicted() -> None:
    assert claimed(misattributed_features, SHAPES_SWAPPED) == [
        "TorchServe requires fixed optimization profiles",
        "TensorRT copes with variable-length input shapes"]
    assert verdict("tensorrt-torchserve-tradeoffs", "preprocessing-shapes",
                   SHAPES_SWAPPED) == "contradicted"
    assert claimed(misattributed_features, SHAPES_RIGHT) == []
    assert verdict("tensorrt-torchserve-tradeoffs", "preprocessing-shapes",
                   SHAPES_RIGHT) in CREDITED


@pytest.mark.parametrize(("tool", "expected"), [("TorchServe", "contradicted"),
                                                 ("TensorRT", "partly")])
def test_the_rebuild_belongs_to_tensorrt(tool: str, expected: str) -> None:
    answer = (f"The 45 minute rebuild for every model version is a {tool} thing, and with "
              "weekly retrains that slows the release train.")
    # Right, the sentence makes part of the point (the rebuild per version, not per GPU type).
    assert verdict("stripe-fraud-tensorrt-vs-torchserve", "rebuild-cost", answer) == expected


def test_wrapping_an_engine_in_a_handler_is_not_a_misattribution() -> None:
    assert claimed(misattributed_features,
                   "I'd wrap the TensorRT engine in a Python handler behind TorchServe.") == []
    assert claimed(misattributed_features, "TorchServe avoids the rebuild entirely.") == []


RTF_ABOVE = ("For capacity I'd track the real-time factor and keep it comfortably above 1, "
             "meaning we're keeping up, plus concurrent streams per GPU and queue depth.")
RTF_BELOW = ("For capacity I'd track the real-time factor and keep it well below 1, around 0.3, "
             "plus concurrent streams per GPU and queue depth.")


def test_real_time_factor_wanted_above_one_is_turned_round() -> None:
    assert claimed(reversed_real_time_factor, RTF_ABOVE) == [
        "real-time factor and keep it comfortably above 1"]
    assert verdict("twilio-transcription-slis", "throughput-saturation", RTF_ABOVE) \
        == "contradicted"
    assert verdict("twilio-transcription-slis", "throughput-saturation", RTF_BELOW) == "made"
    # An alert on RTF going above 1 says it right.
    assert claimed(reversed_real_time_factor,
                   "Page when the real-time factor goes above 1, we are falling behind.") == []


def test_a_term_defined_wrongly_is_contradicted_even_where_it_is_named_again() -> None:
    again = ("Chunk-processing jitter is what makes captions stutter, so it gets its own panel.")
    wrong = f"Jitter here is basically packet loss on the incoming audio. {again}"
    right = f"Jitter here is the variation in per-chunk processing time. {again}"
    assert verdict("twilio-transcription-slis", "jitter", wrong) == "contradicted"
    assert verdict("twilio-transcription-slis", "jitter", right) in CREDITED


@pytest.mark.parametrize(("finder", "wrong", "right"), [
    (wrong_precision_sizes,
     "In FP16 every weight takes one byte, so the 3B model needs about 3 GB.",
     "In FP16 every weight takes two bytes, so the 3B model needs about 6 GB."),
    (quantization_gains_precision,
     "Quantizing to INT8 makes the model more accurate and faster.",
     "Quantizing to INT8 makes the model faster at a small cost in accuracy."),
    (unbounded_batch_waits,
     "With dynamic batching the server always waits until it has a full batch of 32.",
     "With dynamic batching the server waits until it has 32 requests or 2ms have passed."),
    (reversed_percentile_shares,
     "I'd report p99, the latency that 99% of requests are slower than.",
     "I'd report p99, the latency that 99% of requests are faster than."),
    (wrong_definitions,
     "Jitter is also important - by that I mean packet loss on the uplink.",
     "Jitter is also important - by that I mean the spread of per-chunk processing time."),
    (wrong_definitions,
     "Then WER, the words-per-second rate the recogniser emits.",
     "Then WER, the share of words transcribed wrong against a labelled sample."),
    (wrong_definitions,
     "Roll back in the data plane, which to me means the Git repo: revert the commit.",
     "Roll back in the data plane, which to me means mesh weights: shift traffic back."),
    (lambda text, at: [c for c in wrong_claims(tokenize(text), text, at) if c.kind == "role"],
     "TorchServe is the one that does the graph-level optimization for us.",
     "TensorRT is the one that does the graph-level optimization for us."),
    (lambda text, at: [c for c in wrong_claims(tokenize(text), text, at) if c.kind == "role"],
     "TensorRT is more of a general-purpose Python model server.",
     "TorchServe is more of a general-purpose Python model server."),
    (wrong_definitions,
     "Word error rate is something you measure when you train the model, not in production.",
     "Word error rate is the share of words transcribed wrong on a labelled production sample."),
    (wrong_definitions,
     "Then jitter, which I'd measure as the average end-to-end latency over a minute.",
     "Then jitter, which I'd measure as the spread of per-chunk processing time."),
    (wrong_definitions,
     "Rollback means retraining the previous model from the last checkpoint.",
     "Rollback means repointing traffic to the previous version in the registry."),
    (wrong_definitions,
     "I'd watch prediction drift, which I'd define as the p99 latency creeping up over time.",
     "I'd watch prediction drift, which I'd define as the score distribution moving over time."),
    (wrong_definitions,
     "For CPU levers I'd use OpenVINO, which is NVIDIA's GPU compiler.",
     "For CPU levers I'd use OpenVINO, which is Intel's runtime for x86 CPUs."),
    (launch_overhead_gone,
     "On a GPU we also lose the kernel launch overhead, a CPU-side cost that GPUs don't have.",
     "On the GPU, CUDA graphs get rid of most of the kernel launch overhead."),
    (misattributed_features,
     "For batching I'd rely on TensorRT's management API to register versions.",
     "For batching I'd rely on TorchServe's management API to register versions."),
    (portable_engines,
     "You compile the TensorRT engine once and the plan runs on whatever GPUs prod has.",
     "You compile the TensorRT engine per GPU type, since a plan only runs where it was built."),
    (average_definitions,
     "I'd use CUDA graphs to visualise which kernels run slow.",
     "I'd use CUDA graphs to cut the per-call launch overhead."),
    (reversed_batching,
     "With a bigger batch every request comes back sooner because the GPU runs them together.",
     "With a bigger batch every request waits longer, though throughput goes up."),
    (reversed_real_time_factor,
     "Ten seconds of audio takes three seconds to process, so RTF is ~3.3, well within limits.",
     "Ten seconds of audio takes three seconds to process, so RTF is ~0.3, well within limits."),
    (reversed_real_time_factor,
     "Real-time factor, which I define as audio duration divided by processing time, under 0.3.",
     "Real-time factor, which I define as processing time divided by audio duration, under 0.3."),
    (reversed_percentiles,
     "I'd say p95 is the stricter percentile of the two, so it binds before p99 does.",
     "I'd say p99 is the stricter percentile of the two, so it binds before p95 does."),
])
def test_facts_of_the_subject_said_wrong_are_wrong_claims(finder, wrong: str, right: str) -> None:
    assert claimed(finder, wrong)
    assert claimed(finder, right) == []


def test_fp16_at_one_byte_contradicts_the_memory_check() -> None:
    wrong = ("On memory, FP16 stores each weight in one byte, so the 3B model is about 3 GB on "
             "the 16 GB T4 and the KV cache has plenty of room.")
    right = ("On memory, FP16 stores each weight in two bytes, so the 3B model is about 6 GB on "
             "the 16 GB T4 and the KV cache limits the batch size.")
    assert verdict("amazon-t4-3b-30k-qps", "memory-fit", wrong) == "contradicted"
    assert verdict("amazon-t4-3b-30k-qps", "memory-fit", right) in CREDITED


def test_a_wrong_definition_contradicts_its_own_point_not_its_neighbours() -> None:
    # The batching definition is wrong (the wait is bounded), the batch-size trade-off is right.
    answer = ("Dynamic batching means the server always waits until it has a full batch, since "
              "bigger batches raise throughput but add queueing delay to p99.")
    outcome = RubricEngine().score(bank_question("pinterest-batch-size-tradeoff"), answer)
    found = {v.key: v.verdict for v in outcome.criteria}
    assert found["batch-wait"] == "contradicted"
    assert found["batching-tradeoff"] == "made"


def test_shapes_swapped_stay_contradicted_beside_a_right_word_on_handlers() -> None:
    answer = f"{SHAPES_SWAPPED} TorchServe does have Python handlers for preprocessing, nice."
    assert verdict("tensorrt-torchserve-tradeoffs", "preprocessing-shapes",
                   answer) == "contradicted"


def test_a_lever_left_for_later_is_not_made() -> None:
    waved = "Switching to bigger GPUs or INT8 is a cost conversation for later, not part of sizing."
    made = "I'd also price bigger GPUs or INT8, since either cuts the fleet a lot."
    assert verdict("amazon-t4-3b-30k-qps", "cost-alternatives", waved) in {"missed",
                                                                           "contradicted"}
    assert verdict("amazon-t4-3b-30k-qps", "cost-alternatives", made) in CREDITED
