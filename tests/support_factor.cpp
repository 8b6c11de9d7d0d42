// support_factor.cpp — see support_factor.hpp.
#include "support_factor.hpp"

#include <doctest/doctest.h>

#include <cmath>
#include <cstring>

#include "factor/factor_gpu.hpp"
#include "factor/numeric.hpp"
#include "support.hpp"
#include "ssids/refine.hpp"

namespace ssids_test {

bool need_gpu() {
  std::string why;
  if (ssids::detail::gpu_available(&why)) return true;
  skip("no GPU: " + why);
  return false;
}

std::vector<double> make_rhs(const ssids::SymmetricMatrix& a) {
  std::vector<double> xt(a.n), b(a.n);
  for (int i = 0; i < a.n; ++i) xt[i] = 1.0 + (i % 7) / 8.0;
  if (a.n > 0) ssids::symmetric_multiply(a, xt.data(), b.data());
  return b;
}

PipelineResult run_pipeline(const ssids::SymmetricMatrix& a, const ssids::Options& options, ssids::Mode mode,
                            int refine) {
  PipelineResult r;
  ssids::Inform ai;
  r.analysis = ssids::analyse(a.view(), options, ai);
  r.factors = ssids::factor(r.analysis, a.val.data(), mode, options, r.inform);
  std::vector<double> b = make_rhs(a);
  r.x.assign(a.n, 0.0);
  ssids::RefineOptions ro;
  ro.max_steps = refine;
  ro.tolerance = 1e-15;
  ssids::Inform si;
  auto rep = ssids::solve_refined(a, r.factors, 1, b.data(), std::max(1, a.n), r.x.data(), std::max(1, a.n), ro, si);
  r.backward_error = rep.backward_error;
  r.refine_steps = rep.steps;
  return r;
}

double check_backward_error_against(const ssids::SymmetricMatrix& a, const ssids::Factors& f, const ssids::Factors& cpu) {
  std::vector<double> b = make_rhs(a), x = b, xc = b;
  ssids::Inform si;
  f.solve(ssids::SolveJob::full, 1, x.data(), a.n, si);
  cpu.solve(ssids::SolveJob::full, 1, xc.data(), a.n, si);
  const double berr = ssids::scaled_backward_error(a, x.data(), b.data(), 1, a.n);
  const double berr_cpu = ssids::scaled_backward_error(a, xc.data(), b.data(), 1, a.n);
  INFO("backward error " << berr << ", CPU path " << berr_cpu);
  CHECK(berr < std::max(1e-14, 20 * berr_cpu));
  return berr;
}

double max_multiplier(const ssids::Factors& f) {
  const auto& nf = f.numeric();
  double mx = 0.0;
  for (const auto& nd : nf.nodes)
    for (int j = 0; j < nd.nelim; ++j)
      for (int i = j + 1; i < nd.nrow; ++i) mx = std::max(mx, std::fabs(nf.lblock(nd)[i + static_cast<long>(j) * nd.nrow]));
  return mx;
}

DCounts count_from_d(const ssids::Factors& f) {
  const auto& nf = f.numeric();
  DCounts c;
  for (int k = 0; k < nf.n; ++k) {
    double d11 = nf.d[2 * k], d21 = nf.d[2 * k + 1];
    if (d21 != 0.0) {
      double d22 = nf.d[2 * k + 2];
      double det = d11 * d22 - d21 * d21;
      ++c.two;
      if (det < 0) { ++c.neg; ++c.pos; }
      else if (d11 + d22 > 0) c.pos += 2;
      else c.neg += 2;
      ++k;
    } else if (d11 > 0) ++c.pos;
    else if (d11 < 0) ++c.neg;
    else ++c.zero;
  }
  return c;
}

std::uint64_t hash_doubles(const double* v, std::size_t n) {
  std::uint64_t h = 1469598103934665603ULL;
  const unsigned char* p = reinterpret_cast<const unsigned char*>(v);
  for (std::size_t i = 0; i < n * sizeof(double); ++i) {
    h ^= p[i];
    h *= 1099511628211ULL;
  }
  return h;
}

std::uint64_t hash_factors(const ssids::Factors& f) {
  const auto& nf = f.numeric();
  std::uint64_t h = 0;
  for (const auto& nd : nf.nodes)
    h = h * 1099511628211ULL + hash_doubles(nf.lblock(nd), static_cast<std::size_t>(nd.nrow) * nd.nelim);
  h ^= hash_doubles(nf.d.data(), nf.d.size()) * 31;
  std::vector<double> rows(nf.rows.begin(), nf.rows.end());
  h ^= hash_doubles(rows.data(), rows.size()) * 131;
  std::vector<double> piv(nf.pivot_var.begin(), nf.pivot_var.end());
  h ^= hash_doubles(piv.data(), piv.size()) * 1031;
  return h;
}

}  // namespace ssids_test
