"""Rewrite a record so its answer is one integer: deterministic rules first, then the LLM.

The LLM prompt follows the DAPO paper's four steps (extract the answer format, rewrite the
statement, solve the rewritten problem, give the integer). Its reply is parsed strictly; a
reply that does not parse, declines, or disagrees with a rule-computed integer rejects the
record with that reason. `pipelines.report` counts what these steps do on a file of answers.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass

from pipelines.rules import Miss, Rewrite, apply_rules

SYSTEM = """You turn competition math problems into problems whose answer is a single integer, \
so that a reinforcement-learning reward can check answers exactly.

Work in four steps:
1. Extract the answer format: say what kind of object the original answer is (fraction, \
radical expression, tuple, expression in n, set of values, ...).
2. Rewrite the statement: keep the mathematics unchanged and append or change the request so \
the answer is one integer (for example "The answer can be written as \\frac{m}{n} ... Find m+n", \
"Find the sum of all such x", or fix a parameter such as n = 10). The rewritten problem must \
be self-contained and must not reveal the answer.
3. Solve the rewritten problem, using the original answer as a check.
4. Give the integer answer of the rewritten problem.

Reply with exactly these four tagged sections and nothing else:
<format>...</format>
<problem>...</problem>
<solution>...</solution>
<answer>INTEGER</answer>
If no faithful integer version exists (proofs, open-ended descriptions), reply with \
<answer>NONE</answer> and explain why in <format>."""

FEW_SHOT = [
    (
        "Problem: Let $x = \\sqrt{6} - 1$ ... find the minimum value of $f$.\n"
        "Original answer: $11-2\\sqrt{6}$",
        "<format>A radical expression of the form k - m\\sqrt{n}.</format>\n"
        "<problem>Let $x = \\sqrt{6} - 1$ ... find the minimum value of $f$. The minimum value can be "
        "written as $k-m\\sqrt{n}$, where $k$, $m$ and $n$ are positive integers and $n$ is not divisible "
        "by the square of any prime. Find $k+m+n$.</problem>\n"
        "<solution>The minimum is $11-2\\sqrt{6}$, so $k=11$, $m=2$, $n=6$ and $k+m+n=19$.</solution>\n"
        "<answer>19</answer>",
    ),
    (
        "Problem: Find all pairs $(x, y)$ of positive integers such that $x^2 - y^2 = 15$.\n"
        "Original answer: $(8,7), (4,1)$",
        "<format>A set of ordered pairs of positive integers.</format>\n"
        "<problem>Find the sum of $x+y$ over all pairs $(x, y)$ of positive integers such that "
        "$x^2 - y^2 = 15$.</problem>\n"
        "<solution>$(x-y)(x+y)=15$ with $0<x-y<x+y$ of the same parity gives $(1,15)$ and $(3,5)$, so "
        "$(x,y)=(8,7)$ or $(4,1)$. The sum of $x+y$ is $15+5=20$.</solution>\n"
        "<answer>20</answer>",
    ),
    (
        "Problem: Find, in terms of $n$, the number of subsets of $\\{1, 2, \\ldots, n\\}$.\n"
        "Original answer: $2^n$",
        "<format>An expression in n.</format>\n"
        "<problem>Find the number of subsets of $\\{1, 2, \\ldots, 10\\}$.</problem>\n"
        "<solution>Each of the 10 elements is in or out of a subset: $2^{10} = 1024$.</solution>\n"
        "<answer>1024</answer>",
    ),
    (
        "Problem: Prove that there are infinitely many primes.\nOriginal answer: (proof)",
        "<format>A proof; there is no answer to turn into an integer.</format>\n"
        "<problem></problem>\n<solution></solution>\n<answer>NONE</answer>",
    ),
]


def build_messages(problem: str, original_answer: str | None) -> list[dict]:
    """System prompt, few-shot pairs, then the problem: one structured request per record."""
    msgs = [{"role": "system", "content": SYSTEM}]
    for user, assistant in FEW_SHOT:
        msgs += [{"role": "user", "content": user}, {"role": "assistant", "content": assistant}]
    msgs.append(
        {"role": "user", "content": f"Problem: {problem}\nOriginal answer: {original_answer or '(none)'}"}
    )
    return msgs


class ReplyError(ValueError):
    """The LLM reply is unusable; the message is the reject reason."""


# Sent once when a reply cannot be read (tags missing, duplicated or not an integer): small instruct
# models often solve the problem in prose and forget the tags, and one reminder with the exact error
# is cheaper than losing the record. A reply that declines (NONE) is an answer, never retried.
FORMAT_RETRY = (
    "Your reply could not be read: {error}. Reply again with exactly the four tagged sections "
    "<format>...</format> <problem>...</problem> <solution>...</solution> <answer>INTEGER</answer>, "
    "each once, nothing else; keep the solution short; the answer is one integer with no units, "
    "or NONE."
)


def format_retry_messages(messages: list[dict], reply: str, error: ReplyError) -> list[dict]:
    """The conversation plus the unreadable reply and a reminder that names what was wrong."""
    return messages + [
        {"role": "assistant", "content": reply},
        {"role": "user", "content": FORMAT_RETRY.format(error=error)},
    ]


def _retry_format(error: ReplyError) -> bool:
    return not str(error).startswith("llm declined")


@dataclass
class LLMRewrite:
    format: str
    problem: str
    solution: str
    answer: str


_TAGS = ("format", "problem", "solution", "answer")


def parse_reply(text: str) -> LLMRewrite:
    """Strictly read the four sections (tagged, or a JSON object with the same keys)."""
    from verifiers.normalize import canonical_integer

    text = (text or "").strip()
    if text.startswith("{") or text.startswith("```json"):
        body = re.sub(r"^```json\s*|\s*```$", "", text)
        try:
            obj = json.loads(body)
        except json.JSONDecodeError as e:
            raise ReplyError(f"llm reply is not valid JSON ({e.msg})") from e
        if not isinstance(obj, dict):
            raise ReplyError("llm reply JSON is not an object")
        missing = [k for k in _TAGS if not isinstance(obj.get(k), str | int)]
        if missing:
            raise ReplyError(f"llm reply JSON lacks {missing}")
        parts = {k: str(obj[k]).strip() for k in _TAGS}
    else:
        parts = {}
        for tag in _TAGS:
            found = re.findall(rf"<{tag}>(.*?)</{tag}>", text, flags=re.DOTALL)
            if len(found) != 1:
                raise ReplyError(f"llm reply has {len(found)} <{tag}> sections, expected 1")
            parts[tag] = found[0].strip()
    raw = parts["answer"].strip().strip("$").strip()
    if raw.upper() == "NONE":
        raise ReplyError(f"llm declined: {parts['format'][:120]}")
    if not re.fullmatch(r"[+-]?\d+", raw):
        raise ReplyError(f"llm answer {raw[:40]!r} is not an integer")
    answer = canonical_integer(raw)
    if answer is None:
        raise ReplyError(f"llm answer {raw[:40]!r} is not an integer")
    if len(parts["problem"]) < 10:
        raise ReplyError("llm rewritten problem is empty")
    return LLMRewrite(parts["format"], parts["problem"], parts["solution"], answer)


def apply_rewrite(record: dict, rw: Rewrite) -> dict:
    return {
        **record,
        "problem": rw.problem,
        "answer": rw.answer,
        "transform": rw.rule,
        "transform_detail": json.dumps(rw.detail, sort_keys=True),
    }


def rewrite_with_rules(record: dict, *, use_rules: bool = True) -> tuple[dict, Miss | None]:
    """Apply the rules to a kept record; a record that already has an integer answer passes."""
    if record.get("status") != "kept":
        return record, None
    if record.get("answer") is not None and record.get("problem"):
        return record, None  # the source already gave an integer problem (synthetic generators)
    if not use_rules:
        return record, Miss("rules disabled in the config")
    out = apply_rules(
        record.get("problem") or record["original_problem"],
        record.get("original_answer"),
        source_signals=_source_science(record),
        units=_choice_units(record),
        keyed_option=bool(_classify_info(record).get("choice")),
    )
    if isinstance(out, Miss):
        return record, out
    return apply_rewrite(record, out), None


def _classify_info(record: dict) -> dict:
    try:
        checks = json.loads(record.get("checks") or "{}")
    except (TypeError, json.JSONDecodeError):
        return {}
    info = checks.get("classify") if isinstance(checks, dict) else None
    return info if isinstance(info, dict) else {}


def _source_science(record: dict) -> list[str]:
    """Science signals `classify` found in the record's metadata (SciBench's `unit` field)."""
    return list(_classify_info(record).get("science") or [])


def _choice_units(record: dict) -> tuple[str, ...]:
    """The unit every multiple-choice option wrote after its number (`pipelines.classify.choice_unit`)."""
    unit = _classify_info(record).get("choice_unit")
    return (unit,) if unit else ()


def rewrite_record_sync(record: dict, *, use_rules: bool = True) -> dict:
    """Rules only (no LLM configured): a miss becomes `needs_llm: <why>` or `rejected:<why>`."""
    done, miss = rewrite_with_rules(record, use_rules=use_rules)
    if record.get("status") != "kept":
        return record
    if miss is not None:
        return {**record, "status": _miss_status(miss)}
    return done


def _miss_status(miss: Miss) -> str:
    return f"needs_llm: {miss.reason}" if miss.llm else f"rejected: {miss.reason}"


async def rewrite_record(
    record: dict,
    llm=None,
    *,
    cross_check: bool = False,
    use_rules: bool = True,
    format_retries: int = 1,
) -> dict:
    """Rules first; on a miss (or with `cross_check`) ask the LLM; rejects carry their reason. A reply
    that cannot be read is asked again up to `format_retries` times, naming the error (FORMAT_RETRY);
    the record then says so in `transform_detail.format_retries` or in its reject reason."""
    from pipelines.llm import BudgetExceeded, LLMError

    done, miss = rewrite_with_rules(record, use_rules=use_rules)
    if record.get("status") != "kept":
        return record
    ruled = miss is None and done.get("transform") not in (None, "llm") and done is not record
    if miss is not None and (llm is None or not miss.llm):
        return {**record, "status": _miss_status(miss)}
    if miss is None and not (cross_check and llm is not None and ruled):
        return done
    retried = 0
    try:
        # `problem` when classify already cleaned the statement (an AMC stem without its choices)
        statement = record.get("problem") or record["original_problem"]
        messages = build_messages(statement, record.get("original_answer"))
        reply = await llm.complete(messages)
        while True:
            try:
                parsed = parse_reply(reply.text)
                break
            except ReplyError as e:
                if retried >= format_retries or not _retry_format(e):
                    raise
                messages = format_retry_messages(messages, reply.text, e)
                retried += 1
                reply = await llm.complete(messages)
    except BudgetExceeded as e:
        return {**record, "status": f"llm_budget: {e}"}
    except LLMError as e:
        return {**record, "status": f"llm_error: {e}"}
    except ReplyError as e:
        after = f" (after {retried} format retr{'y' if retried == 1 else 'ies'})" if retried else ""
        return {**record, "status": f"llm_unparsed: {e}{after}"}
    if ruled:
        if parsed.answer != done["answer"]:
            detail = json.loads(done["transform_detail"] or "{}")
            detail["llm_answer"] = parsed.answer
            return {
                **done,
                "transform_detail": json.dumps(detail, sort_keys=True),
                "status": f"llm_disagrees: rule {done['transform']} gives {done['answer']}, llm gives {parsed.answer}",
            }
        return done
    detail = {
        "format": parsed.format,
        "rule_miss": miss.reason if miss else None,
        "solution": parsed.solution,
    }
    if retried:
        detail["format_retries"] = retried
    return {
        **record,
        "problem": parsed.problem,
        "answer": parsed.answer,
        "transform": "llm",
        "transform_detail": json.dumps(detail, sort_keys=True, ensure_ascii=False),
    }
