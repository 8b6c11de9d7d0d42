// notes.hpp — the warnings and the information a command reports: everything the reader or the library
// changed or noticed (duplicates summed, entries mirrored, singularity, ...), each with a code and a count.
// JSON reports carry them as "warnings" and "info" arrays of {"code", "count", "message"}; text reports
// print warnings on stderr and information in the report on stdout.
#pragma once
#include <string>
#include <vector>

#include "ssids/inform.hpp"
#include "ssids/matrix_market.hpp"

namespace ssids_cli {

class Json;

struct Note {
  std::string code;     ///< stable identifier, e.g. "duplicates_summed"
  long long count = 0;  ///< how many entries, pivots, ... it concerns
  std::string message;  ///< one line for people
};

class Notes {
 public:
  /// Add a warning (something changed what was asked, or the answer needs care). A second note with the
  /// same code is ignored, so that a condition found by two phases is listed once.
  void warn(const std::string& code, long long count, const std::string& message);
  /// Add information (normal for some matrices, changes nothing), e.g. missing diagonal entries.
  void inform(const std::string& code, long long count, const std::string& message);
  /// What the Matrix Market reader counted for `spec` (nothing for a clean file).
  void add_reader(const std::string& spec, const ssids::MatrixReport& report, ssids::SymmetricEntries policy);
  /// The warning flag of an analyse or factor Inform (structurally singular, singular, scaling ignored,
  /// input checks); n is the matrix order.
  void add_inform(const ssids::Inform& inform, ssids::index_t n);

  const std::vector<Note>& warnings() const { return warnings_; }
  const std::vector<Note>& info() const { return info_; }
  /// Adds "warnings" and "info" arrays to a JSON report.
  void to_json(Json& j) const;
  /// The same two arrays as JSON text ("[...]").
  std::string warnings_json() const;
  std::string info_json() const;
  /// Text reports: each warning as "ssids CMD: warning: MESSAGE" on stderr.
  void print_warnings(const std::string& cmd) const;
  /// Text reports: each piece of information as "  note: MESSAGE" on stdout.
  void print_info() const;

 private:
  std::vector<Note> warnings_, info_;
};

}  // namespace ssids_cli
