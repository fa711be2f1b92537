"""Derived figures checked against the candidate's own inputs: a percentage, ratio or
speed-up that follows a comparison of two figures in the same unit ("7ms vs 12ms, so about 70%
faster": 12 -> 7 is 42% less), and a figure with a stated headroom ("1,250 GPUs plus 20%
headroom is 1,750": 1,250 x 1.2 = 1,500).

Every valid route is accepted: a reduction is read against the larger figure, an increase
against the smaller one, and a ratio ("1.7x", "twice as fast") either way up. One pass over
the answer's quantities, each looked at against its neighbours only.
"""

from __future__ import annotations

import math
import re

from scoring.engines.numbers import Calculation, Quantity, format_number, unit_label

# Shared connectors: an approximation before a figure ("is about 32 kW", "~3,333") and the words
# that say a figure is what the ones before it come to ("is", "gives us", "works out to").
_ROUGHLY = r"(?:about\s+|around\s+|roughly\s+|~\s*)?"
_HEDGES = r"(?:(?:about|around|roughly|only|just|~)\s*)*"
_COMES_TO = (r"(?:is|=|means|gives(?:\s+us)?|comes\s+to|would\s+be|works\s+out\s+to|that's|"
             r"that\s+is)")


def _clear_slip(stated: float, wanted: float) -> bool:
    """Off by more than half or double: only a slip that no practical factor explains (real
    bandwidth well under the peak, batching above 1 / RTF)."""
    return not 0.5 * wanted <= stated <= 2 * wanted

# Between the two figures of a comparison ("7ms vs 12ms", "from 12ms to 7ms", "7ms compared
# with 12ms", "7ms against 12ms", "7ms on TensorRT versus 12ms on TorchServe").
# A percentile's name may sit between them: "7ms p99 vs 12ms on TorchServe".
_VERSUS_RE = re.compile(
    r"^(?:[^.;:!?\n\d]|\b[pP]\d{2}\b){0,40}?\b(?:vs\.?|versus|against|compared\s+(?:with|to)|to|"
    r"instead\s+of|over)\b[^.;:!?\n\d]{0,40}$", re.IGNORECASE)
_FROM_RE = re.compile(r"\bfrom\s+$", re.IGNORECASE)
_DOWN_WORDS = re.compile(
    r"^\s*(?:faster|quicker|lower|less|fewer|smaller|cheaper|reduction|decrease|cut|drop|"
    r"saving|savings|improvement|better|shorter|off|down|reduc\w*|"
    # "about 60% of the latency gone".
    r"of\s+(?:the\s+)?(?:latency|time|runtime)\s+(?:gone|saved|removed|cut|shaved))\b",
    re.IGNORECASE)
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
# "..., and a leak alert if memory grows more than 2%": the share belongs to another thought.
_ANOTHER_THOUGHT_RE = re.compile(r"\b(?:and|if|when|while|whereas|unless|or)\b|[;:]",
                                 re.IGNORECASE)
_HEADROOM_RE = re.compile(
    r"^[^.;:!?\n]{0,30}?\b(?:headroom|margin|buffer|safety|spare|on\s+top)\b"
    r"[^.;:!?\n\d]{0,30}$", re.IGNORECASE)
# A longer aside before the total, ending where the total is given: "20% headroom for spikes,
# deploys and dead nodes, that's about 1,400".
_HEADROOM_LONG_RE = re.compile(
    r"^[^.;:!?\n]{0,30}?\b(?:headroom|margin|buffer|safety|spare|on\s+top)\b[^.;:!?\n\d]{0,60}?"
    r"(?:that'?s|is|=|gives(?:\s+us)?|comes\s+to|takes\s+(?:it|us)\s+to|lands?\s+(?:at|on)|"
    r"makes?\s+it)\s+" + _HEDGES + "$", re.IGNORECASE)
# The base said in the sentence before, as the figure the headroom goes on: "... = 1,250 A100s
# before any headroom. With 20% headroom ...".
_BASE_CARRIED_RE = re.compile(
    r"\s*\w*\s*(?:before|without|excluding|pre)[- ](?:any\s+|the\s+)?(?:headroom|margin|buffer)"
    r"\b[^.!?\n\d]{0,20}[.!?]?\s+(?:so\s+|and\s+|then\s+)?(?:with|adding|add|plus|after)\s+"
    r"(?:a\s+|an\s+|another\s+)?~?\s*$", re.IGNORECASE)
_CHAIN_NEXT_RE = re.compile(r"\s*[x×*/÷]\s*\d")
_PERCENT_TOLERANCE = 0.12  # relative, or 3 percentage points, whichever is larger
_SENTENCE_BREAK = re.compile(r"[.!?]\s|\n")


def _after_times_sign(text: str, quantity: Quantity) -> bool:
    """Whether a multiplication sign stands right before the figure ("x 1.1", "× 2%")."""
    return re.search(r"[x×*]\s*$", text[max(0, quantity.start - 3) : quantity.start]) is not None


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
        gap = abs(a.value - b.value)
        if difference is None and result.unit == a.unit and i + 3 < len(quantities) \
                and quantities[i + 3].unit == "%" and abs(result.value - gap) <= 0.05 * gap:
            # "from 12ms to 7ms takes 5ms off, about 60%": the share follows the difference.
            difference, result = result, quantities[i + 3]
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
            said_before = not _ANOTHER_THOUGHT_RE.search(before) and len(before) <= 60
            if _DOWN_WORDS.match(after) or (said_before and not _UP_WORDS.match(after)
                                            and _DOWN_BEFORE_RE.search(before)):
                wanted, how = 100 * (high - low) / high, f"({format_number(shown_high)} - " \
                    f"{format_number(shown_low)}) / {format_number(shown_high)}"
            elif _UP_WORDS.match(after) or (said_before and _UP_BEFORE_RE.search(before)):
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
    flagged += _shares_above(text, quantities)
    flagged += _differences(text, quantities)
    flagged += _shares_of(text, quantities)
    flagged += _share_of_figure(text, quantities)
    flagged += _figures_as_shares(text, quantities)
    flagged += _rate_conversions(text, quantities)
    flagged += _products(text, quantities)
    flagged += _shares_over_windows(text, quantities)
    flagged += _rates_over_windows(text, quantities)
    flagged += _windows_at_rates(text, quantities)
    flagged += _one_cell_shares(text, quantities)
    flagged += _error_budgets(text, quantities)
    flagged += _transfer_times(text, quantities)
    flagged += _streams_per_gpu(text, quantities)
    flagged += headroom_read_as_growth(text, quantities)
    return flagged


# "at under 40% CPU there's 60% headroom, so we could push roughly 60% more traffic": a fleet
# 40% busy carries 100 / 40 = 2.5x its load when full, 150% more. The headroom is a share of
# capacity, not of today's load. A stated ceiling ("we cap at 80%") is a valid route too.
_BUSY_AFTER_RE = re.compile(r"\s*(?:cpu|gpu|utili[sz]\w*|busy|util\b|of\s+(?:capacity|the\s+"
                            r"(?:fleet|cpus?|gpus?)))", re.IGNORECASE)
_BUSY_BEFORE_RE = re.compile(r"\b(?:utili[sz]ation|cpu|gpu|busy)\s+(?:is\s+|sits\s+|runs\s+)?"
                             r"(?:at\s+|of\s+|around\s+|about\s+|under\s+|below\s+|~\s*)*$",
                             re.IGNORECASE)
_MORE_LOAD_RE = re.compile(r"\s*(?:more|extra|additional)\s+(?:traffic|load|requests|qps|rps|"
                           r"throughput|volume|users)\b", re.IGNORECASE)


def headroom_read_as_growth(text: str, quantities: list[Quantity]) -> list[Calculation]:
    """Growth claimed from a busy share that does not follow from it ("40% CPU, so 60% more
    traffic")."""
    flagged: list[Calculation] = []
    for i, busy in enumerate(quantities):
        if busy.unit != "%" or busy.is_range or not 0 < busy.value < 100:
            continue
        if not (_BUSY_AFTER_RE.match(text, busy.end) or _BUSY_BEFORE_RE.search(
                text, max(0, busy.start - 40), busy.start)):
            continue
        for more in quantities[i + 1 : i + 5]:
            if more.start - busy.end > 200 or not _same_sentence(text, busy.start, more.end):
                break
            if more.unit != "%" or more.is_range or not _MORE_LOAD_RE.match(text, more.end):
                continue
            ceilings = [100.0] + [q.value for q in quantities[i + 1 : i + 5]
                                  if q.unit == "%" and busy.value < q.value <= 100
                                  and q.start < more.start]
            routes = [100 * (c - busy.value) / busy.value for c in ceilings]
            if not any(_close(more.value, wanted) for wanted in routes):
                flagged.append(_calculation(
                    text, busy, more, routes[0],
                    f"(100 - {format_number(busy.value)}) / {format_number(busy.value)}", "%"))
            break
    return flagged


# "real-time factor kept under 0.3, which means one GPU can handle about 30 concurrent
# streams": a GPU busy 0.3 s per second of audio keeps up with about 1 / 0.3 = 3 streams.
_RTF_RE = re.compile(r"\b(?:real[- ]time factor|rtf)\b[^.;:!?\n\d]{0,30}$", re.IGNORECASE)
_STREAMS_AFTER_RE = re.compile(r"\s*(?:concurrent\s+|simultaneous\s+|live\s+|parallel\s+)?"
                               r"(?:streams|calls|sessions)\b", re.IGNORECASE)
# "..., which means one GPU can handle ...": the count derived from the factor, not a load it
# was measured at ("RTF under 0.5 at 16 concurrent streams").
_DERIVED_FROM_RE = re.compile(r"\b(?:means?|so|therefore|hence|i\.e\.|giving|gives)\b",
                              re.IGNORECASE)
_PER_GPU_BETWEEN_RE = re.compile(r"\b(?:gpu|card|a100|t4|l4|replica)\b", re.IGNORECASE)


def _streams_per_gpu(text: str, quantities: list[Quantity]) -> list[Calculation]:
    flagged: list[Calculation] = []
    for i, factor in enumerate(quantities[:-1]):
        # "one GPU can handle about 30 streams": the machine counted on the way is skipped.
        streams = quantities[i + 1]
        if streams.unit == "gpu" and i + 2 < len(quantities):
            streams = quantities[i + 2]
        if factor.unit or streams.unit or not 0 < factor.value < 1 or streams.is_range \
                or factor.is_range or not _RTF_RE.search(text, max(0, factor.start - 60),
                                                         factor.start) \
                or not _STREAMS_AFTER_RE.match(text, streams.end) \
                or streams.start - factor.end > 100 \
                or not _PER_GPU_BETWEEN_RE.search(text, factor.end, streams.start) \
                or not _DERIVED_FROM_RE.search(text, factor.end, streams.start) \
                or not _same_sentence(text, factor.start, streams.end):
            continue
        wanted = 1 / factor.value
        if _clear_slip(streams.value, wanted):
            flagged.append(Calculation(
                text=text[factor.start : streams.end], start=factor.start, end=streams.end,
                stated=streams.written, actual=wanted, kind="derived", unit="streams",
                expression=f"1 / {factor.text}"))
    return flagged


# "streams the 14GB of weights at about 2 TB/s, which is ~0.7ms per step": a size over a
# bandwidth is a time (14 GB / 2,000 GB/s = 7 ms).
_AT_RATE_RE = re.compile(r"^[^.;:!?\n]{0,40}?\b(?:at|over|through|across|with)\s+" + _ROUGHLY
                         + "$", re.IGNORECASE)
# Not "..., so 20ms means prefill plus a token": "so" leads to the budget, not to the time.
_TAKES_RE = re.compile(r"^\s*,?\s*(?:(?:which|that)(?:'s|\s+is|\s+takes)|that's|is|=|takes|"
                       r"comes\s+to)\s+(?:(?:about|around|roughly|only|just|~)\s*)*$",
                       re.IGNORECASE)


def _transfer_times(text: str, quantities: list[Quantity]) -> list[Calculation]:
    flagged: list[Calculation] = []
    for size, rate, took in zip(quantities, quantities[1:], quantities[2:], strict=False):
        if size.unit != "GB" or rate.unit != "GB/s" or took.unit != "s" or "Gb" in rate.text \
                or size.is_range or rate.is_range or took.is_range or rate.value <= 0 \
                or not _AT_RATE_RE.match(text[size.end : rate.start]) \
                or not _TAKES_RE.match(text[rate.end : took.start]):
            continue
        wanted = size.value / rate.value
        if _clear_slip(took.value, wanted):
            flagged.append(Calculation(
                text=text[size.start : took.end], start=size.start, end=took.end,
                stated=took.written, actual=wanted * took.written / took.value,
                kind="derived", unit=unit_label(took),
                expression=f"{size.text} / {rate.text}"))
    return flagged


# "an SLO of 99.5% over 30 days, that gives an error budget of about 36 hours": the budget is
# what the objective leaves, (100 - 99.5)% of 30 days = 3.6 hours.
_OVER_WINDOW_RE = re.compile(r"^\s*(?:over|across|in|per|for|measured over)\s+(?:a\s+|the\s+)?$",
                             re.IGNORECASE)
_BUDGET_WORD_RE = re.compile(r"\bbudget\b", re.IGNORECASE)
_THRESHOLD_BETWEEN_RE = re.compile(r"^\s*of\s+(?:[\w-]+\s+){0,3}(?:under|below|within|in|faster\s+"
                                   r"than|at\s+or\s+under)\s+$", re.IGNORECASE)


def _error_budgets(text: str, quantities: list[Quantity]) -> list[Calculation]:
    flagged: list[Calculation] = []
    for i in range(len(quantities) - 2):
        objective, window, budget = quantities[i], quantities[i + 1], quantities[i + 2]
        if objective.unit != "%" or not 90 <= objective.value < 100 or objective.is_range:
            continue
        if _THRESHOLD_BETWEEN_RE.match(text[objective.end : window.start]) \
                and i + 3 < len(quantities):
            # "99.5% of chunks under 500ms over 30 days": the latency bar, then the window.
            window, budget = quantities[i + 2], quantities[i + 3]
            if not _OVER_WINDOW_RE.match(text[quantities[i + 1].end : window.start]):
                continue
        elif not _OVER_WINDOW_RE.match(text[objective.end : window.start]):
            continue
        if window.unit != "s" or budget.unit != "s" or window.is_range or budget.is_range:
            continue
        between = text[window.end : budget.start]
        if len(between) > 60 or not _BUDGET_WORD_RE.search(between) or not _same_sentence(
                text, objective.start, budget.end):
            continue
        wanted = (100 - objective.value) / 100 * window.value  # seconds
        if abs(budget.value - wanted) > 0.25 * wanted:
            scale = budget.factor or 1.0
            flagged.append(Calculation(
                text=text[objective.start : budget.end], start=objective.start, end=budget.end,
                stated=budget.written, actual=wanted / scale, kind="derived",
                unit=unit_label(budget),
                expression=f"(100 - {format_number(objective.value)})% of {window.text.strip()}"))
    return flagged


# "6,000 orders an hour, so 2% is 1,200 orders an hour": a share of a figure stated before it.
_SHARE_IS_RE = re.compile(
    r"^\s*(?:of\s+(?:that|those|it|them|this|traffic|(?:the|our)\s+\w+)\s+)?" + _COMES_TO
    + r"\s+" + _HEDGES + "$", re.IGNORECASE)


def _shares_of(text: str, quantities: list[Quantity]) -> list[Calculation]:
    flagged: list[Calculation] = []
    for i in range(1, len(quantities) - 1):
        share, result = quantities[i], quantities[i + 1]
        if share.unit != "%" or share.is_range or result.unit in {"%", "x"} or result.value <= 0:
            continue
        if not _SHARE_IS_RE.match(text[share.end : result.start]):
            continue
        if _after_times_sign(text, share):
            continue  # "12 windows x 2% = 24% per hour": a factor of a product, not a share of
        bases = [q for q in quantities[:i] if q.unit not in {"%", "x"} and q.value > 0
                 and share.start - q.end <= 200 and not q.is_range]
        if not bases:
            continue
        fraction = share.value / 100
        rate_base = next((q for q in reversed(bases) if _is_rate(q) and q.unit == result.unit),
                         None)
        if _is_rate(result) and rate_base is not None:
            # "60k orders an hour, so 1% is ~600 orders a minute": rates compared per second.
            wanted = rate_base.value * fraction
            if abs(result.value - wanted) > 0.25 * wanted:
                flagged.append(Calculation(
                    text=text[share.start : result.end], start=share.start, end=result.end,
                    stated=result.written, actual=wanted * result.per, kind="derived",
                    unit=unit_label(result),
                    expression=f"{format_number(share.value)}% of {rate_base.text}"))
            continue
        if any(abs(q.written * f - result.written) <= 0.25 * result.written
               for q in quantities[:i] if q.unit not in {"%", "x"} and q.value > 0
               for f in (fraction, 1 + fraction, 1 - fraction)):
            continue  # some figure of the answer gives it (or it plus the share): a valid route
        base = bases[-1]
        wanted = base.written * fraction
        flagged.append(Calculation(
            text=text[share.start : result.end], start=share.start, end=result.end,
            stated=result.written, actual=wanted, kind="derived", unit=unit_label(result),
            expression=f"{format_number(share.value)}% of {format_number(base.written)}"))
    return flagged


# "2% of 400,000 orders an hour is 8,000 orders an hour": a share of the figure right after it.
_OF_FIGURE_RE = re.compile(r"^\s*of\s+(?:the\s+|our\s+|those\s+|their\s+)?$", re.IGNORECASE)


# "a 1% canary: with ~20M daily users that's only around 2,000 people": the share, the whole it
# is taken of, and what it comes to, said more loosely (then the whole and the result are
# counted in the same unit).
_WITH_BASE_RE = re.compile(r"^\s*(?:[\w-]+\s+){0,2}?[\w-]*[:,]?\s*(?:of|with|across|among|out\s+of)"
                           r"\s+(?:the\s+|our\s+|those\s+|their\s+)?" + _ROUGHLY + "$",
                           re.IGNORECASE)
_BASE_IS_RE = re.compile(r"^\s*(?:[\w-]+\s+){0,3}?,?\s*" + _COMES_TO + r"\s+" + _HEDGES + "$",
                         re.IGNORECASE)


def _share_of_figure(text: str, quantities: list[Quantity]) -> list[Calculation]:
    flagged: list[Calculation] = []
    for i in range(len(quantities) - 2):
        share, base, result = quantities[i], quantities[i + 1], quantities[i + 2]
        if share.unit != "%" or share.is_range or base.unit in {"%", "x"} or base.is_range \
                or result.unit in {"%", "x"} or base.value <= 0 or result.value <= 0:
            continue
        between, after = text[share.end : base.start], text[base.end : result.start]
        said_of = _OF_FIGURE_RE.match(between) and _SHARE_IS_RE.match(after)
        said_loosely = base.unit == result.unit and _WITH_BASE_RE.match(between) \
            and _BASE_IS_RE.match(after)
        if not (said_of or said_loosely) or not _same_sentence(text, share.start, result.end):
            continue
        if not said_of and (result.value >= 0.9 * base.value or any(
                abs(result.value - base.value * f) <= 0.25 * base.value * f
                for f in (share.value / 100, 1 - share.value / 100) if f > 0)):
            # Said loosely, a figure is a share only when it is less than the whole and is
            # not the share's complement ("65% utilization across 100 GPUs, that's 35 idle",
            # "20% headroom with 1,250 GPUs comes to 1,500" is a total, not a share).
            continue
        # Rates are compared per second ("2% of 40k an hour is ~11 a minute"); counts as written.
        rates = _is_rate(base) and _is_rate(result)
        wanted = (base.value if rates else base.written) * share.value / 100
        stated = result.value if rates else result.written
        if abs(stated - wanted) > 0.25 * wanted:
            flagged.append(Calculation(
                text=text[share.start : result.end], start=share.start, end=result.end,
                stated=result.written, actual=wanted * (result.per if rates else 1.0),
                kind="derived", unit=unit_label(result),
                expression=f"{format_number(share.value)}% of {base.text}"))
    return flagged


# "0.7ms, which is about 16% of the budget": a figure said as a share of the sentence's whole.
_AS_SHARE_BETWEEN_RE = re.compile(r"^\s*,?\s*(?:(?:which\s+is|that's|that\s+is|or|i\.e\.|so|"
                                  r"only|just|about|around|roughly|~|under|over|almost|nearly)"
                                  r"[\s,]*)*$", re.IGNORECASE)
_OF_WHOLE_RE = re.compile(r"\s+of\s+(?:the\s+|our\s+|a\s+|its\s+|their\s+|total\s+)?"
                          r"(?:[\w-]+\s+){0,2}?(?:budget|sla|slo|target|total|limit|contract|"
                          r"ceiling|deadline)\b", re.IGNORECASE)


def _figures_as_shares(text: str, quantities: list[Quantity]) -> list[Calculation]:
    flagged: list[Calculation] = []
    for i in range(len(quantities) - 1):
        part, share = quantities[i], quantities[i + 1]
        if share.unit != "%" or share.is_range or part.unit in {"", "%", "x"} or part.value <= 0:
            continue
        if not _AS_SHARE_BETWEEN_RE.match(text[part.end : share.start]) \
                or not _OF_WHOLE_RE.match(text, share.end):
            continue
        if i > 0 and _OF_FIGURE_RE.match(text[quantities[i - 1].end : part.start]) \
                and quantities[i - 1].unit == part.unit:
            # "5ms of the 20ms, or roughly 25%": the part is the figure before "of the".
            wholes, part = [part], quantities[i - 1]
        else:
            wholes = [q for q in quantities if q is not part and q.unit == part.unit
                      and not q.is_range and q.value > part.value
                      and _same_sentence(text, min(q.start, part.start), max(q.end, part.end))]
        if not wholes:
            continue
        routes = [100 * part.value / whole.value for whole in wholes]
        if any(_close(share.value, wanted) for wanted in routes):
            continue  # some whole of the sentence gives it: a valid route
        whole = wholes[0]
        flagged.append(Calculation(
            text=text[part.start : share.end], start=part.start, end=share.end,
            stated=share.value, actual=routes[0], kind="derived", unit="%",
            expression=f"{format_number(part.written)} / {format_number(whole.written)}"))
    return flagged


# "0.5% an hour is about 2% per five minutes": a rate put in another time unit keeps its value.
# "0.4% a minute, so over an hour that's about 4%": the window may be named before the result.
_CONVERTS_TO_RE = re.compile(r"^\s*,?\s*(?:(?:so\s+)?(?:over|across|in|for)\s+(?:an?|one|the|1)\s+"
                             r"(?:second|minute|hour|day)\s*,?\s*(?:that's|that\s+is|it's|is|=|"
                             r"comes\s+to|gives(?:\s+us)?|would\s+be)|is|=|means|equals|"
                             r"works\s+out\s+to|comes\s+to|or|which\s+is|that's|so)\s+"
                             r"(?:about|around|roughly|approximately|only|just|~)?\s*$",
                             re.IGNORECASE)


def _rate_conversions(text: str, quantities: list[Quantity]) -> list[Calculation]:
    flagged: list[Calculation] = []
    for rate, converted in zip(quantities, quantities[1:], strict=False):
        if not rate.unit or rate.unit != converted.unit or max(rate.per, converted.per) <= 1 \
                or math.isclose(rate.per, converted.per) or rate.is_range or converted.is_range \
                or rate.value <= 0 or not _CONVERTS_TO_RE.match(text[rate.end : converted.start]):
            continue
        if abs(converted.value - rate.value) > 0.25 * rate.value:
            flagged.append(Calculation(
                text=text[rate.start : converted.end], start=rate.start, end=converted.end,
                stated=converted.written, actual=rate.value * converted.per, kind="derived",
                unit=unit_label(converted), expression=f"{rate.text} in the same units"))
    return flagged


# "80 A100s at 400 W each is about 32 kW", "1,250 GPUs at $2 an hour is $2,500 an hour", "each
# A100 draws about 400 W, so 80 of them are about 32 kW": a count times a per-item figure.
_AT_EACH_RE = re.compile(r"^\s*(?:at|of|with|running\s+at|drawing|x|×|times)\s+" + _ROUGHLY + "$",
                         re.IGNORECASE)
_EACH_IS_RE = re.compile(r"^\s*(?:each|apiece|per\s+(?:gpu|card|node|a100|t4|h100|replica))?"
                         r"\s*,?\s*(?:is|=|comes\s+to|that's|so|gives|totals?|totalling|totaling|"
                         r"for)\s+(?:a\s+total\s+of\s+)?" + _ROUGHLY + "$", re.IGNORECASE)
_SO_COUNT_RE = re.compile(r"^[^.;:!?\n\d]{0,25}?\b(?:so|and|which\s+means)\s+(?:the\s+)?$",
                          re.IGNORECASE)
_OF_THEM_RE = re.compile(r"^\s*(?:of\s+them|gpus|cards|a100s|t4s|h100s|nodes)?\s*(?:are|is|draw|"
                         r"use|come\s+to|total|need|cost)\s+" + _ROUGHLY + "$", re.IGNORECASE)


def _products(text: str, quantities: list[Quantity]) -> list[Calculation]:
    flagged: list[Calculation] = []
    for first, second, result in zip(quantities, quantities[1:], quantities[2:], strict=False):
        if _AT_EACH_RE.match(text[first.end : second.start]) \
                and _EACH_IS_RE.match(text[second.end : result.start]):
            count, each = first, second
        elif _SO_COUNT_RE.match(text[first.end : second.start]) \
                and _OF_THEM_RE.match(text[second.end : result.start]):
            count, each = second, first
        else:
            continue
        per_item = each.unit.removesuffix("/gpu")  # "40 QPS each" reads as QPS per GPU
        if count.unit not in {"", "gpu"} or count.is_range or each.is_range or not per_item \
                or per_item != result.unit or count.written < 2 or result.value <= 0 \
                or not _same_sentence(text, first.start, result.end):
            continue
        wanted = count.written * each.value
        if abs(result.value - wanted) > 0.25 * wanted:
            flagged.append(Calculation(
                text=text[first.start : result.end], start=first.start, end=result.end,
                stated=result.written, actual=wanted * result.written / result.value,
                kind="derived", unit=unit_label(result),
                expression=f"{format_number(count.written)} x {each.text}"))
    return flagged


def _is_rate(quantity: Quantity) -> bool:
    return quantity.unit.endswith("/s") and quantity.per > 1


# "40k orders an hour, so 2% over the 15 minutes is about 8,000 orders": a share of a rate over
# a window is rate x share x window (200 orders), checked against the count stated.
# "over the 15 minutes", "so at 2% the 15 minute window is ...".
_OVER_THE_WINDOW_RE = re.compile(r"^\s*(?:(?:over|across|in|inside|within|during|for)\s+"
                                 r"(?:a\s+|the\s+|that\s+|each\s+)?|,?\s*(?:the|that|each)\s+)$",
                                 re.IGNORECASE)
_WINDOW_IS_RE = re.compile(r"^\s*(?:window|step|bake|period)?\s*(?:is|=|means|gives(?:\s+us)?|"
                           r"comes\s+to|would\s+be|works\s+out\s+to|that's|,\s*that's|of)?\s*"
                           r"(?:about|around|roughly|only|just|~)?\s*$", re.IGNORECASE)


_HYPHENED_TIME_RE = re.compile(r"-(second|sec|minute|min|hour|hr)s?\b", re.IGNORECASE)
_HYPHENED_SECONDS = {"sec": 1.0, "min": 60.0, "hou": 3600.0, "hr": 3600.0}


def _window(text: str, window: Quantity) -> tuple[float, int] | None:
    """A stretch of time in seconds and where its words end ("15 minutes"; "the 15-minute
    window"), or None for a figure that is not one."""
    hyphened = _HYPHENED_TIME_RE.match(text, window.end) if not window.unit else None
    if hyphened:
        return (window.written * _HYPHENED_SECONDS[hyphened.group(1).lower()[:3]],
                hyphened.end())
    return (window.value, window.end) if window.unit == "s" else None


_OF_RATE_RE = re.compile(r"^\s*of\s+(?:the\s+|our\s+)?(?:about|around|roughly|~)?\s*$",
                         re.IGNORECASE)


def _shares_over_windows(text: str, quantities: list[Quantity]) -> list[Calculation]:
    flagged: list[Calculation] = []
    for i in range(len(quantities) - 2):
        share, window, result = quantities[i], quantities[i + 1], quantities[i + 2]
        named: Quantity | None = None
        if _is_rate(window) and i + 3 < len(quantities) \
                and _OF_RATE_RE.match(text[share.end : window.start]):
            # "2% of roughly 100k orders an hour over the 15 minutes is about 30,000 orders":
            # the rate named between the share and the window.
            named, window, result = window, quantities[i + 2], quantities[i + 3]
        elif i == 0:
            continue
        timed = _window(text, window)
        if timed is None:
            continue
        seconds, window_end = timed
        if share.unit != "%" or share.is_range or window.is_range:
            continue
        if (named is None and not _OVER_THE_WINDOW_RE.match(text[share.end : window.start])) \
                or not _WINDOW_IS_RE.match(text[window_end : result.start]):
            continue
        if named is not None and not _OVER_THE_WINDOW_RE.match(text[named.end : window.start]):
            continue
        base = named or next((q for q in reversed(quantities[:i]) if _is_rate(q)
                              and share.start - q.end <= 120), None)
        if base is None or result.unit not in {base.unit.removesuffix("/s"), ""} \
                or result.value <= 0 or not _same_sentence(text, base.start, result.end):
            continue
        wanted = base.value * share.value / 100 * seconds
        if abs(result.written - wanted) > 0.25 * wanted:
            over = text[window.start : window_end]
            flagged.append(Calculation(
                text=text[share.start : result.end], start=share.start, end=result.end,
                stated=result.written, actual=wanted, kind="derived", unit=unit_label(result),
                expression=f"{format_number(share.value)}% of {base.text} over {over}"))
    return flagged


# "1,200 orders per hour, so the 15-minute window gives us 1,200 orders": a rate over a window
# is rate x window (300 orders), checked against the count stated.
_RATE_THEN_WINDOW_RE = re.compile(r"^\s*,?\s*(?:so|and|which\s+means|meaning)?\s*(?:over|across|in|"
                                  r"inside|within|during|for)?\s*(?:a\s+|the\s+|that\s+|each\s+|"
                                  r"one\s+|our\s+)?$", re.IGNORECASE)
_SHARE_OF_BEFORE_RE = re.compile(r"%\s*of\s+(?:the\s+|our\s+)?(?:about|around|roughly|~)?\s*$")
_WINDOW_YIELDS_RE = re.compile(
    r"^\s*(?:window|step|bake|period)?\s*,?\s*(?:(?:already|only|just|then|alone)\s+)?"
    r"(?:(?:that|which|it)(?:'s|\s+is|\s+gives(?:\s+us)?|"
    r"\s+comes\s+to)|is|=|means|gives(?:\s+us)?|comes\s+to|would\s+be|works\s+out\s+to|"
    r"we(?:'d|\s+would|\s+will|'ll)?\s+(?:get|see|have|collect)|of)?\s*"
    r"(?:about|around|roughly|only|just|maybe|~)?\s*$", re.IGNORECASE)


def _counts(text: str, result: Quantity, counted: str) -> bool:
    """Whether a figure counts what the rate counts: "300 orders", or "~300 delivered orders"
    with a word between."""
    if result.unit == counted:
        return True
    return not result.unit and re.match(rf"\s+(?:[a-z-]+\s+)?{re.escape(counted)}s?\b",
                                         text[result.end : result.end + 40],
                                         re.IGNORECASE) is not None


def _counted(rate: Quantity) -> str | None:
    """What a rate counts ("order" for orders an hour, "request" for QPS), or None for a
    quantity that is not a single positive rate."""
    if not (_is_rate(rate) or rate.unit == "qps") or rate.is_range or rate.value <= 0:
        return None
    return "request" if rate.unit == "qps" else rate.unit.removesuffix("/s")


def _rate_over_window(text: str, start: int, result: Quantity, rate: Quantity, seconds: float,
                      over: str) -> Calculation | None:
    """The count stated for a rate over a window, when it is off by more than a quarter."""
    wanted = rate.value * seconds
    if abs(result.written - wanted) <= 0.25 * wanted:
        return None
    return Calculation(text=text[start : result.end], start=start, end=result.end,
                       stated=result.written, actual=wanted, kind="derived",
                       unit=unit_label(result), expression=f"{rate.text} over {over}")


def _rates_over_windows(text: str, quantities: list[Quantity]) -> list[Calculation]:
    flagged: list[Calculation] = []
    for rate, window, result in zip(quantities, quantities[1:], quantities[2:], strict=False):
        counted = _counted(rate)
        if counted is None or window.is_range \
                or _SHARE_OF_BEFORE_RE.search(text, max(0, rate.start - 40), rate.start):
            continue  # "2% of roughly 100k orders an hour over ...": the share's (above)
        timed = _window(text, window)
        if timed is None:
            continue
        seconds, window_end = timed
        if not _RATE_THEN_WINDOW_RE.match(text[rate.end : window.start]) \
                or not _WINDOW_YIELDS_RE.match(text[window_end : result.start]) \
                or not _counts(text, result, counted) or result.is_range \
                or not _same_sentence(text, rate.start, result.end):
            continue
        found = _rate_over_window(text, rate.start, result, rate, seconds,
                                  text[window.start : window_end])
        flagged += [found] if found else []
    return flagged


# "a guardrail breaches for 5 minutes - at our 2,000 req/s that window only exposes about 10,000
# predictions": the window named first, then the rate (600,000).
_WINDOW_THEN_RATE_RE = re.compile(r"^\s*[-\u2013\u2014,:;]?\s*(?:at|with)\s+(?:our|the|a|about|"
                                  r"around|roughly|~)?\s*$", re.IGNORECASE)
_THAT_WINDOW_YIELDS_RE = re.compile(
    r"^\s*,?\s*(?:that|this|the)\s+(?:window|period|time|interval|stretch)\s+(?:only\s+|just\s+)?"
    r"(?:exposes|is|gives(?:\s+us)?|means|covers|sees|lets\s+through|amounts\s+to|comes\s+to)\s+"
    r"(?:about|around|roughly|only|just|maybe|~)?\s*$", re.IGNORECASE)


def _windows_at_rates(text: str, quantities: list[Quantity]) -> list[Calculation]:
    flagged: list[Calculation] = []
    for window, rate, result in zip(quantities, quantities[1:], quantities[2:], strict=False):
        counted = _counted(rate)
        if counted is None or window.unit != "s" or window.is_range \
                or result.unit not in {counted, ""} \
                or not _WINDOW_THEN_RATE_RE.match(text[window.end : rate.start]) \
                or not _THAT_WINDOW_YIELDS_RE.match(text[rate.end : result.start]):
            continue
        found = _rate_over_window(text, window.start, result, rate, window.value, window.text)
        flagged += [found] if found else []
    return flagged


# "we run the fleet as 4 independent cells and ship to one cell at a time, so a bad model can
# touch at most 2.5% of users": one of N cells is 100/N percent (25%), or that share of another
# percentage said with it ("a 1% canary inside the first cell" is 0.25%).
_CELLS_RE = re.compile(r"\s+(?:independent\s+|separate\s+|isolated\s+|equal\s+)?(?P<what>cells|"
                       r"shards|regions|zones|partitions|clusters|slices)\b", re.IGNORECASE)
_ONE_CELL_RE = re.compile(r"\b(?:one|a\s+single|1)\s+(?:cell|shard|region|zone|partition|cluster|"
                          r"slice)\b[^.;!?\n]{0,80}?\b(?:at\s+most|only|max(?:imum)?|no\s+more\s+than|"
                          r"just|about|roughly|~)\s*$", re.IGNORECASE)


def _one_cell_shares(text: str, quantities: list[Quantity]) -> list[Calculation]:
    flagged: list[Calculation] = []
    for i, cells in enumerate(quantities):
        named = _CELLS_RE.match(text, cells.end)
        if cells.unit or cells.is_range or not 2 <= cells.written <= 1000 or not named:
            continue
        for share in quantities[i + 1 : i + 4]:
            if share.unit != "%" or share.is_range or not _same_sentence(text, cells.start,
                                                                         share.end):
                continue
            if not _ONE_CELL_RE.search(text, cells.end, share.start):
                continue
            wanted = 100 / cells.written
            others = [q.value for q in quantities[i + 1 : i + 6] if q.unit == "%"
                      and q is not share and _same_sentence(text, q.start, share.end)]
            routes = [wanted, *(wanted * other / 100 for other in others)]
            if all(abs(share.value - route) > 0.25 * route for route in routes):
                flagged.append(Calculation(
                    text=text[cells.start : share.end], start=cells.start, end=share.end,
                    stated=share.value, actual=wanted, kind="derived", unit="%",
                    expression=f"one of {format_number(cells.written)} {named.group('what')}"))
            break
    return flagged


# "25 against 18 is about 5ms over", "25 isn't far off 18, it's about 5ms over": a gap stated
# between two figures, checked against their difference.
_GAP_AFTER_RE = re.compile(r"\s*(?:over|above|more|higher|slower|too (?:high|slow)|short|"
                           r"under|below|less|lower|apart|off|of (?:a )?gap|difference|"
                           r"(?:\w+\s+){0,3}to (?:cut|shave|find|lose|claw back))\b",
                           re.IGNORECASE)
# "we're at 25 and the line is 18, that's 9ms we need to cut": the gap named as what to cut.
_GAP_NAMED_BEFORE_RE = re.compile(r"(?:that's|that is|so|which is|i\.e\.)\s+(?:about|around|"
                                  r"roughly|~)?\s*$", re.IGNORECASE)
_GAP_BETWEEN_RE = re.compile(r"^[^.;:!?\n\d]{0,40}$")


def _differences(text: str, quantities: list[Quantity]) -> list[Calculation]:
    flagged: list[Calculation] = []
    for i in range(len(quantities) - 2):
        a, b, gap = quantities[i], quantities[i + 1], quantities[i + 2]
        if a.is_range or b.is_range or gap.is_range or a.unit in {"%", "x"}:
            continue
        if a.unit != b.unit and a.unit and b.unit:
            continue
        unit = a.unit or b.unit
        if not gap.unit or (unit and gap.unit != unit) or gap.unit in {"%", "x"}:
            continue
        if not _GAP_BETWEEN_RE.match(text[a.end : b.start]) or not _GAP_BETWEEN_RE.match(
                text[b.end : gap.start]) or re.search(r"[-−+x×*/=]|\bminus\b",
                                                      text[a.end : gap.start]):
            continue  # arithmetic written out is checked as a calculation
        if not _VERSUS_RE.match(text[a.end : b.start]) and not re.search(
                r"\b(?:off|against|vs\.?|versus|compared|from)\b", text[a.end : b.start], re.I) \
                and not _GAP_NAMED_BEFORE_RE.search(text[b.end : gap.start]):
            continue
        if not _GAP_AFTER_RE.match(text, gap.end) or not _same_sentence(text, a.start, gap.end):
            continue
        # Both figures in the gap's unit as written ("25" and "18" beside "5ms").
        scale = gap.factor or 1.0
        first = a.value / scale if a.unit else a.written
        second = b.value / scale if b.unit else b.written
        wanted = abs(first - second)
        if wanted and abs(gap.written - wanted) > max(0.1 * wanted, 0.05):
            flagged.append(Calculation(
                text=text[a.start : gap.end], start=a.start, end=gap.end, stated=gap.written,
                actual=wanted, kind="derived", unit=unit_label(gap),
                expression=f"{format_number(max(first, second))} - "
                           f"{format_number(min(first, second))}"))
        elif wanted and i + 3 < len(quantities):
            share = _share_of_gap(text, gap, quantities[i + 3], max(first, second),
                                  min(first, second))
            if share:
                flagged.append(share)
    return flagged


# "7ms over, roughly 15% too slow": the gap said again as a share of one of the two figures.
_GAP_SHARE_BETWEEN_RE = re.compile(r"^\s*(?:over|above|under|below|short|slower|too slow)?"
                                   r"[,\s]*(?:so\s+|which is\s+|that's\s+|or\s+)?"
                                   r"(?:about|around|roughly|approximately|~|almost|nearly)?\s*$",
                                   re.IGNORECASE)


def _share_of_gap(text: str, gap: Quantity, share: Quantity, high: float,
                  low: float) -> Calculation | None:
    """The share a gap is given, against the gap over either figure (both routes are valid:
    "39% slower than the 18ms limit" and "28% to cut from 25ms")."""
    if share.unit != "%" or share.is_range or not _same_sentence(text, gap.start, share.end):
        return None
    if not _GAP_SHARE_BETWEEN_RE.match(text[gap.end : share.start]) \
            or not _GAP_AFTER_RE.match(text, share.end):
        return None
    gap_value = high - low
    routes = [100 * gap_value / low, 100 * gap_value / high] if low > 0 else []
    if not routes or any(_close(share.value, wanted) for wanted in routes):
        return None
    return Calculation(text=text[gap.start : share.end], start=gap.start, end=share.end,
                       stated=share.value, actual=routes[0], kind="derived", unit="%",
                       expression=f"{format_number(gap_value)} / {format_number(low)}")


def _headroom_applied_before(text: str, base: Quantity, share: Quantity) -> bool:
    """Whether the calculation ending in `base` already applied the share ("1,250 x 1.2 =",
    "plus 20% headroom ="), so `base` is the total, not what the headroom goes on."""
    start = max(0, base.start - 80)
    if (found := _SENTENCE_BREAK.search(text[start : base.start][::-1])) is not None:
        start = base.start - found.start()
    before = text[start : base.start]
    factor = 1 + share.value / 100
    return bool(re.search(r"\b(?:headroom|margin|buffer|spare|on\s+top)\b|%", before,
                          re.IGNORECASE)) or any(
        abs(float(m.group()) - factor) < 1e-6 for m in re.finditer(r"\d+\.\d+", before))


def _headroom_totals(text: str, quantities: list[Quantity]) -> list[Calculation]:
    """"1,250 GPUs with 20% headroom is 1,750": base x (1 + share) against the total stated."""
    flagged: list[Calculation] = []
    for i in range(len(quantities) - 2):
        base, share, total = quantities[i], quantities[i + 1], quantities[i + 2]
        if share.unit != "%" or base.unit in {"%", "x"} or base.value <= 0:
            continue
        if total.unit and base.unit and total.unit != base.unit or total.unit in {"%", "x"}:
            continue
        if _after_times_sign(text, total):
            continue  # "×1.1 → 1,375": a factor about to be applied, not a total
        if total.written < base.written:
            # "1,500 A100s; with a 10% margin it's 1,375": a total below the figure before it
            # grows from another base (1,250), not from that one.
            continue
        if re.search(r"[=≈]\s*~?\s*$", text[max(0, base.start - 4) : base.start]) \
                and _headroom_applied_before(text, base, share):
            continue  # "1,250 x 1.2 = 1,500 with 20% on top": the result, described
        between = text[share.end : total.start]
        if not (_HEADROOM_RE.match(between) and total.start - share.end <= 50
                and _same_sentence(text, base.start, total.end)):
            # Read further only in a plain shape: a longer aside before the total, or the base
            # said in the sentence before; and a total the base could grow into.
            if not (_HEADROOM_RE.match(between) or _HEADROOM_LONG_RE.match(between)) \
                    or not _same_sentence(text, share.end, total.end) \
                    or not 1.0 < total.written / base.written <= 2.0:
                continue
            if not _same_sentence(text, base.start, share.start) \
                    and not _BASE_CARRIED_RE.match(text, base.end, share.start):
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
        if any(abs(other.written * (1 + share.value / 100) - total.written)
               <= 0.03 * total.written for other in quantities[:i]
               if other.unit == base.unit and other.value > 0):
            continue  # "1,250 ... 1,500, and with a 10% margin 1,375": another base, same route
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


# Bytes a parameter takes at each precision.
_PRECISION_BYTES_RE = re.compile(
    r"\b(?P<two>fp16|bf16|float16|half[- ]precision|16[- ]bit)|(?P<four>fp32|float32|"
    r"full[- ]precision|32[- ]bit)|(?P<one>int8|fp8|8[- ]bit)|(?P<half>int4|4[- ]bit)\b",
    re.IGNORECASE)
_MODEL_SIZE_AFTER_RE = re.compile(r"\s*(?:-?\s*param\w*|model|llm)\b", re.IGNORECASE)
# What makes a memory figure more than the weights, or not the weights at all: "plus the KV
# cache", "leaves 10 GB free", "a 16 GB T4".
_NOT_WEIGHTS_RE = re.compile(r"\b(?:kv|cache|activations?|overhead|plus|free|left|remaining|"
                             r"spare|headroom|total|per\s+(?:request|sequence|token))\b",
                             re.IGNORECASE)
_CARD_AFTER_RE = re.compile(r"\s*(?:of\s+)?(?:hbm\s+)?(?:on\s+(?:an?\s+|the\s+)?)?"
                            r"(?:t4|a100|h100|l4|a10g?|card|gpu|device)\b", re.IGNORECASE)
_PRECISION_AFTER_RE = re.compile(r"\s*(?:of\s+weights\s+)?(?:in|at|with|for)\s+(?:"
                                 + _PRECISION_BYTES_RE.pattern + ")", re.IGNORECASE)
_BILLIONS_RE = re.compile(r"\s*\d[\d.,]*\s*(?:b|bn|billion)\b", re.IGNORECASE)
WEIGHTS_REACH = 80  # characters from the precision to the memory figure


def weight_memory_slips(text: str, quantities: list[Quantity]) -> list[Calculation]:
    """"A 3B model in fp16 is roughly 3 GB": the weights' memory against parameters x bytes per
    parameter at the precision named (fp16 2 bytes, fp32 4, int8 1, int4 half)."""
    flagged: list[Calculation] = []
    for i, size in enumerate(quantities):
        written = text[size.start : size.end]
        if size.value < 1e8 or not _BILLIONS_RE.match(written) or not (
                size.unit == "parameter" or _MODEL_SIZE_AFTER_RE.match(text, size.end)):
            continue
        memory = next((q for q in quantities[i + 1 :] if q.unit.lower() in {"gb", "gib"}
                       and not _CARD_AFTER_RE.match(text, q.end)), None)
        if memory is None or memory.start - size.end > WEIGHTS_REACH \
                or not _same_sentence(text, size.start, memory.end) \
                or _NOT_WEIGHTS_RE.search(text, size.end, memory.start):
            continue
        # The precision between the two ("3B in fp16 is 12 GB") or just after ("6 GB in FP16").
        precision = _PRECISION_BYTES_RE.search(text, size.end, memory.start) \
            or _PRECISION_AFTER_RE.match(text, memory.end)
        if precision is None:
            continue
        per_parameter = 2.0 if precision.group("two") else 4.0 if precision.group("four") \
            else 1.0 if precision.group("one") else 0.5
        wanted = size.value * per_parameter / 1e9
        stated = memory.written
        if 0.85 * wanted <= stated <= 1.2 * wanted:
            continue
        flagged.append(Calculation(
            text=text[size.start : memory.end], start=size.start, end=memory.end,
            stated=stated, actual=wanted, kind="derived", unit="GB",
            expression=f"{format_number(size.value / 1e9)}B x {format_number(per_parameter)} "
                       f"bytes"))
    return flagged


# "the threshold at 80ms is 35% above that", "80ms sits 35% over the 45ms p95": a figure said
# to be a share above or below another, checked against the two.
# "the 80ms threshold sits 35% above today's p95": a noun may name the figure, and the other
# figure may be named by what it is ("today's p95", "the current p99", "the baseline").
_IS_SHARE_RE = re.compile(r"\s*(?:(?:threshold|limit|target|alert|budget|figure|value|number)"
                          r"\s+)?(?:is|sits|runs|would\s+be|'s|lands)\s+" + _HEDGES + "$",
                          re.IGNORECASE)
_ABOVE_RE = re.compile(r"\s*(?P<dir>above|over|higher\s+than|more\s+than|below|under|lower\s+"
                       r"than|less\s+than)\s+(?:the\s+|our\s+)?(?P<that>that|it|this|"
                       r"(?:today's|today\u2019s|the\s+current|current|the\s+measured|measured)\s+"
                       r"(?:p\d{2}|median|baseline|value|figure|latency)\b|(?:the\s+)?baseline\b)?",
                       re.IGNORECASE)


def _shares_above(text: str, quantities: list[Quantity]) -> list[Calculation]:
    flagged: list[Calculation] = []
    for i in range(1, len(quantities)):
        figure, share = quantities[i - 1], quantities[i]
        if share.unit != "%" or share.is_range or figure.is_range or not figure.unit \
                or figure.unit in {"%", "x"} or not _IS_SHARE_RE.match(text[figure.end :
                                                                           share.start]):
            continue
        where = _ABOVE_RE.match(text, share.end)
        if where is None:
            continue
        if where.group("that"):
            # "... is 35% above that": the figure before, in the same unit and sentence.
            other = next((q for q in reversed(quantities[: i - 1]) if q.unit == figure.unit
                          and not q.is_range), None)
            if other is None or not _same_sentence(text, other.start, where.end()):
                continue
        else:
            other = quantities[i + 1] if i + 1 < len(quantities) else None
            if other is None or other.start - where.end() > 3 or other.unit != figure.unit \
                    or other.is_range:
                continue
        high, low = max(figure.value, other.value), min(figure.value, other.value)
        if low <= 0 or high == low:
            continue
        # Either way up is a valid route: the gap over the smaller or over the larger figure.
        routes = (100 * (high - low) / low, 100 * (high - low) / high)
        if any(_close(share.value, wanted) for wanted in routes):
            continue
        scale = figure.factor or 1.0
        shown_high, shown_low = high / scale, low / scale
        flagged.append(Calculation(
            text=text[figure.start : share.end], start=figure.start, end=share.end,
            stated=share.value, actual=routes[0], kind="derived", unit="%",
            expression=f"({format_number(shown_high)} - {format_number(shown_low)}) / "
                       f"{format_number(shown_low)}"))
    return flagged
