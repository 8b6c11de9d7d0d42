// load.cpp — see load.hpp.
#include "cli/load.hpp"

#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <cerrno>

#include "ssids/error.hpp"
#include "ssids/generate.hpp"
#include "ssids/matrix_market.hpp"

namespace ssids_cli {

LoadedProblem load_problem(const std::string& spec, const std::string& order_file, bool verbose) {
  LoadedProblem p;
  auto t0 = std::chrono::steady_clock::now();
  ssids::MatrixReport rep;
  p.a = ssids::load_symmetric(spec, &rep);
  p.time_read = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  if (verbose && rep.warning_flag() != 0)
    std::fprintf(stderr, "ssids: warning: %s: %d duplicates summed, %d out-of-range entries ignored, %d upper-triangle entries mirrored, %d missing diagonal entries\n",
                 spec.c_str(), rep.duplicates, rep.out_of_range, rep.upper, rep.missing_diagonal);
  if (!order_file.empty()) {
    ssids::DenseMatrix o = ssids::read_dense(order_file);
    if (o.nrow != p.a.n || o.ncol != 1)
      throw ssids::Error(ssids::flag::bad_order, "order file " + order_file + " must be an n x 1 array");
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

void save_order(const std::string& path, const ssids::Vector<ssids::index_t>& order) {
  FILE* f = std::fopen(path.c_str(), "w");
  if (!f) throw ssids::Error(ssids::flag::bad_input, "cannot write " + path + ": " + std::strerror(errno));
  std::fprintf(f, "%%%%MatrixMarket matrix array integer general\n%% pivot order: entry i is the 1-based position of variable i\n%zu 1\n", order.size());
  for (auto v : order) std::fprintf(f, "%d\n", v + 1);
  if (std::fclose(f) != 0) throw ssids::Error(ssids::flag::bad_input, "cannot write " + path);
}

}  // namespace ssids_cli
