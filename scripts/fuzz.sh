#!/usr/bin/env bash
# Builds the libFuzzer targets (fuzz/, clang with ASan and UBSan) and runs each one, seeded from the bundled files.
#   scripts/fuzz.sh [--build DIR] [--time SECONDS | --runs N | --until N] [--jobs J] [--parallel P] [TARGET...]
# --time: seconds per target (default 60); --runs: executions per target instead, from the seeds alone (the
# fuzz.smoke test, CI's short run of every target); --until: run each target on from its corpus until DIR/ledger.tsv
# holds N executions of it in all (with --time as well, at most that many seconds per target this time; a target
# already there is skipped); --jobs: build jobs (default: the cores, at most 4); --parallel: targets fuzzed at once.
# Every run but --runs appends "target, executions, seconds, exit code, commit, date" to DIR/ledger.tsv, so a
# campaign split over machines and days adds up (`--until 10000000`: the 10 million per reader of
# docs/reliability.md). TARGET: scenario, topology, workload, alert_expr, inventory, matrix, nccl_tests, tuner_csv,
# diff, observed_log, trace (default: all). The corpus each target grows is kept in DIR/corpus/TARGET, so a later run
# goes on from it; an input that crashes, hangs or leaks is written to DIR/findings/TARGET/ and the script exits 1.
# Prints one line per target with its executions. Exits 77 (ctest: skipped) when clang or libFuzzer is missing. See
# docs/reliability.md.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
build="$root/build-fuzz"
time_s=60
runs=""
until=""
time_given=""
jobs=$(( $(nproc) < 4 ? $(nproc) : 4 ))
parallel=1
targets=()
while [ $# -gt 0 ]; do
  case "$1" in
    --build) build="$2"; shift 2 ;;
    --time) time_s="$2"; time_given=1; shift 2 ;;
    --until) until="$2"; shift 2 ;;
    --runs) runs="$2"; shift 2 ;;
    --jobs) jobs="$2"; shift 2 ;;
    --parallel) parallel="$2"; shift 2 ;;
    -h|--help) sed -n '2,14p' "$0"; exit 0 ;;
    -*) echo "fuzz.sh: unknown option $1" >&2; exit 2 ;;
    *) targets+=("$1"); shift ;;
  esac
done
all=(scenario topology workload alert_expr inventory matrix nccl_tests tuner_csv diff observed_log trace run_measurements
     run_comparison)
[ ${#targets[@]} -eq 0 ] && targets=("${all[@]}")
for t in "${targets[@]}"; do
  [[ " ${all[*]} " == *" $t "* ]] || { echo "fuzz.sh: unknown target $t (one of: ${all[*]})" >&2; exit 2; }
done

# clang with libFuzzer: a one-line program must link with -fsanitize=fuzzer.
cxx=""
for c in clang++ clang++-19 clang++-18 clang++-17 clang++-16 clang++-15 clang++-14; do
  if command -v "$c" >/dev/null; then cxx="$(command -v "$c")"; break; fi
done
if [ -z "$cxx" ]; then echo "SKIPPED: no clang++ (the fuzz targets need libFuzzer)"; exit 77; fi
probe="$(mktemp -d)"
trap 'rm -rf "$probe"' EXIT
echo 'extern "C" int LLVMFuzzerTestOneInput(const unsigned char*, unsigned long) { return 0; }' > "$probe/p.cpp"
if ! "$cxx" -fsanitize=fuzzer,address,undefined "$probe/p.cpp" -o "$probe/p" 2>"$probe/err"; then
  echo "SKIPPED: $cxx cannot link -fsanitize=fuzzer (install libclang-rt-dev): $(head -c 300 "$probe/err")"
  exit 77
fi

launcher=()
command -v ccache >/dev/null && launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
cmake -S "$root/fuzz" -B "$build" -DCMAKE_CXX_COMPILER="$cxx" "${launcher[@]}" >/dev/null
cmake --build "$build" -j "$jobs" --target $(printf 'fuzz_%s ' "${targets[@]}") >/dev/null

# Seeds: the bundled files a user would hand the reader, and fuzz/seeds/TARGET for the sections and the outputs that
# no bundled file holds alone.
seeds_of() {
  case "$1" in
    scenario) ls "$root"/scenarios/*.json "$root"/tests/data/scenarios/*.json "$root"/tests/data/bad/*.json ;;
    topology) ls "$root"/topologies/*.json "$root"/tests/data/topologies/*.json ;;
    inventory) ls "$root"/fleets/*/*.json ;;
    matrix) ls "$root"/matrices/*.json ;;
    nccl_tests) ls "$root"/tests/data/nccl/format/*.{txt,log,json} "$root"/tests/data/nccl/bad/*.{txt,json} ;;
    trace) ls "$root"/tests/data/traces/*.{txt,csv} ;;
    tuner_csv) ls "$root"/tests/data/nccl/*.csv "$root"/tests/data/nccl/format/*.csv "$root"/tests/data/nccl/bad/*.csv ;;
  esac 2>/dev/null || true
  [ -d "$root/fuzz/seeds/$1" ] && ls "$root/fuzz/seeds/$1"/*
  return 0
}

# Executions of a target in all, from the ledger (lines starting with # are comments).
ledger_total() {
  [ -f "$build/ledger.tsv" ] || { echo 0; return; }
  awk -F '\t' -v t="$1" '$1 == t { n += $2 } END { printf "%d\n", n }' "$build/ledger.tsv"
}

run_one() {
  local t="$1" corpus="$build/corpus/$1" found="$build/findings/$1" seeds="$build/seeds/$1"
  [ -n "$runs" ] && corpus="$build/smoke/corpus/$1" found="$build/smoke/findings/$1"
  # One run of a target at a time per findings directory: two would share its log (and count each other's executions
  # in the ledger) and its findings.
  local lock
  mkdir -p "$(dirname "$found")"
  exec {lock}>"$(dirname "$found")/$t.lock"
  if ! flock -n "$lock"; then
    printf '%-13s another run of this target is going on in %s: skipped\n' "$t" "$build"
    exec {lock}>&-
    return 0
  fi
  # A smoke run starts from the seeds, and leaves a long run's corpus and findings alone.
  [ -n "$runs" ] && rm -rf "$corpus"
  rm -rf "$found"; mkdir -p "$corpus" "$found" "$seeds"
  seeds_of "$t" | while read -r f; do cp -f "$f" "$seeds/"; done
  local budget=(-max_total_time="$time_s")
  [ -n "$runs" ] && budget=(-runs="$runs")
  if [ -n "$until" ]; then
    local done_so_far
    done_so_far="$(ledger_total "$t")"
    if [ "$done_so_far" -ge "$until" ]; then
      printf '%-13s %12s executions in all (ledger): at least %s, skipped\n' "$t" "$done_so_far" "$until"
      exec {lock}>&-
      return 0
    fi
    budget=(-runs=$((until - done_so_far)))
    [ -n "$time_given" ] && budget+=(-max_total_time="$time_s")
  fi
  local dict=()
  [ -f "$root/fuzz/dict/$t.dict" ] && dict=(-dict="$root/fuzz/dict/$t.dict")
  local start=$SECONDS rc=0
  # -timeout: an input that takes 10 s is a hang; -rss_limit_mb / -malloc_limit_mb: one that asks for 2 GB is a
  # finding too (a reader must refuse sizes it cannot hold, not try).
  ASAN_OPTIONS="${ASAN_OPTIONS:-detect_leaks=1}" UBSAN_OPTIONS="${UBSAN_OPTIONS:-print_stacktrace=1}" \
    "$build/fuzz_$t" "${budget[@]}" "${dict[@]}" -timeout=10 -rss_limit_mb=2048 -malloc_limit_mb=2048 -max_len=65536 \
    -print_final_stats=1 -artifact_prefix="$found/" "$corpus" "$seeds" > "$found/../$t.log" 2>&1 || rc=$?
  local execs
  execs="$(sed -n 's/^stat::number_of_executed_units: *//p' "$found/../$t.log" | tail -1)"
  local verdict=ok
  # 72: libFuzzer's exit code when interrupted (SIGINT, to end a long run early): its executions count, nothing found.
  if [ "$rc" -eq 72 ] && [ -z "$(ls -A "$found")" ]; then
    verdict=interrupted
    rc=0
  fi
  [ "$rc" -ne 0 ] && verdict="FINDING (exit $rc; $(ls "$found" | head -3 | tr '\n' ' ')see $(dirname "$found")/$t.log)"
  if [ -z "$runs" ]; then
    printf '%s\t%s\t%d\t%d\t%s\t%s\n' "$t" "${execs:-0}" $((SECONDS - start)) "$rc" \
      "$(git -C "$root" rev-parse --short HEAD 2>/dev/null || echo '?')" "$(date -u +%FT%TZ)" >> "$build/ledger.tsv"
    verdict="$verdict; $(ledger_total "$t") in all (ledger)"
  fi
  printf '%-13s %12s executions %6d s  %s\n' "$t" "${execs:-?}" $((SECONDS - start)) "$verdict"
  exec {lock}>&-
  [ "$rc" -eq 0 ]
}

failed=0
for t in "${targets[@]}"; do
  while [ "$(jobs -rp | wc -l)" -ge "$parallel" ]; do sleep 1; done
  if [ "$parallel" -le 1 ]; then run_one "$t" || failed=1; else run_one "$t" & fi
done
wait
findings="$build/findings"
[ -n "$runs" ] && findings="$build/smoke/findings"
for t in "${targets[@]}"; do [ -z "$(ls -A "$findings/$t")" ] || failed=1; done
[ "$failed" -eq 0 ] && echo "fuzz: no findings" || echo "fuzz: FINDINGS (inputs under $findings)"
exit "$failed"
