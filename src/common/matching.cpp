// matching.cpp — maximum-product bipartite matching with optimal dual scaling (see matching.hpp).
//
// Method (Duff & Koster, "On algorithms for permuting large entries to the diagonal of a sparse matrix",
// SIAM J. Matrix Anal. Appl. 22(4), 2001, MC64 job 5): with colmax_j = max_k |a_kj| the weights
// c_ij = log colmax_j - log |a_ij| >= 0 turn the maximum product into a minimum-sum assignment. Dual
// variables u (rows) and v (columns) are kept feasible, rc_ij = c_ij - u_i - v_j >= 0, with rc = 0 on every
// matched entry. After a cheap initial assignment (greedy on zero reduced costs, then MC64's length-two
// augmentations; when more than a quarter of the columns are still free, the same again from duals reduced
// from the row side, followed by Jonker & Volgenant's augmenting reduction, see weighted_assign), each
// column still free starts one Dijkstra search over
// alternating paths (column -> row along any entry with length rc, row -> its matched column at length 0)
// using a binary heap; the first free row reached by the shortest path is matched and the duals of the
// settled nodes are shifted so that the path has zero reduced cost (Johnson reweighting, truncated at the
// path length). Cost per augmentation O(e log n), e = entries reached: a few entries on structured matrices
// (KKT, FEM: n = 1e5 in milliseconds), hundreds on random patterns with random values (n = 1e5: seconds).
// Every step keeps the duals feasible and the matched entries tight, so the result is an optimal matching
// whichever initial assignment it starts from (on ties, a different one of the optimal matchings).
// Dense columns (common/dense.hpp; a KKT matrix's rows coupling every variable) come last: the rest is
// assigned first, and the searches from the dense columns read a dense column in increasing order of a bound
// of its reduced costs, as far as the shortest path needs, instead of relaxing all of it (dense_last_assign).
//
// Conventions: 0-based CSC, both triangles for symmetric matrices, no duplicates; explicit zeros are absent
// for the matching (they carry no weight). Structurally singular input (the weighted algorithm on the whole
// matrix meets a column without an augmenting path): a maximum-cardinality matching is computed structurally
// (depth-first augmenting paths with lookahead, Duff's MC21, ACM TOMS 7, 1981; rows seen by a failed search
// are never searched again) and the weighted algorithm runs again on the square submatrix of its rows and
// columns, where it is perfect. The result
// is of minimum cost among matchings covering those rows and columns (the duals certify it there), as MC64
// does for singular matrices; the duals of the unmatched rows and columns are then set to the largest
// values keeping every reduced cost >= 0, so the scaling bound holds on every entry.
#include "common/matching.hpp"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <functional>
#include <limits>
#include <string>

#include "common/dense.hpp"
#include "ssids/error.hpp"

namespace ssids {
namespace detail {

namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

/// Asks for the cache line holding p (a hint only; p need not be dereferenceable).
inline void prefetch(const void* p) {
#if defined(__GNUC__) || defined(__clang__)
  __builtin_prefetch(p);
#else
  (void)p;
#endif
}

/// Binary min-heap of rows keyed by their distance; the keys are kept in the heap beside the rows, the heap
/// position of each row in `pos` (-1: not in the heap). The storage only grows (by doubling).
class RowHeap {
 public:
  explicit RowHeap(index_t n) : pos_(static_cast<size_t>(n), -1), heap_(64) {}
  bool empty() const { return size_ == 0; }
  double top_key() const { return heap_[0].key; }
  index_t top_row() const { return heap_[0].row; }
  /// Makes room for m more rows.
  void make_room(size_t m) {
    if (static_cast<size_t>(size_) + m > heap_.size()) heap_.resize(std::max(2 * heap_.size(), size_ + m));
  }
  /// Row i gets key d: inserted, or moved up after its key decreased.
  void push_or_decrease(index_t i, double d) {
    index_t k = pos_[i];
    if (k == -1) k = size_++;
    sift_up(k, Entry{d, i});
  }
  /// Removes the row of smallest key.
  index_t pop() {
    const index_t i = heap_[0].row;
    pos_[i] = -1;
    if (--size_ > 0) sift_down(heap_[size_]);
    return i;
  }
  void clear() {
    for (index_t k = 0; k < size_; ++k) pos_[heap_[k].row] = -1;
    size_ = 0;
  }

 private:
  struct Entry {
    double key;
    index_t row;
  };
  void place(index_t k, const Entry& e) {
    heap_[k] = e;
    pos_[e.row] = k;
  }
  void sift_up(index_t k, const Entry& e) {
    while (k > 0) {
      const index_t parent = (k - 1) / 2;
      if (heap_[parent].key <= e.key) break;
      place(k, heap_[parent]);
      k = parent;
    }
    place(k, e);
  }
  /// Places e, the former last entry, at the root and moves it down.
  void sift_down(const Entry e) {
    index_t k = 0;
    for (;;) {
      index_t c = 2 * k + 1;
      if (c >= size_) break;
      if (c + 1 < size_ && heap_[c + 1].key < heap_[c].key) ++c;
      if (heap_[c].key >= e.key) break;
      place(k, heap_[c]);
      k = c;
    }
    place(k, e);
  }
  Vector<index_t> pos_;
  Vector<Entry> heap_;
  index_t size_ = 0;
};

/// The entries of the dense columns in increasing order of a lower bound of their reduced costs, for the
/// searches of augment_free_columns, which read a dense column entry by entry in that order and stop where the
/// bound reaches the shortest path found (instead of relaxing all of it, as many searches would).
/// The bound of entry k in column j is key_k - v_j with key_k = c_ij - u_i at the time the column's prefix
/// was sorted: the searches only ever lower u (the rows they settle), so c_ij - u_i - v_j >= key_k - v_j
/// stays true. Only a prefix of each column is sorted (the entries of smallest key; `rest`: the smallest key
/// left out); a search that reads past it sorts a prefix twice as long, from the duals of then.
class DenseColumns {
 public:
  struct Prefix {
    Vector<float> key;      ///< increasing; rounded down from the double key, so still a lower bound
    Vector<offset_t> entry;  ///< the entries (positions in rowind) in that order
    double rest = kInf;     ///< lower bound of the keys not in the prefix (kInf: none left out)
    size_t want = 256;      ///< the prefix length the next sort gives
  };
  /// The dense columns of the mask (1: dense), none sorted yet.
  explicit DenseColumns(const Vector<char>& dense) : id_(dense.size(), -1) {
    for (size_t j = 0; j < dense.size(); ++j)
      if (dense[j]) {
        id_[j] = static_cast<index_t>(prefix_.size());
        prefix_.emplace_back();
      }
  }
  bool empty() const { return prefix_.empty(); }
  /// Column j's prefix slot, or -1 when j is not dense.
  index_t id(index_t j) const { return id_[j]; }
  Prefix& prefix(index_t id) { return prefix_[id]; }
  /// Sorts (again) the prefix of column j (slot id) from the row duals u(i): its p.want entries of smallest
  /// key.
  template <class RowDual>
  void sort_prefix(index_t id, index_t j, const offset_t* colptr, const index_t* rowind, const Vector<double>& cost,
                   RowDual u) {
    Prefix& p = prefix_[id];
    const offset_t begin = colptr[j], end = colptr[j + 1];
    const size_t len = std::min(p.want, static_cast<size_t>(end - begin));
    // one pass keeping the len smallest (key, entry) in a max-heap; everything else bounds `rest`
    auto less = [](const Keyed& a, const Keyed& b) { return a.key < b.key || (a.key == b.key && a.k < b.k); };
    all_.clear();
    p.rest = kInf;
    for (offset_t k = begin; k < end; ++k) {
      const Keyed e{cost[k] - u(rowind[k]), k};
      if (all_.size() < len) {
        all_.push_back(e);
        std::push_heap(all_.begin(), all_.end(), less);
      } else if (less(e, all_.front())) {
        p.rest = std::min(p.rest, all_.front().key);
        std::pop_heap(all_.begin(), all_.end(), less);
        all_.back() = e;
        std::push_heap(all_.begin(), all_.end(), less);
      } else {
        p.rest = std::min(p.rest, e.key);
      }
    }
    std::sort_heap(all_.begin(), all_.end(), less);
    p.key.resize(len);
    p.entry.resize(len);
    for (size_t q = 0; q < len; ++q) {
      const double x = all_[q].key;
      float f = static_cast<float>(x);
      if (static_cast<double>(f) > x) f = std::nextafter(f, -std::numeric_limits<float>::infinity());
      p.key[q] = f;
      p.entry[q] = all_[q].k;
    }
    p.want = 2 * std::max(p.want, len);
  }

 private:
  struct Keyed {
    double key;
    offset_t k;
  };
  Vector<index_t> id_;
  Vector<Prefix> prefix_;
  Vector<Keyed> all_;  // scratch of sort_prefix: the prefix being selected
};

/// One Dijkstra search per free active column (see the file comment), on the duals u, v and the matching of
/// weighted_assign. `all`: every row and column active (the masks are not read). `dense` (may be null or
/// empty): the dense columns, which a search reads in increasing order of a bound of their reduced costs
/// (DenseColumns), as far as needed. Returns false as soon as a search finds no free row.
template <bool all>
bool augment_free_columns(index_t n, const offset_t* colptr, const index_t* rowind, const Vector<double>& cost,
                          const Vector<char>& row_active, const Vector<char>& col_active, Vector<double>& u,
                          Vector<double>& v, Vector<index_t>& row_of_col, Vector<index_t>& col_of_row,
                          index_t& matched, DenseColumns* dense = nullptr) {
  const size_t un = static_cast<size_t>(n);
  if (dense && dense->empty()) dense = nullptr;
  // What every relaxation reads, 16 bytes a row: the length of the shortest alternating path found so far
  // (kInf: not reached) and the row's dual. A row that may not be reached, settled in this search or
  // inactive, has dist = -kInf, so that one comparison, nd >= min(dist, best), rejects it, an entry of cost
  // kInf (nd = kInf) and every relaxation that improves nothing.
  struct RowHot {
    double dist;
    double u;
  };
  Vector<RowHot> rows(un);
  for (index_t i = 0; i < n; ++i) rows[i] = RowHot{(all || row_active[i]) ? kInf : -kInf, u[i]};
  Vector<index_t>& col = col_of_row;  // the column matched to each row, or -1
  Vector<index_t> pred(un, -1);       // the column from which each reached row was reached
  struct Settled {
    index_t row;
    double dist;
  };
  // rows whose dist was set, and rows settled (popped) with their distance, in this search: the first
  // ntouched and ndone entries (the storage only grows, by doubling)
  Vector<index_t> touched(64);
  Vector<Settled> done(64);
  size_t ntouched = 0, ndone = 0;
  RowHeap heap(n);
  // A dense column being read in this search: the next entry of its prefix and the lower bound of the
  // length of the path through it (and through every entry after it); in a min-heap by that bound.
  struct Reader {
    double bound;
    double dj;
    index_t j, id;
    size_t next;
    bool operator>(const Reader& o) const { return bound > o.bound || (bound == o.bound && j > o.j); }
  };
  Vector<Reader> readers;
  auto row_dual = [&rows](index_t i) { return rows[i].u; };
  auto push_reader = [&](Reader r) {
    readers.push_back(r);
    std::push_heap(readers.begin(), readers.end(), std::greater<Reader>());
  };
  bool ok = true;
  for (index_t j0 = 0; j0 < n; ++j0) {
    if (row_of_col[j0] != -1 || !(all || col_active[j0])) continue;
    double best = kInf;  // length of the shortest path to a free row found so far
    index_t sink = -1;
    // entry k of column j reached at distance dj (the caller made room for it)
    auto relax_entry = [&](index_t j, double dj, double vj, offset_t k) {
      const index_t i = rowind[k];
      RowHot& r = rows[i];
      const double nd = dj + std::max(0.0, cost[k] - r.u - vj);  // clamp rounding below zero
      if (nd >= std::min(r.dist, best)) return;
      if (r.dist == kInf) touched[ntouched++] = i;
      r.dist = nd;
      pred[i] = j;
      if (col[i] == -1) {
        best = nd;
        sink = i;
      } else {
        heap.push_or_decrease(i, nd);
      }
    };
    // a dense column's reader at its entry `next` (the bound of the rest past the prefix)
    auto place_reader = [&](Reader r) {
      const DenseColumns::Prefix& p = dense->prefix(r.id);
      const double key = r.next < p.key.size() ? static_cast<double>(p.key[r.next]) : p.rest;
      if (key == kInf) return;  // nothing left to read
      r.bound = r.dj + std::max(0.0, key - v[r.j]);
      push_reader(r);
    };
    auto relax = [&](index_t j, double dj) {
      if (dense) {
        const index_t id = dense->id(j);
        if (id != -1) {
          DenseColumns::Prefix& p = dense->prefix(id);
          if (p.key.empty()) dense->sort_prefix(id, j, colptr, rowind, cost, row_dual);
          place_reader(Reader{0.0, dj, j, id, 0});
          return;
        }
      }
      const double vj = v[j];
      const offset_t begin = colptr[j], end = colptr[j + 1];
      const size_t deg = static_cast<size_t>(end - begin);
      if (ntouched + deg > touched.size()) touched.resize(std::max(2 * touched.size(), ntouched + deg));
      heap.make_room(deg);
      for (offset_t k = begin; k < end; ++k) relax_entry(j, dj, vj, k);
    };
    // the next entry of the reader of smallest bound
    auto read_one = [&] {
      std::pop_heap(readers.begin(), readers.end(), std::greater<Reader>());
      Reader r = readers.back();
      readers.pop_back();
      DenseColumns::Prefix& p = dense->prefix(r.id);
      if (r.next == p.key.size()) {  // past the prefix: a longer one, from the duals of now, read from its start
        dense->sort_prefix(r.id, r.j, colptr, rowind, cost, row_dual);
        r.next = 0;
      } else {
        if (ntouched + 1 > touched.size()) touched.resize(2 * touched.size());
        heap.make_room(1);
        relax_entry(r.j, r.dj, v[r.j], p.entry[r.next]);
        ++r.next;
      }
      place_reader(r);
    };
    relax(j0, 0.0);
    for (;;) {
      const double top = heap.empty() ? kInf : heap.top_key();
      if (!readers.empty() && readers.front().bound < std::min(top, best)) {
        read_one();
        continue;
      }
      if (heap.empty() || top >= best) break;
      const index_t i = heap.pop();
      const double di = rows[i].dist;
      if (ndone == done.size()) done.resize(2 * ndone);
      done[ndone++] = Settled{i, di};
      rows[i].dist = -kInf;
      if (!heap.empty()) {
        // the next row to settle is known: start loading its column while this one is relaxed
        const index_t jn = col[heap.top_row()];
        prefetch(v.data() + jn);
        prefetch(cost.data() + colptr[jn]);
        prefetch(rowind + colptr[jn]);
      }
      relax(col[i], di);  // the matched entry has zero reduced cost
    }
    heap.clear();
    readers.clear();
    if (sink != -1) {
      // duals: settled rows and their columns (and j0) move by best - dist, keeping rc >= 0 everywhere
      // and making every entry of the path tight
      v[j0] += best;
      for (size_t q = 0; q < ndone; ++q) {
        const Settled& d = done[q];
        const double delta = best - d.dist;
        rows[d.row].u -= delta;
        v[col[d.row]] += delta;
      }
      for (index_t i = sink;;) {  // augment along pred
        const index_t j = pred[i];
        const index_t next = row_of_col[j];
        row_of_col[j] = i;
        col[i] = j;
        if (j == j0) break;
        i = next;
      }
      ++matched;
    }
    for (size_t q = 0; q < ntouched; ++q) {
      rows[touched[q]].dist = kInf;
      pred[touched[q]] = -1;
    }
    ntouched = ndone = 0;
    if (sink == -1) {
      ok = false;
      break;
    }
  }
  for (index_t i = 0; i < n; ++i) u[i] = rows[i].u;
  return ok;
}

}  // namespace

namespace {

/// Jonker & Volgenant's augmenting row reduction (Computing 38, 1987), with the roles of rows and columns
/// exchanged, on the sparse matrix: a free column j takes the row i1 of its smallest c_ij - u_i (w1) and sets
/// v_j to the second smallest (w2), lowering u_i1 by w2 - w1 so that (i1, j) is tight; the column that held
/// i1 is freed (its entry there now has rc = w2 - w1 > 0) and is processed next, at once when w1 < w2 (the
/// price of i1 rose), else in the next pass. Every step keeps rc >= 0 everywhere and rc = 0 on matched
/// entries, so the Dijkstra searches that follow start from feasible duals with fewer free columns. Two
/// passes over the free columns and at most 4 n steps in all: with ties the displacements can cycle.
void augmenting_reduction(index_t n, const offset_t* colptr, const index_t* rowind, const Vector<double>& cost,
                          const Vector<char>& row_active, const Vector<char>& col_active, Vector<double>& u,
                          Vector<double>& v, Vector<index_t>& row_of_col, Vector<index_t>& col_of_row,
                          index_t& matched) {
  const bool all = row_active.empty();
  const long long budget = 4LL * n;
  long long steps = 0;
  Vector<index_t> todo, next;
  for (index_t j = 0; j < n; ++j)
    if (row_of_col[j] == -1 && (all || col_active[j])) todo.push_back(j);
  for (int pass = 0; pass < 2 && steps < budget && !todo.empty(); ++pass) {
    next.clear();
    for (index_t j : todo) {
      while (j != -1) {
        if (steps++ >= budget) {
          next.push_back(j);
          break;
        }
        double w1 = kInf, w2 = kInf;
        index_t i1 = -1, i2 = -1;
        offset_t k1 = -1;
        for (offset_t k = colptr[j]; k < colptr[j + 1]; ++k) {
          const index_t i = rowind[k];
          if (cost[k] == kInf || !(all || row_active[i])) continue;
          const double w = cost[k] - u[i];
          if (w < w1) {
            w2 = w1;
            i2 = i1;
            w1 = w;
            i1 = i;
            k1 = k;
          } else if (w < w2) {
            w2 = w;
            i2 = i;
          }
        }
        if (i1 == -1) break;  // no entry: left to the searches, which report it
        const bool raise = w1 < w2 && w2 != kInf;
        if (raise) {
          v[j] = w2;
          u[i1] = cost[k1] - w2;
        } else {
          v[j] = w1;
          if (w2 == w1 && col_of_row[i1] != -1 && col_of_row[i2] == -1) i1 = i2;  // a free row among the ties
        }
        const index_t prev = col_of_row[i1];
        row_of_col[j] = i1;
        col_of_row[i1] = j;
        if (prev == -1) {
          ++matched;
          j = -1;
        } else {
          row_of_col[prev] = -1;
          if (raise) {
            j = prev;
          } else {
            next.push_back(prev);
            j = -1;
          }
        }
      }
    }
    todo.swap(next);
  }
}

/// Weighted assignment on the active rows and columns (all when the masks are empty): initial duals, greedy
/// matching, then one Dijkstra search per free active column. Entries with cost kInf are absent; logmax_j is
/// the cost offset of column j (c_ij = logmax_j - log|a_ij|).
/// Returns false as soon as a search finds no free row (the active submatrix is structurally singular).
bool weighted_assign(index_t n, const offset_t* colptr, const index_t* rowind, const Vector<double>& cost,
                     const Vector<double>& logmax, const Vector<char>& row_active, const Vector<char>& col_active,
                     Vector<double>& u, Vector<double>& v, Vector<index_t>& row_of_col, Vector<index_t>& col_of_row,
                     index_t& matched) {
  const size_t un = static_cast<size_t>(n);
  const bool all = row_active.empty();
  auto active_row = [&](index_t i) { return all || row_active[i]; };
  auto active_col = [&](index_t j) { return all || col_active[j]; };
  // u_i = min_j (c_ij - shift_j) over the active entries (shift nullptr: 0; u_i = 0 for a row without any;
  // entries of cost kInf do not lower the minimum)
  auto row_minima = [&](const double* shift) {
    u.assign(un, kInf);
    double* uu = u.data();
    for (index_t j = 0; j < n; ++j) {
      if (!active_col(j)) continue;
      const double sj = shift ? shift[j] : 0.0;
      for (offset_t k = colptr[j]; k < colptr[j + 1]; ++k) {
        const index_t i = rowind[k];
        if (active_row(i)) uu[i] = std::min(uu[i], cost[k] - sj);
      }
    }
    for (index_t i = 0; i < n; ++i)
      if (uu[i] == kInf) uu[i] = 0.0;
  };
  // From the row duals u: v_j = min_i (c_ij - u_i), then the greedy matching on zero reduced costs and
  // MC64's length-two augmentations.
  auto initial_matching = [&]() {
    std::fill(row_of_col.begin(), row_of_col.end(), -1);
    std::fill(col_of_row.begin(), col_of_row.end(), -1);
    matched = 0;
    v.assign(un, 0.0);
    // greedy: match column j to a free row of zero reduced cost
    for (index_t j = 0; j < n; ++j) {
      if (!active_col(j)) continue;
      double best = kInf;
      for (offset_t k = colptr[j]; k < colptr[j + 1]; ++k)
        if (active_row(rowind[k])) best = std::min(best, cost[k] - u[rowind[k]]);
      if (best == kInf) continue;
      v[j] = best;
      for (offset_t k = colptr[j]; k < colptr[j + 1]; ++k) {
        const index_t i = rowind[k];
        if (active_row(i) && col_of_row[i] == -1 && cost[k] - u[i] - v[j] <= 0.0) {
          row_of_col[j] = i;
          col_of_row[i] = j;
          ++matched;
          break;
        }
      }
    }
    // length-two augmentations on zero reduced costs (MC64's second initial pass): a free column j takes a
    // tight row i from its column jj when jj can move to another free tight row
    auto tight = [&](offset_t k, index_t j) {
      return cost[k] != kInf && active_row(rowind[k]) && cost[k] - u[rowind[k]] - v[j] <= 0.0;
    };
    for (index_t j = 0; j < n; ++j) {
      if (row_of_col[j] != -1 || !active_col(j)) continue;
      bool done = false;
      for (offset_t k = colptr[j]; k < colptr[j + 1] && !done; ++k) {
        if (!tight(k, j)) continue;
        const index_t i = rowind[k], jj = col_of_row[i];
        if (jj == -1) {  // a free tight row (possible after earlier moves)
          row_of_col[j] = i;
          col_of_row[i] = j;
          ++matched;
          done = true;
          break;
        }
        for (offset_t q = colptr[jj]; q < colptr[jj + 1]; ++q) {
          const index_t i2 = rowind[q];
          if (col_of_row[i2] == -1 && tight(q, jj)) {
            row_of_col[jj] = i2;
            col_of_row[i2] = jj;
            row_of_col[j] = i;
            col_of_row[i] = j;
            ++matched;
            done = true;
            break;
          }
        }
      }
    }
  };

  // initial duals as MC64: u_i = min_j c_ij, v_j = min_i (c_ij - u_i)
  row_minima(nullptr);
  initial_matching();

  // When more than a quarter of the active columns are still free, start again from the duals reduced from
  // the row side: u_i = -log max_j |a_ij| (c_ij - logmax_j = -log|a_ij|), v_j = min_i (c_ij - u_i), then
  // u_i = min_j (c_ij - v_j), the greedy and length-two passes, and the augmenting reduction. For a
  // symmetric matrix this is the mirror image of the column-side start (same lower bound), but the searches
  // from it can be much shorter where many columns compete for the rows of a few large entries: on the KKT
  // matrix ncvxqp1 (35% of the columns free) they settle 223 000 rows instead of 721 000, and similarly
  // under random symmetric permutations of it. Where fewer columns are left free the column-side start was
  // as good or better on the matrices tried (ACTIVSg200_AC_10: 21% free; stokes64: 0.2% free, its searches
  // scan 3.7 times fewer entries from it), and it is kept: the threshold is a heuristic.
  index_t active_cols = n;
  if (!all) active_cols = static_cast<index_t>(std::count(col_active.begin(), col_active.end(), char(1)));
  if (active_cols - matched > active_cols / 4) {
    row_minima(logmax.data());
    for (index_t j = 0; j < n; ++j) {
      double best = kInf;
      if (active_col(j))
        for (offset_t k = colptr[j]; k < colptr[j + 1]; ++k)
          if (cost[k] != kInf && active_row(rowind[k])) best = std::min(best, cost[k] - u[rowind[k]]);
      v[j] = best == kInf ? 0.0 : best;
    }
    row_minima(v.data());
    initial_matching();
    augmenting_reduction(n, colptr, rowind, cost, row_active, col_active, u, v, row_of_col, col_of_row, matched);
  }

  // shortest augmenting paths (Dijkstra with reduced costs) from every free column
  if (matched == active_cols) return true;
  return all ? augment_free_columns<true>(n, colptr, rowind, cost, row_active, col_active, u, v, row_of_col,
                                          col_of_row, matched)
             : augment_free_columns<false>(n, colptr, rowind, cost, row_active, col_active, u, v, row_of_col,
                                           col_of_row, matched);
}

/// The rows and columns that are not dense (common/dense.hpp) as masks (1: sparse), when some column is dense;
/// else false, and the masks are left alone.
bool sparse_part(index_t n, const offset_t* colptr, const index_t* rowind, Vector<char>& sparse_rows,
                 Vector<char>& sparse_cols) {
  const double limit = dense_degree(n);
  bool any = false;
  for (index_t j = 0; j < n && !any; ++j) any = static_cast<double>(colptr[j + 1] - colptr[j]) > limit;
  if (!any) return false;
  const size_t un = static_cast<size_t>(n);
  sparse_cols.resize(un);
  for (index_t j = 0; j < n; ++j) sparse_cols[j] = static_cast<double>(colptr[j + 1] - colptr[j]) <= limit;
  Vector<offset_t> row_count(un, 0);
  for (offset_t k = 0; k < colptr[n]; ++k) ++row_count[rowind[k]];
  sparse_rows.resize(un);
  for (index_t i = 0; i < n; ++i) sparse_rows[i] = static_cast<double>(row_count[i]) <= limit;
  return true;
}

/// The weighted assignment of a matrix with dense columns (rows and columns: the masks, 1 for the sparse
/// ones), the dense ones last. A Dijkstra search that settles a row matched to a dense column scans that whole
/// column, and on the whole matrix many searches do (a KKT matrix with 50 rows coupling 100 000 variables: 352
/// columns left free by the initial assignment, 294 scans of a dense column, 37 M entries relaxed). So the
/// sparse rows and columns are assigned first (weighted_assign on them; a column left without an augmenting
/// path there is searched for again below); then the duals of the dense rows are set to the largest values
/// with rc >= 0 on their entries in the sparse columns, those of the dense columns likewise on all their
/// entries, which keeps every reduced cost >= 0 and every matched entry tight, and every column still free
/// starts a search on the whole matrix. Each step is one of the exact algorithm, so the matching is optimal
/// as weighted_assign's on the whole matrix is (the same one unless there are ties); the duals, which are not
/// unique, can differ. Returns false when a search on the whole matrix finds no free row.
bool dense_last_assign(index_t n, const offset_t* colptr, const index_t* rowind, const Vector<double>& cost,
                       const Vector<double>& logmax, const Vector<char>& sparse_rows,
                       const Vector<char>& sparse_cols, Vector<double>& u, Vector<double>& v,
                       Vector<index_t>& row_of_col, Vector<index_t>& col_of_row, index_t& matched) {
  weighted_assign(n, colptr, rowind, cost, logmax, sparse_rows, sparse_cols, u, v, row_of_col, col_of_row, matched);
  for (index_t i = 0; i < n; ++i)
    if (!sparse_rows[i]) u[i] = kInf;
  for (index_t j = 0; j < n; ++j) {
    if (!sparse_cols[j]) continue;
    for (offset_t k = colptr[j]; k < colptr[j + 1]; ++k) {
      const index_t i = rowind[k];
      if (!sparse_rows[i] && cost[k] != kInf) u[i] = std::min(u[i], cost[k] - v[j]);
    }
  }
  for (index_t i = 0; i < n; ++i)
    if (u[i] == kInf) u[i] = 0.0;  // no entry in a sparse column: the columns' duals below bound it
  for (index_t j = 0; j < n; ++j) {
    if (sparse_cols[j]) continue;
    double best = kInf;
    for (offset_t k = colptr[j]; k < colptr[j + 1]; ++k)
      if (cost[k] != kInf) best = std::min(best, cost[k] - u[rowind[k]]);
    v[j] = best == kInf ? 0.0 : best;
  }
  if (matched == n) return true;
  Vector<char> dense_cols(sparse_cols.size());
  for (size_t j = 0; j < dense_cols.size(); ++j) dense_cols[j] = !sparse_cols[j];
  DenseColumns dense(dense_cols);
  const Vector<char> none;
  return augment_free_columns<true>(n, colptr, rowind, cost, none, none, u, v, row_of_col, col_of_row, matched,
                                    &dense);
}

/// Maximum-cardinality matching of the entries with finite cost (MC21-style depth-first search).
void structural_matching(index_t n, const offset_t* colptr, const index_t* rowind, const Vector<double>& cost,
                         Vector<index_t>& row_of_col, Vector<index_t>& col_of_row) {
  const size_t un = static_cast<size_t>(n);
  std::fill(row_of_col.begin(), row_of_col.end(), -1);
  std::fill(col_of_row.begin(), col_of_row.end(), -1);
  Vector<offset_t> look(colptr, colptr + n);  // lookahead pointer: entries before it hold no free row
  Vector<index_t> visited(un, -1);            // search that last visited row i; -2: dead (failed search)
  Vector<index_t> scol, srow;                 // DFS stack: column, row used to descend from it
  Vector<offset_t> snext;                     // next entry to try in the column
  Vector<index_t> seen;
  for (index_t j0 = 0; j0 < n; ++j0) {
    scol.assign(1, j0);
    snext.assign(1, colptr[j0]);
    srow.clear();
    seen.clear();
    index_t free_row = -1;
    while (!scol.empty() && free_row == -1) {
      const index_t j = scol.back();
      for (; look[j] < colptr[j + 1]; ++look[j]) {
        const index_t i = rowind[look[j]];
        if (cost[look[j]] != kInf && col_of_row[i] == -1) {
          free_row = i;
          break;
        }
      }
      if (free_row != -1) break;
      offset_t& k = snext.back();
      while (k < colptr[j + 1] && (cost[k] == kInf || visited[rowind[k]] == j0 || visited[rowind[k]] == -2)) ++k;
      if (k == colptr[j + 1]) {
        scol.pop_back();
        snext.pop_back();
        if (!srow.empty()) srow.pop_back();
        continue;
      }
      const index_t i = rowind[k++];
      visited[i] = j0;
      seen.push_back(i);
      srow.push_back(i);
      scol.push_back(col_of_row[i]);
      snext.push_back(colptr[col_of_row[i]]);
    }
    if (free_row == -1) {
      for (index_t i : seen) visited[i] = -2;  // no augmenting path can ever pass through these rows
      continue;
    }
    // augment: top column takes the free row, each lower column takes the row it descended through
    index_t r = free_row;
    for (size_t t = scol.size(); t-- > 0;) {
      const index_t j = scol[t];
      row_of_col[j] = r;
      col_of_row[r] = j;
      if (t > 0) r = srow[t - 1];
    }
  }
}

}  // namespace

MatchingResult unmatched_result(index_t n, const offset_t* colptr, const index_t* rowind, const double* val,
                                const char* who) {
  const std::string w(who);
  if (n < 0) throw Error(flag::bad_input, w + ": n = " + std::to_string(n) + " is negative");
  MatchingResult res;
  const size_t un = static_cast<size_t>(n);
  res.row_of_col.assign(un, -1);
  res.col_of_row.assign(un, -1);
  res.row_log_scale.assign(un, 0.0);
  res.col_log_scale.assign(un, 0.0);
  if (n == 0) return res;
  if (!colptr || (colptr[n] > colptr[0] && (!rowind || !val)))
    throw Error(flag::bad_input, w + ": missing colptr, rowind or val");
  if (colptr[0] != 0) throw Error(flag::bad_input, w + ": colptr[0] must be 0");
  // the usual case in one pass that vectorizes (with nondecreasing colptr the entries are 0 .. colptr[n]-1);
  // the column by column search, which names the first error, only when it fails
  bool ordered = true;
  for (index_t j = 0; j < n; ++j) ordered &= colptr[j + 1] >= colptr[j];
  index_t lo = 0, hi = 0;
  if (ordered)
    for (offset_t k = 0; k < colptr[n]; ++k) {
      lo = std::min(lo, rowind[k]);
      hi = std::max(hi, rowind[k]);
    }
  if (ordered && lo >= 0 && hi < n) return res;
  for (index_t j = 0; j < n; ++j) {
    if (colptr[j + 1] < colptr[j]) throw Error(flag::bad_input, w + ": colptr decreases at column " + std::to_string(j));
    for (offset_t k = colptr[j]; k < colptr[j + 1]; ++k)
      if (rowind[k] < 0 || rowind[k] >= n)
        throw Error(flag::bad_input,
                    w + ": row index " + std::to_string(rowind[k]) + " out of range in column " + std::to_string(j));
  }
  return res;
}

MatchingCosts::MatchingCosts(index_t n, const offset_t* colptr)
    : cost(static_cast<size_t>(n > 0 ? colptr[n] : 0)), logmax(static_cast<size_t>(n > 0 ? n : 0)) {}

MatchingCosts::MatchingCosts(index_t n, const offset_t* colptr, Vector<double>&& neg_log_abs)
    : cost(std::move(neg_log_abs)), logmax(static_cast<size_t>(n > 0 ? n : 0)) {
  // log max_k |a_kj| = max_k log|a_kj| (log is increasing), and c - log|a| = c + (-log|a|) exactly
  for (index_t j = 0; j < n; ++j) {
    double least = kInf;
    for (offset_t k = colptr[j]; k < colptr[j + 1]; ++k) least = std::min(least, cost[k]);
    logmax[j] = least == kInf ? 0.0 : -least;
    for (offset_t k = colptr[j]; k < colptr[j + 1]; ++k)
      if (cost[k] != kInf) cost[k] += logmax[j];
  }
}

void MatchingCosts::fill(const offset_t* colptr, const double* val, index_t j0, index_t j1) {
  for (index_t j = j0; j < j1; ++j) {
    double cmax = 0.0;
    for (offset_t k = colptr[j]; k < colptr[j + 1]; ++k) cmax = std::max(cmax, std::fabs(val[k]));
    logmax[j] = cmax > 0.0 ? std::log(cmax) : 0.0;
    for (offset_t k = colptr[j]; k < colptr[j + 1]; ++k) {
      const double a = std::fabs(val[k]);
      cost[k] = a > 0.0 ? logmax[j] - std::log(a) : kInf;
    }
  }
}

namespace {

std::atomic<offset_t> entries_matched{0};  // matching_entries_for_testing

/// max_product_matching on the checked input (res: unmatched_result's, n > 0) with its weights.
MatchingResult matching_with_costs(MatchingResult res, index_t n, const offset_t* colptr, const index_t* rowind,
                                   MatchingCosts& costs, DenseColumnRule rule = DenseColumnRule::last) {
  const size_t un = static_cast<size_t>(n);
  entries_matched.fetch_add(colptr[n], std::memory_order_relaxed);
  // costs c_ij (kInf for explicit zeros: never used) and log colmax_j (0 for an empty column)
  const Vector<double> cost = std::move(costs.cost), logmax = std::move(costs.logmax);
  // weighted pass on everything first (with dense columns: the sparse part, then the dense columns; see
  // dense_last_assign): it fails (a free column with no augmenting path) only when the matrix
  // is structurally singular. The structural pass runs only then: its depth-first searches can cost
  // O(n nnz) (0.8 s on an n = 80 595 KKT matrix whose weighted pass takes 1 ms), and its matching was never
  // used for a nonsingular matrix anyway (weighted_assign starts from scratch).
  Vector<double> u, v;
  Vector<char> row_active, col_active;  // empty: everything active
  const bool perfect = rule == DenseColumnRule::last && sparse_part(n, colptr, rowind, row_active, col_active)
                           ? dense_last_assign(n, colptr, rowind, cost, logmax, row_active, col_active, u, v,
                                               res.row_of_col, res.col_of_row, res.matched)
                           : weighted_assign(n, colptr, rowind, cost, logmax, row_active, col_active, u, v,
                                             res.row_of_col, res.col_of_row, res.matched);
  if (!perfect) {
    // structurally singular: restrict to the rows and columns of the maximum matching, where it is perfect
    structural_matching(n, colptr, rowind, cost, res.row_of_col, res.col_of_row);
    row_active.assign(un, 0);
    col_active.assign(un, 0);
    for (index_t j = 0; j < n; ++j)
      if (res.row_of_col[j] != -1) {
        col_active[j] = 1;
        row_active[res.row_of_col[j]] = 1;
      }
    weighted_assign(n, colptr, rowind, cost, logmax, row_active, col_active, u, v, res.row_of_col, res.col_of_row,
                    res.matched);
    // duals of the inactive rows, then columns: the largest values with rc >= 0 on all their entries
    for (index_t i = 0; i < n; ++i)
      if (!row_active[i]) u[i] = kInf;
    for (index_t j = 0; j < n; ++j)
      if (col_active[j])
        for (offset_t k = colptr[j]; k < colptr[j + 1]; ++k)
          if (!row_active[rowind[k]]) u[rowind[k]] = std::min(u[rowind[k]], cost[k] - v[j]);
    for (index_t i = 0; i < n; ++i)
      if (u[i] == kInf) u[i] = 0.0;
    for (index_t j = 0; j < n; ++j) {
      if (col_active[j]) continue;
      double best = kInf;
      for (offset_t k = colptr[j]; k < colptr[j + 1]; ++k) best = std::min(best, cost[k] - u[rowind[k]]);
      v[j] = best == kInf ? 0.0 : best;
    }
  }

  // scaling: log|a_ij| + u_i + v_j - logmax_j = -rc_ij <= 0
  for (index_t i = 0; i < n; ++i) res.row_log_scale[i] = u[i];
  for (index_t j = 0; j < n; ++j) res.col_log_scale[j] = v[j] - logmax[j];
  return res;
}

}  // namespace

offset_t matching_entries_for_testing() { return entries_matched.load(std::memory_order_relaxed); }

MatchingResult max_product_matching(index_t n, const offset_t* colptr, const index_t* rowind, const double* val) {
  MatchingResult res = unmatched_result(n, colptr, rowind, val, "matching");
  if (n == 0) return res;
  MatchingCosts costs(n, colptr);
  costs.fill(colptr, val, 0, n);
  return matching_with_costs(std::move(res), n, colptr, rowind, costs);
}

MatchingResult max_product_matching(index_t n, const offset_t* colptr, const index_t* rowind, const double* val,
                                    MatchingCosts& costs) {
  MatchingResult res = unmatched_result(n, colptr, rowind, val, "matching");
  if (n == 0) return res;
  return matching_with_costs(std::move(res), n, colptr, rowind, costs);
}

MatchingResult max_product_matching(index_t n, const offset_t* colptr, const index_t* rowind, const double* val,
                                    MatchingCosts& costs, DenseColumnRule rule) {
  MatchingResult res = unmatched_result(n, colptr, rowind, val, "matching");
  if (n == 0) return res;
  return matching_with_costs(std::move(res), n, colptr, rowind, costs, rule);
}

}  // namespace detail
}  // namespace ssids
