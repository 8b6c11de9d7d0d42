// bench_sap.cpp — SaP (include/ssids/sap.hpp) in the settings of Li, Serban, Negrut 2015 §4.1:
// dense banded systems N = 200000, K = 200 (gen:banded:N:K:d), P = 50, rtol 1e-10, BiCGStab(2) with
// iterations in quarters, both variants, d in {1, 0.5, 0.2, 0.1, 0.06} through the dense banded entry point
// (no reordering, as in §4.1); then any Matrix Market files given on the command line through the sparse
// path (DB + CM), both variants. One line per run: iterations, setup (LU, spikes) and Krylov times.
//
// usage: bench_sap [--n N] [--k K] [--p P] [--d d1,d2,...] [--tol T] [--maxit M] [--fp P] [FILE.mtx ...]
//   --fp: partitions for the sparse files (default 16). Heavy at the defaults (~1.3 GB of band storage per
//   copy, ~16 GFlop per LU/UL sweep): run alone, e.g. OMP_NUM_THREADS=2.
#include <omp.h>

#include <cstdio>
#include <cstdlib>
#include <sstream>
#include <string>
#include <vector>

#include "ssids/error.hpp"
#include "ssids/generate.hpp"
#include "ssids/sap.hpp"

using namespace ssids;

namespace {

void report(const char* what, const sap::SapInform& inf, double rel) {
  std::printf("%-28s %-2s P=%-3d K=%-4d it=%-7g status=%-15s relres=%.2e setup=%.3f (lu %.3f spikes %.3f) "
              "solve=%.3f total=%.3f boosted=%d\n",
              what, "", inf.partitions, inf.bandwidth, inf.iterations, sap::status_name(inf.status), rel,
              inf.time_setup, inf.time_lu, inf.time_spikes, inf.time_solve, inf.time_setup + inf.time_solve,
              inf.boosted_pivots + inf.boosted_pivots_ul);
  std::fflush(stdout);
}

}  // namespace

int main(int argc, char** argv) {
  index_t n = 200000, k = 200;
  int p = 50, fp = 16, maxit = 500;
  double tol = 1e-10;
  std::vector<double> ds = {1.0, 0.5, 0.2, 0.1, 0.06};
  std::vector<std::string> files;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    auto next = [&]() -> std::string {
      if (i + 1 >= argc) {
        std::fprintf(stderr, "%s needs a value\n", a.c_str());
        std::exit(2);
      }
      return argv[++i];
    };
    if (a == "--n") n = std::atoi(next().c_str());
    else if (a == "--k") k = std::atoi(next().c_str());
    else if (a == "--p") p = std::atoi(next().c_str());
    else if (a == "--fp") fp = std::atoi(next().c_str());
    else if (a == "--tol") tol = std::atof(next().c_str());
    else if (a == "--maxit") maxit = std::atoi(next().c_str());
    else if (a == "--d") {
      ds.clear();
      std::stringstream ss(next());
      std::string t;
      while (std::getline(ss, t, ',')) ds.push_back(std::atof(t.c_str()));
    } else files.push_back(a);
  }
  std::printf("bench_sap: %d OpenMP threads; dense banded N = %d, K = %d, P = %d, rtol %.0e, BiCGStab(2) (quarters)\n",
              omp_get_max_threads(), n, k, p, tol);
  try {
    for (double d : ds) {
      std::vector<double> band, b;
      {
        CsrMatrix a = generate_banded(n, k, d, 1);
        const std::int64_t ld = 2 * static_cast<std::int64_t>(k) + 1;
        band.assign(static_cast<std::size_t>(n) * ld, 0.0);
        b.assign(static_cast<std::size_t>(n), 0.0);
        for (index_t i = 0; i < n; ++i)
          for (offset_t q = a.ptr[i]; q < a.ptr[i + 1]; ++q) {
            band[(k + i - a.col[q]) + a.col[q] * ld] = a.val[q];
            b[i] += a.val[q];  // b = A * 1
          }
      }
      for (sap::Variant v : {sap::Variant::decoupled, sap::Variant::coupled}) {
        sap::SapOptions o;
        o.partitions = p;
        o.variant = v;
        o.rtol = tol;
        o.max_iterations = maxit;
        o.krylov = sap::Krylov::bicgstab2;
        sap::Solver s;
        sap::SapInform inf;
        s.setup_banded(n, k, band.data(), o, inf);
        std::vector<double> x(b.size(), 0.0);
        s.solve(b.data(), x.data(), inf);
        char what[96];
        std::snprintf(what, sizeof what, "banded d=%-5g SaP-%s", d, sap::variant_name(v));
        report(what, inf, inf.relative_residual);
      }
    }
    for (const std::string& f : files) {
      CsrMatrix a = load_general(f);
      std::vector<double> b(static_cast<std::size_t>(a.nrow), 0.0);
      for (index_t i = 0; i < a.nrow; ++i)
        for (offset_t q = a.ptr[i]; q < a.ptr[i + 1]; ++q) b[i] += a.val[q];
      for (sap::Variant v : {sap::Variant::decoupled, sap::Variant::coupled}) {
        sap::SapOptions o;
        o.partitions = fp;
        o.variant = v;
        o.rtol = tol;
        o.max_iterations = maxit;
        sap::Solver s;
        sap::SapInform inf;
        try {
          s.setup(a, o, inf);
          std::vector<double> x(b.size(), 0.0);
          s.solve(b.data(), x.data(), inf);
          std::string name = f.substr(f.find_last_of('/') + 1);
          char what[96];
          std::snprintf(what, sizeof what, "%.20s SaP-%s", name.c_str(), sap::variant_name(v));
          std::printf("  [%s] n=%d nnz=%lld K input %d, DB %d, CM %d; DB %.3fs CM %.3fs\n", name.c_str(), a.nrow,
                      static_cast<long long>(a.nnz()), inf.k_input, inf.k_db, inf.k_cm, inf.time_db, inf.time_cm);
          report(what, inf, inf.relative_residual);
        } catch (const Error& e) {
          std::printf("%s SaP-%s: error %d: %s\n", f.c_str(), sap::variant_name(v), e.code(), e.what());
        }
      }
    }
  } catch (const Error& e) {
    std::fprintf(stderr, "bench_sap: error %d: %s\n", e.code(), e.what());
    return 1;
  }
  return 0;
}
