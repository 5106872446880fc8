"""One place constructs an OpenAI client (issue 23): verifiers/llm.py's `_openai_client`."""

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PACKAGES = ("verifiers", "mathdata", "pipelines", "trainer", "evals", "bench")


def test_only_verifiers_llm_constructs_an_openai_client():
    pattern = re.compile(r"\b(Async)?OpenAI\(")
    sources = [*ROOT.glob("*.py"), *(p for pkg in PACKAGES for p in (ROOT / pkg).rglob("*.py"))]
    makers = sorted(
        {str(p.relative_to(ROOT)) for p in sources if pattern.search(p.read_text(encoding="utf-8"))}
    )
    assert makers == ["verifiers/llm.py"]
