// metis_random.hpp — METIS calls that may run concurrently and still give the same orders.
//
// METIS (5.1 as Debian ships it, and 5.2) draws its random numbers from the C library's rand(), seeded by
// srand(seed) at the start of every METIS_NodeND / METIS_ComputeVertexSeparator call. rand() has one state per
// process, so two METIS calls running at the same time interleave one stream and their results depend on the
// timing: concurrent orderings would not be reproducible. The library therefore rebinds the rand and srand
// that the METIS library it calls imports (its own GOT entries, nothing else in the process) to functions that,
// on a thread inside a MetisCall, use a generator private to that thread, seeded by METIS's own srand call and
// computing exactly the sequence glibc's rand() gives after the same srand (the additive feedback generator of
// glibc's random_r, TYPE_3: r_i = r_{i-3} + r_{i-31} mod 2^32, outputs r_i >> 1). Elsewhere they call the C
// library's rand/srand, so METIS called by anyone else behaves as before.
// Every METIS call of the library gets the same numbers whichever thread runs it and whatever runs beside it,
// and the same as an isolated call with glibc's rand: orders are bitwise the same for any thread count, and the
// same as before this file existed.
// Where the rebinding is not possible or does not take effect (a METIS that does not import rand, a platform
// other than ELF/glibc, a check call that does not reach the hook), METIS calls are serialized by a mutex
// instead: still reproducible, only not concurrent (metis_concurrent() says which).
#pragma once
#include <cstdint>

namespace ssids {
namespace detail {

/// glibc's random() generator (TYPE_3, degree 31, separation 3), as rand() uses it: seed(s) then next() gives
/// the numbers rand() gives after srand(s).
class GlibcRandom {
 public:
  explicit GlibcRandom(unsigned seed = 1) { reseed(seed); }
  void reseed(unsigned seed);
  int next();

 private:
  std::int32_t r_[31];
  int f_ = 3, b_ = 0;  // front and rear indices into the ring r_
};

/// Scope of one METIS call of the library (construct it on the thread that calls METIS, right before).
/// With the rebinding in effect the call gets this thread's own generator; otherwise the scope holds the
/// process-wide METIS mutex.
class MetisCall {
 public:
  MetisCall();
  ~MetisCall();
  MetisCall(const MetisCall&) = delete;
  MetisCall& operator=(const MetisCall&) = delete;

 private:
  GlibcRandom gen_;
  GlibcRandom* saved_;
  bool locked_;
};

/// True when METIS calls of the library run concurrently (the rebinding is installed and verified).
/// The first call installs and checks it (thread-safe, once per process).
bool metis_concurrent();

}  // namespace detail
}  // namespace ssids
