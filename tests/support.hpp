// support.hpp — helpers shared by the tests: skipping, locating test matrices, independent checks.
#pragma once
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "ssids/csc.hpp"

namespace ssids_test {

/// Mark the current test case as skipped (the process exits with 77 when no check failed).
/// Call it and return from the test case.
void skip(const std::string& reason);

/// True when this build has CUDA and a device is usable; otherwise marks the current test case skipped
/// (with the reason) and returns false: `if (!ssids_test::need_gpu()) return;`.
bool need_gpu();

/// Folder of the shared test matrices: $SSIDS_TEST_MATRICES, else the default resolved by CMake.
/// Empty string when the folder does not exist.
std::string matrices_dir();
/// Every *.mtx.gz / *.mtx file in matrices_dir(), sorted.
std::vector<std::string> matrix_files();
/// Path to the built `ssids` command-line program.
std::string cli_path();

/// Run a shell command, capture stdout (and stderr if merge_stderr), return the exit status.
int run_command(const std::string& cmd, std::string& output, bool merge_stderr = true);
/// A path in this process's scratch folder (created on first use, removed at exit).
std::string scratch(const std::string& name);
/// s quoted for the shell (single quotes).
std::string quote(const std::string& s);
struct CliResult {
  int status = -1;
  std::string out, err;
};
/// Runs `[ENV] ssids ARGS` (ENV: variable assignments, or empty) with stdout and stderr captured separately.
CliResult run_cli(const std::string& args, const std::string& env = "");

/// Dense symmetric copy (column-major n x n, both triangles) of a lower-triangle matrix.
std::vector<double> to_dense(const ssids::SymmetricMatrix& a);
/// Eigenvalues of a dense symmetric matrix (LAPACK dsyev), ascending.
std::vector<double> eigenvalues(std::vector<double> dense, int n);
/// Inertia from eigenvalues: counts of values < -tol, > tol, and the rest.
struct Inertia { int neg = 0, pos = 0, zero = 0; };
Inertia inertia_of(const std::vector<double>& eig, double tol);

/// Build a SymmetricMatrix (lower, 0-based, sorted, no duplicates) from triplets (any triangle; summed).
ssids::SymmetricMatrix from_triplets(int n, const std::vector<int>& rows, const std::vector<int>& cols,
                                     const std::vector<double>& vals);
/// Seeded random symmetric matrix: each off-diagonal (i>j) present with probability `density`, values in
/// [-1,1]; diagonal entries present with probability diag_density, values in [-dmax, dmax].
ssids::SymmetricMatrix random_symmetric(int n, double density, double diag_density, double dmax, std::uint64_t seed);

/// Seeded random KKT matrix [H B^T; B 0]: H (nh x nh) random symmetric with diagonal in [1, 2), B (nc x nh)
/// with full row rank (row k has an entry >= 1 in column k mod nh) and a zero (2,2) block.
ssids::SymmetricMatrix random_kkt(int nh, int nc, double density, std::uint64_t seed);

}  // namespace ssids_test
