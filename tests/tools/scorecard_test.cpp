// The main job's scorecard (tools/scorecard.hpp) on canned records: which records each family
// takes, how it combines them, its verdict against the target, the printed table, the time-left
// estimate; the JSON of records written and read back (tools/bench_record.hpp, tools/json_read.hpp);
// and the scorecard of the saved H100 results in bench/results/, recomputed here from the files.
#include <gtest/gtest.h>

#include <algorithm>  // std::max
#include <cmath>    // std::log, std::exp, std::sqrt, std::pow
#include <cstdio>   // std::remove
#include <fstream>  // std::ofstream
#include <sstream>  // std::stringstream
#include <string>   // std::string
#include <vector>   // std::vector

#include "bench_record.hpp"  // Record, record_json, read_results
#include "json_read.hpp"     // json::parse
#include "scorecard.hpp"     // score, format_table, Eta, document_json

namespace {

using tessera::bench::Record;
namespace sc = tessera::scorecard;

Record rec(const std::string& suite, const std::string& kernel, const std::string& variant, const std::string& size,
           double figure, double reference_figure, const std::string& unit = "GB/s", const std::string& reference = "ref") {
  Record r;
  r.suite = suite;
  r.kernel = kernel;
  r.variant = variant;
  r.size = size;
  r.figure = figure;
  r.unit = unit;
  r.reference = reference;
  r.reference_figure = reference_figure;
  r.ratio = reference_figure > 0 ? figure / reference_figure : 0;
  return r;
}

const sc::Line& line(const std::vector<sc::Line>& lines, const std::string& family) {
  for (const sc::Line& l : lines)
    if (l.family == family) return l;
  static const sc::Line none;
  ADD_FAILURE() << "no line '" << family << "'";
  return none;
}

Record gemm(const std::string& variant, const std::string& mnk, double figure, double reference) {
  long long m = 0, n = 0, k = 0;
  std::sscanf(mnk.c_str(), "%lldx%lldx%lld", &m, &n, &k);
  return rec("gemm", "tessera", variant,
             "M=" + std::to_string(m) + ",N=" + std::to_string(n) + ",K=" + std::to_string(k), figure, reference, "TFLOP/s",
             "cublasGemmEx");
}

TEST(Scorecard, EveryFamilyHasALineInAFixedOrderAndEmptyInputIsNotRun) {
  const std::vector<sc::Line> lines = sc::score({});
  const std::vector<std::string> families = {
      "copy, >= 256 MiB",           "GEMM bf16, large shapes",      "GEMM + bias + GELU, fused",
      "GEMM + bias + SiLU + residual", "GEMM FP8 e4m3, large shapes", "GEMM decode set",
      "GEMM decode, B read, M <= 16", "GEMM decode, SiLU+residual cost", "row norms", "fused elementwise chains",
      "chains fused vs unfused",     "pipeline, memory-bound"};
  ASSERT_EQ(lines.size(), families.size());
  for (size_t i = 0; i < lines.size(); ++i) {
    EXPECT_EQ(lines[i].family, families[i]);
    EXPECT_EQ(lines[i].verdict, sc::Verdict::not_run) << families[i];
    EXPECT_EQ(lines[i].records, 0);
  }
}

TEST(Scorecard, CopyTakesTheBestStraightCopyAtLeast256MiBAgainstCudaMemcpy) {
  std::vector<Record> rs = {
      rec("copy", "copy_2d", "vector [vector 16B x4]", "64 MiB (4096x4096 fp32)", 3000, 2500, "GB/s", "cudaMemcpy D2D"),
      rec("copy", "copy_2d", "vector [vector 16B x4]", "256 MiB (8192x8192 fp32)", 2900, 3000, "GB/s", "cudaMemcpy D2D"),
      rec("copy", "copy_2d", "tma [tma 4 stages]", "1 GiB (16384x16384 fp32)", 2950, 3010, "GB/s", "cudaMemcpy D2D"),
      rec("copy", "copy_2d", "scalar [scalar]", "1 GiB (16384x16384 fp32)", 2500, 3010, "GB/s", "cudaMemcpy D2D"),
      // not straight copies against cudaMemcpy: left out
      rec("copy", "copy_2d transposing", "swizzled", "256 MiB (8192x8192 fp32, row->col)", 3000, 3000, "GB/s", "cudaMemcpy D2D"),
      rec("copy", "copy_2d", "vector", "256 MiB (8192x8192 fp32, ld +16)", 2900, 1700, "GB/s", "cudaMemcpy2D D2D"),
  };
  sc::Line l = line(sc::score(rs), "copy, >= 256 MiB");
  EXPECT_EQ(l.records, 3);
  EXPECT_EQ(l.measured, "best of 3");
  EXPECT_EQ(l.detail, "tma at 1 GiB");
  EXPECT_DOUBLE_EQ(l.figure, 2950);
  EXPECT_DOUBLE_EQ(l.reference_figure, 3010);
  EXPECT_DOUBLE_EQ(l.ratio, 2950.0 / 3010);
  EXPECT_EQ(l.reference, "cudaMemcpy D2D");
  EXPECT_EQ(l.target, ">= 0.97");
  EXPECT_EQ(l.verdict, sc::Verdict::met);  // 0.980
  rs[2].ratio = 0.96;  // the best below the target
  EXPECT_EQ(line(sc::score(rs), "copy, >= 256 MiB").verdict, sc::Verdict::missed);
}

TEST(Scorecard, GemmIsTheGeomeanOverTheLargeShapesAndEachShapeCounts) {
  std::vector<Record> rs = {gemm("bare", "4096x4096x4096", 700, 760), gemm("bare", "8192x8192x8192", 850, 760),
                            gemm("bare", "2048x2048x2048", 300, 600),   // small: left out
                            gemm("decode", "16x8192x8192", 38, 42),     // decode: its own line
                            gemm("bias_gelu", "4096x4096x4096", 650, 600)};
  const std::vector<sc::Line> lines = sc::score(rs);
  const sc::Line& bare = line(lines, "GEMM bf16, large shapes");
  EXPECT_EQ(bare.records, 2);
  EXPECT_EQ(bare.measured, "geomean of 2");
  EXPECT_NEAR(bare.ratio, std::sqrt(700.0 / 760 * (850.0 / 760)), 1e-12);
  EXPECT_NEAR(bare.figure, std::sqrt(700.0 * 850), 1e-9);
  EXPECT_NEAR(bare.reference_figure, 760, 1e-9);
  EXPECT_EQ(bare.detail, "worst 0.92 at 4096x4096x4096");
  EXPECT_EQ(bare.target, ">= 1.00, each >= 0.97");
  // geomean 1.015 >= 1 but 4096^3 at 0.92 < 0.97
  EXPECT_GE(bare.ratio, 1.0);
  EXPECT_EQ(bare.verdict, sc::Verdict::missed);
  const sc::Line& gelu = line(lines, "GEMM + bias + GELU, fused");
  EXPECT_EQ(gelu.measured, "1 shape");
  EXPECT_EQ(gelu.verdict, sc::Verdict::met);  // 1.083
  EXPECT_EQ(line(lines, "GEMM + bias + SiLU + residual").verdict, sc::Verdict::not_run);
  const sc::Line& dec = line(lines, "GEMM decode set");
  EXPECT_DOUBLE_EQ(dec.ratio, 38.0 / 42);
  EXPECT_EQ(dec.records, 1);
  EXPECT_EQ(dec.verdict, sc::Verdict::missed);
  EXPECT_EQ(line(lines, "GEMM decode, SiLU+residual cost").verdict, sc::Verdict::not_run);
}

// The records, each with its type set to `dtype` (the bench's --dtype).
std::vector<Record> typed(std::vector<Record> rs, const std::string& dtype) {
  for (Record& r : rs) r.dtype = dtype;
  return rs;
}

TEST(Scorecard, GemmFamiliesCountBf16RecordsOnly) {
  // `tessera bench gemm --dtype f16` records (dtype "f16") stay out of the bf16 families; records of no named type
  // count as the bench's default, bf16.
  std::vector<Record> rs = {gemm("bare", "4096x4096x4096", 700, 760), gemm("bare", "8192x8192x8192", 850, 760),
                            gemm("decode", "16x8192x8192", 38, 42)};
  rs[1].dtype = "bf16";
  for (const Record& r : typed({gemm("bare", "8192x4096x4096", 100, 760), gemm("decode", "16x8192x8192", 1, 42),
                                gemm("bias_gelu", "4096x4096x4096", 100, 600)},
                               "f16"))
    rs.push_back(r);
  Record streamed = rec("gemm", "tessera", "plain: B streamed", "M=16,N=8192,K=8192", 100, 3000, "GB/s", "cudaMemcpy D2D");
  streamed.dtype = "f16";
  rs.push_back(streamed);
  const std::vector<sc::Line> lines = sc::score(rs);
  const sc::Line& bare = line(lines, "GEMM bf16, large shapes");
  EXPECT_EQ(bare.records, 2);
  EXPECT_NEAR(bare.ratio, std::sqrt(700.0 / 760 * (850.0 / 760)), 1e-12);
  EXPECT_EQ(line(lines, "GEMM + bias + GELU, fused").verdict, sc::Verdict::not_run);
  EXPECT_DOUBLE_EQ(line(lines, "GEMM decode set").ratio, 38.0 / 42);
  EXPECT_EQ(line(lines, "GEMM decode, B read, M <= 16").verdict, sc::Verdict::not_run);
}

// FP8: the e4m3 records against cuBLASLt's FP8 GEMM (case fp8_tensor) at the large shapes, geomean >= 1.00 and each
// >= 0.95; the bf16 families never count them, nor does this line count other FP8 cases (FP8 over bf16), e5m2 or
// small shapes.
TEST(Scorecard, Fp8IsTheGeomeanOfTheE4m3RecordsAgainstCublasLt) {
  std::vector<Record> rs = {gemm("bare", "4096x4096x4096", 700, 760)};
  for (const Record& r : typed({gemm("fp8_tensor", "4096x4096x4096", 1100, 1337), gemm("fp8_tensor", "8192x8192x8192", 1250, 1478),
                                gemm("fp8_over_bf16", "8192x8192x8192", 1250, 858), gemm("fp8_tensor", "2048x2048x2048", 658, 799),
                                gemm("bare", "8192x4096x4096", 100, 760), gemm("fp8_tensor", "8192x4096x4096", 10, 1000)},
                               "e4m3"))
    rs.push_back(r);
  rs.back().dtype = "e5m2";  // the last one: an e5m2 record, not counted
  const std::vector<sc::Line> lines = sc::score(rs);
  const sc::Line& f8 = line(lines, "GEMM FP8 e4m3, large shapes");
  EXPECT_EQ(f8.records, 2);
  EXPECT_NEAR(f8.ratio, std::sqrt(1100.0 / 1337 * (1250.0 / 1478)), 1e-12);
  EXPECT_EQ(f8.target, ">= 1.00, each >= 0.95");
  EXPECT_EQ(f8.verdict, sc::Verdict::missed);
  EXPECT_EQ(f8.reference, "cuBLASLt FP8");
  EXPECT_EQ(line(lines, "GEMM bf16, large shapes").records, 1);  // the e4m3 "bare" record is not bf16's
  // Met: both shapes at or above 0.95, geomean above 1.
  for (Record& r : rs)
    if (r.variant == "fp8_tensor" && r.dtype == "e4m3") r.ratio = r.size == "M=4096,N=4096,K=4096" ? 0.96 : 1.10;
  EXPECT_EQ(line(sc::score(rs), "GEMM FP8 e4m3, large shapes").verdict, sc::Verdict::met);
}

TEST(Scorecard, DecodeReadRateIsTheWorstSmallMShapeOfTheLargestWeights) {
  std::vector<Record> rs = {
      rec("gemm", "tessera", "plain: B streamed", "M=16,N=8192,K=8192", 2700, 3000, "GB/s", "cudaMemcpy D2D"),
      rec("gemm", "tessera", "plain: B streamed", "M=1,N=8192,K=8192", 2670, 3000, "GB/s", "cudaMemcpy D2D"),
      rec("gemm", "tessera", "plain: B streamed", "M=1,N=4096,K=4096", 1650, 3000, "GB/s", "cudaMemcpy D2D"),   // other weights
      rec("gemm", "tessera", "plain: B streamed", "M=64,N=8192,K=8192", 1000, 3000, "GB/s", "cudaMemcpy D2D"),  // M > 16
      rec("gemm", "cublasGemmEx", "plain: B streamed", "M=16,N=8192,K=8192", 100, 3000, "GB/s", "cudaMemcpy D2D"),
  };
  sc::Line l = line(sc::score(rs), "GEMM decode, B read, M <= 16");
  EXPECT_EQ(l.records, 2);
  EXPECT_DOUBLE_EQ(l.figure, 2670);
  EXPECT_EQ(l.target, ">= 0.88");
  EXPECT_EQ(l.verdict, sc::Verdict::met);  // 0.89
  rs[0].ratio = 0.87;
  EXPECT_EQ(line(sc::score(rs), "GEMM decode, B read, M <= 16").verdict, sc::Verdict::missed);
}

// The decode set D: M = 1, 16, 64, 128 against four weight shapes; the geomean of the "decode" records (the bare GEMM
// against cuBLAS) >= 1.10 with each shape >= 0.95, and the fused bias+SiLU+residual's speed over the bare GEMM's
// (epilogue_cost_bias_silu_residual) >= 0.97 in geomean; shapes outside D do not count.
TEST(Scorecard, DecodeSetIsTheGeomeanOverItsShapes) {
  std::vector<Record> rs = {gemm("decode", "1x4096x4096", 110, 100),   gemm("decode", "16x8192x8192", 120, 100),
                            gemm("decode", "128x14336x4096", 100, 100), gemm("decode", "64x4096x14336", 96, 100),
                            gemm("decode", "32x4096x4096", 10, 100),    // M = 32: not in D
                            gemm("decode", "16x28672x8192", 10, 100),   // weights not in D
                            gemm("epilogue_cost_bias_silu_residual", "1x4096x4096", 99, 100),
                            gemm("epilogue_cost_bias_silu_residual", "16x8192x8192", 96, 100)};
  std::vector<sc::Line> lines = sc::score(rs);
  const sc::Line& d = line(lines, "GEMM decode set");
  EXPECT_EQ(d.records, 4);
  EXPECT_NEAR(d.ratio, std::pow(1.10 * 1.20 * 1.00 * 0.96, 0.25), 1e-12);
  EXPECT_EQ(d.target, ">= 1.10, each >= 0.95");
  EXPECT_EQ(d.detail, "worst 0.96 at 64x4096x14336");
  EXPECT_EQ(d.verdict, sc::Verdict::missed);  // geomean 1.063
  const sc::Line& cost = line(lines, "GEMM decode, SiLU+residual cost");
  EXPECT_EQ(cost.records, 2);
  EXPECT_NEAR(cost.ratio, std::sqrt(0.99 * 0.96), 1e-12);
  EXPECT_EQ(cost.target, ">= 0.97");
  EXPECT_EQ(cost.verdict, sc::Verdict::met);  // 0.975
  for (Record& r : rs)
    if (r.variant == "decode") r.ratio = 1.15;
  EXPECT_EQ(line(sc::score(rs), "GEMM decode set").verdict, sc::Verdict::met);
}

TEST(Scorecard, FusedFamiliesHoldEachCaseToTheTargetItStates) {
  auto fused = [](const std::string& kernel, const std::string& variant, double fig, double ref, const std::string& target) {
    Record r = rec("fused", kernel, variant, "n=67108864", fig, ref);
    r.target = target;
    return r;
  };
  std::vector<Record> rs = {
      fused("l2_norm fp32", "one-pass 128x8", 2950, 3000, ">= 0.95"),
      fused("l2_norm fp32", "one-pass 512x8", 2900, 3000, ">= 0.95"),
      fused("l2_norm fp32", "two-pass 2 chunks", 2000, 3000, ""),  // a contrast case without a target
      fused("chain x fp32", "fused (1 kernel)", 2940, 3000, ">= 0.95"),
      fused("chain x fp32", "unfused (2 kernels)", 1500, 3000, ""),
      fused("chain sqrt(sin(x)) fp32", "fused vs unfused", 180, 360, "> 1"),
  };
  rs.back().ratio = 2.0;  // a time ratio: unfused time / fused time
  std::vector<sc::Line> lines = sc::score(rs);
  const sc::Line& norms = line(lines, "row norms");
  EXPECT_EQ(norms.records, 2);
  EXPECT_EQ(norms.measured, "worst of 2");
  EXPECT_DOUBLE_EQ(norms.figure, 2900);
  EXPECT_EQ(norms.target, ">= 0.95");
  EXPECT_EQ(norms.verdict, sc::Verdict::met);
  EXPECT_EQ(line(lines, "fused elementwise chains").records, 1);
  const sc::Line& speedup = line(lines, "chains fused vs unfused");
  EXPECT_DOUBLE_EQ(speedup.ratio, 2.0);
  EXPECT_EQ(speedup.target, "> 1.00");
  EXPECT_EQ(speedup.verdict, sc::Verdict::met);
  rs[1].ratio = 0.94;
  EXPECT_EQ(line(sc::score(rs), "row norms").verdict, sc::Verdict::missed);
}

TEST(Scorecard, PipelineTakesPipelinedMemoryBoundCasesAtOneCtaPerSm) {
  auto p = [](const std::string& variant, int work, double ratio) {
    Record r = rec("pipeline", "stream_transform", variant,
                   "n=67108864 floats, work=" + std::to_string(work) + " FMA/elem", 0.004, 0.004 * ratio, "ns/elem",
                   "sync (same kernel)");
    r.ratio = ratio;
    return r;
  };
  std::vector<Record> rs = {p("cp_async 2st, 1 CTA/SM", 0, 1.4), p("cuda_pipeline 4st, 1 CTA/SM", 4, 1.2),
                            p("cp_async 4st, 1 CTA/SM", 4, 1.3),
                            p("cp_async 1st, 1 CTA/SM", 0, 0.9),     // one stage: not pipelined
                            p("cp_async 2st, 1 CTA/SM", 16, 0.95),   // more arithmetic: not memory-bound
                            p("cp_async 2st, max CTA/SM", 0, 0.99),  // occupancy hides latency without stages
                            p("sync, 1 CTA/SM", 0, 1.0)};
  sc::Line l = line(sc::score(rs), "pipeline, memory-bound");
  EXPECT_EQ(l.records, 2);
  EXPECT_DOUBLE_EQ(l.ratio, 1.3);
  EXPECT_EQ(l.target, "> 1.00");
  EXPECT_EQ(l.verdict, sc::Verdict::met);
  rs[2].ratio = 1.0;  // equal is not faster
  EXPECT_EQ(line(sc::score(rs), "pipeline, memory-bound").verdict, sc::Verdict::missed);
}

TEST(Scorecard, TableHasOneAlignedRowPerFamily) {
  std::vector<Record> rs = {
      rec("copy", "copy_2d", "tma [tma]", "1 GiB (16384x16384 fp32)", 3012.4, 3005.1, "GB/s", "cudaMemcpy D2D"),
      gemm("bare", "8192x8192x8192", 711.23, 741.04)};
  const std::string t = sc::format_table(sc::score(rs));
  std::stringstream ss(t);
  std::vector<std::string> rows;
  for (std::string r; std::getline(ss, r);) rows.push_back(r);
  ASSERT_EQ(rows.size(), 13u) << t;  // header + 12 families
  EXPECT_EQ(rows[0].rfind("kernel family", 0), 0u);
  EXPECT_NE(rows[1].find("3012 GB/s"), std::string::npos) << rows[1];
  EXPECT_NE(rows[1].find("cudaMemcpy D2D 3005"), std::string::npos) << rows[1];
  EXPECT_NE(rows[1].find("1.00"), std::string::npos);
  EXPECT_NE(rows[1].find("met"), std::string::npos);
  EXPECT_NE(rows[2].find("711.2 TFLOP/s"), std::string::npos) << rows[2];
  EXPECT_NE(rows[2].find("cuBLAS 741.0"), std::string::npos) << rows[2];
  EXPECT_NE(rows[2].find("0.96"), std::string::npos);
  EXPECT_NE(rows[2].find("MISSED"), std::string::npos);
  EXPECT_NE(rows[3].find("not run"), std::string::npos);
  // the ratio column ends at the same place in every row that has a ratio
  const size_t end = rows[0].find("ratio") + 5;
  EXPECT_EQ(rows[1].substr(end - 4, 4), "1.00") << t;
  EXPECT_EQ(rows[2].substr(end - 4, 4), "0.96") << t;
}

TEST(Scorecard, FiguresAndDurations) {
  EXPECT_EQ(sc::format_figure(3012.4), "3012");
  EXPECT_EQ(sc::format_figure(711.23), "711.2");
  EXPECT_EQ(sc::format_figure(38.61), "38.6");
  EXPECT_EQ(sc::format_figure(1.234), "1.23");
  EXPECT_EQ(sc::format_figure(0.0043364), "0.00434");
  EXPECT_EQ(sc::format_figure(0), "0");
  EXPECT_EQ(sc::format_duration(44.6), "45 s");
  EXPECT_EQ(sc::format_duration(125), "2 min 05 s");
  EXPECT_EQ(sc::format_duration(3725), "1 h 02 min");
  EXPECT_EQ(sc::format_duration(-3), "0 s");
}

TEST(Scorecard, TimeLeftFollowsThePaceOfWhatIsDone) {
  sc::Eta eta({1, 3});
  eta.at(0, 0);
  EXPECT_LT(eta.seconds_left(5), 0) << "nothing done yet: no estimate";
  eta.at(1, 0);  // the first quarter took 10 s
  EXPECT_DOUBLE_EQ(eta.done(), 0.25);
  EXPECT_DOUBLE_EQ(eta.seconds_left(10), 30);
  eta.at(1, 0.5);  // 2.5 of 4 after 25 s: 1.5 more at the same pace
  EXPECT_DOUBLE_EQ(eta.seconds_left(25), 15);
  eta.at(1, 7);  // clamped
  EXPECT_DOUBLE_EQ(eta.done(), 1);
  EXPECT_DOUBLE_EQ(eta.seconds_left(40), 0);
}

TEST(Records, JsonRoundTripKeepsEveryField) {
  Record r = rec("fused", "chain \"x\" fp32", "fused (1 kernel)", "n=64", 2940.5, 3000, "GB/s", "cudaMemcpy D2D");
  r.note = "line one\nline two; target >= 0.95";
  r.dtype = "fp32";
  r.target = ">= 0.95";
  const std::string path = ::testing::TempDir() + "tessera_records_test.json";
  {
    std::ofstream f(path);
    f << "{\n  \"suite\": \"fused\",\n  \"date\": \"2026-01-02T03:04:05Z\",\n  \"command\": \"tessera bench fused\",\n"
      << "  \"git_commit\": \"abc1234\",\n  \"gpu\": {\"name\": \"Test GPU\", \"sm_count\": 2},\n  \"records\": [\n    "
      << tessera::bench::record_json(r, "2026-01-02T03:04:05Z", "abc1234") << "\n  ]\n}\n";
  }
  const tessera::bench::ResultsFile f = tessera::bench::read_results(path);
  std::remove(path.c_str());
  EXPECT_EQ(f.suite, "fused");
  EXPECT_EQ(f.commit, "abc1234");
  EXPECT_EQ(f.gpu_json, "{\"name\": \"Test GPU\", \"sm_count\": 2}");
  ASSERT_EQ(f.records.size(), 1u);
  const Record& b = f.records[0];
  EXPECT_EQ(b.kernel, r.kernel);
  EXPECT_EQ(b.variant, r.variant);
  EXPECT_EQ(b.size, r.size);
  EXPECT_DOUBLE_EQ(b.figure, 2940.5);
  EXPECT_DOUBLE_EQ(b.reference_figure, 3000);
  EXPECT_NEAR(b.ratio, r.ratio, 1e-6);
  EXPECT_EQ(b.note, r.note);
  EXPECT_EQ(b.dtype, "fp32");
  EXPECT_EQ(b.target, ">= 0.95");
  EXPECT_EQ(b.date, "2026-01-02T03:04:05Z");
}

TEST(Records, OlderRecordsTakeTheirTargetFromTheNote) {
  const std::string path = ::testing::TempDir() + "tessera_records_old.json";
  {
    std::ofstream f(path);
    f << R"({"suite": "fused", "records": [
      {"suite": "fused", "kernel": "l2_norm fp32", "variant": "one-pass", "size": "rows=1,cols=4096", "figure": 1,
       "unit": "GB/s", "reference": "cudaMemcpy D2D", "reference_figure": 1, "ratio": 1, "note": "time 1 us; target >= 0.95"},
      {"suite": "fused", "kernel": "chain x fp32", "variant": "fused vs unfused", "size": "n=1", "figure": 1,
       "unit": "us", "reference": "unfused", "reference_figure": 2, "ratio": 2, "note": "speed-up; target > 1"},
      {"suite": "fused", "kernel": "l2_norm bf16", "variant": "one-pass", "size": "rows=1,cols=4096", "figure": 1,
       "unit": "GB/s", "reference": "cudaMemcpy D2D", "reference_figure": 1, "ratio": 1, "note": "no target here"}]})";
  }
  const auto f = tessera::bench::read_results(path);
  std::remove(path.c_str());
  ASSERT_EQ(f.records.size(), 3u);
  EXPECT_EQ(f.records[0].target, ">= 0.95");
  EXPECT_EQ(f.records[1].target, "> 1");
  EXPECT_EQ(f.records[2].target, "");
}

TEST(Json, ParsesValuesAndNamesWhereInputIsMalformed) {
  const std::string text = R"( {"a": [1, -2.5e3, true, false, null], "s": "x\"\\\/\u00e9\ud83d\ude00", "o": {}} )";
  const tessera::json::Value v = tessera::json::parse(text);
  ASSERT_TRUE(v.is_object());
  const auto* a = v.find("a");
  ASSERT_TRUE(a && a->is_array());
  ASSERT_EQ(a->items.size(), 5u);
  EXPECT_DOUBLE_EQ(a->items[1].number, -2500);
  EXPECT_TRUE(a->items[2].boolean);
  EXPECT_EQ(a->items[4].kind, tessera::json::Value::Kind::null);
  EXPECT_EQ(v.text("s"), "x\"\\/\xc3\xa9\xf0\x9f\x98\x80");
  EXPECT_EQ(v.num("missing", 7), 7);
  EXPECT_EQ(text.substr(a->begin, a->end - a->begin), "[1, -2.5e3, true, false, null]");
  struct Bad {
    std::string text, message;
  };
  for (const Bad& b : std::vector<Bad>{{"{\"a\": 1,}", "line 1, column 9: expected a member name"},
                                       {"[1 2]", "line 1, column 4: expected ',' or ']'"},
                                       {"{\"a\":\n  01}", "line 2, column 4: expected ',' or '}'"},
                                       {"\"abc", "expected '\"' to close the string"},
                                       {"[1] x", "expected end of input after the value"},
                                       {"-", "expected a digit"},
                                       {std::string(100, '['), "at most 64 levels of nesting"}}) {
    try {
      tessera::json::parse(b.text);
      ADD_FAILURE() << "accepted: " << b.text;
    } catch (const std::invalid_argument& e) {
      EXPECT_NE(std::string(e.what()).find(b.message), std::string::npos) << b.text << "\n  got: " << e.what();
    }
  }
}

// The saved H100 results: the scorecard's numbers are the files' numbers, recomputed here.
TEST(SavedResults, ScorecardOfBenchResultsComesFromTheFiles) {
  const std::string dir = std::string(TESSERA_SOURCE_DIR) + "/bench/results/";
  std::vector<Record> all;
  for (const char* file : {"copy_defaults.json", "gemm_sm90.json", "fused.json", "pipeline.json"}) {
    const auto f = tessera::bench::read_results(dir + file);
    ASSERT_FALSE(f.records.empty()) << file;
    all.insert(all.end(), f.records.begin(), f.records.end());
  }
  const std::vector<sc::Line> lines = sc::score(all);
  // GEMM bare: geomean of the ratios of the "bare" records at shapes with every dimension >= 4096
  double log_sum = 0;
  int n = 0;
  for (const Record& r : all) {
    long long m = 0, nn = 0, k = 0;
    if (r.suite == "gemm" && r.variant == "bare" && std::sscanf(r.size.c_str(), "M=%lld,N=%lld,K=%lld", &m, &nn, &k) == 3 &&
        m >= 4096 && nn >= 4096 && k >= 4096) {
      log_sum += std::log(r.ratio);
      ++n;
    }
  }
  ASSERT_EQ(n, 5);
  const sc::Line& bare = line(lines, "GEMM bf16, large shapes");
  EXPECT_NEAR(bare.ratio, std::exp(log_sum / n), 1e-12);
  EXPECT_EQ(bare.records, 5);
  // copy: the largest ratio among straight copies >= 256 MiB against cudaMemcpy D2D
  double best = 0;
  for (const Record& r : all)
    if (r.suite == "copy" && r.kernel == "copy_2d" && r.reference == "cudaMemcpy D2D" &&
        (r.size.rfind("256 MiB", 0) == 0 || r.size.find(" GiB") != std::string::npos))
      best = std::max(best, r.ratio);
  EXPECT_DOUBLE_EQ(line(lines, "copy, >= 256 MiB").ratio, best);
  EXPECT_GT(best, 0.9);
  // fused: the two target norms of the file, the forced two-pass contrast case (0.66) left out
  const sc::Line& norms = line(lines, "row norms");
  EXPECT_EQ(norms.records, 2);
  EXPECT_GE(norms.ratio, 0.95);
  // none of these files has the decode shapes of the scorecard
  EXPECT_EQ(line(lines, "GEMM decode set").verdict, sc::Verdict::not_run);
  // the document: valid JSON holding the lines and every record
  const std::string doc = sc::document_json("\"suite\": \"scorecard\"", lines, {}, all, "{\"suite\": \"roofline\"}", "d", "c");
  const tessera::json::Value v = tessera::json::parse(doc);
  ASSERT_TRUE(v.find("scorecard") && v.find("records") && v.find("roofline"));
  EXPECT_EQ(v.find("scorecard")->items.size(), lines.size());
  EXPECT_EQ(v.find("records")->items.size(), all.size());
  EXPECT_NEAR(v.find("scorecard")->items[1].num("ratio"), bare.ratio, 1e-5);
  EXPECT_EQ(v.find("roofline")->text("suite"), "roofline");
}

}  // namespace
