// solve_gather.cpp — see solve_gather.hpp. Each node's work-buffer rows are touched only by that node's
// iteration, so nodes run in parallel; each thread keeps its own variable -> position map.
#include "cuda/solve_gather.hpp"

#include <omp.h>

#include <algorithm>
#include <atomic>
#include <vector>

#include "ssids/error.hpp"

namespace ssids {
namespace detail {

SolveGather build_solve_gather(const Symbolic& sym, const SolveGatherInput& in) {
  SolveGatherWorkspace ws;
  build_solve_gather_into(sym, in, ws);
  return std::move(ws.g);
}

void build_solve_gather_into(const Symbolic& sym, const SolveGatherInput& in, SolveGatherWorkspace& ws) {
  const index_t nsup = sym.nsup;
  SolveGather& g = ws.g;
  const size_t nthreads = static_cast<size_t>(omp_get_max_threads());
  // threads only where there is work for them: waking a team costs tens of microseconds, more than the whole
  // map of a problem of a few thousand rows
  const bool par = in.total_rows >= gather_parallel_rows;
  // each thread's variable -> position map, made (first touched) by its thread inside the first parallel pass
  if (ws.pos.size() < nthreads) ws.pos.resize(nthreads);
  auto thread_pos = [&]() -> std::vector<int>& {
    std::vector<int>& p = ws.pos[static_cast<size_t>(omp_get_thread_num())];
    if (p.size() != static_cast<size_t>(sym.n)) p.assign(static_cast<size_t>(sym.n), -1);
    return p;
  };
  g.child_begin.assign(static_cast<size_t>(nsup), 0);
  g.child_end.assign(static_cast<size_t>(nsup), 0);
  g.gptr.assign(static_cast<size_t>(in.total_rows) + 1, 0);
  // children passing rows up: counts, then offsets in node order, then the lists
  Vector<int> nchild(static_cast<size_t>(nsup) + 1, 0);
#pragma omp parallel for schedule(static) if (par)
  for (index_t s = 0; s < nsup; ++s) {
    int c = 0;
    for (index_t k = sym.child_ptr[s]; k < sym.child_ptr[s + 1]; ++k) {
      const index_t ch = sym.child_list[k];
      if (in.m[ch] != in.ne[ch]) ++c;
    }
    nchild[s + 1] = c;
  }
  for (index_t s = 0; s < nsup; ++s) nchild[s + 1] += nchild[s];
  g.children.assign(static_cast<size_t>(nchild[nsup]), 0);
  // Calls f(ch, r, p) for every row r >= ne of every child ch of s that passes rows up, in child order, with
  // p the row's position in s (-1 if missing); pos is the calling thread's variable -> position map.
  auto walk = [&](index_t s, std::vector<int>& pos, auto&& f) {
    const int* prow = in.host_rows + in.rows_off[s];
    for (int i = 0; i < in.m[s]; ++i) pos[prow[i]] = i;
    for (index_t k = sym.child_ptr[s]; k < sym.child_ptr[s + 1]; ++k) {
      const index_t ch = sym.child_list[k];
      if (in.m[ch] == in.ne[ch]) continue;
      const int* crow = in.host_rows + in.rows_off[ch];
      for (int r = in.ne[ch]; r < in.m[ch]; ++r) f(ch, r, pos[crow[r]]);
    }
    for (int i = 0; i < in.m[s]; ++i) pos[prow[i]] = -1;
  };
  std::atomic<bool> missing{false};
#pragma omp parallel num_threads(static_cast<int>(nthreads)) if (par)
  {
    std::vector<int>& pos = thread_pos();
    // pass 1: the children lists, and per parent row the number of children's rows added into it
#pragma omp for schedule(dynamic, 64)
    for (index_t s = 0; s < nsup; ++s) {
      g.child_begin[s] = nchild[s];
      g.child_end[s] = nchild[s + 1];
      int c = nchild[s];
      index_t last = -1;
      walk(s, pos, [&](index_t ch, int, int p) {
        if (ch != last) g.children[c++] = last = ch;
        if (p < 0) missing = true;
        else ++g.gptr[in.buf_off[s] + p + 1];
      });
    }
  }
  if (missing) throw Error(flag::unknown, "internal error: a contribution row of a child is not in its parent");
  // prefix sums of the counts: within each node's rows (in parallel), then over the nodes, then the nodes'
  // offsets added (in parallel); when the nodes' rows are not laid out in node order, one sequential pass
  bool node_order = true;
  long long next = 0;
  for (index_t s = 0; s < nsup && node_order; ++s) {
    node_order = in.buf_off[s] == next;
    next += in.m[s];
  }
  node_order = node_order && next == in.total_rows;
  constexpr long long max_entries = 2147483647LL;
  if (node_order) {
    Vector<long long> node_start(static_cast<size_t>(nsup) + 1, 0);
#pragma omp parallel for schedule(dynamic, 64) if (par)
    for (index_t s = 0; s < nsup; ++s) {
      long long run = 0;
      int* c = g.gptr.data() + in.buf_off[s] + 1;
      for (int i = 0; i < in.m[s]; ++i) {
        run += c[i];
        c[i] = static_cast<int>(std::min(run, max_entries));
      }
      node_start[s + 1] = run;
    }
    for (index_t s = 0; s < nsup; ++s) node_start[s + 1] += node_start[s];
    if (node_start[nsup] > max_entries) throw Error(flag::allocation, "the GPU solve plan needs more than 2^31 entries");
#pragma omp parallel for schedule(dynamic, 64) if (par)
    for (index_t s = 0; s < nsup; ++s) {
      const int add = static_cast<int>(node_start[s]);
      int* c = g.gptr.data() + in.buf_off[s] + 1;
      for (int i = 0; i < in.m[s]; ++i) c[i] += add;
    }
  } else {
    long long run = 0;
    for (long long r = 0; r < in.total_rows; ++r) {
      run += g.gptr[r + 1];
      if (run > max_entries) throw Error(flag::allocation, "the GPU solve plan needs more than 2^31 entries");
      g.gptr[r + 1] = static_cast<int>(run);
    }
  }
  g.gsrc.assign(static_cast<size_t>(g.gptr[in.total_rows]), 0);
#pragma omp parallel num_threads(static_cast<int>(nthreads)) if (par)
  {
    std::vector<int>& pos = thread_pos();
    std::vector<int> fill;
    // pass 2: the children's rows, child by child (stable within a parent row)
#pragma omp for schedule(dynamic, 64)
    for (index_t s = 0; s < nsup; ++s) {
      fill.assign(g.gptr.begin() + in.buf_off[s], g.gptr.begin() + in.buf_off[s] + in.m[s]);
      walk(s, pos, [&](index_t ch, int r, int p) { g.gsrc[fill[p]++] = static_cast<int>(in.buf_off[ch] + r); });
    }
  }
}

}  // namespace detail
}  // namespace ssids
