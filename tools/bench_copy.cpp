// tools/bench_copy.cpp -- `tessera bench copy`: every copy variant from L2-resident sizes to 4 GiB,
// against cudaMemcpy device-to-device measured in the same process on the same buffers.
//
// Bandwidth counts bytes read + bytes written (2 x the buffer size).  Buffers of one size are rotated
// between sets whose total exceeds 3x L2 (so DRAM sizes are DRAM figures); sizes whose two buffers fit
// in L2 are reported as L2-resident (warm, no rotation), for the copy and cudaMemcpy alike.
// Every configuration is verified (source random, destination poisoned, every element compared on
// the device) before it is timed.
#include <cuda_runtime.h>

#include <algorithm>  // std::max, std::min
#include <cstdio>     // std::printf
#include <cstdlib>    // std::strtoll
#include <stdexcept>  // std::invalid_argument
#include <string>     // std::string
#include <vector>     // std::vector

#include "bench_common.hpp"       // TESSERA_BENCH_SUITE, time_median_ms, Report
#include "tessera/host/copy.hpp"  // CopyPlan, Copy2d

namespace {

using namespace tessera;
using bench::BenchOptions;
using bench::fmt;

struct Config {
  CopyVariant variant;
  CopyTuning tuning;
  std::string label;
};

std::vector<Config> straight_configs(bool quick) {
  std::vector<Config> c;
  auto add = [&](CopyVariant v, CopyTuning t, const std::string& label) { c.push_back({v, t, label}); };
  auto tuned = [](int unroll, int hints, int stages, int ctas, int box, int balanced) {
    CopyTuning t;
    t.unroll = unroll;
    t.hints = hints;
    t.stages = stages;
    t.ctas_per_sm = ctas;
    t.box_bytes = box;
    t.balanced = balanced;
    return t;
  };
  add(CopyVariant::kScalar, {}, "scalar");
  add(CopyVariant::kVector, {}, "vector");  // 16B x4, nc/cs hints, interleaved tiles, persistent grid
  if (!quick) {
    add(CopyVariant::kVector, tuned(2, -1, 0, 0, 0, -1), "vector x2");
    add(CopyVariant::kVector, tuned(8, -1, 0, 0, 0, -1), "vector x8");
    add(CopyVariant::kVector, tuned(0, 0, 0, 0, 0, -1), "vector no-hints");
    add(CopyVariant::kVector, tuned(0, -1, 0, 0, 0, 1), "vector balanced");
    add(CopyVariant::kVector, tuned(0, -1, 0, -1, 0, -1), "vector grid=tiles");
    add(CopyVariant::kVector, tuned(8, -1, 0, 2, 0, -1), "vector x8 2CTA/SM");
    add(CopyVariant::kVector, tuned(8, -1, 0, 1, 0, -1), "vector x8 1CTA/SM");
  }
  add(CopyVariant::kCpAsync, {}, "cp_async");
  if (!quick) {
    add(CopyVariant::kCpAsync, tuned(0, -1, 4, 0, 0, -1), "cp_async 4st");
    add(CopyVariant::kCpAsync, tuned(0, -1, 0, 0, 0, 1), "cp_async balanced");
    add(CopyVariant::kCpAsync, tuned(0, -1, 4, 2, 0, -1), "cp_async 4st 2CTA/SM");
    add(CopyVariant::kCpAsync, tuned(0, -1, 2, 1, 0, -1), "cp_async 2st 1CTA/SM");
    add(CopyVariant::kCpAsync, tuned(0, -1, 3, 1, 0, -1), "cp_async 3st 1CTA/SM");
    add(CopyVariant::kCpAsync, tuned(0, -1, 4, 1, 0, -1), "cp_async 4st 1CTA/SM");
    add(CopyVariant::kCpAsync, tuned(0, -1, 4, 1, 0, 1), "cp_async 4st 1CTA/SM balanced");
    add(CopyVariant::kCpAsync, tuned(0, -1, 2, -1, 0, -1), "cp_async grid=tiles");
  }
  add(CopyVariant::kSwizzled, {}, "swizzled");
  if (!quick) add(CopyVariant::kSwizzled, tuned(0, -1, 2, -1, 0, -1), "swizzled grid=tiles");
  add(CopyVariant::kTma, {}, "tma");
  if (!quick) {
    add(CopyVariant::kTma, tuned(0, -1, 3, 0, 0, -1), "tma 3st");
    add(CopyVariant::kTma, tuned(0, -1, 2, -1, 0, -1), "tma grid=tiles");
    add(CopyVariant::kTma, tuned(0, -1, 4, 1, 0, -1), "tma 1CTA/SM");
    add(CopyVariant::kTma, tuned(0, -1, 4, 2, 0, -1), "tma 2CTA/SM");
    add(CopyVariant::kTma, tuned(0, -1, 4, 0, 32768, -1), "tma 32KB box");
    add(CopyVariant::kTma, tuned(0, -1, 4, 0, 8192, -1), "tma 8KB box");
  }
  return c;
}

std::string mib(size_t bytes) {
  if (bytes >= (size_t(1) << 30) && bytes % (size_t(1) << 30) == 0) return std::to_string(bytes >> 30) + " GiB";
  return std::to_string(bytes >> 20) + " MiB";
}

// A set of source/destination buffers of `bytes` each, rotated per timed call.
struct BufferSets {
  std::vector<void*> src, dst;
  size_t next = 0;
  ~BufferSets() {
    for (void* p : src) cudaFree(p);
    for (void* p : dst) cudaFree(p);
  }
};

struct Shape {
  int64_t rows, cols;
  int e;
  int64_t pad = 0;  // elements between the end of a row and the start of the next (sub-matrix copies)
  int64_t ld() const { return cols + pad; }
  size_t alloc_bytes() const { return static_cast<size_t>((rows - 1) * ld() + cols) * static_cast<size_t>(e); }
};

// A square-ish row-major matrix of `bytes` bytes of `e`-byte elements.
Shape shape_for(size_t bytes, int e) {
  int64_t n = static_cast<int64_t>(bytes) / e, rows = 1;
  while (rows * rows * 4 <= n && n % (rows * 2) == 0) rows *= 2;
  return {rows, n / rows, e};
}

Copy2d problem(void* src, void* dst, const Shape& s, bool transpose) {
  Copy2d p;
  p.src = src;
  p.dst = dst;
  p.rows = s.rows;
  p.cols = s.cols;
  p.elem_bytes = s.e;
  p.ld_src = s.ld();
  p.src_major = Major::kRow;
  if (transpose) {
    p.dst_major = Major::kCol;
    p.ld_dst = s.rows;
  } else {
    p.ld_dst = s.ld();
  }
  return p;
}

int64_t parse_bytes(const std::string& s) {
  char* end = nullptr;
  long long v = std::strtoll(s.c_str(), &end, 10);
  std::string unit = end;
  if (unit == "K" || unit == "KiB") v <<= 10;
  else if (unit == "M" || unit == "MiB") v <<= 20;
  else if (unit == "G" || unit == "GiB") v <<= 30;
  else if (!unit.empty()) throw std::invalid_argument("bench copy: bad size '" + s + "' (use e.g. 4M, 256M, 4G)");
  if (v <= 0) throw std::invalid_argument("bench copy: size must be positive, got '" + s + "'");
  return v;
}

std::vector<std::string> split(const std::string& s) {
  std::vector<std::string> out;
  size_t a = 0;
  while (a <= s.size()) {
    size_t b = s.find(',', a);
    if (b == std::string::npos) b = s.size();
    if (b > a) out.push_back(s.substr(a, b - a));
    a = b + 1;
  }
  return out;
}

void bench_help() {
  std::printf(
      "usage: tessera bench copy [--json FILE] [--quick] [--repeats N] [--sizes LIST] [--no-transpose]\n"
      "                          [--transpose-only] [--pad P] [--bank-report]\n"
      "                          [--profile VARIANT --elem E --rows R --cols C [--transpose]]\n\n"
      "Copies row-major matrices (fp32 unless said) of each size with every variant and with cudaMemcpy D2D,\n"
      "same buffers, same process; GB/s counts bytes read + written.  Then transposing copies (fp32, bf16).\n"
      "  --sizes 4M,256M,4G   buffer sizes (default 4M,16M,64M,256M,1G,4G; --quick: 4M,256M)\n"
      "  --pad P              rows P elements longer than the copied width in source and destination\n"
      "                       (sub-matrix copies; the vector kernel can no longer treat the matrix as\n"
      "                       one row); the reference becomes cudaMemcpy2D D2D with the same pitches\n"
      "  --bank-report        print the predicted shared-memory wavefronts of cp_async vs swizzled\n"
      "  --profile V ...      run one configuration 3 times without timing (for ncu)\n"
      "example: tessera bench copy --sizes 256M --json bench/results/copy.json\n");
}

int bank_report(const BenchOptions&) {
  std::printf("Predicted shared-memory traffic (transposing copy, 4096 x 4096, row-major -> column-major):\n");
  std::vector<std::vector<std::string>> rows;
  for (int e : {1, 2, 4, 8})
    for (CopyVariant v : {CopyVariant::kCpAsync, CopyVariant::kSwizzled}) {
      Copy2d p = problem(reinterpret_cast<void*>(uintptr_t{1} << 20), reinterpret_cast<void*>(uintptr_t{1} << 40),
                         Shape{4096, 4096, e}, true);
      for (const SmemTraffic& t : predict_smem_traffic(p, v))
        rows.push_back({std::to_string(e), to_string(v), t.access, std::to_string(t.instructions),
                        std::to_string(t.wavefronts), std::to_string(t.ideal_wavefronts),
                        std::to_string(t.wavefronts - t.ideal_wavefronts), std::to_string(t.max_ways) + "-way"});
    }
  bench::print_table(stdout, {"elem", "variant", "access", "warp instr", "wavefronts", "ideal", "conflicts", "worst"},
                     rows);
  return 0;
}

}  // namespace

static int run_copy_bench(const BenchOptions& o) {
  std::vector<size_t> sizes;
  bool transpose_section = true, straight_section = true, want_bank = false, want_profile = false, transpose = false;
  std::string profile_variant;
  int64_t prof_rows = 4096, prof_cols = 4096;
  int prof_elem = 4;
  int64_t pad = 0;
  for (size_t i = 0; i < o.args.size(); ++i) {
    const std::string& a = o.args[i];
    auto next = [&]() -> std::string {
      if (i + 1 >= o.args.size()) throw std::invalid_argument("bench copy: " + a + " needs a value");
      return o.args[++i];
    };
    if (a == "--help" || a == "-h") { bench_help(); return 0; }
    else if (a == "--sizes") for (auto& s : split(next())) sizes.push_back(static_cast<size_t>(parse_bytes(s)));
    else if (a == "--no-transpose") transpose_section = false;
    else if (a == "--transpose-only") straight_section = false;
    else if (a == "--bank-report") want_bank = true;
    else if (a == "--profile") { want_profile = true; profile_variant = next(); }
    else if (a == "--rows") prof_rows = parse_bytes(next());
    else if (a == "--cols") prof_cols = parse_bytes(next());
    else if (a == "--elem") prof_elem = static_cast<int>(parse_bytes(next()));
    else if (a == "--transpose") transpose = true;
    else if (a == "--pad") {
      const std::string v = next();
      char* end = nullptr;
      pad = std::strtoll(v.c_str(), &end, 10);
      if (*end != '\0' || pad < 0) throw std::invalid_argument("bench copy: --pad needs a count of elements >= 0, got '" + v + "'");
    }
    else throw std::invalid_argument("bench copy: unknown argument '" + a + "' (see `tessera bench copy --help`)");
  }
  if (want_bank) return bank_report(o);

  cudaStream_t stream = nullptr;
  TESSERA_BENCH_CUDA(cudaStreamCreate(&stream));
  if (want_profile) {
    const Shape s{prof_rows, prof_cols, prof_elem};
    const size_t bytes = static_cast<size_t>(s.rows * s.cols * s.e);
    void *a = nullptr, *b = nullptr;
    TESSERA_BENCH_CUDA(cudaMalloc(&a, bytes));
    TESSERA_BENCH_CUDA(cudaMalloc(&b, bytes));
    fill_random_bytes(a, bytes, 7, stream);
    const Copy2d p = problem(a, b, s, transpose);
    CopyPlan plan(p, parse_copy_variant(profile_variant));
    for (int k = 0; k < 3; ++k) plan.run(stream);
    TESSERA_BENCH_CUDA(cudaStreamSynchronize(stream));
    const int64_t bad = count_copy_mismatches(p, stream);
    std::printf("profiled: %s (%s), %lld mismatches\n", profile_variant.c_str(), plan.description().c_str(),
                static_cast<long long>(bad));
    cudaFree(a);
    cudaFree(b);
    return bad ? 1 : 0;
  }

  if (sizes.empty())
    sizes = o.quick ? std::vector<size_t>{4u << 20, 256u << 20}
                    : std::vector<size_t>{4u << 20, 16u << 20, 64u << 20, 256u << 20, size_t(1) << 30, size_t(4) << 30};
  int dev = 0, l2 = 0;
  TESSERA_BENCH_CUDA(cudaGetDevice(&dev));
  TESSERA_BENCH_CUDA(cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize, dev));
  cudaDeviceProp prop{};
  TESSERA_BENCH_CUDA(cudaGetDeviceProperties(&prop, dev));
  const bool has_tma = prop.major >= 9;

  bench::Report report("copy");
  std::vector<std::vector<std::string>> table;
  const std::vector<Config> configs = straight_configs(o.quick);
  struct Job {
    size_t bytes;
    Shape shape;
    bool transpose;
  };
  std::vector<Job> jobs;
  if (straight_section)
    for (size_t b : sizes) {
      Shape sh = shape_for(b, 4);
      sh.pad = pad;
      jobs.push_back({b, sh, false});
    }
  if (transpose_section)
    for (size_t b : o.quick ? std::vector<size_t>{256u << 20} : std::vector<size_t>{64u << 20, 256u << 20})
      for (int e : {4, 2}) jobs.push_back({b, shape_for(b, e), true});
  int total = 0, done = 0;
  for (const Job& j : jobs) total += j.transpose ? 5 : static_cast<int>(configs.size()) + 1;

  double best_ratio_256 = 0;
  for (const Job& j : jobs) {
    const bool l2_resident = 2 * j.bytes <= static_cast<size_t>(l2) * 3 / 4;
    const size_t sets = l2_resident ? 1 : std::max<size_t>(1, (3 * static_cast<size_t>(l2) + 2 * j.bytes - 1) / (2 * j.bytes));
    BufferSets buf;
    for (size_t s = 0; s < sets; ++s) {
      void *a = nullptr, *b = nullptr;
      TESSERA_BENCH_CUDA(cudaMalloc(&a, j.shape.alloc_bytes()));
      TESSERA_BENCH_CUDA(cudaMalloc(&b, j.shape.alloc_bytes()));
      fill_random_bytes(a, j.shape.alloc_bytes(), 1234 + s, stream);
      buf.src.push_back(a);
      buf.dst.push_back(b);
    }
    const int repeats = o.repeats ? o.repeats : std::max(10, std::min(200, static_cast<int>((size_t(2) << 30) / j.bytes)));
    const std::string size_label = mib(j.bytes) + " (" + std::to_string(j.shape.rows) + "x" + std::to_string(j.shape.cols) +
                                   (j.shape.e == 4 ? " fp32" : j.shape.e == 2 ? " bf16" : " 8B") +
                                   (j.transpose ? ", row->col" : "") +
                                   (j.shape.pad ? ", ld +" + std::to_string(j.shape.pad) : "") +
                                   (l2_resident ? ", L2-resident" : "") + ")";
    // Reference: cudaMemcpy D2D of the same bytes on the same buffers (cudaMemcpy2D with the same pitches
    // for padded rows).
    const std::string ref_name = j.shape.pad ? "cudaMemcpy2D D2D" : "cudaMemcpy D2D";
    size_t rot = 0;
    const double ref_ms = bench::time_median_ms(
        [&](cudaStream_t s) {
          const size_t k = rot++ % sets;
          if (j.shape.pad) {
            const size_t pitch = static_cast<size_t>(j.shape.ld() * j.shape.e);
            TESSERA_BENCH_CUDA(cudaMemcpy2DAsync(buf.dst[k], pitch, buf.src[k], pitch,
                                                 static_cast<size_t>(j.shape.cols * j.shape.e),
                                                 static_cast<size_t>(j.shape.rows), cudaMemcpyDeviceToDevice, s));
          } else {
            TESSERA_BENCH_CUDA(cudaMemcpyAsync(buf.dst[k], buf.src[k], j.bytes, cudaMemcpyDeviceToDevice, s));
          }
        },
        stream, 3, repeats);
    const double ref_gbps = 2.0 * j.bytes / (ref_ms * 1e-3) / 1e9;
    bench::progress(o, "copy", ++done, total, size_label + " cudaMemcpy");
    table.push_back({size_label, ref_name, "", fmt(ref_ms * 1e3, 1), fmt(ref_gbps, 1), "100.0"});

    std::vector<Config> todo;
    if (j.transpose) {
      CopyTuning per_tile;
      per_tile.ctas_per_sm = -1;  // one CTA per tile
      todo = {{CopyVariant::kScalar, {}, "scalar"}, {CopyVariant::kCpAsync, {}, "cp_async"},
              {CopyVariant::kSwizzled, {}, "swizzled"}, {CopyVariant::kSwizzled, per_tile, "swizzled grid=tiles"}};
    } else {
      todo = configs;
    }
    for (const Config& c : todo) {
      bench::progress(o, "copy", ++done, total, size_label + " " + c.label);
      if (c.variant == CopyVariant::kTma && !has_tma) continue;
      std::vector<CopyPlan> plans;
      try {
        for (size_t s = 0; s < sets; ++s) plans.emplace_back(problem(buf.src[s], buf.dst[s], j.shape, j.transpose), c.variant, c.tuning);
      } catch (const std::invalid_argument& e) {
        table.push_back({size_label, c.label, std::string("not run: ") + e.what(), "", "", ""});
        continue;
      }
      // Verify: destination poisoned, one run, every element compared.
      for (size_t s = 0; s < sets; ++s) {
        TESSERA_BENCH_CUDA(cudaMemsetAsync(buf.dst[s], 0xA5, j.shape.alloc_bytes(), stream));
        plans[s].run(stream);
        const int64_t bad = count_copy_mismatches(problem(buf.src[s], buf.dst[s], j.shape, j.transpose), stream);
        if (bad) {
          std::fprintf(stderr, "bench copy: %s at %s copied %lld elements wrong\n", c.label.c_str(), size_label.c_str(),
                       static_cast<long long>(bad));
          return 1;
        }
      }
      rot = 0;
      const double ms = bench::time_median_ms([&](cudaStream_t s) { plans[rot++ % sets].run(s); }, stream, 3, repeats);
      const double gbps = 2.0 * j.bytes / (ms * 1e-3) / 1e9;
      const double ratio = gbps / ref_gbps;
      if (!j.transpose && j.bytes >= (256u << 20)) best_ratio_256 = std::max(best_ratio_256, ratio);
      table.push_back({size_label, c.label, plans[0].description(), fmt(ms * 1e3, 1), fmt(gbps, 1), fmt(100 * ratio, 1)});
      std::printf("  %s | %s | %.1f us | %.1f GB/s | %.1f%% of %s\n", size_label.c_str(), c.label.c_str(), ms * 1e3,
                  gbps, 100 * ratio, ref_name.c_str());
      std::fflush(stdout);  // results survive an interrupted run
      bench::Record r;
      r.kernel = j.transpose ? "copy_2d transposing" : "copy_2d";
      r.variant = c.label + " [" + plans[0].description() + "]";
      r.size = size_label;
      r.figure = gbps;
      r.unit = "GB/s";
      r.reference = ref_name;
      r.reference_figure = ref_gbps;
      r.ratio = ratio;
      r.note = "bytes read + written; median of " + std::to_string(repeats) + " runs; " +
               (l2_resident ? "L2-resident, warm" : std::to_string(sets) + " rotated buffer sets (> 3x L2)");
      report.add(r);
    }
  }
  std::printf("\n");
  bench::print_table(stdout, {"size", "variant", "configuration", "time us", "GB/s", "% memcpy"}, table);
  if (best_ratio_256 > 0)
    std::printf("\nbest straight variant at >= 256 MiB: %.1f%% of %s (target 97%%)\n", 100 * best_ratio_256,
                pad ? "cudaMemcpy2D D2D" : "cudaMemcpy D2D");
  cudaStreamDestroy(stream);
  if (!bench::finish(o, report)) return 1;
  return 0;
}

TESSERA_BENCH_SUITE("copy", run_copy_bench);
