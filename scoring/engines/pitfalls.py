"""Pitfalls: committed when a specific phrase for the mistake is stated, or in the candidate's own
words (a universal "always faster", a machine count with no basis, a relation turned round).
"""

from __future__ import annotations

import re

from scoring.engines.base import (
    CriterionSpec,
    CriterionVerdict,
    Span,
)
from scoring.engines.clauses import Document, _dedupe, _sentence_of, tokens_in
from scoring.engines.dismissals import waves_away
from scoring.engines.evidence import Pattern, _criterion_patterns, match_pattern
from scoring.engines.mistakes import committed_in_own_words
from scoring.engines.numbers import (
    Quantity,
)
from scoring.engines.relations import universal_comparisons
from scoring.engines.verdicts import _verdict

PITFALL_AT = 0.8


def judge_pitfall(doc: Document, criterion: CriterionSpec,
                  restated: frozenset[int] = frozenset()) -> tuple[CriterionVerdict, set[int]]:
    """A pitfall is hit when a specific phrase for the mistake is stated (not rejected), in a
    sentence of the candidate's own (not the question `restated`)."""
    sentences: set[int] = set()
    spans: list[Span] = []
    for pattern, _ in _criterion_patterns(criterion):
        if not pattern.specific:
            continue
        agree, _ = match_pattern(doc, pattern)
        if agree.score >= PITFALL_AT and _limits_kept(doc, pattern, agree.sentence) \
                and _close_together(doc, pattern, agree.spans) \
                and not _comparative_of_cadence(doc, agree.spans) \
                and _rejection_said(doc, pattern, agree.sentence) \
                and not _not_only(doc, pattern, agree.spans) \
                and not any(said_against(doc, span) for span in agree.spans):
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
    if _about_dismissals(criterion):
        for figure in dismissed_figures(doc, criterion):
            if said_against(doc, Span(figure.start, figure.end)):
                continue  # "remote 200us eval per request is too costly": the cost is taken
            sentences.add(_sentence_of(doc, figure.start))
            spans.append(Span(figure.start, figure.end))
    for span in committed_in_own_words(doc, criterion):
        if said_against(doc, span):
            continue
        sentences.add(_sentence_of(doc, span.start))
        spans.append(span)
    if doc.wrong_claims and _about_reversals(criterion):
        # A pitfall of reversed or swapped facts is committed by any relation stated wrongly
        # (its sentences stay open to concept criteria, which are then contradicted there);
        # a term defined wrongly is a confused word, not a core fact turned round, unless the
        # pitfall is about definitions.
        about_terms = bool(_DEFINITION_PITFALL_RE.search(f"{criterion.label} {criterion.checks}"))
        spans.extend(claim.span for claim in doc.wrong_claims
                     if claim.kind != "definition" or about_terms)
    if restated:
        spans = [s for s in spans if _sentence_of(doc, s.start) not in restated]
        sentences -= restated
    hit = bool(spans)
    verdict = _verdict(criterion, "made" if hit else "missed", 1.0 if hit else 0.0,
                       _where_committed(doc, _dedupe(spans)) if hit else [])
    return verdict, sentences


def _where_committed(doc: Document, spans: list[Span]) -> list[Span]:
    """The evidence of a committed pitfall: the sentence that commits it most plainly (the
    most found in it, the first on a tie), not every sentence that touches it."""
    by_sentence: dict[int, list[Span]] = {}
    for span in spans:
        by_sentence.setdefault(_sentence_of(doc, span.start), []).append(span)
    return max((by_sentence[sentence] for sentence in sorted(by_sentence)), key=len)


# The mistake named to criticise it, as a reviewer does ("What bothers me is that the only
# things checked are latency and 5xx"), or as the thing compared against ("stricter than an
# average"): the answer does not make it.
_CRITIQUE_RE = re.compile(
    r"\b(?:what\s+(?:bothers|worries|concerns|scares)\s+me|my\s+(?:concern|worry|problem|"
    r"issue|objection|gripe)|the\s+(?:problem|issue|gap|weak\s+(?:spot|point)|flaw|catch|risk)"
    r"\s+(?:here\s+|with\s+(?:this|that|the\s+plan|the\s+playbook)\s+)?(?:is|was)|"
    r"i\s+(?:don't|do\s+not)\s+like|(?:it's|it\s+is)\s+(?:a\s+)?(?:mistake|wrong|risky|"
    r"dangerous)\s+to|what's\s+missing|the\s+trap\s+is|"
    # "I'd refuse to do this from peak TFLOPS, that path gives you ~20 GPUs".
    r"(?:i'd|i\s+would|we'd|we\s+would|i|we)\s+refuse\s+to)\b", re.IGNORECASE)
_COMPARED_AGAINST_RE = re.compile(
    r"\b(?:than|unlike|rather\s+than|instead\s+of)\s+(?:an?\s+|the\s+|a\s+plain\s+)?"
    r"(?:\w+\s+)?$", re.IGNORECASE)


CRITIQUE_OPENING = 60  # characters of a sentence where a critique frame opens it
# "(remote 200us eval per request is too costly at high QPS)", "asking a remote flag service
# on each request burns a lot of CPU at this volume": the mistake named, then condemned.
# A figure or a route called far from right ("it'd be wildly off", "way off").
_WAY_OFF = r"(?:wildly|way|badly|hugely|massively)\s+off\b"
_CONDEMNED_AFTER_RE = re.compile(
    # ("~200us/req, too costly at high QPS": a unit's tail and a comma may come first.)
    r"^(?:[^\s.;!?,]{0,8},\s*)?(?:(?!\b(?:since|because|as|so|which|while|whereas|but)\b)"
    r"[^.;!?,]){0,80}?"
    r"(?<!not\s)(?<!n't\s)(?<!never\s)"
    r"\b(?:(?:way\s+|far\s+|much\s+)?too\s+(?:costly|expensive|slow|heavy)|"
    r"(?:would\s+be|is|'s|are)\s+(?:a\s+|the\s+)?(?:(?:big|real|classic)\s+)?(?:mistake|"
    r"bad\s+idea|trap|waste)|wasteful|unacceptable|burns?\s+(?:a\s+lot|too\s+much|lots)|"
    r"adds?\s+up\s+(?:fast|quickly)|(?:it's|it\s+is|that's|which\s+is)\s+wrong\s+by\b|"
    # "Peak TFLOPS would suggest far more, but at this latency we're bound by bandwidth".
    r"would\s+(?:suggest|say|give(?:\s+you)?|imply|tell\s+you|predict|promise)\b[^.;!?]{0,40}?,?\s*"
    r"but\b|"
    r"(?:be|is|'s|it's)\s+" + _WAY_OFF + "|"
    # "since calling a flag service per request is ~200µs and at high QPS that's real latency
    # and CPU": the figure, then what it costs.
    r"(?:is|'s|are)\s+(?:~\s?|about\s+|around\s+|roughly\s+)?\d[\d.,]*\s?(?:µs|μs|us|"
    r"microseconds?)\b[^.;!?]{0,40}?\b(?:real|serious|significant|noticeable)\s+(?:latency|"
    r"cost|overhead|cpu)|"
    # "Asking a remote flag service on every request costs ~200µs, real latency and CPU": the
    # cost counted against it, unless it is then waved off ("costs 200us, which is nothing").
    r"costs?\s+(?:us\s+|you\s+)?(?:~\s?|about\s+|around\s+|roughly\s+)?\d[\d.,]*\s?"
    r"(?:µs|μs|us|ms|microseconds?|milliseconds?)\b"
    # ("fine for a toy service but not at 50k QPS" still counts it).
    r"(?![^.;!?]{0,40}\b(?:negligible|nothing|fine|ok|okay|acceptable|cheap|tiny|trivial|"
    r"noise|no\s+big\s+deal|doesn't\s+matter)\b(?![^.;!?]{0,40}\bbut\b)))\b", re.IGNORECASE)


def said_against(doc: Document, span: Span) -> bool:
    """Whether the words at `span` name the mistake to criticise it or to compare with it."""
    sentence = _sentence_of(doc, span.start)
    if sentence < 0:
        return False
    start = doc.sentences[sentence].start
    before = doc.text[start : span.start]
    # A form found over a whole sentence opens with its frame, if it has one.
    opening = doc.text[start : max(span.start, min(span.end, start + CRITIQUE_OPENING))]
    after = doc.text[span.end : doc.sentences[sentence].end]
    if span.start <= start + 3 and span.end >= doc.sentences[sentence].end - 3 \
            and _WHOLE_SENTENCE_AGAINST_RE.search(doc.text, start, span.end):
        # A mistake found over the whole sentence, which the sentence itself argues against
        # ("I trust that more than TFLOPS math, which would ... be wildly off").
        return True
    return bool(_CRITIQUE_RE.search(opening) or _COMPARED_AGAINST_RE.search(before[-40:])
                or _CONDEMNED_AFTER_RE.search(after)
                or (_CONDITION_BEFORE_RE.search(before[-50:])
                    and not _WAVED_OFF_AFTER_RE.search(after))
                or _HYPOTHETICAL_RE.match(doc.text[start : doc.sentences[sentence].end])
                or (_REASON_BEFORE_RE.search(before[-12:]) and _COST_AFTER_RE.search(after[:60])))


# "since asking the flag service costs ~200us every time, which adds up fast, every server keeps
# the flag values in memory": the mistake given, with its cost, as the reason for the design.
_REASON_BEFORE_RE = re.compile(r"\b(?:since|because|as)\s+$", re.IGNORECASE)
_COST_AFTER_RE = re.compile(r"\bcosts?\b|\d\s?(?:µs|μs|us|microseconds?)\b|\badds?\s+up\b",
                            re.IGNORECASE)


_WHOLE_SENTENCE_AGAINST_RE = re.compile(
    r"\b" + _WAY_OFF + r"|\bwrong\s+by\b|\bmore\s+than\s+"
    r"(?:\w+\s+){0,2}(?:math|maths|estimates?|guesses)\b|\brefuse\s+to\b", re.IGNORECASE)


# "each flag check is around 200us if you call the flag service, so I'd cache the values":
# the mistake as a condition, with its cost; the candidate does something else.
_CONDITION_BEFORE_RE = re.compile(r"\bif\s+(?:you|we|one|they|someone|anyone)\s+(?:\w+\s+){0,2}$",
                                  re.IGNORECASE)
# "... if we call the flag service per request, that's only 10ms": the condition accepted.
_WAVED_OFF_AFTER_RE = re.compile(r"\b(?:fine|ok|okay|only|just|negligible|nothing|cheap|tiny|"
                                 r"trivial|acceptable|no\s+big\s+deal)\b", re.IGNORECASE)


# "Signing off at 1,250 would have the fleet at 100% at peak, so the first spike pushes p99
# past 20ms": the mistake as a hypothetical subject, followed by what it would cost.
_HYPOTHETICAL_RE = re.compile(
    r"\s*(?:(?:and|but|so|also)\s+)?(?:just\s+)?[A-Za-z]+ing\b[^.;:!?]{0,40}?\b(?:would|will|means|"
    r"leaves)\b(?![^.;!?]{0,30}\b(?:fine|ok|okay|good|enough|safe|acceptable|correct|right)\b)",
    re.IGNORECASE)


_DISMISSAL_PITFALL_RE = re.compile(r"\b(?:dismiss\w*|wav\w* (?:it |them )?away|"
                                   r"negligible|ignor\w*)\b", re.IGNORECASE)


def _about_dismissals(criterion: CriterionSpec) -> bool:
    """A pitfall about waving away a stated cost ("dismisses the 200us cost")."""
    return bool(_DISMISSAL_PITFALL_RE.search(f"{criterion.label} {criterion.checks}"))


def dismissed_figures(doc: Document, criterion: CriterionSpec) -> list[Quantity]:
    """The figures the pitfall's phrases name ("200us is nothing") that the answer waves away
    in its own words ("the 200 microseconds flag cost is negligible"): the figure sits in a
    clause that a dismissal or negation takes back."""
    figures = [q for pattern, _ in _criterion_patterns(criterion) for q in pattern.numbers]
    if not figures:
        return []
    found: list[Quantity] = []
    for quantity in doc.quantities:
        if not any(quantity.unit == f.unit and f.value and
                   abs(quantity.value - f.value) <= 0.1 * abs(f.value) for f in figures):
            continue
        inside = tokens_in(doc, quantity.start, quantity.end)
        negated = bool(inside) and all(t.negated for t in inside)
        sentence = _sentence_of(doc, quantity.start)
        if not negated and 0 <= sentence < len(doc.sentences):
            # "The 45-minute rebuild is a CI pipeline concern, so I'd leave it out of the
            # decision": waved away as the dismissal model reads it.
            negated = waves_away(doc.text, doc.sentences[sentence].start,
                                 doc.sentences[sentence].end, quantity.start)
        if negated and _KEPT_OUT_AFTER_RE.match(doc.text, quantity.end):
            continue  # "it keeps the flag system's 200us out of the picture": a cost avoided
        if negated and not _AVOIDED_COST_RE.search(
                doc.text, max(0, quantity.start - 30), quantity.start) \
                and not _COST_AFFIRMED_RE.search(doc.text, max(0, quantity.start - 40),
                                                 quantity.start):
            found.append(quantity)
    return found


_KEPT_OUT_AFTER_RE = re.compile(r"\s*(?:\w+\s+){0,2}?(?:out\s+of\s+the\s+(?:picture|request\s+"
                                r"path|hot\s+path)|off\s+the\s+(?:hot|request|critical)\s+path)",
                                re.IGNORECASE)


# "the flag check isn't free, ~200µs per request remotely": a denied dismissal counts the cost.
_COST_AFFIRMED_RE = re.compile(r"\b(?:isn't|is\s+not|aren't|are\s+not|not|never)\s+(?:\w+\s+)?"
                               r"(?:free|cheap|negligible|nothing|trivial|zero|costless)\b"
                               r"[^.;!?]{0,30}$", re.IGNORECASE)


# "no per-request flag call and none of that 200 microsecond tax": a cost designed away, not
# one waved off.
_AVOIDED_COST_RE = re.compile(
    r"\b(?:none\s+of|no|without|avoid\w*|eliminat\w*|remov\w*|sav\w*|skip\w*|"
    r"get\s+rid\s+of|never\s+pay)\s+(?:that|the|this|those|any)?\s*(?:~|about\s+|roughly\s+)?$",
    re.IGNORECASE)


_REVERSAL_RE = re.compile(r"\b(?:revers\w*|swap\w*|confus\w*|misattribut\w*|wrong way|"
                          r"backwards?|mix(?:es|ed)? up)\b", re.IGNORECASE)


_DEFINITION_PITFALL_RE = re.compile(r"\b(?:defin\w*|confus\w*|vocabular\w*)\b",
                                    re.IGNORECASE)


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
    # A basis is a rate per machine ("12 QPS a card", "120 tokens/s per T4"); the load restated
    # from the question ("55 T4s for 30k QPS") is not one.
    rates = [q.value for q in doc.quantities if q.unit in {"qps", "token/s"}]
    if any("/" in q.unit for q in doc.quantities) or (
            rates and min(rates) < 0.2 * max(rates)):
        return None
    return next((q for q in doc.quantities
                 if q.unit in _COUNT_UNITS or _cards_pointed_back(doc.text, q)), None)


def _cards_pointed_back(text: str, quantity: Quantity) -> bool:
    """"T4s are solid inference cards, so I'd start with around 60 of them": cards counted by
    pointing back at them."""
    return not quantity.unit and bool(
        _OF_THEM_RE.match(text, quantity.end)
        and _CARDS_NAMED_BEFORE_RE.search(text, max(0, quantity.start - 80), quantity.start))


_OF_THEM_RE = re.compile(r"\s+of\s+(?:them|those)\b", re.IGNORECASE)
_CARDS_NAMED_BEFORE_RE = re.compile(r"\b(?:t4|a100|h100|l4|a10g?|gpu|card|node|server)s?\b",
                                    re.IGNORECASE)


_LIMITING = frozenset(["only", "just", "enough", "alone", "solely"])

_COMPARATIVES = frozenset(["faster", "slower", "quicker", "better", "worse"])


def _comparative_of_cadence(doc: Document, spans: list[Span]) -> bool:
    """"if retrains are weekly or faster, TorchServe": "or faster" qualifies a cadence, it
    does not say which tool is faster."""
    for span in spans:
        index = doc.token_index.get(span.start)
        if index and doc.tokens[index].lower in _COMPARATIVES \
                and doc.tokens[index - 1].lower in {"or", "and"}:
            return True
    return False


def _limits_kept(doc: Document, pattern: Pattern, sentence: int) -> bool:
    """A mistake that lies in a limit ("average latency only") is made only where the limit
    is stated too: "even when average latency is fine" names averages without relying on them."""
    limits = {w.lower() for w in re.findall(r"[A-Za-z]+", pattern.source)} & _LIMITING
    if not limits:
        return True
    words = {t.lower for t in doc.tokens if t.sentence == sentence}
    return bool(words & limits)


# A pitfall's phrase is one thought ("15ms on average", "from the first minute"): its words
# within a few words of each other, not scattered over a sentence that says something else
# ("target 15ms at p99, because ... averages hide the tail").
_SPREAD_PER_WORD = 3


def _close_together(doc: Document, pattern: Pattern, spans: list[Span]) -> bool:
    positions = sorted(doc.token_index[s.start] for s in spans if s.start in doc.token_index)
    if len(positions) < 2:
        return True
    words = len(pattern.keys) + len(pattern.numbers)
    # A short phrase has no word to spare: "judge from the first minute" is not "wait 10-15
    # minutes ... before judging".
    if len(pattern.keys) <= 3 and len({doc.tokens[p].key for p in positions}) < len(pattern.keys):
        return False
    if positions[-1] - positions[0] > _SPREAD_PER_WORD * max(words, 2):
        return False
    # Within one clause: "15ms at p99, because averages hide the tail" is two thoughts.
    between = doc.text[doc.tokens[positions[0]].end : doc.tokens[positions[-1]].start]
    return not _CLAUSE_BREAK_RE.search(between)


# (", so each server keeps flag state in memory" is the consequence, another thought.)
_CLAUSE_BREAK_RE = re.compile(r"[;:()]|,\s*so\b|\b(?:because|but|since|while|whereas|although)\b",
                              re.IGNORECASE)


_NOT_BEFORE_ONLY_RE = re.compile(r"\b(?:not|n't)\s+(?:just\s+|only\s+)?$", re.IGNORECASE)


def _not_only(doc: Document, pattern: Pattern, spans: list[Span]) -> bool:
    """A mistake of "only X" said as "not only X" / "not just X": the answer says the opposite
    ("let those trigger the rollback too, not only 5xx")."""
    if not re.search(r"\b(?:only|just)\b", pattern.source, re.IGNORECASE):
        return False
    for span in spans:
        said = doc.text[span.start : span.end]
        at = span.start + (said.lower().find("only") if "only" in said.lower() else 0)
        if _NOT_BEFORE_ONLY_RE.search(doc.text, max(0, at - 12), at) or \
                _NOT_BEFORE_ONLY_RE.search(doc.text, max(0, span.start - 12), span.start):
            return True
    return False


def _rejection_said(doc: Document, pattern: Pattern, sentence: int) -> bool:
    """A one-word rejection ("hop is negligible") is the mistake only where its own rejecting
    word is said: "keep the win without the hop" rejects the hop, not its cost."""
    if not pattern.negative or len(pattern.keys) != 1 or sentence < 0:
        return True
    rejecting = {w.lower() for w in re.findall(r"[A-Za-z']+", pattern.source)} & _REJECTING
    if not rejecting:
        return True
    span = doc.sentences[sentence]
    said = {w.lower() for w in re.findall(r"[A-Za-z']+", doc.text[span.start : span.end])}
    return bool(said & rejecting)


_REJECTING = frozenset(["negligible", "irrelevant", "pointless", "redundant", "overblown",
                        "overkill", "unnecessary"])
