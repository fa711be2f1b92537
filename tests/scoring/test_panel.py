"""Properties of the simulated panel, over many generated loops (plain Python, no database)."""

from __future__ import annotations

import random
import re
from dataclasses import replace

import pytest

from scoring import panel
from scoring.panel import (
    DEFAULT_PERSONAS,
    HIRE_VOTES,
    VERDICT_RANK,
    VOTES,
    Band,
    CriterionResult,
    PanelInput,
    Persona,
    PracticeQuestion,
    QuestionResult,
    run_panel,
)

LOOPS = 300
BAND = Band("USD", 185_000, 210_000, 0.02, 0.04, 30_000, 50_000, "Levels, 2024")
TOPICS = [("latency-budgets", "Latency budgets"), ("capacity", "Capacity planning"),
          ("rollouts", "Safe rollouts"), ("batching", "Batching"), ("caching", "KV caching")]
LABELS = [
    "Leaves headroom under the contract", "Sizes the fleet from a measured per-GPU rate",
    "Adds 20% headroom to the GPU count",
    "Waits for a stabilization window before judging the canary",
    "Defines rollback triggers on p99 and error rate", "Monitors queue depth and alerts on it",
    "Trades batch size against queueing delay", "Plans a load test with per-stage tracing",
    "Caches the KV for shared prefixes", "States the cost per million tokens",
]
PITFALLS = ["Batches to 64 without measuring launch overhead", "Judges the canary after one minute"]
PERSONAS_BANK = (
    Persona("hiring_manager", "Dana", 0.5, {"latency-budgets": 1.5}),
    Persona("bar_raiser", "Morgan", 0.9),
    Persona("tech_lead", "Priya", 0.6, {"capacity": 1.5, "batching": 1.3}),
    Persona("sre", "Sam", 0.6, {"rollouts": 2.0}),
    Persona("peer", "Alex", 0.3),
)


def gen_loop(rng: random.Random, quality: str = "any", n: int = 5) -> tuple[QuestionResult, ...]:
    """A loop of n questions; criteria labels are unique per loop so text checks are exact."""
    labels = iter(rng.sample(LABELS, len(LABELS)) * 3)
    questions = []
    for position in range(1, n + 1):
        slug, title = TOPICS[(position - 1) % len(TOPICS)]
        criteria = []
        for i in range(rng.randint(2, 4)):
            label = f"{next(labels)} ({position}.{i})"
            verdict = _verdict(rng, quality)
            quotes = (f"I would {label.lower()} here.",) if verdict in ("made", "partly") else ()
            criteria.append(CriterionResult(
                key=f"c{position}-{i}", label=label, kind=rng.choice(["concept", "numeric"]),
                verdict=verdict, weight=float(rng.randint(1, 3)),
                credit=panel.VERDICT_CREDIT[verdict], quotes=quotes))
        if rng.random() < 0.4:
            hit = quality != "strong" and rng.random() < (0.9 if quality == "empty" else 0.4)
            if quality == "empty":
                hit = False  # an empty answer claims nothing
            criteria.append(CriterionResult(
                key=f"p{position}", label=f"{rng.choice(PITFALLS)} ({position})", kind="pitfall",
                verdict="contradicted" if hit else "missed", weight=1.0,
                credit=1.0 if hit else 0.0, quotes=("We batch to 64.",) if hit else ()))
        total = _total(rng, quality, criteria)
        # Red flags the scores can hide: wrong arithmetic, a buzzword-only answer.
        calculations = (f"You wrote 8 x 40 = 300 in Q{position}; the correct result is 320.",) \
            if quality == "any" and rng.random() < 0.15 else ()
        questions.append(QuestionResult(
            position=position, question_slug=f"q-{position}", prompt=f"Prompt {position}?",
            topic_slug=slug, topic_title=title, total=total,
            rating=1 if total < 35 else 2 if total < 60 else 3 if total < 80 else 4,
            criteria=tuple(criteria), overtime=rng.random() < 0.2,
            answered=quality != "empty" or rng.random() < 0.5, calculations=calculations,
            buzzword_list=quality == "any" and rng.random() < 0.1))
    return tuple(questions)


def _verdict(rng: random.Random, quality: str) -> str:
    if quality == "strong":
        return "made" if rng.random() < 0.85 else "partly"
    if quality == "empty":
        return "missed"
    return rng.choice(["made", "made", "partly", "missed", "missed", "contradicted"])


def _total(rng: random.Random, quality: str, criteria: list[CriterionResult]) -> float:
    if quality == "strong":
        return round(rng.uniform(80, 100), 1)
    if quality == "empty":
        return round(rng.uniform(0, 12), 1)
    return round(rng.uniform(0, 100), 1)


def gen_input(rng: random.Random, quality: str = "any", **overrides: object) -> PanelInput:
    personas = rng.choice([DEFAULT_PERSONAS, PERSONAS_BANK])
    data = PanelInput(
        questions=gen_loop(rng, quality, n=rng.choice([1, 3, 5, 5, 6])),
        personas=personas,
        decision_rule=rng.choice(["majority", "bar_raiser_veto"]),
        band=BAND,
        seed=f"loop-{rng.random()}",
        topic_questions={slug: tuple(PracticeQuestion(f"{slug}-{i}", f"Drill {i} on {slug}", slug)
                                     for i in range(3)) for slug, _ in TOPICS},
    )
    return replace(data, **overrides)


def improve(rng: random.Random, q: QuestionResult) -> QuestionResult:
    """A better answer: total not lower, no verdict worse, no new pitfall hit."""
    better = []
    for c in q.criteria:
        if c.is_pitfall:
            if c.pitfall_hit and rng.random() < 0.5:
                c = replace(c, verdict="missed", credit=0.0, quotes=())
        elif rng.random() < 0.6:
            rank = VERDICT_RANK[c.verdict]
            verdict = rng.choice([v for v, r in VERDICT_RANK.items() if r >= rank])
            c = replace(c, verdict=verdict, credit=panel.VERDICT_CREDIT[verdict],
                        quotes=c.quotes or (("Better sentence.",) if verdict != "missed" else ()))
        better.append(c)
    total = min(100.0, (q.total or 0) + rng.choice([0.0, rng.uniform(0, 40)]))
    return replace(q, total=round(total, 1), criteria=tuple(better))


def seeds(count: int = LOOPS) -> range:
    return range(count)


# --- properties ------------------------------------------------------------------------------


def test_same_inputs_give_identical_reports():
    for seed in seeds():
        data = gen_input(random.Random(seed))
        assert run_panel(data) == run_panel(replace(data))


def test_randomness_is_seeded_from_the_loop_and_only_changes_wording():
    for seed in seeds(100):
        data = gen_input(random.Random(seed))
        other = run_panel(replace(data, seed=data.seed + "-other"))
        report = run_panel(data)
        assert [v["vote"] for v in report["votes"]] == [v["vote"] for v in other["votes"]]
        assert report["tally"] == other["tally"]
        assert report["offer"] == other["offer"]


def test_a_better_answer_never_lowers_a_vote_or_flips_hire_to_reject():
    for seed in seeds():
        rng = random.Random(seed)
        data = gen_input(rng)
        before = run_panel(data)
        position = rng.randrange(len(data.questions))
        questions = list(data.questions)
        questions[position] = improve(rng, questions[position])
        after = run_panel(replace(data, questions=tuple(questions)))
        for old, new in zip(before["votes"], after["votes"], strict=True):
            assert VOTES.index(new["vote"]) >= VOTES.index(old["vote"]), (seed, old["role"])
        if before["decision"]["outcome"] == "hire":
            assert after["decision"]["outcome"] == "hire", seed


def test_better_everywhere_gives_an_offer_no_lower_in_the_band():
    for seed in seeds():
        rng = random.Random(seed)
        data = gen_input(rng, quality="strong")
        better = replace(data, questions=tuple(improve(rng, q) for q in data.questions))
        before, after = run_panel(data)["offer"], run_panel(better)["offer"]
        assert before is not None and after is not None, seed
        for part in ("base", "equity_percent", "sign_on"):
            assert after[part] >= before[part], (seed, part)


def test_strong_loops_are_hired_with_an_offer_inside_the_band():
    for seed in seeds():
        report = run_panel(gen_input(random.Random(seed), quality="strong"))
        assert report["decision"]["outcome"] == "hire", seed
        assert all(v["vote"] in HIRE_VOTES for v in report["votes"]), seed
        offer = report["offer"]
        assert BAND.base_min <= offer["base"] <= BAND.base_max
        assert BAND.equity_min_percent <= offer["equity_percent"] <= BAND.equity_max_percent
        assert BAND.sign_on_min <= offer["sign_on"] <= BAND.sign_on_max
        assert len(offer["reasons"]) >= 2
        assert report["practice"] == []


def test_empty_or_off_topic_loops_are_rejected_unanimously_with_a_practice_plan():
    for seed in seeds():
        report = run_panel(gen_input(random.Random(seed), quality="empty"))
        assert report["decision"]["outcome"] == "reject", seed
        assert report["tally"]["hire"] == 0, seed
        assert all(v["vote"] == "strong_no_hire" for v in report["votes"]), seed
        assert report["offer"] is None
        assert len(report["practice"]) == 3, seed
        for item in report["practice"]:
            assert item["questions"], "each practice item links to questions that train it"


def test_rationales_cite_only_what_the_candidate_did_or_did_not_do():
    for seed in seeds():
        data = gen_input(random.Random(seed))
        report = run_panel(data)
        criteria = {(q.position, c.key): c for q in data.questions for c in q.criteria}
        cites = [c for v in report["votes"] for c in v["cites"]]
        cites += report["decision"]["cites"]
        cites += [item["cite"] for item in report["practice"] if item["cite"]]
        for cite in cites:
            criterion = criteria[(cite["position"], cite["key"])]
            expected = {"made": criterion.verdict == "made",
                        "partly": criterion.verdict == "partly",
                        "missing": criterion.is_missing,
                        "pitfall": criterion.pitfall_hit}[cite["status"]]
            assert expected, (seed, cite, criterion)
            if cite["quote"]:
                assert cite["quote"] in criterion.quotes
        # The words too: a label named in a rationale is named in the right sentence.
        for vote in report["votes"]:
            for (position, _key), criterion in criteria.items():
                for sentence in SENTENCE.split(vote["rationale"]):
                    if f"\u201c{criterion.label}\u201d" not in sentence:
                        continue
                    if "omitted" in sentence or "left out" in sentence:
                        assert criterion.is_missing, (seed, sentence)
                    elif "wrong" in sentence:  # stated wrongly: contradicted, not omitted
                        assert criterion.verdict == "contradicted", (seed, sentence)
                    elif "pitfall" in sentence or "costs points" in sentence:
                        assert criterion.pitfall_hit, (seed, sentence)
                    else:
                        assert criterion.is_made, (seed, sentence)
                    assert f"Q{position}" in sentence


def test_rationales_open_with_the_vote_and_name_evidence():
    for seed in seeds(100):
        data = gen_input(random.Random(seed))
        report = run_panel(data)
        for vote in report["votes"]:
            assert vote["rationale"].startswith(vote["vote_label"])
            assert 2 <= len(SENTENCE.split(vote["rationale"])) <= 4, vote["rationale"]
            assert re.search(r"\bQ\d", vote["rationale"]) or not any(
                q.counts for q in data.questions), vote["rationale"]
            assert len(vote["cites"]) <= 3


SENTENCE = re.compile(r"(?<=[.!?”)]) (?=[A-Z])")


def test_rationales_of_one_debrief_share_no_sentence():
    for seed in seeds():
        report = run_panel(gen_input(random.Random(seed)))
        seen: dict[str, str] = {}
        for vote in report["votes"]:
            for sentence in SENTENCE.split(vote["rationale"]):
                assert sentence not in seen, (seed, vote["role"], seen.get(sentence), sentence)
                seen[sentence] = vote["role"]


def _flagged(data: PanelInput) -> list[tuple[str, int]]:
    flags = []
    for q in data.questions:
        if not q.counts:
            continue
        flags += [("number", q.position) for _ in q.calculations]
        flags += [("number", q.position) for c in q.criteria
                  if c.kind == "numeric" and c.verdict == "contradicted"]
        flags += [("pitfall", q.position) for c in q.criteria if c.pitfall_hit]
    return flags


def test_a_committed_pitfall_or_wrong_core_number_never_leaves_the_bar_raiser_silent():
    checked = 0
    for seed in seeds():
        data = gen_input(random.Random(seed))
        flags = _flagged(data)
        if not flags:
            continue
        checked += 1
        report = run_panel(data)
        bar_raiser = next(v for v in report["votes"] if v["role"] == "bar_raiser")
        kind, position = sorted(flags)[0]
        words = ("wrong", "arithmetic") if kind == "number" else ("pitfall",)
        first_flag = SENTENCE.split(bar_raiser["rationale"])[1]
        assert f"Q{position}" in first_flag and any(w in first_flag for w in words), (
            seed, kind, bar_raiser["rationale"])
        if kind == "number":
            assert bar_raiser["vote"] not in HIRE_VOTES, seed  # scores alone do not hide it
            if report["practice"] and any(q.calculations for q in data.questions if q.counts):
                assert report["practice"][0]["title"].startswith("Core numbers"), seed
        else:
            assert bar_raiser["vote"] != "strong_hire", seed
    assert checked > 100


def test_strong_answers_with_one_buzzword_list_are_not_a_unanimous_strong_hire():
    for seed in seeds():
        rng = random.Random(seed)
        data = gen_input(rng, quality="strong")
        questions = list(data.questions)
        weakest = rng.randrange(len(questions))
        questions[weakest] = replace(questions[weakest], buzzword_list=True,
                                     total=round(rng.uniform(55, 100), 1))
        report = run_panel(replace(data, questions=tuple(questions)))
        votes = [v["vote"] for v in report["votes"]]
        assert votes != ["strong_hire"] * len(votes), seed
        bar_raiser = next(v for v in report["votes"] if v["role"] == "bar_raiser")
        assert f"Q{weakest + 1} is a list of buzzwords" in bar_raiser["rationale"], seed


def test_two_loops_with_different_weaknesses_read_differently():
    def loop(missed_key: str) -> tuple[QuestionResult, ...]:
        criteria = (
            CriterionResult("rollback", "Defines rollback triggers and who gets paged",
                            "concept", "missed" if missed_key == "rollback" else "made", 2.0,
                            quotes=() if missed_key == "rollback" else ("Roll back on p99.",)),
            CriterionResult("batch", "Trades batch size against queueing delay", "concept",
                            "missed" if missed_key == "batch" else "made", 2.0,
                            quotes=() if missed_key == "batch" else ("Batch of 8 keeps it.",)),
            CriterionResult("measure", "Plans a load test to measure the trade-off", "concept",
                            "made", 1.0, quotes=("We measure first.",)),
        )
        return (QuestionResult(1, "q", "P?", "rollouts", "Safe rollouts", 70.0, 3, criteria),)

    ops = run_panel(PanelInput(loop("rollback"), DEFAULT_PERSONAS, "majority", BAND, "same"))
    cap = run_panel(PanelInput(loop("batch"), DEFAULT_PERSONAS, "majority", BAND, "same"))
    by_role = {v["role"]: v["rationale"] for v in ops["votes"]}
    other = {v["role"]: v["rationale"] for v in cap["votes"]}
    assert "left out \u201cDefines rollback triggers" in by_role["sre"]
    assert "left out \u201cTrades batch size" in other["tech_lead"]
    for role in by_role:
        assert by_role[role] != other[role], role


def test_personas_weigh_their_own_evidence():
    report = run_panel(gen_input(random.Random(11)))
    openings = [SENTENCE.split(v["rationale"])[0] for v in report["votes"]]
    assert len(set(openings)) == len(openings)
    cited = [tuple(sorted((c["position"], c["key"]) for c in v["cites"]))
             for v in report["votes"] if v["cites"]]
    assert len(set(cited)) > 1  # not the same points quoted by everyone


def test_tally_and_decision_rule_follow_the_votes():
    for seed in seeds():
        data = gen_input(random.Random(seed))
        report = run_panel(data)
        votes = report["votes"]
        hires = sum(v["vote"] in HIRE_VOTES for v in votes)
        assert report["tally"]["hire"] == hires
        assert report["tally"]["reject"] == len(votes) - hires
        bar_raiser_no = any(v["role"] == "bar_raiser" and v["vote"] not in HIRE_VOTES
                            for v in votes)
        majority = hires * 2 > len(votes)
        vetoed = data.decision_rule == "bar_raiser_veto" and majority and bar_raiser_no
        outcome = "hire" if majority and not vetoed else "reject"
        assert report["decision"]["outcome"] == outcome
        if vetoed:
            assert report["tally"]["text"].startswith(f"{hires}-{len(votes) - hires}, vetoed")
        else:
            assert report["tally"]["text"] == f"{hires}-{len(votes) - hires} to {outcome}"
        assert 2 <= len(report["decision"]["factors"]) <= 3, (seed, report["decision"])
        assert (report["offer"] is not None) == (outcome == "hire")
        assert bool(report["practice"]) == (outcome == "reject")


def test_bar_raiser_veto_rejects_a_majority_hire():
    rng = random.Random(7)
    questions = gen_loop(rng, "strong")
    # Every point partly made: lenient personas hire, the strict bar raiser does not.
    weak = tuple(replace(q, total=72.0, criteria=tuple(
        replace(c, verdict="partly", credit=0.5) for c in q.criteria if not c.is_pitfall))
        for q in questions)
    personas = (Persona("hiring_manager", "Dana", 0.1), Persona("bar_raiser", "Morgan", 1.0),
                Persona("tech_lead", "Priya", 0.1), Persona("sre", "Sam", 0.1),
                Persona("peer", "Alex", 0.0))
    majority = run_panel(PanelInput(weak, personas, "majority", BAND, "s"))
    veto = run_panel(PanelInput(weak, personas, "bar_raiser_veto", BAND, "s"))
    assert majority["tally"]["text"] == "4-1 to hire"
    assert veto["decision"]["outcome"] == "reject"
    assert veto["decision"]["vetoed"]
    assert veto["decision"]["factors"][0].startswith("The bar raiser's veto")
    assert veto["offer"] is None and len(veto["practice"]) == 3


def test_sre_weighs_rollouts_and_monitoring_more_than_the_peer():
    missed_rollout = CriterionResult("canary", "Waits for a stabilization window before judging "
                                     "the canary", "concept", "missed", 2.0, 0.0)
    made = CriterionResult("fleet", "Sizes the fleet from a measured per-GPU rate", "numeric",
                           "made", 2.0, 1.0, ("We measured 40 req/s per GPU.",))
    q = QuestionResult(1, "q", "P?", "rollouts", "Safe rollouts", 70.0, 3, (missed_rollout, made))
    sre = panel.persona_score(Persona("sre", "Sam", 0.5), [q])
    peer = panel.persona_score(Persona("peer", "Alex", 0.5), [q])
    assert sre.value < peer.value
    vote = panel.persona_vote(Persona("sre", "Sam", 0.5), [q], "seed")
    assert "stabilization window before judging the canary" in vote.rationale
    assert "We measured 40 req/s per GPU." in vote.rationale


def test_unscored_questions_are_left_out_not_counted_as_zero():
    rng = random.Random(3)
    data = gen_input(rng, quality="strong")
    questions = list(data.questions)
    questions[0] = replace(questions[0], total=None)
    report = run_panel(replace(data, questions=tuple(questions)))
    assert report["questions"][0]["score"] is None
    assert report["decision"]["outcome"] == "hire"


@pytest.mark.parametrize(("text", "span", "expected"), [
    ("We target 15ms p99. Leave headroom for jitter! Then batch.", "headroom",
     "Leave headroom for jitter!"),
    ("First line\nsecond line has the canary wait", "canary", "second line has the canary wait"),
    ("No punctuation at all", "punctuation", "No punctuation at all"),
])
def test_sentence_around_quotes_the_whole_sentence(text, span, expected):
    start = text.index(span)
    assert panel.sentence_around(text, start, start + len(span)) == expected


# --- humans in the decision ---------------------------------------------------------------------


def gen_humans(rng: random.Random, data: PanelInput) -> tuple[panel.HumanVote, ...]:
    positions = [q.position for q in data.questions]
    return tuple(
        panel.HumanVote(interviewer=f"Interviewer {i + 1}", interviewer_id=100 + i,
                        recommendation=rng.choice(VOTES), question_position=rng.choice(positions),
                        rating=rng.randint(1, 4), notes=rng.choice(["", "Saw the math slip."]))
        for i in range(rng.randint(1, 3)))


def test_interviewers_count_one_vote_each_beside_the_panel():
    for seed in seeds():
        rng = random.Random(seed)
        data = gen_input(rng)
        humans = gen_humans(rng, data)
        # The same interviewer twice counts once, at their most severe recommendation.
        twice = replace(humans[0], question_position=data.questions[0].position,
                        recommendation="strong_hire")
        report = run_panel(replace(data, human_votes=(*humans, twice)))
        tally = report["tally"]
        assert tally["hire"] + tally["reject"] == len(report["votes"]) + len(humans), seed
        human_hires = sum(h.recommendation in HIRE_VOTES for h in humans)
        panel_hires = sum(v["vote"] in HIRE_VOTES for v in report["votes"])
        assert tally["hire"] == panel_hires + human_hires, seed


def test_a_human_strong_no_hire_is_never_silently_outvoted():
    blocked = 0
    for seed in seeds():
        rng = random.Random(seed)
        data = gen_input(rng, quality=rng.choice(["strong", "any"]))
        humans = (*gen_humans(rng, data)[:1], panel.HumanVote(
            "Interviewer 9", "strong_no_hire", data.questions[-1].position, 1, "No.", 999))
        report = run_panel(replace(data, human_votes=humans))
        assert report["decision"]["outcome"] == "reject", seed
        assert report["offer"] is None
        said = " ".join(report["decision"]["factors"])
        strong_no = {h.interviewer for h in humans if h.recommendation == "strong_no_hire"}
        assert any(name in said for name in strong_no) and "Strong No Hire" in said, (seed, said)
        if report["decision"]["blocked_by"]:
            blocked += 1
            assert "blocked by an interviewer's Strong No Hire" in report["tally"]["text"]
    assert blocked > 50  # the strong loops the panel alone would have hired


def test_dissent_names_who_voted_against_the_decision_and_why():
    found = 0
    for seed in seeds():
        rng = random.Random(seed)
        data = gen_input(rng)
        report = run_panel(replace(data, human_votes=gen_humans(rng, data)))
        hired = report["decision"]["outcome"] == "hire"
        against = [v for v in report["votes"] if (v["vote"] in HIRE_VOTES) != hired]
        names = [d["name"] for d in report["dissent"] if not d["human"]]
        assert names == [v["name"] for v in against], seed
        for d, v in zip([d for d in report["dissent"] if not d["human"]], against, strict=True):
            assert d["why"] and d["why"] in v["rationale"]
        found += bool(report["dissent"])
    assert found > 50


@pytest.mark.parametrize(("text", "listed"), [
    ("vLLM, continuous batching, PagedAttention, KV cache, quantization, canary, HPA", True),
    ("- vLLM\n- PagedAttention\n- continuous batching\n- INT8\n- canary rollout\n- HPA", True),
    ("I'd target 15ms p99 internally, leaving 5ms of headroom for jitter because the caller's "
     "20ms contract sees the tail.", False),
    ("Not sure.", False),  # near-empty: its score speaks, not this flag
])
def test_a_buzzword_list_is_told_from_reasoned_prose(text, listed):
    assert panel.looks_like_buzzword_list(text) is listed
