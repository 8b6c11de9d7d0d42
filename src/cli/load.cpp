// load.cpp — see load.hpp.
#include "cli/load.hpp"

#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>

#include "cli/cli.hpp"
#include "ssids/error.hpp"
#include "ssids/generate.hpp"

namespace ssids_cli {

namespace {

bool is_generated(const std::string& spec) { return spec.compare(0, 4, "gen:") == 0; }

ssids::ReadOptions read_options(ssids::SymmetricEntries policy) {
  ssids::ReadOptions r;
  r.symmetric_entries = policy;
  return r;
}

}  // namespace

ssids::SymmetricEntries symmetric_entries_option(const Args& args) {
  const std::string s = args.get("--symmetric-entries", "refuse");
  if (s == "refuse") return ssids::SymmetricEntries::refuse;
  if (s == "lower") return ssids::SymmetricEntries::lower;
  if (s == "upper") return ssids::SymmetricEntries::upper;
  if (s == "sum") return ssids::SymmetricEntries::sum;
  throw UsageError{"--symmetric-entries must be lower, upper, sum or refuse, got '" + s + "'"};
}

LoadedProblem load_problem(const std::string& spec, const std::string& order_file, ssids::SymmetricEntries policy,
                           Notes& notes) {
  LoadedProblem p;
  auto t0 = std::chrono::steady_clock::now();
  ssids::MatrixReport rep;
  p.a = is_generated(spec) ? ssids::load_symmetric(spec, &rep) : ssids::read_symmetric(spec, read_options(policy), &rep);
  p.time_read = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  notes.add_reader(spec, rep, policy);
  if (!order_file.empty()) {
    ssids::DenseMatrix o = ssids::read_dense(order_file);
    if (o.nrow != p.a.n || o.ncol != 1)
      throw ssids::Error(ssids::flag::bad_order, "order file " + order_file + " is " + std::to_string(o.nrow) + " x " +
                                                     std::to_string(o.ncol) + "; it must be n x 1 with n = " +
                                                     std::to_string(p.a.n));
    p.order.resize(p.a.n);
    for (ssids::index_t i = 0; i < p.a.n; ++i) {
      double v = o.val[i];
      if (v != std::floor(v) || v < 1 || v > p.a.n)
        throw ssids::Error(ssids::flag::bad_order, "order file " + order_file + ": entry " + std::to_string(i + 1) + " is not a position in 1..n");
      p.order[i] = static_cast<ssids::index_t>(v) - 1;
    }
  }
  return p;
}

ssids::CsrMatrix load_general_problem(const std::string& spec, ssids::SymmetricEntries policy, Notes& notes) {
  ssids::MatrixReport rep;
  ssids::CsrMatrix a =
      is_generated(spec) ? ssids::load_general(spec, &rep) : ssids::read_general(spec, read_options(policy), &rep);
  rep.missing_diagonal = 0;  // not counted for general matrices (and no information for SaP)
  notes.add_reader(spec, rep, policy);
  return a;
}

ssids::DenseMatrix read_rhs(const std::string& path, ssids::index_t n, bool single_column) {
  ssids::DenseMatrix r = ssids::read_dense(path);
  if (r.nrow != n || r.ncol < 1 || (single_column && r.ncol != 1))
    throw ssids::Error(ssids::flag::bad_input,
                       "right-hand side file " + path + " is " + std::to_string(r.nrow) + " x " +
                           std::to_string(r.ncol) + ", but the matrix has n = " + std::to_string(n) +
                           " rows: it must be " + (single_column ? "n x 1" : "n x k (k >= 1)"));
  return r;
}

void check_output_path(const std::string& path) {
  namespace fs = std::filesystem;
  const fs::path dir = fs::path(path).has_parent_path() ? fs::path(path).parent_path() : fs::path(".");
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) throw OutputError{"cannot write " + path + ": no folder " + dir.string()};
  if (::access(dir.c_str(), W_OK) != 0)
    throw OutputError{"cannot write " + path + ": " + std::strerror(errno)};
}

void save_order(const std::string& path, const ssids::Vector<ssids::index_t>& order) {
  errno = 0;
  FILE* f = std::fopen(path.c_str(), "w");
  if (!f) throw OutputError{"cannot write " + path + ": " + std::strerror(errno)};
  bool ok = std::fprintf(f, "%%%%MatrixMarket matrix array integer general\n%% pivot order: entry i is the 1-based position of variable i\n%zu 1\n", order.size()) > 0;
  for (std::size_t i = 0; ok && i < order.size(); ++i) ok = std::fprintf(f, "%d\n", order[i] + 1) > 0;
  const int err = errno;
  if (std::fclose(f) != 0 || !ok) throw OutputError{"cannot write " + path + ": " + std::strerror(err ? err : errno)};
}

void write_solution(const std::string& path, ssids::index_t n, int ncol, const double* x) {
  ssids::DenseMatrix d;
  d.nrow = n;
  d.ncol = ncol;
  d.val.assign(x, x + static_cast<std::size_t>(n) * static_cast<std::size_t>(ncol));
  try {
    ssids::write_dense(path, d);
  } catch (const ssids::Error& e) {
    throw OutputError{e.what()};
  }
}

}  // namespace ssids_cli
