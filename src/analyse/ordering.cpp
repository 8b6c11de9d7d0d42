// ordering.cpp — fill-reducing orderings (see ordering.hpp).
// METIS 5 convention (METIS 5 manual, METIS_NodeND): row i of the permuted matrix is row perm[i] of A and
// iperm[v] is the position of vertex v, i.e. METIS's perm is our perm and its iperm our invp.
#include "analyse/ordering.hpp"

#include <metis.h>

#include <climits>
#include <string>

#include "analyse/ordering_amd.hpp"
#include "analyse/dense_rows.hpp"
#include "analyse/metis_random.hpp"
#include "analyse/nested_dissection.hpp"
#include "analyse/ordering_matching.hpp"
#include "analyse/profile.hpp"
#include "analyse/tasks.hpp"
#include "ssids/error.hpp"

namespace ssids {
namespace detail {

Vector<index_t> inverse_permutation(const Vector<index_t>& perm) {
  Vector<index_t> invp(perm.size());
  for (size_t k = 0; k < perm.size(); ++k) invp[perm[k]] = static_cast<index_t>(k);
  return invp;
}

namespace {

Vector<index_t> identity(index_t n) {
  Vector<index_t> p(static_cast<size_t>(n));
  for (index_t k = 0; k < n; ++k) p[k] = k;
  return p;
}

}  // namespace

Vector<index_t> metis_order(const Graph& g, const index_t* vwgt) {
  const index_t n = g.n;
  // METIS cannot handle a graph without edges (and n = 1 is trivial): any order gives no fill.
  if (n <= 1 || g.num_edges() == 0) return identity(n);
  if (g.num_edges() > static_cast<offset_t>(INT32_MAX))
    throw Error(flag::unknown, "METIS failed: the graph has " + std::to_string(g.num_edges()) +
                                   " adjacency entries, more than 32-bit METIS (idx_t) can index");
  static_assert(sizeof(idx_t) == 4 || sizeof(idx_t) == 8, "unexpected METIS idx_t");
  Vector<idx_t> xadj(static_cast<size_t>(n) + 1), adjncy(static_cast<size_t>(g.num_edges())), mvwgt;
  for (index_t v = 0; v <= n; ++v) xadj[v] = static_cast<idx_t>(g.ptr[v]);
  for (size_t k = 0; k < adjncy.size(); ++k) adjncy[k] = g.adj[k];
  if (vwgt) mvwgt.assign(vwgt, vwgt + n);
  idx_t options[METIS_NOPTIONS];
  METIS_SetDefaultOptions(options);
  options[METIS_OPTION_NUMBERING] = 0;
  idx_t nv = n;
  Vector<idx_t> mperm(static_cast<size_t>(n)), miperm(static_cast<size_t>(n));
  MetisCall call;  // reproducible whatever runs beside it (metis_random.hpp)
  const int rc = METIS_NodeND(&nv, xadj.data(), adjncy.data(), vwgt ? mvwgt.data() : nullptr, options, mperm.data(),
                              miperm.data());
  if (rc != METIS_OK)
    throw Error(rc == METIS_ERROR_MEMORY ? flag::allocation : flag::unknown,
                "METIS failed: METIS_NodeND returned " + std::to_string(rc));
  Vector<index_t> perm(static_cast<size_t>(n));
  for (index_t k = 0; k < n; ++k) perm[k] = static_cast<index_t>(mperm[k]);
  return perm;
}

namespace {

Vector<index_t> user_perm(index_t n, const index_t* order, int base) {
  if (n > 0 && !order) throw Error(flag::missing_data, "analyse: Ordering::user needs an order array");
  Vector<index_t> perm(static_cast<size_t>(n), -1);
  for (index_t i = 0; i < n; ++i) {
    const index_t pos = order[i] - base;
    if (pos < 0 || pos >= n)
      throw Error(flag::bad_order, "analyse: order[" + std::to_string(i) + "] = " + std::to_string(order[i]) +
                                       " is outside [" + std::to_string(base) + ", " + std::to_string(base + n) + ")");
    if (perm[pos] != -1)
      throw Error(flag::bad_order, "analyse: order is not a permutation: position " + std::to_string(order[i]) +
                                       " is given to variables " + std::to_string(perm[pos] + base) + " and " +
                                       std::to_string(i + base));
    perm[pos] = i;
  }
  return perm;
}

}  // namespace

namespace {
Vector<index_t> nd_order(const Graph& g, const index_t* vwgt) { return nested_dissection_order(g, vwgt); }
Vector<index_t> amd_plain(const Graph& g, const index_t* vwgt) { return amd_order(g, vwgt); }
/// METIS (by tasks) with the dense rows kept out and numbered last (dense_rows.hpp): every METIS ordering of
/// analyse, of the plain graph and of the matching ordering's compressed graph.
Vector<index_t> metis_dense_last(const Graph& g, const index_t* vwgt) { return order_dense_last(g, vwgt, nd_order); }
Vector<index_t> amd_dense_last(const Graph& g, const index_t* vwgt) { return order_dense_last(g, vwgt, amd_plain); }
}  // namespace

CandidateOrderings matching_candidate_orderings(const Options* options) {
  if (options && options->backend == Backend::gpu) return CandidateOrderings(metis_dense_last);
  if (options && options->backend == Backend::automatic)
    return CandidateOrderings(metis_dense_last, amd_dense_last, static_cast<double>(options->min_gpu_work));
  return CandidateOrderings(metis_dense_last, amd_dense_last);
}

Vector<index_t> fill_reducing_order(const Graph& g, Ordering ordering, const index_t* user_order, int base) {
  switch (ordering) {
    case Ordering::metis: return metis_dense_last(g, nullptr);
    case Ordering::natural: return identity(g.n);
    case Ordering::user: return user_perm(g.n, user_order, base);
    case Ordering::matching:
      throw Error(flag::missing_values, "analyse: Ordering::matching needs the values (compute_ordering)");
    case Ordering::amd: return amd_dense_last(g, nullptr);
  }
  throw Error(flag::bad_input, "analyse: unknown ordering " + std::to_string(static_cast<int>(ordering)));
}

OrderingResult compute_ordering(const Graph& g, const CscView& a, const Options& options, const index_t* user_order,
                                AnalyseProfile* profile, const OrderingHint* hint) {
  const Ordering ordering = options.ordering;
  OrderingResult r;
  if (ordering != Ordering::matching) {
    PhaseTimer timer(profile);
    // tasks only when nested dissection splits the graph
    in_task_team(analyse_threads(options.num_threads, g.n, kNdLeafVertices + 1),
                 [&] { r.perm = fill_reducing_order(g, ordering, user_order, a.base); });
    timer.lap(ordering == Ordering::metis ? "METIS" : ordering == Ordering::amd ? "AMD" : "order");
    return r;
  }
  if (a.n > 0 && a.ptr[a.n] > a.ptr[0] && !a.val)
    throw Error(flag::missing_values, "analyse: Ordering::matching needs the values (val is null)");
  MatchingOrder m;
  PlainCandidate known;
  if (hint && hint->previous) known = hint->previous->plain;
  in_task_team(analyse_threads(options.num_threads, a.n), [&] {
    auto pairs = [&] { return hint && hint->pairs ? std::move(*hint->pairs) : matching_pairs(g, a, profile); };
    m = order_matching(g, pairs, matching_candidate_orderings(&options), 0.2, amalgamation_rule(options), profile,
                       hint && hint->previous ? &known : nullptr);
  });
  auto choice = std::make_shared<MatchingChoice>();
  choice->candidate_partner = std::move(m.candidate_partner);
  choice->compressed = m.compressed;
  choice->plain = std::move(m.plain);
  choice->thorough = m.thorough;
  choice->plain_flops = m.delayed_plain.flops;
  choice->compressed_flops = m.delayed_compressed.flops;
  r.matching_choice = std::move(choice);
  r.perm = std::move(m.perm);
  r.parent = std::move(m.parent);
  r.colcount = std::move(m.colcount);
  r.matching_scale = std::move(m.scale);
  r.structurally_singular = m.structurally_singular;
  r.matched = m.matched;
  return r;
}

}  // namespace detail
}  // namespace ssids
