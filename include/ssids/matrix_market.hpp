// ssids/matrix_market.hpp — reading and writing Matrix Market files, plain or gzip-compressed.
//
// Supported: "%%MatrixMarket matrix coordinate real|integer|pattern general|symmetric" and
// "%%MatrixMarket matrix array real|integer general" (dense, column-major, e.g. right-hand sides).
// Indices in files are 1-based; everything returned is 0-based. A file name ending in .gz is decompressed
// (zlib); other files are also sniffed for the gzip magic number.
// Errors throw ssids::Error with code flag::bad_input and a message naming the line number; I/O
// failures also use bad_input. Warnings are counted in MatrixReport (never silently dropped).
#pragma once
#include <string>

#include "ssids/csc.hpp"

namespace ssids {

struct MatrixReport {
  index_t nrow = 0, ncol = 0;
  offset_t entries_in_file = 0;  ///< entries as stored in the file
  bool symmetric_file = false;   ///< header said 'symmetric'
  bool pattern = false;          ///< header said 'pattern' (values are set to 1.0)
  int duplicates = 0;            ///< duplicate entries (summed)
  int out_of_range = 0;          ///< entries with an index outside 1..nrow/1..ncol (ignored)
  int upper = 0;                 ///< entries of a symmetric file found in the upper triangle (mirrored)
  int missing_diagonal = 0;      ///< symmetric matrix: columns without a diagonal entry
  /// flag-style summary: 0, or the warning value (flag::out_of_range_ignored, duplicates_summed, ...)
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
/// Read any coordinate matrix as a general CSR matrix (symmetric files are expanded to both triangles).
CsrMatrix read_general(const std::string& path, MatrixReport* report = nullptr);
/// Read a dense 'array' file (column-major).
DenseMatrix read_dense(const std::string& path);

/// The same, parsing text already in memory (used by tests and the fuzzer). The text may be gzip data.
SymmetricMatrix parse_symmetric(const char* data, std::size_t size, MatrixReport* report = nullptr,
                                double sym_tol = 1e-12);
CsrMatrix parse_general(const char* data, std::size_t size, MatrixReport* report = nullptr);
DenseMatrix parse_dense(const char* data, std::size_t size);

/// Writers (plain text, or gzip when the path ends in .gz). Values with 17 significant digits.
void write_symmetric(const std::string& path, const SymmetricMatrix& a);
void write_general(const std::string& path, const CsrMatrix& a);
void write_dense(const std::string& path, const DenseMatrix& a);

}  // namespace ssids
