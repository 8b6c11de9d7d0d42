// pivot_tests.hpp — the 1x1 and 2x2 pivot acceptance tests, one source of truth for the CPU
// kernels and the CUDA kernels (Hogg, Ovtchinnikov & Scott 2016, §2.3; Duff & Reid 1983).
//
// Notation: candidate column j of the current (updated) front; gamma_j = max |a_ij| over every
// remaining row i != j of the front (fully summed rows and the rows below them alike).
// A pivot is acceptable when the multipliers it produces satisfy |l_ij| <= 1/u.
#pragma once
#include <cmath>

#include "common/host_device.hpp"

namespace ssids {
namespace detail {

/// Determinant guard of a 2x2 pivot [a11 a21; a21 a22], the paper's form with theta = 100:
///   theta * |det| / (|a11| + |a22| + |a21|) >= max(|a11|, |a22|),
/// plus |det| must exceed the rounding noise of its two products (about eps * (|a11 a22| + a21^2)),
/// so that a determinant that has cancelled is never used.
constexpr double two_by_two_theta = 100.0;

SSIDS_HOST_DEVICE bool two_by_two_determinant_ok(double a11, double a21, double a22) {
  double det = a11 * a22 - a21 * a21;
  double adet = std::fabs(det);
  double s = std::fabs(a11) + std::fabs(a22) + std::fabs(a21);
  if (!(s > 0.0)) return false;
  double big = std::fmax(std::fabs(a11), std::fabs(a22));
  if (two_by_two_theta * adet < big * s) return false;
  // relative cancellation guard: det must not be rounding noise of its two products
  return adet > 1e-13 * (std::fabs(a11 * a22) + a21 * a21);
}

/// 1x1 pivot test: |a_jj| >= u * gamma_j and the pivot is not negligible.
SSIDS_HOST_DEVICE bool one_by_one_ok(double ajj, double gamma_j, double u, double small) {
  double a = std::fabs(ajj);
  return a > small && a >= u * gamma_j;
}

/// 2x2 pivot test on (j, r): determinant guard, then the threshold test |D^{-1}| [gj; gr] <= [1/u; 1/u],
/// written without division: |a22| gj + |a21| gr <= |det| / u and |a21| gj + |a11| gr <= |det| / u.
/// gj, gr: largest |entry| in columns j and r over every remaining row other than j and r.
SSIDS_HOST_DEVICE bool two_by_two_ok(double a11, double a21, double a22, double gj, double gr, double u) {
  if (!two_by_two_determinant_ok(a11, a21, a22)) return false;
  double adet = std::fabs(a11 * a22 - a21 * a21);
  double lim = adet;  // compare u*(...) <= |det| to avoid dividing by u == 0
  return u * (std::fabs(a22) * gj + std::fabs(a21) * gr) <= lim &&
         u * (std::fabs(a21) * gj + std::fabs(a11) * gr) <= lim;
}

/// Inverse of the 2x2 pivot [a11 a21; a21 a22] (assumed to pass two_by_two_determinant_ok):
/// returns i11, i21, i22 with D^{-1} = [i11 i21; i21 i22]. Used identically by factor and solve.
SSIDS_HOST_DEVICE void two_by_two_inverse(double a11, double a21, double a22, double& i11, double& i21, double& i22) {
  double det = a11 * a22 - a21 * a21;
  i11 = a22 / det;
  i21 = -a21 / det;
  i22 = a11 / det;
}

}  // namespace detail
}  // namespace ssids
