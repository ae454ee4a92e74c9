#!/usr/bin/env bash
# Runs every command of the README's "Figures" table, one after the other, on a Release build (default build/), and
# prints what each measures: the one command that regenerates the table's figures (copy them into README.md by hand,
# with the commit that measured them). Run it with nothing else on the machine; it takes about ten minutes on two cores.
#   scripts/readme-figures.sh [BUILD_DIR]
set -euo pipefail
cd "$(dirname "$0")/.."
B=${1:-build}
OUT=$(mktemp -d)
trap 'rm -rf "$OUT"' EXIT
timed() {  # label, command...: wall seconds and peak RSS, then the command's own output
  local label=$1
  shift
  echo "== $label: $*"
  /usr/bin/time -f "   wall %e s, peak RSS %M KB" "$@" 2>"$OUT/time" >"$OUT/stdout" || {
    echo "   FAILED: $(tail -3 "$OUT/time")"
    return 0
  }
  cat "$OUT/stdout"
  tail -n 1 "$OUT/time"
}
echo "commit $(git rev-parse --short HEAD), $(date -u +%FT%TZ), $(nproc) cores"
timed quickstart "$B/traintwin" run scenarios/quickstart.json --out "$OUT/quickstart"
timed real-quickstart "$B/traintwin" real scenarios/real-quickstart.json --devices cpu:4 --time-scale 300 \
  --out "$OUT/real-quickstart"
timed kernelcheck "$B/traintwin" kernelcheck --device cpu --seed 1
timed scheduler "$B/bench_scheduler"
timed scheduler-exempt "$B/bench_scheduler" --exempt 1800
timed comm "$B/bench_comm"
timed attention "$B/bench_attention_cpu"
timed iteration "$B/bench_iteration"
for s in 0.25 0.5 1; do timed "fleet $s" "$B/bench_fleet" --scale "$s"; done
timed accuracy "$B/bench_accuracy"
timed drill-fleet-month "$B/traintwin" run scenarios/drill-fleet-month.json --out "$OUT/fleet-month"
timed flagship-5d "$B/bench_flagship" --days 5
timed journal "$B/bench_journal"
timed regress "$B/bench_regress"
