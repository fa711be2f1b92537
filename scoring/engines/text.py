"""Text helpers for the scoring engines: tokens with offsets, a small stemmer, a domain
thesaurus, sentence and clause splitting, negation scopes and reasoning markers.

Plain Python and deterministic. Stemming is a small suffix stripper: it only has to map the
same word family to the same key on both sides of a comparison, not to be linguistically right.
"""

from __future__ import annotations

import re
from bisect import bisect_right
from dataclasses import dataclass
from functools import lru_cache

# Words (letters, digits, µ) with an optional contraction; hyphens and slashes split words so
# "per-stage" matches "per stage".
_WORD_RE = re.compile(r"[A-Za-z0-9µμ]+(?:['’][A-Za-z]+)?")

STOPWORDS = frozenset(
    [
        "a", "about", "above", "after", "again", "against", "all", "also", "am", "an", "and",
        "any", "are", "as", "at", "be", "been", "before", "being", "below", "between", "both",
        "but", "by", "can", "could", "did", "do", "does", "doing", "down", "during", "each",
        "either", "else", "etc", "even", "ever", "every", "few", "for", "from", "further",
        "get", "gets", "got", "had", "has", "have", "having", "he", "her", "here", "hers",
        "him", "his", "how", "i", "i'd", "i'll", "i'm", "i've", "id", "if", "in", "into", "is",
        "it", "it's", "its", "itself", "just", "let", "me", "more", "most", "much", "must",
        "my", "myself", "nor", "of", "off", "on", "once", "one", "only", "or", "other", "our",
        "ours", "out", "over", "own", "per", "quite", "rather", "really", "same", "she",
        "should", "so", "some", "such", "than", "that", "that's", "the", "their", "theirs",
        "them", "then", "there", "there's", "these", "they", "this", "those", "through", "thus",
        "to", "too", "under", "until", "up", "upon", "us", "very", "via", "was", "we", "we'd",
        "we'll", "we're", "we've", "were", "what", "when", "where", "which", "while", "who",
        "whom", "why", "will", "with", "within", "would", "you", "you'd", "your", "yours",
        "yourself", "e", "g", "ie", "eg", "vs", "like", "well", "way", "ok", "okay", "yes"
    ]
)

# Words so common in interview answers that they say little about which point is being made.
GENERIC = frozenset(
    [
        "use", "using", "used", "make", "makes", "making", "need", "needs", "want", "think",
        "go", "going", "say", "basic", "basically", "thing", "things", "lot", "lots", "stuff",
        "probably", "maybe", "actually", "first", "second", "third", "then", "next", "finally",
        "start", "starts", "good", "better", "best", "sure", "keep", "kept", "set", "sets",
        "put", "take", "takes", "look", "looks", "see", "pretty", "something", "anything",
        "everything", "someone", "approach", "option", "options", "case", "cases", "way",
        "really", "kind", "sort", "type", "important", "main", "key", "point", "points", "also"
    ]
)

# Negators that scope forward to the end of their clause.
_FORWARD_NEGATORS = frozenset(
    [
        "not", "no", "never", "without", "skip", "skipping", "skipped", "ignore", "ignoring",
        "nothing", "none", "neither", "nor", "cannot", "dont", "don't", "wouldnt", "wouldn't",
        "isnt", "isn't", "cant", "can't", "wont", "won't", "doesnt", "doesn't", "didnt",
        "didn't", "shouldnt", "shouldn't", "arent", "aren't", "wasnt", "wasn't", "werent",
        "weren't", "needn't", "neednt",
        # "I'm skeptical of a bake after every step", "people overrate burn-rate alerts".
        "skeptical", "sceptical", "overrate"
    ]
)
# "no more than", "not only" etc. limit or extend a claim rather than reject it.
_NOT_NEGATING_AFTER = frozenset(
    [
        "more", "less", "higher", "lower", "worse", "better", "later", "earlier", "longer",
        "shorter", "matter", "only", "just", "doubt", "exceed", "exceeding", "above", "below",
        "than", "much",
        # "I have no idea what the p99 looks like": a gap in what is known, not a rejection.
        "idea"
    ]
)
# Dismissals that look back over their own clause: "... is overkill", "... so I'd ignore it".
_BACKWARD_DISMISSALS = (
    ("overkill",), ("unnecessary",), ("negligible",), ("irrelevant",), ("pointless",),
    ("noise",), ("not", "needed"), ("not", "worth"), ("ignore", "it"), ("ignore", "them"),
    ("skip", "it"), ("skip", "them"), ("waste",), ("just", "extra"), ("not", "necessary"),
    ("no", "need"), ("not", "a", "concern"), ("doesn't", "matter"), ("dont", "matter"),
    ("don't", "matter"), ("isn't", "needed"), ("not", "important"),
    # "... are too noisy to budget against", "... rare enough to ignore": the clause is dismissed.
    ("too", "noisy"), ("too", "slow"), ("too", "expensive"), ("too", "costly"),
    ("too", "complex"), ("too", "complicated"), ("too", "risky"), ("to", "ignore"),
    ("can", "ignore"), ("can", "be", "ignored"),
    # "the extra call is basically free", "isn't a bottleneck, it's a coffee break".
    ("basically", "free"), ("essentially", "free"), ("is", "free"), ("for", "free"),
    ("coffee", "break"), ("not", "a", "bottleneck"), ("isn't", "a", "bottleneck"),
    ("doesn't", "belong"), ("not", "really", "a"), ("basically", "nothing"),
    ("just", "a", "ci"), ("a", "ci", "detail"), ("not", "an", "outage"), ("redundant",),
    ("overblown",), ("is", "nothing"), ("bother", "with", "it"), ("just", "noise"),
    # "The 200 microseconds isn't something I'd worry about", "nothing to worry about".
    ("isn't", "something"), ("not", "something"), ("nothing", "to", "worry"),
    ("doesn't", "change", "much"), ("don't", "change", "much"), ("negligable",),
    # "percentiles and jitter don't add much on top of the average".
    ("don't", "add", "much"), ("doesn't", "add", "much"), ("wouldn't", "add", "much"),
    # "ops trivia", "mostly caution", "a nice-to-have I wouldn't bother with".
    ("trivia",), ("mostly", "caution"), ("nice", "to", "have"), ("not", "a", "design"),
    ("rounding", "error"),
    ("wouldn't", "worry"), ("don't", "worry"), ("not", "worth", "worrying"),
    # "fragmentation goes away under TensorRT": the point is waved off, not made.
    ("goes", "away"), ("go", "away"), ("went", "away"), ("disappears",), ("vanishes",),
    ("non", "issue"), ("not", "an", "issue"), ("isn't", "an", "issue"), ("never", "an", "issue"),
    # "accuracy is checked offline, it doesn't need monitoring", "a luxury we can skip".
    ("it", "doesn't", "need"), ("that", "doesn't", "need"), ("luxury",), ("mostly", "process"),
    ("just", "process"), ("nothing", "worth"), ("leave", "that", "off"), ("leave", "it", "off"),
    ("leave", "it", "out"), ("leave", "that", "out"), ("wouldn't", "bother"),
    ("won't", "bother"), ("don't", "bother"), ("small", "stuff"), ("doesn't", "register"),
    ("scarier", "than"), ("live", "without", "that"), ("live", "without", "it"),
    ("do", "without", "it"), ("do", "without", "that"), ("wouldn't", "do", "that"),
    ("skip", "that"), ("drop", "that"), ("drop", "it"), ("ignore", "that"), ("bookkeeping",),
    # "flag overhead or sync delay are micro-optimizations, I wouldn't design around them".
    ("micro", "optimizations"), ("micro", "optimisations"), ("micro", "optimization"),
    ("micro", "optimisation"), ("design", "around", "them"), ("design", "around", "it"),
    # "burn-rate alerting feels like more machinery than a single service needs".
    ("more", "machinery"), ("more", "than", "we", "need"), ("more", "than", "it", "needs"),
    # "I'd not get hung up on that, it's a rounding detail", "a lot of math for little gain",
    # "that's CI's job, it doesn't really factor in", "I'd leave that to that team".
    ("hung", "up", "on", "that"), ("hung", "up", "on", "it"), ("rounding", "detail"),
    ("little", "gain"), ("little", "benefit"), ("little", "value"), ("ci's", "job"),
    ("doesn't", "factor"), ("don't", "factor"), ("leave", "that", "to"), ("leave", "it", "to"),
    ("wouldn't", "wait", "on", "it"), ("wouldn't", "wait", "on", "that"),
    ("wouldn't", "wait", "for", "it"), ("wouldn't", "wait", "for", "that"),
    # "the latency and frame-drop SLIs look fine to me as written", "that's hardly an outage".
    ("fine", "as", "written"), ("fine", "as", "is"), ("fine", "as", "they", "are"),
    ("as", "written"), ("hardly", "an"), ("hardly", "a"), ("hardly", "worth"),
    # "Bigger GPUs or INT8 is a cost-optimization conversation for later, not part of sizing".
    ("for", "later"), ("not", "part", "of"), ("come", "later"),
    # Deferred or waved off in the words candidates use: "is premature at this point", "a v2
    # problem", "strikes me as over-engineering", "won't move the needle", "out of scope".
    ("premature",), ("later", "phase"), ("revisit", "later"), ("revisit", "it", "later"),
    ("revisit", "that", "later"), ("that", "can", "wait"), ("it", "can", "wait"),
    ("can", "wait", "for", "later"), ("for", "v2"), ("until", "v2"), ("v2", "problem"),
    ("v2", "thing"), ("over", "engineering"), ("overengineering",), ("over", "engineered"),
    ("gold", "plating"), ("a", "distraction"), ("move", "the", "needle"),
    ("someone", "else's"), ("somebody", "else's"), ("out", "of", "scope"),
    ("is", "academic"), ("purely", "academic"), ("largely", "academic"), ("overrated",),
    ("adds", "nothing"), ("add", "nothing"), ("second", "order"), ("not", "a", "priority"),
    ("isn't", "a", "priority"), ("low", "priority"), ("bureaucracy",), ("won't", "matter"),
    ("wouldn't", "matter"), ("can", "wait", "until", "we", "have"), ("only", "matters", "at"),
    ("only", "matter", "at"),
    # "re-litigating a benchmark isn't a good use of anyone's time".
    ("isn't", "a", "good", "use"), ("not", "a", "good", "use"),
    # Eleventh round: "p95 vs p99 is splitting hairs", "they're ceremony for a weekly refresh",
    # "an alert on 300ms cold starts would only spam the on-call", "Jitter isn't really a
    # thing", "the 78% memory number I'm not worried about", "Memory isn't worth worrying
    # about", "tail percentiles jump around too much to manage against".
    ("splitting", "hairs"), ("ceremony",), ("theatre",), ("theater",), ("busywork",),
    ("only", "spam"), ("just", "spam"), ("would", "spam"), ("isn't", "really", "a"),
    ("isn't", "a", "thing"), ("not", "a", "thing"), ("not", "worried"), ("isn't", "worth"),
    ("aren't", "worth"), ("too", "much", "to"), ("too", "volatile"), ("too", "jumpy"),
    ("too", "spiky"), ("too", "flaky"), ("from", "being", "an", "issue"),
    ("from", "being", "a", "problem"), ("from", "becoming", "an", "issue"),
    ("next", "to", "nothing"), ("costs", "nothing"), ("cost", "nothing"),
    # "can be skipped", "more trouble than it's worth", "sounds good on paper", "feels
    # excessive", "doesn't buy us much", "is low value", "the kind of thing we can add later".
    ("be", "skipped"), ("be", "dropped"), ("more", "trouble"), ("on", "paper"), ("excessive",),
    ("buy", "us", "much"), ("buys", "us", "little"), ("buy", "us", "anything"), ("low", "value"),
    ("add", "later"), ("add", "it", "later"), ("add", "that", "later"), ("no", "real", "gain"),
    ("mostly", "adds", "complexity"), ("just", "adds", "complexity"),
    ("only", "adds", "complexity"),
    # "is theatre for a 2% canary", "it's mostly ceremony", "my last priority", "not in my
    # plan", "so it's out", "something SRE can own later", "honestly, meh".
    ("theatre",), ("theater",), ("ceremony",), ("last", "priority"), ("lowest", "priority"),
    ("not", "in", "my", "plan"), ("not", "in", "the", "plan"), ("it's", "out"),
    ("own", "later"), ("meh",), ("later", "iteration"), ("future", "iteration"),
    # "FP16 is a separate conversation, not for now", "a problem for another day", "sounds
    # great if we enjoy burning GPU hours", "I don't think X changes much here", "there's no
    # real reason to wait", "I'm not convinced X adds anything".
    ("not", "for", "now"), ("separate", "conversation"), ("separate", "discussion"),
    ("separate", "project"), ("separate", "projects"), ("another", "project"),
    # "a slow first request after scale-to-zero is expected behaviour", "that's hardly an
    # outage": the cost accepted as normal.
    ("expected", "behaviour"), ("expected", "behavior"), ("hardly", "an", "outage"),
    ("not", "an", "outage"),
    # "Keeping replicas warm defeats the point of serverless".
    ("defeats", "the", "point"), ("defeats", "the", "purpose"), ("defeat", "the", "point"),
    ("defeat", "the", "purpose"),
    # "waiting around for a stabilization period just slows the rollout", "the 15-minute
    # stabilization thing mostly slows you down".
    ("just", "slows"), ("just", "delays"), ("only", "slows"), ("only", "delays"),
    ("mostly", "slows"), ("slows", "you", "down"), ("slows", "us", "down"),
    ("slows", "everyone", "down"), ("slows", "things", "down"),
    # "the kernel launch thing ... is noise compared to the model", "so power shouldn't be an
    # issue", "cold starts and compile time are edge cases", "five restarts an hour is normal
    # churn", "the 1ms gate I'd leave as is".
    ("is", "noise"), ("are", "noise"), ("that's", "noise"), ("it's", "noise"),
    ("shouldn't", "be", "an", "issue"),
    ("won't", "be", "an", "issue"), ("shouldn't", "be", "a", "problem"),
    ("won't", "be", "a", "problem"), ("shouldn't", "be", "a", "concern"),
    ("are", "edge", "cases"), ("is", "an", "edge", "case"), ("is", "normal", "churn"),
    ("just", "churn"),
    ("leave", "as", "is"), ("leave", "it", "as", "is"), ("leave", "that", "as", "is"),
    ("another", "day"), ("if", "we", "enjoy"), ("if", "you", "enjoy"),
    ("change", "much", "here"), ("no", "real", "reason"), ("no", "reason", "to"),
    ("adds", "anything"),
    # "the measurement story is a later problem", "I'd solve it when it shows up". (Not "the
    # X team's job": "per-version dashboards are my team's job" keeps the point.)
    ("later", "problem"), ("when", "it", "shows", "up"), ("cross", "that", "bridge"),
) + tuple(
    # "quantization isn't worth it", "shadowing wasn't needed": any negated verb, not only "not".
    (negator, *((verdict,) if isinstance(verdict, str) else verdict))
    for negator in ("isn't", "isnt", "aren't", "arent", "wasn't", "weren't", "doesn't",
                    "don't", "not")
    for verdict in ("worth", "needed", "necessary", "required", "useful", "important", "matter",
                    ("a", "real"), ("a", "problem"), ("an", "issue"), ("a", "concern"))
    if (negator, verdict) not in {("not", "needed"), ("not", "worth"), ("not", "necessary"),
                                  ("doesn't", "matter"), ("don't", "matter"),
                                  ("isn't", "needed"), ("not", "important")}
)
_CLAUSE_BREAK_WORDS = frozenset(
    [
        "but", "however", "although", "though", "whereas", "because", "since", "so", "which",
        "instead", "otherwise"
    ]
)
_CLAUSE_BREAK_CHARS = ",;:()[]!?\n"

# Domain thesaurus: several ways of saying one thing map onto one key (longest match first).
_THESAURUS_RAW: dict[str, tuple[str, ...]] = {
    "gpu": ("gpu", "gpus", "accelerator", "accelerators", "card", "cards"),
    "p99": ("99th percentile", "99 out of every 100", "99 out of 100"),
    "p95": ("95th percentile",),
    "percentile": ("percentiles", "tail latency"),
    "fp16": ("half precision", "16-bit", "16 bit", "bf16"),
    "quantiz": ("int8", "fp8", "8-bit", "8 bit", "quantization", "quantize", "quantized",
                "quantise", "quantised", "quantisation"),
    "token": ("word-piece", "word-pieces", "word piece", "word pieces", "tokens"),
    "kvcache": ("kv cache", "kv-cache", "key value cache", "key-value cache"),
    "rollback": ("roll back", "rolls back", "rolled back", "revert", "reverts", "reverted"),
    "wer": ("word error rate",),
    "rtf": ("real-time factor", "real time factor"),
    "headroom": ("margin", "slack"),
    "killswitch": ("kill switch", "kill-switch", "on/off switch", "off switch"),
    "flag": ("feature flag", "feature flags", "flags"),
    "qps": ("rps", "requests per second", "requests/sec", "requests a second",
            "requests/s", "req/s", "queries per second"),
    "measur": ("benchmark", "benchmarks", "benchmarked", "profiling", "profiled", "measured",
               "measure"),
    "launch": ("dispatch", "dispatching"),
    "fallback": ("fallback score", "fall back", "falls back"),
    "compil": ("compile", "compiles", "compiled", "recompile", "rebuild", "rebuilt",
               "rebuilds", "compilation"),
    "ms": ("milliseconds", "millisecond"),
    "batch": ("batching", "batches", "batched"),
    # "larger batches" are "bigger batches" (the stem of "bigger" is "bigg").
    "bigg": ("larger",),
    "shadow": ("shadowing", "mirrored traffic", "mirror traffic", "traffic mirroring"),
    "canary": ("canaries",),
    # A circuit breaker is not a "break it down"; "-er" would otherwise make it "break".
    "circuitbreaker": ("breaker", "breakers", "circuit breaker", "circuit breakers"),
    "region": ("regions", "zone", "zones", "az", "azs", "availability zone",
               "availability zones"),
    "error": ("errors", "5xx"),
    # "1,250 covers the headroom" says it includes it.
    "includ": ("covers",),
    # A cadence in other words: "if the team pushes new weights every day" (keys are the stems
    # of "daily" and "weekly").
    "dai": ("every day", "each day", "nightly", "once a day"),
    "week": ("every week", "each week", "once a week"),
}


def _build_thesaurus() -> dict[tuple[str, ...], str]:
    table: dict[tuple[str, ...], str] = {}
    for key, variants in _THESAURUS_RAW.items():
        for variant in variants:
            words = tuple(w.lower().replace("’", "'") for w in _WORD_RE.findall(variant))
            table[words] = key
    return table


_THESAURUS = _build_thesaurus()
_THESAURUS_MAX = max(len(k) for k in _THESAURUS)
# First word of an entry -> the longest entry it opens.
_THESAURUS_FIRST: dict[str, int] = {}
for _entry in _THESAURUS:
    _THESAURUS_FIRST[_entry[0]] = max(_THESAURUS_FIRST.get(_entry[0], 0), len(_entry))

_SUFFIXES = (
    ("izations", ""), ("ization", ""), ("isation", ""), ("ational", "ate"), ("ations", ""),
    ("ation", ""), ("nesses", ""), ("ness", ""), ("ments", ""), ("ment", ""), ("ities", ""),
    ("ity", ""), ("ingly", ""), ("izing", ""), ("ings", ""), ("ing", ""), ("edly", ""),
    ("ized", ""), ("ies", "y"), ("ied", "y"), ("sses", "ss"), ("ers", ""), ("izes", ""),
    ("ize", ""),
    ("ed", ""), ("er", ""), ("ly", ""), ("es", ""), ("s", ""),
)


@lru_cache(maxsize=65536)
def stem(word: str) -> str:
    """Strip common English suffixes so a word family shares one key."""
    w = word.lower().replace("’", "'")
    if w.endswith("'s"):
        w = w[:-2]
    if len(w) <= 3 or not w.isalpha():
        return w
    # One spelling for -ise/-ize families ("initialised", "initializes") before stripping.
    w = _ISE_RE.sub(r"iz\1", w)
    for _ in range(2):
        for suffix, replacement in _SUFFIXES:
            # "-ment" needs a longer stem: "element" and "comment" are not "ele" and "com".
            floor = 4 if suffix.startswith("ment") else 3
            if w.endswith(suffix) and len(w) - len(suffix) >= floor:
                if suffix == "s" and w.endswith(("ss", "us", "is")):
                    continue
                w = w[: -len(suffix)] + replacement
                break
    if w.endswith("e") and len(w) > 4:
        w = w[:-1]
    if len(w) > 4 and w[-1] == w[-2] and w[-1] not in "lsz":
        w = w[:-1]
    if w.endswith("lv"):  # "halves", "halving" and "half" share a key
        w = w[:-1] + "f"
    return w


_ISE_RE = re.compile(r"(?<=[a-z]{3})is(e|es|ed|ing|ation|ations)$")


@dataclass
class Token:
    text: str  # as written (for multi-word thesaurus hits, the words joined by spaces)
    lower: str
    key: str  # stemmed or thesaurus key
    start: int
    end: int
    content: bool  # not a stopword, not a bare number
    negated: bool = False
    sentence: int = 0


def _raw_words(text: str) -> list[tuple[str, int, int]]:
    return [(m.group(0), m.start(), m.end()) for m in _WORD_RE.finditer(text)]


def tokenize(text: str) -> list[Token]:
    """Tokens with character offsets, thesaurus keys and negation flags."""
    words = _raw_words(text)
    tokens: list[Token] = []
    i = 0
    lowered = [w[0].lower().replace("’", "'") for w in words]
    while i < len(words):
        matched = False
        # Only a word that opens a thesaurus entry is tried with the words after it.
        longest = _THESAURUS_FIRST.get(lowered[i], 0)
        for size in range(min(longest, len(words) - i), 0, -1):
            seq = tuple(lowered[i : i + size])
            key = _THESAURUS.get(seq)
            # Only join words that are not separated by a sentence break.
            if key and (size == 1 or _joinable(text, words[i][1], words[i + size - 1][2])):
                start, end = words[i][1], words[i + size - 1][2]
                tokens.append(Token(text[start:end], " ".join(seq), key, start, end, True))
                i += size
                matched = True
                break
        if matched:
            continue
        word, start, end = words[i]
        lower = lowered[i]
        content = lower not in STOPWORDS and not lower[0].isdigit()
        tokens.append(Token(word, lower, stem(lower), start, end, content))
        i += 1
    _mark_sentences(text, tokens)
    _mark_negation(text, tokens)
    return tokens


def _joinable(text: str, start: int, end: int) -> bool:
    return not any(ch in ".;:\n" for ch in text[start:end])


# --- Sentences ----------------------------------------------------------------------------

# A lower-case start counts too: candidates type "... a lot. torchserve is slower".
_SENTENCE_END_RE = re.compile(r"(?<=[.!?])[\"')\]]*\s+(?=[\"'(\[]?[A-Za-z0-9\-•*])|\n\s*")
_ABBREVIATIONS = ("e.g.", "i.e.", "vs.", "etc.", "approx.", "cf.")


@dataclass
class Sentence:
    start: int
    end: int
    text: str


def split_sentences(text: str) -> list[Sentence]:
    """Sentences (and list items, one per line) with their character offsets."""
    sentences: list[Sentence] = []
    start = 0
    for match in _SENTENCE_END_RE.finditer(text):
        chunk_end = match.start()
        if text[start:chunk_end].lower().endswith(_ABBREVIATIONS):
            continue
        _add_sentence(text, start, chunk_end, sentences)
        start = match.end()
    _add_sentence(text, start, len(text), sentences)
    return sentences


def _add_sentence(text: str, start: int, end: int, out: list[Sentence]) -> None:
    chunk = text[start:end]
    stripped = chunk.strip()
    if not stripped:
        return
    lead = len(chunk) - len(chunk.lstrip())
    begin = start + lead
    out.append(Sentence(begin, begin + len(stripped), stripped))


def _mark_sentences(text: str, tokens: list[Token]) -> None:
    sentences = split_sentences(text)
    index = 0
    for token in tokens:
        while index < len(sentences) - 1 and token.start >= sentences[index].end:
            index += 1
        token.sentence = index


# --- Negation -----------------------------------------------------------------------------


def _breaks_between(text: str, left: Token, right: Token) -> bool:
    gap = text[left.end : right.start]
    # A spaced dash opens an aside or a new clause ("not the default - 200us per check").
    return any(ch in _CLAUSE_BREAK_CHARS or ch in ".—–" for ch in gap) or " - " in gap


_PAREN_RE = re.compile(r"\(([^()\n]{0,200})\)")


def _without_asides(text: str) -> str:
    """Blank out parenthesised asides (same length) so a scope runs across them."""
    return _PAREN_RE.sub(lambda m: " " * len(m.group(0)), text)


_INNER_ADVERBS = frozenset(["really", "actually", "even", "strictly", "that", "so", "all",
                            "truly", "particularly", "very", "too", "always", "ever"])


def _dismissals_by_first_word() -> dict[str, tuple[tuple[str, ...], ...]]:
    table: dict[str, list[tuple[str, ...]]] = {}
    for pattern in _BACKWARD_DISMISSALS:
        table.setdefault(pattern[0], []).append(pattern)
    return {word: tuple(patterns) for word, patterns in table.items()}


_DISMISSALS_BY_FIRST: dict[str, tuple[tuple[str, ...], ...]] = {}


def _dismissal_window(tokens: list[Token], index: int,
                      pattern: tuple[str, ...]) -> list[int] | None:
    """The tokens that say a dismissal from `index`, adverbs inside it skipped ("isn't really
    needed"), unless the pattern asks for that word ("live without that")."""
    window = [index]
    j = index + 1
    limit = min(len(tokens), index + len(pattern) + 3)
    while len(window) < len(pattern) and j < limit:
        word = tokens[j].lower
        if word == pattern[len(window)]:
            window.append(j)
        elif word not in _INNER_ADVERBS:
            return None
        j += 1
    return window if len(window) == len(pattern) else None


def _mark_negation(text: str, tokens: list[Token]) -> None:
    """Flag tokens a negator or dismissal puts out of the candidate's claim. One pass over the
    tokens: dismissals are looked up by their first word, not tried at every token."""
    if not _DISMISSALS_BY_FIRST:
        _DISMISSALS_BY_FIRST.update(_dismissals_by_first_word())
    text = _without_asides(text)
    kept_by: set[int] = set()  # drop verbs a negator before them takes back
    for i, token in enumerate(tokens):
        if i in kept_by:
            continue
        if token.lower in _FORWARD_NEGATORS and (kept := _negated_drop(tokens, i)) is not None:
            # "I'd never skip the bake window", "we don't drop the shadow step": the two
            # negations cancel, and the point is kept.
            kept_by.add(kept)
            continue
        if (token.lower in _FORWARD_NEGATORS and not _limiting(tokens, i)) or _dismissing_verb(
                tokens, i):
            _negate_forward(text, tokens, i)
        elif token.lower in _ALTERNATIVE_TO and i + 1 < len(tokens) \
                and tokens[i + 1].lower == _ALTERNATIVE_TO[token.lower]:
            # "stream updates instead of calling it per request": the thing not done.
            _negate_forward(text, tokens, i + 1)
        elif token.lower == "before" and i + 1 < len(tokens) \
                and tokens[i + 1].lower in _CLAIM_VERBS:
            # "measure the composed path before claiming the 5ms survives": not claimed yet.
            _negate_forward(text, tokens, i + 1)
    for i, token in enumerate(tokens):
        for pattern in _DISMISSALS_BY_FIRST.get(token.lower, ()):
            # "isn't really needed", "not actually worth it": adverbs inside a dismissal.
            window = _dismissal_window(tokens, i, pattern)
            if window is not None and pattern[-1] == "something" and window[-1] + 1 < len(tokens) \
                    and tokens[window[-1] + 1].lower in _SOMETHING_ELSE:
                # "the measured figure, not something from the datasheet": what follows is
                # rejected, not what came before.
                window = None
            if window is not None:
                # "Error budgets and burn rates, overkill for one service": a dismissal
                # that opens its clause points back over the comma.
                # "the extra hop is microseconds, I wouldn't bother": so does one whose clause
                # opens with its subject or an adverb ("..., honestly not worth an alert").
                opens_clause = i > 0 and _breaks_between(text, tokens[i - 1], tokens[i]) or (
                    i > 1 and (tokens[i - 1].lower in _CLAUSE_SUBJECTS
                               or tokens[i - 1].lower.endswith("ly"))
                    and _breaks_between(text, tokens[i - 2], tokens[i - 1])) or (
                    # "FP16 or replica packing, those are separate projects"
                    i > 2 and tokens[i - 2].lower in _POINTING_BACK
                    and tokens[i - 1].lower in {"are", "is", "were", "was"}
                    and _breaks_between(text, tokens[i - 3], tokens[i - 2]))
                _negate_backward(text, tokens, i, skip_break=pattern[0] in _ANAPHORS
                                 or pattern[-1] in _ANAPHORS or opens_clause)
                if _anaphor_before(tokens, i):
                    # "Same for a per-stage breakdown, that's overkill": "that" points back
                    # over the comma at the clause before.
                    _negate_backward(text, tokens, i - 1, skip_break=True)
                if pattern[0] in {"no", "not"}:
                    _negate_forward(text, tokens, window[-1])
    _negate_conceded(text, tokens)
    _negate_fronted(text, tokens)
    _keep_what_others_skip(tokens, text)


# "Many people skip shadow mode; I wouldn't", "some teams drop the bake window, but I'd never do
# that": what others leave out, kept by the candidate (two negations that cancel).
_OTHERS_SKIP_RE = re.compile(
    r"\b(?:people|teams|folks|others|shops)\s+(?:\w+\s+)?(?:skip|drop|ignore|forget|leave\s+out)"
    r"\s+(?P<what>[^.;!?\n]{3,80}?)\s*(?:[;,.:]|\s-|\s[–—])\s*(?:but\s+|and\s+)?(?:honestly,?\s+)?"
    r"(?:(?:i|we)\s+(?:wouldn't|won't|don't|do\s+not|would\s+not|never\s+would)|"
    r"(?:i'd|we'd|i\s+would|we\s+would)\s+never\s+(?:do\s+that|skip|drop))\b",
    re.IGNORECASE)


def _keep_what_others_skip(tokens: list[Token], text: str) -> None:
    spans = [m.span("what") for m in _OTHERS_SKIP_RE.finditer(text)]
    if not spans:
        return
    starts = [start for start, _ in spans]
    for token in tokens:
        index = bisect_right(starts, token.start) - 1
        if index >= 0 and token.start < spans[index][1]:
            token.negated = False


_CLAUSE_SUBJECTS = frozenset(["i", "we", "i'd", "we'd", "honestly", "frankly"])
_POINTING_BACK = frozenset(["those", "these", "that", "this", "they", "both"])


# "Accuracy I wouldn't monitor in prod": the object said first, then rejected.
# "And tracking cache hits I'd skip", "The cold-start alert I'd actually drop" too.
_FRONTED_RE = re.compile(
    r"(?:^|[.!?\n]\s*)(?:(?:and|so|but|also)\s+)?(?P<topic>[A-Za-z][\w-]*(?:\s+[\w-]+){0,8}?)"
    # "The 2ms launch overhead I honestly wouldn't budget separately": an adverb may come first.
    r"\s+(?:i|we)\s*(?:(?:honestly|really|just|probably|personally|frankly)\s+)?"
    r"(?:wouldn't|won't|don't|do not|would not|will not|never|'d not|"
    # "The sync window I'm not losing sleep over", "Drift we're not worried about yet".
    r"(?:'m|\s+am|'re|\s+are)\s+not\s+(?:really\s+|too\s+|that\s+)?(?:losing\s+sleep\s+over|"
    r"worried\s+about|fussed\s+about|bothered\s+about|concerned\s+about|sweating)|"
    r"(?:'d|would|can)\s+(?:(?:actually|probably|just|honestly|happily|also)\s+)?"
    r"(?:skip|leave out|drop|ignore|live without|retire|keep out of))\b"
    # "The 200us flag lookup we don't pay per request": a cost avoided, not a rejection.
    r"(?!\s+(?:pay|incur|eat)\b)",
    re.IGNORECASE)


# "I'd leave word error rate out of production monitoring": what is left out.
# "I'd keep ETA accuracy out of the gate": kept out of a decision, not out of harm's way.
_LEFT_OUT_RE = re.compile(r"\b(?:leave|leaving|left)\s+(?P<what>(?:[\w-]+\s+){1,8}?)out\b|"
                          r"\b(?:keep|keeping|kept)\s+(?P<kept>(?:[\w-]+\s+){1,8}?)out\s+of\s+"
                          r"(?:the\s+|our\s+|any\s+)?(?:gate|gates|gating|canary|decision|rollout|"
                          r"criteria|scope|promotion|alert\w*|dashboards?|monitoring|slis?|slos?|"
                          r"pag\w+|picture|judg\w+)\b", re.IGNORECASE)
# "A bake window after every step? Not needed at this scale.": asked, then turned down.
_ASKED_THEN_DENIED_RE = re.compile(
    r"(?:^|[.!?\n]\s*)(?P<topic>[^.!?\n]{3,120})\?\s+(?:honestly,?\s+)?(?:not|nah|no)\b,?\s*"
    r"(?:really\s+)?(?:needed|worth|necessary|required|for\s+(?:now|us|this)|at\s+this|here|"
    r"yet)\b|(?:^|[.!?\n]\s*)(?P<asked>[^.!?\n]{3,120})\?\s+(?:i'd|we'd|i\s+would|we\s+would|"
    r"just|honestly,?\s+i'd)\s+(?:skip|drop|ignore|leave|pass\s+on)\b", re.IGNORECASE)
# "I'd rather keep it simple and leave out a bake after every step".
# "I'd hold off on error-budget alerting", "we can pass on shadow traffic".
_LEAVE_OUT_RE = re.compile(r"\b(?:leave\s+out|hold\s+off\s+on|pass\s+on|put\s+off|"
                           # "The last thing I'd add is a bake after every step".
                           r"the\s+last\s+thing\s+(?:i'd|i\s+would|we'd|we\s+would)\s+\w+\s+"
                           r"(?:is|would\s+be))\s+"
                           r"(?P<what>(?:[\w-]+\s+){0,8}?[\w-]+)(?=\s*(?:[.;,!?]|$))",
                           re.IGNORECASE)

# "We can tune threads and such after launch": put off until the service is live.
_DEFERRED_RE = re.compile(
    r"\b(?:can|could|will|we'll|i'll)\s+(?:always\s+|just\s+)?(?:tune|add|"
    r"worry\s+about|revisit|handle|deal\s+with|optimi[sz]e|figure\s+out|sort\s+out|tweak|"
    r"fiddle\s+with|bolt\s+on)\s+(?P<what>(?:[\w-]+\s+){0,5}?[\w-]+)\s+"
    r"(?:after|post)[- ](?:launch|we\s+(?:ship|launch|go\s+live))", re.IGNORECASE)


def _negate_fronted(text: str, tokens: list[Token]) -> None:
    # "Keep a warm pool so we don't scale to zero": a purpose or reason in between makes the
    # "we don't" its own clause, not a rejection of what came first.
    spans = [(m.start("topic"), m.end("topic")) for m in _FRONTED_RE.finditer(text)
             if m.group("topic").split()[0].lower() not in _NOT_A_TOPIC
             and not _TOPIC_LINK_RE.search(m.group("topic"))]
    spans += [m.span("what") if m.group("what") else m.span("kept")
              for m in _LEFT_OUT_RE.finditer(text)]
    spans += [m.span("topic") if m.group("topic") else m.span("asked")
              for m in _ASKED_THEN_DENIED_RE.finditer(text)]
    spans += [(m.start("what"), m.end("what")) for m in _LEAVE_OUT_RE.finditer(text)]
    spans += [(m.start("what"), m.end("what")) for m in _DEFERRED_RE.finditer(text)]
    _negate_within(tokens, spans)


_TOPIC_LINK_RE = re.compile(r"\b(?:so|because|since|which|when|if|until|while|then|that)\b",
                            re.IGNORECASE)
_NOT_A_TOPIC = frozenset(["after", "once", "before", "so", "and", "but", "then", "here",
                          "honestly", "otherwise", "if",
                          "because", "since", "also", "that", "this", "which", "what", "why",
                          "frankly", "personally", "now", "today", "yes", "no", "ideally"])


# A point granted only to be waved off after "but": "we'd have to rebuild the engine, but that's
# just a CI job", "some people would add Argo Rollouts, but I don't think it's worth it",
# "burn rates get talked about a lot, but they're overhead for a team this size". The cue comes
# early in the clause after "but" and looks back at what came before it.
_CONCESSION_RE = re.compile(
    r"\b(?:but|however|though)\b,?\s+(?:[^.;!?\n]{0,40}?)\b(?:"
    r"(?:that|it|this|they)(?:'s|'re| is| are) (?:just|only|simply|basically|mostly|really) "
    r"(?:a|an|one|the|some|noise|overhead|detail|cosmetic|process|paperwork|bureaucracy|"
    r"ceremony|theatre|theater|box-ticking)|"
    # "but that's nothing worth worrying about", "but that's a CI problem, not a serving one".
    r"(?:that|it|this)(?:'s| is) nothing\b|nothing (?:worth|to (?:worry|lose sleep))|"
    # "..., but that's noise next to model latency".
    r"(?:that|it|this)(?:'s| is) noise\b|"
    # "The 200 microseconds sounds scary, but at 50k QPS it's 10ms of CPU per second, which is
    # negligible".
    r"[^.;!?\n]{0,50}?\bwhich(?:'s| is) (?:only |just |basically |really )?(?:negligible|"
    r"nothing|noise|trivial|tiny|a rounding error)\b|"
    r"(?:that|it|this)(?:'s| is) (?:a|an) (?:ci|ops|process|tooling|pipeline|build|later|"
    r"solved|someone else's|different team's) (?:problem|concern|issue|question)|"
    r"(?:that|it|this)(?:'s| is) (?:a )?luxury|"
    r"(?:that|it|this)(?:'s| is) (?:only |just |basically )?(?:sub-?millisecond|negligible|tiny|"
    r"trivial|a rounding error|peanuts)|"
    r"(?:i|we) (?:wouldn't|won't|don't|would not) (?:really )?(?:weigh|count|factor|sweat|"
    r"lose sleep|wait (?:on|for) (?:it|that|them)|get hung up|obsess)|"
    # "..., but I'd not get hung up on that", "but I'd rather not wait on it".
    r"(?:i|we)(?:'d| would)(?: rather)? not (?:really )?(?:get hung up|worry|bother|wait on|"
    r"wait for|obsess)|"
    r"(?:i|we) (?:don't|do not|wouldn't|would not) (?:really |honestly |actually )?"
    r"(?:think (?:it's|it is|that's|they're|we need)|buy|bother|need|care)|"
    r"(?:not|isn't|aren't) (?:really |actually )?(?:worth|needed|necessary|a (?:real |big )?"
    r"(?:concern|problem|issue|bottleneck|priority))|overkill|(?:just|mostly|pure) overhead|"
    r"(?:sre|process|ops|operational) overhead|a (?:ci|minor|small|side) detail|"
    r"doesn't (?:really )?(?:belong|matter)|not really (?:a|an|our|my)|(?:i'd|we'd) (?:skip|drop)|"
    r"(?:never|rarely) (?:matters|happens|an issue))", re.IGNORECASE)
# Granting a point to others before dismissing it ("people bring up X but ...", "people will
# tell you X, but I'd rather not", "a lot of people insist on X - I'd rather not", "I know the
# argument that X, I don't really buy it").
_OTHERS_RE = re.compile(
    r"\b(?:people (?:bring up|talk about|mention|say|like|love|would|will|insist|argue|tell you|"
    r"push|recommend|suggest)|some (?:people|teams|folks)|a lot of (?:people|teams|folks)|"
    r"many (?:people|teams)|folks (?:will|say|like|love)|gets? talked about|"
    r"everyone (?:talks about|says)|you'll hear|in theory|the textbook|the usual advice|"
    r"conventional wisdom|(?:i|we) (?:know|get|hear|understand) the (?:argument|case|idea) that)\b",
    re.IGNORECASE)
# What turns the others' view down: "but", or the candidate's own rejection after a comma, a
# dash or a full stop ("..., I don't really buy it", "... - I'd rather not", ". I disagree").
_BUT_RE = re.compile(
    r"\b(?:but|however|though)\b|(?:[,;:\u2013\u2014]|\s-|[.!?])\s+(?:(?:honestly|personally|"
    r"frankly),?\s+)?(?=(?:i|we)(?:'d| would)? (?:rather not|"
    r"don't (?:really )?(?:buy|agree|see the)|do not (?:really )?(?:buy|agree)|disagree|"
    r"(?:really )?(?:can't|cannot) (?:see|justify)|"
    r"find (?:a |that |the )?(?:plain|simple|simpler|basic|static|single))\b)",
    re.IGNORECASE)
_SENTENCE_START_RE = re.compile(r"[.!?\n](?:\s|$)")
_SIDES_WITH_RE = re.compile(
    r"\b(?:i|we) (?:agree|concur)|\b(?:they're|they are) right|\bfair enough|"
    r"\b(?:i'd|i would|we'd|we would|i|we) (?:still|also|too|(?:do|follow|want) (?:exactly |just )?"
    r"(?:the same|that|it|this))\b|\bdo(?:ing)? the same\b|\bwithout (?:it|that|them|one) either\b",
    re.IGNORECASE)


def _negate_conceded(text: str, tokens: list[Token]) -> None:
    spans: list[tuple[int, int]] = []
    sentence_starts: list[int] | None = None
    for match in _CONCESSION_RE.finditer(text):
        if sentence_starts is None:  # found once, only for answers that concede something
            sentence_starts = [0] + [m.end() for m in _SENTENCE_START_RE.finditer(text)]
        start = sentence_starts[bisect_right(sentence_starts, match.start()) - 1]
        spans.append((start, match.start()))
    for match in _OTHERS_RE.finditer(text):
        but = _BUT_RE.search(text, match.end(), match.end() + 200)
        # The rejection belongs to the same sentence, or opens the next one; the candidate
        # siding with the others ("and I'd do the same, however boring it is", "though I'd
        # still run it", "I'd rather not ship without it either") grants the point.
        if but and not _SENTENCE_START_RE.search(text, match.end(), but.start()) \
                and not _SIDES_WITH_RE.search(text, match.end(), but.end() + 50):
            spans.append((match.start(), but.start()))
    _negate_within(tokens, spans)


def _negate_within(tokens: list[Token], spans: list[tuple[int, int]]) -> None:
    """Negate the tokens inside any of the spans: one pass, spans bisected (they may nest)."""
    if not spans:
        return
    spans = sorted(spans)
    starts = [start for start, _ in spans]
    reach: list[int] = []  # the furthest end of any span starting at or before each one
    for _, end in spans:
        reach.append(max(end, reach[-1]) if reach else end)
    for token in tokens:
        index = bisect_right(starts, token.start) - 1
        if index >= 0 and token.start < reach[index]:
            token.negated = True


# Verbs that reject what follows when the candidate is their subject: "I'd actually drop the
# 10-minute bake", "we can get rid of the shadow step" (not "latency drops to 5ms").
# Not "remove", "cut" or "avoid": "you can remove the top element", "we can cut latency" and
# "I'd avoid a big-bang rollout" make points rather than wave one away.
_DROP_VERBS = frozenset(["drop", "forgo", "forget", "ditch", "scrap", "skip", "rid", "omit",
                         "punt", "deprioritise", "deprioritize", "defer", "postpone", "shelve",
                         "park", "retire"])
# Said at the start of a sentence, as an order: "Forget about the launch overhead".
_IMPERATIVE_DROPS = frozenset(["forget", "skip", "ditch", "scrap"])
_AGENTS = frozenset(["i", "i'd", "id", "we", "we'd", "would", "could", "can", "should", "i'll",
                     "we'll", "let's", "just", "actually", "probably", "simply", "then",
                     "get", "and"])


def _dismissing_verb(tokens: list[Token], index: int) -> bool:
    """A drop verb said by the candidate of what follows: an agent word right before it."""
    if tokens[index].lower not in _DROP_VERBS:
        return False
    if index == 0 or tokens[index - 1].sentence != tokens[index].sentence:
        return tokens[index].lower in _IMPERATIVE_DROPS
    following = tokens[index + 1].lower if index + 1 < len(tokens) else ""
    if following in _AMOUNT_AFTER_DROP:
        return False  # "fuse kernels and drop to FP16": a level lowered, nothing waved away
    previous = tokens[index - 1]
    return previous.lower in _AGENTS and previous.sentence == tokens[index].sentence


_SOMETHING_ELSE = frozenset(["from", "like", "off", "out", "on", "in", "of", "at", "by", "else",
                             "made", "read", "quoted", "copied", "published"])
_AMOUNT_AFTER_DROP = frozenset(["to", "down", "from", "by", "below", "under", "back"])


_DROP_FORMS = _DROP_VERBS | frozenset(["skipping", "skipped", "dropping", "dropped", "ignore",
                                       "ignoring", "ignored"])
_BETWEEN_NEGATOR_AND_DROP = frozenset(["ever", "really", "actually", "just", "be", "want",
                                       "to", "even"])


def _negated_drop(tokens: list[Token], index: int) -> int | None:
    """The drop verb a negator governs ("never skip", "don't ever drop", "wouldn't want to
    skip"), within a few helper words, in the same sentence; None when there is none."""
    for j in range(index + 1, min(len(tokens), index + 4)):
        if tokens[j].sentence != tokens[index].sentence:
            return None
        if tokens[j].lower in _DROP_FORMS:
            return j
        if tokens[j].lower not in _BETWEEN_NEGATOR_AND_DROP:
            return None
    return None


# "so we don't pay the 200us on every request": a cost avoided, not waved away ("I wouldn't
# pay for shadow traffic" still rejects what it would pay for).
_COST_VERBS = frozenset(["pay", "incur", "eat", "paying", "incurring", "eating"])


def _limiting(tokens: list[Token], index: int) -> bool:
    following = tokens[index + 1].lower if index + 1 < len(tokens) else ""
    if following in _COST_VERBS:
        after = tokens[index + 2].lower if index + 2 < len(tokens) else ""
        return after != "for"
    return following in _NOT_NEGATING_AFTER


# "If the model doesn't answer in time we cut it off and return a default score": a negation
# inside a condition ends where the main clause's subject starts.
_CONDITIONS = frozenset(["if", "when", "whenever"])
_MAIN_CLAUSE_SUBJECTS = frozenset(["we", "i", "then", "we'll", "i'll", "we'd", "i'd"])


def _negate_forward(text: str, tokens: list[Token], index: int) -> None:
    conditional = any(t.lower in _CONDITIONS and t.sentence == tokens[index].sentence
                      for t in tokens[max(0, index - 6) : index])
    for j in range(index + 1, min(len(tokens), index + 12)):
        boundary = tokens[j].lower in _CLAUSE_BREAK_WORDS or (
            conditional and j > index + 1 and tokens[j].lower in _MAIN_CLAUSE_SUBJECTS)
        if boundary or _breaks_between(text, tokens[j - 1], tokens[j]):
            break
        tokens[j].negated = True


_ALTERNATIVE_TO = {"instead": "of", "rather": "than"}
_CLAIM_VERBS = frozenset(["claiming", "assuming", "concluding", "promising", "believing",
                          "declaring", "announcing"])


_ANAPHORS = frozenset(["that's", "thats", "it's", "its", "this's", "which's", "it", "that",
                       "this", "they", "they're", "theyre"])


_COPULAS = frozenset(["that's", "thats", "it's", "its", "they're", "theyre"])


def _anaphor_before(tokens: list[Token], index: int) -> bool:
    """"that's overkill", "I think that's a luxury", "it's honestly just noise": a pronoun a few
    words before the dismissal, in its sentence, points back at what it dismisses."""
    for j in range(index - 1, max(-1, index - 7), -1):
        if tokens[j].sentence != tokens[index].sentence:
            return False
        # "it's" / "that's" up to six words back ("it's a lot of math for little gain"); a
        # bare pronoun only three ("it mean we are 7 ms too slow" is no dismissal).
        if tokens[j].lower in _ANAPHORS and (index - j <= 3 or tokens[j].lower in _COPULAS):
            return True
    return False


# A cost called too high is counted, not waved off: in "a remote check is ~200us/req, too costly
# at high QPS" the check is turned down and its 200us stands.
_COST_TOO_HIGH = frozenset(["costly", "expensive", "slow"])


def _negate_backward(text: str, tokens: list[Token], index: int,
                     skip_break: bool = False) -> None:
    keep_figures = tokens[index].lower == "too" and index + 1 < len(tokens) \
        and tokens[index + 1].lower in _COST_TOO_HIGH
    for j in range(index - 1, max(-1, index - 16), -1):
        if keep_figures and tokens[j].lower[0].isdigit():
            continue
        if _breaks_between(text, tokens[j], tokens[j + 1]):
            between = text[tokens[j].end : tokens[j + 1].start]
            # "Same with zone failures - that's a non-issue": the pronoun reaches back over
            # a comma, a semicolon or a spaced dash.
            if skip_break and ("," in between or ";" in between or " - " in between
                               or "—" in between or "–" in between or ":" in between):
                skip_break = False
                tokens[j].negated = True
                continue
            break
        if tokens[j].lower in {"but", "however", "although", "whereas"}:
            break
        tokens[j].negated = True


# --- Reasoning ----------------------------------------------------------------------------

_REASONING_RE = re.compile(
    r"\b(because|since|so that|so|which means|that means|meaning|therefore|hence|thus|"
    r"trade-?offs?|trade offs?|at the cost of|the cost is|but|however|otherwise|which is why|"
    r"instead|rather than|unless|if|whereas|assuming|depends on|in exchange|the catch|"
    r"as long as|only if|until|means)\b|->|=>|→|≈|÷|(?<=\d)\s*[=/x×*]\s*(?=[~$]?\d)",
    re.IGNORECASE,
)


# A list of steps ("2/10/50/100", "2 -> 10 -> 25", "98/2" after "Istio") or a name with digits
# ("p99/5xx") is not arithmetic and gives no reason.
_SEQUENCE_RE = re.compile(r"(?<!\d)\d++%?(?:\s*+(?:/|->|→|-)\s*+\d++%?){2,}")
_NAME_DIGITS_RE = re.compile(r"[A-Za-z]\d*$")
# A traffic split ("98/2", "90/10", "50%/50%") is a routing weight, not a division; a
# division it stays when a result follows ("96/4 = 24").
_SPLIT_RE = re.compile(
    r"(?<![\d/])(?<![\d][.,])(?P<a>\d{1,2}(?:\.\d+)?|100)%?\s*[/:]\s*(?P<b>\d{1,2}(?:\.\d+)?|100)%?"
    r"(?![\d/]|[.,]\d|\s*(?:=|≈|->|→|=>))")


def _splits(text: str) -> list[tuple[int, int]]:
    return [(m.start(), m.end()) for m in _SPLIT_RE.finditer(text)
            if abs(float(m.group("a")) + float(m.group("b")) - 100) < 1e-6]


MAX_SYMBOL_MARKERS = 300


def reasoning_markers(text: str) -> list[tuple[int, int]]:
    """Spans of words and symbols that carry reasons, consequences or arithmetic."""
    sequences = sorted([(m.start(), m.end()) for m in _SEQUENCE_RE.finditer(text)]
                       + _splits(text))
    starts = [start for start, _ in sequences]
    out: list[tuple[int, int]] = []
    symbols = 0
    for m in _REASONING_RE.finditer(text):
        if m.group(1) is None:
            symbols += 1
            if symbols > MAX_SYMBOL_MARKERS:
                continue  # thousands of "x" between digits add no reasons, only time
            # The spans that could hold this one start just before it (looked up, not scanned).
            at = bisect_right(starts, m.start())
            if any(start <= m.start() and m.end() <= end
                   for start, end in sequences[max(0, at - 3) : at]):
                continue
            # A bounded look back: a name before "/" is short ("p99/5xx").
            before = re.search(r"[A-Za-z0-9]*$", text[max(0, m.start() - 24) : m.start()]).group(0)
            if _NAME_DIGITS_RE.search(before.rstrip("0123456789")) and before[:1].isalpha():
                continue  # "p99/5xx": the left side is a name, not a number
        out.append((m.start(), m.end()))
    return out


def function_word_ratio(tokens: list[Token]) -> float:
    """Share of tokens that are function words: prose sits near 0.4, a bare term list near 0."""
    words = [t for t in tokens if not t.lower[0].isdigit()]
    if not words:
        return 0.0
    return sum(1 for t in words if t.lower in STOPWORDS) / len(words)


def content_keys(text: str) -> list[str]:
    return [t.key for t in tokenize(text) if t.content]


def normalise_whitespace(text: str) -> str:
    """Collapse whitespace and straighten quotes, for matching prompts across sources."""
    text = text.replace("’", "'").replace("‘", "'").replace("“", '"').replace("”", '"')
    return " ".join(text.split()).strip()
