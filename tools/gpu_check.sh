#!/usr/bin/env bash
# On a GPU host: build with CUDA, run the GPU tests and the rest of the suite, compute-sanitizer on the GPU
# tests, and time CPU against GPU factorizations. Logs go to OUTDIR (default $OUT, else /tmp/gpu_check).
# Usage (from the project's root, after ../shared/device/prepare all):
#   source .gpu/env.sh && tools/gpu_check.sh [OUTDIR] [quick]
set -uo pipefail
out=${1:-${OUT:-/tmp/gpu_check}}
mode=${2:-full}
mkdir -p "$out"
nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader
# the prepared host has zlib's headers and static archive only (not built -fPIC): link the system's shared one
zlib=$(ldconfig -p | awk '/libz\.so/ && /x86-64/ {print $NF; exit}')
echo "zlib: ${zlib:-none found}"
cmake -S . -B build-gpu -G Ninja -DCMAKE_BUILD_TYPE=Release ${zlib:+-DZLIB_LIBRARY=$zlib -DZLIB_LIBRARY_RELEASE=$zlib} ${EXTRA_CMAKE_ARGS:-} > "$out/configure.log" 2>&1 || { tail -30 "$out/configure.log"; exit 1; }
cmake --build build-gpu -j16 > "$out/build.log" 2>&1 || { grep -E "error" -A5 "$out/build.log" | head -80; exit 1; }
grep -i "warning" "$out/build.log" | head -10
[ "$mode" = build ] && exit 0
echo "== GPU tests"
(cd build-gpu && timeout 240 ctest -L gpu --output-on-failure -j4 > "$out/ctest_gpu.log" 2>&1)
grep -E "tests passed|tests failed|Failed|Passed|MESSAGE|ERROR|CHECK" "$out/ctest_gpu.log" | head -60
if [ "$mode" = full ]; then
  echo "== CPU tests"
  (cd build-gpu && timeout 150 ctest -LE gpu -j16 --output-on-failure > "$out/ctest_cpu.log" 2>&1)
  tail -4 "$out/ctest_cpu.log"
  echo "== compute-sanitizer"
  for tool in memcheck racecheck; do
    tc="*KKT*,*bitwise*,*positive-definite*"; [ $tool = racecheck ] && tc="*bitwise*"
    timeout 240 compute-sanitizer --tool $tool --error-exitcode 3 build-gpu/tests/test_gpu_factor \
      -tc="$tc" > "$out/$tool.log" 2>&1
    echo "$tool rc=$? $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' "$out/$tool.log" | head -2 | tr '\n' ' ')"
  done
fi
echo "== repro on the GPU, the two slow shared matrices"
for mr in mm_CONT-201_kkt:10 ncvxqp1:3; do
  m=${mr%:*}; runs=${mr#*:}
  [ -f "$SSIDS_TEST_MATRICES/$m.mtx.gz" ] && timeout 240 build-gpu/ssids repro "$SSIDS_TEST_MATRICES/$m.mtx.gz" --runs $runs --threads 1 --backend gpu --nrhs 2 2>&1 | grep -E "result|FAIL" | sed "s/^/$m ($runs runs): /"
done
echo "== timings"
for spec in ${SPECS:-gen:laplace3d:50 gen:kkt-qp:200000:80000 gen:laplace3d:80}; do
  for be in gpu cpu; do
    timeout 300 build-gpu/ssids solve "$spec" --backend $be --threads 16 --json 2>&1 | tee -a "$out/timings.jsonl" | \
      python3 -c 'import sys,json
for l in sys.stdin:
  try: j=json.loads(l)
  except Exception: print(l.strip()); continue
  g = " asm/dense/upd/oth=%.3f/%.3f/%.3f/%.3f" % (j["time_gpu_assembly"], j["time_gpu_dense"], j["time_gpu_update"], j["time_gpu_other"]) if "time_gpu_dense" in j else ""
  print("%-24s %s n=%d nnzL=%.3g flops=%.3g fact=%.3fs %.1f GF/s neg=%d delay=%d berr=%.1e%s" % (j["input"], j["backend"], j["n"], j["num_factor"], j["num_flops"], j["time_factor"], j["gflops"], j["num_neg"], j["num_delay"], j["backward_error"], g))'
  done
done
if [ "$mode" = full ]; then
  echo "== CPU, one core, against OpenBLAS dgemm on one core"
  OMP_NUM_THREADS=1 timeout 200 build-gpu/bench/bench_factor --threads 1 --repeat 2 gen:laplace3d:50 2>&1 | tee "$out/bench_cpu1.log" | tail -4
fi
