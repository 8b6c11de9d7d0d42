// bench_solve.cpp — the GPU solve against its memory floor (issue 5).
//
// Usage: bench_solve [--repeat R] [--nrhs K] [--compact-blocks B] [--row-group G] [--json] SPEC...
// SPEC is a Matrix Market file or a gen: spec. For each problem: analyse, factorize on the GPU without and
// with presolve; then, with right-hand sides already on the device (Factors::solve_device on one stream),
// 2 warm-up solves and R timed ones per job (CUDA events around each call; medians; the full solve also by wall
// clock with its stream synchronized): full solve, forward,
// diagonal and backward, for nrhs = 1 and nrhs = K (default 32); and the full solve through the host entry
// point (right-hand sides copied in and out, wall clock). The floor of a single-RHS solve is the bytes of L
// read twice (forward and backward: 2 * nnz(L) * 8 bytes) at the measured device-to-device copy rate
// (cudaMemcpy of 1 GiB, read + write counted). Presolve pays off after (extra factor time) / (solve time
// saved) solves. --compact-blocks B: nodes of up to B row blocks are one task per sweep (default 8, the
// largest; 0: every node by row blocks and tiles, no node as one task). --row-group G: the forward sweep
// takes up to G row blocks after a node's pivots per task (default 4, the largest; 1: one per row block).
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#ifdef SSIDS_BENCH_HAVE_CUDA
#include <cuda_runtime.h>
#endif

#include "ssids/analyse.hpp"
#include "ssids/csc.hpp"
#include "ssids/error.hpp"
#include "ssids/factor.hpp"
#include "ssids/generate.hpp"
#include "factor/factor_gpu.hpp"

#include "bench_util.hpp"

namespace {

using ssids_bench::median;

#ifdef SSIDS_BENCH_HAVE_CUDA
void ck(cudaError_t e, const char* what) {
  if (e != cudaSuccess) throw ssids::Error(ssids::flag::cuda, std::string(what) + ": " + cudaGetErrorString(e));
}

/// Device-to-device copy rate in bytes/s (read + write), best of 5 copies of 1 GiB.
double copy_rate() {
  const size_t bytes = size_t(1) << 30;
  void *a = nullptr, *b = nullptr;
  ck(cudaMalloc(&a, bytes), "cudaMalloc");
  ck(cudaMalloc(&b, bytes), "cudaMalloc");
  cudaEvent_t e0, e1;
  cudaEventCreate(&e0);
  cudaEventCreate(&e1);
  double best = 1e30;
  for (int k = 0; k < 6; ++k) {
    cudaEventRecord(e0);
    cudaMemcpy(b, a, bytes, cudaMemcpyDeviceToDevice);
    cudaEventRecord(e1);
    cudaEventSynchronize(e1);
    float ms = 0;
    cudaEventElapsedTime(&ms, e0, e1);
    if (k > 0) best = std::min(best, 1e-3 * ms);
  }
  cudaEventDestroy(e0);
  cudaEventDestroy(e1);
  cudaFree(a);
  cudaFree(b);
  return 2.0 * bytes / best;
}

/// Median seconds of R solves of `job` on device-resident right-hand sides (CUDA events around the call); wall
/// (if given): the median wall-clock seconds of the call and a synchronization of its stream, as an application
/// that waits for the solution sees it.
double time_device(const ssids::Factors& f, ssids::SolveJob job, int nrhs, const std::vector<double>& b, int repeat,
                   double* wall = nullptr) {
  const int n = f.n();
  double* dx = nullptr;
  ck(cudaMalloc(&dx, b.size() * sizeof(double)), "cudaMalloc");
  cudaStream_t s;
  ck(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking), "cudaStreamCreate");
  cudaEvent_t e0, e1;
  cudaEventCreate(&e0);
  cudaEventCreate(&e1);
  std::vector<double> t, tw;
  ssids::Inform si;
  for (int k = 0; k < repeat + 2; ++k) {
    ck(cudaMemcpyAsync(dx, b.data(), b.size() * sizeof(double), cudaMemcpyHostToDevice, s), "copy");
    ck(cudaStreamSynchronize(s), "copy");
    const auto w0 = std::chrono::steady_clock::now();
    cudaEventRecord(e0, s);
    f.solve_device(job, nrhs, dx, n, s, si);
    cudaEventRecord(e1, s);
    ck(cudaEventSynchronize(e1), "solve");
    const auto w1 = std::chrono::steady_clock::now();
    float ms = 0;
    cudaEventElapsedTime(&ms, e0, e1);
    if (k >= 2) {
      t.push_back(1e-3 * ms);
      tw.push_back(std::chrono::duration<double>(w1 - w0).count());
    }
  }
  if (wall) *wall = median(tw);
  cudaEventDestroy(e0);
  cudaEventDestroy(e1);
  cudaStreamDestroy(s);
  cudaFree(dx);
  return median(t);
}
#endif

}  // namespace

int main(int argc, char** argv) {
  int repeat = 20, nrhs_many = 32;
  bool json = false;
  std::vector<std::string> specs;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--repeat" && i + 1 < argc) repeat = std::max(1, std::atoi(argv[++i]));
    else if (a == "--nrhs" && i + 1 < argc) nrhs_many = std::max(1, std::atoi(argv[++i]));
    else if (a == "--compact-blocks" && i + 1 < argc) ssids::detail::set_solve_compact_blocks(std::atoi(argv[++i]));
    else if (a == "--row-group" && i + 1 < argc) ssids::detail::set_solve_row_group(std::atoi(argv[++i]));
    else if (a == "--json") json = true;
    else if (a == "--help") {
      std::printf("usage: bench_solve [--repeat R] [--nrhs K] [--compact-blocks B] [--row-group G] [--json] SPEC...\n");
      return 0;
    } else specs.push_back(a);
  }
#ifndef SSIDS_BENCH_HAVE_CUDA
  (void)repeat;
  (void)nrhs_many;
  (void)json;
  std::fprintf(stderr, "bench_solve: built without CUDA\n");
  return 2;
#else
  int status = 0;
  const double bw = copy_rate();
  if (!json) std::printf("device-to-device copy: %.0f GB/s (read + write)\n", bw * 1e-9);
  for (const auto& spec : specs) {
    try {
      ssids::SymmetricMatrix a = ssids::load_symmetric(spec);
      const int n = a.n;
      ssids::Options o;
      o.backend = ssids::Backend::gpu;
      ssids::Inform ai;
      auto an = ssids::analyse(a.view(), o, ai);
      std::vector<double> b1(n), bk(static_cast<size_t>(n) * nrhs_many), ones(n, 1.0);
      ssids::symmetric_multiply(a, ones.data(), b1.data());
      for (int r = 0; r < nrhs_many; ++r) std::copy(b1.begin(), b1.end(), bk.begin() + static_cast<size_t>(r) * n);
      for (bool presolve : {false, true}) {
        o.presolve = presolve;
        ssids::Inform fi;
        auto f = ssids::factor(an, a.val.data(), ssids::Mode::indefinite, o, fi);
        const double floor_s = 2.0 * fi.num_factor * 8.0 / bw;
        double t_full_wall = 0;
        const double t_full = time_device(f, ssids::SolveJob::full, 1, b1, repeat, &t_full_wall);
        const double t_fwd = time_device(f, ssids::SolveJob::forward, 1, b1, repeat);
        const double t_diag = time_device(f, ssids::SolveJob::diagonal, 1, b1, repeat);
        const double t_bwd = time_device(f, ssids::SolveJob::backward, 1, b1, repeat);
        const double t_many = time_device(f, ssids::SolveJob::full, nrhs_many, bk, std::max(3, repeat / 4));
        std::vector<double> th;
        for (int k = 0; k < std::max(3, repeat / 2) + 1; ++k) {
          std::vector<double> x = b1;
          ssids::Inform si;
          f.solve(ssids::SolveJob::full, 1, x.data(), n, si);
          if (k > 0) th.push_back(si.time_solve);
        }
        const double t_host = median(th);
        if (json) {
          std::printf("{\"input\": \"%s\", \"n\": %d, \"num_factor\": %lld, \"presolve\": %d, \"time_gpu_presolve\": %.6g, "
                      "\"floor\": %.6g, \"full\": %.6g, \"full_wall\": %.6g, \"forward\": %.6g, \"diagonal\": %.6g, \"backward\": %.6g, "
                      "\"full_nrhs\": %d, \"full_many\": %.6g, \"full_host\": %.6g, \"copy_rate\": %.6g}\n",
                      spec.c_str(), n, static_cast<long long>(fi.num_factor), presolve ? 1 : 0, fi.time_gpu_presolve,
                      floor_s, t_full, t_full_wall, t_fwd, t_diag, t_bwd, nrhs_many, t_many, t_host, bw);
        } else {
          std::printf("%-26s n=%d nnz(L)=%.3g presolve=%d (%.2f ms): floor %.3f ms | device full %.3f ms (%.1fx floor, wall %.3f), "
                      "fwd %.3f, diag %.3f, bwd %.3f | nrhs %d: %.3f ms (%.3f ms/rhs) | host entry %.3f ms\n",
                      spec.c_str(), n, static_cast<double>(fi.num_factor), presolve ? 1 : 0, 1e3 * fi.time_gpu_presolve,
                      1e3 * floor_s, 1e3 * t_full, t_full / floor_s, 1e3 * t_full_wall, 1e3 * t_fwd, 1e3 * t_diag, 1e3 * t_bwd, nrhs_many,
                      1e3 * t_many, 1e3 * t_many / nrhs_many, 1e3 * t_host);
        }
      }
    } catch (const std::exception& e) {
      std::printf("%-26s error: %s\n", spec.c_str(), e.what());
      status = 1;
    }
  }
  return status;
#endif
}
