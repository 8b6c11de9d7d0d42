#!/usr/bin/env bash
# Measurements for bench/NOTES.md on a GPU host (after tools/gpu_check.sh has built build-gpu):
# one-core CPU factorization against one-core dgemm, analyse time of a 1M-row 3D problem, and CPU (16 threads)
# against GPU factorizations with per-phase times.   source .gpu/env.sh && tools/gpu_extra.sh [OUTDIR]
set -uo pipefail
out=${1:-${OUT:-/tmp/gpu_extra}}
mkdir -p "$out"
tools/gpu_check.sh "$out" build || exit 1
echo "== CPU tests"
(cd build-gpu && timeout 200 ctest -LE gpu -j16 --output-on-failure > "$out/ctest_cpu.log" 2>&1)
grep -E "tests passed|tests failed|\(Failed\)|Timeout" "$out/ctest_cpu.log" | head
echo "== one core"
OMP_NUM_THREADS=1 timeout 120 build-gpu/bench/bench_factor --threads 1 --repeat 2 gen:laplace3d:50 > "$out/bench_cpu1.log" 2>&1
grep -E "dgemm|laplace" "$out/bench_cpu1.log"
echo "== analyse 1M"
timeout 120 build-gpu/ssids analyse gen:laplace3d:100 --json | tee "$out/analyse100.json"
echo "== GPU vs CPU (16 threads)"
for spec in ${SPECS:-gen:laplace3d:80 gen:kkt-qp:300000:200000 gen:stokes:400}; do
  timeout 150 build-gpu/bench/bench_factor --backend gpu --repeat 2 --dgemm-n 0 "$spec" 2>&1 | tail -1
  timeout 150 build-gpu/ssids solve "$spec" --backend gpu --print-level 1 2>&1 | grep -E "gpu factor|backward|inertia"
  timeout 150 build-gpu/bench/bench_factor --backend cpu --threads 16 --repeat 1 --dgemm-n 0 "$spec" 2>&1 | tail -1
done
