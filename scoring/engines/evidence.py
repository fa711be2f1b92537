"""Phrases and where an answer states them: a criterion's phrases as patterns, matched within one
clause and with the polarity of their clause (a point waved away opposes), and the credit the
matches add up to. The thresholds shared by the judges live here.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from functools import lru_cache

from scoring.engines.base import (
    CriterionSpec,
    Span,
)
from scoring.engines.clauses import Document, _negated_at, _occurrences, _sentence_of
from scoring.engines.numbers import (
    Quantity,
    find_quantities,
    unit_parts,
)
from scoring.engines.text import (
    _ALTERNATIVE_TO,
    GENERIC,
    Token,
    tokenize,
)

MADE_AT = 0.75  # share of a phrase's words that must appear together for "made"


PARTLY_AT = 0.45


GENERIC_HIT = 0.6  # a one-word phrase, against a specific phrase or a number


BARE_HIT = 0.6  # a phrase in a sentence with no reasons, numbers or prose around it


BARE_LIST_CAP = 0.6  # a point only ever named as a bare list item is at most partly made


REASONED_REFERENCE_WORDS = 80  # a reference this long sets full expectations of reasoning


_NEGATORS = frozenset(
    [
        "not", "no", "never", "without", "skip", "ignore", "dont", "don't", "wouldnt",
        "wouldn't", "isnt", "isn't", "cant", "can't", "wont", "won't", "doesnt", "doesn't",
        "didnt", "didn't", "shouldnt", "shouldn't", "overkill", "unnecessary", "negligible",
        "negligable", "irrelevant", "pointless", "redundant", "overblown"
    ]
)


@dataclass(frozen=True)
class Pattern:
    keys: tuple[str, ...]
    weights: tuple[float, ...]
    negative: bool  # the phrase states a rejection ("no bake window")
    source: str
    numbers: tuple[Quantity, ...] = ()  # numbers the phrase states ("40 QPS"): all must appear
    approximate: tuple[bool, ...] = ()  # per number: the phrase says "~15ms" or "about 15ms"
    sequence: tuple[str, ...] = ()  # "room for", "audio-in": one content word, matched verbatim
    # A rejection's subject, said before its negator ("GPU" in "GPU is never the bottleneck"):
    # the negation scopes forward, so these words are not negated where the phrase is said.
    subject: frozenset[str] = frozenset()
    # A phrase the bank marks "partly: ..." shows only part of the point ("partly: p99 latency"
    # for a canary judged on ETA accuracy as well as latency): on its own it makes the point
    # partly, never fully.
    partial: bool = False

    @property
    def specific(self) -> bool:
        """More than one word or a number: a hit is evidence on its own. A rejection counts
        its rejecting word ("hop is negligible", "no bake")."""
        return len(self.keys) > 1 or bool(self.numbers) or bool(self.sequence) or (
            self.negative and len(self.keys) == 1 and len(self.source.split()) > 1)

    @property
    def usable(self) -> bool:
        return bool(self.keys or self.numbers)


PARTLY_PREFIX_RE = re.compile(r"\s*partly\s*:\s*", re.IGNORECASE)
PARTIAL_PHRASE_CAP = 0.6  # a point shown only by phrases marked "partly:" is at most partly made


def make_pattern(phrase: str, *, label: bool = False) -> Pattern:
    """A phrase as words (and numbers) to find together. A label ("Asks for the per-GPU peak
    instead of the mean") describes the point rather than saying it, so the rejections its
    words carry are not read as the phrase's own."""
    marked = PARTLY_PREFIX_RE.match(phrase)
    if marked:
        return replace(make_pattern(phrase[marked.end():], label=label), partial=True)
    tokens = tokenize(phrase)
    # "instead of going straight to 100" names what the point rejects, as "no bake" does.
    rejects_alternative = (len(tokens) > 1
                           and _ALTERNATIVE_TO.get(tokens[0].lower) == tokens[1].lower)
    negative = rejects_alternative or any(t.lower in _NEGATORS for t in tokens)
    first_negator = next((i for i, t in enumerate(tokens) if t.lower in _NEGATORS), None)
    said = tokens[2 if rejects_alternative else 0:]
    heard = not negative and not label and any(t.negated for t in tokens)
    if heard:
        # "says nothing about the tail", "200us is nothing": a rejection in words the
        # negation marking hears. The rejected words are said negated, the others (the
        # rejecting word itself, "nothing") as they are.
        negative = True
    keys: list[str] = []
    weights: list[float] = []
    for token in said:
        if token.content and token.lower not in _NEGATORS and token.key not in keys:
            keys.append(token.key)
            weights.append(0.5 if token.key in GENERIC or token.lower in GENERIC else 1.0)
    if heard:
        subject = frozenset(t.key for t in tokens if t.key in keys and not t.negated)
    else:
        subject = frozenset(t.key for t in tokens[:first_negator] if t.key in keys) \
            if negative and first_negator else frozenset()
    numbers = tuple(find_quantities(phrase, spelled=False))  # "two zones" stays words
    approximate = tuple(bool(_APPROXIMATE_RE.search(phrase[: q.start])) for q in numbers)
    words = [t for t in tokens if not t.lower[0].isdigit()]
    sequence = (tuple(t.key for t in words)
                if len(keys) == 1 and len(words) > 1 and not numbers and not negative else ())
    return Pattern(tuple(keys), tuple(weights), negative, phrase, numbers, approximate, sequence,
                   subject)


# A negator earlier in the same clause: the negation reaches the word from before it.
_NEGATED_FROM_BEFORE_RE = re.compile(r"(?:\b(?:not|never|no|without)|n't)\b[^.;:!?]*$",
                                     re.IGNORECASE)
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
            # A rejection's subject is said before its negator ("hop is negligible"), so it
            # agrees negated or not; negated from before ("I'd not worry whether it's peak or
            # average" against "peak, not average"), it opposes.
            if key in pattern.subject and len(pattern.subject) < len(pattern.keys):
                # A contrast ("p95 not p99") is said with its first side standing: "p95 vs
                # p99 is splitting hairs" waves both away.
                said = not token.negated
            elif key in pattern.subject:
                said = not token.negated or _NEGATED_FROM_BEFORE_RE.search(
                    doc.text, max(0, token.start - 60), token.start) is None
            else:
                said = token.negated == pattern.negative
            bucket = agree if said else oppose
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
_GLUED_NUMBER_RE = re.compile(r"\d-([a-z]+)", re.IGNORECASE)
_GLUED_AFTER_RE = re.compile(r"-([a-z]+)", re.IGNORECASE)


def _glued_elsewhere(text: str, found: Quantity, word: str) -> bool:
    """Whether a number found for a phrase's "8-bit" counts something else: it has a unit of
    its own, or another word glued to it ("8-GPU servers")."""
    if found.unit:
        return True
    after = _GLUED_AFTER_RE.match(text, found.end)
    return bool(after and after.group(1).lower() != word.lower())


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
        # A number the phrase glues to its own word ("8-bit") is not one counting something
        # else ("8-GPU servers").
        glued = _GLUED_NUMBER_RE.search(pattern.source) if wanted.unit == "" else None
        hit = next((q for q in doc.sentence_numbers.get(sentence, ())
                    if _same_number(q, wanted, slack)
                    and not (glued and _glued_elsewhere(doc.text, q, glued.group(1)))
                    and _negated_at(doc, q.start) == (pattern.negative != opposite)), None)
        if hit is None:
            return []
        spans.append(Span(hit.start, hit.end))
    return spans


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
            if found and number_spans:
                number_spans = _nearest_numbers(doc, sentence, number_spans, found)
            spans = sorted({(t.start, t.end) for t in found.values()}
                           | {(n.start, n.end) for n in number_spans})
            best = Match(score, [Span(s, e) for s, e in spans], sentence)
    return best


def _nearest_numbers(doc: Document, sentence: int, spans: list[Span],
                     found: dict[str, Token]) -> list[Span]:
    """Each number as said nearest the phrase's words: "50k / 40 gets you into the 1,250 range,
    ... so I'd sign off on 1,250" signs off on the second 1,250."""
    middle = sum(t.start for t in found.values()) / len(found)
    nearest: list[Span] = []
    for span in spans:
        written = doc.text[span.start : span.end]
        negated = _negated_at(doc, span.start)
        same = [q for q in doc.sentence_numbers.get(sentence, ())
                if doc.text[q.start : q.end] == written and _negated_at(doc, q.start) == negated]
        closest = min(same, key=lambda q: abs(q.start - middle), default=None)
        nearest.append(Span(closest.start, closest.end) if closest else span)
    return nearest


@lru_cache(maxsize=4096)
def _criterion_patterns(criterion: CriterionSpec) -> tuple[tuple[Pattern, float], ...]:
    """Phrases at full strength; the label as a slightly weaker extra phrase."""
    patterns = [(_pattern(p), 1.0) for p in criterion.phrases if p.strip()]
    if criterion.label and criterion.kind != "pitfall":
        patterns.append((_pattern(criterion.label, label=True), 0.9))
    return tuple((p, factor) for p, factor in patterns if p.usable)


_PATTERNS: dict[tuple[str, bool], Pattern] = {}


def _pattern(phrase: str, *, label: bool = False) -> Pattern:
    pattern = _PATTERNS.get((phrase, label))
    if pattern is None:
        if len(_PATTERNS) > 20000:
            _PATTERNS.clear()
        pattern = _PATTERNS[(phrase, label)] = make_pattern(phrase, label=label)
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


@lru_cache(maxsize=4096)
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


# A traffic ramp written out rather than named: "go to 25%, then 100%", "10%, then 50, then
# everyone", "I'd go 5, 25, 100". Increasing shares after a verb of moving traffic.
_RAMP_PHRASES = frozenset(["ramp", "ramp in steps", "gradual ramp", "stepwise"])
_STEP = r"(?:\d{1,3}(?:\.\d+)?\s*%?|everyone|everybody|full|all\s+traffic|all)"
_RAMP_RE = re.compile(
    r"\b(?:go|goes|going|move|moving|bump|bumping|ramp|ramping|step|stepping|shift|shifting|"
    r"increase|increasing|widen|widening|promote|promoting|roll|rolling)\b[^.;:!?\d]{0,20}?"
    r"(?P<steps>\d{1,2}(?:\.\d+)?\s*%?(?:\s*(?:,|->|→|/|and)?\s*(?:then\s+|and\s+then\s+)?"
    + _STEP + r"){1,5})", re.IGNORECASE)


def _written_ramp(doc: Document) -> Match:
    """The first ramp of two or more increasing steps the answer writes out."""
    for found in _RAMP_RE.finditer(doc.text):
        steps = re.findall(r"\d{1,3}(?:\.\d+)?|everyone|everybody|full|all", found.group("steps"),
                           re.IGNORECASE)
        values = [100.0 if not s[0].isdigit() else float(s) for s in steps]
        if len(values) >= 2 and all(b > a for a, b in zip(values, values[1:], strict=False)) \
                and values[-1] <= 100:
            start, end = found.start("steps"), found.end("steps")
            return Match(1.0, [Span(start, end)], _sentence_of(doc, start))
    return Match()


# An alert written out with its threshold and window rather than named as windowed: "page when
# 5xx goes over 1% for 5 minutes", "p99 above 300ms over 10 min".
_WINDOW_PHRASES = frozenset(["over a window", "rolling window", "for a window", "sustained",
                             "for 10 minutes", "over five minutes", "for five minutes"])
_WINDOWED_RE = re.compile(
    r"\b(?:over|above|below|under|exceeds?|exceeding|crosses|past|beyond|>|<)\s*[~≈]?\s*"
    r"\d[\d.,]*\s*(?:%|ms|s|x|gb|percent)?[^.;:!?\d]{0,40}?\b(?:for|over|across|during)\s+"
    r"(?:a\s+|the\s+)?(?:\d{1,3}|two|three|five|ten|fifteen|thirty|few|several|couple(?:\s+of)?)"
    r"[- ]?(?:seconds?|secs?|"
    r"minutes?|mins?|m|hours?|hrs?|h)\b|"
    # "Keep 80 but only alert if it stays above for a few minutes": the threshold named before,
    # held for a window.
    r"\b(?:stays?|staying|remains?|remaining|holds?|keeps?\s+(?:being|running))\s+(?:above|over|"
    r"below|under|high|elevated)\b[^.;:!?]{0,30}?\b(?:for|over|across)\s+(?:a\s+|the\s+)?"
    r"(?:\d{1,3}|two|three|five|ten|fifteen|thirty|few|several|couple(?:\s+of)?)[- ]?"
    r"(?:seconds?|secs?|minutes?|mins?|hours?|hrs?)\b", re.IGNORECASE)


def _written_window(doc: Document) -> Match:
    """The first threshold held for a stated window that the answer does not reject."""
    for found in _WINDOWED_RE.finditer(doc.text):
        if not _negated_at(doc, found.start()):
            return Match(1.0, [Span(found.start(), found.end())], _sentence_of(doc, found.start()))
    return Match()


# Points written in their own shape rather than named: the phrases that call for the shape,
# and where the answer writes it.
_WrittenForm = tuple[frozenset[str], Callable[[Document], Match], str]
_WRITTEN_FORMS: tuple[_WrittenForm, ...] = ((_RAMP_PHRASES, _written_ramp, "ramp"),
                                             (_WINDOW_PHRASES, _written_window, "over a window"))


@lru_cache(maxsize=4096)
def _written_forms(criterion: CriterionSpec) -> tuple[_WrittenForm, ...]:
    """The written shapes this criterion's phrases call for (once per criterion, not per
    answer)."""
    phrases = {p.strip().lower() for p in criterion.phrases}
    return tuple(form for form in _WRITTEN_FORMS if form[0] & phrases)


def collect_evidence(doc: Document, criterion: CriterionSpec,
                     tainted: frozenset[int] = frozenset(),
                     shared: frozenset[str] | None = None,
                     echoes: frozenset[str] = frozenset()) -> Evidence:
    """All phrase matches for a criterion, ignoring sentences that make a pitfall's mistake
    and (given the other criteria's words) label or part-phrase matches made only of words
    shared with them."""
    hits: list[tuple[Pattern, Match]] = []
    best_agree, best_oppose = Match(), Match()
    for pattern, factor in _criterion_patterns(criterion):
        agree, oppose = match_pattern(doc, pattern)
        if agree.sentence in tainted:
            agree = Match()
        if not pattern.specific and set(pattern.keys) <= echoes:
            agree = Match()  # one word the question itself says ("rollback") shows nothing
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
    for calling, find, name in _written_forms(criterion):
        if any(p.source.strip().lower() in calling for p, _ in hits):
            continue
        written = find(doc)
        if written.spans and written.sentence not in tainted:
            hits.append((_pattern(name), written))
            best_agree = written if written.score > best_agree.score else best_agree
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
    if evidence.hits and any(pattern.partial for pattern, _ in evidence.hits) and all(
            pattern.partial or match.score < MADE_AT for pattern, match in evidence.hits):
        # Shown only by phrases marked "partly:" and other phrases' fragments ("p99 latency"
        # and "latency and errors are what I'd judge on", the ETA accuracy kept out): partly.
        credit = min(credit, PARTIAL_PHRASE_CAP)
    return credit
