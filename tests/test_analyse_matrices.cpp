// test_analyse_matrices.cpp — ssids::analyse() on the shared test matrices and on a generated 3D Laplacian.
// Every symmetric Matrix Market file of ssids_test::matrix_files() is analysed with the default options and
// with nemin = 1; for n <= 20000 the predicted nnz(L) and flops are compared with an independent exact count
// in the analysis's own final order (tests/support_symbolic.cpp). Skips when there is no matrix folder.
#include <doctest/doctest.h>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <string>

#include "analyse/symbolic.hpp"
#include "ssids/analyse.hpp"
#include "ssids/error.hpp"
#include "ssids/generate.hpp"
#include "ssids/matrix_market.hpp"
#include "support.hpp"
#include "support_symbolic.hpp"

TEST_CASE("analyse: shared test matrices") {
  if (ssids_test::matrices_dir().empty()) {
    ssids_test::skip("no test matrix folder");
    return;
  }
  const auto files = ssids_test::matrix_files();
  REQUIRE_MESSAGE(!files.empty(), "the matrix folder " << ssids_test::matrices_dir() << " holds no matrix");
  int analysed = 0;
  for (const auto& path : files) {
    CAPTURE(path);
    ssids::MatrixReport report;
    ssids::SymmetricMatrix a;
    try {
      a = ssids::read_symmetric(path, &report);
    } catch (const ssids::Error& e) {
      if (e.code() == ssids::flag::not_symmetric) continue;  // a general file
      throw;
    }
    if (!report.symmetric_file) continue;
    ++analysed;
    for (int nemin : {32, 1}) {
      CAPTURE(nemin);
      ssids::Options opt;
      opt.nemin = nemin;
      ssids::Inform inform;
      const auto t0 = std::chrono::steady_clock::now();
      ssids::Analysis an = ssids::analyse(a.view(), opt, inform);
      const double t = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
      std::printf("%s nemin=%d: n=%d nnz=%lld nsup=%d levels=%d nnz(L)=%lld flops=%.3e maxfront=%d (%.3f s)\n",
                  path.c_str(), nemin, a.n, static_cast<long long>(a.nnz()), inform.num_sup, inform.num_levels,
                  static_cast<long long>(inform.num_factor), static_cast<double>(inform.num_flops), inform.maxfront, t);
      CHECK(inform.flag >= 0);
      CHECK(an.nnz() == a.nnz());
      if (a.n <= 20000) {
        ssids_test::check_symbolic(an, a.view(), a, nemin == 1);
      } else {
        CHECK(an.num_factor() >= a.nnz());
      }
    }
  }
  std::printf("%d symmetric matrices analysed\n", analysed);
}

TEST_CASE("analyse: 3D Laplacian 60^3" * doctest::test_suite("slow")) {
  const int k = 60;
  ssids::SymmetricMatrix a = ssids::generate_laplace3d(k);
  ssids::Options opt;
  ssids::Inform inform;
  ssids::Analysis an = ssids::analyse(a.view(), opt, inform);
  const double n = static_cast<double>(a.n);
  std::printf("laplace3d(%d): n=%d analyse %.3f s, nsup=%d levels=%d nnz(L)=%lld (%.1f n^(4/3)) flops=%.3e "
              "maxfront=%d memory_host=%.3f GB\n",
              k, a.n, inform.time_analyse, inform.num_sup, inform.num_levels,
              static_cast<long long>(inform.num_factor), inform.num_factor / std::pow(n, 4.0 / 3.0),
              static_cast<double>(inform.num_flops), inform.maxfront, inform.memory_host / 1e9);
  CHECK(inform.flag == 0);
  // nested dissection on a k^3 grid: nnz(L) = O(n^{4/3}), front of the top separator about k^2
  CHECK(inform.num_factor > 4 * a.nnz());
  CHECK(inform.num_factor < 60.0 * std::pow(n, 4.0 / 3.0));
  CHECK(inform.maxfront >= k * k / 2);
  CHECK(inform.maxfront <= 3 * k * k);
  CHECK(inform.time_analyse < 30.0);
  // the structural invariants hold here too (counts: only the cheap checks at this size)
  const auto& s = an.symbolic();
  CHECK(s.rptr[s.nsup] == static_cast<ssids::offset_t>(s.rlist.size()));
  CHECK(s.amap.size() == static_cast<size_t>(a.nnz()));
}
