"""Classes from blind set BT (Qwen2.5-1.5B-Instruct on MATH-500, probes on forms; issue 21).

- A question that measures in abstract units (`the number of square units in the area of a triangle whose sides
  measure 5, 5 and 6 units`) takes no metre or centimetre: `12 cm^2` is another unit (a false positive before);
  `12 square units` and a bare 12 are the answer.
- `Then $2x = 8$ and $x = 4$.` is a step and the letter solved, one answer (4); `$x = 2$ and $x = 3$` stays two.
"""

import pytest

import verifiers

HERON = "What is the number of square units in the area of a triangle whose sides measure 5, 5 and 6 units?"
POWER = "If $2^8=4^x$, what is the value of $x$?"


@pytest.mark.parametrize(
    ("pred", "gold", "question", "want"),
    [
        ("Using Heron's formula with $s = 8$: $\\sqrt{8\\cdot 3\\cdot 3\\cdot 2} = 12$. So the area is "
         "$\\boxed{12\\text{ cm}^2}$.", "12", HERON, False),
        ("So the area is $\\boxed{12\\text{ square units}}$.", "12", HERON, True),
        ("So the area is $\\boxed{12}$.", "12", HERON, True),
        ("A box of 3 units of soap costs $6, so each unit costs $\\boxed{2}$ dollars.", "2",
         "A box holds 3 units of soap and costs $6. What does one unit cost in dollars?", True),
        ("Write $4^x = (2^2)^x = 2^{2x}$. Then $2x = 8$ and $x = 4$.\n\nCheck: $4^4 = 256 = 2^8$. ✓", "4", POWER, True),
        ("Write $4^x = 2^{2x}$. Then $2x = 8$ and $x = 4$.", "8", POWER, False),
        ("So $x = 2$ and $x = 3$.", "2", "Solve $x^2 - 5x + 6 = 0$.", False),
    ],
)  # fmt: skip
def test_bt_classes(pred, gold, question, want):
    assert verifiers.check(pred, gold, question=question).equivalent is want
