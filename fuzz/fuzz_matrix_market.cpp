// fuzz/fuzz_matrix_market.cpp — libFuzzer target for the Matrix Market reader (issue 11).
//
// The input bytes are given as they are to parse_symmetric, parse_general and parse_dense (the parser sniffs
// the gzip magic, so inputs starting with 0x1f 0x8b exercise the in-memory gunzip). Small inputs that are
// not gzip are also gzip-compressed here and parsed again: the compressed path must give the same outcome
// (same error code, or a matrix of the same size), which fuzzes the plain and gzip paths together.
// Contract checked: every call returns or throws ssids::Error with a negative code; anything else
// (another exception, a crash, a sanitizer report, a leak, a hang) is a finding. Build and run: fuzz/README.md.
#include <zlib.h>

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "ssids/error.hpp"
#include "ssids/matrix_market.hpp"

namespace {

/// Outcome of one parse: 0 and a size signature on success, the error code otherwise.
struct Outcome {
  int code = 0;
  long long n1 = 0, n2 = 0, nnz = 0;
  bool operator==(const Outcome& o) const { return code == o.code && n1 == o.n1 && n2 == o.n2 && nnz == o.nnz; }
};

void check_code(int code) {
  if (code >= 0) std::abort();  // an Error must carry an error (negative) code
}

Outcome run_symmetric(const char* d, std::size_t n) {
  Outcome o;
  try {
    ssids::MatrixReport rep;
    ssids::SymmetricMatrix a = ssids::parse_symmetric(d, n, &rep);
    // structural invariants of the result: 0-based lower-triangle CSC, rows ascending
    if (a.ptr.size() != static_cast<std::size_t>(a.n) + 1 || a.ptr[0] != 0) std::abort();
    for (ssids::index_t j = 0; j < a.n; ++j)
      for (ssids::offset_t k = a.ptr[j]; k < a.ptr[j + 1]; ++k)
        if (a.row[k] < j || a.row[k] >= a.n || (k > a.ptr[j] && a.row[k] <= a.row[k - 1])) std::abort();
    o.n1 = o.n2 = a.n;
    o.nnz = a.nnz();
  } catch (const ssids::Error& e) {
    check_code(e.code());
    o.code = e.code();
  }
  return o;
}

Outcome run_general(const char* d, std::size_t n) {
  Outcome o;
  try {
    ssids::CsrMatrix a = ssids::parse_general(d, n);
    if (a.ptr.size() != static_cast<std::size_t>(a.nrow) + 1) std::abort();
    for (ssids::index_t i = 0; i < a.nrow; ++i)
      for (ssids::offset_t k = a.ptr[i]; k < a.ptr[i + 1]; ++k)
        if (a.col[k] < 0 || a.col[k] >= a.ncol || (k > a.ptr[i] && a.col[k] <= a.col[k - 1])) std::abort();
    o.n1 = a.nrow;
    o.n2 = a.ncol;
    o.nnz = a.nnz();
  } catch (const ssids::Error& e) {
    check_code(e.code());
    o.code = e.code();
  }
  return o;
}

Outcome run_dense(const char* d, std::size_t n) {
  Outcome o;
  try {
    ssids::DenseMatrix a = ssids::parse_dense(d, n);
    if (a.val.size() != static_cast<std::size_t>(a.nrow) * static_cast<std::size_t>(a.ncol)) std::abort();
    o.n1 = a.nrow;
    o.n2 = a.ncol;
    o.nnz = static_cast<long long>(a.val.size());
  } catch (const ssids::Error& e) {
    check_code(e.code());
    o.code = e.code();
  }
  return o;
}

/// gzip-compress (one member) with zlib; empty on failure.
std::vector<char> gzip(const char* d, std::size_t n) {
  z_stream s;
  std::memset(&s, 0, sizeof(s));
  if (deflateInit2(&s, 6, Z_DEFLATED, 16 + MAX_WBITS, 8, Z_DEFAULT_STRATEGY) != Z_OK) return {};
  std::vector<char> out(deflateBound(&s, static_cast<uLong>(n)) + 64);
  s.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(d));
  s.avail_in = static_cast<uInt>(n);
  s.next_out = reinterpret_cast<Bytef*>(out.data());
  s.avail_out = static_cast<uInt>(out.size());
  int rc = deflate(&s, Z_FINISH);
  out.resize(s.total_out);
  deflateEnd(&s);
  if (rc != Z_STREAM_END) return {};
  return out;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const char* d = reinterpret_cast<const char*>(data);
  Outcome s = run_symmetric(d, size);
  Outcome g = run_general(d, size);
  Outcome a = run_dense(d, size);
  const bool magic = size >= 2 && data[0] == 0x1f && data[1] == 0x8b;
  if (!magic && size <= 1 << 16) {
    std::vector<char> z = gzip(d, size);
    if (!z.empty()) {
      if (!(run_symmetric(z.data(), z.size()) == s)) std::abort();
      if (!(run_general(z.data(), z.size()) == g)) std::abort();
      if (!(run_dense(z.data(), z.size()) == a)) std::abort();
    }
  }
  return 0;
}
