// cmd_repro.cpp — `ssids repro`: the reproducibility harness. For every configuration
// (backend x thread count) it analyses once, then factorizes and solves N times with b = A*x_true, and
// compares SHA-256 fingerprints (ssids/fingerprint.hpp) of the factors and the solutions bitwise.
//
// What is checked, and what fails the command (exit status 1, "FAIL" lines on stdout and stderr):
//  * promised: every run of every configuration of a backend equals the first run of the FIRST
//    configuration of that backend (same input, options, binary and hardware; any thread count, any run);
//  * promised: each column of the multi-RHS solve equals, bitwise, a single-RHS solve of that column.
// What is shown but never fails: whether the CPU and GPU paths agree to the bit (with the largest
// |x_cpu - x_gpu| when they do not). GPU configurations without a usable GPU are "skipped (no GPU)".
//
// Test-only hook: the environment variable SSIDS_REPRO_PLANT=1 perturbs ONE run by one ulp (D_11 through
// Factors::alter in indefinite mode, x_11 of the solution in posdef mode), so that tests can prove the
// harness fails loudly. The run perturbed is run 2 of the first configuration (run 1 of the second
// configuration of the same backend with --runs 1). Never set it outside tests.
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include "cli/cli.hpp"
#include "cli/load.hpp"
#include "cli/notes.hpp"
#include "cli/progress.hpp"
#include "ssids/analyse.hpp"
#include "ssids/error.hpp"
#include "ssids/factor.hpp"
#include "ssids/fingerprint.hpp"

namespace ssids_cli {

namespace {

const char* repro_help =
    "usage: ssids repro FILE|gen:SPEC [--runs N] [--threads 1,2,4] [--backend cpu,gpu] [--nrhs K] [--posdef]\n"
    "                   [--json] [solver options]\n"
    "Reproducibility harness. For each configuration (backend x threads) analyses once, then factorizes and\n"
    "solves N times (b = A*x_true, K right-hand sides) and prints SHA-256 fingerprints of the factors and of\n"
    "the solution. Promised (checked; exit status 1 on any difference): identical results for identical\n"
    "input, options, binary and hardware (CPU model for cpu, GPU model for gpu), whatever the thread count or\n"
    "run: every run equals the first run of the first configuration of its backend; and each column of the\n"
    "K-column solve equals a single-column solve of that column. Shown, not promised: whether the CPU and GPU\n"
    "paths agree to the bit (largest |x_cpu - x_gpu| when not). GPU configurations without a GPU are skipped.\n"
    "  --runs N           factorizations and solves per configuration (default 3)\n"
    "  --threads LIST     comma-separated CPU thread counts (default 1,2,4; 0 = OpenMP's default)\n"
    "  --backend LIST     comma-separated backends, cpu and/or gpu (default cpu)\n"
    "  --nrhs K           right-hand sides (default 2)\n"
    "  --posdef           Cholesky instead of LDL^T\n"
    "  --json             one JSON object on stdout\n"
    "solver options (as for `ssids solve`; --threads and --backend take lists here):\n";

struct Config {
  ssids::Backend backend = ssids::Backend::cpu;
  int threads = 1;
};

const char* backend_name(ssids::Backend b) { return b == ssids::Backend::gpu ? "gpu" : "cpu"; }

std::string config_name(const Config& c) {
  std::string t = c.threads == 0 ? "default threads" : std::to_string(c.threads) + (c.threads == 1 ? " thread" : " threads");
  return std::string(backend_name(c.backend)) + ", " + t;
}

struct RunResult {
  std::string factors_fp, solution_fp;
  bool multi_rhs_ok = true;
  bool factors_same = true, solution_same = true;  ///< against the reference run
};

struct ConfigResult {
  Config cfg;
  bool skipped = false;
  std::string skip_reason;
  std::vector<RunResult> runs;
  std::vector<double> x_first;  ///< solution of the first run (for the CPU/GPU comparison)
  int identical = 0;            ///< runs identical to the reference
  bool multi_rhs_ok = true;
  double seconds = 0.0;
};

std::vector<long> parse_int_list(const std::string& key, const std::string& s, long lo, long hi) {
  std::vector<long> out;
  size_t start = 0;
  while (start <= s.size()) {
    size_t comma = s.find(',', start);
    if (comma == std::string::npos) comma = s.size();
    const std::string item = s.substr(start, comma - start);
    char* end = nullptr;
    const long v = std::strtol(item.c_str(), &end, 10);
    if (item.empty() || *end != '\0') throw UsageError{key + " needs a comma-separated list of integers, got '" + s + "'"};
    if (v < lo || v > hi)
      throw UsageError{key + " values must be between " + std::to_string(lo) + " and " + std::to_string(hi)};
    out.push_back(v);
    start = comma + 1;
  }
  return out;
}

std::vector<ssids::Backend> parse_backend_list(const std::string& s) {
  std::vector<ssids::Backend> out;
  size_t start = 0;
  while (start <= s.size()) {
    size_t comma = s.find(',', start);
    if (comma == std::string::npos) comma = s.size();
    const std::string item = s.substr(start, comma - start);
    if (item == "cpu") out.push_back(ssids::Backend::cpu);
    else if (item == "gpu") out.push_back(ssids::Backend::gpu);
    else throw UsageError{"--backend needs a comma-separated list of cpu and gpu, got '" + s + "'"};
    start = comma + 1;
  }
  return out;
}

bool bitwise_equal(const double* a, const double* b, size_t n) { return n == 0 || std::memcmp(a, b, n * sizeof(double)) == 0; }

double now_seconds() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

// JSON text building (strings through json_string; numbers with 17 significant digits).
std::string jnum(double v) {
  if (!std::isfinite(v)) return "null";
  char b[64];
  std::snprintf(b, sizeof b, "%.17g", v);
  return b;
}
std::string jbool(bool v) { return v ? "true" : "false"; }

}  // namespace

int cmd_repro(int argc, char** argv) {
  const std::vector<std::string> flags = {"--help", "--json", "--posdef", "--quiet", "--progress"};
  Args args(argc, argv, 2, flags);
  if (args.has("--help")) {
    std::printf("%s%s%s", repro_help, solver_option_help, input_option_help);
    return exit_status::ok;
  }
  auto known = solver_option_keys;
  known.insert(known.end(), input_option_keys.begin(), input_option_keys.end());
  known.insert(known.end(), {"--help", "--json", "--posdef", "--runs", "--nrhs"});
  args.check_known(known);
  if (args.positional().size() != 1) throw UsageError{"expected exactly one FILE or gen:SPEC"};
  const std::string spec = args.positional()[0];

  // The common solver options, without --threads and --backend (lists here).
  std::vector<char*> rest;
  for (int i = 0; i < argc; ++i) {
    const std::string a = argv[i];
    if (i >= 2 && (a == "--threads" || a == "--backend")) {
      ++i;
      continue;
    }
    if (a.rfind("--threads=", 0) == 0 || a.rfind("--backend=", 0) == 0) continue;
    rest.push_back(argv[i]);
  }
  ssids::Options options;
  const std::string order_file = parse_solver_options(Args(static_cast<int>(rest.size()), rest.data(), 2, flags), options);

  const bool json = args.has("--json");
  const ssids::Mode mode = args.has("--posdef") ? ssids::Mode::posdef : ssids::Mode::indefinite;
  const int runs = static_cast<int>(args.get_long("--runs", 3, 1, 100000));
  const int nrhs = static_cast<int>(args.get_long("--nrhs", 2, 1, 4096));
  const std::vector<long> threads = parse_int_list("--threads", args.get("--threads", "1,2,4"), 0, 4096);
  const std::vector<ssids::Backend> backends = parse_backend_list(args.get("--backend", "cpu"));
  const char* plant_env = std::getenv("SSIDS_REPRO_PLANT");
  const bool plant = plant_env && std::strcmp(plant_env, "") != 0 && std::strcmp(plant_env, "0") != 0;

  std::vector<Config> configs;
  for (ssids::Backend b : backends)
    for (long t : threads) configs.push_back(Config{b, static_cast<int>(t)});

  const ssids::SymmetricEntries policy = symmetric_entries_option(args);
  Progress progress("repro", Progress::mode_of(args));
  Notes notes;
  progress.phase("reading " + spec);
  LoadedProblem prob = load_problem(spec, order_file, policy, notes);
  const ssids::SymmetricMatrix& a = prob.a;
  const ssids::index_t n = a.n;
  const size_t nn = static_cast<size_t>(n);

  // b = A * x_true, column c of x_true as in `ssids solve`.
  std::vector<double> b(nn * nrhs);
  {
    std::vector<double> xt(nn * nrhs);
    for (int c = 0; c < nrhs; ++c)
      for (ssids::index_t i = 0; i < n; ++i) xt[i + c * nn] = c == 0 ? 1.0 : 1.0 + ((i * 7 + c * 13) % 11) / 10.0;
    for (int c = 0; c < nrhs; ++c) ssids::symmetric_multiply(a, xt.data() + c * nn, b.data() + c * nn);
  }

  // Where the test hook plants its difference: (configuration, run).
  int plant_config = -1, plant_run = -1;
  if (plant && !configs.empty()) {
    if (runs >= 2) {
      plant_config = 0;
      plant_run = 1;
    } else {
      for (size_t k = 1; k < configs.size() && plant_config < 0; ++k)
        if (configs[k].backend == configs[0].backend) {
          plant_config = static_cast<int>(k);
          plant_run = 0;
        }
    }
  }
  bool planted = false;

  std::vector<ConfigResult> results;
  std::vector<std::string> failures;
  int reference_index[2] = {-1, -1};  // by backend: the first configuration that ran
  for (size_t k = 0; k < configs.size(); ++k) {
    ConfigResult cr;
    cr.cfg = configs[k];
    const int bi = cr.cfg.backend == ssids::Backend::gpu ? 1 : 0;
    ssids::Options opt = options;
    opt.backend = cr.cfg.backend;
    opt.num_threads = cr.cfg.threads;
    const double t0 = now_seconds();
    const std::string step = "configuration " + std::to_string(k + 1) + " of " + std::to_string(configs.size()) + " (" +
                             config_name(cr.cfg) + ")";
    progress.phase(step + ": analysing");
    ssids::Inform ainf;
    ssids::Analysis an = ssids::analyse(a.view(), opt, ainf, prob.order_ptr());
    notes.add_inform(ainf, n);
    for (int r = 0; r < runs && !cr.skipped; ++r) {
      ssids::Inform inf;
      ssids::Factors f;
      progress.phase(step + ": run " + std::to_string(r + 1) + " of " + std::to_string(runs));
      try {
        f = ssids::factor(an, a.val.data(), mode, opt, inf);
        notes.add_inform(inf, n);
      } catch (const ssids::Error& e) {
        if (e.code() != ssids::flag::no_cuda || cr.cfg.backend != ssids::Backend::gpu) throw;
        cr.skipped = true;
        cr.skip_reason = e.what();
        break;
      }
      const bool plant_here = static_cast<int>(k) == plant_config && r == plant_run;
      if (plant_here && mode == ssids::Mode::indefinite && n > 0) {
        std::vector<double> d(2 * nn);
        std::vector<ssids::index_t> piv(nn);
        f.enquire_indef(piv.data(), d.data());
        d[0] = std::nextafter(d[0], std::numeric_limits<double>::infinity());
        f.alter(d.data());
        planted = true;
      }
      RunResult rr;
      rr.factors_fp = ssids::fingerprint(f);
      std::vector<double> x(b);
      if (n > 0) f.solve(ssids::SolveJob::full, nrhs, x.data(), n, inf);
      if (nrhs > 1 && n > 0) {
        std::vector<double> xc(nn);
        for (int c = 0; c < nrhs; ++c) {
          std::copy(b.begin() + c * nn, b.begin() + (c + 1) * nn, xc.begin());
          f.solve(ssids::SolveJob::full, 1, xc.data(), n, inf);
          if (!bitwise_equal(xc.data(), x.data() + c * nn, nn)) {
            rr.multi_rhs_ok = false;
            failures.push_back(config_name(cr.cfg) + ", run " + std::to_string(r + 1) + ": column " +
                               std::to_string(c + 1) + " of the " + std::to_string(nrhs) +
                               "-column solve differs from the single-column solve");
          }
        }
      }
      if (plant_here && mode == ssids::Mode::posdef && n > 0) {
        x[0] = std::nextafter(x[0], std::numeric_limits<double>::infinity());
        planted = true;
      }
      rr.solution_fp = ssids::fingerprint(x.data(), n, nrhs, n);
      if (r == 0) cr.x_first = x;
      cr.multi_rhs_ok = cr.multi_rhs_ok && rr.multi_rhs_ok;
      cr.runs.push_back(rr);
    }
    cr.seconds = now_seconds() - t0;
    if (!cr.skipped) {
      if (reference_index[bi] < 0) reference_index[bi] = static_cast<int>(k);
      // copied: the reference may be run 1 of this very configuration
      const RunResult ref_copy =
          reference_index[bi] == static_cast<int>(k) ? cr.runs[0] : results[reference_index[bi]].runs[0];
      for (size_t r = 0; r < cr.runs.size(); ++r) {
        RunResult& rr = cr.runs[r];
        rr.factors_same = rr.factors_fp == ref_copy.factors_fp;
        rr.solution_same = rr.solution_fp == ref_copy.solution_fp;
        if (rr.factors_same && rr.solution_same) {
          ++cr.identical;
        } else {
          std::string what = !rr.factors_same && !rr.solution_same ? "factors and solution differ"
                             : !rr.factors_same                     ? "factors differ"
                                                                    : "solution differs";
          failures.push_back(config_name(cr.cfg) + ", run " + std::to_string(r + 1) + ": " + what +
                             " from the reference (" + config_name(configs[reference_index[bi]]) + ", run 1)");
        }
      }
    }
    results.push_back(std::move(cr));
  }

  progress.done();
  // CPU vs GPU: shown, not promised.
  bool cg_compared = reference_index[0] >= 0 && reference_index[1] >= 0;
  bool cg_factors = false, cg_solution = false;
  double cg_maxdiff = 0.0;
  if (cg_compared) {
    const ConfigResult& c = results[reference_index[0]];
    const ConfigResult& g = results[reference_index[1]];
    cg_factors = c.runs[0].factors_fp == g.runs[0].factors_fp;
    cg_solution = c.runs[0].solution_fp == g.runs[0].solution_fp;
    for (size_t i = 0; i < c.x_first.size(); ++i) {
      const double d = std::fabs(c.x_first[i] - g.x_first[i]);
      if (std::isnan(d)) {
        if (std::memcmp(&c.x_first[i], &g.x_first[i], sizeof(double)) != 0) cg_maxdiff = std::numeric_limits<double>::infinity();
      } else if (d > cg_maxdiff) {
        cg_maxdiff = d;
      }
    }
  }
  const bool pass = failures.empty();
  const char* promise =
      "identical factors and solutions for identical input, options, binary and hardware (CPU model for cpu "
      "results, GPU model for gpu results), whatever the thread count or run; each column of a multi-RHS "
      "solve equals the single-RHS solve of that column";

  if (json) {
    std::string o = "{";
    o += "\"input\": " + json_string(spec) + ", \"n\": " + std::to_string(n) + ", \"nnz\": " + std::to_string(a.nnz());
    o += ", \"posdef\": " + jbool(mode == ssids::Mode::posdef) + ", \"runs\": " + std::to_string(runs);
    o += ", \"nrhs\": " + std::to_string(nrhs) + ", \"promise\": " + json_string(promise);
    o += ", \"planted\": " + jbool(planted) + ", \"warnings\": " + notes.warnings_json() +
         ", \"info\": " + notes.info_json() + ", \"configurations\": [";
    for (size_t k = 0; k < results.size(); ++k) {
      const ConfigResult& cr = results[k];
      const int bi = cr.cfg.backend == ssids::Backend::gpu ? 1 : 0;
      o += k ? ", {" : "{";
      o += "\"backend\": " + json_string(backend_name(cr.cfg.backend)) + ", \"threads\": " + std::to_string(cr.cfg.threads);
      o += ", \"status\": " + json_string(cr.skipped ? "skipped" : (cr.identical == static_cast<int>(cr.runs.size()) && cr.multi_rhs_ok) ? "identical" : "different");
      o += ", \"skip_reason\": " + json_string(cr.skipped ? "no GPU: " + cr.skip_reason : "");
      o += ", \"reference\": " + jbool(static_cast<int>(k) == reference_index[bi]);
      o += ", \"factors_fingerprint\": " + json_string(cr.runs.empty() ? "" : cr.runs[0].factors_fp);
      o += ", \"solution_fingerprint\": " + json_string(cr.runs.empty() ? "" : cr.runs[0].solution_fp);
      o += ", \"runs_identical\": " + std::to_string(cr.identical) + ", \"runs_total\": " + std::to_string(cr.runs.size());
      o += ", \"multi_rhs_identical\": " + jbool(cr.multi_rhs_ok);
      o += ", \"run_factors_fingerprints\": [";
      for (size_t r = 0; r < cr.runs.size(); ++r) o += (r ? ", " : "") + json_string(cr.runs[r].factors_fp);
      o += "], \"run_solution_fingerprints\": [";
      for (size_t r = 0; r < cr.runs.size(); ++r) o += (r ? ", " : "") + json_string(cr.runs[r].solution_fp);
      o += "], \"time\": " + jnum(cr.seconds) + "}";
    }
    o += "], \"differences\": [";
    for (size_t k = 0; k < failures.size(); ++k) o += (k ? ", " : "") + json_string(failures[k]);
    o += "], \"cpu_gpu\": {\"compared\": " + jbool(cg_compared);
    o += ", \"factors_identical\": " + (cg_compared ? jbool(cg_factors) : "null");
    o += ", \"solutions_identical\": " + (cg_compared ? jbool(cg_solution) : "null");
    o += ", \"max_abs_diff\": " + (cg_compared ? jnum(cg_maxdiff) : "null") + ", \"promised\": false}";
    o += ", \"pass\": " + jbool(pass) + "}";
    std::printf("%s\n", o.c_str());
  } else {
    std::printf("ssids repro %s\n", spec.c_str());
    std::printf("  n = %d, nnz (lower) = %lld, %s, %d run%s per configuration, %d right-hand side%s\n", n,
                static_cast<long long>(a.nnz()), mode == ssids::Mode::posdef ? "Cholesky" : "LDL^T", runs,
                runs == 1 ? "" : "s", nrhs, nrhs == 1 ? "" : "s");
    std::printf("  promised: %s\n", promise);
    std::printf("  fingerprints: SHA-256 of the canonical forms in ssids/fingerprint.hpp\n");
    for (size_t k = 0; k < results.size(); ++k) {
      const ConfigResult& cr = results[k];
      const int bi = cr.cfg.backend == ssids::Backend::gpu ? 1 : 0;
      if (cr.skipped) {
        std::printf("%s: skipped (no GPU: %s)\n", config_name(cr.cfg).c_str(), cr.skip_reason.c_str());
        continue;
      }
      const bool ok = cr.identical == static_cast<int>(cr.runs.size()) && cr.multi_rhs_ok;
      std::printf("%s: %s — %d of %zu runs identical to the reference%s; multi-RHS columns %s (%.2f s)\n",
                  config_name(cr.cfg).c_str(), ok ? "OK" : "FAIL", cr.identical, cr.runs.size(),
                  static_cast<int>(k) == reference_index[bi] ? " (this is the reference: its run 1)" : "",
                  nrhs == 1 ? "not checked (--nrhs 1)" : cr.multi_rhs_ok ? "= single-RHS solves" : "DIFFER from single-RHS solves",
                  cr.seconds);
      std::printf("    factors  %s\n    solution %s\n", cr.runs[0].factors_fp.c_str(), cr.runs[0].solution_fp.c_str());
      for (size_t r = 0; r < cr.runs.size(); ++r) {
        const RunResult& rr = cr.runs[r];
        if (rr.factors_same && rr.solution_same) continue;
        std::printf("    run %zu DIFFERS: factors  %s%s\n", r + 1, rr.factors_fp.c_str(), rr.factors_same ? "" : "  (different)");
        std::printf("                    solution %s%s\n", rr.solution_fp.c_str(), rr.solution_same ? "" : "  (different)");
      }
    }
    if (cg_compared) {
      if (cg_factors && cg_solution)
        std::printf("cpu vs gpu (shown, not promised): factors and solutions bitwise identical\n");
      else
        std::printf("cpu vs gpu (shown, not promised): factors %s, solutions %s, max |x_cpu - x_gpu| = %.3e\n",
                    cg_factors ? "identical" : "differ", cg_solution ? "identical" : "differ", cg_maxdiff);
    }
    if (plant) std::printf("test hook SSIDS_REPRO_PLANT: %s\n", planted ? "one run perturbed by one ulp" : "nothing perturbed (needs 2 runs of one backend)");
    for (const auto& f : failures) std::printf("FAIL: %s\n", f.c_str());
    std::printf("result: %s\n", pass ? "PASS (every promised comparison is bitwise identical)" : "FAIL (promised reproducibility violated)");
    notes.print_info();
    std::fflush(stdout);
    notes.print_warnings("repro");
  }
  if (!pass) {
    for (const auto& f : failures) std::fprintf(stderr, "ssids repro: FAIL: %s\n", f.c_str());
    std::fprintf(stderr, "ssids repro: %zu promised comparison%s differ%s\n", failures.size(),
                 failures.size() == 1 ? "" : "s", failures.size() == 1 ? "s" : "");
    return exit_status::error;
  }
  return exit_status::ok;
}

}  // namespace ssids_cli
