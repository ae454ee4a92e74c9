#!/usr/bin/env bash
# Installs traintwin's build and test dependencies from Debian packages. Idempotent: installs only what is missing.
set -euo pipefail

packages=(
  build-essential cmake pkg-config
  libsimgrid-dev libboost-graph-dev libboost-dev libeigen3-dev libjemalloc-dev libxxhash-dev
  nlohmann-json3-dev catch2 libcli11-dev
  libgloo-dev libcpp-httplib-dev
  chromium
  prometheus  # for promtool (tests/reports/prometheus_test.cpp); the package also brings the server, unused here
  slurmctld slurmd slurm-client  # traintwin sweep --slurm; tests/sweep/slurm_test.sh runs both daemons for one host
  clang libclang-rt-dev  # libFuzzer for the fuzz targets (fuzz/, scripts/fuzz.sh, the fuzz.smoke test)
)

missing=()
for p in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q '^install ok installed$'; then
    missing+=("$p")
  fi
done

if [ ${#missing[@]} -eq 0 ]; then
  echo "install-deps: all ${#packages[@]} packages present"
  exit 0
fi

sudo=""
if [ "$(id -u)" -ne 0 ]; then sudo="sudo"; fi
echo "install-deps: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update -qq
$sudo apt-get install -y -qq --no-install-recommends "${missing[@]}"
