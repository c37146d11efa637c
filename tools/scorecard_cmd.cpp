// tools/scorecard_cmd.cpp -- `tessera scorecard FILE.json...`: the main job's scorecard of saved
// results, without a GPU (host only).  The files are what `tessera bench --json`, `tessera roofline
// --json` and `tessera main` wrote; with --out the scorecard document and its report are written too.
#include <algorithm>   // std::min, std::max
#include <cstdio>      // std::printf, std::fprintf
#include <ctime>       // std::time, std::strftime
#include <filesystem>  // std::filesystem::create_directories
#include <fstream>     // std::ofstream
#include <string>      // std::string
#include <vector>      // std::vector

#include "bench_record.hpp"  // read_results, json_escape
#include "command.hpp"       // TESSERA_COMMAND
#include "draw_args.hpp"     // parse_args
#include "scorecard.hpp"     // score, format_table, document_json, write_report

namespace {

namespace sc = tessera::scorecard;

void help() {
  std::printf(
      "usage: tessera scorecard FILE.json... [--out DIR] [--python EXE]\n\n"
      "The main job's scorecard (see `tessera main --help`) of saved results, without a GPU: one line per\n"
      "kernel family with Tessera's figure, the reference measured in the same run, their ratio and the\n"
      "target.  FILE.json: files written by `tessera bench ... --json`, `tessera roofline --json` or\n"
      "`tessera main` (scorecard.json); a family whose records are in none of them is \"not run\".\n"
      "  --out DIR      also write DIR/scorecard.json and the report DIR/report.md with its plots\n"
      "                 (tools/scorecard_report.py; the plots need matplotlib)\n"
      "  --python EXE   the Python interpreter for the report (default python3)\n\n"
      "example: tessera scorecard bench/results/copy_defaults.json bench/results/gemm_sm90.json --out /tmp/sc\n");
}

int run_scorecard(int argc, char** argv) {
  tessera::cli::ParsedArgs a;
  try {
    a = tessera::cli::parse_args(argc, argv, {{"--out", 1}, {"--python", 1}}, {"--help", "-h"});
  } catch (const std::exception& e) {
    std::fprintf(stderr, "scorecard: %s\n", e.what());
    return 2;
  }
  if (a.has("--help") || a.has("-h")) {
    help();
    return 0;
  }
  if (a.positional.empty()) {
    std::fprintf(stderr, "scorecard: give one or more results files (e.g. bench/results/*.json; see --help)\n");
    return 2;
  }
  std::vector<tessera::bench::Record> records;
  std::vector<sc::Step> steps;
  std::string roofline, gpu_json, gpu_name, first_date, last_date;
  std::string command = "tessera scorecard";
  for (int i = 1; i < argc; ++i) command += std::string(" ") + argv[i];
  for (const std::string& path : a.positional) {
    tessera::bench::ResultsFile f;
    try {
      f = tessera::bench::read_results(path);
    } catch (const std::exception& e) {
      std::fprintf(stderr, "scorecard: %s\n", e.what());
      return 1;
    }
    records.insert(records.end(), f.records.begin(), f.records.end());
    if (!f.roofline_json.empty()) roofline = f.roofline_json;
    if (gpu_json.empty() && !f.gpu_json.empty()) {
      gpu_json = f.gpu_json;
      gpu_name = f.gpu_name;
    }
    if (!f.date.empty()) {
      first_date = first_date.empty() ? f.date : std::min(first_date, f.date);
      last_date = std::max(last_date, f.date);
    }
    steps.push_back(sc::Step{f.suite, f.command, path, -1, 0});
  }
  const std::vector<sc::Line> lines = sc::score(records);
  std::printf("Tessera scorecard of %zu saved file%s: %s, measured %s%s%s\n\n", a.positional.size(),
              a.positional.size() == 1 ? "" : "s", gpu_name.empty() ? "GPU not recorded" : gpu_name.c_str(),
              first_date.empty() ? "(no date)" : first_date.substr(0, 10).c_str(), last_date != first_date ? " to " : "",
              last_date != first_date ? last_date.substr(0, 10).c_str() : "");
  std::fputs(sc::format_table(lines).c_str(), stdout);
  std::printf("\nratio: Tessera's figure against the reference measured in the same run (above 1: Tessera is faster)\n");
  if (!a.has("--out")) return 0;

  const std::string dir = a.value("--out");
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  char now[64];
  const std::time_t t = std::time(nullptr);
  std::strftime(now, sizeof now, "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&t));
  std::string header = "\"suite\": \"scorecard\",\n  \"date\": \"" + std::string(now) + "\",\n  \"command\": \"" +
                       tessera::bench::json_escape(command) + "\",\n  \"git_commit\": \"\"";
  if (!gpu_json.empty()) header += ",\n  \"gpu\": " + gpu_json;
  const std::string doc_path = dir + "/scorecard.json";
  std::ofstream doc(doc_path, std::ios::binary);
  doc << sc::document_json(header, lines, steps, records, roofline, "", "");
  doc.close();
  if (!doc) {
    std::fprintf(stderr, "scorecard: cannot write '%s'\n", doc_path.c_str());
    return 1;
  }
  std::printf("details: %s (%zu records)\n", doc_path.c_str(), records.size());
  const std::string python = a.value_or("--python", "python3");
  const int rc = sc::write_report(python, sc::tools_script("scorecard_report.py"), doc_path, dir);
  if (rc) {
    std::fprintf(stderr, "scorecard: the report was not written (%s tools/scorecard_report.py exited with %d)\n",
                 python.c_str(), rc);
    return 1;
  }
  return 0;
}

}  // namespace

TESSERA_COMMAND("scorecard", "the main job's scorecard of saved benchmark results (no GPU needed)", run_scorecard);
