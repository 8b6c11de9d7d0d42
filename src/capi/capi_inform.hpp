// capi_inform.hpp — the statistics of spral_ssids_inform with SPRAL's definitions, from our analysis and
// factors (ssids_capi.cpp), and the translation of errors into inform.
//
// SPRAL's definitions (SPRAL 2025.09.18, established by running it: tests/test_spral_diff.cpp):
//  * num_flops: the sum, over eliminated columns, of the square of the column's length in L (diagonal
//    included). The C++ Inform counts m^2 + 2m per column (m entries below the diagonal: the multiply-adds of
//    the update and the column scaling), one less per column: the C interface adds the number of columns.
//    (The 5176 against 170 of the issue was not this but the tree: SPRAL's nemin rule had merged the whole
//    small KKT system into one front; the C interface now builds SPRAL's tree, Amalgamation::spral.)
//  * num_factor: entries of L, diagonal included (the same as ours).
//  * num_sup, maxdepth, maxfront, maxsupernode: nodes, levels, largest front and most columns of a node of
//    the assembly tree; after factor, maxfront and maxsupernode are those of the fronts as factorized (with
//    delayed columns) and maxsupernode counts the columns eliminated at a node.
//  * With check = true, SPRAL leaves columns that have no entry at all out of its tree (warning 6, rank n
//    minus their number at analyse); our tree keeps them as 1x1 nodes (zero pivots), so they are subtracted
//    from num_sup, num_factor and num_flops. With check = false SPRAL keeps them, as we do.
#pragma once
#include "capi/capi_handles.hpp"
#include "ssids/error.hpp"
#include "ssids/inform.hpp"

namespace ssids {
namespace capi {

/// Columns with no entry at all (no diagonal, nothing in their row or column): nodes of one column and
/// one row that have no children and receive no entry of A.
int empty_columns(const Analysis& an);

/// analyse's statistics: num_sup, maxdepth, maxfront, maxsupernode, num_factor, num_flops and matrix_rank
/// (n minus the excluded empty columns) of the analysis; the other fields are left alone.
void analyse_statistics(const Analysis& an, int excluded, spral_ssids_inform& out);

/// factor's statistics: everything analyse reported for the tree, then matrix_rank, num_neg, num_two,
/// num_delay, maxfront, maxsupernode, num_factor and num_flops of the factorization `inf` describes.
void factor_statistics(const AKeep& ak, const Factors& f, const Inform& inf, spral_ssids_inform& out);

/// inform for an exception: flag = the error's code (bad_alloc: -50, anything else: -99), with
/// cuda_error / cublas_error set to the CUDA or cuBLAS status for -51 / -52.
void inform_from_error(const Error& e, spral_ssids_inform& out);

}  // namespace capi
}  // namespace ssids
