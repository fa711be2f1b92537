"""The default engine: rubric criteria matched by stemmed phrases with negation scopes,
numbers checked with units, and a reasoning factor that keeps bare buzzword lists low.

With no rubric (QuestionSpec.criteria empty) it scores against the model answer alone: each
clause of the model answer becomes a pseudo-criterion weighted by how informative its words are,
and each number with a unit becomes a numeric one.
"""

from __future__ import annotations

import math
import re
from bisect import bisect_left, bisect_right
from dataclasses import dataclass, field
from functools import lru_cache

from scoring.engines import embeddings
from scoring.engines.base import (
    CriterionSpec,
    CriterionVerdict,
    NumberCheck,
    QuestionSpec,
    ScoreOutcome,
    Span,
    rating_for_total,
    register,
)
from scoring.engines.derived import derived_figures
from scoring.engines.numbers import (
    Calculation,
    Operation,
    Quantity,
    breakdown_parts,
    compatible,
    distance,
    find_calculations,
    find_implied_calculations,
    find_operations,
    find_quantities,
    find_sum_claims,
    format_number,
    parse_unit,
    unit_parts,
    within_tolerance,
    without_long_numbers,
)
from scoring.engines.rating import rubric_rating
from scoring.engines.relations import WrongClaim, universal_comparisons, wrong_claims
from scoring.engines.text import (
    GENERIC,
    STOPWORDS,
    Sentence,
    Token,
    function_word_ratio,
    reasoning_markers,
    split_sentences,
    tokenize,
)

MADE_AT = 0.75  # share of a phrase's words that must appear together for "made"
PARTLY_AT = 0.45
PITFALL_AT = 0.8
METHOD_CREDIT = 0.4  # numeric criterion: right method, wrong or missing result
GENERIC_HIT = 0.6  # a one-word phrase, against a specific phrase or a number
BARE_HIT = 0.6  # a phrase in a sentence with no reasons, numbers or prose around it
BARE_LIST_CAP = 0.6  # a point only ever named as a bare list item is at most partly made
CONTRADICTION_PENALTY = 0.25  # share of a criterion's weight lost for rejecting its point
WRONG_RESULT_PENALTY = 0.3  # share of a numeric criterion's weight lost for a wrong answer
WRONG_RESULT_AT = math.log(3)  # a stated result more than 3x off is wrong, not imprecise
ARITHMETIC_PENALTY = 0.2  # of the total, per wrong calculation (at most two)
# An order-of-magnitude slip that no criterion already charges (no pitfall in its sentence, no
# numeric criterion in its result's unit) usually drives a conclusion ("~30,000 orders, plenty
# to judge on"): it costs more than a near miss.
MAGNITUDE_PENALTY = 0.35
MAGNITUDE_AT = math.log(10)
REASONED_REFERENCE_WORDS = 80  # a reference this long sets full expectations of reasoning
SHORT_ANSWER_SHARE = 0.25  # an answer under this share of the reference's words is scaled down
# Reference-only mode against a short reference (short-answer grading) blends the lexical score
# with the embedding model's soft recall of the reference (scoring.engines.embeddings): it
# credits paraphrases in other words, which stemmed matching cannot. Long references (interview
# answers) keep lexical judgement alone: there similarity also rewards negated and buzzword
# answers. Measured on the labelled sets; see tests/scoring/test_generalisation.py.
SEMANTIC_SHARE = 0.75  # of the total, for a reference of up to REASONED_REFERENCE_WORDS / 2 words
SEMANTIC_FLOOR = 0.15  # soft recall of an unrelated answer: no credit
SEMANTIC_FULL = 0.6  # soft recall of a full paraphrase: full credit
_NEGATORS = frozenset(
    [
        "not", "no", "never", "without", "skip", "ignore", "dont", "don't", "wouldnt",
        "wouldn't", "isnt", "isn't", "cant", "can't", "wont", "won't", "doesnt", "doesn't",
        "didnt", "didn't", "shouldnt", "shouldn't", "overkill", "unnecessary"
    ]
)


# --- The analysed answer ----------------------------------------------------------------


@dataclass
class Document:
    text: str
    tokens: list[Token]
    sentences: list[Sentence]
    quantities: list[Quantity]
    calculations: list[Calculation]
    implied: list[Calculation] = field(default_factory=list)  # wrong arithmetic in prose
    operations: list[Operation] = field(default_factory=list)
    by_key: dict[str, list[Token]] = field(default_factory=dict)
    by_prefix: dict[str, set[str]] = field(default_factory=dict)
    sentence_numbers: dict[int, list[Quantity]] = field(default_factory=dict)
    sentence_context: dict[int, bool] = field(default_factory=dict)
    wrong_results: set[str] = field(default_factory=set)  # numeric keys stated far off
    token_index: dict[int, int] = field(default_factory=dict)  # token start -> position
    clauses: dict[int, list[tuple[int, int]]] = field(default_factory=dict)  # per sentence
    token_starts: list[int] = field(default_factory=list)
    topic_scores: dict[tuple, dict[str, float]] = field(default_factory=dict)

    markers: list[tuple[int, int]] = field(default_factory=list)  # reasoning markers
    wrong_claims: list[WrongClaim] = field(default_factory=list)  # relations turned round
    words: int = -1

    @property
    def word_count(self) -> int:
        if self.words < 0:
            self.words = sum(1 for t in self.tokens if not t.lower[0].isdigit())
        return self.words


# At most this many numbers of an answer are examined (a real answer states a few dozen): an
# answer of thousands of numbers is judged on its first ones, in time linear in its length.
MAX_NUMBERS = 120


_DIGITS_RE = re.compile(r"\d+")


def _number_region(text: str) -> str:
    """The text as far as numbers are read: a little past the digit run that could hold the
    MAX_NUMBERS-th number (a range or "1,250" is two runs)."""
    for count, match in enumerate(_DIGITS_RE.finditer(text), start=1):
        if count >= 3 * MAX_NUMBERS:
            return text[: match.end() + 40]
    return text


# An answer is read as far as its first MAX_WORDS words: a 20,000-character answer of prose is
# about 3,400 words, while 20,000 characters of "1 x 2 x 3 ..." are 10,000 tokens, each worth
# nothing, which would make scoring time grow with how hostile an answer is.
MAX_WORDS = 3600
_WORD_COUNT_RE = re.compile(r"[A-Za-z0-9µμ]+")


def bounded_text(text: str) -> str:
    """The part of an answer that is scored: overlong digit runs blanked, cut after MAX_WORDS
    words (a prefix, so every span still points into the answer as written)."""
    text = without_long_numbers(text)
    for count, match in enumerate(_WORD_COUNT_RE.finditer(text), start=1):
        if count >= MAX_WORDS:
            return text[: match.end()]
    return text


def analyse(text: str) -> Document:
    text = bounded_text(text)
    tokens = tokenize(text)
    quantities = find_quantities(_number_region(text))[:MAX_NUMBERS]
    # The arithmetic passes read only as far as the numbers examined.
    cut = min(len(text), quantities[-1].end + 200) if quantities else 0
    head = text[:cut]
    calculations = find_calculations(head, quantities)
    # A breakdown's wrong total is shown as its parts' sum, not also as a wrong product.
    sums = find_sum_claims(head, quantities, calculations)
    implied = [c for c in find_implied_calculations(head, quantities, calculations)
               if all(c.end != s.end for s in sums)]
    # A derived figure (a percentage or headroom total) is shown as its own check.
    derived = derived_figures(head, quantities)
    implied = [c for c in implied if all(c.end != d.end for d in derived)] + derived
    doc = Document(text, tokens, split_sentences(text), quantities, calculations,
                   sorted([*implied, *sums], key=lambda c: c.start),
                   find_operations(head, quantities))
    doc.token_index = {token.start: i for i, token in enumerate(tokens)}
    doc.token_starts = [token.start for token in tokens]
    for token in tokens:
        if token.content:
            doc.by_key.setdefault(token.key, []).append(token)
            doc.by_prefix.setdefault(token.key[:5], set()).add(token.key)
    for quantity in quantities:
        doc.sentence_numbers.setdefault(_sentence_of(doc, quantity.start), []).append(quantity)
    by_sentence: dict[int, list[Token]] = {}
    for token in tokens:
        by_sentence.setdefault(token.sentence, []).append(token)
    doc.markers = reasoning_markers(text)
    doc.wrong_claims = wrong_claims(tokens, text, lambda offset: _sentence_of(doc, offset))
    reasoned_sentences = {_sentence_of(doc, start) for start, _ in doc.markers}
    for index in range(len(doc.sentences)):
        words = by_sentence.get(index, [])
        reasoned = index in reasoned_sentences
        prose = len(words) >= 9 and function_word_ratio(words) >= 0.2
        # A number gives a short line context ("RTF < 1 with margin"), not a long term list.
        numbered = index in doc.sentence_numbers and len(words) <= 14
        doc.sentence_context[index] = reasoned or prose or numbered
    return doc


def _occurrences(doc: Document, key: str) -> list[Token]:
    """Tokens whose key is this key, or shares a long stem with it (compil/compilat)."""
    found = list(doc.by_key.get(key, ()))
    if len(key) >= 5:
        for other in doc.by_prefix.get(key[:5], ()):
            if other != key and (other.startswith(key) or key.startswith(other)):
                found.extend(doc.by_key[other])
    return found


# --- Phrases ----------------------------------------------------------------------------


@dataclass(frozen=True)
class Pattern:
    keys: tuple[str, ...]
    weights: tuple[float, ...]
    negative: bool  # the phrase states a rejection ("no bake window")
    source: str
    numbers: tuple[Quantity, ...] = ()  # numbers the phrase states ("40 QPS"): all must appear
    approximate: tuple[bool, ...] = ()  # per number: the phrase says "~15ms" or "about 15ms"
    sequence: tuple[str, ...] = ()  # "room for", "audio-in": one content word, matched verbatim

    @property
    def specific(self) -> bool:
        """More than one word or a number: a hit is evidence on its own."""
        return len(self.keys) > 1 or bool(self.numbers) or bool(self.sequence)

    @property
    def usable(self) -> bool:
        return bool(self.keys or self.numbers)


def make_pattern(phrase: str) -> Pattern:
    tokens = tokenize(phrase)
    negative = any(t.lower in _NEGATORS for t in tokens)
    keys: list[str] = []
    weights: list[float] = []
    for token in tokens:
        if token.content and token.lower not in _NEGATORS and token.key not in keys:
            keys.append(token.key)
            weights.append(0.5 if token.key in GENERIC or token.lower in GENERIC else 1.0)
    numbers = tuple(find_quantities(phrase, spelled=False))  # "two zones" stays words
    approximate = tuple(bool(_APPROXIMATE_RE.search(phrase[: q.start])) for q in numbers)
    words = [t for t in tokens if not t.lower[0].isdigit()]
    sequence = (tuple(t.key for t in words)
                if len(keys) == 1 and len(words) > 1 and not numbers and not negative else ())
    return Pattern(tuple(keys), tuple(weights), negative, phrase, numbers, approximate, sequence)


_APPROXIMATE_RE = re.compile(
    r"(?:~|≈|\b(?:about|around|roughly|approx\.?|approximately|nearly|almost|some))\s*[$€£]?$",
    re.IGNORECASE)


@dataclass
class Match:
    score: float = 0.0  # weighted share of the phrase's words found in one sentence
    spans: list[Span] = field(default_factory=list)
    sentence: int = -1


def match_pattern(doc: Document, pattern: Pattern) -> tuple[Match, Match]:
    """Best sentence-level match with the phrase's polarity, and with the opposite one."""
    if pattern.sequence:
        return _match_sequence(doc, pattern), Match()
    total = sum(pattern.weights) + NUMBER_WEIGHT * len(pattern.numbers)
    if not total:
        return Match(), Match()
    agree: dict[int, dict[str, list[Token]]] = {}
    oppose: dict[int, dict[str, list[Token]]] = {}
    for key in pattern.keys:
        for token in _occurrences(doc, key):
            bucket = agree if token.negated == pattern.negative else oppose
            bucket.setdefault(token.sentence, {}).setdefault(key, []).append(token)
    if pattern.numbers:
        # A phrase that states a number only matches where that number is stated.
        numbers = {i: _number_spans(doc, i, pattern) for i in doc.sentence_numbers}
        numbers = {i: spans for i, spans in numbers.items() if spans}
        # The number said in a rejected clause ("drop the 10-minute bake") opposes.
        turned = {i: _number_spans(doc, i, pattern, opposite=True) for i in doc.sentence_numbers}
        turned = {i: spans for i, spans in turned.items() if spans}
        agree = {i: found for i, found in agree.items() if i in numbers}
        oppose = {i: found for i, found in oppose.items() if i in turned}
        for i in numbers:
            agree.setdefault(i, {})
        for i in turned:
            oppose.setdefault(i, {})
    else:
        numbers = turned = {}
    return (_best(agree, pattern, total, numbers, doc),
            _best(oppose, pattern, total, turned, doc))


NUMBER_WEIGHT = 1.5


APPROXIMATE_PHRASE = 0.05  # "~15ms" in a phrase also matches 14.5ms; "15ms" only 15ms


def _number_spans(doc: Document, sentence: int, pattern: Pattern,
                  opposite: bool = False) -> list[Span]:
    """Where each number the phrase states appears in the sentence: the same value once units
    and formatting are normalised ("1,250" = "1250" = "1.25k", "0.7ms" = "700us"), within a
    tolerance only for a number the phrase itself gives as approximate."""
    spans: list[Span] = []
    for wanted, approximate in zip(pattern.numbers, pattern.approximate, strict=True):
        slack = APPROXIMATE_PHRASE if approximate else 1e-9
        # A number in a clause the candidate rejects ("the 2ms launch overhead isn't worth
        # budgeting") is not stated as a point.
        hit = next((q for q in doc.sentence_numbers.get(sentence, ())
                    if _same_number(q, wanted, slack)
                    and _negated_at(doc, q.start) == (pattern.negative != opposite)), None)
        if hit is None:
            return []
        spans.append(Span(hit.start, hit.end))
    return spans


def _negated_at(doc: Document, offset: int) -> bool:
    index = doc.token_index.get(offset)
    return index is not None and doc.tokens[index].negated


def _same_number(found: Quantity, wanted: Quantity, slack: float) -> bool:
    low, high = found.low, found.high
    if found.unit and wanted.unit and found.unit != wanted.unit:
        # "40 QPS" is said in "40 QPS per GPU", and "24%" in "24% per hour".
        if "/" not in wanted.unit and unit_parts(found.unit)[0] == wanted.unit != found.unit:
            low, high = low * found.per, high * found.per
        else:
            return False
    return (low <= wanted.high * (1 + slack) + 1e-12
            and wanted.low * (1 - slack) - 1e-12 <= high)


def _match_sequence(doc: Document, pattern: Pattern) -> Match:
    size = len(pattern.sequence)
    tokens = doc.tokens
    first = pattern.sequence[0]
    for i in range(len(tokens) - size + 1):
        if tokens[i].key != first:
            continue
        window = tokens[i : i + size]
        if tuple(t.key for t in window) == pattern.sequence and not any(
                t.negated for t in window) and len({t.sentence for t in window}) == 1:
            return Match(1.0, [Span(window[0].start, window[-1].end)], window[0].sentence)
    return Match()


def phrase_window(keys: int) -> int:
    """How many tokens a phrase of this many words may spread over in the answer: "business
    metrics" is said in "metrics, dashboards and business impact", not by the two words at
    either end of a long sentence about something else."""
    return 2 * keys + 5


# A phrase is said within one clause: "bigger batches raise throughput, but requests wait"
# does not say "batch wait".
_PHRASE_BREAK_RE = re.compile(r";|\b(?:but|however|whereas|although|though)\b", re.IGNORECASE)


def _tightest(doc: Document, occurrences: dict[str, list[Token]],
              weight_of: dict[str, float]) -> dict[str, Token]:
    """The phrase's words as found closest together: the heaviest set of its words that fit
    in one window of phrase_window tokens and one clause (the tightest such window on a
    tie)."""
    if len(occurrences) < 2:
        return {key: tokens[0] for key, tokens in occurrences.items()}
    limit = phrase_window(len(weight_of))
    items = sorted(((doc.token_index[t.start], key, t) for key, tokens in occurrences.items()
                    for t in tokens), key=lambda item: item[0])
    best: tuple[float, int] = (-1.0, 0)
    chosen: dict[str, Token] = {}
    for i, (first, _, _) in enumerate(items):
        window: dict[str, Token] = {}
        last = first
        for index, key, token in items[i:]:
            if index - first > limit:
                break
            if _PHRASE_BREAK_RE.search(doc.text, items[i][2].end, token.start) is not None:
                break
            if key not in window:
                window[key] = token
                last = index
        rank = (sum(weight_of[k] for k in window), -(last - first))
        if rank > best:
            best, chosen = rank, window
    return chosen


def _best(buckets: dict[int, dict[str, list[Token]]], pattern: Pattern, total: float,
          numbers: dict[int, list[Span]], doc: Document) -> Match:
    best = Match()
    weight_of = dict(zip(pattern.keys, pattern.weights, strict=True))
    for sentence in sorted(buckets):
        found = _tightest(doc, buckets[sentence], weight_of)
        number_spans = numbers.get(sentence, [])
        if len(pattern.keys) > 1 and len(found) < 2 and not number_spans:
            continue  # one shared word is not a paraphrase of a multi-word point
        score = (sum(weight_of[k] for k in found)
                 + NUMBER_WEIGHT * len(pattern.numbers) * bool(number_spans)) / total
        if score > best.score:
            spans = sorted({(t.start, t.end) for t in found.values()}
                           | {(n.start, n.end) for n in number_spans})
            best = Match(score, [Span(s, e) for s, e in spans], sentence)
    return best


@lru_cache(maxsize=4096)
def _criterion_patterns(criterion: CriterionSpec) -> tuple[tuple[Pattern, float], ...]:
    """Phrases at full strength; the label as a slightly weaker extra phrase."""
    patterns = [(_pattern(p), 1.0) for p in criterion.phrases if p.strip()]
    if criterion.label and criterion.kind != "pitfall":
        patterns.append((_pattern(criterion.label), 0.9))
    return tuple((p, factor) for p, factor in patterns if p.usable)


_PATTERNS: dict[str, Pattern] = {}


def _pattern(phrase: str) -> Pattern:
    pattern = _PATTERNS.get(phrase)
    if pattern is None:
        if len(_PATTERNS) > 20000:
            _PATTERNS.clear()
        pattern = _PATTERNS[phrase] = make_pattern(phrase)
    return pattern


@dataclass
class Evidence:
    hits: list[tuple[Pattern, Match]]  # every phrase made (or partly made), best first
    agree: Match  # the best match with the phrase's polarity
    oppose: Match  # the best match of a positive phrase in a negated or dismissed clause


@lru_cache(maxsize=1024)
def shared_words(criteria: tuple[CriterionSpec, ...]) -> dict[str, frozenset[str]]:
    """Per criterion, the words of the other criteria's labels and phrases (once per spec)."""
    words = {c.key: frozenset(t.key for text in (c.label, *c.phrases) for t in tokenize(text)
                              if t.content)
             for c in criteria if c.kind != "pitfall"}
    return {key: frozenset().union(*(w for other, w in words.items() if other != key))
            for key in words}


def _label_verb(criterion: CriterionSpec) -> str:
    tokens = tokenize(criterion.label)
    return tokens[0].key if tokens else ""


def _distinctive(doc: Document, match: Match, criterion: CriterionSpec,
                 shared: frozenset[str]) -> bool:
    """A match of the criterion's label says this point only through a word of its own: the
    words it shares with the question's other criteria ("cold", "request", "replica") and its
    opening verb ("Tracks") say nothing about which point was made."""
    verb = _label_verb(criterion)
    for span in match.spans:
        index = doc.token_index.get(span.start)
        if index is None:
            return True  # a number span: specific
        key = doc.tokens[index].key
        if key not in shared and key != verb:
            return True
    return False


def collect_evidence(doc: Document, criterion: CriterionSpec,
                     tainted: frozenset[int] = frozenset(),
                     shared: frozenset[str] | None = None) -> Evidence:
    """All phrase matches for a criterion, ignoring sentences that make a pitfall's mistake
    and (given the other criteria's words) label or part-phrase matches made only of words
    shared with them."""
    hits: list[tuple[Pattern, Match]] = []
    best_agree, best_oppose = Match(), Match()
    for pattern, factor in _criterion_patterns(criterion):
        agree, oppose = match_pattern(doc, pattern)
        if agree.sentence in tainted:
            agree = Match()
        # The label, or part of a phrase ("cold-start" of "cold-start rate"), counts only
        # through a word of this criterion's own.
        partial = agree.score < 0.999
        if shared is not None and (pattern.source == criterion.label or partial) \
                and agree.spans and not _distinctive(doc, agree, criterion, shared):
            agree = Match()
        agree = Match(agree.score * factor, agree.spans, agree.sentence)
        if agree.score >= PARTLY_AT:
            hits.append((pattern, agree))
        if agree.score > best_agree.score:
            best_agree = agree
        if not pattern.negative and oppose.score * factor > best_oppose.score:
            best_oppose = Match(oppose.score * factor, oppose.spans, oppose.sentence)
    hits.sort(key=lambda item: -item[1].score)
    return Evidence(hits, best_agree, best_oppose)


def best_matches(doc: Document, criterion: CriterionSpec) -> tuple[Match, Match]:
    evidence = collect_evidence(doc, criterion)
    return evidence.agree, evidence.oppose


def evidence_credit(doc: Document, evidence: Evidence) -> float:
    """0..1 from the phrases matched: a specific phrase stated in a sentence with reasons,
    numbers or real prose counts fully; a lone generic word or a bare list item counts less,
    and further distinct phrases add with diminishing returns."""
    values: list[float] = []
    seen: set[str] = set()
    counted: set[tuple[int, int]] = set()
    for pattern, match in evidence.hits:
        if pattern.source in seen:
            continue
        seen.add(pattern.source)
        # Two phrases for the same words ("rollback" and "roll back", "kill switch" and
        # "on/off switch") are one piece of evidence, not two.
        spans = {(span.start, span.end) for span in match.spans}
        if spans and spans <= counted:
            continue
        counted |= spans
        value = 1.0 if pattern.specific else GENERIC_HIT
        if match.score < MADE_AT:
            value *= 0.5
        if not doc.sentence_context.get(match.sentence, False):
            value *= BARE_HIT
        values.append(value)
    values.sort(reverse=True)
    credit = min(1.0, sum(v * 0.5 ** i for i, v in enumerate(values[:4])))
    if not any(doc.sentence_context.get(m.sentence, False) for _, m in evidence.hits):
        credit = min(credit, BARE_LIST_CAP)  # only ever named in bare list items
    return credit


# --- Criteria ---------------------------------------------------------------------------


def judge_concept(doc: Document, criterion: CriterionSpec,
                  tainted: frozenset[int] = frozenset(),
                  alternatives: tuple[str, ...] = (),
                  criteria: tuple[CriterionSpec, ...] = ()) -> CriterionVerdict:
    shared = shared_words(criteria).get(criterion.key) if criteria else None
    evidence = collect_evidence(doc, criterion, tainted, shared)
    misattributed: list[Span] = []
    turned: list[Span] = []
    subject = criterion_subject(criterion, alternatives)
    if subject:
        evidence, misattributed = _attributed(doc, evidence, subject, alternatives)
        turned = reversed_claims(doc, criterion, subject, alternatives)
    evidence, wrong = _without_wrong_claims(doc, evidence)
    misattributed += wrong
    credit = evidence_credit(doc, evidence)
    agree, oppose = evidence.agree, evidence.oppose
    if turned or (misattributed and credit < 0.3):
        # The point is stated the wrong way round ("TensorRT is slower"), or only about the
        # wrong alternative ("TorchServe compiles the model"): a wrong claim, charged like a
        # dismissal, whatever right words come with it.
        verdict, credit, spans = "contradicted", 0.0, _dedupe(turned + misattributed)
    elif oppose.score >= MADE_AT and credit < 0.5 and oppose.score >= agree.score:
        verdict, credit, spans = "contradicted", 0.0, oppose.spans
    elif credit >= 0.75:
        verdict, spans = "made", _evidence_spans(evidence)
    elif credit >= 0.3:
        verdict, spans = "partly", _evidence_spans(evidence)
    else:
        verdict, credit, spans = "missed", 0.0, []
    return _verdict(criterion, verdict, round(credit, 3), spans)


def _without_wrong_claims(doc: Document, evidence: Evidence) -> tuple[Evidence, list[Span]]:
    """The evidence without phrases said in a sentence that states a relation or role wrongly
    ("bigger batches lower p99", "TorchServe is the compiler"), and those wrong claims' spans."""
    if not doc.wrong_claims:
        return evidence, []
    bad: dict[int, list[Span]] = {}
    for claim in doc.wrong_claims:
        bad.setdefault(claim.sentence, []).append(claim.span)
    kept = [(p, m) for p, m in evidence.hits if m.sentence not in bad]
    if len(kept) == len(evidence.hits):
        return evidence, []
    spans = _dedupe([span for _, m in evidence.hits if m.sentence in bad
                     for span in bad[m.sentence]])
    agree = max((m for _, m in kept), key=lambda m: m.score, default=Match())
    return Evidence(kept, agree, evidence.oppose), spans


def _evidence_spans(evidence: Evidence) -> list[Span]:
    """Where the answer makes the point: the phrases it states (nearly) in full. Part of a
    phrase ("batch" and "wait" in a sentence about something else) is shown only when no
    phrase is stated in full."""
    full = [m for _, m in evidence.hits if m.score >= MADE_AT]
    return _dedupe([s for m in (full or [m for _, m in evidence.hits]) for s in m.spans])


# --- Claims about named alternatives -----------------------------------------------------
#
# A comparison question ("Compare TensorRT and TorchServe") names its alternatives. A criterion
# about one of them ("Explains TensorRT's latency advantage") is not earned by its words said of
# the other ("TorchServe, which compiles the model"), and is contradicted by its claim turned
# round ("TensorRT is slower", "TorchServe has lower latency").

_COMPARE_RES = (
    re.compile(r"\b(?i:compare|comparing|between|choose|choosing|pick|picking)\s+"
               r"(?:the\s+)?(?P<a>[A-Z][\w-]*[A-Za-z])\s+(?:and|or|with|to|vs\.?|versus)\s+"
               r"(?P<b>[A-Z][\w-]*[A-Za-z])\b"),
    re.compile(r"\b(?P<a>[A-Za-z][\w-]*[A-Za-z])\s+(?:vs\.?|versus)\s+(?P<b>[A-Za-z][\w-]*[A-Za-z])\b",
               re.IGNORECASE),
)
_ALTERNATIVES: dict[str, tuple[str, ...]] = {}


def question_alternatives(prompt: str) -> tuple[str, ...]:
    """Keys of the two alternatives a question asks to compare, or () for none."""
    if prompt not in _ALTERNATIVES:
        if len(_ALTERNATIVES) > 2000:
            _ALTERNATIVES.clear()
        found: tuple[str, ...] = ()
        for pattern in _COMPARE_RES:
            match = pattern.search(prompt)
            if not match:
                continue
            keys = []
            for name in (match.group("a"), match.group("b")):
                tokens = [t for t in tokenize(name) if t.content]
                if tokens and parse_unit(name)[0] not in _UNIT_NAMES:
                    keys.append(" ".join(t.key for t in tokens))
            if len(keys) == 2 and keys[0] != keys[1]:
                found = tuple(keys)
                break
        if not found:
            # Two product names in one question ("7ms on TensorRT versus 12ms on TorchServe",
            # "TorchServe ... moved to TensorRT") set them against each other.
            names = list(dict.fromkeys(_PRODUCT_RE.findall(prompt)))
            if len(names) == 2:
                found = tuple(tokenize(name)[0].key for name in names)
        _ALTERNATIVES[prompt] = found
    return _ALTERNATIVES[prompt]


_PRODUCT_RE = re.compile(r"\b[A-Z][a-z]+[A-Z][A-Za-z]*\b")  # "TensorRT", "TorchServe"
_UNIT_NAMES = frozenset(["s", "qps", "token/s", "gpu", "%", "GB", "W", "x", "$"])


def _mentions(tokens: list[Token], alternative: str) -> list[int]:
    """Indexes of the tokens where an alternative is named ("big bang" is two tokens)."""
    words = alternative.split()
    return [i for i in range(len(tokens) - len(words) + 1)
            if all(tokens[i + k].key == w for k, w in enumerate(words))]


_CRITERION_SUBJECTS: dict[tuple[str, str, str, tuple[str, ...]], str] = {}


def criterion_subject(criterion: CriterionSpec, alternatives: tuple[str, ...]) -> str:
    """The one alternative a criterion's label and checks are about ("TensorRT's latency
    advantage"); "" when they name none or both. Asides in parentheses do not count."""
    if not alternatives:
        return ""
    cache_key = (criterion.key, criterion.label, criterion.checks, alternatives)
    if cache_key not in _CRITERION_SUBJECTS:
        text = re.sub(r"\([^()]*\)", " ", f"{criterion.label}. {criterion.checks}")
        tokens = tokenize(text)
        named = [a for a in alternatives if _mentions(tokens, a)]
        _CRITERION_SUBJECTS[cache_key] = named[0] if len(named) == 1 else ""
    return _CRITERION_SUBJECTS[cache_key]


# Words that may stand between a named subject and what is said of it: "TorchServe, which
# compiles", "TensorRT is much faster", "TorchServe has the lowest latency".
_LINK_WORDS = frozenset(
    ["is", "are", "was", "has", "have", "had", "gives", "give", "offers", "provides",
     "delivers", "achieves", "gets", "get", "which", "that", "it", "its", "the", "a", "an",
     "much", "far", "way", "also", "actually", "really", "clearly", "generally", "usually",
     "typically", "always", "significantly", "noticeably", "considerably", "definitely",
     "still", "even", "can", "will", "would", "does", "do", "be", "by", "engine", "engines",
     "model", "latency", "p99", "p95", "p50", "inference", "serving"]
)
_SUBJECT_BREAKS = frozenset(["but", "however", "although", "though", "whereas", "while",
                             "because", "since", "so", "unlike", "than", "instead", "whilst",
                             "vs", "versus", "over", "compared", "rather"])


def _subject_before(doc: Document, index: int, alternatives: tuple[str, ...]) -> str:
    """The alternative a claim at token `index` is said of: one named just before it in the
    same clause with only linking words between ("X, which ..." crosses the comma)."""
    tokens = doc.tokens
    j = index - 1
    steps = 0
    while j >= 0 and steps < 7:
        gap = doc.text[tokens[j].end : tokens[j + 1].start]
        if tokens[j].sentence != tokens[index].sentence:
            return ""
        if any(ch in ",;:()[]!?.\n" for ch in gap) and not (
                gap.strip() == "," and tokens[j + 1].lower in {"which", "that"}):
            return ""
        for alternative in alternatives:
            words = alternative.split()
            start = j - len(words) + 1
            if start >= 0 and all(tokens[start + k].key == w for k, w in enumerate(words)):
                return alternative
        if tokens[j].lower in _SUBJECT_BREAKS or tokens[j].negated:
            return ""
        if tokens[j].lower not in _LINK_WORDS and not tokens[j].lower[0].isdigit():
            return ""
        j -= 1
        steps += 1
    return ""


def _attributed(doc: Document, evidence: Evidence, subject: str,
                alternatives: tuple[str, ...]) -> tuple[Evidence, list[Span]]:
    """The evidence without phrases said of another alternative, and those phrases' spans."""
    kept: list[tuple[Pattern, Match]] = []
    wrong: list[Span] = []
    starts = {t.start: i for i, t in enumerate(doc.tokens)}
    for pattern, match in evidence.hits:
        first = min((starts[s.start] for s in match.spans if s.start in starts), default=None)
        said_of = _subject_before(doc, first, alternatives) if first is not None else ""
        if said_of and said_of != subject:
            wrong.extend(match.spans)
        else:
            kept.append((pattern, match))
    if not wrong:
        return evidence, []
    agree = max((m for _, m in kept), key=lambda m: m.score, default=Match())
    return Evidence(kept, agree, evidence.oppose), wrong


_SPEED = {"faster": -1, "fastest": -1, "quicker": -1, "quickest": -1, "slower": 1,
          "slowest": 1}
_LEVEL = {"lower": -1, "lowest": -1, "less": -1, "least": -1, "smaller": -1, "fewer": -1,
          "higher": 1, "highest": 1, "more": 1, "most": 1, "greater": 1, "larger": 1,
          "bigger": 1}
_LATENCY_KEYS = frozenset(["latency", "latenc", "p99", "p95", "p50", "percentile", "ms",
                           "inference", "respons"])


@dataclass(frozen=True)
class Claim:
    prop: str  # what is compared ("latency")
    direction: int  # -1 lower, +1 higher
    index: int  # the comparative's token
    start: int
    end: int


def _prop(token: Token) -> str:
    return "latency" if token.key in _LATENCY_KEYS or token.lower in _LATENCY_KEYS else token.key


def comparative_claims(tokens: list[Token], text: str) -> list[Claim]:
    """"faster", "lower latency", "latency is higher": what is compared, and which way. A speed
    word is about latency only on its own or before latency words ("faster to update" is not)."""
    claims: list[Claim] = []
    for i, token in enumerate(tokens):
        if token.negated:
            continue
        nxt = tokens[i + 1] if i + 1 < len(tokens) and tokens[i + 1].sentence == token.sentence \
            and not any(ch in ",;:.!?()\n" for ch in text[token.end : tokens[i + 1].start]) \
            else None
        if token.lower in _SPEED:
            if nxt is None or nxt.lower == "than" or _prop(nxt) == "latency":
                claims.append(Claim("latency", _SPEED[token.lower], i, token.start, token.end))
        elif token.lower in _LEVEL:
            if nxt is not None and nxt.content:
                claims.append(Claim(_prop(nxt), _LEVEL[token.lower], i, token.start, nxt.end))
            elif i >= 2 and tokens[i - 1].lower in {"is", "are", "was"} and tokens[i - 2].content:
                claims.append(Claim(_prop(tokens[i - 2]), _LEVEL[token.lower], i - 2,
                                    tokens[i - 2].start, token.end))
    return claims


_CRITERION_CLAIMS: dict[tuple[str, str, tuple[str, ...]], frozenset[tuple[str, int]]] = {}


def criterion_claims(criterion: CriterionSpec) -> frozenset[tuple[str, int]]:
    """The comparisons a criterion's label, checks and phrases make ("faster", "lower
    latency"), as (what, direction)."""
    cache_key = (criterion.key, criterion.label, criterion.phrases)
    if cache_key not in _CRITERION_CLAIMS:
        found: set[tuple[str, int]] = set()
        for text in (criterion.label, criterion.checks, *criterion.phrases):
            found |= {(c.prop, c.direction) for c in comparative_claims(tokenize(text), text)}
        _CRITERION_CLAIMS[cache_key] = frozenset(found)
    return _CRITERION_CLAIMS[cache_key]


def reversed_claims(doc: Document, criterion: CriterionSpec, subject: str,
                    alternatives: tuple[str, ...]) -> list[Span]:
    """Where the answer turns the criterion's comparison round: the other way for its subject
    ("TensorRT is slower"), or the same way for another alternative ("TorchServe is faster").
    None when the answer also states it the right way round (a hedge, not a reversal)."""
    wanted = criterion_claims(criterion)
    if not wanted:
        return []
    wrong: list[Span] = []
    right = False
    for claim in comparative_claims(doc.tokens, doc.text):
        said_of = _subject_before(doc, claim.index, alternatives)
        if not said_of:
            continue
        agrees = (claim.prop, claim.direction) in wanted
        opposes = (claim.prop, -claim.direction) in wanted
        if (said_of == subject and opposes) or (said_of != subject and agrees):
            wrong.append(Span(claim.start, claim.end))
        elif (said_of == subject and agrees) or (said_of != subject and opposes):
            right = True
    return [] if right else wrong


def judge_pitfall(doc: Document, criterion: CriterionSpec) -> tuple[CriterionVerdict, set[int]]:
    """A pitfall is hit when a specific phrase for the mistake is stated (not rejected)."""
    sentences: set[int] = set()
    spans: list[Span] = []
    for pattern, _ in _criterion_patterns(criterion):
        if not pattern.specific:
            continue
        agree, _ = match_pattern(doc, pattern)
        if agree.score >= PITFALL_AT and _limits_kept(doc, pattern, agree.sentence):
            sentences.add(agree.sentence)
            spans.extend(agree.spans)
    if _about_unsupported_counts(criterion):
        guess = unsupported_count(doc)
        if guess is not None:
            sentences.add(_sentence_of(doc, guess.start))
            spans.append(Span(guess.start, guess.end))
    if _about_universals(criterion):
        for claim in universal_comparisons(doc.text, doc.sentences):
            sentences.add(claim.sentence)
            spans.append(claim.span)
    if doc.wrong_claims and _about_reversals(criterion):
        # A pitfall of reversed or swapped facts is committed by any relation stated wrongly
        # (its sentences stay open to concept criteria, which are then contradicted there).
        spans.extend(claim.span for claim in doc.wrong_claims)
    hit = bool(spans)
    verdict = _verdict(criterion, "made" if hit else "missed", 1.0 if hit else 0.0,
                       _dedupe(spans) if hit else [])
    return verdict, sentences


_REVERSAL_RE = re.compile(r"\b(?:revers\w*|swap\w*|confus\w*|misattribut\w*|wrong way|"
                          r"backwards?|mix(?:es|ed)? up)\b", re.IGNORECASE)


def _about_reversals(criterion: CriterionSpec) -> bool:
    """A pitfall whose label or checks are about facts turned round or swapped."""
    return bool(_REVERSAL_RE.search(f"{criterion.label} {criterion.checks}"))


_UNSUPPORTED_RE = re.compile(
    r"\b(?:no|without|any)\s+(?:\w+[\s-]+){0,2}(?:throughput|basis|derivation|calculation)\b|"
    r"\bguess", re.IGNORECASE)
_COUNT_UNITS = frozenset(["gpu", "server", "node", "replica", "instance", "pod"])


_UNIVERSAL_PITFALL_RE = re.compile(r"\b(?:always|regardless|in every case)\b", re.IGNORECASE)


def _about_universals(criterion: CriterionSpec) -> bool:
    """A pitfall about a choice claimed to win in every case ("TensorRT is always faster")."""
    return bool(_UNIVERSAL_PITFALL_RE.search(f"{criterion.label} {criterion.checks}"))


def _about_unsupported_counts(criterion: CriterionSpec) -> bool:
    """A pitfall about a count given with no throughput basis ("around 50 T4s")."""
    return bool(_UNSUPPORTED_RE.search(f"{criterion.label} {criterion.checks}"))


def unsupported_count(doc: Document) -> Quantity | None:
    """A count of machines ("something like 60 T4s") in an answer that shows no basis for
    it: no rate per machine, no arithmetic, no described calculation step."""
    if doc.calculations or doc.operations or doc.implied:
        return None
    if any("/" in q.unit or q.unit in {"qps", "token/s"} for q in doc.quantities):
        return None
    return next((q for q in doc.quantities if q.unit in _COUNT_UNITS), None)


def question_numbers(question: QuestionSpec) -> list[Quantity]:
    """The numbers the candidate was given: those in the prompt and the scenario."""
    text = "\n".join(part for part in (question.prompt, question.scenario) if part)
    if text not in _GIVEN:
        if len(_GIVEN) > 2000:
            _GIVEN.clear()
        _GIVEN[text] = find_quantities(text)
    return _GIVEN[text]


_GIVEN: dict[str, list[Quantity]] = {}


def restated(quantity: Quantity, given: list[Quantity]) -> bool:
    """The answer repeats a number the question gave ("200k requests per minute"): the same
    number as written, with the same kind of unit (or none)."""
    numerator = unit_parts(quantity.unit)[0]
    return any(math.isclose(quantity.written, g.written, rel_tol=0.005)
               and g.is_range == quantity.is_range
               and (not numerator or not g.unit or unit_parts(g.unit)[0] == numerator)
               for g in given)


_LIMITING = frozenset(["only", "just", "enough", "alone", "solely"])


def _limits_kept(doc: Document, pattern: Pattern, sentence: int) -> bool:
    """A mistake that lies in a limit ("average latency only") is made only where the limit
    is stated too: "even when average latency is fine" names averages without relying on them."""
    limits = {w.lower() for w in re.findall(r"[A-Za-z]+", pattern.source)} & _LIMITING
    if not limits:
        return True
    words = {t.lower for t in doc.tokens if t.sentence == sentence}
    return bool(words & limits)


def judge_numeric(doc: Document, criterion: CriterionSpec, model_answer: str,
                  given: list[Quantity] | None = None,
                  criteria: tuple[CriterionSpec, ...] = ()) -> tuple[CriterionVerdict, NumberCheck]:
    """A numeric criterion is earned by a number the answer states in the criterion's unit,
    or in another unit it chose itself, where the answer is talking about that quantity
    (see numeric_candidates; `criteria` are the question's others, which compete for its
    numbers). A number copied from the question earns nothing through a conversion the engine
    makes ("200k requests per minute" is not a stated 3,333 per second) and is never a wrong
    result: the candidate did not compute it."""
    expected = float(criterion.expected_value or 0.0)
    tolerance = criterion.tolerance_percent if criterion.tolerance_percent is not None else 5.0
    evidence = collect_evidence(doc, criterion)
    agree = evidence.agree
    _, factor = parse_unit(criterion.unit)
    copied = {id(q) for q in doc.quantities if restated(q, given or [])}
    found = numeric_candidates(doc, criterion, model_answer, criteria or (criterion,))
    candidates = [q for q in found
                  if (id(q) not in copied or math.isclose(q.factor, factor, rel_tol=1e-9))
                  and not _belongs_elsewhere(doc, q, criterion, criteria)]
    hits = [q for q in candidates if within_tolerance(q, expected, criterion.unit, tolerance)]
    chosen = hits[0] if hits else _preferred(
        doc, [q for q in candidates if id(q) not in copied], criterion, model_answer,
        agree.sentence)
    worded = any(not p.numbers and m.score >= MADE_AT for p, m in evidence.hits)
    in_calculation = chosen is not None and any(
        c.start <= chosen.start and chosen.end <= c.end for c in doc.calculations)
    method = worded or in_calculation or _uses_model_operation(doc, model_answer)
    wrong = (not hits and chosen is not None and compatible(chosen, criterion.unit)
             and distance(chosen, expected, criterion.unit) > WRONG_RESULT_AT)
    check = NumberCheck(
        criterion_key=criterion.key, expected_value=expected, unit=criterion.unit,
        tolerance_percent=tolerance, found_value=_in_criterion_unit(chosen, criterion.unit),
        found_text=chosen.text if chosen else "",
        span=Span(chosen.start, chosen.end) if chosen else None,
        within_tolerance=bool(hits), method_credit=method,
        worked_calculation=_worked_calculation(doc, criterion, model_answer),
    )
    # The words that attempted it, where a phrase is at least partly stated (not one label word
    # beside a number that is about something else).
    worded_spans = agree.spans if agree.score >= PARTLY_AT else []
    if hits:
        verdict, credit = "made", 1.0
        spans = [Span(chosen.start, chosen.end), *worded_spans]
    elif method:
        verdict, credit = "partly", METHOD_CREDIT
        spans = ([Span(chosen.start, chosen.end)] if chosen else []) + worded_spans
    else:
        verdict, credit = "missed", 0.0
        spans = [Span(chosen.start, chosen.end)] if wrong and chosen else []
    if wrong:
        doc.wrong_results.add(criterion.key)
    return _verdict(criterion, verdict, credit, _dedupe(spans)), check


_PERCENT_RE = re.compile(r"(\d+(?:\.\d+)?)\s?(?:%|percent\b|per cent\b)", re.IGNORECASE)


def _percents(text: str) -> set[float]:
    return {float(m.group(1)) for m in _PERCENT_RE.finditer(text)}


@lru_cache(maxsize=4096)
def _criterion_percents(criterion: CriterionSpec) -> frozenset[float]:
    """The percentages a criterion is about ("10% margin"): its label's and phrases'."""
    return frozenset(_percents(" ".join([criterion.label, *criterion.phrases])))


def _belongs_elsewhere(doc: Document, quantity: Quantity, criterion: CriterionSpec,
                       criteria: tuple[CriterionSpec, ...]) -> bool:
    """A number is not judged against this criterion when it is right for another numeric
    criterion of the question ("1,250 x 1.2 = 1,500" is the 20% figure, not a wrong 10% one),
    or when its sentence computes a different percentage than the criterion is about ("20%
    headroom makes it 1,750" is about the 20% criterion, and says nothing about a 10% one)."""
    topic: dict[str, float] | None = None
    for other in criteria:
        if other.key == criterion.key or other.kind != "numeric" or other.expected_value is None:
            continue
        tolerance = other.tolerance_percent if other.tolerance_percent is not None else 5.0
        if within_tolerance(quantity, float(other.expected_value), other.unit, tolerance):
            if topic is None:
                topic = number_topic(doc, quantity, criterion_topics(criteria))
            # Unless its clause is about this criterion more ("for zone loss, 1,500 total").
            if topic.get(other.key, 0.0) >= topic.get(criterion.key, 0.0):
                return True
    wanted = _criterion_percents(criterion)
    theirs = frozenset().union(*(_criterion_percents(c) for c in criteria
                                 if c.kind == "numeric" and c.key != criterion.key))
    if wanted and theirs:
        sentence = _sentence_of(doc, quantity.start)
        if sentence >= 0:
            span = doc.sentences[sentence]
            stated = _percents(doc.text[span.start : span.end])
            # The sentence works out another criterion's percentage, not this one's.
            if stated and not stated & wanted and stated & (theirs - wanted):
                return True
    return False


def _uses_model_operation(doc: Document, model_answer: str) -> bool:
    """The answer sets up a step of the model answer's arithmetic ("divide 50k by 40")."""
    if not doc.operations or not model_answer:
        return False
    wanted = {(round(o.a, 6), o.op, round(o.b, 6)) for o in _model_operations(model_answer)}
    return any((round(o.a, 6), o.op, round(o.b, 6)) in wanted for o in doc.operations)


_MODEL_OPERATIONS: dict[str, list[Operation]] = {}


def _model_operations(model_answer: str) -> list[Operation]:
    if model_answer not in _MODEL_OPERATIONS:
        if len(_MODEL_OPERATIONS) > 2000:
            _MODEL_OPERATIONS.clear()
        _MODEL_OPERATIONS[model_answer] = find_operations(model_answer)
    return _MODEL_OPERATIONS[model_answer]


# --- Which quantity a number is ------------------------------------------------------------
#
# A number earns a numeric criterion only where the answer is talking about that quantity: in
# a clause about the criterion (its phrases' and label's words, more than any other numeric
# criterion's), as the result of the criterion's calculation ("50,000 / 40 = 1,000": the right
# method, whatever the arithmetic), after its operands ("50,000 QPS at 40 each, ~1,300"), or
# as a figure its phrases name ("1,875"). "Add 20% headroom: 1,800" is a headroom figure, not
# the zone-loss count, however close to it; "so 1,800 total" takes its topic from the clause
# before it in the sentence.

_CLAUSE_RE = re.compile(r";|,(?=\s)|\s[-–—]\s|[()]|\b(?:but|whereas|while|although|though)\b",
                        re.IGNORECASE)
# Verbs every numeric label starts with ("Computes 1,250 GPUs"): they name no quantity.
_NUMERIC_VERBS = frozenset(t.key for t in tokenize(
    "compute computes computed calculate calculates estimate estimates gives total totals"))
_TOPICS: dict[tuple[CriterionSpec, ...], dict[str, dict[str, float]]] = {}


def criterion_topics(criteria: tuple[CriterionSpec, ...]) -> dict[str, dict[str, float]]:
    """Per criterion, the words that say the answer is talking about it (from its phrases and
    label), each weighted by 1 / how many of the question's criteria use it. Words for what
    the numeric criteria count ("GPUs") and generic words name no particular quantity."""
    if criteria not in _TOPICS:
        if len(_TOPICS) > 2000:
            _TOPICS.clear()
        units: set[str] = set()
        for criterion in criteria:
            if criterion.kind == "numeric" and criterion.unit:
                canonical = parse_unit(criterion.unit)[0]
                units |= {canonical, unit_parts(canonical)[0]}
        keys: dict[str, set[str]] = {}
        for criterion in criteria:
            if criterion.kind == "pitfall":
                continue
            found: set[str] = set()
            for text in (*criterion.phrases, criterion.label):
                for token in tokenize(text):
                    if not token.content or token.key in GENERIC or token.lower in GENERIC:
                        continue
                    if token.key in _NUMERIC_VERBS or parse_unit(token.lower)[0] in units:
                        continue
                    found.add(token.key)
            keys[criterion.key] = found
        share: dict[str, int] = {}
        for found in keys.values():
            for key in found:
                share[key] = share.get(key, 0) + 1
        _TOPICS[criteria] = {c: {k: 1.0 / share[k] for k in found} for c, found in keys.items()}
    return _TOPICS[criteria]


def _clause_spans(doc: Document, sentence: int) -> list[tuple[int, int]]:
    """The sentence's clauses, found once per sentence (numbers in it ask again)."""
    cached = doc.clauses.get(sentence)
    if cached is None:
        cached = doc.clauses[sentence] = _find_clause_spans(doc, sentence)
    return cached


def _find_clause_spans(doc: Document, sentence: int) -> list[tuple[int, int]]:
    start, end = doc.sentences[sentence].start, doc.sentences[sentence].end
    spans: list[tuple[int, int]] = []
    cut = start
    for match in _CLAUSE_RE.finditer(doc.text, start, end):
        spans.append((cut, match.start()))
        cut = match.end()
    spans.append((cut, end))
    return [span for span in spans if span[1] > span[0]]


def _topic_scores(doc: Document, span: tuple[int, int],
                  topics: dict[str, dict[str, float]]) -> dict[str, float]:
    """Per criterion, how much the clause at `span` talks about it; once per clause."""
    cache_key = (span, id(topics))
    if cache_key not in doc.topic_scores:
        doc.topic_scores[cache_key] = _find_topic_scores(doc, span, topics)
    return doc.topic_scores[cache_key]


def _find_topic_scores(doc: Document, span: tuple[int, int],
                       topics: dict[str, dict[str, float]]) -> dict[str, float]:
    first = bisect_left(doc.token_starts, span[0])
    last = bisect_left(doc.token_starts, span[1])
    present = {t.key for t in doc.tokens[first:last] if t.content and not t.negated}
    # Long keys by their first five letters: a shared long stem is looked up, not scanned for.
    stems: dict[str, list[str]] = {}
    for p in present:
        if len(p) >= 5:
            stems.setdefault(p[:5], []).append(p)
    scores: dict[str, float] = {}
    for key, words in topics.items():
        score = sum(weight for word, weight in words.items()
                    if word in present or (len(word) >= 5 and any(
                        p.startswith(word) or word.startswith(p)
                        for p in stems.get(word[:5], ()))))
        if score:
            scores[key] = score
    return scores


def number_topic(doc: Document, quantity: Quantity,
                 topics: dict[str, dict[str, float]]) -> dict[str, float]:
    """What the answer is talking about where it states a number: the criteria whose words
    its clause uses, or failing that the nearest clause before it in the sentence that uses
    any (then the nearest after it), or failing that the end of the sentence before ("...
    divide peak QPS by per-GPU QPS. That lands at about 20 GPUs."); {} where none does."""
    sentence = _sentence_of(doc, quantity.start)
    if sentence < 0:
        return {}
    spans = _clause_spans(doc, sentence)
    here = next((i for i, (s, e) in enumerate(spans) if s <= quantity.start < e), 0)
    order = [spans[i] for i in (here, *range(here - 1, -1, -1), *range(here + 1, len(spans)))]
    if sentence > 0:
        order += _clause_spans(doc, sentence - 1)[::-1]
    for span in order:
        scores = _topic_scores(doc, span, topics)
        if scores:
            return scores
    return {}


_METHODS: dict[tuple[str, float, float], list[tuple[float, ...]]] = {}


def _model_operands(model_answer: str, expected: float,
                    tolerance: float) -> list[tuple[float, ...]]:
    """The operands of the model answer's calculations that give the criterion's figure."""
    cache_key = (model_answer, expected, tolerance)
    if cache_key not in _METHODS:
        if len(_METHODS) > 2000:
            _METHODS.clear()
        found: list[tuple[float, ...]] = []
        if expected:
            for calculation in find_calculations(model_answer):
                if abs(calculation.stated - expected) <= abs(expected) * tolerance / 100:
                    found.append(tuple(q.written for q in find_quantities(calculation.expression)))
        _METHODS[cache_key] = found
    return _METHODS[cache_key]


def _method_result(doc: Document, quantity: Quantity, criterion: CriterionSpec,
                   model_answer: str) -> bool:
    """The number is what the candidate got from the criterion's calculation: the result of
    arithmetic whose right answer is the criterion's figure, or of the model answer's
    operands, whatever result the candidate wrote."""
    expected = float(criterion.expected_value or 0.0)
    tolerance = criterion.tolerance_percent if criterion.tolerance_percent is not None else 5.0
    operands = _model_operands(model_answer, expected, tolerance)
    for calculation in doc.calculations:
        if calculation.end != quantity.end:
            continue
        if expected and abs(calculation.actual - expected) <= abs(expected) * tolerance / 100:
            return True
        written = tuple(q.written for q in find_quantities(calculation.expression))
        if written and written in operands:
            return True
    if operands:
        # "50,000 QPS at 40 per GPU is about 1,300": the operands stated before it.
        sentence = _sentence_of(doc, quantity.start)
        before = [q.written for q in doc.sentence_numbers.get(sentence, ())
                  if q.end <= quantity.start]
        if any(len(group) >= 2 and all(any(math.isclose(v, w, rel_tol=1e-9) for w in before)
                                       for v in group) for group in operands):
            return True
    return False


def _named_figure(quantity: Quantity, criterion: CriterionSpec) -> bool:
    """The number is one the criterion's phrases state ("1,875", "625")."""
    for phrase in criterion.phrases:
        pattern = _pattern(phrase)
        for wanted, approximate in zip(pattern.numbers, pattern.approximate, strict=True):
            if _same_number(quantity, wanted, APPROXIMATE_PHRASE if approximate else 1e-9):
                return True
    return False


# Units an answer uses for many quantities at once (stage times, shares): a number in one of
# them is only ever judged where its clause is about the criterion.
_SHARED_UNITS = frozenset(["s", "%", "x", "$"])


def _stray_part(doc: Document, quantity: Quantity, criterion: CriterionSpec,
                topics: dict[str, dict[str, float]]) -> bool:
    """One part of a breakdown ("I'd budget network 2ms, features 3ms, model 5ms") is a stage
    figure: it is this criterion's only where its own clause says so in the criterion's own
    words (not a word it shares with others, such as "budget")."""
    sentence = _sentence_of(doc, quantity.start)
    here = doc.sentence_numbers.get(sentence, [])
    if len(here) < 3 or quantity not in breakdown_parts(doc.text, here, quantity.unit):
        return False
    spans = _clause_spans(doc, sentence)
    clause = next(((s, e) for s, e in spans if s <= quantity.start < e), None)
    if clause is None:
        return True
    first = bisect_left(doc.token_starts, clause[0])
    last = bisect_left(doc.token_starts, clause[1])
    words = {t.key for t in doc.tokens[first:last] if t.content and not t.negated}
    own = topics.get(criterion.key, {})
    return not any(weight >= 1.0 and word in words for word, weight in own.items())


def numeric_candidates(doc: Document, criterion: CriterionSpec, model_answer: str = "",
                       criteria: tuple[CriterionSpec, ...] = ()) -> list[Quantity]:
    """Numbers in the criterion's unit (or bare) that the answer states for this quantity:
    the result of its calculation, a figure its phrases name, or a number in a clause about
    it at least as much as about any other numeric criterion."""
    topics = criterion_topics(criteria or (criterion,))
    rivals = [c.key for c in criteria if c.kind == "numeric" and c.key != criterion.key]
    out: list[Quantity] = []
    for quantity in doc.quantities:
        if quantity.unit and not compatible(quantity, criterion.unit):
            continue
        if _method_result(doc, quantity, criterion, model_answer) or _named_figure(
                quantity, criterion):
            out.append(quantity)
            continue
        scores = number_topic(doc, quantity, topics)
        own = scores.get(criterion.key, 0.0)
        if own and own >= max((scores.get(key, 0.0) for key in rivals), default=0.0) - 1e-9 \
                and not _stray_part(doc, quantity, criterion, topics):
            out.append(quantity)
    if not out and criterion.unit and parse_unit(criterion.unit)[0] not in _SHARED_UNITS \
            and not any(
            c.kind == "numeric" and c.key != criterion.key and c.unit
            and parse_unit(c.unit)[0] == parse_unit(criterion.unit)[0] for c in criteria):
        # The only figure the question wants in this unit ("RPS"): a number the answer states
        # in that unit is that figure, whatever words its clause uses ("33,000 RPS").
        out = [q for q in doc.quantities if q.unit and compatible(q, criterion.unit)]
    return out


def _preferred(doc: Document, candidates: list[Quantity], criterion: CriterionSpec,
               model_answer: str, sentence: int) -> Quantity | None:
    """The number to show for a criterion none of the answer's numbers meets: the result of
    the candidate's own calculation for it, else one in the sentence that attempted it, else
    the closest."""
    expected = float(criterion.expected_value or 0.0)
    for pool in ([q for q in candidates if _method_result(doc, q, criterion, model_answer)],
                 [q for q in candidates if _sentence_of(doc, q.start) == sentence >= 0],
                 candidates):
        if pool:
            return _closest(pool, expected, criterion.unit)
    return None


def _sentence_of(doc: Document, offset: int) -> int:
    starts = [sentence.start for sentence in doc.sentences]
    index = bisect_right(starts, offset) - 1
    if index >= 0 and offset < doc.sentences[index].end:
        return index
    return -1


def _closest(candidates: list[Quantity], expected: float, unit: str) -> Quantity | None:
    if not candidates:
        return None
    return min(candidates, key=lambda q: (distance(q, expected, unit), q.start))


def _in_criterion_unit(quantity: Quantity | None, unit: str) -> float | None:
    if quantity is None:
        return None
    if not quantity.unit:
        return quantity.written
    _, factor = parse_unit(unit)
    return quantity.value / factor if factor else quantity.value


def _worked_calculation(doc: Document, criterion: CriterionSpec, model_answer: str) -> str:
    """The correct calculation: the candidate's own expression done right, or the model's."""
    expected = float(criterion.expected_value or 0.0)
    for calculation in [*doc.calculations, *find_calculations(model_answer)]:
        if expected and abs(calculation.actual - expected) <= abs(expected) * 0.02:
            return f"{calculation.expression} = {format_number(expected)} {criterion.unit}".strip()
    return f"≈ {format_number(expected)} {criterion.unit}".strip()


def _verdict(criterion: CriterionSpec, verdict: str, credit: float,
             spans: list[Span]) -> CriterionVerdict:
    return CriterionVerdict(
        key=criterion.key, label=criterion.label, kind=criterion.kind, verdict=verdict,
        weight=criterion.weight, credit=credit, evidence=spans,
        feedback=_criterion_feedback(criterion, verdict),
    )


def _criterion_feedback(criterion: CriterionSpec, verdict: str) -> str:
    if criterion.kind == "pitfall":
        if verdict != "made":
            return ""
        return criterion.feedback_hit or f"Pitfall: {criterion.label}."
    if verdict == "made":
        return criterion.feedback_hit or f"You covered: {criterion.label}."
    miss = criterion.feedback_miss or f"Not covered: {criterion.label}."
    if verdict == "contradicted":
        return f"You dismissed this point ({criterion.label}), but it matters. {miss}"
    if verdict == "partly":
        return f"Only partly covered ({criterion.label}). {miss}"
    return miss


def _dedupe(spans: list[Span]) -> list[Span]:
    seen: set[tuple[int, int]] = set()
    out: list[Span] = []
    for span in spans:
        if (span.start, span.end) not in seen:
            seen.add((span.start, span.end))
            out.append(span)
    return out


# --- Reasoning and arithmetic -----------------------------------------------------------


def reasoning_factor(doc: Document, expected: float = 1.0) -> float:
    """1 for reasoned prose; down to about 0.5 for a bare list of right terms.

    `expected` (0..1) is how much reasoning the question calls for: a one-line reference
    answer ("a function that calls itself") sets no example of reasons to give, so a terse
    answer to it is not charged as a bare list."""
    words = doc.word_count
    if not words:
        return 0.0
    markers = len(doc.markers)
    reasons = min(1.0, markers / max(2.0, words / 30))
    listiness = min(1.0, max(0.0, (0.24 - function_word_ratio(doc.tokens)) / 0.14))
    shortfall = 0.5 * listiness * (1 - reasons) + 0.12 * (1 - listiness) * (1 - reasons)
    return 1.0 - expected * shortfall


def length_factor(doc: Document, enough: float = 12) -> float:
    """Near-empty answers cannot show a point, whatever words they happen to contain.
    `enough` is the word count below which an answer is scaled down."""
    return min(1.0, doc.word_count / enough)


def calculation_feedback(doc: Document) -> list[str]:
    lines = [
        f"You wrote {c.text.strip()}; the correct result is {c.corrected()}."
        for c in doc.calculations if not c.correct
    ]
    for c in doc.implied:
        if c.kind == "derived":
            unit = "%" if c.unit == "%" else "x" if c.unit == "x" else f" {c.unit}" if c.unit \
                else ""
            lines.append(f"You wrote \"{c.text.strip()}\"; from your own figures, "
                         f"{c.expression} gives {format_number(round(c.actual, 1))}{unit}.")
            continue
        if c.kind == "sum":
            unit = f" {c.unit}" if c.unit else ""
            lines.append(f"You wrote {c.expression} = {format_number(round(c.stated, 6))}{unit}; "
                         f"the parts add up to {format_number(round(c.actual, 6))}{unit}.")
            continue
        lines.append(
            f"Check the arithmetic in \"{c.text.strip()}\": the numbers before it do not give "
            f"{format_number(round(c.stated, 6))} (multiplied together they give about "
            f"{format_number(round(c.actual, 3))}).")
    return lines


def _magnitude_note(check: NumberCheck) -> str:
    """" That is about 10x too high": said when a figure is an order of magnitude off."""
    found, expected = check.found_value, check.expected_value
    if not found or not expected or found <= 0 or expected <= 0:
        return ""
    ratio = found / expected
    if 1 / 8 < ratio < 8:
        return ""
    way = "high" if ratio > 1 else "low"
    size = ratio if ratio > 1 else 1 / ratio
    return (f" That is about {format_number(round(size))}x too {way}: check the order of "
            "magnitude.")


def check_feedback(doc: Document, question: QuestionSpec, checks: list[NumberCheck]) -> list[str]:
    """The calculation lines: each numeric criterion the answer got wrong, as the candidate's
    own calculation (or number) beside the correct one, then any other wrong arithmetic."""
    labels = {c.key: c.label for c in question.criteria}
    lines: list[str] = []
    shown: set[tuple[int, int]] = set()
    for check in checks:
        if check.found_value is None or check.within_tolerance or check.span is None:
            continue
        own = next((c for c in doc.calculations if c.end == check.span.end), None)
        if own:
            shown.add((own.start, own.end))
            lines.append(f"You wrote {own.text.strip()}; the correct result is "
                         f"{check.worked_calculation}.")
            continue
        label = labels.get(check.criterion_key, check.criterion_key)
        lines.append(f"You wrote {check.found_text} ({label}); the correct result is "
                     f"{check.worked_calculation} (±{format_number(check.tolerance_percent)}%)."
                     + _magnitude_note(check))
    judged = {check.span.end for check in checks
              if check.span is not None and not check.within_tolerance}
    remaining = Document(doc.text, doc.tokens, doc.sentences, doc.quantities,
                         [c for c in doc.calculations if (c.start, c.end) not in shown],
                         [c for c in doc.implied if c.kind != "derived" or c.end not in judged])
    return calculation_feedback(remaining) + lines


def _sentences_of(doc: Document, spans: list[Span]) -> set[int]:
    return {_sentence_of(doc, span.start) for span in spans}


def wrong_arithmetic(doc: Document) -> int:
    return sum(1 for c in doc.calculations if not c.correct) + len(doc.implied)


def arithmetic_penalty(doc: Document, charged: set[int] | None = None,
                       units: tuple[str, ...] = ()) -> float:
    """Share of the total lost for wrong arithmetic: ARITHMETIC_PENALTY per wrong calculation,
    MAGNITUDE_PENALTY for one off by 10x or more that nothing else charges (a pitfall made in
    its sentence, or a numeric criterion in its result's unit); the two worst count."""
    costs: list[float] = []
    for calculation in [*(c for c in doc.calculations if not c.correct), *doc.implied]:
        stated, actual = calculation.stated, calculation.actual
        ratio = stated / actual if stated > 0 and 0 < actual < math.inf else 0.0
        off = abs(math.log(ratio)) if ratio > 0 else math.inf  # a product too big for a float
        result = next((q for q in doc.quantities if q.end == calculation.end), None)
        sentences = {_sentence_of(doc, calculation.start), _sentence_of(doc, calculation.end - 1)}
        judged = result is not None and any(compatible(result, unit) for unit in units)
        severe = off >= MAGNITUDE_AT and not (sentences & (charged or set())) and not judged
        costs.append(MAGNITUDE_PENALTY if severe else ARITHMETIC_PENALTY)
    return sum(sorted(costs, reverse=True)[:2])


def rubric_total(doc: Document, verdicts: list[CriterionVerdict],
                 pitfall_sentences: set[int] | None = None,
                 wrong_keys: set[str] | None = None,
                 numeric_units: tuple[str, ...] = ()) -> float:
    """0-100 from weighted credit, less pitfalls, rejected points, wrong results and
    wrong arithmetic, scaled by how reasoned and how long the answer is."""
    positive = [v for v in verdicts if v.kind != "pitfall"]
    possible = sum(v.weight for v in positive) or 1.0
    coverage = sum(v.weight * v.credit for v in positive) / possible
    penalty = sum(v.weight for v in verdicts if v.kind == "pitfall" and v.credit)
    # A rejected point already charged as a pitfall (same sentence) is not charged twice.
    charged = pitfall_sentences or set()
    penalty += sum(CONTRADICTION_PENALTY * v.weight for v in positive
                   if v.verdict == "contradicted" and not _sentences_of(doc, v.evidence) & charged)
    wrong_results = wrong_keys if wrong_keys is not None else set()
    penalty += sum(WRONG_RESULT_PENALTY * v.weight for v in positive
                   if v.kind == "numeric" and v.key in wrong_results)
    penalty = penalty / possible + arithmetic_penalty(doc, charged, numeric_units)
    shaped = min(1.0, coverage / 0.85)
    total = 100 * shaped * reasoning_factor(doc) * length_factor(doc) - 100 * penalty
    return round(min(100.0, max(0.0, total)), 1)


# --- Reference-only mode ----------------------------------------------------------------


@dataclass
class PseudoCriterion:
    key: str
    label: str
    keys: tuple[str, ...]
    key_weights: tuple[float, ...]
    negated: tuple[bool, ...]
    weight: float
    start: int
    end: int


_CLAUSE_SPLIT = (";", ": ")


QUESTION_WORD = 0.3  # weight of a reference word the question itself already uses


def reference_criteria(model_answer: str,
                       prompt: str = "") -> tuple[list[PseudoCriterion], list[Quantity]]:
    """Clauses of the model answer as criteria, weighted by the informativeness of their words.

    Words the question already uses ("stack" for "What is a stack?") show that an answer is on
    topic, not that it answers: they count for little, so restating the question earns little.
    """
    prompt_keys = {t.key for t in tokenize(prompt) if t.content}
    tokens = tokenize(model_answer)
    clauses = _clauses(model_answer)
    per_clause: list[list[Token]] = [[] for _ in clauses]
    for token in tokens:
        if not token.content:
            continue
        for index, (start, end) in enumerate(clauses):
            if start <= token.start < end:
                per_clause[index].append(token)
                break
    frequency: dict[str, int] = {}
    for clause_tokens in per_clause:
        for key in {t.key for t in clause_tokens}:
            frequency[key] = frequency.get(key, 0) + 1
    criteria: list[PseudoCriterion] = []
    for index, ((start, end), clause_tokens) in enumerate(zip(clauses, per_clause, strict=True)):
        seen: dict[str, Token] = {}
        for token in clause_tokens:
            seen.setdefault(token.key, token)
        if len(seen) < 2:
            continue
        weights = tuple(_informativeness(k, t, frequency)
                        * (QUESTION_WORD if k in prompt_keys else 1.0) for k, t in seen.items())
        criteria.append(PseudoCriterion(
            key=f"ref-{index + 1}", label=_shorten(model_answer[start:end].strip()),
            keys=tuple(seen), key_weights=weights,
            negated=tuple(t.negated for t in seen.values()),
            weight=math.sqrt(sum(weights)), start=start, end=end,
        ))
    # Digits only: "one A100" or "three zones" in a reference names things, it sets no figure.
    numbers = [q for q in find_quantities(model_answer, spelled=False)
               if q.unit and q.unit != "x"]
    return criteria, numbers


def _informativeness(key: str, token: Token, frequency: dict[str, int]) -> float:
    if key in GENERIC or token.lower in GENERIC:
        return 0.25
    # Words repeated across many clauses frame the answer rather than make a point.
    return 1.0 / (1.0 + math.log(frequency.get(key, 1)))


def _clauses(text: str) -> list[tuple[int, int]]:
    spans: list[tuple[int, int]] = []
    for sentence in split_sentences(text):
        start = sentence.start
        body = text[sentence.start : sentence.end]
        cut = 0
        for position in range(len(body)):
            if any(body.startswith(sep, position) for sep in _CLAUSE_SPLIT) and position - cut > 25:
                spans.append((start + cut, start + position))
                cut = position + 1
        spans.append((start + cut, sentence.end))
    return spans


def _shorten(text: str, limit: int = 110) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1].rsplit(" ", 1)[0] + "…"


def judge_pseudo(doc: Document, criterion: PseudoCriterion) -> tuple[float, list[Span], float]:
    """Credit 0..1 for one reference clause, evidence spans, and the share the answer negated."""
    total = sum(criterion.key_weights)
    found_any: dict[str, Token] = {}
    opposed = 0.0
    per_sentence: dict[int, dict[str, float]] = {}
    for key, weight, negated in zip(criterion.keys, criterion.key_weights, criterion.negated,
                                    strict=True):
        occurrences = _occurrences(doc, key)
        agreeing = [t for t in occurrences if t.negated == negated]
        if occurrences and not agreeing:
            opposed += weight
        if agreeing:
            found_any[key] = agreeing[0]
        for token in agreeing:
            per_sentence.setdefault(token.sentence, {})[key] = weight
    overall = sum(w for k, w in zip(criterion.keys, criterion.key_weights, strict=True)
                  if k in found_any) / total
    local = 0.0
    for sentence in sorted(per_sentence):
        window = dict(per_sentence[sentence])
        window.update(per_sentence.get(sentence + 1, {}))
        local = max(local, sum(window.values()) / total)
    raw = 0.35 * overall + 0.65 * local
    credit = min(1.0, max(0.0, (raw - 0.12) / 0.5))
    spans = [Span(t.start, t.end) for t in sorted(found_any.values(), key=lambda t: t.start)]
    return credit, spans, opposed / total


def number_coverage(doc: Document, numbers: list[Quantity]) -> float:
    """Share of the model answer's numbers (with units) that the answer states as well."""
    if not numbers:
        return 0.0
    distinct: dict[tuple[str, float], Quantity] = {}
    for quantity in numbers:
        distinct.setdefault((quantity.unit, round(quantity.value, 9)), quantity)
    hits = 0
    for quantity in distinct.values():
        if any(q.unit == quantity.unit and q.low * 0.9 <= quantity.value <= q.high * 1.1
               for q in doc.quantities):
            hits += 1
    return hits / len(distinct)


# --- The engine -------------------------------------------------------------------------


@register
class RubricEngine:
    name = "rubric"
    version = "1.6"

    def score(self, question: QuestionSpec, answer: str) -> ScoreOutcome:
        doc = analyse(answer or "")
        if question.reference_only:
            return self._score_reference(question, doc)
        return self._score_rubric(question, doc)

    # Rubric mode

    def _score_rubric(self, question: QuestionSpec, doc: Document) -> ScoreOutcome:
        by_key: dict[str, CriterionVerdict] = {}
        checks: list[NumberCheck] = []
        tainted: set[int] = set()
        charged: set[int] = set()  # sentences a committed pitfall is charged for
        given = question_numbers(question)
        alternatives = question_alternatives(question.prompt)
        # Pitfalls first: a point made in the same sentence as a mistake earns nothing.
        for criterion in question.criteria:
            if criterion.kind == "pitfall":
                by_key[criterion.key], sentences = judge_pitfall(doc, criterion)
                tainted |= sentences
                if by_key[criterion.key].verdict == "made":
                    charged |= {_sentence_of(doc, span.start)
                                for span in by_key[criterion.key].evidence}
        for criterion in question.criteria:
            if criterion.kind == "numeric":
                by_key[criterion.key], check = judge_numeric(
                    doc, criterion, question.model_answer, given, question.criteria)
                checks.append(check)
            elif criterion.kind == "concept":
                by_key[criterion.key] = judge_concept(doc, criterion, frozenset(tainted),
                                                      alternatives, question.criteria)
        verdicts = [by_key[c.key] for c in question.criteria if c.key in by_key]
        units = tuple(c.unit for c in question.criteria if c.kind == "numeric" and c.unit)
        total = rubric_total(doc, verdicts, tainted | charged, doc.wrong_results, units)
        feedback = self._rubric_feedback(question, doc, verdicts, checks, total)
        rating = rubric_rating(total, verdicts, checks, wrong_arithmetic(doc))
        return self._outcome(question, total, verdicts, checks, feedback, rating)

    def _rubric_feedback(self, question: QuestionSpec, doc: Document,
                         verdicts: list[CriterionVerdict], checks: list[NumberCheck],
                         total: float) -> dict:
        strengths = [v.feedback for v in verdicts
                     if v.kind != "pitfall" and v.verdict == "made" and v.feedback]
        misses = [v.feedback for v in verdicts
                  if (v.kind == "pitfall" and v.verdict == "made")
                  or (v.kind != "pitfall" and v.verdict != "made")]
        calculations = check_feedback(doc, question, checks)
        missed = sorted(
            (v for v in verdicts if v.kind != "pitfall" and v.verdict != "made"),
            key=lambda v: (-v.weight * (1 - v.credit), verdicts.index(v)))
        focus = missed[0] if missed else None
        spec = next((c for c in question.criteria if focus and c.key == focus.key), None)
        made_keys = {v.key for v in verdicts if v.kind != "pitfall" and v.verdict == "made"}
        pushback = _pick_pushback(question.pushback, spec, tuple(
            c for c in question.criteria if c.key in made_keys)) if spec else None
        made = sum(1 for v in verdicts if v.kind != "pitfall" and v.verdict == "made")
        count = sum(1 for v in verdicts if v.kind != "pitfall")
        summary = f"Made {made} of {count} points; score {total:.0f}/100."
        if focus:
            summary += f" Most important gap: {focus.label}."
        return {"strengths": strengths, "misses": misses, "pushback": pushback,
                "calculations": calculations, "summary": summary}

    # Reference-only mode

    def _score_reference(self, question: QuestionSpec, doc: Document) -> ScoreOutcome:
        pseudo, numbers = reference_criteria(question.model_answer, question.prompt)
        reference_words = sum(1 for t in tokenize(question.model_answer)
                              if not t.lower[0].isdigit())
        verdicts: list[CriterionVerdict] = []
        weighted = 0.0
        opposed = 0.0
        possible = sum(p.weight for p in pseudo) or 1.0
        for criterion in pseudo:
            credit, spans, negated_share = judge_pseudo(doc, criterion)
            weighted += criterion.weight * credit
            opposed += criterion.weight * negated_share
            verdict = ("made" if credit >= 0.7 else "partly" if credit >= 0.3
                       else "contradicted" if negated_share >= 0.3 else "missed")
            verdicts.append(CriterionVerdict(
                key=criterion.key, label=criterion.label, kind="concept", verdict=verdict,
                weight=round(criterion.weight, 3), credit=round(credit, 3),
                evidence=spans if verdict in {"made", "partly"} else [],
                feedback=_reference_feedback(criterion.label, verdict),
            ))
        concept = weighted / possible
        numeric = number_coverage(doc, numbers)
        coverage = 0.8 * concept + 0.2 * numeric if numbers else concept
        wrong = wrong_arithmetic(doc)
        coverage *= 0.6 ** wrong  # a wrong result of its own arithmetic costs the result credit
        coverage -= 0.5 * opposed / possible
        shaped = min(1.0, max(0.0, coverage) / 0.6)
        # A short reference sets the bar for length and reasoning: a one-line answer to a
        # one-line reference is complete, not near-empty or a bare list.
        expected = min(1.0, reference_words / REASONED_REFERENCE_WORDS)
        enough = min(12.0, max(2.0, reference_words * SHORT_ANSWER_SHARE))
        total = 100 * shaped * reasoning_factor(doc, expected) * length_factor(doc, enough)
        share = semantic_share(reference_words)
        if share > 0 and embeddings.available():
            recall = embeddings.soft_recall(
                _sentence_texts(question.model_answer), _affirmed_sentences(doc, pseudo),
                question.prompt, QUESTION_WORD, STOPWORDS)
            semantic = min(1.0, max(0.0, (recall - SEMANTIC_FLOOR)
                                    / (SEMANTIC_FULL - SEMANTIC_FLOOR)))
            semantic -= 0.5 * opposed / possible  # a rejected point costs as it does lexically
            total = (1 - share) * total + share * 100 * semantic
        total = round(min(100.0, max(0.0, total)), 1)
        gaps = sorted((v for v in verdicts if v.verdict != "made"),
                      key=lambda v: (-(v.weight * (1 - v.credit)), v.key))
        focus = gaps[0] if gaps else None
        pushback = _pick_pushback(question.pushback, CriterionSpec(
            key=focus.key, label=focus.label), tuple(
            CriterionSpec(key=v.key, label=v.label) for v in verdicts
            if v.verdict == "made"), ask=False) if focus else None
        covered = sum(v.verdict == "made" for v in verdicts)
        feedback = {
            "strengths": [v.feedback for v in verdicts if v.verdict == "made"],
            "misses": [v.feedback for v in gaps[:4]],
            "pushback": pushback,
            "calculations": calculation_feedback(doc),
            "summary": (f"Scored against the model answer: covered {covered} of "
                        f"{len(verdicts)} of its points; score {total:.0f}/100."),
        }
        return self._outcome(question, total, verdicts, [], feedback)

    def _outcome(self, question: QuestionSpec, total: float, verdicts: list[CriterionVerdict],
                 checks: list[NumberCheck], feedback: dict,
                 rating: int | None = None) -> ScoreOutcome:
        return ScoreOutcome(
            total=total, rating=rating if rating is not None else rating_for_total(total),
            criteria=verdicts, numbers=checks,
            feedback=feedback, engine=self.name,
            # Short-reference scores differ without the embedding model: say which ran.
            engine_version=f"{self.version}+minilm" if embeddings.available() else self.version,
            rubric_version=question.rubric_version,
        )


def semantic_share(reference_words: int) -> float:
    """The embedding score's share of a reference-only total: SEMANTIC_SHARE for a reference
    of one or two sentences, fading to nothing at REASONED_REFERENCE_WORDS words."""
    expected = min(1.0, reference_words / REASONED_REFERENCE_WORDS)
    return SEMANTIC_SHARE * min(1.0, 2 * (1.0 - expected))


def _affirmed_sentences(doc: Document, pseudo: list[PseudoCriterion]) -> list[str]:
    """The answer's sentences with the words it rejects blanked out ("I wouldn't keep
    headroom" keeps "I wouldn't"): an embedding reads a rejected point as a point made.
    Words the reference itself rejects stay, so agreeing with its "not an average" counts."""
    rejected_by_reference = {key for p in pseudo
                             for key, negated in zip(p.keys, p.negated, strict=True) if negated}
    chars = list(doc.text)
    for token in doc.tokens:
        if token.negated and token.key not in rejected_by_reference:
            chars[token.start : token.end] = " " * (token.end - token.start)
    text = "".join(chars)
    return [text[s.start : s.end].strip() for s in doc.sentences if text[s.start : s.end].strip()]


def _sentence_texts(text: str) -> list[str]:
    return [text[s.start : s.end].strip() for s in split_sentences(text)
            if text[s.start : s.end].strip()]


def _reference_feedback(label: str, verdict: str) -> str:
    if verdict == "made":
        return f"Covered: {label}"
    if verdict == "contradicted":
        return f"You dismissed a point the model answer makes: {label}"
    if verdict == "partly":
        return f"Partly covered: {label}"
    return f"Not covered: {label}"


@lru_cache(maxsize=4096)
def _pushback_words(criterion: CriterionSpec) -> frozenset[str]:
    """The criterion's own words; they depend on the question only, so once per spec."""
    return frozenset(t.key for t in tokenize(" ".join(
        [criterion.label, criterion.checks, criterion.feedback_miss, *criterion.phrases]))
        if t.content and t.key not in GENERIC)


@lru_cache(maxsize=4096)
def _line_words(line: str) -> frozenset[str]:
    return frozenset(t.key for t in tokenize(line) if t.content and t.key not in GENERIC)


def _pick_pushback(lines: tuple[str, ...], criterion: CriterionSpec,
                   made: tuple[CriterionSpec, ...] = (), ask: bool = True) -> str | None:
    """The pushback line that shares most words with the criterion it should probe, passing
    over lines about a point the answer already made (those share more words with a made
    criterion than with this one). With no line left that fits, the criterion's own advice
    as a question, not an unrelated line (with `ask` False, the first line)."""
    wanted = _pushback_words(criterion)
    made_words = [_pushback_words(c) for c in made]
    scored: list[tuple[int, int, str]] = []
    for i, line in enumerate(lines):
        words = _line_words(line)
        overlap = len(wanted & words)
        if overlap and all(len(other & words) <= overlap for other in made_words):
            scored.append((overlap, -i, line))
    if scored:
        return max(scored)[2]
    question = as_question(criterion) if ask else ""
    return question or (lines[0] if lines else None)


# Openings of advice that read as an instruction ("State the stopping rule."), which
# "Could you ...?" turns into a question.
_IMPERATIVE_NOT = frozenset(
    ["a", "an", "the", "if", "in", "on", "at", "with", "before", "after", "every", "each",
     "this", "that", "these", "those", "it", "its", "your", "you", "we", "our", "they",
     "there", "here", "controls", "deploys", "gpus", "cpu", "errors", "error", "also", "only",
     "when", "while", "without", "for", "from", "to", "by", "as", "one", "two", "three"])


def as_question(criterion: CriterionSpec) -> str:
    """The criterion's advice (feedback_miss) as a question: "State the stopping rule. Take
    ..." -> "Could you state the stopping rule?"; advice that does not open with an instruction
    -> "How would you <label>?" from a label that opens with a verb ("Picks ..."), else
    "What about <label>?"."""
    advice = (criterion.feedback_miss or "").strip()
    first = re.split(r"(?<=[.!?])\s+|:\s|;\s", advice, maxsplit=1)[0].strip().rstrip(".!?:;,")
    word = first.split(" ", 1)[0] if first else ""
    if word and word.isalpha() and word[0].isupper() and word[1:].islower() and (
            word.lower() not in _IMPERATIVE_NOT and not word.lower().endswith("ed")
            and (not word.endswith("s") or word.endswith("ss"))):
        return f"Could you {word.lower()}{first[len(word):]}?"
    label = criterion.label.strip().rstrip(".")
    head, _, rest = label.partition(" ")
    if head.isalpha() and head[1:].islower() and head.endswith("s") and not head.endswith("ss") \
            and rest and not rest[0].isupper():
        verb = head[:-2] if head.endswith(("shes", "ches", "sses", "xes")) else head[:-1]
        return f"How would you {verb.lower()} {rest}?"
    if label:
        return f"What about {label[0].lower() + label[1:]}?"
    return ""


def word_overlap(reference: str, answer: str) -> float:
    """Baseline: Jaccard similarity of stemmed content words."""
    a = {t.key for t in tokenize(reference) if t.content}
    b = {t.key for t in tokenize(answer) if t.content}
    return len(a & b) / len(a | b) if a | b else 0.0
