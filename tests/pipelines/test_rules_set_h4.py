"""Blind set H4 (geometry and measurement items of image benchmarks and banks; issue 21): a statement whose figure is
not in its text is rejected as needing it, seen from what the text says of it:

- a benchmark's image slot (`<image1>`, MathVista's `<image>`), as a linked image already is;
- a picture pointed at (`see the picture`, `in this picture`, `the images below`, `these two people in image?`, `the
  rectangle above`), unless the text carries the table or display it names (`the table below` then a tabular);
- a measure of a shape asked in one short line that gives no number at all (`Find the perimeter of the orange
  square.`), or a function pointed at and never written (`this quadratic function`).

Controls: a word problem's photo (`likes on the photo`), a selfie's picture (`two students in the picture`), a
point's image under a map, and a long olympiad statement that names its shape by conditions are not figures.
"""

import pytest
from rule_outcome import assert_kept_as, offline


@pytest.mark.parametrize(
    ("problem", "key"),
    [
        ("How many bricks are missing in the wall?\n<image1>", "6"),
        ("What is the value of the smallest bar?\n<image>", "2"),
        (
            "A block has 8 vertices. One vertex is cut off now (see the picture). How many vertices has the block now?",
            "10",
        ),
        ("How many different digits can you find in this picture?", "6"),
        ("What is the age gap between these two people in image?", "7"),
        ("If the area of the rectangle above is 72, what is the value of x?", "8"),
        ("Find the perimeter of the orange square.", "16"),
        ("Find the surface area of the rectangular prism.", "52"),
        ("Find the largest root of this quadratic function.", "4"),
    ],
)
def test_a_figure_the_text_lacks_is_needed(problem, key):
    done = offline(problem, key)
    assert done["status"] == "rejected:needs_diagram", done["status"]


@pytest.mark.parametrize(
    ("problem", "key", "kept"),
    [
        (
            "Fishio posted her selfie on Instagram. She received 2000 likes on the photo after 1 week. Three weeks "
            "later, the number of likes was 70 times as many as the initial number. How many likes does she have now "
            "if she received 20000 more new likes?",
            "162000",
            "162000",
        ),
        (
            "Eight students take selfies. Each selfie will have either two or three students in the picture. Compute "
            "the minimum number of selfies so that each pair of the eight students appears in exactly one selfie.",
            "12",
            "12",
        ),
        (
            "The table below gives the scores.\n\n| Team | Points |\n| :--- | :---: |\n| A | 3 |\n| B | 5 |\n\n"
            "What is the total number of points?",
            "8",
            "8",
        ),
        ("What is the area of a square whose side is 4 cm?", "16", "16"),
    ],
)
def test_a_photo_or_a_picture_in_a_word_problem_is_no_figure(problem, key, kept):
    assert_kept_as(offline(problem, key), kept)


@pytest.mark.parametrize(
    ("problem", "key", "kept"),
    [
        ("Find the diagonal's length squared of the unit square.", "2", "2"),
        ("How many sides does a hexagon have?", "6", "6"),
    ],
)
def test_a_shape_whose_measure_its_name_gives_is_no_figure(problem, key, kept):
    assert_kept_as(offline(problem, key), kept)
