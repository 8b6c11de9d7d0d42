// cli.hpp — shared pieces of the `ssids` command-line program: argument parsing, JSON output,
// and the subcommands.
#pragma once
#include <map>
#include <string>
#include <vector>

#include "ssids/options.hpp"

namespace ssids_cli {

/// Thrown for usage errors (exit status 2).
struct UsageError {
  std::string message;
};

/// Parsed command line: positional arguments and --key [value] options.
class Args {
 public:
  /// flags: options that take no value (e.g. "--json"); every other --key consumes the next argument.
  Args(int argc, char** argv, int first, const std::vector<std::string>& flags);
  const std::vector<std::string>& positional() const { return positional_; }
  bool has(const std::string& key) const { return values_.count(key) != 0; }
  std::string get(const std::string& key, const std::string& fallback) const;
  long get_long(const std::string& key, long fallback, long lo, long hi) const;
  double get_double(const std::string& key, double fallback) const;
  /// Every option key must be in `known`, else UsageError.
  void check_known(const std::vector<std::string>& known) const;

 private:
  std::vector<std::string> positional_;
  std::map<std::string, std::string> values_;
};

/// Ordered JSON object writer (numbers, strings, booleans).
class Json {
 public:
  void add(const std::string& key, double v);
  void add(const std::string& key, long long v);
  void add(const std::string& key, int v) { add(key, static_cast<long long>(v)); }
  void add(const std::string& key, const std::string& v);
  void add_bool(const std::string& key, bool v);
  std::string str() const;

 private:
  std::vector<std::pair<std::string, std::string>> items_;
};

/// Common solver options (--nemin, --u, --small, --ordering, --backend, --threads) into Options.
/// Returns the user order file name when --ordering names a file (else empty).
std::string parse_solver_options(const Args& args, ssids::Options& options);
extern const std::vector<std::string> solver_option_keys;
extern const char* solver_option_help;

int cmd_analyse(int argc, char** argv);
int cmd_generate(int argc, char** argv);
int cmd_solve(int argc, char** argv);
int cmd_compare(int argc, char** argv);
int cmd_demo(int argc, char** argv);
int cmd_sap(int argc, char** argv);
int cmd_repro(int argc, char** argv);

}  // namespace ssids_cli
