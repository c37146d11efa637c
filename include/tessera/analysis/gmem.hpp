// tessera/analysis/gmem.hpp -- global-memory coalescing: sectors and lines per request.  Host only.
//
// Model: one warp instruction is one request to L1TEX; it moves every 32-byte sector (aligned)
// that an active lane's byte range touches, in 128-byte cache lines.  Per instruction:
//     sectors     distinct 32-byte sectors touched
//     lines       distinct 128-byte lines touched
//     bytes       distinct bytes requested (two lanes reading one address count it once)
//     efficiency  bytes / (32 * sectors): the fraction of moved bytes that were asked for
// Nsight Compute's counterparts (per kernel, summed over executed instructions):
//     l1tex__t_requests_pipe_lsu_mem_global_op_ld / _op_st   (requests = instructions)
//     l1tex__t_sectors_pipe_lsu_mem_global_op_ld / _op_st    (sectors)
// and sectors per request = sectors / requests.  For cp.async the global side is a read of the
// copy's width (l1tex__t_sectors_pipe_lsu_mem_global_op_ldgsts).
#pragma once

#include <algorithm>  // std::sort, std::unique
#include <string>     // std::string
#include <vector>     // std::vector

#include "tessera/analysis/access.hpp"  // AccessPattern, Instruction, expand

namespace tessera::analysis {

struct GmemInstructionResult {
  int warp = 0;
  int group = 0;
  int sectors = 0;
  int lines = 0;
  Int bytes = 0;  // distinct bytes requested
  double efficiency = 0.0;
};

struct GmemReport {
  std::string instruction;
  Int instructions = 0;
  Int sectors = 0;
  Int lines = 0;
  Int bytes = 0;
  double efficiency = 0.0;  // bytes / (32 * sectors) over all instructions
  double sectors_per_request = 0.0;
  std::vector<GmemInstructionResult> per_instruction;
};

inline GmemInstructionResult analyze_request(const WarpInstruction& wi) {
  GmemInstructionResult r;
  r.warp = wi.warp;
  r.group = wi.group;
  std::vector<Int> sectors, lines;
  std::vector<std::pair<Int, Int>> ranges;
  for (const LaneAccess& a : wi.lanes) {
    if (!a.active) continue;
    for (Int s = a.addr / 32; s <= (a.addr + a.bytes - 1) / 32; ++s) sectors.push_back(s);
    for (Int l = a.addr / 128; l <= (a.addr + a.bytes - 1) / 128; ++l) lines.push_back(l);
    ranges.push_back({a.addr, a.addr + a.bytes});
  }
  auto uniq = [](std::vector<Int>& v) {
    std::sort(v.begin(), v.end());
    v.erase(std::unique(v.begin(), v.end()), v.end());
  };
  uniq(sectors);
  uniq(lines);
  // distinct bytes: union of [addr, addr+bytes)
  std::sort(ranges.begin(), ranges.end());
  Int covered = 0, end = -1;
  for (auto [b, e] : ranges) {
    if (b >= end) {
      covered += e - b;
      end = e;
    } else if (e > end) {
      covered += e - end;
      end = e;
    }
  }
  r.sectors = static_cast<int>(sectors.size());
  r.lines = static_cast<int>(lines.size());
  r.bytes = covered;
  r.efficiency = r.sectors ? static_cast<double>(covered) / (32.0 * r.sectors) : 0.0;
  return r;
}

// Sectors and lines of every warp instruction of the pattern (global-memory side).
inline GmemReport analyze_gmem(const AccessPattern& p, const Instruction& inst) {
  if (inst.shared_only)
    throw AnalysisError("--inst: " + inst.name + " reads shared memory only; analyse it with `analyze smem`");
  GmemReport rep;
  rep.instruction = inst.name;
  for (const WarpInstruction& wi : expand(p, inst)) {
    GmemInstructionResult r = analyze_request(wi);
    rep.instructions += 1;
    rep.sectors += r.sectors;
    rep.lines += r.lines;
    rep.bytes += r.bytes;
    rep.per_instruction.push_back(r);
  }
  rep.efficiency = rep.sectors ? static_cast<double>(rep.bytes) / (32.0 * static_cast<double>(rep.sectors)) : 0.0;
  rep.sectors_per_request =
      rep.instructions ? static_cast<double>(rep.sectors) / static_cast<double>(rep.instructions) : 0.0;
  return rep;
}

}  // namespace tessera::analysis
