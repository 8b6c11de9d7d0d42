// test_spral_errors.cpp — the differential tests against SPRAL itself (see test_spral_diff.cpp for how they
// run and the comparison classes) for bad input, warnings, the call sequence, handles, and singular and
// structurally singular matrices: flags and every inform field must be SPRAL's.
#include <doctest/doctest.h>

#include <cmath>
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

/// Raw arrays as a script sets them (already in the base the script's options give).
Script& raw(Script& s, const std::vector<long long>& ptr, const std::vector<long long>& row,
            const std::vector<double>& val) {
  return s.set_int("ptr", ptr).set_int("row", row).set("val", val);
}

void check(Script& s) { spral_diff::check_same(s); }

}  // namespace

TEST_SUITE("spral") {

TEST_CASE("spral errors: bad n or ptr and entries out of range in every form and base") {
  for (int base : {0, 1}) {
    CAPTURE(base);
    Script s;
    s.expect = indefinite();
    s.opt("array_base", base);
    const int b = base;
    const std::vector<double> val = {2.0, 1.0, 4.0, 1.0, 1.0, 3.0, 2.0, -1.0, 2.0};
    raw(s, {b, 2 + b, 5 + b, 7 + b, 8 + b, 9 + b}, {b, 1 + b, 1 + b, 2 + b, 4 + b, 2 + b, 3 + b, 3 + b, 4 + b},
        val);
    // (SPRAL's C wrapper corrupts its heap for n < 0 in the CSC forms with C indexing, and crashes for
    // coordinate input with ne = 0: those calls are left to test_capi.cpp)
    if (base == 1) s.call("analyse n=-1").call("analyse form=ptr32 n=-3").call("analyse form=topology n=-2");
    s.set_int("col", {b, b, 1 + b, 1 + b, 1 + b, 2 + b, 2 + b, 3 + b, 4 + b});
    s.call("analyse form=coord n=-1 ne=9").call("analyse form=coord n=5 ne=-2");
    // ptr decreasing, ptr[0] not the base
    raw(s, {b, 2 + b, 1 + b, 7 + b, 8 + b, 9 + b}, {b, 1 + b, 1 + b, 2 + b, 4 + b, 2 + b, 3 + b, 3 + b, 4 + b},
        val);
    s.call("analyse n=5").call("analyse form=ptr32 n=5");
    raw(s, {b - 1, 2 + b, 5 + b, 7 + b, 8 + b, 9 + b}, {b, 1 + b, 1 + b, 2 + b, 4 + b, 2 + b, 3 + b, 3 + b, 4 + b},
        val);
    s.call("analyse n=5");
    // a first pointer past the base: the entries before it are skipped (here the first diagonal entry)
    raw(s, {b + 1, 2 + b, 5 + b, 7 + b, 8 + b, 9 + b}, {b, 1 + b, 1 + b, 2 + b, 4 + b, 2 + b, 3 + b, 3 + b, 4 + b},
        val);
    s.call("analyse n=5").call("factor posdef=0").set("x", {1, 1, 1, 1, 1}).call("solve1 job=0");
    // every entry out of range (CSC and coordinates); SPRAL's checked CSC analyse also fails when one column
    // has entries and none in range (a column that has none at all is only structurally singular)
    raw(s, {b, 1 + b, 2 + b}, {7 + b, 9 + b}, {1.0, 1.0});
    s.call("analyse n=2");
    raw(s, {b, 2 + b, 3 + b, 4 + b}, {b, 1 + b, 9 + b, 2 + b}, {4.0, 1.0, 1.0, 4.0});
    s.call("analyse n=3");  // (without check SPRAL reads out-of-range rows: undefined)
    raw(s, {b, 1 + b, 2 + b, 4 + b}, {9 + b, 1 + b, 2 + b, 2 + b}, {4.0, 1.0, 1.0, 4.0});
    s.call("analyse n=3");
    raw(s, {b, 2 + b, 3 + b, 5 + b}, {b, 1 + b, 1 + b, 9 + b, 8 + b}, {4.0, 1.0, 1.0, 4.0, 1.0});
    s.call("analyse n=3");
    raw(s, {b, 2 + b, 3 + b, 5 + b}, {b, 1 + b, 1 + b, 9 + b, 2 + b}, {4.0, 1.0, 1.0, 4.0, 1.0});
    s.call("analyse n=3").call("factor posdef=0");
    s.set_int("row", {5 + b, 6 + b}).set_int("col", {5 + b, 6 + b}).call("analyse form=coord n=2 ne=2");
    check(s);
  }
}

TEST_CASE("spral warnings: out-of-range and duplicate entries and missing diagonals with and without check") {
  // 3x3 lower triangles; each case is followed by a factorization and a solve, which repeat the counts
  struct Case {
    const char* what;
    std::vector<long long> ptr, row;
    std::vector<double> val;
  };
  const std::vector<Case> cases = {
      {"out of range (+1)", {0, 3, 4, 5}, {0, 1, 9, 1, 2}, {4, 1, 1, 4, 4}},
      {"duplicate (+2)", {0, 3, 4, 5}, {0, 1, 1, 1, 2}, {4, 1, 1, 4, 4}},
      {"both (+3)", {0, 4, 5, 6}, {0, 1, 1, 9, 1, 2}, {4, 1, 1, 1, 4, 4}},
      {"missing diagonal (+4)", {0, 2, 3, 4}, {0, 1, 2, 2}, {4, 1, 1, 4}},
      {"missing diagonal and duplicate (+5)", {0, 3, 4, 5}, {0, 1, 1, 2, 2}, {4, 1, 1, 1, 4}},
      {"upper-triangle entry (mirrored)", {0, 1, 3, 4}, {0, 0, 1, 2}, {4, 1, 4, 4}},
  };
  for (const Case& c : cases)
    for (int check_data : {1, 0}) {
      if (!check_data && c.what != std::string("missing diagonal (+4)")) continue;  // unchecked input must be clean
      const std::string what = c.what;
      CAPTURE(what);
      CAPTURE(check_data);
      Script s;
      s.expect = indefinite();
      raw(s, c.ptr, c.row, c.val);
      s.call("analyse n=3 check=" + std::to_string(check_data)).call("factor posdef=0");
      s.set("x", {1.0, 2.0, 3.0}).call("solve1 job=0").call("free");
      check(s);
      // the same entries as coordinates (always checked)
      Script t;
      t.expect = indefinite();
      std::vector<long long> col;
      for (size_t j = 0; j + 1 < c.ptr.size(); ++j)
        for (long long k = c.ptr[j]; k < c.ptr[j + 1]; ++k) col.push_back(static_cast<long long>(j));
      t.set_int("row", c.row).set_int("col", col).set("val", c.val);
      t.call("analyse form=coord n=3").call("factor posdef=0").call("free");
      check(t);
    }
}

TEST_CASE("spral errors: options out of range and missing arrays and the user order") {
  const ssids::SymmetricMatrix a = doc_matrix();
  Script s;
  s.expect = indefinite();
  s.csc(a, 0);
  s.opt("ordering", 5).call("analyse n=5").opt("ordering", -1).call("analyse n=5");
  s.set_int("col", {0, 0, 1, 1, 1, 2, 2, 3, 4});
  s.opt("ordering", 2).call("analyse n=5 val=0").call("analyse form=coord n=5 val=0");  // -9: no values
  s.opt("ordering", 0).unset("order").call("analyse n=5");                              // -8: no order
  s.set_int("order", {0, 1, 1, 3, 4}).call("analyse n=5");                             // not a permutation
  s.set_int("order", {0, 1, 2, 3, 7}).call("analyse n=5");
  s.set_int("order", {-1, -2, 2, 3, 4}).call("analyse n=5").call("factor posdef=0");   // 2x2 marks ignored
  s.opt("ordering", 1).opt("scaling", 3).call("analyse n=5").call("factor posdef=0");  // scaling 3, no matching
  s.opt("scaling", 0).call("analyse n=5 check=0").call("factor posdef=0 ptr=0");        // check=0 needs ptr, row
  s.call("factor posdef=0").call("free");
  check(s);
}

TEST_CASE("spral errors: solve and enquire arguments and the wrong kind of factors") {
  const ssids::SymmetricMatrix a = doc_matrix();
  Script s;
  s.expect = indefinite();
  s.csc(a, 0).call("analyse n=5").call("factor posdef=0");
  s.set("x", std::vector<double>(12, 1.0));
  s.call("solve job=0 nrhs=1 ldx=4").call("solve job=0 nrhs=0 ldx=5").call("solve job=0 nrhs=-1 ldx=5");
  s.call("solve1 job=5").call("solve1 job=-1").call("solve job=7 nrhs=2 ldx=6");
  s.call("enquire_posdef");  // -13: indefinite factors
  // positive-definite factors: jobs 2 and 4, enquire_indef and alter are errors (-11, -14)
  ssids::SymmetricMatrix p = ssids::generate_laplace2d(3);
  Script t;
  t.expect.same_pivots = true;
  t.expect.same_factors = true;
  t.csc(p, 0).opt("ordering", 0).set_int("order", {0, 1, 2, 3, 4, 5, 6, 7, 8});
  t.call("analyse n=9").call("factor posdef=1").set("x", std::vector<double>(9, 1.0));
  t.call("solve1 job=2").call("solve1 job=4").call("enquire_indef").call("alter");
  t.call("solve1 job=1").call("enquire_posdef").call("free");
  check(s);
  check(t);
}

TEST_CASE("spral: positive-definite factorization of an indefinite matrix then the call sequence") {
  Script s;
  s.expect = indefinite();
  s.csc(doc_matrix(), 0).call("analyse n=5").call("factor posdef=0");
  s.call("factor posdef=1");  // -6: the failed factorization leaves fkeep unusable
  s.set("x", {1.0, 1.0, 1.0, 1.0, 1.0});
  s.call("solve1 job=0").call("enquire_indef").call("enquire_posdef").call("alter");
  s.call("factor posdef=0").call("solve1 job=0");  // usable again
  s.call("analyse n=-1");                         // a failed analyse leaves akeep unusable
  s.call("factor posdef=0");
  // SPRAL crashes when it frees or refactorizes into this fkeep (its factors refer to the analysis the
  // failed analyse released): continue with a fresh handle, as a careful caller must
  s.handle_null("fkeep");
  s.call("analyse n=5").call("factor posdef=0").call("solve1 job=0").call("free_fkeep");
  s.call("free_akeep").call("free").call("free_fkeep");
  check(s);
}

TEST_CASE("spral: handles reused by later analyses and factorizations") {
  const ssids::SymmetricMatrix a = doc_matrix(), b = ssids::generate_laplace2d(4);
  Script s;
  s.expect = indefinite();
  s.csc(a, 0).call("analyse n=5").call("factor posdef=0").set("x", {4, 17, 19, 2, 12}).call("solve1 job=0");
  s.csc(b, 0).call("analyse n=16").call("factor posdef=1").set("x", std::vector<double>(16, 1.0));
  s.call("solve1 job=0").call("factor posdef=0").call("solve1 job=0");
  s.csc(a, 1).opt("array_base", 1).call("analyse form=ptr32 n=5").call("factor posdef=0 form=ptr32");
  s.set("x", {4, 17, 19, 2, 12}).call("solve1 job=0").call("free");
  check(s);
}

TEST_CASE("spral: calls where SPRAL dereferences a NULL handle - it crashes and we return -1") {
  const ssids::SymmetricMatrix a = doc_matrix();
  Expect crash;
  crash.spral_crashes = true;
  crash.ours_flag = -1;
  crash.reason = "SPRAL reads through the NULL handle";
  for (const char* call : {"factor posdef=0", "solve1 job=0", "enquire_indef", "enquire_posdef", "alter"}) {
    CAPTURE(call);
    Script s;
    s.csc(a, 0).set("x", {1.0, 1.0, 1.0, 1.0, 1.0}).set("d", std::vector<double>(10, 1.0));
    s.call(call, crash);
    check(s);
  }
  for (const char* call : {"solve1 job=0", "enquire_indef", "enquire_posdef", "alter"}) {
    CAPTURE(call);
    Script s;
    s.expect = indefinite();
    s.csc(a, 0).set("x", {1.0, 1.0, 1.0, 1.0, 1.0}).set("d", std::vector<double>(10, 1.0));
    s.call("analyse n=5").call(call, crash);
    check(s);
  }
}

TEST_CASE("spral: n = 0") {
  Script s;
  s.set_int("ptr", {0}).set_int("row", {}).set("val", {});
  s.call("analyse n=0").call("factor posdef=0").call("solve1 job=0").call("enquire_indef").call("free");
  s.call("analyse form=coord n=0 ne=0").call("factor posdef=1").call("free");
  check(s);
}

TEST_CASE("spral: singular matrices with exact zero pivots and action true or false") {
  // rank 2 of 3: a zero column in the numbers only, and a dependent pair
  Script s;
  s.expect = indefinite();
  s.expect.x_tol = -1.0;
  s.expect.reason = "singular system: its solutions are not unique";
  raw(s, {0, 2, 3, 4}, {0, 1, 1, 2}, {1.0, 1.0, 1.0, 0.0});
  s.call("analyse n=3").call("factor posdef=0").set("x", {1.0, 1.0, 0.0}).call("solve1 job=0");
  s.opt("action", 0).call("factor posdef=0").call("solve1 job=0");
  s.call("factor posdef=1").call("free");
  check(s);
}

TEST_CASE("spral: structurally singular matrices - empty columns and the matching ordering and scaling") {
  Expect singular = indefinite();
  singular.x_tol = -1.0;
  singular.reason = "singular system: its solutions are not unique";
  // column 2 has no entry at all
  auto empty_column = [&](Script& s) {
    s.expect = singular;
    raw(s, {0, 2, 3, 3, 4}, {0, 3, 1, 3}, {2.0, 1.0, -3.0, 5.0});
    s.set("x", {1.0, 1.0, 1.0, 1.0}).set_int("order", {0, 0, 0, 0});
    return "analyse n=4";
  };
  for (int check_data : {1, 0}) {
    Script s;
    empty_column(s);
    s.call("analyse n=4 check=" + std::to_string(check_data)).call("factor posdef=0").call("solve1 job=0");
    check(s);
  }
  {
    Script s;
    s.opt("action", 0).call(empty_column(s)).call("factor posdef=0");
    check(s);
  }
  {
    Script s;
    s.opt("ordering", 2).opt("scaling", 3).call(empty_column(s)).call("factor posdef=0");
    check(s);
  }
  {
    Script s;
    s.opt("scaling", 1).call(empty_column(s)).call("factor posdef=0");
    check(s);
  }
  // a KKT matrix whose last constraint row is zero: structurally singular
  ssids::SymmetricMatrix z = ssids::generate_kkt_qp(12, 5, 0.0, 2);
  for (int j = 0; j < z.n; ++j)
    for (auto e = z.ptr[j]; e < z.ptr[j + 1]; ++e)
      if (z.row[e] == z.n - 1 || j == z.n - 1) z.val[e] = 0.0;
  for (int scaling : {3, 0}) {
    CAPTURE(scaling);
    Script s;
    s.expect = singular;
    s.csc(z, 0).set("x", std::vector<double>(z.n, 1.0));
    s.opt("ordering", 2).opt("scaling", scaling).call("analyse n=17").call("factor posdef=0").call("solve1 job=0");
    check(s);
  }
}

TEST_CASE("spral: NaN and infinite values - SPRAL factorizes them and we reject them with -21") {
  Expect reject;
  reject.ours_rejects = true;
  reject.ours_flag = -21;
  reject.reason = "NaN or Inf in val: SPRAL computes factors of NaNs (flag 0); ours stops with -21 (ssids extension)";
  for (double bad : {std::nan(""), HUGE_VAL, -HUGE_VAL}) {
    CAPTURE(bad);
    ssids::SymmetricMatrix a = doc_matrix();
    a.val[3] = bad;
    Script s;
    s.expect = indefinite();
    s.csc(a, 0).call("analyse n=5").call("factor posdef=0", reject);
    check(s);
  }
}

}  // TEST_SUITE
