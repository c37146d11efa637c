// tools/draw_args.hpp -- command-line parsing shared by `tessera layout draw`, `tv`, `swizzle` and
// `analyze`: positional arguments and `--name value` options, with errors that name the option.
#pragma once

#include <cctype>     // std::isdigit
#include <cstdio>     // std::fprintf, std::FILE
#include <map>        // std::map
#include <set>        // std::set
#include <stdexcept>  // std::invalid_argument
#include <string>     // std::string
#include <vector>     // std::vector

namespace tessera::cli {

struct ParsedArgs {
  std::vector<std::string> positional;
  std::map<std::string, std::vector<std::string>> options;  // --name -> values
  std::set<std::string> flags;                               // --name without value

  bool has(const std::string& name) const { return options.count(name) || flags.count(name); }
  const std::string& value(const std::string& name) const {
    auto it = options.find(name);
    if (it == options.end() || it->second.empty()) throw std::invalid_argument(name + ": missing (see --help)");
    return it->second[0];
  }
  std::string value_or(const std::string& name, const std::string& def) const {
    auto it = options.find(name);
    return it == options.end() || it->second.empty() ? def : it->second[0];
  }
  long long integer(const std::string& name, long long def) const {
    if (!options.count(name)) return def;
    const std::string& v = value(name);
    size_t pos = 0;
    long long x = 0;
    try {
      x = std::stoll(v, &pos);
    } catch (const std::exception&) {
      pos = 0;
    }
    if (pos != v.size() || v.empty()) throw std::invalid_argument(name + ": expected an integer, got '" + v + "'");
    return x;
  }
};

// Options listed in `with_values` take that many values; `flags` take none; any other --x is an error.
inline ParsedArgs parse_args(int argc, char** argv, const std::map<std::string, int>& with_values,
                             const std::set<std::string>& flags) {
  ParsedArgs a;
  for (int i = 1; i < argc; ++i) {
    std::string s = argv[i];
    if (s.size() > 1 && s[0] == '-' && !(s.size() > 1 && (s[1] == '(' || std::isdigit(static_cast<unsigned char>(s[1]))))) {
      if (a.has(s)) throw std::invalid_argument("option '" + s + "' given twice");
      if (flags.count(s)) {
        a.flags.insert(s);
        continue;
      }
      auto it = with_values.find(s);
      if (it == with_values.end())
        throw std::invalid_argument("unknown option '" + (s.size() > 40 ? s.substr(0, 40) + "..." : s) + "' (see --help)");
      if (i + it->second >= argc)
        throw std::invalid_argument(s + ": expected " + std::to_string(it->second) + " value" +
                                    (it->second == 1 ? "" : "s"));
      auto& vals = a.options[s];
      vals.clear();
      for (int k = 0; k < it->second; ++k) vals.push_back(argv[++i]);
      continue;
    }
    a.positional.push_back(s);
  }
  return a;
}

// Writes text to `path` ("-" or empty: standard output).
inline void write_output(const std::string& path, const std::string& text) {
  if (path.empty() || path == "-") {
    std::fwrite(text.data(), 1, text.size(), stdout);
    return;
  }
  std::FILE* f = std::fopen(path.c_str(), "wb");
  if (!f) throw std::invalid_argument("-o: cannot write '" + path + "'");
  size_t n = std::fwrite(text.data(), 1, text.size(), f);
  bool ok = n == text.size() && std::fclose(f) == 0;
  if (!ok) throw std::invalid_argument("-o: writing '" + path + "' failed");
}

}  // namespace tessera::cli
