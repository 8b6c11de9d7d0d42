// test_hardening.cpp — bad input to every public entry point that takes arrays (issue 11, item 4), and the
// regression tests of the fuzzers' findings.
//
// Each case gives its documented error code (ssids/error.hpp, the entry point's header) or, for options,
// the documented clamping (u to [0, 0.5], nemin < 1 as 1, cpu_block_size tiny, num_threads <= 0 as the
// OpenMP default). Arrays are std::vectors of exactly the length the API contract asks for, so that the
// sanitizer build (SSIDS_SANITIZE=address,undefined) proves that no check reads past them.
#include <doctest/doctest.h>

#include <cmath>
#include <functional>
#include <limits>
#include <string>
#include <vector>

#include <spral_ssids.h>

#include "ssids/analyse.hpp"
#include "ssids/config.hpp"
#include "ssids/error.hpp"
#include "ssids/factor.hpp"
#include "ssids/fingerprint.hpp"
#include "ssids/generate.hpp"
#include "ssids/matrix_market.hpp"
#include "ssids/memory.hpp"
#include "ssids/refine.hpp"
#include "ssids/sap.hpp"
#include "ssids/ssids_sap.h"
#include "support.hpp"

using namespace ssids;

namespace {

/// The code of the ssids::Error thrown by f, or 0 when it returns normally.
int code_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const Error& e) {
    return e.code();
  }
  return 0;
}

/// 4x4 indefinite tridiagonal matrix, lower triangle, 0-based.
struct Small {
  index_t n = 4;
  std::vector<offset_t> ptr{0, 2, 4, 6, 7};
  std::vector<index_t> row{0, 1, 1, 2, 2, 3, 3};
  std::vector<double> val{2.0, 1.0, -3.0, 1.0, 2.0, 1.0, -1.0};
  CscView view() const { return CscView{n, ptr.data(), row.data(), val.data(), 0}; }
  SymmetricMatrix owned() const {
    SymmetricMatrix a;
    a.n = n;
    a.ptr.assign(ptr.begin(), ptr.end());
    a.row.assign(row.begin(), row.end());
    a.val.assign(val.begin(), val.end());
    return a;
  }
};

Options natural() {
  Options o;
  o.ordering = Ordering::natural;
  o.print_level = -1;
  return o;
}

/// Analyse + factor + solve with A x = A*ones, returning the scaled backward error.
double solve_error(const Small& s, const Options& opt, Mode mode = Mode::indefinite) {
  Inform inform;
  Analysis an = analyse(s.view(), opt, inform);
  Factors f = factor(an, s.val.data(), mode, opt, inform);
  SymmetricMatrix a = s.owned();
  std::vector<double> one(s.n, 1.0), b(s.n), x(s.n);
  symmetric_multiply(a, one.data(), b.data());
  x = b;
  f.solve(SolveJob::full, 1, x.data(), s.n, inform);
  return scaled_backward_error(a, x.data(), b.data(), 1, s.n);
}

}  // namespace

TEST_CASE("hardening: analyse rejects malformed CSC input with its documented code") {
  Small s;
  Options o = natural();
  Inform inform;
  auto an = [&](CscView v, const index_t* order = nullptr) { return code_of([&] { analyse(v, o, inform, order); }); };
  CscView v = s.view();

  v.n = -1;
  CHECK(an(v) == flag::bad_n);
  CHECK(inform.flag == flag::bad_n);
  v.n = std::numeric_limits<index_t>::min();
  CHECK(an(v) == flag::bad_n);
  v = s.view();
  v.base = 2;
  CHECK(an(v) == flag::bad_input);
  v.base = -1;
  CHECK(an(v) == flag::bad_input);

  v = s.view();
  v.ptr = nullptr;
  CHECK(an(v) == flag::missing_data);
  v = s.view();
  v.row = nullptr;
  CHECK(an(v) == flag::missing_data);
  // a null row array with no entries is fine (all columns empty: missing diagonal warning)
  std::vector<offset_t> zero_ptr(5, 0);
  CHECK(an(CscView{4, zero_ptr.data(), nullptr, nullptr, 0}) == 0);
  CHECK(inform.flag == flag::missing_diagonal);

  // ptr[0] != base, ptr not monotone, ptr[n] < ptr[0]
  std::vector<offset_t> p1{1, 2, 4, 6, 7};
  CHECK(an(CscView{4, p1.data(), s.row.data(), nullptr, 0}) == flag::bad_ptr);
  std::vector<offset_t> p2{0, 3, 2, 6, 7};
  CHECK(an(CscView{4, p2.data(), s.row.data(), nullptr, 0}) == flag::bad_ptr);
  std::vector<offset_t> p3{0, 2, 4, 6, -1};
  CHECK(an(CscView{4, p3.data(), s.row.data(), nullptr, 0}) == flag::bad_ptr);
  std::vector<offset_t> p4{1, 3, 5, 7, 8};  // right in base 1 ...
  CHECK(an(CscView{4, p4.data(), s.row.data(), nullptr, 0}) == flag::bad_ptr);  // ... but base 0 declared
  std::vector<offset_t> p5{0, 2, 4, 6, std::numeric_limits<offset_t>::min()};
  CHECK(an(CscView{4, p5.data(), s.row.data(), nullptr, 0}) == flag::bad_ptr);

  // indices out of range: some (warning 1, counted) or all (error -4)
  std::vector<index_t> r1{0, 1, 1, 2, 2, 9, 3};
  CHECK(an(CscView{4, s.ptr.data(), r1.data(), nullptr, 0}) == 0);
  CHECK(inform.flag == flag::out_of_range_ignored);
  CHECK(inform.matrix_outrange == 1);
  std::vector<index_t> r2{-1, 7, 100, -5, std::numeric_limits<index_t>::max(), std::numeric_limits<index_t>::min(), 4};
  CHECK(an(CscView{4, s.ptr.data(), r2.data(), nullptr, 0}) == flag::all_out_of_range);
  // base 1: row 0 is out of range
  std::vector<offset_t> pb{1, 3, 5, 7, 8};
  std::vector<index_t> rb{0, 0, 0, 0, 0, 0, 0};
  CHECK(an(CscView{4, pb.data(), rb.data(), nullptr, 1}) == flag::all_out_of_range);

  // n = 0 needs no arrays at all
  CHECK(an(CscView{0, nullptr, nullptr, nullptr, 0}) == 0);

  // user ordering: missing, not a permutation, out of range
  o.ordering = Ordering::user;
  CHECK(an(s.view(), nullptr) == flag::missing_data);
  std::vector<index_t> bad1{0, 1, 1, 3}, bad2{0, 1, 2, 4}, bad3{0, -1, 2, 3}, good{3, 2, 1, 0};
  CHECK(an(s.view(), bad1.data()) == flag::bad_order);
  CHECK(an(s.view(), bad2.data()) == flag::bad_order);
  CHECK(an(s.view(), bad3.data()) == flag::bad_order);
  CHECK(an(s.view(), good.data()) == 0);
  // matching ordering needs the values
  o.ordering = Ordering::matching;
  v = s.view();
  v.val = nullptr;
  CHECK(an(v) == flag::missing_values);
  // an ordering value outside the enum
  o.ordering = static_cast<Ordering>(17);
  CHECK(an(s.view()) == flag::bad_input);
}

TEST_CASE("hardening: factor, solve, enquire and alter reject bad arguments") {
  Small s;
  Options o = natural();
  Inform inform;
  Analysis an = analyse(s.view(), o, inform);

  CHECK(code_of([&] { factor(Analysis(), s.val.data(), Mode::indefinite, o, inform); }) == flag::call_sequence);
  CHECK(code_of([&] { factor(an, nullptr, Mode::indefinite, o, inform); }) == flag::missing_values);
  std::vector<double> nanv = s.val;
  nanv[3] = std::nan("");
  CHECK(code_of([&] { factor(an, nanv.data(), Mode::indefinite, o, inform); }) == flag::nan_inf);
  nanv[3] = std::numeric_limits<double>::infinity();
  CHECK(code_of([&] { factor(an, nanv.data(), Mode::indefinite, o, inform); }) == flag::nan_inf);
  CHECK(code_of([&] { factor(an, s.val.data(), Mode::posdef, o, inform); }) == flag::not_posdef);
  {
    Options u = o;
    u.scaling = Scaling::user;
    CHECK(code_of([&] { factor(an, s.val.data(), Mode::indefinite, u, inform, nullptr); }) == flag::missing_data);
    std::vector<double> sc{1.0, 0.0, 1.0, 1.0};
    CHECK(code_of([&] { factor(an, s.val.data(), Mode::indefinite, u, inform, sc.data()); }) == flag::bad_input);
    u.scaling = Scaling::from_ordering;  // the analysis used no matching ordering
    CHECK(code_of([&] { factor(an, s.val.data(), Mode::indefinite, u, inform); }) == flag::bad_scaling);
  }
#if !SSIDS_HAVE_CUDA
  {
    Options g = o;
    g.backend = Backend::gpu;
    CHECK(code_of([&] { factor(an, s.val.data(), Mode::indefinite, g, inform); }) == flag::no_cuda);
  }
#endif
  // singular with action == false
  {
    Small z;
    z.val = {1.0, 1.0, 1.0, 0.0, 0.0, 0.0, 0.0};  // rank 2
    Options a = o;
    a.action = false;
    Analysis az = analyse(z.view(), a, inform);
    CHECK(code_of([&] { factor(az, z.val.data(), Mode::indefinite, a, inform); }) == flag::singular);
    a.action = true;
    CHECK(code_of([&] { factor(az, z.val.data(), Mode::indefinite, a, inform); }) == 0);
    CHECK(inform.flag == flag::warn_singular);
  }

  Factors f = factor(an, s.val.data(), Mode::indefinite, o, inform);
  std::vector<double> x(4, 1.0);
  CHECK(code_of([&] { Factors().solve(SolveJob::full, 1, x.data(), 4, inform); }) == flag::call_sequence);
  CHECK(code_of([&] { f.solve(SolveJob::full, 0, x.data(), 4, inform); }) == flag::bad_ldx);
  CHECK(code_of([&] { f.solve(SolveJob::full, -3, x.data(), 4, inform); }) == flag::bad_ldx);
  CHECK(code_of([&] { f.solve(SolveJob::full, 1, x.data(), 3, inform); }) == flag::bad_ldx);
  CHECK(code_of([&] { f.solve(SolveJob::full, 1, x.data(), -4, inform); }) == flag::bad_ldx);
  CHECK(code_of([&] { f.solve(SolveJob::full, 1, nullptr, 4, inform); }) == flag::missing_data);
  CHECK(code_of([&] { f.solve(static_cast<SolveJob>(5), 1, x.data(), 4, inform); }) == flag::bad_job);
  CHECK(code_of([&] { f.solve(static_cast<SolveJob>(-1), 1, x.data(), 4, inform); }) == flag::bad_job);
  // nrhs = 2 with ldx > n: exactly (nrhs-1)*ldx + n elements are read and written
  {
    std::vector<double> x2(7 + 4);
    SymmetricMatrix a = s.owned();
    std::vector<double> one(4, 1.0), b(4);
    symmetric_multiply(a, one.data(), b.data());
    std::copy(b.begin(), b.end(), x2.begin());
    std::copy(b.begin(), b.end(), x2.begin() + 7);
    CHECK(code_of([&] { f.solve(SolveJob::full, 2, x2.data(), 7, inform); }) == 0);
    for (int i = 0; i < 4; ++i) {
      CHECK(x2[i] == doctest::Approx(1.0));
      CHECK(x2[7 + i] == doctest::Approx(1.0));
    }
  }

  std::vector<index_t> piv(4);
  std::vector<double> d(8), diag(4);
  CHECK(code_of([&] { f.enquire_indef(piv.data(), d.data()); }) == 0);
  CHECK(code_of([&] { f.enquire_posdef(diag.data()); }) == flag::not_indefinite);
  CHECK(code_of([&] { f.alter(d.data()); }) == 0);
  CHECK(code_of([&] { f.alter(nullptr); }) == flag::missing_data);
  CHECK(code_of([&] { Factors().alter(d.data()); }) == flag::call_sequence);

  // posdef factors
  Small p;
  p.val = {4.0, 1.0, 4.0, 1.0, 4.0, 1.0, 4.0};
  Analysis ap = analyse(p.view(), o, inform);
  Factors fp = factor(ap, p.val.data(), Mode::posdef, o, inform);
  CHECK(code_of([&] { fp.enquire_posdef(nullptr); }) == flag::missing_data);
  CHECK(code_of([&] { fp.enquire_posdef(diag.data()); }) == 0);
  CHECK(code_of([&] { fp.enquire_indef(piv.data(), d.data()); }) == flag::not_posdef_factors);
  CHECK(code_of([&] { fp.alter(d.data()); }) == flag::not_posdef_factors);

  // solve_refined: nrhs / ldb / ldx and missing arrays
  SymmetricMatrix a = s.owned();
  std::vector<double> b(4, 1.0), xr(4);
  RefineOptions ro;
  CHECK(code_of([&] { solve_refined(a, f, 0, b.data(), 4, xr.data(), 4, ro, inform); }) == flag::bad_ldx);
  CHECK(code_of([&] { solve_refined(a, f, 1, b.data(), 3, xr.data(), 4, ro, inform); }) == flag::bad_ldx);
  CHECK(code_of([&] { solve_refined(a, f, 1, b.data(), 4, xr.data(), 2, ro, inform); }) == flag::bad_ldx);
  CHECK(code_of([&] { solve_refined(a, f, 1, nullptr, 4, xr.data(), 4, ro, inform); }) == flag::missing_data);
  CHECK(code_of([&] { solve_refined(a, f, 1, b.data(), 4, nullptr, 4, ro, inform); }) == flag::missing_data);
}

TEST_CASE("hardening: out-of-range options are clamped as documented") {
  Small s;
  const double tol = 1e-13;
  for (double u : {-1.0, 0.0, 0.5, 2.0, std::numeric_limits<double>::infinity(), std::nan("")}) {
    CAPTURE(u);
    Options o = natural();
    o.u = u;
    CHECK(solve_error(s, o) < tol);
  }
  for (int nemin : {-100, -1, 0, 1}) {
    CAPTURE(nemin);
    Options o = natural();
    o.nemin = nemin;
    Inform inform;
    Options one = natural();
    one.nemin = 1;
    CHECK(analyse(s.view(), o, inform).num_sup() == analyse(s.view(), one, inform).num_sup());
    CHECK(solve_error(s, o) < tol);
  }
  for (int bs : {std::numeric_limits<int>::min(), -3, 0, 1, 2, 3, std::numeric_limits<int>::max()}) {
    CAPTURE(bs);
    Options o = natural();
    o.cpu_block_size = bs;
    CHECK(solve_error(s, o) < tol);
    CHECK(solve_error(s, o, Mode::indefinite) < tol);
  }
  for (int nt : {-8, -1, 0, 1, 3}) {
    CAPTURE(nt);
    Options o = natural();
    o.num_threads = nt;
    CHECK(solve_error(s, o) < tol);
  }
  // larger matrix with a tiny block size: many panels, delayed pivots
  SymmetricMatrix a = ssids_test::random_symmetric(80, 0.1, 0.5, 1.0, 3);
  for (int bs : {1, 2, 5}) {
    CAPTURE(bs);
    Options o;
    o.cpu_block_size = bs;
    o.nemin = 64;  // big fronts
    Inform inform;
    Analysis an = analyse(a.view(), o, inform);
    Factors f = factor(an, a.val.data(), Mode::indefinite, o, inform);
    std::vector<double> one(a.n, 1.0), b(a.n);
    symmetric_multiply(a, one.data(), b.data());
    std::vector<double> x = b;
    f.solve(SolveJob::full, 1, x.data(), a.n, inform);
    CHECK(scaled_backward_error(a, x.data(), b.data(), 1, a.n) < 1e-12);
  }
}

TEST_CASE("hardening: Matrix Market size line with a huge dimension fails cleanly and fast") {
  for (const std::string& text : {std::string("%%MatrixMarket matrix coordinate real general\n2000000000 2000000000 1\n1 1 1\n"),
                                 std::string("%%MatrixMarket matrix coordinate real symmetric\n2000000000 2000000000 1\n1 1 1\n"),
                                 std::string("%%MatrixMarket matrix coordinate pattern general\n1 2147483647 0\n"),
                                 std::string("%%MatrixMarket matrix coordinate real general\n2147483647 1 0\n")}) {
    CAPTURE(text);
    CHECK(code_of([&] { parse_general(text.data(), text.size()); }) == flag::bad_input);
    CHECK(code_of([&] { parse_symmetric(text.data(), text.size()); }) == flag::bad_input);
  }
  // dense 'array' files: nrow*ncol values must be present, and an empty dimension stores nothing
  const std::string d = "%%MatrixMarket matrix array real general\n2000000000 0\n";
  DenseMatrix dm = parse_dense(d.data(), d.size());
  CHECK(dm.val.empty());
  const std::string d2 = "%%MatrixMarket matrix array real general\n2000000000 2\n1\n";
  CHECK(code_of([&] { parse_dense(d2.data(), d2.size()); }) == flag::bad_input);
  // a large but plausible, nearly empty matrix is still accepted
  const std::string ok = "%%MatrixMarket matrix coordinate real general\n1000000 1000000 1\n5 5 1\n";
  CsrMatrix g = parse_general(ok.data(), ok.size());
  CHECK(g.nrow == 1000000);
  CHECK(g.nnz() == 1);
  // no data at all
  CHECK(code_of([&] { parse_symmetric(nullptr, 0); }) == flag::bad_input);
  CHECK(code_of([&] { parse_general(nullptr, 0); }) == flag::bad_input);
  CHECK(code_of([&] { parse_dense(nullptr, 0); }) == flag::bad_input);
  // gzip magic followed by garbage, or truncated
  const char gz[] = {'\x1f', '\x8b', '\x08', '\x00', 'x', 'y'};
  CHECK(code_of([&] { parse_symmetric(gz, sizeof(gz)); }) == flag::bad_input);
  CHECK(code_of([&] { parse_general(gz, 2); }) == flag::bad_input);
  CHECK(code_of([&] { parse_dense(gz, 3); }) == flag::bad_input);
}

TEST_CASE("hardening: symmetric_multiply / scaled_backward_error on an empty matrix") {
  SymmetricMatrix a;
  a.n = 0;
  a.ptr.assign(1, 0);
  CHECK(code_of([&] { symmetric_multiply(a, nullptr, nullptr); }) == 0);
  CHECK(symmetric_norm_inf(a) == 0.0);
}

// ---- the remaining public entry points (issue 11, item 4): one test case per header ----

TEST_CASE("hardening: reanalyse rejects what analyse rejects even after a valid analysis") {
  Small s;
  Options o = natural();
  Inform inform;
  const Analysis prev = analyse(s.view(), o, inform);
  auto re = [&](CscView v, const index_t* order = nullptr) {
    return code_of([&] { reanalyse(prev, v, o, inform, order); });
  };
  CscView v = s.view();
  v.n = -1;
  CHECK(re(v) == flag::bad_n);
  v.n = std::numeric_limits<index_t>::min();
  CHECK(re(v) == flag::bad_n);
  v = s.view();
  v.ptr = nullptr;
  CHECK(re(v) == flag::missing_data);
  v = s.view();
  v.row = nullptr;
  CHECK(re(v) == flag::missing_data);
  v = s.view();
  v.base = 3;
  CHECK(re(v) == flag::bad_input);
  // same n and entry count as the previous pattern, so only the hash tells them apart
  std::vector<offset_t> p_not_monotone{0, 3, 2, 6, 7}, p_shifted{1, 3, 5, 7, 8};
  CHECK(re(CscView{4, p_not_monotone.data(), s.row.data(), nullptr, 0}) == flag::bad_ptr);
  CHECK(re(CscView{4, p_shifted.data(), s.row.data(), nullptr, 0}) == flag::bad_ptr);
  std::vector<offset_t> p_end{0, 2, 4, 6, -1};  // ptr[n] inconsistent
  CHECK(re(CscView{4, p_end.data(), s.row.data(), nullptr, 0}) == flag::bad_ptr);
  std::vector<index_t> r_out{-1, 7, 100, -5, 9, 4, 4};
  CHECK(re(CscView{4, s.ptr.data(), r_out.data(), nullptr, 0}) == flag::all_out_of_range);
  o.ordering = Ordering::user;
  std::vector<index_t> bad_order{0, 1, 1, 3};
  CHECK(re(s.view(), nullptr) == flag::missing_data);
  CHECK(re(s.view(), bad_order.data()) == flag::bad_order);
  o.ordering = static_cast<Ordering>(-4);
  CHECK(re(s.view()) == flag::bad_input);
  // from an empty previous analysis, and the unchanged pattern still works afterwards
  o = natural();
  CHECK(code_of([&] { reanalyse(Analysis(), s.view(), o, inform); }) == 0);
  CHECK(re(s.view()) == 0);
}

TEST_CASE("hardening: Analysis and Factors accessors on empty objects and optional enquire arrays") {
  const Analysis none;
  CHECK(code_of([&] { none.n(); }) == flag::call_sequence);
  CHECK(code_of([&] { none.order(); }) == flag::call_sequence);
  CHECK(code_of([&] { none.num_factor(); }) == flag::call_sequence);
  const Factors empty;
  CHECK(code_of([&] { empty.backend(); }) == flag::call_sequence);
  std::vector<index_t> piv(4);
  std::vector<double> d(8);
  CHECK(code_of([&] { empty.n(); }) == flag::call_sequence);
  CHECK(code_of([&] { empty.mode(); }) == flag::call_sequence);
  CHECK(code_of([&] { empty.enquire_indef(piv.data(), d.data()); }) == flag::call_sequence);
  CHECK(code_of([&] { empty.enquire_posdef(d.data()); }) == flag::call_sequence);
  CHECK(code_of([&] { fingerprint(empty); }) == flag::call_sequence);
  Small s;
  Options o = natural();
  Inform inform;
  Factors f = factor(analyse(s.view(), o, inform), s.val.data(), Mode::indefinite, o, inform);
  CHECK(code_of([&] { f.enquire_indef(nullptr, nullptr); }) == 0);  // both outputs are optional
  CHECK(code_of([&] { f.enquire_indef(piv.data(), nullptr); }) == 0);
}

TEST_CASE("hardening: solution fingerprint rejects bad sizes and a missing array") {
  std::vector<double> x(4, 1.0);
  CHECK(code_of([&] { fingerprint(x.data(), -1, 1, 4); }) == flag::bad_n);
  CHECK(code_of([&] { fingerprint(x.data(), 4, 0, 4); }) == flag::bad_ldx);
  CHECK(code_of([&] { fingerprint(x.data(), 4, -2, 4); }) == flag::bad_ldx);
  CHECK(code_of([&] { fingerprint(x.data(), 4, 1, 3); }) == flag::bad_ldx);
  CHECK(code_of([&] { fingerprint(nullptr, 4, 1, 4); }) == flag::missing_data);
  CHECK(code_of([&] { fingerprint(nullptr, 0, 1, 0); }) == 0);
  CHECK(sha256_hex(nullptr, 0) == sha256_hex("", 0));
}

TEST_CASE("hardening: generators reject negative and overflowing sizes") {
  CHECK(code_of([] { generate_laplace2d(-1); }) == flag::bad_input);
  CHECK(code_of([] { generate_laplace2d(50000); }) == flag::bad_input);  // K^2 overflows int32
  CHECK(code_of([] { generate_laplace3d(-3); }) == flag::bad_input);
  CHECK(code_of([] { generate_laplace3d(2000); }) == flag::bad_input);  // K^3 overflows int32
  CHECK(code_of([] { generate_laplace3d(3, std::nan("")); }) == flag::bad_input);
  CHECK(code_of([] { laplace3d_num_neg(-1, 1.0); }) == flag::bad_input);
  CHECK(code_of([] { generate_kkt_qp(0, 0, 0.0, 1); }) == flag::bad_input);
  CHECK(code_of([] { generate_kkt_qp(10, 10, 0.0, 1); }) == flag::bad_input);
  CHECK(code_of([] { generate_kkt_qp(std::numeric_limits<index_t>::max(), 5, 0.0, 1); }) == flag::bad_input);
  CHECK(code_of([] { generate_kkt_qp(10, 3, -1.0, 1); }) == flag::bad_input);
  CHECK(code_of([] { generate_stokes(1); }) == flag::bad_input);
  CHECK(code_of([] { generate_convdiff(-1, 1.0); }) == flag::bad_input);
  CHECK(code_of([] { generate_banded(-5, 1, 1.0, 1); }) == flag::bad_input);
  CHECK(code_of([] { generate_banded(10, -1, 1.0, 1); }) == flag::bad_input);
  CHECK(code_of([] { load_symmetric(""); }) == flag::bad_input);
  CHECK(code_of([] { load_general("gen:banded:-1:1:1"); }) == flag::bad_input);
}

TEST_CASE("hardening: Matrix Market files that cannot be opened or written") {
  CHECK(code_of([] { read_symmetric("/nonexistent-dir/a.mtx"); }) == flag::bad_input);
  CHECK(code_of([] { read_general("/nonexistent-dir/a.mtx.gz"); }) == flag::bad_input);
  CHECK(code_of([] { read_dense("/"); }) == flag::bad_input);  // a directory
  SymmetricMatrix a = Small().owned();
  CHECK(code_of([&] { write_symmetric("/nonexistent-dir/a.mtx", a); }) == flag::bad_input);
  CsrMatrix g;
  g.ptr.assign(1, 0);
  CHECK(code_of([&] { write_general("/nonexistent-dir/g.mtx", g); }) == flag::bad_input);
  DenseMatrix dm;
  CHECK(code_of([&] { write_dense("/nonexistent-dir/d.mtx", dm); }) == flag::bad_input);
}

TEST_CASE("hardening: SaP Solver calls out of order and malformed CSR") {
  using namespace ssids::sap;
  CsrMatrix a = generate_banded(40, 2, 1.0, 7);
  std::vector<double> b(40, 1.0), x(40), band(40 * 5, 0.0);
  SapOptions o;
  SapInform inf;
  {
    Solver s;  // nothing set up yet
    CHECK(code_of([&] { s.solve(b.data(), x.data(), inf); }) == flag::call_sequence);
    CHECK(code_of([&] { s.update(a, inf); }) == flag::call_sequence);
    CHECK(code_of([&] { s.update_banded(band.data(), inf); }) == flag::call_sequence);
    CHECK(code_of([&] { s.apply_preconditioner(b.data(), x.data()); }) == flag::call_sequence);
    CHECK(code_of([&] { s.multiply(b.data(), x.data()); }) == flag::call_sequence);
  }
  auto setup_code = [&](const CsrMatrix& m) {
    Solver s;
    return code_of([&] { s.setup(m, o, inf); });
  };
  CsrMatrix m = a;
  m.nrow = m.ncol = -1;
  CHECK(setup_code(m) == flag::bad_n);
  m = a;
  std::swap(m.ptr[3], m.ptr[4]);  // not monotone
  CHECK(setup_code(m) == flag::bad_ptr);
  m = a;
  m.ptr.pop_back();  // ptr of n entries
  CHECK(setup_code(m) == flag::bad_ptr);
  m = a;
  m.ptr.back() -= 1;  // ptr[n] disagrees with the sizes of col and val
  CHECK(setup_code(m) == flag::bad_ptr);
  m = a;
  m.col[5] = 40;
  CHECK(setup_code(m) == flag::bad_input);
  m = a;
  m.col[5] = -1;
  CHECK(setup_code(m) == flag::bad_input);
  m = a;
  std::swap(m.col[0], m.col[1]);  // unsorted row
  CHECK(setup_code(m) == flag::bad_input);
  // options out of range are errors (SaP has no SPRAL counterpart to clamp like)
  for (int which = 0; which < 6; ++which) {
    CAPTURE(which);
    o = SapOptions();
    if (which == 0) o.partitions = 0;
    if (which == 1) o.restart = 0;
    if (which == 2) o.rtol = -1.0;
    if (which == 3) o.max_iterations = -1;
    if (which == 4) o.drop = -0.5;
    if (which == 5) o.boost_epsilon = std::nan("");
    CHECK(setup_code(a) == flag::bad_input);
    CHECK(code_of([&] { solve(a, b.data(), x.data(), o, inf); }) == flag::bad_input);
  }
  o = SapOptions();
  Solver s;
  s.setup(a, o, inf);
  CHECK(code_of([&] { s.solve(nullptr, x.data(), inf); }) == flag::missing_data);
  CHECK(code_of([&] { s.solve(b.data(), nullptr, inf); }) == flag::missing_data);
  CHECK(code_of([&] { s.update_banded(band.data(), inf); }) == flag::call_sequence);  // set up sparse, not banded
  CsrMatrix other = generate_banded(40, 3, 1.0, 7);
  CHECK(code_of([&] { s.update(other, inf); }) == flag::bad_input);  // pattern differs
  CHECK(code_of([&] { Solver().setup_banded(40, -1, band.data(), o, inf); }) == flag::bad_input);
  CHECK(code_of([&] { Solver().setup_banded(40, 2, nullptr, o, inf); }) == flag::missing_data);
  CHECK(code_of([&] { Solver().setup_banded(std::numeric_limits<index_t>::min(), 2, band.data(), o, inf); }) ==
        flag::bad_n);
}

TEST_CASE("hardening: ssids_sap_solve flags for every malformed argument") {
  CsrMatrix a = generate_banded(30, 2, 1.0, 3);
  std::vector<int64_t> ptr(a.ptr.begin(), a.ptr.end());
  std::vector<int> col(a.col.begin(), a.col.end());
  std::vector<double> val(a.val.begin(), a.val.end()), b(30, 1.0), x(30, 0.0);
  ssids_sap_inform inf;
  auto rc = [&](int n, const int64_t* p, const int* c, const double* v, const double* bb, double* xx,
                const ssids_sap_options* o) { return ssids_sap_solve(n, p, c, v, bb, xx, o, &inf); };
  CHECK(rc(std::numeric_limits<int>::min(), ptr.data(), col.data(), val.data(), b.data(), x.data(), nullptr) ==
        flag::bad_n);
  CHECK(rc(30, ptr.data(), nullptr, val.data(), b.data(), x.data(), nullptr) == flag::missing_data);
  CHECK(rc(30, ptr.data(), col.data(), nullptr, b.data(), x.data(), nullptr) == flag::missing_data);
  CHECK(rc(30, ptr.data(), col.data(), val.data(), nullptr, x.data(), nullptr) == flag::missing_data);
  CHECK(rc(30, ptr.data(), col.data(), val.data(), b.data(), nullptr, nullptr) == flag::missing_data);
  std::vector<int64_t> p2 = ptr;
  std::swap(p2[4], p2[5]);
  CHECK(rc(30, p2.data(), col.data(), val.data(), b.data(), x.data(), nullptr) == flag::bad_ptr);
  p2 = ptr;
  p2[30] = p2[29] - 1;  // ptr[n] < ptr[n-1]
  CHECK(rc(30, p2.data(), col.data(), val.data(), b.data(), x.data(), nullptr) == flag::bad_ptr);
  std::vector<int> c2 = col;
  c2[7] = -3;
  CHECK(rc(30, ptr.data(), c2.data(), val.data(), b.data(), x.data(), nullptr) == flag::bad_input);
  ssids_sap_options o;
  for (int which = 0; which < 7; ++which) {
    CAPTURE(which);
    ssids_sap_default_options(&o);
    if (which == 0) o.array_base = 2;
    if (which == 1) o.krylov = 4;
    if (which == 2) o.variant = -1;
    if (which == 3) o.partitions = 0;
    if (which == 4) o.restart = 0;
    if (which == 5) o.max_iterations = -1;
    if (which == 6) o.rtol = -1e-6;
    CHECK(rc(30, ptr.data(), col.data(), val.data(), b.data(), x.data(), &o) == flag::bad_input);
  }
  // no inform: the return value still carries the flag
  CHECK(ssids_sap_solve(-1, nullptr, nullptr, nullptr, nullptr, nullptr, nullptr, nullptr) == flag::bad_n);
  CHECK(rc(30, ptr.data(), col.data(), val.data(), b.data(), x.data(), nullptr) == 0);  // still works
}

namespace {
struct CHandles {
  void* akeep = nullptr;
  void* fkeep = nullptr;
  ~CHandles() { spral_ssids_free(&akeep, &fkeep); }
};
spral_ssids_options c_options() {
  spral_ssids_options o;
  spral_ssids_default_options(&o);
  o.use_gpu = false;
  return o;
}
}  // namespace

TEST_CASE("hardening: C interface entry points with NULL and malformed arguments") {
  Small s;
  std::vector<int64_t> ptr(s.ptr.begin(), s.ptr.end());
  std::vector<int> ptr32(s.ptr.begin(), s.ptr.end()), row(s.row.begin(), s.row.end());
  const spral_ssids_options o = c_options();
  spral_ssids_inform inf;

  // a NULL inform is never written through, whatever else is wrong
  CHECK_NOTHROW(spral_ssids_default_options(nullptr));
  {
    CHandles h;
    spral_ssids_analyse(true, -1, nullptr, nullptr, nullptr, nullptr, &h.akeep, &o, nullptr);
    spral_ssids_analyse_ptr32(true, 4, nullptr, nullptr, nullptr, nullptr, &h.akeep, &o, nullptr);
    spral_ssids_analyse_coord(4, nullptr, -1, nullptr, nullptr, nullptr, &h.akeep, &o, nullptr);
    spral_ssids_analyse_topology(true, 4, nullptr, nullptr, nullptr, nullptr, &h.akeep, &o, nullptr, -1, nullptr);
    spral_ssids_factor(false, nullptr, nullptr, nullptr, nullptr, h.akeep, &h.fkeep, &o, nullptr);
    spral_ssids_factor_ptr32(false, nullptr, nullptr, nullptr, nullptr, h.akeep, &h.fkeep, &o, nullptr);
    spral_ssids_solve1(0, nullptr, h.akeep, h.fkeep, &o, nullptr);
    spral_ssids_solve(0, 1, nullptr, 4, h.akeep, h.fkeep, &o, nullptr);
    spral_ssids_enquire_posdef(h.akeep, h.fkeep, &o, nullptr, nullptr);
    spral_ssids_enquire_indef(h.akeep, h.fkeep, &o, nullptr, nullptr, nullptr);
    spral_ssids_alter(nullptr, h.akeep, h.fkeep, &o, nullptr);
    CHECK(h.akeep == nullptr);
    CHECK(h.fkeep == nullptr);
  }

  // analyse: NULL handle pointer or options; n < 0; ptr not monotone; ptr[n] inconsistent; 32-bit ptr
  spral_ssids_analyse(true, 4, nullptr, ptr.data(), row.data(), nullptr, nullptr, &o, &inf);
  CHECK(inf.flag == flag::missing_data);
  {
    CHandles h;
    spral_ssids_analyse(true, 4, nullptr, ptr.data(), row.data(), nullptr, &h.akeep, nullptr, &inf);
    CHECK(inf.flag == flag::missing_data);
    spral_ssids_analyse(true, std::numeric_limits<int>::min(), nullptr, ptr.data(), row.data(), nullptr, &h.akeep, &o,
                        &inf);
    CHECK(inf.flag == flag::bad_n);
    std::vector<int64_t> p_end = ptr;
    p_end[4] = 1;
    spral_ssids_analyse(true, 4, nullptr, p_end.data(), row.data(), nullptr, &h.akeep, &o, &inf);
    CHECK(inf.flag == flag::bad_ptr);
    spral_ssids_analyse_ptr32(true, -3, nullptr, ptr32.data(), row.data(), nullptr, &h.akeep, &o, &inf);
    CHECK(inf.flag == flag::bad_n);
    spral_ssids_analyse_ptr32(true, 4, nullptr, nullptr, row.data(), nullptr, &h.akeep, &o, &inf);
    CHECK(inf.flag == flag::missing_data);
    std::vector<int> p32 = ptr32;
    std::swap(p32[1], p32[2]);
    spral_ssids_analyse_ptr32(true, 4, nullptr, p32.data(), row.data(), nullptr, &h.akeep, &o, &inf);
    CHECK(inf.flag == flag::bad_ptr);
    spral_ssids_analyse_topology(true, -1, nullptr, ptr.data(), row.data(), nullptr, &h.akeep, &o, &inf, 0, nullptr);
    CHECK(inf.flag == flag::bad_n);
    spral_ssids_analyse_topology(true, 4, nullptr, nullptr, row.data(), nullptr, &h.akeep, &o, &inf, 0, nullptr);
    CHECK(inf.flag == flag::missing_data);
    // as in SPRAL, analyse made the handle before anything failed; it cannot be factorized
    REQUIRE(h.akeep != nullptr);
    spral_ssids_factor(false, nullptr, nullptr, s.val.data(), nullptr, h.akeep, &h.fkeep, &o, &inf);
    CHECK(inf.flag == flag::call_sequence);
  }

  // coordinate input: ne < 0, NULL row or col, indices out of range in both directions, user order missing
  {
    CHandles h;
    std::vector<int> r{0, 1, 2, 3}, c{0, 1, 2, 3};
    spral_ssids_analyse_coord(4, nullptr, -5, r.data(), c.data(), nullptr, &h.akeep, &o, &inf);
    CHECK(inf.flag == flag::bad_n);
    spral_ssids_analyse_coord(4, nullptr, 4, nullptr, c.data(), nullptr, &h.akeep, &o, &inf);
    CHECK(inf.flag == flag::missing_data);
    spral_ssids_analyse_coord(4, nullptr, 4, r.data(), nullptr, nullptr, &h.akeep, &o, &inf);
    CHECK(inf.flag == flag::missing_data);
    std::vector<int> r_out{0, 1, 2, 3}, c_out{0, 1, -7, std::numeric_limits<int>::max()};
    r_out[1] = std::numeric_limits<int>::min();
    spral_ssids_analyse_coord(4, nullptr, 4, r_out.data(), c_out.data(), nullptr, &h.akeep, &o, &inf);
    CHECK(inf.flag == flag::structurally_singular);  // columns 1-3 lost every entry (SPRAL: +6 over +5)
    CHECK(inf.matrix_outrange == 3);
    CHECK(inf.matrix_rank == 1);
    auto ou = o;
    ou.ordering = 0;
    spral_ssids_analyse_coord(4, nullptr, 4, r.data(), c.data(), nullptr, &h.akeep, &ou, &inf);
    CHECK(inf.flag == flag::bad_order);  // ordering 0 without an order, as SPRAL
  }

  // huge n in coordinate form: the CSC arrays it needs are the first allocation, and a failure is clean
  {
    CHandles h;
    std::vector<int> r{1}, c{1};
    inject_host_allocation_failure(0);
    spral_ssids_analyse_coord(std::numeric_limits<int>::max(), nullptr, 1, r.data(), c.data(), nullptr, &h.akeep, &o,
                              &inf);
    inject_host_allocation_failure(-1);
    CHECK(inf.flag == flag::allocation);
    spral_ssids_factor(false, nullptr, nullptr, nullptr, nullptr, h.akeep, &h.fkeep, &o, &inf);
    CHECK(inf.flag == flag::call_sequence);  // the handle (made first, as SPRAL's) is unusable
  }

  // factor, solve, enquire, alter
  CHandles h;
  spral_ssids_analyse(true, 4, nullptr, ptr.data(), row.data(), nullptr, &h.akeep, &o, &inf);
  REQUIRE(inf.flag == 0);
  spral_ssids_factor(false, nullptr, nullptr, nullptr, nullptr, h.akeep, &h.fkeep, &o, &inf);
  CHECK(inf.flag == flag::missing_data);
  spral_ssids_factor_ptr32(false, nullptr, nullptr, nullptr, nullptr, h.akeep, &h.fkeep, &o, &inf);
  CHECK(inf.flag == flag::missing_data);
  spral_ssids_factor(false, nullptr, nullptr, s.val.data(), nullptr, h.akeep, nullptr, &o, &inf);
  CHECK(inf.flag < 0);
  spral_ssids_factor(false, nullptr, nullptr, s.val.data(), nullptr, h.akeep, &h.fkeep, nullptr, &inf);
  CHECK(inf.flag < 0);
  {  // the factorizations that failed above left an unusable handle behind (made first, as SPRAL's)
    std::vector<double> y(4, 1.0);
    spral_ssids_solve1(0, y.data(), h.akeep, h.fkeep, &o, &inf);
    CHECK(inf.flag == flag::call_sequence);
  }
  {  // a user scaling with a zero entry
    auto os = o;
    os.scaling = 0;
    std::vector<double> sc{1.0, 0.0, 1.0, 1.0};
    CHandles hs;
    spral_ssids_analyse(true, 4, nullptr, ptr.data(), row.data(), nullptr, &hs.akeep, &os, &inf);
    spral_ssids_factor(false, nullptr, nullptr, s.val.data(), sc.data(), hs.akeep, &hs.fkeep, &os, &inf);
    CHECK(inf.flag == flag::bad_input);
  }
  spral_ssids_factor(false, nullptr, nullptr, s.val.data(), nullptr, h.akeep, &h.fkeep, &o, &inf);
  REQUIRE(inf.flag == 0);
  std::vector<double> x(8, 1.0), d(8);
  spral_ssids_solve1(0, nullptr, h.akeep, h.fkeep, &o, &inf);
  CHECK(inf.flag == flag::missing_data);
  spral_ssids_solve(0, 2, nullptr, 4, h.akeep, h.fkeep, &o, &inf);
  CHECK(inf.flag == flag::missing_data);
  spral_ssids_solve(0, 2, x.data(), 3, h.akeep, h.fkeep, &o, &inf);
  CHECK(inf.flag == flag::bad_ldx);
  spral_ssids_solve(0, -1, x.data(), 4, h.akeep, h.fkeep, &o, &inf);
  CHECK(inf.flag == flag::bad_ldx);
  spral_ssids_solve(0, 1, x.data(), std::numeric_limits<int>::min(), h.akeep, h.fkeep, &o, &inf);
  CHECK(inf.flag == flag::bad_ldx);
  spral_ssids_solve(7, 1, x.data(), 4, h.akeep, h.fkeep, &o, &inf);
  CHECK(inf.flag == flag::bad_job);
  spral_ssids_solve(0, 1, x.data(), 4, h.fkeep, h.akeep, &o, &inf);  // handles swapped
  CHECK(inf.flag == flag::call_sequence);
  spral_ssids_solve(0, 1, x.data(), 4, h.akeep, h.fkeep, nullptr, &inf);  // options are not needed by solve
  CHECK(inf.flag == 0);
  spral_ssids_enquire_indef(h.akeep, h.fkeep, nullptr, &inf, nullptr, nullptr);
  CHECK(inf.flag == 0);
  spral_ssids_enquire_indef(h.fkeep, h.akeep, &o, &inf, nullptr, d.data());
  CHECK(inf.flag == flag::call_sequence);
  spral_ssids_enquire_posdef(h.akeep, h.fkeep, &o, &inf, nullptr);
  CHECK(inf.flag == flag::not_indefinite);
  spral_ssids_alter(nullptr, h.akeep, h.fkeep, &o, &inf);
  CHECK(inf.flag == flag::missing_data);
  spral_ssids_alter(d.data(), h.akeep, nullptr, &o, &inf);
  CHECK(inf.flag == flag::call_sequence);
  {  // posdef factors: enquire_posdef needs d
    Small p;
    p.val = {4.0, 1.0, 4.0, 1.0, 4.0, 1.0, 4.0};
    CHandles hp;
    spral_ssids_analyse(true, 4, nullptr, ptr.data(), row.data(), nullptr, &hp.akeep, &o, &inf);
    spral_ssids_factor(true, nullptr, nullptr, p.val.data(), nullptr, hp.akeep, &hp.fkeep, &o, &inf);
    REQUIRE(inf.flag == 0);
    spral_ssids_enquire_posdef(hp.akeep, hp.fkeep, &o, &inf, nullptr);
    CHECK(inf.flag == flag::missing_data);
    spral_ssids_solve1(2, x.data(), hp.akeep, hp.fkeep, &o, &inf);  // D solves need indefinite factors
    CHECK(inf.flag == flag::bad_job);
  }
  // options out of range: the clamped ones still work, the others are flagged
  {
    auto oc = o;
    oc.u = -3.0;
    oc.nemin = -5;
    oc.pivot_method = 99;
    oc.cpu_block_size = -1;
    oc.small = -1.0;
    CHandles hc;
    spral_ssids_analyse(true, 4, nullptr, ptr.data(), row.data(), nullptr, &hc.akeep, &oc, &inf);
    CHECK(inf.flag == 0);
    spral_ssids_factor(false, nullptr, nullptr, s.val.data(), nullptr, hc.akeep, &hc.fkeep, &oc, &inf);
    CHECK(inf.flag == 0);
    oc = o;
    oc.scaling = 99;  // as in SPRAL, any scaling above 4 is equilibration
    spral_ssids_factor(false, nullptr, nullptr, s.val.data(), nullptr, hc.akeep, &hc.fkeep, &oc, &inf);
    CHECK(inf.flag == 0);
    oc = o;
    oc.ordering = -1;  // SPRAL's -8; and the handle is unusable afterwards
    spral_ssids_analyse(true, 4, nullptr, ptr.data(), row.data(), nullptr, &hc.akeep, &oc, &inf);
    CHECK(inf.flag == flag::bad_order);
    spral_ssids_factor(false, nullptr, nullptr, s.val.data(), nullptr, hc.akeep, &hc.fkeep, &o, &inf);
    CHECK(inf.flag == flag::call_sequence);
  }
  // the handles still work after all of the above
  std::vector<double> one(4, 1.0), b(4);
  SymmetricMatrix a = s.owned();
  symmetric_multiply(a, one.data(), b.data());
  spral_ssids_solve1(0, b.data(), h.akeep, h.fkeep, &o, &inf);
  CHECK(inf.flag == 0);
  for (double v : b) CHECK(v == doctest::Approx(1.0));
}

TEST_CASE("hardening: scaled_backward_error rejects bad nrhs ld and missing arrays") {
  const SymmetricMatrix a = generate_laplace2d(3);
  std::vector<double> x(9, 1.0), b(9, 1.0);
  CHECK(scaled_backward_error(a, x.data(), b.data(), 1, 9) >= 0.0);
  for (auto bad : {std::pair<int, long>{0, 9}, {-1, 9}, {1, 8}, {2, 0}}) {
    try {
      scaled_backward_error(a, x.data(), b.data(), bad.first, bad.second);
      FAIL("accepted nrhs " << bad.first << " ld " << bad.second);
    } catch (const Error& e) {
      CHECK(e.code() == flag::bad_ldx);
    }
  }
  try {
    scaled_backward_error(a, nullptr, b.data(), 1, 9);
    FAIL("accepted a null x");
  } catch (const Error& e) {
    CHECK(e.code() == flag::missing_data);
  }
}
