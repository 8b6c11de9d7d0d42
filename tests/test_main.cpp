// test_main.cpp — doctest runner that turns ssids_test::skip() into exit status 77 (CTest SKIP_RETURN_CODE).
#define DOCTEST_CONFIG_IMPLEMENT
#include <doctest/doctest.h>

#include <cstdio>
#include <string>

namespace ssids_test {
bool g_skipped = false;
std::string g_skip_reason;
}  // namespace ssids_test

int main(int argc, char** argv) {
  doctest::Context context;
  context.applyCommandLine(argc, argv);
  int res = context.run();
  if (context.shouldExit()) return res;
  if (res == 0 && ssids_test::g_skipped) {
    std::printf("SKIPPED: %s\n", ssids_test::g_skip_reason.c_str());
    return 77;
  }
  return res;
}
