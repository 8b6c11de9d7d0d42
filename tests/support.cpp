// support.cpp — test helpers (see support.hpp).
#include "support.hpp"

#include <doctest/doctest.h>

#include <algorithm>
#include <array>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <sys/wait.h>
#include <unistd.h>

extern "C" void dsyev_(const char* jobz, const char* uplo, const int* n, double* a, const int* lda, double* w,
                       double* work, const int* lwork, int* info);

namespace ssids_test {
extern bool g_skipped;
extern std::string g_skip_reason;

void skip(const std::string& reason) {
  g_skipped = true;
  g_skip_reason = reason;
  MESSAGE("skipped: " << reason);
}

std::string matrices_dir() {
  const char* env = std::getenv("SSIDS_TEST_MATRICES");
  std::string d = (env && *env) ? env : SSIDS_DEFAULT_TEST_MATRICES;
  return std::filesystem::is_directory(d) ? d : std::string();
}

std::vector<std::string> matrix_files() {
  std::vector<std::string> out;
  std::string d = matrices_dir();
  if (d.empty()) return out;
  for (const auto& e : std::filesystem::directory_iterator(d)) {
    std::string p = e.path().string();
    auto ends = [&](const std::string& s) { return p.size() >= s.size() && p.compare(p.size() - s.size(), s.size(), s) == 0; };
    if (ends(".mtx") || ends(".mtx.gz")) out.push_back(p);
  }
  std::sort(out.begin(), out.end());
  return out;
}

std::string cli_path() { return SSIDS_CLI_PATH; }

namespace {
/// The scratch folder of this process, removed at exit.
struct ScratchDir {
  std::filesystem::path path;
  ScratchDir() {
    path = std::filesystem::temp_directory_path() / ("ssids_test_" + std::to_string(::getpid()));
    std::filesystem::create_directories(path);
  }
  ~ScratchDir() {
    std::error_code ec;
    std::filesystem::remove_all(path, ec);
  }
};
}  // namespace

std::string scratch(const std::string& name) {
  static ScratchDir dir;
  return (dir.path / name).string();
}

std::string quote(const std::string& s) {
  std::string o = "'";
  for (char c : s) o += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return o + "'";
}

CliResult run_cli(const std::string& args, const std::string& env) {
  static int counter = 0;
  const std::string errfile = scratch("stderr_" + std::to_string(counter++) + ".txt");
  CliResult r;
  r.status = run_command(env + (env.empty() ? "" : " ") + quote(cli_path()) + " " + args + " 2>" + quote(errfile), r.out,
                         false);
  std::ifstream in(errfile);
  std::stringstream ss;
  ss << in.rdbuf();
  r.err = ss.str();
  return r;
}

int run_command(const std::string& cmd, std::string& output, bool merge_stderr) {
  output.clear();
  std::string full = cmd + (merge_stderr ? " 2>&1" : "");
  FILE* f = popen(full.c_str(), "r");
  if (!f) return -1;
  std::array<char, 4096> buf;
  size_t k;
  while ((k = fread(buf.data(), 1, buf.size(), f)) > 0) output.append(buf.data(), k);
  int st = pclose(f);
  return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

std::vector<double> to_dense(const ssids::SymmetricMatrix& a) {
  int n = a.n;
  std::vector<double> d(static_cast<size_t>(n) * n, 0.0);
  for (int j = 0; j < n; ++j)
    for (auto k = a.ptr[j]; k < a.ptr[j + 1]; ++k) {
      int i = a.row[k];
      d[i + static_cast<size_t>(j) * n] = a.val[k];
      d[j + static_cast<size_t>(i) * n] = a.val[k];
    }
  return d;
}

std::vector<double> eigenvalues(std::vector<double> dense, int n) {
  std::vector<double> w(n);
  if (n == 0) return w;
  int lwork = -1, info = 0;
  double q;
  dsyev_("N", "L", &n, dense.data(), &n, w.data(), &q, &lwork, &info);
  lwork = static_cast<int>(q);
  std::vector<double> work(lwork);
  dsyev_("N", "L", &n, dense.data(), &n, w.data(), work.data(), &lwork, &info);
  REQUIRE(info == 0);
  return w;
}

Inertia inertia_of(const std::vector<double>& eig, double tol) {
  Inertia r;
  for (double e : eig) {
    if (e < -tol) ++r.neg;
    else if (e > tol) ++r.pos;
    else ++r.zero;
  }
  return r;
}

ssids::SymmetricMatrix from_triplets(int n, const std::vector<int>& rows, const std::vector<int>& cols,
                                     const std::vector<double>& vals) {
  std::vector<std::map<int, double>> colmap(n);
  for (size_t k = 0; k < rows.size(); ++k) {
    int i = rows[k], j = cols[k];
    if (i < j) std::swap(i, j);
    colmap[j][i] += vals[k];
  }
  ssids::SymmetricMatrix a;
  a.n = n;
  a.ptr.assign(n + 1, 0);
  for (int j = 0; j < n; ++j) {
    for (auto& [i, v] : colmap[j]) {
      a.row.push_back(i);
      a.val.push_back(v);
    }
    a.ptr[j + 1] = static_cast<ssids::offset_t>(a.row.size());
  }
  return a;
}

ssids::SymmetricMatrix random_symmetric(int n, double density, double diag_density, double dmax, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> uni(0.0, 1.0), val(-1.0, 1.0);
  std::vector<int> r, c;
  std::vector<double> v;
  for (int j = 0; j < n; ++j) {
    if (uni(rng) < diag_density) {
      r.push_back(j); c.push_back(j); v.push_back(dmax * val(rng));
    }
    for (int i = j + 1; i < n; ++i)
      if (uni(rng) < density) {
        r.push_back(i); c.push_back(j); v.push_back(val(rng));
      }
  }
  return from_triplets(n, r, c, v);
}

ssids::SymmetricMatrix random_kkt(int nh, int nc, double density, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  auto uni = [&] { return static_cast<double>(rng() >> 11) * 0x1.0p-53; };
  std::vector<int> r, c;
  std::vector<double> v;
  for (int j = 0; j < nh; ++j) {
    r.push_back(j); c.push_back(j); v.push_back(1.0 + uni());
    for (int i = j + 1; i < nh; ++i)
      if (uni() < density) { r.push_back(i); c.push_back(j); v.push_back(2 * uni() - 1); }
  }
  for (int k = 0; k < nc; ++k) {
    r.push_back(nh + k); c.push_back(k % nh); v.push_back(1.0 + uni());  // full row rank
    for (int j = 0; j < nh; ++j)
      if (uni() < density) { r.push_back(nh + k); c.push_back(j); v.push_back(2 * uni() - 1); }
  }
  return from_triplets(nh + nc, r, c, v);
}

}  // namespace ssids_test
