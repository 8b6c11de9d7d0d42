// cmd_sap.cpp — `ssids sap`: solve a NONSYMMETRIC system with the SaP solver (include/ssids/sap.hpp):
// DB + CM reorderings, drop-off, banded SaP-D/SaP-C preconditioner, Krylov outer iteration. b = A*1 unless
// --rhs is given. The reported relative residual is recomputed here from the returned x, independently of
// the solver. Exit status 3 (exit_status::not_converged) when the iteration stopped without reaching the
// tolerance; the report is printed and the best iterate written (-o) all the same.
#include <chrono>
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include "cli/cli.hpp"
#include "cli/load.hpp"
#include "cli/notes.hpp"
#include "cli/progress.hpp"
#include "ssids/error.hpp"
#include "ssids/matrix_market.hpp"
#include "ssids/sap.hpp"

namespace ssids_cli {

namespace {

const char* sap_help =
    "usage: ssids sap FILE|gen:SPEC [options]\n"
    "Solves a general (nonsymmetric) system A x = b with SaP (split and parallelize; Li, Serban, Negrut 2015):\n"
    "diagonal boosting + Cuthill-McKee reorderings, drop-off, a banded partitioned preconditioner (SaP-D\n"
    "decoupled or SaP-C coupled / truncated SPIKE) and a Krylov method. b = A*1 unless --rhs is given.\n"
    "Matrices: a Matrix Market file, or gen:banded:N:K:D[:SEED], gen:convdiff:K:PECLET, or a symmetric kind.\n"
    "  --partitions P     number of diagonal blocks (default 16; reduced so every block has >= 2K rows)\n"
    "  --variant C|D      coupled (truncated spikes) or decoupled (default D)\n"
    "  --drop FRACTION    share of the squared Frobenius norm the band may drop (default 0)\n"
    "  --max-bandwidth K  cap on the half-bandwidth of the preconditioner\n"
    "  --krylov bicgstab2|bicgstab|gmres|cg   outer method (default bicgstab2)\n"
    "  --tol T            relative tolerance on ||b - A x||_2 / ||b||_2 (default 1e-6)\n"
    "  --atol T           absolute tolerance (default 0)\n"
    "  --maxit N          iteration limit (default 100; BiCGStab(2) iterations counted in quarters)\n"
    "  --restart M        GMRES restart (default 50)\n"
    "  --boost EPS        pivot boosting threshold relative to max|A_i| (default 1e-8)\n"
    "  --no-db            no diagonal boosting row permutation\n"
    "  --no-scaling       diagonal boosting without the matching scalings\n"
    "  --third-stage      per-partition Cuthill-McKee (SaP-D only)\n"
    "  --no-ul            SaP-C: spike tops from full LU solves instead of a UL factorization\n"
    "  --max-memory BYTES limit on the preconditioner's memory, predicted before allocating (suffix K, M, G\n"
    "                     or T for powers of 1024; default: half of the physical memory; 0: no limit);\n"
    "                     above it the command stops with the bytes needed and a bandwidth that fits\n"
    "  --rhs FILE         right-hand side, Matrix Market array n x 1\n"
    "  -o, --output FILE  write the solution x (Matrix Market array n x 1; gzip when FILE ends in .gz)\n"
    "  --backend cpu|gpu|auto  where setup and the Krylov iteration run (default cpu; auto = gpu when present)\n"
    "  --mixed            GPU: preconditioner in single precision inside the double Krylov iteration\n"
    "  --json             one JSON object on stdout (times in seconds; \"warnings\" and \"info\" arrays)\n";
const char* sap_exit_help =
    "Exit status 3 when the iteration stops without reaching the tolerance (iteration limit, breakdown, NaN):\n"
    "the report is printed and the best iterate written all the same.\n";

/// A whole number of bytes with an optional binary suffix K, M, G, T ("512M").
std::int64_t parse_bytes(const Args& args, const std::string& key) {
  const std::string v = args.get(key, "");
  char* end = nullptr;
  const double x = std::strtod(v.c_str(), &end);
  std::string unit(end ? end : "");
  double scale = 1.0;
  if (unit == "K" || unit == "k") scale = 1024.0;
  else if (unit == "M") scale = 1048576.0;
  else if (unit == "G") scale = 1073741824.0;
  else if (unit == "T") scale = 1099511627776.0;
  else if (!unit.empty()) scale = -1.0;
  const double bytes = x * scale;
  if (v.empty() || end == v.c_str() || scale < 0 || !(bytes >= 0) || bytes > 9.2e18)
    throw UsageError{key + " must be a number of bytes >= 0 with an optional suffix K, M, G or T, got '" + v + "'"};
  return static_cast<std::int64_t>(bytes);
}

/// "8.00 GiB" style.
std::string bytes_text(double b) {
  char buf[48];
  if (b >= 1073741824.0) std::snprintf(buf, sizeof buf, "%.2f GiB", b / 1073741824.0);
  else if (b >= 1048576.0) std::snprintf(buf, sizeof buf, "%.1f MiB", b / 1048576.0);
  else std::snprintf(buf, sizeof buf, "%.0f KiB", b / 1024.0);
  return buf;
}

/// The dense preconditioner stays quiet below this size of the largest partition: dense blocks of a
/// thousand rows or more cost seconds to factor and grow with the cube of their size.
constexpr ssids::index_t kDenseWarningRows = 1000;

double now_seconds() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

ssids::sap::SapOptions sap_options(const Args& args) {
  ssids::sap::SapOptions o;
  o.partitions = static_cast<int>(args.get_long("--partitions", o.partitions, 1, 1 << 30));
  const std::string variant = args.get("--variant", "D");
  if (variant == "C" || variant == "c") o.variant = ssids::sap::Variant::coupled;
  else if (variant == "D" || variant == "d") o.variant = ssids::sap::Variant::decoupled;
  else throw UsageError{"--variant must be C or D, got '" + variant + "'"};
  o.drop = args.get_double("--drop", o.drop, Range{0.0, 1.0, true});
  o.max_bandwidth = static_cast<ssids::index_t>(args.get_long("--max-bandwidth", -1, -1, 1L << 30));
  const std::string kr = args.get("--krylov", "bicgstab2");
  if (kr == "bicgstab2") o.krylov = ssids::sap::Krylov::bicgstab2;
  else if (kr == "bicgstab") o.krylov = ssids::sap::Krylov::bicgstab;
  else if (kr == "gmres") o.krylov = ssids::sap::Krylov::gmres;
  else if (kr == "cg") o.krylov = ssids::sap::Krylov::cg;
  else throw UsageError{"--krylov must be bicgstab2, bicgstab, gmres or cg, got '" + kr + "'"};
  o.rtol = args.get_double("--tol", o.rtol, Range{0.0, HUGE_VAL});
  o.atol = args.get_double("--atol", o.atol, Range{0.0, HUGE_VAL});
  o.max_iterations = static_cast<int>(args.get_long("--maxit", o.max_iterations, 0, 1 << 30));
  o.restart = static_cast<int>(args.get_long("--restart", o.restart, 1, 1 << 20));
  o.boost_epsilon = args.get_double("--boost", o.boost_epsilon, Range{0.0, HUGE_VAL});
  o.db = !args.has("--no-db");
  o.db_scaling = !args.has("--no-scaling");
  o.third_stage = args.has("--third-stage");
  o.use_ul = !args.has("--no-ul");
  const std::string be = args.get("--backend", "cpu");
  if (be == "cpu") o.backend = ssids::Backend::cpu;
  else if (be == "gpu") o.backend = ssids::Backend::gpu;
  else if (be == "auto") o.backend = ssids::Backend::automatic;
  else throw UsageError{"--backend must be cpu, gpu or auto, got '" + be + "'"};
  o.mixed_precision = args.has("--mixed");
  if (args.has("--max-memory")) {
    const std::int64_t limit = parse_bytes(args, "--max-memory");
    o.max_memory = limit == 0 ? -1 : limit;
  }
  return o;
}

/// What the setup did that the user should know: a dense preconditioner (warning), fewer partitions
/// than asked, boosted pivots (information).
void add_setup_notes(const ssids::sap::SapOptions& o, const ssids::sap::SapInform& inf, Notes& notes) {
  if (inf.dense_preconditioner && inf.largest_partition >= kDenseWarningRows)
    notes.warn("dense_preconditioner", inf.largest_partition,
               "the preconditioner is dense: half-bandwidth K = " + std::to_string(inf.bandwidth) +
                   (inf.dropped_fraction > 0 ? " after drop-off" : " (nothing dropped)") + " in " +
                   (inf.partitions == 1 ? std::string("a single partition") : std::to_string(inf.partitions) + " partitions") +
                   " of up to " + std::to_string(inf.largest_partition) + " rows (" +
                   bytes_text(static_cast<double>(inf.preconditioner_bytes)) + ", about " +
                   [&] {
                     char b[32];
                     std::snprintf(b, sizeof b, "%.2g", 2.0 * inf.n * static_cast<double>(inf.bandwidth) * inf.bandwidth);
                     return std::string(b);
                   }() +
                   " flops to factor); --drop or --max-bandwidth makes it banded");
  if (inf.partitions < o.partitions && inf.n > 0)
    notes.inform("partitions_reduced", o.partitions - inf.partitions,
                 std::to_string(o.partitions) + " partitions asked, " + std::to_string(inf.partitions) +
                     " used: each partition needs at least 2K = " + std::to_string(2 * inf.bandwidth) + " rows");
  const long long boosted = static_cast<long long>(inf.boosted_pivots) + inf.boosted_pivots_ul;
  if (boosted > 0)
    notes.inform("boosted_pivots", boosted,
                 std::to_string(boosted) + " small pivot(s) of the partitions' LU replaced by +-boost * max|A_i| "
                 "(pivot boosting; the Krylov iteration corrects for it)");
}

}  // namespace

int cmd_sap(int argc, char** argv) {
  const std::vector<std::string> flags = {"--json", "--help", "--no-db", "--no-scaling", "--third-stage", "--no-ul",
                                          "--mixed", "--quiet", "--progress"};
  Args args(argc, argv, 2, flags);
  if (args.has("--help")) {
    std::printf("%s%s%s", sap_help, input_option_help, sap_exit_help);
    return exit_status::ok;
  }
  std::vector<std::string> known = flags;
  known.insert(known.end(), input_option_keys.begin(), input_option_keys.end());
  known.insert(known.end(), {"--partitions", "--variant", "--drop", "--max-bandwidth", "--krylov", "--tol", "--atol",
                             "--maxit", "--restart", "--boost", "--rhs", "--backend", "--max-memory", "--output"});
  args.check_known(known);
  if (args.positional().size() != 1) throw UsageError{"expected exactly one matrix (FILE or gen:SPEC)"};
  const std::string spec = args.positional()[0];
  const bool json = args.has("--json");
  const ssids::sap::SapOptions o = sap_options(args);
  const ssids::SymmetricEntries policy = symmetric_entries_option(args);
  const std::string output = args.get("--output", "");
  if (args.has("--output") && output.empty()) throw UsageError{"--output needs a file name"};
  if (!output.empty()) check_output_path(output);

  Progress progress("sap", Progress::mode_of(args));
  Notes notes;
  progress.phase("reading " + spec);
  double t0 = now_seconds();
  ssids::CsrMatrix a = load_general_problem(spec, policy, notes);
  const double time_read = now_seconds() - t0;
  if (a.nrow != a.ncol)
    throw ssids::Error(ssids::flag::bad_input, "the matrix must be square, " + spec + " is " + std::to_string(a.nrow) +
                                                   " x " + std::to_string(a.ncol));
  const ssids::index_t n = a.nrow;

  std::vector<double> b(static_cast<std::size_t>(n)), x(static_cast<std::size_t>(n), 0.0);
  const bool given_rhs = args.has("--rhs");
  if (given_rhs) {
    ssids::DenseMatrix r = read_rhs(args.get("--rhs", ""), n, true);
    b.assign(r.val.begin(), r.val.end());
  } else {
    for (ssids::index_t i = 0; i < n; ++i) {
      double s = 0.0;
      for (ssids::offset_t p = a.ptr[i]; p < a.ptr[i + 1]; ++p) s += a.val[p];
      b[i] = s;
    }
  }

  ssids::sap::Solver solver;
  ssids::sap::SapInform inf;
  progress.phase("setting up the preconditioner");
  solver.setup(a, o, inf);
  progress.phase("iterating");
  solver.solve(b.data(), x.data(), inf);
  if (!output.empty()) {
    progress.phase("writing " + output);
    write_solution(output, n, 1, x.data());
  }
  progress.done();
  add_setup_notes(o, inf, notes);

  // independent residual check
  double rr = 0.0, bb = 0.0, err = 0.0;
  for (ssids::index_t i = 0; i < n; ++i) {
    double s = 0.0;
    for (ssids::offset_t p = a.ptr[i]; p < a.ptr[i + 1]; ++p) s += a.val[p] * x[a.col[p]];
    rr += (b[i] - s) * (b[i] - s);
    bb += b[i] * b[i];
    if (!given_rhs) err = std::fmax(err, std::fabs(x[i] - 1.0));
  }
  const double rel = bb > 0 ? std::sqrt(rr / bb) : std::sqrt(rr);
  const bool converged = inf.status == ssids::sap::Status::converged;

  if (json) {
    Json j;
    j.add("input", spec);
    j.add("n", n);
    j.add("nnz", static_cast<long long>(a.nnz()));
    j.add_bool("converged", converged);
    j.add("status", std::string(ssids::sap::status_name(inf.status)));
    j.add("iterations", inf.iterations);
    j.add("preconditioner_applications", static_cast<long long>(inf.preconditioner_applications));
    j.add("relative_residual", rel);
    j.add("solver_relative_residual", inf.relative_residual);
    if (!given_rhs) j.add("max_error", err);
    j.add("tol", o.rtol);
    j.add("atol", o.atol);
    j.add("variant", std::string(ssids::sap::variant_name(o.variant)));
    j.add("backend", std::string(inf.backend == ssids::Backend::gpu ? "gpu" : "cpu"));
    j.add_bool("mixed_precision", o.mixed_precision);
    j.add("time_upload", inf.time_upload);
    j.add("krylov", std::string(ssids::sap::krylov_name(o.krylov)));
    j.add("bandwidth", inf.bandwidth);
    j.add("k_input", inf.k_input);
    j.add("k_db", inf.k_db);
    j.add("k_cm", inf.k_cm);
    j.add("k_max_partition", inf.k_max_partition);
    j.add("dropped_fraction", inf.dropped_fraction);
    j.add("partitions", inf.partitions);
    j.add("partitions_requested", o.partitions);
    j.add("largest_partition", inf.largest_partition);
    j.add_bool("dense_preconditioner", inf.dense_preconditioner);
    j.add("preconditioner_bytes", static_cast<long long>(inf.preconditioner_bytes));
    j.add("memory_limit", static_cast<long long>(inf.memory_limit));
    j.add("boosted_pivots", inf.boosted_pivots);
    j.add("time_read", time_read);
    j.add("time_setup", inf.time_setup);
    j.add("time_db", inf.time_db);
    j.add("time_cm", inf.time_cm);
    j.add("time_drop", inf.time_drop);
    j.add("time_third_stage", inf.time_third_stage);
    j.add("time_assemble", inf.time_assemble);
    j.add("time_lu", inf.time_lu);
    j.add("time_spikes", inf.time_spikes);
    j.add("time_solve", inf.time_solve);
    if (!output.empty()) j.add("output", output);
    notes.to_json(j);
    std::printf("%s\n", j.str().c_str());
  } else {
    std::printf("ssids sap %s\n", spec.c_str());
    std::printf("  n = %d, nnz = %lld, SaP-%s, %s, P = %d (of %d asked), %s%s\n", n, static_cast<long long>(a.nnz()),
                ssids::sap::variant_name(o.variant), ssids::sap::krylov_name(o.krylov), inf.partitions, o.partitions,
                inf.backend == ssids::Backend::gpu ? "GPU" : "CPU",
                o.mixed_precision ? " (single-precision preconditioner)" : "");
    std::printf("  half-bandwidth: input %d, after DB %d, after CM %d, preconditioner K = %d (max K_i %d), dropped %.3g\n",
                inf.k_input, inf.k_db, inf.k_cm, inf.bandwidth, inf.k_max_partition, inf.dropped_fraction);
    std::printf("  preconditioner %s (limit %s), largest partition %d rows%s\n",
                bytes_text(static_cast<double>(inf.preconditioner_bytes)).c_str(),
                inf.memory_limit < 0 ? "none" : bytes_text(static_cast<double>(inf.memory_limit)).c_str(),
                inf.largest_partition, inf.dense_preconditioner ? ", dense" : "");
    std::printf("  setup   %8.3f s   (DB %.3f, CM %.3f, drop %.3f, assemble %.3f, LU %.3f, spikes %.3f), %d boosted pivots\n",
                inf.time_setup, inf.time_db, inf.time_cm, inf.time_drop, inf.time_assemble, inf.time_lu,
                inf.time_spikes, inf.boosted_pivots);
    std::printf("  solve   %8.3f s   %s after %g iterations (%lld preconditioner applications)\n", inf.time_solve,
                ssids::sap::status_name(inf.status), inf.iterations,
                static_cast<long long>(inf.preconditioner_applications));
    std::printf("  relative residual %.3e (solver's %.3e; tolerance %.3g)", rel, inf.relative_residual, o.rtol);
    if (!given_rhs) std::printf(", max error |x - 1| %.3e", err);
    std::printf("\n");
    if (!output.empty()) std::printf("  solution written to %s\n", output.c_str());
    notes.print_info();
    std::fflush(stdout);
    notes.print_warnings("sap");
  }
  if (!converged) {
    std::fprintf(stderr, "ssids sap: did not converge: %s after %g iterations, relative residual %.3e > tolerance %.3g%s\n",
                 ssids::sap::status_name(inf.status), inf.iterations, rel, o.rtol,
                 output.empty() ? "" : " (the best iterate was written all the same)");
    return exit_status::not_converged;
  }
  return exit_status::ok;
}

}  // namespace ssids_cli
