// tools/scorecard.cpp -- the scorecard's families, their targets and its text and JSON forms
// (scorecard.hpp).
//
// Each family picks its records by suite, kernel, case and size, combines them as its target is
// stated, and compares the result with that target.  The targets are the project's (docs/PERF.md):
//   copy            the best straight variant at >= 256 MiB reaches 97% of cudaMemcpy D2D
//   GEMM            geomean over the large shapes (every dimension >= 4096) >= 1.00 of cuBLAS, each
//                   shape >= 0.97; the same against cuBLASLt's own fused bias+GELU; bias+SiLU+residual
//                   fused >= 1.15x cuBLAS + a separate epilogue kernel
//   GEMM FP8        e4m3 with per-tensor scales, geomean over the large shapes >= 1.00 of cuBLASLt's FP8 GEMM with
//                   the same scales, each shape >= 0.95
//   decode GEMM     over the decode set D (M = 1, 16, 64, 128 against the weights (N, K) = (4096, 4096),
//                   (8192, 8192), (14336, 4096), (4096, 14336)): geomean >= 1.10 of cuBLAS, each shape >= 0.95;
//                   B (the weights) streamed at >= 88% of cudaMemcpy D2D for M <= 16 at N = K = 8192; the fused
//                   bias + SiLU + residual at most 3% slower than the bare GEMM (geomean of its speed over the
//                   bare GEMM's over D >= 0.97)
//   fused kernels   the cases the suite marks with a target (record field "target": the fp32 row
//                   norms and fp32 chains >= 0.95 of D2D, every chain faster than its unfused sequence)
//   pipeline        cp.async with 2-4 stages faster than synchronous loads in every memory-bound case
//                   (<= 4 FMA per element) at 1 CTA per SM
#include "scorecard.hpp"

#include <sys/wait.h>  // WIFEXITED, WEXITSTATUS

#include <algorithm>   // std::min_element, std::max_element
#include <cmath>       // std::log, std::exp, std::fabs
#include <cstdio>      // std::snprintf, std::sscanf
#include <cstdlib>     // std::system, std::strtoll
#include <filesystem>  // std::filesystem::exists
#include <functional>  // std::function

#include "decode_set.hpp"  // in_decode_set

namespace tessera::scorecard {

const char* to_string(Verdict v) {
  switch (v) {
    case Verdict::met: return "met";
    case Verdict::missed: return "MISSED";
    case Verdict::no_target: return "-";
    case Verdict::not_run: return "not run";
  }
  return "?";
}

namespace {

// ---- reading sizes and cases ----

// "256 MiB (8192x8192 fp32)" -> 268435456; 0 when the size does not start with a byte count.
double size_bytes(const std::string& size) {
  double v = 0;
  char unit[4] = {};
  if (std::sscanf(size.c_str(), "%lf %3s", &v, unit) != 2) return 0;
  const std::string u = unit;
  return u == "KiB" ? v * 1024 : u == "MiB" ? v * 1048576 : u == "GiB" ? v * 1073741824.0 : 0;
}

// "M=16,N=8192,K=8192" -> (16, 8192, 8192); false for any other size.
bool gemm_shape(const std::string& size, long long& m, long long& n, long long& k) {
  return std::sscanf(size.c_str(), "M=%lld,N=%lld,K=%lld", &m, &n, &k) == 3;
}

// The integer after `key` in `s` ("work=4 FMA/elem", "work=" -> 4); -1 when absent.
long long integer_after(const std::string& s, const std::string& key) {
  const size_t at = s.find(key);
  if (at == std::string::npos) return -1;
  char* end = nullptr;
  const long long v = std::strtoll(s.c_str() + at + key.size(), &end, 10);
  return end == s.c_str() + at + key.size() ? -1 : v;
}

// "tma [tma 4 stages, ...]" -> "tma"; "1 GiB (16384x16384 fp32)" -> "1 GiB".
std::string head(const std::string& s, char stop) {
  const size_t at = s.find(stop);
  std::string h = at == std::string::npos ? s : s.substr(0, at);
  while (!h.empty() && h.back() == ' ') h.pop_back();
  return h;
}

std::string ratio_text(double r) {
  char b[32];
  std::snprintf(b, sizeof b, "%.2f", r);
  return b;
}

// ---- targets ----

// ratio >= at_least (> when strict), and, for combined lines, every record's ratio >= each.
struct Target {
  double at_least = 0;
  bool strict = false;
  double each = 0;
  bool stated() const { return at_least > 0; }
  bool met(double ratio) const { return strict ? ratio > at_least : ratio >= at_least; }
  std::string str() const {
    if (!stated()) return "";
    std::string s = (strict ? "> " : ">= ") + ratio_text(at_least);
    if (each > 0) s += ", each >= " + ratio_text(each);
    return s;
  }
};

// A record's own target (">= 0.95", "> 1"); not stated when empty or unreadable.
Target parse_target(const std::string& t) {
  Target g;
  double v = 0;
  if (t.rfind(">=", 0) == 0 && std::sscanf(t.c_str() + 2, "%lf", &v) == 1) g.at_least = v;
  else if (t.rfind(">", 0) == 0 && std::sscanf(t.c_str() + 1, "%lf", &v) == 1) g = Target{v, true};
  return g;
}

// ---- combining records into a line ----

using Pick = std::function<bool(const Record&)>;

std::vector<const Record*> pick(const std::vector<Record>& records, const Pick& p) {
  std::vector<const Record*> out;
  for (const Record& r : records)
    if (r.reference_figure > 0 && p(r)) out.push_back(&r);
  return out;
}

Line start(const std::string& family, const std::string& reference, const std::vector<const Record*>& rs) {
  Line l;
  l.family = family;
  l.reference = reference;
  l.records = static_cast<int>(rs.size());
  if (!rs.empty()) {
    l.unit = rs.front()->unit;
    l.reference_full = rs.front()->reference;
  }
  return l;
}

void take_figures(Line& l, const Record& r) {
  l.figure = r.figure;
  l.reference_figure = r.reference_figure;
  l.ratio = r.ratio;
  l.unit = r.unit;
  l.reference_full = r.reference;
}

// The best record (copy: the target is met by the best configuration).
Line best_of(const std::string& family, const std::string& reference, const std::vector<const Record*>& rs, Target t) {
  Line l = start(family, reference, rs);
  l.target = t.str();
  if (rs.empty()) return l;
  const Record* best = *std::max_element(rs.begin(), rs.end(), [](auto* a, auto* b) { return a->ratio < b->ratio; });
  take_figures(l, *best);
  l.measured = "best of " + std::to_string(rs.size());
  l.detail = head(best->variant, '[') + " at " + head(best->size, '(');
  l.verdict = t.met(l.ratio) ? Verdict::met : Verdict::missed;
  return l;
}

// Geometric means over shapes (GEMM: the target is stated on the geomean, and on each shape).
Line geomean_of(const std::string& family, const std::string& reference, const std::vector<const Record*>& rs, Target t) {
  Line l = start(family, reference, rs);
  l.target = t.str();
  if (rs.empty()) return l;
  double lf = 0, lr = 0, lq = 0;
  for (const Record* r : rs) {
    lf += std::log(r->figure);
    lr += std::log(r->reference_figure);
    lq += std::log(r->ratio);
  }
  const double n = static_cast<double>(rs.size());
  l.figure = std::exp(lf / n);
  l.reference_figure = std::exp(lr / n);
  l.ratio = std::exp(lq / n);
  const Record* worst = *std::min_element(rs.begin(), rs.end(), [](auto* a, auto* b) { return a->ratio < b->ratio; });
  l.measured = rs.size() == 1 ? "1 shape" : "geomean of " + std::to_string(rs.size());
  l.detail = "worst " + ratio_text(worst->ratio) + " at " + bench::shape_of(worst->size);
  l.verdict = t.met(l.ratio) && worst->ratio >= t.each ? Verdict::met : Verdict::missed;
  return l;
}

// The worst record.  Without a target of the family's own, each record is held to the target it
// states (fused kernels); without either, the line has no verdict.
Line worst_of(const std::string& family, const std::string& reference, const std::vector<const Record*>& rs,
              Target t = {}) {
  Line l = start(family, reference, rs);
  if (rs.empty()) {
    l.target = t.str();
    return l;
  }
  const Record* worst = *std::min_element(rs.begin(), rs.end(), [](auto* a, auto* b) { return a->ratio < b->ratio; });
  take_figures(l, *worst);
  l.measured = rs.size() == 1 ? "1 case" : "worst of " + std::to_string(rs.size());
  l.detail = worst->kernel + " " + head(worst->variant, '[') + " at " + bench::shape_of(worst->size);
  bool all_met = true, stated = t.stated();
  std::string own;  // the records' own targets, when they agree
  for (const Record* r : rs) {
    const Target rt = t.stated() ? t : parse_target(r->target);
    stated = stated || rt.stated();
    all_met = all_met && (!rt.stated() || rt.met(r->ratio));
    if (!t.stated()) own = own.empty() || own == rt.str() ? rt.str() : "per case";
  }
  l.target = t.stated() ? t.str() : own;
  l.verdict = !stated ? Verdict::no_target : all_met ? Verdict::met : Verdict::missed;
  return l;
}

bool is(const Record& r, const char* suite) { return r.suite == suite; }

// A GEMM record of the bench's default type: bf16, or no type named.  The scorecard's GEMM families are the bf16
// targets; `tessera bench gemm --dtype f16` records (dtype "f16") are left to their own files and docs/PERF.md.
bool gemm_bf16(const Record& r) { return is(r, "gemm") && (r.dtype.empty() || r.dtype == "bf16"); }

bool large_gemm(const Record& r) {
  long long m = 0, n = 0, k = 0;
  return gemm_shape(r.size, m, n, k) && std::min({m, n, k}) >= 4096;
}

// A shape of the decode set D (decode_set.hpp).
bool decode_set(const Record& r) {
  long long m = 0, n = 0, k = 0;
  return gemm_shape(r.size, m, n, k) && bench::in_decode_set(m, n, k);
}

// A memory-bound case of the pipeline suite with cp.async and >= 2 stages at 1 CTA/SM.
bool pipelined_memory_bound(const Record& r) {
  int stages = 0;
  const long long work = integer_after(r.size, "work=");
  return is(r, "pipeline") && r.kernel == "stream_transform" && work >= 0 && work <= 4 &&
         std::sscanf(r.variant.c_str(), "cp_async %dst", &stages) == 1 && stages >= 2 &&
         r.variant.find(", 1 CTA/SM") != std::string::npos;
}

}  // namespace

std::vector<Line> score(const std::vector<Record>& rs) {
  std::vector<Line> out;
  out.push_back(best_of("copy, >= 256 MiB", "cudaMemcpy D2D", pick(rs, [](const Record& r) {
                          return is(r, "copy") && r.kernel == "copy_2d" && r.reference == "cudaMemcpy D2D" &&
                                 size_bytes(r.size) >= 256.0 * 1048576;
                        }),
                        Target{0.97}));
  auto gemm_case = [&](const char* variant) {
    return pick(rs, [variant](const Record& r) {
      return gemm_bf16(r) && r.kernel == "tessera" && r.variant == variant && large_gemm(r);
    });
  };
  out.push_back(geomean_of("GEMM bf16, large shapes", "cuBLAS", gemm_case("bare"), Target{1.0, false, 0.97}));
  out.push_back(geomean_of("GEMM + bias + GELU, fused", "cuBLASLt GELU_BIAS", gemm_case("bias_gelu"),
                           Target{1.0, false, 0.97}));
  out.push_back(geomean_of("GEMM + bias + SiLU + residual", "cuBLAS + epilogue", gemm_case("bias_silu_residual"),
                           Target{1.15}));
  out.push_back(geomean_of("GEMM FP8 e4m3, large shapes", "cuBLASLt FP8", pick(rs, [](const Record& r) {
                             return is(r, "gemm") && r.dtype == "e4m3" && r.kernel == "tessera" && r.variant == "fp8_tensor" &&
                                    large_gemm(r);
                           }),
                           Target{1.0, false, 0.95}));
  auto decode_case = [&](const char* variant) {
    return pick(rs, [variant](const Record& r) {
      return gemm_bf16(r) && r.kernel == "tessera" && r.variant == variant && decode_set(r);
    });
  };
  out.push_back(geomean_of("GEMM decode set", "cuBLAS", decode_case("decode"), Target{1.10, false, 0.95}));
  out.push_back(worst_of("GEMM decode, B read, M <= 16", "cudaMemcpy D2D", pick(rs, [](const Record& r) {
                           long long m = 0, n = 0, k = 0;
                           return gemm_bf16(r) && r.kernel == "tessera" && r.variant == "plain: B streamed" &&
                                  gemm_shape(r.size, m, n, k) && m <= 16 && n == 8192 && k == 8192;
                         }),
                         Target{0.88}));
  out.push_back(geomean_of("GEMM decode, SiLU+residual cost", "Tessera bare", decode_case("epilogue_cost_bias_silu_residual"),
                           Target{0.97}));
  out.push_back(worst_of("row norms", "cudaMemcpy D2D", pick(rs, [](const Record& r) {
                           return is(r, "fused") && r.kernel.find("norm") != std::string::npos && !r.target.empty();
                         })));
  out.push_back(worst_of("fused elementwise chains", "cudaMemcpy D2D", pick(rs, [](const Record& r) {
                           return is(r, "fused") && r.kernel.rfind("chain ", 0) == 0 && r.variant == "fused (1 kernel)" &&
                                  !r.target.empty();
                         })));
  out.push_back(worst_of("chains fused vs unfused", "unfused sequence", pick(rs, [](const Record& r) {
                           return is(r, "fused") && r.variant == "fused vs unfused" && !r.target.empty();
                         })));
  out.push_back(worst_of("pipeline, memory-bound", "synchronous loads", pick(rs, pipelined_memory_bound),
                         Target{1.0, true}));
  return out;
}

std::string format_figure(double v) {
  char b[48];
  const double a = std::fabs(v);
  if (a >= 1000 || v == 0) std::snprintf(b, sizeof b, "%.0f", v);
  else if (a >= 10) std::snprintf(b, sizeof b, "%.1f", v);
  else if (a >= 1) std::snprintf(b, sizeof b, "%.2f", v);
  else std::snprintf(b, sizeof b, "%.3g", v);
  return b;
}

std::string format_duration(double seconds) {
  const long s = std::lround(seconds < 0 ? 0 : seconds);
  char b[48];
  if (s < 60) std::snprintf(b, sizeof b, "%ld s", s);
  else if (s < 3600) std::snprintf(b, sizeof b, "%ld min %02ld s", s / 60, s % 60);
  else std::snprintf(b, sizeof b, "%ld h %02ld min", s / 3600, (s % 3600) / 60);
  return b;
}

std::string format_table(const std::vector<Line>& lines) {
  std::vector<std::vector<std::string>> rows = {
      {"kernel family", "measured", "figure", "reference (same run)", "ratio", "target", "verdict"}};
  for (const Line& l : lines) {
    if (l.verdict == Verdict::not_run) {
      rows.push_back({l.family, "", "", l.reference, "", l.target, to_string(l.verdict)});
      continue;
    }
    rows.push_back({l.family, l.measured, format_figure(l.figure) + " " + l.unit,
                    l.reference + " " + format_figure(l.reference_figure), ratio_text(l.ratio), l.target,
                    to_string(l.verdict)});
  }
  std::vector<size_t> w(rows[0].size(), 0);
  for (const auto& r : rows)
    for (size_t c = 0; c < r.size(); ++c) w[c] = std::max(w[c], r[c].size());
  std::string out;
  for (const auto& r : rows) {
    std::string line;
    for (size_t c = 0; c < r.size(); ++c) {
      const bool right = c == 4;  // the ratio column is right-aligned
      const std::string pad(w[c] - r[c].size(), ' ');
      line += (c ? "  " : "") + (right ? pad + r[c] : r[c] + (c + 1 < r.size() ? pad : ""));
    }
    out += line + "\n";
  }
  return out;
}

Eta::Eta(std::vector<double> weights) : weights_(std::move(weights)) {}

void Eta::at(size_t step, double fraction) {
  step_ = step;
  fraction_ = fraction < 0 ? 0 : fraction > 1 ? 1 : fraction;
}

double Eta::done() const {
  double total = 0, done = 0;
  for (size_t i = 0; i < weights_.size(); ++i) {
    total += weights_[i];
    if (i < step_) done += weights_[i];
    else if (i == step_) done += weights_[i] * fraction_;
  }
  return total > 0 ? done / total : 0;
}

double Eta::seconds_left(double elapsed) const {
  const double d = done();
  if (d <= 0 || elapsed <= 0) return -1;
  return elapsed * (1 - d) / d;
}

std::string document_json(const std::string& header, const std::vector<Line>& lines, const std::vector<Step>& steps,
                          const std::vector<Record>& records, const std::string& roofline_json, const std::string& date,
                          const std::string& commit) {
  using bench::json_escape;
  const auto num = bench::json_number;
  std::string o = "{\n  " + header + ",\n  \"scorecard\": [\n";
  for (size_t i = 0; i < lines.size(); ++i) {
    const Line& l = lines[i];
    o += "    {\"family\": \"" + json_escape(l.family) + "\", \"measured\": \"" + json_escape(l.measured) +
         "\", \"detail\": \"" + json_escape(l.detail) + "\", \"figure\": " + num(l.figure) + ", \"unit\": \"" +
         json_escape(l.unit) + "\", \"reference\": \"" + json_escape(l.reference) + "\", \"reference_full\": \"" +
         json_escape(l.reference_full) + "\", \"reference_figure\": " + num(l.reference_figure) +
         ", \"ratio\": " + num(l.ratio) + ", \"target\": \"" + json_escape(l.target) + "\", \"verdict\": \"" +
         to_string(l.verdict) + "\", \"records\": " + std::to_string(l.records) + "}" + (i + 1 < lines.size() ? "," : "") + "\n";
  }
  o += "  ],\n  \"steps\": [\n";
  for (size_t i = 0; i < steps.size(); ++i) {
    const Step& s = steps[i];
    o += "    {\"name\": \"" + json_escape(s.name) + "\", \"command\": \"" + json_escape(s.command) + "\"";
    if (!s.file.empty()) o += ", \"file\": \"" + json_escape(s.file) + "\"";
    if (s.seconds >= 0) o += ", \"seconds\": " + num(s.seconds);
    o += ", \"status\": " + std::to_string(s.status) + "}" + (i + 1 < steps.size() ? "," : "") + "\n";
  }
  o += "  ],\n  \"records\": [\n";
  for (size_t i = 0; i < records.size(); ++i)
    o += "    " + bench::record_json(records[i], date, commit) + (i + 1 < records.size() ? "," : "") + "\n";
  o += "  ]";
  if (!roofline_json.empty()) {
    std::string r = roofline_json;
    while (!r.empty() && (r.back() == '\n' || r.back() == ' ')) r.pop_back();
    o += ",\n  \"roofline\": " + r;
  }
  return o + "\n}\n";
}

std::string tools_script(const std::string& file) {
  const std::string here = __FILE__;  // .../tools/scorecard.cpp
  const size_t slash = here.find_last_of('/');
  const std::string beside = (slash == std::string::npos ? std::string(".") : here.substr(0, slash)) + "/" + file;
  return std::filesystem::exists(beside) ? beside : "tools/" + file;
}

namespace {
std::string shell_quote(const std::string& s) {
  std::string o = "'";
  for (char ch : s) o += ch == '\'' ? std::string("'\\''") : std::string(1, ch);
  return o + "'";
}
}  // namespace

int run_script(const std::string& python, const std::string& script, const std::vector<std::string>& args) {
  std::fflush(stdout);
  std::string cmd = shell_quote(python);
  cmd.append(" ").append(shell_quote(script));
  for (const std::string& a : args) cmd.append(" ").append(shell_quote(a));
  const int rc = std::system(cmd.c_str());
  if (rc == -1) return 127;
  return WIFEXITED(rc) ? WEXITSTATUS(rc) : 128;
}

int write_report(const std::string& python, const std::string& script, const std::string& scorecard_json,
                 const std::string& out_dir) {
  return run_script(python, script, {scorecard_json, out_dir});
}

}  // namespace tessera::scorecard
