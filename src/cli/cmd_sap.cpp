// cmd_sap.cpp — `ssids sap`: solve a NONSYMMETRIC system with the SaP solver (include/ssids/sap.hpp):
// DB + CM reorderings, drop-off, banded SaP-D/SaP-C preconditioner, Krylov outer iteration. b = A*1 unless
// --rhs is given. The reported relative residual is recomputed here from the returned x, independently of
// the solver. Exit status 0 also when the iteration did not converge (see "status"/"converged").
#include <chrono>
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include "cli/cli.hpp"
#include "ssids/error.hpp"
#include "ssids/generate.hpp"
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
    "  --rhs FILE         right-hand side, Matrix Market array n x 1\n"
    "  --backend cpu|gpu|auto  where setup and the Krylov iteration run (default cpu; auto = gpu when present)\n"
    "  --mixed            GPU: preconditioner in single precision inside the double Krylov iteration\n"
    "  --json             one JSON object on stdout (times in seconds)\n";

double now_seconds() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

}  // namespace

int cmd_sap(int argc, char** argv) {
  Args args(argc, argv, 2, {"--json", "--help", "--no-db", "--no-scaling", "--third-stage", "--no-ul", "--mixed"});
  if (args.has("--help")) {
    std::fputs(sap_help, stdout);
    return 0;
  }
  args.check_known({"--json", "--help", "--no-db", "--no-scaling", "--third-stage", "--no-ul", "--mixed", "--partitions",
                    "--variant", "--drop", "--max-bandwidth", "--krylov", "--tol", "--atol", "--maxit", "--restart",
                    "--boost", "--rhs", "--backend"});
  if (args.positional().size() != 1) throw UsageError{"expected exactly one matrix (FILE or gen:SPEC)"};
  const std::string spec = args.positional()[0];
  const bool json = args.has("--json");

  ssids::sap::SapOptions o;
  o.partitions = static_cast<int>(args.get_long("--partitions", o.partitions, 1, 1 << 30));
  const std::string variant = args.get("--variant", "D");
  if (variant == "C" || variant == "c") o.variant = ssids::sap::Variant::coupled;
  else if (variant == "D" || variant == "d") o.variant = ssids::sap::Variant::decoupled;
  else throw UsageError{"--variant must be C or D"};
  o.drop = args.get_double("--drop", o.drop);
  if (o.drop < 0 || o.drop >= 1) throw UsageError{"--drop must be in [0, 1)"};
  o.max_bandwidth = static_cast<ssids::index_t>(args.get_long("--max-bandwidth", -1, -1, 1L << 30));
  const std::string kr = args.get("--krylov", "bicgstab2");
  if (kr == "bicgstab2") o.krylov = ssids::sap::Krylov::bicgstab2;
  else if (kr == "bicgstab") o.krylov = ssids::sap::Krylov::bicgstab;
  else if (kr == "gmres") o.krylov = ssids::sap::Krylov::gmres;
  else if (kr == "cg") o.krylov = ssids::sap::Krylov::cg;
  else throw UsageError{"--krylov must be bicgstab2, bicgstab, gmres or cg"};
  o.rtol = args.get_double("--tol", o.rtol);
  o.atol = args.get_double("--atol", o.atol);
  if (o.rtol < 0 || o.atol < 0) throw UsageError{"--tol and --atol must be >= 0"};
  o.max_iterations = static_cast<int>(args.get_long("--maxit", o.max_iterations, 0, 1 << 30));
  o.restart = static_cast<int>(args.get_long("--restart", o.restart, 1, 1 << 20));
  o.boost_epsilon = args.get_double("--boost", o.boost_epsilon);
  if (o.boost_epsilon < 0) throw UsageError{"--boost must be >= 0"};
  o.db = !args.has("--no-db");
  o.db_scaling = !args.has("--no-scaling");
  o.third_stage = args.has("--third-stage");
  o.use_ul = !args.has("--no-ul");
  const std::string be = args.get("--backend", "cpu");
  if (be == "cpu") o.backend = ssids::Backend::cpu;
  else if (be == "gpu") o.backend = ssids::Backend::gpu;
  else if (be == "auto") o.backend = ssids::Backend::automatic;
  else throw UsageError{"--backend must be cpu, gpu or auto"};
  o.mixed_precision = args.has("--mixed");

  double t0 = now_seconds();
  ssids::MatrixReport report;
  ssids::CsrMatrix a = ssids::load_general(spec, &report);
  const double time_read = now_seconds() - t0;
  if (a.nrow != a.ncol) throw ssids::Error(ssids::flag::bad_input, "the matrix must be square");
  const ssids::index_t n = a.nrow;

  std::vector<double> b(static_cast<std::size_t>(n)), x(static_cast<std::size_t>(n), 0.0);
  if (args.has("--rhs")) {
    ssids::DenseMatrix r = ssids::read_dense(args.get("--rhs", ""));
    if (r.nrow != n || r.ncol != 1)
      throw ssids::Error(ssids::flag::bad_input, "right-hand side file must be an n x 1 array");
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
  solver.setup(a, o, inf);
  solver.solve(b.data(), x.data(), inf);

  // independent residual check
  double rr = 0.0, bb = 0.0, err = 0.0;
  for (ssids::index_t i = 0; i < n; ++i) {
    double s = 0.0;
    for (ssids::offset_t p = a.ptr[i]; p < a.ptr[i + 1]; ++p) s += a.val[p] * x[a.col[p]];
    rr += (b[i] - s) * (b[i] - s);
    bb += b[i] * b[i];
    if (!args.has("--rhs")) err = std::fmax(err, std::fabs(x[i] - 1.0));
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
    if (!args.has("--rhs")) j.add("max_error", err);
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
    std::printf("%s\n", j.str().c_str());
  } else {
    std::printf("ssids sap %s\n", spec.c_str());
    std::printf("  n = %d, nnz = %lld, SaP-%s, %s, P = %d, %s%s\n", n, static_cast<long long>(a.nnz()),
                ssids::sap::variant_name(o.variant), ssids::sap::krylov_name(o.krylov), inf.partitions,
                inf.backend == ssids::Backend::gpu ? "GPU" : "CPU",
                o.mixed_precision ? " (single-precision preconditioner)" : "");
    std::printf("  half-bandwidth: input %d, after DB %d, after CM %d, preconditioner K = %d (max K_i %d), dropped %.3g\n",
                inf.k_input, inf.k_db, inf.k_cm, inf.bandwidth, inf.k_max_partition, inf.dropped_fraction);
    std::printf("  setup   %8.3f s   (DB %.3f, CM %.3f, drop %.3f, assemble %.3f, LU %.3f, spikes %.3f), %d boosted pivots\n",
                inf.time_setup, inf.time_db, inf.time_cm, inf.time_drop, inf.time_assemble, inf.time_lu,
                inf.time_spikes, inf.boosted_pivots);
    std::printf("  solve   %8.3f s   %s after %g iterations, relative residual %.3e\n", inf.time_solve,
                ssids::sap::status_name(inf.status), inf.iterations, rel);
  }
  return 0;
}

}  // namespace ssids_cli
