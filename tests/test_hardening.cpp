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

#include "ssids/analyse.hpp"
#include "ssids/config.hpp"
#include "ssids/error.hpp"
#include "ssids/factor.hpp"
#include "ssids/matrix_market.hpp"
#include "ssids/refine.hpp"
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
