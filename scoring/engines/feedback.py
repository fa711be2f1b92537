"""The calculation lines of the feedback: the candidate's own figure or arithmetic beside the
correct one.
"""

from __future__ import annotations

from scoring.engines.base import (
    NumberCheck,
    QuestionSpec,
)
from scoring.engines.clauses import Document
from scoring.engines.numbers import (
    format_number,
)


def calculation_feedback(doc: Document) -> list[str]:
    lines = [
        f"You wrote {c.text.strip()}; the correct result is {c.corrected()}."
        for c in doc.calculations if not c.correct
    ]
    for c in doc.implied:
        if c.kind == "derived":
            unit = "%" if c.unit == "%" else "x" if c.unit == "x" else f" {c.unit}" if c.unit \
                else ""
            lines.append(f"You wrote \"{c.text.strip()}\"; from your own figures, "
                         f"{c.expression} gives {format_number(round(c.actual, 1))}{unit}.")
            continue
        if c.kind == "misquote":
            lines.append(f"You wrote {c.text.strip()}; the question gives {c.expression}.")
            continue
        if c.kind == "sum":
            unit = f" {c.unit}" if c.unit else ""
            lines.append(f"You wrote {c.expression} = {format_number(round(c.stated, 6))}{unit}; "
                         f"the parts add up to {format_number(round(c.actual, 6))}{unit}.")
            continue
        lines.append(
            f"Check the arithmetic in \"{c.text.strip()}\": the numbers before it do not give "
            f"{format_number(round(c.stated, 6))} (multiplied together they give about "
            f"{format_number(round(c.actual, 3))}).")
    return lines


def _magnitude_note(check: NumberCheck) -> str:
    """" That is about 10x too high": said when a figure is an order of magnitude off."""
    found, expected = check.found_value, check.expected_value
    if not found or not expected or found <= 0 or expected <= 0:
        return ""
    ratio = found / expected
    if 1 / 8 < ratio < 8:
        return ""
    way = "high" if ratio > 1 else "low"
    size = ratio if ratio > 1 else 1 / ratio
    return (f" That is about {format_number(round(size))}x too {way}: check the order of "
            "magnitude.")


def _right_figure(check: NumberCheck) -> bool:
    """Whether the figure itself is the expected one, held back only by a wrong figure derived
    from it ("5ms off, about 60%"): the derived figure's own line says what is off, and a line
    "you wrote 5 ms; the correct result is 5 ms" would say something false."""
    if check.found_value is None or check.another_form:
        return False
    allowed = abs(check.expected_value) * check.tolerance_percent / 100
    return abs(check.found_value - check.expected_value) <= allowed


def check_feedback(doc: Document, question: QuestionSpec, checks: list[NumberCheck]) -> list[str]:
    """The calculation lines: each numeric criterion the answer got wrong, as the candidate's
    own calculation (or number) beside the correct one, then any other wrong arithmetic."""
    labels = {c.key: c.label for c in question.criteria}
    lines: list[str] = []
    shown: set[tuple[int, int]] = set()
    for check in checks:
        if check.found_value is None or check.within_tolerance or check.span is None \
                or _right_figure(check):
            continue
        own = next((c for c in doc.calculations if c.end == check.span.end), None)
        if own:
            shown.add((own.start, own.end))
            lines.append(f"You wrote {own.text.strip()}; the correct result is "
                         f"{check.worked_calculation}.")
            continue
        label = labels.get(check.criterion_key, check.criterion_key)
        lines.append(f"You wrote {check.found_text} ({label}); the correct result is "
                     f"{check.worked_calculation} (±{format_number(check.tolerance_percent)}%)."
                     + _magnitude_note(check))
    judged = {check.span.end for check in checks
              if check.span is not None and not check.within_tolerance
              and not _right_figure(check)}
    remaining = Document(doc.text, doc.tokens, doc.sentences, doc.quantities,
                         [c for c in doc.calculations if (c.start, c.end) not in shown],
                         [c for c in doc.implied if c.kind != "derived" or c.end not in judged])
    return calculation_feedback(remaining) + lines
