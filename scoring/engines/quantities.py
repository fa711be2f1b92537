"""Numeric criteria: which of the answer's numbers is the quantity a criterion asks for (its
clause, its calculation, its own percentage), and whether it is right.
"""

from __future__ import annotations

import math
import re
from bisect import bisect_left
from functools import lru_cache

from scoring.engines.base import (
    CriterionSpec,
    CriterionVerdict,
    NumberCheck,
    QuestionSpec,
    Span,
)
from scoring.engines.clauses import Document, _clause_spans, _dedupe, _sentence_of, tokens_in
from scoring.engines.evidence import (
    APPROXIMATE_PHRASE,
    MADE_AT,
    PARTLY_AT,
    _pattern,
    _same_number,
    collect_evidence,
)
from scoring.engines.numbers import (
    Calculation,
    Operation,
    Quantity,
    breakdown_parts,
    compatible,
    distance,
    find_calculations,
    find_operations,
    find_quantities,
    format_number,
    parse_unit,
    unit_parts,
    within_tolerance,
)
from scoring.engines.text import (
    GENERIC,
    tokenize,
)
from scoring.engines.verdicts import _verdict

WRONG_RESULT_AT = math.log(3)  # a stated result more than 3x off is wrong, not imprecise


METHOD_CREDIT = 0.4  # numeric criterion: right method, wrong or missing result


def question_numbers(question: QuestionSpec) -> list[Quantity]:
    """The numbers the candidate was given: those in the prompt and the scenario."""
    text = "\n".join(part for part in (question.prompt, question.scenario) if part)
    if text not in _GIVEN:
        if len(_GIVEN) > 2000:
            _GIVEN.clear()
        _GIVEN[text] = find_quantities(text)
    return _GIVEN[text]


_GIVEN: dict[str, list[Quantity]] = {}


def misquoted(doc: Document, given: list[Quantity]) -> list[Calculation]:
    """A figure the question gave, repeated with the wrong unit: "the build is around 45
    seconds" where the interviewer said 45 minutes. The same number, a unit of the same kind,
    a different scale: the candidate misread the setup, and every conclusion built on it."""
    found: list[Calculation] = []
    for quantity in doc.quantities:
        if not quantity.unit or quantity.is_range or quantity.unit in {"%", "x"}:
            continue
        for figure in given:
            if figure.unit != quantity.unit or figure.is_range or not figure.written:
                continue
            if not math.isclose(quantity.written, figure.written, rel_tol=1e-9):
                continue
            if math.isclose(quantity.value, figure.value, rel_tol=0.01):
                break  # the figure itself
            if any(math.isclose(quantity.value, other.value, rel_tol=0.01) for other in given):
                break  # another figure the question gave
            found.append(Calculation(
                text=quantity.text, start=quantity.start, end=quantity.end,
                stated=quantity.value, actual=figure.value, kind="misquote",
                expression=figure.text.strip(), unit=quantity.unit))
            break
    return found


@lru_cache(maxsize=4096)
def _result_words(criterion: CriterionSpec) -> frozenset[str]:
    """The words of a numeric criterion's worded phrases ("saves", "remaining margin"), less
    its unit's: "per hour" names no result where the given "0.5% an hour" is repeated."""
    unit_words = {t.key for t in tokenize(criterion.unit or "")}
    words: set[str] = set()
    for phrase in criterion.phrases:
        if any(ch.isdigit() for ch in phrase):
            continue
        words |= {t.key for t in tokenize(phrase)
                  if t.content and t.key not in GENERIC and t.lower not in GENERIC}
    return frozenset(words - unit_words)


# A given figure that opens a conversion: what comes after "is" is what the candidate worked out.
_PREMISE_RE = re.compile(r"\s*(?:[\w-]+\s+){0,3}?(?:is|=|means|equals|gives|works\s+out\s+to|"
                         r"comes\s+to)\s+(?:about\s+|around\s+|roughly\s+|~\s*)?[~≈]?\d",
                         re.IGNORECASE)


# A given figure named with a determiner ("the 25ms", "that 45ms") is referred to, not stated.
_REFERRED_TO_RE = re.compile(r"\b(?:the|that|this|those|these|our|their|its)\s+(?:~\s*)?$",
                             re.IGNORECASE)


@lru_cache(maxsize=1024)
def _quantity_words(criterion: CriterionSpec) -> frozenset[str]:
    """The words (not figures, not percentile names) of a numeric criterion's label and
    phrases: what a sentence says when it states this quantity ("margin", "gap", "GPUs")."""
    said = " ".join([criterion.label, *criterion.phrases])
    units = {"ms", "s", "second", "minut", "hour"}  # a time says nothing of which one
    return frozenset(t.key for t in tokenize(said) if t.content and not t.lower[0].isdigit()
                     and not re.fullmatch(r"p\d{2,3}", t.lower) and t.key not in units)


def _sentence_names_quantity(doc: Document, quantity: Quantity, criterion: CriterionSpec) -> bool:
    """Whether the sentence a number is said in names the quantity the criterion asks for
    ("uncached compiles, say 200-300ms at p95" names no margin)."""
    sentence = _sentence_of(doc, quantity.start)
    if sentence < 0:
        return True
    words = _quantity_words(criterion)
    start, end = doc.sentences[sentence].start, doc.sentences[sentence].end
    return any(t.key in words for t in tokens_in(doc, start, end) if t.content)


def _claimed_as_result(doc: Document, quantity: Quantity, criterion: CriterionSpec) -> bool:
    """A given figure stated as this criterion's result ("TensorRT saves about 7ms", "45ms of
    margin"): its clause uses the criterion's own words, so it is judged like any answer."""
    wanted = _result_words(criterion)
    if not wanted:
        return False
    if _PREMISE_RE.match(doc.text, quantity.end):
        return False  # "0.5% an hour is about 0.04% per five minutes": the premise, not the result
    if _REFERRED_TO_RE.search(doc.text, max(0, quantity.start - 12), quantity.start):
        return False  # "I'd take the 25ms apart stage by stage": the question's figure, named
    clause = _clause_of(doc, quantity)
    return clause is not None and any(
        t.key in wanted and not t.negated for t in tokens_in(doc, *clause))


def _clause_of(doc: Document, quantity: Quantity) -> tuple[int, int] | None:
    """The (start, end) of the clause a number is said in."""
    sentence = _sentence_of(doc, quantity.start)
    if sentence < 0:
        return None
    return next(((s, e) for s, e in _clause_spans(doc, sentence) if s <= quantity.start < e),
                None)


def restated(quantity: Quantity, given: list[Quantity]) -> bool:
    """The answer repeats a number the question gave ("200k requests per minute"): the same
    number as written, with the same kind of unit (or none)."""
    numerator = unit_parts(quantity.unit)[0]
    return any(math.isclose(quantity.written, g.written, rel_tol=0.005)
               and g.is_range == quantity.is_range
               and (not numerator or not g.unit or unit_parts(g.unit)[0] == numerator)
               for g in given)


def _given_in_other_units(quantity: Quantity, given: list[Quantity]) -> bool:
    return bool(quantity.unit) and any(
        g.unit == quantity.unit and not math.isclose(g.per, quantity.per, rel_tol=1e-9)
        and math.isclose(g.value, quantity.value, rel_tol=0.1) for g in given)


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
    copied = {id(q) for q in doc.quantities if restated(q, given or [])
              and not _claimed_as_result(doc, q, criterion)}
    # A given figure put in other units ("0.5% an hour is about 0.04% per five minutes") is
    # that figure, not an attempt at this criterion: it earns nothing and is never marked off.
    copied |= {id(q) for q in doc.quantities if _given_in_other_units(q, given or [])}
    # ... unless the answer endorses it as this criterion's result: "the 20% headroom is in
    # there, so procurement gets 1,250 A100s" states 1,250 as the count with 20% headroom.
    copied -= {id(q) for q in doc.quantities if id(q) in copied and _endorsed(doc, q, criterion)}
    found = numeric_candidates(doc, criterion, model_answer, criteria or (criterion,))
    listed = {id(q) for q in found}
    found += [q for q in doc.quantities if id(q) not in listed and id(q) not in copied
              and restated(q, given or []) and compatible(q, criterion.unit)]
    candidates = [q for q in found
                  if (id(q) not in copied or math.isclose(q.factor, factor, rel_tol=1e-9))
                  and not _belongs_elsewhere(doc, q, criterion, criteria)]
    # A given figure earns nothing through a conversion the engine makes, even where its
    # clause names the result ("2% per five minutes is 12% per hour": the 12% is the claim).
    converted = {id(q) for q in doc.quantities if restated(q, given or [])
                 and not math.isclose(q.factor, factor, rel_tol=1e-9)}
    hits = [q for q in candidates if id(q) not in converted
            and within_tolerance(q, expected, criterion.unit, tolerance)]
    if hits and not any(math.isclose(q.factor, factor, rel_tol=1e-9) for q in hits):
        # "0.4% per minute, times 60 is about 2.4% per hour": a step on the way is the right
        # rate in other units, but the result stated in the criterion's own units is off.
        stated_after = [q for q in candidates if q.start > hits[0].end and id(q) not in copied
                        and math.isclose(q.factor, factor, rel_tol=1e-9)
                        and compatible(q, criterion.unit)
                        and distance(q, expected, criterion.unit) > WRONG_RESULT_AT]
        if stated_after:
            hits = []
            candidates = stated_after
    # A number the answer only computes with ("300,000 / 120 = 2,500") earns credit when right
    # but is never shown as a wrong result: the candidate did not state it as one.
    operands = _operands(doc)
    chosen = hits[0] if hits else _preferred(
        doc, [q for q in candidates if id(q) not in copied and id(q) not in converted
              and (q.start, q.end) not in operands],
        criterion, model_answer, agree.sentence)
    worded = any(not p.numbers and m.score >= MADE_AT for p, m in evidence.hits)
    in_calculation = chosen is not None and any(
        c.start <= chosen.start and chosen.end <= c.end for c in doc.calculations)
    method = worded or in_calculation or _uses_model_operation(doc, model_answer)
    if not hits and chosen is not None and chosen.is_range and chosen.unit == "s" \
            and not in_calculation and not _sentence_names_quantity(doc, chosen, criterion):
        # A range said about something else ("uncached compiles, say 200-300ms at p95") is not
        # judged against this criterion at all: shown as wrong, it would say something false.
        chosen = None
    wrong = (not hits and chosen is not None and compatible(chosen, criterion.unit)
             and distance(chosen, expected, criterion.unit) > WRONG_RESULT_AT)
    other_form = None if hits or wrong else _stated_in_another_form(doc, evidence.hits, given)
    if other_form is not None:
        # "about 14 times the 40 per A100" where the criterion counts 1,125 GPUs: the bank's own
        # phrases name the other forms of the result, and one is stated in full.
        chosen = other_form
    if hits and _derived_slip(doc, criterion, chosen) is not None:
        # "5ms faster, which is a 60% cut": the figure is right, the share it is given is not.
        hits, wrong, method = [], True, True
    check = NumberCheck(
        criterion_key=criterion.key, expected_value=expected, unit=criterion.unit,
        tolerance_percent=tolerance,
        # A result said in another form keeps its own figure ("42%", "14 times").
        found_value=chosen.written if other_form is not None else _in_criterion_unit(
            chosen, criterion.unit),
        found_text=chosen.text if chosen else "",
        span=Span(chosen.start, chosen.end) if chosen else None,
        within_tolerance=bool(hits) or other_form is not None, method_credit=method,
        worked_calculation=_worked_calculation(doc, criterion, model_answer),
        another_form=other_form is not None,
    )
    # The words that attempted it, where a phrase is at least partly stated (not one label word
    # beside a number that is about something else).
    worded_spans = agree.spans if agree.score >= PARTLY_AT else []
    if hits or other_form is not None:
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
    if not hits and chosen is not None:
        doc.wrong_result_ends.add(chosen.end)  # judged here; the total charges it once
    return _verdict(criterion, verdict, credit, _dedupe(spans)), check


# A given figure put forward as the answer: signed off, ordered, or said to include the margin
# the criterion is about ("that's the figure with the 20% built in, so I'd sign off on 1,250").
_ENDORSED_BEFORE_RE = re.compile(
    r"\b(?:sign\w*\s+off\s+on|approv\w*|go\s+with|order(?:ing)?|procure\w*(?:\s+gets)?|buy(?:ing)?|"
    r"stick\s+with|provision\w*|procurement\s+gets)\s+(?:the\s+|all\s+|about\s+|~)?$",
    re.IGNORECASE)
_MARGIN_INCLUDED_RE = re.compile(
    r"\b(?:headroom|margin|buffer|\d+\s?%)\s+(?:\w+\s+){0,2}?(?:is\s+|was\s+|are\s+)?(?:already\s+)?"
    r"(?:built\s+in|baked\s+in|included|in\s+there|accounted\s+for)|\b(?:with|includes?|including)"
    r"\s+(?:the\s+)?\d+\s?%\s+(?:headroom\s+|margin\s+|buffer\s+)?(?:already\s+)?(?:built|baked)\s+in",
    re.IGNORECASE)


def _endorsed(doc: Document, quantity: Quantity, criterion: CriterionSpec) -> bool:
    """Whether the answer puts a given figure forward as this criterion's result: endorsed in
    its sentence, with the criterion's percentage said to be included there or in the sentence
    before."""
    percents = _criterion_percents(criterion)
    sentence = _sentence_of(doc, quantity.start)
    if not percents or sentence < 0 or any(c.start <= quantity.start and quantity.end <= c.end
                                           for c in doc.calculations):
        return False  # (the result of "50,000 / 40 = 1,250" is the division's, and right)
    # (Windows of a few hundred characters: a long run of figures stays linear.)
    own_start, own_end = doc.sentences[sentence].start, doc.sentences[sentence].end
    start = max(doc.sentences[max(0, sentence - 1)].start, quantity.start - 400)
    if not (_percents(doc.text[start : min(own_end, quantity.end + 200)]) & percents):
        return False
    own = doc.text[max(own_start, quantity.start - 40) : quantity.start]
    return bool(_ENDORSED_BEFORE_RE.search(own)) or bool(_MARGIN_INCLUDED_RE.search(
        doc.text, max(own_start, quantity.start - 300), min(own_end, quantity.end + 200)))


# A phrase that is the result said as a ratio or a share: "14x", "48 times", "42%" (not a
# multiplier, "x 1.2"; not a share the question gives).
_RATIO_FORM_RE = re.compile(r"\s*~?\d[\d.,]*\s*(?:x|×|times|%)\s*", re.IGNORECASE)


def _stated_in_another_form(doc: Document, hits: list, given: list[Quantity] | None
                            ) -> Quantity | None:
    """The answer's figure where one of the criterion's phrases that says the result as a ratio
    or a share (not a figure the question gives) is stated in full: "about 14 times the 40 per
    A100", "the engine alone is about 42% faster"."""
    for pattern, match in hits:
        if match.score < MADE_AT or not _RATIO_FORM_RE.fullmatch(pattern.source) \
                or any(restated(q, given or []) for q in pattern.numbers):
            continue
        for quantity in doc.sentence_numbers.get(match.sentence, ()):
            if any(s.start <= quantity.start < s.end for s in match.spans):
                return quantity
    return None


def _operands(doc: Document) -> set[tuple[int, int]]:
    """Where the answer's numbers stand as operands of an expression, not its result."""
    spans: set[tuple[int, int]] = set()
    for calculation in doc.calculations:
        spans |= {(q.start, q.end) for q in doc.quantities
                  if calculation.start <= q.start and q.end < calculation.end}
    for operation in doc.operations:
        spans |= {(q.start, q.end) for q in doc.quantities
                  if operation.start <= q.start and q.end <= operation.end}
    return spans


def _derived_slip(doc: Document, criterion: CriterionSpec,
                  chosen: Quantity | None) -> Calculation | None:
    """A percentage the answer derives wrongly in the sentence that states this criterion's
    figure, where the criterion is also about a percentage ("the 5ms (~40%) engine gain")."""
    if chosen is None or not _criterion_percents(criterion):
        return None
    sentence = _sentence_of(doc, chosen.start)
    return next((c for c in doc.implied if c.kind == "derived" and c.unit == "%"
                 and _sentence_of(doc, c.start) == sentence), None)


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
            own = float(criterion.expected_value or 0.0)
            if own and distance(quantity, own, criterion.unit) > math.log(10):
                # Right for another criterion and ten times off this one's ("2,500 / 0.8 is
                # about 3,125" T4s, beside 12 QPS per T4): that other quantity, not a slip here.
                return True
            if topic is None:
                topic = number_topic(doc, quantity, criterion_topics(criteria))
            # Unless its clause is about this criterion more ("for zone loss, 1,500 total"), or
            # its sentence works out this criterion's percentage and not the other's ("a 10%
            # margin ... 1,250 x 1.1 = 1,475" is a wrong 10% figure, not a right 20% one).
            if _states_own_percent(doc, quantity, criterion, other):
                continue
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


def _states_own_percent(doc: Document, quantity: Quantity, criterion: CriterionSpec,
                        other: CriterionSpec) -> bool:
    wanted, theirs = _criterion_percents(criterion), _criterion_percents(other)
    if not wanted or not theirs:
        return False
    sentence = _sentence_of(doc, quantity.start)
    if sentence < 0:
        return False
    span = doc.sentences[sentence]
    stated = _percents(doc.text[span.start : span.end]) | {
        round(100 * (q.value - 1), 6) for q in doc.sentence_numbers.get(sentence, [])
        if not q.unit and 1 < q.value < 2}  # "x 1.1" is a 10% margin
    return bool(stated & wanted) and not stated & (theirs - wanted)


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


# Verbs every numeric label starts with ("Computes 1,250 GPUs"): they name no quantity.
_NUMERIC_VERBS = frozenset(t.key for t in tokenize(
    "compute computes computed calculate calculates estimate estimates gives total totals"))


class Topics(dict[str, dict[str, float]]):
    """Per criterion key, its topic words and their weights, with the words inverted once:
    `exact` maps a word to the criteria that use it, `by_stem` a long word's first five letters
    to (word, criterion)."""

    def __init__(self, words: dict[str, dict[str, float]],
                 numeric: frozenset[str] = frozenset()) -> None:
        super().__init__(words)
        self.numeric = numeric
        self.exact: dict[str, list[str]] = {}
        self.by_stem: dict[str, list[tuple[str, str]]] = {}
        for key, weights in words.items():
            for word in weights:
                self.exact.setdefault(word, []).append(key)
                if len(word) >= 5:
                    self.by_stem.setdefault(word[:5], []).append((word, key))


_TOPICS: dict[tuple[CriterionSpec, ...], Topics] = {}


def criterion_topics(criteria: tuple[CriterionSpec, ...]) -> Topics:
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
        _TOPICS[criteria] = Topics({c: {k: 1.0 / share[k] for k in found}
                                    for c, found in keys.items()},
                                   frozenset(c.key for c in criteria if c.kind == "numeric"))
    return _TOPICS[criteria]


def _topic_scores(doc: Document, span: tuple[int, int], topics: Topics) -> dict[str, float]:
    """Per criterion, how much the clause at `span` talks about it; once per clause."""
    cache_key = (span, id(topics))
    if cache_key not in doc.topic_scores:
        doc.topic_scores[cache_key] = _find_topic_scores(doc, span, topics)
    return doc.topic_scores[cache_key]


def _find_topic_scores(doc: Document, span: tuple[int, int], topics: Topics) -> dict[str, float]:
    present = {t.key for t in tokens_in(doc, *span) if t.content and not t.negated}
    exact, by_stem = topics.exact, topics.by_stem
    # Each criterion word counts once, said exactly or as a longer or shorter form of a long
    # stem; looked up from the clause's own words, not scanned over every criterion's.
    matched: set[tuple[str, str]] = set()
    for word in present:
        matched.update((key, word) for key in exact.get(word, ()))
        if len(word) >= 5:
            matched.update((key, topic_word) for topic_word, key in by_stem.get(word[:5], ())
                           if word.startswith(topic_word) or topic_word.startswith(word))
    scores: dict[str, float] = {}
    for key, topic_word in sorted(matched):  # a fixed order: the same sums in every process
        scores[key] = scores.get(key, 0.0) + topics[key][topic_word]
    return scores


def number_topic(doc: Document, quantity: Quantity, topics: Topics) -> dict[str, float]:
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
    found = [scores for span in order if (scores := _topic_scores(doc, span, topics))]
    if found:
        # "For losing one of three zones, we lose a third of capacity, so I'd add a third on
        # top: 1,667 GPUs": clauses that name only concepts ("capacity", "on top") do not hide
        # an earlier one in the sentence that names a quantity the question asks for.
        before = [scores for span in order[: here + 1]
                  if (scores := _topic_scores(doc, span, topics))]
        return next((scores for scores in before
                     if not scores.keys().isdisjoint(topics.numeric)), found[0])
    if sentence > 0:
        for span in _clause_spans(doc, sentence - 1)[::-1]:
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
    clause = _clause_of(doc, quantity)
    if clause is None:
        return True
    words = {t.key for t in tokens_in(doc, *clause) if t.content and not t.negated}
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
    if not any(q.unit for q in out) and criterion.unit \
            and parse_unit(criterion.unit)[0] not in _SHARED_UNITS \
            and not any(
            c.kind == "numeric" and c.key != criterion.key and c.unit
            and parse_unit(c.unit)[0] == parse_unit(criterion.unit)[0] for c in criteria):
        # The only figure the question wants in this unit ("RPS"): a number the answer states
        # in that unit is that figure, whatever words its clause uses ("33,000 RPS").
        # A bare figure its phrases name ("Azure's 40") does not hide the one stated in it.
        out += [q for q in doc.quantities if q.unit and compatible(q, criterion.unit)]
    elif not out and criterion.unit and parse_unit(criterion.unit)[0] in _COUNT_UNITS:
        out = _unclaimed_counts(doc, criterion, criteria)
    return out


# Units of things an answer counts ("GPUs", "T4s", "nodes"): a count the question asks for
# twice (before and after headroom) is told apart by the words around it.
_COUNT_UNITS = frozenset(["gpu", "server", "node", "replica", "instance", "pod"])
_HEADROOM_WORDS_RE = re.compile(
    r"\b(?:headroom|buffer|room|spare|margin|safety|failures?|peaks?|extra|round(?:ed|ing)? "
    r"(?:it |that )?up|redundan\w*|n\+\d|zone|with \d+\s?%|on top|\d+\s?% (?:more|extra))",
    re.IGNORECASE)
_ROUNDED_RE = re.compile(r"\b(?:round|bump|push|take|make)\w*\s+(?:it|that|this|them)\s+(?:up\s+)?"
                         r"to\s+(?:about\s+|around\s+|~)?$", re.IGNORECASE)
_PER_AFTER_RE = re.compile(r"\s*(?:per|/|each|a|an|every)\b", re.IGNORECASE)


_BEFORE_HEADROOM_RE = re.compile(r"\b(?:before|without|excluding|no)\s+(?:any\s+)?headroom\b",
                                 re.IGNORECASE)


def _headroom_criterion(criterion: CriterionSpec) -> bool:
    about = _BEFORE_HEADROOM_RE.sub("", f"{criterion.label} {criterion.checks}")
    return bool(_HEADROOM_WORDS_RE.search(about))


def _clause_text(doc: Document, quantity: Quantity) -> str:
    clause = _clause_of(doc, quantity)
    return doc.text[clause[0] : clause[1]] if clause else ""


def _unclaimed_counts(doc: Document, criterion: CriterionSpec,
                      criteria: tuple[CriterionSpec, ...]) -> list[Quantity]:
    """A machine count ("about 50 T4s", "= 25 GPUs") that no criterion's words claim, where the
    question asks for that count more than once: the one said with headroom words ("maybe 60
    to have some buffer") is the headroom figure, the others the base count. A bare number
    counts only beside such a count in its sentence ("50 T4s, maybe 60 for buffer"). Without
    this, a count an order of magnitude off is never judged at all."""
    rivals = [c for c in criteria if c.kind == "numeric" and c.key != criterion.key and c.unit
              and parse_unit(c.unit)[0] == parse_unit(criterion.unit)[0]]
    if not rivals:
        return []
    wants_headroom = _headroom_criterion(criterion)
    if wants_headroom and all(_headroom_criterion(c) for c in rivals):
        return []
    counted: list[Quantity] = []
    clause_has_words: dict[tuple[int, int], bool] = {}
    for quantity in doc.quantities:
        if _PER_AFTER_RE.match(doc.text, quantity.end) or quantity.written <= 1:
            continue  # "8 T4s per node", "one card does ...": not the fleet
        if quantity.unit:
            if not compatible(quantity, criterion.unit):
                continue
        else:
            sentence = _sentence_of(doc, quantity.start)
            nearby = list(doc.sentence_numbers.get(sentence, []))
            if _ROUNDED_RE.search(doc.text[max(0, quantity.start - 30) : quantity.start]):
                # "... = 25 GPUs. I'd round it to 30": "it" is the count just stated.
                nearby = doc.sentence_numbers.get(sentence - 1, []) + nearby
            beside = [q for q in nearby
                      if q.unit and compatible(q, criterion.unit) and q.start < quantity.start]
            if not beside or not 0.5 <= quantity.value / max(beside[-1].value, 1e-9) <= 3:
                continue
        if _said_with_headroom(doc, quantity, clause_has_words) == wants_headroom:
            counted.append(quantity)
    return counted


def _said_with_headroom(doc: Document, quantity: Quantity,
                        clause_has_words: dict[tuple[int, int], bool]) -> bool:
    """Headroom words in the count's clause (searched once per clause: a sentence may hold
    thousands of counts), or in the _HEADROOM_REACH characters of its sentence before it with
    no other count between ("Then 20% on top for spikes and deploys, so 150 A100s")."""
    clause = _clause_of(doc, quantity)
    if clause is not None:
        if clause not in clause_has_words:
            clause_has_words[clause] = bool(_HEADROOM_WORDS_RE.search(doc.text[slice(*clause)]))
        if clause_has_words[clause]:
            return True
    sentence = _sentence_of(doc, quantity.start)
    if sentence < 0:
        return False
    start = max(doc.sentences[sentence].start, quantity.start - _HEADROOM_REACH)
    index = bisect_left(doc.quantities, quantity.start, key=lambda q: q.start)
    for previous in reversed(doc.quantities[max(0, index - 20) : index]):
        if previous.start < start:
            break
        if previous.unit == quantity.unit:
            return False
    return bool(_HEADROOM_WORDS_RE.search(doc.text, start, quantity.start))


_HEADROOM_REACH = 120


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


@lru_cache(maxsize=256)
def _model_calculations(model_answer: str) -> tuple[Calculation, ...]:
    """The model answer's calculations: worked out once per question, not per answer."""
    return tuple(find_calculations(model_answer))


def _worked_calculation(doc: Document, criterion: CriterionSpec, model_answer: str) -> str:
    """The correct calculation: the candidate's own expression done right, or the model's."""
    expected = float(criterion.expected_value or 0.0)
    for calculation in [*doc.calculations, *_model_calculations(model_answer)]:
        if expected and abs(calculation.actual - expected) <= abs(expected) * 0.02:
            return f"{calculation.expression} = {format_number(expected)} {criterion.unit}".strip()
    return f"≈ {format_number(expected)} {criterion.unit}".strip()
