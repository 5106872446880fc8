"""Synthetic generators: deterministic, correct answers, stable ids, graded difficulty."""

import ast
import operator
import re

import pytest
import sympy

from pipelines.sources.synthetic import GENERATORS, generate

ALL = sorted(GENERATORS)
CANONICAL = re.compile(r"-?(0|[1-9]\d*)")
_OPS = {ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul, ast.Div: operator.truediv}


def _eval(node: ast.AST):
    """Evaluate + - * / on integers only: an independent check of the generator's arithmetic."""
    if isinstance(node, ast.Expression):
        return _eval(node.body)
    if isinstance(node, ast.Constant):
        return node.value
    if isinstance(node, ast.BinOp):
        return _OPS[type(node.op)](_eval(node.left), _eval(node.right))
    raise AssertionError(f"unexpected node {ast.dump(node)}")


def _solve(problem: str) -> int:
    """Recompute the answer from the statement alone."""
    if problem.startswith("Start with "):
        return _walk(problem)
    if problem.startswith("Add "):
        return sum(_terms(problem))
    if problem.startswith("What is "):
        value = _eval(ast.parse(problem.removeprefix("What is ").rstrip("?"), mode="eval"))
        assert value == int(value)
        return int(value)
    m = re.fullmatch(r"Solve for x: (.+) = (.+)\.", problem)
    assert m, problem
    lhs, rhs = (sympy.sympify(re.sub(r"(\d)x", r"\1*x", s)) for s in m.groups())
    (root,) = sympy.solve(sympy.Eq(lhs, rhs), sympy.Symbol("x"))
    return int(root)


def _terms(problem: str) -> list[int]:
    """The sum_any task's terms read back from `Add 12, 7 and 30, in any order. What is the total?`."""
    m = re.fullmatch(r"Add ((?:\d+, )*\d+) and (\d+), in any order\. What is the total\?", problem)
    assert m, problem
    return [int(x) for x in m.group(1).split(", ")] + [int(m.group(2))]


def _walk(problem: str) -> int:
    """The chain task read back from its words: `Start with 52, add 4, subtract 5, then add 4. ...`."""
    m = re.fullmatch(r"Start with (\d+), (.+)\. What is the result\?", problem)
    assert m, problem
    total = int(m.group(1))
    for step in m.group(2).replace("then ", "").split(", "):
        verb, num = step.split()
        total += int(num) if verb == "add" else -int(num)
    return total


@pytest.mark.parametrize("difficulty", [1, 2, 3, 4, 5])
def test_answers_are_correct_and_solutions_end_with_the_answer(difficulty):
    records = generate(60, seed=3, kinds=ALL, difficulty=difficulty)
    assert len(records) == 60
    assert {r["source"] for r in records} == {f"synthetic:{k}" for k in ALL}
    for r in records:
        assert CANONICAL.fullmatch(r["answer"]), r
        assert int(r["answer"]) == _solve(r["problem"]), r
        assert r["solution"].splitlines()[-1] == f"Answer: {r['answer']}"
        assert r["problem"] == r["original_problem"]
        assert r["original_answer"] == r["answer"]
        assert r["transform"] == "identity"
        assert r["split"] == "train"


def test_same_seed_same_records_other_seed_other_records():
    a = generate(40, seed=7)
    b = generate(40, seed=7)
    c = generate(40, seed=8)
    key = [(r["id"], r["problem"], r["solution"], r["answer"]) for r in a]
    assert key == [(r["id"], r["problem"], r["solution"], r["answer"]) for r in b]
    assert len({r["problem"] for r in a} & {r["problem"] for r in c}) < 5


def test_ids_unique_within_a_run_and_stable_across_runs():
    a = generate(400, seed=0, kinds=["div"])
    b = generate(400, seed=1, kinds=["div"])
    assert len({r["id"] for r in a}) == 400
    by_problem = {r["problem"]: r["id"] for r in a}
    shared = [r for r in b if r["problem"] in by_problem]
    assert shared, "two draws from a space of 720 problems should overlap"
    assert all(by_problem[r["problem"]] == r["id"] for r in shared)
    # Distinct problems never share an id.
    assert len({r["id"] for r in a + b}) == len({r["problem"] for r in a + b})


def test_difficulty_one_is_short_and_difficulty_adds_digits_and_steps():
    easy = generate(200, seed=0, difficulty=1)
    assert max(len(r["problem"]) for r in easy) <= 40
    assert max(len(r["solution"]) for r in easy) <= 64

    def mean(records, f):
        return sum(f(r) for r in records) / len(records)

    digits = [
        mean(generate(200, seed=0, difficulty=d), lambda r: len(r["answer"].lstrip("-"))) for d in range(1, 6)
    ]
    lines = [
        mean(generate(200, seed=0, difficulty=d), lambda r: r["solution"].count("\n")) for d in range(1, 6)
    ]
    assert digits == sorted(digits) and digits[-1] > digits[0] + 2
    assert lines[-1] > lines[0]


def test_running_out_of_distinct_problems_raises():
    with pytest.raises(ValueError, match="ran out of distinct problems"):
        generate(800, kinds=["mul"], difficulty=1)  # only 8 * 90 = 720 exist


@pytest.mark.parametrize(
    "kwargs, message",
    [
        ({"kinds": ["add", "pow"]}, "unknown synthetic kinds"),
        ({"kinds": []}, "unknown synthetic kinds"),
        ({"difficulty": 0}, "difficulty must be 1..5"),
        ({"difficulty": 6}, "difficulty must be 1..5"),
    ],
)
def test_bad_arguments_are_named(kwargs, message):
    with pytest.raises(ValueError, match=message):
        generate(5, **kwargs)


@pytest.mark.parametrize("difficulty", [1, 3, 5])
def test_chain_scratchpad_is_verified_and_each_step_is_right(difficulty):
    """The long-reasoning task: every line is a correct step, and the project's verifier accepts
    the worked solution against the answer (and rejects it against a wrong one)."""
    from verifiers import dapo_reward

    for r in generate(80, seed=5, kinds=["chain"], difficulty=difficulty):
        *steps, last = r["solution"].splitlines()
        prev = None
        for i, line in enumerate(steps, 1):
            m = re.fullmatch(rf"Step {i}: (\d+) ([+-]) (\d+) = (\d+)\.", line)
            assert m, line
            a, op, b, c = int(m[1]), m[2], int(m[3]), int(m[4])
            assert c == (a + b if op == "+" else a - b) and 0 <= c <= 199
            assert prev is None or a == prev
            prev = c
        assert prev == int(r["answer"]) == _walk(r["problem"])
        assert dapo_reward(r["solution"], r["answer"]).acc
        assert not dapo_reward(r["solution"], str(int(r["answer"]) + 1)).acc


def test_chain_lengths_vary_within_a_difficulty_and_grow_with_it():
    """Steps are drawn per problem (so a fixed max_new_tokens truncates a share), and harder levels are longer."""
    import statistics

    steps = {d: [r["solution"].count("Step ") for r in generate(300, seed=0, kinds=["chain"], difficulty=d)]
             for d in range(1, 6)}  # fmt: skip
    assert (min(steps[3]), max(steps[3])) == (4, 12)
    assert (min(steps[5]), max(steps[5])) == (8, 20)
    means = [statistics.mean(steps[d]) for d in range(1, 6)]
    assert means == sorted(means) and means[-1] > 3 * means[0]
    # a step line is ~20 characters: difficulty 3 spans ~80-250 characters of scratchpad
    chars = [len(r["solution"]) for r in generate(300, seed=0, kinds=["chain"], difficulty=3)]
    assert min(chars) < 120 and max(chars) > 250


def test_chain_is_deterministic_per_seed():
    a = generate(50, seed=4, kinds=["chain"], difficulty=3)
    b = generate(50, seed=4, kinds=["chain"], difficulty=3)
    c = generate(50, seed=5, kinds=["chain"], difficulty=3)
    assert [(r["id"], r["solution"]) for r in a] == [(r["id"], r["solution"]) for r in b]
    assert not {r["problem"] for r in a} & {r["problem"] for r in c}


@pytest.mark.parametrize("difficulty", [1, 3, 5])
def test_sum_any_adds_every_term_once_in_a_drawn_order(difficulty):
    """Each line adds one unused term to the running total; together they use every term exactly
    once; the orders differ from the statement's (the choices the policy learns to make)."""
    from collections import Counter

    from verifiers import dapo_reward

    reordered = 0
    for r in generate(80, seed=6, kinds=["sum_any"], difficulty=difficulty):
        terms = _terms(r["problem"])
        *steps, _ = r["solution"].splitlines()
        used, prev = [], None
        for i, line in enumerate(steps, 1):
            m = re.fullmatch(rf"Step {i}: (\d+) \+ (\d+) = (\d+)\.", line)
            assert m, line
            a, b, c = int(m[1]), int(m[2]), int(m[3])
            assert c == a + b and (prev is None or a == prev)
            used += [a, b] if prev is None else [b]
            prev = c
        assert Counter(used) == Counter(terms)
        assert prev == int(r["answer"]) == sum(terms)
        reordered += used != terms
        assert dapo_reward(r["solution"], r["answer"]).acc
        assert not dapo_reward(r["solution"], str(int(r["answer"]) + 1)).acc
    assert reordered > 60
