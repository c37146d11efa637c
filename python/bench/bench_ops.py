#!/usr/bin/env python3
"""Benchmark of tessera.ops against PyTorch on one GPU: host overhead, fused GEMM epilogues, a patched
model.  Prints tables and writes JSON (--out).

    python3 python/bench/bench_ops.py --out bench_ops.json [--shapes 4096x4096x4096,...] [--no-compile]

1. Host overhead at M = 1 (N = K = --overhead-nk): CPU time per call of a burst of calls that never
   fills the launch queue, median of bursts: F.linear, tessera.ops.linear (the eager fast path),
   torch.ops.tessera.linear (the dispatcher path, what autograd and compiled graphs use), and the raw
   tessera._cuda.gemm entry with its arguments prepared (the C++ floor: plan + launch), with the op's
   split-K workspace and without any (no split).
2. GEMM + bias + GELU(tanh), bf16, for each M x N x K: tessera.ops.linear(activation="gelu_tanh");
   torch._addmm_activation(use_gelu=True) (cuBLASLt's GELU epilogue); eager
   F.gelu(F.linear(x, w, b), approximate="tanh"); torch.compile(mode="max-autotune-no-cudagraphs") of
   that function.  Then GEMM + bias + SiLU + residual: tessera vs eager vs compiled.
   Every output is verified against a float64 reference first.  Timing: CUDA events around each call,
   L2 flushed (a write of 2x the L2 size) before each, median of --iters.  The compiled functions are
   a last stage of their own (autotuning takes minutes), timed beside tessera again.
3. Patched models: a Llama-style and a GPT-2-style transformers model built from a config (random
   weights, bf16), forward time of the unpatched and the tessera.nn.patch-ed model, for a prefill
   (batch 1 x --seq tokens) and a one-token forward, under torch.inference_mode.
"""
import argparse
import copy
import datetime
import json
import math
import os
import platform
import statistics
import subprocess
import sys
import time

import torch
import torch.nn.functional as F

import tessera
from tessera import ops


def env_info():
    p = torch.cuda.get_device_properties(0)
    info = {
        "gpu": p.name, "sms": p.multi_processor_count, "memory_gib": round(p.total_memory / 2 ** 30, 1),
        "torch": torch.__version__, "cuda_runtime": torch.version.cuda, "python": platform.python_version(),
        "tessera": tessera.__version__, "date": datetime.datetime.now(datetime.timezone.utc).isoformat(),
        "command": " ".join(sys.argv), "host": platform.node(), "cpu": platform.processor(),
    }
    for key, cmd in (("commit", ["git", "rev-parse", "HEAD"]),
                     ("driver", ["nvidia-smi", "--query-gpu=driver_version", "--format=csv,noheader"]),
                     ("clocks", ["nvidia-smi", "--query-gpu=clocks.sm,clocks.max.sm,clocks.mem", "--format=csv,noheader"]),
                     ("nvcc", ["nvcc", "--version"])):
        try:
            out = subprocess.run(cmd, capture_output=True, text=True, timeout=20).stdout.strip()
            info[key] = out.splitlines()[-1] if key == "nvcc" and out else out
        except (OSError, subprocess.TimeoutExpired):
            info[key] = None
    # As `tessera bench`: TESSERA_GIT_COMMIT names the measured code where the checkout's history is not it.
    info["commit"] = os.environ.get("TESSERA_GIT_COMMIT") or info["commit"]
    return info


def table(title, header, rows):
    print(f"\n{title}")
    widths = [max(len(str(h)), *(len(str(r[i])) for r in rows)) for i, h in enumerate(header)]
    print("  ".join(str(h).rjust(w) for h, w in zip(header, widths)))
    for r in rows:
        print("  ".join(str(v).rjust(w) for v, w in zip(r, widths)))


# ------------------------------------------------------------------------------------------ host overhead
def host_time_us(fn, burst=100, bursts=50):
    """Median CPU time of one call over bursts of `burst` calls; the GPU drains between bursts."""
    for _ in range(20):
        fn()
    torch.cuda.synchronize()
    times = []
    for _ in range(bursts):
        torch.cuda.synchronize()
        t0 = time.perf_counter()
        for _ in range(burst):
            fn()
        t1 = time.perf_counter()
        times.append((t1 - t0) / burst * 1e6)
    torch.cuda.synchronize()
    return statistics.median(times)


def bench_overhead(nk, dtype):
    x = torch.randn(1, nk, device="cuda", dtype=dtype)
    w = torch.randn(nk, nk, device="cuda", dtype=dtype) / math.sqrt(nk)
    b = torch.randn(nk, device="cuda", dtype=dtype)
    inf = float("inf")
    out = torch.empty(1, nk, device="cuda", dtype=dtype)
    stream = torch.cuda.current_stream().cuda_stream
    alloc = ops._gemm_alloc_for(x.device)
    code = ops._DTYPE_CODE[dtype]

    def raw():  # tessera._cuda.gemm with everything prepared: nanobind call + plan + launch
        ops._cuda.gemm(1, nk, nk, x.data_ptr(), code, 0, nk, w.data_ptr(), 1, nk, out.data_ptr(), code, 0, nk,
                       1.0, 0.0, 0, 0, 0, b.data_ptr(), 1, code, nk, 0, 0.01, -inf, inf, 0, 0, 0, 0, stream, alloc)

    def raw_no_split():  # the same without scratch memory: the plan cannot split K
        ops._cuda.gemm(1, nk, nk, x.data_ptr(), code, 0, nk, w.data_ptr(), 1, nk, out.data_ptr(), code, 0, nk,
                       1.0, 0.0, 0, 0, 0, b.data_ptr(), 1, code, nk, 0, 0.01, -inf, inf, 0, 0, 0, 0, stream, None)

    class NoLaunch:  # tessera._cuda whose gemm does nothing: the Python side of tessera.ops.linear alone
        gemm = staticmethod(lambda *args: None)

    def python_side():
        kernels = ops._cuda
        ops._cuda = NoLaunch
        try:
            ops.linear(x, w, b)
        finally:
            ops._cuda = kernels

    cases = {
        "F.linear": lambda: F.linear(x, w, b),
        "tessera.ops.linear": lambda: ops.linear(x, w, b),
        "torch.ops.tessera.linear (dispatcher)": lambda: torch.ops.tessera.linear.default(
            x, w, b, "none", 0.01, -inf, inf, None, 1.0, 0.0, None, None),
        "tessera._cuda.gemm (prepared args)": raw,
        "tessera._cuda.gemm (prepared, no workspace)": raw_no_split,
        "tessera.ops.linear, nothing launched (Python side)": python_side,
        "torch.empty(1, N) (allocation alone)": lambda: torch.empty(1, nk, device="cuda", dtype=dtype),
    }
    torch.testing.assert_close(ops.linear(x, w, b).float(), F.linear(x, w, b).float(), rtol=2e-2, atol=2e-2)
    # interleave the cases (a, b, c, a, b, c, ...) so that drift hits all alike
    res = {k: [] for k in cases}
    for _ in range(9):
        for k, fn in cases.items():
            res[k].append(host_time_us(fn, bursts=10))
    spread = {k: (min(v), max(v)) for k, v in res.items()}
    res = {k: statistics.median(v) for k, v in res.items()}
    base = res["F.linear"]
    rows = [(k, f"{v:.2f}", f"{v - base:+.2f}", f"{spread[k][0]:.2f}-{spread[k][1]:.2f}") for k, v in res.items()]
    table(f"host time per call, M=1, N=K={nk}, {dtype} (us; target: tessera.ops.linear within 3 us of F.linear)",
          ["call", "us/call (median of 9 rounds)", "vs F.linear", "rounds min-max"], rows)
    return {"n": nk, "k": nk, "dtype": str(dtype), "us_per_call": res, "rounds_min_max": spread,
            "tessera_minus_torch_us": res["tessera.ops.linear"] - base}


# ------------------------------------------------------------------------------------------ GEMM timing
class Flusher:
    def __init__(self):
        l2 = getattr(torch.cuda.get_device_properties(0), "L2_cache_size", 64 << 20)
        self.buf = torch.empty(max(2 * l2, 64 << 20), dtype=torch.uint8, device="cuda")

    def __call__(self):
        self.buf.fill_(1)


def gpu_time_us(fn, flush, iters):
    for _ in range(3):
        fn()
    torch.cuda.synchronize()
    ts = []
    for _ in range(iters):
        flush()
        s, e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        s.record()
        fn()
        e.record()
        e.synchronize()
        ts.append(s.elapsed_time(e) * 1e3)
    return statistics.median(ts)


def rel_err(y, ref):
    return ((y.double() - ref).abs().max() / ref.abs().max()).item()


def bench_shape(M, N, K, iters, compile_fns, flush):
    """Records of both epilogues at one shape (the tensors are freed on return)."""
    records = []
    g = torch.Generator(device="cuda").manual_seed(M + N + K)
    x = torch.randn(M, K, device="cuda", generator=g).to(torch.bfloat16)
    w = (torch.randn(N, K, device="cuda", generator=g) / math.sqrt(K)).to(torch.bfloat16)
    b = torch.randn(N, device="cuda", generator=g).to(torch.bfloat16)
    r = torch.randn(M, N, device="cuda", generator=g).to(torch.bfloat16)
    z64 = x.double() @ w.double().t() + b.double()
    ref_gelu = F.gelu(z64, approximate="tanh")
    ref_silu = F.silu(z64) + r.double()
    del z64

    def eager_gelu(x, w, b):
        return F.gelu(F.linear(x, w, b), approximate="tanh")

    def eager_silu(x, w, b, r):
        return F.silu(F.linear(x, w, b)) + r

    variants = {
        "gelu_tanh": (ref_gelu, {
            "tessera.ops.linear": lambda: ops.linear(x, w, b, activation="gelu_tanh"),
            "torch._addmm_activation": lambda: torch._addmm_activation(b, x, w.t(), use_gelu=True),
            "eager F.gelu(F.linear)": lambda: eager_gelu(x, w, b),
        }, eager_gelu, (x, w, b)),
        "silu+residual": (ref_silu, {
            "tessera.ops.linear": lambda: ops.linear(x, w, b, activation="silu", residual=r),
            "eager F.silu(F.linear)+r": lambda: eager_silu(x, w, b, r),
        }, eager_silu, (x, w, b, r)),
    }
    for epi, (ref, fns, eager_fn, args) in variants.items():
        # the compiled stage times tessera again beside the compiled function (same flushes, same clocks)
        fns = {k: v for k, v in fns.items() if k == "tessera.ops.linear"} if compile_fns else dict(fns)
        if compile_fns:
            t0 = time.perf_counter()
            cf = torch.compile(eager_fn, mode="max-autotune-no-cudagraphs", dynamic=False)
            cf(*args)
            torch.cuda.synchronize()
            print(f"  (compiled {epi} for {M}x{N}x{K} in {time.perf_counter() - t0:.0f} s)", flush=True)
            fns["torch.compile max-autotune"] = lambda cf=cf, args=args: cf(*args)
        errs = {name: rel_err(fn(), ref) for name, fn in fns.items()}
        for name, e in errs.items():
            if not e < 2e-2:
                raise SystemExit(f"verification failed: {name} {epi} {M}x{N}x{K}: max rel err {e:.3g}")
        times = {name: gpu_time_us(fn, flush, iters) for name, fn in fns.items()}
        flops = 2.0 * M * N * K
        t_tessera = times["tessera.ops.linear"]
        for name, t in times.items():
            records.append({"m": M, "n": N, "k": K, "epilogue": epi, "impl": name, "us": t,
                            "tflops": flops / t / 1e6, "speedup_of_tessera": t / t_tessera,
                            "max_rel_err": errs[name]})
    return records


def bench_gemms(shapes, iters, compile_fns, flush, save):
    """compile_fns False: tessera, cuBLASLt's epilogue and eager PyTorch; True: tessera and the
    torch.compile(max-autotune) function (minutes of autotuning, so a stage of its own, run last)."""
    records = []
    for (M, N, K) in shapes:
        records += bench_shape(M, N, K, iters, compile_fns, flush)
        torch.cuda.empty_cache()
        save(records)
    rows = [(f"{r['m']}x{r['n']}x{r['k']}", r["epilogue"], r["impl"], f"{r['us']:.1f}", f"{r['tflops']:.0f}",
             f"{r['speedup_of_tessera']:.2f}", f"{r['max_rel_err']:.1e}") for r in records]
    what = "vs torch.compile(mode='max-autotune-no-cudagraphs')" if compile_fns else "vs cuBLASLt epilogue and eager"
    table(f"bf16 GEMM + fused epilogue, {what} (L2 flushed, median of CUDA-event times)",
          ["MxNxK", "epilogue", "implementation", "us", "TFLOP/s", "t / t_tessera", "rel err"], rows)
    return records


# ------------------------------------------------------------------------------------------ models
def build_models(layers):
    import transformers

    with torch.device("cuda"):  # random initialisation on the GPU: seconds, not minutes
        llama = transformers.LlamaForCausalLM(transformers.LlamaConfig(
            num_hidden_layers=layers, hidden_size=4096, intermediate_size=14336, num_attention_heads=32,
            num_key_value_heads=8, vocab_size=32000, max_position_embeddings=4096, bos_token_id=0, eos_token_id=0,
            pad_token_id=0))
        gpt2 = transformers.GPT2LMHeadModel(transformers.GPT2Config(
            n_layer=layers, n_embd=1600, n_head=25, vocab_size=50257, n_positions=2048, bos_token_id=0,
            eos_token_id=0))
    return {"llama (4096/14336)": llama, "gpt2 (1600/6400)": gpt2}


def bench_model(name, model, layers, seq, iters, flush):
    records = []
    base = model.to(torch.bfloat16).eval()
    patched = copy.deepcopy(base)
    report = tessera.nn.patch(patched)
    for label, T in (("prefill", seq), ("one token", 1)):
        ids = torch.randint(0, 1000, (1, T), device="cuda")
        with torch.inference_mode():
            want = base(ids).logits.float()
            got = patched(ids).logits.float()
            err = ((got - want).abs().max() / want.abs().max()).item()
            t_base = gpu_time_us(lambda: base(ids), flush, iters)
            t_patched = gpu_time_us(lambda: patched(ids), flush, iters)
        records.append({"model": name, "layers": layers, "tokens": T, "case": label, "us_unpatched": t_base,
                        "us_patched": t_patched, "speedup": t_base / t_patched, "logits_rel_diff": err,
                        "replaced": len(report.replaced), "fused": len(report.fused)})
    return records


def bench_models(layers, seq, iters, flush):
    try:
        import transformers  # noqa: F401  (build_models uses it)
    except ImportError:
        print("\n(transformers is not installed: no model benchmark)")
        return []
    records = []
    torch.manual_seed(0)
    models = build_models(layers)
    for name in list(models):
        records += bench_model(name, models.pop(name), layers, seq, iters, flush)
        torch.cuda.empty_cache()
    rows = [(r["model"], r["case"], r["tokens"], f"{r['us_unpatched']:.0f}", f"{r['us_patched']:.0f}",
             f"{r['speedup']:.2f}", f"{r['logits_rel_diff']:.1e}", f"{r['replaced']}/{r['fused']}") for r in records]
    table(f"transformers models, {layers} layers, bf16, forward under inference_mode (us)",
          ["model", "case", "tokens", "unpatched", "patched", "speedup", "logits rel diff", "replaced/fused"], rows)
    return records


def target_records(result):
    """The figures of the issue's targets as bench/results records (suite, case, shape, dtype, reference,
    date, commit, ratio = Tessera's speed over the reference's): the M = 1 host time against F.linear
    (ratio of host times per call; the target itself is a difference, kept as `difference_us`), and each
    fused GEMM against each PyTorch implementation."""
    env = result["env"]
    common = {"suite": "python_ops", "date": env["date"], "commit": env["commit"], "gpu": env["gpu"]}
    recs = []
    for o in result["overhead"]:
        t, ref = o["us_per_call"]["tessera.ops.linear"], o["us_per_call"]["F.linear"]
        recs.append({**common, "case": "host_overhead_m1", "shape": f"1x{o['n']}x{o['k']}", "dtype": "bf16",
                     "reference": "F.linear", "ratio": ref / t, "us_tessera": t, "us_reference": ref,
                     "difference_us": t - ref, "target": "difference_us <= 3"})
    for key in ("gemm", "gemm_compiled"):
        by = {}
        for r in result[key]:
            by.setdefault((r["m"], r["n"], r["k"], r["epilogue"]), []).append(r)
        for (m, n, k, ep), rs in by.items():
            mine = [r for r in rs if r["impl"] == "tessera.ops.linear"]
            for r in rs:
                if r["impl"] != "tessera.ops.linear" and mine:
                    recs.append({**common, "case": f"linear_{ep.replace('+', '_')}", "shape": f"{m}x{n}x{k}",
                                 "dtype": "bf16", "reference": r["impl"], "ratio": r["us"] / mine[0]["us"],
                                 "us_tessera": mine[0]["us"], "us_reference": r["us"]})
    return recs


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", default="bench_ops.json", help="JSON output file")
    ap.add_argument("--shapes", default="4096x4096x4096,8192x4096x4096,8192x14336x4096", help="MxNxK,...")
    ap.add_argument("--iters", type=int, default=30, help="timed calls per GEMM measurement (median)")
    ap.add_argument("--overhead-nk", type=int, default=4096, help="N = K of the M = 1 host-overhead case")
    ap.add_argument("--no-compile", action="store_true", help="skip the torch.compile(max-autotune) variants")
    ap.add_argument("--layers", type=int, default=2, help="decoder layers of the model benchmark (0: none)")
    ap.add_argument("--seq", type=int, default=2048, help="prefill tokens of the model benchmark")
    args = ap.parse_args()
    if not ops.available():
        raise SystemExit(f"tessera.ops cannot run here (CUDA available: {torch.cuda.is_available()}; "
                         f"tessera._cuda: {ops._CUDA_ERROR or 'present'})")
    shapes = [tuple(int(v) for v in s.split("x")) for s in args.shapes.split(",") if s]
    t_start = time.perf_counter()
    result = {"env": env_info(), "args": vars(args), "overhead": [], "gemm": [], "models": [], "gemm_compiled": [],
              "complete": False}
    print(json.dumps(result["env"], indent=1))

    def save(key=None, value=None):  # after every stage, so that a run cut short keeps what it measured
        if key is not None:
            result[key] = value
        result["seconds"] = time.perf_counter() - t_start
        result["records"] = target_records(result)
        with open(args.out, "w") as f:
            json.dump(result, f, indent=1)

    flush = Flusher()
    # cheapest first, the compiled functions (autotuning) last: a run cut short keeps the rest
    save("overhead", [bench_overhead(args.overhead_nk, torch.bfloat16), bench_overhead(256, torch.bfloat16)])
    save("gemm", bench_gemms(shapes, args.iters, False, flush, lambda recs: save("gemm", recs)))
    if args.layers > 0:
        save("models", bench_models(args.layers, args.seq, max(5, args.iters // 3), flush))
    if not args.no_compile:
        save("gemm_compiled", bench_gemms(shapes, args.iters, True, flush, lambda recs: save("gemm_compiled", recs)))
    save("complete", True)
    print(f"\nwrote {args.out} ({result['seconds']:.0f} s)")


if __name__ == "__main__":
    os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
    main()
