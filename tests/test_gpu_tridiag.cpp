// test_gpu_tridiag.cpp — the GPU partitioned cyclic reduction and splitting iteration (label "gpu"; skipped
// without a device). The GPU solution must be BITWISE equal to the CPU twin (pcr_cpu) for the same block size:
// both run the same per-block code (src/tridiag/pcr_core.hpp) in the same order, the device with __dmul_rn /
// __dsub_rn / __ddiv_rn so that nothing is contracted into an FMA, and every stage of the cyclic reduction
// updates equations from equations it does not write, so the thread order cannot matter. Against Thomas (a
// different algorithm) the agreement is to 1e-13 relative. The splitting iteration on the GPU must give the same
// status and iterations within +-1 of the CPU (in fact the same iterates: its norms are max-reductions, exact).
#include <doctest/doctest.h>

#include <cmath>
#include <cstring>
#include <functional>
#include <string>
#include <vector>

#ifdef SSIDS_TEST_HAVE_CUDA
#include <cuda_runtime.h>
#endif

#include "factor/factor_gpu.hpp"
#include "ssids/error.hpp"
#include "ssids/tridiag.hpp"
#include "tridiag/tridiag_internal.hpp"
#include "support.hpp"
#include "support_tridiag.hpp"

using namespace ssids;
using namespace ssids_test;

namespace {

using ssids_test::expect_error;

using ssids_test::need_gpu;

const int kSizes[] = {1, 2, 3, 31, 32, 33, 63, 64, 65, 127, 129, 257, 1000, 4097, 100003};

double berr(const Tri& t, const std::vector<double>& x, const std::vector<double>& b, int nrhs, offset_t ld) {
  return tridiag::backward_error(t.n, t.dl.data(), t.d.data(), t.du.data(), nrhs, x.data(), ld, b.data(), ld);
}

bool bitwise(const std::vector<double>& x, const std::vector<double>& y) {
  return x.size() == y.size() && std::memcmp(x.data(), y.data(), x.size() * sizeof(double)) == 0;
}

}  // namespace

TEST_SUITE("gpu") {
  TEST_CASE("gpu pcr is bitwise equal to the cpu twin across block boundaries") {
    if (!need_gpu()) return;
    for (int bsz : {4, 32, 64, 512}) {
      for (int n : kSizes) {
        CAPTURE(bsz);
        CAPTURE(n);
        const Tri t = random_tri(n, 300 + n);
        const std::vector<double> b = random_vec(n, 400 + n);
        std::vector<double> xt = b, xc = b, xg = b;
        tridiag::Options o;
        o.block_rows = bsz;
        tridiag::Solver::factor(n, t.dl.data(), t.d.data(), t.du.data(), tridiag::Backend::thomas, o).solve(1, xt.data(), n);
        tridiag::Solver::factor(n, t.dl.data(), t.d.data(), t.du.data(), tridiag::Backend::pcr_cpu, o).solve(1, xc.data(), n);
        tridiag::Solver::factor(n, t.dl.data(), t.d.data(), t.du.data(), tridiag::Backend::pcr_gpu, o).solve(1, xg.data(), n);
        CHECK(bitwise(xg, xc));
        if (!bitwise(xg, xc)) MESSAGE("max relative difference gpu vs cpu twin: " << rel_diff(xg.data(), xc.data(), n));
        CHECK(rel_diff(xg.data(), xt.data(), n) <= 1e-13);
        CHECK(berr(t, xg, b, 1, n) <= 1e-15);
      }
    }
  }

  TEST_CASE("gpu pcr with many right-hand sides and a padded leading dimension") {
    if (!need_gpu()) return;
    for (int n : {1, 65, 4097, 100003}) {
      CAPTURE(n);
      const int nrhs = 7;
      const offset_t ld = n + 5;
      const Tri t = random_tri(n, 700 + n);
      const std::vector<double> b = random_vec(static_cast<std::size_t>(ld) * nrhs, 800 + n);
      tridiag::Options o;
      o.block_rows = 128;
      auto sg = tridiag::Solver::factor(n, t.dl.data(), t.d.data(), t.du.data(), tridiag::Backend::pcr_gpu, o);
      auto sc = tridiag::Solver::factor(n, t.dl.data(), t.d.data(), t.du.data(), tridiag::Backend::pcr_cpu, o);
      std::vector<double> xg = b, xc = b;
      sg.solve(nrhs, xg.data(), ld);
      sc.solve(nrhs, xc.data(), ld);
      CHECK(bitwise(xg, xc));  // padding rows untouched on both
      CHECK(berr(t, xg, b, nrhs, ld) <= 1e-15);
      std::vector<double> again = b;  // the reduction is reused: a second solve is identical
      sg.solve(nrhs, again.data(), ld);
      CHECK(bitwise(again, xg));
    }
  }

  TEST_CASE("gpu pcr device pointer entry on a stream") {
    if (!need_gpu()) return;
#ifdef SSIDS_TEST_HAVE_CUDA
    for (int n : {3, 1000, 1000003}) {
      CAPTURE(n);
      const int nrhs = 3;
      const Tri t = random_tri(n, 1100 + n);
      const std::vector<double> b = random_vec(static_cast<std::size_t>(n) * nrhs, 1200 + n);
      cudaStream_t st;
      REQUIRE(cudaStreamCreate(&st) == cudaSuccess);
      double *ddl = nullptr, *dd = nullptr, *ddu = nullptr, *db = nullptr;
      const std::size_t bytes = static_cast<std::size_t>(n) * sizeof(double);
      REQUIRE(cudaMalloc(&ddl, bytes) == cudaSuccess);
      REQUIRE(cudaMalloc(&dd, bytes) == cudaSuccess);
      REQUIRE(cudaMalloc(&ddu, bytes) == cudaSuccess);
      REQUIRE(cudaMalloc(&db, bytes * nrhs) == cudaSuccess);
      cudaMemcpy(ddl, t.dl.data(), bytes, cudaMemcpyHostToDevice);
      cudaMemcpy(dd, t.d.data(), bytes, cudaMemcpyHostToDevice);
      cudaMemcpy(ddu, t.du.data(), bytes, cudaMemcpyHostToDevice);
      cudaMemcpy(db, b.data(), bytes * nrhs, cudaMemcpyHostToDevice);
      auto sg = tridiag::Solver::factor_device(n, ddl, dd, ddu, st);
      sg.solve_device(nrhs, db, n, st);
      REQUIRE(cudaStreamSynchronize(st) == cudaSuccess);
      std::vector<double> xg(b.size());
      cudaMemcpy(xg.data(), db, bytes * nrhs, cudaMemcpyDeviceToHost);
      std::vector<double> xc = b;
      tridiag::Solver::factor(n, t.dl.data(), t.d.data(), t.du.data(), tridiag::Backend::pcr_cpu).solve(nrhs, xc.data(), n);
      CHECK(bitwise(xg, xc));
      CHECK(berr(t, xg, b, nrhs, n) <= 1e-15);
      cudaFree(ddl);
      cudaFree(dd);
      cudaFree(ddu);
      cudaFree(db);
      cudaStreamDestroy(st);
    }
#endif
  }

  TEST_CASE("gpu pcr reports zero and tiny pivots like the cpu twin") {
    if (!need_gpu()) return;
    for (int n : {2, 40, 1000}) {
      for (int where : {0, 1, n / 2, n - 1}) {
        CAPTURE(n);
        CAPTURE(where);
        Tri t = random_tri(n, 900 + n);
        zero_row(t, where);
        tridiag::Options o;
        o.block_rows = 8;
        std::string mc, mg;
        int cc = 0, cg = 0;
        try {
          tridiag::Solver::factor(n, t.dl.data(), t.d.data(), t.du.data(), tridiag::Backend::pcr_cpu, o);
        } catch (const Error& e) {
          cc = e.code();
          mc = e.what();
        }
        try {
          tridiag::Solver::factor(n, t.dl.data(), t.d.data(), t.du.data(), tridiag::Backend::pcr_gpu, o);
        } catch (const Error& e) {
          cg = e.code();
          mg = e.what();
        }
        CHECK(cc == flag::singular);
        CHECK(cg == flag::singular);
        CHECK(mg == mc);
        t.d[where] = NAN;
        CHECK(expect_error([&] {
                tridiag::Solver::factor(n, t.dl.data(), t.d.data(), t.du.data(), tridiag::Backend::pcr_gpu, o);
              }) == flag::singular);
      }
    }
  }

  TEST_CASE("gpu splitting iteration agrees with the cpu") {
    if (!need_gpu()) return;
    for (int n : {4, 1000, 100003}) {
      for (double scale : {0.8, 40.0}) {  // converging, not converging
        if (n < 100 && scale > 1) continue;  // too few S entries to be sure of divergence
        CAPTURE(n);
        CAPTURE(scale);
        const Tri t = random_tri(n, 1300 + n, scale > 1 ? 0.2 : 0.5);
        const CsrMatrix a = quasi_tri(t, 2, scale, 1400 + n);
        const std::vector<double> b = random_vec(n, 1500 + n);
        const tridiag::Splitting sp = tridiag::split(a);
        tridiag::SplittingOptions so;
        so.tolerance = 1e-13;
        tridiag::Options o;
        o.block_rows = 256;
        auto tc = tridiag::Solver::factor(n, sp.dl.data(), sp.d.data(), sp.du.data(), tridiag::Backend::pcr_cpu, o);
        auto tg = tridiag::Solver::factor(n, sp.dl.data(), sp.d.data(), sp.du.data(), tridiag::Backend::pcr_gpu, o);
        std::vector<double> xc(n), xg(n);
        const tridiag::SplittingResult rc = tridiag::splitting_solve(tc, sp.s, b.data(), xc.data(), so);
        const tridiag::SplittingResult rg = tridiag::splitting_solve(tg, sp.s, b.data(), xg.data(), so);
        CHECK(rg.status == rc.status);
        CHECK(std::abs(rg.iterations - rc.iterations) <= 1);
        if (!bitwise(xg, xc)) MESSAGE("splitting iterates differ: " << rel_diff(xg.data(), xc.data(), n));
        if (scale < 1) {
          CHECK(rg.status == tridiag::SplittingStatus::converged);
          CHECK(csr_backward_error(a, xg.data(), b.data()) <= 1e-12);
          CHECK(rel_diff(xg.data(), xc.data(), n) <= 1e-11);
        } else {
          CHECK(rg.status == tridiag::SplittingStatus::not_converging);
          CHECK(csr_backward_error(a, xg.data(), b.data()) > 1e-3);
        }
      }
    }
  }
}

TEST_SUITE("gpu") {
  TEST_CASE("gpu one-shot solve is bitwise its cpu twin and agrees with thomas - tiny pivots leave b unchanged") {
    if (!need_gpu()) return;
#ifdef SSIDS_TEST_HAVE_CUDA
    auto upload = [](const std::vector<double>& h) {
      double* p = nullptr;
      REQUIRE(cudaMalloc(reinterpret_cast<void**>(&p), std::max<std::size_t>(h.size(), 1) * sizeof(double)) == cudaSuccess);
      REQUIRE(cudaMemcpy(p, h.data(), h.size() * sizeof(double), cudaMemcpyHostToDevice) == cudaSuccess);
      return p;
    };
    auto download = [](const double* p, std::size_t n) {
      std::vector<double> h(n);
      REQUIRE(cudaMemcpy(h.data(), p, n * sizeof(double), cudaMemcpyDeviceToHost) == cudaSuccess);
      return h;
    };
    for (int n : kSizes) {
      CAPTURE(n);
      const Tri t = random_tri(n, 1500 + n);
      const std::vector<double> b = random_vec(n, 1600 + n);
      tridiag::Options o;
      std::vector<double> xc = b, xt = b;
      ssids::detail::chunk_solve_cpu(n, t.dl.data(), t.d.data(), t.du.data(), xc.data(), o);
      tridiag::Solver::factor(n, t.dl.data(), t.d.data(), t.du.data(), tridiag::Backend::thomas).solve(1, xt.data(), n);
      double *ddl = upload(t.dl), *dd = upload(t.d), *ddu = upload(t.du), *db = upload(b);
      tridiag::solve_once_device(n, ddl, dd, ddu, db, nullptr, o);
      const std::vector<double> xg = download(db, n);
      CHECK(bitwise(xg, xc));
      CHECK(rel_diff(xg.data(), xt.data(), n) <= 1e-13);
      CHECK(berr(t, xg, b, 1, n) <= 1e-15);
      // the caller's coefficients are not modified
      CHECK(bitwise(download(ddl, n), t.dl));
      CHECK(bitwise(download(dd, n), t.d));
      CHECK(bitwise(download(ddu, n), t.du));
      cudaFree(ddl);
      cudaFree(dd);
      cudaFree(ddu);
      cudaFree(db);
    }
    for (int n : {2, 40, 1000}) {
      for (int where : {0, n / 2, n - 1}) {
        CAPTURE(n);
        CAPTURE(where);
        Tri t = random_tri(n, 1700 + n);
        zero_row(t, where);
        tridiag::Options o;
        o.block_rows = 8;
        std::string mc, mg;
        const std::vector<double> b = random_vec(n, 1800 + n);
        try {
          std::vector<double> x = b;
          ssids::detail::chunk_solve_cpu(n, t.dl.data(), t.d.data(), t.du.data(), x.data(), o);
        } catch (const Error& e) {
          mc = e.what();
        }
        double *ddl = upload(t.dl), *dd = upload(t.d), *ddu = upload(t.du), *db = upload(b);
        int code = 0;
        try {
          tridiag::solve_once_device(n, ddl, dd, ddu, db, nullptr, o);
        } catch (const Error& e) {
          code = e.code();
          mg = e.what();
        }
        CHECK(code == flag::singular);
        CHECK(mg == mc);
        CHECK(bitwise(download(db, n), b));
        cudaFree(ddl);
        cudaFree(dd);
        cudaFree(ddu);
        cudaFree(db);
      }
    }
    CHECK(expect_error([] { tridiag::solve_once_device(0, nullptr, nullptr, nullptr, nullptr, nullptr); }) == flag::bad_n);
#endif
  }
}
