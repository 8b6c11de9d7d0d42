// cmd_compare.cpp — `ssids compare FILE|gen:SPEC`: every combination of scaling and ordering, side by side.
// For each combination: analyse, factorize and solve b = A*1 (optionally R times, median times), then report
// delayed pivots, nnz(L), flops, the analyse / factor / solve times, the scaled backward error and the inertia.
// A combination that throws is reported as failed; any failure makes the exit status 1.
#include <omp.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <sstream>
#include <string>
#include <vector>

#include "cli/cli.hpp"
#include "cli/load.hpp"
#include "cli/notes.hpp"
#include "cli/progress.hpp"
#include "ssids/analyse.hpp"
#include "ssids/error.hpp"
#include "ssids/factor.hpp"
#include "ssids/refine.hpp"

namespace ssids_cli {

namespace {

const char* compare_help =
    "usage: ssids compare FILE|gen:SPEC [options]\n"
    "Runs analyse, factor and solve (b = A*1) for every combination of scaling and ordering and prints them\n"
    "side by side: delayed pivots, nnz(L), flops, analyse / factor / solve times, the scaled backward error\n"
    "||Ax-b|| / (||A|| ||x|| + ||b||) and the inertia. The factor time includes computing the scaling; with\n"
    "--ordering matching the matching (and its scaling) is computed by analyse, so compare analyse + factor.\n"
    "Scaling 'matching' with ordering 'matching' reuses the ordering's scaling (Scaling::from_ordering).\n"
    "Exit status 1 when any combination fails.\n"
    "  --scalings LIST    comma-separated subset of none,matching,auction,equilibrate (default: all four)\n"
    "  --orderings LIST   comma-separated subset of metis,matching,amd,natural (default: metis,matching,amd)\n"
    "  --posdef           Cholesky instead of LDL^T\n"
    "  --refine STEPS     iterative refinement steps at most (default 0)\n"
    "  --repeat R         analyse, factorize and solve R times; median times are reported (default 1)\n"
    "  --json             one JSON object on stdout: the input, \"warnings\" and \"info\" arrays and a list\n"
    "                     \"runs\" (times in seconds; each run has its own \"warnings\")\n";

double median(std::vector<double> v) {
  if (v.empty()) return 0.0;
  std::sort(v.begin(), v.end());
  const size_t k = v.size() / 2;
  return v.size() % 2 ? v[k] : 0.5 * (v[k - 1] + v[k]);
}

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

std::vector<std::string> split_list(const std::string& s) {
  std::vector<std::string> out;
  std::stringstream in(s);
  std::string item;
  while (std::getline(in, item, ','))
    if (!item.empty()) out.push_back(item);
  return out;
}

struct Combo {
  std::string scaling, ordering;
  ssids::Scaling sc = ssids::Scaling::none;
  ssids::Ordering ord = ssids::Ordering::metis;
  std::string note;
};

struct Result {
  bool ok = false;
  std::string error;
  int flag = 0;
  Notes notes;  ///< the warnings of this run's analyse and factor
  int delays = 0, num_two = 0, num_neg = 0, num_pos = 0, num_zero = 0;
  long long nnz_l = 0, flops = 0;
  double t_analyse = 0, t_factor = 0, t_solve = 0, berr = 0;
  int refine_steps = 0;
};

ssids::Scaling scaling_of(const std::string& s) {
  if (s == "none") return ssids::Scaling::none;
  if (s == "matching") return ssids::Scaling::matching;
  if (s == "auction") return ssids::Scaling::auction;
  if (s == "equilibrate") return ssids::Scaling::equilibrate;
  throw UsageError{"--scalings: unknown scaling '" + s + "' (none, matching, auction, equilibrate)"};
}

ssids::Ordering ordering_of(const std::string& s) {
  if (s == "metis") return ssids::Ordering::metis;
  if (s == "matching") return ssids::Ordering::matching;
  if (s == "amd") return ssids::Ordering::amd;
  if (s == "natural") return ssids::Ordering::natural;
  throw UsageError{"--orderings: unknown ordering '" + s + "' (metis, matching, amd, natural)"};
}

Result run_combo(const ssids::SymmetricMatrix& a, const std::vector<double>& b, ssids::Options options,
                 const Combo& c, ssids::Mode mode, int repeat, int refine, Progress& progress, const std::string& step) {
  options.scaling = c.sc;
  options.ordering = c.ord;
  Result r;
  const ssids::index_t n = a.n;
  std::vector<double> x(b.size());
  std::vector<double> ta, tf, ts;
  try {
    ssids::Inform ainf, finf;
    ssids::Factors f;
    ssids::RefineReport rr;
    for (int rep = 0; rep < repeat; ++rep) {
      ainf = ssids::Inform();
      progress.phase(step + ": analysing");
      auto t0 = std::chrono::steady_clock::now();
      ssids::Analysis an = ssids::analyse(a.view(), options, ainf);
      ta.push_back(seconds_since(t0));
      finf = ssids::Inform();
      progress.phase(step + ": factorizing");
      t0 = std::chrono::steady_clock::now();
      f = ssids::Factors();  // release the previous factors before timing the next factorization
      f = ssids::factor(an, a.val.data(), mode, options, finf);
      tf.push_back(seconds_since(t0));
      ssids::RefineOptions ro;
      ro.max_steps = refine;
      ro.tolerance = 1e-16;
      t0 = std::chrono::steady_clock::now();
      rr = ssids::solve_refined(a, f, 1, b.data(), n, x.data(), n, ro, finf);
      ts.push_back(seconds_since(t0));
    }
    r.ok = true;
    r.flag = finf.flag != 0 ? finf.flag : ainf.flag;
    r.notes.add_inform(ainf, n);
    r.notes.add_inform(finf, n);
    r.delays = finf.num_delay;
    r.num_two = finf.num_two;
    r.num_neg = finf.num_neg;
    r.num_pos = finf.num_pos;
    r.num_zero = finf.num_zero;
    r.nnz_l = static_cast<long long>(finf.num_factor);
    r.flops = static_cast<long long>(finf.num_flops);
    r.refine_steps = rr.steps;
    r.t_analyse = median(ta);
    r.t_factor = median(tf);
    r.t_solve = median(ts);
    r.berr = ssids::scaled_backward_error(a, x.data(), b.data(), 1, n);
  } catch (const ssids::Error& e) {
    r.error = "error " + std::to_string(e.code()) + " (" + ssids::flag_name(e.code()) + "): " + e.what();
  } catch (const std::bad_alloc&) {
    r.error = "out of memory";
  }
  return r;
}

}  // namespace

int cmd_compare(int argc, char** argv) {
  Args args(argc, argv, 2, {"--help", "--json", "--posdef", "--quiet", "--progress"});
  if (args.has("--help")) {
    std::printf("%s", compare_help);
    // the common options, less --ordering and --scaling (replaced by the lists above)
    std::string common = solver_option_help;
    std::string kept;
    std::stringstream in(common);
    std::string line;
    bool skip = false;
    while (std::getline(in, line)) {
      const bool option_line = line.compare(0, 4, "  --") == 0;
      if (option_line) skip = line.compare(0, 12, "  --ordering") == 0 || line.compare(0, 11, "  --scaling") == 0;
      if (!skip) kept += line + "\n";
    }
    std::printf("%s%s", kept.c_str(), input_option_help);
    return exit_status::ok;
  }
  std::vector<std::string> known;
  for (const auto& k : solver_option_keys)
    if (k != "--ordering" && k != "--scaling") known.push_back(k);
  known.insert(known.end(), input_option_keys.begin(), input_option_keys.end());
  known.insert(known.end(), {"--help", "--json", "--posdef", "--scalings", "--orderings", "--refine", "--repeat"});
  args.check_known(known);
  if (args.positional().size() != 1) throw UsageError{"expected exactly one FILE or gen:SPEC"};
  const std::string spec = args.positional()[0];
  ssids::Options options;
  parse_solver_options(args, options);
  const bool json = args.has("--json");
  const ssids::Mode mode = args.has("--posdef") ? ssids::Mode::posdef : ssids::Mode::indefinite;
  const int repeat = static_cast<int>(args.get_long("--repeat", 1, 1, 1000));
  const int refine = static_cast<int>(args.get_long("--refine", 0, 0, 100));
  const std::vector<std::string> scalings = split_list(args.get("--scalings", "none,matching,auction,equilibrate"));
  const std::vector<std::string> orderings = split_list(args.get("--orderings", "metis,matching,amd"));
  if (scalings.empty()) throw UsageError{"--scalings needs at least one scaling"};
  if (orderings.empty()) throw UsageError{"--orderings needs at least one ordering"};

  std::vector<Combo> combos;
  for (const auto& o : orderings)
    for (const auto& s : scalings) {
      Combo c;
      c.scaling = s;
      c.ordering = o;
      c.sc = scaling_of(s);
      c.ord = ordering_of(o);
      if (c.ord == ssids::Ordering::matching && c.sc == ssids::Scaling::matching) {
        // the ordering has computed exactly this scaling already: use it instead of a second matching
        c.sc = ssids::Scaling::from_ordering;
        c.note = "scaling from the ordering";
      }
      combos.push_back(c);
    }

  const ssids::SymmetricEntries policy = symmetric_entries_option(args);
  Progress progress("compare", Progress::mode_of(args));
  Notes notes;
  progress.phase("reading " + spec);
  LoadedProblem prob = load_problem(spec, std::string(), policy, notes);
  const ssids::SymmetricMatrix& a = prob.a;
  const ssids::index_t n = a.n;
  std::vector<double> xt(static_cast<size_t>(n), 1.0), b(static_cast<size_t>(n));
  ssids::symmetric_multiply(a, xt.data(), b.data());
  const int threads = options.num_threads > 0 ? options.num_threads : omp_get_max_threads();
  const char* backend = options.backend == ssids::Backend::gpu ? "gpu"
                        : options.backend == ssids::Backend::automatic ? "auto" : "cpu";

  std::vector<Result> results;
  int failures = 0;
  for (size_t k = 0; k < combos.size(); ++k) {
    const Combo& c = combos[k];
    const std::string step = "combination " + std::to_string(k + 1) + " of " + std::to_string(combos.size()) + " (" +
                             c.scaling + "/" + c.ordering + ")";
    results.push_back(run_combo(a, b, options, c, mode, repeat, refine, progress, step));
    failures += !results.back().ok;
  }
  progress.done();

  if (json) {
    Json head;
    head.add("input", spec);
    head.add("n", n);
    head.add("nnz", static_cast<long long>(a.nnz()));
    head.add("backend", std::string(backend));
    head.add("threads", threads);
    head.add("posdef", mode == ssids::Mode::posdef ? 1 : 0);
    head.add("repeat", repeat);
    head.add("failures", failures);
    notes.to_json(head);
    std::string out = head.str();
    out.pop_back();  // the closing brace: the list of runs follows
    out += ", \"runs\": [";
    for (size_t k = 0; k < combos.size(); ++k) {
      const Combo& c = combos[k];
      const Result& r = results[k];
      Json j;
      j.add("scaling", c.scaling);
      j.add("ordering", c.ordering);
      j.add_bool("ok", r.ok);
      if (!c.note.empty()) j.add("note", c.note);
      if (r.ok) {
        j.add("num_delay", r.delays);
        j.add("num_factor", r.nnz_l);
        j.add("num_flops", r.flops);
        j.add("time_analyse", r.t_analyse);
        j.add("time_factor", r.t_factor);
        j.add("time_solve", r.t_solve);
        j.add("backward_error", r.berr);
        j.add("refine_steps", r.refine_steps);
        j.add("num_neg", r.num_neg);
        j.add("num_pos", r.num_pos);
        j.add("num_zero", r.num_zero);
        j.add("num_two", r.num_two);
        j.add("flag", r.flag);
        j.add_raw("warnings", r.notes.warnings_json());
      } else {
        j.add("error", r.error);
      }
      out += (k ? ", " : "") + j.str();
    }
    out += "]}";
    std::printf("%s\n", out.c_str());
  } else {
    std::printf("ssids compare %s\n", spec.c_str());
    std::printf("  n = %d, nnz (lower) = %lld, %s backend, %d thread%s, %s%s\n", n, static_cast<long long>(a.nnz()),
                backend, threads, threads == 1 ? "" : "s", mode == ssids::Mode::posdef ? "Cholesky" : "LDL^T",
                repeat > 1 ? (", median of " + std::to_string(repeat) + " runs").c_str() : "");
    std::printf("  %-11s %-8s %8s %11s %10s %9s %9s %9s %9s %8s  %s\n", "scaling", "ordering", "delays", "nnz(L)", "flops",
                "analyse s", "factor s", "a+f s", "solve s", "berr", "num_neg");
    for (size_t k = 0; k < combos.size(); ++k) {
      const Combo& c = combos[k];
      const Result& r = results[k];
      if (!r.ok) {
        std::printf("  %-11s %-8s FAILED: %s\n", c.scaling.c_str(), c.ordering.c_str(), r.error.c_str());
        continue;
      }
      std::printf("  %-11s %-8s %8d %11lld %10.3e %9.4f %9.4f %9.4f %9.4f %8.1e  %d%s%s\n", c.scaling.c_str(),
                  c.ordering.c_str(), r.delays, r.nnz_l, static_cast<double>(r.flops), r.t_analyse, r.t_factor,
                  r.t_analyse + r.t_factor, r.t_solve, r.berr, r.num_neg, c.note.empty() ? "" : "   (",
                  c.note.empty() ? "" : (c.note + ")").c_str());
    }
    if (failures) std::printf("  %d of %zu combinations failed\n", failures, combos.size());
    notes.print_info();
    std::fflush(stdout);
    notes.print_warnings("compare");
    for (size_t k = 0; k < combos.size(); ++k)
      for (const Note& w : results[k].notes.warnings())
        std::fprintf(stderr, "ssids compare: warning (%s/%s): %s\n", combos[k].scaling.c_str(),
                     combos[k].ordering.c_str(), w.message.c_str());
  }
  if (failures) std::fprintf(stderr, "ssids compare: %d of %zu combinations failed\n", failures, combos.size());
  return failures ? exit_status::error : exit_status::ok;
}

}  // namespace ssids_cli
