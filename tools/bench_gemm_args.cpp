// tools/bench_gemm_args.cpp -- `tessera bench gemm`'s arguments: the help text, each flag's parse with a named error,
// the flags checked against each other, and the tile names resolved once the operand type is known.
#include <cstdio>   // std::printf, std::fprintf
#include <cstdlib>  // std::strtol
#include <string>   // std::string

#include "bench_gemm_shared.hpp"

namespace tessera::bench::gemm_bench {

std::string bench_tile_names(Dtype dt) {
  std::string s;
  for (const gemm_core::GemmKernelEntry& e : gemm_core::gemm_kernels())
    if (bench_tile(e, dt)) s += (s.empty() ? "" : ", ") + std::string(e.name);
  return s;
}

int parse_gemm_bench_args(const BenchOptions& o, GemmBenchArgs* args) {
  GemmBenchArgs& a = *args;
  a = GemmBenchArgs{};
  bool menu_given = false;
  std::string tile_name;                          // --tile NAME (checked once --dtype is known)
  bool fp8_accum_given = false;
  bool fp8_scale_given = false;
  // A K-split count as --split-k and --versus take it: a whole number from 1 to 65535, else 0.
  auto split_count = [](const std::string& v) -> long {
    char* end = nullptr;
    const long n = std::strtol(v.c_str(), &end, 10);
    return v.empty() || *end != '\0' || n < 1 || n > 65535 ? 0 : n;
  };
  for (size_t i = 0; i < o.args.size(); ++i) {
    if (o.args[i] == "--help" || o.args[i] == "-h") {
      std::printf(
          "usage: tessera bench gemm [--json FILE] [--quick] [--repeats N]\n"
          "                          [--shapes all|square|llm|decode|decode-grid|MxNxK,...] [--kernels] [--plans [--menu bare|bias_silu_residual]]\n"
          "                          [--b-row-major] [--a-col-major] [--tile NAME] [--split-k N] [--stream-k on|off]\n"
          "                          [--dtype bf16|f16|e4m3|e5m2|s8] [--fp8-accum promoted|fast]\n"
          "                          [--fp8-scale tensor|channel|block] [--versus TILE:SPLIT]\n\n"
          "Tessera's GEMM with fused epilogues against cuBLAS / cuBLASLt (and cuBLAS + a separate epilogue\n"
          "kernel), same data, same process; TFLOP/s and ratios.  --kernels lists the kernel configurations\n"
          "with their registers and shared memory and stops.  A is row-major; B is column-major (N x K\n"
          "weights), or K x N row-major with --b-row-major; --a-col-major stores A column-major (M contiguous).\n"
          "--tile forces one tile for every Tessera GEMM\n"
          "(bf16: %s;\n"
          " f16: %s);\n"
          "--split-k N forces N K splits (the workspace is sized for it); --stream-k on|off forces the persistent\n"
          "kernels' stream-K tail on or off (default: the planner's choice).  --dtype f16 runs every GEMM, bias,\n"
          "residual and reference in f16 instead of bf16 (--tile then takes the tiles built for f16).\n"
          "--plans times, for each shape, the planner's plan of the bare GEMM against every plan that can be forced\n"
          "(each tile with 1, 2, 3, 4, 6 and 8 K splits; records \"plan_choice\": the planner's speed over the best's);\n"
          "decode-grid is its grid: M = 1, 2, 4, ..., 256 x (N, K) = (4096, 4096), (8192, 8192), (14336, 4096),\n"
          "(4096, 14336), (28672, 8192).  --menu bias_silu_residual times that fused menu instead of the bare GEMM\n"
          "(a bias per column, SiLU, a residual; records \"plan_choice_bias_silu_residual\"; cuBLAS's GEMM followed by\n"
          "gemm_epilogue_inplace is the check and the note's reference).\n"
          "--versus TILE:SPLIT also times the bare GEMM on that forced plan (tile TILE, SPLIT K splits) in the same\n"
          "round-robin as everything else, and records \"plan_vs_forced\": the planner's bare speed over the forced plan's.\n"
          "--dtype e4m3|e5m2 times Tessera's FP8 GEMM (A and B of that type, per-tensor scales, bf16 D) against\n"
          "cuBLASLt's FP8 GEMM with the same scales (records \"fp8_tensor\"; none for e5m2, which cuBLASLt does not\n"
          "take as both operands) and against Tessera's bf16 GEMM of the same values (\"fp8_over_bf16\"); --fp8-accum\n"
          "promoted|fast (default promoted) sets both libraries' FP8 accumulation; --fp8-scale channel|block scales\n"
          "per row of A and column of B (cuBLASLt OUTER_VEC_32F; records \"fp8_channel\") or per 1 x 128 block of A and\n"
          "128 x 128 block of B (cuBLASLt VEC128_32F / BLK128x128_32F; records \"fp8_block\").  Default shapes: 2048^3, 4096^3,\n"
          "8192^3 and the llm set; takes --shapes, not --plans, --tile, --split-k, --stream-k or the order flags.\n"
          "--dtype s8 times Tessera's INT8 GEMM (s8 A and B, s32 accumulation, per-tensor or --fp8-scale channel\n"
          "scales dequantising to bf16 D) against cuBLASLt's INT8 GEMM (s8 x s8 -> s32, CUBLAS_COMPUTE_32I; records\n"
          "\"int8\" / \"int8_channel\") and Tessera's bf16 GEMM (\"int8_over_bf16\"), and Tessera's DP4A GEMM on CUDA\n"
          "cores (\"dp4a\", \"dp4a_over_int8\"); same defaults and limits.\n"
          "example: tessera bench gemm --shapes 4096x4096x4096 --json bench/results/gemm.json\n",
          bench_tile_names(Dtype::bf16).c_str(), bench_tile_names(Dtype::f16).c_str());
      return 0;
    } else if (o.args[i] == "--shapes" && i + 1 < o.args.size()) {
      a.which = o.args[++i];
      a.shapes_given = true;
    }
    else if (o.args[i] == "--kernels") a.kernels_only = true;
    else if (o.args[i] == "--plans") a.plans_mode = true;
    else if (o.args[i] == "--menu" && i + 1 < o.args.size()) {
      const std::string v = o.args[++i];
      if (v != "bare" && v != "bias_silu_residual") {
        std::fprintf(stderr, "bench gemm: --menu expects bare or bias_silu_residual, got '%s'\n", v.c_str());
        return 2;
      }
      a.plans_menu = v == "bias_silu_residual";
      menu_given = true;
    }
    else if (o.args[i] == "--b-row-major") a.b_row_major = true;
    else if (o.args[i] == "--a-col-major") a.a_col_major = true;
    else if (o.args[i] == "--split-k" && i + 1 < o.args.size()) {
      const std::string v = o.args[++i];
      const long n = split_count(v);
      if (n == 0) {
        std::fprintf(stderr, "bench gemm: --split-k expects a whole number from 1 to 65535; got '%s'\n", v.c_str());
        return 2;
      }
      a.force_split = static_cast<int>(n);
    }
    else if (o.args[i] == "--stream-k" && i + 1 < o.args.size()) {
      const std::string v = o.args[++i];
      if (v != "on" && v != "off") {
        std::fprintf(stderr, "bench gemm: --stream-k expects on or off; got '%s'\n", v.c_str());
        return 2;
      }
      a.force_sk = v == "on" ? GemmStreamK::on : GemmStreamK::off;
    }
    else if (o.args[i] == "--tile" && i + 1 < o.args.size()) tile_name = o.args[++i];
    else if (o.args[i] == "--versus" && i + 1 < o.args.size()) {
      const std::string v = o.args[++i];
      const size_t colon = v.rfind(':');
      const long n = colon == std::string::npos || colon == 0 ? 0 : split_count(v.substr(colon + 1));
      if (n == 0) {
        std::fprintf(stderr, "bench gemm: --versus expects TILE:SPLIT, a tile name and a whole number of K splits from 1 to "
                             "65535 (e.g. 16x128x64:4); got '%s'\n", v.c_str());
        return 2;
      }
      a.versus_tile = v.substr(0, colon);
      a.versus_split = static_cast<int>(n);
    }
    else if (o.args[i] == "--dtype" && i + 1 < o.args.size()) {
      const std::string v = o.args[++i];
      if (v != "bf16" && v != "f16" && v != "e4m3" && v != "e5m2" && v != "s8") {
        std::fprintf(stderr, "bench gemm: --dtype expects bf16, f16, e4m3, e5m2 or s8; got '%s'\n", v.c_str());
        return 2;
      }
      a.fp8_mode = v == "e4m3" || v == "e5m2" || v == "s8";
      a.fp8_dt = v == "e5m2" ? Dtype::e5m2 : v == "s8" ? Dtype::s8 : Dtype::e4m3;
      a.et.dtype = v == "f16" ? Dtype::f16 : Dtype::bf16;  // (the FP8 mode's D: bf16)
    }
    else if (o.args[i] == "--fp8-accum" && i + 1 < o.args.size()) {
      const std::string v = o.args[++i];
      if (v != "promoted" && v != "fast") {
        std::fprintf(stderr, "bench gemm: --fp8-accum expects promoted or fast; got '%s'\n", v.c_str());
        return 2;
      }
      a.fp8_accum = v == "fast" ? GemmFp8Accum::fast : GemmFp8Accum::promoted;
      fp8_accum_given = true;
    }
    else if (o.args[i] == "--fp8-scale" && i + 1 < o.args.size()) {
      const std::string v = o.args[++i];
      if (v != "tensor" && v != "channel" && v != "block") {
        std::fprintf(stderr, "bench gemm: --fp8-scale expects tensor, channel or block; got '%s'\n", v.c_str());
        return 2;
      }
      a.fp8_scale = v == "block" ? GemmScale::block : v == "channel" ? GemmScale::channel : GemmScale::tensor;
      fp8_scale_given = true;
    }
    else {
      std::fprintf(stderr, "bench gemm: unknown argument '%s' (known: --shapes all|square|llm|decode|decode-grid|MxNxK,..., --kernels, --plans, --b-row-major, --a-col-major, --tile NAME, --split-k N, --stream-k on|off, --dtype bf16|f16|e4m3|e5m2|s8, --fp8-accum promoted|fast, --fp8-scale tensor|channel|block, --versus TILE:SPLIT, --menu bare|bias_silu_residual)\n",
                   o.args[i].c_str());
      return 2;
    }
  }
  if (a.plans_mode && (!tile_name.empty() || a.force_split || a.force_sk != GemmStreamK::automatic || a.b_row_major || a.a_col_major)) {
    std::fprintf(stderr, "bench gemm: --plans forces every plan itself and takes the default operand orders: not with --tile, "
                         "--split-k, --stream-k, --b-row-major or --a-col-major\n");
    return 2;
  }
  if (menu_given && !a.plans_mode) {
    std::fprintf(stderr, "bench gemm: --menu goes with --plans (the default benchmark times every menu already)\n");
    return 2;
  }
  if (!a.versus_tile.empty() && (a.plans_mode || a.fp8_mode || !tile_name.empty() || a.force_split)) {
    std::fprintf(stderr, "bench gemm: --versus sets the planner's bare GEMM beside one forced plan: not with --plans, --dtype "
                         "e4m3|e5m2|s8, --tile or --split-k\n");
    return 2;
  }
  if (fp8_accum_given && (!a.fp8_mode || a.fp8_dt == Dtype::s8)) {
    std::fprintf(stderr, "bench gemm: --fp8-accum goes with --dtype e4m3 or e5m2 (s8 sums are exact in s32)\n");
    return 2;
  }
  if (fp8_scale_given && !a.fp8_mode) {
    std::fprintf(stderr, "bench gemm: --fp8-scale goes with --dtype e4m3, e5m2 or s8\n");
    return 2;
  }
  if (a.fp8_scale == GemmScale::block && a.fp8_dt == Dtype::s8) {
    std::fprintf(stderr, "bench gemm: --fp8-scale block goes with --dtype e4m3 or e5m2 (s8 takes tensor or channel scales)\n");
    return 2;
  }
  if (a.fp8_scale == GemmScale::block && a.fp8_accum == GemmFp8Accum::fast) {
    std::fprintf(stderr, "bench gemm: --fp8-scale block needs --fp8-accum promoted (block scales apply to each K tile's sum)\n");
    return 2;
  }
  if (a.fp8_mode && (a.plans_mode || !tile_name.empty() || a.force_split || a.force_sk != GemmStreamK::automatic || a.b_row_major || a.a_col_major)) {
    std::fprintf(stderr, "bench gemm: --dtype %s times the planner's plans with A row-major and B column-major (as FP8 needs): "
                         "not with --plans, --tile, --split-k, --stream-k, --b-row-major or --a-col-major\n", dtype_name(a.fp8_dt));
    return 2;
  }
  const Dtype dt = a.et.dtype;
  const char* dt_name = dtype_name(dt);
  // --tile and --versus name a tile built for dt on tensor cores.
  auto tile_arg = [&](const char* flag, const std::string& name, GemmTile* out) {
    const gemm_core::GemmKernelEntry* e = gemm_core::find_gemm_kernel(name);
    if (!e || !bench_tile(*e, dt)) {
      std::fprintf(stderr, "bench gemm: %s '%s' is not a tile built for %s on tensor cores (%s tiles: %s)\n", flag, name.c_str(),
                   dt_name, dt_name, bench_tile_names(dt).c_str());
      return false;
    }
    *out = e->tile;
    return true;
  };
  if (!tile_name.empty() && !tile_arg("--tile", tile_name, &a.force_tile)) return 2;
  if (!a.versus_tile.empty() && !tile_arg("--versus", a.versus_tile, &a.versus)) return 2;
  return -1;
}

}  // namespace tessera::bench::gemm_bench
