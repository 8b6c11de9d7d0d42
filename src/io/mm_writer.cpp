// io/mm_writer.cpp — writing Matrix Market files, plain or gzip (path ending in .gz).
//
// Written indices are 1-based; values use %.17g (via std::to_chars), which round-trips every finite double exactly through
// the reader. Symmetric matrices are written as 'coordinate real symmetric' with the entries as stored
// (the lower triangle by the library's convention); a SymmetricMatrix without values is written as
// 'pattern'. Text is formatted into a buffer and flushed in large blocks; every write and the final close
// are checked, and failures throw Error(bad_input) naming the path.
#include <zlib.h>

#include <cerrno>
#include <charconv>
#include <cstdio>
#include <cstring>

#include "io/mm_internal.hpp"
#include "ssids/error.hpp"

namespace ssids {
namespace io {
namespace {

/// Buffered output to a plain FILE* or a gzFile. close() must be called to detect late write errors;
/// the destructor only releases the handle (after an exception).
class Sink {
 public:
  explicit Sink(const std::string& path) : path_(path), gz_(has_gz_suffix(path)) {
    errno = 0;
    if (gz_)
      gzf_ = gzopen(path.c_str(), "wb");
    else
      f_ = std::fopen(path.c_str(), "wb");
    if (!gzf_ && !f_) fail_errno("cannot open '" + path + "' for writing");
    buf_.reserve(kBlock + 256);
  }
  Sink(const Sink&) = delete;
  Sink& operator=(const Sink&) = delete;
  ~Sink() {
    if (gzf_) gzclose(gzf_);
    if (f_) std::fclose(f_);
  }

  /// Append printf-formatted text (headers only; less than 256 bytes).
  template <class... Args>
  void printf(const char* fmt, Args... args) {
    char line[256];
    int k = std::snprintf(line, sizeof(line), fmt, args...);
    append(line, line + k);
  }

  /// Append one line of up to two 1-based indices and an optional value ("i j v\n", "i j\n", "v\n").
  /// std::to_chars with precision 17 is specified to produce exactly what "%.17g" produces, several
  /// times faster than snprintf, which matters for files of millions of entries.
  void entry(int nidx, long long i, long long j, bool with_value, double v) {
    char line[128];
    char* p = line;
    // Each field needs at most 24 bytes (an index is at most 20 digits, a value at most 24 characters),
    // so every conversion below has room; the checks only keep that visible to the compiler.
    auto put = [&](auto x, auto... fmt) {
      auto r = std::to_chars(p, line + sizeof(line) - 2, x, fmt...);
      if (r.ec != std::errc()) throw Error(flag::bad_input, "cannot format a value for '" + path_ + "'");
      p = r.ptr;
    };
    if (nidx > 0) put(i);
    if (nidx > 1) {
      *p++ = ' ';
      put(j);
    }
    if (with_value) {
      if (nidx > 0) *p++ = ' ';
      put(v, std::chars_format::general, 17);
    }
    *p++ = '\n';
    append(line, p);
  }

  void close() {
    flush();
    int rc = 0;
    errno = 0;
    if (gzf_) {
      rc = gzclose(gzf_) == Z_OK ? 0 : -1;
      gzf_ = nullptr;
    } else {
      rc = std::fclose(f_);
      f_ = nullptr;
    }
    if (rc != 0) fail_errno("cannot write '" + path_ + "'");
  }

 private:
  static constexpr std::size_t kBlock = 1 << 20;

  void append(const char* b, const char* e) {
    buf_.insert(buf_.end(), b, e);
    if (buf_.size() >= kBlock) flush();
  }

  [[noreturn]] void fail_errno(const std::string& what) {
    int e = errno;
    throw Error(flag::bad_input, what + ": " + (e ? std::strerror(e) : "I/O error"));
  }

  void flush() {
    if (buf_.empty()) return;
    errno = 0;
    bool ok = gz_ ? gzwrite(gzf_, buf_.data(), static_cast<unsigned>(buf_.size())) == static_cast<int>(buf_.size())
                  : std::fwrite(buf_.data(), 1, buf_.size(), f_) == buf_.size();
    if (!ok) fail_errno("cannot write '" + path_ + "'");
    buf_.clear();
  }

  std::string path_;
  bool gz_;
  gzFile gzf_ = nullptr;
  std::FILE* f_ = nullptr;
  Vector<char> buf_;
};

void check(bool ok, const std::string& path, const std::string& what) {
  if (!ok) throw Error(flag::bad_input, "cannot write '" + path + "': " + what);
}

}  // namespace
}  // namespace io

void write_symmetric(const std::string& path, const SymmetricMatrix& a) {
  const index_t n = a.n;
  io::check(n >= 0 && a.ptr.size() == static_cast<std::size_t>(n) + 1, path, "ptr must have n+1 entries");
  const offset_t nnz = a.ptr[n];
  io::check(a.ptr[0] == 0 && nnz >= 0 && a.row.size() >= static_cast<std::size_t>(nnz), path, "ptr/row inconsistent");
  const bool pattern = a.val.empty() && nnz > 0;
  io::check(pattern || a.val.size() >= static_cast<std::size_t>(nnz), path, "fewer values than entries");
  io::Sink out(path);
  out.printf("%%%%MatrixMarket matrix coordinate %s symmetric\n", pattern ? "pattern" : "real");
  out.printf("%d %d %lld\n", n, n, static_cast<long long>(nnz));
  for (index_t j = 0; j < n; ++j)
    for (offset_t k = a.ptr[j]; k < a.ptr[j + 1]; ++k) {
      out.entry(2, a.row[k] + 1LL, j + 1LL, !pattern, pattern ? 0.0 : a.val[k]);
    }
  out.close();
}

void write_general(const std::string& path, const CsrMatrix& a) {
  io::check(a.nrow >= 0 && a.ncol >= 0 && a.ptr.size() == static_cast<std::size_t>(a.nrow) + 1, path,
            "ptr must have nrow+1 entries");
  const offset_t nnz = a.ptr[a.nrow];
  io::check(a.ptr[0] == 0 && nnz >= 0 && a.col.size() >= static_cast<std::size_t>(nnz) &&
                a.val.size() >= static_cast<std::size_t>(nnz),
            path, "ptr/col/val inconsistent");
  io::Sink out(path);
  out.printf("%s", "%%MatrixMarket matrix coordinate real general\n");
  out.printf("%d %d %lld\n", a.nrow, a.ncol, static_cast<long long>(nnz));
  for (index_t i = 0; i < a.nrow; ++i)
    for (offset_t k = a.ptr[i]; k < a.ptr[i + 1]; ++k) out.entry(2, i + 1LL, a.col[k] + 1LL, true, a.val[k]);
  out.close();
}

void write_dense(const std::string& path, const DenseMatrix& a) {
  io::check(a.nrow >= 0 && a.ncol >= 0 &&
                a.val.size() == static_cast<std::size_t>(a.nrow) * static_cast<std::size_t>(a.ncol),
            path, "val must have nrow*ncol entries");
  io::Sink out(path);
  out.printf("%s", "%%MatrixMarket matrix array real general\n");
  out.printf("%d %d\n", a.nrow, a.ncol);
  for (double x : a.val) out.entry(0, 0, 0, true, x);
  out.close();
}

}  // namespace ssids
