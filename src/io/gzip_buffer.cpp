// io/gzip_buffer.cpp — whole-file reading and in-memory gzip decompression for the Matrix Market reader.
//
// A file is read into memory once (raw bytes), then inflated in memory when it is gzip data; the parser
// only ever sees one contiguous decompressed buffer. Concatenated gzip members (as produced by `cat a.gz
// b.gz` or some parallel compressors) are inflated one after the other.
#include <sys/stat.h>
#include <zlib.h>

#include <cerrno>
#include <climits>
#include <cstdio>
#include <cstring>
#include <memory>

#include "io/mm_internal.hpp"
#include "ssids/error.hpp"

namespace ssids {
namespace io {

bool is_gzip(const char* data, std::size_t size) noexcept {
  return size >= 2 && static_cast<unsigned char>(data[0]) == 0x1f && static_cast<unsigned char>(data[1]) == 0x8b;
}

bool has_gz_suffix(const std::string& path) noexcept {
  return path.size() >= 3 && path.compare(path.size() - 3, 3, ".gz") == 0;
}

namespace {

// inflateEnd must run on every exit path, including the throws below.
struct InflateGuard {
  z_stream* s;
  ~InflateGuard() { inflateEnd(s); }
};

}  // namespace

Vector<char> gunzip(const char* data, std::size_t size, const std::string& what) {
  Vector<char> out;
  // Text matrices typically compress 3-6x; start near that and grow geometrically.
  out.resize(size < (std::size_t(1) << 60) / 4 ? size * 4 + 4096 : size);
  std::size_t produced = 0;

  z_stream s;
  std::memset(&s, 0, sizeof(s));
  if (inflateInit2(&s, 16 + MAX_WBITS) != Z_OK)  // 16+: expect a gzip wrapper, not raw zlib
    throw Error(flag::bad_input, what + ": cannot initialise zlib");
  InflateGuard guard{&s};

  const unsigned char* in = reinterpret_cast<const unsigned char*>(data);
  std::size_t in_left = size;
  for (;;) {
    // avail_in/avail_out are 32-bit: feed at most UINT_MAX bytes at a time.
    if (s.avail_in == 0 && in_left > 0) {
      std::size_t chunk = in_left < UINT_MAX ? in_left : UINT_MAX;
      s.next_in = const_cast<unsigned char*>(in);
      s.avail_in = static_cast<uInt>(chunk);
      in += chunk;
      in_left -= chunk;
    }
    if (produced == out.size()) out.resize(out.size() * 2);
    std::size_t room = out.size() - produced;
    if (room > UINT_MAX) room = UINT_MAX;
    s.next_out = reinterpret_cast<unsigned char*>(out.data() + produced);
    s.avail_out = static_cast<uInt>(room);

    int rc = inflate(&s, Z_NO_FLUSH);
    produced += room - s.avail_out;
    if (rc == Z_STREAM_END) {
      // Another member may follow; anything else after the end of a member is trailing garbage,
      // which gzip(1) also tolerates only when it is zero padding.
      if (s.avail_in == 0 && in_left == 0) break;
      if (s.avail_in < 2 && in_left > 0) {
        // A member ended at (or one byte before) a feed boundary: carry the tail into the next feed.
        in -= s.avail_in;
        in_left += s.avail_in;
        std::size_t chunk = in_left < UINT_MAX ? in_left : UINT_MAX;
        s.next_in = const_cast<unsigned char*>(in);
        s.avail_in = static_cast<uInt>(chunk);
        in += chunk;
        in_left -= chunk;
      }
      const char* next = reinterpret_cast<const char*>(s.next_in);
      if (s.avail_in >= 2 && is_gzip(next, s.avail_in)) {
        inflateReset(&s);
        continue;
      }
      bool zeros = true;
      for (uInt k = 0; k < s.avail_in && zeros; ++k) zeros = next[k] == 0;
      if (zeros && in_left == 0) break;
      throw Error(flag::bad_input, what + ": unexpected data after the end of the gzip stream");
    }
    if (rc == Z_BUF_ERROR) {
      // No progress possible: input exhausted before the end of the stream (output room was available).
      if (s.avail_in == 0 && in_left == 0)
        throw Error(flag::bad_input, what + ": truncated gzip stream (unexpected end of compressed data)");
      continue;  // output was full; grow and retry
    }
    if (rc != Z_OK) {
      std::string msg = s.msg ? s.msg : "error code " + std::to_string(rc);
      throw Error(flag::bad_input, what + ": corrupt gzip stream (" + msg + ")");
    }
    if (s.avail_in == 0 && in_left == 0 && s.avail_out != 0)
      throw Error(flag::bad_input, what + ": truncated gzip stream (unexpected end of compressed data)");
  }
  out.resize(produced);
  return out;
}

namespace {

struct FileCloser {
  void operator()(std::FILE* f) const noexcept { std::fclose(f); }
};

Vector<char> read_all(const std::string& path) {
  errno = 0;
  std::unique_ptr<std::FILE, FileCloser> f(std::fopen(path.c_str(), "rb"));
  if (!f) throw Error(flag::bad_input, "cannot open '" + path + "': " + std::strerror(errno));
  // Size hint for regular files only: pipes and special files report nothing useful, and a directory
  // opens fine but fails on read (its st_size is meaningless), so it is refused here with a clear reason.
  struct stat st;
  std::size_t hint = 0;
  if (fstat(fileno(f.get()), &st) == 0) {
    if (S_ISDIR(st.st_mode)) throw Error(flag::bad_input, "cannot read '" + path + "': " + std::strerror(EISDIR));
    if (S_ISREG(st.st_mode) && st.st_size > 0) hint = static_cast<std::size_t>(st.st_size);
  }
  Vector<char> buf;
  buf.resize(hint + 1);  // +1 so that a correct hint ends with a short read, i.e. seen EOF
  std::size_t got = 0;
  for (;;) {
    if (got == buf.size()) buf.resize(buf.size() * 2 + 65536);
    std::size_t k = std::fread(buf.data() + got, 1, buf.size() - got, f.get());
    got += k;
    if (k == 0) {
      if (std::ferror(f.get())) {
        int e = errno;
        throw Error(flag::bad_input, "cannot read '" + path + "': " + std::strerror(e ? e : EIO));
      }
      break;
    }
  }
  buf.resize(got);
  return buf;
}

}  // namespace

Vector<char> load_text(const std::string& path) {
  Vector<char> raw = read_all(path);
  if (is_gzip(raw.data(), raw.size())) return gunzip(raw.data(), raw.size(), "'" + path + "'");
  if (has_gz_suffix(path) && !raw.empty())
    throw Error(flag::bad_input, "'" + path + "': name ends in .gz but the file is not gzip data");
  return raw;
}

}  // namespace io
}  // namespace ssids
