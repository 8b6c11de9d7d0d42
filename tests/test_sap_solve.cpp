// test_sap_solve.cpp — the SaP solver end to end (include/ssids/sap.hpp): exactness for P = 1 and for K
// covering the matrix, coupled vs decoupled iteration counts on generated banded systems, convergence on
// convection-diffusion, the Krylov variants, the reported residual against an independent recomputation,
// drop-off mass, third stage, update(), the dense banded entry point and its input errors, non-convergence
// statuses, the memory prediction and its limit, the dense-preconditioner flag, and the CLI. Seeds are
// those of the gen: specs (printed in INFO).
#include <doctest/doctest.h>

#include <cmath>
#include <string>
#include <vector>

#include "ssids/error.hpp"
#include "ssids/generate.hpp"
#include "sap/sap_gpu.hpp"
#include "ssids/sap.hpp"
#include "support.hpp"

using namespace ssids;
using namespace ssids::sap;

namespace {

std::vector<double> times_ones(const CsrMatrix& a) {
  std::vector<double> b(static_cast<std::size_t>(a.nrow), 0.0);
  for (index_t i = 0; i < a.nrow; ++i)
    for (offset_t p = a.ptr[i]; p < a.ptr[i + 1]; ++p) b[i] += a.val[p];
  return b;
}

double rel_residual(const CsrMatrix& a, const std::vector<double>& x, const std::vector<double>& b) {
  double rr = 0.0, bb = 0.0;
  for (index_t i = 0; i < a.nrow; ++i) {
    double s = 0.0;
    for (offset_t p = a.ptr[i]; p < a.ptr[i + 1]; ++p) s += a.val[p] * x[a.col[p]];
    rr += (b[i] - s) * (b[i] - s);
    bb += b[i] * b[i];
  }
  return std::sqrt(rr / bb);
}

struct Run {
  SapInform inf;
  std::vector<double> x;
  double rel = 0.0;
};

Run run(const CsrMatrix& a, const SapOptions& o) {
  Run r;
  std::vector<double> b = times_ones(a);
  r.x.assign(b.size(), 0.0);
  Solver s;
  s.setup(a, o, r.inf);
  s.solve(b.data(), r.x.data(), r.inf);
  r.rel = rel_residual(a, r.x, b);
  return r;
}

bool matching_works() {
  CsrMatrix a = generate_banded(4, 1, 1.0, 1);
  try {
    SapOptions o;
    SapInform inf;
    Solver s;
    s.setup(a, o, inf);
    return true;
  } catch (const Error& e) {
    return e.code() != flag::unimplemented;
  }
}

/// Band storage (ld 2K+1) of a banded CSR matrix.
std::vector<double> to_band(const CsrMatrix& a, index_t k) {
  const std::int64_t ld = 2 * k + 1;
  std::vector<double> band(static_cast<std::size_t>(a.nrow) * ld, 0.0);
  for (index_t i = 0; i < a.nrow; ++i)
    for (offset_t p = a.ptr[i]; p < a.ptr[i + 1]; ++p) band[(k + i - a.col[p]) + a.col[p] * ld] = a.val[p];
  return band;
}

}  // namespace

TEST_CASE("sap SaP-D and SaP-C are exact with one partition or a band covering the matrix") {
  const bool db = matching_works();
  for (Variant v : {Variant::decoupled, Variant::coupled}) {
    for (double d : {1.0, 0.1}) {
      INFO("variant " << std::string(variant_name(v)) << ", d = " << d << ", gen:banded:3000:6:d:11, db " << db);
      CsrMatrix a = generate_banded(3000, 6, d, 11);
      SapOptions o;
      o.variant = v;
      o.partitions = 1;
      o.rtol = 1e-12;
      o.db = db;
      Run r = run(a, o);
      CHECK(r.inf.status == Status::converged);
      CHECK(r.inf.partitions == 1);
      CHECK(r.inf.iterations <= 1.0);
      CHECK(r.rel < 1e-12);
    }
    // SaP-C with P = 2: one interface, no N_i / M_i terms to truncate (Eq. (6)), so the reduced system is exact
    if (v == Variant::coupled) {
      CsrMatrix a2 = generate_banded(3000, 6, 0.1, 12);
      SapOptions o2;
      o2.variant = v;
      o2.partitions = 2;
      o2.rtol = 1e-12;
      o2.db = false;
      Run r2 = run(a2, o2);
      INFO("SaP-C, P = 2, gen:banded:3000:6:0.1:12");
      CHECK(r2.inf.partitions == 2);
      CHECK(r2.inf.status == Status::converged);
      CHECK(r2.inf.iterations <= 1.0);
      CHECK(r2.rel < 1e-12);
    }
    // K covers the matrix: P is reduced to 1
    CsrMatrix a = generate_banded(30, 20, 0.5, 5);
    SapOptions o;
    o.variant = v;
    o.partitions = 8;
    o.rtol = 1e-12;
    o.db = false;
    Run r = run(a, o);
    CHECK(r.inf.partitions == 1);
    CHECK(r.inf.status == Status::converged);
    CHECK(r.inf.iterations == 0.25);  // BiCGStab(2) with an exact preconditioner: first exit point
    CHECK(r.rel < 1e-12);
  }
}

TEST_CASE("sap coupled beats decoupled on banded systems with small dominance") {
  for (double d : {1.0, 0.5, 0.1}) {
    INFO("gen:banded:20000:10:" << d << ":3, P = 16");
    CsrMatrix a = generate_banded(20000, 10, d, 3);
    SapOptions o;
    o.partitions = 16;
    o.db = false;
    o.rtol = 1e-10;
    o.max_iterations = 60;
    o.variant = Variant::decoupled;
    Run rd = run(a, o);
    o.variant = Variant::coupled;
    Run rc = run(a, o);
    MESSAGE("d = " << d << ": SaP-D " << rd.inf.iterations << " it (" << std::string(status_name(rd.inf.status)) << "), SaP-C "
                   << rc.inf.iterations << " it");
    CHECK(rc.inf.status == Status::converged);
    CHECK(rc.rel <= 1e-10 * 1.0001);
    CHECK(rc.inf.iterations <= rd.inf.iterations);
    if (d <= 0.5) CHECK(rc.inf.iterations < rd.inf.iterations);
  }
}

TEST_CASE("sap converges on convection-diffusion with DB + CM - both variants - all Krylov methods") {
  const bool db = matching_works();
  CsrMatrix a = load_general("gen:convdiff:50:20");
  for (Variant v : {Variant::decoupled, Variant::coupled}) {
    for (Krylov k : {Krylov::bicgstab2, Krylov::bicgstab, Krylov::gmres}) {
      INFO("gen:convdiff:50:20, variant " << std::string(variant_name(v)) << ", " << std::string(krylov_name(k)) << ", db " << db);
      SapOptions o;
      o.variant = v;
      o.krylov = k;
      o.partitions = 8;
      o.rtol = 1e-8;
      o.max_iterations = 400;
      o.db = db;
      Run r = run(a, o);
      CHECK(r.inf.status == Status::converged);
      CHECK(r.rel <= 1e-8);
      CHECK(r.inf.relative_residual == doctest::Approx(r.rel).epsilon(1e-6));
      if (db) CHECK(r.inf.k_db >= 0);
      CHECK(r.inf.k_cm <= r.inf.k_input);
    }
  }
}

TEST_CASE("sap CG converges on an SPD matrix") {
  CsrMatrix a = load_general("gen:laplace2d:30");
  SapOptions o;
  o.krylov = Krylov::cg;
  o.db = false;
  o.partitions = 4;
  o.rtol = 1e-10;
  o.max_iterations = 300;
  Run r = run(a, o);
  CHECK(r.inf.status == Status::converged);
  CHECK(r.rel <= 1e-10);
}

TEST_CASE("sap reported relative residual equals an independent recomputation") {
  CsrMatrix a = generate_banded(5000, 8, 0.3, 21);
  for (Variant v : {Variant::decoupled, Variant::coupled}) {
    SapOptions o;
    o.variant = v;
    o.db = false;
    o.partitions = 10;
    o.max_iterations = 3;  // may or may not converge: the residual must be right either way
    Run r = run(a, o);
    INFO("gen:banded:5000:8:0.3:21, variant " << std::string(variant_name(v)) << ", status " << std::string(status_name(r.inf.status)));
    CHECK(r.inf.relative_residual == doctest::Approx(r.rel).epsilon(1e-9));
  }
}

TEST_CASE("sap non-convergence returns iteration_limit with the best iterate and its residual") {
  CsrMatrix a = generate_banded(4000, 6, 0.02, 8);
  SapOptions o;
  o.variant = Variant::decoupled;
  o.db = false;
  o.partitions = 40;
  o.rtol = 1e-14;
  o.max_iterations = 2;
  for (Krylov k : {Krylov::bicgstab2, Krylov::bicgstab, Krylov::gmres}) {
    o.krylov = k;
    Run r = run(a, o);
    INFO("gen:banded:4000:6:0.02:8, " << std::string(krylov_name(k)));
    CHECK(r.inf.status == Status::iteration_limit);
    CHECK(r.inf.iterations <= 2.0);
    CHECK(r.rel <= 1.0);  // never worse than x = 0 (the best iterate is returned)
    CHECK(r.inf.relative_residual == doctest::Approx(r.rel).epsilon(1e-9));
  }
}

TEST_CASE("sap drop-off keeps the requested mass and the cap limits K") {
  CsrMatrix a = generate_banded(2000, 12, 1.0, 4);
  for (double drop : {0.0, 0.05, 0.3}) {
    SapOptions o;
    o.db = false;
    o.drop = drop;
    o.partitions = 4;
    SapInform inf;
    Solver s;
    s.setup(a, o, inf);
    INFO("drop = " << drop << ", K = " << inf.bandwidth);
    CHECK(inf.dropped_fraction <= drop + 1e-12);
    if (drop == 0.0) CHECK(inf.bandwidth == inf.k_cm);
    if (drop > 0.0) CHECK(inf.bandwidth < inf.k_cm);
    std::vector<double> b = times_ones(a), x(b.size());
    o.max_iterations = 200;
    s.solve(b.data(), x.data(), inf);
    CHECK(inf.status == Status::converged);
  }
  SapOptions o;
  o.db = false;
  o.max_bandwidth = 3;
  SapInform inf;
  Solver s;
  s.setup(a, o, inf);
  CHECK(inf.bandwidth == 3);
  CHECK(inf.dropped_fraction > 0.0);
}

TEST_CASE("sap third-stage reordering gives per-partition bandwidths and still converges") {
  CsrMatrix a = load_general("gen:convdiff:40:5");
  SapOptions o;
  o.db = false;
  o.third_stage = true;
  o.partitions = 4;
  o.rtol = 1e-8;
  o.max_iterations = 300;
  Run r = run(a, o);
  CHECK(r.inf.third_stage_applied);
  CHECK(r.inf.k_max_partition <= r.inf.bandwidth);
  CHECK(r.inf.status == Status::converged);
  CHECK(r.rel <= 1e-8);
}

TEST_CASE("sap update refactors new values on the same pattern") {
  CsrMatrix a = generate_banded(3000, 5, 0.5, 9);
  SapOptions o;
  o.db = matching_works();
  o.partitions = 6;
  o.variant = Variant::coupled;
  o.rtol = 1e-10;
  Solver s;
  SapInform inf;
  s.setup(a, o, inf);
  CsrMatrix a2 = a;
  for (std::size_t p = 0; p < a2.val.size(); ++p) a2.val[p] *= 1.0 + 0.1 * std::sin(static_cast<double>(p));
  s.update(a2, inf);
  std::vector<double> b = times_ones(a2), x(b.size());
  s.solve(b.data(), x.data(), inf);
  CHECK(inf.status == Status::converged);
  CHECK(rel_residual(a2, x, b) <= 1e-10);
  // many right-hand sides with one setup
  std::vector<double> b2(b.size());
  for (std::size_t i = 0; i < b2.size(); ++i) b2[i] = std::cos(static_cast<double>(i));
  s.solve(b2.data(), x.data(), inf);
  CHECK(rel_residual(a2, x, b2) <= 1e-10);
  // pattern change
  CsrMatrix a3 = generate_banded(3000, 4, 0.5, 9);
  CHECK_THROWS_AS(s.update(a3, inf), Error);
  Solver fresh;
  CHECK_THROWS_AS(fresh.solve(b.data(), x.data(), inf), Error);
}

TEST_CASE("sap dense banded entry point matches the sparse path and rejects inconsistent data") {
  const index_t n = 4000, k = 7;
  CsrMatrix a = generate_banded(n, k, 0.2, 31);
  std::vector<double> band = to_band(a, k);
  for (Variant v : {Variant::decoupled, Variant::coupled}) {
    SapOptions o;
    o.variant = v;
    o.partitions = 8;
    o.rtol = 1e-10;
    o.db = false;
    Solver s;
    SapInform inf;
    s.setup_banded(n, k, band.data(), o, inf);
    std::vector<double> b = times_ones(a), x(b.size());
    s.solve(b.data(), x.data(), inf);
    Run r = run(a, o);
    INFO("gen:banded:4000:7:0.2:31, variant " << std::string(variant_name(v)));
    CHECK(inf.status == Status::converged);
    CHECK(rel_residual(a, x, b) <= 1e-10);
    CHECK(inf.iterations == r.inf.iterations);
    CHECK(inf.partitions == 8);
    CHECK(inf.bandwidth == k);
  }
  SapOptions o;
  SapInform inf;
  Solver s;
  std::vector<double> bad = band;
  bad[0] = 1.0;  // slot above row 0 of column 0: outside the matrix
  try {
    s.setup_banded(n, k, bad.data(), o, inf);
    FAIL("no error");
  } catch (const Error& e) {
    CHECK(e.code() == flag::bad_input);
  }
  CHECK_THROWS_AS(s.setup_banded(5, 5, band.data(), o, inf), Error);  // K >= N
  CHECK_THROWS_AS(s.setup_banded(-1, 1, band.data(), o, inf), Error);
  bad = band;
  bad[static_cast<std::size_t>(2 * k + 1) * 10 + k] = NAN;
  try {
    s.setup_banded(n, k, bad.data(), o, inf);
    FAIL("no error");
  } catch (const Error& e) {
    CHECK(e.code() == flag::nan_inf);
  }
}

TEST_CASE("sap input errors: nonsquare - bad options - gpu backend - structurally singular") {
  CsrMatrix a = generate_banded(50, 2, 1.0, 1);
  SapInform inf;
  Solver s;
  SapOptions o;
  o.backend = Backend::gpu;
  if (!ssids::sap::detail::sap_gpu_available()) {
    try {
      s.setup(a, o, inf);
      FAIL("no error");
    } catch (const Error& e) {
      CHECK(e.code() == flag::no_cuda);
    }
  }
  o = SapOptions();
  o.mixed_precision = true;  // the CPU preconditioner is double only
  try {
    s.setup(a, o, inf);
    FAIL("no error");
  } catch (const Error& e) {
    CHECK(e.code() == flag::bad_input);
  }
  o = SapOptions();
  o.drop = 1.0;
  CHECK_THROWS_AS(s.setup(a, o, inf), Error);
  o = SapOptions();
  CsrMatrix ns = a;
  ns.ncol = 51;
  CHECK_THROWS_AS(s.setup(ns, o, inf), Error);
  CsrMatrix nan = a;
  nan.val[3] = NAN;
  try {
    s.setup(nan, o, inf);
    FAIL("no error");
  } catch (const Error& e) {
    CHECK(e.code() == flag::nan_inf);
  }
  if (matching_works()) {
    CsrMatrix sing;
    sing.nrow = sing.ncol = 3;
    sing.ptr = {0, 2, 4, 5};
    sing.col = {0, 2, 0, 2, 2};
    sing.val = {1.0, 1.0, 2.0, 1.0, 3.0};
    try {
      s.setup(sing, o, inf);
      FAIL("no error");
    } catch (const Error& e) {
      CHECK(e.code() == flag::singular);
    }
  }
  // n = 0
  CsrMatrix empty;
  empty.ptr = {0};
  s.setup(empty, o, inf);
  std::vector<double> none;
  CHECK(s.solve(none.data(), none.data(), inf) == Status::converged);
}

TEST_CASE("sap predicts the preconditioner's bytes and refuses above max_memory before allocating") {
  const CsrMatrix a = load_general("gen:banded:2000:50:1.5:3");
  SapOptions o;
  o.partitions = 4;
  SapInform inf;
  Solver s;
  s.setup(a, o, inf);
  // SaP-D: the bands of the partitions, n (2K + 1) doubles
  CHECK(inf.bandwidth == 50);
  CHECK(inf.preconditioner_bytes == 2000LL * 101 * 8);
  CHECK(inf.memory_limit == default_memory_limit());
  CHECK(inf.memory_limit > 0);
  CHECK(inf.largest_partition == 500);
  CHECK_FALSE(inf.dense_preconditioner);  // 101 < 500 / 2
  // SaP-C adds five K x K blocks and K pivots per interface, and the UL work copies
  o.variant = Variant::coupled;
  s.setup(a, o, inf);
  CHECK(inf.preconditioner_bytes >= 2000LL * 101 * 8 + 3LL * (5 * 8 * 50 * 50 + 4 * 50));
  // a limit below the prediction: Error(allocation) naming the bytes and a bandwidth that fits
  o.variant = Variant::decoupled;
  o.max_memory = 1000LL * 1000;
  std::string msg;
  try {
    s.setup(a, o, inf);
  } catch (const Error& e) {
    CHECK(e.code() == flag::allocation);
    msg = e.what();
  }
  INFO(msg);
  CHECK(msg.find(std::to_string(2000LL * 101 * 8) + " bytes") != std::string::npos);
  const auto at = msg.find("a cap of K = ");
  REQUIRE(at != std::string::npos);
  const long k = std::stol(msg.substr(at + 13));
  CHECK(2000LL * (2 * k + 1) * 8 <= 1000LL * 1000);
  CHECK(2000LL * (2 * k + 3) * 8 > 1000LL * 1000);  // the largest that fits
  o.max_bandwidth = static_cast<index_t>(k);
  s.setup(a, o, inf);
  CHECK(inf.preconditioner_bytes <= o.max_memory);
  // no limit; and the banded entry point is checked as well
  o.max_memory = -1;
  o.max_bandwidth = -1;
  s.setup(a, o, inf);
  CHECK(inf.memory_limit == -1);
  std::vector<double> band(static_cast<std::size_t>(300) * 201, 0.0);
  for (index_t j = 0; j < 300; ++j) band[100 + static_cast<std::size_t>(j) * 201] = 1.0;
  o.max_memory = 1000;
  CHECK_THROWS_AS(s.setup_banded(300, 100, band.data(), o, inf), Error);
  o.max_memory = 0;
  s.setup_banded(300, 100, band.data(), o, inf);
  CHECK(inf.dense_preconditioner);  // K = 100 in one partition of 300 rows
  CHECK(inf.partitions == 1);
}

TEST_CASE("sap CLI reports convergence and the JSON keys") {
  std::string out;
  const std::string cmd = ssids_test::cli_path() + " sap gen:banded:3000:5:0.5:2 --variant C --partitions 6 --tol 1e-10 --json";
  const int rc = ssids_test::run_command(cmd, out, false);
  INFO(cmd << "\n" << out);
  CHECK(rc == 0);
  for (const char* key : {"\"converged\": true", "\"status\": \"converged\"", "\"iterations\"", "\"relative_residual\"",
                          "\"bandwidth\": 5", "\"partitions\": 6", "\"time_setup\"", "\"time_solve\""})
    CHECK(out.find(key) != std::string::npos);
  CHECK(ssids_test::run_command(ssids_test::cli_path() + " sap gen:banded:100:2:1 --variant X", out) == 2);
  CHECK(ssids_test::run_command(ssids_test::cli_path() + " sap gen:banded:100:2:1 --backend gpu", out) ==
        (ssids::sap::detail::sap_gpu_available() ? 0 : 1));
  CHECK(ssids_test::run_command(ssids_test::cli_path() + " sap gen:banded:100:2:1 --backend tpu", out) == 2);
}
