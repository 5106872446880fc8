"""One problem and key through the offline steps, and the outcome a rule test expects of it."""

from mathdata.schema import new_record
from pipelines.report import run_offline_steps


def offline(problem: str, answer: str) -> dict:
    """The record a problem and its key become after the offline steps (classify, rules, validate)."""
    rec = new_record(source="test", original_problem=problem, original_answer=answer, source_key="k")
    return run_offline_steps([rec])[0]


def assert_kept_as(done: dict, kept: str | None) -> None:
    """`kept` None: the rule keeps nothing; else it keeps exactly that integer."""
    if kept is None:
        assert done["status"] != "kept", done
    else:
        assert done["status"] == "kept" and done["answer"] == kept, done["status"]
