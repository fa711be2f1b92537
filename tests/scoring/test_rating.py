"""The 1-4 rating is calibrated against graders (issue 9): a 4 needs every important point,
no wrong core number and no committed pitfall; missing the most important point caps it."""

from __future__ import annotations

from scoring.engines.base import CriterionVerdict, NumberCheck
from scoring.engines.rating import TOP_MISSED_CAP, blockers, hedges, rubric_rating, top_point
from scoring.engines.rubric import RubricEngine
from tests.scoring.test_engines import bank_question


def verdict(key: str, weight: float, result: str, kind: str = "concept") -> CriterionVerdict:
    credit = {"made": 1.0, "partly": 0.5}.get(result, 0.0)
    return CriterionVerdict(key, key.title(), kind, result, weight, credit)


# Every important point made and one light point of nine missed (89% of the weight).
FULL = [verdict("a", 3, "made"), verdict("b", 2, "made"), verdict("c", 2, "made"),
        verdict("d", 1, "missed"), verdict("e", 1, "made"), verdict("p", 1, "missed", "pitfall")]


def test_a_high_total_with_every_important_point_is_a_4() -> None:
    assert blockers(FULL, []) == []
    assert rubric_rating(90, FULL, []) == 4


def test_four_of_six_points_at_82_is_not_a_strong_hire() -> None:
    verdicts = [verdict("a", 3, "made"), verdict("b", 2, "made"), verdict("c", 2, "partly"),
                verdict("d", 2, "missed"), verdict("e", 1, "made"), verdict("f", 1, "made")]
    assert rubric_rating(82, verdicts, []) == 3


def test_a_committed_pitfall_or_a_wrong_core_number_blocks_a_4() -> None:
    pitfall = [*FULL[:5], verdict("p", 1, "made", "pitfall")]
    assert rubric_rating(95, pitfall, []) == 3
    wrong = NumberCheck("n", 1500, "GPUs", 5, found_value=1750, within_tolerance=False)
    assert rubric_rating(95, FULL, [wrong]) == 3
    assert rubric_rating(95, FULL, [], wrong_arithmetic=1) == 3


def test_missing_the_most_important_point_caps_the_rating() -> None:
    verdicts = [verdict("a", 1, "missed"), verdict("b", 1, "made"), verdict("c", 1, "made")]
    assert top_point(verdicts).key == "a"
    assert rubric_rating(99, verdicts, []) == TOP_MISSED_CAP


def test_the_issue_answer_without_the_rebuild_is_not_rated_4() -> None:
    answer = ("TensorRT is faster thanks to kernel fusion and FP16: about 7ms vs 12ms p99 on a "
              "BERT model. TorchServe gives a management API for model versions and Python "
              "handlers for preprocessing, while TensorRT needs preprocessing in a separate "
              "service. I'd use dynamic batching with a max delay to recover throughput. I'd "
              "pick TensorRT behind Triton because we retrain weekly.")
    outcome = RubricEngine().score(bank_question("stripe-fraud-tensorrt-vs-torchserve"), answer)
    found = {v.key: v.verdict for v in outcome.criteria}
    assert found["rebuild-cost"] == "missed"  # "model versions" of TorchServe is not the rebuild
    assert outcome.rating <= 3


def test_a_bare_list_of_most_points_is_not_a_4() -> None:
    # The terse answer graders put at 2/5: every heavy point named, a quarter of the weight not.
    outcome = RubricEngine().score(
        bank_question("canary-and-versioning-design"),
        "Versioned models in a registry, 5% canary via mesh weights, compare error rate and "
        "latency to baseline, roll back automatically if worse.")
    assert outcome.rating <= 3


FLAT_SHORT = ("I'd ask the caller's timeout first and assume about 20ms upstream. Target 15ms p99, "
              "because averages hide a bad tail. Justify it with a per-stage split, load tests "
              "and tracing. On breach, time out, serve a default score, and alert when p99 stays "
              "over target for a few minutes.")
HEDGED_SHORT = ("I'd probably ask the caller's timeout first and maybe assume about 20ms upstream. "
                "Target something like 15ms p99, because averages hide a bad tail? Justify it with "
                "a per-stage split, load tests and tracing. On breach, time out, serve a default "
                "score, and alert when p99 stays over target for a few minutes.")


def test_a_short_answer_that_hedges_its_points_is_not_a_strong_hire() -> None:
    # Graders put such answers at 2.5-3.5 in every labelled set; the flat twin stays a 4.
    question = bank_question("ad-ranking-latency-target")
    flat = RubricEngine().score(question, FLAT_SHORT)
    hedged = RubricEngine().score(question, HEDGED_SHORT)
    assert flat.rating == 4 and "hedges" not in flat.feedback
    assert hedged.rating == 3
    assert hedged.feedback["hedges"] == ["probably", "maybe", "something like", "?"]
    assert "Rated 3, not 4" in hedged.feedback["summary"]
    assert "“probably”" in hedged.feedback["summary"]


def test_a_hedge_or_two_in_a_long_answer_does_not_block_a_4() -> None:
    assert hedges(HEDGED_SHORT) == ["probably", "maybe", "something like", "?"]
    assert hedges("I think it is probably fine. " + "Flat statement of a point. " * 20) == []
    assert hedges("Target 15ms p99, probably.") == []


def test_a_point_stated_wrongly_blocks_a_4_however_light() -> None:
    light_wrong = [*FULL[:2], verdict("c", 1, "contradicted"), FULL[3]]
    assert "contradicted: C" in blockers(light_wrong, [])
    assert rubric_rating(95, light_wrong, []) == 3


def test_a_4_needs_a_total_of_90_where_the_engine_meets_unseen_answers() -> None:
    # Band edges (35, 65, 90): on unseen answers totals run high at the top, and a 4 is the
    # costly direction (scoring/engines/rating.py).
    assert rubric_rating(89, FULL, []) == 3
    assert rubric_rating(90, FULL, []) == 4
    assert rubric_rating(64, FULL, []) == 2
    assert rubric_rating(65, FULL, []) == 3
    assert rubric_rating(34, FULL, []) == 1
    assert rubric_rating(35, FULL, []) == 2


def test_two_light_points_missed_keep_an_answer_from_a_4() -> None:
    # Every heavy point made but two light ones missed: 9 of 11 (82%) of the weight. Graders put
    # such answers at 3-3.5 (held-out-16: "catches the slip, no power or redundancy check").
    verdicts = [verdict("a", 3, "made"), verdict("b", 2, "made"), verdict("c", 2, "made"),
                verdict("d", 1, "made"), verdict("e", 1, "made"), verdict("f", 1, "missed"),
                verdict("g", 1, "missed")]
    assert "made 9 of 11 of the rubric's weight" in blockers(verdicts, [])
    assert rubric_rating(95, verdicts, []) == 3
    # One light point missed of eleven (91%) is still a 4.
    verdicts[5] = verdict("f", 1, "made")
    assert rubric_rating(95, verdicts, []) == 4
