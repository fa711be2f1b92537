"""Numbers in answers: values with scale and units ("50k QPS", "1,250 GPUs", "200µs", "17-18ms"),
normalised to a base unit so they can be checked against a rubric's expected value, plus the
candidate's own arithmetic ("50,000 / 40 = 125") so a wrong result can be shown beside the
right one.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, replace

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
              "token", "zone", "region", "pod", "worker", "core", "cpu", "instance", "byte",
              "query"):
    _add(_word, 1.0, _word, _word + "s")
_add("parameter", 1.0, "params", "param")
# Resource-time ("4 CPU-milliseconds", "GPU-hours") is time: what a rate times a cost gives.
for _resource in ("cpu", "gpu", "core"):
    for _spelling, (_unit, _factor) in list(_UNITS.items()):
        if _unit == "s" and len(_spelling) > 1:
            _add("s", _factor, f"{_resource}-{_spelling}", f"{_resource} {_spelling}")
_add("query", 1.0, "queries")

_SCALES = {"k": 1e3, "thousand": 1e3, "m": 1e6, "million": 1e6, "mn": 1e6,
           "b": 1e9, "bn": 1e9, "billion": 1e9}

# "1,250", and "1 250" / "50 000" with a space (or a narrow space) between groups of three,
# unless a time unit follows ("3 100ms" is three of 100ms).
_NUMBER = (r"\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d{1,3}(?:[ \u202f\u00a0]\d{3})+(?!\d|\s?(?:ms|s|sec|"
           r"seconds?|min|minutes?|us|µs|h|hours?)\b)|\d+(?:\.\d+)?|\.\d+")
_SCALE = r"k|K|thousand|M|million|mn|B|bn|billion"
_UNIT_ALTS = "|".join(re.escape(u) for u in sorted(_UNITS, key=len, reverse=True))

_TIME_ALTS = "|".join(re.escape(u) for u in sorted(
    (u for u in _UNITS if _UNITS[u][0] == "s" and len(u) > 1), key=len, reverse=True))

_QUANTITY_RE = re.compile(
    rf"(?<![\w.,])(?P<cur>[$€£])?(?P<a>{_NUMBER})(?:\s?(?P<sa>{_SCALE})(?![A-Za-z]))?"
    rf"(?:\s?(?:-|–|—|to)(?!>)\s?[$€£]?(?P<b>{_NUMBER})(?:\s?(?P<sb>{_SCALE})(?![A-Za-z]))?)?"
    # "a 15-minute bake", "the 5-minute window": a time unit joined by a hyphen.
    rf"(?:(?:(?P<sp>\s?)|-(?=(?i:{_TIME_ALTS})(?![A-Za-z0-9])))(?P<unit>(?i:{_UNIT_ALTS})))?"
    r"(?![A-Za-z0-9])"
)
# What makes a quantity a rate or a per-unit figure: "QPS per GPU", "QPS/GPU", "% per hour",
# "% an hour", "orders every 5 minutes". "/" binds only without spaces ("1,250 GPUs / 2 zones"
# is a division); a count ("per 5 minutes") only with "per" or "every".
_EACH_RE = re.compile(r"\s+(?:each|apiece)\b", re.IGNORECASE)
_PER_RE = re.compile(
    rf"(?:/|\s+(?i:per|every)\s+(?:(?P<count>\d+(?:\.\d+)?)\s?)?|\s+(?i:an?|each)\s+)"
    rf"(?P<den>(?i:{_UNIT_ALTS}))(?![A-Za-z0-9])"
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
    factor: float = 1.0  # written unit -> canonical unit ("200k RPM": 1/60)
    per: float = 1.0  # a rate's denominator in canonical units ("24% per hour": 3600)

    @property
    def is_range(self) -> bool:
        return self.low != self.high


def _simple_unit(key: str) -> tuple[str, float] | None:
    if key in _UNITS:
        return _UNITS[key]
    if key.endswith("s") and key[:-1] in _UNITS:
        return _UNITS[key[:-1]]
    return None


_RUBRIC_PER_RE = re.compile(r"\s*/\s*|\s+(?:per|an?|each|every)\s+")


def parse_unit(unit: str) -> tuple[str, float]:
    """Canonical unit and factor for a unit as a rubric spells it ("ms", "GPUs", "QPS",
    "QPS per GPU", "percent per hour"): a rate or per-unit figure is "numerator/denominator"
    in canonical units, so "24% per hour" and "percent per hour" compare."""
    key = " ".join(unit.strip().lower().split())
    if not key:
        return "", 1.0
    simple = _simple_unit(key)
    if simple:
        return simple
    separators = list(_RUBRIC_PER_RE.finditer(key))
    if separators:
        cut = separators[-1]
        numerator, denominator = key[: cut.start()], key[cut.end() :]
        count = re.match(r"(\d+(?:\.\d+)?)\s*", denominator)
        if count:
            denominator = denominator[count.end() :]
        den = _simple_unit(denominator)
        num = parse_unit(numerator) if numerator else ("", 1.0)
        if den:
            return combine_units(num, den, float(count.group(1)) if count else 1.0)
    return key, 1.0


def combine_units(numerator: tuple[str, float], denominator: tuple[str, float],
                  count: float = 1.0) -> tuple[str, float]:
    """"QPS" per "GPU" -> ("qps/gpu", 1); "%" per "hour" -> ("%/s", 1/3600)."""
    num, num_factor = numerator
    den, den_factor = denominator
    unit = f"{num}/{den}"
    if unit in {"request/s", "query/s"}:
        unit = "qps"
    return unit, num_factor / (den_factor * count)


def unit_parts(unit: str) -> tuple[str, str]:
    """Numerator and denominator of a canonical unit ("qps" is requests per second)."""
    if unit == "qps":
        return "request", "s"
    if "/" in unit and len(unit) > 1:
        numerator, _, denominator = unit.rpartition("/")
        return numerator, denominator
    return unit, ""


def same_unit(found: str, wanted: str) -> bool:
    """A found unit matches a wanted one exactly, or is a bare rate with the same
    denominator ("562.5 per GPU" for "QPS per GPU", "3,333 per second" for "RPS")."""
    if found == wanted:
        return True
    numerator, denominator = unit_parts(found)
    return not numerator and bool(denominator) and denominator == unit_parts(wanted)[1]


def _to_float(number: str) -> float:
    return float(re.sub(r"[, \u202f\u00a0]", "", number))


def _scale(word: str | None) -> float:
    return _SCALES.get(word.lower(), 1.0) if word else 1.0


# --- Numbers written in words ---------------------------------------------------------------

_SMALL_WORDS = {w: i for i, w in enumerate([
    "zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten",
    "eleven", "twelve", "thirteen", "fourteen", "fifteen", "sixteen", "seventeen", "eighteen",
    "nineteen"])}
_TENS_WORDS = {w: 10 * (i + 2) for i, w in enumerate([
    "twenty", "thirty", "forty", "fifty", "sixty", "seventy", "eighty", "ninety"])}
_SCALE_WORDS = {"hundred": 100.0, "thousand": 1e3, "million": 1e6, "billion": 1e9, "dozen": 12.0}
_NUMBER_WORD = "|".join(sorted([*_SMALL_WORDS, *_TENS_WORDS, *_SCALE_WORDS], key=len,
                               reverse=True))
_WORDS_RE = re.compile(
    rf"\b(?:(?P<couple>a\s+couple\s+of)|(?P<halfa>half\s+an?)|"
    rf"(?:(?P<article>an?)\s+(?=(?:hundred|thousand|million|billion|dozen)\b))?"
    rf"(?P<words>(?:{_NUMBER_WORD})(?:(?:\s*-\s*|\s+(?:and\s+)?)(?:{_NUMBER_WORD}))*)"
    # "two and a half thousand cards" is 2,500.
    rf"(?P<half>\s+and\s+a\s+half(?:\s+(?P<halfscale>hundred|thousand|million|billion))?)?)\b",
    re.IGNORECASE)
# After a small number in words, what shows it is a quantity: a unit, a scale, or a range.
_UNIT_AFTER_RE = re.compile(
    rf"\s*(?:(?i:{_UNIT_ALTS})(?![A-Za-z0-9])|(?:-|–|to)\s*(?:\d|(?i:{_NUMBER_WORD})\b))")


# "seven tenths of a millisecond", "a quarter of a second", "0.7 of a millisecond": a fraction
# of one unit of time, read only where the unit follows (not "a third of a GPU").
_DENOMINATORS = {"half": 2, "halves": 2, "third": 3, "thirds": 3, "quarter": 4, "quarters": 4,
                 "fifth": 5, "fifths": 5, "tenth": 10, "tenths": 10, "hundredth": 100,
                 "hundredths": 100}
_FRACTION_RE = re.compile(
    r"\b(?:(?P<count>a|an|one|two|three|four|five|six|seven|eight|nine)\s+(?P<den>"
    + "|".join(sorted(_DENOMINATORS, key=len, reverse=True))
    + r")|(?P<digits>\d+(?:\.\d+)?))\s+of\s+an?(?=\s+(?:(?:milli|micro|nano)?seconds?|ms|µs|us|"
    r"secs?|minutes?|mins?|hours?)\b)",
    re.IGNORECASE)


def _fractions(text: str) -> list[tuple[int, int, str]]:
    out: list[tuple[int, int, str]] = []
    for match in _FRACTION_RE.finditer(text):
        if match.group("digits"):
            value = float(match.group("digits"))
            if value >= 1:
                continue  # "2 of a ..." is not a fraction of one unit
        else:
            count = match.group("count").lower()
            numerator = 1 if count in {"a", "an"} else _SMALL_WORDS[count]
            value = numerator / _DENOMINATORS[match.group("den").lower()]
        out.append((match.start(), match.end(), format(value, "g")))
    return out


def _words_value(words: str) -> float | None:
    """"thirty thousand" -> 30000, "twenty-five" -> 25, "one hundred and five" -> 105;
    None for a run that is not one number ("one two")."""
    total, current, last = 0.0, None, ""
    for word in re.findall(r"[a-z]+", words.lower()):
        if word == "and":
            if last not in {"hundred", "thousand", "million", "billion"}:
                return None
            continue
        if word in _SMALL_WORDS or word in _TENS_WORDS:
            value = _SMALL_WORDS.get(word, _TENS_WORDS.get(word, 0))
            if current is not None and last not in _SCALE_WORDS and not (
                    last in _TENS_WORDS and value < 10):
                return None
            current = (current or 0) + value
        elif word in {"hundred", "dozen"}:
            current = (1 if current is None else current) * _SCALE_WORDS[word]
        else:
            total += (1 if current is None else current) * _SCALE_WORDS[word]
            current = None
        last = word
    return total + (current or 0)


def _spelled_numbers(text: str) -> list[tuple[int, int, str]]:
    """Numbers written in words, as (start, end, digits): "a dozen" -> 12, "ten to fifteen
    minutes" -> 10 and 15, "twenty percent" -> 20, "half a second" -> 0.5. A number under ten
    counts only with a unit, scale or range after it ("two milliseconds", not "two options")."""
    out: list[tuple[int, int, str]] = []
    for match in _WORDS_RE.finditer(text):
        if match.group("couple") or match.group("halfa"):
            value, scaled = (2.0 if match.group("couple") else 0.5), False
        else:
            value = _words_value(match.group("words"))
            if value is None:
                continue
            value += 0.5 if match.group("half") else 0.0
            if match.group("halfscale"):
                value *= _SCALE_WORDS[match.group("halfscale").lower()]
            words = re.findall(r"[a-z]+", match.group("words").lower())
            if words[0] in _SCALE_WORDS and not match.group("article"):
                continue  # "thousands", "hundred" alone: no number
            scaled = any(w in _SCALE_WORDS for w in words) or bool(match.group("halfscale"))
        if not scaled and value < 10 and not _UNIT_AFTER_RE.match(text, match.end()):
            continue
        out.append((match.start(), match.end(), format(value, "g") if value < 1e15 else ""))
    fractions = _fractions(text)
    if fractions:
        out = sorted([*fractions, *(item for item in out if not any(
            start < item[1] and item[0] < end for start, end, _ in fractions))])
    return [item for item in out if item[2]]


def _digitised(text: str) -> tuple[str, list[int]] | None:
    """The text with its spelled numbers in digits, and each position's offset in the text."""
    spelled = _spelled_numbers(text)
    if not spelled:
        return None
    parts: list[str] = []
    positions: list[int] = []
    cursor = 0
    for start, end, digits in spelled:
        parts.append(text[cursor:start])
        positions.extend(range(cursor, start))
        parts.append(digits)
        positions.extend([start] + [end] * (len(digits) - 1))
        cursor = end
    parts.append(text[cursor:])
    positions.extend(range(cursor, len(text) + 1))
    return "".join(parts), positions


def find_quantities(text: str, spelled: bool = True) -> list[Quantity]:
    """Every number in the text with its scale, unit and character span; with `spelled`, also
    numbers written in words ("thirty thousand requests a second"), spans in the text as given."""
    digitised = _digitised(text) if spelled and re.search(r"[A-Za-z]{3}", text) else None
    if digitised is None:
        return _find_quantities(text)
    converted, positions = digitised
    return [Quantity(value=q.value, low=q.low, high=q.high, unit=q.unit, written=q.written,
                     text=text[positions[q.start] : positions[q.end]], start=positions[q.start],
                     end=positions[q.end], factor=q.factor, per=q.per)
            for q in _find_quantities(converted)]


def _find_quantities(text: str) -> list[Quantity]:
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
        per = _PER_RE.match(text, end) if unit != "x" else None
        per_factor = 1.0
        if per and (unit or per.group(0).lstrip().lower().startswith(("per", "/"))):
            count = float(per.group("count")) if per.group("count") else 1.0
            denominator = parse_unit(per.group("den"))
            unit, factor = combine_units((unit, factor), denominator, count)
            per_factor = denominator[1] * count
            end = per.end()
            again = _PER_RE.match(text, end) if unit in _RATE_UNITS else None
            if again and again.group(0).lstrip().lower().startswith(("per", "/")) \
                    and parse_unit(again.group("den"))[0] in _COUNTED_UNITS:
                # "560 queries a second per A100": the rate, then what it is per.
                unit, factor = combine_units((unit, factor), parse_unit(again.group("den")))
                end = again.end()
        elif unit in _RATE_UNITS and (each := _EACH_RE.match(text, end)) is not None:
            # "45k / 80 is about 560 QPS each": a rate said of each machine.
            unit, factor = combine_units((unit, factor), parse_unit("gpu"))
            end = each.end()
        low, high = sorted((a * factor, b_value * factor))
        found.append(Quantity(
            value=(low + high) / 2, low=low, high=high, unit=unit, written=a,
            text=text[match.start():end], start=match.start(), end=end, factor=factor,
            per=per_factor,
        ))
    return _rates_each(text, _drop_denominators(found))


# "45,000 QPS over 80 GPUs is about 56 QPS each": a rate said "each" is per the thing the
# sentence just counted.
_EACH_RE = re.compile(r"\s+(?:each|apiece)\b", re.IGNORECASE)
_RATE_UNITS = frozenset(["qps", "token/s"])
_COUNTED_UNITS = frozenset(["gpu", "node", "server", "replica", "instance", "pod", "worker"])


# "Per GPU that's 45,000 / 80, about 562 QPS": the clause opened by naming what the rate is per.
# "..., which is the same as each card doing 12 QPS": a comma (not a thousands separator) or a
# dash opens the clause too.
_PER_DEVICE_BEFORE_RE = re.compile(
    rf"(?:^|[.!?;\n\u2013\u2014]|,(?!\d)|\s-\s)(?:[^.!?;,\n\u2013\u2014]|,(?=\d)){{0,40}}?"
    r"\b(?i:per|each)\s+"
    rf"(?P<den>(?i:{_UNIT_ALTS}))"
    r"(?![A-Za-z0-9])[^.!?;\n]{0,50}$")
# "so one card is serving 12 QPS": one machine said doing the rate, just before it.
_ONE_DEVICE_BEFORE_RE = re.compile(
    r"\b(?i:one|1|a\s+single|a|each|every)\s+"
    rf"(?P<den>(?i:{_UNIT_ALTS}))"
    r"(?![A-Za-z0-9])\s+(?i:is\s+|can\s+|could\s+|will\s+|would\s+|should\s+)?"
    r"(?i:serv|handl|do|push|sustain|deliver|giv|get|manag|process|tak|run)\w*\b"
    r"(?i:\s+(?:about|around|roughly|only|just|maybe|~))?\s*$")


def _per_device_before(text: str, quantity: Quantity, earlier: list[Quantity]) -> str | None:
    """The machine a rate is per when its clause opens with "per GPU" / "each card" and no
    other figure with a unit stands between ("each GPU does 40 QPS, so 45,000 QPS" is not).
    `earlier` holds the quantities before this one, in text order."""
    # (Requests only: "a T4 manages 120 tokens/s" is the card's rate too, but it is an operand
    # of the requests per card that usually follow, not a result.)
    one = _ONE_DEVICE_BEFORE_RE.search(text, max(0, quantity.start - 60), quantity.start) \
        if quantity.unit == "qps" else None
    opening = one or _PER_DEVICE_BEFORE_RE.search(text, max(0, quantity.start - 100),
                                                   quantity.start)
    if not opening:
        return None
    # Walk back only over the window the opening spans (at most 100 characters).
    for previous in reversed(earlier):
        if previous.start < opening.end("den"):
            if previous.end >= opening.end("den") and not (one and previous.value == 1):
                return None  # "at Azure's 40 per GPU, 45k QPS": the "per GPU" is the 40's
            break
        if previous.unit:
            return None
    device, _ = parse_unit(opening.group("den"))
    return device if device in _COUNTED_UNITS else None


# "Over an hour that rule adds up to 2% x 60 = 120%": the clause opens with the period a share
# accumulates over, so the share is a rate per that period.
_PERIOD_BEFORE_RE = re.compile(
    r"(?:^|[.!?;\n\u2013\u2014]|,(?!\d))[^.!?;,\n\u2013\u2014]{0,40}?"
    r"\b(?i:over|in|across|within|per|each|every)\s+(?i:an?|one|the|each|every)\s+"
    r"(?P<den>(?i:hour|minute|day))\b[^.!?;\n]{0,60}$")


_OPERAND_RE = re.compile(r"\s*[x×*/+]\s*\d")


def _period_before(text: str, quantity: Quantity, earlier: list[Quantity]) -> str | None:
    """The period ("hour") a share is said over where its clause opens by naming it, with no
    other rate between (`earlier` holds the quantities before this one, in text order)."""
    if _OPERAND_RE.match(text, quantity.end):
        return None  # "2% x 60 = 120%": the 2% is per five minutes; the result is per hour
    opening = _PERIOD_BEFORE_RE.search(text, max(0, quantity.start - 100), quantity.start)
    if not opening:
        return None
    for previous in reversed(earlier):
        if previous.start < opening.end("den"):
            break
        if "/" in previous.unit:
            return None  # "over an hour, 0.4% a minute ...": the rate already says its period
    return opening.group("den").lower()


def _rates_each(text: str, found: list[Quantity]) -> list[Quantity]:
    out: list[Quantity] = []
    counted: Quantity | None = None  # the last count of machines, in one pass
    for quantity in found:
        each = _EACH_RE.match(text, quantity.end) if quantity.unit in _RATE_UNITS else None
        if each and counted and not re.search(r"[.!?;\n]", text[counted.end : quantity.start]):
            unit, _ = combine_units((quantity.unit, 1.0), (counted.unit, 1.0))
            quantity = replace(quantity, unit=unit, end=each.end(),
                               text=text[quantity.start : each.end()])
        elif quantity.unit in _RATE_UNITS and (device := _per_device_before(text, quantity, out)):
            unit, _ = combine_units((quantity.unit, 1.0), (device, 1.0))
            quantity = replace(quantity, unit=unit)
        elif quantity.unit == "%" and (period := _period_before(text, quantity, out)):
            unit, factor = combine_units(("%", 1.0), parse_unit(period))
            quantity = replace(quantity, unit=unit, value=quantity.value * factor,
                               low=quantity.low * factor, high=quantity.high * factor,
                               factor=factor, per=parse_unit(period)[1])
        if quantity.unit in _COUNTED_UNITS:
            counted = quantity
        out.append(quantity)
    return out


def _drop_denominators(found: list[Quantity]) -> list[Quantity]:
    """A count inside a rate ("per 5 minutes") is part of that rate, not a number of its own.
    Matches come in text order and only overlap their neighbours, so one pass will do."""
    ordered = sorted(found, key=lambda q: (q.start, -q.end))
    kept: list[Quantity] = []
    reach = -1  # the furthest end of a quantity kept so far
    for quantity in ordered:
        if quantity.end <= reach:
            continue
        kept.append(quantity)
        reach = max(reach, quantity.end)
    return kept


# Digit runs longer than any real figure (a 20,000-digit "number") carry no quantity; read as
# one they make every later step slow. They are blanked (same length, so spans stay put).
_LONG_DIGITS_RE = re.compile(r"[\d][\d,.]{39,}")
MAX_DIGITS = 40


def without_long_numbers(text: str) -> str:
    """The text with digit runs of MAX_DIGITS or more characters blanked out."""
    return _LONG_DIGITS_RE.sub(lambda m: "#" * len(m.group(0)), text)


def within_tolerance(quantity: Quantity, expected: float, unit: str,
                     tolerance_percent: float | None) -> bool:
    """Whether a found value (or range) meets expected ± tolerance in a compatible unit."""
    canonical, factor = parse_unit(unit)
    if quantity.unit and canonical and not same_unit(quantity.unit, canonical):
        return False
    target = expected * factor
    slack = abs(target) * (tolerance_percent if tolerance_percent is not None else 5.0) / 100
    return quantity.low - slack <= target <= quantity.high + slack


def compatible(quantity: Quantity, unit: str) -> bool:
    canonical, _ = parse_unit(unit)
    return bool(quantity.unit) and same_unit(quantity.unit, canonical)


def distance(quantity: Quantity, expected: float, unit: str) -> float:
    """How far off a value is, as |log ratio| (0 is exact); inf if incomparable."""
    _, factor = parse_unit(unit)
    target = expected * factor
    value = quantity.value
    if target <= 0 or value <= 0 or not math.isfinite(value / target) or value / target == 0:
        return 0.0 if value == target else math.inf
    return abs(math.log(value / target))


def format_number(value: float) -> str:
    if not math.isfinite(value):
        return "more than a float can hold" if value > 0 else "not a number"
    if value == int(value) and abs(value) < 1e15:
        return f"{int(value):,}"
    if abs(value) >= 100:
        # An exact tenth ("45,000 / 80 = 562.5") is shown as it is, not cut to 562.
        if abs(value - round(value, 1)) < 1e-9 * max(1.0, abs(value)):
            return f"{value:,.1f}"
        return f"{value:,.0f}"
    return f"{value:,.3g}" if abs(value) < 1 else f"{value:,.2f}".rstrip("0").rstrip(".")


# --- The candidate's own arithmetic -----------------------------------------------------

_EXPRESSION_NEXT_RE = re.compile(r"\s*[x×*/÷]\s*[\d(]")
_OPS = {"/": "/", "÷": "/", "x": "*", "×": "*", "*": "*", "+": "+", "-": "-", "−": "-",
        "minus": "-", "plus": "+", "times": "*", "multiplied by": "*", "divided by": "/"}
_OP_RE = re.compile(r"^\s*([/÷x×*+\-−]|minus|plus|times|multiplied by|divided by)\s*$",
                    re.IGNORECASE)
# "= 1,500", "is 5ms", "is about 1,750", "gives 25", ", so 5ms" (after an operator only).
_EQ_RE = re.compile(r"^\s*(?:=|≈|->|→|=>|is|equals|gives(?: us)?|makes|leaves(?: us)?|,?\s*so|"
                    r"comes to|works out (?:to|at))\s*(?:about|around|roughly|approx\.?|"
                    r"approximately|nearly|only|just)?\s*~?\s*$", re.IGNORECASE)


@dataclass(frozen=True)
class Calculation:
    text: str  # as the candidate wrote it
    start: int
    end: int
    stated: float
    actual: float
    expression: str  # the left-hand side, as written
    kind: str = "operation"  # "sum": a breakdown's parts against the total claimed for them
    unit: str = ""  # for a sum: the total's unit as written ("ms")

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
            operators.append(_OPS[op.group(1).lower()])
            operands.append(qs[j + 1])
            j += 1
        if operators and j + 1 < len(qs) and _EQ_RE.match(text[qs[j].end : qs[j + 1].start]):
            result = qs[j + 1]
            actual = _evaluate([q.written for q in operands], operators,
                               [q.unit == "%" for q in operands])
            if actual is not None:
                calculations.append(Calculation(
                    text=text[qs[i].start : result.end], start=qs[i].start, end=result.end,
                    stated=result.written, actual=actual,
                    expression=text[qs[i].start : qs[j].end],
                ))
            i = j + 2
            continue
        # A chain with no result after it has none from any later start inside it either.
        i = j + 1 if operators else i + 1
    return calculations


def _evaluate(values: list[float], operators: list[str],
              percents: list[bool] | None = None) -> float | None:
    """Left to right; "1,250 plus 20%" adds a share of what came before (1,250 x 1.2)."""
    total = values[0]
    shares = (percents or [False] * len(values))[1:]
    for op, value, share in zip(operators, values[1:], shares, strict=True):
        if share and op in {"+", "-"}:
            total *= 1 + value / 100 if op == "+" else 1 - value / 100
        elif op == "/":
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


# --- Arithmetic written in prose -----------------------------------------------------------

_RATE_RE = re.compile(
    r"^\s?(?:/|per\s+|an?\s+|each\s+|every\s+)(?P<period>second|sec|s|minute|min|hour|hr|h|day)\b",
    re.IGNORECASE)
_PERIOD_SECONDS = {"second": 1.0, "sec": 1.0, "s": 1.0, "minute": 60.0, "min": 60.0,
                   "hour": 3600.0, "hr": 3600.0, "h": 3600.0, "day": 86400.0}
_RESULT_RE = re.compile(
    r"(?:\bthat's\b|\bthat is\b|\bgives(?: us)?\b|\bcomes to\b|\bworks out to\b|\bwhich is\b|"
    r"\bmeans\b|\bleaves\b|\byields\b|\bequals\b|=|≈|->|→|=>)\s*(?:about|around|roughly|only|"
    r"just|approx\.?|approximately)?\s*~?", re.IGNORECASE)
_PROSE_OP_RE = re.compile(
    r"\b(?:(?P<div>divid(?:e|ed|ing))\s+(?P<a1>\S+(?:\s\S+)?)\s+by\s+(?P<b1>\S+)|"
    r"(?P<a2>\S+)\s+(?P<op2>divided by|over|times|multiplied by)\s+(?P<b2>\S+)|"
    r"(?P<mul>multiply(?:ing)?)\s+(?P<a3>\S+(?:\s\S+)?)\s+by\s+(?P<b3>\S+))",
    re.IGNORECASE)


_MARGIN_RE = re.compile(r"headroom|margin|buffer|extra|spare|overhead|safety|more|less|fewer|"
                        r"\+|reserve|slack|on top|up to|down to")


@dataclass(frozen=True)
class Operation:
    """One step of arithmetic the answer describes, with or without its result."""

    a: float
    op: str  # "/" or "*"
    b: float
    start: int
    end: int


def _first_number(fragment: str) -> float | None:
    found = find_quantities(fragment)
    return found[0].written if found else None


def find_operations(text: str, quantities: list[Quantity] | None = None) -> list[Operation]:
    """Steps such as "50,000 / 40", "50k ÷ 40" or "divide 50k by 40 per GPU"."""
    qs = quantities if quantities is not None else find_quantities(text)
    found: list[Operation] = []
    for left, right in zip(qs, qs[1:], strict=False):
        op = _OP_RE.match(text[left.end : right.start])
        # Words ("divided by") are read by the prose pass below, once.
        if op and op.group(1) in "/÷x×*" and _OPS[op.group(1)] in {"/", "*"}:
            found.append(Operation(left.written, _OPS[op.group(1)], right.written,
                                   left.start, right.end))
    for match in _PROSE_OP_RE.finditer(text):
        if match.group("div"):
            a, b, op = match.group("a1"), match.group("b1"), "/"
        elif match.group("mul"):
            a, b, op = match.group("a3"), match.group("b3"), "*"
        else:
            a, b = match.group("a2"), match.group("b2")
            op = "*" if match.group("op2").lower() in {"times", "multiplied by"} else "/"
        a_value, b_value = _first_number(a), _first_number(b)
        if a_value is not None and b_value is not None:
            found.append(Operation(a_value, op, b_value, match.start(), match.end()))
    return found


def _operand_value(text: str, quantity: Quantity) -> list[float]:
    """Ways to read an operand: a percentage as a share (or 1 ± share), a rate per second."""
    if quantity.unit == "%":
        share = quantity.value / 100
        around = text[max(0, quantity.start - 30) : quantity.end + 30].lower()
        if share < 1 and _MARGIN_RE.search(around):
            return [share, 1 + share, 1 - share]
        return [share]
    rate = _RATE_RE.match(text[quantity.end : quantity.end + 12])
    if rate and quantity.unit not in {"s", "qps", "token/s"}:
        return [quantity.value / _PERIOD_SECONDS[rate.group("period").lower()]]
    return [quantity.value]


_ARROWS = {"->", "→", "=>"}
_ARROW_NEXT_RE = re.compile(r"%?\s*(?:->|→|=>)\s*~?\d")
_CONTRAST_RE = re.compile(r"\b(?:but|however|although|though|whereas|while|vs\.?|versus)\b",
                          re.IGNORECASE)


def _components(unit: str) -> set[str]:
    numerator, denominator = unit_parts(unit)
    return {part for part in (numerator, denominator) if part and part != "s"} | (
        {"s"} if numerator == "s" else set())


def _shares_unit(result: Quantity, operands: list[Quantity]) -> bool:
    """Whether the operands could give the result's unit: a bare, % or x result can come from
    anything; otherwise some operand must share its quantity (time denominators aside)."""
    if result.unit in {"", "%", "x"}:
        return True
    wanted = _components(result.unit)
    return any(q.unit and _components(q.unit) & wanted for q in operands)


# "for a 7B model on vLLM that's roughly forty a second": the model's size names which model.
_MODEL_AFTER_RE = re.compile(r"\s*(?:-?\s*param\w*\s+)?(?:model|llm)\b", re.IGNORECASE)


_RATIO_TO_NEXT_RE = re.compile(r"\s*(?:times|x|×)\s+(?:that|this|it|what|the|our|their|its)\b",
                               re.IGNORECASE)
_MEASURED_NEXT_RE = re.compile(r"\s*,?\s*\(?(?:as\s+)?(?:measured|benchmarked|reported|published|"
                               r"per\s+the\s+benchmark|from\s+the\s+benchmark)\b", re.IGNORECASE)


def _result_readings(result: Quantity) -> list[float]:
    """Logs of the ways a result may be read: as written in canonical units and, for a share or
    a rate, as a fraction and as the amount over its own period ("2% per 5 min x 12 windows =
    24%/hour" multiplies to 0.24, the 24% an hour brings; operands read a percentage as a
    fraction)."""
    values = [result.value]
    if "%" in result.unit:
        values.append(result.value / 100)
    if result.per > 1:
        values += [value * result.per for value in list(values)]
    return [math.log(value) for value in values]


def _names_model(text: str, quantity: Quantity, result: Quantity) -> bool:
    """Whether a quantity is a model's name by its size ("a 7B model"), not an operand: unless
    the result is memory, which the size does give ("a 7B model in fp16 is 14 GB")."""
    return text[quantity.start : quantity.end].rstrip().lower().endswith("b") \
        and bool(_MODEL_AFTER_RE.match(text, quantity.end)) \
        and result.unit not in {"gb", "gib", "mb", "tb", "byte", "bytes"}


_LIST_HEADER_AFTER_RE = re.compile(r"[ \t]*:|[^\n,;:]*:[ \t]*\n")


# A figure that an earlier step of the sentence turned into the next one: "2% is 120".
_STEP_RESULT_NEXT_RE = re.compile(r"\s*(?:is|=|are|gives|means|comes\s+to)\s+[~≈]?\s*\d",
                                  re.IGNORECASE)


def _bare_list(text: str, quantities: list[Quantity], start: int, end: int,
               result: Quantity) -> list[Quantity]:
    """The bare list a bare result totals in its sentence ("Spend the 15: RPC 2, features 3,
    ..., slack 1 = 15"): its parts are added, not multiplied."""
    if result.unit:
        return []
    parts = _breakdown(text, [q for q in quantities if start <= q.start and q.end <= end], "")
    if parts and _LIST_HEADER_AFTER_RE.match(text, parts[0].end):
        parts = parts[1:]  # the whole the list splits: "Spend the 15 like a bill:\n• RPC: 2"
    return parts if len(parts) >= 3 else []


def find_implied_calculations(text: str, quantities: list[Quantity] | None = None,
                              skip: list[Calculation] | None = None) -> list[Calculation]:
    """Arithmetic stated in prose ("at 50k QPS that's only 10ms of CPU") whose result no
    product or quotient of the sentence's earlier numbers comes near (within 3x).

    The operands are the numbers since the previous result in the sentence ("≈ 120 tok/s ->
    12 QPS" starts again from 120 tok/s) and since the last contrast ("7ms vs 12ms, but a
    retrain means a 45 min rebuild" compares, it does not compute). A result with a unit needs
    an operand that shares it ("orders/hour" for "orders"; not "tok/s" for "QPS per card",
    which comes from a number in another sentence). A ramp ("5 -> 25 -> 50") is not a sum."""
    from itertools import product

    qs = quantities if quantities is not None else find_quantities(text)
    covered = [(c.start, c.end) for c in (skip or [])]
    flagged: list[Calculation] = []
    # A semicolon joins a cost to its consequence ("a check is ~200µs; at 20k QPS that's ...").
    sentence_starts = [0] + [m.end() for m in re.finditer(r"[.!?\n](?:\s|$)", text)]
    markers = list(_RESULT_RE.finditer(text))
    for index, marker in enumerate(markers):
        sentence_start = max(s for s in sentence_starts if s <= marker.start())
        after = [q for q in qs if marker.end() <= q.start <= marker.end() + 3]
        if not after:
            continue
        result = after[0]
        if marker.group(0).strip() in _ARROWS and _ARROW_NEXT_RE.match(text, result.end):
            continue  # "ramp 5 -> 25 -> 50 -> 100"
        if _EXPRESSION_NEXT_RE.match(text, result.end):
            continue  # "which is 1,250 / (2/3)": an expression starts there, not a result
        if _RATIO_TO_NEXT_RE.match(text, result.end):
            continue  # "which is roughly 48 times that": a ratio to a figure named elsewhere
        if _MEASURED_NEXT_RE.match(text, result.end):
            continue  # "T4 fp16 on 3B ≈ 120 tok/s measured": a measurement, not a result
        start = sentence_start
        if index and markers[index - 1].end() > sentence_start:
            start = markers[index - 1].end()
        contrasts = [m.end() for m in _CONTRAST_RE.finditer(text, start, marker.start())]
        start = max([start, *contrasts])
        operands = [q for q in qs if start <= q.start and q.end <= marker.start()
                    and not _names_model(text, q, result)][-3:]
        if len(operands) < 2 or result.value <= 0:
            continue
        if not _shares_unit(result, operands):
            continue
        if any(s <= q.start < e for q in [*operands, result] for s, e in covered):
            continue
        readings = [_operand_value(text, q) for q in operands]
        stepped = len(operands) > 2 and bool(_STEP_RESULT_NEXT_RE.match(text, operands[0].end))
        best = math.inf
        same_unit = [q for q in qs if sentence_start <= q.start and q.end <= marker.start()
                     and q.unit == result.unit]
        if len(same_unit) >= 2 and result.unit:  # "2ms + 3ms + ... that's 15ms"
            added = sum(q.value for q in same_unit)
            best = abs(math.log(added / result.value)) if added > 0 else best
        targets = _result_readings(result)
        for values in product(*readings):
            if any(v <= 0 for v in values):
                continue
            # Each operand multiplies or divides; the first of three may be left out when an
            # earlier step already used it ("2% is 120 orders/hour, and a 15 min bake gives
            # ~30" uses the last two), not when it is part of this one ("~100k orders/hour,
            # so 2% for 15 minutes gives ~30,000").
            for signs in product(*((1, -1, 0) if i == 0 and stepped else (1, -1)
                                   for i in range(len(values)))):
                total = sum(s * math.log(v) for s, v in zip(signs, values, strict=True))
                best = min(best, *(abs(total - target) for target in targets))
        listed = _bare_list(text, qs, sentence_start, marker.start(), result)
        if listed:
            # "RPC 2, features 3, ..., slack 1 = 15": a total of the list, checked as its sum.
            added = sum(q.value for q in listed)
            if abs(added - result.value) > max(0.05 * result.value, 0.5):
                flagged.append(Calculation(
                    text=text[listed[0].start : result.end], start=listed[0].start,
                    end=result.end, stated=result.value, actual=added, kind="sum",
                    expression=" + ".join(format_number(q.value) for q in listed)))
        elif best > math.log(3):
            flagged.append(Calculation(
                text=text[operands[0].start : result.end], start=operands[0].start,
                end=result.end, stated=result.value,
                actual=math.prod(reading[0] for reading in readings),
                expression=text[operands[0].start : operands[-1].end]))
    return flagged


# --- A breakdown and the total claimed for it -------------------------------------------------

# "That adds up to the 15ms", "sums to", "comes to", "totals", "total: 15ms", "fits in 20ms":
# the claimed total follows. "15ms in total", "15ms altogether", "15ms total.": it comes first.
_SUM_AFTER_RE = re.compile(
    r"\b(?:add(?:s|ed|ing)?\s+up\s+to|sum(?:s|med|ming)?\s+(?:up\s+)?to|"
    r"(?:comes?|came|coming)\s+(?:out\s+)?to|total(?:s|led|ling|ed|ing)?|in\s+total|"
    r"altogether|all\s+told|(?P<fits>fit(?:s|ting)?\s+(?:in(?:to|side)?|within|under))|"
    r"(?:the\s+)?(?:sum|total)\s+(?:is|was|comes\s+to|would\s+be|of)|"
    # "network 3ms, feature fetch 4ms, ..., so that's the 15": the parts said to make a total.
    # Also at the start of the line after a list: "- post 1ms\nthat's the 15ms", typed
    # "thats" or with a curly apostrophe.
    r"(?:so\s+|(?m:^)[ \t]*)(?:that['’]?s|that\s+is|that\s+makes|it['’]s)"
    r"(?=\s+(?:the\s+|our\s+|about\s+|~)?\d))\b",
    re.IGNORECASE)
_SUM_BEFORE_RE = re.compile(
    r"\s*(?:in\s+total|altogether|all\s+told|combined|total(?=\s*(?:[.,;:!?)]|$|"
    r"\b(?:and|so|which|that|with|leaving|for)\b)))\b", re.IGNORECASE)
_SUM_FILLER_RE = re.compile(
    r"(?:\s+|[:=,~≈]|\b(?:(?P<le>under|below|less\s+than|at\s+most|no\s+more\s+than|"
    r"within|inside|up\s+to)|(?P<ge>over|above|more\s+than|at\s+least)|is|was|be|would|"
    r"will|of|the|a|an|our|my|that's|that|it's|it|we're|at|about|around|roughly|"
    r"approximately|approx|exactly|precisely|just|only)\b)*",
    re.IGNORECASE)
_APPROX_RE = re.compile(r"\b(?:about|around|roughly|approximately|approx)\b|~|≈", re.IGNORECASE)
# A claim in its own sentence or clause refers back to the list only through words like these.
_ANAPHOR_RE = re.compile(
    r"\b(?:that|this|it|these|those|they|which|all|everything|together|altogether|sum|total|"
    r"combined|breakdown|split|parts|stages|components|pieces|steps|overall|whole|so)\b",
    re.IGNORECASE)
_CONTAINER_AFTER_RE = re.compile(
    r"[ \t]*(?:of[ \t]+)?(?:budget|contract|slo|sla|target|deadline|limit|ceiling|cap|total|"
    r"end-to-end|e2e|overall|envelope)\b", re.IGNORECASE)
_CONTAINER_BEFORE_RE = re.compile(
    r"\b(?:the|our|my|your|this|that|whole|entire|overall|full|total)\s+$", re.IGNORECASE)
_NOT_A_LABEL_RE = re.compile(
    r"\s*(?:[,.;:!?)]|$|\b(?:of|is|was|we|i|i'd|you|into|across|between|among|for|budget)\b)",
    re.IGNORECASE)
_LIST_GAP_RE = re.compile(r"[,;+\n•]|\b(?:and|plus|then)\b", re.IGNORECASE)
_NOT_A_LIST_RE = re.compile(
    r"\b(?:or|vs\.?|versus|instead|compared|rather|from)\b|->|→", re.IGNORECASE)
_LABEL_RE = re.compile(r"\b(?!(?:and|plus|then|with)\b)[A-Za-z]{3,}")
_DISTRIBUTION_RE = re.compile(r"\bp\d{2,3}(?:\.\d+)?\b|percentile|median|\bmean\b|average|"
                              r"\bavg\b", re.IGNORECASE)
_SUM_SENTENCE_RE = re.compile(r"[.!?](?:\s|$)|\n\s*\n")


def unit_label(quantity: Quantity) -> str:
    """The unit as the candidate wrote it ("ms" in "5ms"), for feedback lines."""
    match = _QUANTITY_RE.match(quantity.text)
    if match and match.group("unit"):
        return match.group("unit")
    words = re.findall(r"[A-Za-zµμ%/]+", quantity.text)
    return words[-1] if words and words[-1].lower() in _UNITS else quantity.unit


def _is_container(text: str, quantity: Quantity) -> bool:
    """"the 20ms" the breakdown splits, "a 20ms budget": the whole, not one of its parts."""
    if _CONTAINER_AFTER_RE.match(text, quantity.end):
        return True
    before = text[max(0, quantity.start - 20) : quantity.start]
    return bool(_CONTAINER_BEFORE_RE.search(before) and _NOT_A_LABEL_RE.match(text, quantity.end))


# "model compute 6ms including the ~2ms launch overhead": a share of the part before it.
_SUBPART_BEFORE_RE = re.compile(r"\b(?:including|incl\.?|of\s+which)\s+(?:the\s+|about\s+|"
                                r"around\s+|roughly\s+|~\s?)*$", re.IGNORECASE)


def _breakdown(text: str, quantities: list[Quantity], unit: str) -> list[Quantity]:
    """The parts of a same-unit list ("network 3ms, features 5ms, model 6ms"): three or more,
    each named, joined by commas, "and" or "+", not alternatives ("5ms or 10ms") or a distribution
    ("12ms p50, 18ms p95, 30ms p99"); the container ("of the 20ms") left out."""
    depth, depths, cursor = 0, [], 0
    for q in quantities:
        segment = text[cursor : q.start]
        depth += segment.count("(") - segment.count(")")
        depths.append(depth)
        cursor = q.start
    candidates = [(q, d) for q, d in zip(quantities, depths, strict=True) if q.unit == unit]
    if not candidates:
        return []
    base = min(d for _, d in candidates)
    parts = [q for q, d in candidates if d == base and not _is_container(text, q)
             and not _SUBPART_BEFORE_RE.search(text, max(0, q.start - 25), q.start)]
    if len(parts) >= 4:  # a subtotal stated in the list ("15ms: 2ms, 3ms, ...") is not a part
        for q in (parts[0], parts[-1]):
            rest = sum(o.value for o in parts if o is not q)
            if abs(rest - q.value) <= 0.02 * q.value:
                parts = [o for o in parts if o is not q]
                break
    if len(parts) < 3:
        return []
    for left, right in zip(parts, parts[1:], strict=False):
        gap = text[left.end : right.start]
        if not _LIST_GAP_RE.search(gap) or _NOT_A_LIST_RE.search(gap):
            return []
        if not _LABEL_RE.search(gap):  # "14ms, 20ms and 30ms": readings, not named parts
            return []
    tagged = sum(1 for q in parts
                 if _DISTRIBUTION_RE.search(text[max(0, q.start - 14) : q.end + 14]))
    if tagged >= 2:
        return []
    return parts


def breakdown_parts(text: str, quantities: list[Quantity], unit: str) -> list[Quantity]:
    """The named parts of a same-unit breakdown among these quantities (see _breakdown)."""
    return _breakdown(text, quantities, unit) if unit else []


def find_sum_claims(text: str, quantities: list[Quantity] | None = None,
                    skip: list[Calculation] | None = None) -> list[Calculation]:
    """A breakdown whose parts do not add up to the total the answer claims for them:
    "network 3ms, features 5ms, ... model 6ms, post-processing 1ms. That adds up to the 15ms"
    (the parts add up to 21ms).

    The claim is a total after "adds up to", "sums to", "comes to", "totals", "fits in", or
    before "in total", "altogether"; the parts are the same-unit list before it in its
    sentence, else in the sentence before (then the claim must point back: "that", "it",
    "the stages", "in total"). A wrong total is one off by more than max(5%, 0.5 units);
    for "fits in", "under" or "within" only a sum above it is, for "at least" one below."""
    qs = quantities if quantities is not None else find_quantities(text)
    covered = [(c.start, c.end) for c in (skip or [])]
    starts = [0] + [m.end() for m in _SUM_SENTENCE_RE.finditer(text)]
    clause_cuts = [m.end() for m in re.finditer(r"[;:]", text)]
    flagged: list[Calculation] = []
    seen: set[int] = set()
    for marker in _SUM_AFTER_RE.finditer(text):
        after = _SUM_FILLER_RE.match(text, marker.end())
        filler = after.group(0) if after else ""
        total = next((q for q in qs if q.start == marker.end() + len(filler)), None)
        le = bool(marker.group("fits")) or bool(after and after.group("le"))
        ge = bool(after and after.group("ge"))
        approx = bool(_APPROX_RE.search(filler))
        claim_start = marker.start()
        if total is None:  # "15ms in total", "15 ms altogether"
            before = [q for q in qs if q.end <= marker.start()]
            lead_in = _SUM_BEFORE_RE.match(text, before[-1].end) if before else None
            if lead_in is None or lead_in.end() != marker.end():
                continue
            total, le, ge, approx = before[-1], False, False, False
            lead = text[max(0, total.start - 24) : total.start]
            approx = bool(_APPROX_RE.search(lead[-10:]))
            le = bool(re.search(r"\b(?:under|below|less than|at most|within)\s+$", lead, re.I))
            claim_start = total.start
        label = None
        if not total.unit and total.value > 0:
            # "That adds up to the 15": a bare total takes the unit of the list it sums.
            listed = _list_unit(qs, claim_start)
            if listed is not None:
                label = unit_label(listed)
                total = replace(total, unit=listed.unit, factor=listed.factor,
                                value=total.written * listed.factor,
                                low=total.low * listed.factor, high=total.high * listed.factor)
        if total.start in seen or not total.unit or total.unit in {"%", "x"} or total.value <= 0:
            continue
        sentence = max(s for s in starts if s <= claim_start)
        next_sentence = min([s for s in starts if s > claim_start] + [len(text)])
        if len([q for q in qs if total.end <= q.start < next_sentence
                and q.unit == total.unit]) >= 2:
            continue  # "a total of 20ms: 3ms network, 5ms ..." heads its own list
        here = [q for q in qs if sentence <= q.start and q.end <= claim_start]
        parts = _breakdown(text, here, total.unit)
        clause = max([sentence, *(c for c in clause_cuts if c <= claim_start)])
        if parts:  # "..., 6ms model, which adds up to": not "..., and the GPU part adds up to"
            prefix = text[clause:claim_start] if parts[-1].end <= clause else (
                text[parts[-1].end : claim_start])
            if len(prefix.split()) > 3 and not _ANAPHOR_RE.search(prefix):
                continue
        if not parts:
            if any(q.unit == total.unit for q in here):
                continue  # part of the list is in this sentence: not a clean reference back
            prefix = text[sentence:claim_start]
            if len(prefix.split()) > 2 and not _ANAPHOR_RE.search(prefix):
                continue
            previous = max([s for s in starts if s < sentence] or [sentence])
            if previous == sentence:
                continue
            parts = _breakdown(text, [q for q in qs if previous <= q.start and q.end <= sentence],
                               total.unit)
        if not parts or total in parts:
            continue
        if any(s <= q.start < e for q in [*parts, total] for s, e in covered):
            continue
        factor = total.factor or 1.0
        low = sum(q.low for q in parts) / factor
        high = sum(q.high for q in parts) / factor
        stated_low, stated_high = total.low / factor, total.high / factor
        stated = total.value / factor
        slack = max((0.1 if approx else 0.05) * stated, 0.5)
        too_high = low > stated_high + slack
        too_low = high < stated_low - slack
        if (le and not too_high) or (ge and not too_low) or not (too_high or too_low):
            continue
        seen.add(total.start)
        written = [q.value / factor for q in parts]
        flagged.append(Calculation(
            text=text[parts[0].start : total.end], start=parts[0].start, end=total.end,
            stated=stated, actual=sum(written),
            expression=" + ".join(format_number(round(v, 6)) for v in written),
            kind="sum", unit=label or unit_label(total)))
    return flagged


def _list_unit(quantities: list[Quantity], before: int) -> Quantity | None:
    """The last of three or more figures in one unit just before `before`, if they are."""
    named = [q for q in quantities if q.end <= before and q.unit][-3:]
    if len(named) < 3 or len({q.unit for q in named}) != 1 or named[-1].unit in {"%", "x"}:
        return None
    return named[-1]
