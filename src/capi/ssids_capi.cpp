// ssids_capi.cpp — the SPRAL-compatible C interface (include/ssids/spral_ssids.h) over the C++ API.
//
// The layer is thin: it translates options, calls ssids::analyse / factor / Factors methods and copies the
// C++ Inform into the C struct. Conventions:
//  * Index base: options->array_base (0 or 1) is handed to CscView, which reads the caller's ptr/row in
//    place; nothing is copied to change the base. Only the int32 ptr of the _ptr32 forms is widened to
//    int64 and coordinate input is converted to CSC (both temporary copies, documented in the header).
//  * Handles: akeep/fkeep are heap objects (AKeep/FKeep below). Live handles are kept in a registry so
//    that a stale or uninitialised pointer is never dereferenced: a handle not in the registry counts as
//    absent (flag -1 where one is required; a fresh one is made where the call creates one).
//  * No exception crosses into C: ssids::Error becomes inform->flag (codes are equal), std::bad_alloc
//    becomes -50, anything else -99.
#include <cstddef>
#include <cstring>
#include <exception>
#include <memory>
#include <mutex>
#include <new>
#include <unordered_set>
#include <utility>

#include "analyse/analysis_cache.hpp"
#include "factor/numeric.hpp"
#include "ssids/analyse.hpp"
#include "ssids/error.hpp"
#include "ssids/factor.hpp"
#include "ssids/memory.hpp"
#include "ssids/spral.h"
#include "ssids/spral_ssids.h"

namespace {

using ssids::index_t;
using ssids::offset_t;
namespace flag = ssids::flag;

// ---- the documented layouts (SPRAL 2025.09), checked at compile time on LP64 targets ----
static_assert(sizeof(spral_ssids_options) == 176, "spral_ssids_options layout");
static_assert(offsetof(spral_ssids_options, ignore_numa) == 28, "spral_ssids_options layout");
static_assert(offsetof(spral_ssids_options, min_gpu_work) == 32, "spral_ssids_options layout");
static_assert(offsetof(spral_ssids_options, scaling) == 48, "spral_ssids_options layout");
static_assert(offsetof(spral_ssids_options, small) == 80, "spral_ssids_options layout");
static_assert(offsetof(spral_ssids_options, unused) == 96, "spral_ssids_options layout");
static_assert(sizeof(spral_ssids_inform) == 152, "spral_ssids_inform layout");
static_assert(offsetof(spral_ssids_inform, num_factor) == 32, "spral_ssids_inform layout");
static_assert(offsetof(spral_ssids_inform, unused) == 76, "spral_ssids_inform layout");

/// The analysis handle: the Analysis plus what factor needs to read the caller's val array.
struct AKeep {
  ssids::Analysis analysis;
  ssids::Inform inform;             ///< analyse's statistics, the starting point of factor's inform
  int n = 0;
  int ordering = 1;                 ///< options->ordering at analyse (scaling 3 needs 2)
  bool coord = false;               ///< analysed from coordinate lists: val must be permuted
  ssids::Vector<offset_t> coord_src;  ///< coord: CSC entry k came from coordinate entry coord_src[k]
};

/// The factorization handle.
struct FKeep {
  ssids::Factors factors;
  bool posdef = false;
};

std::mutex registry_mutex;
std::unordered_set<const void*>& registry() {
  static std::unordered_set<const void*> live;
  return live;
}
void register_handle(const void* p) {
  std::lock_guard<std::mutex> lock(registry_mutex);
  registry().insert(p);
}
bool is_live(const void* p) {
  if (!p) return false;
  std::lock_guard<std::mutex> lock(registry_mutex);
  return registry().count(p) != 0;
}
/// A new handle of type H, registered; owned by a unique_ptr until registration succeeded, so that a failed
/// registration leaks nothing.
template <class H>
H* new_registered_handle() {
  std::unique_ptr<H> fresh(new H);
  register_handle(fresh.get());
  return fresh.release();
}
bool unregister_handle(const void* p) {
  std::lock_guard<std::mutex> lock(registry_mutex);
  return registry().erase(p) != 0;
}

// Both handle types are registered in one set, so tag them to tell them apart.
constexpr std::uint32_t akeep_tag = 0x414b4550u, fkeep_tag = 0x464b4550u;
struct AHandle { std::uint32_t tag = akeep_tag; AKeep keep; };
struct FHandle { std::uint32_t tag = fkeep_tag; FKeep keep; };

AKeep* as_akeep(const void* p) {
  if (!is_live(p) || static_cast<const AHandle*>(p)->tag != akeep_tag) return nullptr;
  return &static_cast<AHandle*>(const_cast<void*>(p))->keep;
}
FKeep* as_fkeep(const void* p) {
  if (!is_live(p) || static_cast<const FHandle*>(p)->tag != fkeep_tag) return nullptr;
  return &static_cast<FHandle*>(const_cast<void*>(p))->keep;
}

void clear_inform(spral_ssids_inform* inform) {
  std::memset(inform, 0, sizeof(*inform));
}

void copy_inform(const ssids::Inform& in, spral_ssids_inform* out) {
  out->flag = in.flag;
  out->matrix_dup = in.matrix_dup;
  out->matrix_missing_diag = in.matrix_missing_diag;
  out->matrix_outrange = in.matrix_outrange;
  out->matrix_rank = in.matrix_rank;
  out->maxdepth = in.maxdepth;
  out->maxfront = in.maxfront;
  out->num_delay = in.num_delay;
  out->num_factor = in.num_factor;
  out->num_flops = in.num_flops;
  out->num_neg = in.num_neg;
  out->num_sup = in.num_sup;
  out->num_two = in.num_two;
  out->stat = 0;
  out->cuda_error = in.cuda_error;
  out->cublas_error = in.cublas_error;
  out->maxsupernode = in.maxsupernode;
}

/// Runs `body`, turning every exception into inform->flag.
template <class F>
void guarded(spral_ssids_inform* inform, F&& body) {
  try {
    body();
  } catch (const ssids::Error& e) {
    if (inform) inform->flag = e.code();
  } catch (const std::bad_alloc&) {
    if (inform) inform->flag = flag::allocation;
  } catch (...) {
    if (inform) inform->flag = flag::unknown;
  }
}

/// C options -> C++ options. Throws Error for values that have no meaning here.
ssids::Options translate(const spral_ssids_options& o, bool scale_given) {
  ssids::Options opt;
  opt.print_level = -1;  // the C interface prints nothing (units are ignored)
  switch (o.ordering) {
    case 0: opt.ordering = ssids::Ordering::user; break;
    case 1: opt.ordering = ssids::Ordering::metis; break;
    case 2: opt.ordering = ssids::Ordering::matching; break;
    case 3: opt.ordering = ssids::Ordering::natural; break;
    case 4: opt.ordering = ssids::Ordering::amd; break;
    default: throw ssids::Error(flag::unimplemented, "unknown options.ordering");
  }
  opt.nemin = o.nemin < 1 ? 1 : o.nemin;
  if (o.scaling <= 0) opt.scaling = scale_given ? ssids::Scaling::user : ssids::Scaling::none;
  else if (o.scaling <= 4) opt.scaling = static_cast<ssids::Scaling>(o.scaling);
  else throw ssids::Error(flag::unimplemented, "unknown options.scaling");
  // pivot_method is clamped to 1..3 as SPRAL clamps it (0 and negative values act as 1, larger as 3); every
  // method is served by the same threshold partial pivoting here, so the value is otherwise ignored
  opt.u = o.u;
  opt.small = o.small;
  opt.action = o.action;
  opt.backend = o.use_gpu ? ssids::Backend::automatic : ssids::Backend::cpu;
  // cpu_block_size is ignored: SPRAL's value tunes SPRAL's own kernels; ours keep the C++ default, so that
  // the C interface gives bitwise the results of the C++ API with default options
  opt.min_gpu_work = o.min_gpu_work;
  return opt;
}

/// The combined warning for input-check counts, as SPRAL's analyse reports it.
int input_warning(int outrange, int dup, int missing_diag) {
  const int other = (outrange > 0 ? 1 : 0) + (dup > 0 ? 2 : 0);
  if (missing_diag > 0) return other ? flag::missing_diagonal_and_other : flag::missing_diagonal;
  return other;
}

/// Shared tail of every analyse form: runs ssids::analyse on `view` and stores the handle.
void analyse_view(const ssids::CscView& view, int* order, void** akeep, const spral_ssids_options& o,
                  spral_ssids_inform* inform, ssids::Vector<offset_t> coord_src, bool coord, int extra_outrange) {
  ssids::Options opt = translate(o, false);
  AHandle* h = nullptr;
  if (AKeep* old = as_akeep(*akeep)) {
    h = reinterpret_cast<AHandle*>(reinterpret_cast<char*>(old) - offsetof(AHandle, keep));
  }
  ssids::Inform inf;
  // through the cache of recent analyses: a caller that frees and analyses the same pattern again (IPOPT) reuses it
  ssids::Analysis an = ssids::detail::analyse_cached(view, opt, inf, o.ordering == 0 ? order : nullptr);
  if (coord && extra_outrange > 0) {
    inf.matrix_outrange += extra_outrange;
    if (inf.flag >= 0 && inf.flag <= flag::missing_diagonal_and_other)
      inf.flag = input_warning(inf.matrix_outrange, inf.matrix_dup, inf.matrix_missing_diag);
  }
  if (o.ordering == 2 && o.scaling != 3 && inf.flag == 0) inf.flag = flag::matching_scaling_ignored;
  if (order) {
    ssids::Vector<index_t> pos = an.order();
    for (int i = 0; i < view.n; ++i) order[i] = pos[i] + o.array_base;
  }
  if (!h) {
    h = new_registered_handle<AHandle>();
    *akeep = h;
  }
  h->keep.analysis = std::move(an);
  h->keep.inform = inf;
  h->keep.n = view.n;
  h->keep.ordering = o.ordering;
  h->keep.coord = coord;
  h->keep.coord_src = std::move(coord_src);
  copy_inform(inf, inform);
}

bool check_base(const spral_ssids_options* options, spral_ssids_inform* inform) {
  if (options->array_base != 0 && options->array_base != 1) {
    inform->flag = flag::bad_input;
    return false;
  }
  return true;
}

/// Shared body of factor and factor_ptr32 (ptr and row are not needed: the analysis maps val).
void factor_impl(bool posdef, const double* val, double* scale, void* akeep, void** fkeep,
                 const spral_ssids_options* options, spral_ssids_inform* inform) {
  if (!inform) return;
  clear_inform(inform);
  guarded(inform, [&] {
    AKeep* ak = as_akeep(akeep);
    if (!ak || !options || !fkeep) throw ssids::Error(flag::call_sequence, "factor before analyse");
    if (options->scaling == 3 && ak->ordering != 2)
      throw ssids::Error(flag::bad_scaling, "scaling 3 needs ordering 2");
    ssids::Options opt = translate(*options, scale != nullptr);
    opt.ordering = ssids::Ordering::natural;  // not used by factor
    ssids::Inform inf = ak->inform;
    inf.flag = 0;
    const double* v = val;
    ssids::Vector<double> permuted;
    if (ak->coord && val) {
      permuted.resize(ak->coord_src.size());
      for (std::size_t k = 0; k < permuted.size(); ++k) permuted[k] = val[ak->coord_src[k]];
      v = permuted.data();
    }
    if (!v && ak->n > 0) throw ssids::Error(flag::missing_data, "val is NULL");
    ssids::Factors f = ssids::factor(ak->analysis, v, posdef ? ssids::Mode::posdef : ssids::Mode::indefinite, opt,
                                     inf, opt.scaling == ssids::Scaling::user ? scale : nullptr);
    if (scale && options->scaling > 0) {
      const ssids::Vector<double>& used = f.numeric().scale;  // empty when no scaling was applied
      for (int i = 0; i < ak->n; ++i) scale[i] = used.empty() ? 1.0 : used[i];
    }
    FHandle* h = nullptr;
    if (FKeep* old = as_fkeep(*fkeep)) h = reinterpret_cast<FHandle*>(reinterpret_cast<char*>(old) - offsetof(FHandle, keep));
    if (!h) {
      h = new_registered_handle<FHandle>();
      *fkeep = h;
    }
    h->keep.factors = std::move(f);
    h->keep.posdef = posdef;
    copy_inform(inf, inform);
  });
}

}  // namespace

extern "C" {

void get_spral_version(char version[11]) {
  if (!version) return;
  static const char v[] = SPRAL_VERSION;
  static_assert(sizeof(v) <= 11, "SPRAL_VERSION must fit get_spral_version's buffer");
  std::memcpy(version, v, sizeof(v));
}

void spral_ssids_default_options(struct spral_ssids_options* options) {
  if (!options) return;
  std::memset(options, 0, sizeof(*options));
  options->array_base = 0;
  options->print_level = 0;
  options->unit_diagnostics = 6;
  options->unit_error = 6;
  options->unit_warning = 6;
  options->ordering = 1;
  options->nemin = 32;
  options->ignore_numa = true;
  options->use_gpu = true;
  options->min_gpu_work = 5000000000LL;
  options->max_load_inbalance = 1.2f;
  options->gpu_perf_coeff = 1.0f;
  options->scaling = 0;
  options->small_subtree_threshold = 4000000LL;
  options->cpu_block_size = 256;
  options->action = true;
  options->pivot_method = 2;
  options->small = 1e-20;
  options->u = 0.01;
}

void spral_ssids_analyse(bool /*check: ssids always checks*/, int n, int* order, const int64_t* ptr, const int* row,
                         const double* val, void** akeep, const struct spral_ssids_options* options,
                         struct spral_ssids_inform* inform) {
  if (!inform) return;
  clear_inform(inform);
  guarded(inform, [&] {
    if (!akeep || !options) throw ssids::Error(flag::missing_data, "akeep or options is NULL");
    if (!check_base(options, inform)) return;
    if (n < 0) throw ssids::Error(flag::bad_n, "n < 0");
    ssids::CscView view{n, ptr, row, val, options->array_base};
    analyse_view(view, order, akeep, *options, inform, {}, false, 0);
  });
}

void spral_ssids_analyse_ptr32(bool check, int n, int* order, const int* ptr, const int* row, const double* val,
                               void** akeep, const struct spral_ssids_options* options,
                               struct spral_ssids_inform* inform) {
  if (!inform) return;
  clear_inform(inform);
  guarded(inform, [&] {
    if (n < 0) throw ssids::Error(flag::bad_n, "n < 0");
    if (!ptr) throw ssids::Error(flag::missing_data, "ptr is NULL");
    ssids::Vector<int64_t> ptr64(ptr, ptr + n + 1);  // widened once; row and val are read in place
    spral_ssids_analyse(check, n, order, ptr64.data(), row, val, akeep, options, inform);
  });
}

void spral_ssids_analyse_coord(int n, int* order, int64_t ne, const int* row, const int* col, const double* val,
                               void** akeep, const struct spral_ssids_options* options,
                               struct spral_ssids_inform* inform) {
  if (!inform) return;
  clear_inform(inform);
  guarded(inform, [&] {
    if (!akeep || !options) throw ssids::Error(flag::missing_data, "akeep or options is NULL");
    if (!check_base(options, inform)) return;
    if (n < 0 || ne < 0 || (ne < 1 && n > 0)) throw ssids::Error(flag::bad_n, "n < 0 or ne < 1");
    if (ne > 0 && (!row || !col)) throw ssids::Error(flag::missing_data, "row or col is NULL");
    const int base = options->array_base;
    // Bucket the entries by column (counting sort, stable), in the given triangle: analyse mirrors upper
    // entries and sums duplicates. Entries whose column is out of range cannot be placed: counted here.
    ssids::Vector<int64_t> ptr(static_cast<std::size_t>(n) + 1, 0);
    int outrange = 0;
    for (int64_t k = 0; k < ne; ++k) {
      const int j = col[k] - base;
      if (j < 0 || j >= n) ++outrange;
      else ++ptr[j + 1];
    }
    if (ne > 0 && outrange == ne) throw ssids::Error(flag::all_out_of_range, "all entries out of range");
    for (int j = 0; j < n; ++j) ptr[j + 1] += ptr[j];
    ssids::Vector<int> rows(static_cast<std::size_t>(ptr[n]));
    ssids::Vector<offset_t> src(rows.size());
    ssids::Vector<int64_t> next(ptr.begin(), ptr.end() - 1);
    for (int64_t k = 0; k < ne; ++k) {
      const int j = col[k] - base;
      if (j < 0 || j >= n) continue;
      const int64_t p = next[j]++;
      rows[p] = row[k] - base;  // out-of-range rows are kept: analyse counts and drops them
      src[p] = k;
    }
    spral_ssids_options o = *options;
    o.array_base = 0;
    // the user order stays in the caller's base: translate it through a 0-based copy
    ssids::Vector<int> order0;
    int* ord = order;
    if (order) {
      order0.assign(static_cast<std::size_t>(n), 0);
      if (options->ordering == 0)
        for (int i = 0; i < n; ++i) order0[i] = order[i] - base;
      ord = order0.data();
    }
    ssids::Vector<double> val0;
    if (val && options->ordering == 2) {  // the matching ordering reads values in CSC positions
      val0.resize(src.size());
      for (std::size_t k = 0; k < src.size(); ++k) val0[k] = val[src[k]];
    }
    ssids::CscView view{n, ptr.data(), rows.data(), val0.empty() ? nullptr : val0.data(), 0};
    analyse_view(view, ord, akeep, o, inform, std::move(src), true, outrange);
    if (order)
      for (int i = 0; i < n; ++i) order[i] = order0[i] + base;
  });
}

void spral_ssids_analyse_topology(bool check, int n, int* order, const int64_t* ptr, const int* row,
                                  const double* val, void** akeep, const struct spral_ssids_options* options,
                                  struct spral_ssids_inform* inform, int /*nregions*/,
                                  const struct spral_numa_region* /*topology: ignored*/) {
  spral_ssids_analyse(check, n, order, ptr, row, val, akeep, options, inform);
}

void spral_ssids_factor(bool posdef, const int64_t* /*ptr*/, const int* /*row*/, const double* val, double* scale,
                        void* akeep, void** fkeep, const struct spral_ssids_options* options,
                        struct spral_ssids_inform* inform) {
  factor_impl(posdef, val, scale, akeep, fkeep, options, inform);
}

void spral_ssids_factor_ptr32(bool posdef, const int* /*ptr*/, const int* /*row*/, const double* val, double* scale,
                              void* akeep, void** fkeep, const struct spral_ssids_options* options,
                              struct spral_ssids_inform* inform) {
  factor_impl(posdef, val, scale, akeep, fkeep, options, inform);
}

void spral_ssids_solve(int job, int nrhs, double* x, int ldx, void* akeep, void* fkeep,
                       const struct spral_ssids_options* /*options*/, struct spral_ssids_inform* inform) {
  if (!inform) return;
  clear_inform(inform);
  guarded(inform, [&] {
    AKeep* ak = as_akeep(akeep);
    FKeep* fk = as_fkeep(fkeep);
    if (!ak || !fk || fk->factors.empty()) throw ssids::Error(flag::call_sequence, "solve before factor");
    if (job < 0 || job > 4) throw ssids::Error(flag::bad_job, "job must be 0..4");
    if (fk->posdef && (job == 2 || job == 4)) throw ssids::Error(flag::bad_job, "job 2 and 4 need indefinite factors");
    ssids::Inform inf;
    fk->factors.solve(static_cast<ssids::SolveJob>(job), nrhs, x, ldx, inf);
    inform->flag = 0;
  });
}

void spral_ssids_solve1(int job, double* x1, void* akeep, void* fkeep, const struct spral_ssids_options* options,
                        struct spral_ssids_inform* inform) {
  const AKeep* ak = as_akeep(akeep);
  spral_ssids_solve(job, 1, x1, ak ? ak->n : 0, akeep, fkeep, options, inform);
}

int spral_ssids_free_akeep(void** akeep) {
  if (!akeep || !*akeep) return 0;
  if (as_akeep(*akeep) && unregister_handle(*akeep)) delete static_cast<AHandle*>(*akeep);
  *akeep = nullptr;
  return 0;
}

int spral_ssids_free_fkeep(void** fkeep) {
  if (!fkeep || !*fkeep) return 0;
  if (as_fkeep(*fkeep) && unregister_handle(*fkeep)) delete static_cast<FHandle*>(*fkeep);
  *fkeep = nullptr;
  return 0;
}

int spral_ssids_free(void** akeep, void** fkeep) {
  const int a = spral_ssids_free_akeep(akeep);
  const int f = spral_ssids_free_fkeep(fkeep);
  return a != 0 ? a : f;
}

void spral_ssids_enquire_posdef(const void* akeep, const void* fkeep, const struct spral_ssids_options* /*options*/,
                                struct spral_ssids_inform* inform, double* d) {
  if (!inform) return;
  clear_inform(inform);
  guarded(inform, [&] {
    FKeep* fk = as_fkeep(fkeep);
    if (!as_akeep(akeep) || !fk || fk->factors.empty()) throw ssids::Error(flag::call_sequence, "enquire before factor");
    fk->factors.enquire_posdef(d);
  });
}

void spral_ssids_enquire_indef(const void* akeep, const void* fkeep, const struct spral_ssids_options* options,
                               struct spral_ssids_inform* inform, int* piv_order, double* d) {
  if (!inform) return;
  clear_inform(inform);
  guarded(inform, [&] {
    FKeep* fk = as_fkeep(fkeep);
    if (!as_akeep(akeep) || !fk || fk->factors.empty()) throw ssids::Error(flag::call_sequence, "enquire before factor");
    fk->factors.enquire_indef(piv_order, d);  // signed 1-based positions
    // SPRAL's C interface gives positions in array_base: |piv_order[i]| - base is the position, the sign
    // marks 2x2 pivots (so with base 0 a 2x2 pivot at position 0 reads as 0, as in SPRAL)
    const int base = options ? options->array_base : 0;
    if (piv_order && base == 0)
      for (index_t i = 0; i < fk->factors.n(); ++i) piv_order[i] += piv_order[i] > 0 ? -1 : 1;
  });
}

void spral_ssids_alter(const double* d, const void* akeep, void* fkeep, const struct spral_ssids_options* /*options*/,
                       struct spral_ssids_inform* inform) {
  if (!inform) return;
  clear_inform(inform);
  guarded(inform, [&] {
    FKeep* fk = as_fkeep(fkeep);
    if (!as_akeep(akeep) || !fk || fk->factors.empty()) throw ssids::Error(flag::call_sequence, "alter before factor");
    fk->factors.alter(d);
  });
}

}  // extern "C"
