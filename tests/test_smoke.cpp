// test_smoke.cpp — the build links and error names exist.
#include <doctest/doctest.h>

#include <string>

#include "ssids/error.hpp"
#include "ssids/memory.hpp"

TEST_CASE("flag names exist for every documented code") {
  for (int c = -99; c <= 8; ++c) CHECK(ssids::flag_name(c) != nullptr);
  CHECK(std::string(ssids::flag_name(ssids::flag::singular)) == "matrix is singular");
}

TEST_CASE("host allocation failure injection throws bad_alloc once") {
  ssids::inject_host_allocation_failure(0);
  CHECK_THROWS_AS(ssids::Vector<double>(10), std::bad_alloc);
  ssids::Vector<double> ok(10);  // injection consumed
  CHECK(ok.size() == 10);
  ssids::inject_host_allocation_failure(-1);
}
