"""Answer verifiers and reward functions for RL on verifiable math.

One answer policy: `verifiers.extract(text)` reads the final answer of a response (see
verifiers.extract); `check`, the rewards, `dapo eval`, the pipeline's solver checks and the
judge all read answers through it and nothing else. Equivalence is symmetric, and its
conventions are decided once (verifiers/check.py's docstring): `x%` equals `x` and `x/100` on
either side; a decimal is the exact rational it writes (`0.5x` is `x/2`, no decimal is
`\\frac{\\sqrt3}{2}` or `\\frac13`); an empty answer never equals anything; a gold that cannot be
read is `gold_invalid` (`Verdict.valid` False), not a wrong answer.

Importing this package is cheap (no sympy): the integer and number fast paths are plain
Python, and the symbolic step lives in a worker process (see verifiers.symbolic).

`verifiers.warmup()` starts the symbolic worker (sympy and math-verify imports, 1-3 s) up
front; without it the first symbolic call of a process waits for the worker outside its time
budget (start-up costs time once, never a wrong verdict). The reward adapters
(`compute_score`, the TRL reward functions) call it for you, and `score_batch`'s processes
start with a warm worker. `verifiers.judge` adds an optional model judge (off by default).

Scripts that use verifiers must guard their entry point::

    if __name__ == "__main__":
        main()

because the workers start via multiprocessing's forkserver, which imports the main module
in the worker's parent; an unguarded script would start its work again there.
"""

from verifiers.batch import score_batch
from verifiers.check import Verdict, check, is_equivalent
from verifiers.extract import Extraction, extract  # the one answer policy (shadows the module name)
from verifiers.format_checks import FormatReport, format_report
from verifiers.normalize import canonical_integer, normalize
from verifiers.reward import RewardResult, dapo_reward, length_penalty
from verifiers.symbolic import warmup
from verifiers.trl import dapo_trl_reward, make_trl_reward
from verifiers.verl import compute_score

# Marker read as text by `dapo doctor` (dapo_extras.foreign_verifiers): another distribution that
# ships a `verifiers` package overwrites this file, and the marker goes with it.
__dapo_toolkit__ = True

__all__ = [
    "Extraction",
    "FormatReport",
    "RewardResult",
    "Verdict",
    "canonical_integer",
    "check",
    "compute_score",
    "dapo_reward",
    "dapo_trl_reward",
    "extract",
    "format_report",
    "is_equivalent",
    "length_penalty",
    "make_trl_reward",
    "normalize",
    "score_batch",
    "warmup",
]
