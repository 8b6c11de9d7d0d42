// pattern.hpp — internal pattern types shared by the steps of the analyse phase.
//
// Conventions: everything is 0-based. A Graph is the adjacency structure of A + A^T without the diagonal,
// in CSR form over the ORIGINAL variable numbering: symmetric, no duplicates, no self loops; the neighbours
// of a vertex are not sorted. "Pivot positions" are indices in an elimination order (perm/invp).
#pragma once
#include "ssids/csc.hpp"
#include "ssids/memory.hpp"
#include "ssids/types.hpp"

namespace ssids {
namespace detail {

struct Graph {
  index_t n = 0;
  Vector<offset_t> ptr;  ///< n+1
  Vector<index_t> adj;   ///< ptr[n]: neighbours of v are adj[ptr[v] .. ptr[v+1]-1]
  offset_t num_edges() const { return ptr.empty() ? 0 : ptr[n]; }  ///< counts each edge twice
};

/// What the input checks found (copied into Symbolic and Inform).
struct InputCheck {
  offset_t nnz_in = 0;     ///< ptr[n] - ptr[0]
  offset_t nnz = 0;        ///< entries of the cleaned lower triangle
  int dup = 0;             ///< duplicates after mirroring
  int outrange = 0;        ///< row index outside [base, base+n)
  int missing_diag = 0;    ///< columns without a diagonal entry
  int upper = 0;           ///< entries with row < col (mirrored)
};

}  // namespace detail
}  // namespace ssids
