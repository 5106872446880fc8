"""Pull the final answer out of a model's completion: once, into one small value.

`extract(text)` reads a completion's answer from its end and returns an `Extraction`: the
candidate answers and how they were marked. `check` judges that value and never reads the text
again.

Markers (an answer line or a box group decides, whichever comes last; the others only when
neither is present):

1. a DAPO answer line (`Answer: 34`, `**Final Answer:** $34$`, `Answer \\[ 9 \\]`, a display
   that runs over several lines), and the Minerva/lm-eval sentence
   `Final Answer: The final answer is $X$. I hope it is correct.`; a box after the last answer
   line (`Answer: 5` ... `Let me verify: \\boxed{6}`) is the later answer and wins;
2. `\\boxed{...}` / `\\fbox{...}`: the last box. Boxes just before it that are joined to it by
   nothing but punctuation, `and` or `or` are part of the same answer: several answers
   (`\\boxed{2}, \\boxed{3}`), or alternatives offered as a hedge (`\\boxed{34} or \\boxed{35}`).
   Boxes separated by other words are a correction: the last box is the answer;
3. GSM8K's `#### 34`;
4. a sentence `... the answer is X` (the last one; also `答案是 X`, `故选 B`, GAOKAO-Bench's `【答案】: X`);
5. unmarked prose (policy): the final math span (`$...$`, `\\(...\\)`, `\\[...\\]`) of the last
   sentence, or when the last sentence has none, the short value after its last `is` / `=`
   (`So the ordered pair is (3, 4).`), or when it has neither, the one number of a concluding sentence
   (`Therefore, James runs a total of 540 meters per week.`: it starts with therefore/thus/hence/so, holds
   exactly one number, unqualified (`at least 3` is not read) and no negation, math or question). A short
   one-line text with no sentence in it is the answer itself (`28 percent`, `\\frac{1}{2}`, `no solution`).

This is the project's one answer policy: the reward (`check`, `dapo_reward`), `dapo eval`'s
grading, the pipeline's solver and difficulty checks and the judge all read answers through
`extract` (exported as `verifiers.extract`). A response with no answer gives an empty
Extraction (`how == "none"`): the response itself is never taken as its answer. A short
one-line text of words only (`no real solutions`, `Evelyn and Navin`, `twelve`) is an answer
when it has at most three words (any number of number words) and none of them talks about the
answer (`no answer at all`, `I could not solve this problem.` have none).

`cut_off=True` (a response stopped at the token limit): only an answer line or a box counts;
nothing is read out of the unfinished prose. A response that shows it was cut off is read the
same way without the flag: a final `\\boxed{` that never closes is no answer (an earlier box is
not the answer), and a response that stops inside a math span it opened (`... and $x=`) gives
nothing from its prose.

Markdown bold (`**42**`) after an `the answer is` sentence is a later answer and wins, as the
last of several boxes does (`The answer is **41**. Actually, recounting: **42**.`).

Chat-template debris (`<|im_end|>`, `<|im_start|>user ...`, `</s>`, ...) ends the response: what
follows it is never read. So does a turn the model invented after its content (a line starting `User:`,
`Assistant:`, `# Query:`; `Question:` / `Q:` only when the text before it has an answer): its answers answer
another question.

Formats that say where the answer is: the last `"answer"` field of a JSON object (`{"reasoning": ..., "answer":
"5"}`) is an answer line; so is a critic's `Judgement:` line; a short value alone on the first line followed by
`Explanation:` is an answer-first format, and that first line is the answer; an `<answer>` tag that never closes
is read by a finished box after it, else its whole content is the answer (a sampler stopped at `</answer>` drops
the stop string), unless that content stops mid-line or the response was cut off at its token limit; a program's
printed value on the last line (`>>> 85.0`) is its answer, and so is a one-line output block that ends the response
(Program-of-Thought's and ToRA's ```` ```output ```` block, or an unmarked block right after the program's).

What a response adds after its answer is no part of it: a closing offer or remark (`Let me know if ...`), a check
(`Check: 9 × 5 = 45 cards.`, also in brackets), and a bracketed aside that ends the last sentence after its value
(`so he fills 7 shelves (7 x 9 = 63).`, `70 gold coins (and 40 silver)`; an alternative, `(or x = -2)`, stays a
hedge).

Other languages: answer words and sentences of 16 languages (`Die Antwort lautet`, `Ответ:`, `答えは`, `정답은`,
`Đáp số:`, `Jawabannya adalah`, `Cevap ...'dir`, `الإجابة هي`, `उत्तर ... है`, `คำตอบคือ`, `Jibu ni`, ...) mark an
answer as `the answer is` does, and the verb or unit after the value is dropped (`18です`, `18 है`). A language
that writes a decimal comma (seen from its answer words) has its numbers read its way (`3,5` = 3.5, `1.000` =
1000, `1 500` = 1500); anywhere else a comma is never a decimal point. Number words are read in English only.

Cost: reading from the end. The text is searched for `<` (the start of every chat-template token)
at C speed (memchr; past a few dozen `<` of the reasoning's own inequalities, the token regex
searches the rest, still in C); an answer line among the last four lines then decides at once; otherwise the last
2,000, then 16,000 characters are read, and their answer stands when the deciding marker sits
well inside them (tests/verifiers/test_read_from_end.py checks it is the whole text's answer).
So a final `Answer:` line or box costs the same after 1k or 60k characters of reasoning; only a
response whose answer is far from its end is read whole. Everything is linear-time regex or a
single scan, so a 1 MB input or 10,000 nested braces cost milliseconds and never recurse.
"""

from __future__ import annotations

import json
import re
from functools import lru_cache
from typing import NamedTuple

from verifiers.forms import PERCENT_MENTIONED, asking_sentence
from verifiers.normalize import number_from_words

STYLES = ("auto", "answer_line", "boxed", "gsm8k", "last_number")


class Extraction(NamedTuple):
    """answers: the final answer's parts, in order (usually one); how: the marker that found them
    ('answer_line', 'boxed', 'gsm8k', 'output', 'sentence', 'prose', 'bare' or 'none'); joined: for several
    parts, 'or' (alternatives offered: a hedge) or 'list' (several answers); box_depth: brace depth
    at which the last box opens (huge means adversarial). A NamedTuple: made once per completion
    on the reward's hot path, where a frozen dataclass's construction cost shows."""

    answers: tuple[str, ...]
    how: str
    joined: str = ""
    box_depth: int = 0

    @property
    def answer(self) -> str | None:
        """The answer as one string: the single part, or the parts joined as a list."""
        if not self.answers:
            return None
        if len(self.answers) == 1:
            return self.answers[0]
        return (" or " if self.joined == "or" else ", ").join(self.answers)


NONE = Extraction((), "none")

# answer words of other languages, one row per language: the label of an answer line (`Antwort: 18`), the
# sentences that announce the answer (regexes: `Die Antwort lautet 18`), and, for languages that write a decimal
# comma (`3,15`), words whose presence says the response is in one (see `_writes_decimal_comma`)
_LANGUAGES = (
    ("es", ("respuesta",), (r"la respuesta (?:final |correcta )?es",), ("respuesta", "resultado")),
    ("pt", ("resposta",), (r"a resposta (?:final |correta )?é",), ("resposta",)),
    ("fr", ("réponse", "reponse"), (r"la réponse (?:finale |correcte )?est",), ("réponse", "résultat")),
    ("it", ("risposta",), (r"la risposta (?:finale |corretta )?è",), ("risposta", "risultato")),
    ("de", ("antwort",), (r"die (?:richtige |endgültige )?antwort (?:lautet|ist)",), ("antwort", "ergebnis", "beträgt")),
    ("ru", ("ответ",), (r"ответ(?: равен| будет)?\s*[:—-]?",), ("ответ", "итого")),
    ("ja", ("答え", "解答"), (r"答えは",), ()),
    ("ko", ("정답", "답"), (r"정답은", r"답은"), ()),
    ("vi", ("đáp án", "đáp số"), (r"đáp án(?: là)?", r"đáp số(?: là)?", r"câu trả lời là"), ("đáp", "câu trả lời")),
    ("id", ("jawaban", "jawab"), (r"jawaban(?:nya)? (?:adalah|ialah)",), ("jawab",)),
    ("tr", ("cevap", "yanıt"), (r"cevap", r"yanıt"), ("cevap", "yanıt")),
    ("ar", ("الإجابة", "الجواب"), (r"الإجابة هي", r"الجواب هو"), ()),
    ("hi", ("उत्तर",), (r"उत्तर",), ()),
    ("bn", ("উত্তর",), (r"উত্তর(?: হলো| হল| হবে)?\s*[:：]?",), ()),
    ("th", ("คำตอบ",), (r"คำตอบคือ",), ()),
    ("sw", ("jibu",), (r"jibu ni",), ()),
)  # fmt: skip
_FOREIGN_ANSWER_WORDS = tuple(w for _, labels, _, _ in _LANGUAGES for w in labels)
_FOREIGN_SENTENCES = "|".join(x for _, _, sentences, _ in _LANGUAGES for x in sentences)
_DECIMAL_COMMA_WORDS = tuple(w for _, _, _, words in _LANGUAGES for w in words)
_ASCII_ANSWER_WORDS = tuple(
    w for w in _FOREIGN_ANSWER_WORDS if w.isascii()
)  # the only ones an ASCII text can hold
# `Answer: 34`, `**Answer:** 34`, `Final Answer: $34$`, `answer:34.` (case-insensitive); also
# `Answer \[ 9 \]` and `Answer $ 9 $` with no colon when a math delimiter follows
_ANSWER_LINE = re.compile(
    r"^[ \t>#*_]*(?:final[ \t]+)?(?:answer|(?:judge?ment|"
    + "|".join(_FOREIGN_ANSWER_WORDS)
    + r")(?:[ \t]+final[ei]?)?(?=[ \t*_]*[:：]))[ \t]*[*_]*[ \t]*"  # `Respuesta final:`, `Réponse finale :`
    r"(?:[:：]|(?=\\\[|\$|\\\())[ \t]*[*_]*[ \t]*"
    r"(?P<ans>.*?)[ \t]*$",
    re.IGNORECASE | re.MULTILINE,
)
_SIMPLE_VALUE = re.compile(r"[*_ \t]*\$?[ \t]*(-?[0-9][0-9,]*(?:\.[0-9]+)?)[ \t]*\$?[ \t*_]*\.?[ \t*_]*")
_FINAL_INLINE = re.compile(r"final answer[ \t]*[*_]*[ \t]*[:：][ \t]*[*_]*", re.IGNORECASE)
_MINERVA = re.compile(r"final answer is[ \t]*[:：]?", re.IGNORECASE)
_BOXED = re.compile(r"\\(?:boxed|fbox|framebox)\s*\{")
_BOXED_SPACE = re.compile(r"\\boxed ([^\s$]+)")
_GSM8K = re.compile(r"^\s*####\s*(?P<ans>.+?)\s*$", re.MULTILINE)
_NUMBER = re.compile(r"-?\d[\d,]*(?:\.\d+)?(?:/\d+)?|-?\.\d+")
_CJK = re.compile(r"[\u4e00-\u9fff]")
# `the answer is`, `the answer (arabic numerals) is` (zero-shot CoT), and the Chinese sentences
# `答案是/为`, `正确答案是选项`, `故选：B`, and GAOKAO-Bench's `【答案】: A`
_SENTENCE = re.compile(
    r"(?:(?:final answer|the answer|answer)(?:\s*\([^()\n]{1,40}\))?\s*(?:is|=|:)\s*[:：]?"
    r"|(?:最终答案|正确答案|答案)[*_]*\s*(?:应该是|应为|是|为|[:：])\s*[:：]?\s*(?:选项|选)?"  # `**最终答案**：540 米`
    r"|【(?:最终答案|正确答案|答案)】\s*[:：]?\s*(?:选项|选)?"
    r"|(?<![^\n])[ \t]*答[ \t]*[:：]"  # a school answer sentence on its own line: `答：拿走了34把。`
    r"|(?:故|所以|因此|从而|则)?\s*应?选\s*[:：]?(?=\s*\(?[A-E](?![A-Za-z]))"
    r"|" + _FOREIGN_SENTENCES + r")\s*",
    re.IGNORECASE,
)
_ANSWER_TAG = re.compile(r"<answer>(.*?)</answer>", re.DOTALL | re.IGNORECASE)
_LOST_TAG_OPEN = re.compile(r"^[ \t]*answer>[ \t]*", re.MULTILINE | re.IGNORECASE)
_DANGLING_CLOSE = re.compile(r"\s*</(?:answer|think)>\s*$", re.IGNORECASE)  # `Answer: 23 jewels. </answer>`
_HOPE_ANY = re.compile(r"\.?\s*I hope (?:it|this) is correct.*$", re.IGNORECASE | re.DOTALL)
_HOPE = re.compile(r"\.?\s*I hope (?:it|this) is correct\.?\s*$", re.IGNORECASE)
_DEBRIS = re.compile(
    r"<\|(?:im_end|im_start|endoftext|end_of_text|eot_id|end|user|assistant|start_header_id)\|>|</s>|<｜end▁of▁sentence｜>"
    r"|<eoa>|<end>"
)
# Math-Shepherd's step tag (`... = 6 + 9i$. ки`), written after each step by PRM-scored generations: no text of the answer
_STEP_TAG = re.compile(r"[ \t]*(?<![А-Яа-яЁё])ки(?![А-Яа-яЁё])")
# what may stand between boxes of one answer: punctuation, math delimiters, spacing, and/or (also
# Chinese: full-width punctuation, 和/与/及/以及 "and", 或/或者 "or": `\\boxed{5}；\\boxed{10}`)
_JOINER = re.compile(
    r"(?:[\s,;.$&，；、。]|\\[(),;:! ]|\\q?quad|\\text\{\s*(?:and|or|,|和|或)?\s*\}|\band\b|\bor\b|以及|和|与|及|或者?|\\\\)*",
    re.IGNORECASE,
)
_OR = re.compile(r"\bor\b|或", re.IGNORECASE)
_SPAN_JOINER = re.compile(r"\s*(?:,\s*(?:and|or)?|and|or)\s*", re.IGNORECASE)
# between an exact box and its numerical value: `\\approx`, `≈`, `\\simeq`, `approximately`
_APPROX = re.compile(
    r"[\s,;.$]*(?:\\approx|≈|\\simeq|\\sim|(?:which is )?(?:approximately|about|roughly))[\s,;.$:=]*(?:\\(?:boxed|fbox|framebox)\s*\{)?",
    re.IGNORECASE,
)
# `\$` is an escaped dollar (currency: `she pays \$5 and gets \$3 back`), never a delimiter
# and no `$...$` runs over a blank line (TeX ends the paragraph there: `$64.\n\nTherefore ... $` is two dollars)
# a closing `$` is never followed by a digit (Pandoc's rule): `at $2 each. She makes $18` holds two prices, no span
_MATH_SPAN = re.compile(
    r"\$\$(.+?)\$\$|(?<!\\)\$((?:(?!\n[ \t]*\n)[^$\\]|\\.)+?)\$(?!\d)|\\\((.+?)\\\)|\\\[(.+?)\\\]", re.DOTALL
)
_COPULA = re.compile(
    r"(?:\b(?:is|are)\s+equal\s+to\b|\bis\b|\bare\b|\b(?:was|were)\b(?=\s*(?:[-$€£\d(]|\\\(|\*\*))|\bequals\b|\bbe\b|\bit's\b|=|:)\s*",
    re.IGNORECASE,
)  # `2/3 of 9 is equal to 6`, `Their profit was $78.`
# a size given after the answer (`The difference is 2^{1009}, which is roughly 5.5 × 10^{303}.`): not the answer
_APPROX_AFTER = re.compile(
    r",?\s*(?:which|that)\s+is\s+(?:roughly|approximately|about|around|nearly|close\s+to)\b[^,;]*$",
    re.IGNORECASE,
)
# the clause that concludes after a computation (`... = 2.43 × 10^{17}, so it has 18 digits`)
_SO_CLAUSE = re.compile(r",\s+(?:so|thus|hence|therefore)\s+([^,;]*)$", re.IGNORECASE)
_ONE_NUMBER = re.compile(
    r"(?![^\d]*\b(?:more|less|fewer|most|least|up\s+to|over|under|below|above|than)\b)"  # a bound is no count
    r"[^\d$\\^{}]*?(-?\d[\d,]*(?:\.\d+)?)\s+[A-Za-z][A-Za-z ]*",
    re.IGNORECASE,
)
_BRACKETED = re.compile(r"\[\s*([^\[\],;]+?)\s*\]")
_BRACKET_SPAN = re.compile(r"(?<!\\)\[\s*([^\[\],;\\]+?)\s*\]")
_COUNTED = re.compile(r"([$€£]?\s*-?[\d][\d,]*(?:\.\d+)?%?)\s+[A-Za-z][A-Za-z ]*")
_SENT_END = re.compile(
    r"[.!?](?=\s|$)|[。！？]|\n\s*\n"
)  # a Chinese full stop ends a sentence with no space after it
_CJK_WORDS = re.compile(r"[\u4e00-\u9fff]+")
_CJK_JOINERS = frozenset(["或", "或者", "和", "与", "及", "以及", "且"])
_LEADING_VALUE = re.compile(r"[-+]?\$?[-+]?\d")
_MAX_BARE = 300  # a bare answer longer than this is prose, not an answer
_MAX_PROSE_VALUE = 60
_WORD_ANSWER = re.compile(r"[A-Za-z][a-z]*")
_ANSWER_WORDS = frozenset(
    {"yes", "no", "true", "false", "even", "odd", "none", "neither", "both", "all", "never"}
)  # a value read after "is" in unmarked prose is at most this long
_TAIL = 4_000  # unmarked prose: only the end of the text is read


_SEMICOLON_MATH = re.compile(r"^\[;\s*(.*?)\s*;\s*\]$", re.DOTALL)


# an answer label written inside the box (`\boxed{\text{Answer: } 12}`)
_LABEL_IN_BOX = re.compile(r"\A\s*(?:\\text\s*\{\s*)?(?:final\s+)?answer\s*[:：]\s*\}?\s*", re.IGNORECASE)


def _strip_wrapping(ans: str) -> str:
    """Remove markdown emphasis, `$...$`, a trailing period and an answer label around an extracted value."""
    ans = _SEMICOLON_MATH.sub(r"[;\1;]", ans.strip())
    if "nswer" in ans[:24] or "NSWER" in ans[:24]:
        ans = _LABEL_IN_BOX.sub("", ans, count=1)
    for _ in range(3):
        before = ans
        ans = ans.strip().rstrip(".。").strip().strip("*_").strip()  # `**Answer: 34**` leaves `34**`
        for left, right in (
            ("**", "**"),
            ("__", "__"),
            ("*", "*"),
            ("$$", "$$"),
            ("$", "$"),
            ("\\(", "\\)"),
            ("\\[", "\\]"),
            ("[;", ";]"),  # `[; 9 ;]`: the inline-math delimiters some models learned from web text
            ("`", "`"),  # `2676` in inline code
        ):
            if len(ans) >= len(left) + len(right) and ans.startswith(left) and ans.endswith(right):
                inner = ans[len(left) : len(ans) - len(right)]
                if left != "$" or "$" not in inner:  # `$a$ and $b$` is two spans, not one
                    ans = inner.strip()
        if ans == before:
            break
    if "," in ans and "=" in ans:  # `5,000 - 1,456 = 3,544`: thousands groups in a computation, not a list
        ungrouped = _THOUSANDS.sub(lambda m: m.group(0).replace(",", ""), ans)
        if "," not in ungrouped:
            ans = ungrouped
    return ans


_THOUSANDS = re.compile(r"(?<![\d.,])\d{1,3}(?:,\d{3})+(?![\d,])")


_NONSPACE = re.compile(r"\S")


def cut_debris(text: str) -> str:
    """The response up to the first chat-template token after its content (`<|im_end|>`, `</s>`...)."""
    lo, hi = _content_span(text)
    return text[lo:hi] if (lo, hi) != (0, len(text)) else text


def _content_span(text: str) -> tuple[int, int]:
    """(start, end) of the response without chat-template tokens: leading tokens
    (`<|im_start|>assistant`) are skipped, the first token after content ends it. What follows
    that token is never read, so the whole text is searched for it (see `_next_token`): at C
    speed, a long reasoning costs a few microseconds more, and nothing per character in Python."""
    pos = 0
    m = _next_token(text, 0)
    while m is not None:
        if _NONSPACE.search(text, pos, m.start()):
            return pos, m.start()
        pos = m.end()
        m = _next_token(text, pos)
    return pos, len(text)


_TOKEN_OPENINGS = ("<|", "</s>", "<｜", "<eoa>", "<end>")  # how every chat-template token (`_DEBRIS`) begins
_WALK_LIMIT = 32  # `<` of the reasoning itself (`a < b`) looked at one by one before the regex takes over


def _next_token(text: str, start: int) -> re.Match | None:
    """The first chat-template token at or after `start`, or None. Every token starts with `<`:
    the text is walked from one `<` to the next with a C-speed character search (memchr), so a
    reasoning with no `<` is read at memory speed. A reasoning full of inequalities would make
    that walk a Python loop over each `<`: past `_WALK_LIMIT` of them the regex searches the rest
    (linear, in C), so the cost stays bounded by the text's length at C speed."""
    i = text.find("<", start)
    seen = 0
    while i != -1:
        if text.startswith(_TOKEN_OPENINGS, i):
            m = _DEBRIS.match(text, i)
            if m is not None:
                return m
        seen += 1
        if seen >= _WALK_LIMIT:
            return _DEBRIS.search(text, i + 1)
        i = text.find("<", i + 1)
    return None


_BRACE = re.compile(r"\\[{}]|[{}]")


@lru_cache(maxsize=16)
def _boxes(text: str) -> tuple[tuple[int, int, int], ...]:
    """(start, end, brace depth) of every terminated box's content, ordered by start. One pass
    over the braces, so 100,000 unterminated `\\boxed{` cost the same as one."""
    starts = {m.end() for m in _BOXED.finditer(text)}
    if not starts:
        return ()
    stack: list[int] = []
    out = []
    for m in _BRACE.finditer(text):
        tok = m.group(0)
        if len(tok) == 2:  # escaped \{ or \}: literal, not grouping
            continue
        if tok == "{":
            stack.append(m.end())
        elif stack:
            opened = stack.pop()
            if opened in starts:
                out.append((opened, m.start(), len(stack)))
    return tuple(sorted(out))


def _top_boxes(text: str) -> list[tuple[int, int]]:
    """(start, end) of the boxes that are not inside another box."""
    out, outer_end = [], -1
    for a, b, _ in _boxes(text):
        if a > outer_end:
            outer_end = b
            out.append((a, b))
    return out


def boxed_spans(text: str) -> list[tuple[int, int]]:
    """(start, end) of the content of every box not inside another, in order (`text[start:end]` is it)."""
    return _top_boxes(text)


def extract_boxed(text: str) -> str | None:
    """Content of the last `\\boxed{...}` / `\\fbox{...}` with nested braces (linear scan)."""
    boxes = _boxes(text)
    if boxes:
        start, end, _ = boxes[-1]
        return text[start:end].strip()
    last = None
    for m in _BOXED_SPACE.finditer(text):
        last = m
    return last.group(1).strip() if last else None


def _whole_answer(rest: str) -> bool:
    """What follows an `<answer>` tag that never closes, read as a whole answer: one short line, no other tag,
    no box, no math span or brace left open. A sampler stopped at `</answer>` drops the stop string unless told to keep it (vLLM's
    `include_stop_str_in_output=False`), so `<answer> 402` ends the response; a response cut off at its token
    limit inside the tag (`cut_off=True`) is not read."""
    body = rest.strip()
    return (
        0 < len(body) <= _MAX_OPEN_TAG
        and "\n" not in body  # one line: more after it (`<end>`, another attempt) is no single answer
        and "<" not in body.replace("\\le", "").replace("\\lt", "")
        and "box" not in body
        and not _ends_in_open_math(body)
        and body.count("{") == body.count("}")
        and body[-1] not in "=+-*/^_,(:[{\\×÷"  # `The total is 4 * 45 + 20 * 15 =`: cut off mid-line
        and not _UNFINISHED.search(body[-200:])
    )


_MAX_OPEN_TAG = 400


def _final_box_open(text: str) -> bool:
    """The last `\\boxed{` / `\\fbox{` opening never closes: the response was cut off inside its
    final box. Every brace opened after the window's start is matched as in the whole text, so a
    window and the whole text agree."""
    last = None
    for m in _BOXED.finditer(text):
        last = m
    if last is None:
        return False
    return all(start != last.end() for start, _, _ in _boxes(text))


def box_depth(text: str) -> int:
    """Brace depth at which the last box opens (0 at top level): huge means adversarial."""
    boxes = _boxes(text)
    return boxes[-1][2] if boxes else 0


_CORRECTION = re.compile(
    r"\b(?:but|wait|actually|however|instead|so|thus|therefore|hence|is|was|answer|correct|mistake|recheck|check|"
    r"recompute|recalculate|oops|sorry|not|no|final)\b",
    re.IGNORECASE,
)
_GAP_WORD = re.compile(r"[A-Za-z]+")
_SCALE_WORD = re.compile(r"\s*(?:thousand|million|billion|trillion)\b|\s*(?:万亿|亿|万)", re.IGNORECASE)


def _joins(gap: str) -> str | None:
    """How the text between two boxes joins them: 'or' (alternatives), 'list' (several answers,
    possibly with a few words: `\\boxed{1} papers and \\boxed{2} bins`), or None (a correction,
    or unrelated boxes: the later box stands alone)."""
    if _JOINER.fullmatch(gap):
        return "or" if _OR.search(gap) else "list"
    plain = re.sub(r"\\[a-zA-Z]+|[{}$()\\]", " ", gap)
    if len(_GAP_WORD.findall(plain)) > 6 or _CORRECTION.search(plain) or "\n" in gap.strip():
        return None
    if _OR.search(plain):
        return "or"
    return "list" if re.search(r"\band\b|[,;&]", plain) else None


def _box_group(text: str) -> tuple[list[str], str]:
    """The last box and the boxes joined to it (see the module docstring): (contents, joined)."""
    parts, joined, _, _ = _box_group_at(text)
    return parts, joined


def _box_group_at(text: str) -> tuple[list[str], str, int, int]:
    """`_box_group` and where the group is: (contents, joined, first box's start, last box's end)."""
    top = _top_boxes(text)
    if not top:
        return [], "", -1, -1
    group = [top[-1]]
    joined = "list"
    if len(top) > 1 and _APPROX.fullmatch(text[top[-2][1] + 1 : top[-1][0]]):
        a, b = top[-2]  # `\\boxed{\\frac13} \\approx \\boxed{0.333}`: the exact box, not its rounding
        return [text[a:b].strip()], "", a, b
    for a, b in reversed(top[:-1]):
        gap = _BOXED.sub("", text[b + 1 : group[0][0]])  # without the next box's own `\\boxed{`
        how = _joins(gap)
        if how is None:
            break
        if how == "or":
            joined = "or"
        group.insert(0, (a, b))
    parts = [text[a:b].strip() for a, b in group]
    first, last = group[0][0], group[-1][1]
    if len(set(parts)) == 1:  # the same box repeated (`\\boxed{004}` ... `\\boxed{004}`) is one answer
        return parts[-1:], "", first, last
    return parts, joined if len(group) > 1 else "", first, last


def boxed_alternatives(text: str) -> list[str]:
    """The boxes of the final answer when there are several (`\\boxed{34} or \\boxed{35}`), else []."""
    parts, _ = _box_group(text)
    return parts if len(parts) > 1 else []


def _display_tail(text: str, start: int, ans: str) -> str:
    """An answer line that opens a display (`\\[`, `$$`, `\\begin{..}`) and closes it on later lines."""
    for left, right in (("\\[", "\\]"), ("$$", "$$"), ("\\begin{", "\\end{")):
        if ans.startswith(left) and right not in ans[len(left) :]:
            close = text.find(right, start)
            if close != -1 and close - start < 2_000:
                end = text.find("\n", close)
                return text[start - len(ans) : end if end != -1 else len(text)].strip()
    return ans


def _answer_line(text: str) -> str | None:
    return _answer_line_at(text)[0]


# a line after the answer line that commits anew under a label of its own: `Correction — ANSWER: 153740`,
# `Final: 1183959424`, `Revised final answer: 14` (the last commitment counts, as a later answer line would)
_LATER_COMMITMENT = re.compile(
    r"^[ \t>#*_]*(?:correction|corrected|revised|updated|amended|final|সংশোধন|সংশোধিত|सुधार|संशोधित)[ \t*_]*(?:[—–-][ \t]*)?"
    r"(?:(?:final[ \t]+)?answer[ \t*_]*)?[:：][ \t*_]*(?:answer[ \t*_]*[:：][ \t*_]*)?(?P<ans>[^\n]*?)[ \t]*$",
    re.IGNORECASE | re.MULTILINE,
)


# the first characters an answer line can start with (`_ANSWER_LINE`: markup, then `final`, `answer`, `judgment` or
# an ASCII label of another language); a line starting with anything else is no answer line
_LABEL_FIRST = frozenset(
    " \t>#*_" + "".join(w[0] for w in ("answer", "final", "judgment", *_ASCII_ANSWER_WORDS))
)


def _committed(
    text: str, ans: str, a_start: int, a_end: int, lo: int = 0, hi: int | None = None
) -> Extraction:
    """The answer line's value as what the response commits to: a labelled correction on a later line replaces it
    (`ANSWER: 153704` then `Correction — ANSWER: 153740`), and a bare answer line right before it with another
    value offers both (`ANSWER: 0` / `ANSWER: 1`: a hedge, joined 'or'). Reads only the lines around it."""
    end = len(text) if hi is None else hi
    if a_end < end and end - a_end < 400:
        later = None
        for m in _LATER_COMMITMENT.finditer(text, a_end, end):
            value = m.group("ans")
            simple = _SIMPLE_VALUE.fullmatch(value)
            later = simple.group(1) if simple else _answer_value(value) if value else None
        if later is not None:
            return Extraction((later,), "answer_line", "", 0)
        corrected = _corrected_after(text, a_end, end)
        if corrected is not None:  # `Answer: $8$` then `Wait, I made a slip. Correction: the answer is $9$.`
            return Extraction((corrected,), "sentence", "", 0)
    simple = _SIMPLE_VALUE.fullmatch(ans)
    if simple is not None:
        stop = a_start
        while stop > lo and text[stop - 1] in " \t\r\n":
            stop -= 1
        start = max(lo, text.rfind("\n", lo, stop) + 1)
        first = text[start : start + 1].lower()
        m = (
            _ANSWER_LINE.match(text, start, stop)
            if stop > lo and (first in _LABEL_FIRST or not first.isascii())
            else None
        )  # the hot path: a reasoning line before `Answer: 34` is ruled out by its first character
        before = _SIMPLE_VALUE.fullmatch(m.group("ans")) if m else None
        if before is not None and _number_value(before.group(1)) != _number_value(simple.group(1)):
            return Extraction((before.group(1), ans), "answer_line", "or", 0)
    return Extraction((ans,), "answer_line", "", 0)


# words that take back what came before: a later `the answer is X` after them is the new commitment
_CORRECTION_CUE = re.compile(
    r"\b(?:wait|correction|corrected|actually|oops|scratch that|I made (?:a|an) (?:\w+ )?(?:mistake|error|slip)"
    r"|let me (?:correct|redo|fix))\b|সংশোধ|ভুল হয়েছে|सुधार|संशोधित|गलती",  # Bengali and Hindi: correction, a mistake
    re.IGNORECASE,
)


def _corrected_after(text: str, start: int, end: int) -> str | None:
    """After an answer line, words that take it back and then a `the answer is X` sentence: X (the last commitment)."""
    tail = text[start:end]
    if not _may_name_answer(tail) or not _CORRECTION_CUE.search(tail):
        return None
    last = None
    for m in _SENTENCE.finditer(tail):
        last = m
    if last is None or _CORRECTION_CUE.search(tail, last.end()):
        return None  # nothing stated after the cue, or taken back again
    value = _sentence_value(tail[last.end() :])
    return value if value and "\\boxed" not in value else None


def _number_value(s: str) -> float:
    return float(s.replace(",", ""))


_NO_LINE = (None, -1, -1)


def _last_lines_answer(text: str, lo: int = 0, hi: int | None = None) -> tuple[str | None, int, int]:
    """An answer line among the last four lines of text[lo:hi]: (value, start, end), else
    (None, -1, -1). Reads only those lines, whatever the length of the text. With a span given,
    only a plain value (`Answer: 34`) is read; anything else is left to the caller (None)."""
    end = len(text) if hi is None else hi
    whole = lo == 0 and end == len(text)
    for _ in range(4):  # the answer line is nearly always among the last lines: look there first
        start = max(lo, text.rfind("\n", lo, end) + 1)
        m = _ANSWER_LINE.match(text, start, end)
        if m and m.group("ans").strip():
            if not whole:
                simple = _SIMPLE_VALUE.fullmatch(m.group("ans"))
                return (simple.group(1), m.start(), m.end()) if simple else _NO_LINE
            return _line_value(text, m), m.start(), m.end()
        if start == lo:
            break
        end = start - 1
    return _NO_LINE


# an answer heading on a line of its own, its value on the last line (PRM800K's steps end `# Answer\n\n29`;
# `## Final Answer`, `**Answer**`)
_ANSWER_HEADING = re.compile(
    r"(?:^|\n)[ \t]*(?:#{1,6}[ \t]*|\*\*)(?:final[ \t]+)?answer[ \t]*:?[ \t]*(?:\*\*)?:?[ \t]*\n"
    r"(?:[ \t]*\n)*[ \t]*(?P<ans>[^#\s][^\n]*?)[ \t]*\n?\s*\Z",  # (a `#### 2000` line under it is read as such)
    re.IGNORECASE,
)


def answer_line_end(text: str) -> int:
    """Where the line of the response's last answer line (`Answer: 540`) ends, or -1 when it has none."""
    return _answer_line_at(text)[2]


def _answer_line_at(text: str) -> tuple[str | None, int, int]:
    """The last answer line (or inline `Final Answer:`, or the value under an answer heading at the end):
    (value, start, end of its line)."""
    found = _last_lines_answer(text)
    if found[0] is not None:
        return found
    if "nswer" in text[-_TAIL:] and (m := _ANSWER_HEADING.search(text, max(0, len(text) - _TAIL))):
        simple = _SIMPLE_VALUE.fullmatch(m.group("ans"))
        return (simple.group(1) if simple else _answer_value(m.group("ans"))), m.start("ans"), m.end("ans")
    last = None
    for m in _ANSWER_LINE.finditer(text):
        if m.group("ans").strip():
            last = m
    if last is None:
        return _final_answer_inline(text)
    return _line_value(text, last), last.start(), last.end()


_REPEATED_LABEL = re.compile(r"(?:final\s+)?answer\s*[:：]\s*", re.IGNORECASE)


def _line_value(text: str, m: re.Match) -> str | None:
    ans = m.group("ans")
    if ans[:1] in "Aa" or ans[:1] in "Ff":
        ans = (
            _REPEATED_LABEL.sub("", ans, count=1) if _REPEATED_LABEL.match(ans) else ans
        )  # `Answer: Answer: 24`
    simple = _SIMPLE_VALUE.fullmatch(ans)
    if simple:  # `Answer: 34`, `Answer: $-1,000$.`: the DAPO hot path, no further reading needed
        return simple.group(1)
    return _answer_value(_display_tail(text, m.end("ans"), ans))


def _final_answer_inline(text: str) -> tuple[str | None, int, int]:
    """`... so h = 4. Final Answer: The volume is 120. I hope it is correct.` inside a line."""
    if "final answer" not in text[-_TAIL:].lower():
        return _NO_LINE
    m = None
    for found in _FINAL_INLINE.finditer(text, max(0, len(text) - _TAIL)):
        m = found
    if m is None:
        return _NO_LINE
    end = text.find("\n", m.end())
    end = end if end != -1 else len(text)
    ans = text[m.end() : end].strip()
    return (_answer_value(ans), m.start(), end) if ans else _NO_LINE


_CONCLUDING_JOIN = re.compile(r"\$\s*[,;]?\s*(?:so|thus|hence|therefore)\b,?\s*\$", re.I)


_NUMBER_THEN_NATIVE_WORDS = re.compile(r"(-?\d+(?:[.,]\d+)?(?:\s*/\s*\d+)?\s*%?)\s+([^\x00-\x7f\d][^\d]*)")


def _answer_value(ans: str) -> str | None:
    """The value on an answer line: a box, a math span, or a sentence read by the prose policy."""
    boxed = extract_boxed(ans)
    if boxed is not None:
        parts, joined = _box_group(ans)
        # `Answer: $\boxed{\frac{3}{2}}$ or $\boxed{-\frac{1}{8}}$`: two answers, as off the line
        if len(parts) > 1:
            return (" or " if joined == "or" else ", ").join(_strip_wrapping(p) for p in parts)
        return _strip_wrapping(boxed) or None
    ans = _HOPE_ANY.sub("", _DANGLING_CLOSE.sub("", ans))
    counted = _NUMBER_THEN_NATIVE_WORDS.fullmatch(ans.strip())
    if (
        counted
    ):  # `উত্তর: ৩/২ কেজি`, `২০% ক্ষতি`: a value, then words in a script of its own and no other number
        return counted.group(1)
    m = _MINERVA.search(ans)  # `Final Answer: The final answer is $X$. I hope it is correct.`
    if m:
        return _sentence_value(ans[m.end() :])
    value = _strip_wrapping(ans)
    # `$f(x) = x^3 - 3x + 5$, so $f(-2) = ... = 3.$`: math spans joined by a conclusion are a sentence, its last the value
    if value and (_is_sentence(value) or (value.count("$") >= 4 and _CONCLUDING_JOIN.search(value))):
        bold = _BOLD_PAIR.findall(value)
        # `There will be **84 crayons** in total, spread across the 7 boxes.`: the one bold value
        if len(bold) == 1 and _NUMBER.search(bold[0]):
            return _strip_wrapping(bold[0]) or None
        value = _prose_value(value) or value
    return value or None


def _minerva(text: str) -> str | None:
    """`... The final answer is $X$. I hope it is correct.` anywhere (one-line responses)."""
    idx = text.lower().rfind("final answer is")
    if idx == -1:
        return None
    rest = _HOPE.sub("", text[idx + len("final answer is") :].lstrip(" \t:："))
    return _sentence_value(rest)


def _sentence_value(rest: str, restated: bool = False) -> str | None:
    """The value that starts `rest` (text right after `the answer is`): a math span, a box, or
    the words up to the end of the sentence. `restated`: the words start a line of their own after the
    marker, a sentence that states the answer (read by the prose policy)."""
    rest = _HOPE_ANY.sub("", rest).lstrip().removeprefix('\\"').removeprefix('"')
    m = _MATH_SPAN.match(rest)
    if m:
        end = _SENT_END.search(_MATH_SPAN.sub(lambda x: "_" * len(x.group(0)), rest))
        whole = rest[: end.start()] if end else rest
        if _JOINER.fullmatch(_MATH_SPAN.sub("", whole).replace('\\"', "").replace('"', "")):
            return _strip_wrapping(whole.replace('\\"', "").replace('"', "").replace("$", " ")) or None
        return _strip_wrapping(next(g for g in m.groups() if g is not None)) or None
    boxed = extract_boxed(rest[:_MAX_BARE]) if rest.startswith("\\boxed") else None
    if boxed:
        return _strip_wrapping(boxed)
    end = _SENT_END.search(rest)
    if end and rest[end.start() : end.start() + 1] in "?？" and "\n" not in rest[: end.start()]:
        return None  # `So the answer is 52? Wait, no.`: a question to itself, not a commitment
    value = rest[: end.start()] if end else rest
    if "\n" in value:
        value = value.split("\n", 1)[0]
    # a sentence restating the answer on its own line: `The answer is:\n\n2/3 of 9 is equal to 6.`,
    # `Answer:\nJosh made a profit of $70,000.`
    if restated and _is_sentence(value):
        value = _prose_value(value) or _one_number(value) or value
    value = _BECAUSE.split(value, 1)[
        0
    ]  # `19, because before giving 5 away he had 24`: the reason is no answer
    value = _ARTICLE.sub("", value)  # `la respuesta es el 18`
    if "**" in value and _CJK.search(
        value
    ):  # `Janet 每天在农贸市场赚取 **18 美元**`: the one bold value of the sentence
        bold = re.findall(r"\*\*([^*]*\d[^*]*)\*\*", value if value.count("**") % 2 == 0 else value + "**")
        if len(bold) == 1:
            value = bold[0]
    lead = _CJK_LEAD.fullmatch(value.strip())
    if lead:  # `解方程得到n=8`: Chinese words leading to the value
        value = lead.group(1)
    trailing = _VALUE_THEN_WORDS.fullmatch(value.strip())
    if trailing:  # `18です`, `18입니다`, `18 है`, `18'dir`, `19個です`: the value, then the sentence's verb
        value = trailing.group(1)
    return _strip_wrapping(value) or None if len(value) <= _MAX_BARE else None


# a last clause that goes on past the text's end: the response was cut off in the middle of its reasoning
_UNFINISHED = re.compile(
    r"(?:,\s*but|\bbut we|\bthen we|\bnext we|\bwe (?:must|need to|have to))\b[^.!?$]*$", re.I
)
_BECAUSE = re.compile(
    r",\s*(?:(?:because|since|as|which|so that|namely|porque|ya que|car|parce que|puisque|weil|denn|da|perché|poiché|pois"
    r"|потому что|так как|karena|sebab|çünkü|vì|bởi vì|not)\b|i\.\s?e\b)",  # `i.e.`: a sentence split may cut its dot
    re.IGNORECASE,
)
_ARTICLE = re.compile(
    r"^\s*(?:el|la|los|las|le|les|l'|der|die|das|il|lo|o|a|os|as)\s+(?=[-−–]?\d)", re.IGNORECASE
)
_VALUE_THEN_WORDS = re.compile(
    r"((?:[₹€£¥₩₫฿₽]|R\$|Rp|shilingi\s)?\s*[-−–]?\s*%?\d[\d.,'\u066b\u066c\u00a0\u202f\u2009 ]*"
    r"(?:\s*(?:分の|분의|分之)\s*\d+|\s*[万亿만억])?(?:\s*%)?)"
    r"\s*(?:(?:[A-Za-z]{1,4})?'(?:d[ıiuü]r|t[ıiuü]r)|(?!["
    + "πΠ√∛∜²³¹⁰⁴⁵⁶⁷⁸⁹⁻⁺ⁿ·×÷∞±∓⁄"
    + r"])[^\x00-\x7f\d][^\d$\\]*)"
)  # (a math sign after the value is part of it: `2π`, `5²`, `2√3` are no value then words)
# Chinese words leading to the value, and a measure word after it (`拿走了34把`, `一共有 34 把椅子`)
_CJK_LEAD = re.compile(
    r"[\u4e00-\u9fff，：:\s]+([-+(\[{$\\A-Za-z0-9\uff10-\uff19][^\u4e00-\u9fff]*?)\s*[\u4e00-\u9fff（）]*"
)


def _may_name_answer(text: str) -> bool:
    """Cheap gate before `_SENTENCE` runs: the words it needs (`answer`, 答案, 选) are in the text."""
    if "answer" in text.lower() or "答" in text or "选" in text:
        return True
    tail = text[-_TAIL:]
    return not tail.isascii() or any(w in tail.lower() for w in _ASCII_ANSWER_WORDS)


def _answer_after_last_box(text: str) -> str | None:
    """A `the answer is X` sentence written after the last box: a correction in prose."""
    end = _boxes(text)[-1][1] if _boxes(text) else -1
    tail = text[end + 1 :]
    if end < 0 or not _may_name_answer(tail) or len(tail) > _TAIL:
        return None
    last = None
    for m in _SENTENCE.finditer(tail):
        last = m
    if last is None:
        return None
    v = _sentence_value(tail[last.end() :])
    return v if v and "\\boxed" not in v else None


# a last sentence that states a result of its own: a copula or a colon, then one number and at most three words
# (`There are 35 ways.`, `the remainder is 2.`, `...: 0 intercepts.`, `So the original price was $24.38.`)
_STATED_RESULT = re.compile(
    r"(?:\b(?:is|are|was|were|equals)|:|\b(?:so|thus|hence|therefore),?\s+(?:[A-Za-z]+\s+){1,4}?)"  # `so he pays 40`
    r"\s*\\?\$?\s*(-?\d[\d,]*(?:\.\d+)?)\s*\$?\s*((?:[A-Za-z][A-Za-z-]*\s*){0,3})$"
)


def _last_box_end(text: str) -> int:
    """Where the last `\\boxed{...}` closes (its `}`), or -1: one scan from that box on, not over the text."""
    start = text.rfind("\\boxed{")
    if start < 0:
        return -1
    depth = 0
    for i in range(start + len("\\boxed"), len(text)):
        if text[i] == "{":
            depth += 1
        elif text[i] == "}":
            depth -= 1
            if depth == 0:
                return i
    return -1


def result_stated_after(text: str, line_end: int = -1) -> str | None:
    """The number that a sentence after the last box's sentence (or after the last `####` line, or after an answer
    line ending at `line_end`) states as a result, when the response's last sentence does (`$\\boxed{6}$ students.
    ... There are 30 ways.`: 30), else None. Its own sentence's words after a box (`$x = \\boxed{5}$ and $y = 3$`)
    are not a later statement."""
    end = _last_box_end(text)
    marker = text.rfind("####")
    if line_end > max(end, marker):
        end = line_end
    elif marker > end:
        end = text.find("\n", marker)
    elif end >= 0:
        stop = _SENTENCE_END.search(text, end + 1)
        end = stop.end() if stop else -1
    rest = text[end:] if end >= 0 else ""
    if not rest.strip() or len(rest) > _TAIL:
        return None
    sent = _last_sentence(rest)
    m = _STATED_RESULT.search(sent.rstrip(" .!"))
    if m is None or "?" in sent:
        return None
    clause = re.split(r"[,;:]", sent[: m.start(1)])[-1]  # `Order doesn't matter, so there are 35 ways`
    if re.search(r"\bnot\b|n't\b|\bif\b", clause, re.IGNORECASE) or _QUALIFIED.search(sent[: m.start(1)]):
        return None
    return m.group(1).replace(",", "")


# the marker after whitespace, or after a newline stored escaped (`...稼ぎます。\\n#### 18`: a log that wrote `\\n`)
_GSM8K_AT_END = re.compile(r"(?:\s|\\n)####\s*(?P<ans>[^\n#]{1,40}?)[\s.]*\Z")


def _gsm8k(text: str) -> str | None:
    """GSM8K's `#### 72`: the last such line that holds a value, not a Markdown heading (`#### (2) 求周长`,
    `#### Step 3: the total`); also the marker at the end of the text's last line (`... body length. #### 10.`)."""
    end = _GSM8K_AT_END.search(text, max(0, len(text) - 60))
    if end and re.fullmatch(r"-?\$?\s*[\d.,]+\s*%?", end.group("ans").strip()):
        return end.group("ans").strip().rstrip(".").replace(",", "")
    if end and re.fullmatch(r"\(?[A-E]\)?", end.group("ans").strip()):
        return end.group("ans").strip()  # `So our selection is option C. #### C` (Abel's choice format)
    last = None
    for m in _GSM8K.finditer(text):
        ans = m.group("ans")
        if _CJK.search(ans):
            continue
        words = re.findall(r"[A-Za-z]{2,}", _MATH_SPAN.sub(" ", ans))
        if len(words) <= 2:
            last = ans
        elif all(w.lower() in _NUMBER_WORDS for w in words):  # `#### three thousand two hundred`
            n = number_from_words(ans.strip().rstrip("."))
            last = str(n) if n is not None else last
    return (
        re.sub(r"(?<!\\),", "", _strip_wrapping(last)) if last else None
    )  # `1,250`, not the thin space `57\,500`


def _last_number(text: str) -> str | None:
    last = None
    for m in _NUMBER.finditer(text):
        last = m.group(0)
    return last.rstrip(".").replace(",", "") if last else None


_WORD = re.compile(r"(?<![\\a-zA-Z])[a-zA-Z]{3,}(?![a-zA-Z])")
_NON_PROSE_WORDS = frozenset(
    [
        "and",
        "or",
        "pct",
        "percent",
        "percentage",
        "sqrt",
        "frac",
        "pi",
        "inf",
        "infty",
        "cdot",
        "times",
        "dfrac",
        "tfrac",
        "text",
        "mathrm",
        "left",
        "right",
        "begin",
        "end",
        "pmatrix",
        "bmatrix",
        "matrix",
        "array",
        "cup",
        "cap",
        "emptyset",
        "varnothing",
        "ldots",
        "cdots",
        "dots",
        "mod",
        "pmod",
    ]
)


def _is_sentence(s: str, gold: bool = False) -> bool:
    """Prose rather than a bare answer: a math span among words, or a copula with words. A response's Chinese
    words count too; a gold's do not (`$1$或$2$` is both values)."""
    outside = _MATH_SPAN.sub(" ", s)
    words = [w for w in _WORD.findall(outside) if w.lower() not in _NON_PROSE_WORDS]
    if not gold:  # `所以 $C$ 的方程为 $3x^2+4y^2=12$`: Chinese prose around math spans, not `$1$或$2$`
        words += [w for w in _CJK_WORDS.findall(outside) if w not in _CJK_JOINERS]
    if _MATH_SPAN.search(s) and words:
        return True
    return len(words) >= 3 or (
        len(words) >= 1 and bool(_COPULA.search(outside)) and len(outside.split()) >= 3
    )


def _last_sentence(text: str) -> str:
    """The last sentence of `text`: sentence ends inside math spans do not count."""
    tail = _HOPE.sub("", text[-_TAIL:]).rstrip().rstrip(".!?。").rstrip()
    spans = [(m.start(), m.end()) for m in _MATH_SPAN.finditer(tail)]
    start = 0
    for m in _SENT_END.finditer(tail):
        if not any(a <= m.start() < b for a, b in spans):
            start = m.end()
    for a, b in spans:  # a display that ends its sentence inside (`... \\geq 2.$$ Therefore, ...`)
        if (
            b > start
            and re.match(r"\s+[A-Z]", tail[b : b + 3])
            and re.search(r"[.!?]\s*(?:\$\$|\\\]|\$|\\\))$", tail[a:b])
        ):
            start = b
    fence = tail.rfind("```")  # a program or its output block ends whatever came before the sentence after it
    if fence >= start:
        start = fence + 3
    return tail[start:].strip()


def _prose_value(text: str) -> str | None:
    """Unmarked prose (policy, see the module docstring): the final math span of the last
    sentence, or the short value after its last copula when that comes after every span."""
    sent = _last_sentence(text)
    if not sent:
        return None
    if (
        "**" in sent
    ):  # `..., so James runs **540 meters** per week.`: the one bold value, the last number said
        bold = list(_BOLD_PAIR.finditer(sent))
        if (
            len(bold) == 1
            and _BOLD_VALUE.fullmatch(bold[0].group(1))
            and not re.search(r"\d", sent[bold[0].end() :])
        ):
            return _strip_wrapping(bold[0].group(1)) or None
    if "ly" in sent or "about" in sent or "around" in sent or "close" in sent:
        sent = _APPROX_AFTER.sub("", sent) or sent
    spans = list(_MATH_SPAN.finditer(sent))
    last_cop = None
    for m in _COPULA.finditer(_MATH_SPAN.sub(lambda m: " " * len(m.group(0)), sent)):
        last_cop = m
    if last_cop is not None and (not spans or last_cop.start() >= spans[-1].end()):
        value = _strip_wrapping(_BOLD_PAIR.sub(r"\1", sent[last_cop.end() :]))  # `= **204** minutes`
        if ", " in value:  # `is 27, namely 8 + 9 + 10`: the clause after the value is no part of it
            value = _BECAUSE.split(value, 1)[0]
        so = _SO_CLAUSE.search(value) if ", " in value else None
        if so:  # `= 243 · 10^{15}, so it has 18 digits`: the number the concluding clause counts
            counted = _ONE_NUMBER.fullmatch(so.group(1))
            return counted.group(1) if counted else None
        bracket = _BRACKETED.fullmatch(value)
        if bracket:  # `The angle is [90].`: a value in square brackets
            return bracket.group(1).strip() or None
        counted = _COUNTED.fullmatch(value)
        if counted and not _SCALE_WORD.match(
            value, counted.end(1)
        ):  # `$18 every day`: the number, not what it counts
            return counted.group(1)
        short = (
            value and len(value) <= _MAX_PROSE_VALUE and len(_WORD.findall(_MATH_SPAN.sub(" ", value))) <= 2
        )
        if short and re.search(r"[\d\\(\[{]", value):
            return value
        if _WORD_ANSWER.fullmatch(value) and (value[0].isupper() or value.lower() in _ANSWER_WORDS):
            return value  # `So the day is Monday.`, `Hence the sum is even.`: one name or answer word
    if spans:
        last = spans[-1]
        value = next(g for g in last.groups() if g is not None)
        scale = _SCALE_WORD.match(sent, last.end())  # `$2.5$ million`: the scale is part of the value
        group = [value]
        k = len(spans) - 1
        while k > 0 and _SPAN_JOINER.fullmatch(sent[spans[k - 1].end() : spans[k].start()]):
            k -= 1  # `$x=2$ or $x=3$`, `$1$, $2$ and $4$`: spans joined by nothing but `or`, `and`, commas
            group.insert(0, next(g for g in spans[k].groups() if g is not None))
        solved = _SOLVED.fullmatch(_strip_wrapping(group[-1])) if len(group) > 1 else None
        if solved and all(
            "=" in v and solved.group(1) in v and not _SOLVED.fullmatch(_strip_wrapping(v))
            for v in group[:-1]
        ):
            group = group[
                -1:
            ]  # `Then $2x = 8$ and $x = 4$.`: a step, then the letter solved; not two answers
        if len(group) > 1 and not scale:
            joined = (
                " or "
                if any(
                    _OR.search(sent[a.end() : b.start()])
                    for a, b in zip(spans[k:-1], spans[k + 1 :], strict=True)
                )
                else ", "
            )
            return joined.join(_strip_wrapping(v) for v in group)
        return _strip_wrapping(value + (" " + scale.group().strip() if scale else "")) or None
    brackets = [b for b in _BRACKET_SPAN.finditer(sent) if not b.group(1).isupper()]  # not `[TOOL CALL]`
    if brackets:  # `First try [30], second try [45].`: the last bracketed value
        return brackets[-1].group(1).strip() or None
    return _concluded_number(sent)


_SOLVED = re.compile(r"\s*([a-zA-Z])\s*=\s*-?(?:[\d.]+(?:\s*/\s*\d+)?|\\frac\{\d+\}\{\d+\})\s*")  # `x = 4`
# `Therefore, James runs a total of 540 meters per week.`: a concluding sentence with one number in it
_CONCLUSION = re.compile(
    r"(?:therefore|thus|hence|so|in total|altogether|in conclusion)\b\s*,?\s", re.IGNORECASE
)
# a concluding clause at the end of a sentence: `..., so the house cost $90,000`
_BOLD_PAIR = re.compile(r"\*\*([^*\n]+)\*\*")
# a bold value, not a bold sentence: a number with a sign or currency, a percent, and at most two words (`540 meters`)
_BOLD_VALUE = re.compile(r"\s*[$€£¥₹]?\s*-?\d[\d,.:]*\s*%?(?:\s*[A-Za-z.]+){0,2}\s*")
_CONCLUDING_CLAUSE = re.compile(
    r"[,;]\s*(?:and\s+)?(?:so|therefore|thus|hence)\s*,?\s+([^,;]+)$", re.IGNORECASE
)
_ECHO_STOP = frozenset(
    [
        "the",
        "and",
        "for",
        "how",
        "much",
        "many",
        "does",
        "did",
        "was",
        "were",
        "are",
        "you",
        "his",
        "her",
        "she",
        "him",
        "they",
        "them",
        "its",
        "has",
        "had",
        "who",
        "what",
        "will",
        "would",
        "with",
        "from",
        "each",
        "that",
        "this",
        "there",
        "their",
        "then",
        "than",
        "into",
        "per",
        "all",
        "any",
        "can",
        "get",
        "got",
        "one",
        "two",
        "have",
    ]
)


# the past forms a concluding sentence writes for the verb its question asks with (`paid` for "pay")
_PAST = {"paid": "pay", "spent": "spend", "made": "make", "sold": "sell", "bought": "buy", "left": "leave",
         "gave": "give", "took": "take", "ran": "run", "ate": "eat", "drank": "drink", "won": "win", "lost": "lose",
         "saw": "see", "read": "read", "wrote": "write", "found": "find", "kept": "keep", "brought": "bring",
         "caught": "catch", "grew": "grow", "drew": "draw", "flew": "fly", "rode": "ride", "swam": "swim",
         "earned": "earn", "needed": "need", "owed": "owe", "saved": "save"}  # fmt: skip


def _echoes_question(sent: str, question: str) -> bool:
    """A last sentence that restates the question's ask with its answer (`She makes 18 dollars a day.` for "How much
    in dollars does she make every day?"): two content words of the asking sentence (compared by their first four
    letters, a verb's past form as the verb) are in it, or its one content word (`She paid $1,430.` for "How much
    did she pay?")."""
    asks = [q for q in re.split(r"(?<=[.?!])\s+", question.strip()) if "?" in q] or [question]

    def stems(t: str) -> set[str]:
        words = (w.lower() for w in re.findall(r"[A-Za-z]{3,}", t))
        return {_PAST.get(w, w)[:4] for w in words if w not in _ECHO_STOP}

    asked = stems(
        asks[-1]
    )  # `How much did she pay?` asks with one content word; `She paid $1,430.` echoes it
    return bool(asked) and len(stems(sent) & asked) >= min(2, len(asked))


_QUALIFIED = re.compile(
    r"(?:\b(?:more|less|fewer|greater|smaller)\s+than|\bat\s+(?:least|most)|\babout|\baround|\bapproximately"
    r"|\broughly|\bnearly|\balmost|\bover|\bunder|\bup\s+to)\s*\$?\s*$",
    re.IGNORECASE,
)


def _concluded_number(sent: str) -> str | None:
    """The one number of a last sentence that starts with a conclusion word (`Therefore`, `Thus`, `So`, ...)
    and holds nothing else numeric: no math, no second number, no question, no negation, and the
    number not qualified (`at least 3`, `about 40`)."""
    return _one_number(sent) if _CONCLUSION.match(sent) else None


def _one_number(sent: str, given: frozenset[str] = frozenset()) -> str | None:
    """The guards both concluding-sentence readings share: no question, negation or math in `sent`, and exactly
    one number that `given` (the question's numbers) does not hold, unqualified (`at least 3`, `about 40`) and
    whole (not `40%`, `3/4` or part of a token)."""
    if "?" in sent or re.search(r"\bnot\b|n't\b|\\(?!\$)|[=<>^]", sent):  # `\$5` is money, not math
        return None
    new = [n for n in _NUMBER.finditer(sent) if n.group(0).replace(",", "") not in given]
    if len(new) != 1 or _QUALIFIED.search(sent[: new[0].start()]):
        return None
    n = new[0]
    if re.match(r"\s*(?:%|percent\b|/|\.\d|[a-zA-Z]*\d)", sent[n.end() :]):  # 40%, 3/4, a mixed token
        return None
    return n.group(0).replace(",", "")


_LEADING_PERCENT = re.compile(r"\s*(\d+(?:\.\d+)?)\s*%\s+(?:of\s+)?[A-Za-z]")


def concluded_number_beside(text: str, question: str, *, marked: bool = False) -> str | None:
    """With the question known: the one number of a concluding sentence that the question does not hold
    (`Therefore, Kylar needs to pay $64 for the 16 glasses.` for a question about 16 glasses: 64). The
    sentence is `text` when it is one sentence (an answer line that is prose), else `text`'s last sentence;
    the rules of `_concluded_number` hold (conclusion word, no math, question or negation), and every other
    number in it must be one of the question's. `marked`: the text is an answer line's value, itself the
    commitment, so it needs no conclusion word (`9 positive divisors of 196`)."""
    one_line = "\n" not in text.strip() and len(text) <= _MAX_BARE
    sent = (
        text.strip()
        if one_line and (marked or len(_SENT_END.findall(text.strip())) <= 1)
        else _last_sentence(text)
    )
    sent = sent.rstrip(".!?。").strip()
    clause = None if marked else _CONCLUDING_CLAUSE.search(sent)
    if (
        clause
    ):  # `Alicia has ridden 18 × 1.5 = 27 miles, so they meet 27 miles from City A`: the clause after `so`
        sent = clause.group(1)
    if not sent or not (marked or clause or _CONCLUSION.match(sent) or _echoes_question(sent, question)):
        return None
    if re.search(
        r"[+*/×÷·]|\d\s*(?:[x\u2013-]|to)\s*\d", sent
    ):  # `8 + 5`, `8 x 5`, `5-10`: arithmetic or a range
        return None
    given = frozenset(m.group(0).replace(",", "") for m in _NUMBER.finditer(question))
    found = _one_number(sent, given)
    if found is None and marked:  # `Answer: She needs to give them 20 cups.` for a question about 20 chickens
        found = _new_quantity(sent, question)
    # `Final Answer: 60% enrolled in hip-hop dance.` for "What percentage ...?"
    percent = _LEADING_PERCENT.match(sent) if found is None and marked else None
    if percent and len(_NUMBER.findall(sent)) == 1 and PERCENT_MENTIONED.search(asking_sentence(question)):
        found = percent.group(1) + "%"
    return found


def _new_quantity(sent: str, question: str) -> str | None:
    """The one number of an answer line that the question also holds, when the word after it names another thing than
    the question's word after that number (`20 cups` for a flock of `20 chickens`): a new quantity, not a given
    restated. The guards of `_one_number` hold; a number with no word after it, or the question's word, is not read."""
    value = _one_number(sent)  # with nothing given: the sentence's only number, whole and unqualified
    if value is None:
        return None
    n = next(_NUMBER.finditer(sent))
    noun = re.match(r"\s*([A-Za-z]{3,})", sent[n.end() :])
    after = {
        m.group(1).lower()[:4]
        for m in re.finditer(r"(?<![\d.,])" + re.escape(value) + r"\s*([A-Za-z]+)", question.replace(",", ""))
    }
    if noun is None or noun.group(1).lower()[:4] in after or not after:
        return None
    return value


# words a count or an amount is written with after its number words (`five laps`, `seventy-five dollars`)
_MEASURE_WORDS = frozenset({"dollars", "dollar", "cents", "cent", "euros", "euro", "pounds", "yuan", "rupees",
                            "miles", "mile", "kilometers", "kilometres", "km", "meters", "metres", "feet",
                            "foot", "inches", "inch", "hours", "hour", "minutes", "minute", "seconds",
                            "second", "days", "day", "weeks", "week", "months", "month", "years", "year"})  # fmt: skip


def number_in_words(text: str, question: str) -> str | None:
    """An answer line written in English number words, then at most two words that name what it counts
    (`seventy thousand dollars`, `five laps` for a question about laps): the number. The words after it
    must be the question's own or a unit of money, length or time (`two thirds`, `seven dozen` stay unread)."""
    words = text.strip().rstrip(".!").replace("-", " ").split()
    if not 1 <= len(words) <= 8 or any(ch.isdigit() for ch in text):
        return None
    for i in range(len(words) - 1, 0, -1):  # `the remainder is five`: the words after the last copula
        if words[i - 1].lower() in ("is", "are", "equals", "="):
            words = words[i:]
            break
    asked = {w.rstrip("s") for w in re.findall(r"[a-z]+", question.lower())}
    for cut in range(len(words), max(len(words) - 3, 0), -1):
        head, tail = words[:cut], [w.lower() for w in words[cut:]]
        n = number_from_words(" ".join(head))
        if n is None:
            continue
        if all(w in _MEASURE_WORDS or w.rstrip("s") in asked for w in tail):
            return str(n)
        if tail == ["percent"] and re.search(
            r"percent|%", asking_sentence(question), re.I
        ):  # `thirty percent`, asked so
            return f"{n}%"
        return None
    return None


_RUN_EDGE = frozenset(
    {"a", "and", "negative", "minus", "half", "halves", "quarter", "quarters", "third", "thirds"}
)


_COPULAS = frozenset({"is", "are", "was", "were", "equals", "be"})
_HOW_MANY_NOUN = re.compile(  # `how many steps`, not `how many does each get`
    r"\bhow\s+many\s+(?!(?:do|does|did|are|is|were|was|will|would|can|could|should|more|of)\b)([a-z]+)",
    re.IGNORECASE,
)


def count_in_words(text: str, question: str) -> str | None:
    """A last sentence without digits that writes its answer in English number words (`Elliott took two thousand
    steps during his jog.`, `He made a profit of seventy thousand dollars.`, `... and the difference m - n is four.`):
    the number. A run of number words counts when the next word is a noun of the question or a unit of money,
    length or time, or when it ends the sentence after `is`; any other number word (`two ways` where the question
    names no way, `two thirds`) leaves the sentence unread. Where the question asks "how many <noun>", only the
    runs right before that noun count and other number words are passed over (`the weight of one squig is equal to
    the weight of three treeks`). A sentence with digits is read from its last clause (after the last comma), when
    that clause has none."""
    sentence = _last_sentence(text)
    if any(ch.isdigit() for ch in sentence):
        sentence = re.split(r"[,;]\s+", sentence)[-1]
    if not sentence or any(ch.isdigit() for ch in sentence):
        return None
    words = re.findall(r"[a-z]+", sentence.lower().replace("-", " "))
    asked = {w.rstrip("s") for w in re.findall(r"[a-z]+", question.lower())}
    how_many = _HOW_MANY_NOUN.search(question)
    counted = how_many.group(1).lower().rstrip("s") if how_many else None
    found = set()
    i = 0
    while i < len(words):
        if words[i] not in _NUMBER_WORDS or words[i] in _RUN_EDGE:
            i += 1
            continue
        j = i
        while j < len(words) and words[j] in _NUMBER_WORDS:
            j += 1
        end = j
        while end > i and words[end - 1] in _RUN_EDGE:
            end -= 1
        n = number_from_words(" ".join(words[i:end]))
        after = words[j] if j < len(words) else None
        if counted is not None and (after or "").rstrip("s") != counted:
            i = j  # not the count asked for: passed over
            continue
        if words[i:j] == ["one"] and after not in _MEASURE_WORDS and (after or "").rstrip("s") not in asked:
            i = j  # `the larger one`, `one of them`: a pronoun, no count
            continue
        if n is None or end < j:
            return None  # `two thirds`, `one half`: not one integer in words
        if (after is None and i > 0 and words[i - 1] in _COPULAS) or (
            after is not None and (after in _MEASURE_WORDS or after.rstrip("s") in asked)
        ):
            found.add(n)
        else:
            return None  # another number in words: not one answer
        i = j
    return str(found.pop()) if len(found) == 1 else None


_WHOLE_ENV = re.compile(
    r"(?:\$\$|\\\[|\$)?\s*(\\begin\{([a-zA-Z]+\*?)\}.*\\end\{\2\})\s*(?:\$\$|\\\]|\$)?\s*\.?", re.DOTALL
)


def _whole_environment(text: str) -> str | None:
    """The text is one `\\begin{X}...\\end{X}` (optionally in `$$`, `\\[ \\]` or `$`), on any
    number of lines: that environment, else None."""
    if not text.startswith(("\\begin{", "$", "\\[")) or len(text) > _TAIL:
        return None
    m = _WHOLE_ENV.fullmatch(text)
    if m is None or m.group(1).count("\\begin{" + m.group(2) + "}") != 1:
        return None
    return m.group(1)


_CACHE: dict[int, tuple[str, bool, bool, Extraction]] = {}
_CACHE_SIZE = 64


_DOT_GROUPS = re.compile(r"(?<![\d.,])(\d{1,3}(?:\.\d{3})+)(?:,(\d+))?(?![\d.])")
_SPACE_GROUPS = re.compile(r"(?<![\d.,])\d{1,3}(?:[ \u00a0\u202f\u2009]\d{3})+(?![\d])")
_COMMA_DECIMAL = re.compile(r"(?<![\d.,])(\d+),(\d+)(?![\d,.])")


_GROUPED = re.compile(
    r"\d(?:[.,'\u00a0\u202f\u2009 ]|\{,\})\d"
)  # a mark between digits: its reading may differ


def _writes_decimal_comma(tail: str) -> bool:
    """The response is in a language that writes a decimal comma (its answer words are in `tail`); substring
    tests, not a regex over every position: this runs on every response."""
    low = tail.lower()
    return any(w in low for w in _DECIMAL_COMMA_WORDS)


def _decimal_comma(answer: str) -> str:
    """Numbers as a language with a decimal comma writes them (German, Spanish, French, Russian, ...):
    `1.000` is 1000, `1.234,5` is 1234.5, `1 000` is 1000, `3,5` is 3.5, `1,000 kg` is 1 kg."""
    answer = _DOT_GROUPS.sub(
        lambda m: m.group(1).replace(".", "") + ("." + m.group(2) if m.group(2) else ""), answer
    )
    answer = _SPACE_GROUPS.sub(lambda m: re.sub(r"\D", "", m.group(0)), answer)
    answer = re.sub(r"(?<=\d)\{,\}(?=\d)", ",", answer)  # `3{,}15`: LaTeX's decimal comma
    answer = re.sub(r"(?<=\d)'(?=\d{3}(?!\d))", "", answer)  # `1'000` (Swiss, French)
    return _COMMA_DECIMAL.sub(r"\1.\2", answer)


def extract(text: str, *, gold: bool = False, cut_off: bool = False) -> Extraction:
    """The final answer of `text` (see the module docstring), or an empty Extraction.

    gold=True reads a reference answer (the same rules; kept apart for the cache). cut_off=True:
    the response stopped at the token limit, so only an answer line or a box is read.

    The last few calls are remembered by the identity of `text` (check, the reward and the
    judge read the same response several times): hashing a 60k-character response would cost
    more than reading its answer."""
    if not isinstance(text, str) or not text:
        return NONE
    hit = _CACHE.get(id(text))
    if hit is not None and hit[0] is text and hit[1] == gold and hit[2] == cut_off:
        return hit[3]
    ex = _extract(text, gold, cut_off)
    if (
        ex.answers
        and not gold
        and _GROUPED.search("".join(ex.answers))
        and _writes_decimal_comma(text[-_TAIL:])
    ):
        ex = ex._replace(answers=tuple(_decimal_comma(a) for a in ex.answers))
    if ex.answers and not "".join(ex.answers).strip():  # `\boxed{}`, `Answer: $ $`: nothing
        ex = Extraction((), "none", "", ex.box_depth)
    if len(_CACHE) >= _CACHE_SIZE:
        _CACHE.clear()  # a few recent texts are all it is for
    _CACHE[id(text)] = (text, gold, cut_off, ex)  # the entry holds `text`, so its id stays its own
    return ex


_WINDOWS = (2_000, 16_000)  # read from the end: these many final characters first, then all
_MARGIN = 500  # a marker this close to a window's start might belong to text before it


# a reference answer stored as sympy's own printout (`Interval(0, oo)`, `Eq(x, Interval(-2, 7))`, `Union(...)`):
# some datasets keep `str(sympy_object)` as the gold
_SYMPY_REPR = re.compile(r"(?:Eq\(\s*[A-Za-z]\w*\s*,\s*)?(?:Interval|Union|FiniteSet)\b.*", re.DOTALL)
_INTERVAL_REPR = re.compile(
    r"Interval(?:\.(open|Lopen|Ropen))?\(\s*([^(),]+(?:\([^()]*\))?[^(),]*)\s*,\s*([^(),]+(?:\([^()]*\))?[^(),]*?)"
    r"(?:\s*,\s*(True|False)\s*,\s*(True|False))?\s*\)"
)


def _sympy_repr_as_latex(text: str) -> str:
    """`Interval.Lopen(0, oo)` -> `(0, \\infty]`... as a reader writes it; `Eq(x, Interval(-2, 7))` -> `[-2, 7]`."""
    t = text.strip()
    m = re.fullmatch(r"Eq\(\s*[A-Za-z]\w*\s*,\s*(.*)\)", t, re.DOTALL)
    if m:
        t = m.group(1).strip()

    def interval(m: re.Match) -> str:
        kind, a, b = m.group(1), m.group(2).strip(), m.group(3).strip()
        left_open = (
            kind in ("open", "Lopen") or m.group(4) == "True" or a == "-oo"
        )  # sympy opens an infinite end
        right_open = kind in ("open", "Ropen") or m.group(5) == "True" or b == "oo"
        return ("(" if left_open else "[") + a + ", " + b + (")" if right_open else "]")

    t = _INTERVAL_REPR.sub(interval, t)
    u = re.fullmatch(r"Union\((.*)\)", t, re.DOTALL)
    if u:
        t = u.group(1).replace("), (", ") \\cup (").replace("], [", "] \\cup [").replace("), [", ") \\cup [")
        t = t.replace("], (", "] \\cup (")
    f = re.fullmatch(r"FiniteSet\((.*)\)", t, re.DOTALL)
    if f:
        t = "\\{" + f.group(1) + "\\}"
    t = re.sub(r"(?<![\w\\])oo\b", "\\\\infty", t)
    t = re.sub(r"\bsqrt\(([^()]+)\)", r"\\sqrt{\1}", t)
    return t if "Interval" not in t and "Union" not in t and "FiniteSet" not in t else text


def _extract(text: str, gold: bool, cut_off: bool = False) -> Extraction:
    """Read from the end: an answer line among the last lines (with no box after it) decides at
    once; otherwise the final 2,000 and then 16,000 characters are read, and their answer stands
    when the marker that decided sits well inside them (see `_window_decides`); only a response
    whose answer is not near its end is read whole. The same answer as reading it whole."""
    if not gold and "ки" in text:
        text = _STEP_TAG.sub("", text)
    if gold and text[:1] in "EIUF" and _SYMPY_REPR.fullmatch(text.strip()):
        text = _sympy_repr_as_latex(text)
    text = _before_invented_turn(text, gold, cut_off)
    if (
        not gold
        and _looping(text)
        and (
            ("<think>" in text and "</think>" not in text)
            or ("box" not in text and _STATED_ANSWER.search(text) is None)
        )
    ):
        return NONE  # the same passage over and over at the end, still thinking or with no answer stated: unfinished
    if not gold and "<|im_start|>" in text and ("<|im_start|>answer" in text or "<|im_start|>think" in text):
        # the s1 format: `<|im_start|>think ... <|im_start|>answer ...` (the prompt may hold the first tag); the answer
        # section is the response, and one that never opens it is still thinking (as a `<think>` never closed)
        cut = text.rfind("<|im_start|>answer")
        if cut < 0:
            return NONE
        text = text[cut + len("<|im_start|>answer") :]
        if not text.strip():
            return NONE
    if not gold and "</think>" in text:
        # the reasoning ends at `</think>`; the response is what follows it (nothing there: no answer was given)
        text = text[text.rfind("</think>") + len("</think>") :]
        if not text.strip():
            return NONE
    if (
        not gold
    ):  # a response: what a reader does not see, a closing remark, a format that says where its answer is
        end = text[-1_000:]  # hidden text and code blocks matter where the answer is: near the end
        if "```" in end:  # `Final answer:` then a code block holding only the value: that value on the line
            text = _FENCED_ANSWER.sub(r"\1 \2", text)
            end = text[-1_000:]
        if (
            "```" in end
            or "phantom" in end
            or "color" in end
            or ("box" in end and ("%" in end or "e.g" in end or "xample" in end or "ormat" in end))
        ):
            text = _without_hidden(text)
        if text[-8:].rstrip().endswith(("）", ")")) and _TRAILING_NOTE.search(
            text, max(0, len(text) - _TAIL)
        ):
            text = _TRAILING_NOTE.sub("", text)  # `（注：三边长为 1, √2, 2。）` after the answer: a remark
        closing = _CHAT_CLOSING.search(text, max(0, len(text) - 400))
        if closing:  # `Let me know if you'd like a decimal approximation!`: an offer, no part of the answer
            text = text[: closing.start()]
        if text[-1:] in "?!." or text[-2:].rstrip()[-1:] in ("?", "!", "."):
            text = without_closing_remarks(text)  # `That's it! Do you have any questions?`
        last = text[-600:]
        if (
            "oints" in last or "akeaways" in last or "clave" in last or "ools used" in last
        ):  # cheap gate: `Key Points`, `Puntos clave`, `Tools used`
            points = _KEY_POINTS.search(text, max(0, len(text) - 600))
            if points and points.start() > 0:
                text = text[
                    : points.start()
                ]  # `> Key Points: Subtract 7 from both sides, ...`: a summary, no answer
                last = text[-600:]
        if ("Check" in last or "check:" in last or "erif" in last) and _CHECK_LABEL.search(last):
            text = _without_check(
                text
            )  # `He would use 9 pages. Check: 9 × 5 = 45 cards.`: the check restates
        text = without_trailing_aside(text)  # `... 7 shelves (7 x 9 = 63).`: the check is no answer
        if text[-8:].rstrip().endswith("**") and "\n" in text.strip():
            bold = _BOLD_LAST_LINE.search(text, max(0, len(text) - 200))
            if bold:  # `...\n\n**132.**`: a last line that is one bold value is the answer line
                text = text[: bold.start()] + "\nAnswer: " + bold.group(1)
        final = _FINAL_LAST_LINE.search(text, max(0, len(text) - 200))
        if final and not _ANSWER_LINE.search(text, 0, final.start()):
            text = text[: final.start()] + "\nAnswer: " + final.group(1)  # `FINAL: 425` closing the response
        formatted = _formatted_answer(text)
        if formatted is not None:
            return formatted
    if _JSON_ANSWER_KEY.search(text, max(0, len(text) - _TAIL)) or (
        _JSON_REPLY.match(text) and _JSON_ANSWER_KEY.search(text)
    ):  # the field closes the object, near the end, or the whole reply is the object
        field = _json_answer(text)
        if field is not None:  # `{"reasoning": "...", "answer": "5"}`: the structured answer field
            return Extraction((field,), "answer_line", "", 0) if field else NONE
    at = max(0, len(text) - 400)
    if text.find("|", at) >= 0:  # `| **Answer** | **64** |` near the end: a table row is an answer line
        row = _TABLE_ANSWER.search(text, at)
        if row is not None:
            text = text[: row.start()] + "Answer: " + row.group(1) + text[row.end() :]
    if "<ans>" in text:  # `<ans>20</ans>`: a shortened answer tag (self-refine prompts), read as `<answer>`
        text = text.replace("<ans>", "<answer>").replace("</ans>", "</answer>")
    if text.startswith("|", len(text) - len(text.lstrip())) and "\n" not in text.strip():
        row = _ANSWER_SHEET_ROW.fullmatch(text.strip())
        if row is not None:  # `| 9 | A, C, D |`: an answer sheet's row, the item's number then its answer
            text = "Answer: " + row.group(1).strip()
    if "answer>" in text:  # `answer> 14` at a line's start: the R1 tag with its `<` lost, an answer line
        text = _LOST_TAG_OPEN.sub("Answer: ", text)
    if "<answer" in text or "<ANSWER" in text:  # the R1 format: `<answer>X</answer>` is an answer line
        last_open = text.lower().rfind("<answer>")
        if last_open >= 0 and "</answer>" not in text[last_open:].lower():
            # the tag never closes: cut off inside its answer, unless a finished box follows the tag
            # (`<answer> Therefore ... \boxed{230} miles.`, or a malformed tag and a redone solution)
            rest = text[last_open + len("<answer>") :]
            if extract_boxed(rest) is not None and not _final_box_open(rest):
                text = text[:last_open] + "\n" + rest
            elif cut_off or gold or not _whole_answer(rest):
                return NONE
            else:  # the stop string `</answer>` removed (vLLM's default): the tag's content is the answer
                text = text[:last_open] + "<answer>" + rest + "</answer>"
        text = _ANSWER_TAG.sub(lambda m: "\nAnswer: " + " ".join(m.group(1).split()) + "\n", text)
    lo, hi = _content_span(text)
    ans, a_start, a_end = _last_lines_answer(text, lo, hi)
    if ans is not None and "box" not in text[a_end:hi]:
        return _committed(text, ans, a_start, a_end, lo, hi)
    if (lo, hi) != (0, len(text)):
        text = text[lo:hi]
    n = len(text)
    for size in _WINDOWS:
        if n <= size + _MARGIN:
            break
        window = text[n - size :]
        ex, start, box_end = _core(window, gold, cut_off)
        if _window_decides(window, ex, start, box_end):
            return ex
    return _core(text, gold, cut_off)[0]


# a turn the model invented after its answer (`User: ...`, `Assistant:`, `# Query:`, `### Instruction`): the
# conversation's next message, not this response; `Question:` / `Q:` / `Problem:` (a few-shot prompt's next
# item, lm-eval's stop words) only when the text before it has an answer
# (each starts with the newline before it: a literal first character lets the search skip ahead at C speed, and
# a marker on the first line has no content before it anyway)
_TURN_TAIL = 16_000
_NEXT_TURN = re.compile(
    r"\n[ \t]*(?:#+[ \t]*)?(?:(?P<turn>User|Human|Assistant|USER|HUMAN|ASSISTANT|Query|Instruction)"
    r"|Question|Q|Problem)[ \t]*:"
)
# a system prompt leaked after the answer (`You are an AI assistant that helps people find information.`)
_LEAKED_SYSTEM = re.compile(
    r"\n[ \t]*You are (?:an?|the) (?:helpful |honest |harmless |AI |large language )*(?:assistant|model)\b"
)


_ANSWER_SHEET_ROW = re.compile(r"\|\s*\d{1,3}\s*\|([^|\n]+)\|")
_TABLE_ANSWER = re.compile(
    r"^[ \t]*\|[ \t]*[*_]*(?:final[ \t]+)?answer[*_]*[ \t]*\|[ \t]*[*_]*([^|\n*_]+?)[*_]*[ \t]*\|[ \t]*$",
    re.IGNORECASE | re.MULTILINE,
)
_FENCED_ANSWER = re.compile(
    r"((?:final\s+)?answer\s*[:：])[ \t]*\n```[a-zA-Z]*\n([^\n`]{1,40})\n```\s*\Z", re.IGNORECASE
)
_STATED_ANSWER = re.compile(r"\bfinal answer\b|\bthe answer is\b|\banswer\s*[:：]", re.IGNORECASE)


def _looping(text: str) -> bool:
    """The response ends in a loop: its last 80 characters occur three or more times in its last 3,000."""
    tail = text[-3_000:]  # a slice, not a copy of a long response
    probe = tail.rstrip()[-80:]
    return len(probe) == 80 and tail.count(probe) >= 3


# a chat assistant's closing offer after its answer
_CHAT_CLOSING = re.compile(
    r"(?<=[.!?。$*)])\s*(?:Let me know if|Feel free to|I hope (?:this|that) helps|Hope (?:this|that) helps|If you have any "
    r"(?:other |more |further )?questions)[^\n]*$",
    re.IGNORECASE,
)
# a check after the answer (`Check: 8(2)+2(458) = 932 ✓`): it restates the given numbers, it does not answer
_TRAILING_CHECK = re.compile(
    r"(?:(?<=[.!?$])[ \t]+|\n[ \t]*)\(?(?:\*\*)?(?:Check(?:ing)?|Verification|Verify(?:ing)?|Sanity check)(?:\*\*)?"
    r"[ \t]*(?:\*\*)?[:：].*\Z",
    re.IGNORECASE | re.DOTALL,
)
# a last line that summarises or lists what was used, not an answer: `Key Points: ...`, `Tools used: math_solver ...`
_KEY_POINTS = re.compile(
    r"\n[ \t>*]*(?:Key (?:Points|Takeaways)|Puntos clave|Points clés|Tools? used)\s*(?:\*\*)?\s*[:：][^\n]*\s*\Z",
    re.I,
)
_CHECK_LABEL = re.compile(
    r"(?:heck(?:ing)?|erif(?:ication|y|ying))(?:\*\*)?[ \t]*(?:\*\*)?[:：]"
)  # a cheap gate
# the response's last line is one bold value: `**132.**`, `**100**`
_BOLD_LAST_LINE = re.compile(
    r"\n[ \t]*\*\*[ \t]*\$?([-\d][\d.,/]*|\\frac\{\d+\}\{\d+\})\$?[ \t]*\.?[ \t]*\*\*[ \t]*\.?\s*\Z"
)
# a tutor's closing remark, a whole sentence without a number: `That's it!`, `Does this make sense?`, `Do you have
# any questions about the steps?`, `You've successfully solved the problem.` (what a chat model adds after its answer)
_CLOSING_REMARK = re.compile(
    r"(?:(?:Do|Does|Did)\s+(?:you|this|that|it)\s+(?:have\s+any|make\s+sense|help)|How\s+(?:was|is|does)\s+that|"
    r"(?:Would|Do)\s+you\s+(?:like|want)|Is\s+there\s+anything\s+else|Any\s+(?:other\s+|more\s+|further\s+)?questions|"
    r"That(?:'s|’s|\s+is|\s+was)\s+(?:it|all|your\s+answer)\b|You(?:'ve|’ve|\s+have)?\s+(?:successfully|solved|got\s+it|did\s+it)|"
    r"(?:Great|Good|Nice)\s+(?:job|work|question)|Happy\s+[a-z]+ing\b|Keep\s+(?:practicing|it\s+up)|"
    r"Let\s+me\s+know|Feel\s+free|I\s+hope|Hope\s+(?:this|that)\s+helps|If\s+you\s+have\s+any)[^\d.!?\n]*[.!?]*\s*$",
    re.IGNORECASE,
)
_SENTENCE_BREAKS = (". ", "! ", "? ", ".\n", "!\n", "?\n", "\n")


# an aside in brackets that ends the last sentence after its value: a check (`so he fills 7 shelves (7 x 9 = 63).`) or
# what else was found (`Gretchen has 70 gold coins (and 40 silver).`); an alternative (`(or x = -2)`) is no aside
# a one-line answer that names its quantity first (`Earnings: $460`, `Total cost: 12 dollars`)
_LABELLED_VALUE = re.compile(
    r"[A-Za-z][A-Za-z ]{0,30}:\s*((?:\\?\$|-)?\s*\d[\d,]*(?:\.\d+)?(?:\s*[A-Za-z%]+)?)\s*\.?"
)


# an equation, then the letter it solves for (`0.018x = 72, so x = 4000`)
_SOLVED_AFTER = re.compile(
    r"(.*=.*?),?\s+(?:so|thus|hence|therefore|then)\s*,?\s+([a-zA-Z])\s*=\s*(-?[\d,]*\.?\d+)\s*\.?", re.I
)


def _words(text: str) -> set[str]:
    return {w.lower() for w in re.findall(r"[A-Za-z]{4,}", text)}


# a bracketed sentence of its own after the last one (`Total = 298 cookies. (The Cookie Monster alone has 61.)`)
_TRAILING_ASIDE_SENTENCE = re.compile(
    r"(?<=[.!])[ \t]*\((?![^()]*\b(?:or|answer)\b)[ \t]*(?:and|check|verify|since|because|as|the|i\.e\.|note)\b"
    r"[^()]*\)[ \t]*\Z",
    re.IGNORECASE,
)
_TRAILING_ASIDE = re.compile(
    r"(?<=\w)[ \t]*\((?![^()]*\bor\b)(?:[^()=]*\d[^()=]*=[^()]*|[ \t]*(?:and|check|verify|since|because|as|the|i\.e\.)\b[^()]*)\)"
    r"(?=[ \t]*[.!]?[ \t]*\Z)",
    re.IGNORECASE,
)


def without_trailing_asides(text: str) -> str:
    """The text without what a response adds after its answer and is no part of it: closing remarks (`Does this
    make sense?`), a check (`Check: 8 x 5 = 40 ...`, also in brackets) and a bracketed aside ending the last
    sentence (`(7 x 9 = 63)`, `(and 40 silver)`)."""
    text = without_closing_remarks(text)
    if "heck" in text[-600:] or "erif" in text[-600:]:
        text = _without_check(text)
    return without_trailing_aside(text)


def _without_check(text: str) -> str:
    """The text without a check that ends it (`Check: 9 × 5 = 45 cards.`), unless the check states the answer or
    boxes it."""
    check = _TRAILING_CHECK.search(text, max(0, len(text) - 600))
    if check and not _STATED_ANSWER.search(check.group(0)) and "box" not in check.group(0):
        return text[: check.start()]
    return text


# `, which is the number we were asked for.` ending the last sentence after its value: a remark without a number
_WHICH_CLAUSE = re.compile(r",\s*which\s+(?:is|was|answers|matches|gives)\b[^\d\n,;.!?]*[.!]?\s*\Z", re.I)


def without_trailing_aside(text: str) -> str:
    """The text without a bracketed aside that ends its last sentence after a value the sentence states (`so he
    fills 7 shelves (7 x 9 = 63).`); where the sentence states none before it (`réponse est (35 + 70 = 105).`,
    `dividing by the number of values (42 / 3 = 14).`, other brackets aside) the brackets hold the value and stay.
    A closing `, which is ...` clause without a number after a stated value is a remark too, unless it names an
    option (`Methanol = 100 cubic units, which is option C.`: the letter is the answer)."""
    end = text.rstrip()
    if end[-60:].count("which") and not any(ch.isdigit() for ch in end[-60:].rsplit("which", 1)[-1]):
        clause = _WHICH_CLAUSE.search(end, max(0, len(end) - 120))
        remark = clause.group(0) if clause else ""
        names_option = re.search(r"option|choice", remark, re.I) or re.search(
            r"\(?\b[A-E]\b\)?\s*[.!]?\s*$", remark
        )
        if (
            clause
            and not names_option
            and re.search(r"\d", re.split(r"[.!?](?:\s|$)|\n", end[: clause.start()])[-1])
        ):
            return end[: clause.start()] + "."  # `m + n = 821, which is the number we were asked for.`
    if text.rstrip()[-2:].rstrip(".!")[-1:] != ")":
        return text
    aside = _TRAILING_ASIDE.search(end, max(0, len(end) - 300)) or _TRAILING_ASIDE_SENTENCE.search(
        end, max(0, len(end) - 300)
    )
    if aside is None:
        return text
    before = end[: aside.start()].rstrip().rstrip(".!")  # an aside sentence follows its sentence's full stop
    sentence = re.sub(r"\([^()]*\)", "", re.split(r"[.!?](?:\s|$)|\n", before)[-1])
    if aside.re is _TRAILING_ASIDE_SENTENCE and _words(aside.group(0)) & _words(sentence):
        return text  # `So the total is 300. (The total is 298.)`: it speaks of the same thing, no aside
    return end[: aside.start()] + end[aside.end() :] if re.search(r"\d", sentence) else text


def without_closing_remarks(text: str) -> str:
    """The text without the closing remarks that end it (sentences read from the end, only while each is one)."""
    end, floor = len(text), max(0, len(text) - 600)
    while True:
        body = text[:end].rstrip()
        if len(body) <= floor:
            break
        found = [
            at + len(sep) for sep in _SENTENCE_BREAKS if (at := body.rfind(sep, floor, len(body) - 1)) >= 0
        ]
        start = max(found, default=floor)  # no break: the window's start (the text's, for a short text)
        if (start == floor and floor > 0) or not _CLOSING_REMARK.fullmatch(body, start):
            break
        end = start
    return text[:end].rstrip() if end < len(text) else text


# the value a program printed, on the response's last line: `>>> 85.0`
_PRINTED = re.compile(r"(?:^|\n)>>>[ \t]*(-?\d[\d,]*(?:\.\d+)?)[ \t]*\s*$")
# a remark in brackets that ends the response: `（注：...）`, `(Note: ...)`
_TRAILING_NOTE = re.compile(r"\n\s*[（(]\s*(?:注|Note|NB)\s*[:：][^\n]*[）)]\s*$")
# a short value alone on the first line, then `Explanation:`: an answer-first format
_HEADLINE = re.compile(
    r"\s*([^\n]{1,40}?)[ \t]*\n[ \t]*(?:Explanation|Rationale|Reasoning|Justification)[ \t]*:", re.IGNORECASE
)


# a last line `FINAL: 425` (a prompt's own answer label), read as an answer line when no answer line came before it
_FINAL_LAST_LINE = re.compile(r"(?:^|\n)[ \t*_#]*FINAL[ \t*_]*:[ \t*_]*([^\n]{1,60}?)[ \t*_.]*\s*\Z")
_JSON_ANSWER_KEY = re.compile(r'"(?:final_answer|answer|(?:my|final)[ _]answer)"\s*:\s*', re.IGNORECASE)
# a reply that is one JSON object (`{"My Answer": "12", "Explanation": "..."}`, maybe in a code fence): its answer field
# may come first
_JSON_REPLY = re.compile(r"\s*(?:```(?:json)?\s*)?\{")
_JSON = json.JSONDecoder(strict=False)  # model-written JSON keeps raw newlines inside its strings


def _json_answer(text: str) -> str | None:
    """The value of the last `"answer"` (or `"final_answer"`, `"My Answer"`) field of a JSON object the response wrote
    (ZeroEval, simple-evals JSON modes), as text; None when there is no such field or its value does not parse
    (a response cut off inside it)."""
    keys = list(_JSON_ANSWER_KEY.finditer(text))
    if not keys:
        return None
    key = keys[-1]
    try:
        value, _ = _JSON.raw_decode(text, key.end())
    except ValueError:
        return None
    if isinstance(value, bool) or not isinstance(value, (str, int, float)):
        return None
    return str(value).strip()


# text a reader does not see, or that is not the response's own answer: `\phantom{5}`, white text, code blocks
_PHANTOM = re.compile(
    r"\\[hv]?phantom\s*\{(?:[^{}]|\{(?:[^{}]|\{[^{}]*\})*\})*\}"
)  # `\\phantom{\\frac{14}{3}}`
# what a reader never sees as an answer: a box after a TeX comment sign (`$\\boxed{6}$ % \\boxed{5}`), a box in a format
# example (`e.g. $\\boxed{3}$ for a cubic`, `Example: $\\boxed{\\text{east}}$`)
_COMMENTED_BOX = re.compile(r"(?<![\\\d])%[ \t]*(?=\\boxed)[^\n]*")
_EXAMPLE_BOX = re.compile(
    r"(?:\be\.\s?g\.|\bfor (?:example|instance)\b|\bexample\s*[:*]|\bformat\b)[^\n]{0,60}?\\boxed",
    re.IGNORECASE,
)
_WHITE = re.compile(
    r"\{\s*\\color\s*\{\s*white\s*\}(?:[^{}]|\{(?:[^{}]|\{[^{}]*\})*\})*\}"
    r"|\\(?:text)?color\s*\{\s*white\s*\}\s*\{(?:[^{}]|\{(?:[^{}]|\{[^{}]*\})*\})*\}"
)
_CODE_BLOCK = re.compile(r"```.*?```", re.DOTALL)


def _labelled_format(text: str, at: int) -> bool:
    """`Final answer (AIME format): \\boxed{070}`: the format named in an answer line's label, not an example."""
    return bool(
        re.search(r"\banswer\s*\([^()\n]*$", text[max(0, at - 80) : at], re.I)
        and re.match(r"[^()\n]*\)\s*[:：]", text[at:])
    )


def _without_hidden(text: str) -> str:
    """The response without what a reader does not see as its answer (`\\phantom{5}`, `{\\color{white}\\boxed{5}}`, a
    box after a TeX comment sign) and without boxes inside code blocks (`// answer = \\boxed{8}` is a comment) or in
    a format example (`e.g. $\\boxed{3}$`)."""
    if "phantom" in text:
        text = _PHANTOM.sub(" ", text)
    if "color" in text:
        text = _WHITE.sub(" ", text)
    if "box" not in text:
        return text
    if "%" in text:
        text = _COMMENTED_BOX.sub(" ", text)
    if "e.g" in text or "xample" in text or "ormat" in text or "nstance" in text:
        text = _EXAMPLE_BOX.sub(
            lambda m: (
                m.group(0) if _labelled_format(text, m.start()) else m.group(0)[: -len("\\boxed")] + "\\box_"
            ),
            text,
        )
    if "```" in text:
        text = _CODE_BLOCK.sub(
            lambda m: m.group(0).replace("\\boxed", "\\box_") if "boxed" in m.group(0) else m.group(0), text
        )
    return text


def _formatted_answer(text: str) -> Extraction | None:
    """A response whose format says where its answer is: a program's printed value on the last line (PaL's
    `>>> 85.0`), or an answer-first headline (`$450\nExplanation: ... = $460`: the headline is the answer)."""
    if text.find(">>>", len(text) - 200) >= 0:
        printed = _PRINTED.search(text)
        if printed:
            return Extraction((printed.group(1),), "answer_line", "", 0)
    first = text.find("\n", 0, 60)
    if first >= 0 and _EXPLANATION.match(text, first + 1):
        headline = _HEADLINE.match(text)
        if headline and re.search(r"[\d\\]", headline.group(1)) and len(headline.group(1).split()) <= 4:
            return Extraction((_strip_wrapping(headline.group(1)),), "bare", "", 0)
    return None


_EXPLANATION = re.compile(r"[ \t]*(?:Explanation|Rationale|Reasoning|Justification)[ \t]*:", re.IGNORECASE)


def _before_invented_turn(text: str, gold: bool, cut_off: bool) -> str:
    """The response up to a turn it invented after its content (see `_NEXT_TURN`): one scan of the text."""
    if not gold and "Y" in text and "You are" in text:  # `Y` alone is a memchr, the phrase a scan
        leaked = _LEAKED_SYSTEM.search(text)
        if leaked and _NONSPACE.search(text, 0, leaked.start()):
            text = text[: leaked.start()]
    if (
        gold
        or (text.count(":") < 2 and "Question:" not in text and "Q:" not in text)
        or _NEXT_TURN.search(text, max(0, len(text) - _TURN_TAIL)) is None
    ):
        # a turn that hides the answer is a second colon besides an answer line's (or a few-shot `Question:` after
        # `The answer is 366.`); an invented conversation runs on to the end: none in the last 16k characters, none at all
        return text
    question = None
    for m in _NEXT_TURN.finditer(text):
        if not _NONSPACE.search(text, 0, m.start()):
            continue  # nothing before it: the response starts with it
        if text[: m.start()].rstrip().endswith("</think>"):
            continue  # `</think>\n\nAssistant: ...`: the response's own label after the thinking, not a new turn
        if m.group("turn"):
            text = text[: m.start()]
            break
        if question is None:
            question = m.start()
    if question is not None and question < len(text) and _extract(text[:question], gold, cut_off).answers:
        text = text[:question]
    return text


def _window_decides(window: str, ex: Extraction, start: int, box_end: int) -> bool:
    """A window's answer is the whole text's when its marker starts well inside the window (no
    earlier line or joined box can reach it) and, for a box, no brace after it closes a group
    opened before the window (the box would then sit inside that group)."""
    if start < _MARGIN:
        return False
    if ex.how == "answer_line":
        return True
    if box_end < 0:
        return False
    depth = 0
    for m in _BRACE.finditer(window, box_end + 1):
        tok = m.group(0)
        if len(tok) == 2:
            continue
        depth += 1 if tok == "{" else -1
        if depth < 0:
            return False
    return True


def _core(text: str, gold: bool, cut_off: bool) -> tuple[Extraction, int, int]:
    """The policy on `text`: (extraction, start of the deciding marker, end of the deciding box
    group), -1 where no answer line or box decided. The marker that comes last wins: an answer
    line, unless a box group starts after it. A final box that never closes (`... \\boxed{12`)
    is the answer cut off: no answer, whatever came before it."""
    depth = box_depth(text) if "box" in text else 0
    if "box" in text and _final_box_open(text):
        return Extraction((), "none", "", depth), -1, -1
    ans, a_start, a_end = _answer_line_at(text)
    if "box" in text:
        parts, joined, b_start, b_end = _box_group_at(text)
        if parts and (ans is None or b_start > a_end):
            if text.find("####", b_end) >= 0:
                after = _gsm8k(text[b_end:])
                if (
                    after
                ):  # `Tomato cost: \boxed{800}. ... \n#### 3200`: the `####` line after the box is the answer
                    return Extraction((after,), "gsm8k", "", depth), b_start, b_end
            if not cut_off:
                later = _answer_after_last_box(text)
                if later is not None:  # `\boxed{12}. Wait, that's wrong ... so the answer is 11.`
                    return Extraction((later,), "sentence", "", depth), b_start, b_end
            if not gold and _retracted(text, b_start, b_end):  # `\boxed{56}. Actually no, it is 54.`
                command = text.rfind("\\", 0, b_start)
                if (
                    _negated_before(text, b_start, _REJECTING) and command > 0
                ):  # `it is not \boxed{37}`: rejected
                    earlier = _core(text[:command], gold, cut_off)[
                        0
                    ]  # candidate; the answer stated before it stands
                    if earlier.answers and earlier.how == "boxed":
                        return earlier, b_start, b_end
                return Extraction((), "none", "", depth), b_start, b_end
            parts = [_strip_wrapping(p) for p in parts]
            return Extraction(tuple(parts), "boxed", joined, depth), b_start, b_end
    if ans is not None:
        return _committed(text, ans, a_start, a_end)._replace(box_depth=depth), a_start, -1
    if cut_off:
        return Extraction((), "none", "", depth), -1, -1
    return _unmarked(text, gold, depth), -1, -1


# words around the last box that take it back: `The answer is not \boxed{5}`, `If it were isosceles the answer would be
# \boxed{13}`, `\boxed{5} is wrong`, `\boxed{56}. Actually no, it is 54.`, `\boxed{7} -- just kidding`
_TAKING_BACK_BEFORE = (" not", " would be", " would have been", " could be", " might be", " i previously wrote",
                       " i first wrote", " says")  # fmt: skip
_TAKEN_BACK = re.compile(
    r"[\s$.,;:)\"'”]*(?:--\s*|—\s*)?(?:(?:is|was|would be)\s+(?:wrong|incorrect|not (?:right|correct|the answer))"
    r"|actually\b|no[,.!]|wait\b|just kidding|I (?:don't|do not) know|I cannot|I can't|scratch that|that's wrong"
    r"|that is wrong|oops)",
    re.IGNORECASE,
)


def _retracted(text: str, b_start: int, b_end: int) -> bool:
    """The last box is taken back by the words just before or just after it, and no later answer is stated."""
    return _negated_before(text, b_start) or _TAKEN_BACK.match(text, b_end + 1) is not None


_REJECTING = (
    " not",
)  # `so it is not \boxed{37}`: a candidate rejected; `would be` is a hypothetical, maybe a hedge


def _negated_before(text: str, b_start: int, words: tuple[str, ...] = _TAKING_BACK_BEFORE) -> bool:
    """The words just before the box take it back (`not`, `would be`, `I first wrote`)."""
    command = text.rfind("\\", 0, b_start)  # `b_start` is the box's content: its `\boxed{` starts before it
    before = " " + text[max(0, command - 40) : max(command, 0)].rstrip(" \t\n$:\"'“(").lower()
    return before.endswith(words)


def _ends_in_open_math(text: str) -> bool:
    """The text stops inside a math span it opened (`... the roots are $x=-1$ and $x=`): a
    response cut off mid-formula. A lone `$` before a number or at the very end is a currency
    sign (`$18`, `1,000.99$`), not a span."""
    t = text.rstrip()
    if t.rfind("\\(") > t.rfind("\\)") or t.rfind("\\[") > t.rfind("\\]"):
        return True
    dollars = [m.start() for m in _DOLLAR.finditer(t)]
    if t.count("$$") % 2 == 1:
        return True
    if len(dollars) % 2 == 0:
        return False
    last = dollars[-1]
    after = t[last + 1 :]
    if not after.strip(" .,;!?"):  # `1,000.99$`: a currency sign after its number; `and $`: cut off
        return not t[last - 1 : last].isdigit()
    return _CURRENCY.match(after) is None


_DOLLAR = re.compile(r"(?<![\\$])\$(?!\$)")  # a single `$`, not `\$` nor part of `$$`
_CURRENCY = re.compile(r"\s?\d")
_BOLD = re.compile(r"\*\*([^*\n]{1,80}?)\*\*")
_SENTENCE_END = re.compile(r"[.!?](?:\s|$)|\n")


def _later_bold(text: str, after: int) -> str | None:
    """A value set in bold (`**42**`) in a later sentence than position `after`: the answer was
    corrected (`The answer is **41**. Actually, recounting: **42**.`). As with several boxes, the
    last one wins. Headings (`**Step 3.**`, `**Answer:**`) are not values."""
    end = _SENTENCE_END.search(text, after)
    if end is None:
        return None
    last = None
    for m in _BOLD.finditer(text, end.end()):
        value = _strip_wrapping(m.group(1))
        if value and re.search(r"\d", value) and not value.endswith((":", ".")) and len(value.split()) <= 3:
            last = value
    return last


# a value after one to three `#` that ends the text, the `#` starting it or a line (or after two spaces or a sentence's
# end, where a log joined the lines): `... the cost price is Rs.300.  # 300`, `... is: # 78.20` (a prompt's `# <answer>`
# format); `item #3` is no marker
_HASH_VALUE_AT_END = re.compile(
    r"(?:^|\n|\s\s|[.:]\s)[ \t]*#{1,3}[ \t]*(?P<ans>(?:Rs\.?[ \t]*|\$)?-?\$?[ \t]*\d[\d,]*(?:\.\d+)?[ \t]*%?(?:[ \t]+[A-Za-z]+){0,2})"
    r"[ \t]*\.?\s*\Z"
)


# a program's printed result that ends the response (Program-of-Thought, ToRA and Qwen's tool-integrated format):
# a one-line block marked `output`, or an unmarked one right after the program's block; nothing written after it
_OUTPUT_AT_END = re.compile(r"(?:```output|```[ \t]*\n```)[ \t]*\n(?P<value>[^\n`]{1,80})\n[ \t]*```\s*\Z")


def _unmarked(text: str, gold: bool, depth: int) -> Extraction:
    """No answer line and no terminated box: `\\boxed 5`, `####`, a sentence, then prose. A
    response that stops inside a math span it opened is cut off: nothing is read from its prose."""
    if "box" in text:
        boxed = extract_boxed(text)
        if boxed:
            return Extraction((_strip_wrapping(boxed),), "boxed", "", depth)
    if "####" in text:
        g = _gsm8k(text)
        if g:
            return Extraction((g,), "gsm8k", "", depth)
    if "#" in text[-40:] and (h := _HASH_VALUE_AT_END.search(text, max(0, len(text) - 40))):
        return Extraction((h.group("ans").replace(",", "").strip(),), "gsm8k", "", depth)
    if (
        not gold
        and text.rstrip().endswith("```")
        and (o := _OUTPUT_AT_END.search(text, max(0, len(text) - 120)))
    ):
        return Extraction(
            (o.group("value").strip(),), "output", "", depth
        )  # ```output\n18.0\n```: what it printed
    if not gold and _ends_in_open_math(text):  # the whole text: a tail could start inside a span
        return Extraction((), "none", "", depth)
    if _may_name_answer(text):
        v = _minerva(text) if "answer is" in text.lower() else None
        if v:
            return Extraction((v,), "sentence", "", depth)
        last = None
        tail = text[-_TAIL:]
        for m in _SENTENCE.finditer(tail):
            last = m
        if last is not None:
            v = _sentence_value(tail[last.end() :], "\n" in last.group(0))
            if v:
                later = _later_bold(tail, last.end()) if "**" in tail[last.end() :] else None
                return Extraction((later or v,), "sentence", "", depth)
    stripped = text.strip()
    if not stripped:
        return Extraction((), "none", "", depth)
    if not gold and stripped[-1:].islower() and _UNFINISHED.search(stripped[-200:]):
        return Extraction(
            (), "none", "", depth
        )  # `$2^4 = 16$ for labelled subsets, but we must subtract`: cut off
    env = _whole_environment(stripped)
    if env is not None:  # a matrix written over several lines, and nothing else
        return Extraction((env,), "bare", "", depth)
    if "\n" not in stripped and len(stripped) <= _MAX_BARE:
        sentence = _is_sentence(stripped, gold)
        v = _prose_value(stripped) if sentence else None
        if v:
            return Extraction((v,), "prose", "", depth)
        if (
            gold and sentence
        ):  # a gold written as a sentence with one number (`The book has 270 pages in total.`)
            numbers = _GOLD_NUMBER.findall(stripped)
            if len(numbers) == 1:
                return Extraction((numbers[0].replace(",", ""),), "prose", "", depth)
        # a value with words after it (`1.2 (liters of fruit punch)`) is an answer; other prose is not
        value_first = len(stripped) <= _MAX_PROSE_VALUE and _LEADING_VALUE.match(stripped) is not None
        bare = None if sentence and not gold and not value_first else _strip_wrapping(stripped)
        labelled = _LABELLED_VALUE.fullmatch(bare or "") if not gold else None
        if labelled:  # `Earnings: $460`: a label naming the quantity, then its value
            bare = labelled.group(1)
        solved = _SOLVED_AFTER.fullmatch(bare or "") if not gold else None
        if solved and re.search(rf"\d\s*{solved.group(2)}\b|\b{solved.group(2)}\s*[-+*/=]", solved.group(1)):
            bare = solved.group(2) + " = " + solved.group(3)  # `0.018x = 72, so x = 4000`: the letter solved
        # a one-line gold is its own answer; a response's short answer in words (`no real solutions`) too
        if bare and (gold or _answer_like(bare)):
            return Extraction((bare,), "bare", "", depth)
        return Extraction((), "none", "", depth)
    v = _prose_value(stripped)
    if v:
        return Extraction((v,), "prose", "", depth)
    return Extraction((), "none", "", depth)


_GOLD_NUMBER = re.compile(r"(?<![\w.^])-?\d[\d,]*(?:\.\d+)?(?![\w^/])")
_MATHISH = re.compile(r"[0-9\\$^_=+*/(){}\[\]<>|-]|[^\x00-\x7f]")
_NUMBER_WORDS = frozenset(
    re.findall(
        r"\w+",
        "zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen sixteen "
        "seventeen eighteen nineteen twenty thirty forty fifty sixty seventy eighty ninety hundred thousand "
        "million billion and a negative minus half halves third thirds quarter quarters",
    )
)
_META = re.compile(
    r"\b(?:answers?|solve[ds]?|solution\s+is|know|sure|unsure|idea|sorry|cannot|can't|couldn't|unable|"
    r"impossible\s+to|help|determine|proceed|give\s+up|gave\s+up|idk|dunno|no\s+clue|hmm+|blah|pass|"
    r"skip(?:ped)?|n/a)(?![A-Za-z])",
    re.IGNORECASE,
)


def _answer_like(bare: str) -> bool:
    """A short unmarked line taken whole as the answer: anything with math or digits in it, or at
    most three words (any number of number words) that do not talk about the answer."""
    if _MATHISH.search(bare):
        return True
    words = re.findall(r"[A-Za-z']+", bare)
    if not words or _META.search(bare):
        return False
    return len(words) <= 3 or all(w.lower() in _NUMBER_WORDS for w in words)


def extract_answer(text: str, style: str = "auto") -> str | None:
    """The answer of `text` read in one named style, or None when there is none.

    `auto` is the project's policy, `extract(text).answer`; the other styles read one marker only
    (`boxed` for reference solutions, `gsm8k`, `answer_line`), and `last_number` is never used
    unless asked for: guessing the last number of a reasoning trace rewards luck.
    """
    if style not in STYLES:
        raise ValueError(f"unknown extraction style {style!r}; use one of {', '.join(STYLES)}")
    if not isinstance(text, str) or not text:
        return None
    if style == "answer_line":
        return _answer_line(cut_debris(text))
    if style == "boxed":
        boxed = extract_boxed(text)
        return _strip_wrapping(boxed) if boxed else None
    if style == "gsm8k":
        return _gsm8k(text)
    if style == "last_number":
        return _last_number(text)
    return extract(text).answer
