// load.hpp — reading the problem for the `ssids` subcommands: matrix (file or gen: spec), optional
// user order file, and writing the pivot order.
#pragma once
#include <string>

#include "ssids/csc.hpp"

namespace ssids_cli {

struct LoadedProblem {
  ssids::SymmetricMatrix a;
  ssids::Vector<ssids::index_t> order;  ///< 0-based positions (empty unless an order file was given)
  double time_read = 0.0;
  const ssids::index_t* order_ptr() const { return order.empty() ? nullptr : order.data(); }
};

/// Load the matrix (and, if order_file is not empty, the order). Reader warnings go to stderr when verbose.
LoadedProblem load_problem(const std::string& spec, const std::string& order_file, bool verbose);
/// Write order (0-based positions) as a Matrix Market integer array of 1-based positions.
void save_order(const std::string& path, const ssids::Vector<ssids::index_t>& order);

}  // namespace ssids_cli
