"""Numbers in answers: values with scale and units ("50k QPS", "1,250 GPUs", "200µs", "17-18ms"),
normalised to a base unit so they can be checked against a rubric's expected value, plus the
candidate's own arithmetic ("50,000 / 40 = 125") so a wrong result can be shown beside the
right one.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass

# unit spelling -> (canonical unit, factor to the canonical unit)
_UNITS: dict[str, tuple[str, float]] = {}


def _add(canonical: str, factor: float, *spellings: str) -> None:
    for spelling in spellings:
        _UNITS[spelling.lower()] = (canonical, factor)


_add("s", 1e-9, "ns", "nanosecond", "nanoseconds")
_add("s", 1e-6, "us", "µs", "μs", "microsecond", "microseconds", "micros")
_add("s", 1e-3, "ms", "msec", "msecs", "millisecond", "milliseconds")
_add("s", 1.0, "s", "sec", "secs", "second", "seconds")
_add("s", 60.0, "min", "mins", "minute", "minutes")
_add("s", 3600.0, "h", "hr", "hrs", "hour", "hours")
_add("s", 86400.0, "day", "days")
_add("qps", 1.0, "qps", "rps", "req/s", "req/sec", "requests/s", "requests/sec",
     "requests per second", "queries per second", "requests a second", "requests/second")
_add("qps", 1 / 60, "rpm", "req/min", "requests per minute", "requests/min")
_add("token/s", 1.0, "tok/s", "tokens/s", "tokens/sec", "tokens per second", "tok/sec",
     "tokens a second", "tokens/second")
_add("gpu", 1.0, "gpu", "gpus", "a100", "a100s", "h100", "h100s", "t4", "t4s", "l4", "l4s",
     "card", "cards", "accelerator", "accelerators")
_add("%", 1.0, "%", "percent", "pct", "per cent")
_add("GB", 1e-3, "mb")
_add("GB", 1.0, "gb", "gib", "gigabytes")
_add("GB", 1e3, "tb", "tib", "terabytes")
_add("W", 1.0, "w", "watts")
_add("W", 1e3, "kw", "kilowatts")
_add("W", 1e6, "mw", "megawatts")
_add("x", 1.0, "x")
_add("$", 1.0, "$", "usd", "dollars")
for _word in ("server", "order", "request", "user", "stream", "replica", "node", "parameter",
              "token", "zone", "region", "pod", "worker", "core", "cpu", "instance", "byte"):
    _add(_word, 1.0, _word, _word + "s")
_add("parameter", 1.0, "params", "param")

_SCALES = {"k": 1e3, "thousand": 1e3, "m": 1e6, "million": 1e6, "mn": 1e6,
           "b": 1e9, "bn": 1e9, "billion": 1e9}

_NUMBER = r"\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?|\.\d+"
_SCALE = r"k|K|thousand|M|million|mn|B|bn|billion"
_UNIT_ALTS = "|".join(re.escape(u) for u in sorted(_UNITS, key=len, reverse=True))

_QUANTITY_RE = re.compile(
    rf"(?<![\w.,])(?P<cur>[$€£])?(?P<a>{_NUMBER})(?:\s?(?P<sa>{_SCALE})(?![A-Za-z]))?"
    rf"(?:\s?(?:-|–|—|to)(?!>)\s?[$€£]?(?P<b>{_NUMBER})(?:\s?(?P<sb>{_SCALE})(?![A-Za-z]))?)?"
    rf"(?:(?P<sp>\s?)(?P<unit>(?i:{_UNIT_ALTS})))?"
    r"(?![A-Za-z0-9])"
)


@dataclass(frozen=True)
class Quantity:
    value: float  # in the canonical unit (midpoint for a range)
    low: float
    high: float
    unit: str  # canonical unit, "" for a bare number
    written: float  # the number as written, scale applied, unit not converted
    text: str
    start: int
    end: int

    @property
    def is_range(self) -> bool:
        return self.low != self.high


def parse_unit(unit: str) -> tuple[str, float]:
    """Canonical unit and factor for a unit as a rubric spells it ("ms", "GPUs", "QPS")."""
    key = unit.strip().lower()
    if not key:
        return "", 1.0
    if key in _UNITS:
        return _UNITS[key]
    if key.endswith("s") and key[:-1] in _UNITS:
        return _UNITS[key[:-1]]
    return key, 1.0


def _to_float(number: str) -> float:
    return float(number.replace(",", ""))


def _scale(word: str | None) -> float:
    return _SCALES.get(word.lower(), 1.0) if word else 1.0


def find_quantities(text: str) -> list[Quantity]:
    """Every number in the text with its scale, unit and character span."""
    found: list[Quantity] = []
    for match in _QUANTITY_RE.finditer(text):
        a = _to_float(match.group("a")) * _scale(match.group("sa"))
        b = match.group("b")
        b_value = _to_float(b) * _scale(match.group("sb") or match.group("sa")) if b else a
        if b and match.group("sb") and not match.group("sa"):
            a *= _scale(match.group("sb"))  # "1-2k": the scale covers both ends
        unit_text = match.group("unit") or ""
        if unit_text.lower() == "x" and match.group("sp"):
            unit_text = ""  # "1,250 x 1.5" is a product, not "1,250x"
        unit, factor = parse_unit(unit_text) if unit_text else ("", 1.0)
        if match.group("cur"):
            unit, factor = "$", 1.0
        end = match.end() if unit_text or match.group("cur") else match.end("b") if b else (
            match.end("sa") if match.group("sa") else match.end("a"))
        low, high = sorted((a * factor, b_value * factor))
        found.append(Quantity(
            value=(low + high) / 2, low=low, high=high, unit=unit, written=a,
            text=text[match.start():end], start=match.start(), end=end,
        ))
    return found


def within_tolerance(quantity: Quantity, expected: float, unit: str,
                     tolerance_percent: float | None) -> bool:
    """Whether a found value (or range) meets expected ± tolerance in a compatible unit."""
    canonical, factor = parse_unit(unit)
    if quantity.unit and canonical and quantity.unit != canonical:
        return False
    target = expected * factor
    slack = abs(target) * (tolerance_percent if tolerance_percent is not None else 5.0) / 100
    return quantity.low - slack <= target <= quantity.high + slack


def compatible(quantity: Quantity, unit: str) -> bool:
    canonical, _ = parse_unit(unit)
    return bool(quantity.unit) and quantity.unit == canonical


def distance(quantity: Quantity, expected: float, unit: str) -> float:
    """How far off a value is, as |log ratio| (0 is exact); inf if incomparable."""
    _, factor = parse_unit(unit)
    target = expected * factor
    value = quantity.value
    if target <= 0 or value <= 0:
        return 0.0 if value == target else math.inf
    return abs(math.log(value / target))


def format_number(value: float) -> str:
    if value == int(value) and abs(value) < 1e15:
        return f"{int(value):,}"
    if abs(value) >= 100:
        return f"{value:,.0f}"
    return f"{value:,.3g}" if abs(value) < 1 else f"{value:,.2f}".rstrip("0").rstrip(".")


# --- The candidate's own arithmetic -----------------------------------------------------

_OPS = {"/": "/", "÷": "/", "x": "*", "×": "*", "*": "*", "+": "+", "-": "-", "−": "-"}
_OP_RE = re.compile(r"^\s*([/÷x×*+\-−])\s*$")
_EQ_RE = re.compile(r"^\s*(=|≈|->|→|=>|is)\s*~?\s*$")


@dataclass(frozen=True)
class Calculation:
    text: str  # as the candidate wrote it
    start: int
    end: int
    stated: float
    actual: float
    expression: str  # the left-hand side, as written

    @property
    def correct(self) -> bool:
        if self.actual == 0:
            return self.stated == 0
        ratio = self.stated / self.actual
        if abs(ratio - 1) <= 0.1:
            return True
        # A unit change on the right ("3B x 2 bytes = 6GB") is not an arithmetic error.
        exponent = math.log10(abs(ratio)) if ratio else 0
        return abs(exponent - round(exponent)) < 0.02 and round(exponent) % 3 == 0 and ratio > 0

    def corrected(self) -> str:
        return f"{self.expression} = {format_number(round(self.actual, 6))}"


def find_calculations(text: str, quantities: list[Quantity] | None = None) -> list[Calculation]:
    """Expressions such as "50,000 / 40 = 1,250", evaluated left to right."""
    qs = quantities if quantities is not None else find_quantities(text)
    calculations: list[Calculation] = []
    i = 0
    while i < len(qs) - 2:
        operands = [qs[i]]
        operators: list[str] = []
        j = i
        while j + 1 < len(qs):
            op = _OP_RE.match(text[qs[j].end : qs[j + 1].start])
            if not op:
                break
            operators.append(_OPS[op.group(1)])
            operands.append(qs[j + 1])
            j += 1
        if operators and j + 1 < len(qs) and _EQ_RE.match(text[qs[j].end : qs[j + 1].start]):
            result = qs[j + 1]
            actual = _evaluate([q.written for q in operands], operators)
            if actual is not None:
                calculations.append(Calculation(
                    text=text[qs[i].start : result.end], start=qs[i].start, end=result.end,
                    stated=result.written, actual=actual,
                    expression=text[qs[i].start : qs[j].end],
                ))
            i = j + 2
            continue
        i += 1
    return calculations


def _evaluate(values: list[float], operators: list[str]) -> float | None:
    total = values[0]
    for op, value in zip(operators, values[1:], strict=True):
        if op == "/":
            if value == 0:
                return None
            total /= value
        elif op == "*":
            total *= value
        elif op == "+":
            total += value
        else:
            total -= value
    return total
