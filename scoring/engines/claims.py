"""Claims about the named alternatives of a comparison question: a criterion about one
alternative is not earned by its words said of the other, and is contradicted by its comparison
turned round ("TensorRT is slower").
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from scoring.engines.base import (
    CriterionSpec,
    Span,
)
from scoring.engines.clauses import Document
from scoring.engines.evidence import Evidence, Match, Pattern
from scoring.engines.numbers import (
    parse_unit,
)
from scoring.engines.text import (
    Token,
    tokenize,
)

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
        # The label says whose point it is ("Covers TorchServe's versioning (and TensorRT's
        # extra hop)"); the checks, which may name the other tool in passing, only when the
        # label names neither.
        named: list[str] = []
        for text in (criterion.label, f"{criterion.label}. {criterion.checks}"):
            tokens = tokenize(re.sub(r"\([^()]*\)", " ", text))
            named = [a for a in alternatives if _mentions(tokens, a)]
            if named:
                break
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


# A sentence that lacks or contrasts something is not a claim that its one named tool has it:
# "TensorRT has no Python handlers" says TorchServe's point the right way round.
_CONTRAST_RE = re.compile(
    r"\b(?:no|not|never|without|lacks?|lacking|missing|unlike|whereas|instead|rather|than|"
    r"both|either|neither|vs\.?|versus|compared|can't|cannot|n't)\b|n't\b",
    re.IGNORECASE)


_SUBJECT_SLOT = 3  # tokens from the sentence's start


def _sentence_subject(doc: Document, index: int, alternatives: tuple[str, ...]) -> str:
    """The alternative a sentence is about when it names exactly one, before the claim at
    `index`, and sets nothing against it: "TensorRT, on the other hand, is the serving side:
    it gives you Python handlers" says the handlers of TensorRT."""
    sentence = doc.tokens[index].sentence
    if not 0 <= sentence < len(doc.sentences):
        return ""
    span = doc.sentences[sentence]
    tokens = [t for t in doc.tokens[: index] if t.sentence == sentence]
    # Named as what the sentence is about: among its first words ("TensorRT, on the other
    # hand, is ..."), not in passing ("my pick is Triton with the TensorRT backend").
    named = {a for a in alternatives if any(i < _SUBJECT_SLOT for i in _mentions(tokens, a))}
    later = [t for t in doc.tokens[index:] if t.sentence == sentence]
    if len(named) != 1 or any(_mentions(later, a) for a in alternatives if a not in named):
        return ""
    if _CONTRAST_RE.search(doc.text[span.start : span.end]):
        return ""
    return next(iter(named))


def _attributed(doc: Document, evidence: Evidence, subject: str,
                alternatives: tuple[str, ...]) -> tuple[Evidence, list[Span]]:
    """The evidence without phrases said of another alternative, and those phrases' spans."""
    kept: list[tuple[Pattern, Match]] = []
    wrong: list[Span] = []
    starts = {t.start: i for i, t in enumerate(doc.tokens)}
    for pattern, match in evidence.hits:
        first = min((starts[s.start] for s in match.spans if s.start in starts), default=None)
        said_of = _subject_before(doc, first, alternatives) if first is not None else ""
        if not said_of and first is not None:
            said_of = _sentence_subject(doc, first, alternatives)
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
