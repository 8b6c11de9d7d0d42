// test_cli_checks.cpp — the `ssids` program tells the truth: files it cannot read unambiguously are
// refused with the line named (indices out of range, 'symmetric' files storing both triangles unless
// --symmetric-entries says how), every repair appears as a warning (JSON "warnings" with code and count,
// stderr in the text report) and normal conditions as information (missing diagonals of KKT matrices),
// exit statuses (sap's non-convergence is 3), sap's memory prediction and refusal, the dense
// preconditioner warning, numeric options checked against their ranges, unknown options, -h, -o/--output
// (plain and gzip round trips, write failures), --progress/--quiet, and the GPU backend without a driver.
#include <doctest/doctest.h>

#include <cmath>
#include <string>
#include <vector>

#include "ssids/generate.hpp"
#include "ssids/matrix_market.hpp"
#include "support.hpp"
#include "support_cli.hpp"

namespace {

using ssids_test::CliResult;
using ssids_test::quote;
using ssids_test::scratch;
using namespace ssids_test::cli_support;

/// [[5,2],[2,1]] (inertia 2 positive) written with both triangles in a 'symmetric' file.
const char* full_2x2 = "%%MatrixMarket matrix coordinate real symmetric\n2 2 4\n1 1 5\n1 2 2\n2 1 2\n2 2 1\n";

/// `ssids ARGS` is a usage error: status 2, one line on stderr holding `reason`, nothing on stdout.
void expect_usage_error(const std::string& args, const std::string& reason) {
  CAPTURE(args);
  CliResult r = cli(args);
  CAPTURE(r.err);
  CHECK(r.status == 2);
  CHECK(count_lines(r.err) == 1);
  CHECK(contains(r.err, reason));
  CHECK(r.out.empty());
}

}  // namespace

TEST_CASE("cli checks: an index out of range is an error naming the line - for every command that reads") {
  const std::vector<std::pair<std::string, std::string>> bad = {
      {"zero", "%%MatrixMarket matrix coordinate real symmetric\n4 4 4\n1 1 1\n0 1 1\n3 3 1\n4 4 1\n"},
      {"n_plus_1", "%%MatrixMarket matrix coordinate real symmetric\n4 4 4\n1 1 1\n2 2 1\n5 3 1\n4 4 1\n"},
      {"negative", "%%MatrixMarket matrix coordinate real symmetric\n4 4 4\n1 1 1\n2 2 1\n3 3 1\n4 -4 1\n"},
  };
  const std::vector<std::string> expect_line = {"line 4", "line 5", "line 6"};
  for (std::size_t k = 0; k < bad.size(); ++k) {
    const std::string path = scratch("oor_" + bad[k].first + ".mtx");
    write_text(path, bad[k].second);
    for (const std::string cmd : {"solve", "analyse", "compare", "sap", "repro"}) {
      for (const std::string extra : {"", " --json"}) {
        CAPTURE(bad[k].first);
        CAPTURE(cmd + extra);
        CliResult r = cli(cmd + " " + quote(path) + extra);
        CAPTURE(r.err);
        CHECK(r.status == 1);
        CHECK(count_lines(r.err) == 1);
        CHECK(contains(r.err, expect_line[k]));
        CHECK(contains(r.err, "is outside 1..4"));
        CHECK(r.out.empty());
      }
    }
  }
}

TEST_CASE("cli checks: a symmetric file storing both triangles is refused unless --symmetric-entries names a policy") {
  const std::string path = scratch("both_triangles.mtx");
  write_text(path, full_2x2);
  CliResult r = cli("solve " + quote(path) + " --json");
  CAPTURE(r.err);
  CHECK(r.status == 1);
  CHECK(count_lines(r.err) == 1);
  CHECK(contains(r.err, "line 5: entry (2,1) mirrors entry (1,2) on line 4"));
  CHECK(contains(r.err, "--symmetric-entries"));
  CHECK(r.out.empty());
  CHECK(cli("sap " + quote(path)).status == 1);  // the general reader of sap refuses it too

  // lower and upper take the value once: [[5,2],[2,1]], 2 positive; sum doubles it: [[5,4],[4,1]], 1 and 1
  for (const auto& [policy, pos] : std::vector<std::pair<std::string, int>>{{"lower", 2}, {"upper", 2}, {"sum", 1}}) {
    CAPTURE(policy);
    JsonObject j = json_of(cli("solve " + quote(path) + " --json --symmetric-entries " + policy));
    CHECK(j.integer("num_pos") == pos);
    CHECK(j.integer("num_neg") == 2 - pos);
    JsonObject w = note(j, "warnings", "mirrored_pairs_" + policy);
    REQUIRE(w.ok);
    CHECK(w.integer("count") == 1);
    CHECK(contains(w.str("message"), "both triangles"));
    // the text report says it on stderr
    CliResult t = cli("solve " + quote(path) + " --symmetric-entries " + policy);
    CHECK(t.status == 0);
    CHECK(contains(t.err, "warning: "));
    CHECK(contains(t.err, "--symmetric-entries " + policy));
  }
  CHECK(cli("solve " + quote(path) + " --symmetric-entries both").status == 2);
}

TEST_CASE("cli checks: repairs are warnings with codes and counts - missing diagonals of a KKT matrix are information") {
  // duplicates summed and an upper-only entry mirrored: both reported, in JSON and on stderr
  const std::string path = scratch("repairs.mtx");
  write_text(path, "%%MatrixMarket matrix coordinate real symmetric\n3 3 5\n1 1 4\n1 1 1\n1 3 1\n2 2 3\n3 3 6\n");
  JsonObject j = json_of(cli("solve " + quote(path) + " --json"));
  JsonObject dup = note(j, "warnings", "duplicates_summed");
  REQUIRE(dup.ok);
  CHECK(dup.integer("count") == 1);
  JsonObject up = note(j, "warnings", "upper_triangle_mirrored");
  REQUIRE(up.ok);
  CHECK(up.integer("count") == 1);
  CHECK(j.integer("num_pos") == 3);
  CliResult t = cli("solve " + quote(path));
  CHECK(t.status == 0);
  CHECK(count_lines(t.err) == 2);
  CHECK(contains(t.err, "summed"));
  CHECK(contains(t.err, "mirrored"));

  // a clean file: empty arrays, nothing on stderr
  JsonObject clean = json_of(cli("solve gen:laplace3d:5 --json"));
  CHECK(clean.raw.at("warnings") == "[]");
  CHECK(clean.raw.at("info") == "[]");

  // KKT: the zero (2,2) block is normal - information in the report, no warning
  const std::string kkt = scratch("kkt.mtx");
  REQUIRE(cli("generate kkt-qp 60 20 -o " + quote(kkt)).status == 0);
  JsonObject k = json_of(cli("solve " + quote(kkt) + " --json"));
  CHECK(k.raw.at("warnings") == "[]");
  JsonObject md = note(k, "info", "missing_diagonal");
  REQUIRE(md.ok);
  CHECK(md.integer("count") == 20);
  CliResult kt = cli("solve " + quote(kkt));
  CHECK(kt.status == 0);
  CHECK(kt.err.empty());
  CHECK(contains(kt.out, "note: 20 columns have no diagonal entry"));
  CliResult ka = cli("analyse " + quote(kkt));
  CHECK(ka.err.empty());
  CHECK(contains(ka.out, "note: 20 columns"));
}

TEST_CASE("cli checks: a singular matrix - rank - zero pivots and the warnings agree") {
  // [1 1; 1 1]: one zero pivot; the warning carries the count
  const std::string s = scratch("singular_2.mtx");
  write_text(s, "%%MatrixMarket matrix coordinate real symmetric\n2 2 3\n1 1 1\n2 1 1\n2 2 1\n");
  JsonObject j = json_of(cli("solve " + quote(s) + " --json"));
  CHECK(j.integer("matrix_rank") == 1);
  CHECK(j.integer("num_zero") == 1);
  JsonObject w = note(j, "warnings", "singular");
  REQUIRE(w.ok);
  CHECK(w.integer("count") == 1);
  // structurally singular: rows 2 and 3 only meet column 1, so the structural rank is 2
  const std::string t = scratch("struct_singular_3.mtx");
  write_text(t, "%%MatrixMarket matrix coordinate real symmetric\n3 3 3\n1 1 3\n2 1 0.1\n3 1 0.7\n");
  for (const std::string opts : {"", "--ordering metis", "--ordering amd --scaling none", "--small 1e-14"}) {
    CAPTURE(opts);
    JsonObject r = json_of(cli("solve " + quote(t) + " --json " + opts));
    CHECK(r.integer("matrix_rank") <= 2);
    CHECK(r.integer("num_zero") == 3 - r.integer("matrix_rank"));
    CHECK(r.integer("num_pos") + r.integer("num_neg") + r.integer("num_zero") == 3);
    CHECK(note(r, "warnings", "singular").ok);
  }
}

TEST_CASE("cli checks: sap exits 3 when it does not converge - and reports the same figures in text and JSON") {
  const std::string spec = "gen:convdiff:30:50 --maxit 1 --tol 1e-14 --partitions 8 --max-bandwidth 2";
  CliResult r = cli("sap " + spec + " --json");
  JsonObject j = json_of(r, 3);
  CHECK(j.raw.at("converged") == "false");
  CHECK(j.str("status") == "iteration_limit");
  CHECK(j.num("relative_residual") > 1e-14);
  CHECK(count_lines(r.err) == 1);
  CHECK(contains(r.err, "did not converge: iteration_limit"));
  CliResult t = cli("sap " + spec);
  CHECK(t.status == 3);
  char buf[64];
  std::snprintf(buf, sizeof buf, "relative residual %.3e", j.num("relative_residual"));
  CHECK(contains(t.out, buf));
  std::snprintf(buf, sizeof buf, "max error |x - 1| %.3e", j.num("max_error"));
  CHECK(contains(t.out, buf));
  // converged: status 0
  JsonObject ok = json_of(cli("sap gen:convdiff:30:5 --json"));
  CHECK(ok.raw.at("converged") == "true");
  CHECK(ok.num("relative_residual") <= 1e-6);
}

TEST_CASE("cli checks: sap predicts the band's memory and refuses above the limit with the bytes and a bandwidth that fits") {
  CliResult r = cli("sap gen:banded:3000:400:1 --max-memory 8M --json");
  CAPTURE(r.err);
  CHECK(r.status == 1);
  CHECK(count_lines(r.err) == 1);
  CHECK(r.out.empty());
  // the SaP-D band: n (2K + 1) doubles
  CHECK(contains(r.err, std::to_string(3000LL * 801 * 8) + " bytes"));
  CHECK(contains(r.err, "more than the limit of 8.0 MiB"));
  const auto at = r.err.find("--max-bandwidth ");
  REQUIRE(at != std::string::npos);
  const long fit = std::strtol(r.err.c_str() + at + 16, nullptr, 10);
  CHECK(fit > 0);
  CHECK(3000LL * (2 * fit + 1) * 8 <= 8LL << 20);
  // the suggestion works, and the report shows the prediction and the limit
  JsonObject j = json_of(cli("sap gen:banded:3000:400:1 --max-memory 8M --json --max-bandwidth " + std::to_string(fit)));
  CHECK(j.integer("preconditioner_bytes") <= 8LL << 20);
  CHECK(j.integer("memory_limit") == 8LL << 20);
  CHECK(j.integer("bandwidth") == fit);
  for (const std::string bad : {"abc", "-1", "12Q"}) CHECK(cli("sap gen:convdiff:10:1 --max-memory " + bad).status == 2);
}

TEST_CASE("cli checks: sap warns when the preconditioner is dense") {
  JsonObject j = json_of(cli("sap gen:banded:1100:300:1 --partitions 4 --json"));
  CHECK(j.integer("partitions") == 1);
  CHECK(j.raw.at("dense_preconditioner") == "true");
  JsonObject w = note(j, "warnings", "dense_preconditioner");
  REQUIRE(w.ok);
  CHECK(contains(w.str("message"), "single partition"));
  CHECK(note(j, "info", "partitions_reduced").ok);
  // a banded preconditioner of a long band: no warning
  JsonObject b = json_of(cli("sap gen:convdiff:40:5 --json"));
  CHECK(b.raw.at("warnings") == "[]");
}

TEST_CASE("cli checks: -o writes the solution - plain and gzip - for solve and sap") {
  for (const std::string name : {"x.mtx", "x.mtx.gz"}) {
    CAPTURE(name);
    const std::string out = scratch("solve_" + name);
    JsonObject j = json_of(cli("solve gen:kkt-qp:200:50 --nrhs 2 --json -o " + quote(out)));
    CHECK(j.str("output") == out);
    ssids::DenseMatrix x = ssids::read_dense(out);
    REQUIRE(x.nrow == 250);
    REQUIRE(x.ncol == 2);
    // b = A x_true with x_true = 1 in the first column: the residual of what was written is small
    const ssids::SymmetricMatrix a = ssids::load_symmetric("gen:kkt-qp:200:50");
    std::vector<double> ax(250);
    ssids::symmetric_multiply(a, x.val.data(), ax.data());
    std::vector<double> ones(250, 1.0), b(250);
    ssids::symmetric_multiply(a, ones.data(), b.data());
    double worst = 0.0;
    for (int i = 0; i < 250; ++i) worst = std::fmax(worst, std::fabs(ax[i] - b[i]));
    CHECK(worst < 1e-9);
    const std::string sx = scratch("sap_" + name);
    CliResult s = cli("sap gen:convdiff:30:5 --output " + quote(sx));
    CHECK(s.status == 0);
    ssids::DenseMatrix y = ssids::read_dense(sx);
    REQUIRE(y.nrow == 900);
    REQUIRE(y.ncol == 1);
    for (double v : y.val) CHECK(std::fabs(v - 1.0) < 1e-3);
  }
}

TEST_CASE("cli checks: write failures say so - not malformed input") {
  for (const std::string cmd : {"solve gen:laplace3d:4 -o /dev/full", "sap gen:convdiff:10:1 -o /dev/full",
                                "analyse gen:laplace3d:4 --save-order /dev/full",
                                "generate laplace3d 4 -o /dev/full"}) {
    CAPTURE(cmd);
    CliResult r = cli(cmd);
    CAPTURE(r.err);
    CHECK(r.status == 1);
    CHECK(count_lines(r.err) == 1);
    CHECK(contains(r.err, "cannot write"));
    CHECK(contains(r.err, "No space left on device"));
    CHECK_FALSE(contains(r.err, "malformed"));
  }
  // a missing folder is found before the work starts
  CliResult r = cli("solve gen:laplace3d:4 -o /nonexistent_dir_ssids/x.mtx");
  CHECK(r.status == 1);
  CHECK(contains(r.err, "cannot write /nonexistent_dir_ssids/x.mtx: no folder"));
  CHECK(r.out.empty());
}

TEST_CASE("cli checks: numeric options are checked against their ranges - the message gives range and value") {
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"solve gen:laplace3d:4 --u 5", "--u must be in [0, 0.5], got 5"},
      {"solve gen:laplace3d:4 --u -1", "--u must be in [0, 0.5], got -1"},
      {"solve gen:laplace3d:4 --small -1", "--small must be >= 0, got -1"},
      {"solve gen:laplace3d:4 --small inf", "--small must be >= 0, got inf"},
      {"solve gen:laplace3d:4 --amalgamation-zeros 0.6", "--amalgamation-zeros must be in [0, 0.5], got 0.6"},
      {"solve gen:laplace3d:4 --nemin 0", "--nemin must be between 1 and"},
      {"solve gen:laplace3d:4 --threads -2", "--threads must be between 0 and 4096, got -2"},
      {"analyse gen:laplace3d:4 --u 0.7", "--u must be in [0, 0.5], got 0.7"},
      {"compare gen:laplace3d:4 --small -3", "--small must be >= 0, got -3"},
      {"repro gen:laplace3d:4 --u 2", "--u must be in [0, 0.5], got 2"},
      {"sap gen:convdiff:10:1 --drop 1", "--drop must be in [0, 1), got 1"},
      {"sap gen:convdiff:10:1 --tol -1", "--tol must be >= 0, got -1"},
      {"sap gen:convdiff:10:1 --boost -1", "--boost must be >= 0, got -1"},
      {"sap gen:convdiff:10:1 --maxit -1", "--maxit must be between 0 and"},
      {"solve gen:laplace3d:4 --ordering foo", "--ordering must be matching, metis, amd, natural or an order file; 'foo'"},
      {"solve gen:laplace3d:4 --backend tpu", "--backend must be cpu, gpu or auto, got 'tpu'"},
  };
  for (const auto& [args, reason] : cases) expect_usage_error(args, reason);
  // the edges of the ranges are accepted
  CHECK(cli("solve gen:laplace3d:4 --u 0.5 --small 0 --json").status == 0);
  CHECK(cli("solve gen:laplace3d:4 --u 0 --json").status == 0);
}

TEST_CASE("cli checks: unknown options - a trailing option - -h") {
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"solve gen:laplace3d:4 --bogus", "unknown option --bogus"},
      {"sap gen:convdiff:10:1 --bogus", "unknown option --bogus"},
      {"analyse gen:laplace3d:4 -x", "unknown option -x"},
      {"solve gen:laplace3d:4 --rhs", "option --rhs needs a value"},
  };
  for (const auto& [args, reason] : cases) expect_usage_error(args, reason);
  for (const std::string cmd : {"solve", "analyse", "sap", "compare", "repro", "generate", "demo"}) {
    CAPTURE(cmd);
    CliResult h = cli(cmd + " -h");
    CHECK(h.status == 0);
    CHECK(contains(h.out, "usage: ssids " + cmd));
    CHECK(h.err.empty());
  }
  // the main help documents the exit statuses
  CHECK(contains(cli("--help").out, "3 `sap` did not converge"));
}

TEST_CASE("cli checks: --progress prints the phases on stderr - --quiet and a pipe print none") {
  CliResult p = cli("solve gen:laplace3d:6 --progress");
  CHECK(p.status == 0);
  for (const char* phase : {"ssids solve: reading gen:laplace3d:6", "analysing", "factorizing", "solving"})
    CHECK_MESSAGE(contains(p.err, phase), phase);
  CliResult c = cli("compare gen:laplace3d:5 --scalings none,matching --orderings metis --progress");
  CHECK(c.status == 0);
  CHECK(contains(c.err, "combination 2 of 2 (matching/metis): factorizing"));
  CHECK(cli("solve gen:laplace3d:6 --progress --quiet").err.empty());
  CHECK(cli("solve gen:laplace3d:6").err.empty());  // stderr is not a terminal here
}

TEST_CASE("cli checks: the GPU backend without a device or driver says so") {
  CliResult v = cli("--version");
  REQUIRE(v.status == 0);
  CliResult r = cli("solve gen:laplace3d:6 --backend gpu");
  if (r.status == 0) {
    MESSAGE("a GPU is present: nothing to check");
    return;
  }
  CAPTURE(r.err);
  CHECK(r.status == 1);
  CHECK(count_lines(r.err) == 1);
  if (contains(v.out, "not built"))
    CHECK(contains(r.err, "built without CUDA"));
  else
    CHECK(contains(r.err, "no CUDA-capable device or driver found"));
}

TEST_CASE("cli checks: a CPU solve neither loads cuBLAS nor needs it - the GPU path opens it on first use") {
  // the dynamic loader lists every library it opens (LD_DEBUG=files); libcublas must not be among them
  CliResult r = ssids_test::run_cli("solve gen:laplace2d:12 --backend cpu", "LD_DEBUG=files");
  CHECK(r.status == 0);
  REQUIRE(contains(r.err, "file="));  // the loader did report (else this test could not fail)
  CHECK(!contains(r.err, "libcublas"));
  CHECK(!contains(r.err, "libcublasLt"));
}
