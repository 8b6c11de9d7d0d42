// support_manifest.hpp — reads MANIFEST.tsv of the shared test matrices.
#pragma once
#include <map>
#include <string>
#include <vector>

namespace ssids_test {

struct ManifestEntry {
  std::string file, symmetry, kind, known_properties;
  long n = 0, nnz_stored = 0;
  int num_neg_reference = -1;  ///< -1 when absent or "disputed"
};

/// Entries by file name (e.g. "bcsstk13.mtx.gz"); empty when there is no MANIFEST.tsv.
std::map<std::string, ManifestEntry> read_manifest(const std::string& dir);
/// Singular or nearly singular per the MANIFEST (a nonzero "numerical null space dim=", or "singular" not
/// preceded by "non" in kind/known_properties), or one of the matrices known to be so. e may be null.
bool marked_singular(const std::string& name, const ManifestEntry* e);
/// A shared matrix file with its MANIFEST entry.
struct SharedMatrix {
  std::string path, name;
  ManifestEntry entry;
};
/// The shared matrices whose MANIFEST symmetry is `symmetry` ("symmetric" or "general"), in file order;
/// empty when the folder or the MANIFEST is missing.
std::vector<SharedMatrix> shared_matrices(const std::string& symmetry);
/// File name part of a path.
std::string base_name(const std::string& path);

}  // namespace ssids_test
