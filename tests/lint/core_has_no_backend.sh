#!/usr/bin/env bash
# Fails when any file under core/ includes a backend header (SimGrid, CUDA, NCCL, Gloo): the core must stay sans-IO.
set -u
dir=${1:?usage: core_has_no_backend.sh CORE_DIR}
[ -d "$dir" ] || { echo "no such directory: $dir"; exit 1; }
hits=$(grep -rnE '#[[:space:]]*include[[:space:]]*[<"](simgrid|cuda|nccl|gloo|cublas|cudnn|xbt)' "$dir")
if [ -n "$hits" ]; then
  echo "core/ includes a backend header (move it behind the controller seam):"
  echo "$hits"
  exit 1
fi
echo "core/ includes no backend header ($(find "$dir" -name '*.[ch]pp' | wc -l) files checked)"
