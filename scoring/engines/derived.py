"""Derived figures checked against the candidate's own inputs: a percentage, ratio or
speed-up that follows a comparison of two figures in the same unit ("7ms vs 12ms, so about 70%
faster": 12 -> 7 is 42% less), and a figure with a stated headroom ("1,250 GPUs plus 20%
headroom is 1,750": 1,250 x 1.2 = 1,500).

Every valid route is accepted: a reduction is read against the larger figure, an increase
against the smaller one, and a ratio ("1.7x", "twice as fast") either way up. One pass over
the answer's quantities, each looked at against its neighbours only.
"""

from __future__ import annotations

import re

from scoring.engines.numbers import Calculation, Quantity, format_number

# Between the two figures of a comparison ("7ms vs 12ms", "from 12ms to 7ms", "7ms compared
# with 12ms", "7ms against 12ms", "7ms on TensorRT versus 12ms on TorchServe").
_VERSUS_RE = re.compile(
    r"^[^.;:!?\n\d]{0,40}?\b(?:vs\.?|versus|against|compared\s+(?:with|to)|to|instead\s+of|"
    r"over)\b[^.;:!?\n\d]{0,40}$", re.IGNORECASE)
_FROM_RE = re.compile(r"\bfrom\s+$", re.IGNORECASE)
_DOWN_WORDS = re.compile(
    r"^\s*(?:faster|quicker|lower|less|fewer|smaller|cheaper|reduction|decrease|cut|drop|"
    r"saving|savings|improvement|better|shorter|off|down|reduc\w*)\b", re.IGNORECASE)
_UP_WORDS = re.compile(
    r"^\s*(?:slower|higher|more|larger|bigger|increase|longer|worse|up|costlier|extra)\b",
    re.IGNORECASE)
_RATIO_WORDS = re.compile(r"^\s*(?:faster|quicker|speed-?up|as\s+fast|the\s+speed|better)",
                          re.IGNORECASE)
_MINUS_RE = re.compile(r"^\s*(?:-|−|minus)\s*$", re.IGNORECASE)
# "TensorRT cuts latency by about 60%": the direction said before the share.
_DOWN_BEFORE_RE = re.compile(r"\b(?:cut\w*|reduc\w*|lower\w*|drop\w*|sav\w*|shav\w*|trim\w*|"
                             r"speed\w*\s+up|faster|quicker)\b[^.;:!?\d]{0,30}$", re.IGNORECASE)
_UP_BEFORE_RE = re.compile(r"\b(?:increas\w*|rais\w*|grow\w*|slower|longer|add\w*)\b"
                           r"[^.;:!?\d]{0,30}$", re.IGNORECASE)
_HEADROOM_RE = re.compile(
    r"^[^.;:!?\n]{0,30}?\b(?:headroom|margin|buffer|safety|spare|on\s+top)\b"
    r"[^.;:!?\n\d]{0,30}$", re.IGNORECASE)
_CHAIN_NEXT_RE = re.compile(r"\s*[x×*/÷]\s*\d")
_PERCENT_TOLERANCE = 0.12  # relative, or 3 percentage points, whichever is larger
_SENTENCE_BREAK = re.compile(r"[.!?]\s|\n")


def _close(stated: float, wanted: float) -> bool:
    return abs(stated - wanted) <= max(3.0, _PERCENT_TOLERANCE * abs(wanted))


def _same_sentence(text: str, start: int, end: int) -> bool:
    return _SENTENCE_BREAK.search(text, start, end) is None


def derived_figures(text: str, quantities: list[Quantity]) -> list[Calculation]:
    """Percentages and ratios that do not follow from the two figures the answer compares,
    and headroom totals that do not follow from the base and the percentage."""
    flagged: list[Calculation] = []
    for i in range(len(quantities) - 2):
        a, b, result = quantities[i], quantities[i + 1], quantities[i + 2]
        difference = None
        if _MINUS_RE.match(text[a.end : b.start]) and i + 3 < len(quantities):
            # "12 minus 7, so 5ms faster, which is a 60% cut": the share follows the difference.
            difference, result = result, quantities[i + 3]
            if a.unit != b.unit or difference.unit in {"", "%", "x"} or (
                    a.unit and a.unit != difference.unit):
                continue
            if result.unit != "%" or result.start - difference.end > 60:
                continue
        elif not a.unit or a.unit != b.unit or not _VERSUS_RE.match(text[a.end : b.start]):
            continue
        if a.unit in {"%", "x"} or a.value <= 0 or b.value <= 0:
            continue
        if not _same_sentence(text, a.start, result.end):
            continue
        if result.start - (difference or b).end > 60:
            continue
        high, low = max(a.value, b.value), min(a.value, b.value)
        # Shown as the candidate wrote them ("12", not 0.012 s).
        shown_high, shown_low = (a.written, b.written) if a.value >= b.value else (
            b.written, a.written)
        after = text[result.end : result.end + 20]
        before = text[(difference or b).end : result.start]
        if result.unit == "%":
            if _DOWN_WORDS.match(after) or (not _UP_WORDS.match(after)
                                            and _DOWN_BEFORE_RE.search(before)):
                wanted, how = 100 * (high - low) / high, f"({format_number(shown_high)} - " \
                    f"{format_number(shown_low)}) / {format_number(shown_high)}"
            elif _UP_WORDS.match(after) or _UP_BEFORE_RE.search(before):
                wanted, how = 100 * (high - low) / low, f"({format_number(shown_high)} - " \
                    f"{format_number(shown_low)}) / {format_number(shown_low)}"
            else:
                continue
            if not _close(result.value, wanted):
                flagged.append(_calculation(text, a, result, wanted, how, "%"))
        elif result.unit == "x" and _RATIO_WORDS.match(after):
            wanted = high / low
            if abs(result.value - wanted) > max(0.15, 0.1 * wanted):
                how = f"{format_number(shown_high)} / {format_number(shown_low)}"
                flagged.append(_calculation(text, a, result, wanted, how, "x"))
    flagged += _headroom_totals(text, quantities)
    return flagged


def _headroom_totals(text: str, quantities: list[Quantity]) -> list[Calculation]:
    """"1,250 GPUs with 20% headroom is 1,750": base x (1 + share) against the total stated."""
    flagged: list[Calculation] = []
    for i in range(len(quantities) - 2):
        base, share, total = quantities[i], quantities[i + 1], quantities[i + 2]
        if share.unit != "%" or base.unit in {"%", "x"} or base.value <= 0:
            continue
        if total.unit and base.unit and total.unit != base.unit:
            continue
        if not _same_sentence(text, base.start, total.end) or total.start - share.end > 50:
            continue
        between = text[share.end : total.start]
        if not _HEADROOM_RE.match(between):
            continue
        if re.search(r"[x×*/=]", text[base.end : share.start]):
            continue  # "1,250 x 1.2": a calculation, checked as one
        if _CHAIN_NEXT_RE.match(text, total.end):
            continue  # "makes it 1,250 x 1.2 = 1,500": the result comes after the "="
        wanted = base.written * (1 + share.value / 100)
        # A range of headroom ("10-20%") allows any total between its ends, and a range of
        # totals ("1,375-1,500") is right when it meets that span.
        scale = 1 / total.factor if total.factor else 1.0  # canonical -> as written
        least = base.written * (1 + share.low / 100) * 0.97
        most = base.written * (1 + share.high / 100) * 1.03
        if total.low * scale <= most and total.high * scale >= least:
            continue
        if abs(total.written - wanted) > 0.03 * wanted:
            how = f"{format_number(base.written)} x {format_number(1 + share.value / 100)}"
            flagged.append(Calculation(
                text=text[base.start : total.end], start=base.start, end=total.end,
                stated=total.written, actual=wanted, expression=how, kind="derived",
                unit=base.unit))
    return flagged


def _calculation(text: str, first: Quantity, result: Quantity, wanted: float, how: str,
                 unit: str) -> Calculation:
    return Calculation(text=text[first.start : result.end], start=first.start, end=result.end,
                       stated=result.value, actual=wanted, expression=how, kind="derived",
                       unit=unit)
