# The command the device machine ran (bench/results/gpu_check.md). Its image has torch with CUDA but no pydantic or
# math-verify: first, here, put their cp312 manylinux wheels in .whl/ (git-ignored) and carry that folder:
#   python3 -m pip download --no-deps --only-binary=:all: --python-version 3.12 --implementation cp \
#     --platform manylinux_2_17_x86_64 --platform manylinux2014_x86_64 -d .whl pydantic==2.14.4 pydantic-core==2.50.5 \
#     annotated-types==0.8.0 typing-inspection==0.4.5 typing_extensions==4.16.0 math-verify==0.9.0 \
#     latex2sympy2_extended==1.11.0 antlr4-python3-runtime==4.13.2
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site .whl/*.whl && export PYTHONPATH=/tmp/site:$PWD || exit; PYTHONUNBUFFERED=1 timeout 460 python3 bench/gpu_check.py --out $OUT 2>&1 | tee $OUT/log.txt
