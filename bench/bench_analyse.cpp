// bench_analyse.cpp — the analyse phase, phase by phase, side by side with SPRAL's analyse.
//
// Usage: bench_analyse [--threads T] [--repeat R] [--ordering metis|matching|both] [--spral PATH]
//                      [--phases] [--check-threads LIST] SPEC...
// SPEC is a Matrix Market file (plain or .gz) or a gen: spec (see ssids::load_symmetric). For each problem and
// ordering: one warm-up analyse, then R timed ones; the table gives the median total and the median of every
// phase (detail::analyse_profiled), nnz(L) and flops predicted. With --spral PATH (or the environment variable
// SSIDS_BENCH_SPRAL) SPRAL's libspral.so is loaded at run time and its spral_ssids_analyse_ptr32 is timed on
// the same matrix in the same run (warm-up + R, median): ordering 1 for our METIS rows, ordering 2 with
// scaling 3 (values given) for our matching rows, as an interior-point code calls it.
//
// SPRAL and METIS: our library links Debian's METIS 5.1 (libmetis.so.5); SPRAL's wheel ships its own METIS
// 5.2 (libmetis.so + libGKlib.so next to libspral.so). Both export METIS_NodeND, so SPRAL is loaded into a
// fresh link-map namespace (dlmopen(LM_ID_NEWLM)) after its METIS and GKlib, by full path, from its own
// directory: inside that namespace the only METIS is SPRAL's, and ours stays in the base namespace. The run
// prints the file each METIS_NodeND resolves to in each namespace (dladdr) and refuses to time SPRAL when they
// are the same file. OMP_CANCELLATION=TRUE and OMP_PROC_BIND=TRUE (SPRAL's requirements) and OMP_NUM_THREADS=T
// are set in the environment before loading, so that SPRAL's own OpenMP runtime (a separate copy in its
// namespace) reads them; ours has read the environment at start-up already.
//
// --check-threads 1,2,4: analyse every problem once per thread count and fail (exit 1) unless the orders are
// bitwise equal. Times are wall-clock seconds (std::chrono::steady_clock).
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <dlfcn.h>
#include <link.h>
#include <omp.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <string>
#include <vector>

#include "analyse/profile.hpp"
#include "ssids/analyse.hpp"
#include "ssids/error.hpp"
#include "ssids/generate.hpp"
#include "ssids/spral_ssids.h"

namespace {

double now() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

double median(std::vector<double> t) {
  if (t.empty()) return 0.0;
  std::sort(t.begin(), t.end());
  const size_t m = t.size() / 2;
  return t.size() % 2 ? t[m] : 0.5 * (t[m - 1] + t[m]);
}

std::string display_name(const std::string& spec) {
  if (spec.rfind("gen:", 0) == 0) return spec;
  const size_t slash = spec.find_last_of('/');
  std::string s = slash == std::string::npos ? spec : spec.substr(slash + 1);
  for (const char* ext : {".mtx.gz", ".mtx"})
    if (s.size() > std::strlen(ext) && s.compare(s.size() - std::strlen(ext), std::string::npos, ext) == 0)
      return s.substr(0, s.size() - std::strlen(ext));
  return s;
}

std::string dir_of(const std::string& path) {
  const size_t slash = path.find_last_of('/');
  return slash == std::string::npos ? std::string(".") : path.substr(0, slash);
}

/// The file a loaded symbol lives in ("?" when unknown).
std::string file_of(void* sym) {
  Dl_info info{};
  if (!sym || !dladdr(sym, &info) || !info.dli_fname) return "?";
  char real[4096];
  return realpath(info.dli_fname, real) ? std::string(real) : std::string(info.dli_fname);
}

/// SPRAL's C interface, loaded into its own link-map namespace (see the file comment).
struct Spral {
  void (*default_options)(spral_ssids_options*) = nullptr;
  void (*analyse_ptr32)(bool, int, int*, const int*, const int*, const double*, void**, const spral_ssids_options*,
                        spral_ssids_inform*) = nullptr;
  void (*factor_ptr32)(bool, const int*, const int*, const double*, double*, void*, void**,
                       const spral_ssids_options*, spral_ssids_inform*) = nullptr;
  void (*solve1)(int, double*, void*, void*, const spral_ssids_options*, spral_ssids_inform*) = nullptr;
  int (*free_both)(void**, void**) = nullptr;
  std::string metis_file;  ///< where SPRAL's METIS_NodeND resolves

  bool load(const std::string& path, int threads, std::string& err) {
    setenv("OMP_CANCELLATION", "TRUE", 1);
    setenv("OMP_PROC_BIND", "TRUE", 1);
    if (threads > 0) setenv("OMP_NUM_THREADS", std::to_string(threads).c_str(), 1);
    const std::string dir = dir_of(path);
    void* h = nullptr;
    Lmid_t lmid = LM_ID_NEWLM;
    // SPRAL's METIS (and the GKlib it needs) first, by full path, so that libspral's NEEDED libmetis.so binds
    // to it inside the namespace whatever LD_LIBRARY_PATH says
    for (const char* dep : {"libGKlib.so", "libmetis.so"}) {
      const std::string p = dir + "/" + dep;
      FILE* f = std::fopen(p.c_str(), "rb");
      if (!f) continue;
      std::fclose(f);
      void* d = dlmopen(lmid, p.c_str(), RTLD_NOW | RTLD_LOCAL);
      if (!d) {
        err = std::string("dlmopen ") + p + ": " + dlerror();
        return false;
      }
      if (lmid == LM_ID_NEWLM && dlinfo(d, RTLD_DI_LMID, &lmid) != 0) {
        err = "dlinfo failed";
        return false;
      }
    }
    h = dlmopen(lmid, path.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (!h) {
      err = std::string("dlmopen ") + path + ": " + dlerror();
      return false;
    }
    auto get = [&](const char* name) {
      void* p = dlsym(h, name);
      if (!p) err += std::string(err.empty() ? "" : ", ") + "missing " + name;
      return p;
    };
    default_options = reinterpret_cast<decltype(default_options)>(get("spral_ssids_default_options"));
    analyse_ptr32 = reinterpret_cast<decltype(analyse_ptr32)>(get("spral_ssids_analyse_ptr32"));
    factor_ptr32 = reinterpret_cast<decltype(factor_ptr32)>(get("spral_ssids_factor_ptr32"));
    solve1 = reinterpret_cast<decltype(solve1)>(get("spral_ssids_solve1"));
    free_both = reinterpret_cast<decltype(free_both)>(get("spral_ssids_free"));
    metis_file = file_of(dlsym(h, "METIS_NodeND"));
    return err.empty();
  }
};

/// The matrix in the form an interior-point code gives SPRAL: 1-based int32 CSC of the lower triangle.
struct Csc32 {
  int n = 0;
  std::vector<int> ptr, row;
  std::vector<double> val;
};
Csc32 to_csc32(const ssids::SymmetricMatrix& a) {
  Csc32 c;
  c.n = a.n;
  c.ptr.resize(static_cast<size_t>(a.n) + 1);
  for (ssids::index_t j = 0; j <= a.n; ++j) c.ptr[j] = static_cast<int>(a.ptr[j] + 1);
  c.row.resize(a.row.size());
  for (size_t k = 0; k < a.row.size(); ++k) c.row[k] = a.row[k] + 1;
  c.val.assign(a.val.begin(), a.val.end());
  return c;
}

struct Config {
  int threads = 0;
  int repeat = 3;
  bool metis = true, matching = true;
  std::string spral;
  std::vector<int> check_threads;
  std::vector<std::string> specs;
};

/// Phases shown as table columns, in this order; any other phase is added to "other".
const char* const kColumns[] = {"check",       "full matrix", "matching",     "pairs", "compressed graph",
                                "METIS compressed", "METIS plain", "METIS", "predictions", "etree",
                                "column counts", "supernodes", "row lists",   "maps",  "levels+stats"};
const char* const kShort[] = {"check", "full", "match", "pairs", "cgraph", "METIS-c", "METIS-p", "METIS",
                              "predict", "etree", "ccount", "super", "rows", "maps", "levels"};
constexpr int kNumColumns = sizeof(kColumns) / sizeof(kColumns[0]);

struct OursResult {
  double total = 0;
  std::vector<double> phase;  // kNumColumns + 1 (other)
  long long nnz_l = 0, flops = 0;
};

OursResult time_ours(const ssids::SymmetricMatrix& a, ssids::Ordering ordering, int repeat) {
  ssids::Options opt;
  opt.ordering = ordering;
  std::vector<double> totals;
  std::vector<std::vector<double>> phases(kNumColumns + 1);
  OursResult r;
  for (int it = 0; it <= repeat; ++it) {
    ssids::detail::AnalyseProfile prof;
    ssids::Inform inf;
    const double t0 = now();
    ssids::Analysis an = ssids::detail::analyse_profiled(a.view(), opt, inf, nullptr, &prof);
    const double t = now() - t0;
    r.nnz_l = an.num_factor();
    r.flops = an.num_flops();
    if (it == 0) continue;  // warm-up
    totals.push_back(t);
    double known = 0;
    for (int c = 0; c < kNumColumns; ++c) {
      phases[c].push_back(prof.get(kColumns[c]));
      known += prof.get(kColumns[c]);
    }
    phases[kNumColumns].push_back(t - known);
  }
  r.total = median(totals);
  for (auto& p : phases) r.phase.push_back(median(p));
  return r;
}

struct SpralResult {
  bool ok = false;
  int flag = 0;
  double total = 0;
  long long nnz_l = 0, flops = 0;
};

SpralResult time_spral(Spral& sp, const Csc32& c, int ordering, int repeat) {
  SpralResult r;
  spral_ssids_options o;
  sp.default_options(&o);
  o.array_base = 1;
  o.ordering = ordering;
  o.scaling = ordering == 2 ? 3 : 0;
  o.print_level = -1;
  std::vector<double> t;
  for (int it = 0; it <= repeat; ++it) {
    void *akeep = nullptr, *fkeep = nullptr;
    spral_ssids_inform inf;
    std::memset(&inf, 0, sizeof inf);
    const double t0 = now();
    sp.analyse_ptr32(false, c.n, nullptr, c.ptr.data(), c.row.data(), ordering == 2 ? c.val.data() : nullptr, &akeep,
                     &o, &inf);
    const double dt = now() - t0;
    sp.free_both(&akeep, &fkeep);
    r.flag = inf.flag;
    if (inf.flag < 0) return r;
    r.nnz_l = inf.num_factor;
    r.flops = inf.num_flops;
    if (it > 0) t.push_back(dt);
  }
  r.ok = true;
  r.total = median(t);
  return r;
}

bool check_thread_independence(const ssids::SymmetricMatrix& a, ssids::Ordering ordering,
                               const std::vector<int>& threads, const std::string& name) {
  ssids::Vector<ssids::index_t> first;
  bool same = true;
  for (size_t k = 0; k < threads.size(); ++k) {
    omp_set_num_threads(threads[k]);
    ssids::Options opt;
    opt.ordering = ordering;
    ssids::Inform inf;
    const ssids::Vector<ssids::index_t> ord = ssids::analyse(a.view(), opt, inf).order();
    if (k == 0)
      first = ord;
    else if (ord != first)
      same = false;
  }
  std::printf("%-32s %-8s order with %zu thread counts: %s\n", name.c_str(),
              ordering == ssids::Ordering::metis ? "metis" : "matching", threads.size(),
              same ? "bitwise equal" : "DIFFERENT");
  return same;
}

void usage() {
  std::fprintf(stderr,
               "usage: bench_analyse [--threads T] [--repeat R] [--ordering metis|matching|both] [--spral PATH]\n"
               "                     [--check-threads T1,T2,...] SPEC...\n"
               "SPEC: a Matrix Market file or gen:KIND:ARGS; --spral (or SSIDS_BENCH_SPRAL): SPRAL's libspral.so\n");
}

}  // namespace

int main(int argc, char** argv) {
  Config cfg;
  if (const char* e = std::getenv("SSIDS_BENCH_SPRAL")) cfg.spral = e;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    auto value = [&]() -> std::string {
      if (i + 1 >= argc) {
        usage();
        std::exit(2);
      }
      return argv[++i];
    };
    if (arg == "--threads") cfg.threads = std::atoi(value().c_str());
    else if (arg == "--repeat") cfg.repeat = std::max(1, std::atoi(value().c_str()));
    else if (arg == "--spral") cfg.spral = value();
    else if (arg == "--ordering") {
      const std::string v = value();
      cfg.metis = v == "metis" || v == "both";
      cfg.matching = v == "matching" || v == "both";
      if (!cfg.metis && !cfg.matching) {
        usage();
        return 2;
      }
    } else if (arg == "--check-threads") {
      const std::string v = value();
      for (size_t p = 0; p < v.size();) {
        const size_t q = v.find(',', p);
        cfg.check_threads.push_back(std::atoi(v.substr(p, q - p).c_str()));
        p = q == std::string::npos ? v.size() : q + 1;
      }
    } else if (arg == "--help" || arg == "-h") {
      usage();
      return 0;
    } else if (!arg.empty() && arg[0] == '-') {
      usage();
      return 2;
    } else {
      cfg.specs.push_back(arg);
    }
  }
  if (cfg.specs.empty()) {
    usage();
    return 2;
  }
  if (cfg.threads > 0) omp_set_num_threads(cfg.threads);
  const int threads = omp_get_max_threads();

  Spral spral;
  bool have_spral = false;
  const std::string our_metis = file_of(dlsym(RTLD_DEFAULT, "METIS_NodeND"));
  if (!cfg.spral.empty()) {
    std::string err;
    have_spral = spral.load(cfg.spral, threads, err);
    if (!have_spral) std::fprintf(stderr, "bench_analyse: SPRAL not used: %s\n", err.c_str());
    if (have_spral && spral.metis_file == our_metis) {
      std::fprintf(stderr, "bench_analyse: SPRAL's METIS_NodeND resolves to ours (%s): SPRAL not timed\n",
                   our_metis.c_str());
      have_spral = false;
    }
  }
  std::printf("# bench_analyse: %d threads, warm-up + %d repeats, medians; our METIS: %s\n", threads, cfg.repeat,
              our_metis.c_str());
  if (have_spral) std::printf("# SPRAL: %s, its METIS: %s\n", cfg.spral.c_str(), spral.metis_file.c_str());

  std::vector<ssids::Ordering> orderings;
  if (cfg.metis) orderings.push_back(ssids::Ordering::metis);
  if (cfg.matching) orderings.push_back(ssids::Ordering::matching);

  bool failed = false;
  std::vector<std::string> summary;
  std::printf("%-28s %-5s %8s", "problem", "ord", "total");
  for (int c = 0; c < kNumColumns; ++c) std::printf(" %7s", kShort[c]);
  std::printf(" %7s\n", "other");
  for (const std::string& spec : cfg.specs) {
    const std::string name = display_name(spec);
    try {
      ssids::SymmetricMatrix a = ssids::load_symmetric(spec);
      const Csc32 c = have_spral ? to_csc32(a) : Csc32{};
      for (ssids::Ordering ord : orderings) {
        const bool matching = ord == ssids::Ordering::matching;
        if (!cfg.check_threads.empty()) {
          failed |= !check_thread_independence(a, ord, cfg.check_threads, name);
          omp_set_num_threads(threads);
          continue;
        }
        const OursResult r = time_ours(a, ord, cfg.repeat);
        std::printf("%-28s %-5s %8.4f", name.c_str(), matching ? "match" : "metis", r.total);
        for (double p : r.phase) std::printf(" %7.4f", p);
        std::printf("\n");
        std::fflush(stdout);
        char line[512];
        if (have_spral) {
          const SpralResult s = time_spral(spral, c, matching ? 2 : 1, cfg.repeat);
          if (s.ok)
            std::snprintf(line, sizeof line, "%-28s %8d %-6s %8.4f %8.4f %6.2f %11.4g %11.4g %10.4g %10.4g", name.c_str(),
                          a.n, matching ? "match" : "metis", r.total, s.total, r.total / s.total,
                          static_cast<double>(r.nnz_l), static_cast<double>(s.nnz_l), static_cast<double>(r.flops),
                          static_cast<double>(s.flops));
          else
            std::snprintf(line, sizeof line, "%-28s %8d %-6s %8.4f  SPRAL flag %d", name.c_str(), a.n,
                          matching ? "match" : "metis", r.total, s.flag);
        } else {
          std::snprintf(line, sizeof line, "%-28s %8d %-6s %8.4f %8s %6s %11.4g %11s %10.4g", name.c_str(), a.n,
                        matching ? "match" : "metis", r.total, "-", "-", static_cast<double>(r.nnz_l), "-",
                        static_cast<double>(r.flops));
        }
        summary.push_back(line);
      }
    } catch (const std::exception& e) {
      std::printf("%-28s error: %s\n", name.c_str(), e.what());
      failed = true;
    }
  }
  if (!summary.empty()) {
    std::printf("\n%-28s %8s %-6s %8s %8s %6s %11s %11s %10s %10s\n", "problem", "n", "ord", "ours", "SPRAL", "ratio",
                "nnz(L)", "SPRAL nnzL", "flops", "SPRAL flop");
    for (const std::string& s : summary) std::printf("%s\n", s.c_str());
  }
  return failed ? 1 : 0;
}
