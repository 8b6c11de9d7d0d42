// factor_gpu_stub.cpp — the GPU entry points of a build without CUDA.
#include "common/gpu_warmup.hpp"
#include "factor/factor_gpu.hpp"
#include "ssids/error.hpp"

namespace ssids {
namespace detail {

bool gpu_available(std::string* why) {
  if (why) *why = "built without CUDA";
  return false;
}

std::shared_ptr<void> start_gpu_warmup(bool) { return nullptr; }

bool is_device_pointer(const void*) { return false; }

void wait_for_device_values(const void*) {}

void copy_device_values(const double*, offset_t, Vector<double>&) {
  throw Error(flag::no_cuda, "built without CUDA: device memory cannot be read");
}
void wait_gpu_warmup(const std::shared_ptr<void>&) {}

void factor_multifrontal_gpu(const Symbolic&, const double*, const double*, Mode, const Options&, NumericFactors&,
                             Inform&, bool, bool) {
  throw Error(flag::no_cuda, "built without CUDA: the GPU backend is not available");
}

void solve_gpu(const NumericFactors&, SolveJob, int, double*, offset_t, bool, void*) {
  throw Error(flag::no_cuda, "built without CUDA: the GPU solve is not available");
}

std::pair<int, double> set_gpu_plain_gemm_bounds(int, double) { return {0, 0.0}; }
bool set_gpu_prepared_updates(bool) { return false; }
bool set_gpu_small_fronts(bool) { return false; }
bool set_gpu_tensor_core_updates(bool) { return false; }
int set_solve_compact_blocks(int) { return 0; }
int set_solve_row_group(int) { return 1; }
std::pair<int, int> solve_task_counts(const NumericFactors&) { return {0, 0}; }

void device_copy_l(const DeviceFactors&, Vector<double>&) {
  throw Error(flag::no_cuda, "built without CUDA: there are no GPU factors");
}

void device_diag_copy(const NumericFactors&, Vector<double>&, Vector<double>&) {
  throw Error(flag::no_cuda, "built without CUDA: there are no GPU factors");
}
bool share_solve_plan(const NumericFactors&, const NumericFactors&) { return false; }

std::shared_ptr<DeviceDiag> upload_device_diag(const NumericFactors&) {
  throw Error(flag::no_cuda, "built without CUDA: there are no GPU factors");
}

}  // namespace detail
}  // namespace ssids
