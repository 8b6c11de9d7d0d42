// bench_analyse.cpp — the analyse phase, phase by phase, side by side with SPRAL's analyse.
//
// Usage: bench_analyse [--threads T] [--repeat R] [--ordering metis|matching|both] [--spral PATH]
//                      [--check-threads LIST] [--ipm NVAR:NCON:ITERS[:SEED]]... [--cpu] [--exact-reuse]
//                      [--no-cache] [--backend cpu|gpu|auto] [SPEC...]
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
// namespace) reads them; ours has read the environment at start-up already. SPRAL's runtime binds the loading
// thread to a core: that binding is used for SPRAL's calls, the thread's own mask for ours.
//
// --check-threads 1,2,4: analyse every problem once per thread count and fail (exit 1) unless the orders are
// bitwise equal.
// --ipm NVAR:NCON:ITERS: the interior-point-like sequence gen:kkt-ipm:NVAR:NCON:0..ITERS-1 through our C
// interface and SPRAL's as IPOPT calls them (free the handles, analyse with the values, ordering 2 + scaling
// 3, factorize, solve one right-hand side), R rounds of the whole sequence per library, per-iteration medians
// and the totals; our re-analysis kind per iteration (fresh, whole, pairs, kept, plain). --cpu: use_gpu =
// false for both; --exact-reuse: MatchingReuse::exact; --no-cache: our C interface's cache of analyses off.
// --backend cpu|gpu|auto: Options::backend of our analyses in the table (default cpu; the matching ordering's
// candidate orderings depend on it, ordering.hpp); analyse itself needs no GPU.
// Times are wall-clock seconds (std::chrono::steady_clock).
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <dlfcn.h>
#include <link.h>
#include <omp.h>
#include <sched.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <string>
#include <vector>

#include "analyse/analysis_cache.hpp"
#include "analyse/profile.hpp"
#include "analyse/reanalyse.hpp"
#include "analyse/symbolic.hpp"
#include "ssids/analyse.hpp"
#include "ssids/error.hpp"
#include "ssids/generate.hpp"
#include "ssids/spral_ssids.h"

#include "bench_util.hpp"

namespace {

using ssids_bench::median;
using ssids_bench::now;

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
  /// SPRAL's OpenMP runtime, with OMP_PROC_BIND=TRUE, binds the thread that loads it to one core: that binding
  /// is kept for SPRAL's calls and the thread's own mask restored for ours (else our calls ran on one core).
  cpu_set_t ours_mask, spral_mask;
  bool have_masks = false;
  void enter() const {
    if (have_masks) sched_setaffinity(0, sizeof spral_mask, &spral_mask);
  }
  void leave() const {
    if (have_masks) sched_setaffinity(0, sizeof ours_mask, &ours_mask);
  }

  bool load(const std::string& path, int threads, std::string& err) {
    have_masks = sched_getaffinity(0, sizeof ours_mask, &ours_mask) == 0;
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
    have_masks = have_masks && sched_getaffinity(0, sizeof spral_mask, &spral_mask) == 0;
    leave();
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
  std::vector<std::string> ipm;  // NVAR:NCON:ITERS[:SEED]
  bool cpu = false;              // use_gpu = false for both libraries in --ipm
  bool exact = false;            // MatchingReuse::exact (default: the library's, keep_compatible)
  bool no_cache = false;         // our C interface's cache of analyses off
  ssids::Backend backend = ssids::Backend::cpu;  // the backend our analyses are for (--backend)
};

/// Phases shown as table columns, in this order. The matching ordering's two candidates (each ordered by
/// AMD and/or METIS, then predicted) run side by side, the plain one beside the matching: their columns and
/// the matching's are their own times, "cand" is the wall time of all together. "other" is the total minus
/// the phases that ran one after another.
const char* const kColumns[] = {"check",       "full matrix",   "matching",       "pairs",      "compressed graph",
                                "candidates (wall)", "AMD compressed", "AMD plain", "METIS compressed",
                                "METIS plain", "predictions",   "METIS",          "etree",      "column counts",
                                "supernodes",  "row lists",     "maps",           "levels+stats"};
const char* const kShort[] = {"check", "full",    "match",   "pairs",   "cgraph", "cand",  "AMD-c",  "AMD-p", "METIS-c",
                              "METIS-p", "predict", "METIS", "etree",   "ccount", "super", "rows",   "maps",  "levels"};
constexpr int kNumColumns = sizeof(kColumns) / sizeof(kColumns[0]);
/// Columns that are parts of "candidates (wall)" (not summed into the sequential total): the matching's
/// (full matrix, matching, pairs), the compressed graph and the candidates'.
bool inside_candidates(int c) { return (c >= 1 && c <= 4) || (c >= 6 && c <= 10); }

struct OursResult {
  double total = 0;
  std::vector<double> phase;  // kNumColumns + 1 (other)
  long long nnz_l = 0, flops = 0;
  const char* kind = "metis";  ///< "metis", or the matching ordering's choice: "match-c" (compressed), "match-p"
};

OursResult time_ours(const ssids::SymmetricMatrix& a, ssids::Ordering ordering, int repeat, ssids::Backend backend) {
  ssids::Options opt;
  opt.ordering = ordering;
  opt.backend = backend;
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
    if (an.symbolic().matching_choice) r.kind = an.symbolic().matching_choice->compressed ? "match-c" : "match-p";
    if (it == 0) continue;  // warm-up
    totals.push_back(t);
    double known = 0;
    const bool candidates = prof.get("candidates (wall)") > 0;
    for (int c = 0; c < kNumColumns; ++c) {
      phases[c].push_back(prof.get(kColumns[c]));
      if (!(candidates && inside_candidates(c))) known += prof.get(kColumns[c]);
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
  struct Bind {
    const Spral& s;
    explicit Bind(const Spral& x) : s(x) { s.enter(); }
    ~Bind() { s.leave(); }
  } bind(sp);
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

// ---- --ipm: a sequence of same-pattern KKT matrices through the C interface, as an interior-point code calls it

/// The C interface of one library: ours (linked) or SPRAL's (loaded).
struct CApi {
  void (*default_options)(spral_ssids_options*);
  void (*analyse_ptr32)(bool, int, int*, const int*, const int*, const double*, void**, const spral_ssids_options*,
                        spral_ssids_inform*);
  void (*factor_ptr32)(bool, const int*, const int*, const double*, double*, void*, void**,
                       const spral_ssids_options*, spral_ssids_inform*);
  void (*solve1)(int, double*, void*, void*, const spral_ssids_options*, spral_ssids_inform*);
  int (*free_both)(void**, void**);
};

struct Step {
  double analyse = 0, factor = 0, solve = 0;
  int delays = 0, neg = 0, flag = 0;
  const char* reuse = "";
};

const char* reuse_name(ssids::detail::ReuseKind k) {
  switch (k) {
    case ssids::detail::ReuseKind::none: return "fresh";
    case ssids::detail::ReuseKind::whole: return "whole";
    case ssids::detail::ReuseKind::same_pairs: return "pairs";
    case ssids::detail::ReuseKind::kept_order: return "kept";
    case ssids::detail::ReuseKind::plain_candidate: return "plain";
  }
  return "?";
}

/// Every iteration as the interior-point code does it: free the previous handles, analyse with the values
/// (ordering 2, scaling 3), factorize, solve one right-hand side (A x = b, b = A 1).
std::vector<Step> run_sequence(const CApi& api, const std::vector<Csc32>& mats, bool ours, bool cpu) {
  spral_ssids_options o;
  api.default_options(&o);
  o.array_base = 1;
  o.ordering = 2;
  o.scaling = 3;
  o.print_level = -1;
  if (cpu) o.use_gpu = false;
  std::vector<Step> steps;
  void *akeep = nullptr, *fkeep = nullptr;
  for (const Csc32& c : mats) {
    Step st;
    spral_ssids_inform inf;
    std::memset(&inf, 0, sizeof inf);
    api.free_both(&akeep, &fkeep);
    double t0 = now();
    api.analyse_ptr32(false, c.n, nullptr, c.ptr.data(), c.row.data(), c.val.data(), &akeep, &o, &inf);
    st.analyse = now() - t0;
    st.flag = inf.flag;
    if (ours) st.reuse = reuse_name(ssids::detail::last_cached_reuse());
    if (inf.flag < 0) {
      steps.push_back(st);
      continue;
    }
    t0 = now();
    api.factor_ptr32(false, c.ptr.data(), c.row.data(), c.val.data(), nullptr, akeep, &fkeep, &o, &inf);
    st.factor = now() - t0;
    st.delays = inf.num_delay;
    st.neg = inf.num_neg;
    if (inf.flag < 0) st.flag = inf.flag;
    std::vector<double> x(static_cast<size_t>(c.n), 0.0);  // b = A 1 (lower triangle, 1-based)
    for (int j = 0; j < c.n; ++j)
      for (int k = c.ptr[j] - 1; k < c.ptr[j + 1] - 1; ++k) {
        const int i = c.row[k] - 1;
        x[i] += c.val[k];
        if (i != j) x[j] += c.val[k];
      }
    t0 = now();
    if (inf.flag >= 0) api.solve1(0, x.data(), akeep, fkeep, &o, &inf);
    st.solve = now() - t0;
    steps.push_back(st);
  }
  api.free_both(&akeep, &fkeep);
  return steps;
}

bool run_ipm(const Config& cfg, Spral* spral, const std::string& spec) {
  int nvar = 0, ncon = 0, iters = 0;
  unsigned long long seed = 1;
  if (std::sscanf(spec.c_str(), "%d:%d:%d:%llu", &nvar, &ncon, &iters, &seed) < 3 || iters < 1) {
    std::fprintf(stderr, "bench_analyse: --ipm NVAR:NCON:ITERS[:SEED], got %s\n", spec.c_str());
    return false;
  }
  std::vector<Csc32> mats;
  for (int t = 0; t < iters; ++t) mats.push_back(to_csc32(ssids::generate_kkt_ipm(nvar, ncon, t, seed)));
  const CApi ours{spral_ssids_default_options, spral_ssids_analyse_ptr32, spral_ssids_factor_ptr32, spral_ssids_solve1,
                  spral_ssids_free};
  // R rounds; in each, the whole sequence through ours, then through SPRAL (one library's threads at a time)
  std::vector<std::vector<Step>> rounds_ours, rounds_spral;
  for (int r = 0; r < cfg.repeat; ++r) {
    ssids::detail::clear_analysis_cache();  // every round starts without cached analyses
    rounds_ours.push_back(run_sequence(ours, mats, true, cfg.cpu));
    if (spral) {
      const CApi sp{spral->default_options, spral->analyse_ptr32, spral->factor_ptr32, spral->solve1, spral->free_both};
      spral->enter();
      rounds_spral.push_back(run_sequence(sp, mats, false, cfg.cpu));
      spral->leave();
    }
  }
  auto med = [](const std::vector<std::vector<Step>>& rounds, int t, double Step::*f) {
    std::vector<double> v;
    for (const auto& r : rounds) v.push_back(r[t].*f);
    return median(v);
  };
  std::printf("\n# --ipm %s: n = %d, %d iterations, ordering 2 + scaling 3 through spral_ssids_analyse_ptr32 / "
              "factor_ptr32 / solve1, handles freed before every analyse; medians of %d rounds; cache %s, reuse %s\n",
              spec.c_str(), nvar + ncon, iters, cfg.repeat, cfg.no_cache ? "off" : "on",
              ssids::detail::matching_reuse() == ssids::detail::MatchingReuse::exact ? "exact" : "keep_compatible");
  std::printf("%4s | %8s %8s %8s %6s %5s %6s | %8s %8s %8s %6s %5s\n", "iter", "analyse", "factor", "solve", "delays",
              "neg", "reuse", "SPRAL an", "factor", "solve", "delays", "neg");
  // one library's iteration t: medians over the rounds, added to its totals; the first round's counts
  struct Totals {
    double all = 0, analyse = 0;
    long delays = 0;
  } ours_tot, spral_tot;
  auto take = [&](const std::vector<std::vector<Step>>& rounds, int t, Totals& tot) {
    const Step& first = rounds[0][t];
    const double a = med(rounds, t, &Step::analyse), f = med(rounds, t, &Step::factor), s = med(rounds, t, &Step::solve);
    tot.all += a + f + s;
    tot.analyse += a;
    tot.delays += first.delays;
    std::printf(" %8.4f %8.4f %8.4f %6d %5d", a, f, s, first.delays, first.neg);
    return first;
  };
  bool ok = true;
  for (int t = 0; t < iters; ++t) {
    std::printf("%4d |", t);
    const Step o0 = take(rounds_ours, t, ours_tot);
    ok &= o0.flag >= 0 && o0.neg == ncon;
    std::printf(" %6s |", o0.reuse);
    if (spral) take(rounds_spral, t, spral_tot);
    std::printf("\n");
  }
  const double tot_ours = ours_tot.all, an_ours = ours_tot.analyse, tot_spral = spral_tot.all,
               an_spral = spral_tot.analyse;
  const long del_ours = ours_tot.delays, del_spral = spral_tot.delays;
  std::printf("total: ours %.3f s (analyse %.3f s, %ld delays)", tot_ours, an_ours, del_ours);
  if (spral)
    std::printf(", SPRAL %.3f s (analyse %.3f s, %ld delays), ratio %.2f (analyse %.2f)", tot_spral, an_spral,
                del_spral, tot_ours / tot_spral, an_ours / an_spral);
  std::printf("%s\n", ok ? "" : "  [WRONG INERTIA OR ERROR]");
  return ok;
}

void usage() {
  std::fprintf(stderr,
               "usage: bench_analyse [--threads T] [--repeat R] [--ordering metis|matching|both] [--spral PATH]\n"
               "                     [--check-threads T1,T2,...] [--ipm NVAR:NCON:ITERS[:SEED]]... [--cpu]\n"
               "                     [--exact-reuse] [--no-cache] [--backend cpu|gpu|auto] [SPEC...]\n"
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
    } else if (arg == "--ipm") {
      cfg.ipm.push_back(value());
    } else if (arg == "--cpu") {
      cfg.cpu = true;
    } else if (arg == "--backend") {
      const std::string v = value();
      if (v == "cpu") cfg.backend = ssids::Backend::cpu;
      else if (v == "gpu") cfg.backend = ssids::Backend::gpu;
      else if (v == "auto") cfg.backend = ssids::Backend::automatic;
      else {
        usage();
        return 2;
      }
    } else if (arg == "--exact-reuse") {
      cfg.exact = true;
    } else if (arg == "--no-cache") {
      cfg.no_cache = true;
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
  if (cfg.specs.empty() && cfg.ipm.empty()) {
    usage();
    return 2;
  }
  if (cfg.exact) ssids::detail::set_matching_reuse(ssids::detail::MatchingReuse::exact);
  if (cfg.no_cache) ssids::detail::set_analysis_cache_limits(0, 0);
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
  if (!cfg.specs.empty() && cfg.check_threads.empty()) {
    std::printf("%-28s %-5s %8s", "problem", "ord", "total");
    for (int c = 0; c < kNumColumns; ++c) std::printf(" %7s", kShort[c]);
    std::printf(" %7s\n", "other");
  }
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
        const OursResult r = time_ours(a, ord, cfg.repeat, cfg.backend);
        std::printf("%-28s %-5s %8.4f", name.c_str(), matching ? "match" : "metis", r.total);
        for (double p : r.phase) std::printf(" %7.4f", p);
        std::printf("\n");
        std::fflush(stdout);
        char line[512];
        if (have_spral) {
          const SpralResult s = time_spral(spral, c, matching ? 2 : 1, cfg.repeat);
          if (s.ok)
            std::snprintf(line, sizeof line, "%-28s %8d %-7s %8.4f %8.4f %6.2f %11.4g %11.4g %10.4g %10.4g",
                          name.c_str(), a.n, r.kind, r.total, s.total, r.total / s.total,
                          static_cast<double>(r.nnz_l), static_cast<double>(s.nnz_l), static_cast<double>(r.flops),
                          static_cast<double>(s.flops));
          else
            std::snprintf(line, sizeof line, "%-28s %8d %-7s %8.4f  SPRAL flag %d", name.c_str(), a.n, r.kind,
                          r.total, s.flag);
        } else {
          std::snprintf(line, sizeof line, "%-28s %8d %-7s %8.4f %8s %6s %11.4g %11s %10.4g", name.c_str(), a.n,
                        r.kind, r.total, "-", "-", static_cast<double>(r.nnz_l), "-",
                        static_cast<double>(r.flops));
        }
        summary.push_back(line);
      }
    } catch (const std::exception& e) {
      std::printf("%-28s error: %s\n", name.c_str(), e.what());
      failed = true;
    }
  }
  for (const std::string& spec : cfg.ipm) failed |= !run_ipm(cfg, have_spral ? &spral : nullptr, spec);
  if (!summary.empty()) {
    std::printf("\n%-28s %8s %-7s %8s %8s %6s %11s %11s %10s %10s\n", "problem", "n", "ord", "ours", "SPRAL", "ratio",
                "nnz(L)", "SPRAL nnzL", "flops", "SPRAL flop");
    for (const std::string& s : summary) std::printf("%s\n", s.c_str());
  }
  return failed ? 1 : 0;
}
