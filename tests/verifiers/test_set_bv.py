"""Classes from blind set BV (Bengali word problems with Bengali-digit golds, probes in other scripts; issue 21).

- A correction after the answer line, in Bengali or Hindi (`সংশোধন: আসলে উত্তর হবে ৫৬ জন।`, "correction: actually the
  answer will be 56"; `ভুল হয়েছে, সংশোধিত উত্তর: ৫০`, "a mistake, corrected answer: 50"), replaces the answer line, as
  `Correction: ...` does in English (a false positive before).
- An answer line whose value is followed only by words of another script (`উত্তর: ৩/২ কেজি`, "3/2 kg") is that value;
  one with another number after it stays unread as one value.
"""

import pytest

import verifiers


@pytest.mark.parametrize(
    ("pred", "gold", "want"),
    [
        ("৪০ জন ৩৫ দিনে কাজটি করে, তাই ২৮ দিনে লাগবে ৪০ × ৩৫ ÷ ২৮ জন।\nউত্তর: ৫০ জন\nসংশোধন: আসলে উত্তর হবে ৫৬ জন।", "৫০", False),
        ("৪০ × ৩৫ = ১৪০০ শ্রমিক-দিন। ১৪০০ ÷ ২৮ = ৫০।\nউত্তর: ৪০\nভুল হয়েছে, সংশোধিত উত্তর: ৫০ জন শ্রমিক।", "৫০", True),
        ("৪০ × ৩৫ ÷ ২৮ = ৫০।\nউত্তর: ৫০ জন", "৫০", True),
        ("২.৪ ÷ ১.৬ = ২৪/১৬\nউত্তর: ৩/২ কেজি", "১.৫০", True),
        ("০.৬ ÷ ৩ = ৬/৩০\nউত্তর: ১/৫ লিটার", "০.২০", True),
        ("০.৬ ÷ ৩ = ৬/৩০\nউত্তর: ১/৪ লিটার", "০.২০", False),
        ("उत्तर: २५ रुपये", "25", True),
    ],
)  # fmt: skip
def test_bv_classes(pred, gold, want):
    assert verifiers.check(pred, gold).equivalent is want
