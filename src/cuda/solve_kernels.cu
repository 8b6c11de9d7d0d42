// solve_kernels.cu — kernels of the level-scheduled GPU solve (see solve_kernels.cuh for the scheme).
#include "cuda/cuda_check.hpp"
#include "cuda/solve_kernels.cuh"

namespace ssids {
namespace detail {
namespace gpu {

namespace {

constexpr int T = solve_tile;
constexpr int R = solve_rhs;
constexpr int tile_threads = T * R;  // thread (i, q): row i of the tile, right-hand side q of a group of R

/// Sum of v over the 32 lanes of a warp by a fixed butterfly: every lane gets the same, reproducible value.
__device__ __forceinline__ double warp_sum(double v) {
  for (int o = 16; o > 0; o >>= 1) v += __shfl_xor_sync(0xffffffffu, v, o);
  return v;
}

/// Loads the lower triangle of the tile [j0, j1) x [j0, j1) of an L block (ld m) into t[i][j] = L(j0+i, j0+j).
__device__ __forceinline__ void load_tile(double (*t)[T + 1], const double* L, long long m, int j0, int tb) {
  for (int idx = threadIdx.x; idx < tb * tb; idx += blockDim.x) {
    const int i = idx % tb, j = idx / tb;
    t[i][j] = i >= j ? L[(j0 + i) + (j0 + j) * m] : 0.0;
  }
}

// grid: one block per node of the level.
__global__ void fwd_gather_kernel(const int* level_nodes, SolveArgs a) {
  const SolveNode nd = a.nodes[level_nodes[blockIdx.x]];
  double* b = a.buf + nd.buf_off * a.nrhs;
  const int* rows = a.rows + nd.rows_off;
  for (int r = 0; r < a.nrhs; ++r)
    for (int i = threadIdx.x; i < nd.m; i += blockDim.x)
      b[i + static_cast<long long>(r) * nd.m] = i < nd.ne ? a.x[rows[i] + r * a.ldx] : 0.0;
  for (int c = nd.child_begin; c < nd.child_end; ++c) {
    __syncthreads();  // children are added one after the other, in their fixed order
    const SolveChild ch = a.children[c];
    const SolveNode cn = a.nodes[ch.node];
    const double* cb = a.cbuf + cn.buf_off * a.nrhs;
    const int* map = a.maps + ch.map_off;
    const int mc = cn.m - cn.ne;
    for (int r = 0; r < a.nrhs; ++r)
      for (int k = threadIdx.x; k < mc; k += blockDim.x)
        b[map[k] + static_cast<long long>(r) * nd.m] += cb[cn.ne + k + static_cast<long long>(r) * cn.m];
  }
}

// grid: one block per task (node, tile). Solves L(tile, tile) y = b(tile) and writes y to b and x.
__global__ void __launch_bounds__(tile_threads) fwd_tile_kernel(const SolveTask* tasks, SolveArgs a) {
  __shared__ double t[T][T + 1];
  __shared__ double y[R][T];
  const SolveTask task = tasks[blockIdx.x];
  const SolveNode nd = a.nodes[task.node];
  const int tb = task.j1 - task.j0, i = threadIdx.x % T, q = threadIdx.x / T;
  const long long m = nd.m;
  double* b = a.buf + nd.buf_off * a.nrhs;
  const int* rows = a.rows + nd.rows_off;
  const double* inv = a.inv ? a.inv + nd.inv_off + static_cast<long long>(task.j0) * T : nullptr;
  if (inv) {  // presolve: y = inv * b(tile), inv lower triangular (tb x tb, ld tb)
    for (int r0 = 0; r0 < a.nrhs; r0 += R) {
      const int r = r0 + q;
      __syncthreads();
      if (i < tb && r < a.nrhs) y[q][i] = b[task.j0 + i + r * m];
      __syncthreads();
      if (i < tb && r < a.nrhs) {
        double v = 0.0;
        for (int k = 0; k <= i; ++k) v += inv[i + static_cast<long long>(k) * tb] * y[q][k];
        b[task.j0 + i + r * m] = v;
        a.x[rows[task.j0 + i] + r * a.ldx] = v;
      }
    }
    return;
  }
  load_tile(t, a.l + nd.l_off, m, task.j0, tb);
  for (int r0 = 0; r0 < a.nrhs; r0 += R) {
    const int r = r0 + q;
    const bool active = i < tb && r < a.nrhs;
    __syncthreads();
    double v = active ? b[task.j0 + i + r * m] : 0.0;
    for (int j = 0; j < tb; ++j) {
      if (active && i == j) {
        if (a.posdef) v /= t[j][j];
        y[q][j] = v;
      }
      __syncthreads();
      if (active && i > j) v -= t[i][j] * y[q][j];
    }
    if (active) {
      b[task.j0 + i + r * m] = v;
      a.x[rows[task.j0 + i] + r * a.ldx] = v;
    }
  }
}

// grid: one block per task (node, tile, block of solve_rows rows starting at r0 >= j1).
// b(i) -= sum over the tile's columns j (in order) of L(i, j) y(j).
__global__ void __launch_bounds__(solve_rows) fwd_update_kernel(const SolveTask* tasks, SolveArgs a) {
  __shared__ double y[R][T];
  const SolveTask task = tasks[blockIdx.x];
  const SolveNode nd = a.nodes[task.node];
  const int tb = task.j1 - task.j0;
  const long long m = nd.m;
  double* b = a.buf + nd.buf_off * a.nrhs;
  const double* L = a.l + nd.l_off + task.j0 * m;
  const int i = task.r0 + threadIdx.x;
  for (int r0 = 0; r0 < a.nrhs; r0 += R) {
    __syncthreads();
    for (int idx = threadIdx.x; idx < R * T; idx += blockDim.x) {
      const int qq = idx / T, j = idx % T;
      if (j < tb && r0 + qq < a.nrhs) y[qq][j] = b[task.j0 + j + (r0 + qq) * m];
    }
    __syncthreads();
    if (i >= m) continue;
    double acc[R];
#pragma unroll
    for (int qq = 0; qq < R; ++qq) acc[qq] = r0 + qq < a.nrhs ? b[i + (r0 + qq) * m] : 0.0;
    for (int j = 0; j < tb; ++j) {
      const double lij = L[i + j * m];
#pragma unroll
      for (int qq = 0; qq < R; ++qq) acc[qq] -= lij * y[qq][j];
    }
#pragma unroll
    for (int qq = 0; qq < R; ++qq)
      if (r0 + qq < a.nrhs) b[i + (r0 + qq) * m] = acc[qq];
  }
}

// grid: one block per node of the level. b = x(rows) for all m rows (ancestors are final by now).
__global__ void bwd_gather_kernel(const int* level_nodes, SolveArgs a) {
  const SolveNode nd = a.nodes[level_nodes[blockIdx.x]];
  double* b = a.buf + nd.buf_off * a.nrhs;
  const int* rows = a.rows + nd.rows_off;
  for (int r = 0; r < a.nrhs; ++r)
    for (int i = threadIdx.x; i < nd.m; i += blockDim.x) b[i + static_cast<long long>(r) * nd.m] = a.x[rows[i] + r * a.ldx];
}

/// One warp: b(j) -= sum over i in [i0, i1) of L(i, j) b(i), for the right-hand sides of the group r0.
__device__ __forceinline__ void column_dot(const double* L, double* b, long long m, int j, int i0, int i1, int r0,
                                           int nrhs) {
  const int lane = threadIdx.x % 32;
  double acc[R];
#pragma unroll
  for (int qq = 0; qq < R; ++qq) acc[qq] = 0.0;
  for (int i = i0 + lane; i < i1; i += 32) {
    const double lij = L[i + j * m];
#pragma unroll
    for (int qq = 0; qq < R; ++qq)
      if (r0 + qq < nrhs) acc[qq] += lij * b[i + (r0 + qq) * m];
  }
#pragma unroll
  for (int qq = 0; qq < R; ++qq) {
    const double s = warp_sum(acc[qq]);
    if (lane == 0 && r0 + qq < nrhs) b[j + (r0 + qq) * m] -= s;
  }
}

// grid: one block per task (node, first column r0); warp w handles pivot column r0 + w against the rows
// below the pivots (i >= ne).
__global__ void __launch_bounds__(32 * solve_cols) bwd_ancestor_kernel(const SolveTask* tasks, SolveArgs a) {
  const SolveTask task = tasks[blockIdx.x];
  const SolveNode nd = a.nodes[task.node];
  const int j = task.r0 + threadIdx.x / 32;
  if (j >= nd.ne) return;
  double* b = a.buf + nd.buf_off * a.nrhs;
  for (int r0 = 0; r0 < a.nrhs; r0 += R) column_dot(a.l + nd.l_off, b, nd.m, j, nd.ne, nd.m, r0, a.nrhs);
}

// grid: one block per task (node, tile). Solves L(tile, tile)^T y = b(tile); writes y to b and x.
__global__ void __launch_bounds__(tile_threads) bwd_tile_kernel(const SolveTask* tasks, SolveArgs a) {
  __shared__ double t[T][T + 1];
  __shared__ double y[R][T];
  const SolveTask task = tasks[blockIdx.x];
  const SolveNode nd = a.nodes[task.node];
  const int tb = task.j1 - task.j0, i = threadIdx.x % T, q = threadIdx.x / T;
  const long long m = nd.m;
  double* b = a.buf + nd.buf_off * a.nrhs;
  const int* rows = a.rows + nd.rows_off;
  const double* inv = a.inv ? a.inv + nd.inv_off + static_cast<long long>(task.j0) * T : nullptr;
  if (inv) {  // presolve: y = inv^T * b(tile)
    for (int r0 = 0; r0 < a.nrhs; r0 += R) {
      const int r = r0 + q;
      __syncthreads();
      if (i < tb && r < a.nrhs) y[q][i] = b[task.j0 + i + r * m];
      __syncthreads();
      if (i < tb && r < a.nrhs) {
        double v = 0.0;
        for (int k = i; k < tb; ++k) v += inv[k + static_cast<long long>(i) * tb] * y[q][k];
        b[task.j0 + i + r * m] = v;
        a.x[rows[task.j0 + i] + r * a.ldx] = v;
      }
    }
    return;
  }
  load_tile(t, a.l + nd.l_off, m, task.j0, tb);
  for (int r0 = 0; r0 < a.nrhs; r0 += R) {
    const int r = r0 + q;
    const bool active = i < tb && r < a.nrhs;
    __syncthreads();
    double v = active ? b[task.j0 + i + r * m] : 0.0;
    for (int j = tb - 1; j >= 0; --j) {
      if (active && i == j) {
        if (a.posdef) v /= t[j][j];
        y[q][j] = v;
      }
      __syncthreads();
      if (active && i < j) v -= t[j][i] * y[q][j];
    }
    if (active) {
      b[task.j0 + i + r * m] = v;
      a.x[rows[task.j0 + i] + r * a.ldx] = v;
    }
  }
}

// grid: one block per task (node, tile [j0, j1), first column r0 < j0); warp w: column r0 + w < j0.
__global__ void __launch_bounds__(32 * solve_cols) bwd_update_kernel(const SolveTask* tasks, SolveArgs a) {
  const SolveTask task = tasks[blockIdx.x];
  const SolveNode nd = a.nodes[task.node];
  const int j = task.r0 + threadIdx.x / 32;
  if (j >= task.j0) return;
  double* b = a.buf + nd.buf_off * a.nrhs;
  for (int r0 = 0; r0 < a.nrhs; r0 += R) column_dot(a.l + nd.l_off, b, nd.m, j, task.j0, task.j1, r0, a.nrhs);
}

__global__ void diag_solve_kernel(int n, const int* pivot_var, const double* d, const double* dinv, double* x,
                                  long long ldx, int nrhs) {
  const int k = blockIdx.x * blockDim.x + threadIdx.x;
  if (k >= n) return;
  if (k > 0 && d[2 * (k - 1) + 1] != 0.0) return;  // second variable of a 2x2 pivot: done by the first
  const int v = pivot_var[k];
  if (d[2 * k + 1] != 0.0) {
    const int w = pivot_var[k + 1];
    const double i11 = dinv[2 * k], i21 = dinv[2 * k + 1], i22 = dinv[2 * k + 2];
    for (int r = 0; r < nrhs; ++r) {
      const double p = x[v + r * ldx], q = x[w + r * ldx];
      x[v + r * ldx] = i11 * p + i21 * q;
      x[w + r * ldx] = i21 * p + i22 * q;
    }
  } else {
    for (int r = 0; r < nrhs; ++r) x[v + r * ldx] *= dinv[2 * k];
  }
}

__global__ void scale_rows_kernel(int n, const double* scale, double* x, long long ldx, int nrhs) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  for (int r = 0; r < nrhs; ++r) x[i + r * ldx] *= scale[i];
}

// grid: one block of T threads per tile; thread c computes column c of the inverse by forward substitution,
// straight into the output (each thread reads back only its own column).
__global__ void __launch_bounds__(T) invert_tiles_kernel(const SolveTask* tasks, const double* l,
                                                         const SolveNode* nodes, double* inv, int posdef) {
  __shared__ double t[T][T + 1];
  const SolveTask task = tasks[blockIdx.x];
  const SolveNode nd = nodes[task.node];
  const int tb = task.j1 - task.j0, c = threadIdx.x;
  load_tile(t, l + nd.l_off, nd.m, task.j0, tb);
  __syncthreads();
  if (c >= tb) return;
  double* z = inv + nd.inv_off + static_cast<long long>(task.j0) * T + static_cast<long long>(c) * tb;
  for (int i = 0; i < tb; ++i) {
    if (i < c) {
      z[i] = 0.0;
      continue;
    }
    double s = i == c ? 1.0 : 0.0;
    for (int k = c; k < i; ++k) s -= t[i][k] * z[k];
    z[i] = posdef ? s / t[i][i] : s;
  }
}

__global__ void scale_columns_kernel(const ScaleColumn* cols, double* l, const double* d) {
  const ScaleColumn c = cols[blockIdx.x];
  const double s = sqrt(d[c.d_idx]);
  for (int i = threadIdx.x; i < c.len; i += blockDim.x) l[c.diag_off + i] *= s;
}

}  // namespace

void launch_fwd_gather(const int* level_nodes, int count, const SolveArgs& a, cudaStream_t s) {
  if (count <= 0) return;
  fwd_gather_kernel<<<count, 256, 0, s>>>(level_nodes, a);
  check_launch("fwd_gather_kernel");
}
void launch_fwd_tile(const SolveTask* tasks, int count, const SolveArgs& a, cudaStream_t s) {
  if (count <= 0) return;
  fwd_tile_kernel<<<count, tile_threads, 0, s>>>(tasks, a);
  check_launch("fwd_tile_kernel");
}
void launch_fwd_update(const SolveTask* tasks, int count, const SolveArgs& a, cudaStream_t s) {
  if (count <= 0) return;
  fwd_update_kernel<<<count, solve_rows, 0, s>>>(tasks, a);
  check_launch("fwd_update_kernel");
}
void launch_bwd_gather(const int* level_nodes, int count, const SolveArgs& a, cudaStream_t s) {
  if (count <= 0) return;
  bwd_gather_kernel<<<count, 256, 0, s>>>(level_nodes, a);
  check_launch("bwd_gather_kernel");
}
void launch_bwd_ancestor(const SolveTask* tasks, int count, const SolveArgs& a, cudaStream_t s) {
  if (count <= 0) return;
  bwd_ancestor_kernel<<<count, 32 * solve_cols, 0, s>>>(tasks, a);
  check_launch("bwd_ancestor_kernel");
}
void launch_bwd_tile(const SolveTask* tasks, int count, const SolveArgs& a, cudaStream_t s) {
  if (count <= 0) return;
  bwd_tile_kernel<<<count, tile_threads, 0, s>>>(tasks, a);
  check_launch("bwd_tile_kernel");
}
void launch_bwd_update(const SolveTask* tasks, int count, const SolveArgs& a, cudaStream_t s) {
  if (count <= 0) return;
  bwd_update_kernel<<<count, 32 * solve_cols, 0, s>>>(tasks, a);
  check_launch("bwd_update_kernel");
}
void launch_diag_solve(int n, const int* pivot_var, const double* d, const double* dinv, double* x, long long ldx,
                       int nrhs, cudaStream_t s) {
  if (n <= 0) return;
  diag_solve_kernel<<<(n + 255) / 256, 256, 0, s>>>(n, pivot_var, d, dinv, x, ldx, nrhs);
  check_launch("diag_solve_kernel");
}
void launch_scale_rows(int n, const double* scale, double* x, long long ldx, int nrhs, cudaStream_t s) {
  if (n <= 0) return;
  scale_rows_kernel<<<(n + 255) / 256, 256, 0, s>>>(n, scale, x, ldx, nrhs);
  check_launch("scale_rows_kernel");
}
void launch_invert_tiles(const SolveTask* tasks, int count, const double* l, const SolveNode* nodes, double* inv,
                         int posdef, cudaStream_t s) {
  if (count <= 0) return;
  invert_tiles_kernel<<<count, T, 0, s>>>(tasks, l, nodes, inv, posdef);
  check_launch("invert_tiles_kernel");
}
void launch_scale_columns(const ScaleColumn* cols, int count, double* l, const double* d, cudaStream_t s) {
  if (count <= 0) return;
  scale_columns_kernel<<<count, 128, 0, s>>>(cols, l, d);
  check_launch("scale_columns_kernel");
}

}  // namespace gpu
}  // namespace detail
}  // namespace ssids
