// factor.cpp — the public factor() entry point, backend choice, and the Factors object
// (solve, enquire, alter).
#include "ssids/factor.hpp"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cmath>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include "analyse/memory_check.hpp"
#include "factor/factor_gpu.hpp"
#include "factor/multifrontal_cpu.hpp"
#include "factor/numeric.hpp"
#include "factor/pivot_tests.hpp"
#include "factor/values_check.hpp"
#include "scaling/scaling.hpp"
#include "solve/solve_cpu.hpp"
#include "ssids/config.hpp"
#include "ssids/error.hpp"

namespace ssids {

namespace {

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

const detail::NumericFactors& need(const std::shared_ptr<const detail::NumericFactors>& f) {
  if (!f) throw Error(flag::call_sequence, "the factors are empty: call factor() first");
  return *f;
}

/// Chooses the backend for this call: `automatic` takes the GPU when one is present and the predicted
/// work is at least options.min_gpu_work flops. An explicit `gpu` without a device is an error (thrown
/// by the GPU path itself, with the reason).
Backend choose_backend(const Options& options, const detail::Symbolic& sym) {
  switch (options.backend) {
    case Backend::cpu: return Backend::cpu;
    case Backend::gpu: return Backend::gpu;
    case Backend::automatic:
    default:
      return (sym.num_flops >= options.min_gpu_work && detail::gpu_available()) ? Backend::gpu : Backend::cpu;
  }
}

/// A structurally singular matrix (a maximum matching of cardinality `structural_rank` < n) is singular
/// whatever its values, so at least n - structural_rank of its pivots are zero in exact arithmetic; rounding
/// can leave them as tiny values above options.small. When fewer zero pivots were found, the missing ones
/// are taken from the smallest 1x1 pivots that are negligible (|d| <= sqrt(eps) max|D|): D and D^{-1} are
/// set to 0 there, as for a zero pivot (L keeps its column: dropping d l l^T perturbs A by at most
/// |d| / u^2), and the inertia and rank follow.
/// Returns the number of pivots so converted; `largest` receives the largest |d| converted.
index_t zero_structural_pivots(detail::NumericFactors& nf, index_t structural_rank, Inform& inform, double& largest) {
  largest = 0.0;
  const index_t n = nf.n, missing = n - structural_rank - inform.num_zero;
  if (missing <= 0 || nf.mode != Mode::indefinite) return 0;
  double dmax = 0.0;
  std::vector<std::pair<double, index_t>> one_by_one;  // (|d|, position) of the nonzero 1x1 pivots
  for (index_t k = 0; k < n; ++k) {
    dmax = std::max(dmax, std::fabs(nf.d[2 * k]));
    if (nf.d[2 * k + 1] != 0.0) {  // a 2x2 pair (k, k+1)
      dmax = std::max(dmax, std::fabs(nf.d[2 * k + 2]));
      ++k;
    } else if (nf.d[2 * k] != 0.0) {
      one_by_one.emplace_back(std::fabs(nf.d[2 * k]), k);
    }
  }
  const double negligible = std::sqrt(std::numeric_limits<double>::epsilon()) * dmax;
  std::sort(one_by_one.begin(), one_by_one.end());
  index_t done = 0;
  for (const auto& [mag, k] : one_by_one) {
    if (done == missing || mag > negligible) break;
    (nf.d[2 * k] > 0.0 ? inform.num_pos : inform.num_neg) -= 1;
    nf.d[2 * k] = 0.0;
    nf.dinv[2 * k] = 0.0;
    largest = mag;
    ++done;
  }
  inform.num_zero += done;
  inform.matrix_rank -= done;
  if (done > 0 && nf.device) nf.device_diag = detail::upload_device_diag(nf);
  return done;
}

}  // namespace

Factors factor(const Analysis& analysis, const double* val, Mode mode, const Options& options, Inform& inform,
               const double* scale) {
  const auto t0 = std::chrono::steady_clock::now();
  if (analysis.empty()) throw Error(flag::call_sequence, "factor called before analyse");
  const auto& symp = analysis.symbolic_ptr();
  const detail::Symbolic& sym = *symp;
  inform.flag = 0;
  inform.message.clear();
  if (sym.n > 0 && sym.nnz_in > 0 && !val) throw Error(flag::missing_values, "the values array is missing");
  const Backend backend = choose_backend(options, sym);
  // Every value the factorization reads must be finite (values_check.hpp). A GPU factorization checks them on
  // the device after their upload (its answer comes back with the first results the factorization waits for),
  // unless something reads them on the host first (a scaling computed from them, the structural rank of a
  // structurally singular analysis).
  const bool values_on_host_first = (options.scaling != Scaling::none && options.scaling != Scaling::user &&
                                     options.scaling != Scaling::from_ordering) ||
                                    sym.structurally_singular;
  // Values in device memory (Backend::gpu only: asking CUDA about the pointer would initialize it for a CPU
  // factorization): the GPU factorization copies them on the device; what reads them on the host (a computed
  // scaling, the host check) reads a copy.
  const bool val_on_device = backend == Backend::gpu && sym.nnz_in > 0 && detail::is_device_pointer(val);
  if (val_on_device) detail::wait_for_device_values(val);
  const bool check_on_device = backend == Backend::gpu && !values_on_host_first && detail::gpu_available();
  Vector<double> host_copy;
  const double* hval = val;  // the values as the host reads them
  if (val_on_device && !check_on_device) {
    detail::copy_device_values(val, sym.nnz_in, host_copy);
    hval = host_copy.data();
  }
  if (!check_on_device) detail::check_values_finite(sym, hval);
  const double* sc = nullptr;
  index_t structural_rank = sym.n;  // known when a maximum matching was computed (matching scaling or ordering)
  Vector<double> computed;  // Scaling::matching / auction / equilibrate / from_ordering
  if (options.scaling == Scaling::user) {
    if (sym.n > 0 && !scale) throw Error(flag::missing_data, "Scaling::user needs a scale array");
    for (index_t i = 0; i < sym.n; ++i)
      if (!std::isfinite(scale[i]) || scale[i] == 0.0)
        throw Error(flag::bad_input, "scale[" + std::to_string(i) + "] is zero, NaN or Inf");
    sc = scale;
  } else if (options.scaling != Scaling::none) {
    detail::ScalingInfo sinfo;
    try {
      computed = detail::compute_scaling(sym, hval, options.scaling, sinfo);
    } catch (const std::bad_alloc&) {
      throw Error(flag::allocation, "host allocation failed while computing the scaling");
    }
    sc = computed.data();
    if (sinfo.structurally_singular) {  // warning 6; a zero-pivot warning (7) below takes precedence
      if (options.scaling == Scaling::matching) structural_rank = sinfo.matched;
      inform.flag = flag::structurally_singular;
      inform.message = "structurally singular: matching of cardinality " + std::to_string(sinfo.matched) +
                       " < n = " + std::to_string(sym.n);
    }
  }
  if (sym.structurally_singular && structural_rank == sym.n && sym.matched > 0) {
    structural_rank = sym.matched;  // the matching ordering's maximum matching: its cardinality is the structural rank
  } else if (sym.structurally_singular && structural_rank == sym.n) {
    // a structurally singular analysis without its matching's cardinality: compute one
    detail::ScalingInfo rank_info;
    try {
      detail::compute_scaling(sym, hval, Scaling::matching, rank_info);
    } catch (const std::bad_alloc&) {
      throw Error(flag::allocation, "host allocation failed while computing the structural rank");
    }
    structural_rank = rank_info.matched;
  }
  if (structural_rank < sym.n && mode == Mode::posdef)
    throw Error(flag::not_posdef, "matrix is not positive definite: it is structurally singular (structural rank " +
                                      std::to_string(structural_rank) + " < n = " + std::to_string(sym.n) + ")");
  // the CPU path's predicted host memory against what the machine can give: a clear error instead of being killed
  if (backend == Backend::cpu) detail::check_host_memory(sym.memory_host, "factor: L and the contribution blocks");

  const double t_before = seconds_since(t0);
  std::shared_ptr<detail::NumericFactors> nf;
  try {  // the allocations of nf and its scale vector are covered too (failure injection found them uncaught)
    nf = std::allocate_shared<detail::NumericFactors>(Allocator<detail::NumericFactors>());
    nf->symbolic = symp;
    nf->mode = mode;
    nf->backend = backend;
    if (sc) nf->scale.assign(sc, sc + sym.n);
    if (backend == Backend::gpu)
      detail::factor_multifrontal_gpu(sym, val, sc, mode, options, *nf, inform, check_on_device, val_on_device);
    else detail::factor_multifrontal_cpu(sym, hval, sc, mode, options, *nf, inform);
  } catch (const std::bad_alloc&) {
    throw Error(flag::allocation, "host allocation failed during factorization");
  }
  const double t_backend = seconds_since(t0) - t_before;
  std::string structural;
  if (structural_rank < sym.n) {
    double largest = 0.0;
    const index_t converted = zero_structural_pivots(*nf, structural_rank, inform, largest);
    char mag[32];
    std::snprintf(mag, sizeof mag, "%.3g", largest);
    structural = "; structurally singular: structural rank " + std::to_string(structural_rank) +
                 (converted > 0 ? " (" + std::to_string(converted) + " pivot" + (converted == 1 ? "" : "s") +
                                      " of magnitude at most " + mag + " > small taken as zero)"
                                : std::string()) +
                 (inform.num_zero < sym.n - structural_rank
                      ? " but only " + std::to_string(inform.num_zero) + " zero pivots: the others are not negligible"
                      : std::string());
  }
  if (inform.num_zero > 0) {
    if (!options.action)
      throw Error(flag::singular, "matrix is singular: " + std::to_string(inform.num_zero) +
                                      " zero pivots (rank " + std::to_string(inform.matrix_rank) + ")" + structural);
    inform.flag = flag::warn_singular;
    inform.message = "matrix is singular: " + std::to_string(inform.num_zero) + " zero pivots, rank " +
                     std::to_string(inform.matrix_rank) + structural;
  } else if (!structural.empty()) {
    inform.flag = flag::structurally_singular;
    inform.message = "structurally singular: structural rank " + std::to_string(structural_rank) + " < n = " +
                     std::to_string(sym.n) + ", but no pivot is negligible";
  }
  inform.time_factor = seconds_since(t0);
  if (options.print_level >= 2)
    std::fprintf(stderr, "ssids factor: %.3f ms before the %s factorization (checks, values check on the host, "
                 "scaling), %.3f ms in it, %.3f ms after it\n", 1e3 * t_before,
                 backend == Backend::gpu ? "GPU" : "CPU", 1e3 * t_backend,
                 1e3 * (inform.time_factor - t_before - t_backend));
  return Factors(std::move(nf));
}

namespace detail {
const double* NumericFactors::contiguous_l() const {
  if (!device || !host_l) throw Error(flag::unknown, "internal error: no contiguous L");
  std::call_once(host_l->once, [&] { device_copy_l(*device, host_l->val); });
  return host_l->val.data();
}
}  // namespace detail

index_t Factors::n() const { return need(f_).n; }
bool Factors::on_device() const { return need(f_).device != nullptr; }
Mode Factors::mode() const { return need(f_).mode; }
Backend Factors::backend() const { return need(f_).backend; }

namespace {
/// The argument checks every solve entry point shares; returns the factors.
const detail::NumericFactors& checked_solve_args(const std::shared_ptr<const detail::NumericFactors>& fp, SolveJob job,
                                                 int nrhs, offset_t ldx) {
  if (!fp) throw Error(flag::call_sequence, "solve called before factor");
  const int j = static_cast<int>(job);
  if (j < 0 || j > 4) throw Error(flag::bad_job, "invalid solve job " + std::to_string(j));
  if (nrhs < 1 || ldx < fp->n) throw Error(flag::bad_ldx, "nrhs < 1 or ldx < n");
  return *fp;
}
}  // namespace

void Factors::solve_device(SolveJob job, int nrhs, double* dx, offset_t ldx, void* stream, Inform& inform) const {
  const auto t0 = std::chrono::steady_clock::now();
  const detail::NumericFactors& f = checked_solve_args(f_, job, nrhs, ldx);
  if (!f.device) throw Error(flag::no_cuda, "solve_device needs factors on the GPU (factorize with the GPU backend)");
  if (f.n == 0) return;
  if (!dx) throw Error(flag::missing_data, "the right-hand side array is missing");
  detail::solve_gpu(f, job, nrhs, dx, ldx, true, stream);
  inform.time_solve = seconds_since(t0);
}

void Factors::solve(SolveJob job, int nrhs, double* x, offset_t ldx, Inform& inform, Backend where) const {
  const auto t0 = std::chrono::steady_clock::now();
  const detail::NumericFactors& f = checked_solve_args(f_, job, nrhs, ldx);
  if (where == Backend::gpu && !f.device)
    throw Error(flag::no_cuda, "a GPU solve needs factors on the GPU (factorize with the GPU backend)");
  if (f.n == 0) return;
  if (!x) throw Error(flag::missing_data, "the right-hand side array is missing");
  if (f.device && where != Backend::cpu) {
    detail::solve_gpu(f, job, nrhs, x, ldx, false, nullptr);
    inform.time_solve = seconds_since(t0);
    return;
  }
  const bool scaled = !f.scale.empty();
  auto apply_scale = [&](bool inverse) {
    for (int r = 0; r < nrhs; ++r)
      for (index_t i = 0; i < f.n; ++i) x[i + r * ldx] = inverse ? x[i + r * ldx] / f.scale[i] : x[i + r * ldx] * f.scale[i];
  };
  try {
    switch (job) {
      case SolveJob::full:
        if (scaled) apply_scale(false);
        detail::solve_forward_cpu(f, nrhs, x, ldx);
        detail::solve_diagonal_cpu(f, nrhs, x, ldx);
        detail::solve_backward_cpu(f, nrhs, x, ldx);
        if (scaled) apply_scale(false);
        break;
      case SolveJob::forward:
        if (scaled) apply_scale(false);
        detail::solve_forward_cpu(f, nrhs, x, ldx);
        break;
      case SolveJob::diagonal: detail::solve_diagonal_cpu(f, nrhs, x, ldx); break;
      case SolveJob::backward:
        detail::solve_backward_cpu(f, nrhs, x, ldx);
        if (scaled) apply_scale(false);
        break;
      case SolveJob::diagonal_backward:
        detail::solve_diagonal_cpu(f, nrhs, x, ldx);
        detail::solve_backward_cpu(f, nrhs, x, ldx);
        if (scaled) apply_scale(false);
        break;
    }
  } catch (const std::bad_alloc&) {
    throw Error(flag::allocation, "host allocation failed during solve");
  }
  inform.time_solve = seconds_since(t0);
}

void Factors::enquire_indef(index_t* piv_order, double* d) const {
  const detail::NumericFactors& f = need(f_);
  if (f.mode != Mode::indefinite) throw Error(flag::not_posdef_factors, "enquire_indef on a positive-definite factorization");
  if (piv_order) {
    for (index_t k = 0; k < f.n; ++k) {
      const index_t v = f.pivot_var[k];
      if (f.d[2 * k + 1] != 0.0) {  // 2x2 pair (k, k+1)
        piv_order[v] = -(k + 1);
        piv_order[f.pivot_var[k + 1]] = -(k + 2);
        ++k;
      } else {
        piv_order[v] = k + 1;
      }
    }
  }
  if (d) std::copy(f.d.begin(), f.d.end(), d);
}

void Factors::enquire_posdef(double* diag) const {
  const detail::NumericFactors& f = need(f_);
  if (f.mode != Mode::posdef) throw Error(flag::not_indefinite, "enquire_posdef on an indefinite factorization");
  if (!diag) throw Error(flag::missing_data, "diag array missing");
  for (const detail::NodeFactor& nd : f.nodes)
    for (index_t j = 0; j < nd.nelim; ++j)
      diag[nd.pos + j] = f.lblock(nd)[j + static_cast<offset_t>(j) * nd.nrow];
}

std::shared_ptr<detail::NumericFactors> Factors::mutable_ptr() {
  // Factors share their data on copy; alter() must not change other copies: copy on write.
  auto copy = std::allocate_shared<detail::NumericFactors>(Allocator<detail::NumericFactors>(), need(f_));
  f_ = copy;
  return copy;
}

void Factors::alter(const double* d) {
  if (!f_) throw Error(flag::call_sequence, "alter called before factor");
  if (f_->mode != Mode::indefinite) throw Error(flag::not_posdef_factors, "alter on a positive-definite factorization");
  if (!d && f_->n > 0) throw Error(flag::missing_data, "d array missing");
  auto f = mutable_ptr();
  // keep the pivot structure: a 2x2 block stays a 2x2 block, a 1x1 stays a 1x1
  for (index_t k = 0; k < f->n; ++k) {
    if (f->d[2 * k + 1] != 0.0 && k + 1 < f->n) {
      double d11 = d[2 * k], d21 = d[2 * k + 1], d22 = d[2 * k + 2];
      f->d[2 * k] = d11;
      f->d[2 * k + 1] = d21;
      f->d[2 * k + 2] = d22;
      double det = d11 * d22 - d21 * d21;
      if (det != 0.0 && std::isfinite(det)) {
        double i11, i21, i22;
        detail::two_by_two_inverse(d11, d21, d22, i11, i21, i22);
        f->dinv[2 * k] = i11;
        f->dinv[2 * k + 1] = i21;
        f->dinv[2 * k + 2] = i22;
      } else {
        f->dinv[2 * k] = f->dinv[2 * k + 1] = f->dinv[2 * k + 2] = 0.0;
      }
      ++k;
    } else {
      f->d[2 * k] = d[2 * k];
      f->dinv[2 * k] = d[2 * k] != 0.0 ? 1.0 / d[2 * k] : 0.0;
    }
  }
  if (f->device) f->device_diag = detail::upload_device_diag(*f);
}

}  // namespace ssids
