// gen/generate.cpp — the "gen:KIND:ARG:..." matrix specs, their --help text, and load_symmetric /
// load_general, which take either such a spec or a Matrix Market file path.
//
// Parsing is strict: every argument must be a complete number (no trailing characters), integers must fit
// in 32 bits, doubles must be finite, and the argument count must match the kind. Range checks (K >= 1,
// NCON < NVAR, ...) are made by the generators themselves, which throw Error(bad_input) as well; the spec
// text is prefixed to their message here so the user sees which argument was wrong.
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <new>
#include <string>
#include <vector>

#include "common/host_allocation.hpp"
#include "ssids/error.hpp"
#include "ssids/generate.hpp"
#include "ssids/memory.hpp"

namespace ssids {
namespace {

const char* const prefix = "gen:";

struct Spec {
  std::string text;               // the whole spec, for messages
  std::string kind;
  std::vector<std::string> args;
};

[[noreturn]] void spec_error(const std::string& spec, const std::string& what) {
  throw Error(flag::bad_input, "matrix spec '" + spec + "': " + what);
}

bool is_generated(const std::string& spec) { return spec.compare(0, 4, prefix) == 0; }

Spec split(const std::string& spec) {
  Spec s;
  s.text = spec;
  std::vector<std::string> parts;
  std::size_t start = 4;  // after "gen:"
  for (;;) {
    const std::size_t colon = spec.find(':', start);
    parts.push_back(spec.substr(start, colon == std::string::npos ? std::string::npos : colon - start));
    if (colon == std::string::npos) break;
    start = colon + 1;
  }
  s.kind = parts[0];
  s.args.assign(parts.begin() + 1, parts.end());
  return s;
}

void expect_args(const Spec& s, std::size_t min, std::size_t max, const char* usage) {
  if (s.args.size() < min || s.args.size() > max)
    spec_error(s.text, "kind '" + s.kind + "' takes " +
                           (min == max ? std::to_string(min) : std::to_string(min) + " to " + std::to_string(max)) +
                           " argument(s), got " + std::to_string(s.args.size()) + "; usage: gen:" + usage);
}

index_t parse_index(const Spec& s, std::size_t i, const char* name) {
  const std::string& a = s.args[i];
  errno = 0;
  char* end = nullptr;
  const long long v = a.empty() ? 0 : std::strtoll(a.c_str(), &end, 10);
  if (a.empty() || end != a.c_str() + a.size() || errno == ERANGE || v < std::numeric_limits<index_t>::min() ||
      v > std::numeric_limits<index_t>::max())
    spec_error(s.text, std::string(name) + " = '" + a + "' is not a 32-bit integer");
  return static_cast<index_t>(v);
}

double parse_double(const Spec& s, std::size_t i, const char* name) {
  const std::string& a = s.args[i];
  char* end = nullptr;
  const double v = a.empty() ? 0.0 : std::strtod(a.c_str(), &end);
  if (a.empty() || end != a.c_str() + a.size() || !std::isfinite(v))
    spec_error(s.text, std::string(name) + " = '" + a + "' is not a finite number");
  return v;
}

std::uint64_t parse_seed(const Spec& s, std::size_t i) {
  const std::string& a = s.args[i];
  errno = 0;
  char* end = nullptr;
  // strtoull accepts a minus sign (and wraps); a seed must be written as a plain unsigned number.
  const bool digits_only = !a.empty() && a.find_first_not_of("0123456789") == std::string::npos;
  const unsigned long long v = digits_only ? std::strtoull(a.c_str(), &end, 10) : 0;
  if (!digits_only || end != a.c_str() + a.size() || errno == ERANGE)
    spec_error(s.text, "SEED = '" + a + "' is not an unsigned 64-bit integer");
  return static_cast<std::uint64_t>(v);
}

/// Runs a generator, prefixing the spec to the message of a range error it throws.
template <class F>
auto run_generator(const Spec& s, F&& f) -> decltype(f()) {
  try {
    return f();
  } catch (const Error& e) {
    if (e.code() == flag::bad_input) spec_error(s.text, e.what());
    throw;
  }
}

/// Symmetric kinds; returns false (leaving `out` alone) when `s.kind` is not one of them.
bool generate_symmetric_kind(const Spec& s, SymmetricMatrix& out) {
  if (s.kind == "laplace2d") {
    expect_args(s, 1, 1, "laplace2d:K");
    const index_t k = parse_index(s, 0, "K");
    out = run_generator(s, [&] { return generate_laplace2d(k); });
  } else if (s.kind == "laplace3d") {
    expect_args(s, 1, 2, "laplace3d:K[:SHIFT]");
    const index_t k = parse_index(s, 0, "K");
    const double shift = s.args.size() > 1 ? parse_double(s, 1, "SHIFT") : 0.0;
    out = run_generator(s, [&] { return generate_laplace3d(k, shift); });
  } else if (s.kind == "kkt-qp") {
    expect_args(s, 2, 4, "kkt-qp:NVAR:NCON[:DELTA[:SEED]]");
    const index_t nvar = parse_index(s, 0, "NVAR"), ncon = parse_index(s, 1, "NCON");
    const double delta = s.args.size() > 2 ? parse_double(s, 2, "DELTA") : 0.0;
    const std::uint64_t seed = s.args.size() > 3 ? parse_seed(s, 3) : 1;
    out = run_generator(s, [&] { return generate_kkt_qp(nvar, ncon, delta, seed); });
  } else if (s.kind == "kkt-dense") {
    expect_args(s, 3, 4, "kkt-dense:NVAR:NCON:NDENSE[:SEED]");
    const index_t nvar = parse_index(s, 0, "NVAR"), ncon = parse_index(s, 1, "NCON"), nd = parse_index(s, 2, "NDENSE");
    const std::uint64_t seed = s.args.size() > 3 ? parse_seed(s, 3) : 1;
    out = run_generator(s, [&] { return generate_kkt_dense(nvar, ncon, nd, seed); });
  } else if (s.kind == "kkt-ipm") {
    expect_args(s, 3, 4, "kkt-ipm:NVAR:NCON:ITER[:SEED]");
    const index_t nvar = parse_index(s, 0, "NVAR"), ncon = parse_index(s, 1, "NCON"), iter = parse_index(s, 2, "ITER");
    const std::uint64_t seed = s.args.size() > 3 ? parse_seed(s, 3) : 1;
    out = run_generator(s, [&] { return generate_kkt_ipm(nvar, ncon, iter, seed); });
  } else if (s.kind == "stokes") {
    expect_args(s, 1, 1, "stokes:K");
    const index_t k = parse_index(s, 0, "K");
    out = run_generator(s, [&] { return generate_stokes(k); });
  } else if (s.kind == "stokes3d") {
    expect_args(s, 1, 1, "stokes3d:K");
    const index_t k = parse_index(s, 0, "K");
    out = run_generator(s, [&] { return generate_stokes3d(k); });
  } else {
    return false;
  }
  return true;
}

bool generate_general_kind(const Spec& s, CsrMatrix& out) {
  if (s.kind == "convdiff") {
    expect_args(s, 2, 2, "convdiff:K:PECLET");
    const index_t k = parse_index(s, 0, "K");
    const double peclet = parse_double(s, 1, "PECLET");
    out = run_generator(s, [&] { return generate_convdiff(k, peclet); });
  } else if (s.kind == "banded") {
    expect_args(s, 3, 4, "banded:N:K:D[:SEED]");
    const index_t n = parse_index(s, 0, "N"), k = parse_index(s, 1, "K");
    const double d = parse_double(s, 2, "D");
    const std::uint64_t seed = s.args.size() > 3 ? parse_seed(s, 3) : 1;
    out = run_generator(s, [&] { return generate_banded(n, k, d, seed); });
  } else {
    return false;
  }
  return true;
}

[[noreturn]] void unknown_kind(const Spec& s) {
  spec_error(s.text, "unknown generator kind '" + s.kind +
                         "' (known: laplace2d, laplace3d, kkt-qp, kkt-dense, kkt-ipm, stokes, stokes3d, convdiff, banded)");
}

/// Both triangles of a lower-triangle CSC matrix as CSR. Row r of the full matrix is the strictly lower
/// part (a_rj, j < r: entries at row r of earlier columns, met in ascending j) followed by column r of the
/// lower triangle (rows >= r, already ascending), so one counting pass and one filling pass suffice.
CsrMatrix expand_symmetric(const SymmetricMatrix& a) {
  const std::size_t n = static_cast<std::size_t>(a.n);
  CsrMatrix c;
  c.nrow = c.ncol = a.n;
  Vector<offset_t> lower_count(n, 0);
  for (std::size_t j = 0; j < n; ++j)
    for (offset_t p = a.ptr[j]; p < a.ptr[j + 1]; ++p)
      if (static_cast<std::size_t>(a.row[p]) != j) ++lower_count[a.row[p]];
  c.ptr.resize(n + 1);
  c.ptr[0] = 0;
  for (std::size_t r = 0; r < n; ++r) c.ptr[r + 1] = c.ptr[r] + lower_count[r] + (a.ptr[r + 1] - a.ptr[r]);
  c.col.resize(static_cast<std::size_t>(c.ptr[n]));
  c.val.resize(static_cast<std::size_t>(c.ptr[n]));
  Vector<offset_t> next(c.ptr.begin(), c.ptr.end() - 1);  // fill position of the strictly lower part
  for (std::size_t j = 0; j < n; ++j) {
    offset_t q = c.ptr[j] + lower_count[j];  // column j of the lower triangle becomes the tail of row j
    for (offset_t p = a.ptr[j]; p < a.ptr[j + 1]; ++p, ++q) {
      const index_t r = a.row[p];
      c.col[q] = r;
      c.val[q] = a.val[p];
      if (static_cast<std::size_t>(r) != j) {
        const offset_t t = next[r]++;
        c.col[t] = static_cast<index_t>(j);
        c.val[t] = a.val[p];
      }
    }
  }
  return c;
}

void fill_report(MatrixReport* report, index_t nrow, index_t ncol, offset_t entries, bool symmetric) {
  if (!report) return;
  *report = MatrixReport{};
  report->nrow = nrow;
  report->ncol = ncol;
  report->entries_in_file = entries;
  report->symmetric_file = symmetric;
}

}  // namespace

std::string generator_help() {
  return "Generated matrices (give them wherever a matrix file is expected):\n"
         "  gen:laplace2d:K                    5-point Laplacian on a K x K grid, n = K^2, SPD (K >= 1)\n"
         "  gen:laplace3d:K[:SHIFT]            7-point Laplacian on a K^3 grid minus SHIFT*I, n = K^3;\n"
         "                                     SPD for SHIFT = 0 (default); indefinite when SHIFT lies between\n"
         "                                     the extreme eigenvalues (roughly 0 < SHIFT < 12)\n"
         "  gen:kkt-qp:NVAR:NCON[:DELTA[:SEED]] random sparse QP saddle point [H A^T; A -DELTA*I],\n"
         "                                     n = NVAR + NCON, 0 <= NCON < NVAR, DELTA >= 0 (default 0),\n"
         "                                     SEED default 1; inertia (NVAR, NCON, 0)\n"
         "  gen:kkt-dense:NVAR:NCON:NDENSE[:SEED] that QP with NDENSE more constraint rows coupling every\n"
         "                                     variable (dense rows, last); inertia (NVAR, NCON + NDENSE, 0)\n"
         "  gen:kkt-ipm:NVAR:NCON:ITER[:SEED]  iteration ITER >= 0 of an interior-point-like sequence on that QP:\n"
         "                                     [H + Sigma, A^T; A, 0], barrier terms Sigma that spread with the\n"
         "                                     iterations, the same pattern for every ITER; inertia (NVAR, NCON, 0)\n"
         "  gen:stokes:K                       MAC Stokes saddle point [K B^T; B 0] on K x K cells (K >= 2),\n"
         "                                     n = 2K(K-1) + K^2 - 1; inertia (2K(K-1), K^2-1, 0)\n"
         "  gen:stokes3d:K                     the same on K x K x K cells (K >= 2), n = 3K^2(K-1) + K^3 - 1;\n"
         "                                     inertia (3K^2(K-1), K^3-1, 0)\n"
         "  gen:convdiff:K:PECLET              upwind convection-diffusion on a K x K grid, n = K^2\n"
         "                                     (nonsymmetric: general matrices only)\n"
         "  gen:banded:N:K:D[:SEED]            N x N band of half-bandwidth K, random entries in [-1, 1),\n"
         "                                     a_ii = D * sum_{j != i} |a_ij|, SEED default 1\n"
         "                                     (nonsymmetric: general matrices only)\n";
}

SymmetricMatrix load_symmetric(const std::string& spec, MatrixReport* report) try {
  if (!is_generated(spec)) return read_symmetric(spec, report);
  const Spec s = split(spec);
  SymmetricMatrix a;
  if (!generate_symmetric_kind(s, a)) {
    if (s.kind == "convdiff" || s.kind == "banded")
      spec_error(spec, "kind '" + s.kind + "' is nonsymmetric; a symmetric matrix is expected here");
    unknown_kind(s);
  }
  fill_report(report, a.n, a.n, a.nnz(), true);
  return a;
} catch (const std::bad_alloc&) {
  detail::throw_host_allocation_failed("load_symmetric");
}

CsrMatrix load_general(const std::string& spec, MatrixReport* report) try {
  if (!is_generated(spec)) return read_general(spec, report);
  const Spec s = split(spec);
  CsrMatrix c;
  if (generate_general_kind(s, c)) {
    fill_report(report, c.nrow, c.ncol, c.nnz(), false);
    return c;
  }
  SymmetricMatrix a;
  if (!generate_symmetric_kind(s, a)) unknown_kind(s);
  // like a symmetric file: the entries "in the file" are those of the lower triangle
  fill_report(report, a.n, a.n, a.nnz(), true);
  return expand_symmetric(a);
} catch (const std::bad_alloc&) {
  detail::throw_host_allocation_failed("load_general");
}

}  // namespace ssids
