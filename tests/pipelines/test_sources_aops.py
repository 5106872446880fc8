"""AoPS wiki parsing on saved pages that follow the real page structure (problems are invented)."""

import json
import shutil
from pathlib import Path

import pytest

from pipelines.sources.aops import (
    AopsParseError,
    contest_pages,
    crawl,
    latex_text,
    page_url,
    parse_answer_key,
    parse_links,
    parse_problem_page,
    parse_title,
    problem_record,
    scrape_contest,
    title_from_href,
)
from pipelines.sources.fetch import Fetcher

FIX = Path(__file__).parent / "fixtures" / "aops"
SAVED = FIX / "saved"


def _problem(contest: str, n: int):
    title = f"{contest}_Problems/Problem_{n}"
    return parse_problem_page((SAVED / f"{title}.html").read_text(encoding="utf-8"), title=title)


def test_aime_page_keeps_the_latex_that_text_alone_would_drop():
    page = _problem("2099_AIME_I", 7)
    assert page.statement == (
        "Find the number of ordered pairs $(a, b)$ of positive integers such that\n\n"
        r"\[\frac{1}{a} + \frac{1}{b} = \frac{1}{12}.\]"
    )
    assert page.diagram is None
    assert len(page.solutions) == 1 and r"$\boxed{15}$" in page.solutions[0]
    # Navigation, copyright footer, table of contents and edit links stay out of the text.
    assert "copyrighted" not in page.statement + page.solutions[0]
    assert "edit" not in page.statement and "Contents" not in page.statement


def test_amc_page_keeps_the_five_choices():
    page = _problem("2099_AMC_12A", 2)
    last = page.statement.split("\n\n")[-1]
    assert last.startswith(r"$\textbf{(A) }\frac{2}{5}\qquad\textbf{(B) }")
    assert all(f"\\textbf{{({c}) }}" in last for c in "ABCDE")


def test_asy_diagram_is_kept_as_code_and_flagged():
    page = _problem("2099_AIME_I", 6)
    assert page.diagram == "asy"
    assert "[asy]\nsize(200);" in page.statement and page.statement.endswith("[/asy]")
    assert 'label("$A$",A,SW);' in page.statement


def test_several_solutions_without_videos_or_signatures():
    page = _problem("2099_AIME_I", 9)
    assert len(page.solutions) == 3
    assert all("257" in s for s in page.solutions)
    assert not any("youtu" in s or "~wikiuser" in s or "wikiuser" in s for s in page.solutions)


def test_new_mediawiki_skin_figure_image_and_pre_block():
    html = (FIX / "new_skin_figure.html").read_text(encoding="utf-8")
    page = parse_problem_page(html, title="2098_AMC_10B_Problems/Problem_12")
    assert page.statement.startswith("In the figure below, the three circles")
    assert "radius $3$." in page.statement
    assert "The following problem is from both" not in page.statement
    assert page.diagram == "image"  # the figure is an uploaded picture the text does not carry
    assert r"\boxed{\textbf{(D)}\ 18}" in page.solutions[0]
    assert "[asy]" in page.solutions[0]  # a pre block is kept as text


@pytest.mark.parametrize(
    "name, message",
    [("malformed.html", "no div.mw-parser-output"), ("no_problem_section.html", "no 'Problem' section")],
)
def test_malformed_pages_raise_a_clear_error(name, message):
    with pytest.raises(AopsParseError, match=f"{name}: {message}"):
        parse_problem_page((FIX / name).read_text(encoding="utf-8"), where=name)


def test_answer_key_year_page_and_contest_index():
    key = parse_answer_key((SAVED / "2099_AIME_I_Answer_Key.html").read_text(encoding="utf-8"))
    assert len(key) == 15 and key[3] == "022" and key[8] == "257"
    assert parse_answer_key((SAVED / "2099_AMC_12A_Answer_Key.html").read_text(encoding="utf-8")) == list(
        "CDADB"
    )
    links = parse_links((SAVED / "2099_AIME_I.html").read_text(encoding="utf-8"))
    assert "2099_AIME_I_Answer_Key" in links and "2099_AIME_I_Problems/Problem_15" in links
    index = (SAVED / "AIME_Problems_and_Solutions.html").read_text(encoding="utf-8")
    assert contest_pages(index) == ["2099_AIME_I"]
    with pytest.raises(AopsParseError, match="no ordered list"):
        parse_answer_key((SAVED / "2099_AIME_I.html").read_text(encoding="utf-8"), where="year page")


def test_titles_urls_and_links():
    assert parse_title("2099_AIME_I_Problems/Problem_7") == (2099, "AIME I", "7")
    assert parse_title("2023_AMC_12A_Answer_Key") == (2023, "AMC 12A", None)
    assert parse_title("Mathematics_competitions") == (None, None, None)
    assert page_url("2099_AIME_I_Problems/Problem_7") == (
        "https://artofproblemsolving.com/wiki/index.php/2099_AIME_I_Problems/Problem_7"
    )
    assert title_from_href("/wiki/index.php?title=2099_AIME_I&action=edit") == "2099_AIME_I"
    assert title_from_href("https://example.org/other") is None


def test_latex_text_on_a_snippet():
    from bs4 import BeautifulSoup

    p = BeautifulSoup(
        '<p>Let <img class="latex" alt="$x^2$"/> be\n  <b>big</b>.<br/>Then <img class="latexcenter" '
        'alt="\\[x=1\\]"/> holds.</p>',
        "lxml",
    ).p
    assert latex_text(p) == "Let $x^2$ be big.\nThen\n\n\\[x=1\\]\n\nholds."


def test_offline_crawl_builds_records_from_saved_pages():
    with Fetcher(offline=True, saved_pages=SAVED) as f:
        aime = crawl(f)
        amc = crawl(f, "AMC_12_Problems_and_Solutions", years=(2099, 2099))
        assert crawl(f, years=(2000, 2001)) == []
    assert [r["problem_number"] for r in aime] == [str(i) for i in range(1, 16)]
    assert len({r["id"] for r in aime + amc}) == 20
    r4 = aime[3]
    assert r4["source"] == "aops_wiki" and r4["competition"] == "AIME I" and r4["year"] == 2099
    assert r4["original_answer"] == "022"  # as the key prints it; canonicalised later
    assert r4["source_ref"].endswith("/2099_AIME_I_Problems/Problem_4")
    assert r"$\tfrac{m}{n}$" in r4["original_problem"]
    assert json.loads(aime[5]["checks"])["acquire"]["diagram"] == "asy"
    assert json.loads(aime[8]["checks"])["acquire"]["solutions"] == 3
    assert aime[8]["solution"].startswith("Solution 1:\n")
    assert [r["original_answer"] for r in amc] == list("CDADB")
    assert all(r["status"] == "kept" for r in aime + amc)


def test_boxed_answer_when_there_is_no_answer_key_and_rejects_when_neither():
    page = _problem("2099_AIME_I", 14)
    rec = problem_record(page, url="u", key_answer=None)
    assert rec["original_answer"] == "600" and json.loads(rec["checks"])["acquire"]["answer_from"] == "boxed"
    page.solutions = []
    rec = problem_record(page, url="u", key_answer=None)
    assert rec["status"] == "rejected:no_answer" and rec["original_answer"] is None


def test_unparseable_pages_become_rejected_records(tmp_path):
    saved = tmp_path / "saved"
    shutil.copytree(SAVED / "2099_AIME_I_Problems", saved / "2099_AIME_I_Problems")
    shutil.copy(SAVED / "2099_AIME_I.html", saved)  # no answer key saved: boxed answers are used
    shutil.copy(FIX / "malformed.html", saved / "2099_AIME_I_Problems" / "Problem_3.html")
    (saved / "2099_AIME_I_Problems" / "Problem_5.html").unlink()  # missing offline
    with Fetcher(offline=True, saved_pages=saved) as f:
        records = scrape_contest(f, "2099_AIME_I")
    assert len(records) == 15
    bad = {r["problem_number"]: r for r in records if r["status"] != "kept"}
    assert set(bad) == {"3", "5"}
    assert bad["3"]["status"] == "rejected:unparseable"
    assert "no div.mw-parser-output" in json.loads(bad["3"]["checks"])["acquire"]["error"]
    assert "offline" in json.loads(bad["5"]["checks"])["acquire"]["error"]
    kept = [r for r in records if r["status"] == "kept"]
    assert all(json.loads(r["checks"])["acquire"]["answer_from"] == "boxed" for r in kept)
    assert [r["original_answer"] for r in kept][:2] == ["166", "770"]
