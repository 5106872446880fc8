"""Countdown (TinyZero's arithmetic game): is the response's equation a solution?

"Using the numbers [79, 17, 60], create an equation that equals 36." The gold is the target, but the answer
is an expression, and what makes it right is not its last number: `<answer> 82 - 34 - 80 + 11 = 56 </answer>`
writes the target and computes -21, `28 + 1 = 29` computes the target from a number it was not given. Read
as a math answer, both end in the gold (a reward hack on 26 of 34 rows of a real eval file, set BX). So
when the question is a Countdown prompt, the answer is judged as the game's reference scorer judges it
(TinyZero's `countdown.compute_score`): the last `<answer>` (else the last box) holds an expression of
+, -, *, / and parentheses that uses exactly the given numbers, each once, and evaluates to the target. The 24 game is the same game with 24 as its target, in
whatever wording a prompt gives it (`Input: 4 5 6 10`, `Use the numbers 1, 1, 4, 6 exactly once each`).

Differences from the reference, each toward reading what a person would accept and nothing it would not:
the value is computed exactly (fractions, not floats within 1e-5); `×`, `÷`, `−`, `\\times`, `\\div` and
`$` delimiters are read as their ASCII operators; an expression followed by `= target` is the expression
(the reference rejects it; the number after `=` must then be the target itself). A chain of steps
(`79 - 60 = 19, 19 + 17 = 36`) is not an expression and is rejected, as the reference does.
"""

from __future__ import annotations

import ast
import json
import re
from collections import Counter
from dataclasses import dataclass
from fractions import Fraction

from verifiers.extract import extract_boxed

# the numbers a prompt gives: TinyZero's `numbers [19, 36, 55, 7]`, `Use the numbers 1, 1, 4, 6 exactly once each`,
# `Given these integers: 1 7 8 11`, Tree-of-Thoughts' 24 game `Input: 4 5 6 10`
_GIVEN = (
    re.compile(r"\bnumbers?\s*:?\s*\[(?P<nums>\s*\d+(?:\s*,\s*\d+)+\s*)\]", re.I),
    re.compile(
        r"\b(?:numbers|integers|digits)\s*:?\s*(?P<nums>\d+(?:(?:\s*,\s*|\s+and\s+|\s+)\d+){2,})\b", re.I
    ),
    re.compile(r"^\s*Input\s*:\s*(?P<nums>\d+(?:\s+\d+){2,})\s*$", re.I | re.M),
)
_TARGET = re.compile(
    r"\b(?:equals?|equal to|evaluates? to|obtain|make|reach|get|results? in)\s+(?P<target>-?\d+)(?![\d.]*\d)",
    re.I,
)
# what makes it the game and not a word problem that lists numbers: the operations or the each-once rule
_GAME = re.compile(
    r"arithmetic|operations|[-+*/]\s*,?\s*[-+*/]\s*,?\s*[-+*/]|exactly once|only be used once|once each|used once",
    re.I,
)
_ANSWER_TAG = re.compile(r"<answer>(.*?)</answer>", re.S | re.I)
_OFFERED_TOGETHER = re.compile(r"\s*(?:,|or|/|\||and)?\s*", re.I)  # two tags side by side: a hedge
# an answer line in the languages of the prompts (Tree-of-Thoughts' `Answer: (10 - 4) * 4 = 24`)
_ANSWER_LABEL = re.compile(
    r"\s*(?:\*\*)?(?:final\s+|correct(?:ed)?\s+)?(?:answer|respuesta|réponse|resposta|antwort|risposta|ответ|答案|答)"
    r"(?:\*\*)?\s*[:：]",
    re.I,
)
_THINKING = re.compile(r"<think>.*?(?:</think>|\Z)", re.S | re.I)
_CORRECTION = re.compile(r"\s*(?:wait|actually|correction|no,|instead|sorry|oops)\b", re.I)
_RUN = re.compile(r"[-(\d][-+*/()\d\s]*[\d)](?:\s*=\s*-?\d+)?")
_FRAC = re.compile(r"\\d?frac\s*\{([^{}]*)\}\s*\{([^{}]*)\}")
_SYMBOLS = (("\\times", "*"), ("\\cdot", "*"), ("\\div", "/"), ("×", "*"), ("·", "*"), ("÷", "/"), ("−", "-"),
            ("–", "-"), ("\\left", ""), ("\\right", ""), ("\\(", ""), ("\\)", ""), ("$", ""))  # fmt: skip
_ALLOWED = re.compile(r"[\d+\-*/().\s]+")


@dataclass(frozen=True)
class Task:
    """The numbers a Countdown prompt gives (with repeats) and the target it names."""

    numbers: tuple[int, ...]
    target: int


def countdown_task(question: str | None) -> Task | None:
    """The Countdown task a question poses (`Using the numbers [..], create an equation that equals T`, the 24 game's
    `Use numbers and basic arithmetic operations (+ - * /) to obtain 24. Input: 4 5 6 10`), or None: it needs the
    given numbers, a target and the game's rule (its operations, or each number once)."""
    text = question or ""
    given = next((m for m in (p.search(text) for p in _GIVEN) if m), None)
    target = _TARGET.search(text)
    if given is None or target is None or not _GAME.search(text):
        return None
    numbers = tuple(int(n) for n in re.findall(r"\d+", given.group("nums")))
    return Task(numbers, int(target.group("target")))


def task_from_gold(gold: object) -> Task | None:
    """The task a gold stores as data, a dict or its JSON text (TinyZero's `{"target": 36, "numbers": [79, 17, 60]}`
    written to Parquet as a string), or None when it is anything else."""
    if isinstance(gold, str) and gold.lstrip().startswith("{"):
        try:
            gold = json.loads(gold)
        except ValueError:
            return None
    if not isinstance(gold, dict) or not {"target", "numbers"} <= gold.keys():
        return None
    try:
        return Task(tuple(int(n) for n in gold["numbers"]), int(gold["target"]))
    except (TypeError, ValueError):
        return None


def task_text(numbers: list[int], target: int) -> str:
    """The prompt sentence `countdown_task` reads, for a row that stores the task as data (TinyZero's
    `ground_truth = {"target": 36, "numbers": [79, 17, 60]}`)."""
    listed = ", ".join(str(int(n)) for n in numbers)
    return (
        f"Using the numbers [{listed}], create an equation that equals {int(target)}. "
        "Use basic arithmetic operations (+, -, *, /) and each number exactly once."
    )


def _ascii(expr: str) -> str:
    """`6 × (11 − 3)`, `6 x 8`, `\\frac{8}{1}`, `8(5 - 2)`: the same expression in Python's operators."""
    for symbol, ascii_op in _SYMBOLS:
        expr = expr.replace(symbol, ascii_op)
    expr = _FRAC.sub(r"(\1)/(\2)", expr)  # `\frac{8}{1}`: a division
    expr = re.sub(r"(?<=[\d)])\s*[x]\s*(?=[\d(])", " * ", expr)  # `6 x 8`: x between operands is times
    return re.sub(r"(?<=[\d)])\s*(?=\()|(?<=\))\s*(?=\d)", "*", expr)  # `8(5 - 2)`, `(1 + 2)3`: a product


def _stated_expression(text: str) -> str | None:
    """Without a tag or a box: the expression of the last answer line (`Answer:`, `Final answer:`, `Respuesta:`,
    `答案：`), or of a correction after it (`Wait, that is 14. Correct answer: (9 - 4 - 2) * 8 = 24`, `Actually, let
    me use ...`); with no answer line, of the last line that writes one (`So we can get 24 by computing (9 - 3) *
    (6 - 2).`). In that line, its last run of numbers and operators (with `= target` after it, if written)."""
    lines = [line for line in text.splitlines() if line.strip()]
    labelled = [i for i, line in enumerate(lines) if _ANSWER_LABEL.match(line)]
    if labelled:
        chosen = lines[labelled[-1]]
        for line in lines[labelled[-1] + 1 :]:
            if _CORRECTION.match(line) and _runs(line):
                chosen = line
    else:
        chosen = next((line for line in reversed(lines) if _runs(line)), None)
    runs = _runs(chosen) if chosen else []
    return runs[-1] if runs else None


def _runs(line: str) -> list[str]:
    """The runs of numbers and operators in a line that hold an operation (`(9 - 3) * (6 - 2) = 24`, not `14`)."""
    return [r.strip() for r in _RUN.findall(_ascii(line)) if re.search(r"[\d)]\s*[-+*/]\s*[\d(]", r)]


def _value(node: ast.AST) -> Fraction:
    if isinstance(node, ast.Expression):
        return _value(node.body)
    if isinstance(node, ast.Constant) and type(node.value) is int:
        return Fraction(node.value)
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        return -_value(node.operand)
    if isinstance(node, ast.BinOp) and isinstance(node.op, (ast.Add, ast.Sub, ast.Mult, ast.Div)):
        a, b = _value(node.left), _value(node.right)
        if isinstance(node.op, ast.Add):
            return a + b
        if isinstance(node.op, ast.Sub):
            return a - b
        if isinstance(node.op, ast.Mult):
            return a * b
        return a / b  # ZeroDivisionError: no value
    raise ValueError("not an expression of +, -, *, / over integers")


def _numbers(node: ast.AST) -> list[int]:
    return [n.value for n in ast.walk(node) if isinstance(n, ast.Constant)]


def judge(pred: str, target: int, task: Task) -> tuple[bool, str, str | None]:
    """(solved, reason, the expression read) for a response to `task`; `target` is the gold's (the task's
    when the gold names none). Reasons: countdown_match, no_answer, countdown_chain (several `=`),
    countdown_target (the number after `=` is not the target), countdown_syntax, countdown_numbers (not the
    given numbers, each once), countdown_value (another value)."""
    text = pred or ""
    tags = list(_ANSWER_TAG.finditer(text))
    if len(tags) >= 2 and _OFFERED_TOGETHER.fullmatch(text[tags[-2].end() : tags[-1].start()]):
        return False, "hedged", None  # `<answer>89 - 85 + 29</answer> or <answer>85 - 89 + 29</answer>`
    spoken = _THINKING.sub("", text)  # what a model thinks is no answer (`<think>85 - 89 + 29 = 25</think>`)
    if tags:
        answer = tags[-1].group(1)
    else:  # a box stands for the tag, then an answer line or a last stated expression (outside the thinking)
        answer = extract_boxed(spoken) or _stated_expression(spoken)
    if answer is None or not answer.strip():
        return False, "no_answer", None
    expr = _ascii(answer.strip().rstrip(".").strip())
    sides = [s.strip() for s in expr.split("=")]
    if len(sides) > 2:
        return False, "countdown_chain", expr
    if len(sides) == 2:  # `37 + 30 + 1 = 68` (or `68 = 37 + 30 + 1`): the expression, and the value it claims
        bare = [s for s in sides if re.fullmatch(r"-?\d+", s)]
        if len(bare) != 1 or int(bare[0]) != target:
            return False, "countdown_target", expr
        expr = sides[1] if sides[0] == bare[0] else sides[0]
    if not _ALLOWED.fullmatch(expr):
        return False, "countdown_syntax", expr
    try:
        tree = ast.parse(expr, mode="eval")
        value = _value(tree)
    except (SyntaxError, ValueError, ZeroDivisionError, RecursionError):
        return False, "countdown_syntax", expr
    if Counter(_numbers(tree)) != Counter(task.numbers):
        return False, "countdown_numbers", expr
    if value != target:
        return False, "countdown_value", expr
    return True, "countdown_match", expr
