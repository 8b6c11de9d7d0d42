// probe_window_kernels.cu — the dense path's window kernels (window_colmax, factor_window, apply_window) timed
// on one synthetic front, window at k = 0, s = 0, with CUDA events (median of 30 launches after a warm-up).
// The kernels do not modify the front, so every launch does the same work. Prints the pivots taken and a hash
// of the outputs the later stages read (L, D, the pivot order), to check that a change keeps the bits.
//
// Build (from the project's root, after a CMake configure into build/):
//   nvcc -std=c++17 -O3 -arch=sm_90 -Isrc -Iinclude -Ibuild/include bench/probe_window_kernels.cu -o probe_window
// Run: probe_window [m [kind]]; m = front size (default 1498), kind 0 = diagonally dominant (all 1x1 pivots),
// kind 1 = every other diagonal entry zero (2x2 pivots and failed candidates).
#include "cuda/dense_kernels.cu"  // the kernels live in an anonymous namespace: this probe is their translation unit

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <vector>

using namespace ssids::detail::gpu;

namespace {

void ck(cudaError_t e, const char* what) {
  if (e == cudaSuccess) return;
  std::printf("%s: %s\n", what, cudaGetErrorString(e));
  std::exit(1);
}

template <class T>
T* to_device(const T* host, size_t count) {
  T* d = nullptr;
  ck(cudaMalloc(&d, count * sizeof(T)), "cudaMalloc");
  if (host) ck(cudaMemcpy(d, host, count * sizeof(T), cudaMemcpyHostToDevice), "cudaMemcpy");
  return d;
}

/// FNV-1a over raw bytes.
struct Hash {
  unsigned long long h = 1469598103934665603ULL;
  void add(const void* p, size_t n) {
    const unsigned char* c = static_cast<const unsigned char*>(p);
    for (size_t i = 0; i < n; ++i) h = (h ^ c[i]) * 1099511628211ULL;
  }
};

}  // namespace

int main(int argc, char** argv) {
  const int m = argc > 1 ? std::atoi(argv[1]) : 1498;
  const int kind = argc > 2 ? std::atoi(argv[2]) : 0;
  const int reps = 30;
  std::mt19937_64 gen(42);
  std::uniform_real_distribution<double> uni(-1, 1);
  std::vector<double> front(static_cast<size_t>(m) * m, 0.0);  // lower triangle, leading dimension m
  for (int j = 0; j < m; ++j)
    for (int i = j; i < m; ++i) {
      double v = 0.3 * uni(gen);
      if (i == j) v = (kind == 1 && (j & 1)) ? 0.0 : ((j % 3) ? 10.0 : -10.0) + uni(gen);
      front[i + static_cast<size_t>(j) * m] = v;
    }
  const int w = std::min(max_window, m);
  const long long nrb = (m - w + apply_rows - 1) / apply_rows;
  WindowTask t{};
  t.w = w;
  FrontDesc f{};
  f.m = f.p = f.ncol = f.ld = m;
  double* dF = to_device(front.data(), front.size());
  double* dlt = to_device<double>(nullptr, static_cast<size_t>(m) * w);
  double* dS = to_device<double>(nullptr, static_cast<size_t>(w) * w);
  double* dcmax = to_device<double>(nullptr, static_cast<size_t>(nrb + 1) * max_window);
  WindowResult* dres = to_device<WindowResult>(nullptr, 1);
  WindowTask* dt = to_device(&t, 1);
  FrontDesc* df = to_device(&f, 1);
  const DenseParams prm{0.01, 1e-20, 0};
  cudaStream_t s;
  ck(cudaStreamCreate(&s), "cudaStreamCreate");
  cudaEvent_t e0, e1;
  ck(cudaEventCreate(&e0), "cudaEventCreate");
  ck(cudaEventCreate(&e1), "cudaEventCreate");
  auto time_us = [&](const char* name, auto launch) {
    launch();
    ck(cudaStreamSynchronize(s), "warm-up");
    std::vector<float> us;
    for (int r = 0; r < reps; ++r) {
      ck(cudaEventRecord(e0, s), "cudaEventRecord");
      launch();
      ck(cudaEventRecord(e1, s), "cudaEventRecord");
      ck(cudaEventSynchronize(e1), "cudaEventSynchronize");
      float ms = 0.0f;
      ck(cudaEventElapsedTime(&ms, e0, e1), "cudaEventElapsedTime");
      us.push_back(1e3f * ms);
    }
    std::sort(us.begin(), us.end());
    std::printf("%-14s median %8.2f us  min %8.2f us\n", name, us[reps / 2], us[0]);
    return us[reps / 2];
  };
  time_us("empty", [] {});
  time_us("window_colmax", [&] { launch_window_colmax(dt, 1, nrb, df, dF, dcmax, s); });
  const float tf = time_us("factor_window", [&] { launch_factor_window(dt, 1, df, dF, dlt, dS, dres, dcmax, prm, s); });
  WindowResult r;
  ck(cudaMemcpy(&r, dres, sizeof r, cudaMemcpyDeviceToHost), "cudaMemcpy");
  int n2 = 0;
  for (int pc = 0; pc < r.np; ++pc) n2 += r.d[2 * pc + 1] != 0.0;
  std::printf("pivots %d (2x2 %d), %.0f ns per pivot\n", r.np, n2, 1e3 * tf / std::max(1, r.np));
  time_us("apply_window", [&] { launch_apply_window(dt, 1, nrb, df, dF, dlt, dS, dres, prm, s); });
  std::vector<double> lt(static_cast<size_t>(m) * w);
  ck(cudaMemcpy(lt.data(), dlt, lt.size() * sizeof(double), cudaMemcpyDeviceToHost), "cudaMemcpy");
  ck(cudaMemcpy(&r, dres, sizeof r, cudaMemcpyDeviceToHost), "cudaMemcpy");
  Hash h;
  h.add(lt.data(), lt.size() * sizeof(double));
  h.add(r.d, sizeof r.d);
  h.add(r.order, sizeof r.order);
  h.add(&r.np, sizeof r.np);
  h.add(r.pos_of, sizeof r.pos_of);
  std::printf("outputs hash %016llx, first failing multiplier at pivot %d\n", h.h, r.fail_pos);
  return 0;
}
