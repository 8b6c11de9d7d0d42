// support_manifest.cpp — see support_manifest.hpp.
#include "support_manifest.hpp"

#include <cctype>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <vector>

#include "support.hpp"

namespace ssids_test {

std::map<std::string, ManifestEntry> read_manifest(const std::string& dir) {
  std::map<std::string, ManifestEntry> out;
  std::ifstream in(dir + "/MANIFEST.tsv");
  if (!in) return out;
  std::string line;
  std::vector<std::string> header;
  auto split = [](const std::string& s) {
    std::vector<std::string> v;
    std::string f;
    std::istringstream is(s);
    while (std::getline(is, f, '\t')) v.push_back(f);
    return v;
  };
  if (!std::getline(in, line)) return out;
  header = split(line);
  auto col = [&](const std::string& name) {
    for (size_t i = 0; i < header.size(); ++i)
      if (header[i] == name) return static_cast<int>(i);
    return -1;
  };
  int cf = col("file"), cn = col("n"), cz = col("nnz_stored"), cs = col("symmetry"), ck = col("kind"),
      cp = col("known_properties"), cr = col("num_neg_reference");
  while (std::getline(in, line)) {
    auto v = split(line);
    auto at = [&](int c) { return c >= 0 && c < static_cast<int>(v.size()) ? v[c] : std::string(); };
    ManifestEntry e;
    e.file = at(cf);
    if (e.file.empty()) continue;
    e.n = std::atol(at(cn).c_str());
    e.nnz_stored = std::atol(at(cz).c_str());
    e.symmetry = at(cs);
    e.kind = at(ck);
    e.known_properties = at(cp);
    std::string r = at(cr);
    if (!r.empty() && r.find_first_not_of("0123456789") == std::string::npos) e.num_neg_reference = std::atoi(r.c_str());
    out[e.file] = e;
  }
  return out;
}

namespace {
std::string lower(std::string s) {
  for (auto& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}
}  // namespace

bool marked_singular(const std::string& name, const ManifestEntry* e) {
  for (const char* s : {"t2dal", "bloweybq", "ncvxqp1", "stokes64", "laser", "hand_singular", "hand_stress"})
    if (name.rfind(s, 0) == 0) return true;
  if (!e) return false;
  const std::string text = lower(e->kind + " " + e->known_properties);
  const std::string key = "numerical null space dim=";
  for (auto p = text.find(key); p != std::string::npos; p = text.find(key, p + 1))
    if (std::atol(text.c_str() + p + key.size()) != 0) return true;
  for (auto q = text.find("singular"); q != std::string::npos; q = text.find("singular", q + 1))
    if (q < 3 || text.compare(q - 3, 3, "non") != 0) return true;
  return false;
}

std::string base_name(const std::string& path) {
  auto k = path.find_last_of('/');
  return k == std::string::npos ? path : path.substr(k + 1);
}

std::vector<SharedMatrix> shared_matrices(const std::string& symmetry) {
  std::vector<SharedMatrix> out;
  const auto manifest = read_manifest(matrices_dir());
  for (const auto& path : matrix_files()) {
    const std::string name = base_name(path);
    auto it = manifest.find(name);
    if (it == manifest.end() || it->second.symmetry != symmetry) continue;
    out.push_back(SharedMatrix{path, name, it->second});
  }
  return out;
}

}  // namespace ssids_test
