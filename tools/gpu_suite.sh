#!/usr/bin/env bash
# tools/gpu_suite.sh — the GPU checks of issues 4, 5, 8 and 11 in one command, on a GPU host (after
# ../shared/device/prepare all):
#   source .gpu/env.sh && tools/gpu_suite.sh OUTDIR [tests] [sanitize] [repro] [bench]
# (no part named = all). Builds build-gpu (Release, CUDA), then:
#   tests     ctest -L gpu (every GPU test)
#   sanitize  compute-sanitizer memcheck, racecheck, initcheck and synccheck over the GPU tests (the KKT,
#             bitwise, posdef, scaling/alter, device-pointer, kernel-twin and tridiagonal cases; the all-shared-matrices and the
#             many-configuration cases are left out: they take hours under instrumentation)
#   repro     ssids repro on every shared symmetric matrix: 10 runs on the GPU (2 right-hand sides,
#             column check), and 3 runs with 1, 2, 4, 8 and 16 threads on the CPU
#   bench     bench_solve (GPU solve against the memory floor) and GPU factorization times
# Logs go to OUTDIR; a summary is printed. Exit status 1 if any part failed.
set -uo pipefail
out=${1:?usage: tools/gpu_suite.sh OUTDIR [tests] [sanitize] [repro] [bench]}
shift
parts=${*:-tests sanitize repro bench}
mkdir -p "$out"
status=0
tools/gpu_check.sh "$out" build || exit 1
has() { [[ " $parts " == *" $1 "* ]]; }

if has tests; then
  echo "== GPU tests"
  (cd build-gpu && timeout 420 ctest -L gpu -j3 --output-on-failure > "$out/ctest_gpu.log" 2>&1) || status=1
  grep -E "tests passed|tests failed|\(Failed\)|Timeout|\*\*\*" "$out/ctest_gpu.log" | head -20
fi

if has sanitize; then
  echo "== compute-sanitizer"
  t=build-gpu/tests
  runs=(
    "memcheck  test_gpu_factor  *KKT*,*bitwise*,*positive-definite*"
    "memcheck  test_gpu_solve   *scaled*,*device pointers*"
    "racecheck test_gpu_factor  *bitwise*"
    "racecheck test_gpu_solve   *scaled*,*device pointers*"
    "initcheck test_gpu_factor  *KKT*,*positive-definite*"
    "initcheck test_gpu_solve   *scaled*,*device pointers*"
    "synccheck test_gpu_factor  *KKT*,*positive-definite*"
    "synccheck test_gpu_solve   *scaled*,*device pointers*"
    "memcheck  test_gpu_kernels *"
    "memcheck  test_gpu_tridiag *device pointer*,*zero and tiny*,*many right-hand*"
    "racecheck test_gpu_tridiag *many right-hand*"
    "synccheck test_gpu_tridiag *many right-hand*"
    "initcheck test_gpu_tridiag *device pointer*"
    "memcheck  test_gpu_tridiag *one-shot*"
    "racecheck test_gpu_tridiag *one-shot*"
    "memcheck  test_gpu_sap     *bitwise*,*device generator*,*update*"
    "racecheck test_gpu_sap     *compute-sanitizer*"
    "synccheck test_gpu_sap     *compute-sanitizer*"
    "initcheck test_gpu_sap     *compute-sanitizer*,*device generator*"
  )
  for r in "${runs[@]}"; do
    read -r tool bin tc <<< "$r"
    log="$out/sanitize_${tool}_${bin}.log"
    timeout 150 compute-sanitizer --tool "$tool" --error-exitcode 3 "$t/$bin" -tc="$tc" > "$log" 2>&1
    rc=$?
    [ $rc -ne 0 ] && status=1
    echo "$tool $bin [$tc] rc=$rc $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY|test cases' "$log" | tr '\n' ' ')"
  done
fi

if has repro; then
  echo "== repro"
  : > "$out/repro.log"
  for f in "$SSIDS_TEST_MATRICES"/*.mtx.gz; do
    m=$(basename "$f" .mtx.gz)
    grep -q "^$m.mtx.gz.*[[:space:]]symmetric[[:space:]]" "$SSIDS_TEST_MATRICES/MANIFEST.tsv" 2>/dev/null || continue
    for cfg in "--backend gpu --runs 10 --nrhs 2" "--backend cpu --runs 3 --threads 1,2,4,8,16"; do
      res=$(timeout 240 build-gpu/ssids repro "$f" $cfg 2>&1)
      rc=$?
      [ $rc -ne 0 ] && status=1
      echo "$m [$cfg] rc=$rc" >> "$out/repro.log"
      echo "$res" >> "$out/repro.log"
      echo "$m [$cfg] rc=$rc $(echo "$res" | grep -iE '^result|identical' | head -2 | tr '\n' ' ')"
    done
  done
fi

if has bench; then
  echo "== GPU solve against the memory floor"
  timeout 200 build-gpu/bench/bench_solve --repeat 10 gen:laplace3d:80 gen:kkt-qp:200000:80000 gen:stokes:300 \
    gen:laplace3d:40 2>&1 | tee "$out/bench_solve.txt"
  echo "== GPU factorization (METIS, no scaling, as in bench/NOTES.md)"
  for spec in gen:laplace3d:80 gen:kkt-qp:200000:80000 gen:stokes:300; do
    timeout 120 build-gpu/ssids solve "$spec" --backend gpu --scaling none --ordering metis --print-level 1 --json \
      2> "$out/factor_stderr.log" | tee -a "$out/factor.jsonl" | python3 -c 'import sys,json
j=json.load(sys.stdin)
print("%-24s n=%d nnzL=%.3g flops=%.3g factor=%.3fs %.0f GF/s delays=%d neg=%d berr=%.1e asm/dense/upd/oth=%.3f/%.3f/%.3f/%.3f" % (
  j["input"], j["n"], j["num_factor"], j["num_flops"], j["time_factor"], j["gflops"], j["num_delay"], j["num_neg"],
  j["backward_error"], j["time_gpu_assembly"], j["time_gpu_dense"], j["time_gpu_update"], j["time_gpu_other"]))'
    grep "gpu factor" "$out/factor_stderr.log" | tail -1
  done
fi
exit $status
