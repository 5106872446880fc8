"""Shared fixtures: real bundled benchmark records and small stores in tmp dirs."""

from __future__ import annotations

import pyarrow as pa
import pytest

from mathdata.benchmarks import load_benchmark
from mathdata.schema import new_record, to_table


@pytest.fixture(scope="session")
def aime24() -> pa.Table:
    return load_benchmark("aime24")


@pytest.fixture
def small_records() -> list[dict]:
    return [
        new_record(source="import:a", original_problem="Find the number of primes below 30.", answer="10"),
        new_record(source="import:a", original_problem="Compute $2^{10}$.", answer="1024", solution="1024."),
        new_record(
            source="aops_wiki",
            original_problem="What is 7 times 6?",
            answer="42",
            competition="AMC 8",
            year=2001,
        ),
        new_record(
            source="import:b",
            original_problem="Solve x^2 = 2.",
            original_answer="\\sqrt{2}",
            status="non_integer",
        ),
    ]


@pytest.fixture
def small_table(small_records) -> pa.Table:
    return to_table(small_records)
