// test_sap_capi.cpp — the C entry point of the SaP path (include/ssids/ssids_sap.h): convergence with 0- and
// 1-based arrays and both variants, the reported residual against a recomputed one, and its error codes.
#include <doctest/doctest.h>

#include <cmath>
#include <vector>

#include "ssids/error.hpp"
#include "ssids/generate.hpp"
#include "ssids/ssids_sap.h"

namespace {
double relative_residual(const ssids::CsrMatrix& a, const std::vector<double>& x, const std::vector<double>& b) {
  double rn = 0, bn = 0;
  for (int i = 0; i < a.nrow; ++i) {
    double s = 0;
    for (auto k = a.ptr[i]; k < a.ptr[i + 1]; ++k) s += a.val[k] * x[a.col[k]];
    rn += (b[i] - s) * (b[i] - s);
    bn += b[i] * b[i];
  }
  return std::sqrt(rn) / std::sqrt(bn);
}
}  // namespace

TEST_CASE("sap capi: converges with 0- and 1-based arrays and both variants") {
  ssids::CsrMatrix a = ssids::generate_banded(3000, 8, 0.5, 7);
  std::vector<double> b(a.nrow, 1.0);
  for (int base : {0, 1}) {
    std::vector<int64_t> ptr(a.ptr.begin(), a.ptr.end());
    std::vector<int> col(a.col.begin(), a.col.end());
    for (auto& p : ptr) p += base;
    for (auto& c : col) c += base;
    for (int variant : {0, 1}) {
      CAPTURE(base);
      CAPTURE(variant);
      ssids_sap_options o;
      ssids_sap_default_options(&o);
      o.array_base = base;
      o.variant = variant;
      o.partitions = 8;
      o.rtol = 1e-10;
      ssids_sap_inform inf;
      std::vector<double> x(a.nrow, 0.0);
      CHECK(ssids_sap_solve(a.nrow, ptr.data(), col.data(), a.val.data(), b.data(), x.data(), &o, &inf) == 0);
      CHECK(inf.flag == 0);
      CHECK(inf.status == 0);
      CHECK(inf.relative_residual <= 1e-10);
      CHECK(relative_residual(a, x, b) == doctest::Approx(inf.relative_residual).epsilon(1e-6).scale(1e-16));
      CHECK(inf.partitions >= 1);
    }
  }
}

TEST_CASE("sap capi: errors are flags and nothing crashes") {
  ssids::CsrMatrix a = ssids::generate_convdiff(10, 1.0);
  std::vector<int64_t> ptr(a.ptr.begin(), a.ptr.end());
  std::vector<int> col(a.col.begin(), a.col.end());
  std::vector<double> b(a.nrow, 1.0), x(a.nrow, 0.0);
  ssids_sap_inform inf;
  CHECK(ssids_sap_solve(-1, ptr.data(), col.data(), a.val.data(), b.data(), x.data(), nullptr, &inf) == ssids::flag::bad_n);
  CHECK(ssids_sap_solve(a.nrow, nullptr, col.data(), a.val.data(), b.data(), x.data(), nullptr, &inf) ==
        ssids::flag::missing_data);
  ssids_sap_options o;
  ssids_sap_default_options(&o);
  o.array_base = 1;  // the arrays are 0-based: ptr[0] = 0 is wrong for base 1
  CHECK(ssids_sap_solve(a.nrow, ptr.data(), col.data(), a.val.data(), b.data(), x.data(), &o, &inf) == ssids::flag::bad_ptr);
  o.array_base = 0;
  o.variant = 7;
  CHECK(ssids_sap_solve(a.nrow, ptr.data(), col.data(), a.val.data(), b.data(), x.data(), &o, &inf) == ssids::flag::bad_input);
  std::vector<int> badcol = col;
  badcol[3] = a.nrow + 5;
  CHECK(ssids_sap_solve(a.nrow, ptr.data(), badcol.data(), a.val.data(), b.data(), x.data(), nullptr, &inf) ==
        ssids::flag::bad_input);
  CHECK(ssids_sap_solve(0, nullptr, nullptr, nullptr, nullptr, nullptr, nullptr, nullptr) == 0);  // n = 0 is trivial
  // a structurally singular matrix (an empty row) is an error, not a crash
  ssids::CsrMatrix s = a;
  for (auto k = s.ptr[2]; k < s.ptr[3]; ++k) s.val[k] = 0.0;
  std::vector<double> sv(s.val.begin(), s.val.end());
  int rc = ssids_sap_solve(s.nrow, ptr.data(), col.data(), sv.data(), b.data(), x.data(), nullptr, &inf);
  CHECK(rc < 0);
}

TEST_CASE("sap capi: backend and mixed precision options") {
  ssids::CsrMatrix a = ssids::generate_banded(2000, 6, 0.5, 3);
  std::vector<int64_t> ptr(a.ptr.begin(), a.ptr.end());
  std::vector<int> col(a.col.begin(), a.col.end());
  std::vector<double> b(a.nrow, 1.0), x(a.nrow, 0.0);
  ssids_sap_options o;
  ssids_sap_default_options(&o);
  CHECK(o.backend == 0);
  CHECK(o.mixed_precision == 0);
  ssids_sap_inform inf;
  o.backend = 3;
  CHECK(ssids_sap_solve(a.nrow, ptr.data(), col.data(), a.val.data(), b.data(), x.data(), &o, &inf) == ssids::flag::bad_input);
  o.backend = 0;
  o.mixed_precision = 1;  // the CPU preconditioner is double only
  CHECK(ssids_sap_solve(a.nrow, ptr.data(), col.data(), a.val.data(), b.data(), x.data(), &o, &inf) == ssids::flag::bad_input);
  // automatic: the GPU when present, else the CPU; either way the answer converges
  o.backend = 2;
  o.mixed_precision = 0;
  o.rtol = 1e-10;
  CHECK(ssids_sap_solve(a.nrow, ptr.data(), col.data(), a.val.data(), b.data(), x.data(), &o, &inf) == 0);
  CHECK(inf.status == 0);
  CHECK(relative_residual(a, x, b) <= 1.0001e-10);
  // the GPU explicitly: converges on a device, -30 (no_cuda) without one
  o.backend = 1;
  const int rc = ssids_sap_solve(a.nrow, ptr.data(), col.data(), a.val.data(), b.data(), x.data(), &o, &inf);
  if (inf.backend == 1 || rc == 0) {
    CHECK(rc == 0);
    CHECK(inf.backend == 1);
    CHECK(relative_residual(a, x, b) <= 1.0001e-10);
    o.mixed_precision = 1;
    CHECK(ssids_sap_solve(a.nrow, ptr.data(), col.data(), a.val.data(), b.data(), x.data(), &o, &inf) == 0);
    CHECK(relative_residual(a, x, b) <= 1.0001e-10);
  } else {
    CHECK(rc == ssids::flag::no_cuda);
  }
}
