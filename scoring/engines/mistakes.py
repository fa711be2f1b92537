"""Pitfalls committed in the candidate's own words.

A pitfall's phrases catch the mistake as the bank's authors wrote it. People commit the same
mistake in other words, and most pitfalls of a system-design rubric are one of a few kinds of
mistake: calling one signal enough ("if requests succeed, the platform is healthy"), acting
before the evidence is in ("I'd promote as soon as the first dashboard refresh looks clean"),
declaring a problem solved with nothing left to measure, pushing utilisation with no eye on
the tail, or signing off on the figure the question put in doubt. Each kind is recognised from
the pitfall's own label and checks (what the mistake is about) and found, clause by clause, by
its form in the answer, never where the clause denies it ("5xx alone is not enough").
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from functools import lru_cache

from scoring.engines.base import CriterionSpec, Span
from scoring.engines.clauses import Document
from scoring.engines.numbers import find_quantities
from scoring.engines.text import tokenize

# A clause: the stretch of a sentence between strong breaks. Sufficiency and haste are claims
# about one thing, so they are judged where that thing is named.
_CLAUSE_BREAK_RE = re.compile(r"[;:]|,\s+(?:but|although|though|whereas|while|yet)\b|"
                              r"\s(?:but|however|although|whereas)\s", re.IGNORECASE)

# A denial or a doubt in front of the claim takes it back ("5xx alone isn't enough", "I wouldn't
# promote right away", "can't assume that").
_DENIAL_RE = re.compile(
    r"\b(?:not|never|no|nor|without|n't|isn't|aren't|wasn't|won't|wouldn't|don't|doesn't|"
    r"didn't|can't|cannot|shouldn't|mustn't|neither|rather than|instead of|unless|until|"
    r"insufficient|inadequate|misleading|dangerous|risky|mistake|wrong|trap|tempting|"
    r"avoid|beware|naive|myth|refuse|refusing)\b|n't\b", re.IGNORECASE)

_DOUBT_RE = re.compile(
    r"\b(?:question|doubt|suspicious|suspect|sceptic\w*|skeptic\w*|verify|validate|re-?check|"
    r"sanity|assum\w*|too (?:good|high|low|optimistic)|optimistic|inconsistent|off|missing|"
    r"forgot|forgets|excludes?|ignores?|before headroom|without headroom|before the headroom|"
    # "I'd correct that line ..., note that 1,250 is the bare requirement".
    r"(?:no|zero) headroom|bare|correct (?:that|the|this|it)|fix (?:that|the|this|it)|"
    r"need(?:s)? more|short|under-?provision\w*|check\w* (?:the |their )?(?:workload|mix|"
    r"assumptions?|numbers?)|before (?:planning|relying|building))\b", re.IGNORECASE)


@dataclass(frozen=True)
class Clause:
    start: int
    end: int
    text: str


def clauses(doc: Document) -> Iterator[tuple[Clause, str]]:
    """(clause, the whole sentence's text) for every clause of the answer."""
    for sentence in doc.sentences:
        text = doc.text[sentence.start : sentence.end]
        cut = 0
        for match in _CLAUSE_BREAK_RE.finditer(text):
            if match.start() > cut:
                yield Clause(sentence.start + cut, sentence.start + match.start(),
                             text[cut : match.start()]), text
            cut = match.end()
        if cut < len(text):
            yield Clause(sentence.start + cut, sentence.end, text[cut:]), text


# "If something's wrong, we revert": a condition, not a denial of what follows.
_CONDITION_WRONG_RE = re.compile(
    r"\b(?:something|anything|things?|it|that)(?:'s|’s| is| are| goes| go| looks?)\s+"
    r"(?:\w+\s+)?wrong\b", re.IGNORECASE)


def _denied_before(text: str, at: int, reach: int = 40) -> bool:
    """A denial in the words leading up to `at` (within the clause)."""
    before = _CONDITION_WRONG_RE.sub(" ", text[max(0, at - reach) : at])
    return bool(_DENIAL_RE.search(before))



# --- What a pitfall is about ----------------------------------------------------------------

# Signals that candidates call enough on their own; one named in the pitfall brings its kin.
_SIGNAL_KIN = {
    "5xx": ("5xx", "5xxs", "500s", "error", "errors", "erroring", "error rate", "http errors",
            "failures", "failing requests", "request failures"),
    "error": ("5xx", "5xxs", "500s", "error", "errors", "erroring", "error rate",
              "http errors", "failures", "failing requests", "request failures"),
    "average": ("average", "averages", "mean", "avg"),
    "rule": ("rule", "alert", "alarm", "threshold", "existing check", "alertmanager"),
}

_SUFFICIENT_RE = re.compile(
    # "with enough requests" asks for a quantity; it does not call a signal enough.
    r"\b(?:(?:good\s+)?enough(?!\s+(?:requests?|samples?|traffic|data|time|volume|users?|"
    r"events?|orders?|observations?|headroom|capacity|margin|evidence|statistical|power|"
    r"hours?|minutes?|days?|replicas?|gpus?|load|queries|points?)\b)|sufficient|suffices?|"
    r"plenty|all (?:we|you|i) (?:need|care about|"
    r"have to watch)|all the (?:[\w-]+\s+){0,2}(?:we|you|i)(?:'d| would)? (?:need|want)|"
    # "... and that's basically the monitoring plan": one signal offered as the whole plan.
    r"(?:that's|that is)\s+(?:basically\s+|really\s+|pretty much\s+)?(?:the|my|our)\s+(?:whole\s+|"
    r"entire\s+)?(?:monitoring\s+|alerting\s+|rollback\s+|gating\s+)?(?:plan|story|strategy|"
    r"setup)|is the signal for (?:that|it)|"
    r"the only (?:thing|signal|metric|one|number|check)s?(?: that)?(?: matters?)?|"
    r"(?:is|are|that's|that is) what matters|that matters|(?:that's|is) what tells (?:you|us)|"
    r"only (?:thing|signal|metric) (?:that )?matters|"
    r"covers? (?:it|us|everything|that|the rest|(?:slow\s+)?leaks?)|nothing else|"
    r"covers? the (?:[\w-]+\s+){1,3}(?:that|which) (?:actually |really )?matters?|"
    r"catch(?:es)? (?:it|them|that|"
    r"everything|any|slow|leaks?|it all)|will catch|would catch|keep (?:it|things|the \w+) "
    r"simple|the one (?:thing|signal|metric) (?:that )?matters|(?:wouldn't|won't|don't need to|"
    r"no need to) add (?:any )?(?:more|other|extra|further) (?:gates|checks|metrics|signals|"
    r"alerts)|rely (?:solely |only |just |"
    r"entirely )?on|(?:just|only|simply) (?:watch|monitor|page on|alert on|track|look at|"
    r"use|check)|is the (?:one|signal|metric) (?:to|that)|is the (?:correct|right|real|best) "
    r"(?:trigger|signal|metric|gate|check)|and that's it|is how you know|(?:the )?(?:key|main|only|"
    r"real) safety net|(?:wouldn't|won't|don't) (?:clutter|complicate)|"
    # "For me the cleanest signal on any serving platform is the error rate".
    r"(?:cleanest|truest|single best|most honest) (?:signal|metric|indicator))\b", re.IGNORECASE)

# "if requests succeed, it's healthy", "if it isn't throwing errors it's fine to promote".
_HEALTHY_IF_RE = re.compile(
    r"\b(?:if|as long as|so long as|when)\b(?P<cond>[^.;:]{0,60}?)[, ]+(?:then\s+)?"
    r"(?:it's|it is|we're|we are|the \w+ is|the \w+ are|that's|everything is|all is|"
    r"things are|you're|i'd call it|it's safe to|we can|i'd|you can|there's|there is)?\s*"
    r"(?P<fine>fine|healthy|ok|okay|good|safe|working|alright|all good|green|promote|ship|"
    r"doing (?:its|their) job|not much (?:else )?(?:that )?(?:can|could) go (?:\w+ )?wrong|"
    r"nothing (?:else )?(?:that )?(?:can|could) go (?:\w+ )?wrong)\b",
    re.IGNORECASE)
_CONDITION_OK_RE = re.compile(
    r"\b(?:succeed\w*|no (?:errors?|5xx\w*|failures?)|(?:isn't|aren't|not|doesn't|don't)\s+"
    r"(?:\w+\s+)?(?:erroring|throwing|failing|returning (?:errors|5xx\w*)|error\w*)|"
    r"return(?:s|ing)? 200s?|zero (?:errors|5xx\w*)|error rate (?:is |stays )?(?:flat|low|zero))",
    re.IGNORECASE)
# "no errors means happy users".
_NO_ERRORS_MEANS_RE = re.compile(
    r"\bno (?:errors?|5xx\w*|failures?) (?:means?|=|equals?) (?:happy|healthy|fine|good|"
    r"working)\b|\bif (?:there's |there are |we see )?no (?:5xx|errors?|error spike|5xx spike)"
    r"[^.;]{0,40}?\b(?:good enough|fine|healthy|safe|ready|promot\w*|ship\w*)\b", re.IGNORECASE)
_NOT_FAILING_IS_FINE_RE = re.compile(
    r"\b(?:that|which|who)\s+(?:isn't|is not|aren't|are not|doesn't|don't)\s+(?:\w+\s+)?"
    r"(?:throwing|returning|erroring|failing|error\w*)[^.;:]{0,30}?\b(?:is|are)\s+(?:doing (?:its|"
    r"their) job|fine|healthy|ok|okay|good|working)\b", re.IGNORECASE)
_CAVEAT_RE = re.compile(r"\b(?:still|but|however|doesn't mean|not mean|only means|"
                        r"necessarily|can't|cannot|enough to)\b", re.IGNORECASE)


_NOTHING_MORE_RE = re.compile(r"(?:wouldn't|won't|don't need to|no need to) add|"
                              r"(?:wouldn't|won't|don't) (?:clutter|complicate)", re.IGNORECASE)


@lru_cache(maxsize=1024)
def _signals(criterion: CriterionSpec) -> tuple[str, ...]:
    """The signals a sufficiency pitfall names ("5xx", "rule", "average") with their kin."""
    said = " ".join([criterion.label, criterion.checks, *criterion.phrases]).lower()
    found: list[str] = []
    for name, kin in _SIGNAL_KIN.items():
        if re.search(rf"\b{re.escape(name)}", said):
            found.extend(k for k in kin if k not in found)
    return tuple(found)


_NOT_JUST_BEFORE_RE = re.compile(r"\bnot\s+(?:just|only|merely)\s+(?:on\s+)?$", re.IGNORECASE)


def _signal_at(text: str, signals: tuple[str, ...]) -> re.Match[str] | None:
    """The first signal named as one to rely on: "not just 5xx" names it to go beyond it."""
    if not signals:
        return None
    pattern = r"\b(?:" + "|".join(re.escape(s) for s in sorted(signals, key=len, reverse=True)) \
        + r")\b"
    return next((m for m in re.finditer(pattern, text, re.IGNORECASE)
                 if not _NOT_JUST_BEFORE_RE.search(text, max(0, m.start() - 20), m.start())),
                None)


# A yes/no question's trap answered yes: "Will that rule catch a slow leak?" "Yes, it'll catch
# it." Said at the start of the answer, before any doubt.
_YES_RE = re.compile(r"^\s*(?:yes|yeah|yep|yup|sure)\b[,.!]?\s*(?:(?:it|the rule|that|this)"
                     r"(?:'ll| will| would| does| should)?\s+)?(?:catch\w*|work\w*|cover\w*|"
                     r"be enough|is enough|suffice\w*)\b", re.IGNORECASE)


def _one_signal_enough(doc: Document, criterion: CriterionSpec) -> list[Span]:
    """One signal called enough on its own: "5xx is all we need", "rely on the 5xx rollback",
    "if requests succeed, the platform is healthy"."""
    signals = _signals(criterion)
    spans: list[Span] = []
    opening = _YES_RE.match(doc.text)
    if opening and re.search(r"\bcatch", f"{criterion.label} {criterion.checks}", re.I):
        spans.append(Span(opening.start(), opening.end()))
    for clause, _sentence in clauses(doc):
        text = clause.text
        enough = _SUFFICIENT_RE.search(text)
        named = _signal_at(text, signals) or re.search(r"\bsucceed", text, re.I)
        if enough and named and (_NOTHING_MORE_RE.match(enough.group(0)) or (
                not _denied_before(text, enough.start())
                and not _DENIAL_RE.search(text[enough.end() : enough.end() + 12]))):
            spans.append(Span(clause.start, clause.end))
            continue
        fine = _NOT_FAILING_IS_FINE_RE.search(text) or _NO_ERRORS_MEANS_RE.search(text)
        # A caveat outside the claim ("no 5xx is good enough to promote" is the claim).
        if fine and not _CAVEAT_RE.search(text[: fine.start()] + " " + text[fine.end() :]):
            spans.append(Span(clause.start, clause.end))
            continue
        healthy = _HEALTHY_IF_RE.search(text)
        if healthy and _CONDITION_OK_RE.search(healthy.group("cond")) \
                and not _CAVEAT_RE.search(text) \
                and (_signal_at(text, signals) or re.search(r"\bsucceed|\b200s?\b", text, re.I)):
            spans.append(Span(clause.start, clause.end))
    return spans


# Acting before the evidence is in.
_HASTE_RE = re.compile(
    r"\b(?:immediately|instantly|right away|straight away|at once|in seconds|within seconds|"
    r"as soon as|the moment|the minute|first (?:few )?(?:minutes?|dashboard|look|refresh|"
    r"data ?points?|numbers|graphs?|glance)|no need to wait|don't need to wait|no point "
    r"(?:in )?waiting|without waiting|skip(?:ping)? the (?:bake|wait|soak)|"
    r"after (?:just )?(?:a|one|two|a couple of|a few|a minute or) (?:minutes?|mins?|two)|"
    r"(?:don't|do not|wouldn't) (?:really )?(?:think )?(?:we |you )?need to (?:wait|sit|hang)|"
    r"waiting (?:around )?(?:\w+ )?(?:delays|slows|wastes|costs)|(?:from )?minute one|"
    r"(?:wouldn't|won't|don't|do not|would not) (?:\w+ )?wait around)\b", re.IGNORECASE)
_PROMOTE_RE = re.compile(
    r"\b(?:promot\w*|ship\w*|roll(?:s|ing)? (?:it )?out|rollout|go(?:ing)? (?:to )?(?:100|full|"
    r"wide)|go(?:ing)? (?:up )?to \d+(?=\s?%)|ramp\w*|expand\w*|widen\w*|judg\w*|compar\w*|"
    r"decid\w*|evaluat\w*|assess\w*|call it|flip\w*|mov(?:e|ing) on(?: to)?|"
    r"go live|cut over|releas\w*)\b", re.IGNORECASE)
_REVERT_RE = re.compile(r"\b(?:revert\w*|roll(?:s|ed|ing)? (?:it )?back|rollback\w*|undo\w*)\b",
                        re.IGNORECASE)
_UNAFFECTED_RE = re.compile(r"\b(?:(?:isn't|is not|aren't|not) (?:\w+ )?affected|unaffected|"
                            r"doesn't (?:affect|change|slow|delay)|no effect on)\b", re.IGNORECASE)
# "git revert and you're back on the old version": the revert taken as done on the spot.
_INSTANT_RE = re.compile(r"\b(?:immediate|instant|instantaneous|(?:you're|we're|you are|we are)\s+"
                         r"back\s+(?:on|to)\s+(?:the\s+)?(?:old|previous|last))\b", re.IGNORECASE)
# A rollback in the data plane (mesh weights, a Rollouts abort) is instant; Git is not.
# ("Flagger returns the weight to the stable version within seconds, and the Git revert follows
# as housekeeping": the weight moved by a controller.)
_DATA_PLANE_RE = re.compile(r"\b(?:data[- ]plane|abort\w*|(?:mesh|canary|traffic) weights?|"
                            r"weights? (?:back|to zero)|no git round[- ]trip|"
                            r"(?:returns?|moves?|shifts?|sets?|puts?|flips?|drops?)\s+the\s+"
                            r"(?:traffic\s+)?weights?\b|flagger|argo\s+rollouts|istio|envoy)\b",
                            re.IGNORECASE)


def _acts_in_haste(doc: Document, criterion: CriterionSpec) -> list[Span]:
    """Promotion (or a rollback) taken as immediate: "promote as soon as the first dashboard
    looks clean", "git revert; that rolls back immediately", "rollback isn't affected"."""
    about = f"{criterion.label} {criterion.checks}"
    action = _REVERT_RE if re.search(r"revert|roll ?back", about, re.IGNORECASE) else _PROMOTE_RE
    spans: list[Span] = []
    for clause, _sentence in clauses(doc):
        text = clause.text
        act = action.search(text)
        if not act:
            continue
        haste = _HASTE_RE.search(text)
        if action is _REVERT_RE:
            if _DATA_PLANE_RE.search(text):
                continue  # "aborting drops the canary weight within seconds" is instant
            haste = haste or _UNAFFECTED_RE.search(text) or _INSTANT_RE.search(text)
            if haste and _UNAFFECTED_RE.match(text, haste.start()):
                spans.append(Span(clause.start, clause.end))
                continue
        if not haste:
            continue
        first = min(act.start(), haste.start())
        if _denied_before(text, first) or _denied_before(text, haste.start(), 25) \
                or re.search(r"\b(?:wait|bake|soak|hold|after)\b", text[: haste.start()], re.I) \
                and not re.search(r"waiting", text[haste.start() : haste.end()], re.I):
            continue
        spans.append(Span(clause.start, clause.end))
    return spans


# A problem declared solved, with nothing left to measure.
_SOLVED_RE = re.compile(r"\b(?:solved|fixed|done|sorted|handled|settled|a non-issue|no longer "
                        r"(?:a|an) (?:issue|problem|concern))\b", re.IGNORECASE)
# Closed without a word about latency: "TensorRT was the fix, that box is ticked".
_CLOSED_RE = re.compile(r"\b(?:was|is) the fix\b|\bbox is ticked\b|\bticked (?:that|it) off\b|"
                        r"\bmove on to other (?:work|things)\b|\bdone and dusted\b|"
                        r"\bcase closed\b|\bproblem solved\b|\bjob done\b",
                        re.IGNORECASE)
_NO_REMEASURE_RE = re.compile(
    r"\b(?:(?:no|don't|doesn't|won't|wouldn't|never|not)\s+(?:\w+\s+){0,3}"
    r"(?:need|point|reason|bother)\w*\s+(?:\w+\s+){0,3}(?:re-?)?(?:run\w*\s+|do\w*\s+)?(?:measur|"
    r"benchmark|test|load[- ]?test|profil|monitor|check)\w*|deterministic|locked in|"
    r"a property of the (?:compiled )?(?:engine|kernels?)|(?:stays?|remain\w*|will be) "
    r"(?:the same|stable|constant|fixed) (?:forever|from now on|in production|going forward))",
    re.IGNORECASE)


def _declares_solved(doc: Document, criterion: CriterionSpec) -> list[Span]:
    spans: list[Span] = []
    for clause, _sentence in clauses(doc):
        text = clause.text
        solved = _SOLVED_RE.search(text)
        if solved and re.search(r"\b(?:latency|problem|issue|slo|sla|budget|p9\d)\b", text, re.I) \
                and not _denied_before(text, solved.start(), 25):
            spans.append(Span(clause.start, clause.end))
            continue
        closed = _CLOSED_RE.search(text)
        if closed and not _denied_before(text, closed.start(), 25):
            spans.append(Span(clause.start, clause.end))
            continue
        if _NO_REMEASURE_RE.search(text):
            spans.append(Span(clause.start, clause.end))
    return spans


# Utilisation chased with no eye on the tail.
_UTILISATION_RE = re.compile(
    r"\b(?:utili[sz]\w*|idle|busy|saturat\w*|wasted?|(?:in)?efficien\w*|pegged|maxed|"
    r"in the (?:high )?90s|(?:use|fill|load|saturate) the (?:whole|entire|full) (?:card|gpu)|"
    r"fully loaded)\b",
    re.IGNORECASE)
_PUSH_RE = re.compile(
    r"\b(?:push\w*|rais\w*|increas\w*|crank\w*|bump\w*|doubl\w*|max\w*|bigger|larger|grow\w*|"
    r"go(?:ing)? (?:(?:up|straight|right|directly) )*to)\b[^.;]{0,40}\bbatch\w*|"
    r"\bbatch\w*[^.;]{0,30}\b(?:up|higher|bigger|"
    r"larger|as (?:big|large|high) as)\b|\b(?:100|9\d)\s?%|\bfrom\s+(?:a\s+)?batch(?:\s+size)?\s+"
    r"(?:of\s+)?\d+\s+to\s+(?:batch\s+)?\d+|\b(?:into|in|up in|up to) the (?:high )?90s\b|"
    r"\bgo(?:ing)? from \d+ (?:straight |directly |right )?(?:up )?to \d+\b|"
    r"\b(?:roll|jump|go|move)\w* straight to \d+\b|\bkeep (?:going|pushing|growing) while\b",
    re.IGNORECASE)
_TAIL_RE = re.compile(r"\b(?:p9\d|tail|latency|slo|sla|\d+\s?ms|deadline|budget|queue\w*)\b",
                      re.IGNORECASE)

# The candidate's own plan, not a description of what batching does.
_INTENT_RE = re.compile(r"\b(?:i'd|i would|i will|i'll|we should|we'd|we will|we'll|let's|"
                        r"push|crank|max(?:imi[sz]e)? (?:it|out)|until|so i|my plan|go for)\b",
                        re.IGNORECASE)


def _chases_utilisation(doc: Document, criterion: CriterionSpec) -> list[Span]:
    spans: list[Span] = []
    for sentence in doc.sentences:
        text = doc.text[sentence.start : sentence.end]
        push = _PUSH_RE.search(text)
        if not push or not _UTILISATION_RE.search(text) or _TAIL_RE.search(text) \
                or not _INTENT_RE.search(text):
            continue
        if _denied_before(text, push.start(), 25):
            continue
        spans.append(Span(sentence.start, sentence.end))
    return spans


# The figure the question puts in doubt, signed off as it stands.
_APPROVE_RE = re.compile(
    r"\b(?:is|are|looks?|seems?|sounds?)\s+(?:\w+\s+)?(?:fine|ok|okay|good|right|correct|"
    r"enough|sufficient|acceptable|reasonable|plausible|realistic|solid|close enough|"
    r"about right)\b|\b(?:isn't|is not|not) (?:that )?(?:crazy|bad|terrible|far off|a big deal)\b|"
    r"\b(?:holds? up|checks? out|sign(?:ing)? off|go(?:ing)? with|stick(?:ing)? "
    r"with|keep(?:ing)?|plan(?:ning)? (?:on|with|around|for)|trust(?:ing)?|tak(?:e|ing) "
    r"(?:it|that|them|their)|use(?:s|d|ing)?|budget(?:ing)? for|order(?:ing)?|buy(?:ing)?|"
    r"approv\w*|accept\w*|(?:comfortable|happy|fine|ok|okay|confident) with|"
    r"(?:going|goes|send\w*) to procurement|(?:headroom|buffer|margin) is (?:already )?(?:built|"
    r"baked) in\w*|(?:we're|we are|that's) covered|"
    r"tak(?:e|ing) (?:~|about |around |roughly )?(?=\d))"
    r"(?:\b|(?=\d))", re.IGNORECASE)


@lru_cache(maxsize=1024)
def _doubted_figures(criterion: CriterionSpec) -> tuple[tuple[float, str], ...]:
    """The figures a sign-off pitfall is about ("sign off on 1,250", "25ms is fine")."""
    seen: list[tuple[float, str]] = []
    for phrase in criterion.phrases:
        if not _APPROVE_RE.search(phrase):
            continue  # "18ms is not a hard line" names the limit, not the figure signed off
        for quantity in find_quantities(phrase):
            key = (quantity.written, quantity.unit)
            if quantity.written >= 10 and key not in seen:
                seen.append(key)
    return tuple(seen)


# The design in doubt shipped unchanged: "I'd get it out the door on CPU as it is".
_AS_IS_RE = re.compile(
    r"\b(?:ship|launch|go live|get (?:it|this) out|out the door|deploy|release|roll (?:it )?out|"
    r"keep|run|sign)\w*\b[^.;:]{0,40}?\b(?:as it is|as-is|as designed|as planned|unchanged|"
    r"as it stands)\b", re.IGNORECASE)


# The doubted claim endorsed without naming it: "so it broadly holds, and I'd be comfortable
# building our plan on it".
_ENDORSE_RE = re.compile(
    r"\b(?:it|that|this|their (?:number|figure|claim)|the (?:number|figure|claim))\s+"
    r"(?:broadly |basically |mostly |roughly |pretty much )?(?:holds(?: up)?|checks out)\b|"
    r"\b(?:comfortable|happy|fine|confident) (?:building|basing|planning) (?:our |the )?"
    r"(?:plan|sizing|capacity|capacity plan)\b|"
    # "I'd believe it and take their per-GPU number as the basis for our plan".
    r"\b(?:take|use|adopt)\s+(?:their|the|that|meta's)\s+(?:[\w-]+\s+)?(?:number|figure|claim)\s+"
    r"as\s+(?:the|our|a)\s+(?:basis|baseline|given|starting point)\b|"
    # "take their 562 QPS per A100 and size our fleet with it directly".
    r"\b(?:size|plan|build)\w*\s+(?:our|the)\s+(?:fleet|cluster|capacity(?:\s+plan)?|plan)\s+"
    r"(?:with|on|from|around)\s+(?:it|that|this|their\s+(?:number|figure))\b", re.IGNORECASE)


def _signs_off(doc: Document, criterion: CriterionSpec) -> list[Span]:
    figures = _doubted_figures(criterion)
    if not figures:
        return []
    spans: list[Span] = []
    for clause, sentence in clauses(doc):
        text = clause.text
        as_is = _AS_IS_RE.search(text) or _ENDORSE_RE.search(text)
        if as_is and not _denied_before(text, as_is.start(), 30) and not _DOUBT_RE.search(text) \
                and not re.search(r"\b(?:if|unless|whether)\b", text[: as_is.start()], re.I):
            spans.append(Span(clause.start, clause.end))
            continue
        stated = [q for q in find_quantities(text)
                  if any(abs(q.written - value) <= 0.02 * value and (not unit or not q.unit
                                                                     or q.unit == unit)
                         for value, unit in figures)]
        if not stated:
            continue
        approve = _APPROVE_RE.search(text)
        if not approve or _denied_before(text, approve.start(), 30) or _DOUBT_RE.search(sentence) \
                or re.search(r"\?|\b(?:but|however|if|whether|unless|claims?|says?|reported|"
                             # "562.5 QPS per GPU, versus the ~40 we use": a comparison.
                             r"quoted|their|versus|vs|compared)\b", text, re.IGNORECASE):
            continue
        spans.append(Span(clause.start, clause.end))
    return spans


# A latency target stated as an average ("meaning on average a request comes back in 10ms").
# Not "the ranking model typically gets 10-20ms": what callers usually allow, not a mean.
_AVERAGE_RE = re.compile(r"\b(?:on average|average|mean|avg|"
                         r"typical(?:ly)?(?!\s+(?:~?\d|gets?\b|receives?\b|is\s+given|are\s+given|"
                         r"allows?\b|for\b))|"
                         r"add(?:ing)? (?:up|together) (?:all )?(?:the |their )?"
                         r"(?:times|latenc\w+)|"
                         r"divid\w* by the (?:count|number of requests))\b", re.IGNORECASE)
_AVERAGE_DOUBT_RE = re.compile(
    r"\b(?:hides?|hiding|mask\w*|mislead\w*|lies?|lying|instead|rather|only|while|whereas|even|"
    r"but|tail|worst|outliers?|skew\w*|stutter\w*|spread|not|never|n't|vs\.?|versus|compared)\b"
    # "which is why it's stricter than an average": the average as the thing compared with.
    r"|n't\b|\bthan\s+(?:an?|the|a\s+plain|just\s+an?)\s+(?:average|mean)\b",
    re.IGNORECASE)
# "I'd measure average latency ...", "the average is what users feel": the average as the SLI.
_AVERAGE_AS_METRIC_RE = re.compile(
    r"\b(?:measure|track|monitor|report|alert on|page on|use|watch)\s+(?:the\s+)?(?:average|mean)"
    r"\s+latency\b|"
    # "I'd define it as average latency across all requests", "state the target as the mean".
    r"\b(?:define|state|set|express|write)\s+(?:it|the\s+(?:target|slo|sla|goal)|our\s+target)\s+"
    r"(?:as|on)\s+(?:the\s+|an?\s+)?(?:average|mean)\b|\b(?:the\s+)?(?:average|mean)\s+is\s+what\s+(?:users|people|customers)|"
    r"\b(?:average|mean)\s+(?:tells\s+(?:you|us)|is)\s+(?:everything|all\s+(?:you|we)\s+need|"
    r"enough)",
    re.IGNORECASE)
_MS_RE = re.compile(r"\d\s?(?:ms|milliseconds?)\b", re.IGNORECASE)


def _targets_average(doc: Document, criterion: CriterionSpec) -> list[Span]:
    spans: list[Span] = []
    for clause, _sentence in clauses(doc):
        text = clause.text
        average = _AVERAGE_RE.search(text)
        # "add up the latencies and divide by the count" defines the mean, figure or not.
        spelled = average is not None and average.group(0).lower().startswith(("add", "divid"))
        if average and (spelled or _MS_RE.search(text) or _AVERAGE_AS_METRIC_RE.search(text)) \
                and not _AVERAGE_DOUBT_RE.search(text):
            spans.append(Span(clause.start, clause.end))
    return spans


# A choice made "regardless of the rebuild delay" or "ignoring the sync window": the caveat the
# pitfall names, waved away in the answer ("rebuilds are a CI detail", "the sync window doesn't
# matter"): any word of it that a dismissal or negation takes back.
# "Pitfall: no bake window", "skips the stabilization window": what the pitfall leaves out is
# the caveat too, so "a bake after each step is overkill" commits it.
_CAVEAT_NAMED_RE = re.compile(r"\b(?:regardless of|ignoring|without the|dismiss\w*|no|skips?)\s+"
                              r"(?:the\s+)?(?P<caveat>[\w-]+(?:\s+[\w-]+)?)", re.IGNORECASE)


@lru_cache(maxsize=1024)
def _caveat_keys(criterion: CriterionSpec) -> frozenset[str]:
    keys: set[str] = set()
    for match in _CAVEAT_NAMED_RE.finditer(f"{criterion.label} {criterion.checks}"):
        keys |= {t.key for t in tokenize(match.group("caveat"))
                 if t.content and t.key not in {"delay", "caveat", "cost", "time", "window"}}
    return frozenset(keys)


def _waves_off_caveat(doc: Document, criterion: CriterionSpec) -> list[Span]:
    keys = _caveat_keys(criterion)
    if not keys:
        return []
    # Waved away, not avoided: "no compile step" is a design that has no rebuild, "rebuilds are
    # a CI detail" is the rebuild dismissed.
    spans: list[Span] = []
    for token in doc.tokens:
        if token.key in keys and token.negated and token.content:
            sentence = doc.sentences[token.sentence] if 0 <= token.sentence < len(
                doc.sentences) else None
            if sentence is None:
                continue
            # "there's nothing to compile in the release train" describes a design with no
            # rebuild; the "nothing" governs the word itself and waves nothing off.
            said = doc.text[sentence.start : token.start]
            said = re.sub(r"\bnothing\s+(?:\w+\s+)?to\s+$", " ", said, flags=re.IGNORECASE)
            said += doc.text[token.start : sentence.end]
            if _WAVED_OFF_RE.search(said):
                spans.append(Span(token.start, token.end))
    return spans[:3]


_WAVED_OFF_RE = re.compile(
    r"\b(?:detail|overblown|nothing|negligible|doesn't (?:really )?matter|don't (?:really )?"
    r"(?:buy|care)|not (?:a )?(?:big )?deal|overkill|noise|coffee break|not a bottleneck|"
    r"isn't a bottleneck|non-?issue|just a ci|not really|won't notice|cheap|free)\b",
    re.IGNORECASE)


# Throughput worked out from peak compute: "an A100 does 300 teraflops ... so in principle a
# card pushes 20,000 tokens a second". Measured throughput at the latency target is the basis.
_PEAK_COMPUTE_RE = re.compile(
    r"\b(?:tera-?flops?|tflops?|flops?|peak (?:compute|throughput)|from compute|spec[- ]sheet|"
    r"in (?:principle|theory)|theoretical(?:ly)?|on paper)\b", re.IGNORECASE)
_PEAK_DOUBT_RE = re.compile(
    # "which I trust way more than anything derived from TFLOPS", "unlike a TFLOPS calculation".
    r"\b(?:unlike|than\s+anything|more\s+than\s+(?:a|any)\b|"
    r"never|not|don'?t|wouldn'?t|rather than|instead of|misleading|overstat\w*|optimistic|"
    r"ignores?|useless|can'?t|cannot|won'?t)\b|n't\b", re.IGNORECASE)


def _estimates_from_peak(doc: Document, criterion: CriterionSpec) -> list[Span]:
    """Throughput or a count derived from peak compute, with no doubt cast on it."""
    spans: list[Span] = []
    for clause, sentence in clauses(doc):
        peak = _PEAK_COMPUTE_RE.search(clause.text)
        # "I wouldnt start from the datasheet FLOPs, I'd start from what one card does" avoids it.
        if peak and not _PEAK_DOUBT_RE.search(sentence) and find_quantities(clause.text):
            spans.append(Span(clause.start, clause.end))
    return spans


@dataclass(frozen=True)
class MistakeKind:
    name: str
    about: re.Pattern[str]  # matched against the pitfall's label and checks
    find: Callable[[Document, CriterionSpec], list[Span]]


KINDS: tuple[MistakeKind, ...] = (
    MistakeKind("one signal enough",
                re.compile(r"\bonly\b|\benough\b|sufficient|\bcatch", re.IGNORECASE),
                _one_signal_enough),
    MistakeKind("haste", re.compile(r"immediate|instant|stabili[sz]ation|bake window|"
                                    r"skips the", re.IGNORECASE), _acts_in_haste),
    MistakeKind("declared solved", re.compile(r"\bsolved\b|re-?measure", re.IGNORECASE),
                _declares_solved),
    MistakeKind("utilisation chased", re.compile(r"utili[sz]ation", re.IGNORECASE),
                _chases_utilisation),
    MistakeKind("caveat waved off", re.compile(r"regardless of|ignoring|without the \w+ caveat|"
                                               r"pitfall: no \w+|skips the", re.IGNORECASE),
                _waves_off_caveat),
    MistakeKind("average target", re.compile(r"\baverage or mean\b|\bmean latency target|"
                                             r"percentiles are unnecessary|averages only",
                                             re.IGNORECASE), _targets_average),
    MistakeKind("estimated from peak compute", re.compile(r"\btflops\b|spec-sheet|peak compute|"
                                                          r"theoretical", re.IGNORECASE),
                _estimates_from_peak),
    MistakeKind("signed off", re.compile(r"signs? off|as-is|without questioning|keeps the|"
                                         r"acceptable|reported \d", re.IGNORECASE), _signs_off),
)


@lru_cache(maxsize=1024)
def kinds_for(criterion: CriterionSpec) -> tuple[MistakeKind, ...]:
    about = f"{criterion.label} {criterion.checks}"
    return tuple(kind for kind in KINDS if kind.about.search(about))


def committed_in_own_words(doc: Document, criterion: CriterionSpec) -> list[Span]:
    """Where the answer commits the pitfall in a form of its kind of mistake."""
    spans: list[Span] = []
    for kind in kinds_for(criterion):
        spans.extend(kind.find(doc, criterion))
    return spans
