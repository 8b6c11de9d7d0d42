// sap.cpp — ssids::sap::Solver: input checks, the reordering pipeline (DB -> CM -> drop-off -> partitions ->
// third stage), assembly of the banded preconditioner, factorization, and the Krylov solve.
// Li, Serban, Negrut 2015 §2.2 (pipeline), §3.4 (component timings T_DB, T_CM, T_Drop, T_Asmbl, T_LU, ...).
//
// Coordinates: with DB row order Q (scalings R, C) and CM order Π, the preconditioner is built for
// T = Π Q R A C Π^T. prow[i] = row of T holding row i of A, pcol[j] = column of T holding column j of A
// (prow = pcol ∘ Q^{-1}). M^{-1} v = C Π^T Band^{-1} Π Q R v, i.e. t[prow[i]] = r_i v_i; z_j = c_j u[pcol[j]].
// The Krylov method runs on A itself (right preconditioning), so tolerances refer to ||b - A x||_2.
#include <omp.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <new>
#include <string>

#include "common/host_allocation.hpp"
#include "sap/band.hpp"
#include "sap/krylov.hpp"
#include "sap/reorder.hpp"
#include "sap/sap_gpu.hpp"
#include "sap/spike.hpp"
#include "ssids/config.hpp"
#include "ssids/error.hpp"
#include "ssids/sap.hpp"

namespace ssids {
namespace sap {

const char* status_name(Status s) noexcept {
  switch (s) {
    case Status::converged: return "converged";
    case Status::iteration_limit: return "iteration_limit";
    case Status::breakdown: return "breakdown";
    case Status::nan: return "nan";
  }
  return "unknown";
}
std::int64_t default_memory_limit() noexcept {
  const long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
  if (pages <= 0 || page <= 0) return std::int64_t(1) << 34;  // unknown: 16 GiB
  return static_cast<std::int64_t>(pages) * page / 2;
}

const char* variant_name(Variant v) noexcept { return v == Variant::coupled ? "C" : "D"; }
const char* krylov_name(Krylov k) noexcept {
  switch (k) {
    case Krylov::bicgstab2: return "bicgstab2";
    case Krylov::bicgstab: return "bicgstab";
    case Krylov::gmres: return "gmres";
    case Krylov::cg: return "cg";
  }
  return "unknown";
}

namespace {

double now() { return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count(); }

void check_options(const SapOptions& o) {
  if (o.backend != Backend::cpu && o.backend != Backend::gpu && o.backend != Backend::automatic)
    throw Error(flag::bad_input, "SaP: unknown backend");
  if (o.partitions < 1) throw Error(flag::bad_input, "SaP: partitions must be >= 1");
  if (!(o.drop >= 0.0 && o.drop < 1.0)) throw Error(flag::bad_input, "SaP: drop must be in [0, 1)");
  if (!(o.rtol >= 0.0) || !(o.atol >= 0.0)) throw Error(flag::bad_input, "SaP: tolerances must be >= 0");
  if (o.max_iterations < 0) throw Error(flag::bad_input, "SaP: max_iterations must be >= 0");
  if (o.restart < 1) throw Error(flag::bad_input, "SaP: restart must be >= 1");
  if (!(o.boost_epsilon >= 0.0) || !std::isfinite(o.boost_epsilon))
    throw Error(flag::bad_input, "SaP: boost_epsilon must be finite and >= 0");
}

void check_csr(const CsrMatrix& a) {
  if (a.nrow < 0 || a.ncol < 0) throw Error(flag::bad_n, "SaP: negative dimension");
  if (a.nrow != a.ncol)
    throw Error(flag::bad_input, "SaP: the matrix must be square (" + std::to_string(a.nrow) + " x " +
                                     std::to_string(a.ncol) + ")");
  const index_t n = a.nrow;
  if (a.ptr.size() != static_cast<std::size_t>(n) + 1 || a.ptr[0] != 0)
    throw Error(flag::bad_ptr, "SaP: ptr must have n+1 entries starting at 0");
  for (index_t i = 0; i < n; ++i)
    if (a.ptr[i + 1] < a.ptr[i]) throw Error(flag::bad_ptr, "SaP: ptr is not monotone at row " + std::to_string(i));
  if (a.col.size() != static_cast<std::size_t>(a.ptr[n]) || a.val.size() != a.col.size())
    throw Error(flag::bad_ptr, "SaP: ptr[n] does not match the sizes of col and val");
  for (index_t i = 0; i < n; ++i)
    for (offset_t p = a.ptr[i]; p < a.ptr[i + 1]; ++p) {
      if (a.col[p] < 0 || a.col[p] >= n)
        throw Error(flag::bad_input, "SaP: column index out of range in row " + std::to_string(i));
      if (p > a.ptr[i] && a.col[p] <= a.col[p - 1])
        throw Error(flag::bad_input, "SaP: columns not strictly ascending (unsorted or duplicate) in row " + std::to_string(i));
      if (!std::isfinite(a.val[p])) throw Error(flag::nan_inf, "SaP: NaN or Inf in row " + std::to_string(i));
    }
}

std::string bytes_text(std::int64_t b) {
  char buf[64];
  const double x = static_cast<double>(b);
  if (x >= 1073741824.0) std::snprintf(buf, sizeof buf, "%.2f GiB", x / 1073741824.0);
  else if (x >= 1048576.0) std::snprintf(buf, sizeof buf, "%.1f MiB", x / 1048576.0);
  else std::snprintf(buf, sizeof buf, "%lld bytes", static_cast<long long>(b));
  return buf;
}

/// Predicted bytes of the preconditioner for half-bandwidth k (partitions as plan() would choose them).
std::int64_t predict_bytes(index_t n, index_t k, const SapOptions& o) {
  detail::BandedPreconditioner p;
  p.plan(n, k, o.partitions, o.variant);
  return p.predicted_bytes(o.use_ul, omp_get_max_threads());
}

/// After plan(): record the prediction and the shape in inform, and refuse (Error(allocation)) when the
/// prediction exceeds the limit, naming the bytes and the largest half-bandwidth that would fit.
void check_memory(const detail::BandedPreconditioner& prec, index_t n, index_t k, const SapOptions& o, SapInform& inf) {
  inf.preconditioner_bytes = prec.predicted_bytes(o.use_ul, omp_get_max_threads());
  inf.memory_limit = o.max_memory > 0 ? o.max_memory : o.max_memory == 0 ? default_memory_limit() : -1;
  inf.largest_partition = 0;
  for (int i = 0; i < prec.partitions(); ++i) inf.largest_partition = std::max(inf.largest_partition, prec.block_size(i));
  inf.dense_preconditioner = n > 0 && 2 * static_cast<std::int64_t>(k) + 1 >= (inf.largest_partition + 1) / 2;
  if (inf.memory_limit < 0 || inf.preconditioner_bytes <= inf.memory_limit) return;
  index_t lo = 0, hi = k;  // largest K whose prediction fits: predictions grow with K
  while (lo < hi) {
    const index_t mid = lo + (hi - lo + 1) / 2;
    if (predict_bytes(n, mid, o) <= inf.memory_limit) lo = mid;
    else hi = mid - 1;
  }
  const bool fits = predict_bytes(n, lo, o) <= inf.memory_limit;
  throw Error(flag::allocation,
              "SaP: the banded preconditioner would need " + bytes_text(inf.preconditioner_bytes) + " (" +
                  std::to_string(inf.preconditioner_bytes) + " bytes: n = " + std::to_string(n) +
                  ", half-bandwidth K = " + std::to_string(k) + ", " + std::to_string(prec.partitions()) +
                  " partition(s) of up to " + std::to_string(inf.largest_partition) + " rows), more than the limit of " +
                  bytes_text(inf.memory_limit) + " (SapOptions::max_memory; ssids sap --max-memory); " +
                  (fits ? "a cap of K = " + std::to_string(lo) + " fits (max_bandwidth; ssids sap --max-bandwidth " +
                              std::to_string(lo) + "), or drop more of the matrix (drop; --drop)"
                        : std::string("even K = 0 does not fit: raise the limit")));
}

/// automatic -> gpu when a device is usable; mixed precision only on the GPU.
Backend resolve_backend(const SapOptions& o) {
  const Backend b = o.backend == Backend::automatic ? (detail::sap_gpu_available() ? Backend::gpu : Backend::cpu)
                                                     : o.backend;
  if (o.mixed_precision && b != Backend::gpu)
    throw Error(flag::bad_input, "SaP: mixed_precision needs the GPU backend (the CPU preconditioner is double only)");
  return b;
}

}  // namespace

struct Solver::Impl {
  SapOptions opt;
  bool ready = false;
  bool banded = false;
  index_t n = 0;
  // the matrix the Krylov method multiplies with
  CsrMatrix a;
  index_t band_k = 0;
  Vector<double> band;
  // transform to the preconditioner's coordinates (empty = identity / unit scaling)
  Vector<index_t> prow, pcol;
  Vector<double> rs, cs;
  index_t k = 0;
  detail::BandedPreconditioner prec;
  SapInform setup_inform;
  Backend backend = Backend::cpu;
  std::unique_ptr<detail::GpuSap> gpu;  ///< device state (backend gpu)

  /// GPU: the layout of the planned preconditioner, then the resident matrix's slots and permutations.
  void gpu_setup_sparse() {
    const detail::GpuLayout layout = detail::gpu_layout(prec);
    // third-stage local orders folded into the permutations: final position of row/column t of T
    auto final_pos = [&](index_t t) {
      const int b = prec.block_of(t);
      return prec.block_begin(b) + prec.local_position(b, t - prec.block_begin(b));
    };
    Vector<index_t> fr(static_cast<std::size_t>(n)), fc(static_cast<std::size_t>(n));
    for (index_t i = 0; i < n; ++i) {
      fr[i] = final_pos(prow[i]);
      fc[i] = final_pos(pcol[i]);
    }
    Vector<std::int64_t> slot(static_cast<std::size_t>(a.nnz()));
#pragma omp parallel for schedule(dynamic, 256)
    for (index_t i = 0; i < n; ++i)
      for (offset_t p = a.ptr[i]; p < a.ptr[i + 1]; ++p) slot[p] = detail::gpu_slot(prec, layout, prow[i], pcol[a.col[p]]);
    gpu->setup_sparse(a, slot, fr, fc, rs, cs, layout);
  }

  /// Banded set-up after the caller's checks; band on the host, or on the device (GPU backend only).
  void setup_banded(index_t n_, index_t k_, const double* band_, bool on_device, const SapOptions& options,
                    SapInform& inform) {
    *this = Impl();
    inform = SapInform();
    opt = options;
    backend = resolve_backend(options);
    if (on_device && backend != Backend::gpu)
      throw Error(flag::bad_input, "SaP setup_banded_device: needs the GPU backend (options.backend = gpu)");
    if (backend == Backend::gpu) gpu = detail::make_gpu_sap(options.mixed_precision);
    inform.backend = backend;
    banded = true;
    n = n_;
    band_k = k_;
    const std::int64_t ld = detail::band_ld(k_);
    if (!gpu) band.assign(band_, band_ + static_cast<std::size_t>(n_) * static_cast<std::size_t>(ld));
    k = k_;
    inform.n = n_;
    inform.nnz = static_cast<std::int64_t>(n_) * ld - static_cast<std::int64_t>(k_) * (k_ + 1);
    inform.k_input = k_;
    prec.plan(n_, k_, options.partitions, options.variant);
    check_memory(prec, n_, k_, options, inform);
    if (gpu) {
      gpu->setup_banded(n_, k_, band_, on_device, detail::gpu_layout(prec));
      gpu_factor(inform);
    } else {
      assemble_and_factor(inform);
    }
    fill_partition_inform(inform);
    ready = true;
  }

  detail::KrylovSettings krylov_settings() const {
    detail::KrylovSettings ks;
    ks.kind = opt.krylov;
    ks.rtol = opt.rtol;
    ks.atol = opt.atol;
    ks.max_iterations = opt.max_iterations;
    ks.restart = opt.restart;
    return ks;
  }

  detail::KrylovResult solve_cpu(const double* b, double* x, const detail::KrylovSettings& ks) const {
    detail::Operator mv = [this](const double* v, double* y) { multiply(v, y); };
    detail::Operator pc = [this](const double* v, double* y) { precondition(v, y); };
    return detail::krylov_solve(n, mv, pc, b, x, ks);
  }

  static void fill_solve_inform(const detail::KrylovResult& kr, SapInform& inform) {
    inform.status = kr.status;
    inform.iterations = kr.iterations;
    inform.preconditioner_applications = kr.applications;
    inform.residual_norm = kr.residual_norm;
    inform.relative_residual = kr.b_norm > 0 ? kr.residual_norm / kr.b_norm : kr.residual_norm;
  }

  void gpu_factor(SapInform& inf) {
    const detail::SpikeStats st = gpu->factor(opt.boost_epsilon);
    inf.time_assemble = st.time_assemble;
    inf.boosted_pivots = st.boosted;
    inf.boosted_pivots_ul = st.boosted_ul;
    inf.time_lu = st.time_lu;
    inf.time_spikes = st.time_spikes;
    inf.time_upload = gpu->time_upload();
    inf.device_bytes = gpu->device_bytes();
  }

  void multiply(const double* x, double* y) const {
    if (!banded) {
#pragma omp parallel for schedule(static)
      for (index_t i = 0; i < n; ++i) {
        double s = 0.0;
        for (offset_t p = a.ptr[i]; p < a.ptr[i + 1]; ++p) s += a.val[p] * x[a.col[p]];
        y[i] = s;
      }
      return;
    }
    // band: each thread owns a row range and sweeps the columns that touch it (contiguous in storage)
    const std::int64_t ld = detail::band_ld(band_k);
#pragma omp parallel
    {
      const int nt = omp_get_num_threads(), t = omp_get_thread_num();
      const index_t r0 = static_cast<index_t>(static_cast<std::int64_t>(n) * t / nt);
      const index_t r1 = static_cast<index_t>(static_cast<std::int64_t>(n) * (t + 1) / nt);
      std::fill(y + r0, y + r1, 0.0);
      const index_t j0 = std::max<index_t>(0, r0 - band_k), j1 = std::min<index_t>(n, r1 + band_k);
      for (index_t j = j0; j < j1; ++j) {
        const double xj = x[j];
        const double* col = band.data() + j * ld + band_k - j;  // col[i] = a(i, j)
        const index_t lo = std::max(r0, j - band_k), hi = std::min(r1, j + band_k + 1);
        for (index_t i = lo; i < hi; ++i) y[i] += col[i] * xj;
      }
    }
  }

  void precondition(const double* r, double* z) const {
    if (prow.empty() && rs.empty()) {
      prec.apply(r, z);
      return;
    }
    Vector<double> t(static_cast<std::size_t>(n)), u(static_cast<std::size_t>(n));
    for (index_t i = 0; i < n; ++i) t[prow.empty() ? i : prow[i]] = rs.empty() ? r[i] : rs[i] * r[i];
    prec.apply(t.data(), u.data());
    for (index_t j = 0; j < n; ++j) z[j] = (cs.empty() ? 1.0 : cs[j]) * u[pcol.empty() ? j : pcol[j]];
  }

  /// Fill the preconditioner's storage from the current values and factor it.
  void assemble_and_factor(SapInform& inf) {
    double t0 = now();
    prec.allocate();
    if (!banded) {
#pragma omp parallel for schedule(dynamic, 256)
      for (index_t i = 0; i < n; ++i) {
        const index_t r = prow.empty() ? i : prow[i];
        const double ri = rs.empty() ? 1.0 : rs[i];
        for (offset_t p = a.ptr[i]; p < a.ptr[i + 1]; ++p) {
          const index_t j = a.col[p];
          prec.add(r, pcol.empty() ? j : pcol[j], a.val[p] * ri * (cs.empty() ? 1.0 : cs[j]));
        }
      }
    } else {
      const std::int64_t ld = detail::band_ld(band_k);
#pragma omp parallel for schedule(static)
      for (index_t j = 0; j < n; ++j) {
        const double* col = band.data() + j * ld + band_k - j;
        for (index_t i = std::max<index_t>(0, j - band_k); i <= std::min<index_t>(n - 1, j + band_k); ++i)
          if (col[i] != 0.0) prec.add(i, j, col[i]);
      }
    }
    inf.time_assemble = now() - t0;
    detail::SpikeStats st = prec.factor(opt.boost_epsilon, opt.use_ul);
    inf.boosted_pivots = st.boosted;
    inf.boosted_pivots_ul = st.boosted_ul;
    inf.time_lu = st.time_lu;
    inf.time_spikes = st.time_spikes;
  }

  void fill_partition_inform(SapInform& inf) const {
    inf.partitions = prec.partitions();
    inf.bandwidth = k;
    inf.k_max_partition = 0;
    for (int i = 0; i < prec.partitions(); ++i) inf.k_max_partition = std::max(inf.k_max_partition, prec.block_bandwidth(i));
  }

  void third_stage(SapInform& inf) {
    // per block: the in-band pattern restricted to the block, CM on it (§2.2.1, third-stage reordering)
    const int p = prec.partitions();
    Vector<Vector<index_t>> pi(static_cast<std::size_t>(p)), pj(static_cast<std::size_t>(p));
    for (index_t i = 0; i < n; ++i) {
      const index_t r = prow[i];
      const int b = prec.block_of(r);
      for (offset_t q = a.ptr[i]; q < a.ptr[i + 1]; ++q) {
        const index_t c = pcol[a.col[q]];
        if (c == r || prec.block_of(c) != b || std::abs(r - c) > k) continue;
        pi[b].push_back(r - prec.block_begin(b));
        pj[b].push_back(c - prec.block_begin(b));
      }
    }
    Vector<Vector<index_t>> orders(static_cast<std::size_t>(p));
    Vector<index_t> kis(static_cast<std::size_t>(p), 0);
#pragma omp parallel for schedule(dynamic, 1)
    for (int b = 0; b < p; ++b) {
      detail::Graph g = detail::graph_of_pairs(prec.block_size(b), static_cast<offset_t>(pi[b].size()), pi[b].data(), pj[b].data());
      orders[b] = detail::cuthill_mckee(g, opt.cm_starts, &kis[b]);
    }
    for (int b = 0; b < p; ++b) prec.set_block_order(b, std::move(orders[b]), kis[b]);
    inf.third_stage_applied = true;
  }
};

Solver::Solver() : impl_(new Impl) {}
Solver::~Solver() = default;
Solver::Solver(Solver&&) noexcept = default;
Solver& Solver::operator=(Solver&&) noexcept = default;

index_t Solver::n() const { return impl_->n; }
bool Solver::ready() const { return impl_->ready; }
Backend Solver::backend() const { return impl_->backend; }

void Solver::setup(const CsrMatrix& a, const SapOptions& options, SapInform& inform) try {
  const double t_start = now();
  check_options(options);
  check_csr(a);
  Impl& im = *impl_;
  im = Impl();
  inform = SapInform();
  im.opt = options;
  im.backend = resolve_backend(options);
  if (im.backend == Backend::gpu) im.gpu = detail::make_gpu_sap(options.mixed_precision);
  inform.backend = im.backend;
  im.n = a.nrow;
  im.a = a;
  const index_t n = im.n;
  inform.n = n;
  inform.nnz = a.nnz();
  for (index_t i = 0; i < n; ++i)
    for (offset_t p = a.ptr[i]; p < a.ptr[i + 1]; ++p) inform.k_input = std::max(inform.k_input, std::abs(i - a.col[p]));

  // 1. diagonal boosting
  Vector<index_t> dbinv;  // old row -> row of Q A
  double t0 = now();
  if (options.db && n > 0) {
    detail::DbResult db = detail::diagonal_boosting(a, options.db_scaling);
    dbinv.assign(static_cast<std::size_t>(n), 0);
    for (index_t j = 0; j < n; ++j) dbinv[db.order[j]] = j;
    inform.db_log_product = db.log_product;
    if (options.db_scaling) {
      im.rs = std::move(db.row_scale);
      im.cs = std::move(db.col_scale);
    }
    index_t kdb = 0;
    for (index_t i = 0; i < n; ++i)
      for (offset_t p = a.ptr[i]; p < a.ptr[i + 1]; ++p) kdb = std::max(kdb, std::abs(dbinv[i] - a.col[p]));
    inform.k_db = kdb;
  }
  inform.time_db = now() - t0;

  // 2. Cuthill–McKee on the symmetrized pattern of Q A
  t0 = now();
  {
    detail::Graph g = detail::graph_of_csr(a, dbinv.empty() ? nullptr : dbinv.data());
    Vector<index_t> order = detail::cuthill_mckee(g, options.cm_starts, &inform.k_cm);
    Vector<index_t> pos(static_cast<std::size_t>(n));
    for (index_t t = 0; t < n; ++t) pos[order[t]] = t;
    im.pcol = pos;
    im.prow.assign(static_cast<std::size_t>(n), 0);
    for (index_t i = 0; i < n; ++i) im.prow[i] = pos[dbinv.empty() ? i : dbinv[i]];
  }
  inform.time_cm = now() - t0;

  // 3. drop-off: mass per diagonal offset of T
  t0 = now();
  {
    Vector<double> mass(static_cast<std::size_t>(std::max<index_t>(n, 1)), 0.0);
    index_t smax = 0;
    for (index_t i = 0; i < n; ++i) {
      const double ri = im.rs.empty() ? 1.0 : im.rs[i];
      for (offset_t p = a.ptr[i]; p < a.ptr[i + 1]; ++p) {
        const index_t j = a.col[p];
        const index_t d = std::abs(im.prow[i] - im.pcol[j]);
        const double v = a.val[p] * ri * (im.cs.empty() ? 1.0 : im.cs[j]);
        mass[d] += v * v;
        smax = std::max(smax, d);
      }
    }
    double kept = 1.0;
    index_t kk = detail::drop_bandwidth(mass.data(), n, smax, options.drop, &kept);
    if (options.max_bandwidth >= 0 && kk > options.max_bandwidth) kk = options.max_bandwidth;
    double total = 0.0, in = 0.0;
    for (index_t d = 0; d < n; ++d) {
      total += mass[d];
      if (d <= kk) in += mass[d];
    }
    inform.dropped_fraction = total > 0 ? std::max(0.0, 1.0 - in / total) : 0.0;
    im.k = kk;
  }
  inform.time_drop = now() - t0;

  // 4. partitions, optional third stage, assembly and factorization
  im.prec.plan(n, im.k, options.partitions, options.variant);
  check_memory(im.prec, n, im.k, options, inform);
  t0 = now();
  if (options.third_stage && options.variant == Variant::decoupled && n > 0) im.third_stage(inform);
  inform.time_third_stage = now() - t0;
  if (im.gpu) {
    im.gpu_setup_sparse();
    im.gpu_factor(inform);
  } else {
    im.assemble_and_factor(inform);
  }
  im.fill_partition_inform(inform);
  im.ready = true;
  inform.time_setup = now() - t_start;
  im.setup_inform = inform;
} catch (const std::bad_alloc&) {
  ssids::detail::throw_host_allocation_failed("sap::Solver::setup");
}

namespace {
/// The checks of N, K and the band pointer shared by setup_banded and setup_banded_device.
void check_banded_arguments(index_t n, index_t k, const double* band) {
  if (n < 0) throw Error(flag::bad_n, "SaP banded: N = " + std::to_string(n) + " must be >= 0");
  if (k < 0) throw Error(flag::bad_input, "SaP banded: K = " + std::to_string(k) + " must be >= 0");
  if (n > 0 && k > n - 1)
    throw Error(flag::bad_input, "SaP banded: K = " + std::to_string(k) + " must be < N = " + std::to_string(n));
  if (n > 0 && !band) throw Error(flag::missing_data, "SaP banded: band storage is null");
}
}  // namespace

void Solver::setup_banded(index_t n, index_t k, const double* band, const SapOptions& options, SapInform& inform) try {
  const double t_start = now();
  check_options(options);
  check_banded_arguments(n, k, band);
  const std::int64_t ld = detail::band_ld(k);
  // every slot outside the n x n matrix must be zero (inconsistent band data otherwise)
  for (index_t j = 0; j < n; ++j)
    for (index_t s = 0; s < ld; ++s) {
      const index_t i = j - k + s;
      const double v = band[s + j * ld];
      if (!std::isfinite(v)) throw Error(flag::nan_inf, "SaP banded: NaN or Inf in column " + std::to_string(j));
      if ((i < 0 || i >= n) && v != 0.0)
        throw Error(flag::bad_input, "SaP banded: nonzero value in band slot " + std::to_string(s) + " of column " +
                                         std::to_string(j) + ", which lies outside the " + std::to_string(n) +
                                         " x " + std::to_string(n) + " matrix (inconsistent band data)");
    }
  impl_->setup_banded(n, k, band, false, options, inform);
  inform.time_setup = now() - t_start;
  impl_->setup_inform = inform;
} catch (const std::bad_alloc&) {
  ssids::detail::throw_host_allocation_failed("sap::Solver::setup_banded");
}

void Solver::setup_banded_device(index_t n, index_t k, const double* device_band, const SapOptions& options,
                                 SapInform& inform) try {
  const double t_start = now();
  check_options(options);
  check_banded_arguments(n, k, device_band);
  impl_->setup_banded(n, k, device_band, true, options, inform);  // the device checks NaN/Inf and stray slots
  inform.time_setup = now() - t_start;
  impl_->setup_inform = inform;
} catch (const std::bad_alloc&) {
  ssids::detail::throw_host_allocation_failed("sap::Solver::setup_banded_device");
}

void Solver::update(const CsrMatrix& a, SapInform& inform) try {
  Impl& im = *impl_;
  if (!im.ready || im.banded) throw Error(flag::call_sequence, "SaP update: call setup() with a sparse matrix first");
  const double t_start = now();
  check_csr(a);
  if (a.nrow != im.n || a.ptr != im.a.ptr || a.col != im.a.col)
    throw Error(flag::bad_input, "SaP update: the pattern differs from the one given to setup()");
  im.a.val = a.val;
  inform = im.setup_inform;
  inform.time_db = inform.time_cm = inform.time_drop = inform.time_third_stage = 0.0;
  if (im.gpu) {
    im.gpu->update_values(im.a.val.data());
    im.gpu_factor(inform);
  } else {
    im.assemble_and_factor(inform);
  }
  im.fill_partition_inform(inform);
  inform.time_setup = now() - t_start;
  im.setup_inform = inform;
} catch (const std::bad_alloc&) {
  ssids::detail::throw_host_allocation_failed("sap::Solver::update");
}

void Solver::update_banded(const double* band, SapInform& inform) try {
  Impl& im = *impl_;
  if (!im.ready || !im.banded) throw Error(flag::call_sequence, "SaP update_banded: call setup_banded() first");
  SapOptions o = im.opt;
  setup_banded(im.n, im.band_k, band, o, inform);
} catch (const std::bad_alloc&) {
  ssids::detail::throw_host_allocation_failed("sap::Solver::update_banded");
}

Status Solver::solve(const double* b, double* x, SapInform& inform) const try {
  const Impl& im = *impl_;
  if (!im.ready) throw Error(flag::call_sequence, "SaP solve: call setup() first");
  const index_t n = im.n;
  if (n > 0 && (!b || !x)) throw Error(flag::missing_data, "SaP solve: b or x is null");
  const double t0 = now();
  inform = im.setup_inform;
  if (!im.opt.use_initial_guess) std::fill(x, x + n, 0.0);
  const detail::KrylovSettings ks = im.krylov_settings();
  const detail::KrylovResult kr = im.gpu ? im.gpu->solve_host(b, x, ks, im.opt.use_initial_guess) : im.solve_cpu(b, x, ks);
  im.fill_solve_inform(kr, inform);
  inform.time_solve = now() - t0;
  return kr.status;
} catch (const std::bad_alloc&) {
  ssids::detail::throw_host_allocation_failed("sap::Solver::solve");
}

Status Solver::solve_device(const double* b, double* x, SapInform& inform) const try {
  const Impl& im = *impl_;
  if (!im.ready) throw Error(flag::call_sequence, "SaP solve_device: call setup() first");
  if (!im.gpu) throw Error(flag::bad_input, "SaP solve_device: the solver was set up on the CPU backend");
  if (im.n > 0 && (!b || !x)) throw Error(flag::missing_data, "SaP solve_device: b or x is null");
  const double t0 = now();
  inform = im.setup_inform;
  const detail::KrylovResult kr = im.gpu->solve_device(b, x, im.krylov_settings(), im.opt.use_initial_guess);
  im.fill_solve_inform(kr, inform);
  inform.time_solve = now() - t0;
  return kr.status;
} catch (const std::bad_alloc&) {
  ssids::detail::throw_host_allocation_failed("sap::Solver::solve_device");
}

void Solver::apply_preconditioner(const double* r, double* z) const try {
  if (!impl_->ready) throw Error(flag::call_sequence, "SaP: call setup() first");
  if (impl_->gpu) impl_->gpu->apply_preconditioner(r, z);
  else impl_->precondition(r, z);
} catch (const std::bad_alloc&) {
  ssids::detail::throw_host_allocation_failed("sap::Solver::apply_preconditioner");
}

void Solver::multiply(const double* x, double* y) const try {
  if (!impl_->ready) throw Error(flag::call_sequence, "SaP: call setup() first");
  if (impl_->gpu) impl_->gpu->multiply(x, y);
  else impl_->multiply(x, y);
} catch (const std::bad_alloc&) {
  ssids::detail::throw_host_allocation_failed("sap::Solver::multiply");
}

Status solve(const CsrMatrix& a, const double* b, double* x, const SapOptions& options, SapInform& inform) try {
  Solver s;
  s.setup(a, options, inform);
  return s.solve(b, x, inform);
} catch (const std::bad_alloc&) {
  ssids::detail::throw_host_allocation_failed("sap::solve");
}

}  // namespace sap
}  // namespace ssids
