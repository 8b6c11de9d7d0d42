// support_cli.hpp — helpers for the tests of the `ssids` program: running it, reading its JSON reports
// (objects whose values are numbers, strings, booleans, null, or the "warnings"/"info" arrays), files.
#pragma once
#include <map>
#include <string>
#include <vector>

#include "support.hpp"

namespace ssids_test {
namespace cli_support {

/// tests/data/NAME in the source tree.
std::string data_file(const std::string& name);
/// Run `ssids ARGS` with stdout and stderr captured separately.
CliResult cli(const std::string& args);
int count_lines(const std::string& s);
bool contains(const std::string& s, const std::string& what);
/// Write `text` to `path` (binary), REQUIRE that it worked.
void write_text(const std::string& path, const std::string& text);

/// One JSON object as printed by the program. Values are kept as raw tokens: strings without their quotes
/// (flagged in `strings`), arrays and objects as their text.
struct JsonObject {
  bool ok = false;
  std::string error;
  std::map<std::string, std::string> raw;
  std::map<std::string, bool> strings;

  bool has(const std::string& k) const { return raw.count(k) != 0; }
  bool is_number(const std::string& k) const;
  double num(const std::string& k) const;        ///< REQUIREs a number
  long long integer(const std::string& k) const; ///< REQUIREs an integral number
  std::string str(const std::string& k) const;   ///< REQUIREs a string
};

/// Parse `text`, which must hold exactly one JSON object followed by at most a newline.
JsonObject parse_json(const std::string& text);
/// The objects of a JSON array of flat objects ("[{...}, {...}]"), each parsed with parse_json.
std::vector<JsonObject> objects_in(const std::string& array_text);
/// The JSON report of a run that must exit with `status` (0 by default).
JsonObject json_of(const CliResult& r, int status = 0);
/// CHECK that every key is present and numeric.
void require_keys_numeric(const JsonObject& j, const std::vector<std::string>& keys);
/// The entry with this code in the report's array `list` ("warnings" or "info"); ok = false when absent.
JsonObject note(const JsonObject& report, const std::string& list, const std::string& code);

}  // namespace cli_support
}  // namespace ssids_test
