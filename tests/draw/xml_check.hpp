// tests/draw/xml_check.hpp -- a small well-formedness checker for the SVG the tools write:
// one root element, balanced tags, quoted attributes, known entities only.  It records every
// element with its attributes so that tests can count cells and labels.
#pragma once

#include <cctype>     // std::isalnum, std::isspace
#include <map>        // std::map
#include <stdexcept>  // std::runtime_error
#include <string>     // std::string
#include <vector>     // std::vector

namespace tessera::test {

struct XmlElement {
  std::string name;
  std::map<std::string, std::string> attrs;
  std::string text;  // direct character data (entities decoded)
  int parent = -1;   // index of the enclosing element
};

struct XmlDocument {
  std::string root;
  std::vector<XmlElement> elements;  // in document order
  // The text of element i and of its descendants, in order.
  std::string all_text(size_t i, const std::string& sep = "") const {
    std::string t = elements[i].text;
    for (size_t k = i + 1; k < elements.size(); ++k) {
      int a = elements[k].parent;
      while (a >= 0 && static_cast<size_t>(a) != i) a = elements[static_cast<size_t>(a)].parent;
      if (a < 0) continue;
      t += sep + elements[k].text;
    }
    return t;
  }
  // Indices of the elements with this name and class.
  std::vector<size_t> find(const std::string& name, const std::string& cls) const {
    std::vector<size_t> r;
    for (size_t i = 0; i < elements.size(); ++i)
      if (elements[i].name == name && elements[i].attrs.count("class") && elements[i].attrs.at("class") == cls)
        r.push_back(i);
    return r;
  }
  int count(const std::string& name, const std::string& cls = "") const {
    int n = 0;
    for (const auto& e : elements)
      if (e.name == name && (cls.empty() || (e.attrs.count("class") && e.attrs.at("class") == cls))) ++n;
    return n;
  }
};

// Throws std::runtime_error naming the byte offset of the first problem.
inline XmlDocument parse_xml(const std::string& s) {
  XmlDocument doc;
  size_t p = 0;
  auto fail = [&](const std::string& what) { throw std::runtime_error("xml: " + what + " at byte " + std::to_string(p)); };
  auto is_name = [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_' || c == ':' || c == '.'; };
  auto decode = [&](const std::string& t) {
    std::string o;
    for (size_t i = 0; i < t.size(); ++i) {
      if (t[i] == '<') fail("'<' in character data");
      if (t[i] != '&') { o += t[i]; continue; }
      size_t semi = t.find(';', i);
      if (semi == std::string::npos) fail("unterminated entity");
      std::string ent = t.substr(i + 1, semi - i - 1);
      if (ent == "amp") o += '&';
      else if (ent == "lt") o += '<';
      else if (ent == "gt") o += '>';
      else if (ent == "quot") o += '"';
      else if (ent == "apos") o += '\'';
      else if (!ent.empty() && ent[0] == '#') o += '?';
      else fail("unknown entity &" + ent + ";");
      i = semi;
    }
    return o;
  };
  if (s.compare(0, 5, "<?xml") == 0) {
    p = s.find("?>");
    if (p == std::string::npos) fail("unterminated XML declaration");
    p += 2;
  }
  std::vector<size_t> stack;  // indices into doc.elements
  bool root_closed = false;
  while (p < s.size()) {
    if (s[p] != '<') {
      size_t q = s.find('<', p);
      std::string text = s.substr(p, q == std::string::npos ? std::string::npos : q - p);
      bool blank = text.find_first_not_of(" \t\r\n") == std::string::npos;
      if (!blank) {
        if (stack.empty()) fail("text outside the root element");
        doc.elements[stack.back()].text += decode(text);
      }
      if (q == std::string::npos) break;
      p = q;
      continue;
    }
    if (s.compare(p, 4, "<!--") == 0) {
      size_t q = s.find("-->", p);
      if (q == std::string::npos) fail("unterminated comment");
      p = q + 3;
      continue;
    }
    if (s[p + 1] == '/') {
      size_t q = p + 2;
      while (q < s.size() && is_name(s[q])) ++q;
      std::string name = s.substr(p + 2, q - p - 2);
      if (stack.empty() || doc.elements[stack.back()].name != name) fail("mismatched closing tag </" + name + ">");
      while (q < s.size() && std::isspace(static_cast<unsigned char>(s[q]))) ++q;
      if (q >= s.size() || s[q] != '>') fail("malformed closing tag");
      stack.pop_back();
      if (stack.empty()) root_closed = true;
      p = q + 1;
      continue;
    }
    if (root_closed) fail("a second root element");
    size_t q = p + 1;
    while (q < s.size() && is_name(s[q])) ++q;
    XmlElement e;
    e.name = s.substr(p + 1, q - p - 1);
    if (e.name.empty()) fail("missing element name");
    for (;;) {
      while (q < s.size() && std::isspace(static_cast<unsigned char>(s[q]))) ++q;
      if (q >= s.size()) fail("unterminated tag");
      if (s[q] == '>' || (s[q] == '/' && q + 1 < s.size() && s[q + 1] == '>')) break;
      size_t a = q;
      while (q < s.size() && is_name(s[q])) ++q;
      std::string an = s.substr(a, q - a);
      if (an.empty() || q >= s.size() || s[q] != '=') { p = q; fail("malformed attribute"); }
      ++q;
      if (q >= s.size() || s[q] != '"') { p = q; fail("unquoted attribute value"); }
      size_t end = s.find('"', q + 1);
      if (end == std::string::npos) fail("unterminated attribute value");
      if (e.attrs.count(an)) { p = a; fail("duplicate attribute " + an); }
      e.attrs[an] = decode(s.substr(q + 1, end - q - 1));
      q = end + 1;
    }
    if (stack.empty() && !doc.elements.empty()) fail("a second root element");
    if (doc.elements.empty()) doc.root = e.name;
    e.parent = stack.empty() ? -1 : static_cast<int>(stack.back());
    doc.elements.push_back(e);
    if (s[q] == '/') {
      if (doc.elements.size() == 1) root_closed = true;
      p = q + 2;
    } else {
      stack.push_back(doc.elements.size() - 1);
      p = q + 1;
    }
  }
  if (!stack.empty()) fail("unclosed element <" + doc.elements[stack.back()].name + ">");
  if (doc.elements.empty()) fail("no root element");
  return doc;
}

}  // namespace tessera::test
