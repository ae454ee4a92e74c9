#!/usr/bin/env bash
# Regenerates the golden decision logs: simulates every bundled scenario (scenarios/*.json) with its own seed and
# writes its decisions.txt to tests/golden/<scenario>.decisions.txt, removing goldens whose scenario is gone.
# Usage: scripts/update-golden.sh [TRAINTWIN]   (default build/traintwin; builds nothing; `make golden` builds first)
# Review the result with `git diff tests/golden`.
set -euo pipefail
cd "$(dirname "$0")/.."
traintwin="${1:-build/traintwin}"
if [[ ! -x "$traintwin" ]]; then
  echo "update-golden: $traintwin is not an executable; build it first (cmake --build build --target traintwin)" >&2
  exit 2
fi

out="$(mktemp -d)"
trap 'rm -rf "$out"' EXIT
mkdir -p tests/golden
for golden in tests/golden/*.decisions.txt; do
  [[ -e "$golden" ]] || continue
  [[ -e "scenarios/$(basename "$golden" .decisions.txt).json" ]] || { rm "$golden"; echo "removed $golden"; }
done
for scenario in scenarios/*.json; do
  name="$(basename "$scenario" .json)"
  rc=0
  "$traintwin" run "$scenario" --quiet --out "$out/$name" || rc=$?
  case "$rc" in
    0) ;;
    1) echo "update-golden: $scenario: a check failed (its decisions are written all the same)" >&2 ;;
    *) echo "update-golden: $scenario: traintwin run exited $rc" >&2; exit "$rc" ;;
  esac
  cp "$out/$name/decisions.txt" "tests/golden/$name.decisions.txt"
  echo "tests/golden/$name.decisions.txt: $(($(wc -l < "tests/golden/$name.decisions.txt") - 2)) decisions"
done
