// ssids_capi.cpp — the SPRAL-compatible C interface (include/ssids/spral_ssids.h) over the C++ API.
//
// The aim is a drop-in libspral: every call leaves in inform, the handles and the output arrays what SPRAL
// 2025.09.18 leaves there, as tests/test_spral_diff.cpp checks against SPRAL itself. Conventions:
//  * inform is overwritten whole by every call (SPRAL's is intent(out)): fields a call does not report are 0.
//  * analyse reports the tree with SPRAL's definitions (capi_inform.hpp); factor reports the tree again
//    (num_sup, maxdepth, the input-check counts) with the factorization's statistics; solve repeats
//    factor's statistics with the solve's flag (factor's warning, or the solve's error). The analysis is
//    built with Amalgamation::spral, so for the same pivot order the tree is SPRAL's.
//  * Warnings are SPRAL's: input warnings (+1..+5) only when analyse checks the data; +6 when the checked
//    matrix has empty columns or the matching ordering finds it structurally singular; factor starts from
//    analyse's warning, +8 when the matching ordering's scaling is not used, +7 when singular.
//  * Index base: array_base 0 is C indexing, any other value Fortran (1-based), as in SPRAL. CscView reads
//    the caller's ptr/row in place; only the int32 ptr of the _ptr32 forms is widened to int64 and coordinate
//    input is converted to CSC (temporary copies).
//  * Handles (capi_handles.hpp) are created before anything is checked, as SPRAL's are, and stay allocated
//    after a failed call, marked unusable. A pointer that is not a live handle counts as absent: where SPRAL
//    would dereference a NULL or stale handle (and crash), the call returns -1.
//  * No exception crosses into C: ssids::Error becomes inform->flag (codes are equal), std::bad_alloc -50,
//    anything else -99.
#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstring>
#include <exception>
#include <memory>
#include <new>
#include <string>
#include <utility>

#include "analyse/analysis_cache.hpp"
#include "capi/capi_handles.hpp"
#include "capi/capi_inform.hpp"
#include "factor/factor_gpu.hpp"
#include "factor/numeric.hpp"
#include "factor/pivot_tests.hpp"
#include "ssids/analyse.hpp"
#include "ssids/error.hpp"
#include "ssids/factor.hpp"
#include "ssids/memory.hpp"
#include "ssids/spral.h"
#include "ssids/spral_ssids.h"

namespace {

using ssids::index_t;
using ssids::offset_t;
using ssids::capi::AKeep;
using ssids::capi::FKeep;
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

void clear_inform(spral_ssids_inform* inform) { std::memset(inform, 0, sizeof(*inform)); }

/// Runs `body`, turning every exception into inform->flag.
template <class F>
void guarded(spral_ssids_inform* inform, F&& body) {
  try {
    body();
  } catch (const ssids::Error& e) {
    ssids::capi::inform_from_error(e, *inform);
  } catch (const std::bad_alloc&) {
    inform->flag = flag::allocation;
  } catch (...) {
    inform->flag = flag::unknown;
  }
}

/// array_base as SPRAL reads it: 0 is C indexing, anything else Fortran indexing.
int base_of(const spral_ssids_options& o) { return o.array_base == 0 ? 0 : 1; }

/// C options -> C++ options. Throws Error for values that have no meaning here.
ssids::Options translate(const spral_ssids_options& o, bool scale_given) {
  ssids::Options opt;
  opt.print_level = -1;  // the C interface prints nothing (units are ignored)
  switch (o.ordering) {
    case 0: opt.ordering = ssids::Ordering::user; break;
    case 1: opt.ordering = ssids::Ordering::metis; break;
    case 2: opt.ordering = ssids::Ordering::matching; break;
    case 3: opt.ordering = ssids::Ordering::natural; break;  // extension
    case 4: opt.ordering = ssids::Ordering::amd; break;      // extension
    default: throw ssids::Error(flag::bad_order, "options.ordering must be 0, 1 or 2 (3, 4: extensions)");
  }
  opt.nemin = o.nemin < 1 ? ssids::Options{}.nemin : o.nemin;  // SPRAL: nemin < 1 means the default
  opt.amalgamation = ssids::Amalgamation::spral;                // SPRAL's tree, hence its statistics
  if (o.scaling <= 0) opt.scaling = scale_given ? ssids::Scaling::user : ssids::Scaling::none;
  else opt.scaling = static_cast<ssids::Scaling>(o.scaling > 4 ? 4 : o.scaling);  // SPRAL: 4 and above equilibrate
  // pivot_method selects among SPRAL's own pivoting kernels; every value is served by the same threshold
  // partial pivoting here, so it is ignored (SPRAL clamps it to 1..3)
  opt.u = o.u;
  opt.small = o.small;
  opt.action = o.action;
  opt.backend = o.use_gpu ? ssids::Backend::automatic : ssids::Backend::cpu;
  // cpu_block_size is ignored: SPRAL's value tunes SPRAL's own kernels; ours keep the C++ default, so that
  // the C interface gives bitwise the results of the C++ API with the same options
  opt.min_gpu_work = o.min_gpu_work;
  return opt;
}

/// The combined input warning of analyse's data check (SPRAL's numbering).
int input_warning(int outrange, int dup, int missing_diag) {
  const int other = (outrange > 0 ? 1 : 0) + (dup > 0 ? 2 : 0);
  if (missing_diag > 0) return other ? flag::missing_diagonal_and_other : flag::missing_diagonal;
  return other;
}

/// The analysis handle of an analyse call: reused when *akeep is live, else a new one; either way
/// unusable until the analysis succeeds (SPRAL releases the old analysis first). The previous Analysis
/// itself stays in the handle until analyse_view replaces it.
AKeep* begin_analyse(void** akeep) {
  AKeep* ak = ssids::capi::akeep_in(akeep);
  ak->valid = false;
  ak->src.clear();
  ak->remapped = false;
  return ak;
}

/// CSC input as SPRAL reads it, where that differs from CscView's reading: entries in the upper triangle
/// are out of range and ignored (coordinate input mirrors them instead), and a first column pointer past
/// the base skips the entries before it. The analysis then sees a 0-based copy of the entries kept.
/// Arrays that are missing or whose pointers are malformed are left to analyse to report.
struct LowerPart {
  ssids::Vector<int64_t> ptr;
  ssids::Vector<int> row;
  ssids::Vector<double> val;     ///< copied when given (the matching ordering reads it)
  ssids::Vector<offset_t> src;   ///< entry k of the copy is the caller's entry src[k]
  int dropped = 0;               ///< upper-triangle entries (counted as out of range)
  /// True (and the copy made) when the arrays need it.
  bool extract(int n, const int64_t* p, const int* r, const double* v, int base) {
    if (n <= 0 || !p || !r || p[0] < base) return false;
    int64_t upper = 0;
    for (int j = 0; j < n; ++j) {
      if (p[j + 1] < p[j]) return false;
      for (int64_t k = p[j] - base; k < p[j + 1] - base; ++k) {
        const int i = r[k] - base;
        upper += i >= 0 && i < j;
      }
    }
    if (upper == 0 && p[0] == base) return false;
    dropped = static_cast<int>(upper);
    ptr.assign(static_cast<std::size_t>(n) + 1, 0);
    row.reserve(static_cast<std::size_t>(p[n] - p[0] - upper));
    src.reserve(row.capacity());
    for (int j = 0; j < n; ++j) {
      for (int64_t k = p[j] - base; k < p[j + 1] - base; ++k) {
        const int i = r[k] - base;
        if (i >= 0 && i < j) continue;
        row.push_back(i);  // out-of-range rows stay: analyse counts and drops them
        src.push_back(k);
      }
      ptr[j + 1] = static_cast<int64_t>(row.size());
    }
    if (row.empty() && upper > 0)
      throw ssids::Error(flag::all_out_of_range, "every entry is out of range (upper triangle)");
    if (v) {
      val.resize(src.size());
      for (std::size_t k = 0; k < src.size(); ++k) val[k] = v[src[k]];
    }
    return true;
  }
};

/// SPRAL's checked analyse of CSC input fails with -4 as soon as one column has entries and none of them in
/// range (below the diagonal or on it, row < n), not only when every entry is out of range. Malformed
/// pointers are left to analyse to report.
void check_columns_in_range(int n, const int64_t* p, const int* r, int base) {
  if (n <= 0 || !p || !r || p[0] < base) return;
  for (int j = 0; j < n; ++j)
    if (p[j + 1] < p[j]) return;
  for (int j = 0; j < n; ++j) {
    bool any = false;
    for (int64_t k = p[j] - base; k < p[j + 1] - base && !any; ++k) any = r[k] - base >= j && r[k] - base < n;
    if (p[j + 1] > p[j] && !any)
      throw ssids::Error(flag::all_out_of_range, "every entry of column " + std::to_string(j) + " is out of range");
  }
}

/// Shared tail of every analyse form: runs ssids::analyse on `view` and fills the handle and inform.
/// `order` (in view.base, signs already dropped): the user order in, the order used out. `check`: report
/// the data check as SPRAL's checked analyse does. `extra_outrange`: coordinate entries dropped before the
/// view was built. `dup_weight`: SPRAL counts each duplicate of CSC input twice, of coordinate input once.
void analyse_view(AKeep* ak, const ssids::CscView& view, int* order, bool check, const spral_ssids_options& o,
                  spral_ssids_inform* inform, int extra_outrange, int dup_weight) {
  ssids::Options opt = translate(o, false);
  if (o.ordering == 2 && !view.val) throw ssids::Error(flag::missing_values, "the matching ordering needs val");
  if (o.ordering == 0 && !order) throw ssids::Error(flag::bad_order, "ordering 0 needs order");
  ssids::Inform inf;
  // through the cache of recent analyses: a caller that frees and analyses the same pattern again (IPOPT) reuses it
  ssids::Analysis an = ssids::detail::analyse_cached(view, opt, inf, o.ordering == 0 ? order : nullptr);
  spral_ssids_inform& st = ak->stats;
  clear_inform(&st);
  int fl = 0;
  if (check) {
    st.matrix_dup = dup_weight * inf.matrix_dup;
    st.matrix_outrange = inf.matrix_outrange + extra_outrange;
    fl = input_warning(st.matrix_outrange, st.matrix_dup, inf.matrix_missing_diag);
  }
  if (inf.flag == flag::structurally_singular) fl = flag::structurally_singular;  // the matching ordering's
  ak->excluded = ssids::capi::empty_columns(an);
  if (ak->excluded > 0) fl = flag::structurally_singular;
  ssids::capi::analyse_statistics(an, ak->excluded, st);
  st.flag = fl;
  if (order) {
    const ssids::Vector<index_t> pos = an.order();
    for (int i = 0; i < view.n; ++i) order[i] = pos[i] + view.base;
  }
  ak->analysis = std::move(an);
  ak->n = view.n;
  ak->check = check;
  ak->ordering = o.ordering;
  ak->flag = fl;
  ak->valid = true;
  *inform = st;
}

/// Shared body of factor and factor_ptr32: only the analysis maps val, so ptr and row are only checked for
/// presence (SPRAL needs them when analyse did not check the data).
void factor_impl(bool posdef, const void* ptr, const int* row, const double* val, double* scale, void* akeep,
                 void** fkeep, const spral_ssids_options* options, spral_ssids_inform* inform) {
  if (!inform) return;
  clear_inform(inform);
  if (!options || !fkeep) {
    inform->flag = flag::missing_data;
    return;
  }
  AKeep* ak = ssids::capi::as_akeep(akeep);
  if (!ak) {  // SPRAL dereferences the missing analysis
    inform->flag = flag::call_sequence;
    return;
  }
  guarded(inform, [&] {
    FKeep* fk = ssids::capi::fkeep_in(fkeep);
    fk->valid = false;
    fk->factors = ssids::Factors();
    if (!ak->valid) throw ssids::Error(flag::call_sequence, "factor before a successful analyse");
    // factor's inform starts from analyse's tree (what an error leaves there too)
    inform->matrix_dup = ak->stats.matrix_dup;
    inform->matrix_outrange = ak->stats.matrix_outrange;
    inform->matrix_missing_diag = ak->stats.matrix_missing_diag;
    inform->maxdepth = ak->stats.maxdepth;
    inform->num_sup = ak->stats.num_sup;
    inform->maxfront = ak->stats.maxfront;
    inform->maxsupernode = ak->stats.maxsupernode;
    inform->matrix_rank = ak->stats.matrix_rank;
    if (ak->n - ak->excluded == 0) {  // no tree: nothing to factorize
      fk->valid = true;
      fk->posdef = posdef;
      fk->stats = *inform;
      return;
    }
    if (!ak->check && (!ptr || !row)) throw ssids::Error(flag::missing_data, "ptr and row are needed (check = false)");
    if (options->scaling == 3 && ak->ordering != 2)
      throw ssids::Error(flag::bad_scaling, "scaling 3 needs the matching ordering");
    ssids::Options opt = translate(*options, scale != nullptr);
    opt.ordering = ssids::Ordering::natural;  // not used by factor
    const double* v = val;
    ssids::Vector<double> permuted;
    if (ak->remapped && val) {
      permuted.resize(ak->src.size());
      for (std::size_t k = 0; k < permuted.size(); ++k) permuted[k] = val[ak->src[k]];
      v = permuted.data();
    }
    if (!v) throw ssids::Error(flag::missing_data, "val is NULL");
    ssids::Inform inf;
    ssids::Factors f = ssids::factor(ak->analysis, v, posdef ? ssids::Mode::posdef : ssids::Mode::indefinite, opt,
                                     inf, opt.scaling == ssids::Scaling::user ? scale : nullptr);
    if (scale && options->scaling > 0 && options->scaling != 3) {  // SPRAL returns computed scalings only
      const ssids::Vector<double>& used = f.numeric().scale;
      for (int i = 0; i < ak->n; ++i) scale[i] = used.empty() ? 1.0 : used[i];
    }
    int fl = ak->flag;
    if (ak->ordering == 2 && options->scaling != 3) fl = flag::matching_scaling_ignored;
    if (inf.matrix_rank < ak->n) fl = flag::warn_singular;
    ssids::capi::factor_statistics(*ak, f, inf, *inform);
    inform->flag = fl;
    fk->factors = std::move(f);
    fk->posdef = posdef;
    fk->stats = *inform;
    fk->valid = true;
  });
}

/// The handles of a call that needs a successful factorization, or nullptr after setting inform's flag.
FKeep* factored(void* akeep, void* fkeep, spral_ssids_inform* inform) {
  AKeep* ak = ssids::capi::as_akeep(akeep);
  FKeep* fk = ssids::capi::as_fkeep(fkeep);
  if (!ak || !fk || !ak->valid || !fk->valid || fk->factors.empty()) {
    inform->flag = flag::call_sequence;
    return nullptr;
  }
  return fk;
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
  options->u = static_cast<double>(0.01f);  // SPRAL's default is the single-precision constant 0.01
}

void spral_ssids_analyse(bool check, int n, int* order, const int64_t* ptr, const int* row, const double* val,
                         void** akeep, const struct spral_ssids_options* options,
                         struct spral_ssids_inform* inform) {
  if (!inform) return;
  clear_inform(inform);
  if (!akeep || !options) {
    inform->flag = flag::missing_data;
    return;
  }
  guarded(inform, [&] {
    AKeep* ak = begin_analyse(akeep);
    if (n < 0) throw ssids::Error(flag::bad_n, "n < 0");
    ssids::Vector<int> ord;  // order in and out, written back only when analyse succeeds
    if (order) {
      ord.assign(order, order + n);
      if (options->ordering == 0)
        for (int& p : ord) p = std::abs(p);  // SPRAL ignores (and clears) 2x2 marks
    }
    const int base = base_of(*options);
    if (check) check_columns_in_range(n, ptr, row, base);
    ssids::CscView view{n, ptr, row, val, base};
    LowerPart lower;  // used only when the caller's arrays hold upper-triangle entries
    const bool copied = lower.extract(n, ptr, row, options->ordering == 2 ? val : nullptr, base);
    if (copied) {
      view = ssids::CscView{n, lower.ptr.data(), lower.row.data(), val ? lower.val.data() : nullptr, 0};
      if (order)
        for (int& p : ord) p -= base;
    }
    analyse_view(ak, view, order ? ord.data() : nullptr, check, *options, inform, lower.dropped, 2);
    if (copied) {
      ak->remapped = true;
      ak->src = std::move(lower.src);
      if (order)
        for (int& p : ord) p += base;
    }
    if (order) std::copy(ord.begin(), ord.end(), order);
  });
}

void spral_ssids_analyse_ptr32(bool check, int n, int* order, const int* ptr, const int* row, const double* val,
                               void** akeep, const struct spral_ssids_options* options,
                               struct spral_ssids_inform* inform) {
  if (!inform) return;
  clear_inform(inform);
  guarded(inform, [&] {
    ssids::Vector<int64_t> ptr64;  // widened once; row and val are read in place
    if (ptr && n >= 0) ptr64.assign(ptr, ptr + n + 1);
    spral_ssids_analyse(check, n, order, ptr ? ptr64.data() : nullptr, row, val, akeep, options, inform);
  });
}

void spral_ssids_analyse_coord(int n, int* order, int64_t ne, const int* row, const int* col, const double* val,
                               void** akeep, const struct spral_ssids_options* options,
                               struct spral_ssids_inform* inform) {
  if (!inform) return;
  clear_inform(inform);
  if (!akeep || !options) {
    inform->flag = flag::missing_data;
    return;
  }
  guarded(inform, [&] {
    AKeep* ak = begin_analyse(akeep);
    if (n < 0 || ne < 0) throw ssids::Error(flag::bad_n, "n < 0 or ne < 0");
    if (ne > 0 && (!row || !col)) throw ssids::Error(flag::missing_data, "row or col is NULL");
    const int base = base_of(*options);
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
    ssids::Vector<int> order0;  // the order in the 0-based view
    if (order) {
      order0.assign(order, order + n);
      if (options->ordering == 0)
        for (int& p : order0) p = std::abs(p) - base;
    }
    ssids::Vector<double> val0;
    if (val && options->ordering == 2) {  // the matching ordering reads values in CSC positions
      val0.resize(src.size());
      for (std::size_t k = 0; k < src.size(); ++k) val0[k] = val[src[k]];
    }
    ssids::CscView view{n, ptr.data(), rows.data(), val ? val0.data() : nullptr, 0};
    if (val && val0.empty()) view.val = val;  // only its presence matters to analyse
    analyse_view(ak, view, order ? order0.data() : nullptr, true, *options, inform, outrange, 1);
    ak->remapped = true;
    ak->src = std::move(src);
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

void spral_ssids_factor(bool posdef, const int64_t* ptr, const int* row, const double* val, double* scale,
                        void* akeep, void** fkeep, const struct spral_ssids_options* options,
                        struct spral_ssids_inform* inform) {
  factor_impl(posdef, ptr, row, val, scale, akeep, fkeep, options, inform);
}

void spral_ssids_factor_ptr32(bool posdef, const int* ptr, const int* row, const double* val, double* scale,
                              void* akeep, void** fkeep, const struct spral_ssids_options* options,
                              struct spral_ssids_inform* inform) {
  factor_impl(posdef, ptr, row, val, scale, akeep, fkeep, options, inform);
}

void spral_ssids_solve(int job, int nrhs, double* x, int ldx, void* akeep, void* fkeep,
                       const struct spral_ssids_options* /*options*/, struct spral_ssids_inform* inform) {
  if (!inform) return;
  clear_inform(inform);
  guarded(inform, [&] {
    AKeep* ak = ssids::capi::as_akeep(akeep);
    if (ak && ak->valid && ak->n - ak->excluded == 0) return;  // no tree: nothing to solve (SPRAL: flag 0)
    FKeep* fk = factored(akeep, fkeep, inform);
    if (!fk) return;
    inform->flag = fk->stats.flag > 0 ? fk->stats.flag : 0;  // factor's warning stays
    if (ldx < ak->n || nrhs < 1) throw ssids::Error(flag::bad_ldx, "ldx < n or nrhs < 1");
    const int fl = inform->flag;
    *inform = fk->stats;
    inform->flag = fl;
    if (job < 0 || job > 4 || (fk->posdef && (job == 2 || job == 4)))
      throw ssids::Error(flag::bad_job, "job must be 0..4 (0, 1, 3 for positive-definite factors)");
    if (!x) throw ssids::Error(flag::missing_data, "x is NULL");
    ssids::Inform inf;
    fk->factors.solve(static_cast<ssids::SolveJob>(job), nrhs, x, ldx, inf);
  });
}

void spral_ssids_solve1(int job, double* x1, void* akeep, void* fkeep, const struct spral_ssids_options* options,
                        struct spral_ssids_inform* inform) {
  const AKeep* ak = ssids::capi::as_akeep(akeep);
  spral_ssids_solve(job, 1, x1, ak ? ak->n : 0, akeep, fkeep, options, inform);
}

int spral_ssids_free_akeep(void** akeep) {
  if (akeep) ssids::capi::free_akeep(akeep);
  return 0;
}

int spral_ssids_free_fkeep(void** fkeep) {
  if (fkeep) ssids::capi::free_fkeep(fkeep);
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
    FKeep* fk = factored(const_cast<void*>(akeep), const_cast<void*>(fkeep), inform);
    if (!fk) return;
    if (!fk->posdef) throw ssids::Error(flag::not_indefinite, "enquire_posdef on indefinite factors");
    if (!d) throw ssids::Error(flag::missing_data, "d is NULL");
    fk->factors.enquire_posdef(d);
  });
}

void spral_ssids_enquire_indef(const void* akeep, const void* fkeep, const struct spral_ssids_options* options,
                               struct spral_ssids_inform* inform, int* piv_order, double* d) {
  if (!inform) return;
  clear_inform(inform);
  guarded(inform, [&] {
    FKeep* fk = factored(const_cast<void*>(akeep), const_cast<void*>(fkeep), inform);
    if (!fk) return;
    if (fk->posdef) throw ssids::Error(flag::not_posdef_factors, "enquire_indef on positive-definite factors");
    const ssids::detail::NumericFactors& nf = fk->factors.numeric();
    if (piv_order) {
      fk->factors.enquire_indef(piv_order, nullptr);  // signed 1-based positions
      // C indexing: SPRAL returns |position| - 1, losing the 2x2 marks (0 and -0 would be the same)
      if (!options || base_of(*options) == 0)
        for (index_t i = 0; i < nf.n; ++i) piv_order[i] = std::abs(piv_order[i]) - 1;
    }
    if (d) std::copy(nf.dinv.begin(), nf.dinv.end(), d);  // SPRAL's d holds D^{-1}
  });
}

void spral_ssids_alter(const double* d, const void* akeep, void* fkeep, const struct spral_ssids_options* /*options*/,
                       struct spral_ssids_inform* inform) {
  if (!inform) return;
  clear_inform(inform);
  guarded(inform, [&] {
    FKeep* fk = factored(const_cast<void*>(akeep), fkeep, inform);
    if (!fk) return;
    if (fk->posdef) throw ssids::Error(flag::not_posdef_factors, "alter on positive-definite factors");
    if (!d) throw ssids::Error(flag::missing_data, "d is NULL");
    // d holds D^{-1} (SPRAL's layout): keep it as given, D follows; the 1x1/2x2 structure is kept
    auto nf = std::allocate_shared<ssids::detail::NumericFactors>(
        ssids::Allocator<ssids::detail::NumericFactors>(), fk->factors.numeric());
    for (index_t k = 0; k < nf->n; ++k) {
      if (nf->d[2 * k + 1] != 0.0 && k + 1 < nf->n) {
        const double i11 = d[2 * k], i21 = d[2 * k + 1], i22 = d[2 * k + 2];
        nf->dinv[2 * k] = i11;
        nf->dinv[2 * k + 1] = i21;
        nf->dinv[2 * k + 2] = i22;
        double d11 = 0.0, d21 = 0.0, d22 = 0.0;
        const double det = i11 * i22 - i21 * i21;
        if (det != 0.0 && std::isfinite(det)) ssids::detail::two_by_two_inverse(i11, i21, i22, d11, d21, d22);
        nf->d[2 * k] = d11;
        nf->d[2 * k + 1] = d21 != 0.0 ? d21 : nf->d[2 * k + 1];  // keep the 2x2 mark
        nf->d[2 * k + 2] = d22;
        ++k;
      } else {
        nf->dinv[2 * k] = d[2 * k];
        nf->d[2 * k] = d[2 * k] != 0.0 ? 1.0 / d[2 * k] : 0.0;
      }
    }
    if (nf->device) nf->device_diag = ssids::detail::upload_device_diag(*nf);
    fk->factors = ssids::Factors(std::move(nf));
  });
}

}  // extern "C"
