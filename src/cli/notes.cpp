// notes.cpp — see notes.hpp.
#include "cli/notes.hpp"

#include <cstdio>
#include <cstdlib>

#include "cli/cli.hpp"
#include "ssids/error.hpp"

namespace ssids_cli {

namespace {

bool has_code(const std::vector<Note>& v, const std::string& code) {
  for (const Note& n : v)
    if (n.code == code) return true;
  return false;
}

std::string plural(long long k, const std::string& one, const std::string& many) {
  return std::to_string(k) + " " + (k == 1 ? one : many);
}

/// The structural rank a library message states ("... cardinality R < n" from the matching, or
/// "structural rank R"), or -1 when it names none.
long long structural_rank_in(const std::string& message) {
  for (const char* phrase : {"structural rank ", "cardinality "}) {
    const auto at = message.find(phrase);
    if (at == std::string::npos) continue;
    char* end = nullptr;
    const char* p = message.c_str() + at + std::string(phrase).size();
    const long long r = std::strtoll(p, &end, 10);
    if (end != p) return r;
  }
  return -1;
}

std::string array_json(const std::vector<Note>& v) {
  std::string o = "[";
  for (std::size_t k = 0; k < v.size(); ++k) {
    Json j;
    j.add("code", v[k].code);
    j.add("count", v[k].count);
    j.add("message", v[k].message);
    o += (k ? ", " : "") + j.str();
  }
  return o + "]";
}

}  // namespace

void Notes::warn(const std::string& code, long long count, const std::string& message) {
  if (!has_code(warnings_, code)) warnings_.push_back(Note{code, count, message});
}

void Notes::inform(const std::string& code, long long count, const std::string& message) {
  if (!has_code(info_, code)) info_.push_back(Note{code, count, message});
}

void Notes::add_reader(const std::string& spec, const ssids::MatrixReport& r, ssids::SymmetricEntries policy) {
  if (r.duplicates > 0)
    warn("duplicates_summed", r.duplicates,
         spec + ": " + plural(r.duplicates, "entry repeats a position and was", "entries repeat a position and were") +
             " summed");
  if (r.mirrored_pairs > 0) {
    const char* how = policy == ssids::SymmetricEntries::lower   ? "the value stored in the lower triangle was kept"
                      : policy == ssids::SymmetricEntries::upper ? "the value stored in the upper triangle was kept"
                                                                 : "the two values were summed";
    warn("mirrored_pairs_" + std::string(ssids::symmetric_entries_name(policy)), r.mirrored_pairs,
         spec + ": " + plural(r.mirrored_pairs, "position is", "positions are") +
             " stored in both triangles of a 'symmetric' file; " + how + " (--symmetric-entries " +
             ssids::symmetric_entries_name(policy) + ")");
  }
  const long long upper_only = static_cast<long long>(r.upper) - r.mirrored_pairs;
  if (r.symmetric_file && upper_only > 0)
    warn("upper_triangle_mirrored", upper_only,
         spec + ": " + plural(upper_only, "entry of a 'symmetric' file is", "entries of a 'symmetric' file are") +
             " stored in the upper triangle; mirrored to the lower triangle");
  if (r.missing_diagonal > 0)
    inform("missing_diagonal", r.missing_diagonal,
           plural(r.missing_diagonal, "column has", "columns have") +
               " no diagonal entry (a zero diagonal, as in KKT and saddle-point matrices)");
}

void Notes::add_inform(const ssids::Inform& inf, ssids::index_t n) {
  namespace flag = ssids::flag;
  if (inf.matrix_missing_diag > 0)
    inform("missing_diagonal", inf.matrix_missing_diag,
           plural(inf.matrix_missing_diag, "column has", "columns have") +
               " no diagonal entry (a zero diagonal, as in KKT and saddle-point matrices)");
  if (inf.matrix_dup > 0)
    warn("duplicates_summed", inf.matrix_dup, plural(inf.matrix_dup, "duplicate entry", "duplicate entries") + " summed");
  if (inf.matrix_outrange > 0)
    warn("out_of_range_ignored", inf.matrix_outrange,
         plural(inf.matrix_outrange, "out-of-range entry", "out-of-range entries") + " ignored");
  const long long srank = structural_rank_in(inf.message);
  if (inf.flag == flag::structurally_singular || (srank >= 0 && srank < n))
    warn("structurally_singular", srank >= 0 ? n - srank : 1,
         "the matrix is structurally singular" +
             (srank >= 0 ? ": structural rank " + std::to_string(srank) + " of " + std::to_string(n) : std::string()) +
             " (every matrix with this pattern is singular)");
  if (inf.flag == flag::warn_singular)
    warn("singular", inf.num_zero,
         "the " + inf.message + " (a zero pivot is one at most --small in magnitude; the inertia counts it as zero)");
  if (inf.flag == flag::matching_scaling_ignored) warn("matching_scaling_ignored", 1, inf.message);
  if (inf.flag > 0 && inf.flag != flag::structurally_singular && inf.flag != flag::warn_singular &&
      inf.flag != flag::matching_scaling_ignored && inf.flag != flag::missing_diagonal &&
      inf.flag != flag::missing_diagonal_and_other && inf.flag != flag::duplicates_summed &&
      inf.flag != flag::out_of_range_ignored && inf.flag != flag::out_of_range_and_duplicates)
    warn("flag_" + std::to_string(inf.flag), 1, inf.message);
}

void Notes::to_json(Json& j) const {
  j.add_raw("warnings", warnings_json());
  j.add_raw("info", info_json());
}

std::string Notes::warnings_json() const { return array_json(warnings_); }
std::string Notes::info_json() const { return array_json(info_); }

void Notes::print_warnings(const std::string& cmd) const {
  for (const Note& w : warnings_) std::fprintf(stderr, "ssids %s: warning: %s\n", cmd.c_str(), w.message.c_str());
}

void Notes::print_info() const {
  for (const Note& i : info_) std::printf("  note: %s\n", i.message.c_str());
}

}  // namespace ssids_cli
