// tools/bench_record.cpp -- records as JSON, written and read back (bench_record.hpp).
#include "bench_record.hpp"

#include <cstdio>     // std::snprintf, std::sscanf
#include <fstream>    // std::ifstream
#include <sstream>    // std::stringstream
#include <stdexcept>  // std::runtime_error

#include "json_read.hpp"  // json::parse

namespace tessera::bench {

std::string json_escape(const std::string& s) {
  std::string o;
  for (char c : s) {
    if (c == '"' || c == '\\') {
      o += '\\';
      o += c;
    } else if (c == '\n') {
      o += "\\n";
    } else if (static_cast<unsigned char>(c) < 0x20) {
      o += ' ';
    } else {
      o += c;
    }
  }
  return o;
}

std::string json_number(double v) {
  char buf[40];
  std::snprintf(buf, sizeof buf, "%.6g", v);
  return buf;
}

std::string shape_of(const std::string& size) {
  long long m = 0, n = 0, k = 0;
  if (std::sscanf(size.c_str(), "M=%lld,N=%lld,K=%lld", &m, &n, &k) == 3)
    return std::to_string(m) + "x" + std::to_string(n) + "x" + std::to_string(k);
  return size;
}

namespace {

// The target a note states ("...; target >= 0.95", "...; target > 1"), or "".
std::string target_in_note(const std::string& note) {
  const size_t at = note.rfind("target ");
  if (at == std::string::npos) return "";
  size_t p = at + 7;
  const std::string op = note.compare(p, 2, ">=") == 0 ? ">=" : note.compare(p, 1, ">") == 0 ? ">" : "";
  if (op.empty()) return "";
  p += op.size();
  while (p < note.size() && note[p] == ' ') ++p;
  size_t q = p;
  while (q < note.size() && ((note[q] >= '0' && note[q] <= '9') || note[q] == '.')) ++q;
  return q == p ? "" : op + " " + note.substr(p, q - p);
}

}  // namespace

std::string record_json(const Record& r, const std::string& date, const std::string& commit) {
  std::string o = "{\"suite\": \"" + json_escape(r.suite) + "\", \"case\": \"" + json_escape(r.variant) +
                  "\", \"shape\": \"" + json_escape(shape_of(r.size)) + "\", \"dtype\": \"" + json_escape(r.dtype) +
                  "\", \"date\": \"" + json_escape(r.date.empty() ? date : r.date) + "\", \"commit\": \"" +
                  json_escape(r.commit.empty() ? commit : r.commit) + "\", \"kernel\": \"" + json_escape(r.kernel) +
                  "\", \"variant\": \"" + json_escape(r.variant) + "\", \"size\": \"" + json_escape(r.size) +
                  "\", \"figure\": " + json_number(r.figure) + ", \"unit\": \"" + json_escape(r.unit) +
                  "\", \"reference\": \"" + json_escape(r.reference) + "\", \"reference_figure\": " +
                  json_number(r.reference_figure) + ", \"ratio\": " + json_number(r.ratio) + ", \"note\": \"" + json_escape(r.note) + "\"";
  if (!r.target.empty()) o += ", \"target\": \"" + json_escape(r.target) + "\"";
  return o + "}";
}

ResultsFile read_results(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::runtime_error(path + ": cannot read the file");
  std::stringstream ss;
  ss << in.rdbuf();
  const std::string text = ss.str();
  json::Value doc;
  try {
    doc = json::parse(text);
  } catch (const std::invalid_argument& e) {
    throw std::runtime_error(path + ": " + e.what());
  }
  if (!doc.is_object()) throw std::runtime_error(path + ": not a results document (expected a JSON object)");
  ResultsFile f;
  f.path = path;
  f.suite = doc.text("suite");
  f.date = doc.text("date");
  f.command = doc.text("command");
  f.commit = doc.text("git_commit");
  if (const json::Value* g = doc.find("gpu"); g && g->is_object()) {
    f.gpu_json = text.substr(g->begin, g->end - g->begin);
    f.gpu_name = g->text("name");
  }
  if (f.suite == "roofline") {  // its records are roofline points, not bench records
    f.roofline_json = text;
    return f;
  }
  if (const json::Value* r = doc.find("roofline"); r && r->is_object())
    f.roofline_json = text.substr(r->begin, r->end - r->begin);
  const json::Value* recs = doc.find("records");
  if (!recs || !recs->is_array())
    throw std::runtime_error(path + ": no \"records\" array (not a file written by tessera bench, roofline or main)");
  for (const json::Value& v : recs->items) {
    if (!v.is_object()) throw std::runtime_error(path + ": a record is not a JSON object");
    Record r;
    r.suite = v.text("suite", f.suite);
    r.kernel = v.text("kernel");
    r.variant = v.text("variant", v.text("case"));
    r.size = v.text("size", v.text("shape"));
    r.figure = v.num("figure");
    r.unit = v.text("unit");
    r.reference = v.text("reference");
    r.reference_figure = v.num("reference_figure");
    r.ratio = v.num("ratio");
    r.note = v.text("note");
    r.dtype = v.text("dtype");
    r.target = v.find("target") ? v.text("target") : target_in_note(r.note);
    r.date = v.text("date", f.date);
    r.commit = v.text("commit", f.commit);
    f.records.push_back(std::move(r));
  }
  return f;
}

}  // namespace tessera::bench
