"""Options numbered (1)-(5) in an exam's LaTeX (`\\text{(1) 6}\\\\ ... \\text{(5) 10}`, the 2024 Korean CSAT as one
repository stores it; rules set Y4) are read as the circled options ① ... ⑤ are: a gold `1` names option 1, so its
value is a right answer and another option's number or value is not; the parts of a problem numbered (1), (2) are no
options."""

import pytest

from verifiers import check
from verifiers.forms import circled_numbering

CSAT = (
    r"\begin{array}{l}\text{1. } \sqrt[3]{24} \times 3^{\frac{2}{3}} \text{ 의 값은? [2점]}\\ \text{(1) 6}\\ "
    r"\text{(2) 7}\\ \text{(3) 8}\\ \text{(4) 9}\\ \text{(5) 10}\end{array}"
)


@pytest.mark.parametrize(
    "pred, gold, equivalent",
    [
        (r"\boxed{6}", "1", True),  # the value of option (1)
        ("정답은 ① 입니다", "1", True),
        (r"\boxed{7}", "1", False),  # option (2)'s value
        ("정답은 ② 입니다", "1", False),
        (r"\boxed{1}", "6", False),  # an option's number is not the value 6
    ],
)
def test_latex_numbered_options(pred, gold, equivalent):
    assert check(pred, gold, question=CSAT).equivalent is equivalent


def test_the_options_become_circled_lines():
    assert circled_numbering(CSAT).splitlines()[-5:] == ["① 6", "② 7", "③ 8", "④ 9", "⑤ 10"]


def test_numbered_parts_are_left_alone():
    parts = "(1) 求 a 的值 (2) 求 b 的值？ (3) 求 c (4) 求 d"
    assert circled_numbering(parts) == parts
