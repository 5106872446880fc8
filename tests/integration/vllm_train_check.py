"""Two train() steps with rollout.engine: vllm, run under the vLLM venv's python (PYTHONPATH = repo).

argv: CONFIG_YAML [RESULT_JSON_PATH]. The vLLM venv has torch/vllm/transformers but not every project dependency
(pyarrow for the Parquet, math_verify for the verifiers): those are taken from the main venv's
site-packages, appended at the END of sys.path (DAPO_MAIN_SITE), so vLLM's own stack wins. Prints
`SKIP: reason` when that is still not enough, `RESULT_JSON: {...}` on success; with a second
argument the same JSON is also written (atomically) to that file, which is what the test reads; under
torchrun each rank writes its own, `PATH.rank<RANK>` (two ranks' long stdout lines can interleave).
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path


def main() -> None:
    extra = os.environ.get("DAPO_MAIN_SITE")
    if extra:
        sys.path.append(extra)
    missing = []
    for mod in ("vllm", "pyarrow", "math_verify", "trainer.loop"):
        try:
            __import__(mod)
        except Exception as e:  # noqa: BLE001 - any import failure means "not runnable here"
            missing.append(f"{mod} ({type(e).__name__}: {e})")
    if missing:
        print("SKIP: cannot import " + "; ".join(missing), flush=True)
        return
    from trainer.config import load_config
    from trainer.loop import train

    cfg = load_config(sys.argv[1])
    out = train(cfg, progress=False)
    rows = [json.loads(x) for x in (out / "metrics.jsonl").read_text().splitlines()]
    result = json.dumps({"rows": rows, "out": str(out)})
    if len(sys.argv) > 2:
        from mathdata.files import atomic_write

        path = Path(sys.argv[2])
        if "RANK" in os.environ:
            path = path.with_name(f"{path.name}.rank{os.environ['RANK']}")
        atomic_write(path, result)
    print("RESULT_JSON: " + result, flush=True)


if __name__ == "__main__":
    main()
