// bench_cudss.cpp — ssids's GPU factorization and solve against NVIDIA cuDSS on the same matrices, in the same
// process and on the same GPU, so that every comparison is a ratio measured side by side.
//
// Usage: bench_cudss [--repeat R] [--ordering matching|metis] [--no-presolve] [--json] SPEC...
// SPEC: a Matrix Market file (plain or .gz) or a gen: spec (ssids::load_symmetric).
// ssids: the program's defaults (matching ordering and its scaling; --ordering metis: METIS and no scaling),
//   Backend::gpu, Options::presolve as the library's default (--no-presolve: off). One analysis;
//   the first factorization in the process is reported on its own ("first"), then
//   a warm-up and R timed factorizations (median of Inform::time_factor, wall clock of the whole call), then R
//   R timed factorizations with the values already in device memory as cuDSS's ("dev fac", the like-for-like
//   comparison; the "factor" column uploads them from host memory), then R
//   timed solves with one right-hand side in host memory (median of Inform::time_solve), then R timed solves
//   with the right-hand side already in device memory as cuDSS's (Factors::solve_device followed by a stream
//   synchronization, wall clock: "dev solve", the like-for-like comparison). Backward error
//   (ssids::scaled_backward_error) of one solve without refinement; inertia from Inform.
// cuDSS: CUDSS_MTYPE_SYMMETRIC with the upper triangle in CSR (= our lower triangle in CSC, no conversion),
//   default configuration (reordering, matching and pivoting as cuDSS chooses; no iterative refinement); the
//   matrix and vectors already on the device. ANALYSIS once (timed), then a warm-up and R timed FACTORIZATION
//   calls, then R timed SOLVE calls (each cudssExecute followed by a stream synchronization, wall clock).
//   Inertia from CUDSS_DATA_INERTIA; backward error of the solution computed on the host as for ssids.
// Built only when cuDSS is found (-DCUDSS_ROOT=DIR with DIR/include/cudss.h and DIR/libcudss.so*);
// ../shared/device/cudss brings cuDSS onto the GPU host.
#include <cuda_runtime.h>
#include <cudss.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <stdexcept>
#include <string>
#include <vector>

#include "ssids/analyse.hpp"
#include "ssids/csc.hpp"
#include "ssids/error.hpp"
#include "ssids/factor.hpp"
#include "ssids/generate.hpp"

#include "../bench_util.hpp"

namespace {

using ssids_bench::median;
using ssids_bench::now;

void cuda_ok(cudaError_t e, const char* what) {
  if (e != cudaSuccess) throw std::runtime_error(std::string(what) + ": " + cudaGetErrorString(e));
}
void cudss_ok(cudssStatus_t s, const char* what) {
  if (s != CUDSS_STATUS_SUCCESS) throw std::runtime_error(std::string(what) + ": cuDSS status " + std::to_string(s));
}

struct Side {
  double analyse = 0, first = 0, factor = 0, dfactor = 0, solve = 0, dsolve = 0, berr = 0;
  int neg = -1, pos = -1, delays = -1;
  std::string error;
};

std::vector<double> rhs_of(const ssids::SymmetricMatrix& a) {
  std::vector<double> xt(a.n), b(a.n);
  for (int i = 0; i < a.n; ++i) xt[i] = 1.0 + (i % 7) / 8.0;
  if (a.n > 0) ssids::symmetric_multiply(a, xt.data(), b.data());
  return b;
}

Side run_ssids(const ssids::SymmetricMatrix& a, const std::vector<double>& b, int repeat, bool metis, bool presolve) {
  Side r;
  ssids::Options o;
  o.backend = ssids::Backend::gpu;
  o.presolve = presolve;
  if (!metis) {
    o.ordering = ssids::Ordering::matching;
    o.scaling = ssids::Scaling::from_ordering;
  }
  ssids::Inform ai;
  double t0 = now();
  ssids::Analysis an = ssids::analyse(a.view(), o, ai);
  r.analyse = now() - t0;
  std::vector<double> tf;
  ssids::Factors f;
  for (int k = 0; k < repeat + 2; ++k) {
    f = ssids::Factors();
    ssids::Inform fi;
    f = ssids::factor(an, a.val.data(), ssids::Mode::indefinite, o, fi);
    if (k == 0) r.first = fi.time_factor;
    if (k >= 2) tf.push_back(fi.time_factor);
    r.neg = fi.num_neg;
    r.pos = fi.num_pos;
    r.delays = fi.num_delay;
  }
  r.factor = median(tf);
  {  // the values in device memory, as cuDSS's
    double* dval = nullptr;
    cuda_ok(cudaMalloc(&dval, sizeof(double) * std::max<size_t>(1, a.val.size())), "cudaMalloc");
    std::vector<double> tdf;
    try {
      cuda_ok(cudaMemcpy(dval, a.val.data(), sizeof(double) * a.val.size(), cudaMemcpyHostToDevice), "cudaMemcpy");
      for (int k = 0; k < repeat + 1; ++k) {
        f = ssids::Factors();
        ssids::Inform fi;
        f = ssids::factor(an, dval, ssids::Mode::indefinite, o, fi);
        if (k > 0) tdf.push_back(fi.time_factor);
      }
    } catch (...) {
      cudaFree(dval);
      throw;
    }
    cudaFree(dval);
    r.dfactor = median(tdf);
  }
  std::vector<double> ts, x(b.size());
  for (int k = 0; k < repeat + 1; ++k) {
    x = b;
    ssids::Inform si;
    f.solve(ssids::SolveJob::full, 1, x.data(), std::max(1, a.n), si);
    if (k > 0) ts.push_back(si.time_solve);
  }
  r.solve = median(ts);
  r.berr = ssids::scaled_backward_error(a, x.data(), b.data(), 1, std::max(1, a.n));
  // the right-hand side in device memory, as cuDSS's
  double* dx = nullptr;
  cudaStream_t st = nullptr;
  cuda_ok(cudaMalloc(&dx, sizeof(double) * std::max(1, a.n)), "cudaMalloc");
  cuda_ok(cudaStreamCreate(&st), "cudaStreamCreate");
  try {
    std::vector<double> td;
    for (int k = 0; k < repeat + 1; ++k) {
      cuda_ok(cudaMemcpyAsync(dx, b.data(), sizeof(double) * a.n, cudaMemcpyHostToDevice, st), "cudaMemcpyAsync");
      cuda_ok(cudaStreamSynchronize(st), "cudaStreamSynchronize");
      ssids::Inform si;
      const double t0 = now();
      f.solve_device(ssids::SolveJob::full, 1, dx, std::max(1, a.n), st, si);
      cuda_ok(cudaStreamSynchronize(st), "ssids device solve");
      if (k > 0) td.push_back(now() - t0);
    }
    r.dsolve = median(td);
  } catch (...) {
    cudaStreamDestroy(st);
    cudaFree(dx);
    throw;
  }
  cudaStreamDestroy(st);
  cudaFree(dx);
  return r;
}

Side run_cudss(const ssids::SymmetricMatrix& a, const std::vector<double>& b, int repeat) {
  Side r;
  const int n = a.n;
  const long long nnz = a.ptr[n];
  int *dptr = nullptr, *drow = nullptr;
  double *dval = nullptr, *db = nullptr, *dx = nullptr;
  cuda_ok(cudaMalloc(&dptr, sizeof(int) * (n + 1)), "cudaMalloc");
  cuda_ok(cudaMalloc(&drow, sizeof(int) * std::max<long long>(1, nnz)), "cudaMalloc");
  cuda_ok(cudaMalloc(&dval, sizeof(double) * std::max<long long>(1, nnz)), "cudaMalloc");
  cuda_ok(cudaMalloc(&db, sizeof(double) * n), "cudaMalloc");
  cuda_ok(cudaMalloc(&dx, sizeof(double) * n), "cudaMalloc");
  std::vector<int> ptr(a.ptr.begin(), a.ptr.end()), row(a.row.begin(), a.row.end());
  cuda_ok(cudaMemcpy(dptr, ptr.data(), sizeof(int) * (n + 1), cudaMemcpyHostToDevice), "cudaMemcpy");
  cuda_ok(cudaMemcpy(drow, row.data(), sizeof(int) * nnz, cudaMemcpyHostToDevice), "cudaMemcpy");
  cuda_ok(cudaMemcpy(dval, a.val.data(), sizeof(double) * nnz, cudaMemcpyHostToDevice), "cudaMemcpy");
  cuda_ok(cudaMemcpy(db, b.data(), sizeof(double) * n, cudaMemcpyHostToDevice), "cudaMemcpy");
  cudaStream_t st;
  cuda_ok(cudaStreamCreate(&st), "cudaStreamCreate");
  cudssHandle_t h;
  cudssConfig_t cfg;
  cudssData_t data;
  cudssMatrix_t A, X, B;
  cudss_ok(cudssCreate(&h), "cudssCreate");
  cudss_ok(cudssSetStream(h, st), "cudssSetStream");
  cudss_ok(cudssConfigCreate(&cfg), "cudssConfigCreate");
  cudss_ok(cudssDataCreate(h, &data), "cudssDataCreate");
  // the lower triangle in CSC is the upper triangle in CSR
  cudss_ok(cudssMatrixCreateCsr(&A, n, n, nnz, dptr, nullptr, drow, dval, CUDA_R_32I, CUDA_R_32I, CUDA_R_64F,
                                CUDSS_MTYPE_SYMMETRIC, CUDSS_MVIEW_UPPER, CUDSS_BASE_ZERO),
           "cudssMatrixCreateCsr");
  cudss_ok(cudssMatrixCreateDn(&X, n, 1, n, dx, CUDA_R_64F, CUDSS_LAYOUT_COL_MAJOR), "cudssMatrixCreateDn");
  cudss_ok(cudssMatrixCreateDn(&B, n, 1, n, db, CUDA_R_64F, CUDSS_LAYOUT_COL_MAJOR), "cudssMatrixCreateDn");
  auto phase = [&](int ph, const char* what) {
    const double t0 = now();
    cudss_ok(cudssExecute(h, ph, cfg, data, A, X, B), what);
    cuda_ok(cudaStreamSynchronize(st), what);
    return now() - t0;
  };
  r.analyse = phase(CUDSS_PHASE_ANALYSIS, "cuDSS analysis");
  std::vector<double> tf, ts;
  for (int k = 0; k < repeat + 2; ++k) {
    const double t = phase(CUDSS_PHASE_FACTORIZATION, "cuDSS factorization");
    if (k == 0) r.first = t;
    if (k >= 2) tf.push_back(t);
  }
  for (int k = 0; k < repeat + 1; ++k) {
    const double t = phase(CUDSS_PHASE_SOLVE, "cuDSS solve");
    if (k > 0) ts.push_back(t);
  }
  r.factor = median(tf);
  r.solve = median(ts);
  int inertia[2] = {-1, -1};
  size_t written = 0;
  if (cudssDataGet(h, data, CUDSS_DATA_INERTIA, inertia, sizeof(inertia), &written) == CUDSS_STATUS_SUCCESS) {
    r.pos = inertia[0];
    r.neg = inertia[1];
  }
  std::vector<double> x(n);
  cuda_ok(cudaMemcpy(x.data(), dx, sizeof(double) * n, cudaMemcpyDeviceToHost), "cudaMemcpy");
  r.berr = ssids::scaled_backward_error(a, x.data(), b.data(), 1, std::max(1, n));
  cudssMatrixDestroy(A);
  cudssMatrixDestroy(X);
  cudssMatrixDestroy(B);
  cudssDataDestroy(h, data);
  cudssConfigDestroy(cfg);
  cudssDestroy(h);
  cudaStreamDestroy(st);
  cudaFree(dptr);
  cudaFree(drow);
  cudaFree(dval);
  cudaFree(db);
  cudaFree(dx);
  return r;
}

}  // namespace

int main(int argc, char** argv) {
  int repeat = 5;
  bool metis = false, json = false, presolve = ssids::Options().presolve;
  std::vector<std::string> specs;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--repeat" && i + 1 < argc) repeat = std::max(1, std::atoi(argv[++i]));
    else if (a == "--ordering" && i + 1 < argc) metis = std::string(argv[++i]) == "metis";
    else if (a == "--json") json = true;
    else if (a == "--no-presolve") presolve = false;
    else if (a == "--help" || a == "-h") {
      std::printf("usage: bench_cudss [--repeat R] [--ordering matching|metis] [--no-presolve] [--json] SPEC...\n");
      return 0;
    } else specs.push_back(a);
  }
  int dev = 0;
  cudaDeviceProp prop;
  if (cudaGetDevice(&dev) != cudaSuccess || cudaGetDeviceProperties(&prop, dev) != cudaSuccess) {
    std::fprintf(stderr, "bench_cudss: no CUDA device\n");
    return 1;
  }
  if (!json) {
    std::printf("# %s; ssids %s ordering%s; times in ms (median of %d); ratio = ssids / cuDSS\n", prop.name,
                metis ? "METIS" : "matching", presolve ? ", presolve" : ", no presolve", repeat);
    std::printf("%-28s %8s | %8s %8s %8s %8s %6s %6s | %7s %7s %7s %6s | %14s %14s | %8s %8s | %6s\n", "matrix",
                "n", "first", "factor", "dev fac", "cuDSS", "ratio", "dev r", "solve", "dev sol", "cuDSS", "ratio", "neg ssids", "neg cuDSS",
                "berr", "cuDSS", "delays");
  }
  int status = 0;
  for (const std::string& spec : specs) {
    std::string name = spec.substr(spec.find_last_of('/') + 1);
    if (name.size() > 7 && name.compare(name.size() - 7, 7, ".mtx.gz") == 0) name.resize(name.size() - 7);
    Side us, them;
    try {
      ssids::SymmetricMatrix a = ssids::load_symmetric(spec);
      const std::vector<double> b = rhs_of(a);
      try {
        us = run_ssids(a, b, repeat, metis, presolve);
      } catch (const std::exception& e) {
        us.error = e.what();
      }
      try {
        them = run_cudss(a, b, repeat);
      } catch (const std::exception& e) {
        them.error = e.what();
      }
      if (json) {
        std::printf("{\"input\": \"%s\", \"n\": %d, \"gpu\": \"%s\", \"ssids_first_factor\": %.6e, "
                    "\"ssids_factor\": %.6e, \"ssids_device_factor\": %.6e, \"cudss_factor\": %.6e, \"ssids_solve\": %.6e, \"ssids_device_solve\": %.6e, "
                    "\"cudss_solve\": %.6e, "
                    "\"ssids_analyse\": %.6e, \"cudss_analyse\": %.6e, \"ssids_num_neg\": %d, \"cudss_num_neg\": %d, "
                    "\"ssids_berr\": %.3e, \"cudss_berr\": %.3e, \"ssids_delays\": %d, \"error\": \"%s%s\"}\n",
                    name.c_str(), a.n, prop.name, us.first, us.factor, us.dfactor, them.factor, us.solve, us.dsolve, them.solve, us.analyse,
                    them.analyse, us.neg, them.neg, us.berr, them.berr, us.delays, us.error.c_str(),
                    them.error.c_str());
      } else {
        auto ratio = [](double x, double y) { return y > 0 ? x / y : 0.0; };
        char neg_us[32], neg_them[32];
        std::snprintf(neg_us, sizeof neg_us, "%d", us.neg);
        std::snprintf(neg_them, sizeof neg_them, "%d", them.neg);
        std::printf("%-28s %8d | %8.3f %8.3f %8.3f %8.3f %6.2f %6.2f | %7.3f %7.3f %7.3f %6.2f | %14s %14s | %8.1e %8.1e | %6d\n",
                    name.c_str(), a.n, 1e3 * us.first, 1e3 * us.factor, 1e3 * us.dfactor, 1e3 * them.factor,
                    ratio(us.factor, them.factor), ratio(us.dfactor, them.factor), 1e3 * us.solve, 1e3 * us.dsolve, 1e3 * them.solve,
                    ratio(us.dsolve, them.solve),
                    neg_us, neg_them, us.berr, them.berr, us.delays);
        if (!us.error.empty()) std::printf("  ssids: %s\n", us.error.c_str());
        if (!them.error.empty()) std::printf("  cuDSS: %s\n", them.error.c_str());
      }
      if (!us.error.empty() || !them.error.empty()) status = 1;
    } catch (const std::exception& e) {
      std::printf("%-28s error: %s\n", name.c_str(), e.what());
      status = 1;
    }
    std::fflush(stdout);
  }
  return status;
}
