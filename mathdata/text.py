"""Vectorised text normalisation, tokens and n-gram hashes shared by dedup and decontamination.

Everything here works on whole Arrow/numpy columns (RE2 regexes in pyarrow, numpy for the
n-gram arithmetic), because a Python loop over a million problems is the slow part otherwise.
Token hashes are stable (blake2b of the token), so results do not depend on the run.
"""

from __future__ import annotations

import hashlib
import os

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

# Applied in order after NFKC + lowercase; literal replacements first (cheaper than regexes).
_LITERAL = [("\\dfrac", "\\frac"), ("\\tfrac", "\\frac")]  # display variants of \frac
_NORMALISE = [
    # sizing commands, LaTeX spacing, math delimiters ($ $$ \( \) \[ \]): none of them is content
    (r"\\(?:displaystyle|left|right|big|bigg)\b|\\[,;:! ()\[\]]|\\q?quad\b|[~$]", " "),
    (r"\s\s+|[\t\n\r\f\v]", " "),  # whitespace runs (a lone space is left alone: far fewer matches)
    (r" ([^\w\s])", r"\1"),  # spaces around symbols carry no meaning: x + 1 == x+1
    (r"([^\w\s]) ", r"\1"),
]
_WORKERS = min(4, os.cpu_count() or 1)
_PARALLEL_ROWS = 50_000
_SYMBOL = r"([^\w\s])"
_NUMBER = r"\b\d+(?:\.\d+)?\b"
_MIX = np.uint64(0x9E3779B97F4A7C15)


def as_string_array(texts) -> pa.Array:
    """A plain (non-chunked, large-safe) string array from a list, Array or ChunkedArray."""
    if isinstance(texts, pa.ChunkedArray):
        texts = texts.combine_chunks() if texts.num_chunks != 1 else texts.chunk(0)
    elif not isinstance(texts, pa.Array):
        texts = pa.array(texts, type=pa.string())
    return pc.fill_null(texts, "")


def _normalize_chunk(texts: pa.Array) -> pa.Array:
    out = pc.utf8_lower(pc.utf8_normalize(texts, "NFKC"))
    for pattern, repl in _LITERAL:
        out = pc.replace_substring(out, pattern, repl)
    for pattern, repl in _NORMALISE:
        out = pc.replace_substring_regex(out, pattern, repl)
    return pc.utf8_rtrim(pc.utf8_trim(out, " "), ".")  # and a trailing period


def normalize_texts(texts) -> pa.Array:
    """The exact-duplicate key: NFKC, lowercase, no $ delimiters or LaTeX spacing, spaces collapsed.

    Large inputs are cut into chunks normalised in threads (Arrow kernels release the GIL).
    """
    texts = as_string_array(texts)
    if len(texts) <= _PARALLEL_ROWS or _WORKERS == 1:
        return _normalize_chunk(texts)
    from concurrent.futures import ThreadPoolExecutor

    chunks = [texts.slice(i, _PARALLEL_ROWS) for i in range(0, len(texts), _PARALLEL_ROWS)]
    with ThreadPoolExecutor(_WORKERS) as pool:
        return pa.concat_arrays(list(pool.map(_normalize_chunk, chunks)))


def tokenize(normalized: pa.Array, *, mask_numbers: bool = False) -> pa.ListArray:
    """Words, numbers and single symbols as tokens (`x^2+1` -> x ^ 2 + 1); numbers -> `0` if masked."""
    spaced = pc.replace_substring_regex(normalized, _SYMBOL, r" \1 ")
    if mask_numbers:
        spaced = pc.replace_substring_regex(spaced, _NUMBER, "0")
    return pc.utf8_split_whitespace(spaced)


_TOKEN_HASH_CACHE: dict[str, int] = {}


def _stable_hash(token: str) -> int:
    h = _TOKEN_HASH_CACHE.get(token)
    if h is None:
        h = int.from_bytes(hashlib.blake2b(token.encode(), digest_size=8).digest(), "little")
        if len(_TOKEN_HASH_CACHE) < 2_000_000:
            _TOKEN_HASH_CACHE[token] = h
    return h


def token_hashes(tokens: pa.ListArray) -> tuple[np.ndarray, np.ndarray]:
    """(offsets, hashes): 64-bit stable hash of every token, flat, with per-document offsets."""
    offsets = tokens.offsets.to_numpy(zero_copy_only=False).astype(np.int64)
    flat = tokens.flatten()
    if len(flat) == 0:
        return offsets - offsets[0], np.zeros(0, dtype=np.uint64)
    enc = pc.dictionary_encode(flat)
    vocab = enc.dictionary.to_pylist()
    vocab_hash = np.fromiter((_stable_hash(t) for t in vocab), dtype=np.uint64, count=len(vocab))
    return offsets - offsets[0], vocab_hash[enc.indices.to_numpy(zero_copy_only=False)]


def _mix64(x: np.ndarray) -> np.ndarray:
    """splitmix64 finaliser (in place on a fresh copy): spreads combined hashes over all 64 bits."""
    x = x.copy()
    tmp = np.empty_like(x)
    with np.errstate(over="ignore"):
        for shift, mult in ((30, 0xBF58476D1CE4E5B9), (27, 0x94D049BB133111EB)):
            np.right_shift(x, np.uint64(shift), out=tmp)
            np.bitwise_xor(x, tmp, out=x)
            np.multiply(x, np.uint64(mult), out=x)
        np.right_shift(x, np.uint64(31), out=tmp)
        np.bitwise_xor(x, tmp, out=x)
    return x


def ngram_hashes(offsets: np.ndarray, hashes: np.ndarray, n: int) -> tuple[np.ndarray, np.ndarray]:
    """(doc_index, ngram_hash) for every word n-gram inside each document.

    A document shorter than n tokens contributes one n-gram made of all its tokens, so short
    problems still get compared; empty documents contribute nothing.
    """
    lengths = np.diff(offsets)
    ndocs = len(lengths)
    with np.errstate(over="ignore"):
        if len(hashes) >= n:
            m = len(hashes) - n + 1
            g = hashes[:m].copy()
            for k in range(1, n):
                np.multiply(g, _MIX, out=g)
                np.add(g, hashes[k : k + m], out=g)
            # an n-gram starting 1..n-1 tokens before a document's end crosses into the next one
            valid = np.ones(m, dtype=bool)
            for k in range(1, n):
                idx = offsets[1:] - k
                valid[idx[(idx >= 0) & (idx < m)]] = False
            grams = _mix64(g[valid])
            docs = np.repeat(np.arange(ndocs, dtype=np.int64), np.maximum(lengths - n + 1, 0))
        else:
            docs, grams = np.zeros(0, np.int64), np.zeros(0, np.uint64)
        short = np.flatnonzero((lengths > 0) & (lengths < n))
        if len(short):
            extra = np.empty(len(short), dtype=np.uint64)
            for j, d in enumerate(short):
                g = np.uint64(0)
                for h in hashes[offsets[d] : offsets[d + 1]]:
                    g = g * _MIX + h
                extra[j] = g
            at = np.searchsorted(docs, short)  # docs is sorted: insert keeps it so, no re-sort
            docs = np.insert(docs, at, short)
            grams = np.insert(grams, at, _mix64(extra))
    return docs, grams


def doc_ngrams(texts, n: int, *, mask_numbers: bool = False) -> tuple[np.ndarray, np.ndarray]:
    """Normalise, tokenise and hash: (doc_index, ngram_hash) for a column of raw texts."""
    offsets, hashes = token_hashes(tokenize(normalize_texts(texts), mask_numbers=mask_numbers))
    return ngram_hashes(offsets, hashes, n)
