// harness.hpp — the differential tests' side of tests/spral_diff/runner.cpp: call scripts, running them
// against our library and SPRAL's, and the comparison of the two traces by classes (see test_spral_diff.cpp,
// whose header comment defines and justifies the classes).
#pragma once
#include <map>
#include <string>
#include <vector>

#include "ssids/csc.hpp"

namespace spral_diff {

/// What one call's comparison demands beyond the fields that are always equal (flag, the input-check
/// counts, stat, cuda_error, cublas_error, which handles are NULL, free's return value).
struct Expect {
  /// The assembly tree is SPRAL's: num_sup, maxdepth, and (when neither side delayed a pivot) maxfront,
  /// maxsupernode, num_factor and num_flops equal. True where the pivot order is reproducible.
  bool same_tree = true;
  /// matrix_rank and num_neg equal (Sylvester's law: the inertia is the matrix's, whatever the pivots).
  bool same_inertia = true;
  /// num_two and num_delay equal (only where no pivoting choice exists: posdef, diagonal matrices).
  bool same_pivots = false;
  /// Solutions (job 0): max |x - x_spral| <= x_tol * max |x_spral|; < 0: not compared (reason below).
  double x_tol = 1e-10;
  /// Partial solves (jobs 1-4), enquire's d and piv_order, alter's effect: equal to x_tol (they depend on
  /// the factors themselves, unique only without pivoting choices: posdef, diagonal matrices).
  bool same_factors = false;
  /// The order analyse returns: equal, or both permutations (false).
  bool same_order = false;
  /// scale from factor: equal to 1e-12 relative, or not compared (false; the reason is the scenario's).
  bool same_scale = false;
  /// SPRAL crashes in this call (it dereferences a NULL handle or array): its run must end here, and ours
  /// must return ours_flag instead. Nothing after this call is compared.
  bool spral_crashes = false;
  /// We reject this call's input with ours_flag where SPRAL accepts it (an ssids extension, e.g. -21 for
  /// NaN values): ours must return ours_flag, and nothing else of the call is compared.
  bool ours_rejects = false;
  int ours_flag = 0;
  /// Where something is not compared, why (printed with any failure).
  std::string reason;
};

struct Trace;

/// A call script for the runner (commands documented in runner.cpp) plus the expectation of every call.
class Script {
 public:
  /// Arrays ptr/row/val of a 0-based lower-triangle matrix, shifted to `base`.
  Script& csc(const ssids::SymmetricMatrix& a, int base);
  /// Coordinate lists row/col/val of a 0-based lower-triangle matrix, shifted to `base`.
  Script& coord(const ssids::SymmetricMatrix& a, int base);
  Script& set(const std::string& name, const std::vector<double>& v);
  Script& set_int(const std::string& name, const std::vector<long long>& v);
  Script& unset(const std::string& name);
  Script& opt(const std::string& field, double value);
  Script& handle_null(const std::string& which);  ///< "akeep" or "fkeep"
  /// A call line ("analyse form=ptr32 n=5", "solve1 job=0", "free", ...), compared as `e` says.
  Script& call(const std::string& line, const Expect& e);
  Script& call(const std::string& line) { return call(line, expect); }
  /// The expectation given to call(line) without one.
  Expect expect;
  const std::string& text() const { return text_; }
  const std::vector<Expect>& expects() const { return expects_; }  ///< by call sequence number - 1

 private:
  friend std::vector<std::string> compare(const Script&, const Trace&, const Trace&);
  std::string text_;
  std::vector<Expect> expects_;
};

/// What the runner recorded of one call.
struct Record {
  std::string verb;
  std::map<std::string, std::string> fields;
  std::map<std::string, std::vector<double>> arrays;
};
struct Trace {
  std::vector<Record> calls;  ///< by sequence number - 1
  bool completed = false;     ///< the runner reached the end of the script
  int status = -1;            ///< the runner's exit status
  std::string log;            ///< its stdout and stderr
};

/// Path of SPRAL's libspral.so from $SSIDS_SPRAL_LIB; empty (and the test case marked skipped, with the
/// reason) when it is not set or not a file, or when this build has no shared libssids to load.
std::string spral_library();
/// Path of our shared library (the build's libssids.so).
std::string our_library();

/// Runs the script against one library in a child process. SPRAL's child gets SPRAL's lib folder first in
/// LD_LIBRARY_PATH (its METIS 5.2), OMP_CANCELLATION=TRUE and OMP_PROC_BIND=TRUE (SPRAL's requirements).
Trace run(const Script& script, const std::string& library, bool is_spral);

/// Compares the traces call by call; returns one line per difference the expectations do not allow.
std::vector<std::string> compare(const Script& script, const Trace& ours, const Trace& spral);

/// Runs the script on both libraries and CHECKs that compare() finds nothing (printing both traces if it
/// does). Returns false (and marks the test skipped) when SPRAL is not available.
bool check_same(const Script& script, Trace* ours_out = nullptr, Trace* spral_out = nullptr);

/// Field `name` of a record as an integer (the runner prints every inform field).
long long field(const Record& r, const std::string& name);

/// SPRAL's documentation matrix (indefinite: one negative eigenvalue), lower triangle, 0-based.
ssids::SymmetricMatrix doc_matrix();
/// The expectation of an indefinite matrix: the pivot-sequence dependent fields are not compared.
Expect indefinite(const std::string& reason = "indefinite: our threshold partial pivoting and SPRAL's "
                                              "a-posteriori pivoting choose different (equally valid) pivots");

}  // namespace spral_diff
