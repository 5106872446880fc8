"""Column mapping, one syntax everywhere: `{field: column}` in a build config and
`--mapping field=column,field=column` on the command line (`dapo eval`, `dapo rules-report`).

The field is what the toolkit needs (problem, answer, id, ...); the column is what your file
calls it. The old build direction `{column: field}` is still read, with a one-line warning.
"""

from __future__ import annotations

import warnings
from collections.abc import Iterable, Mapping

# short names every command accepts, and the record field each one feeds
FIELD_ALIASES = {"problem": "original_problem", "answer": "original_answer", "id": "source_ref"}


class MappingError(ValueError):
    """A mapping that names an unknown field or is not `field=column`; the message says the fix."""


def parse_mapping(text: str | None, *, fields: Iterable[str], option: str = "--mapping") -> dict[str, str]:
    """`problem=question,answer=final` -> {"problem": "question", "answer": "final"}."""
    if not text:
        return {}
    allowed = list(fields)
    out: dict[str, str] = {}
    for part in text.split(","):
        key, sep, col = part.partition("=")
        key, col = key.strip(), col.strip()
        if not sep or key not in allowed or not col:
            raise MappingError(
                f"{option} {text!r}: write FIELD=COLUMN[,FIELD=COLUMN...] with FIELD one of {', '.join(allowed)} "
                f"(got {part.strip()!r})"
            )
        out[key] = col
    return out


def field_to_column(mapping: Mapping[str, str], *, fields: Iterable[str], where: str) -> dict[str, str]:
    """{field: column} from a config mapping, short names (problem, answer, id) made record fields.

    A mapping written the old way round ({column: field}: every value a field, not every key) is
    turned round with a one-line FutureWarning that shows the new spelling."""
    allowed = set(fields) | set(FIELD_ALIASES)
    keys_ok = all(k in allowed for k in mapping)
    if not keys_ok and all(v in allowed for v in mapping.values()):
        flipped = {v: k for k, v in mapping.items()}
        warnings.warn(
            f"{where}: mapping {{column: field}} is the old direction; write {{field: column}}: {flipped}",
            FutureWarning,
            stacklevel=3,
        )
        mapping = flipped
    elif not keys_ok:
        bad = [k for k in mapping if k not in allowed]
        raise MappingError(
            f"{where}: mapping fields {bad} are not fields; write {{field: column}} with field one of "
            f"{sorted(allowed)} (e.g. {{problem: question, answer: final_answer}})"
        )
    return {FIELD_ALIASES.get(k, k): v for k, v in mapping.items()}
