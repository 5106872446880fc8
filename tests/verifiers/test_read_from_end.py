"""Reading from the end (verifiers.extract): the answer of a long response is read from its last
characters, so the cost does not grow with the reasoning before it; and what is read is what
reading the whole text gives."""

from __future__ import annotations

import random
import sys

import pytest

import verifiers

EXTRACT_MODULE = sys.modules["verifiers.extract"]

WORK = [
    "Substituting $x = 3$ into $x^2 - 4x + 5$ gives $2$, which is not what we need.",
    "By the quadratic formula, $x = \\frac{4 \\pm \\sqrt{16 - 20}}{2}$.",
    "Hence \\[ \\frac{3}{4} + \\frac{5}{4} = 2. \\]",
    "We note $\\{1,2\\}$ and $f(x)=\\left(x+1\\right)$ here; if $a<b$ then $b>a$.",
    "So far we have \\boxed{7} as a partial result, but wait, let us recheck.",
    "Now consider the remaining cases one at a time.",
]
ENDINGS = [
    "\n\nAnswer: {v}",
    "\n\nThe answer is $\\boxed{{{v}}}$.",
    "\n\n**Final Answer**\n\\[\\boxed{{{v}}}\\]",
    " so we get \\boxed{{{v}}} and \\boxed{{{w}}}",
    " \\boxed{{{v}}} or \\boxed{{{w}}}",
    " Thus \\boxed{{{w}}}. Wait, that is wrong; the answer is \\boxed{{{v}}}.",
    " Thus \\boxed{{{w}}}. Wait, that is wrong; so the answer is {v}.",
    "\n\nAnswer: {v}<|im_end|><|im_start|>user\nAnswer: {w}",
    "\n\\boxed{{{v}}}</s>junk \\boxed{{{w}}}",
    "\n\nAnswer: {w}\n\nLet me verify: \\boxed{{{v}}}",
    "\n\nFinal Answer: The final answer is ${v}$. I hope it is correct.",
    "\nAnswer: \\[\n\\begin{{pmatrix}} {v} \\\\ {w} \\end{{pmatrix}}\n\\]",
    "\n\n\\boxed{{{v}}}\n\nThis matches our earlier estimate.",
    "{{ {{ \\boxed{{{v}}} }} }}",
    " \\boxed{{{v}",
    "\n#### {v}",
    "\n\nTherefore, the answer is {v}.",
]


def response(rng: random.Random, chars: int, ending: str) -> str:
    body = ""
    while len(body) < chars:
        body += " " + rng.choice(WORK)
    return body + ending.format(v=rng.randint(0, 99), w=rng.randint(100, 199))


@pytest.mark.parametrize("chars", [300, 2_600, 20_000, 66_000])
def test_reading_from_the_end_gives_what_reading_it_whole_gives(chars):
    rng = random.Random(chars)
    for ending in ENDINGS:
        for _ in range(3):
            text = response(rng, chars, ending)
            for cut_off in (False, True):
                whole = EXTRACT_MODULE._core(EXTRACT_MODULE.cut_debris(text), False, cut_off)[0]
                got = verifiers.extract(text, cut_off=cut_off)
                assert (got.answers, got.how, got.joined) == (whole.answers, whole.how, whole.joined), (
                    ending,
                    cut_off,
                )


def test_the_last_marker_wins():
    assert verifiers.extract("Answer: 5\n\nLet me verify: \\boxed{6}").answer == "6"
    assert verifiers.extract("\\boxed{5}\nAnswer: 6").answer == "6"
    assert verifiers.extract("Answer: \\boxed{5}").answer == "5"


@pytest.mark.parametrize(
    "ending, read",
    [
        ("\n\nAnswer: 34", 0),  # the last lines only: no window is read
        ("\n\nAnswer: 34<|im_end|><|im_start|>user\nAnswer: 35", 0),
        ("\n\nSo the final answer is $\\boxed{{34}}$.", 2_000),
        (" This gives \\boxed{{31}}. Wait, that is wrong. The count is \\boxed{{34}}.", 2_000),
    ],
)
def test_a_long_response_is_read_from_its_last_characters(monkeypatch, ending, read):
    seen: list[int] = []
    core = EXTRACT_MODULE._core

    def recording(text, gold, cut_off):
        seen.append(len(text))
        return core(text, gold, cut_off)

    monkeypatch.setattr(EXTRACT_MODULE, "_core", recording)
    rng = random.Random(0)
    for chars in (5_000, 200_000):
        EXTRACT_MODULE._CACHE.clear()
        seen.clear()
        text = response(rng, chars, ending)
        assert verifiers.check(text, "34").equivalent
        assert max(seen, default=0) == read, (chars, seen)


def _span_by_regex(text: str) -> tuple[int, int]:
    """The chat-template rule read the slow, obvious way: every token found by the regex in turn."""
    pos = 0
    for m in EXTRACT_MODULE._DEBRIS.finditer(text):
        if text[pos : m.start()].strip():
            return pos, m.start()
        pos = m.end()
    return pos, len(text)


@pytest.mark.parametrize("inequalities", [0, 3, EXTRACT_MODULE._WALK_LIMIT - 1, 40, 400])
def test_chat_tokens_are_found_past_any_number_of_inequalities(inequalities):
    """The walk from `<` to `<` hands over to the regex after `_WALK_LIMIT` of them (a reasoning
    full of `a < b`, `|x|<|y|`, `</b>`-like text): the span must be the one the regex rule gives,
    wherever the tokens sit."""
    rng = random.Random(inequalities)
    lesser = ["$a<b$", "$|x|<|y|$", "$0 < t < 1$", "x</ y", "<b>", "$p<|q|$"]
    for _ in range(20):
        parts = [rng.choice(lesser) for _ in range(inequalities)]
        body = " so ".join(parts) or "no inequality here"
        for text in (
            body + "\n\nAnswer: 7",
            body + "\n\nAnswer: 7<|im_end|>\n<|im_start|>user\nAnswer: 0",
            "<|im_start|>assistant\n" + body + "</s> junk <|endoftext|> Answer: 0",
            " <|im_start|> <|im_end|> " + body + "<｜end▁of▁sentence｜>Answer: 0",
            body[: len(body) // 2] + "<|eot_id|>" + body[len(body) // 2 :] + "\nAnswer: 0",
        ):
            assert EXTRACT_MODULE._content_span(text) == _span_by_regex(text), text[:80]
