"""evals package: `dapo eval` (benchmarks, prompts, sample store, runner, report, the endpoint and
checkpoint samplers). The top floor beside dapo_cli: it may import verifiers, mathdata, pipelines
(the LLM client, for endpoints) and trainer (generation, for checkpoints; lazily, torch is optional);
nothing imports it. The metrics it shares with the trainer live in verifiers.metrics."""

from dapo_extras import require as _require

_require("evals")  # one line naming the extra when its dependencies are not installed
