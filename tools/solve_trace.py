#!/usr/bin/env python3
"""Where the time of a GPU solve goes, task by task.

Build with the trace compiled in and run one solve with SSIDS_SOLVE_TRACE=PREFIX (each sweep writes
PREFIX.fwd / PREFIX.bwd and PREFIX.nodes; the last solve of a run wins):
    cmake -S . -B build-trace -DCMAKE_CUDA_FLAGS=-DSSIDS_SOLVE_TRACE ... && cmake --build build-trace
    SSIDS_SOLVE_TRACE=/tmp/l80 build-trace/ssids solve gen:laplace3d:80 --backend gpu --presolve
    tools/solve_trace.py /tmp/l80
Prints per sweep, by depth in the tree (0 = root), the tasks, their span and mean concurrency, the MB of
L blocks (m x ne) of those nodes, the active tasks over time, the diagonal chain of the biggest root, the
biggest node of each depth (when its children were done, its pivots solved, the node done) and the root's
chain by super-blocks of K tiles (--superblock K, default 8).
"""
import sys

import numpy as np

pre = sys.argv[1]
K = int(sys.argv[sys.argv.index("--superblock") + 1]) if "--superblock" in sys.argv else 8
nodes = np.fromfile(pre + ".nodes", dtype=np.int32).reshape(-1, 3)
m, ne, wait = nodes[:, 0], nodes[:, 1], nodes[:, 2]
ns = len(m)
depth = np.full(ns, -1)
def dep(s):
    path = []
    while s >= 0 and depth[s] < 0:
        path.append(s); s = wait[s]
    d = -1 if s < 0 else depth[s]
    for x in reversed(path):
        d += 1; depth[x] = d
    return
for s in range(ns): dep(s)
lbytes = m.astype(np.float64) * ne * 8
for sw in ("fwd", "bwd"):
    t = np.fromfile(pre + "." + sw, dtype=np.uint64).reshape(-1, 8)
    st = t[:, 0].astype(np.int64); en = t[:, 1].astype(np.int64)
    node = (t[:, 2] >> 32).astype(np.int64); blk = (t[:, 2] & 0xffffffff).astype(np.uint32).astype(np.int32).astype(np.int64)
    part = (t[:, 3] & 0xffffffff).astype(np.int32)
    mk0 = t[:, 4].astype(np.int64); mk1 = t[:, 5].astype(np.int64)
    mk2 = t[:, 6].astype(np.int64); mk3 = t[:, 7].astype(np.int64)
    compact = blk < 0
    t0 = st.min(); st -= t0; en -= t0
    span = en.max()
    print(f"== {sw}: {len(st)} tasks, span {span/1e3:.1f} us, mean task {np.mean(en-st)/1e3:.2f} us, sum {np.sum(en-st)/1e6:.2f} ms")
    d = depth[node]
    # per task: waiting for its dependencies (start -> mark 0), gathering (mark 0 -> mark 1, where marked),
    # the rest (-> end); compact = whole-node tasks (blk -1)
    has0 = mk0 > 0; has1 = mk1 > 0
    wait_t = np.where(has0, mk0 - (st + t0), 0); gath_t = np.where(has0 & has1, mk1 - mk0, 0)
    rest_t = np.where(has1, (en + t0) - mk1, np.where(has0, (en + t0) - mk0, en - st))
    print(f" compact tasks {compact.sum()}, others {(~compact).sum()}")
    print(" depth  tasks  nodes  first_start  last_end   active_span  conc   MB_L    maxm   maxne  task_us  wait  gather  rest")
    for k in range(d.max() + 1):
        sel = d == k
        if not sel.any(): continue
        nn = np.unique(node[sel])
        a, b = st[sel].min(), en[sel].max()
        conc = np.sum(en[sel] - st[sel]) / max(1, b - a)
        print(f" {k:5d} {sel.sum():6d} {len(nn):6d} {a/1e3:11.1f} {b/1e3:10.1f} {(b-a)/1e3:12.1f} {conc:6.1f} {lbytes[nn].sum()/1e6:7.1f} {m[nn].max():7d} {ne[nn].max():6d}"
              f" {np.mean(en[sel]-st[sel])/1e3:7.2f} {np.mean(wait_t[sel])/1e3:5.2f} {np.mean(gath_t[sel])/1e3:6.2f} {np.mean(rest_t[sel])/1e3:5.2f}")
    # histogram of time: number of active tasks over time in 20 bins
    bins = np.linspace(0, span, 21)
    act = []
    for i in range(20):
        lo, hi = bins[i], bins[i+1]
        ov = np.clip(np.minimum(en, hi) - np.maximum(st, lo), 0, None).sum() / (hi - lo)
        act.append(ov)
    print(" active tasks per 5% of span:", " ".join(f"{x:.0f}" for x in act))
    # root node timeline
    root = np.argmax(lbytes * (depth == 0))
    sel = node == root
    print(f" biggest root node {root} m={m[root]} ne={ne[root]}: tasks {sel.sum()} start {st[sel].min()/1e3:.1f} end {en[sel].max()/1e3:.1f} us")
    # chain: per tile end time of tile tasks of the root (part == -1 for bwd)
    if (blk[sel] < 0).any():
        print("  (a compact root: one task per sweep)")
    elif sw == "fwd":
        sr = np.where(sel)[0]; order = np.argsort(blk[sr])
        e = en[sr][order]; b = blk[sr][order]
        nt = (ne[root] + 63)//64
        print("  root row blocks end (every 16th):", " ".join(f"{b[i]}:{e[i]/1e3:.0f}" for i in range(0, len(b), 16)))
        print(f"  root diag chain: {nt} tiles, mean link {(e[nt-1]-e[0])/max(1,nt-1)/1e3:.2f} us")
    else:
        sr = np.where(sel & (part < 0))[0]; order = np.argsort(-blk[sr])
        e = en[sr][order]; b = blk[sr][order]
        print("  root tiles end (every 16th):", " ".join(f"{b[i]}:{e[i]/1e3:.0f}" for i in range(0, len(b), 16)))
        print(f"  root bwd chain: {len(b)} tiles, mean link {(e[-1]-e[0])/max(1,len(b)-1)/1e3:.2f} us")

    # relative times of the marks (0 where not marked), microseconds
    def rel(x):
        return np.where(x > 0, (x - t0) / 1e3, np.nan)
    r0, r2, r3 = rel(mk0), rel(mk2), rel(mk3)
    print(" biggest node per depth: deps met (first task), pivots solved (last), done (last end), us")
    for k in range(d.max() + 1):
        cand = np.unique(node[d == k])
        if not len(cand): continue
        nd_ = cand[np.argmax(lbytes[cand])]
        sel = (node == nd_)
        piv = sel & (blk >= 0) & (blk < (ne[nd_] + 63) // 64) & (part < 0)
        solved = np.nanmax(r3[piv]) if piv.any() and not np.all(np.isnan(r3[piv])) else np.nan
        print(f"  depth {k:2d} node {nd_:6d} m={m[nd_]:5d} ne={ne[nd_]:5d} tasks {sel.sum():4d}: start {st[sel].min()/1e3:8.1f}"
              f" deps {np.nanmin(r0[sel]):8.1f} solved {solved:8.1f} done {en[sel].max()/1e3:8.1f}")
    # the root's chain by super-blocks: when the previous super-block's tiles were subtracted (last mk2) and
    # when the super-block's tiles were solved (last mk3)
    sel = (node == root) & (blk >= 0) & (part < 0)
    nt = (ne[root] + 63) // 64
    piv = sel & (blk < nt)
    if piv.any():
        out = []
        prev = np.nan
        for S in (range(0, nt, K) if sw == "fwd" else reversed(range(0, nt, K))):
            ss = piv & (blk >= S) & (blk < S + K)
            a2, a3 = np.nanmax(r2[ss]), np.nanmax(r3[ss])
            out.append(f"{S//K}:{a2 - prev:.1f}+{a3 - a2:.1f}")
            prev = a3
        print(f"  root chain by super-blocks (previous solved -> others done + own solved, us): " + " ".join(out))
