// test_spral_diff.cpp — SPRAL drop-in fidelity, proven against SPRAL itself (issue 27).
//
// HOW. The same call script runs against our libssids and against SPRAL 2025.09.18's libspral.so
// ($SSIDS_SPRAL_LIB; .ci/run installs it from PyPI), and after every call every field of the inform
// struct, the handles and every output array are compared. Both libraries export the same spral_ssids_*
// symbols and link different METIS builds (Debian's 5.1 for ours, the wheel's 5.2 for SPRAL), so they never
// share a process: tests/spral_diff/runner.cpp, a program that links neither, dlopen()s ONE library and
// executes the script, once per library, as two child processes. Two processes were chosen over
// dlmopen(LM_ID_NEWLM) namespaces in one process because each namespace would load its own libc, libgomp
// and libgfortran: OpenMP runtimes do not coexist reliably that way, glibc's static-TLS surplus for
// dlmopen'ed libraries with initial-exec TLS (libgomp's) is small and exhausted quickly, and SPRAL's
// environment requirements (OMP_CANCELLATION=TRUE, checked when its OpenMP runtime starts) would then apply
// to ours as well. Separate processes also survive a crash of either library and give each its own
// LD_LIBRARY_PATH (SPRAL must find its own libmetis.so, not Debian's).
// Without $SSIDS_SPRAL_LIB every case reports SKIPPED (exit 77), never passed; .ci/run fails when they are
// skipped there.
//
// COMPARISON CLASSES (spral_diff::Expect; harness.cpp applies them):
//  * EQUAL, always: inform.flag, matrix_dup, matrix_outrange, matrix_missing_diag, stat, cuda_error,
//    cublas_error, which handles are NULL, the return value of the free functions, the default options,
//    the version string. They depend only on the input and the call sequence, and SPRAL's conventions for
//    them are documented (README, "The C interface"), so any difference is a defect of ours.
//  * EQUAL where the pivot order is the same: a user order (ordering 0), SPRAL's own METIS order given back
//    as one included: num_sup and maxdepth, and, where neither side delayed a pivot, maxfront, maxsupernode,
//    num_factor and num_flops, and the order analyse returns. The C interface builds SPRAL's tree with
//    SPRAL's rule and counts with SPRAL's definitions, so for one order these are functions of the pattern.
//    (Delayed pivots change the fronts, and delays depend on the pivot sequence: see MAY DIFFER.)
//  * EQUAL, inertia: matrix_rank and num_neg on nonsingular matrices (Sylvester's law of inertia: they are
//    properties of the matrix, not of the pivot sequence) and on the singular test matrices, whose zero
//    pivots are exact. Not where u <= 0 turns the stability test off (the scenario says why).
//  * EQUAL, factors (to a relative x_tol): where the factorization has no pivoting choice (positive-
//    definite matrices in one order, diagonal matrices): partial solves, enquire's d and piv_order, alter.
//  * SAME MEANING: solutions of nonsingular systems, equal to a relative x_tol (1e-10 on these well-
//    conditioned matrices): different pivots round differently; the order analyse returns under METIS or
//    the matching ordering (a permutation in both); a call that SPRAL crashes on or a value it accepts and
//    we reject (the scenario names the flag we return, and why: README lists these).
//  * MAY DIFFER, with the reason given by the scenario: num_two, num_delay, and the front statistics of a
//    factorization with delayed pivots (our pivot sequence is threshold partial pivoting, SPRAL's a-posteriori
//    block pivoting: both are stable, neither is unique); the tree under METIS (Debian's METIS 5.1 and the
//    wheel's METIS 5.2 order the same graph differently) and under the matching ordering (ours is our own
//    implementation of Hogg & Scott's method); computed scalings other than MC64's (the auction is
//    approximate, equilibration iterative); enquire's d and piv_order after pivoting choices; solutions of
//    singular systems; output arrays of a call that failed.
// Every difference the classes do not allow fails the test with both traces printed.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <sstream>
#include <string>
#include <vector>

#include "spral_diff/harness.hpp"
#include "ssids/generate.hpp"
#include "support.hpp"

using spral_diff::doc_matrix;
using spral_diff::Expect;
using spral_diff::indefinite;
using spral_diff::Script;

namespace {

/// b = A (1, 2, ..., n): a right-hand side with a known solution.
std::vector<double> rhs_of(const ssids::SymmetricMatrix& a) {
  std::vector<double> x(a.n), b(a.n);
  for (int i = 0; i < a.n; ++i) x[i] = i + 1.0;
  ssids::symmetric_multiply(a, x.data(), b.data());
  return b;
}

/// The expectation of a positive-definite matrix factorized as such, with a reproducible order.
Expect posdef() {
  Expect e;
  e.same_pivots = true;
  e.same_factors = true;
  return e;
}

/// Every entry point on one matrix: analyse (form), factor, solve1, solve with 2 columns and ldx > n, the
/// four partial solves, enquire, free. `base` is array_base.
void every_call(Script& s, const ssids::SymmetricMatrix& a, int base, const std::string& form, bool pd) {
  s.opt("array_base", base);
  if (form == "coord") s.coord(a, base);
  else s.csc(a, base);
  s.call("analyse form=" + form + " n=" + std::to_string(a.n));
  s.call(std::string("factor posdef=") + (pd ? "1" : "0") + (form == "ptr32" ? " form=ptr32" : ""));
  const std::vector<double> b = rhs_of(a);
  s.set("x", b).call("solve1 job=0");
  std::vector<double> two(b);
  two.push_back(0.0);  // ldx = n + 1
  for (double v : b) two.push_back(2.0 * v);
  two.push_back(0.0);
  s.set("x", two).call("solve job=0 nrhs=2 ldx=" + std::to_string(a.n + 1));
  for (int job = 1; job <= 4; ++job) {
    s.set("x", b).call("solve1 job=" + std::to_string(job));
  }
  if (pd) s.call("enquire_posdef");
  else s.call("enquire_indef");
  s.call("free");
}

}  // namespace

TEST_SUITE("spral") {

TEST_CASE("spral: default options and the version string") {
  Script s;
  s.call("version").call("opt defaults");
  spral_diff::check_same(s);
}

TEST_CASE("spral: every entry point on SPRAL's documentation matrix in every input form and base") {
  for (std::string form : {"ptr64", "ptr32", "coord", "topology"})
    for (int base : {0, 1}) {
      CAPTURE(form);
      CAPTURE(base);
      Script s;
      s.expect = indefinite();
      every_call(s, doc_matrix(), base, form, false);
      if (!spral_diff::check_same(s)) return;
    }
}

TEST_CASE("spral: every entry point on a positive-definite matrix in a user order") {
  const ssids::SymmetricMatrix a = ssids::generate_laplace2d(7);
  for (int base : {0, 1}) {
    CAPTURE(base);
    Script s;
    s.expect = posdef();
    s.expect.same_order = true;
    s.opt("ordering", 0);
    std::vector<long long> order(a.n);
    for (int i = 0; i < a.n; ++i) order[i] = (i * 17) % a.n + base;  // a permutation (17 and 49 coprime)
    s.set_int("order", order);
    every_call(s, a, base, "ptr64", true);
    if (!spral_diff::check_same(s)) return;
  }
}

TEST_CASE("spral: SPRAL's METIS order given back as a user order: the same tree and factors") {
  // Orders computed by METIS differ: Debian's METIS 5.1 (ours) and the wheel's METIS 5.2 (SPRAL's) order
  // the same graph differently. SPRAL's METIS order, given to both as a user order, must give the same tree.
  for (const ssids::SymmetricMatrix& a : {ssids::generate_laplace2d(20), ssids::generate_laplace3d(7)}) {
    CAPTURE(a.n);
    Script first;
    first.set_int("order", std::vector<long long>(a.n, 0)).csc(a, 0).call("analyse n=" + std::to_string(a.n));
    const std::string spral = spral_diff::spral_library();
    if (spral.empty()) return;
    const spral_diff::Trace t = spral_diff::run(first, spral, true);
    REQUIRE(t.completed);
    REQUIRE(t.calls.size() == 1);
    const std::vector<double>& o = t.calls[0].arrays.at("order");
    Script s;
    s.expect = posdef();
    s.expect.same_order = true;
    s.opt("ordering", 0).set_int("order", std::vector<long long>(o.begin(), o.end()));
    every_call(s, a, 0, "ptr32", true);
    if (!spral_diff::check_same(s)) return;
  }
}

TEST_CASE("spral: nemin values on a positive-definite matrix in a user order give the same tree") {
  const ssids::SymmetricMatrix a = ssids::generate_laplace3d(6);
  for (int nemin : {1, 2, 8, 32, 64, 0, -5}) {
    CAPTURE(nemin);
    Script s;
    s.expect = posdef();
    s.expect.same_order = true;
    s.opt("nemin", nemin).opt("ordering", 0);
    std::vector<long long> order(a.n);
    for (int i = 0; i < a.n; ++i) order[i] = (i * 37) % a.n;  // 37 and 216 coprime
    s.set_int("order", order).csc(a, 0);
    s.call("analyse n=" + std::to_string(a.n)).call("factor posdef=1").call("free");
    if (!spral_diff::check_same(s)) return;
  }
}

TEST_CASE("spral: indefinite KKT systems with orderings 1 and 2 and scalings 0 to 5") {
  const ssids::SymmetricMatrix a = ssids::generate_kkt_qp(60, 25, 0.0, 3);
  for (int ordering : {1, 2})
    for (int scaling : {0, 1, 2, 3, 4, 5}) {
      if (scaling == 3 && ordering != 2) continue;  // an error case (test_spral_errors)
      CAPTURE(ordering);
      CAPTURE(scaling);
      Script s;
      s.expect = indefinite(ordering == 1 ? "METIS 5.1 (ours) and 5.2 (SPRAL's) order the graph differently"
                                          : "the matching ordering: ours is our own implementation of Hogg & "
                                            "Scott's method");
      s.expect.same_tree = false;
      // scaling 0 with scale given: the user's scaling (not written back); 1: MC64's, equal on this matrix
      // (SPRAL's and ours solve the same matching problem); 2 (auction, approximate by design), 3 (the
      // matching ordering's) and 4 (equilibration, iterated to a tolerance) may differ
      s.expect.same_scale = scaling == 0 || scaling == 1;
      std::vector<double> scale(a.n);
      for (int i = 0; i < a.n; ++i) scale[i] = scaling == 0 ? 1.0 / (1 + i % 7) : -1.0;
      s.opt("ordering", ordering).opt("scaling", scaling);
      s.set_int("order", std::vector<long long>(a.n, 0)).set("scale", scale);
      s.csc(a, 0).call("analyse n=" + std::to_string(a.n)).call("factor posdef=0");
      s.set("x", rhs_of(a)).call("solve1 job=0").call("free");
      if (!spral_diff::check_same(s)) return;
    }
}

TEST_CASE("spral: pivoting options action and u and small and pivot_method out of range") {
  const ssids::SymmetricMatrix a = ssids::generate_kkt_qp(40, 15, 0.0, 5);
  struct Variant { const char* field; double value; };
  for (Variant v : {Variant{"u", 0.0}, Variant{"u", 1e-8}, Variant{"u", 0.5}, Variant{"u", 0.9}, Variant{"u", -1.0},
                    Variant{"small", 0.0}, Variant{"small", 1e-10}, Variant{"pivot_method", 0},
                    Variant{"pivot_method", 1}, Variant{"pivot_method", 3}, Variant{"pivot_method", 4},
                    Variant{"pivot_method", -7}, Variant{"action", 0}}) {
    const std::string field = v.field;
    CAPTURE(field);
    CAPTURE(v.value);
    Script s;
    s.expect = indefinite();
    if (field == "u" && v.value <= 0.0) {
      s.expect.same_inertia = false;
      s.expect.x_tol = -1.0;
      s.expect.reason = "u <= 0 turns the pivot threshold test off: tiny pivots are accepted, and rounding in "
                        "the resulting unstable factorization decides the computed inertia in both libraries "
                        "(on this matrix neither finds the true 15 negative eigenvalues; SPRAL does not clamp "
                        "u < 0, we clamp it to 0)";
    }
    s.opt(v.field, v.value).csc(a, 0);
    s.call("analyse n=" + std::to_string(a.n)).call("factor posdef=0");
    s.set("x", rhs_of(a)).call("solve1 job=0").call("free");
    if (!spral_diff::check_same(s)) return;
  }
}

TEST_CASE("spral: a diagonal indefinite matrix - enquire and alter with D^-1 in both bases") {
  ssids::SymmetricMatrix a;
  a.n = 6;
  for (int j = 0; j <= a.n; ++j) a.ptr.push_back(j);
  for (int j = 0; j < a.n; ++j) a.row.push_back(j);
  a.val = {2.0, -4.0, 0.5, -1.0, 8.0, 3.0};
  for (int base : {0, 1}) {
    CAPTURE(base);
    Script s;
    s.expect = posdef();  // no pivoting choice: the factors are unique
    s.expect.same_order = true;
    s.opt("array_base", base).opt("ordering", 0);
    s.set_int("order", {5 + base, 4 + base, 3 + base, 2 + base, 1 + base, base});
    s.csc(a, base).call("analyse n=6").call("factor posdef=0").call("enquire_indef");
    s.set("d", {1.0, 0.0, -1.0, 0.0, 2.0, 0.0, -0.5, 0.0, 0.25, 0.0, 1.0, 0.0}).call("alter").call("enquire_indef");
    s.set("x", {1.0, 2.0, 3.0, 4.0, 5.0, 6.0}).call("solve1 job=0").call("solve1 job=2");
    s.call("enquire_indef piv=0").call("enquire_indef d=0").call("free");
    if (!spral_diff::check_same(s)) return;
  }
}

TEST_CASE("spral: SPRAL's compiled C examples run against our library") {
  const std::string spral = spral_diff::spral_library();
  if (spral.empty()) return;
#ifdef SSIDS_SANITIZED
  // SPRAL's examples are not instrumented: they cannot load a library built with the sanitizers
  ssids_test::skip("a sanitizer build: SPRAL's uninstrumented examples cannot load this libssids");
  return;
#endif
  const std::filesystem::path prefix = std::filesystem::path(spral).parent_path().parent_path();
  const std::filesystem::path examples = prefix / "examples" / "C";
  if (!std::filesystem::is_directory(examples)) {
    FAIL_CHECK("SPRAL's examples are not installed next to its library: " << examples);
    return;
  }
  // our library under SPRAL's name, in a folder of its own, so that the examples' NEEDED libspral.so is ours
  const std::string ourdir = ssids_test::scratch("libspral_ours");
  std::filesystem::create_directories(ourdir);
  std::filesystem::remove(ourdir + "/libspral.so");
  std::filesystem::create_symlink(spral_diff::our_library(), ourdir + "/libspral.so");
  for (const std::string name : {"ssidss_c", "ssids_topologys_c"}) {
    CAPTURE(name);
    const std::string exe = ssids_test::quote((examples / name).string());
    std::string with_spral, with_ours;
    const int rs = ssids_test::run_command("LD_LIBRARY_PATH=" + ssids_test::quote(prefix.string() + "/lib") +
                                               " OMP_CANCELLATION=TRUE OMP_PROC_BIND=TRUE timeout 60 " + exe,
                                           with_spral);
    const int ro = ssids_test::run_command("LD_LIBRARY_PATH=" + ssids_test::quote(ourdir) + " timeout 60 " + exe,
                                           with_ours);
    CHECK(rs == 0);
    CHECK(ro == 0);
    // the solution lines are equal; the pivot order is the same permutation up to the signs that mark 2x2
    // pivots (our pivots are our own: see the classes above)
    auto lines = [](const std::string& out) {
      std::vector<std::string> v;
      std::istringstream in(out);
      for (std::string l; std::getline(in, l);) v.push_back(l);
      return v;
    };
    const auto ls = lines(with_spral), lo = lines(with_ours);
    REQUIRE(ls.size() == lo.size());
    for (size_t k = 0; k < ls.size(); ++k) {
      if (ls[k].find("Pivot order") == std::string::npos) {
        CHECK(lo[k] == ls[k]);
        continue;
      }
      std::istringstream a(ls[k].substr(ls[k].find(':') + 1)), b(lo[k].substr(lo[k].find(':') + 1));
      std::vector<int> pa, pb;
      for (int x; a >> x;) pa.push_back(std::abs(x));
      for (int x; b >> x;) pb.push_back(std::abs(x));
      std::sort(pa.begin(), pa.end());
      std::sort(pb.begin(), pb.end());
      CHECK(pa == pb);
    }
  }
}

}  // TEST_SUITE
