// cmd_solve.cpp — `ssids solve` and `ssids demo`: analyse, factorize and solve, then report times,
// statistics, inertia and the scaled backward error ||Ax-b||_inf / (||A||_inf ||x||_inf + ||b||_inf).
#include <omp.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <string>
#include <vector>

#include "cli/cli.hpp"
#include "cli/load.hpp"
#include "cli/notes.hpp"
#include "cli/progress.hpp"
#include "ssids/analyse.hpp"
#include "ssids/error.hpp"
#include "ssids/factor.hpp"
#include "ssids/matrix_market.hpp"
#include "ssids/refine.hpp"

namespace ssids_cli {

namespace {

double median(std::vector<double> v) {
  if (v.empty()) return 0.0;
  std::sort(v.begin(), v.end());
  size_t k = v.size() / 2;
  return v.size() % 2 ? v[k] : 0.5 * (v[k - 1] + v[k]);
}

double now_seconds() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

const char* solve_help =
    "usage: ssids solve FILE|gen:SPEC [options]\n"
    "Analyses, factorizes (LDL^T with threshold pivoting, or Cholesky with --posdef) and solves A x = b,\n"
    "with b = A*x_true for a known x_true unless --rhs is given. Prints times, nnz(L), flops and GFlop/s,\n"
    "inertia, delayed pivots, 2x2 pivots, rank and the scaled backward error.\n"
    "  --posdef           Cholesky (error if the matrix is not positive definite)\n"
    "  --rhs FILE         right-hand side(s), Matrix Market array n x k\n"
    "  --nrhs K           number of generated right-hand sides (default 1)\n"
    "  --refine STEPS     iterative refinement steps at most (default 0)\n"
    "  --solves R         then time R more plain solves; time_solve is their median\n"
    "  --no-presolve      GPU: do not invert the diagonal blocks of L after factorizing (the default inverts\n"
    "                     them: faster solves; --presolve is accepted and changes nothing)\n"
    "  --repeat R         factorize and solve R times; median times are reported (default 1)\n"
    "  --fail-on-singular treat a singular matrix as an error (-5, exit status 1) instead of a warning (+7)\n"
    "  -o, --output FILE  write the solution x (Matrix Market array n x k; gzip when FILE ends in .gz)\n"
    "  --json             one JSON object on stdout (times in seconds; \"warnings\" and \"info\" arrays)\n";

struct SolveSettings {
  std::string spec;
  std::string order_file;
  std::string rhs_file;
  std::string output;
  ssids::SymmetricEntries symmetric_entries = ssids::SymmetricEntries::refuse;
  Progress::Mode progress = Progress::Mode::off;
  ssids::Options options;
  ssids::Mode mode = ssids::Mode::indefinite;
  int nrhs = 1;
  int refine = 0;
  int repeat = 1;
  int solves = 0;
  bool json = false;
  bool demo = false;
};

int run_solve(const SolveSettings& st) {
  const char* cmd = st.demo ? "demo" : "solve";
  if (!st.output.empty()) check_output_path(st.output);
  Progress progress(cmd, st.progress);
  Notes notes;
  progress.phase("reading " + st.spec);
  LoadedProblem prob = load_problem(st.spec, st.order_file, st.symmetric_entries, notes);
  const ssids::SymmetricMatrix& a = prob.a;
  const ssids::index_t n = a.n;

  // right-hand sides
  int nrhs = st.nrhs;
  std::vector<double> b;
  if (!st.rhs_file.empty()) {
    ssids::DenseMatrix r = read_rhs(st.rhs_file, n, false);
    nrhs = r.ncol;
    b.assign(r.val.begin(), r.val.end());
  } else {
    std::vector<double> xt(static_cast<size_t>(n) * nrhs);
    for (int c = 0; c < nrhs; ++c)
      for (ssids::index_t i = 0; i < n; ++i)
        xt[i + static_cast<size_t>(c) * n] = c == 0 ? 1.0 : 1.0 + ((i * 7 + c * 13) % 11) / 10.0;
    b.resize(xt.size());
    for (int c = 0; c < nrhs; ++c) ssids::symmetric_multiply(a, xt.data() + static_cast<size_t>(c) * n, b.data() + static_cast<size_t>(c) * n);
  }
  std::vector<double> x(b.size());

  ssids::Inform ainf;
  progress.phase("analysing");
  ssids::Analysis an = ssids::analyse(a.view(), st.options, ainf, prob.order_ptr());

  std::vector<double> tf, ts;
  ssids::Inform finf;
  ssids::RefineReport rr;
  ssids::Factors f;
  for (int rep = 0; rep < st.repeat; ++rep) {
    finf = ssids::Inform();
    progress.phase(st.repeat > 1 ? "factorizing (" + std::to_string(rep + 1) + " of " + std::to_string(st.repeat) + ")"
                                 : std::string("factorizing"));
    f = ssids::Factors();  // the previous factors go first, as the C interface drops them: their blocks are reused
    f = ssids::factor(an, a.val.data(), st.mode, st.options, finf);
    tf.push_back(finf.time_factor);
    progress.phase("solving");
    double t0 = now_seconds();
    ssids::RefineOptions ro;
    ro.max_steps = st.refine;
    ro.tolerance = 1e-16;
    rr = ssids::solve_refined(a, f, nrhs, b.data(), n, x.data(), n, ro, finf);
    ts.push_back(now_seconds() - t0);
  }
  // --solves R: R further plain solves (no refinement) with the last factors, timed one by one
  std::vector<double> tplain;
  for (int k = 0; k < st.solves; ++k) {
    std::vector<double> xs = b;
    ssids::Inform sinf;
    f.solve(ssids::SolveJob::full, nrhs, xs.data(), n, sinf);
    tplain.push_back(sinf.time_solve);
  }
  if (!st.output.empty()) {
    progress.phase("writing " + st.output);
    write_solution(st.output, n, nrhs, x.data());
  }
  progress.done();
  notes.add_inform(ainf, n);
  notes.add_inform(finf, n);
  const double time_factor = median(tf), time_solve = st.solves > 0 ? median(tplain) : median(ts);
  const double berr = ssids::scaled_backward_error(a, x.data(), b.data(), nrhs, n);
  const double gflops = time_factor > 0 ? finf.num_flops / time_factor * 1e-9 : 0.0;
  const int threads = st.options.num_threads > 0 ? st.options.num_threads : omp_get_max_threads();
  const char* backend = f.backend() == ssids::Backend::gpu ? "gpu" : "cpu";

  if (st.json) {
    Json j;
    j.add("input", st.spec);
    j.add("n", n);
    j.add("nnz", static_cast<long long>(a.nnz()));
    j.add("backend", std::string(backend));
    j.add("threads", threads);
    j.add("posdef", st.mode == ssids::Mode::posdef ? 1 : 0);
    j.add("nrhs", nrhs);
    j.add("num_neg", finf.num_neg);
    j.add("num_pos", finf.num_pos);
    j.add("num_zero", finf.num_zero);
    j.add("matrix_rank", finf.matrix_rank);
    j.add("num_delay", finf.num_delay);
    j.add("num_two", finf.num_two);
    j.add("num_factor", static_cast<long long>(finf.num_factor));
    j.add("num_flops", static_cast<long long>(finf.num_flops));
    j.add("predicted_num_factor", static_cast<long long>(an.num_factor()));
    j.add("maxfront", finf.maxfront);
    j.add("num_sup", an.num_sup());
    j.add("num_levels", an.num_levels());
    j.add("gflops", gflops);
    j.add("refine_steps", rr.steps);
    j.add("backward_error", berr);
    j.add("time_read", prob.time_read);
    j.add("time_analyse", ainf.time_analyse);
    j.add("time_factor", time_factor);
    j.add("time_factor_first", tf.empty() ? 0.0 : tf.front());  // the process's first: GPU context, handles, pools
    j.add("time_solve", time_solve);
    j.add("repeat", st.repeat);
    j.add("solves", st.solves);
    j.add("time_solve_with_refinement", median(ts));
    j.add("presolve", st.options.presolve ? 1 : 0);
    if (f.backend() == ssids::Backend::gpu) {
      j.add("time_gpu_assembly", finf.time_gpu_assembly);
      j.add("time_gpu_dense", finf.time_gpu_dense);
      j.add("time_gpu_update", finf.time_gpu_update);
      j.add("time_gpu_other", finf.time_gpu_other);
      j.add("time_gpu_presolve", finf.time_gpu_presolve);
    }
    j.add("flag", finf.flag != 0 ? finf.flag : ainf.flag);
    if (!st.output.empty()) j.add("output", st.output);
    notes.to_json(j);
    std::printf("%s\n", j.str().c_str());
  } else {
    std::printf("%s %s\n", st.demo ? "ssids demo:" : "ssids solve", st.spec.c_str());
    std::printf("  n = %d, nnz (lower) = %lld, %s backend, %d thread%s, %s\n", n, static_cast<long long>(a.nnz()), backend,
                threads, threads == 1 ? "" : "s", st.mode == ssids::Mode::posdef ? "Cholesky" : "LDL^T with threshold pivoting");
    std::printf("  analyse   %8.3f s   %d supernodes, %d levels, predicted nnz(L) %lld\n", ainf.time_analyse,
                an.num_sup(), an.num_levels(), static_cast<long long>(an.num_factor()));
    std::printf("  factor    %8.3f s   nnz(L) %lld, %.4g flops, %.2f GFlop/s, largest front %d\n", time_factor,
                static_cast<long long>(finf.num_factor), static_cast<double>(finf.num_flops), gflops, finf.maxfront);
    std::printf("  pivots              %d delayed, %d 2x2 pivots, rank %d of %d\n", finf.num_delay, finf.num_two,
                finf.matrix_rank, n);
    std::printf("  inertia             %d positive, %d negative, %d zero\n", finf.num_pos, finf.num_neg, finf.num_zero);
    if (st.solves > 0)
      std::printf("  solve     %8.3f s   %d right-hand side%s, median of %d solves (with refinement %.3f s)\n",
                  time_solve, nrhs, nrhs == 1 ? "" : "s", st.solves, median(ts));
    else
      std::printf("  solve     %8.3f s   %d right-hand side%s, %d refinement step%s\n", time_solve, nrhs,
                  nrhs == 1 ? "" : "s", rr.steps, rr.steps == 1 ? "" : "s");
    std::printf("  backward error      %.3e   (||Ax-b|| / (||A|| ||x|| + ||b||), infinity norms)\n", berr);
    if (f.backend() == ssids::Backend::gpu)
      std::printf("  GPU time            assembly %.3f s, dense %.3f s, contribution update %.3f s, other %.3f s\n",
                  finf.time_gpu_assembly, finf.time_gpu_dense, finf.time_gpu_update, finf.time_gpu_other);
    if (st.repeat > 1) std::printf("  (median of %d factorizations and solves)\n", st.repeat);
    if (!st.output.empty()) std::printf("  solution written to %s\n", st.output.c_str());
    notes.print_info();
    std::fflush(stdout);
    notes.print_warnings(cmd);
  }
  return exit_status::ok;
}

SolveSettings parse_common(const Args& args) {
  SolveSettings st;
  st.order_file = parse_solver_options(args, st.options);
  st.symmetric_entries = symmetric_entries_option(args);
  st.progress = Progress::mode_of(args);
  st.output = args.get("--output", "");
  if (args.has("--output") && st.output.empty()) throw UsageError{"--output needs a file name"};
  st.json = args.has("--json");
  if (args.has("--posdef")) st.mode = ssids::Mode::posdef;
  st.nrhs = static_cast<int>(args.get_long("--nrhs", 1, 1, 1 << 20));
  st.refine = static_cast<int>(args.get_long("--refine", 0, 0, 100));
  st.solves = static_cast<int>(args.get_long("--solves", 0, 0, 100000));
  if (args.has("--presolve") && args.has("--no-presolve"))
    throw UsageError{"--presolve and --no-presolve contradict each other"};
  st.options.presolve = !args.has("--no-presolve");
  st.repeat = static_cast<int>(args.get_long("--repeat", 1, 1, 1000));
  st.rhs_file = args.get("--rhs", "");
  if (args.has("--fail-on-singular")) st.options.action = false;
  return st;
}

std::vector<std::string> solve_keys() {
  auto known = solver_option_keys;
  known.insert(known.end(), input_option_keys.begin(), input_option_keys.end());
  known.insert(known.end(), {"--help", "--json", "--posdef", "--nrhs", "--refine", "--repeat", "--rhs", "--fail-on-singular", "--solves",
                              "--presolve", "--no-presolve", "--output"});
  return known;
}

const std::vector<std::string> solve_flags = {"--help",     "--json",        "--posdef", "--fail-on-singular",
                                              "--presolve", "--no-presolve", "--quiet",  "--progress"};

}  // namespace

int cmd_solve(int argc, char** argv) {
  Args args(argc, argv, 2, solve_flags);
  if (args.has("--help")) {
    std::printf("%s%s%s", solve_help, solver_option_help, input_option_help);
    return exit_status::ok;
  }
  args.check_known(solve_keys());
  if (args.positional().size() != 1) throw UsageError{"expected exactly one FILE or gen:SPEC"};
  SolveSettings st = parse_common(args);
  st.spec = args.positional()[0];
  return run_solve(st);
}

/// The demo problem: a saddle-point system [H A^T; A 0] of a random sparse convex QP, whose inertia is
/// known (NVAR positive, NCON negative eigenvalues).
int cmd_demo(int argc, char** argv) {
  Args args(argc, argv, 2, solve_flags);
  if (args.has("--help")) {
    std::printf("usage: ssids demo [options]\n"
                "Generates a KKT system [H A^T; A 0] (gen:kkt-qp:NVAR:NCON:0:1 with NVAR = 2*NCON) and runs\n"
                "analyse, factor and solve on it, printing a report with the expected and computed inertia.\n"
                "  --size NCON   number of constraints (default 20000; NVAR = 2*NCON)\n%s%s%s",
                solve_help, solver_option_help, input_option_help);
    return exit_status::ok;
  }
  auto keys = solve_keys();
  keys.push_back("--size");
  args.check_known(keys);
  if (!args.positional().empty()) throw UsageError{"demo takes no positional arguments"};
  SolveSettings st = parse_common(args);
  const long ncon = args.get_long("--size", 20000, 1, 100000000);
  const long nvar = 2 * ncon;
  st.spec = "gen:kkt-qp:" + std::to_string(nvar) + ":" + std::to_string(ncon) + ":0:1";
  st.refine = std::max(st.refine, 1);
  st.demo = true;
  if (!st.json)
    std::printf("Saddle-point system of a random convex QP: %ld variables, %ld constraints.\n"
                "Expected inertia: %ld positive, %ld negative, 0 zero.\n\n", nvar, ncon, nvar, ncon);
  return run_solve(st);
}

}  // namespace ssids_cli
