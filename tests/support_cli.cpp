// support_cli.cpp — see support_cli.hpp.
#include "support_cli.hpp"

#include <doctest/doctest.h>

#include <cmath>
#include <cstdlib>
#include <fstream>

namespace ssids_test {
namespace cli_support {

std::string data_file(const std::string& name) { return std::string(SSIDS_SOURCE_DIR) + "/tests/data/" + name; }

CliResult cli(const std::string& args) { return ssids_test::run_cli(args); }

int count_lines(const std::string& s) {
  int k = 0;
  for (char c : s) k += c == '\n';
  if (!s.empty() && s.back() != '\n') ++k;
  return k;
}

bool contains(const std::string& s, const std::string& what) { return s.find(what) != std::string::npos; }

void write_text(const std::string& path, const std::string& text) {
  std::ofstream f(path, std::ios::binary);
  f << text;
  REQUIRE(f.good());
}

bool JsonObject::is_number(const std::string& k) const {
  auto it = raw.find(k);
  if (it == raw.end() || strings.at(k) || it->second.empty()) return false;
  char* end = nullptr;
  std::strtod(it->second.c_str(), &end);
  return *end == '\0';
}
double JsonObject::num(const std::string& k) const {
  REQUIRE_MESSAGE(is_number(k), "JSON key '" << k << "' is missing or not a number");
  return std::strtod(raw.at(k).c_str(), nullptr);
}
long long JsonObject::integer(const std::string& k) const {
  double v = num(k);
  REQUIRE_MESSAGE(v == std::floor(v), "JSON key '" << k << "' is not an integer: " << raw.at(k));
  return std::strtoll(raw.at(k).c_str(), nullptr, 10);
}
std::string JsonObject::str(const std::string& k) const {
  REQUIRE_MESSAGE((has(k) && strings.at(k)), "JSON key '" << k << "' is missing or not a string");
  return raw.at(k);
}


JsonObject parse_json(const std::string& text) {
  JsonObject j;
  size_t p = 0;
  auto ws = [&] { while (p < text.size() && (text[p] == ' ' || text[p] == '\t')) ++p; };
  auto fail = [&](const std::string& why) {
    j.ok = false;
    j.error = why + " at offset " + std::to_string(p);
    return j;
  };
  auto read_string = [&](std::string& s) {
    if (p >= text.size() || text[p] != '"') return false;
    ++p;
    while (p < text.size() && text[p] != '"') {
      if (text[p] == '\\') {
        if (++p >= text.size()) return false;
        char c = text[p];
        s += c == 'n' ? '\n' : c == 't' ? '\t' : c;
        if (c == 'u') p += 4;
      } else {
        s += text[p];
      }
      ++p;
    }
    if (p >= text.size()) return false;
    ++p;
    return true;
  };
  ws();
  if (p >= text.size() || text[p] != '{') return fail("expected '{'");
  ++p;
  ws();
  if (p < text.size() && text[p] == '}') {
    ++p;
  } else {
    for (;;) {
      ws();
      std::string key, val;
      if (!read_string(key)) return fail("expected a key");
      ws();
      if (p >= text.size() || text[p] != ':') return fail("expected ':'");
      ++p;
      ws();
      bool is_str = false;
      if (p < text.size() && text[p] == '"') {
        if (!read_string(val)) return fail("unterminated string");
        is_str = true;
      } else if (p < text.size() && (text[p] == '[' || text[p] == '{')) {
        // an array or object: kept as its raw text (brackets balanced outside strings)
        int depth = 0;
        bool in_str = false;
        do {
          const char c = text[p];
          if (in_str) {
            if (c == '\\') val += text[p++];
            else if (c == '"') in_str = false;
          } else if (c == '"') {
            in_str = true;
          } else if (c == '[' || c == '{') {
            ++depth;
          } else if (c == ']' || c == '}') {
            --depth;
          }
          val += text[p++];
        } while (p < text.size() && depth > 0);
        if (depth != 0) return fail("unterminated array or object");
      } else {
        while (p < text.size() && text[p] != ',' && text[p] != '}' && text[p] != ' ') val += text[p++];
        if (val.empty()) return fail("empty value");
      }
      if (j.raw.count(key)) return fail("duplicate key " + key);
      j.raw[key] = val;
      j.strings[key] = is_str;
      ws();
      if (p < text.size() && text[p] == ',') {
        ++p;
        continue;
      }
      if (p < text.size() && text[p] == '}') {
        ++p;
        break;
      }
      return fail("expected ',' or '}'");
    }
  }
  if (p < text.size() && text[p] == '\n') ++p;
  if (p != text.size()) return fail("trailing text after the object");
  j.ok = true;
  return j;
}

JsonObject json_of(const CliResult& r, int status) {
  INFO("stdout: " << r.out);
  INFO("stderr: " << r.err);
  REQUIRE(r.status == status);
  JsonObject j = parse_json(r.out);
  REQUIRE_MESSAGE(j.ok, "not one JSON object: " << j.error);
  return j;
}

void require_keys_numeric(const JsonObject& j, const std::vector<std::string>& keys) {
  for (const auto& k : keys) {
    CAPTURE(k);
    CHECK(j.has(k));
    CHECK(j.is_number(k));
  }
}


std::vector<JsonObject> objects_in(const std::string& text) {
  std::vector<JsonObject> out;
  std::size_t p = text.find('[');
  REQUIRE_MESSAGE(p != std::string::npos, "not an array: " << text);
  ++p;
  while (p < text.size()) {
    while (p < text.size() && (text[p] == ' ' || text[p] == ',')) ++p;
    if (p >= text.size() || text[p] == ']') break;
    REQUIRE_MESSAGE(text[p] == '{', "not an array of objects: " << text);
    // the end of this object: the matching '}' outside strings
    std::size_t q = p;
    int depth = 0;
    bool in_str = false;
    for (; q < text.size(); ++q) {
      const char c = text[q];
      if (in_str) {
        if (c == '\\') ++q;
        else if (c == '"') in_str = false;
      } else if (c == '"') {
        in_str = true;
      } else if (c == '{') {
        ++depth;
      } else if (c == '}' && --depth == 0) {
        break;
      }
    }
    REQUIRE_MESSAGE(q < text.size(), "unterminated object in: " << text);
    JsonObject j = parse_json(text.substr(p, q + 1 - p));
    REQUIRE_MESSAGE(j.ok, j.error);
    out.push_back(j);
    p = q + 1;
  }
  return out;
}

JsonObject note(const JsonObject& report, const std::string& list, const std::string& code) {
  REQUIRE_MESSAGE(report.has(list), "no \"" << list << "\" in the report");
  for (const JsonObject& o : objects_in(report.raw.at(list)))
    if (o.str("code") == code) return o;
  return JsonObject{};
}

}  // namespace cli_support
}  // namespace ssids_test
