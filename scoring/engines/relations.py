"""Claims whose words are right and whose meaning is wrong: a relation stated the wrong way
round or a role given to the wrong tool.

- Roles: TensorRT is a compiler/optimizer that builds engines; TorchServe and Triton are model
  servers. "TorchServe is the compiler that needs a rebuild" swaps them.
- Percentiles: a higher percentile is never lower than a lower one ("p99 below p50" is wrong).
- Batch size: bigger batches raise throughput and latency (queueing, p99); "bigger batches lower
  p99" or "smaller batches raise latency" turns the trade-off round.

Terms defined in a sense they do not have are judged in senses.py; wrong_claims gathers both.

Each finder returns the spans of the wrong claims; the engine treats a criterion whose evidence
sits in such a sentence as contradicted, and a pitfall about reversed facts as committed.
Plain Python over the answer's tokens, one pass each.
"""

from __future__ import annotations

import bisect
import re

from scoring.engines.base import Span
from scoring.engines.senses import WrongClaim, _claim, average_definitions, wrong_definitions
from scoring.engines.text import Token

# What each tool is. Keys are the tokenizer's keys (stemmed).
TOOL_ROLES = {"tensorrt": "compiler", "torchserv": "server", "triton": "server",
              "vllm": "server"}
_ROLE_WORDS = {
    "compiler": frozenset(["compil", "optimiz", "optimis", "optim", "fus", "fusion"]),
    "server": frozenset(["server", "serv", "host"]),
}
# Words that give the reason a tool is picked: "TensorRT because the handlers ...".
_REASON_LINKS = frozenset(["because", "for", "its", "thanks", "since"])
# Words that may stand between a tool and the role said of it ("TorchServe is the compiler",
# "TorchServe, which compiles", "TensorRT acts as a model server").
_ROLE_LINKS = frozenset(["is", "are", "was", "as", "a", "an", "the", "which", "that", "just",
                         "basically", "really", "acts", "act", "works", "serves", "mainly",
                         "primarily", "model", "inference", "itself", "also", "one",
                         # "TorchServe is the one that does the graph-level optimization",
                         # "TensorRT is more of a general-purpose Python model server".
                         "does", "do", "performs", "graph", "level", "more", "of", "general",
                         "purpose", "python", "kind", "sort", *_REASON_LINKS, "to", "of",
                         # "TorchServe is the part that compiles the model", "TensorRT is the
                         # HTTP server that sits in front".
                         "part", "piece", "component", "bit", "thing", "http", "grpc", "rest",
                         "web", "front", "end"])
ROLE_REACH = 9  # linking words that may stand between a tool and the role said of it
# Role words after a noun-like "is the X" that do not name what the tool is.
_ROLE_EXCLUDED_NEXT = frozenset(["time", "step", "cost", "latency"])


# What only one kind of tool has: a model server's management API and Python handlers.
_ROLE_FEATURES = {"server": ("manag", "handler")}


# What a tool is picked for, said as its reason: "TorchServe for the speed", "TensorRT for the
# flexibility".
# (Not "fast" or "latency": "TorchServe for fast iteration", "Triton for the latency" with
# TensorRT engines behind it.)
_ROLE_REASONS = {"compiler": ("speed",), "server": ("flexib", "conveni")}


_PICKED_FOR = frozenset(["tensorrt", "torchserv"])


def _feature_of(token: Token, *, as_reason: bool = False) -> str:
    features = _ROLE_REASONS if as_reason else _ROLE_FEATURES
    return next((role for role, stems in features.items()
                 if token.lower.startswith(stems)), "")


def _role_of(token: Token) -> str:
    for role, words in _ROLE_WORDS.items():
        if token.key in words or any(token.key.startswith(w) for w in words if len(w) >= 5):
            return role
    return ""


_PRONOUNS = frozenset(["it", "it's", "its"])
_BECAUSE = frozenset(["because", "since", "as"])


def _tool_named_for(tokens: list[Token], index: int) -> str:
    """The role of the tool a pronoun stands for when the reason for picking it follows:
    "I'd pick TorchServe, because it's the one that compiles the graph"."""
    if tokens[index].lower not in _PRONOUNS or index < 2:
        return ""
    because, tool = tokens[index - 1], tokens[index - 2]
    if because.lower not in _BECAUSE or because.sentence != tokens[index].sentence:
        return ""
    return TOOL_ROLES.get(tool.key, "") if tool.sentence == because.sentence else ""


_PASSIVE_ROLE_WORDS = frozenset(["served", "hosted", "compiled", "optimized", "optimised"])
_PASSIVE_AGENTS = frozenset(["through", "by", "via", "behind", "from", "in", "inside", "on",
                             "with", "under"])


def misattributed_roles(tokens: list[Token], text: str) -> list[WrongClaim]:
    """"TorchServe is the compiler", "TensorRT is a model server": a tool given the other
    tool's role, within a few linking words in one clause."""
    found: list[WrongClaim] = []
    for i, token in enumerate(tokens):
        own = TOOL_ROLES.get(token.key) or _tool_named_for(tokens, i)
        if not own or token.negated:
            continue
        for j in range(i + 1, min(len(tokens), i + ROLE_REACH + 1)):
            nxt = tokens[j]
            if nxt.sentence != token.sentence or any(
                    ch in ";:()!?." for ch in text[tokens[j - 1].end : nxt.start]):
                break
            possessive = j == i + 1 and token.lower.endswith(("'s", "\u2019s"))
            # "TensorRT because the handlers make iteration easy", "TorchServe for the compiled
            # speed": what the tool is picked for is what it is said to have.
            credited = possessive or any(t.lower in _REASON_LINKS for t in tokens[i + 1 : j])
            role = _role_of(nxt) or (credited and (_feature_of(nxt) or (
                token.key in _PICKED_FOR and _feature_of(nxt, as_reason=True))))
            if role:
                following = tokens[j + 1].lower if j + 1 < len(tokens) else ""
                if nxt.lower in _PASSIVE_ROLE_WORDS and following in _PASSIVE_AGENTS:
                    break  # "TensorRT served through Triton": the engine is served, not serving
                # "TorchServe's compile step", "TensorRT's management API": what a tool has
                # is what it does, whatever noun follows.
                if role != own and not nxt.negated and (
                        credited or following not in _ROLE_EXCLUDED_NEXT):
                    found.append(WrongClaim(Span(token.start, nxt.end), token.sentence, "role"))
                break
            if nxt.lower not in _ROLE_LINKS:
                break
    return found


_PERCENTILE_RE = re.compile(
    r"\b(?P<a>p(?P<na>\d{2}(?:\.\d+)?)|median|average|mean)\b[^.;:!?]{0,60}?"
    r"\b(?:(?P<rel>lower|less|smaller|faster|higher|more|greater|bigger|slower|larger|below|"
    r"under|above|over|stricter|tighter|looser|laxer|weaker)(?:\s+(?:number|value|figure|one|"
    r"percentile|bar|target|threshold|measure|requirement|guarantee))?\s+than|"
    r"(?P<rel2>below|under|above|over))\s+(?:the\s+|its\s+|our\s+)?"
    r"(?P<b>p(?P<nb>\d{2}(?:\.\d+)?)|median|average|mean)\b", re.IGNORECASE)
# A lower percentile is the looser bar: "p95 is a stricter bar than p99" turns them round.
_LOW_WORDS = frozenset(["lower", "less", "below", "under", "smaller", "faster", "looser", "laxer",
                        "weaker"])
# "p99 above 15ms for 5 minutes" compares with a threshold, not with another percentile.


def _rank(name: str, number: str | None) -> float:
    if number:
        return float(number)
    return 50.0  # the median (and, loosely, the mean) sits at p50


def reversed_percentiles(text: str, sentence_of) -> list[WrongClaim]:
    """"p99 is lower than p50", "the median is higher than p99": a percentile order turned
    round."""
    found: list[WrongClaim] = []
    position = 0
    while (match := _PERCENTILE_RE.search(text, position)) is not None:
        position = match.end()
        a = _rank(match.group("a"), match.group("na"))
        b = _rank(match.group("b"), match.group("nb"))
        between = text[match.end("a") : match.start("b")]
        if re.search(r"\bp\d{2}\b|\bmedian\b", between, re.IGNORECASE):
            # "the SLA is on p95, and p95 sits above p99": the order is the later one's.
            position = match.end("a")
            continue
        if a == b:
            continue
        if re.search(r"\bif\b|\bwhen\b|\d", between, re.IGNORECASE):
            continue  # a figure or a condition in between: not one order
        says_lower = (match.group("rel") or match.group("rel2")).lower() in _LOW_WORDS
        if _ORDER_DENIED_RE.search(between):
            says_lower = not says_lower  # "p95 can never be higher than p99"
        if (a > b and says_lower) or (a < b and not says_lower):
            found.append(_claim(match.start(), match.end(), sentence_of, "percentile"))
    for match in _PERCENTILE_SUPERLATIVE_RE.finditer(text):
        # "p99 is always the smaller number, the p95 sits above it": the order against the
        # other percentile named in the same sentence.
        end = _CLAUSE_END_RE.search(text, match.end(), match.end() + 80)
        rest = text[match.end() : end.start() if end else match.end() + 80]
        other = next((m for m in re.finditer(r"\bp(\d{2}(?:\.\d+)?)\b", rest, re.IGNORECASE)
                      if m.group(1) != match.group("n")), None)
        if other is None:
            # "p99 means 99% ..., p95 means 95%, so p95 is the stricter one": the other
            # percentile named earlier in the sentence.
            reach = max(0, match.start() - PERCENTILE_LOOK_BACK)
            opening = max(text.rfind(". ", reach, match.start()),
                          text.rfind("\n", reach, match.start()), reach - 1)
            earlier = re.findall(r"\bp(\d{2}(?:\.\d+)?)\b", text[opening + 1 : match.start()],
                                 re.IGNORECASE)
            others = [n for n in earlier if n != match.group("n")]
            other_number = others[-1] if len(set(others)) == 1 else None
        else:
            other_number = other.group(1)
        if other_number is None or other_number == match.group("n"):
            continue
        a, b = float(match.group("n")), float(other_number)
        # "p95 is the looser, bigger figure": either word may turn the order round.
        for word in filter(None, (match.group("rel"), match.group("rel_b"))):
            says_lower = word.lower() in {"smaller", "lower", "faster", "looser", "easier"}
            if (a > b and says_lower) or (a < b and not says_lower):
                found.append(_claim(match.start(), match.end(), sentence_of, "percentile"))
                break
    return found


PERCENTILE_LOOK_BACK = 200  # characters before "p95 is the stricter one" to find the other
_ORDER_DENIED_RE = re.compile(r"\b(?:never|not|cannot|can't|won't|isn't|aren't|no)\b",
                              re.IGNORECASE)
_ORDER_WORDS = (r"smaller|lower|faster|bigger|larger|higher|slower|stricter|looser|tighter|"
                r"harder|easier")
_PERCENTILE_SUPERLATIVE_RE = re.compile(
    r"\bp(?P<n>\d{2}(?:\.\d+)?)\s+(?:is|are|will\s+be)\s+(?:always\s+|usually\s+|normally\s+|typically\s+|"
    r"generally\s+|naturally\s+|obviously\s+|by\s+definition\s+)?"
    r"the\s+(?P<rel>" + _ORDER_WORDS + r")(?:,?\s+(?:and\s+)?(?P<rel_b>" + _ORDER_WORDS
    + r"))?\s+(?:number|value|one|figure|percentile|of\s+the\s+two|bar|target)\b",
    re.IGNORECASE)


# "bigger batches", "larger batch sizes", "increasing the batch size", "batch size up".
_BATCH_UP_RE = re.compile(
    r"\b(?:(?:bigger|larger|higher|more|huge|massive|increas\w*|rais\w*|grow\w*)\s+(?:the\s+)?"
    r"batch(?:es|ing)?"
    r"(?:\s+sizes?)?|batch(?:es|ing)?(?:\s+sizes?)?\s+(?:go(?:es)?|goes)\s+up|"
    # "if we group more requests together", "push batch size up", "more requests per batch".
    r"group(?:s|ing)?\s+more\s+(?:requests|queries|items)(?:\s+together)?|"
    r"(?:push\w*|bump\w*|crank\w*|turn\w*)\s+(?:the\s+)?batch(?:\s+sizes?)?\s+up|"
    r"more\s+(?:requests|queries|items)\s+(?:per|in\s+(?:a|each|every))\s+batch)\b",
    re.IGNORECASE)
_BATCH_DOWN_RE = re.compile(
    r"\b(?:(?:smaller|fewer|lower|decreas\w*|reduc\w*|shrink\w*)\s+(?:the\s+)?batch(?:es|ing)?"
    r"(?:\s+sizes?)?)\b", re.IGNORECASE)
# What the batch change is said to do, in the same clause.
_EFFECT_RE = re.compile(
    r"\b(?P<dir>lower\w*|reduc\w*|cut\w*|decreas\w*|shrink\w*|improv\w*|help\w*|less|drop\w*|"
    r"rais\w*|increas\w*|add\w*|grow\w*|hurt\w*|more|higher|worsen\w*|inflat\w*)\s+"
    # "the lower each request's latency", "lower per-request latency".
    r"(?:the\s+|our\s+|tail\s+|your\s+|time\s+|each\s+(?:request|one)'s\s+|per-?\s?request\s+|"
    r"individual\s+)?(?P<what>p9\d|tail|latency|latencies|queu\w*|wait\w*|"
    r"delay\w*|throughput|utili[sz]ation)\b", re.IGNORECASE)
_DOWN_EFFECTS = ("lower", "reduc", "cut", "decreas", "shrink", "improv", "help", "less",
                 "drop")
# The effect said after what it acts on: "latency actually drops", "p99 goes down".
_EFFECT_AFTER_RE = re.compile(
    r"\b(?P<what>p9\d|tail|latency|latencies|queu\w*|wait\w*|delay\w*)\s+(?:\w+\s+){0,2}?"
    r"(?P<dir>drops?|dropping|falls?|falling|goes\s+down|go\s+down|comes?\s+down|"
    r"come\s+down|decreases?|shrinks?|improves?|gets?\s+(?:better|lower|shorter)|rises?|"
    r"goes\s+up|grows?|increases?|less|down)\b",
    re.IGNORECASE)
# "bring the p99 down" too.
_FALLS = ("fall", "goes down", "go down", "come down", "comes down", "gets better",
          "get better", "gets lower", "get lower", "gets shorter", "get shorter", "less", "down")
_CLAUSE_END_RE = re.compile(r"[.;!?\n]|\b(?:but|however|whereas|while|although)\b",
                            re.IGNORECASE)


# The effect said first: "queueing delay goes down as batch size goes up".
_EFFECT_AS_BATCH_RE = re.compile(
    r"\b(?:p9\d|tail|latency|latencies|queu\w*|wait\w*|delay\w*)\s+(?:[\w-]+\s+){0,2}?"
    r"(?P<dir>goes\s+down|go\s+down|drops?|falls?|decreases?|shrinks?|improves?|gets?\s+"
    r"(?:better|lower|shorter)|goes\s+up|go\s+up|rises?|grows?|increases?)\s+(?:as|when|if|with)\s+"
    r"(?:the\s+|our\s+)?(?:batch(?:es)?(?:\s+sizes?)?\s+(?P<bdir>goes\s+up|go\s+up|grows?|"
    r"increases?|gets?\s+(?:bigger|larger)|goes\s+down|go\s+down|shrinks?|decreases?|gets?\s+"
    r"smaller)|(?P<bsize>bigger|larger|smaller)\s+batch\w*)", re.IGNORECASE)


_SOONER_RE = re.compile(
    # "every request in the batch actually finishes sooner".
    r"\b(?:each|every|a|the|individual)\s+(?:requests?|one|query|queries)\s+(?:\w+\s+){0,4}?"
    r"(?:finish\w*|complet\w*|return\w*|comes?\s+back|gets?\s+served|gets?\s+out|gets?|"
    r"(?:is|are)\s+(?:served|answered|done))\s+(?:sooner|faster|quicker|earlier)\b|"
    # "Bigger batches are actually better for latency too".
    r"\b(?:better|good|great|kinder)\s+for\s+(?:the\s+|our\s+)?(?:p9\d|tail|latency|latencies)\b",
    re.IGNORECASE)


# How far after the batch change its effect may be said: "Bigger batches are more efficient per
# request, so the per-request latency should actually go down" says it 84 characters on.
EFFECT_REACH = 130


# "so the batch size can go as high as memory allows": the latency budget caps the batch long
# before memory does.
_BATCH_TO_MEMORY_RE = re.compile(
    r"\bbatch(?:es|\s+sizes?)?\b[^.;]{0,30}?\b(?:as\s+(?:high|large|big|far)\s+as|up\s+to\s+"
    r"(?:whatever|what))\s+(?:the\s+)?(?:gpu\s+)?(?:memory|vram|the\s+card)\s+(?:allows|permits|"
    r"fits|can\s+hold|will\s+take|lets)", re.IGNORECASE)


def reversed_batching(text: str, sentence_of) -> list[WrongClaim]:
    """"bigger batches lower p99", "larger batches reduce throughput", "smaller batches raise
    latency": what grows with batch size turned round. Latency-like effects (p99, queueing,
    wait) grow with batch size; throughput and utilisation grow too."""
    found: list[WrongClaim] = []
    for regex, up in ((_BATCH_UP_RE, True), (_BATCH_DOWN_RE, False)):
        for match in regex.finditer(text):
            stop = _CLAUSE_END_RE.search(text, match.end(), match.end() + EFFECT_REACH)
            end = stop.start() if stop else min(len(text), match.end() + EFFECT_REACH)
            effect = _EFFECT_RE.search(text, match.end(), end) or _EFFECT_AFTER_RE.search(
                text, match.end(), end)
            if effect is None:
                continue
            lowers = effect.group("dir").lower().startswith(_DOWN_EFFECTS + _FALLS)
            improves = effect.group("dir").lower().startswith(("improv", "help"))
            what = effect.group("what").lower()
            if what in {"throughput"} or what.startswith("utili"):
                # Bigger batches raise throughput; "improve" is the right way for both.
                wrong = (up and lowers and not improves) or (not up and not lowers)
            else:
                # Latency, queueing and wait grow with batch size ("improve latency" = lower).
                wrong = (up and lowers) or (not up and not lowers and not improves)
            if wrong:
                found.append(_claim(match.start(), effect.end(), sentence_of, "batch"))
    for match in _BATCH_UP_RE.finditer(text):
        # "With a bigger batch ... each request actually finishes sooner": the wait grows.
        stop = _CLAUSE_END_RE.search(text, match.end(), match.end() + 100)
        end = stop.start() if stop else min(len(text), match.end() + 100)
        sooner = _SOONER_RE.search(text, match.end(), end)
        if sooner:
            found.append(_claim(match.start(), sooner.end(), sentence_of, "batch"))
    found += [_claim(m.start(), m.end(), sentence_of, "batch")
              for m in _BATCH_TO_MEMORY_RE.finditer(text)
              if not _NOT_BEFORE_RE.search(text[max(0, m.start() - 40) : m.start()])
              and not re.search(r"n't\b|\b(?:not|never|cannot)\b", m.group(), re.IGNORECASE)]
    for match in _EFFECT_AS_BATCH_RE.finditer(text):
        falls = match.group("dir").lower().startswith(_DOWN_EFFECTS + _FALLS + ("improv", "get"))
        falls = falls and not re.match(r"gets?\s+(?:worse|higher|longer)", match.group("dir"), re.I)
        grows = (match.group("bdir") or "").lower().startswith(("goes up", "go up", "grow",
                                                                 "increas", "get")) \
            and not re.search(r"smaller", match.group("bdir") or "", re.I) \
            or (match.group("bsize") or "").lower() in {"bigger", "larger"}
        if falls == grows:  # latency falling as batches grow, or rising as they shrink
            found.append(_claim(match.start(), match.end(), sentence_of, "batch"))
    return found


# "On a GPU we also lose the kernel launch overhead, since that's a CPU-side cost GPUs don't
# have": launch overhead is the fixed cost of starting GPU kernels; moving to a GPU brings it.
_LAUNCH_GONE_RE = re.compile(
    r"\b(?:lose|losing|get\s+rid\s+of|no\s+more)\s+(?:the\s+)?(?:kernel\s+)?launch\s+overhead|"
    r"\blaunch\s+overhead\s+(?:\w+\s+)?(?:disappears|goes\s+away|vanishes)\b|"
    r"\blaunch\s+overhead\b[^.;!?\n]{0,80}?\b(?:gpus?\s+(?:don't|do\s+not|doesn't)\s+have|"
    r"cpu[- ]side\s+(?:scheduling\s+)?cost)", re.IGNORECASE)
_LAUNCH_FIXED_RE = re.compile(r"\b(?:cuda\s+graphs?|fus\w*|batch\w*|captur\w*)", re.IGNORECASE)


def launch_overhead_gone(text: str, sentence_of) -> list[WrongClaim]:
    """Kernel launch overhead said to vanish on a GPU (CUDA graphs or fusion cutting it is
    right, and left alone)."""
    found: list[WrongClaim] = []
    for match in _LAUNCH_GONE_RE.finditer(text):
        start = max(text.rfind(".", 0, match.start()), text.rfind("\n", 0, match.start())) + 1
        end = text.find(".", match.end())
        sentence = text[start : end if end >= 0 else len(text)]
        if re.search(r"\bgpus?\b", sentence, re.IGNORECASE) \
                and not _LAUNCH_FIXED_RE.search(sentence):
            found.append(_claim(match.start(), match.end(), sentence_of, "definition"))
    return found


# Facts of the subject said the wrong way round, in plain relations rather than definitions:
# "new weights can be swapped in without a rebuild" (a TensorRT engine is built per model
# version), "an immutable tag ... re-pointed to the newest build" (an immutable tag never
# moves), "if the p-value comes out high, the difference is real" (a high p-value says noise).
# (Typed without the apostrophe too: "check they didnt give every worker all the cores".)
_NOT_BEFORE_RE = re.compile(r"\b(?:not|never|no|n't|can'?t|cannot|won'?t|wouldn'?t|don'?t|"
                            r"doesn'?t|didn'?t|isn'?t|aren'?t|shouldn'?t)\b[^.;,]{0,25}$",
                            re.IGNORECASE)
_SPEED_VERB = r"(?:is|was|runs|comes\s+in|would\s+be)\s+(?:\w+\s+){0,2}?"
_NOT_OF_EASE = r"(?!\s+(?:to|for)\b|\s+at\s+\w+ing\b)"  # "faster to ship", "faster at iterating"
_TURNED_FACTS = (
    re.compile(r"\b(?:swap\w*|load\w*|push\w*|drop\w*|hot-?swap\w*)\s+(?:in\s+)?(?:the\s+)?"
               r"(?:new\s+|retrained\s+|updated\s+)(?:model\s+)?weights?\b[^.;]{0,40}?\bwithout\s+"
               r"(?:a\s+|any\s+)?(?:re-?build|re-?compil)\w*|"
               r"\b(?:new\s+|retrained\s+|updated\s+)(?:model\s+)?weights?\s+(?:can|could|will|are|"
               r"get)\s+(?:be\s+)?(?:swapped|loaded|dropped|pushed|hot-?swapped)(?:\s+in)?\s+without\s+"
               r"(?:a\s+|any\s+)?re-?build|"
               r"\bre-?build\w*\s+(?:doesn't|does\s+not|won't|will\s+not)\s+apply\s+to\s+"
               r"(?:re-?train|new\s+(?:model\s+)?version)\w*|"
               r"\bre-?build\w*[^.;]{0,60}?\bonly\s+(?:triggered|needed|required|happens)\s+(?:when|if)\s+"
               r"(?:we\s+|you\s+)?(?:upgrade|update|change|bump)\s+(?:the\s+)?(?:gpu\s+|cuda\s+|nvidia\s+)?"
               r"(?:driver|cuda|hardware)|"
               # "the rebuild is a one-off per GPU type: later model versions reuse it".
               r"\b(?:later|new|future|next|subsequent)\s+(?:model\s+)?versions?\s+(?:can\s+|will\s+|"
               r"just\s+)?re-?use\s+(?:it|that|the\s+(?:same\s+)?(?:engine|build|plan))\b|"
               r"\bre-?build\w*\s+(?:is|are)\s+(?:a\s+|just\s+a\s+)?one-?off\s+(?:cost\s+)?per\s+"
               r"(?:gpu|card|hardware|device)", re.IGNORECASE),
    # "memory fragmentation is mostly a TensorRT issue": TorchServe's eager allocator fragments
    # over long uptimes; a TensorRT engine allocates its memory up front.
    re.compile(r"\b(?:memory\s+)?fragmentation\b[^.;]{0,30}?\b(?:is|'s)\s+(?:mostly\s+|mainly\s+|"
               r"largely\s+|primarily\s+|really\s+|more\s+(?:of\s+)?|just\s+)?an?\s+(?:tensorrt|trt)\s+"
               r"(?:issue|problem|thing|concern|risk)\b", re.IGNORECASE),
    re.compile(r"\bimmutab\w*\s+(?:image\s+)?tags?\b[^.;]{0,80}?\b(?P<turn>re-?point\w*|"
               r"overwrit\w*|re-?push\w*|mov(?:e|es|ing)\s+(?:it|the\s+tag))", re.IGNORECASE),
    # "TorchServe is faster at p99", "TensorRT is the slower one": the speed turned round.
    # ("TorchServe is faster to ship" and "TensorRT is slower to update" are right.)
    re.compile(r"\btorchserve\s+" + _SPEED_VERB + r"(?P<turn>faster|quicker|lower[- ]latency)\b"
               + _NOT_OF_EASE + r"|\b(?:tensorrt|trt)\s+" + _SPEED_VERB
               + r"(?P<slow>slower|higher[- ]latency)\b" + _NOT_OF_EASE, re.IGNORECASE),
    # "INT8 weights take more memory than FP16", "dynamic batching adds no latency", "Argo CD
    # applies a Git change instantly", "with TensorRT we can change input shapes freely".
    re.compile(r"\bint8\b[^.;]{0,30}?\b(?:more|larger|bigger)\s+(?:memory|space|vram)\s+than\s+"
               r"(?:fp16|fp32|bf16)|\bdynamic\s+batching\s+(?:adds|costs)\s+(?:no|zero)\s+"
               r"(?:extra\s+)?latency|\brequests\s+never\s+wait\b|"
               r"\bargo(?:\s*cd)?\s+(?:applies|syncs|picks\s+up|deploys)\b[^.;]{0,40}?\b(?:instantly|"
               r"immediately|right\s+away)\b|"
               r"\b(?:tensorrt|trt)\b[^.;]{0,40}?\b(?:change|vary|any)\s+(?:the\s+)?(?:input\s+)?"
               r"shapes?\s+(?:freely|at\s+will|whenever)", re.IGNORECASE),
    # "batching mostly affects the average, so the p99 won't move much": a batch's wait and
    # longer run land on every request in it, the tail first.
    # (Not a batch job, a capped batch delay, nor batching turned off.)
    re.compile(r"(?<!offline\s)(?<!nightly\s)(?<!without\s)(?<!no\s)\bbatch(?:ing|es)?\b"
               r"(?!\s+(?:scor\w*|jobs?|delay|window|wait|timeout|pipelines?|inference|runs?)\b)"
               r"[^.;,]{0,40}?\b(?:mostly|only|just|mainly|largely)\s+(?:affects?|moves?|hits?|"
               r"changes?|touches|shifts?|raises?)\s+(?:the\s+)?(?:average|mean|median|p50)\b"
               r"(?!\s+(?:cost|price|spend))|"
               r"(?<!offline\s)(?<!nightly\s)(?<!without\s)(?<!no\s)\b(?:bigger|larger|more)\s+"
               r"batch(?:ing|es)?\b[^.;,]{0,30}?\b(?:won't|doesn't|does\s+not|will\s+not|"
               r"shouldn't|never|don't|do\s+not)\s+(?:really\s+|actually\s+)?(?:move|touch|"
               r"affect|change|hurt|raise)\s+(?:the\s+|our\s+)?(?:p99|p95|tail|latency)\b",
               re.IGNORECASE),
    # "TorchServe has no real batching, each request runs alone": it batches dynamically
    # (batch_size and max_batch_delay per model).
    re.compile(r"\btorchserve\b[^.;,]{0,40}?\b(?:(?:has|have|offers?|does|supports?)\s+no\s+"
               r"(?:real\s+|proper\s+|actual\s+)?(?:dynamic\s+)?batching|(?:can't|cannot|can\s+not|"
               r"doesn't|does\s+not|won't)\s+(?:really\s+)?(?:do\s+(?:any\s+)?)?batch\w*|"
               # "whereas TorchServe handles one request at a time".
               r"(?:only\s+)?(?:handles|processes|serves|runs|takes|does)\s+(?:only\s+)?(?:one|a\s+single)\s+"
               r"request\s+at\s+a\s+time)\b", re.IGNORECASE),
    # "the thing that gets worse with batch size is the kernel launch overhead": it is a fixed
    # cost per call, spread thinner by a bigger batch.
    re.compile(r"\blaunch\s+(?:overhead|cost|time)\b[^.;]{0,40}?\b(?:grows?|increases?|rises?|"
               r"gets?\s+worse|"
               r"goes\s+up|scales?)\s+(?:with|as)\s+(?:the\s+)?batch|\b(?:gets?\s+worse|grows?|"
               r"increases?)\s+with\s+(?:the\s+)?batch(?:\s+size)?\s+is\s+(?:the\s+)?(?:kernel\s+)?"
               r"launch\s+overhead|\blaunch\s+more\s+kernels\s+(?:for|with)\s+(?:a\s+)?(?:bigger|"
               r"larger)\s+batch", re.IGNORECASE),
    # "give every worker as many threads as the box has", "more threads = faster": intra-op
    # threads per worker times workers oversubscribe the cores.
    # "set every worker's thread count to the full core count".
    re.compile(r"\b(?:every|each|all\s+the)\s+workers?(?:'s|\u2019s|')?\s+(?:intra-?op\s+)?"
               r"threads?(?:\s+count)?\s+(?:to|at|=)\s+(?:the\s+)?(?:full|total|whole|entire)\s+"
               r"(?:core|cpu|vcpu)\s+count|\b(?:every|each|all\s+the)\s+workers?\s+(?:gets?\s+)?"
               r"(?:all\s+(?:the\s+)?|the\s+full\s+(?:set\s+of\s+)?)(?:cores|vcpus|cpus)\b",
               re.IGNORECASE),
    re.compile(r"\b(?:every|each|all\s+the)\s+workers?\s+(?:gets?\s+)?as\s+many\s+threads\s+as\s+"
               r"(?:the\s+)?(?:box|machine|host|node|server)\s+has|\bmore\s+(?:intra-?op\s+)?"
               r"threads\s*(?:=|means|is|are)\s*(?:always\s+)?faster\b", re.IGNORECASE),
    # "the 5-minute sync window only matters on the way up": a Git revert waits for it too.
    re.compile(r"\bsync(?:\s+window|\s+delay|\s+interval)?\b[^.;]{0,30}?\bonly\s+(?:matters|"
               r"affects|applies|hits|counts)\s+(?:on\s+the\s+way\s+up|(?:to|for)\s+"
               r"promotions?|when\s+promoting)|"
               # "... matters for promotion, but it doesn't really affect rollback".
               r"\bsync(?:\s+window|\s+delay|\s+interval)\b[^.;]{0,120}?\b(?:doesn't|does\s+not|"
               r"won't|will\s+not)\s+(?:really\s+)?(?:affect|matter\s+(?:for|to)|apply\s+to|touch|"
               r"slow(?:\s+down)?)\s+(?:the\s+|a\s+|our\s+)?(?:roll\s*-?backs?|reverts?)",
               re.IGNORECASE),
    # "if the hit rate goes up it means we're compiling more": a rising hit rate is the good
    # direction.
    re.compile(r"\bhit\s+(?:rate|ratio)\s+(?:goes\s+up|rises|climbs|increases)\b[^.;]{0,30}?"
               r"\b(?:compil\w+\s+more|more\s+compil\w+)|\b(?:rising|higher|increasing)\s+hit\s+"
               r"(?:rate|ratio)\s+(?:is|means)\s+(?:the\s+)?(?:warning|bad|trouble|a\s+problem)",
               re.IGNORECASE),
    # "the slow burn over an hour pages and the fast burn over six hours opens a ticket": the
    # fast burn (short window) pages, the slow burn (long window) tickets.
    # "Dynamic shapes are TensorRT's strong suit, TorchServe needs fixed profiles": a TensorRT
    # engine is built for fixed optimization profiles; eager TorchServe takes any shape.
    # "tags like model-latest so the manifest never has to change; Argo CD just pulls whatever
    # latest points to": a mutable tag hides which version runs and defeats a Git revert.
    # "bigger batches mean more work per call, but throughput goes up so per-request it evens
    # out": a batch's wait and longer run are paid by every request in it.
    # "I'd go TorchServe for the hot path and TensorRT for the less latency critical models",
    # "TensorRT as the default for fast-changing models": the tools' places swapped (the
    # compiled engine is for latency-critical, slow-changing models).
    # Said in one pass over the answer (one regex, five alternatives).
    re.compile("|".join(f"(?:{part})" for part in (
        r"\bslow[- ]burn\b(?:(?!\b(?:fast|and|while|whereas)\b)[^.;,]){0,30}?\b(?:pages|"
        r"paging|wakes)\b|\bfast[- ]burn\b(?:(?!\b(?:slow|and|while|whereas)\b)[^.;,])"
        r"{0,30}?\b(?:tickets?|opens?\s+a\s+ticket)\b",
        r"\b(?:dynamic|variable|arbitrary)\s+(?:input\s+)?shapes?\s+(?:are|is)\s+"
        r"(?:tensorrt|trt)(?:'s|\u2019s)\s+(?:strong\s+suit|strength|forte|advantage)|"
        r"\btorchserve\s+(?:needs|requires)\s+(?:fixed|static)\s+(?:input\s+)?"
        r"(?:shapes|profiles)",
        r"\bmanifests?\s+never\s+(?:has|have|needs?)\s+to\s+change|\bpulls?\s+"
        r"whatever\s+(?:the\s+)?(?:latest|tag)\s+(?:tag\s+)?points\s+to",
        r"\b(?:bigger|larger|more)\s+batch(?:es|ing)?\b[^.;]{0,80}?\b(?:evens?|cancels?|"
        r"balances?|washes)\s+(?:itself\s+|themselves\s+)?out\b",
        r"\btorchserve\s+(?:for|on)\s+(?:the\s+)?(?:hot\s+path|(?:most\s+)?latency[- ]"
        r"(?:critical|sensitive)|lowest[- ]latency)|\b(?:tensorrt|trt)\b(?:\s+\w+){0,4}?\s+"
        r"(?:for|on)\s+(?:the\s+)?(?:less\s+latency[- ]critical|fast[- ]changing|"
        r"frequently[- ](?:updated|changing|retrained))",
    )), re.IGNORECASE),
    re.compile(r"\bp-?values?\b[^.;]{0,30}?\b(?:high|large|big|above\s+0?\.05)\b[^.;]{0,40}?"
               r"\b(?:real|significant|meaningful|genuine)\b|"
               r"\bp-?values?\b[^.;]{0,30}?\b(?:low|small|tiny|below\s+0?\.05)\b[^.;]{0,40}?"
               r"\b(?:noise|chance|random|not\s+real)\b", re.IGNORECASE),
)


# Misreadings that came back from one writer's answers to the next, each with the kind of
# point it takes down wherever that point is made (concepts._TURNED_BY_LABEL):
# "any delta on p99 is by definition significant" (a difference needs a test against noise);
# "batching makes every request faster, there is no real cost to it" (each request waits for
# its batch); "launch overhead becomes bigger when the batch is bigger" (a fixed cost per call);
# "compilation happens once at process start, it's not in the request path", "cache
# invalidation can't hit the request path" (a JIT recompiles on a miss, inside a request).
_TURNED_FACTS_BY_KIND = (
    ("significance", re.compile(
        r"\bsignifican\w*\s+by\s+definition\b|\bby\s+definition\s+(?:statistically\s+)?"
        r"significan\w*|\b(?:any|every)\s+(?:delta|difference|change|gap|shift)\b[^.;]{0,40}?"
        r"\b(?:is|are)\s+(?:automatically\s+|always\s+)(?:statistically\s+)?significan\w*|"
        r"\bautomatically\s+(?:statistically\s+)?significant\b", re.IGNORECASE)),
    ("batch-cost", re.compile(
        r"\bbatch\w*\b[^.;]{0,40}?\bmakes?\s+(?:every|each)\s+(?:single\s+)?requests?\s+"
        r"(?:\w+\s+)?faster\b|\bbatch\w*\b[^.;]{0,80}?\bthere(?:'s|\s+is)\s+no\s+(?:real\s+)?"
        r"(?:cost|downside|penalty|trade-?off|catch)\b|"
        # "bigger batches ... throughput goes up pretty much for free".
        r"\b(?:bigger|larger|more)\s+batch\w*\b[^.;]{0,80}?\b(?:pretty\s+much|basically|"
        r"essentially|almost|all)\s+for\s+free\b|"
        # "a bigger batch makes every request's kernel launch more expensive".
        r"\b(?:bigger|larger)\s+batch\w*\s+makes?\s+(?:every|each)\s+(?:request's\s+)?"
        r"(?:kernel\s+)?launch(?:es)?\s+(?:more\s+expensive|slower|costlier)", re.IGNORECASE)),
    # "standardize everything on TensorRT and retire TorchServe", "TensorRT for everything":
    # one tool for every model, where the point is a default per model type.
    ("blanket", re.compile(
        r"\bstandardi[sz]\w*\s+(?:everything|all\s+(?:models|workloads|teams))\s+on\s+"
        r"(?:tensorrt|trt|torchserve)\b|\b(?:tensorrt|trt|torchserve)\s+for\s+(?:everything|"
        r"every\s+(?:model|workload)|all\s+(?:models|workloads))\b|\bretire\s+(?:torchserve|"
        r"tensorrt|trt)\b|\bno\s+reason\s+to\s+keep\s+(?:torchserve|tensorrt|trt)\b",
        re.IGNORECASE)),
    # "on-call reverts the VirtualService by hand", "rollback I prefer a human decides": the
    # rollback left to a person, where the point is that it happens by itself.
    ("manual", re.compile(
        r"\b(?:roll\w*\s*back\w*|revert\w*|rollback\w*)\b[^.;]{0,60}?\b(?:by\s+hand|manually|"
        r"(?:a\s+)?(?:human|person|engineer)\s+(?:should\s+)?(?:decides?|makes?\s+the\s+call|"
        r"pushes\s+the\s+button))|\b(?:by\s+hand|manually)\b[^.;]{0,20}?\b(?:roll\w*\s*back|"
        r"revert\w*)", re.IGNORECASE)),
    # "the network call between them is effectively free": the hop the split adds is a cost.
    ("hop", re.compile(
        r"\b(?:network\s+(?:call|hop|round[- ]?trip)s?|(?:extra\s+)?hops?|rpcs?)\b[^.;]{0,40}?"
        r"\b(?:is|are|costs?)\s+(?:effectively\s+|basically\s+|practically\s+|essentially\s+|"
        r"pretty\s+much\s+|almost\s+)?(?:free|nothing|zero)\b", re.IGNORECASE)),
    ("request-path", re.compile(
        r"\bcompil\w*\b[^.;]{0,60}?\b(?:not|isn't|is\s+not|never)\s+(?:in|on)\s+the\s+"
        r"(?:per-?request|request|hot|serving)\s+path|\b(?:cache\s+)?invalidations?\s+(?:can't|"
        r"cannot|can\s+not|won't|will\s+not|never)\s+(?:really\s+)?(?:hit|reach|touch|affect)\s+"
        r"(?:the\s+)?(?:request|hot|serving)\s+path", re.IGNORECASE)),
    # "that's really a one-time cost per GPU type; once the engine exists it stays valid across
    # model versions, so retrains skip the rebuild": an engine is built from one set of
    # weights, so every retrain pays the build again.
    ("rebuild", re.compile(
        r"\bone-?(?:time|off)\s+(?:cost|hit|price|thing)\s+per\s+(?:gpu|card|hardware|device)"
        r"(?:\s+(?:type|model|generation|sku))?\b(?![^.;]{0,30}?\b(?:version|retrain|"
        r"release|weights)\w*)|"
        r"\b(?:stays?|remains?|is|are)\s+valid\s+(?:across|for\s+(?:all|every|later|new|"
        r"future))\s+(?:the\s+)?(?:model\s+)?(?:versions|retrains|releases)\b|"
        r"\bre-?train\w*\s+(?:can\s+|will\s+|just\s+|then\s+)?(?:skip|avoid|bypass)\s+"
        r"(?:the\s+|a\s+)?(?:re-?build|re-?compil\w*|engine\s+build)", re.IGNORECASE)),
    # "I'd keep a moving tag like prod-latest that we repoint to whichever version is live": a
    # tag that moves names nothing exactly, the opposite of an immutable version.
    ("mutable-tag", re.compile(
        r"\b(?:moving|floating|mutable|rolling|movable)\s+(?:docker\s+|image\s+)?tags?\b|"
        r"\b(?:prod|production|stable|current)[-_]latest\b|"
        r"\b(?:re-?point|re-?tag|overwrit\w*|reus\w*|mov\w*)\s+(?:the\s+|that\s+|a\s+)?"
        r"(?:same\s+)?(?:prod\s+|production\s+|latest\s+|stable\s+)?tag\b|"
        r"\b(?:deploy|pull|use|point\s+\w+\s+at)\s+(?:the\s+)?[`'\"]?:?latest[`'\"]?(?:\s+tag)?\b",
        re.IGNORECASE)),
    ("relation", re.compile(
        # "if the hit rate starts climbing, that's the warning sign": a rising hit rate is good.
        r"\bhit\s+(?:rate|ratio)\b[^.;]{0,25}?\b(?:goes\s+up|rises|rising|climbs|climbing|"
        r"increases|increasing|grows|growing)\b[^.;]{0,40}?\b(?:warning|trouble|alarm|"
        r"compil\w*\s+more|more\s+compil\w*|about\s+to\s+go\s+up)|"
        r"\blaunch\s+(?:overhead|cost|time)\b[^.;]{0,30}?\b(?:becomes?|gets?|grows?)\s+"
        r"(?:bigger|larger|higher|worse|longer)\s+(?:when|as|with|if)\s+(?:the\s+)?batch",
        re.IGNORECASE)),
)


_AUTOMATIC_NEAR_RE = re.compile(r"\bautomat(?:ic\w*|ed?|es|ing)\b|\bauto-?(?:roll|revert)\w*",
                                re.IGNORECASE)


def _sentence_around(text: str, match: re.Match[str]) -> str:
    """The text around a match, to the nearest full stop or line break each side."""
    start = max(text.rfind(".", 0, match.start()), text.rfind("\n", 0, match.start())) + 1
    ends = [i for i in (text.find(".", match.end()), text.find("\n", match.end())) if i >= 0]
    return text[start : min(ends) if ends else len(text)]


def turned_facts(text: str, sentence_of) -> list[WrongClaim]:
    """Facts of the subject said the wrong way round (not where the sentence denies them)."""
    found: list[WrongClaim] = []
    for kind, regex in _TURNED_FACTS_BY_KIND:
        for match in regex.finditer(text):
            before = text[max(0, match.start() - 40) : match.start()]
            if _NOT_BEFORE_RE.search(before) or re.search(r"\b(?:rather\s+than|instead\s+of)\W*$",
                                                           before, re.IGNORECASE):
                continue
            if kind == "manual" and _AUTOMATIC_NEAR_RE.search(_sentence_around(text, match)):
                continue  # "automatic rollback, with a manual button for on-call"
            found.append(_claim(match.start(), match.end(), sentence_of, kind))
    for regex in _TURNED_FACTS:
        for match in regex.finditer(text):
            if _NOT_BEFORE_RE.search(text[max(0, match.start() - 40) : match.start()]):
                continue
            turn = match.start("turn") if "turn" in regex.groupindex and match.group("turn") \
                else match.start("slow") if "slow" in regex.groupindex and match.group("slow") \
                else -1
            if turn >= 0 and _NOT_BEFORE_RE.search(text[match.start() : turn]):
                continue  # "an immutable tag per build, and we never move it"
            found.append(_claim(match.start(), match.end(), sentence_of, "relation"))
    return found


# "TensorRT's big advantage is portability: build the engine once and drop it on any card": a
# TensorRT engine is built for one GPU type (and one TensorRT version), so it is not portable.
_PORTABLE_RE = re.compile(
    r"\b(?:tensorrt|trt|engines?)\b[^.;!?\n]{0,80}?\b(?:portab\w+|(?:build|compile)\w*\s+(?:the\s+|an?\s+)?"
    r"(?:engine\s+)?once\s+and\s+(?:then\s+)?(?:run|deploy|drop|use|ship)\w*|"
    # "compile the engine once and then ship it to whatever GPU you like".
    r"(?:ship|send|copy|move)\w*\s+it\s+to\s+(?:any|every|whatever)\s+(?:gpus?|cards?|box|node)|"
    r"(?:runs?|works?|deploy\w*)\s+(?:on\s+)?"
    r"(?:any|every|whatever)\s+(?:nvidia\s+)?(?:gpus?|cards?))"
    r"|\b(?:engines?|plans?)\s+(?:are|is)\s+portable\b"
    # "the serialized engine is just a file, build it on whatever box CI has and copy it to
    # every node, A10s, A100s, doesn't matter"
    r"|\b(?:engines?|plans?)\b[^.;!?\n]{0,80}?\b(?:build\s+it\s+on\s+whatever|copy\s+it\s+to\s+"
    r"(?:every|all|any)\b|(?:any|every|whatever)\s+(?:gpu|card|box|node|machine)s?\b[^.;!?\n]{0,40}?"
    r"\b(?:doesn't|does not)\s+matter)", re.IGNORECASE)
_NOT_PORTABLE_RE = re.compile(r"\b(?:not|isn't|aren't|never|no|non|can't|cannot|n't)\b"
                              r"[^.;!?\n]{0,25}$|\bnon-?portab", re.IGNORECASE)


def portable_engines(text: str, sentence_of) -> list[WrongClaim]:
    """TensorRT engines claimed to be portable across GPUs."""
    found: list[WrongClaim] = []
    for match in _PORTABLE_RE.finditer(text):
        tail = text[match.start() : match.end()]
        before = text[max(0, match.end() - 60) : match.end() - len(tail.split()[-1])]
        if _NOT_PORTABLE_RE.search(before) or re.search(r"\bnon-?portab", tail, re.I):
            continue
        found.append(_claim(match.start(), match.end(), sentence_of, "portable"))
    return found


# What belongs to which tool, beyond the role: TensorRT needs fixed optimization profiles and a
# rebuild per version; TorchServe runs Python handlers, takes dynamic shapes and has the
# management API. Said of the other tool with a verb of having or doing, it is misattributed
# ("TensorRT handles dynamic shapes out of the box while TorchServe needs fixed optimization
# profiles": both halves turned round).
_TOOL_RE = re.compile(r"\b(?P<tool>tensorrt|trt|torchserve|triton)\b", re.IGNORECASE)
_TOOL_OWNERS = {"tensorrt": "tensorrt", "trt": "tensorrt", "torchserve": "torchserve",
                "triton": "triton"}
_ATTRIBUTES = (
    ("tensorrt", re.compile(r"\b(?:fixed\s+)?optimi[sz]ation\s+profiles?\b|"
                            r"\bfixed\s+(?:input\s+)?shapes\b|"
                            # "TorchServe wants inputs padded to one fixed length".
                            r"\bpadded\s+to\s+(?:one|a|the\s+same)\s+(?:fixed\s+)?(?:length|"
                            r"size|shape)\b", re.IGNORECASE)),
    ("tensorrt", re.compile(r"\b(?:(?:engine|model)\s+)?rebuil(?:d|ds|t|ding)\b|"
                            r"\b(?:45|forty-five)[- ]minute\s+(?:re)?build", re.IGNORECASE)),
    # A serialized engine built per GPU, tuned and fused at build time: TensorRT's.
    ("tensorrt", re.compile(r"\bbuilds?\s+(?:an?\s+|the\s+)?engines?\b|\bengines?\s+per\s+gpu\b|"
                            # "TorchServe takes the model and compiles it ahead of time into a
                            # fused, FP16 engine".
                            r"\bcompiles?\s+(?:it|them|the\s+(?:model|graph))\s+ahead\s+of\s+time\b|"
                            r"\bfused,?\s+(?:fp16|int8)\s+engines?\b|"
                            r"\bplan\s+files?\b|\bkernel\s+auto-?tun\w*|\bint8\s+calibration\b|"
                            r"\b(?:layer|kernel)\s+fusion\b|\bfuses?\s+(?:the\s+)?layers\b",
                            re.IGNORECASE)),
    # Model archives and the frontend's config: TorchServe's.
    ("torchserve", re.compile(r"\.mar\b|\bmodel\s+archives?\b|\bconfig\.properties\b",
                              re.IGNORECASE)),
    ("torchserve", re.compile(r"\bpython\s+(?:handlers?|preprocessing)\b|"
                              r"\b(?:dynamic|variable|arbitrary)(?:[- ]length)?\s+(?:input\s+)?"
                              r"shapes\b|\bmanagement\s+api\b|"
                              # "TensorRT copes with variable sequence lengths".
                              r"\b(?:variable|dynamic|arbitrary)\s+(?:input\s+|sequence\s+)?"
                              r"lengths\b", re.IGNORECASE)),
)
# Between the tool and what is said of it: a verb of having, doing or needing.
_POSSESSIVE_RE = re.compile(r"^['’]s\s+(?:own\s+|built-?in\s+)?$")
_ITS_RE = re.compile(r"^(?:\s+(?:too|also|here|again))?\s*[:,]?\s*its\s+(?:own\s+|built-?in\s+)?$",
                     re.IGNORECASE)
_HAS_RE = re.compile(r"\b(?:has|have|had|gives?|lets?\s+you|supports?|handles?|offers?|wants?|"
                     r"comes?\s+with|provides?|runs?|needs?|requires?|must|has\s+to|have\s+to|"
                     r"takes?|accepts?|deals?\s+with|copes?\s+with|is\s+(?:a|the)|thing|"
                     r"you\s+(?:can\s+)?(?:drop|write|use|register|declare|set|put)|keeps?|"
                     r"uses?|exposes?|packages?|does|builds?|compiles?)\b",
                     re.IGNORECASE)
# (Also typed without the apostrophe: "TRT doesnt run python preprocessing".)
_NOT_HAS_RE = re.compile(r"\b(?:not|no|never|without|lacks?|avoid\w*|skip\w*|unlike|instead|"
                         r"doesnt|dont|cant|wont|isnt|arent|didnt|cannot|"
                         r"rather|than|versus|vs|compared|while|whereas|but|behind|inside|in|"
                         r"wrap\w*|through|via|under|for|of)\b|n't|[;:,(]", re.IGNORECASE)


_OWNED_BY_RE = re.compile(r"(?:\s+[^.;:!?,]{0,40}?)?\s+(?:is|are)\s+(?:(?:a|an|the|just\s+a|"
                          r"really\s+a|mostly\s+a|mainly\s+a)\s+(?=\w+\s+(?:thing|problem|issue|"
                          r"cost|feature)\b)|"
                          # "the 45 minute rebuild is for TorchServe .mar archives".
                          r"(?:only\s+|just\s+|mostly\s+)?for\s+(?:the\s+)?"
                          r"(?![^.;]{0,30}\b(?:not|n't|never|impossible|missing)\b))"
                          r"(?P<tool>tensorrt|trt|torchserve)\b", re.IGNORECASE)


def misattributed_features(text: str, sentence_of) -> list[WrongClaim]:
    """A tool's feature or cost said of the other tool ("TorchServe needs you to declare fixed
    optimization profiles", "the 45 minute rebuild is a TorchServe thing")."""
    found: list[WrongClaim] = []
    tools = [(m.start(), m.end(), _TOOL_OWNERS[m.group("tool").lower()])
             for m in _TOOL_RE.finditer(text)]
    if not tools:
        return found
    ends = [end for _, end, _ in tools]
    for owner, regex in _ATTRIBUTES:
        matches = list(regex.finditer(text))  # found once, read both ways below
        for match in matches:
            # The nearest tool named before the feature (a binary search: linear overall).
            at = bisect.bisect_right(ends, match.start())
            if not at:
                continue
            start, end, tool = tools[at - 1]
            gap = text[end : match.start()]
            if tool == owner or tool == "triton" or len(gap) > 60 or re.search(r"[.!?]\s", gap):
                continue
            # "TensorRT's management API": the feature given to the tool by the possessive.
            # "TorchServe builds an engine per GPU": the feature is the tool's own predicate.
            # "I'd lean TensorRT too: its Python handlers": "its" names the tool just said.
            owned = _POSSESSIVE_RE.match(gap) is not None or not gap.strip() \
                or _ITS_RE.match(gap) is not None
            if not owned and (_HAS_RE.search(gap) is None or _NOT_HAS_RE.search(gap)):
                continue
            found.append(_claim(start, match.end(), sentence_of, "role"))
        for match in matches:
            # Said the other way round: "the 45 minute rebuild is a TorchServe thing".
            after = _OWNED_BY_RE.match(text, match.end())
            if after and _TOOL_OWNERS[after.group("tool").lower()] not in {owner, "triton"}:
                found.append(_claim(match.start(), after.end(), sentence_of, "role"))
    return found


# Real-time factor is processing time over audio duration: it must stay below 1. "Keep RTF
# above 1, meaning we keep up" turns it round.
_RTF_ABOVE_RE = re.compile(
    r"\b(?:rtf|real[- ]time\s+factor)\b(?P<gap>[^.;!?\n]{0,70}?)(?:(?:above|over|greater\s+than|"
    r"more\s+than|bigger\s+than|at\s+least|exceed\w*|>)\s*(?:1|one)\b(?![.,]\d)|the\s+higher"
    r"[^.;!?\n]{0,20}?the\s+better)(?P<after>[^.;!?\n]{0,60})", re.IGNORECASE)
_RTF_GOOD_RE = re.compile(r"\b(?:keep\w*|stay\w*|want|should|healthy|good|better|fine|faster|"
                          r"ahead|target\w*|aim\w*|comfortabl\w*|means\s+we(?:'re|\s+are)?)\b",
                          re.IGNORECASE)
_RTF_BAD_RE = re.compile(r"\b(?:below|under|less\s+than|behind|fall\w*|alert\w*|page\w*|bad|"
                         r"problem\w*|lag\w*|never|not|don't|warn\w*|breach\w*|slower|"
                         r"overload\w*|can't|cannot)\b|<", re.IGNORECASE)


# "RTF is ~3.3, comfortably inside our limit", "fine with anything up to about 3": a value
# above 1 accepted; "real-time factor, which I define as audio duration divided by processing
# time": the ratio turned upside down.
_RTF_VALUE_RE = re.compile(
    r"\b(?:rtf|real[- ]time\s+factor)\b(?P<gap>[^.;!?\n]{0,90}?)(?<![\d.])(?P<value>\d+(?:\.\d+)?)"
    r"(?!\s*(?:x\b|×|times|%|\d|\.\d))(?P<after>[^.;!?\n]{0,50})", re.IGNORECASE)
_RTF_FINE_RE = re.compile(r"\b(?:fine|ok|okay|inside|within|comfortabl\w*|healthy|up\s+to|"
                          r"target\w*|acceptable|good|under\s+(?:our|the)\s+limit)\b",
                          re.IGNORECASE)
_RTF_INVERTED_RE = re.compile(
    r"\b(?:rtf|real[- ]time\s+factor)\b[^.;!?\n]{0,50}?\baudio\s+(?:duration|length|time|seconds)"
    r"\s+(?:divided\s+by|over|/|per)\s+(?:the\s+)?(?:processing|compute|inference)", re.IGNORECASE)


def reversed_real_time_factor(text: str, sentence_of) -> list[WrongClaim]:
    """Real-time factor wanted above 1, a value above 1 accepted, or the ratio inverted."""
    found: list[WrongClaim] = []
    for match in _RTF_VALUE_RE.finditer(text):
        said = match.group(0)
        if float(match.group("value")) > 1.0 and _RTF_FINE_RE.search(said) \
                and not _RTF_BAD_RE.search(said):
            found.append(_claim(match.start(), match.end("value"), sentence_of, "definition"))
    for match in _RTF_INVERTED_RE.finditer(text):
        found.append(_claim(match.start(), match.end(), sentence_of, "definition"))
    for match in _RTF_ABOVE_RE.finditer(text):
        said = match.group(0)
        if _RTF_GOOD_RE.search(said) and not _RTF_BAD_RE.search(said):
            found.append(_claim(match.start(), match.start("after"), sentence_of, "definition"))
    return found


# Bytes a weight takes at each precision: FP16 is two bytes, not one.
_BYTES_AT = {"fp16": 2.0, "bf16": 2.0, "half": 2.0, "16": 2.0, "fp32": 4.0, "full": 4.0,
             "32": 4.0, "int8": 1.0, "fp8": 1.0, "8": 1.0, "int4": 0.5, "4": 0.5}
_BYTE_WORDS = {"one": 1.0, "a single": 1.0, "single": 1.0, "a": 1.0, "two": 2.0, "four": 4.0,
               "half a": 0.5}
_PRECISION_BYTES_RE = re.compile(
    r"\b(?P<p>fp16|bf16|fp32|int8|fp8|int4|(?P<bits>16|32|8|4)[- ]?bits?|half[- ]precision|"
    r"full[- ]precision)\b(?P<gap>[^.;!?\n]{0,50}?)\b(?P<n>\d+(?:\.\d+)?|one|two|four|"
    r"a\s+single|single|half\s+a|a)\s*-?\s*bytes?\b", re.IGNORECASE)
# "INT8 cuts it from 2 bytes to 1", "FP16 at 2 bytes vs 4 for FP32": a comparison, not a size.
_BYTES_COMPARED_RE = re.compile(r"\b(?:from|to|vs|versus|than|instead|rather|down|cut\w*|"
                                r"halv\w*|compared|whereas|while|and|or|fp16|fp32|int8|bf16|"
                                r"fp8|int4|bits?)\b|\d", re.IGNORECASE)


def wrong_precision_sizes(text: str, sentence_of) -> list[WrongClaim]:
    """"FP16 stores each weight in a single byte": a precision given the wrong size."""
    found: list[WrongClaim] = []
    for match in _PRECISION_BYTES_RE.finditer(text):
        if _BYTES_COMPARED_RE.search(match.group("gap")):
            continue
        name = (match.group("bits") or match.group("p").split("-")[0].split()[0]).lower()
        expected = _BYTES_AT.get(name)
        said = re.sub(r"\s+", " ", match.group("n").lower())
        value = float(said) if said[0].isdigit() else _BYTE_WORDS[said]
        if expected is not None and value and abs(value - expected) > 1e-9:
            found.append(_claim(match.start(), match.end(), sentence_of, "definition"))
    return found


# "Quantization makes the model more precise": it lowers precision (to run faster and smaller).
_QUANTIZATION_GAIN_RE = re.compile(
    r"\bquanti[sz]\w*(?P<gap>[^.;!?\n]{0,60}?)\b(?:more\s+(?:precise|accurate)|higher\s+precision|"
    r"(?:increas|rais|improv|boost)\w*\s+(?:the\s+|its\s+)?(?:precision|accuracy)|adds?\s+"
    r"precision)\b", re.IGNORECASE)
_QUANTIZATION_FAIR_RE = re.compile(r"\b(?:not|no|never|n't|doesn't|without|aware|qat|than|"
                                   r"calibrat\w*|despite|keeps?|preserv\w*|lose|loses|losing)\b",
                                   re.IGNORECASE)


def quantization_gains_precision(text: str, sentence_of) -> list[WrongClaim]:
    """Quantization said to raise precision or accuracy."""
    return [_claim(m.start(), m.end(), sentence_of, "definition")
            for m in _QUANTIZATION_GAIN_RE.finditer(text)
            if not _QUANTIZATION_FAIR_RE.search(m.group("gap"))]


# "Dynamic batching means the server always waits until it has a full batch": it waits at most
# a configured delay, then runs whatever has arrived.
_FULL_BATCH_WAIT_RE = re.compile(
    r"\bdynamic\s+batch\w*(?P<gap>[^.;!?\n]{0,120}?)\b(?:always\s+)?(?:waits?|holds?\s+(?:the\s+|"
    r"incoming\s+)?requests|buffers?\s+(?:the\s+|incoming\s+)?requests|queues?\s+(?:the\s+|"
    r"incoming\s+)?requests)\s+(?:until|till|for)\s+"
    r"(?:it\s+has\s+|there\s+are\s+|we\s+have\s+)?(?:a\s+|the\s+)?(?:batch\s+is\s+(?:completely\s+|"
    r"totally\s+|entirely\s+)?)?(?:full|complete|whole|fixed|that\s+many|enough|all|\d+)\b"
    r"(?P<after>[^.;!?\n]{0,60})", re.IGNORECASE)
_BOUNDED_WAIT_RE = re.compile(r"\b(?:or|up\s+to|max\w*|timeout|deadline|at\s+most|cap\w*|"
                              r"bound\w*|delay|not|never|n't|instead)\b", re.IGNORECASE)


def unbounded_batch_waits(text: str, sentence_of) -> list[WrongClaim]:
    """Dynamic batching said to wait for a full batch with no bound on the wait."""
    found: list[WrongClaim] = []
    for match in _FULL_BATCH_WAIT_RE.finditer(text):
        if _BOUNDED_WAIT_RE.search(match.group("gap") + match.group("after")):
            continue
        found.append(_claim(match.start(), match.start("after"), sentence_of, "definition"))
    return found


# "p99, the value that 99% of requests are slower than": the share is of requests faster.
_PERCENTILE_SHARE_RE = re.compile(
    r"\bp(?P<n>\d{2}(?:\.\d+)?)\b[^.;!?\n]{0,40}?\b(?:value|latency|time|number|figure|point|"
    r"meaning|i\.e\.)\s+"
    r"(?:that\s+|which\s+)?(?P<share>\d{2}(?:\.\d+)?)\s?%\s+of\s+(?:the\s+|our\s+|all\s+)?"
    r"(?:requests|calls|queries)\s+(?:are|is|take|run|come\s+in)\s+"
    # "meaning 99% of requests are allowed to be slower than 15ms".
    r"(?:(?:allowed|permitted|free)\s+to\s+(?:be|take|run)\s+)?(?P<rel>slower|longer|above|"
    r"over|higher|faster|quicker|below|under|shorter)\b", re.IGNORECASE)


def reversed_percentile_shares(text: str, sentence_of) -> list[WrongClaim]:
    """A percentile defined by the share of requests on the wrong side of it."""
    found: list[WrongClaim] = []
    for match in _PERCENTILE_SHARE_RE.finditer(text):
        if abs(float(match.group("n")) - float(match.group("share"))) > 1e-9:
            continue  # "p99 is the time 1% of requests are slower than" is right
        slower = match.group("rel").lower() in {"slower", "longer", "above", "over", "higher"}
        if slower:
            found.append(_claim(match.start(), match.end(), sentence_of, "definition"))
    return found


# "I'd track p50, since that's the tail", "the p5 of cold-start time, since the low percentiles
# are where the slow outliers are": a low percentile taken for the tail (the slow requests sit
# at the high ones).
_LOW_PERCENTILE_AS_TAIL_RE = re.compile(
    r"\b(?:p(?:[0-7]?\d)|median)\b[^.;!?]{0,30}?\b(?:that's|that\s+is|it's|which\s+is|is|as)\s+"
    r"(?:the\s+|our\s+)?(?:tail|slow(?:est)?\s+(?:requests|outliers|tail|end))\b|"
    r"\b(?:low(?:er)?|small(?:er)?|bottom)\s+percentiles?\s+(?:are|is)\s+(?:where\s+)?(?:the\s+)?"
    r"(?:slow\w*|tail|outliers)\b|"
    # "I'd want the p50 figure since that's the stricter bar"; "a p99 number is the optimistic
    # one": the high percentile is the strict, pessimistic one.
    r"\b(?:p(?:[0-7]?\d)|median)\b[^.;!?]{0,30}?\b(?:that's|that\s+is|it's|which\s+is|is|as)\s+"
    r"(?:the\s+|a\s+)?(?:stricter|strictest|more\s+conservative|harsher|tougher|worst[- ]case|"
    r"more\s+pessimistic)\b|"
    r"\bp9\d(?:\.\d+)?\b[^.;!?]{0,30}?\b(?:that's|that\s+is|it's|which\s+is|is|as)\s+"
    r"(?:the\s+|an?\s+)?(?:optimistic|lenient|flattering|forgiving|rosier)\b", re.IGNORECASE)


def low_percentiles_as_tail(text: str, sentence_of) -> list[WrongClaim]:
    """A low percentile (p50, p5, "the low percentiles") said to be the tail."""
    return [_claim(m.start(), m.end(), sentence_of, "percentile")
            for m in _LOW_PERCENTILE_AS_TAIL_RE.finditer(text)]


def wrong_claims(tokens: list[Token], text: str, sentence_of) -> list[WrongClaim]:
    """Every wrong relation, role or definition in the answer, in text order."""
    claims = [*misattributed_roles(tokens, text), *reversed_percentiles(text, sentence_of),
              *low_percentiles_as_tail(text, sentence_of),
              *reversed_batching(text, sentence_of), *average_definitions(text, sentence_of),
              *portable_engines(text, sentence_of), *wrong_definitions(text, sentence_of),
              *misattributed_features(text, sentence_of),
              *reversed_real_time_factor(text, sentence_of),
              *wrong_precision_sizes(text, sentence_of),
              *quantization_gains_precision(text, sentence_of),
              *unbounded_batch_waits(text, sentence_of),
              *reversed_percentile_shares(text, sentence_of),
              *launch_overhead_gone(text, sentence_of), *turned_facts(text, sentence_of)]
    return sorted(claims, key=lambda c: c.span.start)


# "whatever the cadence, TensorRT will be the faster option", "regardless of updates it's
# always better": a comparison claimed to hold in every case.
_UNIVERSAL_RE = re.compile(
    # ("every time the model changes" is a condition, not a claim that holds in every case.)
    r"\b(?:always|whatever|regardless|no\s+matter|in\s+(?:every|all|any)\s+cases?|"
    r"every\s+(?:single\s+)?time(?!\s+(?:the|a|an|we|you|it|they|there|someone|somebody|i|"
    r"that|this|our|your|their|my)\b)|"
    r"under\s+any|irrespective|unconditionally|in\s+all\s+situations|than\s+anything(?:\s+else)?|"
    r"(?:on|for|with|across)\s+(?:basically\s+|almost\s+|pretty\s+much\s+|nearly\s+)?every\s+"
    r"(?:model|workload|case|benchmark|team|service|use\s+case|project|product)|"
    r"(?:platform|company|org)[- ]wide\s+default|default\s+for\s+(?:every|all)\b|"
    r"(?:is|it's)\s+(?:just|simply)\s+(?:the\s+)?(?:faster|better|quicker)|obvious\s+(?:pick|"
    r"choice)|no-?brainer|by\s+definition)\b", re.IGNORECASE)
_COMPARATIVE_RE = re.compile(
    r"\b(?:faster|quicker|better|wins?|superior|lower\s+latency|the\s+right\s+choice|"
    r"(?:platform|company|org)[- ]wide|(?:the\s+)?(?:platform\s+)?default|standardi[sz]e|"
    r"the\s+best|obvious\s+(?:pick|choice)|no-?brainer|beats?|outperforms?)\b", re.IGNORECASE)
# A choice made whatever the facts: "I'd use TensorRT no matter how often the team retrains"
# (not "I'd pick whatever batch still fits": a bare "whatever" there picks by a condition).
_CHOICE_RE = re.compile(r"\b(?:i'd|i\s+would|we'd|we\s+would)\s+(?:still\s+)?(?:use|pick|go\s+with|"
                        r"choose)\b", re.IGNORECASE)
_HEDGE_RE = re.compile(
    r"\b(?:not\s+always|isn't\s+always|aren't\s+always|never\s+always|unless|except|but\s+the|"
    r"depends|trade-?offs?|however|although|though)\b", re.IGNORECASE)


def universal_comparisons(text: str, sentences: list) -> list[WrongClaim]:
    """Sentences claiming one option wins in every case, with no hedge in the sentence."""
    found: list[WrongClaim] = []
    for index, sentence in enumerate(sentences):
        body = text[sentence.start : sentence.end]
        universal = _UNIVERSAL_RE.search(body)
        if universal is None or _HEDGE_RE.search(body):
            continue
        comparative = _COMPARATIVE_RE.search(body)
        if comparative is None and not universal.group().lower().startswith("whatever"):
            comparative = _CHOICE_RE.search(body)
        if comparative is None:
            continue
        start = sentence.start + min(universal.start(), comparative.start())
        end = sentence.start + max(universal.end(), comparative.end())
        found.append(WrongClaim(Span(start, end), index, "universal"))
    return found
