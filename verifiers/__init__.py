"""Answer verifiers and reward functions for RL on verifiable math.

Importing this package is cheap (no sympy): the integer and number fast paths are plain
Python, and the symbolic step lives in a worker process (see verifiers.symbolic).
"""

from verifiers.batch import score_batch
from verifiers.check import Verdict, check, is_equivalent
from verifiers.extract import extract_answer
from verifiers.format_checks import FormatReport, format_report
from verifiers.normalize import canonical_integer, normalize
from verifiers.reward import RewardResult, dapo_reward, overlong_penalty
from verifiers.symbolic import warmup
from verifiers.trl import dapo_trl_reward, make_trl_reward
from verifiers.verl import compute_score

__all__ = [
    "FormatReport",
    "RewardResult",
    "Verdict",
    "canonical_integer",
    "check",
    "compute_score",
    "dapo_reward",
    "dapo_trl_reward",
    "extract_answer",
    "format_report",
    "is_equivalent",
    "make_trl_reward",
    "normalize",
    "overlong_penalty",
    "score_batch",
    "warmup",
]
