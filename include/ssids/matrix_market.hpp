// ssids/matrix_market.hpp — reading and writing Matrix Market files, plain or gzip-compressed.
//
// Supported: "%%MatrixMarket matrix coordinate real|integer|pattern general|symmetric" and
// "%%MatrixMarket matrix array real|integer general" (dense, column-major, e.g. right-hand sides).
// Indices in files are 1-based; everything returned is 0-based. A file name ending in .gz is decompressed
// (zlib); other files are also sniffed for the gzip magic number.
// Errors throw ssids::Error with code flag::bad_input and a message naming the line number; I/O
// failures also use bad_input. The reader refuses what it cannot read unambiguously: an index outside
// 1..nrow / 1..ncol is an error naming its line, and so is a 'symmetric' file that stores an entry in both
// triangles ((i,j) and (j,i), i != j) unless ReadOptions::symmetric_entries names a policy. Every change
// it makes to what the file says (duplicates summed, upper-triangle entries mirrored, mirrored pairs resolved
// by the chosen policy) is counted in MatrixReport, never silent.
#pragma once
#include <string>

#include "ssids/csc.hpp"

namespace ssids {

/// What to do with a 'symmetric' file that stores a position in both triangles. The Matrix Market format
/// stores one triangle of a symmetric matrix; a file holding both an entry (i,j) and its mirror (j,i),
/// i != j, is ambiguous: a writer that stored the full matrix means the value once, a writer of assembled
/// pieces means the sum. Entries stored only in the upper triangle (no mirror) are unambiguous and are
/// mirrored under every policy (counted in MatrixReport::upper).
enum class SymmetricEntries {
  refuse = 0,  ///< default: a mirrored pair is Error(bad_input) naming the lines of the first pair
  lower = 1,   ///< a mirrored pair takes the value stored in the lower triangle (the upper one is ignored)
  upper = 2,   ///< a mirrored pair takes the value stored in the upper triangle (the lower one is ignored)
  sum = 3,     ///< a mirrored pair is summed
};

/// "refuse", "lower", "upper", "sum".
const char* symmetric_entries_name(SymmetricEntries policy) noexcept;

struct ReadOptions {
  SymmetricEntries symmetric_entries = SymmetricEntries::refuse;
  /// read_symmetric of a 'general' file: accepted when |a_ij - a_ji| <= sym_tol * max(|a_ij|, |a_ji|)
  double sym_tol = 1e-12;
};

struct MatrixReport {
  index_t nrow = 0, ncol = 0;
  offset_t entries_in_file = 0;  ///< entries as stored in the file
  bool symmetric_file = false;   ///< header said 'symmetric'
  bool pattern = false;          ///< header said 'pattern' (values are set to 1.0)
  int duplicates = 0;            ///< entries repeating a position already stored in the same triangle (summed)
  int upper = 0;                 ///< entries of a symmetric file stored in the strict upper triangle
  int mirrored_pairs = 0;        ///< symmetric file: positions stored as both (i,j) and (j,i), resolved by the policy
  int missing_diagonal = 0;      ///< symmetric matrix: columns without a diagonal entry
  /// flag-style summary: 0, or the warning value (flag::duplicates_summed, missing_diagonal, ...)
  int warning_flag() const;
};

struct DenseMatrix {
  index_t nrow = 0, ncol = 0;
  Vector<double> val;  ///< column-major, leading dimension nrow
};

/// Read a symmetric matrix (lower triangle returned). A 'general' file is accepted when it is square and
/// symmetric within a relative tolerance `sym_tol` (|a_ij - a_ji| <= sym_tol * max(|a_ij|, |a_ji|));
/// otherwise Error(flag::not_symmetric). NaN or Inf values: Error(flag::nan_inf).
SymmetricMatrix read_symmetric(const std::string& path, MatrixReport* report = nullptr, double sym_tol = 1e-12);
SymmetricMatrix read_symmetric(const std::string& path, const ReadOptions& options, MatrixReport* report = nullptr);
/// Read any coordinate matrix as a general CSR matrix (symmetric files are expanded to both triangles).
CsrMatrix read_general(const std::string& path, MatrixReport* report = nullptr);
CsrMatrix read_general(const std::string& path, const ReadOptions& options, MatrixReport* report = nullptr);
/// Read a dense 'array' file (column-major).
DenseMatrix read_dense(const std::string& path);

/// The same, parsing text already in memory (used by tests and the fuzzer). The text may be gzip data.
SymmetricMatrix parse_symmetric(const char* data, std::size_t size, MatrixReport* report = nullptr,
                                double sym_tol = 1e-12);
SymmetricMatrix parse_symmetric(const char* data, std::size_t size, const ReadOptions& options,
                                MatrixReport* report = nullptr);
CsrMatrix parse_general(const char* data, std::size_t size, MatrixReport* report = nullptr);
CsrMatrix parse_general(const char* data, std::size_t size, const ReadOptions& options, MatrixReport* report = nullptr);
DenseMatrix parse_dense(const char* data, std::size_t size);

/// Writers (plain text, or gzip when the path ends in .gz). Values with 17 significant digits.
void write_symmetric(const std::string& path, const SymmetricMatrix& a);
void write_general(const std::string& path, const CsrMatrix& a);
void write_dense(const std::string& path, const DenseMatrix& a);

}  // namespace ssids
