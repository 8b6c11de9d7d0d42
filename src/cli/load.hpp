// load.hpp — input and output files of the `ssids` subcommands: the matrix (file or gen: spec) with what
// the reader reported, the optional user order, right-hand sides, and the files written (pivot order,
// solution).
#pragma once
#include <string>

#include "cli/notes.hpp"
#include "ssids/csc.hpp"
#include "ssids/matrix_market.hpp"

namespace ssids_cli {

class Args;

struct LoadedProblem {
  ssids::SymmetricMatrix a;
  ssids::Vector<ssids::index_t> order;  ///< 0-based positions (empty unless an order file was given)
  double time_read = 0.0;
  const ssids::index_t* order_ptr() const { return order.empty() ? nullptr : order.data(); }
};

/// --symmetric-entries (default: refuse a file that stores both triangles).
ssids::SymmetricEntries symmetric_entries_option(const Args& args);

/// Load the symmetric matrix (and, if order_file is not empty, the order); what the reader changed goes to notes.
LoadedProblem load_problem(const std::string& spec, const std::string& order_file, ssids::SymmetricEntries policy,
                           Notes& notes);
/// Load a general (nonsymmetric) matrix; what the reader changed goes to notes.
ssids::CsrMatrix load_general_problem(const std::string& spec, ssids::SymmetricEntries policy, Notes& notes);

/// Right-hand sides for a matrix of order n: a Matrix Market array n x k (k = 1 when single_column).
/// The error for a wrong shape names the file, n and the shape found.
ssids::DenseMatrix read_rhs(const std::string& path, ssids::index_t n, bool single_column);

/// Fail early (OutputError) when `path` cannot be created: its folder is missing or not writable.
void check_output_path(const std::string& path);
/// Write order (0-based positions) as a Matrix Market integer array of 1-based positions (OutputError on failure).
void save_order(const std::string& path, const ssids::Vector<ssids::index_t>& order);
/// Write x (n x ncol, column-major, leading dimension n) as a Matrix Market real array, gzip when the path
/// ends in .gz (OutputError on failure).
void write_solution(const std::string& path, ssids::index_t n, int ncol, const double* x);

}  // namespace ssids_cli
