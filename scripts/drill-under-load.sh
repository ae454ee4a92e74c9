#!/usr/bin/env bash
# The real "nothing lost" drill, run again and again on a busy machine: scenarios/real-nothing-lost.json (node crashes,
# a hang, a corrupted checkpoint, a control-plane crash) under `traintwin real --devices cpu:4`, N times in a row while
# busy processes keep every core loaded, each run's final training state (every file of the job's last checkpoint:
# each rank's state and manifest) compared byte for byte with that of one run of the same job without faults.
#   scripts/drill-under-load.sh [--runs N] [--burners K] [--build DIR] [--time-scale S] [--keep DIR]
# --runs: drill runs (default 20); --time-scale: scenario seconds per real second (default 30); --burners: busy-loop processes beside them (default: the number of cores, 0 for an
# idle machine); --build: the build directory holding traintwin (default build); --keep: keep the run directories
# there (default: a temporary directory, removed). Prints one line per run; exits 0 when every run ended with the
# uninterrupted run's state, 1 when one did not or a run failed, 2 on bad usage. See docs/reliability.md.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
runs=20
burners=$(nproc)
build="$root/build"
scale=30
keep=""
while [ $# -gt 0 ]; do
  case "$1" in
    --runs) runs="$2"; shift 2 ;;
    --burners) burners="$2"; shift 2 ;;
    --build) build="$2"; shift 2 ;;
    --time-scale) scale="$2"; shift 2 ;;
    --keep) keep="$2"; shift 2 ;;
    -h|--help) sed -n '2,10p' "$0"; exit 0 ;;
    *) echo "drill-under-load.sh: unknown argument $1" >&2; exit 2 ;;
  esac
done
[[ "$runs" =~ ^[1-9][0-9]*$ ]] || { echo "drill-under-load.sh: --runs wants a positive whole number, not $runs" >&2; exit 2; }
[[ "$burners" =~ ^[0-9]+$ ]] || { echo "drill-under-load.sh: --burners wants a whole number, not $burners" >&2; exit 2; }
cli="$build/traintwin"
[ -x "$cli" ] || { echo "drill-under-load.sh: no $cli (build first, or give --build DIR)" >&2; exit 2; }

work="${keep:-$(mktemp -d)}"
mkdir -p "$work"
pids=()
cleanup() {
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
  [ -n "$keep" ] || rm -rf "$work"
}
trap cleanup EXIT

scenario="$root/scenarios/real-nothing-lost.json"
faulted="$work/faulted.json"
clean="$work/clean.json"
# The scenario with absolute paths (its copies live elsewhere), and without its faults and checks for the reference.
sed "s#\"\\.\\./topologies/#\"$root/topologies/#" "$scenario" > "$faulted"
awk '/^  "faults": \[/ {skip = 1} /^  "checks": \[/ {skip = 1} !skip {print} skip && /^  \],?$/ {skip = 0}' "$faulted" |
  sed -z 's/,\n}/\n}/' > "$clean"
grep -q '"faults"' "$clean" && { echo "drill-under-load.sh: could not strip the faults of $scenario" >&2; exit 2; }

args=(--devices cpu:4 --time-scale "$scale" --heartbeat-timeout 1.5 --quiet)

# Every file of the job's newest checkpoint, with its SHA-256.
final_state() {
  local last
  last="$(find "$1/run" -mindepth 3 -maxdepth 3 -type d -path '*/checkpoints/*' | sort | tail -n 1)"
  [ -n "$last" ] || { echo "no checkpoint"; return; }
  (cd "$last" && echo "$(basename "$last")" && sha256sum -- * | sort -k 2)
}

# exit 1 of `traintwin real` is a failed check; the drill's own comparison decides here
set +e
"$cli" real "$clean" "${args[@]}" --out "$work/clean" > "$work/clean.log" 2>&1
rc=$?
set -e
if [ "$rc" -gt 1 ]; then
  echo "the uninterrupted run failed (exit $rc):" >&2; tail -n 20 "$work/clean.log" >&2; exit 1
fi
want="$(final_state "$work/clean")"
echo "uninterrupted run: final checkpoint $(echo "$want" | head -n 1), $(($(echo "$want" | wc -l) - 1)) files"

for _ in $(seq "$burners"); do
  (while :; do :; done) &
  pids+=($!)
done
echo "load: $burners busy processes on $(nproc) cores beside the drill; $(cut -d ' ' -f 1-3 /proc/loadavg) load average now"

same=0
refused=0
for i in $(seq "$runs"); do
  out="$work/drill-$i"
  start=$(date +%s%N)
  set +e
  "$cli" real "$faulted" "${args[@]}" --out "$out" > "$out.log" 2>&1
  rc=$?
  set -e
  wall=$(awk -v ns=$(($(date +%s%N) - start)) 'BEGIN { printf "%.1f", ns / 1e9 }')
  got="$(final_state "$out")"
  restarts="$(grep -o '"restarts": [0-9]*' "$out/report.json" 2>/dev/null | head -n 1 | grep -o '[0-9]*$' || echo '?')"
  corrupt="$(grep -c 'checkpoint_corrupt .*fails its checksum' "$out/decisions.txt" 2>/dev/null || true)"
  [ "${corrupt:-0}" -gt 0 ] && refused=$((refused + 1))
  driver="$(grep -o '"driver_restarts": "[0-9]*"' "$out/report.json" 2>/dev/null | grep -o '[0-9]\+' || echo 0)"
  if [ "$rc" -le 1 ] && [ "$got" == "$want" ] && [ "$driver" -ge 1 ]; then
    same=$((same + 1))
    printf 'run %2d: same final state (job restarts %s, driver restarts %s, corrupted checkpoint refused %s, %s s)\n' "$i" "$restarts" "$driver" "${corrupt:-0}" "$wall"
  else
    printf 'run %2d: FAILED (exit %s, driver restarts %s, %s s); log: %s\n' "$i" "$rc" "$driver" "$wall" "$out.log"
    diff <(echo "$want") <(echo "$got") | head -n 10 || true
  fi
done
echo "$same/$runs drill runs ended with the uninterrupted run's final state, $burners busy processes beside them" \
  "(the corrupted checkpoint was refused at a restore in $refused: in the others the job had no checkpoint yet to damage)"
[ "$same" -eq "$runs" ]
