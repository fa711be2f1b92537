"""Reference-answer mode: with no rubric, each clause of the model answer is a pseudo-criterion
weighted by how informative its words are, blended for short references with the embedding
model's soft recall.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from scoring.engines.base import (
    Span,
)
from scoring.engines.clauses import Document, _occurrences
from scoring.engines.evidence import REASONED_REFERENCE_WORDS
from scoring.engines.numbers import (
    Quantity,
    find_quantities,
)
from scoring.engines.text import (
    GENERIC,
    Token,
    split_sentences,
    tokenize,
)

# Reference-only mode against a short reference (short-answer grading) blends the lexical score
# with the embedding model's soft recall of the reference (scoring.engines.embeddings): it
# credits paraphrases in other words, which stemmed matching cannot. Long references (interview
# answers) keep lexical judgement alone: there similarity also rewards negated and buzzword
# answers. Measured on the labelled sets; see tests/scoring/test_generalisation.py.
SEMANTIC_SHARE = 0.75  # of the total, for a reference of up to REASONED_REFERENCE_WORDS / 2 words


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


def word_overlap(reference: str, answer: str) -> float:
    """Baseline: Jaccard similarity of stemmed content words."""
    a = {t.key for t in tokenize(reference) if t.content}
    b = {t.key for t in tokenize(answer) if t.content}
    return len(a & b) / len(a | b) if a | b else 0.0
