// runner.cpp — executes one call script against one SPRAL-compatible library and records what every call
// leaves behind, for the differential tests (tests/test_spral_diff.cpp explains the design).
//
//   spral_diff_runner LIBRARY SCRIPT OUTPUT
//
// LIBRARY is dlopen()ed with RTLD_LOCAL in this process, which links no SSIDS implementation itself, so the
// 17 entry points are that library's and nobody else's. The runner is deliberately dumb: it holds the
// arrays the script sets, makes the calls the script names with exactly those arguments, and writes after
// every call the whole inform struct, the return value and every output array, doubles in hexadecimal
// (exact). Handles are released only where the script says so (SPRAL may crash freeing handles that a
// failed call left inconsistent; the process exit releases everything). One inform struct lives through
// the whole script, as in a real caller (IPOPT reuses its own), filled once with a byte pattern, so that a
// field a call leaves untouched shows as such.
//
// Script: one command per line, '#' starts a comment.
//   set NAME v...        arrays: ptr row col (integers) val scale x d (doubles, any strtod form)
//   unset NAME           the array becomes NULL in later calls
//   opt defaults         spral_ssids_default_options(&options), then records every option field
//   opt FIELD VALUE      array_base print_level ordering nemin use_gpu scaling action pivot_method small u
//                        ignore_numa min_gpu_work cpu_block_size
//   handle NAME null     akeep or fkeep set to NULL without freeing (a caller's fresh handle)
//   analyse form=ptr64|ptr32|coord|topology n=N [ne=NE] [check=0|1] [order=0|1]
//   factor form=ptr64|ptr32 posdef=0|1 [ptr=0|1] [scale=0|1] [val=0|1]
//   solve1 job=J         x in place (x must hold n values)
//   solve job=J nrhs=K ldx=L
//   enquire_posdef       d receives n values
//   enquire_indef [piv=0|1] [d=0|1]
//   alter                d holds 2n values
//   free_akeep | free_fkeep | free
//   version
// Arrays named by a call are passed when set (order: the `order` array, also an output); "ptr=0" etc. pass
// NULL instead. Output: "R SEQ VERB field=value ..." per call, then "A SEQ NAME COUNT v..." per output
// array; the file is flushed after every call, so a crash of the library shows where it happened.
#include <dlfcn.h>

#include <cinttypes>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include <spral_ssids.h>

namespace {

/// The entry points, looked up by name in the loaded library (types from the shared header).
struct Api {
  decltype(&spral_ssids_default_options) default_options;
  decltype(&spral_ssids_analyse) analyse;
  decltype(&spral_ssids_analyse_ptr32) analyse_ptr32;
  decltype(&spral_ssids_analyse_coord) analyse_coord;
  decltype(&spral_ssids_analyse_topology) analyse_topology;
  decltype(&spral_ssids_factor) factor;
  decltype(&spral_ssids_factor_ptr32) factor_ptr32;
  decltype(&spral_ssids_solve1) solve1;
  decltype(&spral_ssids_solve) solve;
  decltype(&spral_ssids_free_akeep) free_akeep;
  decltype(&spral_ssids_free_fkeep) free_fkeep;
  decltype(&spral_ssids_free) free;
  decltype(&spral_ssids_enquire_posdef) enquire_posdef;
  decltype(&spral_ssids_enquire_indef) enquire_indef;
  decltype(&spral_ssids_alter) alter;
  void (*version)(char*);
};

template <class F>
bool bind(void* lib, const char* name, F& f) {
  f = reinterpret_cast<F>(dlsym(lib, name));
  if (!f) std::fprintf(stderr, "runner: %s not found: %s\n", name, dlerror());
  return f != nullptr;
}

bool load(const char* path, Api& api) {
  void* lib = dlopen(path, RTLD_NOW | RTLD_LOCAL);
  if (!lib) {
    std::fprintf(stderr, "runner: dlopen(%s): %s\n", path, dlerror());
    return false;
  }
  return bind(lib, "spral_ssids_default_options", api.default_options) &&
         bind(lib, "spral_ssids_analyse", api.analyse) &&
         bind(lib, "spral_ssids_analyse_ptr32", api.analyse_ptr32) &&
         bind(lib, "spral_ssids_analyse_coord", api.analyse_coord) &&
         bind(lib, "spral_ssids_analyse_topology", api.analyse_topology) &&
         bind(lib, "spral_ssids_factor", api.factor) &&
         bind(lib, "spral_ssids_factor_ptr32", api.factor_ptr32) && bind(lib, "spral_ssids_solve1", api.solve1) &&
         bind(lib, "spral_ssids_solve", api.solve) && bind(lib, "spral_ssids_free_akeep", api.free_akeep) &&
         bind(lib, "spral_ssids_free_fkeep", api.free_fkeep) && bind(lib, "spral_ssids_free", api.free) &&
         bind(lib, "spral_ssids_enquire_posdef", api.enquire_posdef) &&
         bind(lib, "spral_ssids_enquire_indef", api.enquire_indef) && bind(lib, "spral_ssids_alter", api.alter) &&
         bind(lib, "get_spral_version", api.version);
}

/// One script line: the verb, key=value arguments, and the remaining plain tokens.
struct Command {
  std::string verb;
  std::map<std::string, std::string> kv;
  std::vector<std::string> words;
  long get(const std::string& key, long fallback) const {
    auto it = kv.find(key);
    return it == kv.end() ? fallback : std::strtol(it->second.c_str(), nullptr, 10);
  }
};

Command parse(const std::string& line) {
  Command c;
  std::istringstream in(line);
  std::string tok;
  in >> c.verb;
  while (in >> tok) {
    const auto eq = tok.find('=');
    if (eq != std::string::npos && eq > 0) c.kv[tok.substr(0, eq)] = tok.substr(eq + 1);
    else c.words.push_back(tok);
  }
  return c;
}

class Runner {
 public:
  Runner(const Api& api, std::FILE* out) : api_(api), out_(out) {
    std::memset(&inform_, 0x5a, sizeof(inform_));  // a field no call writes keeps this pattern
    api_.default_options(&options_);
  }

  bool run(const Command& c) {
    const std::string& v = c.verb;
    if (v == "set") return set_array(c);
    if (v == "unset") return unset_array(c);
    if (v == "opt") return set_option(c);
    if (v == "handle") return set_handle(c);
    ++seq_;
    if (v == "analyse") analyse(c);
    else if (v == "factor") factor(c);
    else if (v == "solve1") {
      const int job = static_cast<int>(c.get("job", 0));
      api_.solve1(job, ptr_or_null(x_), akeep_, fkeep_, &options_, &inform_);
      record(v, {{"x", x_}}, {}, " job=" + std::to_string(job));
    } else if (v == "solve") {
      const int job = static_cast<int>(c.get("job", 0));
      api_.solve(job, static_cast<int>(c.get("nrhs", 1)), ptr_or_null(x_), static_cast<int>(c.get("ldx", n_)), akeep_,
                 fkeep_, &options_, &inform_);
      record(v, {{"x", x_}}, {}, " job=" + std::to_string(job));
    } else if (v == "enquire_posdef") {
      std::vector<double> d(static_cast<size_t>(n_), sentinel());
      api_.enquire_posdef(akeep_, fkeep_, &options_, &inform_, d.data());
      record(v, {{"d", d}});
    } else if (v == "enquire_indef") {
      std::vector<int> piv(static_cast<size_t>(n_), -777777);
      std::vector<double> d(2 * static_cast<size_t>(n_), sentinel());
      const bool want_piv = c.get("piv", 1) != 0, want_d = c.get("d", 1) != 0;
      api_.enquire_indef(akeep_, fkeep_, &options_, &inform_, want_piv ? piv.data() : nullptr,
                         want_d ? d.data() : nullptr);
      record(v, {{"d", want_d ? d : std::vector<double>()}}, {{"piv_order", want_piv ? piv : std::vector<int>()}});
    } else if (v == "alter") {
      api_.alter(ptr_or_null(d_), akeep_, fkeep_, &options_, &inform_);
      record(v);
    } else if (v == "free_akeep" || v == "free_fkeep" || v == "free") {
      const int rc = v == "free_akeep" ? api_.free_akeep(&akeep_)
                     : v == "free_fkeep" ? api_.free_fkeep(&fkeep_)
                                         : api_.free(&akeep_, &fkeep_);
      std::fprintf(out_, "R %d %s rc=%d akeep_null=%d fkeep_null=%d\n", seq_, v.c_str(), rc, akeep_ == nullptr,
                   fkeep_ == nullptr);
    } else if (v == "version") {
      char buf[11];
      std::memset(buf, 0, sizeof(buf));
      api_.version(buf);
      std::fprintf(out_, "R %d version value=%.10s\n", seq_, buf);
    } else {
      std::fprintf(stderr, "runner: unknown command '%s'\n", v.c_str());
      return false;
    }
    std::fflush(out_);
    return true;
  }

 private:
  static double sentinel() { return -7.77e77; }  // an output entry a call did not write keeps this value
  template <class T>
  static T* ptr_or_null(std::vector<T>& a) { return a.empty() ? nullptr : a.data(); }

  void analyse(const Command& c) {
    const std::string form = c.kv.count("form") ? c.kv.at("form") : "ptr64";
    n_ = static_cast<int>(c.get("n", n_));
    const bool check = c.get("check", 1) != 0;
    int* order = c.get("order", 1) ? ptr_or_null(order_) : nullptr;
    const double* val = c.get("val", 1) ? ptr_or_null(val_) : nullptr;
    const int* row = c.get("row", 1) ? ptr_or_null(row_) : nullptr;
    std::vector<int64_t> p64(ptr_.begin(), ptr_.end());
    std::vector<int> p32(ptr_.begin(), ptr_.end());
    const bool with_ptr = c.get("ptr", 1) != 0 && !ptr_.empty();
    if (form == "ptr64" || form == "topology") {
      const int64_t* p = with_ptr ? p64.data() : nullptr;
      if (form == "ptr64") api_.analyse(check, n_, order, p, row, val, &akeep_, &options_, &inform_);
      else {  // one region of two processors, no GPU (SPRAL hangs or crashes on an empty topology)
        spral_numa_region region{2, 0, nullptr};
        api_.analyse_topology(check, n_, order, p, row, val, &akeep_, &options_, &inform_, 1, &region);
      }
    } else if (form == "ptr32") {
      api_.analyse_ptr32(check, n_, order, with_ptr ? p32.data() : nullptr, row, val, &akeep_, &options_, &inform_);
    } else {
      const int64_t ne = c.get("ne", static_cast<long>(row_.size()));
      api_.analyse_coord(n_, order, ne, row, ptr_or_null(col_), val, &akeep_, &options_, &inform_);
    }
    record("analyse", {}, {{"order", order ? order_ : std::vector<int>()}});
  }

  void factor(const Command& c) {
    const bool posdef = c.get("posdef", 0) != 0;
    const int* row = c.get("ptr", 1) ? ptr_or_null(row_) : nullptr;
    const double* val = c.get("val", 1) ? ptr_or_null(val_) : nullptr;
    double* scale = c.get("scale", 1) ? ptr_or_null(scale_) : nullptr;
    std::vector<int64_t> p64(ptr_.begin(), ptr_.end());
    std::vector<int> p32(ptr_.begin(), ptr_.end());
    const bool with_ptr = c.get("ptr", 1) != 0 && !ptr_.empty();
    if (c.kv.count("form") && c.kv.at("form") == "ptr32")
      api_.factor_ptr32(posdef, with_ptr ? p32.data() : nullptr, row, val, scale, akeep_, &fkeep_, &options_, &inform_);
    else
      api_.factor(posdef, with_ptr ? p64.data() : nullptr, row, val, scale, akeep_, &fkeep_, &options_, &inform_);
    record("factor", {{"scale", scale ? scale_ : std::vector<double>()}});
  }

  void record(const std::string& verb, const std::vector<std::pair<std::string, std::vector<double>>>& dbl = {},
              const std::vector<std::pair<std::string, std::vector<int>>>& ints = {}, const std::string& extra = "") {
    const spral_ssids_inform& f = inform_;
    std::fprintf(out_,
                 "R %d %s flag=%d matrix_dup=%d matrix_missing_diag=%d matrix_outrange=%d matrix_rank=%d "
                 "maxdepth=%d maxfront=%d num_delay=%d num_factor=%" PRId64 " num_flops=%" PRId64
                 " num_neg=%d num_sup=%d num_two=%d stat=%d cuda_error=%d cublas_error=%d maxsupernode=%d "
                 "akeep_null=%d fkeep_null=%d%s\n",
                 seq_, verb.c_str(), f.flag, f.matrix_dup, f.matrix_missing_diag, f.matrix_outrange, f.matrix_rank,
                 f.maxdepth, f.maxfront, f.num_delay, f.num_factor, f.num_flops, f.num_neg, f.num_sup, f.num_two,
                 f.stat, f.cuda_error, f.cublas_error, f.maxsupernode, akeep_ == nullptr, fkeep_ == nullptr,
                 extra.c_str());
    for (const auto& [name, a] : dbl) {
      if (a.empty()) continue;
      std::fprintf(out_, "A %d %s %zu", seq_, name.c_str(), a.size());
      for (double x : a) std::fprintf(out_, " %a", x);
      std::fputc('\n', out_);
    }
    for (const auto& [name, a] : ints) {
      if (a.empty()) continue;
      std::fprintf(out_, "A %d %s %zu", seq_, name.c_str(), a.size());
      for (int x : a) std::fprintf(out_, " %d", x);
      std::fputc('\n', out_);
    }
  }

  bool set_array(const Command& c) {
    if (c.words.empty()) return false;
    const std::string& name = c.words[0];
    std::vector<double> v;
    for (size_t k = 1; k < c.words.size(); ++k) v.push_back(std::strtod(c.words[k].c_str(), nullptr));
    auto ints = [&](auto& dst) { dst.assign(v.begin(), v.end()); };
    if (name == "ptr") ints(ptr_);
    else if (name == "row") ints(row_);
    else if (name == "col") ints(col_);
    else if (name == "order") ints(order_);
    else if (name == "val") val_ = v;
    else if (name == "scale") scale_ = v;
    else if (name == "x") x_ = v;
    else if (name == "d") d_ = v;
    else return false;
    return true;
  }
  bool unset_array(const Command& c) {
    if (c.words.empty()) return false;
    return set_array(Command{"set", {}, {c.words[0]}});
  }

  bool set_option(const Command& c) {
    if (c.words.size() == 1 && c.words[0] == "defaults") {
      api_.default_options(&options_);
      ++seq_;
      const spral_ssids_options& o = options_;
      std::fprintf(out_,
                   "R %d default_options array_base=%d print_level=%d unit_diagnostics=%d unit_error=%d "
                   "unit_warning=%d ordering=%d nemin=%d ignore_numa=%d use_gpu=%d min_gpu_work=%" PRId64
                   " max_load_inbalance=%a gpu_perf_coeff=%a scaling=%d small_subtree_threshold=%" PRId64
                   " cpu_block_size=%d action=%d pivot_method=%d small=%a u=%a\n",
                   seq_, o.array_base, o.print_level, o.unit_diagnostics, o.unit_error, o.unit_warning, o.ordering,
                   o.nemin, o.ignore_numa, o.use_gpu, o.min_gpu_work, double(o.max_load_inbalance),
                   double(o.gpu_perf_coeff), o.scaling, o.small_subtree_threshold, o.cpu_block_size, o.action,
                   o.pivot_method, o.small, o.u);
      std::fflush(out_);
      return true;
    }
    if (c.words.size() != 2) return false;
    const std::string& f = c.words[0];
    const char* s = c.words[1].c_str();
    const long i = std::strtol(s, nullptr, 10);
    spral_ssids_options& o = options_;
    if (f == "array_base") o.array_base = int(i);
    else if (f == "print_level") o.print_level = int(i);
    else if (f == "ordering") o.ordering = int(i);
    else if (f == "nemin") o.nemin = int(i);
    else if (f == "use_gpu") o.use_gpu = i != 0;
    else if (f == "ignore_numa") o.ignore_numa = i != 0;
    else if (f == "min_gpu_work") o.min_gpu_work = i;
    else if (f == "scaling") o.scaling = int(i);
    else if (f == "action") o.action = i != 0;
    else if (f == "pivot_method") o.pivot_method = int(i);
    else if (f == "cpu_block_size") o.cpu_block_size = int(i);
    else if (f == "small") o.small = std::strtod(s, nullptr);
    else if (f == "u") o.u = std::strtod(s, nullptr);
    else return false;
    return true;
  }

  bool set_handle(const Command& c) {
    if (c.words.size() != 2 || c.words[1] != "null") return false;
    if (c.words[0] == "akeep") akeep_ = nullptr;
    else if (c.words[0] == "fkeep") fkeep_ = nullptr;
    else return false;
    return true;
  }

  const Api& api_;
  std::FILE* out_;
  spral_ssids_options options_{};
  spral_ssids_inform inform_{};
  void* akeep_ = nullptr;
  void* fkeep_ = nullptr;
  int n_ = 0, seq_ = 0;
  std::vector<int> ptr_, row_, col_, order_;
  std::vector<double> val_, scale_, x_, d_;
};

}  // namespace

int main(int argc, char** argv) {
  if (argc != 4) {
    std::fprintf(stderr, "usage: %s LIBRARY SCRIPT OUTPUT\n", argv[0]);
    return 2;
  }
  Api api{};
  if (!load(argv[1], api)) return 3;
  std::ifstream script(argv[2]);
  std::FILE* out = std::fopen(argv[3], "w");
  if (!script || !out) {
    std::fprintf(stderr, "runner: cannot open %s or %s\n", argv[2], argv[3]);
    return 2;
  }
  Runner runner(api, out);
  std::string line;
  int lineno = 0;
  while (std::getline(script, line)) {
    ++lineno;
    const auto hash = line.find('#');
    if (hash != std::string::npos) line.erase(hash);
    if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
    if (!runner.run(parse(line))) {
      std::fprintf(stderr, "runner: %s:%d: bad command: %s\n", argv[2], lineno, line.c_str());
      return 2;
    }
  }
  std::fprintf(out, "END\n");
  std::fclose(out);
  return 0;
}
