"""Is a predicted answer equivalent to the gold one? Cheapest decision first.

Order: size/sanity limits, extraction (once, into an Extraction), hedging, integer fast path (strings only, no
sympy), kinds that can never be equal (verifiers.kinds: a number vs an interval, a word vs
an expression, ...), exact numbers (Fraction), units, structure (tuples vs intervals vs sets vs
matrices, several answers), then the symbolic step in a killable worker process.

Conventions, each decided once and applied to both sides (equivalence is symmetric on bare answers;
tests/verifiers/test_symmetry.py checks it on every labelled pair):

- Percent: `x%` (also `x percent`, `x pct`) equals `x/100`, whichever side writes the sign (`0.5` and
  `50\\%`, `5\\%` and `0.05`, `25\\%` and `\\frac14`), and `x` itself when the other side is a plain number
  (`50` and `50\\%`: a count of percent), never a fraction (`0.5\\%` is not `\\frac12`); two percents compare as numbers
  (`2.8\\%` is not `28\\%`), and `50\\%` is never `5` or `0.05`. With the question, `30\\%` against a plain `30`
  needs a question that names percent (`forms.form_not_asked`: `percent_not_asked`).
- Decimals against exact values: a decimal is the exact rational it writes, alone or inside an
  expression. `0.25` is `\\frac14` and `0.5x` is `\\frac{x}{2}`, but no decimal equals an irrational or
  a repeating value, however many digits it has (`0.8660254037844386` is not `\\frac{\\sqrt3}{2}`,
  `0.333333333333333x^2` is not `\\frac{x^2}{3}`, `0.333` is not `\\frac13`); `0.\\overline{3}` is. One
  exception: a plain number printed from binary floating point at its full precision (15 significant digits or
  more) is the whole or terminating value it rounds (`26.000000000000004` is 26, `0.30000000000000004` is 0.3;
  `verifiers.normalize.float_rendering`), as a program prints it; a repeating value (`0.6666666666666666`) is not.
- Nothing is never equal to anything: an empty answer (`\\boxed{}`) is `no_answer`, an empty,
  unreadable or malformed gold (`2^`, `4\\sqrt(2)`) is `gold_invalid` (Verdict.valid False).
- A choice letter with its option (`C. {x | -3<x<4}`) equals the option's content, on either side.
- Letters: a single letter is a variable and is compared case-sensitively (`x` is not `X`); choice
  letters are read by verifiers.forms (`(b)`, `B.`), and words ignore case (`Yes`/`yes`, `Monday`).
- An equation in one variable equals the list of all its roots (`x^2=4` and `x=2 or x=-2`, either
  side), proved by values (see `_solves`); a list missing a root, or a double root, is no match.
- A comma is never a decimal point: `0,5` could be the list 0, 5, so it is not `0.5`.
- A factorial right after an exponent (`2^4!`, `2**n!`) is ambiguous (2^(4!) by precedence, (2^4)!
  as typeset): such an answer equals only itself as written (reason `ambiguous`).
"""

from __future__ import annotations

import math
import re
import time
from dataclasses import dataclass

from verifiers import countdown, equations, forms, quickeval
from verifiers.extract import (
    Extraction,
    answer_line_end,
    concluded_number_beside,
    count_in_words,
    cut_debris,
    extract,
    extract_boxed,
    number_in_words,
    result_stated_after,
    without_trailing_asides,
)
from verifiers.kinds import kinds_differ, strip_membership
from verifiers.normalize import (
    CHINESE_QUALIFIER,
    COMPOUND_TIME,
    UNIT_WORD_FORMS,
    UNITS,
    chinese_joiners,
    float_rendering,
    normalize,
    split_unit,
)
from verifiers.numbers import numbers_equal, parse_number
from verifiers.quickeval import clearly_differ
from verifiers.structure import Structure, expand_pm, parse_structure, relation_to_interval, split_top
from verifiers.symbolic import prestart

MAX_INPUT_CHARS = 400_000  # ~100k tokens: anything longer is not a completion we score
MAX_ANSWER_CHARS = 2_000  # an extracted answer longer than this is not a final answer
MAX_DEPTH = 60  # brace/bracket nesting beyond this is adversarial, not mathematics
MAX_ITEMS = 64  # structured answers with more parts go to no pairwise matching

_INT = re.compile(r"-?(?:0|[1-9][0-9]*)")
_SETLIKE = re.compile(r"[(\[{]|\\(?:cup|cap|pm|mp|setminus|emptyset|varnothing|mathbb|in|begin)(?![a-zA-Z])")
_WORDY = re.compile(r"[A-Za-z][A-Za-z ()'.]*|\([A-Za-z]\)")
_PLAIN_INT = re.compile(
    r"\s*([-+]?)0*([0-9]+)(?:\.0*)?\s*"
)  # ASCII digits: full-width ones are normalised first
_OPENER_RUNS = tuple(c * (MAX_DEPTH + 1) for c in "{([")
_SANITY_TAIL = 4_000  # runs of openers are looked for here: a scan of the whole text grows with it
_RELATION = re.compile(r"(?<![<>!\\])=|<|>|\\[lg]eq?(?![a-zA-Z])|\\neq?(?![a-zA-Z])|\\[lg]eqslant")
_HEDGE = re.compile(r"\s(?:or|and/or)\s|\\text\{\s*or\s*\}|\bor\b|\beither\b", re.IGNORECASE)


@dataclass(frozen=True)
class Verdict:
    """equivalent: the judgement; reason: a short stable slug; pred: what was compared (None when
    the response has no answer); extracted: the answer as `verifiers.extract` read it; gold: the
    reference answer as read from `gold`. `valid` is False when the gold, not the response, is
    at fault (reason `gold_invalid`): such a 0 says nothing about the policy."""

    equivalent: bool
    reason: str
    pred: str | None = None
    extracted: str | None = None
    gold: str | None = None

    def __bool__(self) -> bool:
        return self.equivalent

    @property
    def valid(self) -> bool:
        return not self.reason.startswith("gold_")


def _nesting(s: str) -> int:
    if s.count("{") + s.count("(") + s.count("[") <= MAX_DEPTH:
        return 0  # cannot be deeper than the number of openers; skip the scan
    depth = best = 0
    for c in s:
        if c in "{([":
            depth += 1
            if depth > best:
                best = depth
        elif c in "})]":
            depth -= 1
    return best


def _balanced_braces(s: str) -> bool:
    depth = 0
    for i, c in enumerate(s):
        if c == "{" and not (i and s[i - 1] == "\\"):
            depth += 1
        elif c == "}" and not (i and s[i - 1] == "\\"):
            depth -= 1
            if depth < 0:
                return False
    return depth == 0


def _sanity(text: str) -> str | None:
    """Reason slug when `text` is unusable before any parsing, else None."""
    if not isinstance(text, str):
        return "unparsable"
    if len(text) > MAX_INPUT_CHARS:
        return "too_large"
    start = max(
        0, len(text) - _SANITY_TAIL
    )  # where the answer is read; the extracted answer is checked whole
    if text.find("\x00", start) != -1:
        return "unparsable"
    if len(text) > MAX_DEPTH:
        # the run itself is looked for: the search skips ~61 characters at a time where no opener
        # is, so it costs far less than counting the openers would (every character read)
        for run in _OPENER_RUNS:
            if text.find(run, start) != -1:
                return "too_large"
    return None


def _prepare(ex: Extraction) -> tuple[str | None, str | None]:
    """(answer, None) or (None, reason) for an extraction."""
    raw = ex.answer
    if raw is None or not raw.strip():  # nothing is never equal to anything, not even to nothing
        return None, "no_answer"
    if "\x00" in raw:
        return None, "unparsable"
    if len(raw) > MAX_ANSWER_CHARS or len(ex.answers) > MAX_ITEMS:
        return None, "too_large"
    if _nesting(raw) > MAX_DEPTH:
        return None, "too_large"
    if not _balanced_braces(raw):
        return None, "unparsable"
    return chinese_joiners(raw), None


def _hedged(pred: str, gold: str) -> bool:
    """`34 or 35` against a single gold: the model named several candidates."""
    if not _HEDGE.search(pred) or _HEDGE.search(gold) or parse_structure(gold) is not None:
        return False
    return not (_RELATION.search(gold) or "\\cup" in gold)


_PLAIN_NUMBER = re.compile(r"-?\d[\d,]*(?:\.\d+)?|-?\.\d+")


# the option a MathQA-style response ends on, in lower case (`the answer is c.`, `therefore , d`, `answer: (b)`)
_MATHQA_LETTER_AT_END = re.compile(
    r"(?:\bthe\s+answer\s+is|\banswer\s*:|\btherefore\s*,?|\bthus\s*,?|\bhence\s*,?)\s*(?:option\s+)?\(?([a-e])\)?"
    r"\s*\.?\s*\Z",
    re.IGNORECASE,
)


# a truth value in words: a yes/no answer to a true/false gold (`Is x - 1 a factor?` keyed `false`, answered `No`)
_TRUTH_WORDS = {"true": True, "yes": True, "vrai": True, "wahr": True, "verdadero": True,
                "false": False, "no": False, "faux": False, "falsch": False, "falso": False}  # fmt: skip


def _scalar(pred: str, gold: str, pending: list[tuple[str, str]]) -> bool | str | None:
    """Cheap comparison of two normalised scalars: True/False, a reason slug, or None (= symbolic).

    Undecided pairs are appended to `pending` for one batched symbolic call.
    """
    if (
        "." in pred and len(pred) > 15
    ):  # `26.000000000000004`: a program's float print is the value it stands for
        pred = float_rendering(pred) or pred
    if "." in gold and len(gold) > 15:
        gold = float_rendering(gold) or gold
    pi, gi = _INT.fullmatch(pred), _INT.fullmatch(gold)
    if pi and gi:
        return pred == gold
    gold_pct, pred_pct = gold.endswith("%"), pred.endswith("%")
    g_txt, p_txt = gold.rstrip("%").strip(), pred.rstrip("%").strip()
    gv, pv = parse_number(g_txt), parse_number(p_txt)
    # percent on one side (module docstring): x% is x/100, and x itself when the other side is a plain number
    # (a count of percent, `50` for "what percent"); against a fraction or expression only x/100 (`0.5%` is not 1/2)
    one_pct = gold_pct != pred_pct
    as_count = one_pct and _PLAIN_NUMBER.fullmatch(pred if gold_pct else gold) is not None
    if gv is not None and pv is not None:
        if numbers_equal(pv, gv) and (not one_pct or as_count):
            return True
        if one_pct:
            return numbers_equal(pv, gv / 100) if gold_pct else numbers_equal(pv / 100, gv)
        return False
    if pred == gold:
        return True
    if _WORDY.fullmatch(pred) and _WORDY.fullmatch(gold):
        if len(pred) == 1 or len(gold) == 1:  # a single letter is a variable: `x` is not `X`
            return pred == gold
        p_truth, g_truth = _TRUTH_WORDS.get(pred.casefold()), _TRUTH_WORDS.get(gold.casefold())
        if p_truth is not None and g_truth is not None:
            return p_truth == g_truth  # `No` for the gold `false` (TheoremQA), `vrai` for `True`
        return pred.casefold() == gold.casefold()  # `\text{Yes}` / `yes`, `Monday` / `monday`
    if (gv is not None and _WORDY.fullmatch(pred)) or (pv is not None and _WORDY.fullmatch(gold)):
        return False  # a number is never a bare word or letter
    if (
        gv is not None
        and pv is None
        and re.fullmatch(r"[-+\d.,/\\a-z{}% ]*", pred)
        and not re.search(r"\\[a-zA-Z]|[\^_]|\d\s*[-+*/]\s*\d", pred)
    ):
        return False  # gold is a number, pred is words/garbage: no need to wake sympy
    pair = (p_txt if pred_pct else pred, g_txt if gold_pct else gold)
    if one_pct and not as_count:  # `\\frac{1}{8}\\%` against `\\frac{1}{800}`: the percent scaled
        pair = (f"({p_txt})/100", gold) if pred_pct else (pred, f"({g_txt})/100")
    if clearly_differ(*pair):
        return False  # plain expressions with different values at a probe point (as the worker's probe)
    pending.append(pair)
    return None


def _match_structures(ps: Structure, gs: Structure, pending: list) -> tuple[bool | None, list]:
    """Decide a structure pair cheaply, or return the element pairs the symbolic step must decide."""
    if ps.kind == "seq" and gs.kind == "list" and any("\\pm" in it for it in ps.items):
        ps = _expand_pm_tuple(ps)  # `(\pm 3, \pm 2)`: the four pairs
    unordered = {"set", "list"}
    if ps.kind != gs.kind and not (ps.kind in unordered and gs.kind in unordered):
        return False, []
    if ps.kind == "seq" and ps.brackets != gs.brackets:
        return False, []
    if ps.kind == "set" and gs.kind == "set":
        return _match_unordered(list(ps.items), list(gs.items), pending)  # duplicates do not count
    if ";" in (ps.brackets, gs.brackets) and {ps.kind, gs.kind} <= {"list"}:
        if len(ps.items) != len(gs.items):
            return False, []
        return _match_ordered(list(ps.items), list(gs.items), pending)  # blanks `1; 11/20`, in order
    if ps.kind != "list" and gs.kind != "list" and len(ps.items) != len(gs.items):
        return False, []
    if len(ps.items) > MAX_ITEMS:
        return ps.items == gs.items, []
    if ps.kind == "matrix":
        p_cells = [c for row in ps.items for c in row]
        g_cells = [c for row in gs.items for c in row]
        if [len(r) for r in ps.items] != [len(r) for r in gs.items]:
            return False, []
        return _match_ordered(p_cells, g_cells, pending)
    if ps.kind == "seq":
        return _match_ordered(list(ps.items), list(gs.items), pending)
    return _match_unordered(list(ps.items), list(gs.items), pending)


def _element(a: str, b: str, pending: list) -> bool | str | None:
    """Compare two elements of a structure: nested structures (a list of tuples) structurally."""
    sa, sb = parse_structure(a), parse_structure(b)
    if sa is not None and sb is not None:
        r, todo = _match_structures(sa, sb, [])
        if r is not None:
            return r
        pending.append((a, b))
        return None
    if (sa is None) != (sb is None) and (parse_number(a) is not None or parse_number(b) is not None):
        return False  # a tuple is never a number
    return _scalar(a, b, pending)


def _expand_pm_tuple(st: Structure) -> Structure:
    import itertools

    options = [expand_pm(it) for it in st.items]
    if len(options) > 6:
        return st
    left, right = st.brackets[0], st.brackets[1]
    combos = [left + ",".join(c) + right for c in itertools.product(*options)]
    return Structure("list", "", tuple(combos))


def _elem(s: str) -> str:
    if "=" in s and "," in s:  # a labelled group `p=5,q=2` is the tuple (5,2)
        parts = split_top(s)
        items = equations.labelled_items(parts) if parts else None
        if items:
            return normalize("(" + ",".join(v for _, v in items) + ")")
    return normalize(s)


def _match_ordered(p: list[str], g: list[str], pending: list) -> tuple[bool | None, list]:
    todo = []
    for a, b in zip(p, g, strict=True):
        local: list = []
        r = _element(_elem(a), _elem(b), local)
        if r is False:
            return False, []
        if r is None:
            todo.append([local[0]])
    return (True, []) if not todo else (None, todo)


def _match_unordered(p: list[str], g: list[str], pending: list) -> tuple[bool | None, list]:
    """Sets and several-answer lists: a perfect matching, decided cheaply where possible."""
    pn, gn = sorted({_elem(x) for x in p}), sorted({_elem(x) for x in g})
    if len(pn) != len(gn):
        return False, []
    remaining = list(gn)
    undecided_p = []
    for a in pn:
        hit = None
        for b in remaining:
            local: list = []
            if _element(a, b, local) is True:
                hit = b
                break
        if hit is not None:
            remaining.remove(hit)
        else:
            undecided_p.append(a)
    if not undecided_p:
        return True, []
    # each leftover pred must match some leftover gold; ask the symbolic step for all pairs
    todo = []
    for a in undecided_p:
        options = []
        for b in remaining:
            local = []
            if _element(a, b, local) is None:
                options.append(local[0])
        if not options:
            return False, []
        todo.append(options)
    return None, todo


def check(
    pred: str, gold: str, *, timeout: float = 1.0, cut_off: bool = False, question: str | None = None
) -> Verdict:
    """Judge `pred` (bare or wrapped: Answer line, \\boxed{}, "The answer is 34.") against `gold`.

    Never raises and never takes much longer than `timeout` seconds (see verifiers.symbolic
    for what the budget covers), except that the first symbolic call of a process first waits
    for the worker to start (1-3 s, once; `verifiers.warmup()` pays it up front). What is read
    as the answer: see verifiers.extract (the unmarked-prose policy included) and
    verifiers.equations (answers with a left-hand side). `cut_off`: the response stopped at the
    token limit; only an answer line or a box is read from it. `question` (the problem's text): an
    answer written as an expression the question itself holds is `restates_question`, not a match
    (`\\binom{10}{3}` for "Compute $\\binom{10}{3}$", `x^2-4` for "Factor $x^2-4$"): equal by arithmetic,
    but nothing was solved, and a policy rewarded for it learns to copy the question. An angle equal in
    value but in another unit than the question asks for ("in radians": `30^\\circ`) is `unit_mismatch`,
    and so is a quantity in another unit than asked; a factorisation asked "completely" must be complete.
    With the question, what the first reading left unequal is read once more (`_second_reading`): a
    concluding sentence by the one number the question does not hold, an option's value against a letter.
    A multi-part gold is compared part by part; one whose other parts are proofs, by its valued part.
    Last, what would turn an equal reading into a reward hack: a box that a later last sentence contradicts with
    a result of its own (`contradicted_after`), a number written beside another unit than the gold's
    (`unit_mismatch`), an answer for one case and another `otherwise`, or, with the question, a bound before the
    box when no extreme is asked (`hedged`).
    """
    deadline = time.monotonic() + timeout  # one budget for the first reading and any second one
    task = countdown.countdown_task(question) if isinstance(question, str) else None
    # or the task stored as the gold itself (`{"target": 36, "numbers": [79, 17, 60]}`)
    task = task or countdown.task_from_gold(gold)
    if task is not None and isinstance(
        pred, str
    ):  # the answer is an equation over given numbers (verifiers.countdown)
        target = int(gold) if isinstance(gold, str) and re.fullmatch(r"\s*-?\d+\s*", gold) else task.target
        solved, reason, expr = countdown.judge(pred, target, task)
        return Verdict(solved, reason, expr, expr, str(target))
    named = answer_object(gold) if isinstance(gold, str) and gold.lstrip().startswith("{") else None
    # a JSON object naming no answer (`{"from": "Mar", "to": "Apr"}`): its fields are not compared
    if named == []:
        return Verdict(False, "gold_invalid", None)
    if named:  # `{"canonical": "1/3", "accepted_equivalents": [...], "display": ...}`: its answer, then the alternatives
        first = None
        for g in named:
            v = check(
                pred, g, timeout=max(deadline - time.monotonic(), 0.0), cut_off=cut_off, question=question
            )
            if v.equivalent:
                return v
            first = first or v
        return first
    number_gold = None  # a gold written as the option's number (`3` for ③), which a response may repeat
    # `\text{(1) 6}\\ ... \text{(5) 10}`: options numbered, read as the circled ① ... ⑤ below
    if question and "(1)" in question:
        question = forms.circled_numbering(question)
    if question and "①" in question and isinstance(gold, str) and isinstance(pred, str):
        circled = forms.circled_choices(question, gold, pred)  # `① 6  ② 7 ...`: labels, not numbers
        if circled is not None:
            number_gold = (gold, pred) if re.fullmatch(r"\s*[0-9]\s*", gold) and circled[1] != gold else None
            question, gold, pred = circled
    if (
        question
        and isinstance(gold, str)
        and re.fullmatch(r"\s*[a-e]\s*", gold)
        and forms.mathqa_options(question) is not None
    ):
        gold = gold.strip().upper()  # MathQA's gold `e` names its option `e ) 24`, not Euler's number
        if isinstance(pred, str) and re.fullmatch(r"\s*\(?[a-e]\)?\s*\.?\s*", pred):
            pred = pred.strip().strip(".").upper()  # a reply that is one option letter, `d`
        elif isinstance(pred, str) and (named := _MATHQA_LETTER_AT_END.search(pred[-80:])):
            # `... the answer is c.`, MathQA's rationale style `... therefore , d`: that option, said as an answer
            pred = (
                pred[: max(0, len(pred) - 80) + named.start()] + f"\nThe answer is {named.group(1).upper()}."
            )
    if isinstance(gold, str) and ("（" in gold or "(" in gold or "①" in gold):
        gold = forms.value_part(gold) or gold  # `（1）证明见解析；（2）3+\sqrt{2}`: the part with a value
    try:
        v = _check(pred, gold, timeout, deadline, cut_off)
    except RecursionError:
        return Verdict(False, "too_large", None)
    except Exception as e:  # a verifier bug must not kill a training run; say what happened
        return Verdict(False, f"error:{type(e).__name__}", None)
    if (
        not v.equivalent
        and not cut_off
        and v.reason != "too_large"
        and isinstance(pred, str)
        and isinstance(gold, str)
    ):
        v = _second_reading(v, _spoken(pred), gold, question, deadline)
    if v.extracted is None or v.gold is None:
        v = _with_reading(v, pred, gold, cut_off)
    if v.equivalent and question and v.pred:
        v = _form_asked(v, gold, question, pred if isinstance(pred, str) else "")
    if (
        v.equivalent
        and not cut_off
        and isinstance(pred, str)
        and (_contradicted_after(pred, v) or _equation_after(pred, v))
    ):
        return Verdict(False, "contradicted_after", v.pred, v.extracted, v.gold)
    if v.equivalent and isinstance(pred, str) and _other_choice_before(pred):
        return Verdict(False, "hedged", v.pred, v.extracted, v.gold)
    if (
        v.equivalent
        and isinstance(pred, str)
        and isinstance(gold, str)
        and (_unit_beside_differs(pred, gold, v, deadline) or _counters_differ(str(v.extracted or ""), gold))
    ):
        return Verdict(
            False, "unit_mismatch", v.pred, v.extracted, v.gold
        )  # `T = 7.136 minutes` for `7.136 hour`
    if (
        v.equivalent
        and isinstance(pred, str)
        and (_other_case(pred) or (question and _bound_not_value(pred, question)) or _letters_listed(pred))
    ):
        return Verdict(False, "hedged", v.pred, v.extracted, v.gold)
    if (
        not v.equivalent and number_gold is not None
    ):  # `"answer": 3` for the gold `3`: the same option's number
        left = max(deadline - time.monotonic(), 0.05)
        same = check(number_gold[1], number_gold[0], timeout=left, cut_off=cut_off)
        if same.equivalent:
            return same
    return v


# an answer for one case and another for the other (`If 4 is allowed, the answer is (3,4]; if not, it is (3,4).`)
_OTHER_CASE = re.compile(
    r"\b(?:if not|otherwise)\b,?[^.\n]{0,40}?\b(?:it is|it's|the answer is|it would be|we get)\b[^.\n]{0,20}?[\d$\\(]",
    re.IGNORECASE,
)
# an answer line naming one letter (`The answer is (F)`, `Answer: D`)
_LETTER_LINE = re.compile(
    r"(?:the\s+)?(?:final\s+)?answer\s*(?:is|:)\s*:?\s*\(?([A-J])\)?\s*\.?", re.IGNORECASE
)


def _letters_listed(pred: str) -> bool:
    """A response that ends in answer lines naming different letters, one after another with nothing between
    (`The answer is (F)\nThe answer is (D)\n...\nThe answer is (J)`): a list of candidates, not one answer."""
    tail = pred[-400:]
    if tail.lower().count("answer") < 2:
        return False  # one answer line at most (the common case, decided without a scan)
    lines = [x.strip().strip("*") for x in tail.strip().split("\n") if x.strip()]
    letters = []
    for line in reversed(lines):
        m = _LETTER_LINE.fullmatch(line)
        if m is None:
            break
        letters.append(m.group(1).upper())
    return len(set(letters)) > 1


# a bound written before the box (`at least $\boxed{144}$ ways`), no answer to a question that asks no extreme
_BOUND_BEFORE = re.compile(
    r"\b(?:at least|at most|more than|less than|fewer than|no more than|no less than|greater than|up to)\s*\$?\s*$",
    re.IGNORECASE,
)
_EXTREME_OR_BOUND_ASKED = re.compile(
    r"\b(?:least|most|minimum|maximum|minimal|maximal|smallest|largest|greatest|fewest|bound|at least|at most)\b"
    r"|至少|至多|最少|最多|最小|最大",
    re.IGNORECASE,
)


def _other_case(pred: str) -> bool:
    """`... the answer is (3,4]; if not, it is (3,4).`: an answer for one case and another for the other."""
    tail = pred[-400:]
    return ("therwise" in tail or "f not" in tail) and _OTHER_CASE.search(tail) is not None


def _bound_not_value(pred: str, question: str) -> bool:
    """The last box is a bound (`at least $\\boxed{144}$`) and the question asks for no extreme."""
    start = pred.rfind("\\boxed")
    return (
        start >= 0
        and bool(_BOUND_BEFORE.search(pred[max(0, start - 30) : start]))
        and not _EXTREME_OR_BOUND_ASKED.search(question)
    )


_UNIT_WORDS = frozenset(UNITS) | frozenset(UNIT_WORD_FORMS) | forms.SCIENCE_UNITS


# a number and the CJK counter or unit after it (`22回`, `22 時間`, `18元`)
_CJK_COUNTED = re.compile(r"\s*\$?\s*-?\d+(?:\.\d+)?\s*\$?\s*([\u3040-\u30ff\u4e00-\u9fff]+)\s*[。.]?\s*")


def _counters_differ(answer: str, gold: str) -> bool:
    """A gold and an answer that write their number with different CJK counters or units (`22時間`, hours, for
    `22回`, times): another quantity. One counter extending the other (`元` and `元钱`) is the same."""
    if gold.isascii() or answer.isascii():
        return False  # no counter on one side (the common case)
    g, a = _CJK_COUNTED.fullmatch(gold), _CJK_COUNTED.fullmatch(answer)
    if g is None or a is None:
        return False
    x, y = g.group(1), a.group(1)
    return not (x.startswith(y) or y.startswith(x))


def _unit_beside_differs(pred: str, gold: str, v: Verdict, deadline: float) -> bool:
    """A gold with a unit, and an answer read without one whose number the response writes with another unit
    (`T = 7.136 minutes` for `7.136 hour`, `**93.4 atm**` for `93.4 \\mathrm{~bar}`)."""
    tail = gold.rstrip(" .)")[-1:]
    if not v.pred or not (tail == "}" or tail.isalpha()):
        return False  # a gold that ends in a digit has no unit (the common case, decided without a regex)
    if not _NUMBER_FIRST_RE.fullmatch(v.pred):
        return False
    if (
        split_unit(gold)[1] is None
        and forms.science_unit(gold) is None
        and _without_science_unit(gold)[1] is None
    ):
        return False
    if v.extracted and (split_unit(v.extracted)[1] or forms.science_unit(v.extracted)):
        return False  # the answer read carries its own unit: compared already
    written = None
    pattern = re.escape(v.pred) + r"\s*\$?\s*\**\s*(?:\\(?:text|mathrm)\s*\{\s*~?\s*)?([A-Za-z]+)"
    for m in re.finditer(pattern, pred[-300:]):
        written = m.group(1)
    if written is None or written not in _UNIT_WORDS:
        return False
    return _compare(f"{v.pred} {written}", gold, deadline).reason == "unit_mismatch"


# a sentence that names the chosen option (`Hence, the correct choice is (D).`)
_CHOICE_NAMED = re.compile(
    r"\b(?:correct|right|final)\s+(?:choice|answer|option)\s+is\s*:?\s*(?:option\s*)?\(?([A-E])\)?(?![\w(])",
    re.I,
)


def _other_choice_before(pred: str) -> bool:
    """A last line that is an answer line naming one letter (`_LETTER_LINE`) right after a sentence that names another
    option as the correct one (`Hence, the correct choice is (D).\nAnswer:C`), no correction between them: two
    choices offered, a hedge."""
    if "orrect" not in pred[-400:] and "ight" not in pred[-400:] and "inal" not in pred[-400:]:
        return False
    body = pred.rstrip()
    cut = body.rfind("\n")
    line = _LETTER_LINE.fullmatch(body[cut + 1 :].strip().strip("*").strip()) if cut > 0 else None
    if line is None:
        return False
    named = list(_CHOICE_NAMED.finditer(body, max(0, cut - 200), cut))
    if not named or not re.fullmatch(r"[\s.)*]*", body[named[-1].end() : cut]):
        return False  # no option named, or words between (`Wait, recheck: ... So C.`): a correction
    return named[-1].group(1).upper() != line.group(1).upper()


def _contradicted_after(pred: str, v: Verdict) -> bool:
    """A box, `####` line or answer line whose value a later last sentence contradicts with a result of its own
    (`$\\boxed{6}$ students ... There are 30 ways.`, `Answer: 540` then `Check: ... his weekly total is 180
    meters.`): two answers, so neither earns credit."""
    if not v.pred or not _PLAIN_DECIMAL.fullmatch(v.pred):
        return False
    if "#" not in pred and "boxed" not in pred:
        tail = pred[-600:]
        k = max(tail.rfind("nswer"), tail.rfind("NSWER"))
        nl = tail.find("\n", k) if k >= 0 else -1
        if nl < 0 or not tail[nl:].strip():
            return False  # no answer line with lines after it (the common case, decided without a regex)
        debris = cut_debris(pred)
        end = answer_line_end(debris)
        stated = result_stated_after(debris, end) if end > 0 else None
        return stated is not None and float(stated) != float(v.pred) and extract(pred).how == "answer_line"
    last = max(pred.rfind("boxed"), pred.rfind("####"))
    close = pred.find("}", last) if pred.startswith("boxed", last) else pred.find("\n", last)
    if close < 0 or not any(c.isdigit() for c in pred[close:]):
        return False  # nothing numeric after the answer (the common case, decided without a scan)
    stated = result_stated_after(cut_debris(pred))
    if stated is None or float(stated) == float(v.pred):
        return False
    return extract(pred).how in ("boxed", "gsm8k")  # (rare) the value came from that box or line


# a last line after the answer that is one computation and its result: `(9 × 476 = 4248)`
_EQUATION_LINE = re.compile(
    r"\(?\s*\d[\d.,]*(?:\s*[×x*+\-/÷]\s*\d[\d.,]*)+\s*=\s*(-?\d[\d,]*(?:\.\d+)?)\s*\)?\s*\.?"
)


def _equation_after(pred: str, v: Verdict) -> bool:
    """An answer (`<answer>4284</answer>`, a box, a `####` line) followed by nothing but a computation whose result
    is another number (`(9 × 476 = 4248)`): two final values, so neither earns credit."""
    if not v.pred or not _PLAIN_DECIMAL.fullmatch(v.pred):
        return False
    ends = [pred.rfind("</answer>") + len("</answer>") if "</answer>" in pred else -1]
    if "boxed" in pred:
        at = pred.rfind("boxed")
        ends.append(pred.find("}", at) + 1 if pred.find("}", at) >= 0 else -1)
    if "####" in pred:
        at = pred.rfind("####")
        ends.append(pred.find("\n", at) if pred.find("\n", at) >= 0 else -1)
    end = max(ends)
    if end <= 0:
        return False
    tail = pred[end:].strip().strip("$")
    m = _EQUATION_LINE.fullmatch(tail) if tail and "\n" not in tail else None
    return m is not None and float(m.group(1).replace(",", "")) != float(v.pred)


# a gold that judges two statements (MMLU's `Statement 1 | ... Statement 2 | ...` items, stored `False, True`)
_TRUTH_PAIR = re.compile(r"\s*(true|false)\s*,\s*(true|false)\s*\.?\s*", re.IGNORECASE)
_TRUTH = {"true": True, "correct": True, "t": True, "false": False, "incorrect": False, "f": False}
_BOTH = re.compile(r"\bboth\s+statements\s+are\s+(true|correct|false|incorrect)\b", re.IGNORECASE)
_EACH = re.compile(r"\bstatement\s+([12])\s*(?:is|:)\s*(true|correct|false|incorrect)\b", re.IGNORECASE)
_LETTER_PAIR = re.compile(r"\s*\(?(t|f|true|false)\)?\s*,\s*\(?(t|f|true|false)\)?\s*\.?\s*", re.IGNORECASE)


def _truth_pair(pred: str) -> tuple[bool, bool] | None:
    """The verdicts on statements 1 and 2 that a response's last paragraph gives (`Both statements are false.`,
    `Statement 1: False\nStatement 2: True`, `F, T`), or None when it gives none or contradicts itself."""
    paragraphs = [x for x in re.split(r"\n\s*\n", pred.strip()) if x.strip()]
    last = paragraphs[-1] if paragraphs else ""
    if re.sub(r"[*#\s]", "", last).lower().rstrip(":") in ("finalanswer", "answer") and len(paragraphs) > 1:
        last = paragraphs[-2] + "\n" + last
    last = re.sub(r"(?i)^.*?final\s+answer\s*[*:]*\s*", "", last.replace("*", ""), flags=re.DOTALL)
    found = set()
    for m in _BOTH.finditer(last):
        found.add((_TRUTH[m.group(1).lower()],) * 2)
    each = {}
    for m in _EACH.finditer(last):
        if each.setdefault(m.group(1), _TRUTH[m.group(2).lower()]) != _TRUTH[m.group(2).lower()]:
            return None
    if len(each) == 2:
        found.add((each["1"], each["2"]))
    pair = _LETTER_PAIR.fullmatch(last)
    if pair:
        found.add((_TRUTH[pair.group(1).lower()], _TRUTH[pair.group(2).lower()]))
    return found.pop() if len(found) == 1 else None


def _truth_pair_reading(v: Verdict, pred: str, gold: str, g: re.Match) -> Verdict:
    """A two-statement item (`Statement 1 | ... Statement 2 | ...`, gold `False, True`, matched as `g`) answered in
    words: equal when the response's last paragraph judges both statements as the gold does."""
    said = _truth_pair(pred)
    if said is None:
        return v
    want = (g.group(1).lower() == "true", g.group(2).lower() == "true")
    read = f"{said[0]}, {said[1]}"
    return Verdict(
        said == want, "truth_pair_match" if said == want else "truth_pair_mismatch", read, read, gold
    )


# a last line that opens with its verdict: `True, $p(x)$ has exactly one real root`, `**No.** The series diverges.`
_LEADING_TRUTH = re.compile(
    r"[*_\s]*(true|false|yes|no)[*_]*\s*(?:[,.;:!]|\s[-\u2013\u2014]\s)", re.IGNORECASE
)


def _leading_truth_reading(v: Verdict, pred: str, gold: str) -> Verdict:
    """A true/false or yes/no gold answered by a last line that opens with a truth word and then gives its reason:
    that word is the answer (the rest of the line names no value to compare), agreeing or not."""
    lines = [x for x in pred.strip().splitlines() if x.strip()]
    m = _LEADING_TRUTH.match(lines[-1]) if lines else None
    if m is None:
        return v
    said = m.group(1).lower()
    same = _TRUTH_WORDS[said] == _TRUTH_WORDS[gold.strip().casefold()]
    return Verdict(same, "string_match" if same else "string_mismatch", said, said, gold)


def _second_reading(v: Verdict, pred: str, gold: str, question: str | None, deadline: float) -> Verdict:
    """What a first reading left unequal, read once more where the question or the gold's parts say how: a
    concluding sentence with the question's numbers in it, an option's value against a letter, a multi-part
    answer part by part. Only a match is taken; otherwise the first verdict stands."""
    pair = _TRUTH_PAIR.fullmatch(gold) if question and "Statement" in question else None
    if pair is not None:  # a two-statement gold is read only as one
        return (
            _truth_pair_reading(v, pred, gold, pair) if re.search(r"statement\s*1\b", question, re.I) else v
        )
    if not v.equivalent and gold.strip().casefold() in _TRUTH_WORDS:
        v = _leading_truth_reading(v, pred, gold)
    if question and v.reason in _UNREAD:
        v = _question_reading(v, pred, gold, question, deadline)
    if not v.equivalent and question:
        v = _option_reading(v, pred, gold, question, deadline)
    if not v.equivalent and question and v.reason not in ("hedged", "choice_value_mismatch"):
        v = _label_reading(v, pred, gold, question, deadline)
    if not v.equivalent and v.reason != "no_answer":
        v = _part_reading(v, pred, gold, deadline)
    if not v.equivalent and v.reason not in ("no_answer", "hedged"):
        v = _side_reading(v, pred, gold, question, deadline)
    return v


# a correction or a retraction after a first answer (`... wait, ...`, `Actually, ...`, `Correction: ...`)
_CORRECTED = re.compile(r"\b(?:wait|actually|correction|no,|oops|sorry|on second thought)\b", re.IGNORECASE)
_THINK_BLOCK = re.compile(r"<think>.*?</think>", re.S | re.IGNORECASE)


def _spoken(pred: str) -> str:
    """The response without its closed <think> blocks: what a model thinks is not what it answers."""
    return _THINK_BLOCK.sub("", pred) if "<think>" in pred.lower() else pred


def _squashed(s: str) -> str:
    """An expression with its spacing, delimiters and bold removed, to find it in the question's text."""
    s = re.sub(r"\\(?:mathbf|boldsymbol|bm|vec)\s*\{([^{}]*)\}", r"\1", s)
    return re.sub(r"\s+|\$|\\left|\\right|\\[,;!]", "", s.replace("\\dfrac", "\\frac"))


def _side_reading(v: Verdict, pred: str, gold: str, question: str | None, deadline: float) -> Verdict:
    """The value an answer names, read once more: a residue without its modulus (`13 \\pmod{18}`), and, with the
    question, the one equation whose left side is the question's own expression (`m+n = 194` for "What is
    $m+n$?", `\\angle AHB = 180^\\circ - \\angle ACB = 106^\\circ` beside `\\angle ACB = 74^\\circ` for "what is
    $\\angle AHB$?"): its last right-hand side. Only a match is taken."""
    answers = extract(pred).answers
    candidates = [forms.MODULUS_AFTER.sub("", a) for a in answers if forms.MODULUS_AFTER.search(a)]
    if question and "=" not in gold:
        asked = _squashed(question)
        spans = [m.group(1) for a in answers for m in re.finditer(r"\$([^$]+)\$", a)]  # `$A = 1$ and $B = 2$`
        parts = [
            p for a in spans or answers for p in (split_top(a, ",") or [a])
        ]  # `(a+b)^2=0, a=-b, x+y=4027`
        for a in parts:
            sides = equations.split_sides(a)
            lhs = _squashed(sides[0]) if sides else ""
            if len(lhs) >= 2 and lhs in asked:
                candidates.append(sides[-1])
    if len(candidates) != 1 or not candidates[0].strip():
        return v
    left = deadline - time.monotonic()
    second = _check(candidates[0], gold, left, deadline, False) if left > 0 else None
    if second is None or not second.equivalent:
        return v
    return Verdict(True, second.reason, candidates[0], v.extracted, second.gold)


def _with_unit(answer: str, pred: str) -> str:
    """The answer with the unit its line writes after it (`**Final answer:** $\\frac{41}{12}$ miles`)."""
    line = pred.strip().rsplit("\n", 1)[-1].replace("$", "").replace("*", "")
    line = re.sub(r"^[^:：]{0,30}[:：]", "", line).strip().rstrip(".")
    core = answer.replace("$", "").strip()
    if core and line.startswith(core) and len(line) - len(core) <= 20:
        return line
    # `There are 15 gallons of water.`: the one place the line writes the number, and the word after it (two for an
    # area or a volume: `350 square kilometers`)
    at = [m for m in re.finditer(r"(?<![\d.,])" + re.escape(core) + r"(?![\d.,]\d)", line)] if core else []
    word = (
        re.match(
            r"\s*(?:(?:square|sq\.?|cubic)\s*)?[A-Za-z]+(?:\^\s*\{?\s*[23]\s*\}?|[²³])?", line[at[0].end() :]
        )
        if len(at) == 1
        else None
    )
    return core + word.group(0) if word else answer


def _form_asked(v: Verdict, gold: str, question: str, pred: str = "") -> Verdict:
    """An equal answer not in the form the question asks for: the question's own expression restated
    (`restates_question`), an angle or a quantity in another unit than asked (`unit_mismatch`), a
    factorisation left incomplete (`not_factored_completely`)."""
    if restates_question(v.pred, gold, question):
        return Verdict(False, "restates_question", v.pred, v.extracted, v.gold)
    if not question.isascii() and pred and forms.chinese_unit_not_asked(pred, question):
        return Verdict(False, "unit_mismatch", v.pred, v.extracted, v.gold)  # `112米` for `多少平方米`
    if v.extracted and not_the_asked_angle_unit(v.extracted, gold, question):
        return Verdict(False, "unit_mismatch", v.pred, v.extracted, v.gold)
    if v.reason != "unit_converted" and forms.unit_not_used(
        _with_unit(v.extracted or v.pred, pred), gold, question
    ):
        return Verdict(
            False, "unit_mismatch", v.pred, v.extracted, v.gold
        )  # `45 seconds` for a question in minutes
    if v.reason != "unit_converted" and forms.measure_not_asked(
        _with_unit(v.extracted or v.pred, pred), gold, question
    ):
        return Verdict(False, "unit_mismatch", v.pred, v.extracted, v.gold)  # `16 m²` for a perimeter
    if v.extracted and forms.other_currency(v.extracted, question):
        return Verdict(
            False, "unit_mismatch", v.pred, v.extracted, v.gold
        )  # `€460` for a question in dollars
    if (
        v.extracted
        and COMPOUND_TIME.fullmatch(v.extracted.strip().rstrip("."))
        and forms.asked_unit(question) is not None
    ):
        return Verdict(
            False, "unit_mismatch", v.pred, v.extracted, v.gold
        )  # `1 h 18 min` for "How many minutes?"
    if v.reason == "unit_converted" and forms.asked_unit(question) not in (None, v.pred.split()[-1]):
        return Verdict(False, "unit_mismatch", v.pred, v.extracted, v.gold)  # `1.5 h` for "How many minutes?"
    if v.extracted and forms.order_not_kept(v.extracted, question):  # `15, 14, 6, 4` "in increasing order"
        return Verdict(False, "order_not_asked", v.pred, v.extracted, v.gold)
    read = bool(pred) and v.reason in ("choice_match", "choice_value_match")
    found = forms.choice_options(question) if read else None  # the question's options, read at most once
    stem = (  # the asking sentence comes before the options (and their `Options:` header)
        re.sub(
            r"\s*(?:answer\s+)?(?:options|choices)\s*[:：]?\s*$",
            "",
            question[: found[0]],
            flags=re.IGNORECASE,
        )
        if found
        else question
    )
    line = pred.strip().rsplit("\n", 1)[-1].replace(",", "") if pred else ""
    number = str(v.pred).replace(",", "")
    if (
        v.reason == "choice_value_match"
        and (one := re.findall(r"\$?-?\d+(?:\.\d+)?", number))
        and len(one) == 1
    ):
        number = one[0]  # `$98.92 per year`: its number
    if line and v.pred and forms.quantity_not_asked(line, number, stem):
        return Verdict(
            False, "unit_mismatch", v.pred, v.extracted, v.gold
        )  # `She sells 18 eggs.` for dollars
    if forms.factored_incompletely(v.pred, question):
        return Verdict(False, "not_factored_completely", v.pred, v.extracted, v.gold)  # `(6-2x)(6+2x)`
    if (
        forms.left_undone(v.extracted or v.pred, gold)
        or forms.like_terms_uncombined(v.extracted or v.pred, gold)
        or forms.fractions_uncombined(v.extracted or v.pred, gold)
    ):
        return Verdict(
            False, "not_evaluated", v.pred, v.extracted, v.gold
        )  # `\binom{10}{2}` for "how many", `6+12i-3i`
    form = forms.form_not_asked(v.extracted or v.pred, gold, question)
    if (
        form is not None
    ):  # `\frac{4}{6}` "in lowest terms", `\sqrt{25 \cdot 2}`, `0.5` "as a percent", `cm^2` for m^2
        return Verdict(False, form, v.pred, v.extracted, v.gold)
    if read and _letter_conflict(v, gold, question, found, pred):
        return Verdict(False, "choice_value_mismatch", v.pred, v.extracted, v.gold)
    choice = forms.choice(v.extracted or "")
    gold_choice = forms.choice(gold)
    if choice and choice[1] and (gold_choice is None or not gold_choice[1]):
        # `(A) 1000` when option (A) is 2^{10}: the letter, with another value (against a letter or a value gold)
        found = found if read else forms.choice_options(question)
        if found and choice[0] in found[1]:
            content = choice[1]
            numbers = re.findall(r"-?\d+(?:[.,]\d+)?", content)
            if len(_WORD.findall(content)) >= 3 and len(numbers) == 1:
                content = (
                    numbers[0].replace(",", ".") if re.fullmatch(r"-?\d+,\d{1,2}", numbers[0]) else numbers[0]
                )
                # `(F): el costo neto es $22,40`: a sentence after the letter, read by its one number
            same = _compare(content, found[1][choice[0]], time.monotonic() + 0.5)
            if not same.equivalent and same.reason != "timeout":
                return Verdict(False, "choice_value_mismatch", v.pred, v.extracted, v.gold)
    return v


_OPERATOR = re.compile(r"[-+*/^()!]|\\[a-zA-Z]")
_ASKED_ANGLE = re.compile(
    r"\bin\s+(radians|degrees)\b|(弧度|角度)(?:制)?表示"
    r"|\\theta\s*(<|\\leq?|\\le)\s*2\s*\\pi"  # `0 \\le \\theta < 2 \\pi`: the range is in radians
    r"|\b(degree|radian)\s+measure\b",  # `Find the degree measure of the least positive angle`
    re.IGNORECASE,
)
# the question asks for an angle as such (its measure in either unit is the answer), not for a real variable
_ANGLE_ASKED = re.compile(r"\bangles?\b|\\(?:angle|measuredangle)\b|\bpolar\b|角", re.IGNORECASE)
_DEGREE_SIGN = re.compile(r"\^\s*\{?\s*\\circ|\u00b0|\\degree|\bdegrees?\b")


# verdicts of a response whose answer was not read as one value: a concluding sentence may still name it
_UNREAD = (
    "no_answer",
    "structure_mismatch",
    "unparsable",
    "numeric_mismatch",
    "symbolic_mismatch",
    "kind_mismatch",
)


_WORD = re.compile(r"[A-Za-z]{2,}")  # three of them: a one-line response that is a sentence
_CONDITION = re.compile(r"\s*(?:if|when|suppose|assume|assuming|let)\b", re.IGNORECASE)


def _question_reading(v: Verdict, pred: str, gold: str, question: str, deadline: float) -> Verdict:
    """A concluding sentence with several numbers (`Therefore, there are 9 divisors of 196.`) read with the
    question: the one number the question does not hold (`concluded_number_beside`). Only a match is taken
    from this second reading; otherwise the first verdict stands."""
    ex = extract(pred)
    # a one-line response that is one sentence commits to what it says (`He made a profit of $70,000.`), as an
    # answer line does; a condition (`If it cost $70,000, ...`) commits to nothing
    sentence = (
        ex.how == "bare"
        and ex.answer
        and len(_WORD.findall(ex.answer)) >= 3
        and re.match(
            r"\s*[A-Za-z]", ex.answer
        )  # `120 dollars per year` is a value and its unit, read as such
        and "\n" not in pred.strip()
        and not _CONDITION.match(ex.answer)
    )
    marked = ex.how == "answer_line" or bool(sentence)
    # an answer line's value; `The answer is:\n\nEach group has 4 students.` (read as a concluding sentence); prose
    text = (
        ex.answer
        if (ex.how in ("answer_line", "sentence") or sentence) and ex.answer
        else without_trailing_asides(pred)
        if ex.how == "none"
        else None
    )
    number = concluded_number_beside(text, question, marked=marked) if text else None
    if number is None and (marked or ex.how == "sentence") and text:
        number = number_in_words(
            text, question
        )  # `Final answer: seventy-five dollars`, `The answer is: sixty students`
    if number is None and (ex.how == "none" or marked) and text:
        number = count_in_words(text, question)  # `Elliott took two thousand steps during his jog.`
    if number is None:
        return v
    second = _check(number, gold, max(deadline - time.monotonic(), 0.0), deadline, False)
    return Verdict(True, second.reason, number, number, second.gold) if second.equivalent else v


def _part_reading(v: Verdict, pred: str, gold: str, deadline: float) -> Verdict:
    """A multi-part gold (`（1）\\cos A=\\frac13（2）CE=3\\sqrt5`) against an answer with the same parts: equal when
    every part is."""
    g_parts = forms.parts(gold)
    if not g_parts:
        return v
    answer = extract(pred).answer
    last_line = pred.strip().rsplit("\n", 1)[-1]  # `最终结果：\n(1) a=-3；(2) ...；(3) k=-2`
    p_parts = next((ps for ps in map(forms.parts, filter(None, (answer, last_line))) if ps), None)
    if not p_parts or len(p_parts) != len(g_parts):
        return v
    for p, g in zip(p_parts, g_parts, strict=True):
        left = deadline - time.monotonic()
        if left <= 0 or not _check(p, g, left, deadline, False).equivalent:
            return v
    return Verdict(True, "parts_match", "; ".join(p_parts), v.extracted, v.gold)


def _option_reading(v: Verdict, pred: str, gold: str, question: str, deadline: float) -> Verdict:
    """A choice question (its options in `question`) answered by an option's value against a letter gold, or
    by a letter against the value gold: equal when the value is that option's and no other option's."""
    g = forms.choice(gold)
    answer = extract(pred).answer
    if not answer or not (g is None or not g[1]):
        return v
    a = forms.choice(answer)
    letter_gold, letter_answer = g is not None, a is not None and not a[1]
    if letter_gold == letter_answer:  # both letters (decided already) or both values (no options needed)
        return v
    found = forms.choice_options(question)
    if found is None:
        return v
    opts = found[1]
    value = answer if letter_gold else gold
    if "%" in value and not forms.PERCENT_MENTIONED.search(question):
        return v  # `The slope is 50%.` for an option `1/2`: a percent is no answer where none is asked
    same = [k for k, text in opts.items() if _compare(value, text, deadline).equivalent]
    if letter_gold and "%" in value:  # `22.40%` for the option `$22.40`: a percent is not an amount
        same = [k for k in same if "%" in opts[k]]
    elif letter_gold:  # `0.125` for the option `12.5%`: a percent's option is answered by its number
        same = [k for k in same if "%" not in opts[k] or _same_number(value, opts[k].replace("%", ""))]
    if letter_gold and len(same) == 1 and forms.units_disagree(_with_unit(answer, pred), opts[same[0]]):
        return v  # `The volume is 40.0 L.` for the option `40.0 ml`
    if letter_gold and same and forms.left_undone(value, opts[same[0]].strip().strip("$")):
        return v  # `f(2) = 2^3 + 2^2 - 2 + 4` for the option 14: the value asked was never written
    letter = g[0] if letter_gold else a[0]
    if same == [letter]:
        if letter_answer and _letter_with_another_value(pred, letter, opts[letter], deadline):
            return v  # `答案：A. -6` when option A is 6: the letter and its value disagree
        return Verdict(True, "choice_value_match", answer, v.extracted, v.gold)
    return v


# a response that opens with the letter it chooses (`B: By L'Hôpital's Rule, ... the limit is 2.`), and a letter
# named beside a value (`The integral is 1 (choice D).`)
_LEADING_LETTER = re.compile(r"\s*(?:\*\*)?\(?([A-E])\)?(?:\*\*)?\s*[:.)]\s")
_CONCLUDES = re.compile(r"\s*(?:therefore|thus|hence|so)\b", re.IGNORECASE)
_JSON_LETTER = re.compile(r'"(?:choice|option|letter)"\s*:\s*"\(?([A-J])\)?"', re.IGNORECASE)
# a line that states one value after a copula (`Thể tích hình nón là 3π.`, `The volume is 3π.`, `体积为3π。`)
_STATED_LINE = re.compile(
    r"[^=\d]*?(?:\bis|\blà|=|为|是|は)\s*\$?([-\d√π\\{}()^/.a-z]*\d[-\d√π\\{}()^/.a-z]*?)\$?\s*[.。]?"
)
# a letter and a value joined by `which is`: `(F), which is 6`, `505, which is (I)`
_WHICH_IS = re.compile(
    r"\(?(?P<letter>[A-J])\)?,?\s+which\s+is\s+\$?(?P<value>-?\d[\d,]*(?:\.\d+)?)"
    r"|-?\d[\d,]*(?:\.\d+)?\$?,?\s+which\s+is\s+(?:option\s+|choice\s+)?\((?P<after>[A-J])\)"
)


def _same_number(value: str, option: str) -> bool:
    """An option's text holds this one number (`9`, `$9$`, `9 cm`)."""
    found = re.findall(r"-?\d+(?:\.\d+)?", option.replace(",", ""))
    return len(found) == 1 and float(found[0]) == float(value.replace(",", ""))


_NAMED_LETTER = re.compile(
    r"(?:\b(?:choice|option)|정?답|答案?|答え)\s*[:：]?\s*\(?([A-J])\)?(?![A-Za-z])", re.IGNORECASE
)


def _label_reading(v: Verdict, pred: str, gold: str, question: str, deadline: float) -> Verdict:
    """A choice question answered in the `X: explanation` format (simple-evals' `C: 7/4. Using Euler's method ...`,
    or a last paragraph `A: The particle is at rest at (-4, 12) because ...`): the letter that opens the first line
    or the last paragraph, when only one letter does and the value the response reads is no other option's. Only a
    match is taken."""
    g = forms.choice(gold)
    if g is None or g[1]:
        return v
    paragraphs = [p for p in pred.strip().split("\n\n") if p.strip()]
    if not paragraphs:
        return v
    labels = {m.group(1) for p in (paragraphs[0], paragraphs[-1]) if (m := _LEADING_LETTER.match(p))}
    if labels != {g[0]} or _CORRECTED.search(pred):
        return v  # (`(B) After 12 minutes. Actually, ... so 24 minutes: (D).`: the opening letter was taken back)
    found = forms.choice_options(question)
    if found is None or g[0] not in found[1]:
        return v
    if v.extracted and forms.choice(str(v.extracted)) is None:  # `... the limit is 2` where 2 is option D
        other = [k for k, t in found[1].items() if _compare(str(v.extracted), t, deadline).equivalent]
        if other and g[0] not in other:
            return v
    return Verdict(True, "choice_match", g[0], v.extracted, v.gold)


def _letter_conflict(
    v: Verdict, gold: str, question: str, found: tuple[int, dict[str, str]] | None, pred: str
) -> bool:
    """A matched choice whose response also names another option: it opens with another letter than the one its
    value is (`B: ... the limit is 2` where 2 is option D), names another letter beside its value (`1 (choice D)`
    where 1 is option E), or its value is another option's than the letter it opens with (`B: ... the slope is 2`
    where 2 is option A). Precision first: a letter and a value that disagree are no answer. `found`: the
    question's options (`forms.options`)."""
    g = forms.choice(gold)
    if g is None or g[1] or found is None:
        return False
    opts = found[1]
    leading = _LEADING_LETTER.match(pred)
    named = {m.group(1) for m in _NAMED_LETTER.finditer(str(v.extracted or ""))}
    named |= {m.group(1) for m in _JSON_LETTER.finditer(pred[-400:])}  # `{"answer": "$97", "choice": "C"}`
    tail = pred[-300:]
    if "which" in tail:
        for m in _WHICH_IS.finditer(tail):
            if m.group("after"):  # `The answer is 505, which is (I).`: the letter named after the value
                named.add(m.group("after"))
            elif m.group("letter") in opts and not _same_number(m.group("value"), opts[m.group("letter")]):
                return True  # `The answer is (F), which is 6.` where F is 9
    if leading and leading.group(1) in opts and leading.group(1) != g[0] and v.reason == "choice_value_match":
        return True
    if named - {g[0]}:
        return True
    if v.reason == "choice_match" and forms.choice(str(v.extracted or "")) is not None:
        # `Therefore, the car would need to gain 300 km/hr. The answer is C.` where C is 120 kmph: the conclusion
        # just before the letter states a value that is not the letter's (numbers of the question, options included,
        # are no conclusion: `Therefore, it is 120 km/hr.` stays)
        sentences = re.split(r"(?<=[.!?])\s+", pred.strip()[-600:])
        before = sentences[-2] if len(sentences) >= 2 and _CONCLUDES.match(sentences[-2]) else ""
        given = set(re.findall(r"\d+(?:\.\d+)?", question[: found[0]].replace(",", "")))  # the stem's numbers
        said = [n for n in re.findall(r"\d+(?:\.\d+)?", before.replace(",", "")) if n not in given]
        option = re.findall(r"-?\d+(?:\.\d+)?", opts.get(g[0], ""))
        if len(said) == 1 and len(option) == 1 and float(said[0]) != abs(float(option[0])):
            return True
        # `Thể tích hình nón là 3π.\nĐáp án B.` where B is 3√3π: the line before the letter states a value no
        # option has (and the question does not give)
        lines = [x.strip() for x in pred.strip()[-600:].split("\n") if x.strip()]
        bare_letter = not forms.choice(str(v.extracted))[1]  # `Answer: (E) $78.20` names its value itself
        numeric = bool(
            re.search(r"\d", opts.get(g[0], ""))
        )  # `third order overall` is no value to set beside `3`
        stated = _STATED_LINE.fullmatch(lines[-2]) if len(lines) >= 2 and bare_letter and numeric else None
        if stated and stated.group(1).replace(" ", "") not in question.replace(" ", ""):
            deadline = time.monotonic() + 0.5
            value = stated.group(1)
            if not any(_compare(value, text, deadline).equivalent for text in opts.values()):
                return True
        # `Therefore, $\boxed{m+n=6+21=27}$. The answer is E.` where E is 14: a box just before the letter gives a
        # number (its last member) that is not the letter's option
        boxed = extract_boxed(pred[-600:]) if "box" in pred[-600:] else None
        last = boxed.rsplit("=", 1)[-1].strip() if boxed else ""
        if _PLAIN_DECIMAL.fullmatch(last) and len(option) == 1 and float(last) != float(option[0]):
            return True
    if v.reason == "choice_match" and v.extracted and forms.choice(str(v.extracted)) is None:
        deadline = time.monotonic() + 0.5
        same = [k for k, text in opts.items() if _compare(str(v.extracted), text, deadline).equivalent]
        return bool(same) and g[0] not in same
    return False


def _letter_with_another_value(pred: str, letter: str, option: str, deadline: float) -> bool:
    """The response's last `A. <number>` writes a number other than option A's own value."""
    found = re.findall(
        rf"(?<![A-Za-z]){letter}\s*[.．:：、)]\s*\$?(-?\d+(?:\.\d+)?)(?![\d.:/^_\\]|\s*[:/])", pred[-300:]
    )
    return bool(found) and not _compare(found[-1], option, deadline).equivalent


def not_the_asked_angle_unit(answer: str, gold: str, question: str) -> bool:
    """An angle equal in value but not in the unit the question asks for: degrees (`30^\\circ`) when it
    asks "in radians", a multiple of pi without a degree sign when it asks "in degrees"."""
    m = _ASKED_ANGLE.search(question)
    if m is None:
        # a real variable, not an angle asked: the gold's unit decides (`48^\circ` answered `\frac{4\pi}{15}` for `x`
        # labelled `x + 26^\circ`; `x = 150^\circ` for `x = \frac{5\pi}{6}`); an angle asked takes either unit
        if _ANGLE_ASKED.search(question):
            return False
        g_deg, a_deg = bool(_DEGREE_SIGN.search(gold)), bool(_DEGREE_SIGN.search(answer))
        return (g_deg and not a_deg and "\\pi" in answer and "\\pi" not in gold) or (
            a_deg and not g_deg and "\\pi" in gold and "\\pi" not in answer
        )
    radians = (
        (m.group(1) or "").lower() == "radians"
        or m.group(2) == "弧度"
        or m.group(3) is not None
        or (m.group(4) or "").lower() == "radian"
    )
    deg = bool(_DEGREE_SIGN.search(answer))
    if radians:
        return deg and not _DEGREE_SIGN.search(gold)
    return not deg and "\\pi" in answer and "\\pi" not in gold


def restates_question(answer: str, gold: str, question: str) -> bool:
    """`answer` (equal to `gold` by value) is an expression of the question's own text, written
    differently from the gold: a number alone or the gold's own spelling never is."""
    a = _squash(normalize(answer)).replace("$", "")
    if forms.choice(gold) is not None:  # a choice gold: the option's content is a right answer
        return False
    letter = forms.choice(answer)
    if (
        letter is not None and not letter[1]
    ):  # `(C)`: a letter names an option, and options are in the question
        return False
    if not a or not _OPERATOR.search(a) or a == _squash(normalize(_read_gold(gold) or gold)).replace("$", ""):
        return False
    q = _squash(
        question.replace("\\dfrac", "\\frac").replace("\\tfrac", "\\frac").replace("\\dbinom", "\\binom")
    )
    return re.sub(r"\s+", "", a) in re.sub(
        r"\s+", "", q.replace("$", "")
    )  # `\gcd(84,126)` in `\gcd(84, 126)`


def _with_reading(v: Verdict, pred: str, gold: str, cut_off: bool) -> Verdict:
    """The verdict with what the policy read from the response and the gold (both cached reads)."""
    if v.reason in ("too_large", "gold_invalid") or not isinstance(pred, str) or not isinstance(gold, str):
        extracted = None
        parsed_gold = None if v.reason == "gold_invalid" or not isinstance(gold, str) else _read_gold(gold)
    else:  # a second reading's value (`_question_reading`) is what was read; otherwise the policy's reading
        extracted = v.extracted if v.extracted is not None else extract(pred, cut_off=cut_off).answer
        parsed_gold = _read_gold(gold)
    pred_out = v.pred if extracted is not None else None  # no answer read: never the response itself
    return Verdict(v.equivalent, v.reason, pred_out, extracted, parsed_gold)


# the keys under which a dataset's answer object names its answer, and its accepted alternatives
_ANSWER_KEYS = ("canonical", "answer", "final_answer", "ground_truth")
_ALTERNATIVE_KEYS = ("accepted_equivalents", "accepted_answers", "aliases")


def answer_object(gold: str) -> list[str] | None:
    """A gold stored as a JSON object that names its answer (`{"canonical": "1/3", "accepted_equivalents": ["0.333..."],
    "display": "1/3"}`, `{"answer": 42}`): that answer, then its accepted alternatives; None for any other text (a
    set `{-2, 4}` is not JSON); an empty list for an object naming no answer (a structured answer, `{"from": "Mar",
    "to": "Apr"}`: its fields are not compared, so it is no gold this checker reads)."""
    import json

    try:
        obj = json.loads(gold)
    except ValueError:
        return None
    if not isinstance(obj, dict):
        return None
    main = next(
        (obj[k] for k in _ANSWER_KEYS if isinstance(obj.get(k), (str, int, float)) and str(obj[k]).strip()),
        None,
    )
    if main is None or isinstance(main, bool):
        return []
    alternatives = next((obj[k] for k in _ALTERNATIVE_KEYS if isinstance(obj.get(k), list)), [])
    return [
        str(main),
        *(str(a) for a in alternatives if isinstance(a, (str, int, float)) and not isinstance(a, bool)),
    ]


def _read_gold(gold: str) -> str | None:
    g_int = _plain_int(gold) if len(gold) < 40 else None
    return g_int if g_int is not None else extract(gold, gold=True).answer


def _plain_int(s: str) -> str | None:
    m = _PLAIN_INT.fullmatch(s)
    if m is None:
        return None
    digits = m.group(2).lstrip("0") or "0"
    return digits if m.group(1) != "-" or digits == "0" else "-" + digits


def _integer_fast_path(pe: Extraction, ge: Extraction) -> Verdict | None:
    """Integer gold and a single integer answer: decided with string work only."""
    if len(ge.answers) != 1 or len(pe.answers) != 1:
        return None
    g = _plain_int(ge.answers[0])
    if g is None:
        return None
    p = _plain_int(pe.answers[0])
    if p is None:
        return None
    return Verdict(p == g, "integer_match" if p == g else "integer_mismatch", p)


def _check(pred: str, gold: str, timeout: float, deadline: float, cut_off: bool = False) -> Verdict:
    if _sanity(gold):
        return Verdict(False, "gold_invalid", None)
    bad = _sanity(pred)
    if bad:
        return Verdict(False, bad, None)
    g_int = _plain_int(gold) if len(gold) < 40 else None
    pe = extract(pred, cut_off=cut_off)
    if pe.box_depth > MAX_DEPTH:
        return Verdict(False, "too_large", None)
    if g_int is not None and len(pe.answers) == 1:  # integer fast path: string work only, no gold scan
        p_int = _plain_int(pe.answers[0])
        if p_int is not None:  # complete with what was read: the reward's hot path builds one Verdict
            ok = p_int == g_int
            return Verdict(ok, "integer_match" if ok else "integer_mismatch", p_int, pe.answers[0], g_int)
    ge = extract(gold, gold=True)
    if ge.box_depth > MAX_DEPTH:
        return Verdict(False, "gold_invalid", None)
    fast = _integer_fast_path(pe, ge)
    if fast is not None:
        return fast
    prestart()  # non-blocking, once per process: the symbolic worker starts while we parse
    g_raw, gwhy = _prepare(ge)
    if g_raw is None or _MALFORMED.search(g_raw):
        return Verdict(False, "gold_invalid", None)  # the gold's fault, not the policy's
    p_raw, why = _prepare(pe)
    if p_raw is None:
        spoken = _spoken(pred).strip()
        if why == "no_answer" and forms.choice(g_raw) is not None and len(pred) <= 300 and spoken:
            if _CORRECTED.search(spoken):  # `(A) 59. Correction: ... none of these options is right.`
                return Verdict(False, why, None)
            r = forms.compare_choice(spoken, g_raw)  # `It's not A, therefore B`
            if r is not None:
                return Verdict(r, "choice_match" if r else "choice_mismatch", pred.strip())
        return Verdict(False, why, None)
    choice = _choice(p_raw, pred, pe, g_raw, deadline)
    if choice is not None:
        return choice
    if pe.joined == "or" and len(ge.answers) == 1 and parse_structure(normalize(g_raw)) is None:
        return Verdict(False, "hedged", p_raw)  # `\boxed{34} or \boxed{35}`: alternatives offered
    if _MALFORMED.search(p_raw):
        return Verdict(False, "unparsable", p_raw)  # `4\sqrt(2)`, `2^`: not read as something else
    return _compare(p_raw, g_raw, deadline)


# malformed LaTeX: `\sqrt(` (a LaTeX command with parentheses), a dangling operator at the end
_MALFORMED = re.compile(r"\\sqrt\s*\(|(?<!\\)[\^_]\s*$|\\frac\s*$")


def _choice(p_raw: str, pred: str, pe: Extraction, g_raw: str, deadline: float) -> Verdict | None:
    """A gold choice letter (see verifiers.forms): decided by the letter, or by the option's content."""
    several = forms.letters(g_raw, p_raw)
    if several is not None:
        return Verdict(several, "choice_match" if several else "choice_mismatch", p_raw)
    g = forms.choice(g_raw)
    if g is None:
        p = forms.choice(p_raw)
        if p is not None and p[1]:  # `C. {x | -3<x<4}` against the option's content: as the reverse
            v = _compare(p[1], g_raw, deadline)
            return v if v.equivalent else None
        return None
    if re.fullmatch(r"\(?[a-j]\)?\.?", p_raw.strip()) and re.fullmatch(r"\(?[A-J]\)?\.?", g_raw.strip()):
        p_raw = p_raw.upper()  # `**Answer: b**` for the option letter B
    r = forms.compare_choice(p_raw, g_raw)
    if (
        r is None
        and pe.how in ("bare", "prose", "sentence")
        and len(pred) <= 300
        and not _CORRECTED.search(pred)
    ):
        r = forms.compare_choice(pred.strip(), g_raw)  # `It's not A, therefore B`: the whole short answer
    if r is not None:
        return Verdict(r, "choice_match" if r else "choice_mismatch", p_raw)
    if g[1]:  # `C. {x | -3<x<4}` answered with the option's content
        v = _compare(p_raw, g[1], deadline)
        return v if v.equivalent else None
    return None


_EMPTY_ANSWERS = frozenset(
    ["no solution", "no solutions", "no real solution", "no real solutions", "none", "empty set", "the empty set",
     "\\emptyset", "\\varnothing", "\\{\\}", "{}", "\u2205", "无解", "不存在", "空集"]
)  # fmt: skip


def _empty_answer(s: str) -> bool:
    """`no solution`, `\\emptyset`, `\\varnothing`, `\\{\\}`, `none`, 无解: the answer "no values"."""
    t = re.sub(r"\\(?:text|mathrm|textbf)\{([^{}]*)\}", r"\1", s).replace("$", "").strip().rstrip(".").strip()
    return re.sub(r"\s+", " ", t).lower() in _EMPTY_ANSWERS


def _compare(p_raw: str, g_raw: str, deadline: float) -> Verdict:
    """Judge two extracted answers."""
    if _empty_answer(p_raw) and _empty_answer(g_raw):  # `no solution` is `\\emptyset`
        return Verdict(True, "string_match", normalize(p_raw))
    if CHINESE_QUALIFIER.search(p_raw) or CHINESE_QUALIFIER.search(g_raw):  # compared as written
        same = _squash(normalize(p_raw)) == _squash(normalize(g_raw))
        return Verdict(same, "string_match" if same else "string_mismatch", normalize(p_raw))
    settled = equations.settle(p_raw, g_raw)
    if settled == "label_mismatch":
        return Verdict(False, "label_mismatch", normalize(p_raw))
    if settled == "equation":  # equations of curves: compared as equations, sides and all
        pe, ge = (_equation(x) for x in (p_raw, g_raw))
        return _symbolic([[(pe, ge)]], pe, deadline, "symbolic")
    if settled is not None:
        p_raw, g_raw = settled
    if _squash(p_raw) == _squash(g_raw):
        return Verdict(True, "string_match", normalize(p_raw))  # the same up to spacing (`-3m`, `-3 m`)
    p_raw, g_raw = _angles(p_raw, g_raw), _angles(g_raw, p_raw)
    # `\{3\}` for the gold 3: the set of all values is that one value (either side; a set or interval on the other
    # side is compared as a set)
    single = _SINGLETON.fullmatch(p_raw)
    if single and not _SET_OR_TUPLE.search(g_raw):
        p_raw = single.group(1)
    single = _SINGLETON.fullmatch(g_raw)
    if single and not _SET_OR_TUPLE.search(p_raw):
        g_raw = single.group(1)
    p_sci = forms.science_unit(p_raw) if p_raw[-1:].isalpha() or p_raw[-1:] in "}$" else None
    g_sci = forms.science_unit(g_raw) if p_sci and (g_raw[-1:].isalpha() or g_raw[-1:] in "}$") else None
    if (p_sci and g_sci and p_sci != g_sci) or ("‰" in p_raw) != ("‰" in g_raw):  # `50.7 bar` for `50.7 atm`
        return Verdict(False, "unit_mismatch", normalize(p_raw))  # a per mille is no percent
    # units: both written and different is a mismatch (5 cm vs 5 m); one-sided units are ignored
    p_body, p_unit = _percent_word(*split_unit(p_raw))
    g_body, g_unit = _percent_word(*split_unit(g_raw))
    p_sci_unit = g_sci_unit = None  # `1310 \mathrm{~K}`, `1.11e4 K`: the number, its unit aside
    if p_unit is None and (p_body[-1:] == "}" or p_body[-1:].isalpha()):
        p_body, p_sci_unit = _without_science_unit(p_body)
    if g_unit is None and (g_body[-1:] == "}" or g_body[-1:].isalpha()):
        g_body, g_sci_unit = _without_science_unit(g_body)
    if (
        (p_sci_unit or g_sci_unit)
        and (p_sci_unit or p_unit)
        and (g_sci_unit or g_unit)
        and _units_written_differ(p_sci_unit, p_unit, g_sci_unit, g_unit)
    ):
        return Verdict(False, "unit_mismatch", normalize(p_body))  # `7.78 pC` for `7.78 fC`: no conversion
    if (
        _DEGREE_MARK.search(g_body)
        and p_unit == "radians"
        or _DEGREE_MARK.search(p_body)
        and g_unit == "radians"
    ):
        return Verdict(False, "unit_mismatch", normalize(p_body))  # `60 radians` is not 60 degrees
    p, g = normalize(p_body), normalize(g_body)
    if _solves(p, g) or _solves(g, p):  # `x^2=4` and `x=2 or x=-2`: the equation and all its roots
        return Verdict(True, "structure_match", p)
    if _AMBIGUOUS_FACTORIAL.search(p) or _AMBIGUOUS_FACTORIAL.search(g):
        return Verdict(p == g, "string_match" if p == g else "ambiguous", p)  # `2^4!`: see the docstring
    p, g = _set_builder(p), _set_builder(g)
    pc, gc = forms.clock_seconds(p), forms.clock_seconds(g)
    if pc is not None and gc is not None:  # `20:34`, `20:34:00`, `08:34 P.M.`
        return Verdict(pc == gc, "string_match" if pc == gc else "string_mismatch", p)
    pr, gr = forms.ratio_terms(p), forms.ratio_terms(g)
    if pr is not None and gr is not None and (pr[1] or gr[1] or len(pr[0]) > 2):
        same = forms.ratios_equal(pr, gr)  # `2:4:6:\ldots` is `1:2:3:\ldots`; `1:4:9:\ldots` is not
        return Verdict(same, "string_match" if same else "string_mismatch", p)
    if _CLOCK.fullmatch(p) or _CLOCK.fullmatch(g):  # `12:00`, `1:4`: compared as written
        same = p.lstrip("0") == g.lstrip("0")
        return Verdict(same, "string_match" if same else "string_mismatch", p)
    if _ELLIPSIS.search(p) or _ELLIPSIS.search(g):  # sequences: every written term, in order
        same = _ELLIPSIS.sub("...", p).replace(" ", "") == _ELLIPSIS.sub("...", g).replace(" ", "")
        return Verdict(same, "string_match" if same else "string_mismatch", p)
    p, g = _union_of_relations(p), _union_of_relations(g)
    p, g = relation_to_interval(p) or p, relation_to_interval(g) or g
    p, g = strip_membership(p), strip_membership(g)
    if not p:
        return Verdict(False, "no_answer", p)
    if (
        p_unit
        and g_unit
        and (_units_differ(p_unit, g_unit) or not (_PLAIN_NUMBER.fullmatch(p) and _PLAIN_NUMBER.fullmatch(g)))
    ):
        if forms.same_quantity(
            p_body, p_unit, g_body, g_unit
        ):  # `12 inches` for `1 foot`, `5 ft 6 in` for `66 in`
            return Verdict(True, "unit_converted", f"{p} {p_unit}")
        if _units_differ(p_unit, g_unit):
            return Verdict(False, "unit_mismatch", p)
    if _hedged(p, g):
        return Verdict(False, "hedged", p)
    pi, gi = _INT.fullmatch(p), _INT.fullmatch(g)
    if pi and gi:
        return Verdict(p == g, "integer_match" if p == g else "integer_mismatch", p)
    vector = _vector_pair(p, g)
    if vector is not None:
        r, todo = _match_ordered(*vector, [])
        if r is not None:
            return Verdict(r, "structure_match" if r else "structure_mismatch", p)
        return _symbolic(todo, p, deadline, "structure")
    if kinds_differ(p, g):  # e.g. a number vs an interval, a word vs a tuple: no sympy needed
        return Verdict(False, "kind_mismatch", p)
    gs, ps = parse_structure(g), parse_structure(p)
    if gs is None and ps is None:
        pending: list[tuple[str, str]] = []
        r = _scalar(p, g, pending)
        if r is True:
            kind = "numeric" if (parse_number(g.rstrip("%")) is not None) else "string"
            return Verdict(True, f"{kind}_match", p)
        if r is False:
            kind = "numeric" if parse_number(g.rstrip("%")) is not None else "string"
            return Verdict(False, f"{kind}_mismatch", p)
        return _symbolic([pending], p, deadline, "symbolic")
    if gs is not None and ps is not None:
        if p == g:
            return Verdict(True, "structure_match", p)
        relabelled = _relabel(p_body, g_body)
        if isinstance(relabelled, Verdict):
            return relabelled
        if relabelled is not None:
            ps, gs = relabelled
        r, todo = _match_structures(ps, gs, [])
        if r is True:
            return Verdict(True, "structure_match", p)
        if r is False:
            return Verdict(False, "structure_mismatch", p)
        return _symbolic(todo, p, deadline, "structure")
    scalar = g if gs is None else p
    if (
        parse_number(scalar.rstrip("%")) is not None
        or _WORDY.fullmatch(scalar)
        or (_RELATION.search(scalar) is None and not _SETLIKE.search(scalar))
    ):
        return Verdict(False, "structure_mismatch", p)  # a tuple/set/matrix is never a number or a word
    # one side structured, the other not: a matrix/interval/set written differently (e.g.
    # a union of intervals, \pm) can still be equal; let the symbolic step decide.
    if (gs or ps).kind == "list" and (gs or ps).brackets == "" and _RELATION.search(p + g) is None:
        return Verdict(False, "structure_mismatch", p)
    return _symbolic([[(p, g)]], p, deadline, "symbolic")


_SINGLETON = re.compile(r"\s*\\\{\s*([^,;{}\\]+?)\s*\\\}\s*")
_SET_OR_TUPLE = re.compile(r"[\[\](),;]|\\\{|\\(?:cap|cup|setminus)\b")
_PERCENT_UNITS = frozenset({"percent", "percentage", "pct", "per cent"})


def _percent_word(body: str, unit: str | None) -> tuple[str, str | None]:
    """`28 percent` is `28%`: the word is the sign, not a unit (percent is decided in one place)."""
    if unit is not None and unit.strip().lower() in _PERCENT_UNITS and parse_number(body.strip()) is not None:
        return body.strip() + "%", None
    return body, unit


_CLOCK = re.compile(r"\d+(?::\d+)+")
_SQUASH = re.compile(r"\$|\\[,;:! ]|\\(?:left|right)(?![a-zA-Z])")
_SPACE = re.compile(r"\s+")


def _squash(s: str) -> str:
    """Without spacing, except a space between digits (`1 2`) or after a comma (`1, 000`): those separate."""
    s = _SQUASH.sub("", s)
    return _SPACE.sub(lambda m: " " if _separates(m) else "", s)


def _separates(m: re.Match) -> bool:
    before = m.string[m.start() - 1] if m.start() else ""
    after = m.string[m.end()] if m.end() < len(m.string) else ""
    return (before.isdigit() or before == ",") and after.isdigit()


_DEG_NUM = re.compile(r"(-?\d+(?:\.\d+)?)\s*(?:\^\s*\{?\s*\\circ\s*\}?|\u00b0|\\degree(?![a-zA-Z]))")


def _angles(s: str, other: str) -> str:
    """Degrees as radians when the other answer is in radians (`45^\\circ` for `\\frac{\\pi}{4}`)."""
    if "\\pi" in other and "\\pi" not in s and not _DEGREE_MARK.search(other) and _DEG_NUM.search(s):
        return _DEG_NUM.sub(lambda m: f"\\frac{{{m.group(1)}\\pi}}{{180}}", s)
    return s


# a science unit after a number that `split_unit` does not know: LaTeX groups (`\\mathrm{~kJ} \\mathrm{~mol}^{-1}`,
# `\\mathrm{~m} / \\mathrm{s}`) or a plain unit symbol (`K`, `m/s^2`); the number may be in scientific notation
_NUMBER_FIRST = (
    r"(-?\s*\d[\d,]*(?:\.\d+)?(?:\s*(?:\\times|\\cdot|×)\s*10\s*\^\s*\{?\s*-?\d+\s*\}?|[eE][-+]?\d+)?)"
)
_NUMBER_FIRST_RE = re.compile(_NUMBER_FIRST)
_PLAIN_DECIMAL = re.compile(r"-?\d+(?:\.\d+)?")
_TEX_UNIT_TAIL = re.compile(
    _NUMBER_FIRST
    + r"\s*(?:(?:\\[,;: !]|~|\\cdot|/|\s)*(?:\\(?:mathrm|text|rm|textrm)\s*\{\s*~?\s*[A-Za-z\\](?:[^{}]|\{[^{}]*\})*\}"
    r"|\\AA\b|Å)(?:\s*\^\s*\{?\s*-?\d+\s*\}?)?)+\s*$"
)
_PLAIN_UNIT_TAIL = re.compile(
    _NUMBER_FIRST + r"\s+([A-Za-z]{1,4})((?:\s*[/·*]\s*[A-Za-z]{1,4}|\s*\^\s*-?\d)*)\s*$"
)


def _without_science_unit(body: str) -> tuple[str, str | None]:
    """(number, unit) of `1310 \\mathrm{~K}` or `1.11e4 K` (a unit `split_unit` does not know), else (`body`, None)."""
    m = _TEX_UNIT_TAIL.fullmatch(body.strip())
    if m:
        return m.group(1), body.strip()[m.end(1) :]
    m = _PLAIN_UNIT_TAIL.fullmatch(body.strip())
    if m and m.group(2) in forms.SCIENCE_UNITS:
        return m.group(1), m.group(2) + m.group(3)
    return body, None


def _units_written_differ(
    p_sci: str | None, p_unit: str | None, g_sci: str | None, g_unit: str | None
) -> bool:
    """Two written units, at least one a science unit `split_unit` left alone: compared as spelt (`pC`, `fC`), or
    case-blind where `split_unit` read the other (it lower-cases words: `\\text{N}` is `n` there)."""
    if p_sci and g_sci:
        return _unit_text(p_sci) != _unit_text(g_sci)
    return _unit_text(p_sci or p_unit or "").lower() != _unit_text(g_sci or g_unit or "").lower()


def _unit_text(unit: str) -> str:
    """A unit's spelling without LaTeX wrappers and spacing, `/s` as `s^-1`: `\\mathrm{~kJ} \\mathrm{~mol}^{-1}` and
    `kJ/mol` read alike; different spellings of one unit (`W`, `J s^-1`) stay different (no conversion)."""
    u = re.sub(r"\\(?:mathrm|text|rm|textrm)\s*\{([^{}]*)\}", r"\1", unit)
    u = re.sub(r"\\[,;: !]|\\cdot|[~\s·*{}]", "", u)
    return re.sub(r"/([A-Za-z]+)(?:\^(-?\d+))?", lambda m: f"{m.group(1)}^-{m.group(2) or 1}", u)


def _power_unit(u: str) -> str:
    """`square cm` -> `cm^2`, `cubic feet` -> `feet^3`: the power written as a word."""
    m = re.fullmatch(r"(square|sq\.?|cubic|cu\.?)\s+([A-Za-z]+)", u.strip())
    return f"{m.group(2)}^{3 if m.group(1).startswith('cu') else 2}" if m else u


def _units_differ(a: str, b: str) -> bool:
    """`cm` vs `m`, `oranges` vs `apples`, `cm` vs `square cm` differ; `liters` vs `liters of fruit punch` do not."""
    a, b = _power_unit(a), _power_unit(b)
    if a == b:
        return False
    wa, wb = set(a.split()), set(b.split())
    return not (len(wa) > 1 or len(wb) > 1) or not (wa & wb)


def _vector_pair(p: str, g: str) -> tuple[list[str], list[str]] | None:
    """A one-row or one-column matrix against a bracketed list of the same length: its entries."""
    ps, gs = parse_structure(p), parse_structure(g)
    if ps is None or gs is None or {ps.kind, gs.kind} != {"matrix", "seq"}:
        return None
    m, v = (ps, gs) if ps.kind == "matrix" else (gs, ps)
    cells = [c for row in m.items for c in row]
    if not (len(m.items) == 1 or all(len(row) == 1 for row in m.items)) or len(cells) != len(v.items):
        return None
    return (cells, list(v.items)) if ps.kind == "matrix" else (list(v.items), cells)


def _set_builder(s: str) -> str:
    """`\\{x \\mid -3<x<4\\}` -> `(-3,4)` when its condition is a one-variable interval."""
    cond = forms.set_builder_condition(s) if "\\mid" in s or "|" in s else None
    if cond is None:
        return s
    return relation_to_interval(cond) or _union_of_relations(cond, force=True) or s


def _union_of_relations(s: str, force: bool = False) -> str:
    """`x<-1 or x>1` (several one-variable inequalities) -> the union of their intervals."""
    if not (force or " or " in s or "or" in s) or not _RELATION.search(s):
        return s
    st = parse_structure(s)
    if st is None or st.kind != "list":
        return s
    parts = [relation_to_interval(normalize(it)) for it in st.items]
    return "\\cup".join(parts) if all(parts) else s


_ELLIPSIS = re.compile(r"\\[lc]?dots(?:[bcm])?(?![a-zA-Z])|\.\.\.|\u2026")
_DEGREE_MARK = re.compile(r"\^\s*\{?\s*\\circ|\u00b0|\\degree|degrees?\b")
_ROOT_JOIN = re.compile(r"\s*(?:\bor\b|\\lor(?![a-zA-Z])|,|;)\s*")
_ROOT = re.compile(r"([a-zA-Z])\s*=\s*(.+)")
_CHECK_POINTS = (0.5, 1.75, 2.6, 3.3, 4.15, 5.9)


def _solves(equation: str, roots: str) -> bool:
    """True when `roots` lists numbers (`x=2 or x=-2`, `x=2, x=-2`) that are all the roots of the
    one-variable `equation` (`x^2=4`). Proof by values, no solving: the equation's difference of
    sides divided by the product of (x - root) is the same nonzero constant at six points, so it
    is that product times a constant and has exactly those roots. A double root (`x^2-4x+4=0` vs
    `x=2`) or an equation outside quickeval's plain subset is not decided here (never a match)."""
    if "=" not in equation or "=" not in roots:
        return False
    items = _ROOT_JOIN.split(roots)
    found = [_ROOT.fullmatch(item) for item in items]
    if len(items) < 2 or not all(found) or len({m.group(1) for m in found}) != 1:
        return False
    var = found[0].group(1)
    values = [parse_number(m.group(2)) for m in found]
    if any(v is None for v in values) or len(set(values)) != len(values):
        return False
    sides = equations.split_sides(equation)
    if sides is None or len(sides) != 2:
        return False
    diff = f"({sides[0]})-({sides[1]})"
    if quickeval.letters(diff) != {var}:
        return False
    occurrence = re.compile(rf"(?<![\\a-zA-Z]){var}(?![a-zA-Z])")
    ratios = []
    for t in _CHECK_POINTS:
        product = math.prod(t - float(v) for v in values)
        if abs(product) < 1e-6:
            return False
        at = quickeval.probe_values(occurrence.sub(f"({t})", diff), [])
        if at is None:
            return False
        ratios.append(at[0][0] / product)
    c = ratios[0]
    return abs(c) > 1e-9 and all(abs(r - c) <= 1e-9 * max(1.0, abs(c)) for r in ratios)


# `2^4!`, `2**n!`, `2^{4}!`: a factorial right after an exponent reads as 2^(4!) by precedence and
# as (2^4)! by its typesetting; precision first, such an answer equals only itself as written
_AMBIGUOUS_FACTORIAL = re.compile(r"(?:\^|\*\*)\s*(?:[A-Za-z0-9.]+|\{[^{}]*\})\s*!")


def _equation(raw: str) -> str:
    sides = equations.split_sides(raw) or [raw]
    return "=".join(normalize(side) for side in sides)


def _relabel(p_raw: str, g_raw: str) -> tuple[Structure, Structure] | Verdict | None:
    """Several labelled answers (`k = 2, n = 45`): compare label by label (see verifiers.equations)."""
    if "=" not in p_raw + g_raw:
        return None
    pst, gst = parse_structure(_lightly(p_raw)), parse_structure(_lightly(g_raw))
    if pst is None or gst is None or pst.kind == "matrix" or gst.kind == "matrix":
        return None
    pl, gl = equations.labelled_items(list(pst.items)), equations.labelled_items(list(gst.items))
    if pl is None and gl is None:
        return None
    if pl is not None and gl is not None:
        if sorted(lab for lab, _ in pl) != sorted(lab for lab, _ in gl):
            return Verdict(False, "label_mismatch", normalize(p_raw))
        pmap = dict(pl)
        return Structure("seq", "()", tuple(pmap[lab] for lab, _ in gl)), Structure(
            "seq", "()", tuple(v for _, v in gl)
        )
    # one side labelled, the other a bare tuple: compared in order
    pv = tuple(v for _, v in pl) if pl is not None else pst.items
    gv = tuple(v for _, v in gl) if gl is not None else gst.items
    return Structure("seq", "()", pv), Structure("seq", "()", gv)


def _lightly(raw: str) -> str:
    """Surface clean-up that keeps `label =` prefixes (normalize strips a lone one)."""
    s = raw.strip().strip("$").strip()
    return re.sub(r"\\(?:left|right|q?quad|displaystyle)(?![a-zA-Z])|\\[,;:! ]|\s+", "", s)


def _symbolic(todo: list[list[tuple[str, str]]], p: str, deadline: float, kind: str) -> Verdict:
    """todo: for each element, alternative (pred, gold) pairs; every element needs one match."""
    from verifiers.symbolic import compare_symbolic

    flat = [pair for options in todo for pair in options]
    out = compare_symbolic(flat, deadline)
    if isinstance(out, str):
        return Verdict(False, out, p)
    it = iter(out)
    results = [[next(it) for _ in options] for options in todo]
    if all("match" in r for r in results):
        return Verdict(True, f"{kind}_match", p)
    flat_res = [x for r in results for x in r]
    if any(x == "too_large" for x in flat_res):
        return Verdict(False, "too_large", p)
    if all(x == "unparsable" for x in flat_res):
        return Verdict(False, "unparsable", p)
    return Verdict(False, f"{kind}_mismatch", p)


def is_equivalent(pred: str, gold: str, *, timeout: float = 1.0) -> bool:
    """`check(...).equivalent`: the bool a reward function needs."""
    return check(pred, gold, timeout=timeout).equivalent
