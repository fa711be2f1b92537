"""The text a follow-up is scored on: the first answer, then the reply to the pushback with
what the pushback itself stated taken out.

A follow-up earns credit only for substance that the pushback and the first answer did not
already contain. The first answer's points are already scored (scoring the two together adds
nothing for them); a pushback that states a fact ("our canary needs a 15-minute window") must
not lift a reply that only repeats it. So the words and figures of the pushback's statements of
fact (not its questions, which name a gap, nor its instructions) are blanked in the reply,
keeping every offset, before the two are scored together.
"""

from __future__ import annotations

import re

from scoring.engines.numbers import find_quantities
from scoring.engines.text import GENERIC, tokenize

_SENTENCE_BREAK_RE = re.compile(r"(?<=[.!?])\s+")


_INSTRUCTION_RE = re.compile(
    r"^(?:walk|break|tell|give|talk|show|explain|describe|take|say|go|let's|list)\b",
    re.IGNORECASE)


def pushback_statements(pushback: str) -> str:
    """The sentences of a pushback line that state a fact with a figure ("0.7ms is under 6% of
    the budget"): not its questions, nor instructions ("Break it down stage by stage")."""
    return " ".join(part.strip() for part in _SENTENCE_BREAK_RE.split(pushback or "")
                    if part.strip() and not part.strip().endswith("?")
                    and not _INSTRUCTION_RE.match(part.strip())
                    and any(ch.isdigit() for ch in part))


def without_pushback(reply: str, pushback: str) -> str:
    """The reply with the pushback's stated words and figures blanked (same length)."""
    stated = pushback_statements(pushback)
    if not stated:
        return reply
    words = {t.key for t in tokenize(stated) if t.content and t.key not in GENERIC}
    figures = find_quantities(stated)
    chars = list(reply)
    for token in tokenize(reply):
        if token.key in words:
            chars[token.start : token.end] = " " * (token.end - token.start)
    for quantity in find_quantities(reply):
        if any(q.unit == quantity.unit and abs(q.value - quantity.value) <= 1e-9 * max(
                1.0, abs(q.value)) for q in figures):
            chars[quantity.start : quantity.end] = " " * (quantity.end - quantity.start)
    return "".join(chars)


def follow_up_text(first: str, reply: str, pushback: str = "") -> str:
    """What a follow-up is scored on: the first answer and the reply, less the pushback's own
    statements."""
    return f"{first}\n\n{without_pushback(reply, pushback)}"
