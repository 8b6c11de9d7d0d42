// bench_tridiag.cpp — the GPU partitioned cyclic reduction against cuSPARSE's gtsv2_nopivot on the same GPU.
// Usage: bench_tridiag [N=10000000] [REPEATS=11] [BLOCK_ROWS=512]
// A diagonally dominant random tridiagonal system of order N and one right-hand side, all on the device.
// Timed with CUDA events after one warm-up, medians of REPEATS:
//   ours full   = factor_device (coefficient reduction + pivot check, which synchronizes) + solve_device;
//   ours solve  = solve_device alone, the reduction reused;
//   ours one-shot = tridiag::solve_once_device (chunks of 8 rows per thread, nothing stored; synchronizes once);
//   cuSPARSE    = cusparseDgtsv2_nopivot (its buffer allocated outside the timing).
// The right-hand side is restored (device copy, untimed) before each run. GB/s counts the unavoidable traffic
// of a tridiagonal solve, 40 N bytes (dl, d, du, b read, x written) for the full solves and 16 N (b, x) for the
// solve alone, and is shown against the 4.2 TB/s device-copy ceiling of an H200; "model" also shows our solve's
// actual traffic (88 N bytes: d, two multipliers, three final coefficients, two spikes read, y written and
// re-read, x written). Each result is checked by its backward error.
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <string>
#include <vector>

#include "ssids/error.hpp"
#include "ssids/tridiag.hpp"

#ifdef SSIDS_BENCH_HAVE_CUDA
#include <cuda_runtime.h>
#ifdef SSIDS_BENCH_HAVE_CUSPARSE
#include <cusparse.h>
#endif
#endif

#if defined(SSIDS_BENCH_HAVE_CUDA) && defined(SSIDS_BENCH_HAVE_CUSPARSE)

namespace {

double median(std::vector<double> t) {
  std::sort(t.begin(), t.end());
  return t[t.size() / 2];
}

void ck(cudaError_t e, const char* what) {
  if (e != cudaSuccess) throw ssids::Error(ssids::flag::cuda, std::string(what) + ": " + cudaGetErrorString(e));
}
void cks(cusparseStatus_t e, const char* what) {
  if (e != CUSPARSE_STATUS_SUCCESS) throw ssids::Error(ssids::flag::cuda, std::string(what) + ": cuSPARSE error " + std::to_string(int(e)));
}

constexpr double kCeiling = 4.2e12;  // bytes/s, device copy on an H200

void report(const char* name, double sec, double bytes, double berr) {
  std::printf("%-28s %10.3f ms  %8.1f GB/s  %5.1f%% of 4.2 TB/s   backward error %.2e\n", name, sec * 1e3,
              bytes / sec / 1e9, 100.0 * bytes / sec / kCeiling, berr);
}

}  // namespace

int main(int argc, char** argv) {
  const long long n = argc > 1 ? std::atoll(argv[1]) : 10000000LL;
  const int reps = argc > 2 ? std::max(1, std::atoi(argv[2])) : 11;
  const int bsz = argc > 3 ? std::atoi(argv[3]) : 512;
  try {
    int devices = 0;
    if (cudaGetDeviceCount(&devices) != cudaSuccess || devices == 0) {
      std::printf("bench_tridiag: no CUDA device, nothing to measure\n");
      return 0;
    }
    cudaDeviceProp prop;
    ck(cudaGetDeviceProperties(&prop, 0), "cudaGetDeviceProperties");
    std::printf("bench_tridiag: %s, n = %lld, block_rows = %d, median of %d after 1 warm-up\n", prop.name, n, bsz,
                reps);
    std::mt19937_64 g(42);
    std::uniform_real_distribution<double> u(-1.0, 1.0), p(0.0, 1.0);
    std::vector<double> dl(n), d(n), du(n), b(n);
    for (long long i = 0; i < n; ++i) {
      dl[i] = i > 0 ? u(g) : 0.0;
      du[i] = i + 1 < n ? u(g) : 0.0;
      d[i] = (std::abs(dl[i]) + std::abs(du[i])) * (1.5 + p(g)) + 0.1;
      b[i] = u(g);
    }
    const std::size_t bytes = n * sizeof(double);
    double *ddl, *dd, *ddu, *db0, *db;
    ck(cudaMalloc(&ddl, bytes), "cudaMalloc");
    ck(cudaMalloc(&dd, bytes), "cudaMalloc");
    ck(cudaMalloc(&ddu, bytes), "cudaMalloc");
    ck(cudaMalloc(&db0, bytes), "cudaMalloc");
    ck(cudaMalloc(&db, bytes), "cudaMalloc");
    ck(cudaMemcpy(ddl, dl.data(), bytes, cudaMemcpyHostToDevice), "H2D");
    ck(cudaMemcpy(dd, d.data(), bytes, cudaMemcpyHostToDevice), "H2D");
    ck(cudaMemcpy(ddu, du.data(), bytes, cudaMemcpyHostToDevice), "H2D");
    ck(cudaMemcpy(db0, b.data(), bytes, cudaMemcpyHostToDevice), "H2D");
    cudaStream_t st;
    ck(cudaStreamCreate(&st), "cudaStreamCreate");
    cudaEvent_t e0, e1;
    ck(cudaEventCreate(&e0), "cudaEventCreate");
    ck(cudaEventCreate(&e1), "cudaEventCreate");
    std::vector<double> x(n);
    auto berr = [&]() {
      ck(cudaMemcpy(x.data(), db, bytes, cudaMemcpyDeviceToHost), "D2H");
      return ssids::tridiag::backward_error(static_cast<ssids::index_t>(n), dl.data(), d.data(), du.data(), 1,
                                            x.data(), n, b.data(), n);
    };
    auto timed = [&](auto&& body) {
      std::vector<double> t;
      for (int r = 0; r <= reps; ++r) {
        ck(cudaMemcpyAsync(db, db0, bytes, cudaMemcpyDeviceToDevice, st), "D2D");
        ck(cudaEventRecord(e0, st), "cudaEventRecord");
        body();
        ck(cudaEventRecord(e1, st), "cudaEventRecord");
        ck(cudaEventSynchronize(e1), "cudaEventSynchronize");
        float ms = 0;
        ck(cudaEventElapsedTime(&ms, e0, e1), "cudaEventElapsedTime");
        if (r > 0) t.push_back(ms * 1e-3);
      }
      return median(t);
    };
    ssids::tridiag::Options o;
    o.block_rows = bsz;
    ssids::tridiag::Solver s;
    const double t_full = timed([&] {
      s = ssids::tridiag::Solver::factor_device(static_cast<ssids::index_t>(n), ddl, dd, ddu, st, o);
      s.solve_device(1, db, n, st);
    });
    report("ours: reduction + solve", t_full, 40.0 * n, berr());
    const double t_solve = timed([&] { s.solve_device(1, db, n, st); });
    report("ours: solve (reduction reused)", t_solve, 16.0 * n, berr());
    std::printf("%-28s %10s     %8.1f GB/s  %5.1f%% of 4.2 TB/s   (model: 88 N bytes)\n", "  ours: solve, actual traffic",
                "", 88.0 * n / t_solve / 1e9, 100.0 * 88.0 * n / t_solve / kCeiling);
    const double t_once = timed([&] {
      ssids::tridiag::solve_once_device(static_cast<ssids::index_t>(n), ddl, dd, ddu, db, st, o);
    });
    report("ours: one-shot (chunked)", t_once, 40.0 * n, berr());
    std::printf("%-28s %10s     %8.1f GB/s  %5.1f%% of 4.2 TB/s   (model: ~130 N bytes with the norm pass)\n",
                "  ours: one-shot, traffic", "", 130.0 * n / t_once / 1e9, 100.0 * 130.0 * n / t_once / kCeiling);

    cusparseHandle_t h;
    cks(cusparseCreate(&h), "cusparseCreate");
    cks(cusparseSetStream(h, st), "cusparseSetStream");
    size_t buf_bytes = 0;
    cks(cusparseDgtsv2_nopivot_bufferSizeExt(h, static_cast<int>(n), 1, ddl, dd, ddu, db, static_cast<int>(n),
                                             &buf_bytes),
        "gtsv2_nopivot_bufferSizeExt");
    void* buf = nullptr;
    ck(cudaMalloc(&buf, std::max<size_t>(buf_bytes, 1)), "cudaMalloc");
    const double t_cus = timed([&] {
      cks(cusparseDgtsv2_nopivot(h, static_cast<int>(n), 1, ddl, dd, ddu, db, static_cast<int>(n), buf),
          "gtsv2_nopivot");
    });
    report("cuSPARSE gtsv2_nopivot", t_cus, 40.0 * n, berr());
    std::printf("ratio cuSPARSE / ours: full %.2fx, one-shot %.2fx, solve alone %.2fx (> 1: ours faster)\n",
                t_cus / t_full, t_cus / t_once, t_cus / t_solve);
    cusparseDestroy(h);
    cudaFree(buf);
    cudaFree(ddl);
    cudaFree(dd);
    cudaFree(ddu);
    cudaFree(db0);
    cudaFree(db);
    cudaEventDestroy(e0);
    cudaEventDestroy(e1);
    cudaStreamDestroy(st);
  } catch (const ssids::Error& e) {
    std::fprintf(stderr, "bench_tridiag: %s\n", e.what());
    return 1;
  }
  return 0;
}

#else

int main() {
  std::printf("bench_tridiag: built without CUDA (or cuSPARSE), nothing to measure\n");
  return 0;
}

#endif
