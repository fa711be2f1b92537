"""Mistakes in the candidate's own words (issue 9, second round): pitfalls recognised by the
kind of mistake they are, points conceded and then waved off, arithmetic written in words, and
machine counts that no criterion's words claim. Each answer below is written in words the
bank's phrases do not contain; each committed form has a denied twin that must stay clean."""

from __future__ import annotations

import pytest

from scoring.engines.rubric import RubricEngine
from tests.scoring.test_engines import bank_question


def scored(slug: str, answer: str):
    return RubricEngine().score(bank_question(slug), answer)


def verdicts(slug: str, answer: str) -> dict[str, str]:
    return {v.key: v.verdict for v in scored(slug, answer).criteria}


COMMITTED = [
    ("oracle-serverless-cold-starts", "only-5xx",
     "We watch the HTTP 5xx rate; as long as requests succeed, the endpoint is healthy."),
    ("inference-slis-and-alerts", "only-5xx",
     "I'd keep the paging simple and page on the error rate."),
    ("instacart-canary-playbook", "errors-only",
     "Spinnaker rolls back on a 5xx spike, and that catches it, so I wouldn't add more gates."),
    ("canary-and-versioning-design", "no-bake",
     "Send 5% to the canary and promote it the moment the first graphs look clean."),
    ("doordash-eta-canary", "no-bake",
     "Shadow, then a 5% canary; I'd ship it right away if the dashboards are green."),
    ("airbnb-argo-cd-versioning", "revert-is-instant",
     "Tag each image and if a version misbehaves a git revert rolls it back instantly."),
    ("snapchat-p95-12ms-bid-requests", "benchmark-as-guarantee",
     "FP16 got p99 to 11.3ms, so the latency problem is solved and I see no need to keep "
     "benchmarking it."),
    ("pinterest-batch-size-tradeoff", "chase-utilization",
     "A third of the card sits idle, so I'd crank the batch up to 64 until it is near 95% "
     "busy."),
    ("stripe-fraud-tensorrt-vs-torchserve", "reversed-facts",
     "TensorRT is simply faster than anything else, so it is the obvious pick here."),
    ("ad-ranking-latency-target", "average-target",
     "I'd promise the ranking team that requests come back in 12ms on average."),
    ("azure-capacity-spreadsheet-review", "accepts-1250",
     "The spreadsheet's 1,250 A100s looks right to me, so I'd approve the order."),
    ("azure-capacity-spreadsheet-review", "accepts-1250",
     "50,000 divided by 40 is 1,250, so I'm comfortable with 1,250 A100s going to procurement."),
    ("instacart-canary-playbook", "errors-only",
     "Rolling back on 5xx is the right trigger, because a model that isn't throwing errors is "
     "doing its job."),
    ("pinterest-batch-size-tradeoff", "chase-utilization",
     "I'd go from batch 8 to batch 32, which should get the cards into the 90s on utilization."),
    ("tensorrt-torchserve-tradeoffs", "always-faster",
     "TensorRT beats everything else on inference speed every time."),
    ("uber-weekly-model-release-train", "always-faster",
     "I'd standardise on TensorRT; rebuilds are a CI detail nobody will notice."),
    ("stripe-fraud-tensorrt-vs-torchserve", "reversed-facts",
     "TensorRT's big advantage is portability: build the engine once and run it on any card."),
    ("twilio-transcription-slis", "wrong-basics",
     "I'd measure average latency from audio in to text out, that's what users feel."),
    ("lyft-18ms-cpu-stack", "cpu-only-at-25ms",
     "CPU serving is cheaper to run, so I'd ship the CPU stack as designed and tune it later."),
]

AVOIDED = [
    ("oracle-serverless-cold-starts", "only-5xx",
     "5xx alone is not enough: requests can succeed and still wait 20 seconds on a cold start, "
     "so I'd also page on cold-start latency and the share of cold requests."),
    ("inference-slis-and-alerts", "only-5xx",
     "Error rate is one signal, but I wouldn't rely on it alone; p99 latency and GPU "
     "saturation matter as much."),
    ("canary-and-versioning-design", "no-bake",
     "Send 5% to the canary, wait 10-15 minutes after every weight change before judging, "
     "then promote if p99 and the business metric hold."),
    ("airbnb-argo-cd-versioning", "revert-is-instant",
     "A git revert doesn't roll back immediately: Argo CD still has to sync, up to 5 minutes."),
    ("snapchat-p95-12ms-bid-requests", "benchmark-as-guarantee",
     "11.3ms is under 12 today, but I'd keep re-running the load test on every release."),
    ("pinterest-batch-size-tradeoff", "chase-utilization",
     "Larger batches raise utilization, but I'd only go up while p99 stays under 10ms."),
    ("ad-ranking-latency-target", "average-target",
     "I'd target 15ms at p99, because averages hide the slow tail that hits the timeout."),
    ("azure-capacity-spreadsheet-review", "accepts-1250",
     "1,250 A100s is the count before headroom, so it is short: with 20% it is 1,500."),
    ("uber-weekly-model-release-train", "always-faster",
     "I'd serve it with TorchServe so a new version is just a model archive, no compile step."),
    ("lyft-18ms-cpu-stack", "cpu-only-at-25ms",
     "I'd keep a hard timeout at 16ms with a fallback, and alert before the 18ms page fires."),
    ("stripe-fraud-tensorrt-vs-torchserve", "reversed-facts",
     "TensorRT engines are not portable across GPUs, so each card type needs its own build."),
    ("twilio-transcription-slis", "wrong-basics",
     "Chunks can take 80ms and then 400ms, so captions stutter even when the average looks "
     "fine; I'd track the spread of per-chunk time."),
]


@pytest.mark.parametrize(("slug", "key", "answer"), COMMITTED)
def test_a_pitfall_committed_in_other_words_is_charged(slug: str, key: str, answer: str) -> None:
    assert verdicts(slug, answer)[key] == "made"


@pytest.mark.parametrize(("slug", "key", "answer"), AVOIDED)
def test_the_same_subject_said_right_is_not_charged(slug: str, key: str, answer: str) -> None:
    assert verdicts(slug, answer)[key] == "missed"


def test_a_pitfall_phrase_scattered_over_a_sentence_is_not_the_mistake() -> None:
    # "judge from the first minute" is not "wait 10-15 minutes ... before judging".
    found = verdicts("doordash-eta-canary",
                     "Canary at 5%, wait 10-15 minutes after every weight change before judging, "
                     "then ramp.")
    assert found["no-bake"] == "missed"


@pytest.mark.parametrize(("slug", "key", "answer"), [
    ("netflix-bert-tensorrt-preprocessing", "rebuild-cost",
     "We'd have to rebuild the engine when the model changes, but that's just a CI job."),
    ("airbnb-argo-cd-versioning", "data-plane-rollback",
     "Some people would add Argo Rollouts to flip traffic back faster, but I don't think it's "
     "worth the complexity."),
    ("inference-slis-and-alerts", "burn-rate",
     "Error budgets and burn rates get talked about a lot, but they're mostly overhead for a "
     "team this size."),
    ("netflix-bert-tensorrt-preprocessing", "extra-hop",
     "The tokenizer service sits in the same cluster, so the extra network hop is basically "
     "free."),
])
def test_a_point_conceded_then_waved_off_is_not_made(slug: str, key: str, answer: str) -> None:
    assert verdicts(slug, answer)[key] in {"missed", "contradicted"}


def test_a_conceded_point_that_is_kept_is_still_made() -> None:
    found = verdicts("netflix-bert-tensorrt-preprocessing",
                     "We'd have to rebuild the engine when the model changes, and that takes "
                     "about 45 minutes in CI, so I'd keep builds off the release path.")
    assert found["rebuild-cost"] in {"made", "partly"}


def calculations(slug: str, answer: str) -> list[str]:
    return list(scored(slug, answer).feedback.get("calculations") or [])


@pytest.mark.parametrize(("slug", "answer"), [
    ("lyft-18ms-cpu-stack", "25 minus 18 is 5ms to cut, so I'd move the model to a GPU."),
    ("azure-capacity-spreadsheet-review", "1,250 plus 20% is 1,750, so I'd budget 1,750 A100s."),
    ("netflix-bert-tensorrt-preprocessing", "7ms vs 12ms, so TensorRT cuts latency by about 60%."),
    ("netflix-bert-tensorrt-preprocessing",
     "On the engine TensorRT is 12 minus 7, so 5ms faster at p99, which is a 60% cut."),
])
def test_arithmetic_in_words_that_does_not_follow_is_corrected(slug: str, answer: str) -> None:
    assert calculations(slug, answer)


@pytest.mark.parametrize(("slug", "answer"), [
    ("lyft-18ms-cpu-stack", "25 minus 18 is 7ms to cut, so I'd move the model to a GPU."),
    ("azure-capacity-spreadsheet-review", "1,250 plus 20% is 1,500, so I'd budget 1,500 A100s."),
    ("netflix-bert-tensorrt-preprocessing", "7ms vs 12ms, so TensorRT cuts latency by about 42%."),
    ("netflix-bert-tensorrt-preprocessing",
     "On the engine TensorRT is 12 minus 7, so 5ms faster at p99, which is a 42% cut."),
])
def test_arithmetic_in_words_that_follows_is_accepted(slug: str, answer: str) -> None:
    assert calculations(slug, answer) == []


def test_a_right_gain_given_a_wrong_share_is_not_made() -> None:
    wrong = verdicts("netflix-bert-tensorrt-preprocessing",
                     "TensorRT is 12 minus 7, so 5ms faster at p99, which is a 60% cut.")
    right = verdicts("netflix-bert-tensorrt-preprocessing",
                     "TensorRT is 12 minus 7, so 5ms faster at p99, which is a 42% cut.")
    assert wrong["engine-gain"] != "made"
    assert right["engine-gain"] == "made"


def numbers(slug: str, answer: str) -> dict[str, object]:
    return {c.criterion_key: c for c in scored(slug, answer).numbers}


def test_a_count_no_criterion_claims_is_judged_against_the_count_asked_for() -> None:
    found = numbers("amazon-t4-3b-30k-qps",
                    "I'd go with about 50 T4s, maybe 60 to have some buffer.")
    assert found["t4-count"].found_value == 50
    assert not found["t4-count"].within_tolerance
    assert found["t4-headroom"].found_value == 60
    assert not found["t4-headroom"].within_tolerance


def test_right_counts_with_and_without_buffer_are_both_accepted() -> None:
    found = numbers("amazon-t4-3b-30k-qps",
                    "At 12 QPS per T4 that's 30,000 / 12 = 2,500 T4s, and I'd run 3,000 T4s to "
                    "have some buffer for failures.")
    assert found["t4-count"].within_tolerance
    assert found["t4-headroom"].within_tolerance


def test_a_count_per_node_is_not_the_fleet_size() -> None:
    found = numbers("amazon-t4-3b-30k-qps", "We rack 8 T4s per node and scale out from there.")
    assert found["t4-count"].found_value is None


def test_bigger_batches_said_to_lower_latency_contradict_the_trade_off() -> None:
    found = verdicts("pinterest-batch-size-tradeoff",
                     "The nice thing about bigger batches is that latency actually drops, since "
                     "the queue clears in fewer passes.")
    assert found["batching-tradeoff"] == "contradicted"


def test_a_number_only_computed_with_is_never_shown_as_a_wrong_result() -> None:
    answer = ("A T4 does about 120 tokens a second and the fleet needs 30,000 x 10 = 300,000 "
              "tokens per second, so 300,000 / 120 = 2,500 T4s.")
    assert calculations("amazon-t4-3b-30k-qps", answer) == []
    assert numbers("amazon-t4-3b-30k-qps", answer)["t4-count"].within_tolerance


@pytest.mark.parametrize(("slug", "answer"), [
    # An expression starts after "which is": not a result to check.
    ("gpu-cluster-sizing-method",
     "50,000 / 40 = 1,250 GPUs; across three zones each needs 625 and the total is 1,875, which "
     "is 1,250 / (2/3)."),
    # Another earlier figure is the base of the margin.
    ("azure-capacity-spreadsheet-review",
     "1,250 x 1.2 = 1,500 with 20% on top, and if the team wants the 10% margin, 1,375."),
    # The share belongs to another thought ("and ... if").
    ("inference-slis-and-alerts",
     "Burn alerts over 30 days, a fast one over an hour and a slow one over 6 hours, and a leak "
     "alert if memory grows more than 2% in five minutes."),
])
def test_right_figures_on_other_routes_are_not_corrected(slug: str, answer: str) -> None:
    assert calculations(slug, answer) == []


def test_a_margin_figure_is_judged_by_the_percentage_its_sentence_works_out() -> None:
    found = numbers("azure-capacity-spreadsheet-review",
                    "Adding the 20%: 1,500. I prefer a 10% margin here, 1,250 x 1.1 = 1,475 A100s.")
    assert found["gpus-10pct"].found_value == 1475
    assert not found["gpus-10pct"].within_tolerance
    assert found["gpus-20pct"].within_tolerance


@pytest.mark.parametrize(("answer", "flagged"), [
    ("25 against 18 is about 5ms over, so we are not far off.", True),
    ("25 isn't far off 18, it's about 5ms over.", True),
    ("25ms against 18ms is 7ms over, so the model has to move.", False),
])
def test_a_gap_stated_between_two_figures_is_checked(answer: str, flagged: bool) -> None:
    assert bool(calculations("lyft-18ms-cpu-stack", answer)) is flagged


def test_a_points_evidence_is_the_one_sentence_that_makes_it() -> None:
    # Not every sentence that shares a word with the point: the one whose phrases weigh most.
    import json
    from pathlib import Path

    from scoring.engines.clauses import _sentence_of, analyse

    path = Path(__file__).parent / "data" / "criteria-dev-2.jsonl"
    spread = []
    for line in path.read_text().splitlines():
        item = json.loads(line)
        outcome = scored(item["question"], item["answer"])
        doc = analyse(item["answer"])
        for verdict in outcome.criteria:
            if verdict.kind == "concept" and verdict.verdict in {"made", "partly"}:
                sentences = {_sentence_of(doc, span.start) for span in verdict.evidence}
                if len(sentences) > 1:
                    spread.append((item["id"], verdict.key))
    assert spread == []


@pytest.mark.parametrize(("answer", "flagged"), [
    ("We do about 6,000 orders an hour, so 2% is 1,200 orders an hour on the canary.", True),
    ("We do about 6,000 orders an hour, so 2% is 120 orders an hour on the canary.", False),
])
def test_a_share_of_a_stated_figure_is_checked(answer: str, flagged: bool) -> None:
    assert bool(calculations("doordash-eta-canary", answer)) is flagged


def test_a_given_figure_repeated_with_the_wrong_unit_is_corrected() -> None:
    wrong = calculations("stripe-fraud-tensorrt-vs-torchserve",
                         "Each version needs its own engine build, but that build is around 45 "
                         "seconds in CI, so even hourly retrains are no problem.")
    assert wrong == ["You wrote 45 seconds; the question gives 45 minutes."]
    assert calculations("stripe-fraud-tensorrt-vs-torchserve",
                        "The rebuild takes 45 minutes in CI, so weekly is fine but hourly is "
                        "not.") == []


def test_the_questions_most_important_figure_stated_wrong_caps_the_rating_at_2() -> None:
    # Every other point made; only the heaviest figure (30,000 / 12) is off by 10x.
    answer = ("I'd first ask about tokens per request and the latency target. A T4 does about "
              "120 tokens/s, so at 10 tokens a request that's 12 QPS per GPU. 30,000 / 12 = 250 "
              "T4s, about 300 with 20% headroom for peaks and failures. A 3B model in FP16 is "
              "6GB, so it fits in 16GB with room for the KV cache. I'd also look at INT8 or an "
              "L4 to cut the count.")
    outcome = scored("amazon-t4-3b-30k-qps", answer)
    assert outcome.rating <= 2
    right = scored("amazon-t4-3b-30k-qps", answer.replace("= 250", "= 2,500").replace(
        "about 300", "about 3,000"))
    assert right.rating >= 3


def test_a_partly_made_point_earns_less_than_its_partial_credit() -> None:
    from scoring.engines.base import CriterionVerdict
    from scoring.engines.clauses import analyse
    from scoring.engines.totals import PARTLY_SHARE, rubric_breakdown

    doc = analyse("Because of that, I would do it this way, so that it works.")
    made = CriterionVerdict(key="a", label="A", kind="concept", verdict="made", weight=1,
                            credit=0.5)
    partly = CriterionVerdict(key="a", label="A", kind="concept", verdict="partly", weight=1,
                              credit=0.5)
    assert PARTLY_SHARE < 1
    assert rubric_breakdown(doc, [partly]).before < rubric_breakdown(doc, [made]).before


@pytest.mark.parametrize(("slug", "key", "answer"), [
    ("robinhood-bad-model-blast-radius", "flag-latency",
     "The 200 microseconds isn't something I'd worry about at our traffic."),
    ("amazon-t4-3b-30k-qps", "clarify",
     "I'd skip the questions; tokens per request doesn't change much for a 3B model."),
])
def test_worry_and_change_dismissals_take_the_point_back(slug: str, key: str,
                                                         answer: str) -> None:
    assert verdicts(slug, answer)[key] in {"missed", "contradicted"}


@pytest.mark.parametrize(("slug", "key", "answer"), [
    ("inference-slis-and-alerts", "only-5xx",
     "Honestly you page on 5xx and that's it; no errors means happy users."),
    ("instacart-canary-playbook", "errors-only",
     "A 5xx spike is how you know the model broke, so the rollback on those is the key safety "
     "net."),
    ("snapchat-p95-12ms-bid-requests", "benchmark-as-guarantee",
     "FP16 TensorRT was the fix, that box is ticked, so I'd move on to other work."),
    ("pinterest-batch-size-tradeoff", "chase-utilization",
     "I'd go from 8 to 32 straight away and get the cards up in the 90s on utilization."),
    ("netflix-bert-tensorrt-preprocessing", "always-faster",
     "TensorRT beats TorchServe on basically every model I've tried, so I'd switch."),
    ("meta-80-a100-sanity-check", "reuse-as-is",
     "For our plan I'd take ~550 per A100 and size the fleet from that."),
])
def test_more_pitfalls_in_plain_words_are_charged(slug: str, key: str, answer: str) -> None:
    assert verdicts(slug, answer)[key] == "made"


@pytest.mark.parametrize(("slug", "key", "answer"), [
    ("robinhood-bad-model-blast-radius", "remote-flag-every-request",
     "I'd cache flag state in-process and stream updates from the flag service instead of "
     "calling it per request."),
    ("lyft-18ms-cpu-stack", "cpu-only-at-25ms",
     "Wins while staying on CPU: cache hot features in-process and run ONNX Runtime with INT8 "
     "to get under 18ms."),
])
def test_the_right_design_in_nearby_words_is_not_charged(slug: str, key: str,
                                                         answer: str) -> None:
    assert verdicts(slug, answer)[key] == "missed"


@pytest.mark.parametrize(("slug", "key", "answer"), [
    ("stripe-fraud-tensorrt-vs-torchserve", "memory-fragmentation",
     "Memory fragmentation and worker babysitting are ops trivia, not a design decision."),
    ("instacart-canary-playbook", "bake-each-step",
     "The 10-minute wait after each shift is mostly caution; you'd see a problem right away."),
    ("pinterest-batch-size-tradeoff", "batching-tradeoff",
     "Queueing delay from bigger batches is a rounding error at our traffic."),
])
def test_more_dismissals_take_the_point_back(slug: str, key: str, answer: str) -> None:
    assert verdicts(slug, answer)[key] in {"missed", "contradicted"}


def test_a_gap_named_as_what_to_cut_is_checked() -> None:
    assert calculations("lyft-18ms-cpu-stack",
                        "So we're at 25 and the line is 18, that's 9ms we need to cut.")
    assert calculations("lyft-18ms-cpu-stack",
                        "So we're at 25 and the line is 18, that's 7ms we need to cut.") == []


def test_a_given_figure_stated_as_the_result_is_judged() -> None:
    # 7ms is TensorRT's latency in the question, not what it saves.
    found = numbers("netflix-bert-tensorrt-preprocessing",
                    "On paper TensorRT saves about 7ms at p99.")
    assert found["engine-gain"].found_value == 7
    assert not found["engine-gain"].within_tolerance


def test_a_rounded_count_in_the_next_sentence_is_the_headroom_count() -> None:
    found = numbers("google-a100-7b-50k-qps",
                    "That's 50,000 / 2,000 = 25 GPUs. I'd round it to 30 to leave room for "
                    "failures.")
    assert found["gpus-with-headroom"].found_value == 30
    assert not found["gpus-with-headroom"].within_tolerance


@pytest.mark.parametrize(("answer", "flagged"), [
    ("I'd use an SLO of 99.5% over 30 days, that gives an error budget of about 36 hours.", True),
    ("I'd use an SLO of 99.5% over 30 days, that gives an error budget of about 3.6 hours.",
     False),
    ("99.9% over 30 days is a budget of 43 minutes.", False),
])
def test_an_error_budget_is_checked_against_its_objective(answer: str, flagged: bool) -> None:
    assert bool(calculations("inference-slis-and-alerts", answer)) is flagged


def _charged(slug: str, key: str, answer: str) -> bool:
    outcome = RubricEngine().score(bank_question(slug), answer)
    return {v.key: v.verdict for v in outcome.criteria}[key] == "made"


@pytest.mark.parametrize(("slug", "key", "committed", "avoided"), [
    ("instacart-canary-playbook", "errors-only",
     "A 5xx spike means the model broke, so the automatic rollback on 5xx is really all the "
     "rollback logic we need.",
     "A spike in 5xx tells us the model broke, but the rollback on 5xx is not all the rollback "
     "logic we need: latency and conversion gates come next."),
    ("oracle-serverless-cold-starts", "only-5xx",
     "I'd alert on the 5xx rate of each endpoint above 1% for five minutes, and that's "
     "basically the monitoring plan.",
     "I'd alert on the 5xx rate of each endpoint above 1% for five minutes, next to cold-start "
     "p99 and the share of requests that land on a cold replica."),
    ("pinterest-batch-size-tradeoff", "chase-utilization",
     "I'd jump straight to a batch of 64 and let the GPU run in the 90s.",
     "I'd try 32 and 64 and keep whichever holds p99 under 10ms, even if the GPU sits at 70%."),
])
def test_a_pitfall_said_in_other_words_is_charged(slug: str, key: str, committed: str,
                                                  avoided: str) -> None:
    assert _charged(slug, key, committed)
    assert not _charged(slug, key, avoided)


def test_a_design_with_nothing_to_compile_does_not_wave_the_rebuild_away() -> None:
    slug = "tensorrt-torchserve-tradeoffs"
    assert not _charged(slug, "always-faster",
                        "With a weekly retrain I'd stay on TorchServe, because shipping a new "
                        "version is just packaging an archive - there's nothing to compile "
                        "sitting in the release train.")
    assert _charged(slug, "always-faster",
                    "I'd pick TensorRT for everything; the rebuild is nothing, basically a coffee "
                    "break in CI.")


def test_a_measured_basis_preferred_to_tflops_is_not_a_spec_sheet_estimate() -> None:
    slug = "google-a100-7b-50k-qps"
    answer = ("I'd go from the measured ~40 QPS per A100 at 20ms p99, which I trust far more "
              "than anything derived from TFLOPS, so 50,000 / 40 = 1,250 GPUs.")
    assert not _charged(slug, "spec-sheet-estimate", answer)
    assert _charged(slug, "spec-sheet-estimate",
                    "An A100 does 312 TFLOPS, so in theory one card serves about 400 QPS.")


@pytest.mark.parametrize(("slug", "key", "committed", "avoided"), [
    ("canary-and-versioning-design", "no-bake",
     "A bake period after each step is overkill in my view; the automated analysis will tell us.",
     "A bake period after each step is what I'd keep, ten minutes before we judge anything."),
    ("airbnb-argo-cd-versioning", "revert-is-instant",
     "If the canary goes bad you git revert and you're back on the old version.",
     "If the canary goes bad I'd abort the rollout in the data plane; a git revert waits for "
     "the next sync."),
    ("zoom-gpu-memory-leak-alert", "rule-catches-leaks",
     "So yes, I think the existing rule covers leaks and I'd keep it as the main alert.",
     "No, the existing rule misses slow leaks, so I'd add a slope alert over hours."),
])
def test_a_pitfall_said_through_what_it_leaves_out_is_charged(slug: str, key: str,
                                                               committed: str,
                                                               avoided: str) -> None:
    assert _charged(slug, key, committed)
    assert not _charged(slug, key, avoided)
