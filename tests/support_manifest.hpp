// support_manifest.hpp — reads MANIFEST.tsv of the shared test matrices.
#pragma once
#include <map>
#include <string>

namespace ssids_test {

struct ManifestEntry {
  std::string file, symmetry, kind, known_properties;
  long n = 0, nnz_stored = 0;
  int num_neg_reference = -1;  ///< -1 when absent or "disputed"
};

/// Entries by file name (e.g. "bcsstk13.mtx.gz"); empty when there is no MANIFEST.tsv.
std::map<std::string, ManifestEntry> read_manifest(const std::string& dir);
/// File name part of a path.
std::string base_name(const std::string& path);

}  // namespace ssids_test
