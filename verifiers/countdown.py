"""Countdown (TinyZero's arithmetic game): is the response's equation a solution?

"Using the numbers [79, 17, 60], create an equation that equals 36." The gold is the target, but the answer
is an expression, and what makes it right is not its last number: `<answer> 82 - 34 - 80 + 11 = 56 </answer>`
writes the target and computes -21, `28 + 1 = 29` computes the target from a number it was not given. Read
as a math answer, both end in the gold (a reward hack on 26 of 34 rows of a real eval file, set BX). So
when the question is a Countdown prompt, the answer is judged as the game's reference scorer judges it
(TinyZero's `countdown.compute_score`): the last `<answer>` (else the last box) holds an expression of
+, -, *, / and parentheses that uses exactly the given numbers, each once, and evaluates to the target.

Differences from the reference, each toward reading what a person would accept and nothing it would not:
the value is computed exactly (fractions, not floats within 1e-5); `×`, `÷`, `−`, `\\times`, `\\div` and
`$` delimiters are read as their ASCII operators; an expression followed by `= target` is the expression
(the reference rejects it; the number after `=` must then be the target itself). A chain of steps
(`79 - 60 = 19, 19 + 17 = 36`) is not an expression and is rejected, as the reference does.
"""

from __future__ import annotations

import ast
import re
from collections import Counter
from dataclasses import dataclass
from fractions import Fraction

from verifiers.extract import extract_boxed

# TinyZero's prompt and its rewordings: `Using the numbers [19, 36, 55, 7], create an equation that equals 65`
_TASK = re.compile(
    r"using (?:the|these|all (?:the|of the)?)?\s*numbers?\s*:?\s*\[(?P<nums>\s*\d+(?:\s*,\s*\d+)+\s*)\]"
    r"[^.]*?\b(?:equals?|equal to|makes?|reach(?:es)?|gets?|results? in|evaluates? to)\s+(?P<target>-?\d+)",
    re.I,
)
_ANSWER_TAG = re.compile(r"<answer>(.*?)</answer>", re.S | re.I)
_SYMBOLS = (("\\times", "*"), ("\\cdot", "*"), ("\\div", "/"), ("×", "*"), ("·", "*"), ("÷", "/"), ("−", "-"),
            ("–", "-"), ("\\left", ""), ("\\right", ""), ("\\(", ""), ("\\)", ""), ("$", ""))  # fmt: skip
_ALLOWED = re.compile(r"[\d+\-*/().\s]+")


@dataclass(frozen=True)
class Task:
    """The numbers a Countdown prompt gives (with repeats) and the target it names."""

    numbers: tuple[int, ...]
    target: int


def countdown_task(question: str | None) -> Task | None:
    """The Countdown task a question poses (`Using the numbers [..], create an equation that equals T`), or None."""
    m = _TASK.search(question or "")
    if m is None:
        return None
    return Task(tuple(int(n) for n in m.group("nums").split(",")), int(m.group("target")))


def task_text(numbers: list[int], target: int) -> str:
    """The prompt sentence `countdown_task` reads, for a row that stores the task as data (TinyZero's
    `ground_truth = {"target": 36, "numbers": [79, 17, 60]}`)."""
    return f"Using the numbers [{', '.join(str(int(n)) for n in numbers)}], create an equation that equals {int(target)}."


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
    tags = _ANSWER_TAG.findall(pred or "")
    answer = tags[-1] if tags else extract_boxed(pred or "")
    if answer is None or not answer.strip():
        return False, "no_answer", None
    expr = answer.strip().rstrip(".").strip()
    for symbol, ascii_op in _SYMBOLS:
        expr = expr.replace(symbol, ascii_op)
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
