// bench_level_update.cpp — how to run the contribution-block updates of the GPU factorization: the cuBLAS
// part of factor_gpu.cu's run_updates (regions of at least 512 x 256), level by level, on the fronts an
// analysis plans (no delays), with four strategies:
//   sequential  one cublasDgemm per 512-column block of each front's lower trapezoid, in order on one
//               stream (what run_updates does today)
//   grouped     the same column blocks of a whole level in one cublasDgemmGroupedBatched call (one group per
//               block; the pointer arrays are uploaded inside the timed region, as the library would)
//   streams     the sequential calls spread over S streams (a cuBLAS handle each), fronts round-robin
//   square      one cublasDgemm per front on the whole mc x mc square (twice the flops, one call)
//   recursive   each front's lower triangle halved recursively into square-ish rectangles (the lower left
//               quarter is one DGEMM) down to diagonal blocks of at most B columns (computed whole); all
//               pieces of a level in one cublasDgemmGroupedBatched call
// The data are constant (a byte pattern): only the time matters. Rates count the useful flops of the lower
// trapezoids (Inform::num_flops' convention: p * mc^2 per front).
// Usage: bench_level_update [--repeat R] [--streams S] [--col-block B] SPEC   (e.g. gen:laplace3d:80)
// B: columns per DGEMM block of a lower trapezoid (default 512, the library's cb_gemm_col_block).
// Medians of R timed runs (after one warm-up) of all levels, CUDA events; device named; cuBLAS DGEMM n = 8192
// for reference.
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "analyse/symbolic.hpp"
#include "ssids/analyse.hpp"
#include "ssids/error.hpp"
#include "ssids/generate.hpp"

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

constexpr long long kMinArea = 512LL * 256;

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.empty() ? 0.0 : v[v.size() / 2];
}

}  // namespace

int main(int argc, char** argv) {
  int repeat = 3, nstreams = 4, col_block = 512;
  std::string spec;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--repeat" && i + 1 < argc) repeat = std::max(1, std::atoi(argv[++i]));
    else if (a == "--streams" && i + 1 < argc) nstreams = std::max(1, std::atoi(argv[++i]));
    else if (a == "--col-block" && i + 1 < argc) col_block = std::max(32, std::atoi(argv[++i]));
    else spec = a;
  }
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
      if (fr.empty()) continue;
      max_c = std::max(max_c, c);
      max_l = std::max(max_l, l);
      levels.push_back(std::move(fr));
    }
    cudaDeviceProp prop{};
    ck(cudaGetDeviceProperties(&prop, 0), "cudaGetDeviceProperties");
    double *C = nullptr, *L = nullptr, *W = nullptr;
    ck(cudaMalloc(&C, max_c * sizeof(double)), "cudaMalloc C");
    ck(cudaMalloc(&L, max_l * sizeof(double)), "cudaMalloc L");
    ck(cudaMalloc(&W, max_l * sizeof(double)), "cudaMalloc W");
    ck(cudaMemset(C, 0x3F, max_c * sizeof(double)), "memset");
    ck(cudaMemset(L, 0x3F, max_l * sizeof(double)), "memset");
    ck(cudaMemset(W, 0x3F, max_l * sizeof(double)), "memset");
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
      max_blocks = std::max(max_blocks, std::max(pl.trapezoids.size(), pl.pieces.size()));
      plans.push_back(std::move(pl));
    }
    const double** dA = nullptr;
    const double** dB = nullptr;
    double** dC = nullptr;
    ck(cudaMalloc(&dA, max_blocks * sizeof(double*)), "cudaMalloc");
    ck(cudaMalloc(&dB, max_blocks * sizeof(double*)), "cudaMalloc");
    ck(cudaMalloc(&dC, max_blocks * sizeof(double*)), "cudaMalloc");

    auto gemm_block = [&](cublasHandle_t hd, const std::vector<Front>& fr, const Plan& pl, const Block& b) {
      const Front& f = fr[b.front];
      ck(cublasDgemm(hd, CUBLAS_OP_N, CUBLAS_OP_T, f.mc - b.j0, b.jb, f.p, &m1, L + pl.loff[b.front] + b.j0, f.mc,
                     W + pl.loff[b.front] + b.j0, f.mc, &one, C + pl.coff[b.front] + b.j0 + static_cast<long long>(b.j0) * f.mc,
                     f.mc),
         "cublasDgemm");
    };
    // all pieces of a level in one grouped call (one group per piece); the pointer arrays are uploaded inside
    // the timed region, as the library would
    auto grouped = [&](const std::vector<Front>& fr, const Plan& pl, const std::vector<Piece>& pieces) {
      const size_t nb = pieces.size();
      std::vector<cublasOperation_t> ta(nb, CUBLAS_OP_N), tb(nb, CUBLAS_OP_T);
      std::vector<int> mm(nb), nn(nb), kk(nb), ld(nb), gs(nb, 1);
      std::vector<double> al(nb, -1.0), be(nb, 1.0);
      std::vector<const double*> pa(nb), pb(nb);
      std::vector<double*> pc(nb);
      for (size_t i = 0; i < nb; ++i) {
        const Piece& b = pieces[i];
        const Front& f = fr[b.front];
        mm[i] = b.mr;
        nn[i] = b.nc;
        kk[i] = f.p;
        ld[i] = f.mc;
        pa[i] = L + pl.loff[b.front] + b.r0;
        pb[i] = W + pl.loff[b.front] + b.c0;
        pc[i] = C + pl.coff[b.front] + b.r0 + static_cast<long long>(b.c0) * f.mc;
      }
      ck(cudaMemcpyAsync(dA, pa.data(), nb * sizeof(double*), cudaMemcpyHostToDevice, st[0]), "H2D");
      ck(cudaMemcpyAsync(dB, pb.data(), nb * sizeof(double*), cudaMemcpyHostToDevice, st[0]), "H2D");
      ck(cudaMemcpyAsync(dC, pc.data(), nb * sizeof(double*), cudaMemcpyHostToDevice, st[0]), "H2D");
      ck(cublasDgemmGroupedBatched(h[0], ta.data(), tb.data(), mm.data(), nn.data(), kk.data(), al.data(), dA,
                                   ld.data(), dB, ld.data(), be.data(), dC, ld.data(), static_cast<int>(nb), gs.data()),
         "cublasDgemmGroupedBatched");
      ck(cudaStreamSynchronize(st[0]), "sync");  // the host arrays above are released
    };
    auto run = [&](int strategy) {
      for (size_t li = 0; li < levels.size(); ++li) {
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
    for (int strategy = 0; strategy < 5; ++strategy) {
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
