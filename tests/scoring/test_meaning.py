"""Meaning over vocabulary (issue 9): dismissals scoped to their clause, relations and roles
stated the wrong way round, pitfalls committed in the candidate's own words. The answers are
the examples the issue quotes, scored against the bundled bank's questions."""

from __future__ import annotations

import pytest

from scoring.engines.relations import (
    misattributed_roles,
    reversed_batching,
    reversed_percentiles,
)
from scoring.engines.rubric import RubricEngine
from scoring.engines.text import tokenize
from tests.scoring.test_engines import bank_question


def verdicts(slug: str, answer: str) -> dict[str, str]:
    outcome = RubricEngine().score(bank_question(slug), answer)
    return {v.key: v.verdict for v in outcome.criteria}


SWAPPED_TOOLS = (
    "TorchServe is the compiler that needs a rebuild per version, about 45 minutes in CI, while "
    "TensorRT is the model server with a management API and Python handlers for preprocessing. "
    "TensorRT is faster thanks to kernel fusion and FP16, 7ms vs 12ms p99. I'd use dynamic "
    "batching with a max delay, and watch GPU memory fragmentation. I'd pick TensorRT behind "
    "Triton for weekly retrains."
)


def test_swapped_tools_contradict_the_points_and_commit_the_pitfall() -> None:
    outcome = RubricEngine().score(bank_question("stripe-fraud-tensorrt-vs-torchserve"),
                                   SWAPPED_TOOLS)
    found = {v.key: v for v in outcome.criteria}
    assert found["rebuild-cost"].verdict == "contradicted"
    assert found["torchserve-ops"].verdict == "contradicted"
    assert found["rebuild-cost"].credit == 0
    assert found["reversed-facts"].verdict == "made"  # the pitfall is committed
    assert outcome.rating < 4
    assert outcome.total < 60


@pytest.mark.parametrize(("slug", "answer", "key"), [
    ("instacart-canary-playbook",
     "I'd actually drop the 10-minute bake, it's overkill for search. Shift 2% of traffic and "
     "roll back if p99 regresses.", "bake-each-step"),
    ("stripe-fraud-tensorrt-vs-torchserve",
     "TensorRT is faster with kernel fusion. GPU memory fragmentation goes away under TensorRT, "
     "so there is nothing to watch.", "memory-fragmentation"),
    ("pinterest-batch-size-tradeoff",
     "Bigger batches lower p99, so I'd raise the batch size to 32 to use the GPU fully.",
     "batching-tradeoff"),
])
def test_a_point_waved_away_or_turned_round_is_not_made(slug: str, answer: str,
                                                        key: str) -> None:
    assert verdicts(slug, answer)[key] == "contradicted"


def test_drop_said_of_a_metric_is_not_a_dismissal() -> None:
    tokens = tokenize("When latency drops to 5ms we bake for 10 minutes.")
    assert not any(t.negated for t in tokens)
    tokens = tokenize("We can drop the bake window.")
    assert [t.lower for t in tokens if t.negated] == ["the", "bake", "window"]


def test_roles_relations_and_percentiles_read_the_right_way_round() -> None:
    text = "TensorRT is the compiler and TorchServe is the model server."
    assert misattributed_roles(tokenize(text), text) == []
    text = "TorchServe is the compiler and TensorRT is a model server."
    assert len(misattributed_roles(tokenize(text), text)) == 2

    def first(_: int) -> int:
        return 0

    assert reversed_percentiles("p99 is lower than p50 here", first)
    assert reversed_percentiles("the median is higher than p99", first)
    assert not reversed_percentiles("p99 is higher than p50, as always", first)
    assert reversed_batching("Bigger batches lower p99 latency.", first)
    assert reversed_batching("Larger batches reduce throughput.", first)
    assert reversed_batching("Smaller batches raise latency.", first)
    assert not reversed_batching("Bigger batches raise throughput but add queueing delay.", first)
    assert not reversed_batching("Bigger batches improve throughput.", first)


def test_a_pitfall_committed_in_plain_words_is_caught() -> None:
    found = verdicts("uber-weekly-model-release-train",
                     "Whatever the cadence, TensorRT will be the faster option, so I'd "
                     "standardise on it and rebuild engines in CI.")
    assert found["always-faster"] == "made"
    found = verdicts("amazon-t4-3b-30k-qps",
                     "I'd go with something like 60 T4s, since the model is small and fits.")
    assert found["unsupported-guess"] == "made"


def test_a_count_with_its_throughput_basis_is_not_a_guess() -> None:
    found = verdicts("amazon-t4-3b-30k-qps",
                     "A T4 does about 120 tokens/s, so 12 QPS per GPU at 10 tokens a request: "
                     "30,000 / 12 = 2,500 T4s, about 3,000 with 20% headroom.")
    assert found["unsupported-guess"] == "missed"


def test_feedback_never_calls_a_committed_pitfall_avoided() -> None:
    from interviews.feedback import criteria_rows

    outcome = RubricEngine().score(bank_question("stripe-fraud-tensorrt-vs-torchserve"),
                                   SWAPPED_TOOLS)
    rows = criteria_rows([v.__dict__ for v in outcome.criteria], answer_kind="answer")
    pitfall = next(r for r in rows if r["key"] == "reversed-facts")
    assert pitfall["shown"] == "Fell into it"


def test_evidence_for_a_point_is_a_sentence_that_makes_it() -> None:
    answer = ("I'd track cold-start latency: how long the first request on a new replica "
              "takes, from container start to model load. I'd also watch GPU utilization and "
              "GPU memory, and 5xx errors and timeouts.")
    outcome = RubricEngine().score(bank_question("oracle-serverless-cold-starts"), answer)
    found = {v.key: v for v in outcome.criteria}
    # A sentence about cold-start duration does not track how often requests hit a cold replica.
    assert found["coldstart-rate"].verdict == "missed"
    assert found["coldstart-rate"].evidence == []
    # GPU utilization and memory are not scale-up time and queue depth: no praise for those.
    assert found["capacity"].verdict != "made"
    hit = next(c.feedback_hit for c in bank_question("oracle-serverless-cold-starts").criteria
               if c.key == "capacity")
    assert hit not in outcome.feedback["strengths"]
    assert found["coldstart-latency"].verdict == "made"


def test_adverbs_inside_a_dismissal_still_dismiss() -> None:
    tokens = tokenize("A load test isn't really needed since Netflix already benchmarked it.")
    assert {t.lower for t in tokens if t.negated} >= {"load", "test"}


def test_a_number_in_a_dismissed_clause_does_not_make_the_point() -> None:
    found = verdicts("tiktok-20ms-budget",
                     "I'd set 15ms p99 as the internal number, with 5ms left for network "
                     "jitter. The 2ms launch overhead isn't worth budgeting for; it's in the "
                     "noise.")
    assert found["launch-overhead"] in {"contradicted", "missed"}


def test_a_wrong_definition_of_the_criterions_term_is_contradicted() -> None:
    found = verdicts("twilio-transcription-slis",
                     "I'd watch p99 latency from audio chunk to transcript, and jitter, which is "
                     "the average processing time per chunk. Also WER on a sample.")
    assert found["jitter"] == "contradicted"
    assert found["latency-errors"] != "contradicted"  # the sentence's other point stands


def test_a_verb_that_makes_a_point_is_not_a_dismissal() -> None:
    for sentence in ("You can remove the top element with pop.", "We can cut latency by half.",
                     "I'd avoid a big-bang rollout."):
        assert not any(t.negated for t in tokenize(sentence)), sentence


# QA pass (issue 9): statements a reviewer found false in the browser.

KILL_SWITCH_POINTS = (
    "First I'd validate the model offline on held-out and recent data, then run shadow traffic "
    "where its outputs are logged and compared but never served. I'd version the model, "
    "features and image so we can revert to the last known good version in seconds. Then a 1% "
    "canary with a gradual ramp, one region at a time, to cap the blast radius. ")


@pytest.mark.parametrize("flag", [
    "For emergencies I'd add a per-segment kill switch; the 200 microseconds flag cost is "
    "negligible, so I'd simply evaluate the flag remotely on every request.",
    "For emergencies I'd add a per-segment kill switch; the 200 microseconds flag cost is "
    "negligible.",
    "For emergencies I'd add a per-segment kill switch and evaluate the flag remotely on every "
    "request.",
])
def test_a_dismissed_flag_cost_or_remote_evaluation_is_not_the_point_made(flag: str) -> None:
    outcome = RubricEngine().score(bank_question("robinhood-bad-model-blast-radius"),
                                   KILL_SWITCH_POINTS + flag)
    found = {v.key: v for v in outcome.criteria}
    assert found["flag-latency"].verdict in {"contradicted", "missed"}
    assert found["remote-flag-every-request"].verdict == "made"  # the pitfall is committed
    assert outcome.rating < 4


def test_a_total_is_never_100_while_points_are_not_made() -> None:
    answer = KILL_SWITCH_POINTS + (
        "I'd add a per-segment kill switch whose flag state is cached locally with streamed "
        "updates, since a remote check costs 200 microseconds per request.")
    outcome = RubricEngine().score(bank_question("robinhood-bad-model-blast-radius"), answer)
    unmade = [v.key for v in outcome.criteria if v.kind != "pitfall" and v.verdict != "made"]
    assert unmade
    assert outcome.total < 100


def test_reusing_the_reported_figure_commits_the_pitfall_and_the_summary_says_why() -> None:
    answer = ("45,000 / 80 = 562 QPS per GPU. That is a strong number and the p95 of 18ms is "
              "inside our budget, so I'd reuse it for capacity planning.")
    outcome = RubricEngine().score(bank_question("meta-80-a100-sanity-check"), answer)
    found = {v.key: v for v in outcome.criteria}
    assert found["reuse-as-is"].verdict == "made"
    [check] = [n for n in outcome.numbers if n.criterion_key == "per-gpu-qps"]
    assert check.worked_calculation.startswith("45,000 / 80 = 562.5 ")
    summary = outcome.feedback["summary"]
    assert f"score {outcome.total:.0f}/100, lowered from" in summary
    assert "pitfall: reuses the reported figure" in summary


@pytest.mark.parametrize("answer", [
    "I'd watch the 5xx rate and page the on-call. I'd also alert the team on cold-start latency "
    "above 300ms.",
    "I would alert on cold starts above 300ms and on 5xx.",
])
def test_alerting_on_cold_start_latency_makes_the_cold_start_sli(answer: str) -> None:
    assert verdicts("oracle-serverless-cold-starts", answer)["coldstart-latency"] in {
        "made", "partly"}
