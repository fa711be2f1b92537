"""The interviewer's pushback: the line that probes the most important gap, as a question that
names the gap without stating the answer.
"""

from __future__ import annotations

import re
from functools import lru_cache

from scoring.engines.base import (
    CriterionSpec,
)
from scoring.engines.numbers import (
    Quantity,
    compatible,
    find_quantities,
)
from scoring.engines.text import (
    GENERIC,
    tokenize,
)


@lru_cache(maxsize=4096)
def _pushback_words(criterion: CriterionSpec) -> frozenset[str]:
    """The criterion's own words; they depend on the question only, so once per spec."""
    return frozenset(t.key for t in tokenize(" ".join(
        [criterion.label, criterion.checks, criterion.feedback_miss, *criterion.phrases]))
        if t.content and t.key not in GENERIC)


@lru_cache(maxsize=4096)
def _line_words(line: str) -> frozenset[str]:
    return frozenset(t.key for t in tokenize(line) if t.content and t.key not in GENERIC)


def gives_answer_away(line: str, criteria: tuple[CriterionSpec, ...] = ()) -> bool:
    """A pushback line that asks nothing, or states a figure the rubric wants the candidate to
    work out ("0.7ms is under 6% of the budget"), gives the answer away."""
    if "?" not in line:
        return True
    wanted = [c for c in criteria if c.kind == "numeric" and c.expected_value]
    if not wanted:
        return False
    for quantity in _line_numbers(line):
        for criterion in wanted:
            tolerance = criterion.tolerance_percent if criterion.tolerance_percent is not None \
                else 5.0
            # The figure as written ("0.7ms"), not a conversion of a given rate.
            expected = float(criterion.expected_value)
            if (not quantity.unit or compatible(quantity, criterion.unit)) and abs(
                    quantity.written - expected) <= abs(expected) * tolerance / 100:
                return True
    return False


@lru_cache(maxsize=4096)
def _line_numbers(line: str) -> tuple[Quantity, ...]:
    return tuple(find_quantities(line))


def _pick_pushback(lines: tuple[str, ...], criterion: CriterionSpec,
                   made: tuple[CriterionSpec, ...] = (), ask: bool = True,
                   criteria: tuple[CriterionSpec, ...] = ()) -> str | None:
    """The pushback line that shares most words with the criterion it should probe, passing
    over lines about a point the answer already made (those share more words with a made
    criterion than with this one). With no line left that fits, the criterion's own advice
    as a question, not an unrelated line (with `ask` False, the first line)."""
    wanted = _pushback_words(criterion)
    made_words = [_pushback_words(c) for c in made]
    scored: list[tuple[int, int, str]] = []
    for i, line in enumerate(lines):
        if gives_answer_away(line, criteria):
            continue
        words = _line_words(line)
        overlap = len(wanted & words)
        if overlap and all(len(other & words) <= overlap for other in made_words):
            scored.append((overlap, -i, line))
    if scored:
        return max(scored)[2]
    question = as_question(criterion) if ask else ""
    fallback = next((line for line in lines if not gives_answer_away(line, criteria)), None)
    return question or fallback


# Openings of advice that read as an instruction ("State the stopping rule."), which
# "Could you ...?" turns into a question.
_IMPERATIVE_NOT = frozenset(
    ["a", "an", "the", "if", "in", "on", "at", "with", "before", "after", "every", "each",
     "this", "that", "these", "those", "it", "its", "your", "you", "we", "our", "they",
     "there", "here", "controls", "deploys", "gpus", "cpu", "errors", "error", "also", "only",
     "when", "while", "without", "for", "from", "to", "by", "as", "one", "two", "three"])


_ASIDE_RE = re.compile(r"\s*\([^()]*\)")


_CUT_RE = re.compile(r",|;|:|\(|\s-\s|\s(?:so|for example|such as|e\.g\.|i\.e\.)\s",
                     re.IGNORECASE)


_FIGURE_RE = re.compile(
    r"(?:\b(?:of|at|about|around|over|under|below|above|by|than|within|like|roughly)\s+)?"
    r"(?:~|≈)?[$]?(?<![A-Za-z0-9])\d[\d,.]*(?:\s?(?:-|–|to)\s?\d[\d,.]*)?"
    r"(?:-?\s?(?:%|x|ms|us|µs|s|minutes?|mins?|seconds?|hours?|percent|minute|"
    r"[A-Za-z]+/[A-Za-z]+))?(?![A-Za-z0-9])", re.IGNORECASE)


_DANGLING_THE_RE = re.compile(
    r"\b(?:the|a|an)\s+(?=(?:into|to|in|on|for|with|before|after|and|or|as|down|up|is|are)\b|$)",
    re.IGNORECASE)


def without_answer(advice: str) -> str:
    """The advice's first clause with its figures and asides removed, so a question made from
    it names the gap without stating the answer ("quantify the win, 12ms - 7ms = 5ms" ->
    "quantify the win"; "break the 12ms into per-stage slices" -> "break it into ...")."""
    text = _ASIDE_RE.sub("", advice)
    text = _CUT_RE.split(text, maxsplit=1)[0]
    text = _FIGURE_RE.sub("", text)
    text = _DANGLING_THE_RE.sub("it ", text)
    text = re.sub(r"\s+", " ", text).strip()
    return re.sub(r"\s+(?:of|at|to|the|a|an|and|or|with|for|in|over|under|by)$", "",
                  text).strip()


def as_question(criterion: CriterionSpec) -> str:
    """The criterion's advice as a question that names the gap without giving the answer (see
    as_advice_question), or, for advice that still carries a figure, a plain ask to work it
    out."""
    question = as_advice_question(criterion)
    if not question:
        return ""
    body = question.rstrip("?")
    head, _, rest = body.partition(" you ")
    rest = without_answer(rest) if rest else ""
    if len(rest.split()) < 2 or any(ch.isdigit() and not _inside_name(rest, i)
                                    for i, ch in enumerate(rest)):
        unit = f" in {criterion.unit}" if criterion.unit else ""
        return (f"How would you work out that figure{unit}, step by step?"
                if criterion.kind == "numeric" else "What would you add on this point?")
    return f"{head} you {rest}?"


def _inside_name(text: str, index: int) -> bool:
    """A digit in a name ("p99", "A100", "FP16") is not a figure."""
    return index > 0 and text[index - 1].isalpha()


def as_advice_question(criterion: CriterionSpec) -> str:
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
