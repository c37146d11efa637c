// tessera/analysis/smem.hpp -- shared-memory bank conflicts, one prediction per warp instruction.
// Host only.
//
// Model (sm_80 / sm_90): shared memory has 32 banks of 4 bytes; byte address a lies in 4-byte
// word a/4 and bank (a/4) % 32.  The pipeline serves a warp instruction in phases (see
// access.hpp: 32 lanes for accesses up to 4 bytes, 16 for 8 bytes, 8 for 16 bytes and for each
// ldmatrix matrix).  Within a phase, lanes that touch the same word share it (broadcast); distinct
// words in one bank are served one per cycle.  So a phase takes
//     wavefronts(phase) = max over banks of (distinct words of that bank touched in the phase)
// (at least 1 when a lane is active); that maximum is the phase's n-way degree.
//
// Per instruction: wavefronts = sum over phases; ideal = number of phases with an active lane;
// conflicts = wavefronts - ideal.  These are the quantities Nsight Compute counts, per executed
// instruction, as
//     l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld / _op_st      (wavefronts)
//     l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld / _op_st  (conflicts)
//     smsp__sass_inst_executed_op_shared_ld / _st                    (instructions)
// so a kernel's counters are predicted by summing the per-instruction figures over the
// instructions it executes (docs/ANALYSIS.md).  Not modelled: the hardware's merging of
// identical-address phases for 64/128-bit loads (a uniform-address LDS.128 may take fewer than
// four wavefronts).
#pragma once

#include <algorithm>  // std::max, std::sort, std::unique
#include <string>     // std::string
#include <vector>     // std::vector

#include "tessera/analysis/access.hpp"  // AccessPattern, Instruction, expand

namespace tessera::analysis {

struct BankModel {
  int banks = 32;
  int bank_bytes = 4;
};

struct SmemInstructionResult {
  int warp = 0;
  int group = 0;
  int wavefronts = 0;
  int ideal = 0;
  int conflicts = 0;  // wavefronts - ideal
  int ways = 0;       // n-way degree: the largest number of distinct words in one bank of one phase
  std::vector<int> phase_wavefronts;
};

struct SmemReport {
  std::string instruction;
  bool is_store = false;
  Int instructions = 0;
  Int wavefronts = 0;
  Int ideal = 0;
  Int conflicts = 0;
  int max_ways = 0;
  std::vector<SmemInstructionResult> per_instruction;
  std::vector<Int> bank_words;  // distinct-word accesses per bank, summed over phases (for pictures)
};

// Wavefronts and degree of one phase: lanes [lo, hi) of the instruction.
inline SmemInstructionResult analyze_phases(const WarpInstruction& wi, const Instruction& inst, const BankModel& m,
                                            std::vector<Int>* bank_words = nullptr) {
  SmemInstructionResult r;
  r.warp = wi.warp;
  r.group = wi.group;
  for (int lo = 0; lo < 32; lo += inst.phase_lanes) {
    std::vector<Int> words;
    for (int lane = lo; lane < lo + inst.phase_lanes && lane < 32; ++lane) {
      const LaneAccess& a = wi.lanes[static_cast<size_t>(lane)];
      if (!a.active) continue;
      for (Int w = a.addr / m.bank_bytes; w <= (a.addr + a.bytes - 1) / m.bank_bytes; ++w) words.push_back(w);
    }
    if (words.empty()) continue;
    std::sort(words.begin(), words.end());
    words.erase(std::unique(words.begin(), words.end()), words.end());
    std::vector<int> per_bank(static_cast<size_t>(m.banks), 0);
    for (Int w : words) {
      int b = static_cast<int>(w % m.banks);
      per_bank[static_cast<size_t>(b)]++;
      if (bank_words) (*bank_words)[static_cast<size_t>(b)]++;
    }
    int wf = *std::max_element(per_bank.begin(), per_bank.end());
    r.phase_wavefronts.push_back(wf);
    r.wavefronts += wf;
    r.ideal += 1;
    r.ways = std::max(r.ways, wf);
  }
  r.conflicts = r.wavefronts - r.ideal;
  return r;
}

// Bank conflicts of every warp instruction of the pattern (shared-memory side).
inline SmemReport analyze_smem(const AccessPattern& p, const Instruction& inst, const BankModel& m = {}) {
  SmemReport rep;
  rep.instruction = inst.name;
  rep.is_store = inst.is_store;
  rep.bank_words.assign(static_cast<size_t>(m.banks), 0);
  for (const WarpInstruction& wi : expand(p, inst)) {
    SmemInstructionResult r = analyze_phases(wi, inst, m, &rep.bank_words);
    rep.instructions += 1;
    rep.wavefronts += r.wavefronts;
    rep.ideal += r.ideal;
    rep.conflicts += r.conflicts;
    rep.max_ways = std::max(rep.max_ways, r.ways);
    rep.per_instruction.push_back(std::move(r));
  }
  return rep;
}

}  // namespace tessera::analysis
