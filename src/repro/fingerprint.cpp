// fingerprint.cpp — the canonical byte streams of factors and solutions (documented in
// ssids/fingerprint.hpp) fed to SHA-256. Values are serialized byte by byte (little-endian), never by
// copying host memory, so the fingerprints do not depend on the host's byte order.
#include <cstring>
#include <vector>

#include "factor/numeric.hpp"
#include "ssids/error.hpp"
#include "ssids/fingerprint.hpp"

namespace ssids {

namespace {

/// Buffers little-endian encodings and hands them to SHA-256 in chunks.
class CanonicalWriter {
 public:
  void bytes(const char* s, std::size_t n) {
    for (std::size_t i = 0; i < n; ++i) put(static_cast<std::uint8_t>(s[i]));
  }
  void u64(std::uint64_t v) {
    for (int i = 0; i < 8; ++i) put(static_cast<std::uint8_t>(v >> (8 * i)));
  }
  void i32(std::int32_t v) {
    const auto u = static_cast<std::uint32_t>(v);
    for (int i = 0; i < 4; ++i) put(static_cast<std::uint8_t>(u >> (8 * i)));
  }
  void i64(std::int64_t v) { u64(static_cast<std::uint64_t>(v)); }
  void f64(double v) {
    std::uint64_t u;
    std::memcpy(&u, &v, sizeof u);
    u64(u);
  }
  void f64s(const double* v, std::size_t n) {
    for (std::size_t i = 0; i < n; ++i) f64(v[i]);
  }
  void i32s(const index_t* v, std::size_t n) {
    for (std::size_t i = 0; i < n; ++i) i32(v[i]);
  }
  std::string finish() {
    flush();
    return Sha256::hex(sha_.finish());
  }

 private:
  void put(std::uint8_t b) {
    buf_[len_++] = b;
    if (len_ == sizeof buf_) flush();
  }
  void flush() {
    sha_.update(buf_, len_);
    len_ = 0;
  }
  Sha256 sha_;
  std::uint8_t buf_[4096];
  std::size_t len_ = 0;
};

}  // namespace

std::string fingerprint(const Factors& factors) {
  if (factors.empty()) throw Error(flag::call_sequence, "fingerprint of empty factors (factor not called)");
  const detail::NumericFactors& nf = factors.numeric();
  CanonicalWriter w;
  w.bytes("ssids-factors-v1", 16);
  w.i32(nf.n);
  w.i32(nf.mode == Mode::posdef ? 1 : 0);
  w.i32(static_cast<std::int32_t>(nf.nodes.size()));
  for (const detail::NodeFactor& nd : nf.nodes) {
    w.i32(nd.nelim);
    w.i32(nd.nrow);
    w.i32s(nf.rows.data() + nd.row_ptr, static_cast<std::size_t>(nd.nrow));
    w.f64s(nf.lblock(nd), static_cast<std::size_t>(nd.nrow) * static_cast<std::size_t>(nd.nelim));
  }
  w.i64(static_cast<std::int64_t>(nf.d.size()));
  w.f64s(nf.d.data(), nf.d.size());
  w.i32s(nf.pivot_var.data(), nf.pivot_var.size());
  w.i64(static_cast<std::int64_t>(nf.scale.size()));
  w.f64s(nf.scale.data(), nf.scale.size());
  return w.finish();
}

std::string fingerprint(const double* x, index_t n, int nrhs, offset_t ldx) {
  if (n < 0) throw Error(flag::bad_n, "fingerprint: n < 0");
  if (nrhs < 1 || ldx < n) throw Error(flag::bad_ldx, "fingerprint: nrhs < 1 or ldx < n");
  if (!x && n > 0) throw Error(flag::missing_data, "fingerprint: x is null");
  CanonicalWriter w;
  w.bytes("ssids-solution-v1", 17);
  w.i32(n);
  w.i32(nrhs);
  for (int c = 0; c < nrhs; ++c) w.f64s(x + static_cast<offset_t>(c) * ldx, static_cast<std::size_t>(n));
  return w.finish();
}

}  // namespace ssids
