"""The verdict on a concept criterion: made, partly, missed, or contradicted when its point is
waved away, turned round, said of the wrong tool or sits in a wrong claim.
"""

from __future__ import annotations

import re
from functools import lru_cache

from scoring.engines.base import (
    CriterionSpec,
    CriterionVerdict,
    Span,
)
from scoring.engines.claims import _attributed, criterion_subject, reversed_claims
from scoring.engines.clauses import Document, _dedupe, _negated_at, tokens_in
from scoring.engines.dismissals import conceded_then_dismissed, waves_away
from scoring.engines.evidence import (
    MADE_AT,
    Evidence,
    Match,
    Pattern,
    _criterion_patterns,
    collect_evidence,
    evidence_credit,
    make_pattern,
    match_pattern,
    shared_words,
)
from scoring.engines.senses import WrongClaim
from scoring.engines.text import tokenize
from scoring.engines.verdicts import _verdict


@lru_cache(maxsize=1024)
def question_words(prompt: str, scenario: str = "") -> frozenset[str]:
    """The content words of the question and its scene: an answer that repeats one
    ("rollback", "version", "timeout") has not yet said anything about it."""
    return frozenset(t.key for t in tokenize(f"{prompt} {scenario}") if t.content)


RESTATED_SHARE = 0.8  # of a sentence's word triples found in the question: a restatement
RESTATED_MIN_TRIPLES = 4  # shorter sentences are judged on their own words


@lru_cache(maxsize=1024)
def _question_triples(prompt: str, scenario: str = "") -> frozenset[tuple[str, str, str]]:
    keys = [t.key for t in tokenize(f"{prompt} {scenario}") if t.content]
    return frozenset(zip(keys, keys[1:], keys[2:], strict=False))


def restated_sentences(doc: Document, prompt: str, scenario: str = "") -> frozenset[int]:
    """The answer's sentences that copy the question back ("So: Stripe needs a rebuild of 45
    minutes per version ..."): most of their word triples are the question's own. Repeating
    the scene states no point and commits no mistake."""
    question = _question_triples(prompt, scenario)
    keys: dict[int, list[str]] = {}
    for token in doc.tokens:
        if token.content:
            keys.setdefault(token.sentence, []).append(token.key)
    restated: set[int] = set()
    for sentence, words in keys.items():
        triples = list(zip(words, words[1:], words[2:], strict=False))
        if len(triples) >= RESTATED_MIN_TRIPLES and sum(
                t in question for t in triples) >= RESTATED_SHARE * len(triples):
            restated.add(sentence)
    return frozenset(restated)


def _keeping(evidence: Evidence, kept: list[tuple[Pattern, Match]]) -> Evidence:
    """The evidence with only the `kept` phrase matches, its best match found again."""
    agree = max((m for _, m in kept), key=lambda m: m.score, default=Match())
    return Evidence(kept, agree, evidence.oppose)


@lru_cache(maxsize=1024)
def _longer_siblings(criterion: CriterionSpec, criteria: tuple[CriterionSpec, ...]
                     ) -> dict[str, tuple[Pattern, ...]]:
    """Per phrase of the criterion, the other criteria's phrases that say all of its words and
    more, about something else ("per-stage" of a budget point, "per-stage tracing" of a
    measurement point): worked out once per question."""
    others = [make_pattern(phrase) for other in criteria
              if other.key != criterion.key and other.kind != "pitfall"
              for phrase in other.phrases if phrase.strip()]
    longer: dict[str, tuple[Pattern, ...]] = {}
    for phrase in criterion.phrases:
        own = set(make_pattern(phrase).keys)
        found = tuple(o for o in others if own and not o.negative and own < set(o.keys))
        if found:
            longer[phrase] = found
    return longer


def _without_longer_siblings(doc: Document, evidence: Evidence,
                             longer: dict[str, tuple[Pattern, ...]]) -> Evidence:
    """The evidence without phrases said only as part of another criterion's longer phrase:
    "per-stage tracing" is the measurement point, not a per-stage budget."""
    if not longer:
        return evidence
    kept: list[tuple[Pattern, Match]] = []
    for pattern, match in evidence.hits:
        claimed = False
        for sibling in longer.get(pattern.source, ()):
            said, _ = match_pattern(doc, sibling)
            if said.score >= 0.999 and said.sentence == match.sentence \
                    and _side_by_side(doc, said, len(sibling.keys)) \
                    and not _headed_by(doc, said, pattern) and all(
                    any(s.start < o.end and o.start < s.end for o in said.spans)
                    for s in match.spans):
                claimed = True
                break
        if not claimed:
            kept.append((pattern, match))
        elif (elsewhere := _said_elsewhere(doc, pattern, match)) is not None:
            # "... a Triton ensemble. My pick: TensorRT behind Triton": said again, in its own
            # right, in another sentence.
            kept.append((pattern, elsewhere))
    if len(kept) == len(evidence.hits) and all(a is b for a, b in zip(kept, evidence.hits,
                                                                      strict=True)):
        return evidence
    return _keeping(evidence, kept)


def _said_elsewhere(doc: Document, pattern: Pattern, match: Match) -> Match | None:
    """The phrase's words, all of them, in another sentence than the one a longer phrase
    claimed (not negated there); None when no other sentence says them."""
    wanted = set(pattern.keys)
    if not wanted or pattern.numbers:
        return None
    found: dict[int, list[Span]] = {}
    for token in doc.tokens:
        if token.sentence != match.sentence and token.key in wanted and not token.negated:
            found.setdefault(token.sentence, []).append(Span(token.start, token.end))
    for sentence in sorted(found):
        spans = found[sentence]
        if len({doc.tokens[doc.token_index[s.start]].key for s in spans}) == len(wanted):
            return Match(match.score, spans, sentence)
    return None


def _headed_by(doc: Document, match: Match, pattern: Pattern) -> bool:
    """Whether the longer phrase, as the answer says it, ends on the shorter phrase's own word:
    "automated rollback" is still a rollback, while "per-stage tracing" is tracing."""
    last = max(match.spans, key=lambda s: s.end)
    position = doc.token_index.get(last.start)
    return position is not None and doc.tokens[position].key in pattern.keys


def _side_by_side(doc: Document, match: Match, words: int) -> bool:
    """The match's words said as one phrase, at most one word apart ("per-stage tracing", not
    "a per-stage split, load tests and tracing")."""
    positions = sorted(doc.token_index[s.start] for s in match.spans if s.start in doc.token_index)
    return bool(positions) and positions[-1] - positions[0] <= words


def judge_concept(doc: Document, criterion: CriterionSpec,
                  tainted: frozenset[int] = frozenset(),
                  alternatives: tuple[str, ...] = (),
                  criteria: tuple[CriterionSpec, ...] = (),
                  echoes: frozenset[str] = frozenset()) -> CriterionVerdict:
    shared = shared_words(criteria).get(criterion.key) if criteria else None
    evidence = collect_evidence(doc, criterion, tainted, shared, echoes)
    if criteria:
        evidence = _without_longer_siblings(doc, evidence, _longer_siblings(criterion, criteria))
    if _about_breakdown(criterion):
        evidence = _with_breakdown(doc, evidence, tainted)
    elif evidence.hits and _figures_alone(doc, evidence, criterion):
        evidence = _keeping(evidence, [])
    misattributed: list[Span] = []
    turned: list[Span] = []
    subject = criterion_subject(criterion, alternatives)
    if subject:
        evidence, misattributed = _attributed(doc, evidence, subject, alternatives)
        turned = reversed_claims(doc, criterion, subject, alternatives)
    evidence, wrong, defined_wrong = _without_wrong_claims(doc, evidence)
    misattributed += wrong
    # A relation the point is about, turned round anywhere in the answer, contradicts it
    # whatever vaguer sentence names it elsewhere.
    kinds = _turned_kinds(criterion)
    turned += [claim.span for claim in doc.wrong_claims if claim.kind in kinds]
    evidence, waved = _without_dismissed(doc, evidence,
                                         refusal_makes=_refusal_can_make(criterion),
                                         words=_criterion_words(criterion))
    evidence = _without_reported(doc, evidence)
    if evidence.hits and _asks_for_choice(criterion) and not _COMMITS_RE.search(doc.text):
        evidence = _keeping(evidence, [])
    credit = evidence_credit(doc, evidence)
    agree, oppose = evidence.agree, evidence.oppose
    if waved and oppose.score < MADE_AT and (
            credit < 0.3 or all(_only_figures(doc, m) for _, m in evidence.hits)):
        # Named only where it is waved away (a figure said elsewhere, "2ms network", names
        # nothing): charged like a dismissal the clause rules found.
        oppose = Match(1.0, waved, -1)
    if turned or defined_wrong or (misattributed and credit < 0.3):
        # The point is stated the wrong way round ("TensorRT is slower"), its own term is
        # defined wrongly ("jitter is basically packet loss": whatever else is said of jitter,
        # the candidate does not know what it is), or it is said only about the wrong
        # alternative ("TorchServe compiles the model"): a wrong claim, charged like a
        # dismissal, whatever right words come with it.
        verdict, credit, spans = "contradicted", 0.0, _dedupe(turned + misattributed)
    elif oppose.score >= MADE_AT and oppose.score >= agree.score \
            and (credit < 0.5 or credit < REFUSAL_OUTWEIGHS and oppose.sentence != agree.sentence
                 or _only_figures(doc, agree)):
        # A point waved away in full words is not made by a figure said elsewhere ("the 2ms
        # launch overhead is a non-issue ... keep the wait to 1-2ms").
        verdict, credit, spans = "contradicted", 0.0, oppose.spans
    elif credit >= 0.75:
        verdict, spans = "made", _evidence_spans(evidence)
    elif credit >= 0.3:
        verdict, spans = "partly", _evidence_spans(evidence)
    else:
        verdict, credit, spans = "missed", 0.0, []
    return _verdict(criterion, verdict, round(credit, 3), spans)


@lru_cache(maxsize=1024)
def _criterion_words(criterion: CriterionSpec) -> frozenset[str]:
    """The words (not figures) of a criterion's label and phrases."""
    said = " ".join([criterion.label, *criterion.phrases])
    return frozenset(t.key for t in tokenize(said) if t.content and not t.lower[0].isdigit())


_ALERT_POINT_RE = re.compile(r"\b(?:alert\w*|thresholds?|windows?)\b", re.IGNORECASE)
_ALERT_VERB_RE = re.compile(r"\b(?:page|paging|pages|alert\w*|alarm\w*|fires?|trigger\w*)\b",
                            re.IGNORECASE)
# A point that is a figure to pick ("Picks a target in the reported range") is made by it.
_PICKS_FIGURE_RE = re.compile(r"\b(?:picks|sets|chooses)\b.{0,20}\btarget\b", re.IGNORECASE)


def _figures_alone(doc: Document, evidence: Evidence, criterion: CriterionSpec) -> bool:
    """Whether the point was found only as figures ("8" of "8-GPU box" for "8-bit", a "2ms"
    queueing slice for the "~2ms" launch overhead) in sentences that say none of its words:
    a number names no point by itself."""
    if _PICKS_FIGURE_RE.search(criterion.label) or not all(
            pattern.numbers and all(_FIGURE_RE.fullmatch(doc.text[s.start : s.end])
                                    for s in match.spans)
            for pattern, match in evidence.hits):
        # (A shape the point is written in, "over 300ms for 10 minutes", is no phrase's figure.)
        return False
    words = _criterion_words(criterion)
    sentences = {match.sentence for _, match in evidence.hits}
    if _ALERT_POINT_RE.search(criterion.label) and any(
            _ALERT_VERB_RE.search(doc.text[doc.sentences[i].start : doc.sentences[i].end])
            for i in sentences if 0 <= i < len(doc.sentences)):
        return False  # "Page if p99 stays above 300ms over 10 min": the window is the point
    return not any(token.key in words and token.content and not _FIGURE_RE.fullmatch(token.text)
                   for i in sentences if 0 <= i < len(doc.sentences)
                   for token in tokens_in(doc, doc.sentences[i].start, doc.sentences[i].end))


# Which wrong claims (relations.py's kinds) take down a point, by what its label (or what it
# checks) is about:
# "bigger batches ... so each request's latency goes down" a batch-size trade-off; "p95 sits
# above p99", "p50, since that's the tail" any point on percentiles.
_BATCH_TRADE_OFF_RE = re.compile(r"batch.*(?:trade-?off|throughput\s+versus\s+latency)|"
                                r"(?:trade-?off|throughput\s+versus\s+latency).*batch|"
                                r"batch capped by latency", re.IGNORECASE)
_TURNED_BY_LABEL = (
    ("batch", _BATCH_TRADE_OFF_RE),
    # "batching makes every request faster, there is no real cost to it".
    ("batch-cost", _BATCH_TRADE_OFF_RE),
    # (Not a plan to chart them, "dashboards of percentiles": that says nothing of their order.)
    ("percentile", re.compile(r"(?<!dashboards of )percentile", re.IGNORECASE)),
    # "A 3B model in fp16 is roughly 3 GB" takes down the memory fit.
    ("memory", re.compile(r"memory fit|fit in (?:\w+ )?memory", re.IGNORECASE)),
    # "any delta on p99 is by definition significant" takes down the significance test.
    ("significance", re.compile(r"statistic|significan", re.IGNORECASE)),
    # "Standardize everything on TensorRT" takes down a default per model type.
    ("blanket", re.compile(r"by model type|blanket", re.IGNORECASE)),
    # "On-call reverts it by hand" takes down an automated rollback.
    ("manual", re.compile(r"automated,?\s+(?:fast\s+)?rollback|rolls?\s+back\s+automatically",
                          re.IGNORECASE)),
    # "Compilation is not in the per-request path" takes down why compile time is an SLI.
    ("request-path", re.compile(r"in the request path", re.IGNORECASE)),
    # "The network call between them is effectively free" takes down the hop's cost.
    ("hop", re.compile(r"cost of the preprocessing hop|extra hop", re.IGNORECASE)),
    # "A moving tag like prod-latest that we repoint" takes down immutable versions.
    ("mutable-tag", re.compile(r"immutable", re.IGNORECASE)),
    # "Retrains skip the rebuild" takes down the per-version rebuild.
    ("rebuild", re.compile(r"per-version engine rebuild|rebuil\w* (?:the engine )?(?:per|for each) "
                           r"(?:model )?version|rebuilt per model version|per-version, per-GPU",
                           re.IGNORECASE)),
)


# A point refused in full words ("I'd skip warm pools") is not made by one partial phrase said in
# another sentence (credit 0.5, "image pull" among the startup phases); two phrases or a full one
# are.
REFUSAL_OUTWEIGHS = 0.55

# Wrong claims about one point only: they take down the point _TURNED_BY_LABEL names, not the
# other points said in the same sentence ("on-call reverts the VirtualService by hand" leaves
# the weighted VirtualService canary alone).
ONE_POINT_KINDS = frozenset(["significance", "blanket", "manual", "hop", "batch-cost", "rebuild",
                             "mutable-tag"])


@lru_cache(maxsize=1024)
def _turned_kinds(criterion: CriterionSpec) -> frozenset[str]:
    """The kinds of wrong claim that contradict this point wherever they are said."""
    said = f"{criterion.label} {criterion.checks}"
    return frozenset(kind for kind, about in _TURNED_BY_LABEL if about.search(said))


# A figure, or a percentile's name ("p95"), which says which figure and nothing of the point.
_FIGURE_RE = re.compile(r"[~≈]?\d[\d.,]*(?:\s*[-–]\s*\d[\d.,]*)?\s*[a-zA-Z%µ]{0,3}|"
                        r"[pP]\d{2,3}(?:\.\d+)?")


def _only_figures(doc: Document, match: Match) -> bool:
    """Whether a partial match found only figures, none of the phrase's words."""
    return bool(match.spans) and match.score < MADE_AT and all(
        _FIGURE_RE.fullmatch(doc.text[s.start : s.end]) for s in match.spans)


# A budget broken down per stage is said with figures, not with the rubric's words: "2 for the
# RPC hop, 4 for features, 1 preprocessing, 5 on the GPU" is the breakdown.
_BREAKDOWN_LABEL_RE = re.compile(
    r"(?:break|decompos|split)\w*.{0,30}(?:stage|budget)|per-stage budget|budget.{0,15}per stage",
    re.IGNORECASE)
_STAGE_WORDS_RE = re.compile(
    r"\b(?:network|rpc|hop|serial\w*|features?|feature fetch|lookups?|preprocess\w*|pre|post\w*|"
    r"model|gpu|compute|inference|queue\w*|batch\w*|parsing|response|tokeni[sz]\w*)\b",
    re.IGNORECASE)
BREAKDOWN_FIGURES = 3  # stage figures in one sentence that make a breakdown
_BREAKDOWN_PATTERN = make_pattern("per-stage breakdown")


@lru_cache(maxsize=1024)
def _about_breakdown(criterion: CriterionSpec) -> bool:
    return bool(_BREAKDOWN_LABEL_RE.search(criterion.label))


def _with_breakdown(doc: Document, evidence: Evidence, tainted: frozenset[int]) -> Evidence:
    """The evidence with the sentence that lists figures for several stages, if any."""
    for sentence, numbers in doc.sentence_numbers.items():
        if sentence in tainted or not 0 <= sentence < len(doc.sentences):
            continue
        span = doc.sentences[sentence]
        figures = [q for q in numbers if q.unit in {"s", ""} and not q.is_range
                   and not _negated_at(doc, q.start)]
        words = _STAGE_WORDS_RE.finditer(doc.text[span.start : span.end])
        stages = {m.group(0).lower() for m in words}
        if len(figures) >= BREAKDOWN_FIGURES and len(stages) >= BREAKDOWN_FIGURES:
            match = Match(1.0, [Span(q.start, q.end) for q in figures], sentence)
            hits = [(_BREAKDOWN_PATTERN, match), *evidence.hits]
            agree = match if match.score >= evidence.agree.score else evidence.agree
            return Evidence(hits, agree, evidence.oppose)
    return evidence


WRONG_CLAIM_REACH = 40  # characters either side of a wrong claim that it takes down
TERM_REACH = 25  # characters from a wrong definition's start that hold the term it defines


_CLAIM_END_RE = re.compile(r";|\b(?:but|however|whereas|although|though|while)\b", re.IGNORECASE)


_ASIDE_CLOSED_RE = re.compile(r"\s*[—–]|\s+-\s")
_ASIDE_OPENED_RE = re.compile(r"[—–]|\s-\s")


_POINTS_BACK_RE = re.compile(r"\s*(?:[\w']+\s+){0,3}?(?:it|that|this|them|which)\b",
                             re.IGNORECASE)


def _claim_reach(doc: Document, claim: Span, sentence: int) -> int:
    """How far after a wrong claim its words govern: the rest of its clause (to a ";" or a
    contrast), and at least WRONG_CLAIM_REACH characters."""
    end = doc.sentences[sentence].end if 0 <= sentence < len(doc.sentences) else len(doc.text)
    stop = _CLAIM_END_RE.search(doc.text, claim.end, end)
    # "...is the time the model spends training; I'd set it to 10-15 minutes of it": a clause
    # after ";" that points back with "it" or "that" goes on with the wrong claim.
    while stop and stop.group() == ";" and _POINTS_BACK_RE.match(doc.text, stop.end(), end):
        stop = _CLAIM_END_RE.search(doc.text, stop.end(), end)
    opening = doc.sentences[sentence].start if 0 <= sentence < len(doc.sentences) else 0
    if _ASIDE_CLOSED_RE.match(doc.text, claim.end) \
            and _ASIDE_OPENED_RE.search(doc.text, opening, claim.end):
        # "a circuit breaker - by that I mean batching - and a budget per stage": the dash
        # closes the aside the claim sits in, and what follows is said in the candidate's own
        # right.
        return claim.end
    return max(claim.end + WRONG_CLAIM_REACH, stop.start() if stop else end)


def _without_wrong_claims(doc: Document,
                          evidence: Evidence) -> tuple[Evidence, list[Span], bool]:
    """The evidence without phrases said in a sentence that states a relation or role wrongly
    ("bigger batches lower p99", "TorchServe is the compiler"), those wrong claims' spans, and
    whether one of them defines the point's own term wrongly."""
    if not doc.wrong_claims:
        return evidence, [], False
    bad: dict[int, list[WrongClaim]] = {}
    for claim in doc.wrong_claims:
        if claim.kind not in ONE_POINT_KINDS:
            bad.setdefault(claim.sentence, []).append(claim)

    def near(match: Match) -> list[WrongClaim]:
        # The wrong claims next to the phrase's words: a point made earlier in a long
        # sentence ("p99 latency from audio chunk to transcript, and jitter, which is the
        # average ...") stands.
        return [claim for claim in bad.get(match.sentence, ())
                if any(s.start < _claim_reach(doc, claim.span, match.sentence)
                       and claim.span.start - WRONG_CLAIM_REACH < s.end for s in match.spans)]

    nearby = [(pattern, match, near(match)) for pattern, match in evidence.hits]
    kept = [(p, m) for p, m, claims in nearby if not claims]
    if len(kept) == len(evidence.hits):
        # "I'd set 15ms as p99. ... p99 means the typical request": the point's only words are
        # a term the answer defines wrongly in another sentence, so it names the point without
        # knowing it.
        definitions = [claim for claim in doc.wrong_claims if claim.kind == "definition"
                       and _defined_term(doc, claim) in _bare_terms(doc, kept)]
        if definitions:
            return _keeping(evidence, []), [claim.span for claim in definitions], True
        return evidence, [], False
    spans = _dedupe([claim.span for _, _, claims in nearby for claim in claims])
    defined_wrong = any(_states_wrongly(claim, span)
                        for _, m, claims in nearby for claim in claims for span in m.spans)
    # "I'd go with 15ms p99. ... p99 is the average over the fastest 99 percent": what is left
    # elsewhere is only the term the candidate has just defined wrongly, which names the point
    # without knowing it.
    terms = {_defined_term(doc, claim) for _, _, claims in nearby for claim in claims
             if claim.kind == "definition"}
    if terms - {""} and kept and all(doc.text[s.start : s.end].lower() in terms
                                     for _, m in kept for s in m.spans):
        defined_wrong, kept = True, []
    return _keeping(evidence, kept), spans, defined_wrong


def _bare_terms(doc: Document, kept: list[tuple[Pattern, Match]]) -> frozenset[str]:
    """The one term every kept phrase is, lower-cased, or nothing when they say more."""
    said = {doc.text[s.start : s.end].lower() for _, m in kept for s in m.spans}
    return frozenset(said) if len(said) == 1 else frozenset()


def _defined_term(doc: Document, claim: WrongClaim) -> str:
    """The first word of a wrong definition: the term it defines ("p99", "jitter")."""
    word = re.match(r"[\w-]+", doc.text[claim.span.start : claim.span.end])
    return word.group().lower() if word else ""


def _states_wrongly(claim: WrongClaim, span: Span) -> bool:
    """Whether a wrong claim states the point whose phrase is at `span` wrongly, not only a
    neighbour: a wrong definition when the phrase sits on the term the definition opens with
    ("Jitter here is basically packet loss"; "dynamic batching ... waits for a fixed minimum
    batch" defines batching and leaves the batch-size trade-off alone), a feature given to the
    wrong tool when the phrase is the feature (the tool's name, at the claim's start, is not
    the point's own words)."""
    if claim.kind == "definition":
        return claim.span.start <= span.start < claim.span.start + TERM_REACH
    return claim.kind == "role" and claim.span.start < span.start and span.end <= claim.span.end


# What turns a sentence round after a dismissal: "I'd skip X, but X with a cap is fine".
_TURN_AFTER_DISMISSAL_RE = re.compile(r"\b(?:but|however|though|although|instead|rather|yet|"
                                      r"except|unless)\b|[;:]", re.IGNORECASE)


_REFUSAL_BEFORE_RE = re.compile(
    r"\b(?:skip\w*|drop\w*|ignore|leave\s+out|(?:i|we)(?:'d|\s+would)?\s+(?:rather\s+)?not|"
    r"(?:i|we)\s+(?:also\s+|really\s+|honestly\s+)?(?:wouldn'?t|won'?t|don'?t|do\s+not|would\s+not)|"
    r"no\s+need)\b[^.;:!?]{0,40}$", re.IGNORECASE)


def _reason_for_dismissal(doc: Document, match: Match) -> bool:
    """Whether the match restates words the same sentence has just waved away, as the reason
    for waving them ("I'd skip batching entirely, batching only adds waiting"): every matched
    word said negated earlier in the sentence, with no turn in between."""
    words = [doc.tokens[i] for s in match.spans
             if (i := doc.token_index.get(s.start)) is not None and not doc.tokens[i].negated]
    if not words:
        return False
    first = min(t.start for t in words)
    sentence = doc.sentences[match.sentence]
    earlier = [t for t in tokens_in(doc, sentence.start, first) if t.negated and t.content]
    if not earlier or not any(t.key == w.key for t in earlier for w in words):
        return False
    waved_first = min(t.start for t in earlier if any(t.key == w.key for w in words))
    after = max(t.end for t in earlier if any(t.key == w.key for w in words))
    # Waved away by the candidate's own refusal ("I'd skip", "I wouldn't"), not a plain "not"
    # ("p99 and not a mean, the mean hides ...") or a "never-seen" shape.
    return bool(_REFUSAL_BEFORE_RE.search(doc.text, sentence.start, waved_first)) \
        and not _TURN_AFTER_DISMISSAL_RE.search(doc.text, after, first)


# What may follow a refusal and still state the point: a turn ("..., but", "instead", "so I'd
# cache it") or a new clause of its own (";").
_TURN_AFTER_REFUSAL_RE = re.compile(r"\b(?:but|however|though|although|instead|rather|yet|"
                                    r"except|unless|so|then)\b|;", re.IGNORECASE)


# The candidate's own refusal, just before what is refused: "What I would not add is", "I'd
# never bother with", "we'd skip" (not a purpose, "so we don't miss the auction").
_REFUSED_BY_CANDIDATE_RE = re.compile(
    r"\b(?:i|we)(?:'d|\s+would|\s+will)?\s+(?:(?:also|really|honestly|definitely|just)\s+)?"
    r"(?:not|never|wouldn'?t|won'?t)\s+(?:add|use|put|have|bother|run|keep|build|want|need|"
    r"include|do)\b[^.;:!?]{0,30}$|\b(?:i|we)(?:'d|\s+would)\s+(?:skip|drop|leave\s+out)\b"
    r"[^.;:!?]{0,30}$|"
    # "And no feature flags either, 200µs per request is too much".
    r"\bno\s+$", re.IGNORECASE)


def _reason_after_refusal(doc: Document, match: Match, refused: Match) -> bool:
    """Whether the match is the reason the candidate gives for refusing the point in full words
    earlier in the same sentence ("What I would not add is a kill switch: at 200 microseconds
    per evaluation it costs too much"): said after the refusal, with no turn in between."""
    # The refused point named in full and in two words at least ("a feature-flag kill
    # switch"), not one word of it ("a flag lookup in the request path").
    named = sum(len(re.findall(r"[^\W_]+", doc.text[s.start:s.end])) for s in refused.spans)
    if refused.score < 0.999 or refused.sentence != match.sentence or named < 2 \
            or not match.spans:
        return False
    refused_at = min(s.start for s in refused.spans)
    refused_end = max(s.end for s in refused.spans)
    said_at = min(s.start for s in match.spans)
    if said_at < refused_end:
        return False
    sentence = doc.sentences[match.sentence]
    return bool(_REFUSED_BY_CANDIDATE_RE.search(doc.text, sentence.start, refused_at)) \
        and not _TURN_AFTER_REFUSAL_RE.search(doc.text, refused_end, said_at)


# "Memory I'd skip, an 80 GB card holds a 7B model many times over": a topic of the point fronted
# at the start of its sentence and refused right after it; what follows is the reason.
_FRONTED_REFUSAL_RE = re.compile(
    r"\s*(?P<topic>(?:[\w-]+\s+){0,2}?[\w-]+)\s*,?\s*(?:i|we)(?:'d|\s+would|\s+will|\s+can)?\s+"
    r"(?:just\s+|also\s+|honestly\s+)?(?:skip|drop|ignore|leave\s+out|(?:would\s+)?not\s+bother"
    r"(?:\s+with)?|wouldn'?t\s+bother(?:\s+with)?)\b", re.IGNORECASE)


def _reason_after_fronted_refusal(doc: Document, match: Match, words: frozenset[str]) -> bool:
    if not words or not match.spans or not 0 <= match.sentence < len(doc.sentences):
        return False
    sentence = doc.sentences[match.sentence]
    fronted = _FRONTED_REFUSAL_RE.match(doc.text, sentence.start, sentence.end)
    if fronted is None or min(s.start for s in match.spans) < fronted.end():
        return False
    topic = {t.key for t in tokenize(fronted.group("topic")) if t.content}
    return bool(topic & words) and not _TURN_AFTER_REFUSAL_RE.search(
        doc.text, fronted.end(), min(s.start for s in match.spans))


@lru_cache(maxsize=1024)
def _refusal_can_make(criterion: CriterionSpec) -> bool:
    """Whether turning something down is itself the point ("no extra 20% on top"): the
    criterion has a phrase that states a rejection."""
    return any(pattern.negative for pattern, _ in _criterion_patterns(criterion))


def _without_dismissed(doc: Document, evidence: Evidence, *, refusal_makes: bool = False,
                       words: frozenset[str] = frozenset()) -> tuple[Evidence, list[Span]]:
    """The evidence without phrases said in a stretch the dismissal model reads as waving the
    point away ("zone failure planning I'd leave to the SRE team"), and those phrases' spans."""
    kept: list[tuple[Pattern, Match]] = []
    waved: list[Span] = []
    for pattern, match in evidence.hits:
        if match.spans and 0 <= match.sentence < len(doc.sentences):
            sentence = doc.sentences[match.sentence]
            at = match.spans[0].start
            if waves_away(doc.text, sentence.start, sentence.end, at) \
                    or conceded_then_dismissed(doc.text, sentence.start, sentence.end, at) \
                    or _reason_for_dismissal(doc, match) \
                    or not refusal_makes and _reason_after_refusal(doc, match, evidence.oppose) \
                    or not refusal_makes and _reason_after_fronted_refusal(doc, match, words):
                waved += match.spans
                continue
        kept.append((pattern, match))
    if not waved:
        return evidence, []
    return _keeping(evidence, kept), _dedupe(waved)


# A sentence that only reports what others advise ("Some people say you should go ask the
# caller what their timeout is first."), up to where the candidate speaks again.
_REPORTED_RE = re.compile(
    r"\s*(?:(?:some|many|a\s+lot\s+of|most)\s+)?(?:people|folks|teams|others|candidates)\s+"
    r"(?:will\s+|would\s+|often\s+|usually\s+|always\s+|might\s+)?(?:say|tell\s+you|suggest|"
    r"recommend|argue|insist|claim)\b|\s*you'll\s+hear\b|\s*the\s+textbook\s+(?:answer|move)\b",
    re.IGNORECASE)
# The candidate's own voice in the sentence: the others' advice is then taken up or turned down
# ("..., and they're right", "- I'd rather not ship without it either", "but I'd skip it"),
# which the other rules read.
_OWN_VOICE_RE = re.compile(r"\b(?:i|i'd|i'm|i'll|i've|we|we'd|we'll|my|our|me|us)\b|"
                           r"\b(?:they're|they\s+are)\s+right\b", re.IGNORECASE)


def _without_reported(doc: Document, evidence: Evidence) -> Evidence:
    """The evidence without phrases said only as others' advice, in a sentence where the
    candidate neither takes it up nor turns it down: reporting a point is not making it."""
    kept: list[tuple[Pattern, Match]] = []
    for pattern, match in evidence.hits:
        if match.spans and 0 <= match.sentence < len(doc.sentences):
            sentence = doc.sentences[match.sentence]
            reported = _REPORTED_RE.match(doc.text, sentence.start, sentence.end)
            if reported and not _OWN_VOICE_RE.search(doc.text, reported.end(), sentence.end):
                continue
        kept.append((pattern, match))
    if len(kept) == len(evidence.hits):
        return evidence
    return _keeping(evidence, kept)


# A recommendation is a choice: "Recommendation: depends on requirements" after a list of both
# tools' terms names the point and makes none. A point about giving a recommendation needs a
# choice said somewhere in the answer, in any of the ways candidates commit to one.
_CHOICE_LABEL_RE = re.compile(r"\brecommendation\b", re.IGNORECASE)
_TOOLS = r"(?:tensorrt|trt|torchserve|triton|torch-?tensorrt|onnx\s*runtime|vllm)"
_COMMITS_RE = re.compile(
    r"\b(?:i|we)(?:'d|'ll|\s+would|\s+will|\s+should|\s+can)?\s+(?:\w+\s+){0,2}?(?:go|pick|"
    r"choose|use|start|default|recommend|stick|keep|stay|move|put|serve|ship|deploy|run|lean|"
    r"favou?r|prefer|take|want|standardi[sz]e|split)\b|"
    r"\b(?:recommend|suggest|prefer|favou?r)(?:s|ed|ing)?\b|"
    r"\bmy\s+(?:pick|choice|call|vote|recommendation|default|preference|answer|bet)\b|"
    r"\b(?:go(?:ing)?|stick|start)\s+with\b|\bdefault(?:s|ing)?\s+to\b|"
    r"\brecommendation\s*[:\-\u2013\u2014]\s*(?!(?:it\s+)?(?:depends|hard|unclear|tbd|n/?a)\b)\w|"
    r"\b" + _TOOLS + r"\b[^.;:]{0,40}?\bfor\s+(?:the\s+|this\s+|our\s+|a\s+|any\s+|most\s+|"
    r"everything|models?|weekly|monthly|latency|strict|fraud|stable|fast)|"
    r"\b(?:use|pick|choose|take|deploy|run)\s+(?:the\s+)?" + _TOOLS + r"\b|"
    r"\bi'?d\s+say\b|\b(?:where|how)\s+i(?:'d|\s+would)?\s+land\b|\bi\s+land\s+on\b|"
    # "Retraining weekly or less, TensorRT behind Triton; retraining daily, TorchServe".
    r"\b(?:weekly|daily|monthly|hourly|rare|rarer|frequent|often|stable|fast-moving)\b[^.;:]{0,60}?"
    r",\s*(?:then\s+|go\s+|use\s+)?" + _TOOLS + r"\b|"
    # "Tight budget and slow retrains -> compiled engine inside Triton".
    r"\b(?:weekly|daily|monthly|hourly|rare|rarer|frequent|infrequent|often|slow|stable|"
    r"fast-moving|tight|loose|looser)\b[^.;:]{0,60}?(?:->|\u2192|=>)\s*(?:the\s+)?(?:\w+\s+){0,2}?"
    r"(?:" + _TOOLS + r"|engine|server)\b|"
    r"\b(?:wins?|winner|way\s+to\s+go|makes\s+(?:more\s+)?sense|right\s+(?:call|choice|pick|"
    r"fit|option|tool)|better\s+(?:choice|pick|fit|option|bet|tool))\b",
    re.IGNORECASE)


@lru_cache(maxsize=1024)
def _asks_for_choice(criterion: CriterionSpec) -> bool:
    return bool(_CHOICE_LABEL_RE.search(criterion.label))


def _evidence_spans(evidence: Evidence) -> list[Span]:
    """Where the answer makes the point: the phrases it states (nearly) in full. Part of a
    phrase ("batch" and "wait" in a sentence about something else) is shown only when no
    phrase is stated in full."""
    full = [m for _, m in evidence.hits if m.score >= MADE_AT]
    pool = full or [m for _, m in evidence.hits]
    # The sentence that makes the point, not every sentence that shares a word with it: the
    # sentences whose phrases score best (a phrase said in full twice keeps both).
    weight: dict[int, float] = {}
    for m in pool:
        weight[m.sentence] = weight.get(m.sentence, 0.0) + m.score
    best = max(weight.values(), default=0.0)
    kept = next(sentence for sentence, total in weight.items() if total >= best - 1e-9) \
        if weight else None
    return _dedupe([s for m in pool if m.sentence == kept for s in m.spans])

