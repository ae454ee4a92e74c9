#!/usr/bin/env bash
# bench/gpu-check.sh: the one script to run on a lent GPU machine (see docs/cuda.md). It builds traintwin (Release,
# CUDA on, sm_90a only, to keep the build short), runs the attention kernels' numerics gate and timing over
# seqlen 512..16k x head dim 64/128 x causal/not (`traintwin kernelcheck --device cuda`), the [gpu] tests, and the
# NCCL all-reduce check on every GPU (`traintwin commtest --devices cuda`), and ends with one short table. Full
# outputs go to $OUT (the device tool fetches it) or out/gpu-check.
#
# Budget (a lease is 15 minutes, build included): build <= 420 s, kernelcheck <= 300 s, tests <= 120 s,
# commtest <= 90 s; each step is cut by `timeout` and reported, and the table is printed whatever happened.
#
#   bench/gpu-check.sh                 # build into build-gpu, then check
#   BIN=path/to/traintwin bench/gpu-check.sh   # skip the build: check a binary built elsewhere (for sm_90a)
#   SEQLENS=512,8192 bench/gpu-check.sh        # a shorter grid
set -uo pipefail  # no -e: a failed step is recorded and the summary table is still printed
cd "$(dirname "$0")/.." || exit 2

OUT_DIR=${OUT:-out/gpu-check}
BUILD_DIR=${BUILD_DIR:-build-gpu}
SEQLENS=${SEQLENS:-512,1024,2048,4096,8192,16384}
HEAD_DIMS=${HEAD_DIMS:-64,128}
JOBS=${JOBS:-$(nproc)}
mkdir -p "$OUT_DIR"
declare -A status seconds

step() {  # step NAME LIMIT_S COMMAND...: runs it with a timeout, output to $OUT_DIR/NAME.log and the terminal's tail
  local name=$1 limit=$2
  shift 2
  echo "== $name (limit ${limit}s): $*"
  local t0=$SECONDS rc=0
  timeout --kill-after=10 "$limit" "$@" >"$OUT_DIR/$name.log" 2>&1 || rc=$?
  seconds[$name]=$((SECONDS - t0))
  case $rc in
    0) status[$name]=OK ;;
    124 | 137) status[$name]="TIMEOUT after ${limit}s" ;;
    4) status[$name]="NO CUDA DEVICE (exit 4)" ;;
    *) status[$name]="FAILED (exit $rc)" ;;
  esac
  tail -n 25 "$OUT_DIR/$name.log"
  return 0
}

echo "== machine"
{
  date -u
  nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm --format=csv 2>&1 || echo "nvidia-smi failed"
  command -v nvcc && nvcc --version | tail -n 2
  cmake --version | head -n 1
} | tee "$OUT_DIR/machine.log"

if [ -n "${BIN:-}" ]; then
  TT=$BIN
  status[build]="skipped (BIN=$BIN)"
  seconds[build]=0
  ldd "$TT" | grep "not found" && status[build]="BIN has missing libraries (see above)"
else
  TT=$BUILD_DIR/traintwin
  step configure 120 cmake -S . -B "$BUILD_DIR" -DCMAKE_BUILD_TYPE=Release -DTRAINTWIN_CUDA=ON \
    -DCMAKE_CUDA_ARCHITECTURES=90a -DTRAINTWIN_KERNELS_NATIVE=ON
  if [ "${status[configure]}" = OK ]; then
    step build 420 cmake --build "$BUILD_DIR" -j "$JOBS" --target traintwin tests_kernels tests_real
  else
    status[build]="not run (configure failed: the project's dependencies, scripts/install-deps.sh, may be missing)"
    seconds[build]=0
  fi
fi

if [ -x "$TT" ]; then
  step kernelcheck 300 "$TT" kernelcheck --device cuda --seqlens "$SEQLENS" --head-dims "$HEAD_DIMS" --repeats 5
  "$TT" kernelcheck --device cuda --seqlens 8192 --head-dims 128 --repeats 10 --json >"$OUT_DIR/goal.json" 2>&1 || true
  if [ -x "$BUILD_DIR/tests/tests_kernels" ]; then
    step gpu_tests 120 bash -c "$BUILD_DIR/tests/tests_kernels '[gpu]' && $BUILD_DIR/tests/tests_real '[gpu]'"
  fi
  step commtest 90 "$TT" commtest --devices cuda --collective all_reduce -b 8 -e 1G -f 2
else
  status[kernelcheck]="not run (no binary at $TT)"
fi

goal="-"
if [ -s "$OUT_DIR/goal.json" ] && command -v python3 >/dev/null; then
  goal=$(python3 - "$OUT_DIR/goal.json" <<'EOF' 2>/dev/null || echo "-"
import json, sys
doc = json.load(open(sys.argv[1]))
rows = [r for r in doc["rows"] if r["pass"] == "forward" and r["precision"] == "bf16" and not r["causal"]]
print("%.1f TFLOP/s (goal 600)" % rows[0]["tflops"] if rows else "-")
EOF
)
fi

echo
echo "== gpu-check summary (logs in $OUT_DIR)"
printf '%-12s %-70s %8s\n' step status seconds
for name in configure build kernelcheck gpu_tests commtest; do
  [ -n "${status[$name]:-}" ] && printf '%-12s %-70s %8s\n' "$name" "${status[$name]}" "${seconds[$name]:-}"
done
printf '%-12s %s\n' "fwd bf16" "head dim 128, seq 8k, non-causal: $goal"
grep -h "^# Checks\|^# Wrong elements\|^# Avg bus" "$OUT_DIR"/kernelcheck.log "$OUT_DIR"/commtest.log 2>/dev/null ||
  true
