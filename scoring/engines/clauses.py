"""The analysed answer: tokens with negation scopes, sentences and clauses, the numbers
examined (bounded, so scoring stays linear in the answer's length), the candidate's arithmetic
and the wrong relations and senses it states (relations.py, senses.py). Every judge reads this
Document.
"""

from __future__ import annotations

import re
from bisect import bisect_left, bisect_right
from dataclasses import dataclass, field

from scoring.engines.base import (
    Span,
)
from scoring.engines.derived import derived_figures, headroom_read_as_growth, weight_memory_slips
from scoring.engines.numbers import (
    Calculation,
    Operation,
    Quantity,
    find_calculations,
    find_implied_calculations,
    find_operations,
    find_quantities,
    find_sum_claims,
    without_long_numbers,
)
from scoring.engines.relations import wrong_claims
from scoring.engines.senses import WrongClaim
from scoring.engines.text import (
    Sentence,
    Token,
    function_word_ratio,
    reasoning_markers,
    split_sentences,
    tokenize,
)


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
    wrong_result_ends: set[int] = field(default_factory=set)  # where those figures end
    token_index: dict[int, int] = field(default_factory=dict)  # token start -> position
    clauses: dict[int, list[tuple[int, int]]] = field(default_factory=dict)  # per sentence
    token_starts: list[int] = field(default_factory=list)
    topic_scores: dict[tuple, dict[str, float]] = field(default_factory=dict)

    markers: list[tuple[int, int]] = field(default_factory=list)  # reasoning markers
    sentence_starts: list[int] = field(default_factory=list)
    wrong_claims: list[WrongClaim] = field(default_factory=list)  # relations turned round
    words: int = -1
    cut: bool = False  # the answer ran past MAX_WORDS and was read only that far

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


# An answer is read as far as its first MAX_WORDS words (about 12,000 characters of prose, ten
# times a thorough answer), so scoring time stays within 10x of a typical answer's whatever the
# answer holds: 20,000 characters of "1 x 2 x 3 ..." are 10,000 tokens, each worth nothing. The
# feedback says when an answer was cut (Document.cut).
MAX_WORDS = 2000


_WORD_COUNT_RE = re.compile(r"[A-Za-z0-9µμ]+")


def bounded_text(text: str) -> str:
    """The part of an answer that is scored: overlong digit runs blanked, cut after MAX_WORDS
    words (a prefix, so every span still points into the answer as written)."""
    text = without_long_numbers(text)
    for count, match in enumerate(_WORD_COUNT_RE.finditer(text), start=1):
        if count >= MAX_WORDS:
            return text[: match.end()]
    return text


_UNIT_SUFFIX_RE = re.compile(r"\d[\d.,]*(kw|mw|gw|kwh|mwh|watts?|gb|gib|tb|mb|tflops|pflops)")


def analyse(text: str) -> Document:
    answer, text = text, bounded_text(text)
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
    weights = weight_memory_slips(head, quantities)
    derived += weights
    implied = [c for c in implied if all(c.end != d.end for d in derived)] + derived
    doc = Document(text, tokens, split_sentences(text), quantities, calculations,
                   sorted([*implied, *sums], key=lambda c: c.start),
                   find_operations(head, quantities))
    doc.cut = bool(answer[len(text) :].strip())
    doc.token_index = {token.start: i for i, token in enumerate(tokens)}
    doc.token_starts = [token.start for token in tokens]
    for token in tokens:
        if token.content:
            doc.by_key.setdefault(token.key, []).append(token)
            doc.by_prefix.setdefault(token.key[:5], set()).add(token.key)
        elif (unit := _UNIT_SUFFIX_RE.fullmatch(token.lower)) is not None:
            # "~670kW" says "kW" too: a unit written onto its number is a word of the answer.
            doc.by_key.setdefault(unit.group(1), []).append(token)
    for quantity in quantities:
        doc.sentence_numbers.setdefault(_sentence_of(doc, quantity.start), []).append(quantity)
    by_sentence: dict[int, list[Token]] = {}
    for token in tokens:
        by_sentence.setdefault(token.sentence, []).append(token)
    doc.markers = reasoning_markers(text)
    doc.wrong_claims = wrong_claims(tokens, text, lambda offset: _sentence_of(doc, offset))
    # "60% headroom, so 60% more traffic": headroom misunderstood, not only a figure off.
    doc.wrong_claims += [WrongClaim(Span(c.start, c.end), _sentence_of(doc, c.start), "relation")
                         for c in headroom_read_as_growth(head, quantities)]
    # "A 3B model in fp16 is roughly 3 GB": the weights' size, and so the memory fit, misread.
    doc.wrong_claims += [WrongClaim(Span(c.start, c.end), _sentence_of(doc, c.start), "memory")
                         for c in weights]
    reasoned_sentences = {_sentence_of(doc, start) for start, _ in doc.markers}
    for index in range(len(doc.sentences)):
        words = by_sentence.get(index, [])
        reasoned = index in reasoned_sentences
        prose = len(words) >= 9 and function_word_ratio(words) >= 0.2
        # A number gives a short line context ("RTF < 1 with margin"), not a long term list.
        numbered = index in doc.sentence_numbers and len(words) <= 14
        sentence = doc.sentences[index]
        doc.sentence_context[index] = (reasoned or prose or numbered) and not term_list(
            text[sentence.start : sentence.end])
    return doc


TERM_LIST_ITEMS = 10  # short comma-separated items in a row that make a sentence a term list
_TERM_LIST_SPLIT_RE = re.compile(r",(?!\d)|\band\b")


def term_list(sentence: str) -> bool:
    """A sentence that strings terms together ("I'd compare them on kernel fusion, FP16, INT8,
    dynamic batching, p99, Triton, ensembles, .mar files, ..."): a run of TERM_LIST_ITEMS or
    more items of at most four words each. Its words name points without making them, however
    it opens or ends ("and then pick based on the budget"). Items with a figure neither count
    nor break the run: a ramp ("1%, 2%, 5%, ...") or a stage budget ("DNS 0.5, TLS 1, ...")
    states values, not names. On the graded CSVs, every sentence with such a run of 10 or more
    belongs to an answer written as keyword-stuffed (21 of 21), and none of the labelled sets'
    answers has one."""
    run = longest = 0
    for item in _TERM_LIST_SPLIT_RE.split(sentence):
        words = len(item.split())
        if 0 < words <= 4 and any(ch.isdigit() for ch in item):
            continue
        run = run + 1 if 0 < words <= 4 else 0
        longest = max(longest, run)
    return longest >= TERM_LIST_ITEMS


def _occurrences(doc: Document, key: str) -> list[Token]:
    """Tokens whose key is this key, or shares a long stem with it (compil/compilat)."""
    found = list(doc.by_key.get(key, ()))
    if len(key) >= 5:
        for other in doc.by_prefix.get(key[:5], ()):
            if other != key and (other.startswith(key) or key.startswith(other)):
                found.extend(doc.by_key[other])
    return found


def _negated_at(doc: Document, offset: int) -> bool:
    index = doc.token_index.get(offset)
    return index is not None and doc.tokens[index].negated


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


def tokens_in(doc: Document, start: int, end: int) -> list[Token]:
    """The tokens that start between two character offsets (a clause, a sentence)."""
    return doc.tokens[bisect_left(doc.token_starts, start) : bisect_left(doc.token_starts, end)]


def _sentence_of(doc: Document, offset: int) -> int:
    if len(doc.sentence_starts) != len(doc.sentences):  # built once per answer
        doc.sentence_starts = [sentence.start for sentence in doc.sentences]
    starts = doc.sentence_starts
    index = bisect_right(starts, offset) - 1
    if index >= 0 and offset < doc.sentences[index].end:
        return index
    return -1


def _dedupe(spans: list[Span]) -> list[Span]:
    seen: set[tuple[int, int]] = set()
    out: list[Span] = []
    for span in spans:
        if (span.start, span.end) not in seen:
            seen.add((span.start, span.end))
            out.append(span)
    return out


def _sentences_of(doc: Document, spans: list[Span]) -> set[int]:
    return {_sentence_of(doc, span.start) for span in spans}
