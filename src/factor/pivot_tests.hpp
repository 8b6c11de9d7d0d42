// pivot_tests.hpp — the 1x1 and 2x2 pivot acceptance tests, one source of truth for the CPU
// kernels and the CUDA kernels (Hogg, Ovtchinnikov & Scott 2016, §2.3; Duff & Reid 1983).
//
// Notation: candidate column j of the current (updated) front; gamma_j = max |a_ij| over every
// remaining row i != j of the front (fully summed rows and the rows below them alike).
// A pivot is acceptable when the multipliers it produces satisfy |l_ij| <= 1/u.
#pragma once
#include <cmath>

#include "common/exact_arith.hpp"
#include "common/host_device.hpp"

namespace ssids {
namespace detail {

/// Determinant guard of a 2x2 pivot [a11 a21; a21 a22], the paper's form with theta = 100:
///   theta * |det| / (|a11| + |a22| + |a21|) >= max(|a11|, |a22|),
/// plus |det| must exceed the rounding noise of its two products (about eps * (|a11 a22| + a21^2)),
/// so that a determinant that has cancelled is never used.
constexpr double two_by_two_theta = 100.0;

/// The arithmetic is exact:: (no fused multiply-add on a device), so a kernel and its CPU twin decide alike.
SSIDS_HOST_DEVICE bool two_by_two_determinant_ok(double a11, double a21, double a22) {
  const double p11 = exact::mul(a11, a22), p21 = exact::mul(a21, a21);
  double det = exact::sub(p11, p21);
  double adet = std::fabs(det);
  double s = exact::add(exact::add(std::fabs(a11), std::fabs(a22)), std::fabs(a21));
  if (!(s > 0.0)) return false;
  double big = std::fmax(std::fabs(a11), std::fabs(a22));
  if (exact::mul(two_by_two_theta, adet) < exact::mul(big, s)) return false;
  // relative cancellation guard: det must not be rounding noise of its two products
  return adet > exact::mul(1e-13, exact::add(std::fabs(p11), p21));
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
  double adet = std::fabs(exact::sub(exact::mul(a11, a22), exact::mul(a21, a21)));
  double lim = adet;  // compare u*(...) <= |det| to avoid dividing by u == 0
  using exact::add;
  using exact::mul;
  return mul(u, add(mul(std::fabs(a22), gj), mul(std::fabs(a21), gr))) <= lim &&
         mul(u, add(mul(std::fabs(a21), gj), mul(std::fabs(a11), gr))) <= lim;
}

/// Inverse of the 2x2 pivot [a11 a21; a21 a22] (assumed to pass two_by_two_determinant_ok):
/// returns i11, i21, i22 with D^{-1} = [i11 i21; i21 i22]. Used identically by factor and solve.
SSIDS_HOST_DEVICE void two_by_two_inverse(double a11, double a21, double a22, double& i11, double& i21, double& i22) {
  double det = a11 * a22 - a21 * a21;
  i11 = a22 / det;
  i21 = -a21 / det;
  i22 = a11 / det;
}

/// D and D^{-1} of the pivot at position k of one node in the layout of NumericFactors (d[0], d[1] of the
/// returned position; a 2x2 pivot fills d[0..3]: D_kk, D_{k+1,k}, D_{k+1,k+1}, 0), from dn, the node's pivots in
/// the factorization's layout (dn[2k] = D_kk, dn[2k+1] = D_{k+1,k}, nonzero only for the first of a 2x2). Zero
/// pivots get D^{-1} = 0. The same bits on the host and on a device (exact arithmetic): the GPU factorization
/// forms the device copy with it, the host tables too. Returns the pivots written (1, or 2 for a 2x2).
SSIDS_HOST_DEVICE int diag_pivot_entries(const double* dn, int k, double* d, double* dinv) {
  const double d11 = dn[2 * k], d21 = dn[2 * k + 1];
  d[0] = d11;
  d[1] = d21;
  if (d21 != 0.0) {
    const double d22 = dn[2 * k + 2];
    const double det = exact::sub(exact::mul(d11, d22), exact::mul(d21, d21));
    d[2] = d22;
    d[3] = 0.0;
    dinv[0] = exact::dvd(d22, det);
    dinv[1] = exact::dvd(-d21, det);
    dinv[2] = exact::dvd(d11, det);
    dinv[3] = 0.0;
    return 2;
  }
  dinv[0] = d11 != 0.0 ? exact::dvd(1.0, d11) : 0.0;
  dinv[1] = 0.0;
  return 1;
}

}  // namespace detail
}  // namespace ssids
