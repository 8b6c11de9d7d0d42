// fuzz/fuzz_csc.cpp — libFuzzer target for the CSC validation entry point ssids::analyse (issue 11).
//
// The input bytes become (n, base, ptr, row[, val]) and options, then analyse(Ordering::natural) runs; when it
// succeeds and the control byte asks for it, factor and solve run on the same arrays too. Layout:
//   byte 0: n = (int8) % 48, or INT32_MIN when 0x80          byte 1: flags (see below)
//   byte 2: nemin - 2 (so 0 and -1 reach the clamping)        byte 3: cpu_block_size (0..255)
//   then n+1 ptr entries (2 bytes each: a delta 0..7 in "delta" mode, else a raw int16), then row entries
//   (one signed byte each, recycled when the input runs out), values from the same bytes.
// Flags: 0x01 base 1; 0x02 garbage base (byte 2); 0x04 delta ptr; 0x08 posdef; 0x10 factor+solve;
//        0x20 null row; 0x40 null ptr; 0x80 two right-hand sides.
// The arrays are exactly as long as the API contract says (ptr: n+1, row/val: ptr[n]-base when >= 0), so
// ASan reports any read past what the caller promised. Contract checked: success or ssids::Error (negative
// code), never a crash, a sanitizer report, another exception or a hang.
#include <climits>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <memory>
#include <vector>

#include "ssids/analyse.hpp"
#include "ssids/error.hpp"
#include "ssids/factor.hpp"

namespace {

struct Bytes {
  const std::uint8_t* d;
  std::size_t n, pos = 0;
  std::uint8_t next() { return pos < n ? d[pos++] : 0; }
};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size < 4) return 0;
  Bytes in{data, size};
  const std::uint8_t b0 = in.next(), fl = in.next(), b2 = in.next(), b3 = in.next();
  const ssids::index_t n = b0 == 0x80 ? INT32_MIN : static_cast<ssids::index_t>(static_cast<std::int8_t>(b0) % 48);
  int base = (fl & 0x01) ? 1 : 0;
  if (fl & 0x02) base = static_cast<std::int8_t>(b2);

  // ptr: n+1 entries (none when n < 0: a negative n must be refused before anything is read)
  std::vector<ssids::offset_t> ptr(n > 0 ? static_cast<std::size_t>(n) + 1 : 1, base);
  if (n > 0) {
    for (ssids::index_t j = 0; j <= n; ++j) {
      const std::uint8_t lo = in.next(), hi = in.next();
      if (fl & 0x04)
        ptr[j] = j == 0 ? base : ptr[j - 1] + (lo & 7);
      else
        ptr[j] = static_cast<std::int16_t>(static_cast<std::uint16_t>(lo | (hi << 8)));
    }
  }
  const ssids::offset_t len = n > 0 ? ptr[n] - base : 0;
  const std::size_t nz = len > 0 ? static_cast<std::size_t>(len) : 0;
  // exact-size heap arrays (new[] of the exact length, so ASan sees the end; at least 1 element)
  std::unique_ptr<ssids::index_t[]> row(new ssids::index_t[nz ? nz : 1]);
  std::unique_ptr<double[]> val(new double[nz ? nz : 1]);
  const std::size_t rstart = in.pos;
  for (std::size_t k = 0; k < nz; ++k) {
    std::uint8_t b = rstart < size ? data[rstart + (k % (size - rstart))] : static_cast<std::uint8_t>(k);
    row[k] = static_cast<std::int8_t>(b) % 64;
    // diagonally dominant-ish when the byte is large, anything else otherwise
    val[k] = static_cast<double>(static_cast<std::int8_t>(b)) / 8.0 + (row[k] == 0 ? 0.0 : 0.5);
  }

  ssids::CscView a;
  a.n = n;
  a.base = base;
  a.ptr = (fl & 0x40) ? nullptr : ptr.data();
  a.row = (fl & 0x20) ? nullptr : row.get();
  a.val = val.get();

  ssids::Options opt;
  opt.ordering = ssids::Ordering::natural;
  opt.print_level = -1;
  opt.nemin = static_cast<int>(b2 % 40) - 2;
  opt.cpu_block_size = b3;
  opt.num_threads = 1;
  ssids::Inform inform;
  ssids::Analysis an;
  try {
    an = ssids::analyse(a, opt, inform);
  } catch (const ssids::Error& e) {
    if (e.code() >= 0 || inform.flag != e.code()) std::abort();
    return 0;
  }
  if (!(fl & 0x10) || n <= 0 || an.n() != n) return 0;
  try {
    const ssids::Mode mode = (fl & 0x08) ? ssids::Mode::posdef : ssids::Mode::indefinite;
    ssids::Factors f = ssids::factor(an, val.get(), mode, opt, inform);
    const int nrhs = (fl & 0x80) ? 2 : 1;
    std::vector<double> x(static_cast<std::size_t>(n) * nrhs, 1.0);
    f.solve(ssids::SolveJob::full, nrhs, x.data(), n, inform);
  } catch (const ssids::Error& e) {
    if (e.code() >= 0) std::abort();
  }
  return 0;
}
