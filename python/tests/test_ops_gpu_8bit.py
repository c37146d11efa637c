"""tessera.ops' FP8 / INT8 operators on a GPU: scaled_linear against float64 of the dequantised operands (every
pair of FP8 types and int8, every pair of scale modes, odd shapes, padded rows, fast accumulation, dp4a, the epilogue
menu on batched x), quantize bit for bit against the fp32 formula (every mode and type), quantize's block layouts
feeding scaled_linear, torch.compile(fullgraph=True) against eager, and opcheck.  Tolerances as in test_ops_gpu.py,
with the 8-bit kernels' accumulation term below.  Reported as skipped without PyTorch or a CUDA GPU, and the FP8
cases below compute capability 9.0."""
import zlib

import pytest

torch = pytest.importorskip("torch")
if not torch.cuda.is_available():
    pytest.skip("no CUDA GPU present", allow_module_level=True)
from tessera import ops  # noqa: E402
from ops_gpu_common import C_ACC, DEV, INF, R_OUT, act_kw, gen, rand, ref_act  # noqa: E402

# scaled_linear against float64 of the dequantised operands (q * scale, expanded to each element).  Tolerance as
# above with the accumulation term of the 8-bit kernels (docs/GEMM.md, "Reduced precision"): FP8 products are
# exact in fp32 and the tensor cores sum each 128-deep K tile with at most 8 x 2^-13 of sum |a b| lost (the stated
# bound; promoted), then fp32 adds and the two scales; INT8 sums are exact in s32 (K <= 1040: exact in fp32), then
# the scales and the epilogue in fp32 (C_ACC).
E4M3, E5M2, I8 = torch.float8_e4m3fn, torch.float8_e5m2, torch.int8
C_FP8 = 8 * 2.0 ** -13 + 2e-5


def need_fp8():
    if torch.cuda.get_device_capability() < (9, 0):
        pytest.skip("FP8 operands need compute capability 9.0")


def rand_q(*shape, dtype, g):
    if dtype == I8:
        return torch.randint(-127, 128, shape, device=DEV, dtype=torch.int32, generator=g).to(I8)
    return rand(*shape, dtype=torch.float32, g=g, scale=2.0).to(dtype)


def rand_scale(*shape, g):
    return torch.rand(*shape, device=DEV, dtype=torch.float32, generator=g) * 1.5 + 0.25


def make_scale(mode, which, M, N, K, g, lead=None):
    """A scale tensor of `mode` for x (which == "x", M rows) or the weight (N rows), and its float64 expansion to
    the operand's elements (M x K or N x K)."""
    kb, rows = (K + 127) // 128, (M if which == "x" else N)
    if mode == "tensor":
        s = rand_scale((), g=g)
        return s, s.double().expand(rows, K)
    if mode == "channel":
        s = rand_scale(*((*lead, 1) if which == "x" and lead else (rows,)), g=g)
        return s, s.double().reshape(rows, 1).expand(rows, K)
    if which == "x":  # (ceil(K/128), M): s[kb, i] for row i
        s = rand_scale(kb, M, g=g)
        return s, s.double().t().repeat_interleave(128, dim=1)[:, :K]
    s = rand_scale(kb, (N + 127) // 128, g=g)  # s[kb, jb] for rows 128 jb ...
    return s, s.double().t().repeat_interleave(128, dim=0)[:N].repeat_interleave(128, dim=1)[:, :K]


def scaled_reference(xd, wd, bias, activation, residual, alpha, out_dtype, kw, c_acc):
    """(float64 result, tolerance) of act(alpha xd wd^T + bias) + residual for dequantised xd (M x K), wd (N x K)."""
    z = alpha * (xd @ wd.t())
    mag = abs(alpha) * (xd.abs() @ wd.abs().t())
    zp = z.abs()
    if bias is not None:
        b = bias.double().reshape(-1, 1) if bias.dim() > 1 else bias.double()
        z, mag, zp = z + b, mag + b.abs(), zp + b.abs()
    y = ref_act(activation, z, **act_kw(kw))
    tol = 1e-6 + c_acc * 1.2 * mag
    if out_dtype != torch.float32 and (residual is not None or activation in ("gelu_tanh", "silu")):
        tol = tol + 2.0 ** -11 * 1.2 * zp  # a pre-activation carried as f16 (see the header), allowed for here too
    if residual is not None:
        r = residual.double().reshape(y.shape)
        y, tol = y + r, tol + C_ACC * r.abs()
    return y, tol + R_OUT[out_dtype] * y.abs()


def check_scaled(y, ref, tol, what):
    err = (y.double().reshape(ref.shape) - ref).abs()
    bad = ~(err <= tol)
    if bad.any():
        i = bad.nonzero()[0].tolist()
        raise AssertionError(f"{what}: {int(bad.sum())} of {y.numel()} elements off; first at {i}: got "
                             f"{y.reshape(ref.shape)[tuple(i)].item()}, expected {ref[tuple(i)].item()}, "
                             f"tolerance {tol[tuple(i)].item()}")


FP8_PAIRS = [(E4M3, E4M3), (E4M3, E5M2), (E5M2, E4M3)]
MODE_PAIRS = [(a, b) for a in ("tensor", "channel", "block") for b in ("tensor", "channel", "block")]


@pytest.mark.parametrize("modes", MODE_PAIRS, ids=[f"{a}-{b}" for a, b in MODE_PAIRS])
@pytest.mark.parametrize("dtypes", FP8_PAIRS + [(I8, I8)], ids=["e4m3-e4m3", "e4m3-e5m2", "e5m2-e4m3", "s8-s8"])
def test_scaled_linear_scale_modes(dtypes, modes):
    if dtypes[0] == I8 and "block" in modes:
        pytest.skip("block scales are FP8's only")
    if dtypes[0] != I8:
        need_fp8()
    g = gen(zlib.crc32(f"{dtypes} {modes}".encode()))
    M, N, K = 37, 136, 272  # odd M; N and K past a multiple of 128 (K a multiple of 16: the rows' rule)
    x, w = rand_q(M, K, dtype=dtypes[0], g=g), rand_q(N, K, dtype=dtypes[1], g=g)
    sx, sxd = make_scale(modes[0], "x", M, N, K, g)
    sw, swd = make_scale(modes[1], "w", M, N, K, g)
    y = ops.scaled_linear(x, w, sx, sw)
    assert y.dtype == torch.bfloat16 and y.shape == (M, N) and y.is_contiguous()
    c = C_ACC if dtypes[0] == I8 else C_FP8
    ref, tol = scaled_reference(x.double() * sxd, w.double() * swd, None, "none", None, 1.0, torch.bfloat16, {}, c)
    check_scaled(y, ref, tol, f"scaled_linear {dtypes} scales {modes}")


EPILOGUES = [("none", {}, None, False, torch.float32), ("relu", {}, "per_column", False, torch.float16),
             ("gelu_tanh", {}, "per_row", True, torch.bfloat16), ("silu", {}, "scalar", True, torch.float16),
             ("clamp", {"clamp_min": -3.0, "clamp_max": 2.0}, "per_column", False, torch.float32),
             ("leaky_relu", {"negative_slope": 0.1}, None, True, torch.bfloat16)]


@pytest.mark.parametrize("activation, kw, bias_mode, with_residual, out_dtype", EPILOGUES,
                         ids=[f"{e[0]}-{e[2]}-{'res' if e[3] else 'nores'}-{str(e[4])[6:]}" for e in EPILOGUES])
@pytest.mark.parametrize("dtype", [E4M3, I8], ids=["e4m3", "s8"])
def test_scaled_linear_epilogue_and_batched_x(dtype, activation, kw, bias_mode, with_residual, out_dtype):
    if dtype != I8:
        need_fp8()
    g = gen(zlib.crc32(f"{dtype} {activation} {bias_mode} {with_residual} {out_dtype}".encode()))
    lead, N, K = (3, 5), 72, 96
    M = 15
    x, w = rand_q(*lead, K, dtype=dtype, g=g), rand_q(N, K, dtype=dtype, g=g)
    sx, sxd = make_scale("channel", "x", M, N, K, g, lead=lead)  # x.shape[:-1] + (1,)
    sw, swd = make_scale("channel", "w", M, N, K, g)
    bias = None
    if bias_mode == "per_column":
        bias = rand(N, dtype=torch.float32, g=g, scale=4.0)
    elif bias_mode == "per_row":
        bias = rand(*lead, 1, dtype=out_dtype, g=g, scale=4.0)
    elif bias_mode == "scalar":
        bias = rand(1, dtype=out_dtype, g=g, scale=4.0)
    residual = rand(*lead, N, dtype=out_dtype, g=g, scale=4.0) if with_residual else None
    alpha = 0.03 if dtype == I8 else 0.25
    y = ops.scaled_linear(x, w, sx, sw, bias, activation=activation, residual=residual, alpha=alpha,
                          out_dtype=out_dtype, **kw)
    assert y.shape == (*lead, N) and y.dtype == out_dtype
    c = C_ACC if dtype == I8 else C_FP8
    bias2 = bias.reshape(M, 1) if bias_mode == "per_row" else bias
    ref, tol = scaled_reference(x.reshape(M, K).double() * sxd, w.double() * swd, bias2, activation, residual, alpha,
                                out_dtype, kw, c)
    check_scaled(y, ref, tol, f"scaled_linear {dtype} {activation} bias={bias_mode} residual={with_residual} {out_dtype}")


@pytest.mark.parametrize("case", ["decode_m1", "padded_k40", "fast_accum", "dp4a", "empty"])
def test_scaled_linear_shapes_and_options(case):
    g = gen(zlib.crc32(case.encode()))
    dtype = I8 if case == "dp4a" else E4M3
    if dtype != I8:
        need_fp8()
    M, N, K = {"decode_m1": (1, 200, 256), "padded_k40": (9, 24, 40), "fast_accum": (33, 64, 512),
               "dp4a": (19, 40, 144), "empty": (0, 64, 64)}[case]
    ld = 48 if case == "padded_k40" else K
    x = rand_q(M, ld, dtype=dtype, g=g)[:, :K]
    w = rand_q(N, ld, dtype=dtype, g=g)[:, :K]
    sx, sxd = make_scale("channel", "x", M, N, K, g)
    sw, swd = make_scale("tensor", "w", M, N, K, g)
    kw = {"fp8_accum": "fast"} if case == "fast_accum" else {"math": "dp4a"} if case == "dp4a" else {}
    y = ops.scaled_linear(x, w, sx, sw, out_dtype=torch.float32, **kw)
    assert y.shape == (M, N)
    if case == "empty":
        return
    # fast accumulation: the tensor cores sum all of K (512 products here), so the bound is that of a 512-long sum
    c = C_ACC if dtype == I8 else (4 * C_FP8 if case == "fast_accum" else C_FP8)
    ref, tol = scaled_reference(x.double() * sxd, w.double() * swd, None, "none", None, 1.0, torch.float32, {}, c)
    check_scaled(y, ref, tol, f"scaled_linear {case}")


def quantize_reference(x, dtype, mode, given=None):
    """(q, scale, amax) of the library's arithmetic (docs/FUSED.md) in fp32 torch ops, for an x without NaN, inf
    or amax below qmax / FLT_MAX."""
    qmax = {E4M3: 448.0, E5M2: 57344.0, I8: 127.0}[dtype]
    K = x.shape[-1]
    x2 = x.reshape(-1, K).float()
    rows = x2.shape[0]
    kb = (K + 127) // 128
    a = x2.abs()
    if mode in ("tensor", "tensor_given"):
        amax = a.amax()
        expand = lambda s: s.expand(rows, K)  # noqa: E731
    elif mode == "row":
        amax = a.amax(dim=1, keepdim=True)
        expand = lambda s: s.expand(rows, K)  # noqa: E731
    elif mode == "block_1x128":
        padded = torch.nn.functional.pad(a, (0, kb * 128 - K))
        amax = padded.reshape(rows, kb, 128).amax(dim=2).t().contiguous()  # (kb, rows)
        expand = lambda s: s.t().repeat_interleave(128, dim=1)[:, :K]  # noqa: E731
    else:
        rb = (rows + 127) // 128
        padded = torch.nn.functional.pad(a, (0, kb * 128 - K, 0, rb * 128 - rows))
        amax = padded.reshape(rb, 128, kb, 128).amax(dim=(1, 3)).t().contiguous()  # (kb, rb)
        expand = lambda s: s.t().repeat_interleave(128, 0)[:rows].repeat_interleave(128, 1)[:, :K]  # noqa: E731
    # Every division tensor by tensor: torch divides by a Python number as a multiplication by its reciprocal, and
    # computes a number over a tensor as the tensor's reciprocal times the number -- neither is the library's IEEE
    # division (the first GPU run of this test differed from the library there, by an ulp of the scale or the factor).
    if mode == "tensor_given":
        scale = given.reshape(())
        inv = torch.ones_like(scale) / scale
    else:
        zero = amax == 0
        one, qm = torch.ones_like(amax), torch.full_like(amax, qmax)
        scale = torch.where(zero, one, amax / qm)
        inv = torch.where(zero, one, qm / torch.where(zero, one, amax))
    v = x2 * expand(inv)
    if dtype == I8:
        q = torch.round(v).clamp(-127, 127).to(I8)
    else:
        q = v.clamp(-qmax, qmax).to(dtype)  # in range: round to nearest even
    if mode == "row":
        scale, amax = scale.reshape(*x.shape[:-1], 1), amax.reshape(*x.shape[:-1], 1)
    return q.reshape(x.shape), scale, amax, expand


@pytest.mark.parametrize("mode", ["tensor", "tensor_given", "row", "block_1x128", "block_128x128"])
@pytest.mark.parametrize("dtype", [E4M3, E5M2, I8], ids=["e4m3", "e5m2", "s8"])
@pytest.mark.parametrize("x_dtype", [torch.bfloat16, torch.float32], ids=["bf16", "f32"])
def test_quantize_against_the_reference(x_dtype, dtype, mode):
    g = gen(zlib.crc32(f"{x_dtype} {dtype} {mode}".encode()))
    x = rand(3, 45, 200, dtype=x_dtype, g=g, scale=3.0)  # 135 rows (two 128-row blocks), K = 200 (two K blocks)
    given = torch.tensor(0.0125, device=DEV) if mode == "tensor_given" else None
    q, s, amax = ops.quantize(x, dtype, mode, scale=given, return_amax=True)
    rq, rs, ramax, expand = quantize_reference(x, dtype, mode, given)
    assert q.dtype == dtype and q.shape == x.shape and s.shape == rs.shape and amax.shape == ramax.shape
    if dtype == I8:
        assert torch.equal(q, rq), (mode, dtype)
    else:
        assert torch.equal(q.view(torch.uint8), rq.view(torch.uint8)), (mode, dtype)
    assert torch.equal(s, rs) and torch.equal(amax, ramax), (mode, dtype)
    # round trip: within half a step of the 8-bit grid (times the scale; the step of its smallest numbers at least),
    # plus the fp32 roundings of the factor and the product (2^-22 of |x|)
    half = {E4M3: 2.0 ** -4, E5M2: 2.0 ** -3, I8: 0.0}[dtype]
    floor = {E4M3: 2.0 ** -10, E5M2: 2.0 ** -17, I8: 0.5}[dtype]
    sd = expand(s.double().reshape(rs.shape) if mode != "row" else s.double().reshape(-1, 1))
    xd = x.double().reshape(-1, x.shape[-1])
    deq = q.reshape(xd.shape).double() * sd
    if mode != "tensor_given":  # a given scale may saturate; the computed ones never do
        assert ((deq - xd).abs() <= half * xd.abs() + floor * sd + 2.0 ** -22 * xd.abs()).all(), (mode, dtype)


def test_quantize_then_scaled_linear_block_layouts_agree():
    need_fp8()
    g = gen(21)
    x, w = rand(37, 272, g=g), rand(136, 272, g=g, scale=0.1)
    qx, sx = ops.quantize(x, E4M3, "block_1x128")
    qw, sw = ops.quantize(w, E4M3, "block_128x128")
    y = ops.scaled_linear(qx, qw, sx, sw, out_dtype=torch.float32)
    _, _, _, ex = quantize_reference(x, E4M3, "block_1x128")
    _, _, _, ew = quantize_reference(w, E4M3, "block_128x128")
    xd, wd = qx.double() * ex(sx.double()), qw.double() * ew(sw.double())
    ref, tol = scaled_reference(xd, wd, None, "none", None, 1.0, torch.float32, {}, C_FP8)
    check_scaled(y, ref, tol, "quantize block_1x128 / block_128x128 -> scaled_linear")
    # and the result is close to the unquantised product (e4m3: a few percent of |x| |w|)
    full = x.double() @ w.double().t()
    assert ((y.double() - full).abs() <= 0.1 * (x.double().abs() @ w.double().abs().t())).all()


def test_quantize_empty_and_in_place_strides():
    q, s, amax = ops.quantize(torch.empty(0, 64, device=DEV), E4M3, "row", return_amax=True)
    assert q.shape == (0, 64) and s.shape == (0, 1) and amax.shape == (0, 1)
    q, s = ops.quantize(torch.empty(4, 0, device=DEV), I8, "tensor")
    assert s.item() == 1.0  # amax 0 gives the scale 1
    g = gen(22)
    base = rand(6, 80, g=g)
    x = base[:, 8:72]  # padded rows: read in place
    q, s = ops.quantize(x, E5M2, "row")
    rq, rs, _, _ = quantize_reference(x, E5M2, "row")
    assert torch.equal(q.view(torch.uint8), rq.view(torch.uint8)) and torch.equal(s, rs)


def test_scaled_ops_torch_compile_fullgraph_matches_eager():
    need_fp8()
    import torch._dynamo

    torch._dynamo.reset()
    g = gen(23)
    w1, b1, w2 = rand(128, 64, g=g, scale=0.1), rand(128, g=g), rand(64, 128, g=g, scale=0.1)
    qw1, sw1 = ops.quantize(w1, E4M3, "row")
    qw2, sw2 = ops.quantize(w2, E4M3, "block_128x128")

    def f(x):
        qx, sx = ops.quantize(x, E4M3, "row")
        h = ops.scaled_linear(qx, qw1, sx, sw1, b1, activation="silu")
        qh, sh = ops.quantize(h, E4M3, "block_1x128")
        return ops.scaled_linear(qh, qw2, sh, sw2, residual=x)

    x = rand(4, 9, 64, g=g)
    eager = f(x)
    compiled = torch.compile(f, fullgraph=True, backend="aot_eager")(x)  # the same kernels through the traced graph
    torch.testing.assert_close(compiled, eager, rtol=0, atol=0)


def test_scaled_ops_opcheck_on_the_gpu():
    need_fp8()
    g = gen(24)
    x, w = rand_q(6, 128, dtype=E4M3, g=g), rand_q(32, 128, dtype=E5M2, g=g)
    cases = [
        (torch.ops.tessera.scaled_linear.default,
         (x, w, rand_scale(6, g=g), rand_scale(1, 1, g=g), rand(32, g=g), "relu", 0.01, -INF, INF, None, 1.0,
          torch.bfloat16, None, None, None, None)),
        (torch.ops.tessera.quantize.default, (rand(6, 128, g=g), I8, "row", None, True)),
    ]
    for op, args in cases:
        # (test_schema compares the inputs before and after the call with torch.allclose, which has no FP8 kernel:
        # "mul_cuda" not implemented for 'Float8_e4m3fn'.  The other checks run for the FP8 op.)
        fp8_inputs = any(isinstance(a, torch.Tensor) and a.dtype in (E4M3, E5M2) for a in args)
        utils = ("test_autograd_registration", "test_faketensor", "test_aot_dispatch_dynamic") if fp8_inputs else None
        result = torch.library.opcheck(op, args) if utils is None else torch.library.opcheck(op, args, test_utils=utils)
        assert all(v == "SUCCESS" for v in result.values()), (op, result)
