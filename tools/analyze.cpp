// tools/analyze.cpp -- `tessera analyze smem|gmem|vector|instructions`: the static analysers of
// include/tessera/analysis/ on the command line, as a table or as JSON (--json).
#include <cstdio>   // std::printf
#include <cstring>  // std::strcmp
#include <map>      // std::map
#include <string>   // std::string

#include "command.hpp"                   // TESSERA_COMMAND
#include "draw_args.hpp"                 // parse_args, write_output
#include "tessera/draw/svg.hpp"       // bank_grid, render
#include "tessera/analysis/gmem.hpp"     // analyze_gmem
#include "tessera/analysis/smem.hpp"     // analyze_smem
#include "tessera/analysis/vector.hpp"   // widest_vector
#include "tessera/layout.hpp"            // parse_layout, parse_tiler
#include "tessera/tensor/tv_layout.hpp"  // make_tv_copy

namespace tessera::cli {

namespace {

using namespace tessera::analysis;

void analyze_help() {
  std::printf(
      "usage: tessera analyze smem   --layout <L> --elem-bytes <N> --inst <I> <access> [options]\n"
      "       tessera analyze gmem   --layout <L> --elem-bytes <N> --inst <I> <access> [options]\n"
      "       tessera analyze vector --src <L> --dst <L> --elem-bytes <N> [--src-align B] [--dst-align B] [--json]\n"
      "       tessera analyze instructions\n\n"
      "Predicts, per warp instruction, shared-memory bank conflicts (smem: wavefronts, ideal wavefronts,\n"
      "conflicts = wavefronts - ideal, n-way degree; 32 banks x 4 bytes, 64/128-bit accesses in 2/4 phases,\n"
      "ldmatrix one phase per 8x8 matrix) or global-memory coalescing (gmem: 32-byte sectors and 128-byte lines\n"
      "per request, efficiency = useful bytes / moved bytes), and the widest legal vector of a copy (vector).\n\n"
      "  --layout L       the tile in memory: element index -> element offset; Sw<B,M,S>o<layout> for a swizzle\n"
      "  --elem-bytes N   bytes per element (must divide the instruction's access width)\n"
      "  --inst I         the instruction (see `tessera analyze instructions`): ld.32, ld.128, st.64,\n"
      "                   ldmatrix.x4, cp.async.16, ...\n"
      "  access pattern (one of):\n"
      "    --tv TV        (thread, value) -> element index over the whole layout\n"
      "    --tv TV --tile <M,N>   TV over one tile, repeated over the layout in tiles of that shape\n"
      "    --copy THR VAL make_tiled_copy(atom, THR, VAL)'s TV layout, repeated over the layout\n"
      "  --threads N      check that the access pattern has N threads\n"
      "  --base B         byte address of element offset 0 (default 0)\n"
      "  --json           print JSON (one object) instead of the table\n"
      "  --per-instruction  list every instruction (the table lists at most 16 otherwise)\n"
      "  --svg FILE       (smem) draw banks x wavefronts of one instruction (--instruction K, default 0)\n\n"
      "examples:\n"
      "  # ldmatrix.x4 fragments of a row-major 128x64 bf16 tile: 8-way conflicts; with Sw<3,3,3>: none\n"
      "  $ tessera analyze smem --layout '(128,64):(64,1)' --elem-bytes 2 --inst ldmatrix.x4 \\\n"
      "        --tv '((16,2),8):((1,128),16)' --tile '<16,16>'\n"
      "  $ tessera analyze smem --layout 'Sw<3,3,3>o(128,64):(64,1)' --elem-bytes 2 --inst ldmatrix.x4 \\\n"
      "        --tv '((16,2),8):((1,128),16)' --tile '<16,16>' --json\n"
      "  # a warp reading 32 consecutive floats: 4 sectors, one line\n"
      "  $ tessera analyze gmem --layout '32:1' --elem-bytes 4 --inst ld.32 --tv '(32,1):(1,0)'\n"
      "  # 128 threads copying a row-major (64,64) float tile with 128-bit loads\n"
      "  $ tessera analyze gmem --layout '(64,64):(64,1)' --elem-bytes 4 --inst ld.128 --copy '(8,16):(16,1)' '(1,4)'\n"
      "  # widest vector from a row-major bf16 tile into a swizzled one\n"
      "  $ tessera analyze vector --src '(8,64):(64,1)' --dst 'Sw<3,3,3>o(8,64):(64,1)' --elem-bytes 2\n");
}

std::string json_escape(const std::string& s) {
  std::string o;
  for (char c : s) {
    if (c == '"' || c == '\\') o += '\\';
    o += c;
  }
  return o;
}

std::string fixed(double v, int digits = 4) {
  char b[64];
  std::snprintf(b, sizeof b, "%.*f", digits, v);
  return b;
}

struct Setup {
  AccessPattern pattern;
  const Instruction* inst = nullptr;
  std::string access_text;  // how the access was given
};

// Tiler from "<16,16>" or "(16,16)".
Tiler parse_tile(const std::string& s) {
  LayoutParser probe(s);
  if (probe.at_tiler()) return parse_tiler(s);
  IntTuple t = parse_int_tuple(s);
  Tiler r;
  if (t.is_leaf()) {
    r.push(t.value());
  } else {
    for (int i = 0; i < t.rank(); ++i) r.push(product(t.get(i)));
  }
  return r;
}

Setup setup_access(const ParsedArgs& a) {
  Setup s;
  s.pattern.memory = parse_memory_layout(a.value("--layout"));
  if (!a.has("--elem-bytes")) throw std::invalid_argument("--elem-bytes: missing (bytes per element)");
  s.pattern.elem_bytes = static_cast<int>(a.integer("--elem-bytes", 0));
  if (!a.has("--inst")) throw std::invalid_argument("--inst: missing; expected one of: " + instruction_names());
  s.inst = &find_instruction(a.value("--inst"));
  s.pattern.base_bytes = a.integer("--base", 0);
  int modes = a.has("--tv") + a.has("--copy");
  if (modes != 1) throw std::invalid_argument("access pattern: give exactly one of --tv and --copy");
  if (a.has("--tv")) {
    s.pattern.tv = parse_layout(a.value("--tv"));
    s.access_text = std::string("TV ") + to_string(s.pattern.tv);
    if (a.has("--tile")) {
      s.pattern.tile = parse_tile(a.value("--tile"));
      s.access_text += std::string(" over tiles ") + to_string(*s.pattern.tile);
    }
  } else {
    if (a.has("--tile")) throw std::invalid_argument("--tile: not with --copy (the tiled copy has its own tile)");
    Layout thr = parse_layout(a.options.at("--copy")[0]), val = parse_layout(a.options.at("--copy")[1]);
    TVCopy c = make_tv_copy(copy_atom_vector(1), thr, val);
    s.pattern.tv = c.tv;
    s.pattern.tile = c.tiler;
    s.access_text = std::string("tiled copy thr ") + to_string(thr) + std::string(" x val ") + to_string(val) + std::string(": TV ") + to_string(c.tv) +
                    std::string(" over tiles ") + to_string(c.tiler);
  }
  if (a.has("--threads")) {
    Int want = a.integer("--threads", 0), have = size(mode(s.pattern.tv, 0));
    if (want != have)
      throw std::invalid_argument(std::string("--threads: ") + std::to_string(want) + " threads given, but the access pattern has " +
                                  std::to_string(have));
  }
  return s;
}

const std::map<std::string, int> kAccessOptions = {
    {"--layout", 1}, {"--elem-bytes", 1}, {"--inst", 1}, {"--tv", 1},  {"--tile", 1},       {"--copy", 2},
    {"--threads", 1}, {"--base", 1},      {"--svg", 1},  {"--instruction", 1}};

std::string ncu_suffix(const Instruction& inst) {
  if (inst.async_copy) return "ldgsts";
  if (inst.shared_only) return "ldsm";
  return inst.is_store ? "st" : "ld";
}

int run_smem(const ParsedArgs& a) {
  Setup s = setup_access(a);
  SmemReport r = analyze_smem(s.pattern, *s.inst);
  const bool all = a.has("--per-instruction");
  std::string op = ncu_suffix(*s.inst);
  if (a.has("--svg")) {
    Int k = a.integer("--instruction", 0);
    auto insts = expand(s.pattern, *s.inst);
    if (k < 0 || k >= static_cast<Int>(insts.size()))
      throw std::invalid_argument(std::string("--instruction: ") + std::to_string(k) + " is outside [0, " +
                                  std::to_string(insts.size()) + ")");
    const auto& res = r.per_instruction[static_cast<size_t>(k)];
    std::string title = s.inst->name + " on " + s.pattern.memory.text() + std::string(": instruction ") + std::to_string(k) +
                        std::string(" (warp ") + std::to_string(res.warp) + std::string(", group ") + std::to_string(res.group) + "), " +
                        std::to_string(res.wavefronts) + std::string(" wavefronts, ") + std::to_string(res.ways) + "-way";
    write_output(a.value("--svg"), draw::render(draw::bank_grid(insts[static_cast<size_t>(k)], *s.inst, title)));
  }
  if (a.has("--json")) {
    std::string o = "{\"analysis\":\"smem\",\"memory\":\"" + json_escape(s.pattern.memory.text()) +
                    std::string("\",\"elem_bytes\":") + std::to_string(s.pattern.elem_bytes) + ",\"instruction\":\"" + s.inst->name +
                    "\",\"access\":\"" + json_escape(s.access_text) + "\",\"threads\":" +
                    std::to_string(size(mode(s.pattern.tv, 0))) + ",\"instructions\":" +
                    std::to_string(r.instructions) + std::string(",\"wavefronts\":") + std::to_string(r.wavefronts) +
                    std::string(",\"ideal_wavefronts\":") + std::to_string(r.ideal) + ",\"bank_conflicts\":" +
                    std::to_string(r.conflicts) + std::string(",\"max_ways\":") + std::to_string(r.max_ways) +
                    ",\"ncu\":{\"l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_" + op + ".sum\":" +
                    std::to_string(r.conflicts) + ",\"l1tex__data_pipe_lsu_wavefronts_mem_shared_op_" + op + ".sum\":" +
                    std::to_string(r.wavefronts) + "},\"per_instruction\":[";
    for (size_t i = 0; i < r.per_instruction.size(); ++i) {
      const auto& p = r.per_instruction[i];
      o += (i ? "," : "") + std::string("{\"warp\":") + std::to_string(p.warp) + ",\"group\":" +
           std::to_string(p.group) + std::string(",\"wavefronts\":") + std::to_string(p.wavefronts) + ",\"ideal\":" +
           std::to_string(p.ideal) + std::string(",\"conflicts\":") + std::to_string(p.conflicts) + ",\"ways\":" +
           std::to_string(p.ways) + ",\"phases\":[";
      for (size_t k = 0; k < p.phase_wavefronts.size(); ++k) {
        if (k) o += ',';
        o += std::to_string(p.phase_wavefronts[k]);
      }
      o += "]}";
    }
    o += "]}\n";
    std::printf("%s", o.c_str());
    return 0;
  }
  std::printf("shared memory: %s, %d-byte elements\n", s.pattern.memory.text().c_str(), s.pattern.elem_bytes);
  std::printf("instruction:   %s, %d bytes per lane, %d address lanes, phases of %d lanes (%s)\n", s.inst->name.c_str(),
              s.inst->bytes, s.inst->address_lanes, s.inst->phase_lanes, s.inst->is_store ? "store" : "load");
  std::printf("access:        %s\n\n", s.access_text.c_str());
  std::printf("%7s %5s %6s %11s %6s %10s %6s  %s\n", "instr", "warp", "group", "wavefronts", "ideal", "conflicts",
              "n-way", "wavefronts per phase");
  for (size_t i = 0; i < r.per_instruction.size(); ++i) {
    if (!all && i == 16) {
      std::printf("%7s (%zu more; --per-instruction lists all)\n", "...", r.per_instruction.size() - 16);
      break;
    }
    const auto& p = r.per_instruction[i];
    std::string ph;
    for (int w : p.phase_wavefronts) ph += std::to_string(w) + " ";
    std::printf("%7zu %5d %6d %11d %6d %10d %6d  %s\n", i, p.warp, p.group, p.wavefronts, p.ideal, p.conflicts, p.ways,
                ph.c_str());
  }
  std::printf("\ntotal: %lld instructions, %lld wavefronts (ideal %lld), %lld bank conflicts, at most %d-way; "
              "%.2f wavefronts per instruction\n",
              static_cast<long long>(r.instructions), static_cast<long long>(r.wavefronts),
              static_cast<long long>(r.ideal), static_cast<long long>(r.conflicts), r.max_ways,
              r.instructions ? static_cast<double>(r.wavefronts) / static_cast<double>(r.instructions) : 0.0);
  std::printf("ncu:   l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_%s.sum = %lld, "
              "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_%s.sum = %lld (per execution of this pattern)\n",
              op.c_str(), static_cast<long long>(r.conflicts), op.c_str(), static_cast<long long>(r.wavefronts));
  return 0;
}

int run_gmem(const ParsedArgs& a) {
  Setup s = setup_access(a);
  GmemReport r = analyze_gmem(s.pattern, *s.inst);
  const bool all = a.has("--per-instruction");
  std::string op = s.inst->async_copy ? "ldgsts" : s.inst->is_store ? "st" : "ld";
  if (a.has("--json")) {
    std::string o = "{\"analysis\":\"gmem\",\"memory\":\"" + json_escape(s.pattern.memory.text()) +
                    std::string("\",\"elem_bytes\":") + std::to_string(s.pattern.elem_bytes) + ",\"instruction\":\"" + s.inst->name +
                    "\",\"access\":\"" + json_escape(s.access_text) + "\",\"base\":" +
                    std::to_string(s.pattern.base_bytes) + ",\"threads\":" +
                    std::to_string(size(mode(s.pattern.tv, 0))) + std::string(",\"requests\":") + std::to_string(r.instructions) +
                    std::string(",\"sectors\":") + std::to_string(r.sectors) + std::string(",\"lines\":") + std::to_string(r.lines) +
                    std::string(",\"bytes\":") + std::to_string(r.bytes) + ",\"efficiency\":" + fixed(r.efficiency) +
                    ",\"sectors_per_request\":" + fixed(r.sectors_per_request) +
                    ",\"ncu\":{\"l1tex__t_requests_pipe_lsu_mem_global_op_" + op + ".sum\":" +
                    std::to_string(r.instructions) + ",\"l1tex__t_sectors_pipe_lsu_mem_global_op_" + op + ".sum\":" +
                    std::to_string(r.sectors) + "},\"per_instruction\":[";
    for (size_t i = 0; i < r.per_instruction.size(); ++i) {
      const auto& p = r.per_instruction[i];
      o += (i ? "," : "") + std::string("{\"warp\":") + std::to_string(p.warp) + ",\"group\":" +
           std::to_string(p.group) + std::string(",\"sectors\":") + std::to_string(p.sectors) + ",\"lines\":" +
           std::to_string(p.lines) + std::string(",\"bytes\":") + std::to_string(p.bytes) + ",\"efficiency\":" +
           fixed(p.efficiency) + "}";
    }
    o += "]}\n";
    std::printf("%s", o.c_str());
    return 0;
  }
  std::printf("global memory: %s, %d-byte elements, base address %lld\n", s.pattern.memory.text().c_str(),
              s.pattern.elem_bytes, static_cast<long long>(s.pattern.base_bytes));
  std::printf("instruction:   %s, %d bytes per lane (%s)\n", s.inst->name.c_str(), s.inst->bytes,
              s.inst->is_store && !s.inst->async_copy ? "store" : "load");
  std::printf("access:        %s\n\n", s.access_text.c_str());
  std::printf("%7s %5s %6s %8s %6s %7s %11s\n", "request", "warp", "group", "sectors", "lines", "bytes", "efficiency");
  for (size_t i = 0; i < r.per_instruction.size(); ++i) {
    if (!all && i == 16) {
      std::printf("%7s (%zu more; --per-instruction lists all)\n", "...", r.per_instruction.size() - 16);
      break;
    }
    const auto& p = r.per_instruction[i];
    std::printf("%7zu %5d %6d %8d %6d %7lld %10.1f%%\n", i, p.warp, p.group, p.sectors, p.lines,
                static_cast<long long>(p.bytes), 100.0 * p.efficiency);
  }
  std::printf("\ntotal: %lld requests, %lld sectors (%.2f per request), %lld lines, %lld useful bytes of %lld moved: "
              "%.1f%% efficiency\n",
              static_cast<long long>(r.instructions), static_cast<long long>(r.sectors), r.sectors_per_request,
              static_cast<long long>(r.lines), static_cast<long long>(r.bytes), static_cast<long long>(32 * r.sectors),
              100.0 * r.efficiency);
  std::printf("ncu:   l1tex__t_requests_pipe_lsu_mem_global_op_%s.sum = %lld, "
              "l1tex__t_sectors_pipe_lsu_mem_global_op_%s.sum = %lld (per execution of this pattern)\n",
              op.c_str(), static_cast<long long>(r.instructions), op.c_str(), static_cast<long long>(r.sectors));
  return 0;
}

int run_vector(const ParsedArgs& a) {
  MemoryLayout src = parse_memory_layout(a.value("--src")), dst = parse_memory_layout(a.value("--dst"));
  if (!a.has("--elem-bytes")) throw std::invalid_argument("--elem-bytes: missing (bytes per element)");
  int eb = static_cast<int>(a.integer("--elem-bytes", 0));
  Int sa = a.integer("--src-align", 16), da = a.integer("--dst-align", 16);
  int maxb = static_cast<int>(a.integer("--max-bytes", 16));
  VectorReport r = widest_vector(src, dst, eb, sa, da, maxb);
  if (a.has("--json")) {
    std::printf("{\"analysis\":\"vector\",\"src\":\"%s\",\"dst\":\"%s\",\"elem_bytes\":%d,\"src_align\":%lld,"
                "\"dst_align\":%lld,\"elements\":%lld,\"bytes\":%lld,\"contiguous\":%lld,\"max_common_vector\":%s,"
                "\"limit\":\"%s\"}\n",
                json_escape(src.text()).c_str(), json_escape(dst.text()).c_str(), eb, static_cast<long long>(sa),
                static_cast<long long>(da), static_cast<long long>(r.elements), static_cast<long long>(r.bytes),
                static_cast<long long>(r.contiguous),
                r.max_common ? std::to_string(*r.max_common).c_str() : "null", json_escape(r.limit).c_str());
    return 0;
  }
  std::printf("copy %s -> %s, %d-byte elements, base alignment %lld / %lld bytes\n", src.text().c_str(),
              dst.text().c_str(), eb, static_cast<long long>(sa), static_cast<long long>(da));
  std::printf("widest legal vector: %lld elements = %lld bytes per access\n", static_cast<long long>(r.elements),
              static_cast<long long>(r.bytes));
  std::printf("contiguous in both (ignoring alignment and the access limit): %lld elements\n",
              static_cast<long long>(r.contiguous));
  if (r.max_common)
    std::printf("max_common_vector(src, dst) = %lld\n", static_cast<long long>(*r.max_common));
  std::printf("wider is not legal: %s\n", r.limit.c_str());
  return 0;
}

int run_analyze(int argc, char** argv) {
  if (argc < 2 || !std::strcmp(argv[1], "--help") || !std::strcmp(argv[1], "-h")) {
    analyze_help();
    return argc < 2 ? 2 : 0;
  }
  for (int i = 2; i < argc; ++i)
    if (!std::strcmp(argv[i], "--help") || !std::strcmp(argv[i], "-h")) {
      analyze_help();
      return 0;
    }
  std::string sub = argv[1];
  try {
    if (sub == "instructions") {
      std::printf("%-18s %6s %14s %12s  %s\n", "instruction", "bytes", "address lanes", "phase lanes", "kind");
      for (const auto& i : instructions())
        std::printf("%-18s %6d %14d %12d  %s\n", i.name.c_str(), i.bytes, i.address_lanes, i.phase_lanes,
                    i.async_copy ? "global -> shared (async)" : i.shared_only ? "shared -> registers"
                                                               : i.is_store   ? "store"
                                                                              : "load");
      return 0;
    }
    if (sub == "smem" || sub == "gmem") {
      ParsedArgs a = parse_args(argc - 1, argv + 1, kAccessOptions, {"--json", "--per-instruction"});
      if (!a.positional.empty()) throw std::invalid_argument("analyze: unexpected argument '" + a.positional[0] + "'");
      if (sub == "gmem" && a.has("--svg")) throw std::invalid_argument("--svg: bank pictures are for `analyze smem`");
      return sub == "smem" ? run_smem(a) : run_gmem(a);
    }
    if (sub == "vector") {
      ParsedArgs a = parse_args(argc - 1, argv + 1,
                                {{"--src", 1}, {"--dst", 1}, {"--elem-bytes", 1}, {"--src-align", 1},
                                 {"--dst-align", 1}, {"--max-bytes", 1}},
                                {"--json"});
      if (!a.positional.empty()) throw std::invalid_argument("analyze: unexpected argument '" + a.positional[0] + "'");
      return run_vector(a);
    }
    throw std::invalid_argument("analyze: unknown subcommand '" + sub + "' (expected smem, gmem, vector, instructions)");
  } catch (const std::exception& e) {
    std::fprintf(stderr, "error: %s\n", e.what());
    return 1;
  }
}

}  // namespace

}  // namespace tessera::cli

TESSERA_COMMAND("analyze", "predict bank conflicts, coalescing and vector width (analyze smem|gmem|vector ...)",
                tessera::cli::run_analyze);
