// cli.hpp — shared pieces of the `ssids` command-line program: exit statuses, argument parsing, JSON
// output, and the subcommands.
#pragma once
#include <map>
#include <string>
#include <vector>

#include "ssids/options.hpp"

namespace ssids_cli {

/// Exit statuses of the program (documented in `ssids --help` and the README).
namespace exit_status {
constexpr int ok = 0;             ///< success; warnings, if any, are in the report
constexpr int error = 1;          ///< the input could not be read, the library failed, or an output could not be written
constexpr int usage = 2;          ///< the command line is wrong
constexpr int not_converged = 3;  ///< `sap`: the iteration stopped without reaching the tolerance
}  // namespace exit_status

/// Thrown for usage errors (exit status 2).
struct UsageError {
  std::string message;
};

/// Thrown when an output file cannot be written (exit status 1); the message names the file and the reason.
struct OutputError {
  std::string message;
};

/// A closed or half-open interval for numeric options; `text()` is how messages show it.
struct Range {
  double lo, hi;
  bool hi_open = false;
  bool contains(double v) const { return v >= lo && (hi_open ? v < hi : v <= hi); }
  std::string text() const;
};

/// Parsed command line: positional arguments and --key [value] options. "-h" is --help and "-o FILE" is
/// --output FILE; any other argument starting with '-' is an option.
class Args {
 public:
  /// flags: options that take no value (e.g. "--json"); every other --key consumes the next argument.
  Args(int argc, char** argv, int first, const std::vector<std::string>& flags);
  const std::vector<std::string>& positional() const { return positional_; }
  bool has(const std::string& key) const { return values_.count(key) != 0; }
  std::string get(const std::string& key, const std::string& fallback) const;
  /// Integer option in [lo, hi]; UsageError naming the option, the range and the value otherwise.
  long get_long(const std::string& key, long fallback, long lo, long hi) const;
  /// Finite number in `range`; UsageError naming the option, the range and the value otherwise.
  double get_double(const std::string& key, double fallback, const Range& range) const;
  /// Every option must be in `known`, else UsageError "unknown option"; then an option that ended the
  /// command line without its value is reported.
  void check_known(const std::vector<std::string>& known) const;

 private:
  std::vector<std::string> positional_;
  std::map<std::string, std::string> values_;
  std::string missing_value_;  ///< an option at the end of the line that needs a value
};

/// Ordered JSON object writer (numbers, strings, booleans, and raw JSON values such as arrays).
class Json {
 public:
  void add(const std::string& key, double v);
  void add(const std::string& key, long long v);
  void add(const std::string& key, int v) { add(key, static_cast<long long>(v)); }
  void add(const std::string& key, const std::string& v);
  void add_bool(const std::string& key, bool v);
  /// `raw` must already be valid JSON.
  void add_raw(const std::string& key, const std::string& raw);
  std::string str() const;

 private:
  std::vector<std::pair<std::string, std::string>> items_;
};

/// `s` as a JSON string literal (quoted and escaped).
std::string json_string(const std::string& s);

/// Common solver options (--nemin, --u, --small, --ordering, --backend, --threads, ...) into Options.
/// Returns the user order file name when --ordering names a file (else empty); a value that is neither an
/// ordering name nor an existing file is a usage error.
std::string parse_solver_options(const Args& args, ssids::Options& options);
extern const std::vector<std::string> solver_option_keys;
extern const char* solver_option_help;
/// Options every command that reads a matrix takes (--symmetric-entries, --quiet, --progress) and their help.
extern const std::vector<std::string> input_option_keys;
extern const char* input_option_help;

int cmd_analyse(int argc, char** argv);
int cmd_generate(int argc, char** argv);
int cmd_solve(int argc, char** argv);
int cmd_compare(int argc, char** argv);
int cmd_demo(int argc, char** argv);
int cmd_sap(int argc, char** argv);
int cmd_repro(int argc, char** argv);

}  // namespace ssids_cli
