// harness.cpp — scripts, runs and comparisons of the differential tests (see harness.hpp).
#include "spral_diff/harness.hpp"

#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "support.hpp"

namespace spral_diff {

namespace {

std::string hex(double v) {
  char buf[40];
  std::snprintf(buf, sizeof buf, "%a", v);
  return buf;
}

template <class T, class F>
std::string join(const std::vector<T>& v, F&& fmt) {
  std::string s;
  for (const T& x : v) {
    s += ' ';
    s += fmt(x);
  }
  return s;
}

}  // namespace

// ---- Script ----

Script& Script::csc(const ssids::SymmetricMatrix& a, int base) {
  std::vector<long long> ptr(a.ptr.begin(), a.ptr.end()), row(a.row.begin(), a.row.end());
  for (auto& p : ptr) p += base;
  for (auto& r : row) r += base;
  set_int("ptr", ptr);
  set_int("row", row);
  return set("val", std::vector<double>(a.val.begin(), a.val.end()));
}

Script& Script::coord(const ssids::SymmetricMatrix& a, int base) {
  std::vector<long long> row, col;
  for (int j = 0; j < a.n; ++j)
    for (auto k = a.ptr[j]; k < a.ptr[j + 1]; ++k) {
      row.push_back(a.row[k] + base);
      col.push_back(j + base);
    }
  set_int("row", row);
  set_int("col", col);
  return set("val", std::vector<double>(a.val.begin(), a.val.end()));
}

Script& Script::set(const std::string& name, const std::vector<double>& v) {
  text_ += "set " + name + join(v, hex) + "\n";
  return *this;
}

Script& Script::set_int(const std::string& name, const std::vector<long long>& v) {
  text_ += "set " + name + join(v, [](long long x) { return std::to_string(x); }) + "\n";
  return *this;
}

Script& Script::unset(const std::string& name) {
  text_ += "unset " + name + "\n";
  return *this;
}

Script& Script::opt(const std::string& field, double value) {
  text_ += "opt " + field + " " + (field == "small" || field == "u" ? hex(value) : std::to_string((long long)value)) +
           "\n";
  return *this;
}

Script& Script::handle_null(const std::string& which) {
  text_ += "handle " + which + " null\n";
  return *this;
}

Script& Script::call(const std::string& line, const Expect& e) {
  text_ += line + "\n";
  expects_.push_back(e);
  return *this;
}

// ---- running ----

std::string spral_library() {
  const char* env = std::getenv("SSIDS_SPRAL_LIB");
  if (!env || !*env) {
    ssids_test::skip("SSIDS_SPRAL_LIB is not set (path of SPRAL 2025.09.18's libspral.so; .ci/run sets it)");
    return {};
  }
  if (!std::filesystem::is_regular_file(env)) {
    ssids_test::skip(std::string("SSIDS_SPRAL_LIB=") + env + " is not a file");
    return {};
  }
  if (our_library().empty()) {
    ssids_test::skip("this build has no shared libssids to load (BUILD_SHARED_LIBS=OFF)");
    return {};
  }
  return env;
}

std::string our_library() {
  const std::string lib = SSIDS_LIBRARY_FILE;
  return lib.find(".so") != std::string::npos ? lib : std::string();
}

Trace run(const Script& script, const std::string& library, bool is_spral) {
  static int counter = 0;
  const std::string tag = std::to_string(counter++) + (is_spral ? "_spral" : "_ours");
  const std::string script_file = ssids_test::scratch("script_" + tag + ".txt");
  const std::string out_file = ssids_test::scratch("trace_" + tag + ".txt");
  {
    std::ofstream f(script_file);
    f << script.text();
  }
  std::string env;
  if (is_spral) {
    const std::string dir = std::filesystem::path(library).parent_path().string();
    const char* old = std::getenv("LD_LIBRARY_PATH");
    env = "LD_LIBRARY_PATH=" + ssids_test::quote(dir + (old && *old ? std::string(":") + old : std::string())) +
          " OMP_CANCELLATION=TRUE OMP_PROC_BIND=TRUE ";
  }
  Trace t;
  // a hang of either library fails the test instead of blocking the suite
  t.status = ssids_test::run_command(env + "timeout -k 5 120 " + ssids_test::quote(SSIDS_SPRAL_DIFF_RUNNER) + " " +
                                         ssids_test::quote(library) + " " + ssids_test::quote(script_file) + " " +
                                         ssids_test::quote(out_file),
                                     t.log);
  std::ifstream in(out_file);
  std::string line;
  while (std::getline(in, line)) {
    std::istringstream ls(line);
    std::string kind;
    ls >> kind;
    if (kind == "END") {
      t.completed = true;
    } else if (kind == "R") {
      Record r;
      int seq = 0;
      ls >> seq >> r.verb;
      std::string kv;
      while (ls >> kv) {
        const auto eq = kv.find('=');
        if (eq != std::string::npos) r.fields[kv.substr(0, eq)] = kv.substr(eq + 1);
      }
      if (seq >= 1) {
        if (t.calls.size() < static_cast<size_t>(seq)) t.calls.resize(seq);
        t.calls[seq - 1] = std::move(r);
      }
    } else if (kind == "A") {
      int seq = 0;
      std::string name;
      size_t count = 0;
      ls >> seq >> name >> count;
      std::vector<double> v(count);
      std::string tok;
      for (size_t k = 0; k < count && ls >> tok; ++k) v[k] = std::strtod(tok.c_str(), nullptr);
      if (seq >= 1 && t.calls.size() >= static_cast<size_t>(seq)) t.calls[seq - 1].arrays[name] = std::move(v);
    }
  }
  return t;
}

long long field(const Record& r, const std::string& name) {
  auto it = r.fields.find(name);
  return it == r.fields.end() ? -999999 : std::strtoll(it->second.c_str(), nullptr, 10);
}

ssids::SymmetricMatrix doc_matrix() {
  ssids::SymmetricMatrix a;
  a.n = 5;
  a.ptr = {0, 2, 5, 7, 8, 9};
  a.row = {0, 1, 1, 2, 4, 2, 3, 3, 4};
  a.val = {2.0, 1.0, 4.0, 1.0, 1.0, 3.0, 2.0, -1.0, 2.0};
  return a;
}

Expect indefinite(const std::string& reason) {
  Expect e;
  e.reason = reason;
  return e;
}

// ---- comparison ----

namespace {

double max_abs(const std::vector<double>& v) {
  double m = 0.0;
  for (double x : v) m = std::max(m, std::fabs(x));
  return m;
}

/// Relative max-norm distance of two arrays (infinite when the sizes differ).
double rel_diff(const std::vector<double>& a, const std::vector<double>& b) {
  if (a.size() != b.size()) return INFINITY;
  double d = 0.0;
  for (size_t k = 0; k < a.size(); ++k) d = std::max(d, std::fabs(a[k] - b[k]));
  const double scale = std::max(max_abs(b), 1e-300);
  return d / scale;
}

/// A permutation of 0..n-1 shifted by `base` where every entry is nonzero in magnitude... order output:
/// entries in [base, n - 1 + base], all distinct.
bool is_permutation(const std::vector<double>& v, int base) {
  std::vector<char> seen(v.size(), 0);
  for (double x : v) {
    const long long k = static_cast<long long>(x) - base;
    if (k < 0 || k >= static_cast<long long>(v.size()) || seen[k]) return false;
    seen[k] = 1;
  }
  return true;
}

}  // namespace

std::vector<std::string> compare(const Script& script, const Trace& ours, const Trace& spral) {
  std::vector<std::string> out;
  const auto& ex = script.expects();
  // a call where SPRAL is expected to crash: its trace must stop right there, ours must report the flag
  for (size_t k = 0; k < ex.size(); ++k) {
    if (!ex[k].spral_crashes) continue;
    if (spral.completed || spral.calls.size() != k)
      out.push_back("call " + std::to_string(k + 1) + ": SPRAL was expected to crash here (its trace has " +
                    std::to_string(spral.calls.size()) + " calls, completed " + std::to_string(spral.completed) + ")");
    if (ours.calls.size() <= k || field(ours.calls[k], "flag") != ex[k].ours_flag)
      out.push_back("call " + std::to_string(k + 1) + ": our flag is not " + std::to_string(ex[k].ours_flag) +
                    " where SPRAL crashes");
    Script head;  // compare what came before
    for (size_t j = 0; j < k; ++j) head.expects_.push_back(ex[j]);
    Trace a = ours, b = spral;
    a.calls.resize(std::min(a.calls.size(), k));
    b.calls.resize(std::min(b.calls.size(), k));
    a.completed = b.completed = true;
    for (auto& d : compare(head, a, b)) out.push_back(d);
    return out;
  }
  if (!spral.completed)
    out.push_back("SPRAL's run did not complete (status " + std::to_string(spral.status) + "): " + spral.log);
  if (!ours.completed)
    out.push_back("our run did not complete (status " + std::to_string(ours.status) + "): " + ours.log);
  const size_t ncalls = std::min({ex.size(), ours.calls.size(), spral.calls.size()});
  if (ours.completed && spral.completed && (ours.calls.size() != ex.size() || spral.calls.size() != ex.size()))
    out.push_back("call counts differ: script " + std::to_string(ex.size()) + ", ours " +
                  std::to_string(ours.calls.size()) + ", SPRAL " + std::to_string(spral.calls.size()));
  // structural agreement at analyse carries over to factor and solve with the same handle
  bool tree_equal_so_far = true;
  for (size_t k = 0; k < ncalls; ++k) {
    const Record& a = ours.calls[k];
    const Record& b = spral.calls[k];
    const Expect& e = ex[k];
    const std::string where = "call " + std::to_string(k + 1) + " (" + b.verb + ")";
    auto differ = [&](const std::string& f, const std::string& why) {
      out.push_back(where + ": " + f + " ours " + (a.fields.count(f) ? a.fields.at(f) : "?") + ", SPRAL " +
                    (b.fields.count(f) ? b.fields.at(f) : "?") + " (" + why + ")" +
                    (e.reason.empty() ? "" : "; scenario: " + e.reason));
    };
    auto require_equal = [&](const std::string& f, const std::string& why) {
      if (a.fields.count(f) != b.fields.count(f) || (a.fields.count(f) && a.fields.at(f) != b.fields.at(f)))
        differ(f, why);
    };
    if (a.verb != b.verb) out.push_back(where + ": verbs differ: ours " + a.verb);
    if (e.ours_rejects) {
      if (field(a, "flag") != e.ours_flag)
        out.push_back(where + ": our flag is " + a.fields.at("flag") + ", not " + std::to_string(e.ours_flag));
      continue;
    }
    // always equal: status, input checks, handles
    for (const char* f : {"flag", "matrix_dup", "matrix_outrange", "matrix_missing_diag", "stat", "cuda_error",
                          "cublas_error", "akeep_null", "fkeep_null", "rc", "value"})
      require_equal(f, "always equal");
    if (b.verb.rfind("default_options", 0) == 0) {
      for (const auto& [f, v] : b.fields) require_equal(f, "defaults are SPRAL's");
      continue;
    }
    if (!b.fields.count("num_sup")) continue;  // free, version
    if (b.verb == "analyse") tree_equal_so_far = e.same_tree;
    const bool delays = field(a, "num_delay") != 0 || field(b, "num_delay") != 0;
    if (e.same_tree && tree_equal_so_far) {
      for (const char* f : {"num_sup", "maxdepth"}) require_equal(f, "same pivot order and nemin: SPRAL's tree");
      if (!delays)
        for (const char* f : {"maxfront", "maxsupernode", "num_factor", "num_flops"})
          require_equal(f, "same tree, no delayed pivot on either side");
    }
    if (e.same_inertia)
      for (const char* f : {"matrix_rank", "num_neg"}) require_equal(f, "inertia and rank of the matrix itself");
    if (e.same_pivots)
      for (const char* f : {"num_two", "num_delay"}) require_equal(f, "no pivoting choice in this scenario");
    // arrays, where the call succeeded (on errors SPRAL leaves some output arrays rewritten, e.g. enquire_indef's
    // piv_order as |p| - 1 with C indexing: their contents are unspecified)
    if (field(a, "flag") < 0 || field(b, "flag") < 0) continue;
    for (const auto& [name, vb] : b.arrays) {
      auto it = a.arrays.find(name);
      if (it == a.arrays.end()) {
        out.push_back(where + ": array " + name + " missing in our trace");
        continue;
      }
      const std::vector<double>& va = it->second;
      if (name == "x") {
        // job 0 is compared; partial solves (they apply the factors themselves) only when those are unique
        const bool compared = field(b, "job") == 0 ? e.x_tol >= 0 : e.same_factors;
        if (compared && field(b, "flag") >= 0) {
          const double d = rel_diff(va, vb);
          if (d > std::max(e.x_tol, 0.0))
            out.push_back(where + ": x differs by " + std::to_string(d) + " relative (job " +
                          std::to_string(field(b, "job")) + ")");
        }
      } else if (name == "order") {
        if (e.same_order) {
          if (va != vb) out.push_back(where + ": order differs");
        } else if (va.size() == vb.size() && field(b, "flag") >= 0 && !va.empty()) {
          const int base = static_cast<int>(*std::min_element(vb.begin(), vb.end()) > 0 ? 1 : 0);
          if (is_permutation(vb, base) && !is_permutation(va, base))
            out.push_back(where + ": our order is not a permutation");
        }
      } else if (name == "scale") {
        if (e.same_scale && rel_diff(va, vb) > 1e-12) out.push_back(where + ": scale differs");
      } else if (e.same_factors) {
        if (rel_diff(va, vb) > std::max(e.x_tol, 0.0)) out.push_back(where + ": " + name + " differs");
      }
    }
  }
  return out;
}

bool check_same(const Script& script, Trace* ours_out, Trace* spral_out) {
  const std::string spral_lib = spral_library();
  if (spral_lib.empty()) return false;
  const Trace ours = run(script, our_library(), false);
  const Trace spral = run(script, spral_lib, true);
  const std::vector<std::string> diffs = compare(script, ours, spral);
  CHECK(diffs.empty());
  if (!diffs.empty()) {
    std::string all;
    for (const auto& d : diffs) all += "  " + d + "\n";
    auto dump = [](const Trace& t) {
      std::string s;
      for (size_t k = 0; k < t.calls.size(); ++k) {
        s += "    " + std::to_string(k + 1) + " " + t.calls[k].verb;
        for (const auto& [f, v] : t.calls[k].fields) s += " " + f + "=" + v;
        s += "\n";
      }
      return s;
    };
    FAIL_CHECK("differences from SPRAL:\n" << all << "  our trace:\n" << dump(ours) << "  SPRAL's trace:\n"
                                           << dump(spral));
  }
  if (ours_out) *ours_out = ours;
  if (spral_out) *spral_out = spral;
  return true;
}

}  // namespace spral_diff
