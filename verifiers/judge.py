"""A model judge for what the rules cannot decide (optional, off by default).

When the rules say "not equivalent" (or cannot parse) and an answer was extracted, ask a model
behind any OpenAI-compatible endpoint (vLLM's server in production) whether the extracted
answer equals the gold. The prompt is short and strict, sees only the question, the gold and the
extracted answer (never the whole response), runs at temperature 0 and must be answered with
one word, `YES` or `NO`.

Guarantees:

- the judge never turns a rules "equivalent" into "not": it is only asked after a mismatch, and a
  hedge, an empty answer or an oversized one is never sent;
- verdicts are cached on disk (SQLite, one row per (model, prompt version, question, gold, pred))
  so a re-run asks nothing twice; only decisive answers are cached;
- a budget per call (`call_timeout_s`, wall-clock for the call, retries included: the HTTP
  timeout is what is left of it) and per run (`max_calls`: requests sent by this Judge, retries
  included); past either, the rules' verdict stands with reason `judge_timeout` / `judge_budget`;
- 429 and 5xx (and dropped connections, malformed bodies) are retried with exponential backoff
  (tenacity, honouring Retry-After within the call budget); a reply that is neither YES nor NO is
  `judge_garbage`; an endpoint that keeps failing is `judge_error`: never an exception, never a hang;
- `ask_many` runs `concurrency` calls at once (threads; the client is thread-safe).

Verdict reasons: `judge_match` (equivalent), `judge_mismatch`, and the failure reasons above
(all not equivalent). `openai` and `tenacity` are imported when a Judge is first used, so
`import verifiers` stays cheap.

Configuration is a `JudgeConfig` or a plain dict with its fields (what the verl/TRL adapters and
`score_batch` take): `base_url` (env OPENAI_BASE_URL), `model` (env DAPO_JUDGE_MODEL),
`api_key` (env OPENAI_API_KEY), `cache_dir`, `call_timeout_s`, `max_calls`, `max_retries`,
`concurrency`.
"""

from __future__ import annotations

import hashlib
import os
import sqlite3
import threading
import time
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import asdict, dataclass, field, fields
from pathlib import Path

PROMPT_VERSION = "v1"
SYSTEM = (
    "You grade math answers. Decide whether the candidate answer is mathematically equivalent to the "
    "reference answer for the question: the same value, set or expression, possibly written differently "
    "(other notation, simplification, units written or not). A candidate that is incomplete, offers "
    "several alternatives, or differs in value is not equivalent. Reply with exactly one word: YES or NO."
)
USER = "Question:\n{question}\n\nReference answer:\n{gold}\n\nCandidate answer:\n{pred}\n\nEquivalent (YES or NO)?"
MAX_FIELD_CHARS = 4_000  # a question longer than this is cut; answers this long are never sent
# restates_question: equal by value, refused on purpose; a judge asked "is it equal?" would say yes
NOT_JUDGED = frozenset(
    {"hedged", "too_large", "no_answer", "gold_invalid", "truncated", "unit_mismatch", "restates_question"}
)


@dataclass(frozen=True)
class JudgeConfig:
    """Where the endpoint is and how hard to use it (see the module docstring)."""

    base_url: str | None = None
    model: str | None = None
    api_key: str | None = None
    cache_dir: str | None = None
    call_timeout_s: float = 20.0
    max_calls: int | None = None
    max_retries: int = 3
    backoff_s: float = 0.2
    concurrency: int = 8
    extra: dict = field(default_factory=dict)  # passed to the endpoint (e.g. {"seed": 0})

    @classmethod
    def of(cls, cfg: JudgeConfig | dict) -> JudgeConfig:
        if isinstance(cfg, JudgeConfig):
            return cfg
        if not isinstance(cfg, dict):
            raise TypeError(f"judge: expected a JudgeConfig or a dict, got {type(cfg).__name__}")
        known = {f.name for f in fields(cls)}
        unknown = sorted(set(cfg) - known)
        if unknown:
            raise ValueError(f"judge: unknown option(s) {unknown}; known: {sorted(known)}")
        return cls(**cfg)

    def resolved(self) -> JudgeConfig:
        from verifiers.llm import resolve_endpoint

        base_url, model, api_key = resolve_endpoint(
            self.base_url, self.model, self.api_key, model_env="DAPO_JUDGE_MODEL", what="judge"
        )
        if self.call_timeout_s <= 0 or self.concurrency < 1 or self.max_retries < 0:
            raise ValueError("judge: need call_timeout_s > 0, concurrency >= 1, max_retries >= 0")
        return JudgeConfig(**{**asdict(self), "base_url": base_url, "model": model, "api_key": api_key})

    def llm_settings(self):
        """The toolkit's one client (verifiers.llm) configured as this judge: its retries, budget
        (`max_calls` requests) and concurrency."""
        from verifiers.llm import LLMSettings

        return LLMSettings(
            base_url=self.base_url,
            model=self.model,
            api_key=self.api_key,
            concurrency=self.concurrency,
            timeout_s=self.call_timeout_s,
            max_retries=self.max_retries,
            backoff_s=self.backoff_s,
            max_requests=self.max_calls,
            max_tokens=4,  # YES or NO: one word (one token for most tokenizers, a few for some)
            temperature=0.0,
        )


@dataclass(frozen=True)
class JudgeResult:
    """equivalent: the judge's verdict; reason: judge_match / judge_mismatch / judge_<failure>;
    cached: answered from the disk cache; detail: what went wrong, for failures."""

    equivalent: bool
    reason: str
    cached: bool = False
    detail: str = ""


class _Cache:
    """Verdicts on disk: one SQLite file, safe across threads and processes (WAL, transactions)."""

    def __init__(self, directory: str) -> None:
        Path(directory).mkdir(parents=True, exist_ok=True)
        self.path = Path(directory) / "judge.sqlite"
        self._lock = threading.Lock()
        self._db = sqlite3.connect(self.path, timeout=30, check_same_thread=False, isolation_level=None)
        with self._lock:
            self._db.execute("PRAGMA journal_mode=WAL")
            self._db.execute(
                "CREATE TABLE IF NOT EXISTS verdicts (key TEXT PRIMARY KEY, reason TEXT NOT NULL)"
            )

    def get(self, key: str) -> str | None:
        with self._lock:
            row = self._db.execute("SELECT reason FROM verdicts WHERE key = ?", (key,)).fetchone()
        return row[0] if row else None

    def put(self, key: str, reason: str) -> None:
        with self._lock:
            self._db.execute("INSERT OR REPLACE INTO verdicts (key, reason) VALUES (?, ?)", (key, reason))

    def close(self) -> None:
        with self._lock:
            self._db.close()


def read_verdict(text: str) -> str:
    """`judge_match` for YES, `judge_mismatch` for NO, `judge_garbage` for anything else."""
    word = text.strip().strip("*`'\".:!").strip().upper()
    if word in ("YES", "Y", "TRUE", "EQUIVALENT"):
        return "judge_match"
    if word in ("NO", "N", "FALSE", "NOT EQUIVALENT"):
        return "judge_mismatch"
    return "judge_garbage"


class Judge:
    """Asks the endpoint; see the module docstring. Thread-safe; `calls` counts requests sent."""

    def __init__(self, config: JudgeConfig | dict) -> None:
        from verifiers.llm import LLMClient

        self.config = JudgeConfig.of(config).resolved()
        self.client = LLMClient(self.config.llm_settings())
        self._cache = _Cache(self.config.cache_dir) if self.config.cache_dir else None

    def key(self, question: str, gold: str, pred: str) -> str:
        h = hashlib.sha256()
        for part in (self.config.model, PROMPT_VERSION, question, gold, pred):
            h.update(str(part).encode("utf-8", "surrogatepass"))
            h.update(b"\x00")
        return h.hexdigest()

    @property
    def calls(self) -> int:
        """Requests sent by this Judge, retries included (what `max_calls` bounds)."""
        return self.client.usage["requests"]

    def ask(self, question: str | None, gold: str, pred: str) -> JudgeResult:
        """Judge one (question, gold, extracted answer). Never raises, never outlives the call budget
        by more than one connection's teardown."""
        question = (question or "")[:MAX_FIELD_CHARS]
        if not isinstance(gold, str) or not isinstance(pred, str) or not pred.strip():
            return JudgeResult(False, "judge_skipped", detail="no extracted answer")
        if len(gold) > MAX_FIELD_CHARS or len(pred) > MAX_FIELD_CHARS:
            return JudgeResult(False, "judge_skipped", detail="answer too long to judge")
        key = self.key(question, gold, pred)
        if self._cache is not None:
            hit = self._cache.get(key)
            if hit is not None:
                return JudgeResult(hit == "judge_match", hit, cached=True)
        from verifiers.llm import BudgetExceeded, OutOfTime

        try:
            text = self._request(question, gold, pred)
        except OutOfTime:
            return JudgeResult(False, "judge_timeout", detail="call budget spent")
        except BudgetExceeded:
            return JudgeResult(False, "judge_budget", detail="call budget spent")
        except Exception as e:  # an endpoint that keeps failing: the rules' verdict stands
            return JudgeResult(False, "judge_error", detail=f"{type(e).__name__}: {str(e)[:200]}")
        reason = read_verdict(text)
        if reason == "judge_garbage":
            return JudgeResult(False, reason, detail=f"reply was {text[:80]!r}, not YES or NO")
        if self._cache is not None:
            self._cache.put(key, reason)
        return JudgeResult(reason == "judge_match", reason)

    def _request(self, question: str, gold: str, pred: str) -> str:
        messages = [
            {"role": "system", "content": SYSTEM},
            {
                "role": "user",
                "content": USER.format(question=question or "(not given)", gold=gold, pred=pred),
            },
        ]
        c = self.client.settings
        body = {"model": c.model, "messages": messages, "temperature": 0.0, "max_tokens": c.max_tokens}
        deadline = time.monotonic() + self.config.call_timeout_s
        return self.client.send_sync({**body, **self.config.extra}, deadline=deadline).text

    def ask_many(self, items: Sequence[tuple[str | None, str, str]]) -> list[JudgeResult]:
        """`ask` for every (question, gold, pred), `concurrency` at a time, in order."""
        if not items:
            return []
        with ThreadPoolExecutor(max_workers=min(self.config.concurrency, len(items))) as ex:
            return list(ex.map(lambda it: self.ask(*it), items))

    def close(self) -> None:
        self.client.close()
        if self._cache is not None:
            self._cache.close()


_judges: dict[tuple, Judge] = {}
_judges_lock = threading.Lock()


def get_judge(config: Judge | JudgeConfig | dict | None) -> Judge | None:
    """One Judge per configuration and process (so its run budget and client are shared)."""
    if config is None or isinstance(config, Judge):
        return config
    cfg = JudgeConfig.of(config)
    key = (os.getpid(), *(repr(v) for v in asdict(cfg).values()))
    with _judges_lock:
        if key not in _judges:
            _judges[key] = Judge(cfg)
        return _judges[key]


def judgeable(reason: str, pred: str | None) -> bool:
    """Whether a rules verdict may go to the judge: not equivalent, with an extracted answer, and
    not a hedge, an empty, oversized or truncated answer, nor a Countdown equation (decided exactly)."""
    return (
        pred is not None
        and bool(str(pred).strip())
        and reason not in NOT_JUDGED
        and not reason.endswith("_match")
        and not reason.startswith("countdown_")
    )
