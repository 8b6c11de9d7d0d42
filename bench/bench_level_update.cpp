// bench_level_update.cpp — how to run the contribution-block updates of the GPU factorization: the cuBLAS
// part of factor_gpu.cu's run_updates (regions of at least 512 x 256), level by level, on the fronts an
// analysis plans (no delays), with five strategies over all levels:
//   sequential  one cublasDgemm per B-column block of each front's lower trapezoid, in order on one stream
//   grouped     the same column blocks of a whole level in one cublasDgemmGroupedBatched call (one group per
//               block; the pointer arrays are uploaded inside the timed region, as the library would)
//   streams     the sequential calls spread over S streams (a cuBLAS handle each), fronts round-robin
//   square      one cublasDgemm per front on the whole mc x mc square (twice the flops, one call)
//   recursive   each front's lower triangle halved recursively into square-ish rectangles (the lower left
//               quarter is one DGEMM) down to diagonal blocks of at most B columns (computed whole); all
//               pieces of a level in one cublasDgemmGroupedBatched call
// L and W are random (the tensor-core kernel is compared with cuBLAS), C arbitrary: only the time matters.
// Rates count the useful flops of the lower trapezoids (Inform::num_flops' convention: p * mc^2 per front).
// --per-level: each level alone: grouped; B x B tiles, one group each and equal shapes merged into groups;
//          the recursive pieces as plain calls on the streams; the tensor-core kernel (update_mma.cu, tiles of
//          64 and 128; --mma-shape 0..3 picks the mma instruction, --check compares its lower triangles with
//          the grouped call's); the hybrid (pieces of at least 1024 or 2048 in both dimensions as plain calls
//          on streams 1.., the rest grouped on stream 0 at the same time); cublasDsyrkx per front.
// --sweep: instead of a problem, single fronts of mc x mc with p pivots over a grid of shapes, as --per-level,
//          plus one square DGEMM of the whole mc x mc (its rate counts 2 p mc^2) — how cuBLAS's rate depends
//          on the inner dimension p of these updates.
// --mma-only: of --per-level and --sweep, only the tensor-core kernel (and the square DGEMM of --sweep).
// --min-area A: the fronts whose contribution block has at least A entries (default 512 x 256; 1: every front, as
//          the factorization now sends every region to the tensor-core kernel); --level L: only level L of --per-level.
// Usage: bench_level_update [--repeat R] [--streams S] [--col-block B] [--per-level] [--mma-shape K] [--check]
//                           [--min-area A] [--level L] SPEC
//        bench_level_update [--repeat R] [--col-block B] [--mma-shape K] [--check] --sweep
// SPEC e.g. gen:laplace3d:80; B: columns per block of a lower trapezoid (default 512; the library's
// cb_gemm_col_block is 256). Medians of R timed runs (after one warm-up), CUDA events; device named; cuBLAS DGEMM
// n = 8192 for reference.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <tuple>
#include <vector>

#include "analyse/symbolic.hpp"
#include "ssids/analyse.hpp"
#include "ssids/error.hpp"
#include "ssids/generate.hpp"
#if defined(SSIDS_BENCH_HAVE_CUDA) && defined(SSIDS_BENCH_HAVE_CUBLAS)
#include "cuda/front_kernels.cuh"
#endif

#if defined(SSIDS_BENCH_HAVE_CUDA) && defined(SSIDS_BENCH_HAVE_CUBLAS)
#include <cublas_v2.h>
#include <cuda_runtime.h>

namespace {

void ck(cudaError_t e, const char* what) {
  if (e != cudaSuccess) {
    std::fprintf(stderr, "%s: %s\n", what, cudaGetErrorString(e));
    std::exit(1);
  }
}
void ck(cublasStatus_t e, const char* what) {
  if (e != CUBLAS_STATUS_SUCCESS) {
    std::fprintf(stderr, "%s: cuBLAS status %d\n", what, static_cast<int>(e));
    std::exit(1);
  }
}

struct Front {
  int mc, p;
};
struct Block {  // one column block of a front's lower trapezoid: C(j0:, j0:j0+jb) -= L(j0:, :) W(j0:j0+jb, :)^T
  int front, j0, jb;
};

long long kMinArea = 512LL * 256;  // --min-area
int only_level = -1;                // --level: only this one of --per-level

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.empty() ? 0.0 : v[v.size() / 2];
}

}  // namespace

int main(int argc, char** argv) {
  int repeat = 3, nstreams = 4, col_block = 512;
  bool per_level = false, sweep = false, check = false, mma_only = false;
  std::string spec;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--repeat" && i + 1 < argc) repeat = std::max(1, std::atoi(argv[++i]));
    else if (a == "--streams" && i + 1 < argc) nstreams = std::max(1, std::atoi(argv[++i]));
    else if (a == "--col-block" && i + 1 < argc) col_block = std::max(32, std::atoi(argv[++i]));
    else if (a == "--per-level") per_level = true;
    else if (a == "--sweep") sweep = true;
    else if (a == "--check") check = true;
    else if (a == "--mma-only") mma_only = true;
    else if (a == "--min-area" && i + 1 < argc) kMinArea = std::atoll(argv[++i]);
    else if (a == "--level" && i + 1 < argc) only_level = std::atoi(argv[++i]);
    else if (a == "--mma-shape" && i + 1 < argc) ssids::detail::gpu::set_update_mma_shape(std::atoi(argv[++i]));
    else spec = a;
  }
  if (sweep) spec = "gen:laplace2d:4";  // a placeholder problem: the sweep makes its own fronts
  if (spec.empty()) {
    std::fprintf(stderr, "usage: %s [--repeat R] [--streams S] [--col-block B] SPEC\n", argv[0]);
    return 2;
  }
  int ndev = 0;
  if (cudaGetDeviceCount(&ndev) != cudaSuccess || ndev == 0) {
    std::fprintf(stderr, "bench_level_update: no usable CUDA device\n");
    return 77;
  }
  try {
    const ssids::SymmetricMatrix a = ssids::load_symmetric(spec);
    ssids::Options opt;
    ssids::Inform inf;
    const ssids::Analysis an = ssids::analyse(a.view(), opt, inf);
    const ssids::detail::Symbolic& s = an.symbolic();
    // the big regions of every level
    std::vector<std::vector<Front>> levels;
    double flops = 0.0;
    long long max_c = 0, max_l = 0;
    for (ssids::index_t lev = s.num_levels - 1; lev >= 0; --lev) {
      std::vector<Front> fr;
      long long c = 0, l = 0;
      for (ssids::index_t k = s.level_ptr[lev]; k < s.level_ptr[lev + 1]; ++k) {
        const int nd = s.level_nodes[k];
        const int p = static_cast<int>(s.ncol(nd)), mc = static_cast<int>(s.nrow(nd)) - p;
        if (static_cast<long long>(mc) * mc < kMinArea || p == 0) continue;
        fr.push_back(Front{mc, p});
        c += static_cast<long long>(mc) * mc;
        l += static_cast<long long>(mc) * p;
        flops += static_cast<double>(p) * mc * mc;
      }
      if (fr.empty() || sweep) continue;
      max_c = std::max(max_c, c);
      max_l = std::max(max_l, l);
      levels.push_back(std::move(fr));
    }
    if (sweep) {  // one front per "level": the grid of shapes
      flops = 0.0;
      for (int mc : {2048, 4096, 8192})
        for (int p : {128, 256, 512, 1024, 2048, 4096}) {
          levels.push_back({Front{mc, p}});
          max_c = std::max(max_c, static_cast<long long>(mc) * mc);
          max_l = std::max(max_l, static_cast<long long>(mc) * p);
          flops += static_cast<double>(p) * mc * mc;
        }
    }
    cudaDeviceProp prop{};
    ck(cudaGetDeviceProperties(&prop, 0), "cudaGetDeviceProperties");
    double *C = nullptr, *L = nullptr, *W = nullptr;
    ck(cudaMalloc(&C, max_c * sizeof(double)), "cudaMalloc C");
    ck(cudaMalloc(&L, max_l * sizeof(double)), "cudaMalloc L");
    ck(cudaMalloc(&W, max_l * sizeof(double)), "cudaMalloc W");
    ck(cudaMemset(C, 0x3F, max_c * sizeof(double)), "memset");
    {  // random L and W in [-1, 1): the tensor-core kernel's result is compared with cuBLAS's
      std::vector<double> r(static_cast<size_t>(max_l));
      unsigned long long x = 0x9E3779B97F4A7C15ULL;
      for (auto& v : r) {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        v = static_cast<double>(x >> 11) * 0x1.0p-52 - 1.0;
      }
      ck(cudaMemcpy(L, r.data(), max_l * sizeof(double), cudaMemcpyHostToDevice), "H2D");
      std::reverse(r.begin(), r.end());
      ck(cudaMemcpy(W, r.data(), max_l * sizeof(double), cudaMemcpyHostToDevice), "H2D");
    }
    std::vector<cudaStream_t> st(static_cast<size_t>(nstreams));
    std::vector<cublasHandle_t> h(static_cast<size_t>(nstreams));
    for (int i = 0; i < nstreams; ++i) {
      ck(cudaStreamCreateWithFlags(&st[i], cudaStreamNonBlocking), "cudaStreamCreate");
      ck(cublasCreate(&h[i]), "cublasCreate");
      ck(cublasSetStream(h[i], st[i]), "cublasSetStream");
    }
    std::vector<cudaEvent_t> ev(static_cast<size_t>(nstreams) + 2);
    for (auto& e : ev) ck(cudaEventCreate(&e), "cudaEventCreate");
    const double m1 = -1.0, one = 1.0;
    // per level: offsets of each front's C, L, W; its column blocks; the grouped call's arrays
    struct Piece {  // C(r0:r0+mr, c0:c0+nc) -= L(r0:, :) W(c0:, :)^T of one front
      int front, r0, c0, mr, nc;
    };
    struct Plan {
      std::vector<long long> coff, loff;
      std::vector<Block> blocks;
      std::vector<Piece> trapezoids;  // the blocks as pieces: (mc - j0) x jb from (j0, j0)
      std::vector<Piece> pieces;      // the recursive split
      std::vector<Piece> tiles;       // the lower triangle in B x B tiles (diagonal tiles whole)
    };
    std::vector<Plan> plans;
    size_t max_blocks = 0;
    for (const auto& fr : levels) {
      Plan pl;
      long long c = 0, l = 0;
      for (size_t f = 0; f < fr.size(); ++f) {
        pl.coff.push_back(c);
        pl.loff.push_back(l);
        c += static_cast<long long>(fr[f].mc) * fr[f].mc;
        l += static_cast<long long>(fr[f].mc) * fr[f].p;
        for (int j0 = 0; j0 < fr[f].mc; j0 += col_block) {
          const int jb = std::min(col_block, fr[f].mc - j0);
          pl.blocks.push_back(Block{static_cast<int>(f), j0, jb});
          pl.trapezoids.push_back(Piece{static_cast<int>(f), j0, j0, fr[f].mc - j0, jb});
        }
        // lower triangle of the n x n diagonal block at (o, o), halved recursively
        std::vector<std::pair<int, int>> todo{{0, fr[f].mc}};
        while (!todo.empty()) {
          const auto [o, n] = todo.back();
          todo.pop_back();
          if (n <= col_block) {
            pl.pieces.push_back(Piece{static_cast<int>(f), o, o, n, n});
            continue;
          }
          const int h1 = (n / 2 + 63) / 64 * 64;  // the upper left triangle, a multiple of 64 columns
          pl.pieces.push_back(Piece{static_cast<int>(f), o + h1, o, n - h1, h1});
          todo.push_back({o, h1});
          todo.push_back({o + h1, n - h1});
        }
      }
      for (size_t f = 0; f < fr.size(); ++f)
        for (int j0 = 0; j0 < fr[f].mc; j0 += col_block)
          for (int i0 = j0; i0 < fr[f].mc; i0 += col_block)
            pl.tiles.push_back(Piece{static_cast<int>(f), i0, j0, std::min(col_block, fr[f].mc - i0),
                                     std::min(col_block, fr[f].mc - j0)});
      max_blocks = std::max({max_blocks, pl.trapezoids.size(), pl.pieces.size(), pl.tiles.size()});
      plans.push_back(std::move(pl));
    }
    const double** dA = nullptr;
    const double** dB = nullptr;
    double** dC = nullptr;
    ck(cudaMalloc(&dA, max_blocks * sizeof(double*)), "cudaMalloc");
    ck(cudaMalloc(&dB, max_blocks * sizeof(double*)), "cudaMalloc");
    ck(cudaMalloc(&dC, max_blocks * sizeof(double*)), "cudaMalloc");
    ssids::detail::gpu::UpdateTask* dTasks = nullptr;
    ck(cudaMalloc(&dTasks, 100000 * sizeof(ssids::detail::gpu::UpdateTask)), "cudaMalloc");

    auto gemm_block = [&](cublasHandle_t hd, const std::vector<Front>& fr, const Plan& pl, const Block& b) {
      const Front& f = fr[b.front];
      ck(cublasDgemm(hd, CUBLAS_OP_N, CUBLAS_OP_T, f.mc - b.j0, b.jb, f.p, &m1, L + pl.loff[b.front] + b.j0, f.mc,
                     W + pl.loff[b.front] + b.j0, f.mc, &one, C + pl.coff[b.front] + b.j0 + static_cast<long long>(b.j0) * f.mc,
                     f.mc),
         "cublasDgemm");
    };
    // all pieces of a level in one grouped call (one group per piece); the pointer arrays are uploaded inside
    // the timed region, as the library would
    // merge: pieces of equal shape (m, n, k, ld) form one group (group_size > 1) instead of one group each
    auto grouped = [&](const std::vector<Front>& fr, const Plan& pl, const std::vector<Piece>& pieces_in,
                       bool merge = false) {
      std::vector<Piece> pieces = pieces_in;
      auto key = [&](const Piece& b) {
        return std::make_tuple(b.mr, b.nc, fr[b.front].p, fr[b.front].mc);
      };
      if (merge)
        std::stable_sort(pieces.begin(), pieces.end(), [&](const Piece& x, const Piece& y) { return key(x) < key(y); });
      const size_t nb = pieces.size();
      std::vector<cublasOperation_t> ta, tb;
      std::vector<int> mm, nn, kk, ld, gs;
      std::vector<double> al, be;
      std::vector<const double*> pa(nb), pb(nb);
      std::vector<double*> pc(nb);
      for (size_t i = 0; i < nb; ++i) {
        const Piece& b = pieces[i];
        const Front& f = fr[b.front];
        if (merge && i > 0 && key(pieces[i - 1]) == key(b)) {
          ++gs.back();
        } else {
          ta.push_back(CUBLAS_OP_N);
          tb.push_back(CUBLAS_OP_T);
          mm.push_back(b.mr);
          nn.push_back(b.nc);
          kk.push_back(f.p);
          ld.push_back(f.mc);
          al.push_back(-1.0);
          be.push_back(1.0);
          gs.push_back(1);
        }
        pa[i] = L + pl.loff[b.front] + b.r0;
        pb[i] = W + pl.loff[b.front] + b.c0;
        pc[i] = C + pl.coff[b.front] + b.r0 + static_cast<long long>(b.c0) * f.mc;
      }
      ck(cudaMemcpyAsync(dA, pa.data(), nb * sizeof(double*), cudaMemcpyHostToDevice, st[0]), "H2D");
      ck(cudaMemcpyAsync(dB, pb.data(), nb * sizeof(double*), cudaMemcpyHostToDevice, st[0]), "H2D");
      ck(cudaMemcpyAsync(dC, pc.data(), nb * sizeof(double*), cudaMemcpyHostToDevice, st[0]), "H2D");
      ck(cublasDgemmGroupedBatched(h[0], ta.data(), tb.data(), mm.data(), nn.data(), kk.data(), al.data(), dA,
                                   ld.data(), dB, ld.data(), be.data(), dC, ld.data(), static_cast<int>(gs.size()),
                                   gs.data()),
         "cublasDgemmGroupedBatched");
      ck(cudaStreamSynchronize(st[0]), "sync");  // the host arrays above are released
    };
    auto run = [&](int strategy) {
      for (size_t li = 0; li < levels.size(); ++li) {
        if (only_level >= 0 && static_cast<int>(li) != only_level) continue;
        const auto& fr = levels[li];
        const Plan& pl = plans[li];
        if (strategy == 0) {
          for (const Block& b : pl.blocks) gemm_block(h[0], fr, pl, b);
        } else if (strategy == 1) {
          grouped(fr, pl, pl.trapezoids);
        } else if (strategy == 2) {
          ck(cudaEventRecord(ev[0], st[0]), "cudaEventRecord");
          for (int i = 1; i < nstreams; ++i) ck(cudaStreamWaitEvent(st[i], ev[0], 0), "cudaStreamWaitEvent");
          for (const Block& b : pl.blocks) gemm_block(h[b.front % nstreams], fr, pl, b);
          for (int i = 1; i < nstreams; ++i) {
            ck(cudaEventRecord(ev[1 + i], st[i]), "cudaEventRecord");
            ck(cudaStreamWaitEvent(st[0], ev[1 + i], 0), "cudaStreamWaitEvent");
          }
        } else if (strategy == 4) {
          grouped(fr, pl, pl.pieces);
        } else {
          for (size_t f = 0; f < fr.size(); ++f)
            ck(cublasDgemm(h[0], CUBLAS_OP_N, CUBLAS_OP_T, fr[f].mc, fr[f].mc, fr[f].p, &m1, L + pl.loff[f], fr[f].mc,
                           W + pl.loff[f], fr[f].mc, &one, C + pl.coff[f], fr[f].mc),
               "cublasDgemm");
        }
      }
    };
    const char* names[5] = {"sequential", "grouped", "streams", "square", "recursive"};
    std::printf("bench_level_update: %s, %s: %zu levels with regions >= 512 x 256, %.4g flops (lower trapezoids), "
                "%d streams, column blocks of %d, median of %d\n",
                prop.name, spec.c_str(), levels.size(), flops, nstreams, col_block, repeat);
    cudaEvent_t t0, t1;
    ck(cudaEventCreate(&t0), "cudaEventCreate");
    ck(cudaEventCreate(&t1), "cudaEventCreate");
    // median time of f() on st[0], after one warm-up
    auto time_median = [&](auto&& f) {
      f();
      ck(cudaDeviceSynchronize(), "warm-up");
      std::vector<double> t;
      for (int r = 0; r < repeat; ++r) {
        ck(cudaEventRecord(t0, st[0]), "cudaEventRecord");
        f();
        ck(cudaEventRecord(t1, st[0]), "cudaEventRecord");
        ck(cudaEventSynchronize(t1), "cudaEventSynchronize");
        float ms = 0.0f;
        ck(cudaEventElapsedTime(&ms, t0, t1), "cudaEventElapsedTime");
        t.push_back(1e-3 * ms);
      }
      return median(t);
    };
    if (per_level || sweep) {
      std::printf("  %s: fronts, largest mc, p from-to, useful flops, grouped time and rate%s\n",
                  sweep ? "shape" : "level", sweep ? "; one square DGEMM of mc x mc (2 p mc^2 flops)" : "");
      for (size_t li = 0; li < levels.size(); ++li) {
        if (only_level >= 0 && static_cast<int>(li) != only_level) continue;
        const auto& fr = levels[li];
        int mcmax = 0, pmin = 1 << 30, pmax = 0;
        double fl = 0.0;
        for (const Front& f : fr) {
          mcmax = std::max(mcmax, f.mc);
          pmin = std::min(pmin, f.p);
          pmax = std::max(pmax, f.p);
          fl += static_cast<double>(f.p) * f.mc * f.mc;
        }
        const Plan& pl = plans[li];
        const double tg = mma_only ? 1.0 : time_median([&] { grouped(fr, pl, pl.trapezoids); });
        std::printf("  %3zu: %4zu fronts, mc %5d, p %4d-%4d, %9.3g flops, grouped %8.3f ms %6.0f GFlop/s", li,
                    fr.size(), mcmax, pmin, pmax, fl, 1e3 * tg, fl / tg * 1e-9);
        // the same lower triangle in B x B tiles: one group per tile, then tiles of equal shape as one group
        const double tt = mma_only ? 1.0 : time_median([&] { grouped(fr, pl, pl.tiles); });
        const double tm = mma_only ? 1.0 : time_median([&] { grouped(fr, pl, pl.tiles, true); });
        // the recursive pieces, one cublasDgemm each, round-robin over the streams
        const double tr = mma_only ? 1.0 : time_median([&] {
          ck(cudaEventRecord(ev[0], st[0]), "cudaEventRecord");
          for (int i = 1; i < nstreams; ++i) ck(cudaStreamWaitEvent(st[i], ev[0], 0), "cudaStreamWaitEvent");
          for (size_t i = 0; i < pl.pieces.size(); ++i) {
            const Piece& b = pl.pieces[i];
            const Front& f = fr[b.front];
            ck(cublasDgemm(h[i % nstreams], CUBLAS_OP_N, CUBLAS_OP_T, b.mr, b.nc, f.p, &m1, L + pl.loff[b.front] + b.r0,
                           f.mc, W + pl.loff[b.front] + b.c0, f.mc, &one,
                           C + pl.coff[b.front] + b.r0 + static_cast<long long>(b.c0) * f.mc, f.mc),
               "cublasDgemm");
          }
          for (int i = 1; i < nstreams; ++i) {
            ck(cudaEventRecord(ev[1 + i], st[i]), "cudaEventRecord");
            ck(cudaStreamWaitEvent(st[0], ev[1 + i], 0), "cudaStreamWaitEvent");
          }
        });
        if (!mma_only)
          std::printf("  tiles %6.0f  tiles-merged %6.0f  pieces-streams %6.0f GFlop/s", fl / tt * 1e-9, fl / tm * 1e-9,
                      fl / tr * 1e-9);
        // the tensor-core kernel (update_mma.cu), one task per front, 64 and 128 tiles; checked against cuBLAS
        for (int bm : {64, 128}) {
          std::vector<ssids::detail::gpu::UpdateTask> tk;
          long long ntiles = 0;
          for (size_t f = 0; f < fr.size(); ++f) {
            ssids::detail::gpu::UpdateTask u{};
            u.c = C + pl.coff[f];
            u.l = L + pl.loff[f];
            u.w = W + pl.loff[f];
            u.ldc = u.ldl = u.ldw = fr[f].mc;
            u.nrow = u.ncol = fr[f].mc;
            u.kdim = fr[f].p;
            u.tile_begin = ntiles;
            ntiles += ssids::detail::gpu::update_mma_tiles(u.nrow, u.ncol, bm);
            tk.push_back(u);
          }
          const bool aligned16 = ssids::detail::gpu::update_mma_aligned16(tk.data(), static_cast<int>(tk.size()));
          const double tk_t = time_median([&] {
            ck(cudaMemcpyAsync(dTasks, tk.data(), tk.size() * sizeof(tk[0]), cudaMemcpyHostToDevice, st[0]), "H2D");
            ssids::detail::gpu::launch_update_mma(dTasks, static_cast<int>(tk.size()), ntiles, bm, st[0], aligned16);
            ck(cudaStreamSynchronize(st[0]), "sync");
          });
          // check: C = 0 - L W^T both ways, lower triangles compared
          double err = 0.0, big = 0.0;
          if (check) {
            const size_t nc = static_cast<size_t>(pl.coff.back() + static_cast<long long>(fr.back().mc) * fr.back().mc);
            std::vector<double> c1(nc), c2(nc);
            ck(cudaDeviceSynchronize(), "sync");
            ck(cudaMemset(C, 0, nc * sizeof(double)), "memset");
            ck(cudaDeviceSynchronize(), "sync");
            grouped(fr, pl, pl.trapezoids);
            ck(cudaDeviceSynchronize(), "sync");
            ck(cudaMemcpy(c1.data(), C, nc * sizeof(double), cudaMemcpyDeviceToHost), "D2H");
            ck(cudaMemset(C, 0, nc * sizeof(double)), "memset");
            ck(cudaDeviceSynchronize(), "sync");
            ck(cudaMemcpyAsync(dTasks, tk.data(), tk.size() * sizeof(tk[0]), cudaMemcpyHostToDevice, st[0]), "H2D");
            ssids::detail::gpu::launch_update_mma(dTasks, static_cast<int>(tk.size()), ntiles, bm, st[0], aligned16);
            ck(cudaDeviceSynchronize(), "sync");
            ck(cudaMemcpy(c2.data(), C, nc * sizeof(double), cudaMemcpyDeviceToHost), "D2H");
            for (size_t f = 0; f < fr.size(); ++f)
              for (long long j = 0; j < fr[f].mc; ++j)
                for (long long i = j; i < fr[f].mc; ++i) {
                  const size_t at = static_cast<size_t>(pl.coff[f] + i + j * fr[f].mc);
                  err = std::max(err, std::fabs(c1[at] - c2[at]));
                  big = std::max(big, std::fabs(c1[at]));
                }
          }
          std::printf("  mma%d %6.0f GFlop/s (%lld tiles)", bm, fl / tk_t * 1e-9, ntiles);
          if (check) std::printf(" (diff %.1e of %.1e)", err, big);
        }
        // cublasDsyrkx per front (the lower triangle of L W^T, symmetric), fronts round-robin over the streams
        const double tsy = mma_only ? 1.0 : time_median([&] {
          ck(cudaEventRecord(ev[0], st[0]), "cudaEventRecord");
          for (int i = 1; i < nstreams; ++i) ck(cudaStreamWaitEvent(st[i], ev[0], 0), "cudaStreamWaitEvent");
          for (size_t f = 0; f < fr.size(); ++f)
            ck(cublasDsyrkx(h[f % nstreams], CUBLAS_FILL_MODE_LOWER, CUBLAS_OP_N, fr[f].mc, fr[f].p, &m1, L + pl.loff[f],
                            fr[f].mc, W + pl.loff[f], fr[f].mc, &one, C + pl.coff[f], fr[f].mc),
               "cublasDsyrkx");
          for (int i = 1; i < nstreams; ++i) {
            ck(cudaEventRecord(ev[1 + i], st[i]), "cudaEventRecord");
            ck(cudaStreamWaitEvent(st[0], ev[1 + i], 0), "cudaStreamWaitEvent");
          }
        });
        // hybrid: recursive pieces of at least big x big as plain cublasDgemm on streams 1.., the rest in one
        // grouped call on stream 0 at the same time
        for (int big : {1024, 2048}) {
          if (mma_only) break;
          std::vector<Piece> rest;
          const double thy = time_median([&] {
            rest.clear();
            ck(cudaEventRecord(ev[0], st[0]), "cudaEventRecord");
            for (int i = 1; i < nstreams; ++i) ck(cudaStreamWaitEvent(st[i], ev[0], 0), "cudaStreamWaitEvent");
            int next = 0;
            for (const Piece& b : pl.pieces) {
              if (b.mr < big || b.nc < big || nstreams < 2) {
                rest.push_back(b);
                continue;
              }
              const Front& f = fr[b.front];
              ck(cublasDgemm(h[1 + next++ % (nstreams - 1)], CUBLAS_OP_N, CUBLAS_OP_T, b.mr, b.nc, f.p, &m1,
                             L + pl.loff[b.front] + b.r0, f.mc, W + pl.loff[b.front] + b.c0, f.mc, &one,
                             C + pl.coff[b.front] + b.r0 + static_cast<long long>(b.c0) * f.mc, f.mc),
                 "cublasDgemm");
            }
            if (!rest.empty()) grouped(fr, pl, rest);
            for (int i = 1; i < nstreams; ++i) {
              ck(cudaEventRecord(ev[1 + i], st[i]), "cudaEventRecord");
              ck(cudaStreamWaitEvent(st[0], ev[1 + i], 0), "cudaStreamWaitEvent");
            }
          });
          std::printf("  hybrid%d %6.0f", big, fl / thy * 1e-9);
        }
        if (!mma_only) std::printf("  syrkx %6.0f GFlop/s", fl / tsy * 1e-9);
        if (sweep) {
          const Front& f = fr[0];
          const double ts = time_median([&] {
            ck(cublasDgemm(h[0], CUBLAS_OP_N, CUBLAS_OP_T, f.mc, f.mc, f.p, &m1, L, f.mc, W, f.mc, &one, C, f.mc),
               "cublasDgemm");
          });
          std::printf("  square %8.3f ms %6.0f GFlop/s", 1e3 * ts, 2.0 * fl / ts * 1e-9);
        }
        std::printf("\n");
      }
    }
    for (int strategy = 0; strategy < 5 && !sweep; ++strategy) {
      run(strategy);  // warm-up
      ck(cudaDeviceSynchronize(), "warm-up");
      std::vector<double> t;
      for (int r = 0; r < repeat; ++r) {
        ck(cudaEventRecord(t0, st[0]), "cudaEventRecord");
        run(strategy);
        ck(cudaEventRecord(t1, st[0]), "cudaEventRecord");
        ck(cudaEventSynchronize(t1), "cudaEventSynchronize");
        float ms = 0.0f;
        ck(cudaEventElapsedTime(&ms, t0, t1), "cudaEventElapsedTime");
        t.push_back(1e-3 * ms);
      }
      const double tm = median(t);
      std::printf("  %-10s %8.4f s  %8.0f GFlop/s (useful)\n", names[strategy], tm, flops / tm * 1e-9);
    }
    // reference: square DGEMM n = 8192
    {
      const int n = 8192;
      double *A = nullptr, *B = nullptr, *Cr = nullptr;
      ck(cudaMalloc(&A, sizeof(double) * n * n), "cudaMalloc");
      ck(cudaMalloc(&B, sizeof(double) * n * n), "cudaMalloc");
      ck(cudaMalloc(&Cr, sizeof(double) * n * n), "cudaMalloc");
      ck(cudaMemset(A, 0x3F, sizeof(double) * n * n), "memset");
      ck(cudaMemset(B, 0x3F, sizeof(double) * n * n), "memset");
      std::vector<double> t;
      for (int r = 0; r < 4; ++r) {
        ck(cudaEventRecord(t0, st[0]), "cudaEventRecord");
        ck(cublasDgemm(h[0], CUBLAS_OP_N, CUBLAS_OP_N, n, n, n, &one, A, n, B, n, &m1, Cr, n), "cublasDgemm");
        ck(cudaEventRecord(t1, st[0]), "cudaEventRecord");
        ck(cudaEventSynchronize(t1), "cudaEventSynchronize");
        float ms = 0.0f;
        ck(cudaEventElapsedTime(&ms, t0, t1), "cudaEventElapsedTime");
        if (r > 0) t.push_back(1e-3 * ms);
      }
      std::printf("  cublasDgemm n = 8192: %.0f GFlop/s\n", 2.0 * n * n * double(n) / median(t) * 1e-9);
      cudaFree(A);
      cudaFree(B);
      cudaFree(Cr);
    }
    for (int i = 0; i < nstreams; ++i) {
      cublasDestroy(h[i]);
      cudaStreamDestroy(st[i]);
    }
    cudaFree(C);
    cudaFree(L);
    cudaFree(W);
    cudaFree(dA);
    cudaFree(dB);
    cudaFree(dC);
    cudaFree(dTasks);
  } catch (const ssids::Error& e) {
    std::fprintf(stderr, "%s\n", e.what());
    return 1;
  }
  return 0;
}
#else
int main() {
  std::fprintf(stderr, "bench_level_update: built without CUDA and cuBLAS\n");
  return 77;
}
#endif
