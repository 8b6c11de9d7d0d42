#!/usr/bin/env bash
# tools/gpu_latency_profile.sh — where a GPU factorization's time goes on small and mid-size problems.
# On a GPU host, after ../shared/device/prepare all, from the project's root:
#   source .gpu/env.sh && tools/gpu_latency_profile.sh BUILD_DIR OUTDIR [SPEC...]
# For each matrix (default: every shared matrix with n >= 2000, then the generated problems of BASELINES.md)
# it factorizes 5 times on the GPU and prints, for the last (warm) factorization: time_factor, the host-side
# phases (setup and uploads, level loop, D and rows back, solve plan), the device time by operation, levels,
# window steps and delays; then the same on the 16-core CPU path.
set -uo pipefail
b=${1:?build dir}; out=${2:?outdir}; shift 2
mkdir -p "$out"
specs=("$@")
if [ ${#specs[@]} -eq 0 ]; then
  # the symmetric shared matrices (MANIFEST.tsv's symmetry column)
  while IFS=$'\t' read -r file _ _ _ _ sym _; do
    [ "$sym" = symmetric ] && [ -f "$SSIDS_TEST_MATRICES/$file" ] && specs+=("$SSIDS_TEST_MATRICES/$file")
  done < "${MANIFEST:-$SSIDS_TEST_MATRICES/MANIFEST.tsv}"
  specs+=(gen:stokes:410 gen:kkt-qp:300000:200000 gen:laplace3d:60:0.3)
fi
printf "%-30s %7s %8s %8s | %7s %7s %7s %7s %7s %7s | %6s %6s %6s %6s | %4s %9s %6s %6s | %8s\n" matrix n gpu_ms cpu_ms setup small sm_dev levels DtoH plan asm dense upd other nlev small/nsup steps delay cpu_delay
for s in "${specs[@]}"; do
  name=$(basename "$s" .mtx.gz)
  log="$out/$name.gpu.log"
  timeout 120 "$b/ssids" solve "$s" --backend gpu --repeat 5 --print-level 2 --json > "$out/$name.gpu.json" 2> "$log" || { echo "$name: gpu failed"; continue; }
  timeout 120 "$b/ssids" solve "$s" --backend cpu --threads 16 --repeat 3 --json > "$out/$name.cpu.json" 2>/dev/null
  python3 - "$s" "$out/$name.gpu.json" "$log" "$out/$name.cpu.json" <<'PY'
import sys, json, re
spec, gj, glog, cj = sys.argv[1:5]
def load(p):
    for l in open(p):
        l = l.strip()
        if l.startswith("{"):
            try: return json.loads(l)
            except Exception: pass
    return {}
g = load(gj); c = load(cj)
lines = open(glog).read().splitlines()
ph = [l for l in lines if "setup and uploads" in l]
st = [l for l in lines if "window steps; device" in l]
def nums(l): return [float(x) for x in re.findall(r"([0-9]+\.[0-9]+)", l)]
p = nums(ph[-1]) if ph else [0.0]*11
sm = re.findall(r"\((\d+) of (\d+) nodes", ph[-1]) if ph else []
small = "%s/%s" % sm[0] if sm else "?"
steps = re.findall(r"(\d+) window steps", st[-1])[0] if st else "?"
name = spec.split("/")[-1].replace(".mtx.gz", "")
print("%-30s %7d %8.2f %8.2f | %7.2f %7.2f %7.2f %7.2f %7.2f %7.2f | %6.2f %6.2f %6.2f %6.2f | %4d %9s %6s %6d | %8d" % (
    name, g.get("n", 0), 1e3*g.get("time_factor", 0), 1e3*c.get("time_factor", 0),
    p[0], p[1], p[2], p[3], p[8], p[9], p[4], p[5], p[6], p[7],
    g.get("num_levels", 0), small, steps, g.get("num_delay", 0), c.get("num_delay", 0)))
PY
done
