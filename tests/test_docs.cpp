// test_docs.cpp — the README opens with the two commands CI runs, and the umbrella header compiles.
#include <doctest/doctest.h>

#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "ssids/ssids.hpp"
#include "support.hpp"

namespace {
std::string slurp(const std::string& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}
/// Command lines inside ```sh fences, in order.
std::vector<std::string> shell_commands(const std::string& md) {
  std::vector<std::string> out;
  std::istringstream in(md);
  std::string line;
  bool inside = false;
  while (std::getline(in, line)) {
    if (line.rfind("```", 0) == 0) {
      inside = !inside && line == "```sh";
      continue;
    }
    if (inside && !line.empty()) out.push_back(line);
  }
  return out;
}
}  // namespace

TEST_CASE("README's first two commands are the ones .ci/run executes") {
  std::string readme = slurp(std::string(SSIDS_SOURCE_DIR) + "/README.md");
  std::string ci = slurp(std::string(SSIDS_SOURCE_DIR) + "/.ci/run");
  auto cmds = shell_commands(readme);
  REQUIRE(cmds.size() >= 2);
  CHECK(cmds[0].find("./build/ssids demo") != std::string::npos);
  CHECK(cmds[1].find("ctest") != std::string::npos);
  CHECK(ci.find(cmds[0] + "\n") != std::string::npos);
  CHECK(ci.find(cmds[1] + "\n") != std::string::npos);
}
