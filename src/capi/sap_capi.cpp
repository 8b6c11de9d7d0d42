// sap_capi.cpp — the C entry point of the SaP path (include/ssids/ssids_sap.h): copies the caller's CSR
// arrays into a 0-based CsrMatrix (the SaP setup reorders and scales its own copy anyway), calls
// ssids::sap::solve, and turns every exception into a flag; no exception crosses into C.
#include "ssids/ssids_sap.h"

#include <new>
#include <string>

#include "ssids/error.hpp"
#include "ssids/sap.hpp"

void ssids_sap_default_options(struct ssids_sap_options* o) {
  if (!o) return;
  const ssids::sap::SapOptions d;
  o->array_base = 0;
  o->partitions = d.partitions;
  o->variant = static_cast<int>(d.variant);
  o->drop = d.drop;
  o->max_bandwidth = d.max_bandwidth;
  o->krylov = static_cast<int>(d.krylov);
  o->rtol = d.rtol;
  o->atol = d.atol;
  o->max_iterations = d.max_iterations;
  o->restart = d.restart;
  o->use_initial_guess = d.use_initial_guess ? 1 : 0;
  o->backend = static_cast<int>(d.backend);
  o->mixed_precision = d.mixed_precision ? 1 : 0;
}

int ssids_sap_solve(int n, const int64_t* ptr, const int* col, const double* val, const double* b, double* x,
                    const struct ssids_sap_options* options, struct ssids_sap_inform* inform) {
  struct ssids_sap_inform dummy;
  ssids_sap_inform& inf = inform ? *inform : dummy;
  inf = ssids_sap_inform{};
  try {
    ssids_sap_options o;
    ssids_sap_default_options(&o);
    if (options) o = *options;
    if (n < 0) throw ssids::Error(ssids::flag::bad_n, "n < 0");
    if (o.array_base != 0 && o.array_base != 1) throw ssids::Error(ssids::flag::bad_input, "array_base must be 0 or 1");
    if (o.variant < 0 || o.variant > 1 || o.krylov < 0 || o.krylov > 3)
      throw ssids::Error(ssids::flag::bad_input, "variant or krylov out of range");
    if (o.backend < 0 || o.backend > 2) throw ssids::Error(ssids::flag::bad_input, "backend must be 0, 1 or 2");
    if (n > 0 && (!ptr || !b || !x)) throw ssids::Error(ssids::flag::missing_data, "ptr, b or x missing");
    const int base = o.array_base;
    ssids::CsrMatrix a;
    a.nrow = a.ncol = n;
    a.ptr.resize(static_cast<size_t>(n) + 1);
    if (n > 0) {
      if (ptr[0] != base) throw ssids::Error(ssids::flag::bad_ptr, "ptr[0] must equal array_base");
      for (int i = 0; i < n; ++i)
        if (ptr[i + 1] < ptr[i]) throw ssids::Error(ssids::flag::bad_ptr, "ptr is not monotone");
      const int64_t nnz = ptr[n] - base;
      if (nnz > 0 && (!col || !val)) throw ssids::Error(ssids::flag::missing_data, "col or val missing");
      for (int i = 0; i <= n; ++i) a.ptr[i] = ptr[i] - base;
      a.col.resize(static_cast<size_t>(nnz));
      a.val.assign(val, val + nnz);
      for (int64_t k = 0; k < nnz; ++k) {
        const int c = col[k] - base;
        if (c < 0 || c >= n) throw ssids::Error(ssids::flag::bad_input, "column index out of range in row list");
        a.col[k] = c;
      }
    }
    ssids::sap::SapOptions so;
    so.partitions = o.partitions;
    so.variant = static_cast<ssids::sap::Variant>(o.variant);
    so.drop = o.drop;
    so.max_bandwidth = o.max_bandwidth;
    so.krylov = static_cast<ssids::sap::Krylov>(o.krylov);
    so.rtol = o.rtol;
    so.atol = o.atol;
    so.max_iterations = o.max_iterations;
    so.restart = o.restart;
    so.use_initial_guess = o.use_initial_guess != 0;
    so.backend = o.backend == 1 ? ssids::Backend::gpu : o.backend == 2 ? ssids::Backend::automatic : ssids::Backend::cpu;
    so.mixed_precision = o.mixed_precision != 0;
    ssids::sap::SapInform si;
    ssids::sap::solve(a, b, x, so, si);
    inf.status = static_cast<int>(si.status);
    inf.iterations = si.iterations;
    inf.relative_residual = si.relative_residual;
    inf.bandwidth = si.bandwidth;
    inf.partitions = si.partitions;
    inf.boosted_pivots = si.boosted_pivots + si.boosted_pivots_ul;
    inf.time_setup = si.time_setup;
    inf.time_solve = si.time_solve;
    inf.backend = si.backend == ssids::Backend::gpu ? 1 : 0;
    inf.flag = 0;
  } catch (const ssids::Error& e) {
    inf.flag = e.code();
  } catch (const std::bad_alloc&) {
    inf.flag = ssids::flag::allocation;
  } catch (...) {
    inf.flag = ssids::flag::unknown;
  }
  return inf.flag;
}
