"""Points waved away in words no rule has written down, read by a small model fitted on labelled
answers.

The clause rules (clauses.py) know the common dismissals ("I'd skip", "overkill"); candidates
have many more ("I'd leave that to the SRE team", "doesn't seem like my job", "sounds nice but
it's more of a debugging exercise"). This module scores the stretch of a sentence that states a
point, from the start of its clause to the sentence's end, with a logistic model over the
stretch's words and word pairs. Words the model was not fitted on (the subject's vocabulary:
"bake", "canary", "p99") all read as one placeholder, so the model keys on how a thing is said,
not on which point it is.

The weights live in data/dismissal-cues.json and are re-derived from the criterion-labelled
sets by `python bench/fit_dismissals.py` (it prints its leave-one-set-out figures): positives
are the sentences labelled as waving a point away, negatives the sentences labelled as making
one.
"""

from __future__ import annotations

import json
import math
import re
from functools import lru_cache
from pathlib import Path

from scoring.engines.text import tokenize

CUES_PATH = Path(__file__).resolve().parent / "data" / "dismissal-cues.json"
PLACEHOLDER = "#"
MAX_STRETCH = 400  # characters scored: a dismissal sits within a clause or two of its point

# Where a clause starts: a point conceded and then waved off after "but" is scored with its
# dismissal; one stated after a "but" that follows a dismissal is scored without it.
_CLAUSE_START_RE = re.compile(r";|:\s|\b(?:but|however|whereas|although|though)\b", re.IGNORECASE)


@lru_cache(maxsize=1)
def _model() -> tuple[dict[str, float], float, float]:
    data = json.loads(CUES_PATH.read_text(encoding="utf-8"))
    return dict(data["weights"]), float(data["bias"]), float(data["threshold"])


def features(text: str, vocabulary: frozenset[str] | dict[str, float] | None = None) -> set[str]:
    """The stretch's words and adjacent word pairs, lower-cased; with a vocabulary, a word
    outside it reads as the placeholder."""
    tokens = tokenize(text)
    words = [t.lower for t in tokens]
    if vocabulary is not None:
        words = [w if w in vocabulary else PLACEHOLDER for w in words]
    # Alone, a function word ("it's", "just", "I") says nothing; in a pair ("it's overkill",
    # "I wouldn't") it can.
    found = {w for w, t in zip(words, tokens, strict=True) if t.content}
    found.update(f"{a} {b}" for a, b in zip(words, words[1:], strict=False))
    return found


def probability_with(weights: dict[str, float], bias: float, text: str) -> float:
    """The model's reading of a stretch, for given weights (the fitting script's too)."""
    z = bias + sum(weights.get(f, 0.0) for f in features(text, weights))
    return 1.0 / (1.0 + math.exp(-max(-30.0, min(30.0, z))))


@lru_cache(maxsize=4096)
def probability(text: str) -> float:
    weights, bias, _ = _model()
    return probability_with(weights, bias, text)


def stretch(text: str, sentence_start: int, sentence_end: int, at: int) -> str:
    """From the start of the clause holding position `at` to the end of its sentence."""
    start = sentence_start
    for match in _CLAUSE_START_RE.finditer(text, sentence_start, at):
        start = match.start()
    return text[start : min(sentence_end, start + MAX_STRETCH)]


# The candidate siding with what others advise: "Some people say you should ask the caller
# first, and they're right", "..., and I do". The model reads "some people say" as the start of
# a dismissal, which it usually is; a stretch that ends agreeing is not one.
_SIDES_WITH_RE = re.compile(
    r"\b(?:and|which)\s+(?:they'?re|they\s+are|that'?s|that\s+is)\s+(?:quite\s+|absolutely\s+|"
    r"completely\s+)?(?:right|correct)\b|\band\s+(?:i|we)\s+(?:do|agree|would|will|'d)\s*"
    r"(?:too\s*)?[.!?]?\s*$|\b(?:i|we)\s+(?:agree|concur)\b", re.IGNORECASE)


# Something else said not to be a problem, before the point as the reason: "I wouldn't read 65%
# as a problem by itself, a latency-sensitive service needs some slack for bursts" reassures;
# it waves away the worry, not the slack that follows.
_NOT_A_PROBLEM_RE = re.compile(
    r"\b(?:i|we)\s+(?:wouldn'?t|would\s+not|don'?t|do\s+not|won'?t)\s+(?:read|see|treat|call|"
    r"count|consider|view|regard)\s+[^.;:!?]{1,40}?\s+as\s+(?:a\s+|an\s+)?(?:problem|issue|"
    r"waste|wasted|concern|red\s+flag|bad\s+sign)\b(?:\s+(?:by\s+itself|on\s+its\s+own|per\s+se))?",
    re.IGNORECASE)


def waves_away(text: str, sentence_start: int, sentence_end: int, at: int) -> bool:
    """Whether the clause stating something at `at` (and the rest of its sentence) waves it
    away."""
    reassured = _NOT_A_PROBLEM_RE.search(text, sentence_start, at)
    if reassured and reassured.end() <= at:
        return False
    read = stretch(text, sentence_start, sentence_end, at)
    return probability(read) >= _model()[2] and not _SIDES_WITH_RE.search(read)


# A point conceded to others and then turned down: "You could normalise by active streams, but
# memory per GPU is what OOMs, so I'd skip that", "Some teams would add conversion gates, but the
# canary isn't the place for quality". The concession names the point; the turn after "but"
# takes it back.
_CONCESSION_RE = re.compile(
    r"\b(?:you|we|one|i|they|teams?)\s+(?:could|might|can)\b|\bsome\s+(?:people|teams|folks|"
    r"candidates|places|shops)\s+(?:would|might|will|do|like\s+to|add|use|run)\b|\bothers\s+"
    r"(?:would|might)\b|\bit'?s\s+tempting\s+to\b|\bthe\s+textbook\s+(?:answer|move)\b|"
    r"\bin\s+theory\b|"
    # What others bring to the table: "someone will bring up the 2ms launch overhead", "I've
    # also heard Triton ensembles suggested", "prediction drift comes up a lot".
    r"\b(?:someone|somebody|people|folks|reviewers?|others)\s+(?:will\s+|would\s+|might\s+|"
    r"often\s+|usually\s+|always\s+)?(?:bring\s+up|say|suggest|mention|raise|push\s+for|argue|"
    r"ask\s+for|recommend)\b|\b(?:i'?ve|i\s+have|we'?ve)\s+(?:also\s+)?(?:heard|seen|read)\b|"
    r"\b(?:comes?|came)\s+up\s+a\s+lot\b|\bgets?\s+(?:suggested|mentioned|brought\s+up)\b|"
    # "X sounds rigorous but in practice it just slows releases down".
    r"\bsounds?\s+(?:good|great|nice|rigorous|sensible|reasonable|smart|thorough|safe)\b|"
    r"\bnice\s+idea\b|\bin\s+principle\b",
    re.IGNORECASE)
_TURN_RE = re.compile(r",?\s*\bbut\b", re.IGNORECASE)
_TAKEN_BACK_RE = re.compile(
    r"\b(?:not|no|never|n't|isn't|aren't|wouldn't|won't|don't|skip\w*|drop\w*|overkill|"
    r"unnecessary|pointless|waste\w*|leave\s+(?:it|that|them)\s+out|leave\s+(?:it|that)\s+to|"
    r"rather\s+not|instead|noise|overblown|not\s+needed|without\s+it|doesn't|so\s+no|"
    r"micro-?optimi[sz]ation|(?:team'?s|their|someone\s+else'?s)\s+(?:problem|job|call)|"
    r"nobody|no\s+one|no-one|slows?\s+(?:releases|us|things|everything)\s+down)\b|n't\b",
    re.IGNORECASE)
_KEPT_RE = re.compile(r"\b(?:don't|do\s+not|never|not|wouldn't|won't|shouldn't)\s+(?:\w+\s+)?"
                      r"(?:skip|drop|leave\s+out|ignore|cut)\w*", re.IGNORECASE)
_CONCESSION_NEGATED_RE = re.compile(
    r"\b(?:not|no|never|without|skip\w*|drop\w*|n't)\b|n't\b", re.IGNORECASE)


# The candidate's own refusal of what the sentence has been about, closing it: "..., so I'd
# leave them out entirely", "..., so we'd skip it", "which is why we don't use them".
_REFUSES_AFTER_RE = re.compile(
    r"\b(?:so|which\s+is\s+why|that'?s\s+why)\s+(?:i|we)(?:'d|\s+would|\s+will)?\s+(?:just\s+|"
    r"simply\s+|rather\s+)?(?:leave\s+(?:it|that|them|those)\s+out|skip\s+(?:it|that|them|those)|"
    r"drop\s+(?:it|that|them|those)|not\s+(?:use|add|bother)|(?:wouldn'?t|won'?t|don'?t)\s+"
    r"(?:use|add|bother|need))\b", re.IGNORECASE)


def conceded_then_dismissed(text: str, sentence_start: int, sentence_end: int, at: int) -> bool:
    """Whether `at` sits in a clause conceding a point that the rest of the sentence, after
    "but", turns down, or in the reason given after that "but" for turning it down ("Some
    teams add feature flags, but every check is a 200µs call, so I'd leave them out")."""
    sentence = text[sentence_start:sentence_end]
    offset = at - sentence_start
    turn = _TURN_RE.search(sentence, offset)
    if turn is None:
        before = list(_TURN_RE.finditer(sentence, 0, offset))
        if not before:
            return False
        opening = sentence[: before[-1].start()]
        return bool(_CONCESSION_RE.search(opening)) \
            and not _CONCESSION_NEGATED_RE.search(opening) \
            and bool(_REFUSES_AFTER_RE.search(sentence, offset))
    conceded = sentence[:turn.start()]
    # The concession opens the clause the point sits in (no earlier "but" in between).
    turns = list(_TURN_RE.finditer(conceded))
    opening = conceded[turns[-1].end() if turns else 0 :]
    concession = _CONCESSION_RE.search(opening)
    if concession is None or _CONCESSION_NEGATED_RE.search(opening):
        return False  # "Some teams skip the bake, but I wouldn't" keeps the bake
    # "..., but don't skip the bake" keeps what follows, and takes nothing back.
    rest = _KEPT_RE.sub(" ", sentence[turn.end():])
    return bool(_TAKEN_BACK_RE.search(rest))
