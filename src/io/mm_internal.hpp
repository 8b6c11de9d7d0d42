// io/mm_internal.hpp — pieces shared by the Matrix Market reader and writer (not a public header).
//
// The reader works in two stages: the text (decompressed once, held in memory) is tokenised into
// 0-based triplets (mm_parse.cpp), then the triplets are assembled into sorted compressed storage
// (mm_reader.cpp). gzip handling and whole-file reading live in gzip_buffer.cpp; writers in mm_writer.cpp.
#pragma once
#include <cstddef>
#include <string>

#include "ssids/matrix_market.hpp"

namespace ssids {
namespace io {

// ---- raw bytes (gzip_buffer.cpp) ----

/// True when the bytes start with the gzip magic number 0x1f 0x8b.
bool is_gzip(const char* data, std::size_t size) noexcept;
/// Inflate a complete gzip stream (several concatenated members are allowed).
/// Throws Error(bad_input) on a truncated or corrupt stream; `what` names the source in the message.
Vector<char> gunzip(const char* data, std::size_t size, const std::string& what);
/// Read a whole file into memory and decompress it when it is gzip data (or its name ends in .gz).
/// Throws Error(bad_input) naming the path and strerror when the file cannot be opened or read.
Vector<char> load_text(const std::string& path);
/// True when `path` ends in ".gz".
bool has_gz_suffix(const std::string& path) noexcept;

// ---- tokenising (mm_parse.cpp) ----

enum class MmFormat { coordinate, array };
enum class MmField { real, integer, pattern };

struct MmHeader {
  MmFormat format = MmFormat::coordinate;
  MmField field = MmField::real;
  bool symmetric = false;
  index_t nrow = 0, ncol = 0;
  offset_t nnz = 0;  ///< declared entries (coordinate) or nrow*ncol (array)
};

/// Entries of a coordinate file, 0-based, in file order (entry k of the file is index k).
struct Triplets {
  Vector<index_t> row, col;
  Vector<double> val;
};

/// Parse a coordinate file into triplets. Fills report->nrow/ncol/entries_in_file/symmetric_file/
/// pattern. Throws Error(bad_input) for malformed text and for an index outside 1..nrow / 1..ncol,
/// Error(nan_inf) for NaN/Inf; messages start with "line N: ". An 'array' file is rejected (bad_input).
Triplets parse_coordinate(const char* data, std::size_t size, MmHeader& header, MatrixReport& report);
/// Line number (1-based) of entry k (0-based, in file order) of a coordinate file that parse_coordinate
/// has accepted; used to name lines in messages about entries found after parsing.
offset_t entry_line(const char* data, std::size_t size, offset_t k);
/// Parse an 'array' file into a column-major dense matrix. A 'coordinate' file is rejected (bad_input).
DenseMatrix parse_array(const char* data, std::size_t size);

/// Saturating conversion of a count to the int fields of MatrixReport.
int clamp_count(offset_t count) noexcept;

}  // namespace io
}  // namespace ssids
