// metis_random.cpp — reproducible concurrent METIS calls (see metis_random.hpp).
//
// The rebinding: the link map of the library that defines the METIS_NodeND we call (dladdr1) gives its
// dynamic section; its PLT relocations (DT_JMPREL) and other relocations (DT_RELA) name the GOT slots through
// which it calls rand and srand; those slots are overwritten with the hooks below (the slot's page is made
// writable for the store when it lies in the object's RELRO segment, and read-only again after). Only that
// object's calls change. The hooks are checked by one METIS call on a small grid, which must reach the srand
// hook; each MetisCall also checks that the slots still hold the hooks before relying on them.
// Supported: ELF with RELA relocations on x86-64 and AArch64 under glibc; anywhere else the mutex is used.
#include "analyse/metis_random.hpp"

#include <metis.h>

#include <cstdlib>
#include <cstring>
#include <mutex>

#if defined(__GLIBC__) && (defined(__x86_64__) || defined(__aarch64__))
#define SSIDS_METIS_REBIND 1
#include <dlfcn.h>
#include <elf.h>
#include <link.h>
#include <sys/mman.h>
#include <unistd.h>
#endif

namespace ssids {
namespace detail {

void GlibcRandom::reseed(unsigned seed) {
  if (seed == 0) seed = 1;
  std::int32_t word = static_cast<std::int32_t>(seed);
  r_[0] = word;
  // r_i = 16807 r_{i-1} mod (2^31 - 1), by Schrage's method so that nothing overflows 32 bits
  for (int i = 1; i < 31; ++i) {
    const std::int32_t hi = word / 127773, lo = word % 127773;
    word = 16807 * lo - 2836 * hi;
    if (word < 0) word += 2147483647;
    r_[i] = word;
  }
  f_ = 3;
  b_ = 0;
  for (int k = 0; k < 310; ++k) next();  // glibc discards the first 10 * 31 outputs
}

int GlibcRandom::next() {
  const std::uint32_t v = static_cast<std::uint32_t>(r_[f_]) + static_cast<std::uint32_t>(r_[b_]);
  r_[f_] = static_cast<std::int32_t>(v);
  f_ = f_ == 30 ? 0 : f_ + 1;
  b_ = b_ == 30 ? 0 : b_ + 1;
  return static_cast<int>(v >> 1);
}

namespace {

thread_local GlibcRandom* tls_generator = nullptr;
thread_local long tls_srand_calls = 0;  // counted while checking the rebinding

int rand_hook() {
  if (GlibcRandom* g = tls_generator) return g->next();
  return std::rand();
}
void srand_hook(unsigned seed) {
  if (GlibcRandom* g = tls_generator) {
    ++tls_srand_calls;
    g->reseed(seed);
    return;
  }
  std::srand(seed);
}

std::recursive_mutex& metis_mutex() {
  static std::recursive_mutex m;
  return m;
}

struct Rebinding {
  void** rand_slots[4] = {};
  void** srand_slots[4] = {};
  void* rand_old[4] = {};
  void* srand_old[4] = {};
  int nrand = 0, nsrand = 0;
  std::uintptr_t relro_lo = 0, relro_hi = 0;
  bool verified = false;
  bool intact() const {
    for (int k = 0; k < nrand; ++k)
      if (*rand_slots[k] != reinterpret_cast<void*>(&rand_hook)) return false;
    for (int k = 0; k < nsrand; ++k)
      if (*srand_slots[k] != reinterpret_cast<void*>(&srand_hook)) return false;
    return true;
  }
};

#ifdef SSIDS_METIS_REBIND
#if defined(__x86_64__)
constexpr unsigned kJumpSlot = R_X86_64_JUMP_SLOT, kGlobDat = R_X86_64_GLOB_DAT;
#else
constexpr unsigned kJumpSlot = R_AARCH64_JUMP_SLOT, kGlobDat = R_AARCH64_GLOB_DAT;
#endif

struct RelroRange {
  ElfW(Addr) base = 0, lo = 0, hi = 0;
};
int find_relro(dl_phdr_info* info, size_t, void* data) {
  auto* r = static_cast<RelroRange*>(data);
  if (info->dlpi_addr != r->base) return 0;
  for (int k = 0; k < info->dlpi_phnum; ++k)
    if (info->dlpi_phdr[k].p_type == PT_GNU_RELRO) {
      r->lo = info->dlpi_addr + info->dlpi_phdr[k].p_vaddr;
      r->hi = r->lo + info->dlpi_phdr[k].p_memsz;
      return 1;
    }
  return 1;
}

/// Stores `value` into the GOT slot, making its page writable for the store when it lies in RELRO.
bool store_slot(void** slot, void* value, const RelroRange& relro) {
  const ElfW(Addr) a = reinterpret_cast<ElfW(Addr)>(slot);
  const bool ro = a >= relro.lo && a < relro.hi;
  const long page = sysconf(_SC_PAGESIZE);
  void* start = reinterpret_cast<void*>(a & ~static_cast<ElfW(Addr)>(page - 1));
  if (ro && mprotect(start, static_cast<size_t>(page), PROT_READ | PROT_WRITE) != 0) return false;
  __atomic_store_n(slot, value, __ATOMIC_SEQ_CST);
  if (ro) mprotect(start, static_cast<size_t>(page), PROT_READ);
  return true;
}

/// Rebinds the rand/srand imports of the object defining METIS_NodeND; false when nothing could be done.
bool install(Rebinding& rb) {
  Dl_info info{};
  link_map* lm = nullptr;
  void* sym = reinterpret_cast<void*>(&METIS_NodeND);
  if (!dladdr1(sym, &info, reinterpret_cast<void**>(&lm), RTLD_DL_LINKMAP) || !lm || !info.dli_sname ||
      std::strcmp(info.dli_sname, "METIS_NodeND") != 0)
    return false;
  // METIS linked into the object holding the hooks (a static build): the hooks' own calls of the C library's
  // rand would go through the same slots, so nothing is rebound
  Dl_info own{};
  link_map* own_lm = nullptr;
  if (!dladdr1(reinterpret_cast<void*>(&rand_hook), &own, reinterpret_cast<void**>(&own_lm), RTLD_DL_LINKMAP) ||
      own_lm == lm)
    return false;
  const ElfW(Addr) base = lm->l_addr;
  auto addr = [base](ElfW(Addr) v) { return v < base ? v + base : v; };  // glibc may have relocated l_ld
  const ElfW(Sym)* symtab = nullptr;
  const char* strtab = nullptr;
  const ElfW(Rela)* tables[2] = {nullptr, nullptr};
  size_t sizes[2] = {0, 0};
  bool rela = true;
  for (const ElfW(Dyn)* d = lm->l_ld; d && d->d_tag != DT_NULL; ++d) {
    switch (d->d_tag) {
      case DT_SYMTAB: symtab = reinterpret_cast<const ElfW(Sym)*>(addr(d->d_un.d_ptr)); break;
      case DT_STRTAB: strtab = reinterpret_cast<const char*>(addr(d->d_un.d_ptr)); break;
      case DT_JMPREL: tables[0] = reinterpret_cast<const ElfW(Rela)*>(addr(d->d_un.d_ptr)); break;
      case DT_PLTRELSZ: sizes[0] = d->d_un.d_val; break;
      case DT_RELA: tables[1] = reinterpret_cast<const ElfW(Rela)*>(addr(d->d_un.d_ptr)); break;
      case DT_RELASZ: sizes[1] = d->d_un.d_val; break;
      case DT_PLTREL: rela = d->d_un.d_val == DT_RELA; break;
      default: break;
    }
  }
  if (!symtab || !strtab || !rela) return false;
  RelroRange relro;
  relro.base = base;
  dl_iterate_phdr(find_relro, &relro);
  for (int t = 0; t < 2; ++t) {
    if (!tables[t]) continue;
    for (size_t q = 0; q < sizes[t] / sizeof(ElfW(Rela)); ++q) {
      const ElfW(Rela)& r = tables[t][q];
      const unsigned type = static_cast<unsigned>(ELF64_R_TYPE(r.r_info));
      if (type != kJumpSlot && type != kGlobDat) continue;
      const char* name = strtab + symtab[ELF64_R_SYM(r.r_info)].st_name;
      const bool is_rand = std::strcmp(name, "rand") == 0, is_srand = std::strcmp(name, "srand") == 0;
      if (!is_rand && !is_srand) continue;
      void** slot = reinterpret_cast<void**>(base + r.r_offset);
      const int k = is_rand ? rb.nrand : rb.nsrand;
      if (k >= 4) continue;
      void* old = *slot;
      if (!store_slot(slot, is_rand ? reinterpret_cast<void*>(&rand_hook) : reinterpret_cast<void*>(&srand_hook),
                      relro))
        continue;
      if (is_rand) {
        rb.rand_slots[rb.nrand] = slot;
        rb.rand_old[rb.nrand++] = old;
      } else {
        rb.srand_slots[rb.nsrand] = slot;
        rb.srand_old[rb.nsrand++] = old;
      }
    }
  }
  rb.relro_lo = relro.lo;
  rb.relro_hi = relro.hi;
  return rb.nrand > 0 && rb.nsrand > 0;
}

/// Puts back what install() replaced (the check failed: METIS does not call through these slots).
void uninstall(Rebinding& rb) {
  RelroRange relro;
  relro.lo = rb.relro_lo;
  relro.hi = rb.relro_hi;
  for (int k = 0; k < rb.nrand; ++k) store_slot(rb.rand_slots[k], rb.rand_old[k], relro);
  for (int k = 0; k < rb.nsrand; ++k) store_slot(rb.srand_slots[k], rb.srand_old[k], relro);
  rb.nrand = rb.nsrand = 0;
}
#else
bool install(Rebinding&) { return false; }
void uninstall(Rebinding&) {}
#endif

/// One METIS_NodeND call on a 6 x 6 grid with this thread's generator: the rebinding works iff it reached
/// the srand hook.
bool check(const Rebinding& rb) {
  if (!rb.intact()) return false;
  constexpr idx_t k = 6, nv = k * k;
  idx_t xadj[nv + 1], adjncy[4 * nv], perm[nv], iperm[nv];
  idx_t e = 0;
  for (idx_t v = 0; v < nv; ++v) {
    xadj[v] = e;
    const idx_t x = v % k, y = v / k;
    if (x > 0) adjncy[e++] = v - 1;
    if (x + 1 < k) adjncy[e++] = v + 1;
    if (y > 0) adjncy[e++] = v - k;
    if (y + 1 < k) adjncy[e++] = v + k;
  }
  xadj[nv] = e;
  idx_t options[METIS_NOPTIONS];
  METIS_SetDefaultOptions(options);
  options[METIS_OPTION_NUMBERING] = 0;
  idx_t n = nv;
  GlibcRandom g;
  tls_generator = &g;
  tls_srand_calls = 0;
  const int rc = METIS_NodeND(&n, xadj, adjncy, nullptr, options, perm, iperm);
  tls_generator = nullptr;
  return rc == METIS_OK && tls_srand_calls > 0;
}

Rebinding& rebinding() {
  static Rebinding rb;
  static std::once_flag once;
  std::call_once(once, [] {
    std::lock_guard<std::recursive_mutex> lock(metis_mutex());
    const bool installed = install(rb);
    rb.verified = installed && check(rb);
    if (installed && !rb.verified) uninstall(rb);
  });
  return rb;
}

}  // namespace

bool metis_concurrent() {
  const Rebinding& rb = rebinding();
  return rb.verified && rb.intact();
}

MetisCall::MetisCall() : saved_(tls_generator), locked_(false) {
  if (metis_concurrent()) {
    tls_generator = &gen_;
  } else {
    metis_mutex().lock();
    locked_ = true;
    tls_generator = nullptr;
  }
}

MetisCall::~MetisCall() {
  tls_generator = saved_;
  if (locked_) metis_mutex().unlock();
}

}  // namespace detail
}  // namespace ssids
