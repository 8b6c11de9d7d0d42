// sap_gpu.cu — GpuSap: the device state of one SaP solver (sap_gpu.hpp). The matrix (CSR, or the dense band)
// stays resident; factor() assembles the preconditioner from it and factors every partition in one launch
// per operation; the Krylov iteration of krylov.cpp runs with this object as its KrylovSpace, so every vector
// lives on the device and only dot products come back to the host. Li, Serban, Negrut 2015 §3.
#include <algorithm>
#include <cfloat>
#include <chrono>
#include <memory>
#include <string>
#include <type_traits>

#include "cuda/cuda_check.hpp"
#include "cuda/sap_kernels.cuh"
#include "factor/factor_gpu.hpp"
#include "sap/sap_gpu.hpp"
#include "ssids/error.hpp"
#include "ssids/tridiag.hpp"

namespace ssids {
namespace sap {
namespace detail {

using ssids::detail::check_cuda;
using ssids::detail::device_free_async;
using ssids::detail::device_malloc_async;
using ssids::detail::DeviceBuffer;
using ssids::detail::Stream;

namespace {

double now() { return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count(); }

template <class V>
void upload(DeviceBuffer<V>& d, const V* h, std::size_t n, cudaStream_t s) {
  d.reserve_discard(n);
  if (n) check_cuda(cudaMemcpyAsync(d.get(), h, n * sizeof(V), cudaMemcpyHostToDevice, s), "cudaMemcpyAsync (SaP upload)");
}

template <class T>
class GpuSapImpl final : public GpuSap, public KrylovSpace {
 public:
  GpuSapImpl() = default;

  // ---------------------------------------------------------------------------------------------- set-up
  void setup_sparse(const CsrMatrix& a, const Vector<std::int64_t>& slot, const Vector<index_t>& prow,
                    const Vector<index_t>& pcol, const Vector<double>& rs, const Vector<double>& cs,
                    const GpuLayout& layout) override {
    const double t0 = now();
    banded_ = false;
    n_ = a.nrow;
    nnz_ = a.nnz();
    set_layout(layout);
    cudaStream_t s = stream_.get();
    upload(d_ptr_, a.ptr.data(), a.ptr.size(), s);
    upload(d_col_, a.col.data(), a.col.size(), s);
    upload(d_val_, a.val.data(), a.val.size(), s);
    static_assert(sizeof(long long) == sizeof(std::int64_t), "slot type");
    upload(d_slot_, reinterpret_cast<const long long*>(slot.data()), slot.size(), s);
    upload(d_prow_, prow.data(), prow.size(), s);
    upload(d_pcol_, pcol.data(), pcol.size(), s);
    upload(d_rs_, rs.data(), rs.size(), s);
    upload(d_cs_, cs.data(), cs.size(), s);
    has_prow_ = !prow.empty();
    has_pcol_ = !pcol.empty();
    has_rs_ = !rs.empty();
    has_cs_ = !cs.empty();
    stream_.sync();
    time_upload_ = now() - t0;
  }

  void update_values(const double* val) override {
    const double t0 = now();
    if (nnz_) check_cuda(cudaMemcpyAsync(d_val_.get(), val, static_cast<std::size_t>(nnz_) * sizeof(double),
                                         cudaMemcpyHostToDevice, stream_.get()),
                         "cudaMemcpyAsync (SaP values)");
    stream_.sync();
    time_upload_ = now() - t0;
  }

  void setup_banded(index_t n, index_t k, const double* band, bool band_on_device, const GpuLayout& layout) override {
    const double t0 = now();
    banded_ = true;
    n_ = n;
    band_k_ = k;
    set_layout(layout);
    has_prow_ = has_pcol_ = has_rs_ = has_cs_ = false;
    const std::size_t len = static_cast<std::size_t>(n) * static_cast<std::size_t>(2 * static_cast<std::int64_t>(k) + 1);
    d_band_.reserve_discard(len);
    if (len && band_on_device) {  // the host checks its own copy; a device band is checked here
      DeviceBuffer<int> flags;
      flags.reserve_discard(2);
      int h[2] = {0, 0};
      check_cuda(cudaMemsetAsync(flags.get(), 0, 2 * sizeof(int), stream_.get()), "cudaMemsetAsync (band check)");
      gpu::check_band(n, k, band, flags.get(), stream_.get());
      check_cuda(cudaMemcpyAsync(h, flags.get(), sizeof h, cudaMemcpyDeviceToHost, stream_.get()), "cudaMemcpyAsync (band check)");
      stream_.sync();
      if (h[0]) throw Error(flag::nan_inf, "SaP banded (device): " + std::to_string(h[0]) + " NaN or Inf values in the band");
      if (h[1])
        throw Error(flag::bad_input, "SaP banded (device): " + std::to_string(h[1]) +
                                         " nonzero band slots lie outside the matrix (inconsistent band data)");
    }
    if (len)
      check_cuda(cudaMemcpyAsync(d_band_.get(), band, len * sizeof(double),
                                 band_on_device ? cudaMemcpyDeviceToDevice : cudaMemcpyHostToDevice, stream_.get()),
                 "cudaMemcpyAsync (SaP band)");
    stream_.sync();
    time_upload_ = band_on_device ? 0.0 : now() - t0;
  }

  SpikeStats factor(double eps) override {
    SpikeStats st;
    cudaStream_t s = stream_.get();
    const GpuLayout& L = layout_;
    const std::int64_t mm = static_cast<std::int64_t>(L.m) * L.m;
    const int ni = L.p > 1 ? L.p - 1 : 0;
    double t0 = now();
    d_vals_.reserve_discard(static_cast<std::size_t>(L.total()));
    if (L.total()) check_cuda(cudaMemsetAsync(d_vals_.get(), 0, L.total() * sizeof(T), s), "cudaMemsetAsync (SaP values)");
    if (banded_) gpu::assemble_band<T>(parts_, n_, band_k_, d_band_.get(), d_vals_.get(), s);
    else
      gpu::assemble_csr<T>(n_, d_ptr_.get(), d_col_.get(), d_val_.get(), d_slot_.get(), has_rs_ ? d_rs_.get() : nullptr,
                           has_cs_ ? d_cs_.get() : nullptr, d_vals_.get(), s);
    d_maxabs_.reserve_discard(static_cast<std::size_t>(std::max(L.p, 1)));
    gpu::band_max<T>(parts_, d_vals_.get(), d_maxabs_.get(), s);
    d_counts_.reserve_discard(3);
    check_cuda(cudaMemsetAsync(d_counts_.get(), 0, 3 * sizeof(int), s), "cudaMemsetAsync (SaP counts)");
    stream_.sync();
    st.time_assemble = now() - t0;
    t0 = now();
    if (L.m > 0 && ni > 0) {
      // W^(t) from the UL of blocks 1 .. p-1 = the LU of their reversed copies (the copy is freed afterwards)
      d_vw_.reserve_discard(static_cast<std::size_t>(2 * mm * ni));
      d_work_.reserve_discard(static_cast<std::size_t>(mm * ni));
      DeviceBuffer<T> ul;
      ul.reserve_discard(static_cast<std::size_t>(L.band_total()));
      check_cuda(cudaMemcpyAsync(ul.get(), d_vals_.get(), L.band_total() * sizeof(T), cudaMemcpyDeviceToDevice, s),
                 "cudaMemcpyAsync (SaP UL copy)");
      gpu::band_lu<T>(parts_, ul.get(), d_maxabs_.get(), eps, true, 1, d_counts_.get() + 1, s);
      gpu::spike_tips<T>(parts_, ul.get(), true, d_vals_.get() + L.offset[L.p] + mm, d_vw_.get() + mm, d_work_.get(), s);
      stream_.sync();
    }
    const double t_ul = now() - t0;
    t0 = now();
    pcr_.reset();
    if (use_pcr()) {
      // K = 1, SaP-D: the block-diagonal preconditioner is one tridiagonal matrix with the couplings dropped;
      // the partitioned cyclic reduction (ssids/tridiag.hpp) solves it. A tiny pivot, which
      // the banded LU would boost, falls back to the banded kernels.
      DeviceBuffer<double> tri;
      tri.reserve_discard(3 * static_cast<std::size_t>(n_));
      gpu::extract_tridiagonal<T>(parts_, n_, d_vals_.get(), tri.get(), tri.get() + n_, tri.get() + 2 * n_, s);
      try {
        pcr_.reset(new tridiag::Solver(
            tridiag::Solver::factor_device(n_, tri.get(), tri.get() + n_, tri.get() + 2 * n_, s, tridiag::Options())));
      } catch (const Error& e) {
        if (e.code() != flag::singular) throw;
      }
    }
    if (!pcr_) gpu::band_lu<T>(parts_, d_vals_.get(), d_maxabs_.get(), eps, false, 0, d_counts_.get(), s);
    stream_.sync();
    st.time_lu = now() - t0;
    t0 = now();
    if (L.m > 0 && ni > 0) {
      gpu::spike_tips<T>(parts_, d_vals_.get(), false, d_vals_.get() + L.offset[L.p], d_vw_.get(), d_work_.get(), s);
      d_r_.reserve_discard(static_cast<std::size_t>(mm * ni));
      d_piv_.reserve_discard(static_cast<std::size_t>(L.m) * ni);
      double boost = eps > 0 ? eps : 1e-300;
      if (std::is_same<T, float>::value) boost = std::max(boost, static_cast<double>(FLT_MIN));
      gpu::reduced_systems<T>(parts_, d_vw_.get(), d_vw_.get() + mm, d_r_.get(), d_piv_.get(), boost, d_counts_.get() + 2, s);
      d_xt_.reserve_discard(static_cast<std::size_t>(L.m) * ni);
      d_xb_.reserve_discard(static_cast<std::size_t>(L.m) * ni);
      d_g_.reserve_discard(static_cast<std::size_t>(n_));
    }
    d_t_.reserve_discard(static_cast<std::size_t>(n_));
    d_partial_.reserve_discard(gpu::kDotBlocks);
    d_scalar_.reserve_discard(1);
    int counts[3] = {0, 0, 0};
    check_cuda(cudaMemcpyAsync(counts, d_counts_.get(), sizeof counts, cudaMemcpyDeviceToHost, s), "cudaMemcpyAsync (SaP counts)");
    stream_.sync();
    st.time_spikes = t_ul + (now() - t0);
    st.boosted = counts[0];
    st.boosted_ul = counts[1];
    return st;
  }

  // ---------------------------------------------------------------------------------------------- solve
  KrylovResult solve_device(const double* b, double* x, const KrylovSettings& ks, bool use_initial_guess) override {
    // the caller's b is produced on its own stream: wait for the legacy default stream (and with it for
    // blocking streams) before reading it
    check_cuda(cudaStreamSynchronize(cudaStreamLegacy), "cudaStreamSynchronize (legacy stream)");
    if (!use_initial_guess && n_)
      check_cuda(cudaMemsetAsync(x, 0, static_cast<std::size_t>(n_) * sizeof(double), stream_.get()), "cudaMemsetAsync (x0)");
    KrylovResult r = krylov_solve(static_cast<KrylovSpace&>(*this), b, x, ks);
    stream_.sync();
    return r;
  }

  KrylovResult solve_host(const double* b, double* x, const KrylovSettings& ks, bool use_initial_guess) override {
    DeviceBuffer<double> db, dx;
    const std::size_t n = static_cast<std::size_t>(n_);
    upload(db, b, n, stream_.get());
    upload(dx, x, n, stream_.get());
    KrylovResult r = solve_device(db.get(), dx.get(), ks, use_initial_guess);
    if (n) check_cuda(cudaMemcpyAsync(x, dx.get(), n * sizeof(double), cudaMemcpyDeviceToHost, stream_.get()), "cudaMemcpyAsync (x)");
    stream_.sync();
    return r;
  }

  void apply_preconditioner(const double* r, double* z) override {
    DeviceBuffer<double> dr, dz;
    const std::size_t n = static_cast<std::size_t>(n_);
    upload(dr, r, n, stream_.get());
    dz.reserve_discard(n);
    precond(dr.get(), dz.get());
    if (n) check_cuda(cudaMemcpyAsync(z, dz.get(), n * sizeof(double), cudaMemcpyDeviceToHost, stream_.get()), "cudaMemcpyAsync (z)");
    stream_.sync();
  }

  void multiply(const double* x, double* y) override {
    DeviceBuffer<double> dx, dy;
    const std::size_t n = static_cast<std::size_t>(n_);
    upload(dx, x, n, stream_.get());
    dy.reserve_discard(n);
    matvec(dx.get(), dy.get());
    if (n) check_cuda(cudaMemcpyAsync(y, dy.get(), n * sizeof(double), cudaMemcpyDeviceToHost, stream_.get()), "cudaMemcpyAsync (y)");
    stream_.sync();
  }

  std::int64_t device_bytes() const override {
    auto b = [](const auto& buf) {
      return static_cast<std::int64_t>(buf.capacity()) * static_cast<std::int64_t>(sizeof(*buf.get()));
    };
    return b(d_begin_) + b(d_kb_) + b(d_offset_) + b(d_ptr_) + b(d_col_) + b(d_prow_) + b(d_pcol_) + b(d_val_) +
           b(d_rs_) + b(d_cs_) + b(d_slot_) + b(d_band_) + b(d_vals_) + b(d_vw_) + b(d_r_) + b(d_work_) + b(d_t_) +
           b(d_g_) + b(d_xt_) + b(d_xb_) + b(d_piv_) + b(d_counts_) + b(d_maxabs_) + b(d_partial_) + b(d_scalar_);
  }
  double time_upload() const override { return time_upload_; }

  // ---------------------------------------------------------------------------------------------- KrylovSpace
  index_t size() const override { return n_; }
  double* allocate() override {
    void* p = nullptr;
    const std::size_t bytes = static_cast<std::size_t>(n_) * sizeof(double);
    device_malloc_async(&p, bytes, stream_.get(), "cudaMallocAsync (Krylov vector)");
    if (bytes) {
      const cudaError_t e = cudaMemsetAsync(p, 0, bytes, stream_.get());
      if (e != cudaSuccess) {
        device_free_async(p, stream_.get());
        check_cuda(e, "cudaMemsetAsync (Krylov vector)");
      }
    }
    return static_cast<double*>(p);
  }
  void release(double* v) noexcept override { device_free_async(v, stream_.get()); }
  double dot(const double* x, const double* y) override {
    double r = 0.0;
    gpu::dot(n_, x, y, d_partial_.get(), d_scalar_.get(), stream_.get());
    check_cuda(cudaMemcpyAsync(&r, d_scalar_.get(), sizeof r, cudaMemcpyDeviceToHost, stream_.get()), "cudaMemcpyAsync (dot)");
    stream_.sync();
    return r;
  }
  void combine(double a, const double* x, double b, const double* y, double c, double* z) override {
    gpu::combine(n_, a, x, b, y, c, z, stream_.get());
  }
  void copy(const double* x, double* y) override {
    if (n_ && x != y)
      check_cuda(cudaMemcpyAsync(y, x, static_cast<std::size_t>(n_) * sizeof(double), cudaMemcpyDeviceToDevice, stream_.get()),
                 "cudaMemcpyAsync (Krylov copy)");
  }
  void matvec(const double* x, double* y) override {
    if (banded_) gpu::band_matvec(n_, band_k_, d_band_.get(), x, y, stream_.get());
    else gpu::csr_matvec(n_, d_ptr_.get(), d_col_.get(), d_val_.get(), x, y, stream_.get());
  }
  void precond(const double* x, double* y) override {
    cudaStream_t s = stream_.get();
    const index_t* prow = has_prow_ ? d_prow_.get() : nullptr;
    const index_t* pcol = has_pcol_ ? d_pcol_.get() : nullptr;
    const double* rs = has_rs_ ? d_rs_.get() : nullptr;
    const double* cs = has_cs_ ? d_cs_.get() : nullptr;
    gpu::permute_in<T>(n_, prow, rs, x, d_t_.get(), s);
    if (pcr_) {
      pcr_->solve_device(1, reinterpret_cast<double*>(d_t_.get()), n_, s);
      gpu::permute_out<T>(n_, pcol, cs, d_t_.get(), y, s);
      return;
    }
    if (layout_.m > 0 && layout_.p > 1) {
      const std::int64_t mm = static_cast<std::int64_t>(layout_.m) * layout_.m;
      gpu::copy_vector<T>(n_, d_t_.get(), d_g_.get(), s);
      gpu::band_solve<T>(parts_, d_vals_.get(), d_g_.get(), s);
      gpu::interface_solve<T>(parts_, d_vw_.get(), d_vw_.get() + mm, d_r_.get(), d_piv_.get(), d_g_.get(), d_xt_.get(),
                              d_xb_.get(), s);
      gpu::interface_correct<T>(parts_, d_vals_.get(), d_xt_.get(), d_xb_.get(), d_t_.get(), s);
    }
    gpu::band_solve<T>(parts_, d_vals_.get(), d_t_.get(), s);
    gpu::permute_out<T>(n_, pcol, cs, d_t_.get(), y, s);
  }
  void to_space(const double* host, double* v) override {
    if (n_) check_cuda(cudaMemcpyAsync(v, host, static_cast<std::size_t>(n_) * sizeof(double), cudaMemcpyHostToDevice, stream_.get()), "cudaMemcpyAsync (to device)");
    stream_.sync();
  }
  void to_host(const double* v, double* host) override {
    if (n_) check_cuda(cudaMemcpyAsync(host, v, static_cast<std::size_t>(n_) * sizeof(double), cudaMemcpyDeviceToHost, stream_.get()), "cudaMemcpyAsync (to host)");
    stream_.sync();
  }

 private:
  /// K = 1 everywhere, no couplings, double storage: the tridiagonal solver serves as the preconditioner.
  bool use_pcr() const {
    return std::is_same<T, double>::value && n_ > 1 && layout_.m == 0 && parts_.kmax == 1 &&
           std::all_of(layout_.kb.begin(), layout_.kb.end(), [](index_t k) { return k == 1; });
  }

  void set_layout(const GpuLayout& l) {
    layout_ = l;
    cudaStream_t s = stream_.get();
    upload(d_begin_, l.begin.data(), l.begin.size(), s);
    upload(d_kb_, l.kb.data(), l.kb.size(), s);
    static_assert(sizeof(long long) == sizeof(std::int64_t), "offset type");
    upload(d_offset_, reinterpret_cast<const long long*>(l.offset.data()), l.offset.size(), s);
    parts_ = gpu::Parts();
    parts_.p = l.p;
    parts_.m = l.p > 1 ? l.m : 0;
    parts_.kmax = 0;
    for (index_t kb : l.kb) parts_.kmax = std::max(parts_.kmax, kb);
    parts_.nmax = 0;
    for (int i = 0; i < l.p; ++i) parts_.nmax = std::max(parts_.nmax, l.begin[i + 1] - l.begin[i]);
    parts_.begin = d_begin_.get();
    parts_.kb = d_kb_.get();
    parts_.offset = d_offset_.get();
    parts_.coupling = l.p > 0 ? l.offset[l.p] : 0;
    layout_.m = parts_.m;
  }

  Stream stream_;
  std::unique_ptr<tridiag::Solver> pcr_;  ///< K = 1 SaP-D: partitioned cyclic reduction instead of the band LU
  GpuLayout layout_;
  gpu::Parts parts_;
  bool banded_ = false;
  index_t n_ = 0, band_k_ = 0;
  std::int64_t nnz_ = 0;
  bool has_prow_ = false, has_pcol_ = false, has_rs_ = false, has_cs_ = false;
  double time_upload_ = 0.0;
  DeviceBuffer<index_t> d_begin_, d_kb_, d_col_, d_prow_, d_pcol_;
  DeviceBuffer<long long> d_offset_, d_slot_;
  DeviceBuffer<offset_t> d_ptr_;
  DeviceBuffer<double> d_val_, d_rs_, d_cs_, d_band_, d_maxabs_, d_partial_, d_scalar_;
  DeviceBuffer<T> d_vals_, d_vw_, d_r_, d_work_, d_t_, d_g_, d_xt_, d_xb_;
  DeviceBuffer<int> d_piv_, d_counts_;
};

}  // namespace

bool sap_gpu_available() { return ssids::detail::gpu_available(); }

std::unique_ptr<GpuSap> make_gpu_sap(bool single_precision) {
  std::string why;
  if (!ssids::detail::gpu_available(&why)) throw Error(flag::no_cuda, "SaP GPU backend: " + why);
  if (single_precision) return std::unique_ptr<GpuSap>(new GpuSapImpl<float>());
  return std::unique_ptr<GpuSap>(new GpuSapImpl<double>());
}

void generate_banded_band_device(index_t n, index_t k, double d, std::uint64_t seed, double* device_band) {
  gpu::generate_band(n, k, d, seed, device_band, nullptr);
  check_cuda(cudaDeviceSynchronize(), "generate_banded_band_device");
}

}  // namespace detail
}  // namespace sap
}  // namespace ssids
