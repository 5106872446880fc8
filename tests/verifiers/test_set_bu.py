"""Classes from blind set BU (markdown-rich chat answers; issue 21).

- An answer in a currency the question never uses (`**€460**` for a question priced in dollars) is another quantity.
- A foreign answer label with `final` after it (`**Respuesta final:**`, `Réponse finale :`) opens an answer line.
- The last sentence of unmarked prose with one bold value and no number after it (`..., so James runs **540 meters**
  per week.`) gives that value; a bold sentence (`**Jimmy has 5 apples now**`) or a later number does not change what
  the sentence says.
"""

import pytest

import verifiers

ELIZA = (
    "Eliza's rate per hour for the first 40 hours she works each week is $10. She also receives an overtime pay of "
    "1.2 times her regular hourly rate. If Eliza worked for 45 hours this week, how much are her earnings for this week?"
)
JAMES = "James runs 3 sprints of 60 meters 3 times a week. How many total meters does he run a week?"


@pytest.mark.parametrize(
    ("pred", "gold", "question", "want"),
    [
        ("Total weekly earnings: **€460**.", "460", ELIZA, False),
        ("Total weekly earnings: **$460**.", "460", ELIZA, True),
        ("Horas normales: 40 × $10 = $400. Horas extra: 5 × $12 = $60.\n\n**Respuesta final:** Eliza gana **460 "
         "dólares** esta semana.", "460", ELIZA, True),
        ("**Réponse finale :** 460 dollars", "460", ELIZA, True),
        ("**Réponse finale :** 450 dollars", "460", ELIZA, False),
        ("Per session 3 x 60 = 180.\n\nHe does 3 sessions a week, so James runs **540 meters** per week.", "540", JAMES,
         True),
        ("Per session 3 x 60 = 180.\n\nHe does 3 sessions a week, so James runs **180 meters** per session.", "540",
         JAMES, False),
        ("So, **Jimmy has 5 apples now**!", "5", "Jimmy had 3 apples and Sarah gave him 2. How many does he have?",
         True),
        ("So **12** is wrong; the answer is 13.", "12", "What is 6 + 7?", False),
    ],
)  # fmt: skip
def test_bu_classes(pred, gold, question, want):
    assert verifiers.check(pred, gold, question=question).equivalent is want
