// bench_factor.cpp — end-to-end rate of analyse / factor / solve over a list of sparse problems.
//
// Usage: bench_factor [--backend cpu|gpu|auto] [--threads T] [--repeat R] [--posdef] [--json]
//                     [--dgemm-n N] [--print-level P]
//                     [--amalgamation-zeros Z] SPEC...
// SPEC is a Matrix Market file (plain or .gz) or a gen: spec (see ssids::load_symmetric), e.g.
// gen:laplace3d:50. For each problem: read/generate (timed once), analyse (timed once), one warm-up
// factorization, then R timed factorizations (median and min; the previous factors are released
// before each timed call, outside the timing), then R timed full solves with one right-hand side
// b = A*1 (median; copying b into x is outside the timing). The backward error is
// ssids::scaled_backward_error of the x returned by solve_refined with 0 refinement steps.
// flops and nnz(L) are the actual values from the factorization's Inform; GFlop/s = flops / median
// factor time. Reference: square dgemm (n = 4000 unless --dgemm-n) through the Fortran BLAS with
// T threads (omp_set_num_threads(T); the library itself runs BLAS single-threaded inside its own
// parallel regions), best of 3 runs, 2 n^3 flops. GPU reference (backend gpu/auto, built with cuBLAS):
// cublasDgemm n = 8192 (--gpu-dgemm-n), median of 5 after a warm-up, CUDA events; GPU rows report their rate
// against it, and their device time split (assembly / dense / update / other, Inform::time_gpu_*), and the rate
// of the contribution-block updates: their flops as planned by the analysis (exact when nothing is delayed)
// over the update time.
// Times are wall-clock seconds (std::chrono::steady_clock). A library error (ssids::Error) for one
// problem is reported in its row and the run continues; the exit status is 1 if any problem failed.
#include <omp.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <string>
#include <vector>

#ifdef SSIDS_BENCH_HAVE_CUBLAS
#include <cublas_v2.h>
#include <cuda_runtime.h>
#endif

#include "analyse/symbolic.hpp"
#include "factor/factor_gpu.hpp"
#include "common/blas.hpp"
#include "ssids/analyse.hpp"
#include "ssids/csc.hpp"
#include "ssids/error.hpp"
#include "ssids/factor.hpp"
#include "ssids/generate.hpp"
#include "ssids/refine.hpp"

#include "bench_util.hpp"

namespace {

using ssids_bench::median;
using ssids_bench::now;

struct Config {
  ssids::Backend backend = ssids::Backend::cpu;
  int threads = 0;  // 0: omp_get_max_threads()
  int repeat = 3;
  bool posdef = false;
  bool json = false;
  int print_level = 0;  // Options::print_level (phase times of every factorization on stderr)
  double amalgamation_zeros = -1.0;  // Options::amalgamation_zeros; < 0: the library's default
  int dgemm_n = 4000;  // 0: skip the reference
  int gpu_dgemm_n = 8192;  // 0: skip the GPU reference
  bool x_hash = false;     // print a hash of the solution's bits (to compare builds bitwise)
  bool late_updates = false;     // GPU: contribution updates built after each dense phase (--late-updates)
  double plain_gemm_work = -1.0;  // GPU: multiply-adds from which update pieces are plain DGEMMs (< 0: default)
  std::vector<std::string> specs;
};

struct Result {
  std::string name;
  bool ok = false;
  int error_code = 0;
  std::string error_message;
  long long n = 0, nnz = 0, num_factor_pred = 0, num_factor = 0, num_flops = 0;
  double time_read = 0, time_analyse = 0, time_factor_median = 0, time_factor_min = 0, gflops = 0;
  int num_delay = 0, num_two = 0, num_neg = 0;
  unsigned long long x_hash = 0;  // FNV-1a of the bytes of x
  double time_solve_median = 0, backward_error = 0;
  double gpu_asm = 0, gpu_dense = 0, gpu_update = 0, gpu_other = 0;  // device time split, last timed run
  double update_flops = 0;  // contribution-block updates as planned by the analysis (exact without delays)
  std::string backend;
};

/// Flops of the contribution-block updates C -= L2 D L2^T (every front's p eliminated columns, none delayed),
/// counted as Inform::num_flops counts them: per pivot, the square of the rows below it, here the
/// contribution block's (m - p)^2.
double planned_update_flops(const ssids::detail::Symbolic& s) {
  double f = 0.0;
  for (ssids::index_t nd = 0; nd < s.nsup; ++nd) {
    const double m = static_cast<double>(s.nrow(nd)), p = static_cast<double>(s.ncol(nd));
    f += p * (m - p) * (m - p);
  }
  return f;
}

const char* backend_name(ssids::Backend b) {
  switch (b) {
    case ssids::Backend::cpu: return "cpu";
    case ssids::Backend::gpu: return "gpu";
    case ssids::Backend::automatic: return "auto";
  }
  return "?";
}

std::string json_string(const std::string& s) {
  std::string out = "\"";
  for (char c : s) {
    switch (c) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\n': out += "\\n"; break;
      case '\t': out += "\\t"; break;
      default:
        if (static_cast<unsigned char>(c) < 0x20) {
          char buf[8];
          std::snprintf(buf, sizeof buf, "\\u%04x", static_cast<unsigned>(static_cast<unsigned char>(c)));
          out += buf;
        } else {
          out += c;
        }
    }
  }
  return out + "\"";
}

/// Name shown for a spec: a gen: spec as given, a file by its base name.
std::string display_name(const std::string& spec) {
  if (spec.rfind("gen:", 0) == 0) return spec;
  const size_t slash = spec.find_last_of('/');
  return slash == std::string::npos ? spec : spec.substr(slash + 1);
}

/// Best-of-3 square dgemm rate in GFlop/s with the current OpenMP thread count.
double dgemm_gflops(int n) {
  const size_t nn = static_cast<size_t>(n) * n;
  std::vector<double> a(nn), b(nn), c(nn, 0.0);
  for (size_t i = 0; i < nn; ++i) {
    a[i] = 0.5 + 1e-3 * static_cast<double>(i % 97);
    b[i] = 0.25 - 1e-3 * static_cast<double>(i % 89);
  }
  double best = 1e300;
  for (int r = 0; r < 3; ++r) {
    const double t0 = now();
    ssids::blas::gemm('N', 'N', n, n, n, 1.0, a.data(), n, b.data(), n, 0.0, c.data(), n);
    best = std::min(best, now() - t0);
  }
  return 2.0 * n * static_cast<double>(n) * n / best * 1e-9;
}

/// Median-of-5 cuBLAS DGEMM rate (n x n, after a warm-up, CUDA events) in GFlop/s; 0 without cuBLAS, without a
/// device, or on any CUDA/cuBLAS error.
double gpu_dgemm_gflops(int n) {
#ifdef SSIDS_BENCH_HAVE_CUBLAS
  if (n <= 0) return 0.0;
  int count = 0;
  if (cudaGetDeviceCount(&count) != cudaSuccess || count == 0) {
    cudaGetLastError();
    return 0.0;
  }
  const size_t bytes = static_cast<size_t>(n) * n * sizeof(double);
  double *a = nullptr, *b = nullptr, *c = nullptr;
  cublasHandle_t h = nullptr;
  cudaEvent_t e0 = nullptr, e1 = nullptr;
  double rate = 0.0;
  bool ok = cudaMalloc(&a, bytes) == cudaSuccess && cudaMalloc(&b, bytes) == cudaSuccess &&
            cudaMalloc(&c, bytes) == cudaSuccess && cudaMemset(a, 0x3f, bytes) == cudaSuccess &&
            cudaMemset(b, 0x3f, bytes) == cudaSuccess && cublasCreate(&h) == CUBLAS_STATUS_SUCCESS &&
            cudaEventCreate(&e0) == cudaSuccess && cudaEventCreate(&e1) == cudaSuccess;
  std::vector<double> t;
  const double one = 1.0, zero = 0.0;
  for (int r = 0; ok && r < 6; ++r) {
    ok = cudaEventRecord(e0) == cudaSuccess &&
         cublasDgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, n, n, n, &one, a, n, b, n, &zero, c, n) == CUBLAS_STATUS_SUCCESS &&
         cudaEventRecord(e1) == cudaSuccess && cudaEventSynchronize(e1) == cudaSuccess;
    float ms = 0.0f;
    if (ok && r > 0 && cudaEventElapsedTime(&ms, e0, e1) == cudaSuccess) t.push_back(ms * 1e-3);
  }
  if (ok && !t.empty()) rate = 2.0 * n * static_cast<double>(n) * n / median(t) * 1e-9;
  if (h) cublasDestroy(h);
  if (e0) cudaEventDestroy(e0);
  if (e1) cudaEventDestroy(e1);
  cudaFree(a);
  cudaFree(b);
  cudaFree(c);
  cudaGetLastError();
  return rate;
#else
  (void)n;
  return 0.0;
#endif
}

Result run_problem(const std::string& spec, const Config& cfg) {
  Result res;
  res.name = display_name(spec);
  try {
    double t0 = now();
    const ssids::SymmetricMatrix a = ssids::load_symmetric(spec);
    res.time_read = now() - t0;
    res.n = a.n;
    res.nnz = a.nnz();

    ssids::Options opt;
    opt.backend = cfg.backend;
    opt.num_threads = cfg.threads;
    opt.print_level = cfg.print_level;
    if (cfg.amalgamation_zeros >= 0.0) opt.amalgamation_zeros = cfg.amalgamation_zeros;
    const ssids::Mode mode = cfg.posdef ? ssids::Mode::posdef : ssids::Mode::indefinite;

    ssids::Inform ainf;
    t0 = now();
    const ssids::Analysis an = ssids::analyse(a.view(), opt, ainf);
    res.time_analyse = now() - t0;
    res.num_factor_pred = an.num_factor();
    res.update_flops = planned_update_flops(an.symbolic());

    ssids::Inform finf;
    ssids::Factors f = ssids::factor(an, a.val.data(), mode, opt, finf);  // warm-up
    std::vector<double> tf;
    for (int r = 0; r < cfg.repeat; ++r) {
      f = ssids::Factors();  // release the previous factors outside the timing
      finf = ssids::Inform();
      t0 = now();
      f = ssids::factor(an, a.val.data(), mode, opt, finf);
      tf.push_back(now() - t0);
    }
    res.time_factor_median = median(tf);
    res.time_factor_min = *std::min_element(tf.begin(), tf.end());
    res.num_factor = finf.num_factor;
    res.num_flops = finf.num_flops;
    res.gflops = res.time_factor_median > 0 ? static_cast<double>(res.num_flops) / res.time_factor_median * 1e-9 : 0.0;
    res.num_delay = finf.num_delay;
    res.num_two = finf.num_two;
    res.num_neg = finf.num_neg;
    res.backend = backend_name(f.backend());
    res.gpu_asm = finf.time_gpu_assembly;
    res.gpu_dense = finf.time_gpu_dense;
    res.gpu_update = finf.time_gpu_update;
    res.gpu_other = finf.time_gpu_other;

    const size_t n = static_cast<size_t>(a.n);
    std::vector<double> ones(n, 1.0), b(n), x(n);
    ssids::symmetric_multiply(a, ones.data(), b.data());
    ssids::Inform sinf;
    std::vector<double> ts;
    for (int r = 0; r < cfg.repeat; ++r) {
      x = b;
      t0 = now();
      f.solve(ssids::SolveJob::full, 1, x.data(), a.n, sinf);
      ts.push_back(now() - t0);
    }
    res.time_solve_median = median(ts);

    ssids::RefineOptions ropt;
    ropt.max_steps = 0;
    ssids::solve_refined(a, f, 1, b.data(), a.n, x.data(), a.n, ropt, sinf);
    res.backward_error = ssids::scaled_backward_error(a, x.data(), b.data(), 1, a.n);
    res.x_hash = 1469598103934665603ULL;
    for (const double v : x) {
      unsigned long long bits = 0;
      std::memcpy(&bits, &v, sizeof bits);
      for (int k = 0; k < 8; ++k) res.x_hash = (res.x_hash ^ ((bits >> (8 * k)) & 0xff)) * 1099511628211ULL;
    }
    res.ok = true;
  } catch (const ssids::Error& e) {
    res.error_code = e.code();
    res.error_message = e.what();
  } catch (const std::bad_alloc&) {
    res.error_code = ssids::flag::allocation;
    res.error_message = "allocation failed (std::bad_alloc)";
  } catch (const std::exception& e) {
    res.error_code = ssids::flag::unknown;
    res.error_message = e.what();
  }
  return res;
}

void print_json(const Result& r, int threads) {
  if (!r.ok) {
    std::printf("{\"name\":%s,\"error\":%d,\"message\":%s,\"threads\":%d}\n", json_string(r.name).c_str(),
                r.error_code, json_string(r.error_message).c_str(), threads);
    return;
  }
  std::printf(
      "{\"name\":%s,\"n\":%lld,\"nnz\":%lld,\"num_factor_predicted\":%lld,\"num_factor\":%lld,\"num_flops\":%lld,"
      "\"time_read\":%.6g,\"time_analyse\":%.6g,\"time_factor_median\":%.6g,\"time_factor_min\":%.6g,"
      "\"gflops\":%.6g,\"num_delay\":%d,\"num_two\":%d,\"num_neg\":%d,\"time_solve_median\":%.6g,"
      "\"backward_error\":%.3e,\"backend\":%s,\"threads\":%d}\n",
      json_string(r.name).c_str(), r.n, r.nnz, r.num_factor_pred, r.num_factor, r.num_flops, r.time_read,
      r.time_analyse, r.time_factor_median, r.time_factor_min, r.gflops, r.num_delay, r.num_two, r.num_neg,
      r.time_solve_median, r.backward_error, json_string(r.backend).c_str(), threads);
}

void print_header(int w) {
  std::printf("%-*s %9s %10s %11s %11s %10s %8s %8s %8s %8s %7s %6s %6s %8s %8s %9s %8s %s\n", w, "name", "n",
              "nnz(A)", "nnz(L)pred", "nnz(L)", "flops", "t_read", "t_anal", "t_fact", "t_fmin", "GFlop/s", "%dgemm",
              "delay", "2x2", "neg", "t_solve", "bwd_err", "backend");
}

void print_row(const Result& r, int w, double ref_gflops, double gpu_ref_gflops, bool x_hash) {
  if (!r.ok) {
    std::printf("%-*s error %d: %s\n", w, r.name.c_str(), r.error_code, r.error_message.c_str());
    return;
  }
  char frac[16] = "n/a";
  if (r.backend == "cpu" && ref_gflops > 0) std::snprintf(frac, sizeof frac, "%.1f%%", 100.0 * r.gflops / ref_gflops);
  if (r.backend == "gpu" && gpu_ref_gflops > 0)
    std::snprintf(frac, sizeof frac, "%.1f%%", 100.0 * r.gflops / gpu_ref_gflops);
  std::printf("%-*s %9lld %10lld %11lld %11lld %10.3e %8.3f %8.3f %8.4f %8.4f %7.2f %6s %6d %8d %8d %9.5f %8.1e",
              w, r.name.c_str(), r.n, r.nnz, r.num_factor_pred, r.num_factor, static_cast<double>(r.num_flops),
              r.time_read, r.time_analyse, r.time_factor_median, r.time_factor_min, r.gflops, frac, r.num_delay,
              r.num_two, r.num_neg, r.time_solve_median, r.backward_error);
  std::printf(" %s", r.backend.c_str());
  if (r.backend == "gpu")
    std::printf("  asm/dense/upd/oth %.3f/%.3f/%.3f/%.3f", r.gpu_asm, r.gpu_dense, r.gpu_update, r.gpu_other);
  if (r.backend == "gpu" && r.gpu_update > 0) {
    const double rate = r.update_flops / r.gpu_update * 1e-9;
    std::printf("  updates %.3g flops (%.0f%%) at %.0f GFlop/s", r.update_flops,
                r.num_flops > 0 ? 100.0 * r.update_flops / static_cast<double>(r.num_flops) : 0.0, rate);
    if (gpu_ref_gflops > 0) std::printf(" (%.1f%% of dgemm)", 100.0 * rate / gpu_ref_gflops);
  }
  if (x_hash) std::printf("  x_hash %016llx", r.x_hash);
  std::printf("\n");
}

void usage(const char* prog) {
  std::fprintf(stderr,
               "usage: %s [--backend cpu|gpu|auto] [--threads T] [--repeat R] [--posdef] [--json] [--dgemm-n N] [--gpu-dgemm-n N] [--print-level P] "
               "[--x-hash] [--plain-gemm-work W] [--late-updates] SPEC...\n"
               "  SPEC: a Matrix Market file or gen:KIND:ARGS\n"
               "  --threads T   OpenMP threads for the library and the dgemm reference (default: OpenMP default)\n"
               "  --repeat R    timed factorizations and solves per problem (default 3)\n"
               "  --posdef      Cholesky (Mode::posdef) instead of LDL^T\n"
               "  --json        one JSON object per line instead of the table\n"
               "  --dgemm-n N   size of the dgemm reference (default 4000; 0 skips it)\n"
               "  --print-level P  Options::print_level: phase times of every factorization on stderr (default 0)\n"
               "  --gpu-dgemm-n N  size of the cuBLAS dgemm reference for GPU rows (default 8192; 0 skips it)\n"
               "  --amalgamation-zeros Z  Options::amalgamation_zeros (relaxed amalgamation; default: the library's)\n"
               "  --x-hash      print a hash of the bits of the solution (compare builds bitwise)\n"
               "  --plain-gemm-work W  GPU: update pieces of at least W multiply-adds (and 512 x 512) as plain DGEMMs\n"
               "  --late-updates  GPU: build each level's contribution updates after its dense phase, not during it\n"
               "%s\n",
               prog, ssids::generator_help().c_str());
}

bool parse_int(const char* s, int min, int* out) {
  char* end = nullptr;
  const long v = std::strtol(s, &end, 10);
  if (!s[0] || *end || v < min || v > 1000000000L) return false;
  *out = static_cast<int>(v);
  return true;
}

}  // namespace

int main(int argc, char** argv) {
  Config cfg;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    const bool has_value = i + 1 < argc;
    if (arg == "--help" || arg == "-h") {
      usage(argv[0]);
      return 0;
    } else if (arg == "--backend" && has_value) {
      const std::string v = argv[++i];
      if (v == "cpu") cfg.backend = ssids::Backend::cpu;
      else if (v == "gpu") cfg.backend = ssids::Backend::gpu;
      else if (v == "auto") cfg.backend = ssids::Backend::automatic;
      else {
        std::fprintf(stderr, "unknown backend '%s' (cpu, gpu or auto)\n", v.c_str());
        return 2;
      }
    } else if (arg == "--threads" && has_value) {
      if (!parse_int(argv[++i], 1, &cfg.threads)) {
        std::fprintf(stderr, "--threads needs an integer >= 1\n");
        return 2;
      }
    } else if (arg == "--repeat" && has_value) {
      if (!parse_int(argv[++i], 1, &cfg.repeat)) {
        std::fprintf(stderr, "--repeat needs an integer >= 1\n");
        return 2;
      }
    } else if (arg == "--gpu-dgemm-n" && has_value) {
      if (!parse_int(argv[++i], 0, &cfg.gpu_dgemm_n)) {
        std::fprintf(stderr, "--gpu-dgemm-n needs an integer >= 0\n");
        return 2;
      }
    } else if (arg == "--dgemm-n" && has_value) {
      if (!parse_int(argv[++i], 0, &cfg.dgemm_n)) {
        std::fprintf(stderr, "--dgemm-n needs an integer >= 0\n");
        return 2;
      }
    } else if (arg == "--x-hash") {
      cfg.x_hash = true;
    } else if (arg == "--late-updates") {
      cfg.late_updates = true;
    } else if (arg == "--plain-gemm-work" && has_value) {
      char* end = nullptr;
      cfg.plain_gemm_work = std::strtod(argv[++i], &end);
      if (!end || *end || !(cfg.plain_gemm_work >= 0.0)) {
        std::fprintf(stderr, "--plain-gemm-work needs a number >= 0\n");
        return 2;
      }
    } else if (arg == "--print-level" && has_value) {
      if (!parse_int(argv[++i], 0, &cfg.print_level)) {
        std::fprintf(stderr, "--print-level needs an integer >= 0\n");
        return 2;
      }
    } else if (arg == "--amalgamation-zeros" && has_value) {
      char* end = nullptr;
      cfg.amalgamation_zeros = std::strtod(argv[++i], &end);
      if (!end || *end || !(cfg.amalgamation_zeros >= 0.0 && cfg.amalgamation_zeros <= 0.5)) {
        std::fprintf(stderr, "--amalgamation-zeros needs a number in [0, 0.5]\n");
        return 2;
      }
    } else if (arg == "--posdef") {
      cfg.posdef = true;
    } else if (arg == "--json") {
      cfg.json = true;
    } else if (arg.size() > 1 && arg[0] == '-') {
      std::fprintf(stderr, "unknown or incomplete option '%s'\n", arg.c_str());
      usage(argv[0]);
      return 2;
    } else {
      cfg.specs.push_back(arg);
    }
  }
  if (cfg.specs.empty()) {
    usage(argv[0]);
    return 2;
  }
  if (cfg.plain_gemm_work >= 0.0) ssids::detail::set_gpu_plain_gemm_bounds(512, cfg.plain_gemm_work);
  if (cfg.late_updates) ssids::detail::set_gpu_prepared_updates(false);
  if (cfg.threads > 0) omp_set_num_threads(cfg.threads);
  const int threads = cfg.threads > 0 ? cfg.threads : omp_get_max_threads();
  cfg.threads = threads;

  // dgemm reference (CPU); the GPU one is measured by another tool.
  const bool want_cpu_ref = cfg.backend != ssids::Backend::gpu && cfg.dgemm_n > 0;
  const double ref = want_cpu_ref ? dgemm_gflops(cfg.dgemm_n) : 0.0;
  const bool want_gpu_ref = cfg.backend != ssids::Backend::cpu && cfg.gpu_dgemm_n > 0;
  const double gpu_ref = want_gpu_ref ? gpu_dgemm_gflops(cfg.gpu_dgemm_n) : 0.0;
  if (cfg.json) {
    std::printf("{\"dgemm_reference\":\"cpu\",\"dgemm_n\":%d,\"gflops\":", cfg.dgemm_n);
    if (want_cpu_ref) std::printf("%.6g", ref);
    else std::printf("null");
    std::printf(",\"threads\":%d,\"gpu_dgemm_n\":%d,\"gpu_gflops\":", threads, cfg.gpu_dgemm_n);
    if (gpu_ref > 0) std::printf("%.6g}\n", gpu_ref);
    else std::printf("null}\n");
  } else {
    std::printf("mode: %s  backend requested: %s  threads: %d  repeat: %d\n", cfg.posdef ? "posdef" : "indefinite",
                backend_name(cfg.backend), threads, cfg.repeat);
    if (want_cpu_ref) std::printf("cpu dgemm reference: n=%d, %d threads, best of 3: %.2f GFlop/s\n", cfg.dgemm_n,
                                  threads, ref);
    else std::printf("cpu dgemm reference: not measured\n");
    if (gpu_ref > 0) std::printf("gpu dgemm reference: cublasDgemm n=%d, median of 5: %.1f GFlop/s\n", cfg.gpu_dgemm_n, gpu_ref);
    else if (want_gpu_ref) std::printf("gpu dgemm reference: not measured (no cuBLAS or no device)\n");
  }
  std::fflush(stdout);

  int w = 4;
  for (const auto& s : cfg.specs) w = std::max(w, static_cast<int>(display_name(s).size()));
  if (!cfg.json) print_header(w);

  bool failed = false;
  for (const auto& spec : cfg.specs) {
    const Result r = run_problem(spec, cfg);
    failed = failed || !r.ok;
    if (cfg.json) print_json(r, threads);
    else print_row(r, w, ref, gpu_ref, cfg.x_hash);
    std::fflush(stdout);
  }
  return failed ? 1 : 0;
}
