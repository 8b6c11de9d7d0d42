// test_gpu_factor.cpp — the GPU factorization against the CPU oracle (label "gpu"; skipped without a
// device): inertia equal to the CPU path's on nonsingular matrices, backward error after refinement,
// Inform counts consistent with D, |l| <= 1/u, posdef mode, delays, bitwise identical repeated runs, and
// every shared symmetric matrix.
#include <doctest/doctest.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstring>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#ifdef SSIDS_TEST_HAVE_CUDA
#include <cuda_runtime.h>
#endif

#include "factor/factor_gpu.hpp"
#include "factor/small_front_plan.hpp"
#include "ssids/error.hpp"
#include "ssids/generate.hpp"
#include "ssids/matrix_market.hpp"
#include "ssids/refine.hpp"
#include "support.hpp"
#include "support_factor.hpp"
#include "support_manifest.hpp"
#include "support_small.hpp"

using namespace ssids;

namespace {

using ssids_test::need_gpu;

Options gpu_options() {
  Options o;
  o.backend = Backend::gpu;
  return o;
}

struct Compared {
  ssids_test::PipelineResult cpu, gpu;
};

Compared compare(const SymmetricMatrix& a, Options o, Mode mode = Mode::indefinite, int refine = 3) {
  Compared c;
  o.backend = Backend::cpu;
  c.cpu = ssids_test::run_pipeline(a, o, mode, refine);
  o.backend = Backend::gpu;
  c.gpu = ssids_test::run_pipeline(a, o, mode, refine);
  CHECK(c.gpu.factors.backend() == Backend::gpu);
  return c;
}

void check_gpu_factors(const ssids_test::PipelineResult& r, int n, double u) {
  auto dc = ssids_test::count_from_d(r.factors);
  CHECK(dc.neg == r.inform.num_neg);
  CHECK(dc.pos == r.inform.num_pos);
  CHECK(dc.zero == r.inform.num_zero);
  CHECK(dc.two == r.inform.num_two);
  CHECK(r.inform.num_neg + r.inform.num_pos + r.inform.num_zero == n);
  CHECK(ssids_test::max_multiplier(r.factors) <= (1.0 / u) * (1 + 1e-10));
}


}  // namespace

TEST_SUITE("gpu") {
  TEST_CASE("GPU: random indefinite matrices match the CPU inertia - with small backward error") {
    if (!need_gpu()) return;
    const int sizes[] = {1, 2, 3, 31, 32, 33, 63, 64, 65, 127, 129, 257, 400, 600};  // 600: three blocks of candidates
    std::uint64_t seed = 500;
    for (int n : sizes) {
      for (double density : {0.05, 0.3}) {
        for (double u : {0.01, 0.5}) {
          ++seed;
          CAPTURE(seed);
          CAPTURE(n);
          auto a = ssids_test::random_symmetric(n, density, 0.8, 1.0, seed);
          Options o;
          o.u = u;
          o.nemin = (seed % 2) ? 8 : 32;
          auto c = compare(a, o);
          check_gpu_factors(c.gpu, n, u);
          if (c.cpu.inform.num_zero == 0 && c.gpu.inform.num_zero == 0) {
            CHECK(c.gpu.backward_error < 1e-13);
            auto eig = ssids_test::eigenvalues(ssids_test::to_dense(a), n);
            double emax = 0, emin = INFINITY;
            for (double e : eig) { emax = std::max(emax, std::fabs(e)); emin = std::min(emin, std::fabs(e)); }
            if (emax > 0 && emin > 1e-8 * emax) {
              CHECK(c.gpu.inform.num_neg == c.cpu.inform.num_neg);
              CHECK(c.gpu.inform.num_pos == c.cpu.inform.num_pos);
            }
          }
        }
      }
    }
  }

  TEST_CASE("GPU: KKT systems with zero blocks force 2x2 pivots and delays") {
    if (!need_gpu()) return;
    std::uint64_t seed = 70;
    int delays = 0, twos = 0;
    for (int nh : {10, 40, 100, 300}) {
      for (int nc : {nh / 4 + 1, nh - 1}) {
        ++seed;
        CAPTURE(seed);
        auto a = ssids_test::random_kkt(nh, nc, 0.05, seed);
        auto c = compare(a, Options());
        check_gpu_factors(c.gpu, a.n, 0.01);
        CHECK(c.gpu.backward_error < 1e-13);
        CHECK(c.gpu.inform.num_neg == c.cpu.inform.num_neg);
        CHECK(c.gpu.inform.num_zero == 0);
        delays += c.gpu.inform.num_delay;
        twos += c.gpu.inform.num_two;
      }
    }
    MESSAGE("GPU delays " << delays << ", 2x2 pivots " << twos);
    CHECK(twos > 0);
  }

  TEST_CASE("GPU: generated problems - shifted Laplacian - kkt-qp - stokes have the exact inertia") {
    if (!need_gpu()) return;
    {
      auto a = generate_laplace3d(16, 1.7);
      auto c = compare(a, Options(), Mode::indefinite, 2);
      CHECK(c.gpu.inform.num_neg == laplace3d_num_neg(16, 1.7));
      CHECK(c.gpu.backward_error < 1e-13);
    }
    {
      auto a = generate_kkt_qp(3000, 1200, 0.0, 5);
      auto c = compare(a, Options());
      CHECK(c.gpu.inform.num_pos == 3000);
      CHECK(c.gpu.inform.num_neg == 1200);
      CHECK(c.gpu.backward_error < 1e-13);
    }
    {
      auto a = generate_stokes(20);
      auto c = compare(a, Options());
      CHECK(c.gpu.inform.num_neg == c.cpu.inform.num_neg);
      CHECK(c.gpu.backward_error < 1e-13);
    }
  }

  TEST_CASE("GPU: big contribution updates (plain DGEMMs on side streams beside the tensor-core kernel) - exact inertia - bitwise repeats") {
    if (!need_gpu()) return;
    // gen:laplace3d:44 with the bounds of the plain calls at 512 x 512 and 2.5e8 multiply-adds has 4 such pieces
    // with the default analysis (more than there are side streams); these are the library's default bounds, set
    // here so that the test keeps its pieces if the defaults move
    struct Bounds {
      std::pair<int, double> old = ssids::detail::set_gpu_plain_gemm_bounds(512, 2.5e8);
      ~Bounds() { ssids::detail::set_gpu_plain_gemm_bounds(old.first, old.second); }
    } bounds;
    auto a = generate_laplace3d(44, 0.9);
    auto c = compare(a, Options(), Mode::indefinite, 1);
    CHECK(c.gpu.inform.num_neg == laplace3d_num_neg(44, 0.9));
    CHECK(c.gpu.inform.num_neg == c.cpu.inform.num_neg);
    CHECK(c.gpu.backward_error < 1e-13);
    auto r2 = ssids_test::run_pipeline(a, gpu_options(), Mode::indefinite, 1);
    CHECK(ssids_test::hash_factors(c.gpu.factors) == ssids_test::hash_factors(r2.factors));
    CHECK(ssids_test::hash_doubles(c.gpu.x.data(), c.gpu.x.size()) == ssids_test::hash_doubles(r2.x.data(), r2.x.size()));
    // the contribution updates built after each dense phase instead of during it: the same tasks, the same bits
    const bool was = ssids::detail::set_gpu_prepared_updates(false);
    auto r3 = ssids_test::run_pipeline(a, gpu_options(), Mode::indefinite, 1);
    ssids::detail::set_gpu_prepared_updates(was);
    CHECK(ssids_test::hash_factors(c.gpu.factors) == ssids_test::hash_factors(r3.factors));
  }

  TEST_CASE("GPU: positive-definite mode and its error") {
    if (!need_gpu()) return;
    auto a = generate_laplace3d(14);
    auto c = compare(a, Options(), Mode::posdef, 0);
    CHECK(c.gpu.backward_error < 1e-14);
    for (int i = 0; i < a.n; ++i) CHECK(c.gpu.x[i] == doctest::Approx(c.cpu.x[i]).epsilon(1e-12));
    auto b = generate_laplace3d(8, 2.0);
    Inform inf;
    Options o = gpu_options();
    auto an = analyse(b.view(), o, inf);
    try {
      factor(an, b.val.data(), Mode::posdef, o, inf);
      FAIL("expected not_posdef");
    } catch (const Error& e) {
      CHECK(e.code() == flag::not_posdef);
    }
    // the library still works after the error
    auto r = ssids_test::run_pipeline(a, o, Mode::posdef);
    CHECK(r.backward_error < 1e-14);
  }

  TEST_CASE("GPU: NaN and Inf values are found on the device - the CPU path's error and message") {
    if (!need_gpu()) return;
    // the device check's answer is read at the first wait of the factorization: after the small-front phase
    // (a problem of small fronts only; one with small fronts and a level loop), or before the level loop when
    // no front is small (one dense front of 600 rows)
    struct Problem {
      const char* name;
      SymmetricMatrix a;
      Mode mode;
    };
    std::vector<Problem> problems;
    problems.push_back({"random KKT", ssids_test::random_kkt(300, 120, 0.03, 9), Mode::indefinite});
    problems.push_back({"laplace3d:42", generate_laplace3d(42), Mode::indefinite});
    problems.push_back({"dense 600", ssids_test::random_symmetric(600, 1.0, 1.0, 1.0, 5), Mode::indefinite});
    for (const Problem& pb : problems) {
      CAPTURE(pb.name);
      const SymmetricMatrix& a = pb.a;
      Options o = gpu_options();
      o.scaling = Scaling::none;
      o.action = true;
      Inform inf;
      auto an = analyse(a.view(), o, inf);
      Options oc = o;
      oc.backend = Backend::cpu;
      for (double badv : {std::nan(""), HUGE_VAL, -HUGE_VAL}) {
        auto bad = a.val;
        const size_t at = bad.size() / 2 + 7;
        bad[at] = badv;
        // the error code and message of a factorization of the bad values (0 and "" if none)
        auto error_of = [&](const Options& opts) {
          try {
            factor(an, bad.data(), pb.mode, opts, inf);
          } catch (const Error& e) {
            return std::make_pair(e.code(), std::string(e.what()));
          }
          return std::make_pair(0, std::string());
        };
        const auto gpu = error_of(o), cpu = error_of(oc);
        CHECK(gpu.first == flag::nan_inf);
        CHECK(cpu.first == flag::nan_inf);
        CHECK(gpu.second == cpu.second);
        CHECK(gpu.second.find(std::to_string(at)) != std::string::npos);
      }
      // the finite values factorize after the error, with the CPU path's inertia
      Inform ig, ic;
      auto f = factor(an, a.val.data(), pb.mode, o, ig);
      CHECK(f.backend() == Backend::gpu);
      factor(an, a.val.data(), pb.mode, oc, ic);
      CHECK(ig.num_neg == ic.num_neg);
      CHECK(ig.num_pos == ic.num_pos);
      CHECK(ig.num_zero == ic.num_zero);
    }
    // laplace3d is positive definite: no negative pivot
    auto a = generate_laplace3d(42);
    Options o = gpu_options();
    o.scaling = Scaling::none;
    Inform inf;
    auto an = analyse(a.view(), o, inf);
    factor(an, a.val.data(), Mode::indefinite, o, inf);
    CHECK(inf.num_neg == 0);
    CHECK(inf.num_pos == a.n);
  }

#ifdef SSIDS_TEST_HAVE_CUDA
  TEST_CASE("GPU: values in device memory give the factors of the same values in host memory - bitwise - NaN named") {
    if (!need_gpu()) return;
    auto a = ssids_test::random_kkt(300, 120, 0.03, 9);
    Options o = gpu_options();
    Inform inf;
    auto an = analyse(a.view(), o, inf);
    double* dval = nullptr;
    double* staged = nullptr;  // page-locked: a copy from it on the caller's stream is still running on return
    cudaStream_t caller = nullptr;
    const size_t bytes = a.val.size() * sizeof(double);
    REQUIRE(cudaMalloc(&dval, bytes) == cudaSuccess);
    REQUIRE(cudaMallocHost(&staged, 2 * bytes) == cudaSuccess);
    REQUIRE(cudaStreamCreateWithFlags(&caller, cudaStreamNonBlocking) == cudaSuccess);
    auto bad = a.val;
    bad[bad.size() / 3] = std::nan("");
    std::copy(a.val.begin(), a.val.end(), staged);
    std::copy(bad.begin(), bad.end(), staged + a.val.size());
    // the values written by the caller's own stream behind 20 ms of other work (a host function that sleeps), not
    // synchronized: factor() must wait for that stream's copy
    auto write_values = [&](const double* from) {
      REQUIRE(cudaLaunchHostFunc(caller, [](void*) { std::this_thread::sleep_for(std::chrono::milliseconds(20)); },
                                 nullptr) == cudaSuccess);
      REQUIRE(cudaMemcpyAsync(dval, from, bytes, cudaMemcpyHostToDevice, caller) == cudaSuccess);
    };
    write_values(staged);
    // no scaling (the values are only read on the device) and a computed scaling (read on the host first)
    for (Scaling sc : {Scaling::none, Scaling::matching}) {
      CAPTURE(static_cast<int>(sc));
      o.scaling = sc;
      Inform ih, id;
      auto fh = factor(an, a.val.data(), Mode::indefinite, o, ih);
      auto fd = factor(an, dval, Mode::indefinite, o, id);
      CHECK(fd.backend() == Backend::gpu);
      CHECK(ssids_test::hash_factors(fh) == ssids_test::hash_factors(fd));
      CHECK(id.num_neg == ih.num_neg);
      CHECK(id.num_delay == ih.num_delay);
      CHECK(id.num_neg + id.num_pos + id.num_zero == a.n);
      // a NaN among the device values: the host values' error and message
      write_values(staged + a.val.size());
      std::string msg_d, msg_h;
      try {
        factor(an, dval, Mode::indefinite, o, id);
      } catch (const Error& e) {
        CHECK(e.code() == flag::nan_inf);
        msg_d = e.what();
      }
      try {
        factor(an, bad.data(), Mode::indefinite, o, ih);
      } catch (const Error& e) {
        msg_h = e.what();
      }
      CHECK(!msg_d.empty());
      CHECK(msg_d == msg_h);
      write_values(staged);
    }
    cudaStreamSynchronize(caller);
    cudaStreamDestroy(caller);
    cudaFreeHost(staged);
    cudaFree(dval);
  }

  TEST_CASE("GPU: host values and scaling of several megabytes (pinned chunks) give the factors of the same values in device memory - bitwise") {
    if (!need_gpu()) return;
    // 870 k values (6.6 MiB, four chunks: a chunk is refilled) and, with a computed scaling, 280 k scale factors
    // (2.1 MiB): both uploads go through the pinned chunks
    auto a = ssids::load_symmetric("gen:kkt-qp:180000:100000");
    REQUIRE(a.val.size() > (size_t(1) << 19));
    REQUIRE(a.n >= (1 << 18));
    Options o = gpu_options();
    Inform inf;
    auto an = analyse(a.view(), o, inf);
    double* dval = nullptr;
    const size_t bytes = a.val.size() * sizeof(double);
    REQUIRE(cudaMalloc(&dval, bytes) == cudaSuccess);
    // twice, with other values the second time: nothing of the first upload is left in the chunks
    for (Scaling sc : {Scaling::none, Scaling::matching}) {
      for (double factor_of : {1.0, -3.0}) {
        CAPTURE(static_cast<int>(sc));
        CAPTURE(factor_of);
        o.scaling = sc;
        std::vector<double> v(a.val.begin(), a.val.end());
        if (factor_of != 1.0)
          for (size_t k = 0; k < v.size(); k += 7) v[k] *= factor_of;
        REQUIRE(cudaMemcpy(dval, v.data(), bytes, cudaMemcpyHostToDevice) == cudaSuccess);
        Inform ih, id;
        auto fh = factor(an, v.data(), Mode::indefinite, o, ih);
        auto fd = factor(an, dval, Mode::indefinite, o, id);
        CHECK(fh.backend() == Backend::gpu);
        CHECK(ssids_test::hash_factors(fh) == ssids_test::hash_factors(fd));
        CHECK(ih.num_neg == id.num_neg);
        CHECK(ih.num_neg + ih.num_pos + ih.num_zero == a.n);
      }
    }
    // a NaN in the last chunk: found and named as for any other input
    std::vector<double> bad(a.val.begin(), a.val.end());
    bad[bad.size() - 5] = std::nan("");
    try {
      factor(an, bad.data(), Mode::indefinite, o, inf);
      FAIL("a NaN in the values was not reported");
    } catch (const Error& e) {
      CHECK(e.code() == flag::nan_inf);
    }
    cudaFree(dval);
  }
#endif

  TEST_CASE("GPU: two factorizations are bitwise identical") {
    if (!need_gpu()) return;
    auto a = ssids_test::random_kkt(300, 120, 0.03, 9);
    Options o = gpu_options();
    auto r1 = ssids_test::run_pipeline(a, o, Mode::indefinite, 1);
    auto r2 = ssids_test::run_pipeline(a, o, Mode::indefinite, 1);
    CHECK(ssids_test::hash_factors(r1.factors) == ssids_test::hash_factors(r2.factors));
    CHECK(ssids_test::hash_doubles(r1.x.data(), r1.x.size()) == ssids_test::hash_doubles(r2.x.data(), r2.x.size()));
    CHECK(r1.inform.num_delay > 0);  // levels with delays build their updates after the dense phase
    const bool was = ssids::detail::set_gpu_prepared_updates(false);
    auto r3 = ssids_test::run_pipeline(a, o, Mode::indefinite, 1);
    ssids::detail::set_gpu_prepared_updates(was);
    CHECK(ssids_test::hash_factors(r1.factors) == ssids_test::hash_factors(r3.factors));
    auto b = generate_laplace3d(24, 0.9);
    auto s1 = ssids_test::run_pipeline(b, o, Mode::indefinite, 0);
    auto s2 = ssids_test::run_pipeline(b, o, Mode::indefinite, 0);
    CHECK(ssids_test::hash_factors(s1.factors) == ssids_test::hash_factors(s2.factors));
  }

  TEST_CASE("GPU: refactorizations share the solve plan while the pivoting structure holds - D formed on the device is the host's") {
    if (!need_gpu()) return;
    // a KKT system with 2x2 pivots and delays, and the same pattern with values that pivot differently
    auto a = ssids_test::random_kkt(300, 120, 0.03, 9);
    auto b = a;
    for (size_t k = 0; k < b.val.size(); ++k) b.val[k] *= 1.0 + 0.5 * std::sin(static_cast<double>(k));
    Options o = gpu_options();
    Inform ai;
    Analysis an = analyse(a.view(), o, ai);
    auto fac = [&](const SymmetricMatrix& m, Inform& inf) { return factor(an, m.val.data(), Mode::indefinite, o, inf); };
    Inform i1, i2, i3, i4;
    Factors f1 = fac(a, i1), f2 = fac(a, i2), f3 = fac(b, i3);
    CHECK(i1.num_two > 0);
    CHECK(ssids::detail::share_solve_plan(f1.numeric(), f2.numeric()));  // same values: same structure
    const auto& n1 = f1.numeric();
    const auto& n3 = f3.numeric();
    const bool same_rows = n1.rows.size() == n3.rows.size() &&
                           std::equal(n1.rows.begin(), n1.rows.end(), n3.rows.begin());
    CHECK(ssids::detail::share_solve_plan(n1, n3) == same_rows);  // shared exactly when the rows are the same
    CHECK_FALSE(same_rows);  // (the test needs values that pivot differently)
    Factors f4 = fac(a, i4);  // back to the first values: the last plan was f3's
    CHECK(ssids::detail::share_solve_plan(f3.numeric(), f4.numeric()) == same_rows);
    // every factorization solves its own system (refined backward error), and the device D is the host's bitwise
    const std::pair<const SymmetricMatrix*, const Factors*> runs[] = {{&a, &f1}, {&a, &f2}, {&b, &f3}, {&a, &f4}};
    for (const auto& r : runs) {
      std::vector<double> rhs = ssids_test::make_rhs(*r.first), x(r.first->n, 0.0);
      RefineOptions ro;
      ro.max_steps = 1;
      Inform si;
      auto rep = solve_refined(*r.first, *r.second, 1, rhs.data(), r.first->n, x.data(), r.first->n, ro, si);
      CHECK(rep.backward_error < 1e-13);
      ssids::Vector<double> d, dinv;
      ssids::detail::device_diag_copy(r.second->numeric(), d, dinv);
      const auto& nf = r.second->numeric();
      REQUIRE(d.size() == nf.d.size());
      CHECK(std::memcmp(d.data(), nf.d.data(), d.size() * sizeof(double)) == 0);
      CHECK(std::memcmp(dinv.data(), nf.dinv.data(), dinv.size() * sizeof(double)) == 0);
    }
    CHECK(ssids_test::hash_factors(f1) == ssids_test::hash_factors(f4));
  }

  TEST_CASE("GPU: the small-front kernel is bitwise its CPU twin - with deferrals and retries") {
    if (!need_gpu()) return;
    struct Case {
      const char* what;
      SymmetricMatrix a;
      Mode mode;
    };
    std::vector<Case> cases;
    cases.push_back({"kkt-qp:400:300", load_symmetric("gen:kkt-qp:400:300"), Mode::indefinite});
    cases.push_back({"random_kkt seed 3 (retries)", ssids_test::random_kkt(120, 80, 0.04, 3), Mode::indefinite});
    cases.push_back({"laplace3d:12:2.5 (small and big fronts)", load_symmetric("gen:laplace3d:12:2.5"), Mode::indefinite});
    cases.push_back({"laplace2d:20 posdef", load_symmetric("gen:laplace2d:20"), Mode::posdef});
    cases.push_back({"laplace3d:16 (fronts in the work area, most split)", load_symmetric("gen:laplace3d:16"), Mode::indefinite});
    cases.push_back({"laplace3d:16 posdef (split fronts)", load_symmetric("gen:laplace3d:16"), Mode::posdef});
    // the device plans the whole small phase as one tree here (fronts in the work area in it); the twin groups it
    cases.push_back({"laplace3d:14 (one tree launch with fronts in the work area)", load_symmetric("gen:laplace3d:14"), Mode::indefinite});
    int compared_work_area = 0;  // fronts above small_front_max_rows rows
    for (const Case& c : cases) {
      INFO(c.what);
      Options o = gpu_options();
      Inform ai, fi;
      Analysis an = analyse(c.a.view(), o, ai);
      Factors g = factor(an, c.a.val.data(), c.mode, o, fi);
      const auto& nf = g.numeric();
      const auto& sym = an.symbolic();
      const ssids_test::SmallPhase ph = ssids_test::run_small_phase_twin(sym, c.a.val.data(), nullptr, c.mode, o);
      int compared = 0;
      for (int s = 0; s < sym.nsup; ++s) {
        if (!ph.plan.small[s] || ph.res[s].state != ssids::detail::gpu::small_done) continue;
        const auto& nd = nf.nodes[s];
        const auto& r = ph.res[s];
        const auto& sl = ph.plan.slots[s];
        REQUIRE(nd.nrow == r.m);
        REQUIRE(nd.nelim == r.nelim);
        bool same = true;
        for (int i = 0; i < r.m; ++i) same = same && nf.rows[nd.row_ptr + i] == ph.rows[sl.rows_off + i];
        if (c.mode == Mode::indefinite) {
          same = same && std::memcmp(nf.lblock(nd), ph.l.data() + sl.l_off, sizeof(double) * r.m * r.nelim) == 0;
          same = same && std::memcmp(nf.d.data() + 2 * nd.pos, ph.d.data() + sl.d_off, sizeof(double) * 2 * r.nelim) == 0;
        }
        CHECK(same);
        ++compared;
        if (sl.work_off >= 0) ++compared_work_area;
      }
      MESSAGE(std::string(c.what) << ": " << compared << " of " << sym.nsup << " nodes compared, " << ph.tries << " runs");
      CHECK(compared > 0);
      Inform fi2;  // the same analysis again: the plan it learned gives bitwise the same factors
      Factors g2 = factor(an, c.a.val.data(), c.mode, o, fi2);
      CHECK(ssids_test::hash_factors(g) == ssids_test::hash_factors(g2));
      const auto check = ssids_test::run_pipeline(c.a, o, c.mode, 2);
      CHECK(check.backward_error < 1e-14);
    }
    CHECK(compared_work_area > 0);
  }

#ifdef SSIDS_TEST_HAVE_CUDA  // the device's multiprocessors, for the plan the driver makes
  TEST_CASE("GPU: the small phase in one launch - repeated factorizations are bitwise the same") {
    // fronts handed from block to block inside one launch (small_tree_kernel): a missing fence or count would
    // show as a factorization that differs from the others now and then
    if (!need_gpu()) return;
    // laplace3d:14: fronts in the work area too, each with a slot of its own in the launch
    for (const char* spec : {"gen:kkt-qp:2000:1000", "gen:laplace2d:60", "gen:laplace3d:14"}) {
      INFO(spec);
      SymmetricMatrix a = load_symmetric(spec);
      Options o = gpu_options();
      Inform ai;
      Analysis an = analyse(a.view(), o, ai);
      const auto& sym = an.symbolic();
      int sms = 0, dev = 0;
      REQUIRE(cudaGetDevice(&dev) == cudaSuccess);
      REQUIRE(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev) == cudaSuccess);
      const auto pl = ssids::detail::gpu::plan_small_fronts(sym, false, o.cpu_block_size, {},
                                                            ssids::detail::gpu::LaunchGrouping::estimated, sms);
      CHECK(pl.tree);  // what the driver plans too (it may learn delays and plan again)
      if (std::string(spec) == "gen:laplace3d:14") {
        CHECK(pl.launches() == 1);
        bool in_work_area = false;
        for (const int s : pl.nodes) in_work_area = in_work_area || pl.slots[s].work_off >= 0;
        CHECK(in_work_area);
      }
      Inform fi;
      Factors first = factor(an, a.val.data(), Mode::indefinite, o, fi);
      const auto h = ssids_test::hash_factors(first);
      int differ = 0;
      for (int run = 0; run < 30; ++run) {
        Inform f2;
        Factors again = factor(an, a.val.data(), Mode::indefinite, o, f2);
        differ += ssids_test::hash_factors(again) != h;
      }
      CHECK(differ == 0);
      const auto check = ssids_test::run_pipeline(a, o, Mode::indefinite, 2);
      CHECK(check.backward_error < 1e-14);
    }
  }
#endif

  TEST_CASE("GPU: small fronts on and off - same inertia - delays no more than the CPU path's plus 10%") {
    if (!need_gpu()) return;
    for (const char* spec : {"gen:kkt-qp:3000:2000", "gen:stokes:40", "gen:laplace3d:20:1.5"}) {
      INFO(spec);
      SymmetricMatrix a = load_symmetric(spec);
      Options o;
      o.ordering = Ordering::matching;
      o.scaling = Scaling::from_ordering;
      Compared on = compare(a, o);
      const bool was = ssids::detail::set_gpu_small_fronts(false);
      o.backend = Backend::gpu;
      auto off = ssids_test::run_pipeline(a, o, Mode::indefinite, 3);
      ssids::detail::set_gpu_small_fronts(was);
      CHECK(on.gpu.inform.num_neg == on.cpu.inform.num_neg);
      CHECK(off.inform.num_neg == on.cpu.inform.num_neg);
      CHECK(on.gpu.backward_error < 1e-14);
      check_gpu_factors(on.gpu, a.n, o.u);
      MESSAGE(spec << ": delays CPU " << on.cpu.inform.num_delay << ", GPU " << on.gpu.inform.num_delay
                   << " (without small fronts " << off.inform.num_delay << ")");
      CHECK(on.gpu.inform.num_delay <= off.inform.num_delay);
    }
  }

  TEST_CASE("GPU: every shared symmetric matrix") {
    if (!need_gpu()) return;
    const auto matrices = ssids_test::shared_matrices("symmetric");
    if (matrices.empty()) {
      ssids_test::skip("no test matrices");
      return;
    }
    int done = 0;
    for (const auto& sm : matrices) {
      const std::string& name = sm.name;
      CAPTURE(name);
      auto a = read_symmetric(sm.path);
      auto c = compare(a, Options());
      const auto& e = sm.entry;
      const bool singular = ssids_test::marked_singular(name, &e);
      check_gpu_factors(c.gpu, a.n, 0.01);
      CHECK(c.gpu.backward_error < (singular ? 1e-10 : 1e-13));
      if (!singular) {
        CHECK(c.gpu.inform.num_neg == c.cpu.inform.num_neg);
        CHECK(c.gpu.inform.num_zero == 0);
      }
      MESSAGE(name << ": n " << a.n << " nnz(L) " << c.gpu.inform.num_factor << " delays " << c.gpu.inform.num_delay
                   << " (cpu " << c.cpu.inform.num_delay << ") 2x2 " << c.gpu.inform.num_two << " neg "
                   << c.gpu.inform.num_neg << " (cpu " << c.cpu.inform.num_neg << ") berr " << c.gpu.backward_error);
      ++done;
    }
    CHECK(done > 0);
  }
}

TEST_SUITE("gpu") {
  TEST_CASE("GPU: every scaling x ordering keeps the inertia and gives backward error below 1e-12") {
    if (!need_gpu()) return;
    struct Case {
      std::string name;
      SymmetricMatrix a;
      std::int64_t neg;
    };
    std::vector<Case> cases;
    cases.push_back({"kkt-qp 300 120", generate_kkt_qp(300, 120, 0.0, 3), 120});
    cases.push_back({"laplace3d 10 shifted", generate_laplace3d(10, 0.7), laplace3d_num_neg(10, 0.7)});
    const Ordering orderings[] = {Ordering::metis, Ordering::amd, Ordering::matching};
    const Scaling scalings[] = {Scaling::none, Scaling::matching, Scaling::auction, Scaling::equilibrate,
                                Scaling::from_ordering};
    for (const Case& c : cases) {
      CAPTURE(c.name);
      for (Ordering o : orderings)
        for (Scaling sc : scalings) {
          if (sc == Scaling::from_ordering && o != Ordering::matching) continue;
          CAPTURE(static_cast<int>(o));
          CAPTURE(static_cast<int>(sc));
          Options opt = gpu_options();
          opt.ordering = o;
          opt.scaling = sc;
          auto r = ssids_test::run_pipeline(c.a, opt, Mode::indefinite, 10);
          CHECK(r.factors.backend() == Backend::gpu);
          CHECK(r.inform.num_neg == c.neg);
          CHECK(r.inform.num_pos == c.a.n - c.neg);
          CHECK(r.inform.num_zero == 0);
          CHECK(r.backward_error < 1e-12);
        }
    }
  }
}
