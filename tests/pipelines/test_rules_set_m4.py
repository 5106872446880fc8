"""Blind set M4 (algebra, precalculus and calculus drill banks; issue 21), measured once on arrival, then its classes,
each written here from its statement:

- a figure a document's markup draws (MyST `:::{plot}`, an inline `<svg>`, `\\includegraphics`) or a Norwegian, Danish or
  Swedish reference to one (`I grafen nedenfor`, "in the graph below") is a figure the text does not hold.
- a key that names its option first and explains after (`The correct answer is **C**. The Constant Rule ...`) keys C.
- a quiz page exported with its HTML (`<p> Solve for <em>x</em> in the equation \\(3x + 7 = 2x + 13\\):</p>`, options
  `<p>a) \\(12\\)</p>`) is read without its tags (`<sup>2</sup>` as `^{2}`), so the key is checked against the equation
  it asks to solve; `Solve for \\(x\\)` names its letter in math delimiters.
- an option that states a relation (`(+3) + (–7) + (–1) = (–5)` for "which operation does the model show?") is no
  value, so a key that names it is not rewritten into a number.
"""

import pytest
from rule_outcome import offline

from pipelines.classify import clean_text


@pytest.mark.parametrize(
    "problem",
    [
        "I grafen nedenfor vises grafen til $f(x) = \\log_a(x)$.\n\nBestem verdien til grunntallet $a$.\n\n:::{plot}\n"
        "function: log(x) / log(4)\n:::",
        "The graph of $f(x) = \\log_a x$ is drawn.\n\n:::{plot}\nfunction: log(x) / log(4)\n:::\n\nFind $a$.",
        "Find the base $a$.\n\\includegraphics[width=5cm]{log_graph.png}",
        "<p>The line passes through the two points marked.</p><svg width='100'><circle cx='0' cy='0' r='5'/></svg> "
        "What is its slope?",
    ],
)
def test_a_figure_drawn_by_markup_or_named_in_norwegian_needs_the_figure(problem):
    assert offline(problem, "4")["status"] == "rejected:needs_diagram"


def test_a_key_that_names_its_option_first_keys_it():
    problem = "What is the derivative of a constant function f(x) = 7?\nOptions: A. 7 / B. 1 / C. 0 / D. x"
    key = "The correct answer is **C**. The Constant Rule states that the derivative of any constant is zero."
    done = offline(problem, key)
    assert (done["status"], done["answer"]) == ("kept", "0")


HTML_QUIZ = (
    "<p> Solve for <em>x</em> in the equation \\(3x + 7 = 2x + 13\\):</p>\n"
    "Options: <p>a) \\(1\\)</p> / <p>b) \\(2\\)</p> / <p>c) \\(6\\)</p> / <p>d) \\(4\\)</p>"
)


def test_a_quiz_page_in_html_is_read_without_its_tags_and_its_key_checked():
    assert offline(HTML_QUIZ, "c")["status"] == "kept" and offline(HTML_QUIZ, "c")["answer"] == "6"
    assert (
        "does not hold" in offline(HTML_QUIZ, "b")["status"]
        or "no solution" in offline(HTML_QUIZ, "b")["status"]
    )
    assert (
        clean_text("Find x<sup>2</sup> if <b>x = 3</b>.<br/>Then stop.") == "Find x^{2} if x = 3.\nThen stop."
    )
    assert clean_text("If a<b and c>d, is a<c?") == "If a<b and c>d, is a<c?"  # no tag: as written


@pytest.mark.parametrize(
    "problem, key",
    [
        ("Solve for \\(x\\) in the equation \\(2x + 6 = 4x - 8\\):", "-2"),
        ("Solve for $x$: 2x + 6 = 4x - 8", "-2"),
    ],
)
def test_a_letter_named_in_math_delimiters_is_the_unknown(problem, key):
    assert "the key contradicts the question" in offline(problem, key)["status"]
    assert offline(problem, "7")["status"] == "kept"


def test_an_option_that_states_a_relation_is_no_value():
    problem = (
        "Jana starts at 0 on a number line, moves 3 right, then 7 left, then 1 left. Her moves are:\nOptions: a. (+2) + (–6) + (–1) = "
        "(–5) / b. (+2) + (–6) + (+4) = 0 / c. (+3) + (–7) + (+4) = 0 / d. (+3) + (–7) + (–1) = (–5)"
    )
    assert offline(problem, "d")["status"] == "rejected:mc_unresolved"
    solved = "Solve 2x = 6.\nOptions: A. x = 2 / B. x = 3 / C. x = 4"
    assert offline(solved, "B")["answer"] == "3"  # a solved letter names its value
