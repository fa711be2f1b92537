"""The simulated hiring committee: plain Python, no ORM, no Django.

Per-question results and the bank's panel go in; votes with rationales, the tally, the decision,
what decided it, and an offer (hire) or a practice plan (reject) come out.

Design rules, each property-tested in tests/scoring/test_panel.py:

* Deterministic: the only randomness picks phrasing and is seeded from the loop.
* Monotone: a persona's score is a weighted mean of question totals minus penalties on missed
  criteria and pitfalls hit, so a better answer (higher total, no verdict worse) never lowers it;
  votes are thresholds on that score and the decision counts votes.
* Honest: a rationale cites a criterion as made only if its verdict is made/partly, and as missing
  only if it was missed/contradicted (or, for a pitfall, hit).
"""

from __future__ import annotations

import random
import re
from collections.abc import Iterable, Sequence
from dataclasses import asdict, dataclass, field
from typing import Any, Literal

VoteValue = Literal["strong_no_hire", "no_hire", "hire", "strong_hire"]
VOTES: tuple[VoteValue, ...] = ("strong_no_hire", "no_hire", "hire", "strong_hire")
VOTE_LABELS: dict[str, str] = {
    "strong_no_hire": "Strong No Hire",
    "no_hire": "No Hire",
    "hire": "Hire",
    "strong_hire": "Strong Hire",
}
HIRE_VOTES = frozenset({"hire", "strong_hire"})

ROLE_LABELS: dict[str, str] = {
    "hiring_manager": "Hiring manager",
    "bar_raiser": "Bar raiser",
    "tech_lead": "Tech lead",
    "sre": "SRE",
    "peer": "Peer engineer",
}
RULE_LABELS: dict[str, str] = {
    "majority": "Majority of the panel",
    "bar_raiser_veto": "Majority, and the bar raiser can veto",
}

# Credit per verdict; the order is the "better answer" order used by the monotonicity tests.
VERDICT_CREDIT: dict[str, float] = {"contradicted": 0.0, "missed": 0.0, "partly": 0.5, "made": 1.0}
VERDICT_RANK: dict[str, int] = {"contradicted": 0, "missed": 1, "partly": 2, "made": 3}

# What each role listens for in a criterion's label/key: such criteria count 1.5x for them.
ROLE_KEYWORDS: dict[str, tuple[str, ...]] = {
    "sre": ("monitor", "alert", "rollout", "roll out", "rollback", "roll back", "canary", "slo",
            "observab", "on-call", "incident", "health", "failover", "dashboard", "stabiliz",
            "autoscal", "drain", "p99", "error budget"),
    "tech_lead": ("architecture", "batch", "cache", "throughput", "queue", "shard", "memory",
                  "gpu", "kernel", "kv", "quantiz", "scal", "parallel", "replica"),
    "hiring_manager": ("trade-off", "tradeoff", "trade off", "cost", "measure", "plan", "budget",
                       "requirement", "headroom", "priorit", "risk"),
    "peer": ("explain", "assumption", "test", "simple", "clarif", "document", "load test",
             "benchmark"),
    "bar_raiser": (),
}
ROLE_FOCUS: dict[str, str] = {
    "hiring_manager": "judgement about trade-offs and the measurement plan",
    "bar_raiser": "completeness, with no key point left out",
    "tech_lead": "the architecture and the capacity numbers",
    "sre": "monitoring, rollouts and how the system fails",
    "peer": "whether I could build on this design tomorrow",
}
AFFINITY = 1.5


@dataclass(frozen=True)
class CriterionResult:
    key: str
    label: str
    kind: str = "concept"  # concept | numeric | pitfall
    verdict: str = "missed"  # made | partly | missed | contradicted
    weight: float = 1.0
    credit: float | None = None  # engine's credit; pitfalls: >0 means the pitfall was hit
    quotes: tuple[str, ...] = ()  # the answer's sentences that earned (or, pitfalls, cost) it
    feedback: str = ""

    @property
    def is_pitfall(self) -> bool:
        return self.kind == "pitfall"

    @property
    def pitfall_hit(self) -> bool:
        if not self.is_pitfall:
            return False
        if self.verdict == "contradicted":
            return True
        return (self.credit or 0.0) > 0

    @property
    def earned(self) -> float:
        return VERDICT_CREDIT.get(self.verdict, 0.0)

    @property
    def is_made(self) -> bool:
        return not self.is_pitfall and self.verdict in ("made", "partly")

    @property
    def is_missing(self) -> bool:
        return not self.is_pitfall and self.verdict in ("missed", "contradicted")


@dataclass(frozen=True)
class QuestionResult:
    position: int
    question_slug: str
    prompt: str
    topic_slug: str
    topic_title: str
    total: float | None  # effective total 0-100; None: not scored (excluded, noted)
    rating: int = 1
    criteria: tuple[CriterionResult, ...] = ()
    overtime: bool = False
    answered: bool = True  # False: nothing was submitted (counts as 0)
    initial_total: float | None = None
    follow_up_total: float | None = None
    follow_up_prompt: str = ""  # the pushback line, when there was a follow-up
    follow_up_text: str = ""
    human_reviewed: bool = False  # a scorecard overrode the automatic verdicts or rating
    calculations: tuple[str, ...] = ()  # the candidate's calculation beside the correct one

    @property
    def score(self) -> float:
        return 0.0 if self.total is None else max(0.0, min(100.0, float(self.total)))

    @property
    def counts(self) -> bool:
        return self.total is not None


@dataclass(frozen=True)
class Persona:
    role: str
    name: str
    strictness: float = 0.5
    topic_weights: dict[str, float] = field(default_factory=dict)
    weighs_most: str = ""


@dataclass(frozen=True)
class Band:
    currency: str
    base_min: int
    base_max: int
    equity_min_percent: float
    equity_max_percent: float
    sign_on_min: int
    sign_on_max: int
    source_note: str = ""


@dataclass(frozen=True)
class HumanVote:
    interviewer: str
    recommendation: str  # one of VOTES
    question_position: int
    rating: int
    notes: str = ""


@dataclass(frozen=True)
class PracticeQuestion:
    question_slug: str
    prompt: str
    topic_slug: str


@dataclass(frozen=True)
class PanelInput:
    questions: tuple[QuestionResult, ...]
    personas: tuple[Persona, ...] = ()
    decision_rule: str = "majority"
    band: Band | None = None
    seed: str = ""
    human_votes: tuple[HumanVote, ...] = ()
    # Bank questions per topic slug, to link practice items to questions that train them.
    topic_questions: dict[str, tuple[PracticeQuestion, ...]] = field(default_factory=dict)


DEFAULT_PERSONAS: tuple[Persona, ...] = (
    Persona("hiring_manager", "Dana (hiring manager)", 0.5),
    Persona("bar_raiser", "Morgan (bar raiser)", 0.9),
    Persona("tech_lead", "Priya (tech lead)", 0.6),
    Persona("sre", "Sam (SRE)", 0.6),
    Persona("peer", "Alex (peer engineer)", 0.3),
)


# --- scoring a persona ------------------------------------------------------------------------


def affinity(role: str, criterion: CriterionResult) -> float:
    text = f"{criterion.label} {criterion.key}".lower()
    return AFFINITY if any(word in text for word in ROLE_KEYWORDS.get(role, ())) else 1.0


def topic_weight(persona: Persona, topic_slug: str) -> float:
    return max(0.0, float(persona.topic_weights.get(topic_slug, 1.0)))


def thresholds(strictness: float) -> tuple[float, float, float]:
    """(no_hire_at, hire_at, strong_hire_at): stricter personas need more for each step."""
    hire_at = 58.0 + 12.0 * strictness
    return hire_at - 30.0, hire_at, hire_at + 20.0


@dataclass(frozen=True)
class PersonaScore:
    value: float
    mean: float
    omission: float  # 0..1 share of (affinity-weighted) rubric weight missed
    pitfalls: float  # 0..1 pitfall weight hit, relative to positive weight


def persona_score(persona: Persona, questions: Sequence[QuestionResult]) -> PersonaScore:
    counted = [q for q in questions if q.counts]
    weights = [topic_weight(persona, q.topic_slug) for q in counted]
    total_weight = sum(weights)
    if not counted or total_weight <= 0:
        return PersonaScore(0.0, 0.0, 1.0, 0.0)
    mean = sum(w * q.score for w, q in zip(weights, counted, strict=True)) / total_weight
    omission = pitfalls = 0.0
    for w, q in zip(weights, counted, strict=True):
        positive = [c for c in q.criteria if not c.is_pitfall]
        denominator = sum(c.weight * affinity(persona.role, c) for c in positive)
        if denominator <= 0:
            continue  # reference-only question: the total carries it alone
        missed = sum(c.weight * affinity(persona.role, c) * (1 - c.earned) for c in positive)
        hit = sum(c.weight * affinity(persona.role, c) for c in q.criteria if c.pitfall_hit)
        omission += w * missed / denominator
        pitfalls += w * min(1.0, hit / denominator)
    omission /= total_weight
    pitfalls /= total_weight
    # Strict personas punish omissions harder: the bar raiser loses up to 37 points, the peer 19.
    strict = persona.strictness
    value = mean - (10.0 + 30.0 * strict) * omission - (10.0 + 20.0 * strict) * pitfalls
    value = max(0.0, value)  # clamping is monotone and below every threshold: votes unchanged
    return PersonaScore(round(value, 2), round(mean, 2), round(omission, 4), round(pitfalls, 4))


def vote_for(score: float, strictness: float) -> VoteValue:
    no_hire_at, hire_at, strong_at = thresholds(strictness)
    if score >= strong_at:
        return "strong_hire"
    if score >= hire_at:
        return "hire"
    if score >= no_hire_at:
        return "no_hire"
    return "strong_no_hire"


# --- evidence ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class Cite:
    position: int
    key: str
    label: str
    status: Literal["made", "partly", "missing", "pitfall"]
    quote: str = ""

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def _strengths(role: str, persona: Persona | None,
               questions: Sequence[QuestionResult]) -> list[tuple[float, Cite]]:
    found = []
    for q in questions:
        if not q.counts:
            continue
        w = topic_weight(persona, q.topic_slug) if persona else 1.0
        for c in q.criteria:
            if c.is_made:
                importance = w * c.weight * affinity(role, c) * c.earned
                status = "made" if c.verdict == "made" else "partly"
                quote = c.quotes[0] if c.quotes else ""
                found.append((importance, Cite(q.position, c.key, c.label, status, quote)))
    found.sort(key=lambda item: (-item[0], item[1].position, item[1].key))
    return found


def _concerns(role: str, persona: Persona | None,
              questions: Sequence[QuestionResult]) -> list[tuple[float, Cite]]:
    found = []
    strict = persona.strictness if persona else 0.5
    for q in questions:
        if not q.counts:
            continue
        w = topic_weight(persona, q.topic_slug) if persona else 1.0
        for c in q.criteria:
            if c.is_missing:
                importance = w * c.weight * affinity(role, c) * (1 + strict)
                found.append((importance, Cite(q.position, c.key, c.label, "missing")))
            elif c.pitfall_hit:
                importance = w * c.weight * affinity(role, c) * 1.5
                quote = c.quotes[0] if c.quotes else ""
                found.append((importance, Cite(q.position, c.key, c.label, "pitfall", quote)))
    found.sort(key=lambda item: (-item[0], item[1].position, item[1].key))
    return found


def _lc_first(text: str) -> str:
    return text[:1].lower() + text[1:] if text[:2] != text[:2].upper() else text


def _short(quote: str, limit: int = 160) -> str:
    quote = " ".join(quote.split())
    return quote if len(quote) <= limit else quote[: limit - 1].rstrip() + "…"


def cite_sentence(cite: Cite, rng: random.Random) -> str:
    label = f"\u201c{cite.label.rstrip('.')}\u201d"
    quote = f' ("{_short(cite.quote)}")' if cite.quote else ""
    if cite.status == "made":
        options = (f"In Q{cite.position} they made the point {label}{quote}.",
                   f"Q{cite.position} earned credit for {label}{quote}.")
    elif cite.status == "partly":
        options = (f"In Q{cite.position} they partly made the point {label}{quote}.",
                   f"Q{cite.position} got part of the way on {label}{quote}.")
    elif cite.status == "pitfall":
        options = (f"In Q{cite.position} they fell into the pitfall {label}{quote}.",
                   f"Q{cite.position} made a claim that costs points: {label}{quote}.")
    else:
        options = (f"In Q{cite.position} they omitted {label}.",
                   f"Q{cite.position} left out {label}.")
    return rng.choice(options)


# --- the panel --------------------------------------------------------------------------------


@dataclass
class PersonaVote:
    role: str
    role_label: str
    name: str
    vote: VoteValue
    vote_label: str
    score: float
    mean: float
    strictness: float
    rationale: str
    cites: list[dict[str, Any]]


def persona_vote(persona: Persona, questions: Sequence[QuestionResult],
                 seed: str) -> PersonaVote:
    rng = random.Random(f"{seed}:{persona.role}")  # noqa: S311 - phrasing only, not security
    score = persona_score(persona, questions)
    vote = vote_for(score.value, persona.strictness)
    focus = persona.weighs_most.strip().rstrip(".") or ROLE_FOCUS.get(persona.role, "the design")
    opening = rng.choice((
        f"{VOTE_LABELS[vote]}: weighing {_lc_first(focus)}, the loop averages "
        f"{score.mean:.0f}/100 and comes to {score.value:.0f} on my scale.",
        f"{VOTE_LABELS[vote]}. I weigh {_lc_first(focus)}; on that reading the answers average "
        f"{score.mean:.0f}/100 ({score.value:.0f} after omissions).",
    ))
    strengths = _strengths(persona.role, persona, questions)
    concerns = _concerns(persona.role, persona, questions)
    cites: list[Cite] = []
    sentences = [opening]
    evidence_order = ("strength", "concern") if vote in HIRE_VOTES else ("concern", "strength")
    for kind in evidence_order:
        pool = strengths if kind == "strength" else concerns
        if pool:
            cites.append(pool[0][1])
            sentences.append(cite_sentence(pool[0][1], rng))
        elif kind == "strength":
            sentences.append("No answer made a rubric point I could credit.")
        else:
            sentences.append("I found no rubric point left out.")
    return PersonaVote(
        role=persona.role,
        role_label=ROLE_LABELS.get(persona.role, persona.role),
        name=persona.name,
        vote=vote,
        vote_label=VOTE_LABELS[vote],
        score=score.value,
        mean=score.mean,
        strictness=persona.strictness,
        rationale=" ".join(sentences),
        cites=[c.to_dict() for c in cites],
    )


def topic_scores(questions: Sequence[QuestionResult]) -> list[dict[str, Any]]:
    topics: dict[str, dict[str, Any]] = {}
    for q in questions:
        entry = topics.setdefault(q.topic_slug, {"slug": q.topic_slug, "title": q.topic_title,
                                                 "scores": [], "positions": []})
        entry["positions"].append(q.position)
        if q.counts:
            entry["scores"].append(q.score)
    result = []
    for entry in topics.values():
        scores = entry.pop("scores")
        entry["score"] = round(sum(scores) / len(scores), 1) if scores else None
        result.append(entry)
    return result


def overall_score(questions: Sequence[QuestionResult]) -> float:
    counted = [q.score for q in questions if q.counts]
    return round(sum(counted) / len(counted), 1) if counted else 0.0


def tally_text(hires: int, rejects: int, outcome: str, vetoed: bool) -> str:
    if vetoed:
        return f"{hires}-{rejects}, vetoed by the bar raiser: reject"
    return f"{hires}-{rejects} to {outcome}"


def decide(votes: Sequence[PersonaVote], rule: str) -> tuple[str, bool]:
    hires = sum(1 for v in votes if v.vote in HIRE_VOTES)
    majority = hires * 2 > len(votes)  # a tie is not a majority
    vetoed = (
        majority and rule == "bar_raiser_veto"
        and any(v.role == "bar_raiser" and v.vote not in HIRE_VOTES for v in votes)
    )
    return ("hire" if majority and not vetoed else "reject"), vetoed


def _aggregate(pools: Iterable[list[tuple[float, Cite]]]) -> list[tuple[Cite, list[int]]]:
    """Group the same point across questions (and personas), most important first.
    Returns each group's first cite with every question position where it applies."""
    totals: dict[tuple[str, str], float] = {}
    groups: dict[tuple[str, str], dict[int, Cite]] = {}
    for pool in pools:
        for importance, cite in pool:
            ident = (cite.label.lower(), cite.status)
            totals[ident] = totals.get(ident, 0.0) + importance
            groups.setdefault(ident, {})[cite.position] = cite
    order = sorted(totals, key=lambda ident: (-totals[ident], min(groups[ident]), ident))
    return [(groups[ident][min(groups[ident])], sorted(groups[ident])) for ident in order]


def _where(positions: Sequence[int]) -> str:
    names = [f"Q{p}" for p in positions]
    return names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]


def deciding_factors(data: PanelInput, personas: Sequence[Persona], votes: Sequence[PersonaVote],
                     outcome: str, vetoed: bool,
                     topics: Sequence[dict[str, Any]]) -> tuple[list[str], list[dict[str, Any]]]:
    factors: list[str] = []
    cites: list[Cite] = []
    scored_topics = [t for t in topics if t["score"] is not None]
    if vetoed:
        bar_raiser = next(v for v in votes if v.role == "bar_raiser")
        concern = next((c for c in bar_raiser.cites if c["status"] in ("missing", "pitfall")), None)
        why = f": \u201c{concern['label']}\u201d (Q{concern['position']})" if concern else ""
        factors.append(f"The bar raiser's veto ({bar_raiser.vote_label}){why}.")
    if outcome == "hire":
        pool = _aggregate(_strengths(p.role, p, data.questions) for p in personas)
        for cite, positions in pool[:2]:
            verb = "Made" if cite.status == "made" else "Partly made"
            factors.append(f"{verb} \u201c{cite.label}\u201d in {_where(positions)}.")
            cites.append(cite)
        if scored_topics:
            best = max(scored_topics, key=lambda t: (t["score"], t["slug"]))
            factors.append(f"Strongest topic: {best['title']} at {best['score']:.0f}/100.")
    else:
        pool = _aggregate(_concerns(p.role, p, data.questions) for p in personas)
        for cite, positions in pool[: 2 if not vetoed else 1]:
            if cite.status == "pitfall":
                factors.append(f"Fell into the pitfall \u201c{cite.label}\u201d in "
                               f"{_where(positions)}.")
            else:
                factors.append(f"Omitted \u201c{cite.label}\u201d in {_where(positions)}.")
            cites.append(cite)
        if scored_topics:
            worst = min(scored_topics, key=lambda t: (t["score"], t["slug"]))
            factors.append(f"Weakest topic: {worst['title']} at {worst['score']:.0f}/100.")
    if len(factors) < 2:
        overall = overall_score(data.questions)
        hires = sum(1 for v in votes if v.vote in HIRE_VOTES)
        if outcome == "hire":
            factors.append(f"The loop averaged {overall:.0f}/100; {hires} of {len(votes)} "
                           "panelists voted to hire.")
        else:
            factors.append(f"The loop averaged {overall:.0f}/100; {len(votes) - hires} of "
                           f"{len(votes)} panelists were not convinced.")
    return factors[:3], [c.to_dict() for c in cites]


def make_offer(band: Band, overall: float, votes: Sequence[PersonaVote]) -> dict[str, Any]:
    """Place the offer in the band: higher for a stronger loop (monotone in both inputs)."""
    strength = max(0.0, min(1.0, (overall - 60.0) / 35.0))
    strong_share = sum(1 for v in votes if v.vote == "strong_hire") / max(1, len(votes))
    position = round(min(1.0, 0.75 * strength + 0.25 * strong_share), 3)

    def place(low: float, high: float) -> float:
        return low + position * (high - low)

    base = int(round(place(band.base_min, band.base_max) / 1000.0) * 1000)
    base = max(band.base_min, min(band.base_max, base))
    sign_on = int(round(place(band.sign_on_min, band.sign_on_max) / 1000.0) * 1000)
    sign_on = max(band.sign_on_min, min(band.sign_on_max, sign_on))
    equity = round(place(band.equity_min_percent, band.equity_max_percent), 4)
    strong = sum(1 for v in votes if v.vote == "strong_hire")
    reasons = [
        f"Placed at {position * 100:.0f}% of the band: the loop averaged {overall:.0f}/100 "
        f"(the band's top is reached at 95).",
        f"{strong} of {len(votes)} panelists voted Strong Hire, which moves the offer up.",
    ]
    if band.source_note:
        reasons.append(f"Band source: {band.source_note}")
    return {
        "currency": band.currency,
        "base": base,
        "equity_percent": equity,
        "sign_on": sign_on,
        "band_position": position,
        "band": {"base": [band.base_min, band.base_max],
                 "equity_percent": [band.equity_min_percent, band.equity_max_percent],
                 "sign_on": [band.sign_on_min, band.sign_on_max]},
        "reasons": reasons,
    }


def practice_plan(data: PanelInput, personas: Sequence[Persona],
                  topics: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
    """The three things to practise first, each linked to questions that train it."""
    by_position = {q.position: q for q in data.questions}
    pool = _aggregate(_concerns(p.role, p, data.questions) for p in personas)
    # Partly-made points come after the outright misses.
    pool += _aggregate([[(1.0, c) for _, c in _strengths("peer", None, data.questions)
                         if c.status == "partly"]])
    plan: list[dict[str, Any]] = []
    seen_labels: set[str] = set()
    for cite, positions in pool:
        if len(plan) == 3:
            break
        if cite.label.lower() in seen_labels:
            continue
        seen_labels.add(cite.label.lower())
        q = by_position[cite.position]
        verb = {"missing": "Omitted", "pitfall": "Fell into it", "partly": "Partly made"}.get(
            cite.status, "Practise")
        plan.append({
            "title": cite.label,
            "why": f"{verb} in {_where(positions)}.",
            "topic_slug": q.topic_slug,
            "topic_title": q.topic_title,
            "cite": cite.to_dict(),
            "questions": _training_questions(data, [by_position[p] for p in positions]),
        })
    for topic in sorted((t for t in topics if t["score"] is not None),
                        key=lambda t: (t["score"], t["slug"])):
        if len(plan) == 3:
            break
        q = by_position[topic["positions"][0]]
        plan.append({
            "title": f"{topic['title']} fundamentals",
            "why": f"{topic['title']} scored {topic['score']:.0f}/100.",
            "topic_slug": topic["slug"],
            "topic_title": topic["title"],
            "cite": None,
            "questions": _training_questions(data, [q]),
        })
    return plan


def _training_questions(data: PanelInput,
                        asked: Sequence[QuestionResult]) -> list[dict[str, Any]]:
    """The loop's own questions where it came up, then the bank's others on the same topic."""
    linked: list[dict[str, Any]] = []
    slugs: set[str] = set()
    for q in asked[:3]:
        if q.question_slug not in slugs:
            slugs.add(q.question_slug)
            linked.append({"question_slug": q.question_slug, "prompt": q.prompt,
                           "topic_slug": q.topic_slug})
    for other in data.topic_questions.get(asked[0].topic_slug, ()):
        if len(linked) >= 4:
            break
        if other.question_slug not in slugs:
            slugs.add(other.question_slug)
            linked.append(asdict(other))
    return linked


def run_panel(data: PanelInput) -> dict[str, Any]:
    """The whole committee: JSON-ready dict (stored as Debrief.report by scoring.reports)."""
    personas = data.personas or DEFAULT_PERSONAS
    votes = [persona_vote(p, data.questions, data.seed) for p in personas]
    outcome, vetoed = decide(votes, data.decision_rule)
    hires = sum(1 for v in votes if v.vote in HIRE_VOTES)
    rejects = len(votes) - hires
    topics = topic_scores(data.questions)
    overall = overall_score(data.questions)
    factors, factor_cites = deciding_factors(data, personas, votes, outcome, vetoed, topics)
    offer = make_offer(data.band, overall, votes) if outcome == "hire" and data.band else None
    practice = practice_plan(data, personas, topics) if outcome == "reject" else []
    return {
        "overall": overall,
        "questions": [question_dict(q) for q in data.questions],
        "topics": topics,
        "votes": [asdict(v) for v in votes],
        "human_votes": [
            {**asdict(h), "recommendation_label": VOTE_LABELS.get(h.recommendation,
                                                                  h.recommendation)}
            for h in data.human_votes
        ],
        "tally": {"hire": hires, "reject": rejects,
                  "text": tally_text(hires, rejects, outcome, vetoed)},
        "decision": {
            "outcome": outcome,
            "label": "Hire" if outcome == "hire" else "No hire",
            "rule": data.decision_rule,
            "rule_label": RULE_LABELS.get(data.decision_rule, data.decision_rule),
            "vetoed": vetoed,
            "factors": factors,
            "cites": factor_cites,
        },
        "offer": offer,
        "practice": practice,
    }


def question_dict(q: QuestionResult) -> dict[str, Any]:
    made = [c for c in q.criteria if c.is_made]
    missed = [c for c in q.criteria if c.is_missing]
    pitfalls = [c for c in q.criteria if c.pitfall_hit]
    return {
        "position": q.position,
        "question_slug": q.question_slug,
        "prompt": q.prompt,
        "topic_slug": q.topic_slug,
        "topic_title": q.topic_title,
        "score": None if q.total is None else round(q.score, 1),
        "rating": q.rating,
        "answered": q.answered,
        "scored": q.counts,
        "overtime": q.overtime,
        "initial_total": q.initial_total,
        "follow_up_total": q.follow_up_total,
        "follow_up_prompt": q.follow_up_prompt,
        "follow_up_text": q.follow_up_text,
        "human_reviewed": q.human_reviewed,
        "calculations": list(q.calculations),
        "made": [_criterion_dict(c) for c in made],
        "missed": [_criterion_dict(c) for c in missed],
        "pitfalls": [_criterion_dict(c) for c in pitfalls],
    }


def _criterion_dict(c: CriterionResult) -> dict[str, Any]:
    return {"key": c.key, "label": c.label, "kind": c.kind, "verdict": c.verdict,
            "weight": c.weight, "quotes": list(c.quotes), "feedback": c.feedback}


# --- text helpers used by the ORM layer -------------------------------------------------------

_SENTENCE_END = re.compile(r"[.!?](?=\s)|\n")


def sentence_around(text: str, start: int, end: int) -> str:
    """The whole sentence(s) containing text[start:end], so a quote reads on its own."""
    start = max(0, min(start, len(text)))
    end = max(start, min(end, len(text)))
    left = 0
    for match in _SENTENCE_END.finditer(text, 0, start):
        left = match.end()
    right_match = _SENTENCE_END.search(text, max(end - 1, start) if end > start else end)
    right = right_match.end() if right_match else len(text)
    return " ".join(text[left:right].split()).strip()
