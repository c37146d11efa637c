// tools/bench_common.cu -- implementation of the shared benchmark harness.
#include "bench_common.hpp"

#include <cstdio>     // std::snprintf, popen
#include <cstdlib>    // std::getenv
#include <ctime>      // std::time, std::strftime
#include <stdexcept>  // std::runtime_error
#include <unistd.h>   // isatty

namespace tessera::bench {

std::vector<Suite>& suites() {
  static std::vector<Suite> s;
  return s;
}

const Suite* find_suite(const std::string& name) {
  for (const Suite& s : suites())
    if (s.name == name) return &s;
  return nullptr;
}

int run_suite(const Suite& s, const BenchOptions& o) {
  try {
    const int r = s.run(o);
    if (r) std::fprintf(stderr, "bench %s: failed (status %d)\n", s.name.c_str(), r);
    return r;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "bench %s: %s\n", s.name.c_str(), e.what());
    return 1;
  }
}

void check_cuda(cudaError_t e, const char* what) {
  if (e != cudaSuccess)
    throw std::runtime_error(std::string(what) + " failed: " + cudaGetErrorString(e));
}

std::string fmt(double v, int decimals) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f", decimals, v);
  return buf;
}

static std::string run_cmd(const char* cmd) {
  std::string out;
  if (FILE* p = popen(cmd, "r")) {
    char buf[256];
    while (fgets(buf, sizeof buf, p)) out += buf;
    pclose(p);
  }
  while (!out.empty() && (out.back() == '\n' || out.back() == '\r')) out.pop_back();
  return out;
}

std::string run_header_json(const std::string& suite, const std::string& command_line, std::string* date_out,
                            std::string* commit_out) {
  cudaDeviceProp p{};
  int dev = 0, drv = 0, rt = 0, sm_clock_khz = 0, mem_clock_khz = 0, mem_bus = 0;
  cudaGetDevice(&dev);
  cudaGetDeviceProperties(&p, dev);
  cudaDriverGetVersion(&drv);
  cudaRuntimeGetVersion(&rt);
  cudaDeviceGetAttribute(&sm_clock_khz, cudaDevAttrClockRate, dev);
  cudaDeviceGetAttribute(&mem_clock_khz, cudaDevAttrMemoryClockRate, dev);
  cudaDeviceGetAttribute(&mem_bus, cudaDevAttrGlobalMemoryBusWidth, dev);
  char date[64];
  std::time_t t = std::time(nullptr);
  std::strftime(date, sizeof date, "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&t));
  // "-dirty" when the working tree differs from that commit (a run of uncommitted code says so).
  // TESSERA_GIT_COMMIT names the measured code where the checkout's history is not the code's (a copied tree).
  std::string commit = std::getenv("TESSERA_GIT_COMMIT") ? std::getenv("TESSERA_GIT_COMMIT") : "";
  if (commit.empty()) commit = run_cmd("git describe --always --dirty --abbrev=7 2>/dev/null");
  if (date_out) *date_out = date;
  if (commit_out) *commit_out = commit;
  char gpu[512];
  std::snprintf(gpu, sizeof gpu,
                "\"gpu\": {\"name\": \"%s\", \"sm_count\": %d, \"cc\": \"%d.%d\", \"max_sm_clock_mhz\": %d, "
                "\"max_mem_clock_mhz\": %d, \"mem_bus_bits\": %d, \"l2_bytes\": %d, \"driver\": %d, \"runtime\": %d}",
                json_escape(p.name).c_str(), p.multiProcessorCount, p.major, p.minor, sm_clock_khz / 1000,
                mem_clock_khz / 1000, mem_bus, p.l2CacheSize, drv, rt);
  return "\"suite\": \"" + json_escape(suite) + "\",\n  \"date\": \"" + date + "\",\n  \"command\": \"" +
         json_escape(command_line) + "\",\n  \"git_commit\": \"" + json_escape(commit) + "\",\n  " + gpu +
         ",\n  \"compiler\": \"nvcc " + std::to_string(__CUDACC_VER_MAJOR__) + "." + std::to_string(__CUDACC_VER_MINOR__) + "\"";
}

bool Report::write_json(const std::string& path, const std::string& command_line) const {
  FILE* f = std::fopen(path.c_str(), "w");
  if (!f) { std::fprintf(stderr, "bench: cannot write --json file '%s'\n", path.c_str()); return false; }
  std::string date, commit;
  const std::string header = run_header_json(suite_, command_line, &date, &commit);
  std::fprintf(f, "{\n  %s,\n  \"records\": [\n", header.c_str());
  for (size_t i = 0; i < records_.size(); ++i)
    std::fprintf(f, "    %s%s\n", record_json(records_[i], date, commit).c_str(), i + 1 < records_.size() ? "," : "");
  std::fprintf(f, "  ]\n}\n");
  std::fclose(f);
  return true;
}

std::string command_line(const BenchOptions& o, const std::string& suite) {
  std::string cmd = "tessera bench " + suite;
  for (const std::string& a : o.args) cmd += " " + a;
  if (o.quick) cmd += " --quick";
  if (o.repeats) cmd += " --repeats " + std::to_string(o.repeats);
  return cmd;
}

bool finish(const BenchOptions& o, const Report& report) {
  if (o.collect) o.collect->insert(o.collect->end(), report.records().begin(), report.records().end());
  if (o.json_path.empty()) return true;
  if (!report.write_json(o.json_path, command_line(o, report.suite()))) return false;
  std::printf("wrote %s\n", o.json_path.c_str());
  return true;
}

std::vector<double> time_medians_interleaved_ms(const std::vector<std::function<void(cudaStream_t)>>& launches,
                                                cudaStream_t stream, int warmup, int repeats,
                                                const std::function<void(cudaStream_t)>& before_each) {
  if (repeats < 1) repeats = 1;
  const size_t n = launches.size();
  for (int i = 0; i < warmup; ++i)
    for (const auto& l : launches) {
      if (before_each) before_each(stream);
      l(stream);
    }
  TESSERA_BENCH_CUDA(cudaStreamSynchronize(stream));
  TESSERA_BENCH_CUDA(cudaGetLastError());
  std::vector<cudaEvent_t> ev(2 * n * static_cast<size_t>(repeats));
  for (auto& e : ev) TESSERA_BENCH_CUDA(cudaEventCreate(&e));
  // Round i starts at launch i mod n: each launch follows a different one from round to round, so that whatever one
  // launch leaves behind (a kernel that runs slow right after another, whatever the eviction) moves the median of none.
  for (int i = 0; i < repeats; ++i)
    for (size_t jj = 0; jj < n; ++jj) {
      const size_t j = (jj + static_cast<size_t>(i)) % n;
      const size_t e = 2 * (static_cast<size_t>(i) * n + j);
      if (before_each) before_each(stream);
      TESSERA_BENCH_CUDA(cudaEventRecord(ev[e], stream));
      launches[j](stream);
      TESSERA_BENCH_CUDA(cudaEventRecord(ev[e + 1], stream));
    }
  TESSERA_BENCH_CUDA(cudaStreamSynchronize(stream));
  TESSERA_BENCH_CUDA(cudaGetLastError());
  std::vector<double> medians(n);
  for (size_t j = 0; j < n; ++j) {
    std::vector<float> ms(static_cast<size_t>(repeats));
    for (int i = 0; i < repeats; ++i) {
      const size_t e = 2 * (static_cast<size_t>(i) * n + j);
      TESSERA_BENCH_CUDA(cudaEventElapsedTime(&ms[static_cast<size_t>(i)], ev[e], ev[e + 1]));
    }
    std::sort(ms.begin(), ms.end());
    medians[j] = repeats % 2 ? ms[repeats / 2] : 0.5 * (ms[repeats / 2 - 1] + ms[repeats / 2]);
  }
  for (auto& e : ev) cudaEventDestroy(e);
  return medians;
}

double time_median_ms(const std::function<void(cudaStream_t)>& launch, cudaStream_t stream, int warmup,
                      int repeats, const std::function<void(cudaStream_t)>& before_each) {
  if (repeats < 1) repeats = 1;
  for (int i = 0; i < warmup; ++i) {
    if (before_each) before_each(stream);
    launch(stream);
  }
  TESSERA_BENCH_CUDA(cudaStreamSynchronize(stream));
  TESSERA_BENCH_CUDA(cudaGetLastError());
  std::vector<cudaEvent_t> ev(2 * repeats);
  for (auto& e : ev) TESSERA_BENCH_CUDA(cudaEventCreate(&e));
  for (int i = 0; i < repeats; ++i) {
    if (before_each) before_each(stream);
    TESSERA_BENCH_CUDA(cudaEventRecord(ev[2 * i], stream));
    launch(stream);
    TESSERA_BENCH_CUDA(cudaEventRecord(ev[2 * i + 1], stream));
  }
  TESSERA_BENCH_CUDA(cudaStreamSynchronize(stream));
  TESSERA_BENCH_CUDA(cudaGetLastError());
  std::vector<float> ms(repeats);
  for (int i = 0; i < repeats; ++i) TESSERA_BENCH_CUDA(cudaEventElapsedTime(&ms[i], ev[2 * i], ev[2 * i + 1]));
  for (auto& e : ev) cudaEventDestroy(e);
  std::sort(ms.begin(), ms.end());
  return repeats % 2 ? ms[repeats / 2] : 0.5 * (ms[repeats / 2 - 1] + ms[repeats / 2]);
}

namespace {
// Reads `n` 16-byte words; writes only when their XOR equals `never` (it does not), so nothing
// in L2 becomes dirty: the next timed kernel does not pay for write-backs of the flush.
__global__ void l2_evict_by_reading(const int4* __restrict__ p, size_t n, int never, int* sink) {
  int acc = 0;
  for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < n; i += size_t(gridDim.x) * blockDim.x) {
    int4 v = p[i];
    acc ^= v.x ^ v.y ^ v.z ^ v.w;
  }
  if (acc == never) *sink = acc;
}

// Reads words [0, n) four at a time per thread (grid-stride), writing only when their XOR equals `never`.
__global__ void read_words(const int4* __restrict__ p, size_t n, int never, int* sink) {
  int acc = 0;
  const size_t stride = size_t(gridDim.x) * blockDim.x;
  size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x;
  for (; i + 3 * stride < n; i += 4 * stride) {
    int4 v[4];
#pragma unroll
    for (int j = 0; j < 4; ++j) v[j] = __ldcs(p + i + j * stride);
#pragma unroll
    for (int j = 0; j < 4; ++j) acc ^= v[j].x ^ v[j].y ^ v[j].z ^ v[j].w;
  }
  for (; i < n; i += stride) {
    const int4 v = __ldcs(p + i);
    acc ^= v.x ^ v.y ^ v.z ^ v.w;
  }
  if (acc == never) *sink = acc;
}
}  // namespace

void read_once(const void* p, size_t bytes, cudaStream_t stream) {
  static int* sink = nullptr;
  static int blocks = 0;
  if (!sink) {
    int dev = 0, sms = 0;
    TESSERA_BENCH_CUDA(cudaGetDevice(&dev));
    TESSERA_BENCH_CUDA(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev));
    blocks = 4 * (sms > 0 ? sms : 1);
    TESSERA_BENCH_CUDA(cudaMalloc(&sink, sizeof(int)));
  }
  read_words<<<blocks, 512, 0, stream>>>(static_cast<const int4*>(p), bytes / sizeof(int4), 0x2468ace1, sink);
  TESSERA_BENCH_CUDA(cudaGetLastError());
}

void flush_l2(cudaStream_t stream) {
  static int4* scratch = nullptr;
  static int* sink = nullptr;
  static size_t words = 0;
  static int blocks = 0;
  if (!scratch) {
    int dev = 0, l2 = 0, sms = 0;
    TESSERA_BENCH_CUDA(cudaGetDevice(&dev));
    TESSERA_BENCH_CUDA(cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize, dev));
    TESSERA_BENCH_CUDA(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev));
    size_t bytes = 4 * static_cast<size_t>(l2 > 0 ? l2 : (64 << 20));
    words = bytes / sizeof(int4);
    blocks = 4 * (sms > 0 ? sms : 1);
    TESSERA_BENCH_CUDA(cudaMalloc(&scratch, bytes));
    TESSERA_BENCH_CUDA(cudaMalloc(&sink, sizeof(int)));
    TESSERA_BENCH_CUDA(cudaMemset(scratch, 0x5a, bytes));  // 0x5a5a5a5a words: XOR of all is 0
  }
  l2_evict_by_reading<<<blocks, 512, 0, stream>>>(scratch, words, 0x12345678, sink);
  TESSERA_BENCH_CUDA(cudaGetLastError());
}

double memcpy_d2d_gbps(size_t bytes, cudaStream_t stream, int repeats) {
  void *a = nullptr, *b = nullptr;
  TESSERA_BENCH_CUDA(cudaMalloc(&a, bytes));
  TESSERA_BENCH_CUDA(cudaMalloc(&b, bytes));
  TESSERA_BENCH_CUDA(cudaMemsetAsync(a, 0x3c, bytes, stream));
  double ms = time_median_ms([&](cudaStream_t s) { TESSERA_BENCH_CUDA(cudaMemcpyAsync(b, a, bytes, cudaMemcpyDeviceToDevice, s)); },
                             stream, 3, repeats);
  cudaFree(a);
  cudaFree(b);
  return 2.0 * static_cast<double>(bytes) / (ms * 1e-3) / 1e9;
}

void progress(const BenchOptions& o, const std::string& suite, int done, int total, const std::string& label) {
  if (o.on_progress) {
    o.on_progress(suite, done, total, label);
    return;
  }
  if (!o.progress) return;
  static const bool tty = isatty(2);
  std::fprintf(stderr, "%s[%s] %d/%d %s%s", tty ? "\r\033[K" : "", suite.c_str(), done, total, label.c_str(),
               tty ? "" : "\n");
  if (tty && done == total) std::fprintf(stderr, "\n");
  std::fflush(stderr);
}

void print_table(std::FILE* out, const std::vector<std::string>& header,
                 const std::vector<std::vector<std::string>>& rows) {
  std::vector<size_t> w(header.size());
  for (size_t c = 0; c < header.size(); ++c) w[c] = header[c].size();
  for (auto& r : rows)
    for (size_t c = 0; c < r.size() && c < w.size(); ++c) w[c] = std::max(w[c], r[c].size());
  auto line = [&](const std::vector<std::string>& cells) {
    for (size_t c = 0; c < w.size(); ++c)
      std::fprintf(out, "%s%-*s", c ? "  " : "", static_cast<int>(w[c]), c < cells.size() ? cells[c].c_str() : "");
    std::fprintf(out, "\n");
  };
  line(header);
  std::vector<std::string> sep;
  for (size_t c = 0; c < w.size(); ++c) sep.push_back(std::string(w[c], '-'));
  line(sep);
  for (auto& r : rows) line(r);
}

}  // namespace tessera::bench
