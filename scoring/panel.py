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
            "autoscal", "drain", "p99", "error budget", "paging", "page ", "pager"),
    "tech_lead": ("architecture", "batch", "cache", "throughput", "queue", "shard", "memory",
                  "gpu", "kernel", "kv", "quantiz", "scal", "parallel", "replica", "engine",
                  "capacity", "fleet", "vllm", "tensorrt"),
    "hiring_manager": ("trade-off", "tradeoff", "trade off", "cost", "measure", "plan", "budget",
                       "requirement", "headroom", "priorit", "risk", "versus", "instead of"),
    "peer": ("explain", "assumption", "test", "simple", "clarif", "document", "load test",
             "benchmark", "step", "interface"),
    "bar_raiser": (),
}
ROLE_FOCUS: dict[str, str] = {
    "hiring_manager": "judgement about trade-offs and the measurement plan",
    "bar_raiser": "correct arithmetic and steering clear of the known pitfalls",
    "tech_lead": "the engines, batching and the capacity numbers",
    "sre": "rollback, alerting and who gets paged",
    "peer": "whether the answers are clear enough to build from",
}
# What each persona calls its lens when nothing in the loop touched it.
ROLE_LENS: dict[str, str] = {
    "hiring_manager": "a trade-off or a measurement plan",
    "bar_raiser": "arithmetic",
    "tech_lead": "engines, batching or capacity",
    "sre": "rollback, alerting or paging",
    "peer": "how the design would be built",
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
    buzzword_list: bool = False  # the answer is a list of terms with no reasoning behind them

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
    interviewer_id: int | None = None  # labels are rendered from the id at display time


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
    contradicted: bool = False  # "missing" because the answer stated it wrongly

    @property
    def phrase(self) -> str:
        return "contradicted" if self.status == "missing" and self.contradicted else self.status

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
                found.append((importance, Cite(q.position, c.key, c.label, "missing",
                                               contradicted=c.verdict == "contradicted")))
            elif c.pitfall_hit:
                importance = w * c.weight * affinity(role, c) * 1.5
                quote = c.quotes[0] if c.quotes else ""
                found.append((importance, Cite(q.position, c.key, c.label, "pitfall", quote)))
    found.sort(key=lambda item: (-item[0], item[1].position, item[1].key))
    return found


def _lc_first(text: str) -> str:
    return text[:1].lower() + text[1:] if text[:2] != text[:2].upper() else text


def _short(quote: str, limit: int = 160) -> str:
    """`quote` on one line, cut at a word boundary with an ellipsis (never mid-word)."""
    quote = " ".join(quote.split())
    if len(quote) <= limit:
        return quote
    cut = quote[: limit - 1]
    if " " in cut and not quote[limit - 1].isspace():
        cut = cut.rsplit(" ", 1)[0]
    if cut.count("(") > cut.count(")"):  # never leave a bracket open across the cut
        cut = cut[: cut.rfind("(")]
    return cut.rstrip(" ,;:-(") + "…"


def _first_sentence(text: str) -> str:
    """A calculation line's first sentence: "You wrote X; the correct result is Y"."""
    return re.split(r"(?<=[.!?])\s+(?=[A-Z])", text.strip(), maxsplit=1)[0].rstrip(".")


# Each persona words its evidence its own way, so two rationales never share a sentence.
# A "missing" phrasing says "omitted"/"left out"; a "contradicted" one (a point stated wrongly)
# says "wrong"; a "pitfall" one says "pitfall"/"costs points"; "made"/"partly" say none of
# these (the honesty test reads the words). These phrasings claim the persona's own area, so
# they are used only for evidence on its lens (`in_lens`); other evidence reads OFF_LENS.
ROLE_PHRASES: dict[str, dict[str, str]] = {
    "hiring_manager": {
        "made": "Q{p} argued the kind of trade-off I hire for: {label}{quote}.",
        "partly": "Q{p} got halfway to a trade-off I look for, {label}{quote}.",
        "missing": "Where I needed a trade-off or a measurement plan, Q{p} left out {label}.",
        "contradicted": "Q{p} stated {label} wrongly, on exactly the judgement I hire for.",
        "pitfall": "Q{p} made a call that costs points with me, the pitfall {label}{quote}.",
    },
    "bar_raiser": {
        "made": "The figures hold up where it matters: Q{p} got {label} right{quote}.",
        "partly": "Q{p} got only part of {label} right{quote}.",
        "missing": "Q{p} omitted {label}, and I do not lower the bar for that.",
        "contradicted": "Q{p} got {label} wrong, and I do not lower the bar for that.",
        "pitfall": "In Q{p} the candidate committed the pitfall {label}{quote}.",
    },
    "tech_lead": {
        "made": "Q{p} was technically solid where I dig deepest: {label}{quote}.",
        "partly": "Q{p} sketched {label} without the technical depth I want{quote}.",
        "missing": "On the serving side, Q{p} left out {label}.",
        "missing_sizing": "I could not size the system from Q{p}: it left out {label}.",
        "contradicted": "Q{p} got {label} wrong, which would send the build the wrong way.",
        "pitfall": "Q{p} fell into a pitfall that would hurt throughput: {label}{quote}.",
    },
    "sre": {
        "made": "From an on-call point of view, Q{p} covered {label}{quote}.",
        "partly": "Q{p} gestured at {label}, short of what I would want before a rollout{quote}.",
        "missing": "If this shipped, someone would get paged: Q{p} left out {label}.",
        "contradicted": "Q{p} stated {label} wrongly, and that is how incidents start.",
        "pitfall": "Q{p} walked into an operational pitfall, {label}{quote}.",
    },
    "peer": {
        "made": "I could build from Q{p}, which spelled out {label}{quote}.",
        "partly": "Q{p} explained {label} only in part{quote}.",
        "missing": "Building from Q{p} I would have to guess, because it omitted {label}.",
        "contradicted": "Q{p} got {label} wrong, so I would build the wrong thing from it.",
        "pitfall": "Q{p} would mislead whoever builds it, with the pitfall {label}{quote}.",
    },
}
# Evidence outside a persona's lens, said without claiming it for that lens.
OFF_LENS: dict[str, dict[str, str]] = {
    "hiring_manager": {
        "made": "Beyond trade-offs, Q{p} did make {label}{quote}.",
        "partly": "Beyond trade-offs, Q{p} partly made {label}{quote}.",
        "missing": "Beyond trade-offs, I noted that Q{p} left out {label}.",
        "contradicted": "Beyond trade-offs, I noted that Q{p} stated {label} wrongly.",
        "pitfall": "Beyond trade-offs, Q{p} fell into the pitfall {label}{quote}.",
    },
    "bar_raiser": ROLE_PHRASES["bar_raiser"],  # the bar raiser's lens is every point
    "tech_lead": {
        "made": "Outside my own area, Q{p} made {label}{quote}.",
        "partly": "Outside my own area, Q{p} partly made {label}{quote}.",
        "missing": "Outside my own area, Q{p} left out {label}.",
        "contradicted": "Outside my own area, Q{p} got {label} wrong.",
        "pitfall": "Outside my own area, Q{p} fell into the pitfall {label}{quote}.",
    },
    "sre": {
        "made": "Not an operations point, but Q{p} made {label}{quote}.",
        "partly": "Not an operations point, but Q{p} partly made {label}{quote}.",
        "missing": "Not an operations point, but Q{p} left out {label}.",
        "contradicted": "Not an operations point, but Q{p} got {label} wrong.",
        "pitfall": "Not an operations point, but Q{p} fell into the pitfall {label}{quote}.",
    },
    "peer": ROLE_PHRASES["peer"],  # whoever builds it reads every answer
}
GENERIC_PHRASES: dict[str, str] = {
    "made": "In Q{p} they made the point {label}{quote}.",
    "partly": "In Q{p} they partly made the point {label}{quote}.",
    "missing": "In Q{p} they omitted {label}.",
    "contradicted": "In Q{p} they got {label} wrong.",
    "pitfall": "In Q{p} they fell into the pitfall {label}{quote}.",
}
# The loop's overall is one figure for everyone; what a persona adds is said as its own:
# its score after what it weighs ({value}) and, when it weighs some topics more, their mean.
OPENINGS: dict[str, tuple[str, str]] = {
    "hiring_manager": (
        "{vote}: I hire for {focus}; the loop's overall is {overall}/100, and my own score, "
        "after what it left out, is {value}{topics}.",
        "{vote}: weighing {focus}, I put the loop at {value} on my own scale against its "
        "overall {overall}/100{topics}.",
    ),
    "bar_raiser": (
        "{vote}: My bar is {focus}: the loop's overall is {overall}/100, and against my bar "
        "it scores {value}{topics}.",
        "{vote}: I hold the bar on {focus}; the loop's overall is {overall}/100 and my score, "
        "after omissions and pitfalls, is {value}{topics}.",
    ),
    "tech_lead": (
        "{vote}: I read for {focus}; the loop's overall is {overall}/100 and technically it is "
        "a {value} on my own scale{topics}.",
        "{vote}: judged on {focus}, the design scores {value} on my own scale, with the loop's "
        "overall at {overall}/100{topics}.",
    ),
    "sre": (
        "{vote}: I would be on call for this, so I weigh {focus}: {value} on my own scale, "
        "with the loop's overall at {overall}/100{topics}.",
        "{vote}: as the one holding the pager I look at {focus}; I land on {value} on my own "
        "scale, the loop's overall being {overall}/100{topics}.",
    ),
    "peer": (
        "{vote}: I ask {focus}; the loop's overall is {overall}/100 and I put it at {value} "
        "on my own scale{topics}.",
        "{vote}: reading as the engineer who builds it, I ask {focus}, and land on {value} on "
        "my own scale against the loop's overall {overall}/100{topics}.",
    ),
}
GENERIC_OPENING = ("{vote}: I weigh {focus}; the loop's overall is {overall}/100, and my own "
                   "score, after omissions, is {value}{topics}.")
_SIZING_WORDS = ("capacity", "sizing", "size", "fleet", "gpu count", "gpus")


def in_lens(role: str, persona: Persona | None, q: QuestionResult,
            c: CriterionResult) -> bool:
    """Whether a criterion is on this persona's lens, by topic and kind, never by position:
    the bar raiser's lens is numbers and pitfalls; a persona that weighs some topics above
    the rest reads those topics; one that weighs none listens for its words in the label."""
    if role == "bar_raiser":
        return c.kind in ("numeric", "pitfall")
    weighted = {slug for slug, w in (persona.topic_weights if persona else {}).items()
                if float(w) > 1.0}
    if weighted:
        return q.topic_slug in weighted
    return affinity(role, c) > 1.0


def _is_sizing(q: QuestionResult, c: CriterionResult) -> bool:
    text = f"{q.topic_slug} {q.topic_title} {c.label}".lower()
    return c.kind == "numeric" and any(word in text for word in _SIZING_WORDS)


def cite_sentence(cite: Cite, rng: random.Random | None = None, role: str = "",
                  on_lens: bool = True, sizing: bool = False) -> str:
    label = f"\u201c{cite.label.rstrip('.')}\u201d"
    # An em dash, not parentheses: a quote with its own brackets never nests them.
    quote = f" \u2014 \u201c{_short(cite.quote)}\u201d" if cite.quote else ""
    phrases = (ROLE_PHRASES if on_lens else OFF_LENS).get(role, GENERIC_PHRASES)
    key = cite.phrase
    if key == "missing" and sizing and "missing_sizing" in phrases:
        key = "missing_sizing"
    sentence = phrases[key].format(p=cite.position, label=label, quote=quote)
    return re.sub(r"([.!?…])\u201d\.$", "\\1\u201d", sentence)  # one full stop, the quote's


# --- what the bar raiser holds the line on ----------------------------------------------------


@dataclass(frozen=True)
class Flag:
    """A red flag: a wrong core number, a committed pitfall, or a buzzword-only answer."""

    kind: Literal["number", "pitfall", "buzzword"]
    position: int
    text: str = ""  # the calculation line (number) or the label
    cite: Cite | None = None


def red_flags(questions: Sequence[QuestionResult]) -> list[Flag]:
    """Every red flag in the loop, wrong numbers first: scores alone can hide each of them."""
    flags: list[Flag] = []
    for q in questions:
        if not q.counts:
            continue
        for line in q.calculations:
            flags.append(Flag("number", q.position, line))
        for c in q.criteria:
            if c.kind == "numeric" and c.verdict == "contradicted":
                flags.append(Flag("number", q.position, c.label,
                                  Cite(q.position, c.key, c.label, "missing")))
            elif c.pitfall_hit:
                flags.append(Flag("pitfall", q.position, c.label, Cite(
                    q.position, c.key, c.label, "pitfall", c.quotes[0] if c.quotes else "")))
        if q.buzzword_list and q.answered:
            flags.append(Flag("buzzword", q.position))
    rank = {"number": 0, "pitfall": 1, "buzzword": 2}
    return sorted(flags, key=lambda f: (rank[f.kind], f.position))


def vote_cap(role: str, flags: Sequence[Flag]) -> VoteValue:
    """The best vote a persona may give with these flags. The bar raiser gives no Hire on a
    wrong core number and no Strong Hire on a pitfall or a buzzword list; the peer, who has
    to build from the answers, no Strong Hire on a buzzword list. Flags only ever go away as
    answers improve, so the cap keeps votes monotone."""
    kinds = {f.kind for f in flags}
    if role == "bar_raiser":
        if "number" in kinds:
            return "no_hire"
        if kinds:
            return "hire"
    if role == "peer" and "buzzword" in kinds:
        return "hire"
    return "strong_hire"


def flag_sentence(flag: Flag, more: int = 0) -> str:
    """The bar raiser's sentence on a red flag; `more`: further wrong calculations in the
    same answer, named in this one sentence rather than repeated."""
    if flag.kind == "number" and flag.cite is not None:
        return (f"Q{flag.position} gets a core number wrong, so I count "
                f"\u201c{flag.text.rstrip('.')}\u201d as left out whatever the score says.")
    if flag.kind == "number":
        also = f", and {plural(more, 'other calculation')} in it {'is' if more == 1 else 'are'} " \
               "off too" if more else ""
        return (f"Q{flag.position} has wrong arithmetic: "
                f"{_lc_first(_short(_first_sentence(flag.text)))}"
                f"{also}; a design sized on a wrong number does not pass the bar.")
    if flag.kind == "pitfall" and flag.cite is not None:
        return cite_sentence(flag.cite, role="bar_raiser")
    return (f"Q{flag.position} is a list of buzzwords with no reasoning behind them, which "
            "a high score elsewhere does not make up for.")


def _flag_groups(flags: Sequence[Flag]) -> list[tuple[Flag, int]]:
    """Flags with the wrong calculations of one answer folded into its first: (flag, more)."""
    groups: list[tuple[Flag, int]] = []
    for flag in flags:
        if flag.kind == "number" and flag.cite is None:
            index = next((i for i, (f, _) in enumerate(groups) if f.kind == "number"
                          and f.cite is None and f.position == flag.position), None)
            if index is not None:
                groups[index] = (groups[index][0], groups[index][1] + 1)
                continue
        groups.append((flag, 0))
    return groups


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
    key_point: str = ""  # the sentence that carries this persona's judgement (for dissent)
    capped: bool = False  # a red flag held the vote below what the score alone gives


_ROLE_SUFFIX = re.compile(r"\s*\(([^()]*)\)\s*$")


def plain_name(name: str, role: str) -> str:
    """'Dana (hiring manager)' -> 'Dana': the page prints the role beside the name already."""
    match = _ROLE_SUFFIX.search(name)
    if match is None:
        return name
    inner = match.group(1).strip().lower()
    known = {role.replace("_", " "), ROLE_LABELS.get(role, "").lower(),
             *(label.lower() for label in ROLE_LABELS.values()), "peer", "engineer"}
    return name[: match.start()].strip() or name if inner in known else name


def _lens_pools(role: str, persona: Persona, questions: Sequence[QuestionResult]
                ) -> tuple[list[Cite], list[Cite]]:
    """(strengths, concerns) among the criteria this role listens for."""
    def mine(cite: Cite) -> bool:
        q = next(q for q in questions if q.position == cite.position)
        return in_lens(role, persona, q, _criterion(questions, cite))

    strengths = [c for _, c in _strengths(role, persona, questions) if mine(c)]
    concerns = [c for _, c in _concerns(role, persona, questions) if mine(c)]
    return strengths, concerns


def _first_unused(pool: Sequence[Cite], used: set[tuple[int, str, str]]) -> Cite | None:
    for cite in pool:
        if (cite.position, cite.key, cite.status) not in used:
            return cite
    return pool[0] if pool else None


def _clarity_sentences(questions: Sequence[QuestionResult]) -> list[str]:
    """The peer's own reading: which answer they could build from, and which not."""
    answered = [q for q in questions if q.counts and q.answered]
    if not answered:
        return ["Nothing in this loop was answered in a way I could build from."]
    best = max(answered, key=lambda q: (q.score, -q.position))
    worst = min(answered, key=lambda q: (q.score, q.position))
    lines = [f"Q{best.position} was the clearest answer ({best.score:.0f}/100), one I could "
             "hand to a teammate."]
    listed = next((q for q in answered if q.buzzword_list), None)
    if listed is not None:
        lines.append(f"Q{listed.position} is a list of terms; I could not build anything "
                     "from it.")
    elif worst.position != best.position:
        lines.append(f"Q{worst.position} ({worst.score:.0f}/100) was the hardest to build on.")
    return lines


def persona_vote(persona: Persona, questions: Sequence[QuestionResult], seed: str,
                 used: set[tuple[int, str, str]] | None = None) -> PersonaVote:
    """One persona's vote and rationale, read through what it weighs. `used` holds the
    evidence earlier personas cited; this one prefers other evidence (and adds its own)."""
    used = used if used is not None else set()
    role = persona.role
    rng = random.Random(f"{seed}:{role}")  # noqa: S311 - phrasing only, not security
    score = persona_score(persona, questions)
    flags = red_flags(questions)
    uncapped = vote_for(score.value, persona.strictness)
    cap = vote_cap(role, flags)
    vote = min(uncapped, cap, key=VOTES.index)
    focus = persona.weighs_most.strip().rstrip(".") or ROLE_FOCUS.get(role, "the design")
    opening = rng.choice(OPENINGS.get(role, (GENERIC_OPENING, GENERIC_OPENING))).format(
        vote=VOTE_LABELS[vote], focus=_lc_first(focus), overall=f"{overall_score(questions):.0f}",
        value=f"{score.value:.0f}", topics=_weighted_topics(persona, questions))
    cites: list[Cite] = []
    evidence: list[str] = []

    def cite(c: Cite | None) -> None:
        if c is not None and all(c != other for other in cites):
            cites.append(c)
            used.add((c.position, c.key, c.status))
            q = next(q for q in questions if q.position == c.position)
            criterion = _criterion(questions, c)
            evidence.append(cite_sentence(c, role=role,
                                          on_lens=in_lens(role, persona, q, criterion),
                                          sizing=_is_sizing(q, criterion)))

    strengths_all = [c for _, c in _strengths(role, persona, questions)]
    concerns_all = [c for _, c in _concerns(role, persona, questions)]
    if role == "bar_raiser":
        for flag, more in _flag_groups(flags)[:2]:
            if flag.cite is not None:
                cites.append(flag.cite)
                used.add((flag.cite.position, flag.cite.key, flag.cite.status))
            evidence.append(flag_sentence(flag, more))
        if not flags:
            evidence.append("I checked the arithmetic and the pitfalls: no wrong core number "
                            "and no pitfall committed.")
            numeric = [c for c in strengths_all
                       if _criterion(questions, c).kind == "numeric"]
            cite(_first_unused(numeric or strengths_all, used))
        if not cites:
            cite(_first_unused(concerns_all if vote not in HIRE_VOTES else strengths_all, used))
    else:
        lens_strengths, lens_concerns = _lens_pools(role, persona, questions)
        if role == "peer":
            evidence.extend(_clarity_sentences(questions)[:1])
        order = ("strength", "concern") if vote in HIRE_VOTES else ("concern", "strength")
        for kind in order:
            lens = lens_strengths if kind == "strength" else lens_concerns
            pool = strengths_all if kind == "strength" else concerns_all
            # Off my lens when the loop gave nothing on it: still the loop's evidence.
            cite(_first_unused(lens, used) or _first_unused(pool, used))
        if not lens_strengths and not lens_concerns:
            evidence.append(f"Nothing in this loop tested {ROLE_LENS.get(role, 'my area')}, "
                            "so I judged on the overall scores.")
        if role == "peer":
            evidence.extend(_clarity_sentences(questions)[1:2])
        if not cites:
            cite(_first_unused(strengths_all or concerns_all, used))
    if not evidence:
        evidence.append("No answer made a rubric point I could credit."
                        if not strengths_all else "I found no rubric point left out.")
    evidence = list(dict.fromkeys(evidence))  # a rationale never says one thing twice
    sentences = [opening, *evidence[:3]]
    return PersonaVote(
        role=role,
        role_label=ROLE_LABELS.get(role, role),
        name=plain_name(persona.name, role),
        vote=vote,
        vote_label=VOTE_LABELS[vote],
        score=score.value,
        mean=score.mean,
        strictness=persona.strictness,
        rationale=" ".join(sentences),
        cites=[c.to_dict() for c in cites],
        key_point=evidence[0],
        capped=vote != uncapped,
    )


def _weighted_topics(persona: Persona, questions: Sequence[QuestionResult]) -> str:
    """'; on the Capacity questions, which I weigh more, it averages 44/100': the persona's
    own figure, said as such (empty when it weighs no topic above the rest here)."""
    heavy = {slug for slug, w in persona.topic_weights.items() if float(w) > 1.0}
    counted = [q for q in questions if q.counts]
    mine = [q for q in counted if q.topic_slug in heavy]
    if not mine or len(mine) == len(counted):
        return ""
    titles = list(dict.fromkeys(q.topic_title or q.topic_slug for q in mine))
    named = titles[0] if len(titles) == 1 else f"{', '.join(titles[:-1])} and {titles[-1]}"
    mean = sum(q.score for q in mine) / len(mine)
    return f"; on the {named} questions, which I weigh more, it averages {mean:.0f}/100"


def _criterion(questions: Sequence[QuestionResult], cite: Cite) -> CriterionResult:
    q = next(q for q in questions if q.position == cite.position)
    return next(c for c in q.criteria if c.key == cite.key)


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


def plural(count: int, word: str, many: str = "") -> str:
    """'1 vote', '2 votes': the word agrees with its number."""
    return f"{count} {word if count == 1 else (many or word + 's')}"


# --- humans in the decision -------------------------------------------------------------------
#
# The rule (README, "Interviewers' votes"): each interviewer who submitted a scorecard counts as
# one vote beside the simulated panel, the same weight as a persona; an interviewer with several
# scorecards counts once, at their most severe recommendation. A human Strong No Hire blocks a
# hire: the committee does not outvote someone who sat with the candidate and said "strong no".


@dataclass(frozen=True)
class Interviewer:
    interviewer: str
    interviewer_id: int | None
    recommendation: str
    question_position: int
    rating: int
    notes: str = ""

    @property
    def label(self) -> str:
        return VOTE_LABELS.get(self.recommendation, self.recommendation)


def interviewer_votes(human_votes: Sequence[HumanVote]) -> list[Interviewer]:
    """One vote per interviewer: their most severe recommendation (first such scorecard)."""
    chosen: dict[Any, HumanVote] = {}
    for h in human_votes:
        if h.recommendation not in VOTES:
            continue
        ident = h.interviewer_id if h.interviewer_id is not None else h.interviewer
        current = chosen.get(ident)
        if current is None or VOTES.index(h.recommendation) < VOTES.index(current.recommendation):
            chosen[ident] = h
    return [Interviewer(h.interviewer, h.interviewer_id, h.recommendation, h.question_position,
                        h.rating, h.notes) for h in chosen.values()]


@dataclass(frozen=True)
class Decision:
    outcome: str
    hires: int
    rejects: int
    vetoed: bool
    blocked_by: Interviewer | None


def tally_text(hires: int, rejects: int, outcome: str, vetoed: bool,
               blocked_by: Interviewer | None = None) -> str:
    if blocked_by is not None:  # who: in "what decided it", labelled when shown
        return f"{hires}-{rejects}, blocked by an interviewer's Strong No Hire: reject"
    if vetoed:
        return f"{hires}-{rejects}, vetoed by the bar raiser: reject"
    return f"{hires}-{rejects} to {outcome}"


def decide(votes: Sequence[PersonaVote], rule: str,
           humans: Sequence[Interviewer] = ()) -> tuple[str, bool]:
    decision = committee_decision(votes, rule, humans)
    return decision.outcome, decision.vetoed


def committee_decision(votes: Sequence[PersonaVote], rule: str,
                       humans: Sequence[Interviewer] = ()) -> Decision:
    hires = (sum(1 for v in votes if v.vote in HIRE_VOTES)
             + sum(1 for h in humans if h.recommendation in HIRE_VOTES))
    total = len(votes) + len(humans)
    majority = hires * 2 > total  # a tie is not a majority
    vetoed = (
        majority and rule == "bar_raiser_veto"
        and any(v.role == "bar_raiser" and v.vote not in HIRE_VOTES for v in votes)
    )
    blocked_by = next((h for h in humans if h.recommendation == "strong_no_hire"), None)
    if not majority or vetoed:
        blocked_by = None  # already a reject; the human vote is counted, not needed to block
    outcome = "hire" if majority and not vetoed and blocked_by is None else "reject"
    return Decision(outcome, hires, total - hires, vetoed, blocked_by)


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
                     outcome: str, vetoed: bool, topics: Sequence[dict[str, Any]],
                     humans: Sequence[Interviewer] = (),
                     blocked_by: Interviewer | None = None,
                     ) -> tuple[list[str], list[dict[str, Any]]]:
    factors: list[str] = []
    cites: list[Cite] = []
    scored_topics = [t for t in topics if t["score"] is not None]
    if blocked_by is not None:
        factors.append(
            f"{blocked_by.interviewer} voted Strong No Hire on Q{blocked_by.question_position} "
            f"(rating {blocked_by.rating}/4); under the committee rule an interviewer's Strong "
            "No Hire blocks a hire.")
    if vetoed:
        bar_raiser = next(v for v in votes if v.role == "bar_raiser")
        concern = next((c for c in bar_raiser.cites if c["status"] in ("missing", "pitfall")), None)
        why = f": \u201c{concern['label']}\u201d (Q{concern['position']})" if concern else ""
        factors.append(f"The bar raiser's veto ({bar_raiser.vote_label}){why}.")
    if humans and blocked_by is None:
        said = "; ".join(f"{h.interviewer}: {h.label} (Q{h.question_position})" for h in humans)
        factors.append(f"Interviewers, one vote each beside the panel: {said}.")
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
        for cite, positions in pool[: 2 if not (vetoed or blocked_by) else 1]:
            if cite.status == "pitfall":
                factors.append(f"Fell into the pitfall \u201c{cite.label}\u201d in "
                               f"{_where(positions)}.")
            elif cite.contradicted:
                factors.append(f"Stated \u201c{cite.label}\u201d wrongly in {_where(positions)}.")
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
            factors.append(f"The loop averaged {overall:.0f}/100; {hires} of "
                           f"{plural(len(votes), 'panelist')} voted to hire.")
        else:
            factors.append(f"The loop averaged {overall:.0f}/100; {len(votes) - hires} of "
                           f"{plural(len(votes), 'panelist')} were not convinced.")
    kept = factors[:3]
    return kept, [c.to_dict() for c in cites if any(c.label in f for f in kept)]


def dissent(votes: Sequence[PersonaVote], humans: Sequence[Interviewer],
            outcome: str) -> list[dict[str, Any]]:
    """Who voted against the decision, and why, in their own words."""
    hired = outcome == "hire"
    out = [{"name": v.name, "role_label": v.role_label, "vote": v.vote,
            "vote_label": v.vote_label, "why": v.key_point, "human": False}
           for v in votes if (v.vote in HIRE_VOTES) != hired]
    for h in humans:
        if (h.recommendation in HIRE_VOTES) != hired:
            why = f"Rated Q{h.question_position} {h.rating}/4."
            if h.notes:
                why += f" \u201c{_short(h.notes, 200)}\u201d"
            out.append({"name": h.interviewer, "role_label": "Interviewer",
                        "vote": h.recommendation, "vote_label": h.label, "why": why,
                        "human": True})
    return out


def make_offer(band: Band, overall: float, votes: Sequence[PersonaVote],
               humans: Sequence[Interviewer] = ()) -> dict[str, Any]:
    """Place the offer in the band: higher for a stronger loop (monotone in both inputs)."""
    strength = max(0.0, min(1.0, (overall - 60.0) / 35.0))
    ballots = [v.vote for v in votes] + [h.recommendation for h in humans]
    strong = sum(1 for vote in ballots if vote == "strong_hire")
    strong_share = strong / max(1, len(ballots))
    position = round(min(1.0, 0.75 * strength + 0.25 * strong_share), 3)

    def place(low: float, high: float) -> float:
        return low + position * (high - low)

    base = int(round(place(band.base_min, band.base_max) / 1000.0) * 1000)
    base = max(band.base_min, min(band.base_max, base))
    sign_on = int(round(place(band.sign_on_min, band.sign_on_max) / 1000.0) * 1000)
    sign_on = max(band.sign_on_min, min(band.sign_on_max, sign_on))
    equity = round(place(band.equity_min_percent, band.equity_max_percent), 4)
    if strong:
        votes_text = (f"{strong} of {plural(len(ballots), 'vote')} "
                      f"{'was' if strong == 1 else 'were'} Strong Hire, which moves the offer up.")
    else:
        votes_text = "No one voted Strong Hire, so the offer rests on the loop's score alone."
    reasons = [
        f"Placed at {position * 100:.0f}% of the band: the loop averaged {overall:.0f}/100 "
        f"(the band's top is reached at 95).",
        votes_text,
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
    # Wrong arithmetic first: the bar raiser's objection, whatever the scores.
    numbers = [f for f in red_flags(data.questions) if f.kind == "number" and f.cite is None]
    if numbers:
        q = by_position[numbers[0].position]
        positions = sorted({f.position for f in numbers})
        plan.append({
            "title": "Core numbers: work the arithmetic through",
            "why": f"Wrong arithmetic in {_where(positions)}: {_short(numbers[0].text, 200)}",
            "topic_slug": q.topic_slug,
            "topic_title": q.topic_title,
            "cite": None,
            "questions": _training_questions(data, [by_position[p] for p in positions]),
        })
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
    used: set[tuple[int, str, str]] = set()
    votes = [persona_vote(p, data.questions, data.seed, used) for p in personas]
    humans = interviewer_votes(data.human_votes)
    decision = committee_decision(votes, data.decision_rule, humans)
    outcome, vetoed = decision.outcome, decision.vetoed
    topics = topic_scores(data.questions)
    overall = overall_score(data.questions)
    factors, factor_cites = deciding_factors(data, personas, votes, outcome, vetoed, topics,
                                             humans, decision.blocked_by)
    offer = (make_offer(data.band, overall, votes, humans)
             if outcome == "hire" and data.band else None)
    practice = practice_plan(data, personas, topics) if outcome == "reject" else []
    panel_hires = sum(1 for v in votes if v.vote in HIRE_VOTES)
    human_hires = sum(1 for h in humans if h.recommendation in HIRE_VOTES)
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
        "tally": {"hire": decision.hires, "reject": decision.rejects,
                  "text": tally_text(decision.hires, decision.rejects, outcome, vetoed,
                                     decision.blocked_by),
                  "panel": {"hire": panel_hires, "reject": len(votes) - panel_hires},
                  "interviewers": {"hire": human_hires, "reject": len(humans) - human_hires}},
        "decision": {
            "outcome": outcome,
            "label": "Hire" if outcome == "hire" else "No hire",
            "rule": data.decision_rule,
            "rule_label": RULE_LABELS.get(data.decision_rule, data.decision_rule),
            "vetoed": vetoed,
            "blocked_by": asdict(decision.blocked_by) if decision.blocked_by else None,
            "factors": factors,
            "cites": factor_cites,
        },
        "dissent": dissent(votes, humans, outcome),
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
        "buzzword_list": q.buzzword_list,
        "made": [_criterion_dict(c) for c in made],
        "missed": [_criterion_dict(c) for c in missed],
        "pitfalls": [_criterion_dict(c) for c in pitfalls],
    }


def _criterion_dict(c: CriterionResult) -> dict[str, Any]:
    return {"key": c.key, "label": c.label, "kind": c.kind, "verdict": c.verdict,
            "weight": c.weight, "quotes": list(c.quotes), "feedback": c.feedback}


# --- text helpers used by the ORM layer -------------------------------------------------------

_WORD = re.compile(r"[A-Za-z][A-Za-z0-9'-]*")
_FUNCTION_TEXT = (
    "a an the and or but so if then than that this these those it its is are was were be been "
    "to of in on at by for with from as into over under we i you they he she our my your their "
    "not no do does did can could would should will shall may might must has have had which who "
    "when where while because since until after before each per all any some more most less "
    "about there here what how why")
_FUNCTION_WORDS = frozenset(_FUNCTION_TEXT.split(" "))
_REASONING = re.compile(r"\b(because|so that|therefore|which means|otherwise|instead|since|"
                        r"if|then|unless|in order to|so)\b", re.IGNORECASE)


def looks_like_buzzword_list(text: str) -> bool:
    """True for an answer that only names terms ("vLLM, PagedAttention, canary, autoscaling")
    with no reasoning: almost no function words and no reasoning marker. Near-empty answers
    (under six words) are judged by their score, not here."""
    words = _WORD.findall(text)
    if len(words) < 6:
        return False
    function_share = sum(1 for w in words if w.lower() in _FUNCTION_WORDS) / len(words)
    return function_share < 0.12 and not _REASONING.search(text)


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
