#!/usr/bin/env bash
# A sweep on a real Slurm: slurmctld and slurmd (Debian's packages) for this one host, started in a scratch directory
# (auth/none, cred/none, select/cons_tres, proctrack/linuxproc, no accounting), a small sweep submitted with
# `traintwin sweep --slurm --array-limit 2` (4 points in 2 array tasks of 2) and its collector job, waited for, and the
# merged table compared with the local pool's: byte-identical. The daemons are stopped on exit. Exit 77 (skipped, with
# the reason) when the daemons cannot run here; never a pass without the comparison.
# Usage: slurm_test.sh TRAINTWIN SOURCE_DIR BINARY_DIR
set -u
tt=$1 src=$2 bin=$3
skip() { echo "SKIPPED: $*"; exit 77; }
fail() { echo "FAILED: $*"; exit 1; }

for exe in slurmctld slurmd sbatch squeue sinfo; do
  command -v "$exe" >/dev/null || skip "$exe is not installed (scripts/install-deps.sh installs slurmctld, slurmd, slurm-client)"
done
[ "$(id -u)" -eq 0 ] || skip "slurmd must run as root to launch jobs, and this test runs as $(id -un)"

dir=$bin/test-out/slurm
rm -rf "$dir"
mkdir -p "$dir/state" "$dir/spool"
host=$(hostname -s)
# Ports below the kernel's ephemeral range (32768 and up by default), where an outgoing connection of a test running
# beside this one could hold the port; a bind that fails all the same is tried again on another pair (below).
port=$((20000 + ($$ % 6000) * 2))
write_conf() {
cat > "$dir/slurm.conf" <<CONF
ClusterName=traintwin-test
SlurmctldHost=$host
AuthType=auth/none
CredType=cred/none
SlurmUser=root
SlurmdUser=root
SlurmctldPort=$port
SlurmdPort=$((port + 1))
StateSaveLocation=$dir/state
SlurmdSpoolDir=$dir/spool
SlurmctldPidFile=$dir/slurmctld.pid
SlurmdPidFile=$dir/slurmd.pid
SlurmctldLogFile=$dir/slurmctld.log
SlurmdLogFile=$dir/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
MpiDefault=none
ReturnToService=2
NodeName=$host CPUs=$(nproc) State=UNKNOWN
PartitionName=sweeps Nodes=ALL Default=YES MaxTime=INFINITE State=UP
CONF
}
export SLURM_CONF=$dir/slurm.conf

pids=()
stop() {
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null; done
  for p in "${pids[@]}"; do wait "$p" 2>/dev/null; done
}
trap stop EXIT
# slurmctld, on another port pair while its port is taken (it exits at once then: "Address already in use").
for _ in 1 2 3; do
  write_conf
  slurmctld -D -f "$SLURM_CONF" >"$dir/slurmctld.out" 2>&1 &
  ctld=$!
  sleep 1
  kill -0 "$ctld" 2>/dev/null && break
  grep -q "Address already in use" "$dir/slurmctld.out" || break
  port=$((20000 + (port - 20000 + 2018) % 12000))
done
pids+=($ctld)
slurmd -D -f "$SLURM_CONF" >"$dir/slurmd.out" 2>&1 &
pids+=($!)
for _ in $(seq 1 60); do
  kill -0 "$ctld" 2>/dev/null || break  # the controller exited: sinfo would only wait on it
  sinfo -h -o %t 2>/dev/null | grep -q idle && break
  sleep 0.5
done
sinfo -h -o %t 2>/dev/null | grep -q idle ||
  skip "slurmctld and slurmd did not come up here: $(tail -n 3 "$dir/slurmctld.log" "$dir/slurmd.log" "$dir/slurmd.out" 2>/dev/null | tr '\n' ' ')"

spec=$src/tests/data/sweep/small.json
out=$("$tt" sweep "$spec" --out "$dir/slurm-out" --slurm --partition sweeps --array-limit 2 --time 10:00) ||
  fail "traintwin sweep --slurm: $out"
echo "$out"
echo "$out" | grep -q "2 tasks of 2 points" || fail "expected 2 array tasks of 2 points"
collector=$(echo "$out" | sed -n 's/.*collector job \([0-9]*\).*/\1/p')
[ -n "$collector" ] || fail "no collector job id in the output"
for _ in $(seq 1 600); do
  [ -z "$(squeue -h -o %i 2>/dev/null)" ] && break
  sleep 0.5
done
[ -z "$(squeue -h -o %i)" ] || fail "jobs still queued after 5 minutes: $(squeue)"
ls "$dir/slurm-out/slurm/logs/"*_0.out "$dir/slurm-out/slurm/logs/"*_1.out >/dev/null || fail "no %A_%a logs"
[ -f "$dir/slurm-out/table.csv" ] || fail "the collector wrote no table: $(cat "$dir/slurm-out/slurm/logs/collect_"*.out)"

"$tt" sweep "$spec" --out "$dir/local-out" -j 2 || fail "the local sweep failed"
for f in table.csv table.json sweep.html; do
  cmp "$dir/slurm-out/$f" "$dir/local-out/$f" || fail "$f differs between the Slurm array and the local pool"
done
echo "OK: the Slurm array's merged table equals the local pool's ($(($(wc -l <"$dir/local-out/table.csv") - 1)) points)"
