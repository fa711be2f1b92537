"""Hostile answers stay cheap: bounded numbers, no backtracking on digit runs, question-only
work done once per question spec. Speed itself is measured in bench/bench_scoring.py; these
check the bounds that keep it linear."""

from __future__ import annotations

from scoring.engines import (
    claims,
    clauses,
    concepts,
    evidence,
    feedback,
    pitfalls,
    pushback,
    quantities,
    reference,
    rubric,
    text,
    totals,
)
from scoring.engines.base import CriterionSpec, QuestionSpec
from scoring.engines.numbers import find_calculations, find_quantities
from scoring.engines.rubric import MAX_NUMBERS, MAX_WORDS, RubricEngine, analyse
from scoring.engines.text import reasoning_markers

ENGINE_MODULES = (claims, clauses, concepts, evidence, feedback, pitfalls, pushback, quantities,
                  reference, rubric, totals)

SPEC = QuestionSpec(
    prompt="How many GPUs do you need for 50,000 QPS at 40 QPS per GPU?",
    model_answer="50,000 / 40 = 1,250 GPUs, plus 20% headroom: 1,500 GPUs.",
    criteria=(
        CriterionSpec("count", "Computes the GPU count", kind="numeric", weight=2,
                      phrases=("GPU count",), expected_value=1250, unit="GPUs",
                      tolerance_percent=5),
        CriterionSpec("headroom", "Adds headroom", weight=1, phrases=("headroom",)),
    ),
    pushback=("What happens at peak?",),
)


def test_numbers_examined_per_answer_are_capped() -> None:
    doc = analyse(" ".join(f"{i % 97 + 1}ms" for i in range(4000)))
    assert 0 < len(doc.quantities) <= MAX_NUMBERS


def test_a_20000_digit_number_is_not_read_as_a_quantity() -> None:
    doc = analyse("I'd need " + "9" * 20000 + " GPUs.")
    assert doc.quantities == []
    assert len(doc.text) == len("I'd need " + "9" * 20000 + " GPUs.")  # spans stay valid


def test_an_answer_is_read_to_at_most_max_words() -> None:
    answer = "headroom " * (MAX_WORDS + 500)
    doc = analyse(answer)
    assert len(doc.tokens) == MAX_WORDS
    assert answer.startswith(doc.text)


def test_the_feedback_says_when_an_answer_was_cut() -> None:
    sentence = "I'd keep a canary at 2% and roll back on errors. "
    long_answer = sentence * (MAX_WORDS // 10 + 50)
    outcome = RubricEngine().score(SPEC, long_answer)
    assert outcome.feedback["read_words"] == MAX_WORDS
    assert f"Only the first {MAX_WORDS:,} words were read." in outcome.feedback["summary"]
    short = RubricEngine().score(SPEC, sentence * 20)
    assert "read_words" not in short.feedback
    assert "words were read" not in short.feedback["summary"]


def test_a_product_too_big_for_a_float_is_scored_not_crashed() -> None:
    answer = " x ".join(["99999999999999999999"] * 20) + " = 5 GPUs"
    outcome = RubricEngine().score(SPEC, answer)
    assert 0 <= outcome.total <= 100


def test_a_failed_chain_is_not_restarted_at_every_operand() -> None:
    # "2 x 3 x ... x 9" with no result: nothing to check, found in one pass.
    quantities = find_quantities(" x ".join(str(i % 8 + 2) for i in range(100)))
    assert find_calculations(" x ".join(str(i % 8 + 2) for i in range(100)), quantities) == []
    assert find_calculations("2 x 3 x 4 = 24 and 5 x 5 = 30") != []


def test_symbol_markers_are_capped() -> None:
    markers = reasoning_markers(" x ".join(str(i % 8 + 2) for i in range(3000)))
    assert len(markers) <= 300


def test_rubric_text_is_tokenised_once_per_question(monkeypatch) -> None:
    engine = RubricEngine()
    answer = "Bigger batches add delay; 50,000 / 40 = 1,250 GPUs with headroom."
    engine.score(SPEC, answer)
    calls: list[str] = []
    original = text.tokenize

    def counting(value: str):
        calls.append(value)
        return original(value)

    # Every engine module that tokenises: only the answer is tokenised on a second score.
    for module in ENGINE_MODULES:
        if hasattr(module, "tokenize"):
            monkeypatch.setattr(module, "tokenize", counting)
    engine.score(SPEC, answer)
    assert calls == [answer]


def test_headroom_words_are_searched_once_per_clause(monkeypatch) -> None:
    from tests.scoring.test_engines import bank_question

    real = quantities._HEADROOM_WORDS_RE
    scanned: list[int] = []

    class CountingPattern:
        def search(self, string: str, pos: int = 0, endpos: int | None = None):
            end = len(string) if endpos is None else endpos
            scanned.append(end - pos)
            return real.search(string, pos, end)

    monkeypatch.setattr(quantities, "_HEADROOM_WORDS_RE", CountingPattern())
    # Thousands of machine counts in one sentence: the clause is read once, not per count.
    answer = ("With 20% on top, so " + " ".join(f"{i} GPUs" for i in range(1, 3000)))[:20000]
    RubricEngine().score(bank_question("google-a100-7b-50k-qps"), answer)
    assert scanned and sum(scanned) <= 3 * len(answer)
