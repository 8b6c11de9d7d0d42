// bench_dense.cpp — rate of the CPU dense partial factorizations against dgemm.
//
// Usage: OMP_NUM_THREADS=1 bench_dense [m ...]      (default m = 1000 2000 4000)
// For each m and p in {m/2, m}: a random diagonally dominant symmetric front ("SPD-ish": LDL^T takes
// 1x1 pivots only), factorized by ldlt_threshold_partial (block_size 128, u = 0.01) and by
// cholesky_partial; one warm-up, then the median of `runs` timed runs, each on a fresh copy.
// GFlop/s use flops = sum over eliminated columns k of (m-k-1)^2 + 2(m-k-1). Reference: dgemm on a
// 2000 x 2000 x 2000 product (2 n^3 flops), same threads.
#include <omp.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <vector>

#include "common/blas.hpp"
#include "factor/dense_ldlt.hpp"

namespace {

double now() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

template <class F>
double median_time(int runs, const F& f) {
  f();  // warm-up
  std::vector<double> t;
  for (int r = 0; r < runs; ++r) {
    const double t0 = now();
    f();
    t.push_back(now() - t0);
  }
  std::sort(t.begin(), t.end());
  return t[t.size() / 2];
}

double elimination_flops(int m, int nelim) {
  double s = 0.0;
  for (int k = 0; k < nelim; ++k) {
    const double r = m - k - 1;
    s += r * r + 2.0 * r;
  }
  return s;
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<int> sizes;
  for (int i = 1; i < argc; ++i) sizes.push_back(std::atoi(argv[i]));
  if (sizes.empty()) sizes = {1000, 2000, 4000};
  const int runs = 3;
  std::printf("threads: %d\n", omp_get_max_threads());

  {
    const int n = 2000;
    std::vector<double> a(static_cast<size_t>(n) * n, 0.5), b(a), c(a);
    const double t = median_time(runs, [&] {
      ssids::blas::gemm('N', 'N', n, n, n, 1.0, a.data(), n, b.data(), n, 0.0, c.data(), n);
    });
    std::printf("dgemm n=%d: %.3f s  %.2f GFlop/s\n", n, t, 2.0 * n * n * n / t * 1e-9);
  }

  std::printf("%6s %6s %-9s %10s %10s %6s\n", "m", "p", "kernel", "time_s", "GFlop/s", "nelim");
  for (int m : sizes) {
    std::mt19937_64 rng(m);
    std::uniform_real_distribution<double> uni(-1.0, 1.0);
    std::vector<double> a0(static_cast<size_t>(m) * m, 0.0);
    for (int j = 0; j < m; ++j) {
      a0[j + static_cast<size_t>(j) * m] = m + uni(rng);
      for (int i = j + 1; i < m; ++i) a0[i + static_cast<size_t>(j) * m] = uni(rng);
    }
    for (int p : {m / 2, m}) {
      std::vector<double> a(a0.size());
      std::vector<int> perm(p);
      std::vector<double> d(2 * static_cast<size_t>(p));
      ssids::detail::DenseLdltOptions opt;
      ssids::detail::DenseLdltStats stats;
      int nelim = 0;
      const double tl = median_time(runs, [&] {
        a = a0;
        nelim = ssids::detail::ldlt_threshold_partial(m, p, a.data(), m, perm.data(), d.data(), opt, stats);
      });
      // the copy a = a0 is inside the timing; measure it to subtract
      const double tc = median_time(runs, [&] { a = a0; });
      const double fl = elimination_flops(m, nelim);
      std::printf("%6d %6d %-9s %10.3f %10.2f %6d\n", m, p, "ldlt", tl - tc, fl / (tl - tc) * 1e-9, nelim);
      int fail = 0;
      const double tch = median_time(runs, [&] {
        a = a0;
        fail = ssids::detail::cholesky_partial(m, p, a.data(), m, opt.block_size);
      });
      const int nch = fail < 0 ? p : fail;
      std::printf("%6d %6d %-9s %10.3f %10.2f %6d\n", m, p, "cholesky", tch - tc,
                  elimination_flops(m, nch) / (tch - tc) * 1e-9, nch);
    }
  }
  return 0;
}
