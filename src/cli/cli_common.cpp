// cli_common.cpp — argument parsing and JSON output for the `ssids` program.
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <sstream>

#include "cli/cli.hpp"

namespace ssids_cli {

std::string Range::text() const {
  char b[96];
  if (std::isinf(hi)) std::snprintf(b, sizeof b, ">= %g", lo);
  else std::snprintf(b, sizeof b, "in [%g, %g%s", lo, hi, hi_open ? ")" : "]");
  return b;
}

Args::Args(int argc, char** argv, int first, const std::vector<std::string>& flags) {
  std::vector<std::string> unknown_short;
  for (int i = first; i < argc; ++i) {
    std::string a = argv[i];
    if (a == "-h") a = "--help";
    if (a == "-o") a = "--output";
    if (a.size() > 2 && a.compare(0, 2, "--") == 0) {
      std::string key = a, value;
      auto eq = a.find('=');
      if (eq != std::string::npos) {
        key = a.substr(0, eq);
        value = a.substr(eq + 1);
      } else {
        bool is_flag = false;
        for (const auto& f : flags) is_flag = is_flag || f == a;
        if (!is_flag) {
          if (i + 1 >= argc) {
            missing_value_ = a;  // reported by check_known, after unknown options
            continue;
          }
          value = argv[++i];
        }
      }
      values_[key] = value;
    } else if (a.size() > 1 && a[0] == '-') {
      values_[a] = "";  // a short option other than -h/-o: reported as unknown by check_known
    } else {
      positional_.push_back(a);
    }
  }
}

std::string Args::get(const std::string& key, const std::string& fallback) const {
  auto it = values_.find(key);
  return it == values_.end() ? fallback : it->second;
}

long Args::get_long(const std::string& key, long fallback, long lo, long hi) const {
  auto it = values_.find(key);
  if (it == values_.end()) return fallback;
  char* end = nullptr;
  errno = 0;
  long v = std::strtol(it->second.c_str(), &end, 10);
  if (it->second.empty() || *end != '\0') throw UsageError{key + " needs an integer, got '" + it->second + "'"};
  if (errno == ERANGE || v < lo || v > hi)
    throw UsageError{key + " must be between " + std::to_string(lo) + " and " + std::to_string(hi) + ", got " +
                     it->second};
  return v;
}

double Args::get_double(const std::string& key, double fallback, const Range& range) const {
  auto it = values_.find(key);
  if (it == values_.end()) return fallback;
  char* end = nullptr;
  double v = std::strtod(it->second.c_str(), &end);
  if (it->second.empty() || *end != '\0' || std::isnan(v))
    throw UsageError{key + " needs a number, got '" + it->second + "'"};
  if (!std::isfinite(v) || !range.contains(v)) throw UsageError{key + " must be " + range.text() + ", got " + it->second};
  return v;
}

void Args::check_known(const std::vector<std::string>& known) const {
  for (const auto& kv : values_) {
    bool ok = false;
    for (const auto& k : known) ok = ok || k == kv.first;
    if (!ok) throw UsageError{"unknown option " + kv.first};
  }
  if (!missing_value_.empty()) {
    bool ok = false;
    for (const auto& k : known) ok = ok || k == missing_value_;
    throw UsageError{ok ? "option " + missing_value_ + " needs a value" : "unknown option " + missing_value_};
  }
}

std::string json_string(const std::string& s) {
  std::string o = "\"";
  for (char c : s) {
    switch (c) {
      case '"': o += "\\\""; break;
      case '\\': o += "\\\\"; break;
      case '\n': o += "\\n"; break;
      case '\t': o += "\\t"; break;
      default:
        if (static_cast<unsigned char>(c) < 0x20) {
          char b[8];
          std::snprintf(b, sizeof b, "\\u%04x", c);
          o += b;
        } else {
          o += c;
        }
    }
  }
  return o + "\"";
}

void Json::add(const std::string& key, double v) {
  char b[64];
  if (std::isfinite(v)) std::snprintf(b, sizeof b, "%.17g", v);
  else std::snprintf(b, sizeof b, "null");
  items_.emplace_back(key, b);
}
void Json::add(const std::string& key, long long v) { items_.emplace_back(key, std::to_string(v)); }
void Json::add(const std::string& key, const std::string& v) { items_.emplace_back(key, json_string(v)); }
void Json::add_raw(const std::string& key, const std::string& raw) { items_.emplace_back(key, raw); }
void Json::add_bool(const std::string& key, bool v) { items_.emplace_back(key, v ? "true" : "false"); }
std::string Json::str() const {
  std::ostringstream o;
  o << "{";
  for (size_t i = 0; i < items_.size(); ++i) o << (i ? ", " : "") << json_string(items_[i].first) << ": " << items_[i].second;
  o << "}";
  return o.str();
}

const std::vector<std::string> solver_option_keys = {"--nemin", "--amalgamation-zeros", "--u", "--small", "--ordering", "--backend", "--threads", "--block-size", "--scaling", "--print-level"};
const char* solver_option_help =
    "  --ordering matching|metis|natural|amd|FILE  fill-reducing ordering (default matching: METIS on the\n"
    "                     graph with matched 2x2 pairs kept together, Hogg & Scott 2013, or plain METIS when\n"
    "                     that is predicted cheaper); FILE: a Matrix Market array of 1-based positions, as\n"
    "                     written by `ssids analyse --save-order`\n"
    "  --scaling matching|none|auction|equilibrate|ordering   scaling S A S (default matching: computed by\n"
    "                     factor, or taken from the matching ordering; ordering: the matching ordering's)\n"
    "  --nemin N          amalgamation parameter (default 32; 1 = fundamental supernodes)\n"
    "  --amalgamation-zeros Z  relaxed amalgamation: also merge a child into its parent when at most the\n"
    "                     fraction Z (0..0.5) of the merged node is explicit zeros (default 0.05; 0: off;\n"
    "                     ignored with --nemin 1)\n"
    "  --u U              pivot threshold in [0, 0.5] (default 0.01)\n"
    "  --small S          zero-pivot tolerance >= 0 (default 1e-20): a pivot whose column (of the scaled\n"
    "                     matrix, after the updates) is at most S in magnitude counts as zero\n"
    "  --backend cpu|gpu|auto   numerical backend (default cpu)\n"
    "  --threads T        CPU threads (default: OpenMP's); results do not depend on it\n"
    "  --block-size B     panel width of the dense CPU kernels (default 128)\n"
    "  --print-level P    diagnostics on stderr (default 0: none; 1: phase times; GPU factorization: 2 window kernels, 3 per level)\n";

const std::vector<std::string> input_option_keys = {"--symmetric-entries", "--quiet", "--progress"};
const char* input_option_help =
    "  --symmetric-entries lower|upper|sum   a 'symmetric' file that stores a position in both triangles\n"
    "                     ((i,j) and (j,i)) is refused unless this says which value to take: the one stored\n"
    "                     in the lower triangle, in the upper triangle, or their sum\n"
    "  --quiet            no progress on stderr\n"
    "  --progress         progress on stderr (phase names) even when stderr is not a terminal\n";

std::string parse_solver_options(const Args& args, ssids::Options& o) {
  o.nemin = static_cast<int>(args.get_long("--nemin", o.nemin, 1, 1 << 30));
  o.amalgamation_zeros = args.get_double("--amalgamation-zeros", o.amalgamation_zeros, Range{0.0, 0.5});
  o.print_level = static_cast<int>(args.get_long("--print-level", o.print_level, -1, 3));
  o.u = args.get_double("--u", o.u, Range{0.0, 0.5});
  o.small = args.get_double("--small", o.small, Range{0.0, HUGE_VAL});
  o.num_threads = static_cast<int>(args.get_long("--threads", 0, 0, 4096));
  o.cpu_block_size = static_cast<int>(args.get_long("--block-size", o.cpu_block_size, 8, 4096));
  std::string b = args.get("--backend", "cpu");
  if (b == "cpu") o.backend = ssids::Backend::cpu;
  else if (b == "gpu") o.backend = ssids::Backend::gpu;
  else if (b == "auto") o.backend = ssids::Backend::automatic;
  else throw UsageError{"--backend must be cpu, gpu or auto, got '" + b + "'"};
  // defaults chosen by measurement over the shared matrices (`ssids compare`, bench/NOTES.md): matching
  // scaling and ordering; the library's Options keep SPRAL's (none, METIS)
  const std::string sc = args.get("--scaling", "matching");
  if (sc == "none") o.scaling = ssids::Scaling::none;
  else if (sc == "matching") o.scaling = ssids::Scaling::matching;
  else if (sc == "auction") o.scaling = ssids::Scaling::auction;
  else if (sc == "equilibrate") o.scaling = ssids::Scaling::equilibrate;
  else if (sc == "ordering") o.scaling = ssids::Scaling::from_ordering;
  else throw UsageError{"--scaling must be none, matching, auction, equilibrate or ordering, got '" + sc + "'"};
  std::string ord = args.get("--ordering", "matching");
  if (ord == "metis") o.ordering = ssids::Ordering::metis;
  else if (ord == "natural") o.ordering = ssids::Ordering::natural;
  else if (ord == "amd") o.ordering = ssids::Ordering::amd;
  else if (ord == "matching") o.ordering = ssids::Ordering::matching;
  else {
    std::error_code ec;
    if (!std::filesystem::exists(ord, ec))
      throw UsageError{"--ordering must be matching, metis, amd, natural or an order file; '" + ord +
                       "' is neither a name nor an existing file"};
    o.ordering = ssids::Ordering::user;
  }
  // the matching ordering has computed the matching scaling already: factor reuses it
  if (o.ordering == ssids::Ordering::matching && o.scaling == ssids::Scaling::matching)
    o.scaling = ssids::Scaling::from_ordering;
  return o.ordering == ssids::Ordering::user ? ord : std::string();
}

}  // namespace ssids_cli
