"""tessera.ops on a GPU: results against float64 references, every activation and bias mode, bf16 /
f16 / f32, odd shapes, strided inputs, split-K, streams, opcheck, torch.compile(fullgraph=True), CUDA
graph capture, and backward against autograd of the reference (the FP8 / INT8 operators:
test_ops_gpu_8bit.py).  Reported as skipped without PyTorch or a CUDA GPU; on a GPU a build without
tessera._cuda fails (it does not skip).

Tolerance per element, as in tests/kernel_gemm/gemm_check.hpp:
    |got - ref| <= 1e-6 + r_out * |ref| + c_acc * mag
    mag   = 1.2 * (|alpha| * (|x| @ |W|^T) + |beta * c| + |bias|) + |residual|  (1.2 bounds the slopes
            of the activations)
    r_out = 2^-7 (bf16 output), 2^-10 (f16), 1e-6 (f32): twice the unit roundoff of the rounding
    c_acc = 2e-5: fp32 sums of exact products in any order
    + 2^-11 * 1.2 * (|alpha x W^T| + |bias|) for 16-bit results with beta = 0 and a residual, gelu_tanh or silu:
      the cooperative Hopper kernel carries alpha x W^T as f16 to the pass that adds the bias, applies the activation
      and adds the residual, if any (docs/GEMM.md); folded into mag.
"""
import math
import zlib

import pytest

torch = pytest.importorskip("torch")
if not torch.cuda.is_available():
    pytest.skip("no CUDA GPU present", allow_module_level=True)
from tessera import nn as tnn  # noqa: E402
from tessera import ops  # noqa: E402
from ops_gpu_common import C_ACC, DEV, INF, R_OUT, act_kw, gen, rand, ref_act  # noqa: E402


def reference(x, w, bias=None, activation="none", residual=None, alpha=1.0, beta=0.0, c=None, slope=0.01, lo=-INF,
              hi=INF):
    """(float64 result, float64 magnitude bound) of act(alpha x W^T + beta c + bias) + residual."""
    x64, w64 = x.double(), w.double()
    z = alpha * (x64 @ w64.t())
    mag = abs(alpha) * (x64.abs() @ w64.abs().t())
    zp = z.abs()  # |alpha x W^T| + |bias|: the parked value's bound
    if c is not None and beta != 0:
        z = z + beta * c.double()
        mag = mag + abs(beta) * c.double().abs()
    if bias is not None:
        z = z + bias.double()
        mag = mag + bias.double().abs()
        zp = zp + bias.double().abs()
    y = ref_act(activation, z, slope, lo, hi)
    mag = 1.2 * mag
    # alpha x W^T parked as f16 (the header): the result's type is x's (and a residual's)
    parked = beta == 0 and x.dtype in (torch.bfloat16, torch.float16) and (
        residual is not None or activation in ("gelu_tanh", "silu"))
    if parked:
        mag = mag + (2.0 ** -11 * 1.2 / C_ACC) * zp
    if residual is not None:
        y = y + residual.double()
        mag = mag + residual.double().abs()
    return y, mag


def assert_close(got, ref, mag, what):
    assert got.shape == ref.shape, (what, got.shape, ref.shape)
    err = (got.double() - ref).abs()
    tol = 1e-6 + R_OUT[got.dtype] * ref.abs() + C_ACC * mag
    bad = ~(err <= tol)  # NaN fails
    if bad.any():
        i = bad.nonzero()[0].tolist()
        raise AssertionError(f"{what}: {int(bad.sum())} of {got.numel()} elements off; first at {i}: got "
                             f"{got[tuple(i)].item()}, expected {ref[tuple(i)].item()}, tolerance {tol[tuple(i)].item()}")


ACTS = [("none", {}), ("relu", {}), ("gelu_tanh", {}), ("gelu_erf", {}), ("silu", {}),
        ("leaky_relu", {"negative_slope": 0.2}), ("clamp", {"clamp_min": -0.5, "clamp_max": 0.75})]


def make_bias(mode, lead, n, dtype, g):
    if mode == "none":
        return None
    if mode == "per_column":
        return rand(n, dtype=dtype, g=g)
    if mode == "per_row":
        return rand(*lead, 1, dtype=dtype, g=g)
    return rand(1, dtype=dtype, g=g) if mode == "scalar_1" else rand((), dtype=dtype, g=g)


# ------------------------------------------------------------------------------------------ forward
def test_kernels_are_built():
    assert ops._cuda is not None, f"tessera._cuda is missing: {ops._CUDA_ERROR}"
    assert tuple(ops._cuda.activations()) == ops.ACTIVATIONS
    assert ops.available()


@pytest.mark.parametrize("activation, kw", ACTS, ids=[a for a, _ in ACTS])
@pytest.mark.parametrize("bias_mode", ["none", "per_column", "per_column_f32", "per_row", "scalar_1", "scalar_0d"])
@pytest.mark.parametrize("dtype", [torch.bfloat16, torch.float16])
def test_linear_activations_and_bias_modes(activation, kw, bias_mode, dtype):
    g = gen(zlib.crc32(f"{activation} {bias_mode} {dtype}".encode()))
    M, N, K = 37, 136, 96
    x, w = rand(M, K, dtype=dtype, g=g), rand(N, K, dtype=dtype, g=g, scale=0.2)
    bdt = torch.float32 if bias_mode.endswith("f32") else dtype
    bias = make_bias(bias_mode.replace("_f32", ""), (M,), N, bdt, g)
    y = ops.linear(x, w, bias, activation=activation, **kw)
    ref, mag = reference(x, w, bias, activation, **act_kw(kw))
    assert y.dtype == dtype and y.is_contiguous()
    assert_close(y, ref, mag, f"linear act={activation} bias={bias_mode} dtype={dtype}")


@pytest.mark.parametrize("M, N, K", [(1, 8, 8), (1, 72, 64), (3, 5, 7), (17, 33, 65), (128, 256, 512), (255, 127, 129),
                                     (1, 4096, 4096), (4, 11008, 4096), (2048, 96, 64), (640, 1, 320)])
@pytest.mark.parametrize("dtype", [torch.bfloat16, torch.float16, torch.float32])
def test_linear_shapes(M, N, K, dtype):
    if dtype == torch.float32 and M * N * K > 2 ** 27:
        pytest.skip("fp32_exact runs on CUDA cores: the big shapes are for 16-bit types")
    g = gen(M * 7 + N * 3 + K)
    x, w = rand(M, K, dtype=dtype, g=g), rand(N, K, dtype=dtype, g=g, scale=1 / math.sqrt(K))
    b = rand(N, dtype=dtype, g=g)
    y = ops.linear(x, w, b, activation="gelu_tanh")
    ref, mag = reference(x, w, b, "gelu_tanh")
    assert_close(y, ref, mag, f"linear M={M} N={N} K={K} dtype={dtype}")


@pytest.mark.parametrize("in_dtype, out_dtype", [(torch.bfloat16, torch.float32), (torch.float16, torch.float32),
                                                  (torch.bfloat16, torch.float16), (torch.float32, torch.bfloat16)])
def test_linear_out_dtype(in_dtype, out_dtype):
    g = gen(5)
    x, w = rand(3, 9, 80, dtype=in_dtype, g=g), rand(48, 80, dtype=in_dtype, g=g, scale=0.1)
    b = rand(48, dtype=torch.float32, g=g)
    r = rand(3, 9, 48, dtype=out_dtype, g=g)
    y = ops.linear(x, w, b, activation="silu", residual=r, out_dtype=out_dtype)
    assert y.dtype == out_dtype and y.shape == (3, 9, 48)
    ref, mag = reference(x, w, b, "silu", residual=r)
    assert_close(y, ref, mag, f"linear {in_dtype} -> {out_dtype}")


@pytest.mark.parametrize("dtype", [torch.bfloat16, torch.float16])
def test_linear_alpha_beta_c_residual(dtype):
    g = gen(11)
    x, w = rand(2, 21, 64, dtype=dtype, g=g), rand(40, 64, dtype=dtype, g=g, scale=0.1)
    c, r = rand(2, 21, 40, dtype=dtype, g=g), rand(2, 21, 40, dtype=dtype, g=g)
    b = rand(40, dtype=dtype, g=g)
    y = ops.linear(x, w, b, activation="gelu_erf", residual=r, alpha=0.5, beta=-1.5, c=c)
    ref, mag = reference(x, w, b, "gelu_erf", residual=r, alpha=0.5, beta=-1.5, c=c)
    assert_close(y, ref, mag, "linear alpha/beta/c/residual")


def strided(t, how, g):
    """The same values as t (2-d or 3-d, (..., C)), laid out another way."""
    if how == "contiguous":
        return t
    if how == "row_padded":  # rows padded to a larger stride
        big = torch.zeros(*t.shape[:-1], t.shape[-1] + 24, device=DEV, dtype=t.dtype)
        big[..., 5:5 + t.shape[-1]] = t
        return big[..., 5:5 + t.shape[-1]]
    if how == "column_major":  # 2-d with unit stride along the rows
        return t.t().contiguous().t()
    if how == "not_collapsible":  # 3-d with a gap between batches: copied
        t3 = t.reshape(2, -1, t.shape[-1])
        big = torch.zeros(2, t3.shape[1] + 3, t.shape[-1], device=DEV, dtype=t.dtype)
        big[:, :t3.shape[1]] = t3
        return big[:, :t3.shape[1]]
    raise ValueError(how)


@pytest.mark.parametrize("x_how", ["contiguous", "row_padded", "column_major", "not_collapsible"])
@pytest.mark.parametrize("w_how", ["contiguous", "transposed", "row_padded", "every_other_column"])
def test_linear_strided_inputs(x_how, w_how):
    g = gen(3)
    M, N, K = 34, 72, 64
    x = rand(M, K, g=g)
    w = rand(N, K, g=g, scale=0.1)
    xs = strided(x, x_how, g)
    if w_how == "transposed":
        ws = w.t().contiguous().t()  # (N, K) with strides (1, N)
    elif w_how == "row_padded":
        ws = strided(w, "row_padded", g)
    elif w_how == "every_other_column":  # no unit stride: copied
        big = torch.zeros(N, 2 * K, device=DEV, dtype=w.dtype)
        big[:, ::2] = w
        ws = big[:, ::2]
    else:
        ws = w
    assert torch.equal(xs.reshape(-1, K), x) and torch.equal(ws, w)
    r = strided(rand(M, N, g=g), "row_padded", g)
    y = ops.linear(xs, ws, None, activation="relu", residual=r.reshape(*xs.shape[:-1], N))  # the output's shape
    ref, mag = reference(x, w, None, "relu", residual=r)
    assert_close(y.reshape(M, N), ref, mag, f"strided x={x_how} w={w_how}")
    assert y.shape == (*xs.shape[:-1], N)


def test_linear_strided_c_and_bias():
    g = gen(4)
    x, w = rand(20, 48, g=g), rand(24, 48, g=g, scale=0.1)
    c = rand(24, 20, g=g).t()  # column-major C
    b = rand(48, g=g)[::2]  # non-contiguous bias: copied
    y = ops.linear(x, w, b, beta=0.25, c=c)
    ref, mag = reference(x, w, b, beta=0.25, c=c)
    assert_close(y, ref, mag, "strided c and bias")


def test_linear_3d_input_and_empty_batches():
    g = gen(6)
    x, w = rand(3, 5, 32, g=g), rand(16, 32, g=g, scale=0.1)
    y = ops.linear(x, w)
    ref, mag = reference(x.reshape(15, 32), w)
    assert_close(y.reshape(15, 16), ref, mag, "3-d input")
    empty = ops.linear(torch.empty(0, 4, 32, device=DEV, dtype=torch.bfloat16), w)
    assert empty.shape == (0, 4, 16)
    assert ops.linear(x, torch.empty(0, 32, device=DEV, dtype=torch.bfloat16)).shape == (3, 5, 0)


@pytest.mark.parametrize("M, N, K", [(1, 1024, 8192), (2, 4096, 14336), (8, 512, 16384)])
def test_linear_decode_shapes(M, N, K):
    # Few rows and a long K: the planner splits K, taking its workspace from PyTorch's allocator (a batch of 1 runs the
    # GEMV, which splits K inside its blocks and needs none).
    g = gen(8)
    x, w, b = rand(M, K, g=g), rand(N, K, g=g, scale=0.02), rand(N, g=g)
    y = ops.linear(x, w, b, activation="silu")
    ref, mag = reference(x, w, b, "silu")
    assert_close(y, ref, mag, f"decode M={M} N={N} K={K}")


def test_linear_decode_reuses_one_zeroed_workspace_per_stream():
    # Split-K calls take the stream's kept workspace (zero-filled once; the kernels leave its counters
    # zero): repeated and interleaved shapes give the first call's bits, on the default and a side stream.
    g = gen(15)
    cases = [(rand(1, 4096, g=g), rand(4096, 4096, g=g, scale=0.02)),
             (rand(4, 8192, g=g), rand(1024, 8192, g=g, scale=0.02)),
             (rand(2, 14336, g=g), rand(512, 14336, g=g, scale=0.02))]
    first = [ops.linear(x, w) for x, w in cases]
    for (x, w), y in zip(cases, first):
        ref, mag = reference(x, w)
        assert_close(y, ref, mag, f"decode {tuple(x.shape)} x {tuple(w.shape)}")
    kept = ops._gemm_alloc_for(first[0].device).kept
    assert torch.cuda.current_stream().cuda_stream in kept, "the decode shapes split K: a workspace is kept"
    for _ in range(3):
        for (x, w), y in zip(cases, first):
            assert torch.equal(ops.linear(x, w), y)
    s = torch.cuda.Stream()
    s.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(s):
        side = [ops.linear(x, w) for _ in range(2) for x, w in cases]
    s.synchronize()
    assert s.cuda_stream in kept
    for i, y in enumerate(side):
        assert torch.equal(y, first[i % len(cases)])


def test_linear_on_a_side_stream():
    g = gen(9)
    x, w = rand(256, 512, g=g), rand(512, 512, g=g, scale=0.05)
    s = torch.cuda.Stream()
    s.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(s):
        y = ops.linear(x, w, activation="silu")
    s.synchronize()
    ref, mag = reference(x, w, None, "silu")
    assert_close(y, ref, mag, "side stream")


@pytest.mark.parametrize("call, exc, words", [
    (lambda: ops.linear(rand(4, 64), torch.zeros(32, 64, dtype=torch.bfloat16)), ValueError, ["'weight'", "cpu", "cuda:0"]),
    (lambda: ops.linear(rand(4, 64), rand(32, 64), torch.zeros(32, dtype=torch.bfloat16)), ValueError, ["'bias'", "cpu"]),
    (lambda: ops.linear(rand(4, 64), rand(32, 64, dtype=torch.float16)), ValueError, ["'weight'", "dtype"]),
    (lambda: ops.linear(rand(4, 64), rand(32, 65)), ValueError, ["'weight'", "K = x.shape[-1] = 64"]),
    (lambda: ops.rms_norm(rand(4, 64), torch.ones(64, dtype=torch.bfloat16)), ValueError, ["'weight'", "cpu"]),
])
def test_bad_arguments_on_the_gpu(call, exc, words):
    with pytest.raises(exc) as info:
        call()
    for w in words:
        assert w in str(info.value), (w, str(info.value))


# ------------------------------------------------------------------------------------------ norms
def norm_reference(kind, x, w, eps):
    x64 = x.double()
    if kind == "rms":
        return x64 * torch.rsqrt(x64.square().mean(-1, keepdim=True) + eps) * w.double()
    return x64 * torch.rsqrt(x64.square().sum(-1, keepdim=True) + eps)


@pytest.mark.parametrize("kind", ["rms", "l2"])
@pytest.mark.parametrize("dtype", [torch.bfloat16, torch.float16, torch.float32])
@pytest.mark.parametrize("shape", [(1, 8), (7, 3, 100), (64, 4096), (3, 40000)])
@pytest.mark.parametrize("layout", ["contiguous", "row_padded"])
def test_norms(kind, dtype, shape, layout):
    g = gen(shape[-1])
    x = strided(rand(*shape, dtype=dtype, g=g), layout, g)
    w = rand(shape[-1], dtype=dtype, g=g)
    eps = 1e-5
    y = ops.rms_norm(x, w, eps=eps) if kind == "rms" else ops.l2_norm(x, eps=eps)
    ref = norm_reference(kind, x, w, eps)
    assert y.shape == x.shape and y.dtype == dtype and y.is_contiguous()
    # fp32 sums of squares, one rounding at the end
    tol = 1e-6 + R_OUT[dtype] * ref.abs() + 1e-5 * ref.abs().amax(-1, keepdim=True)
    assert bool(((y.double() - ref).abs() <= tol).all()), f"{kind} {dtype} {shape} {layout}"


# ------------------------------------------------------------------------------------------ torch machinery
def test_opcheck_on_gpu():
    g = gen(12)
    x = rand(6, 64, g=g).requires_grad_()
    w = rand(32, 64, g=g, scale=0.1).requires_grad_()
    b = rand(32, g=g).requires_grad_()
    r = rand(6, 32, g=g).requires_grad_()
    c = rand(6, 32, g=g).requires_grad_()
    cases = [
        (torch.ops.tessera.linear.default, (x, w, b, "gelu_tanh", 0.01, -INF, INF, r, 1.0, 0.0, None, None)),
        (torch.ops.tessera.linear.default, (x, w, None, "silu", 0.01, -INF, INF, None, 0.5, 2.0, c, None)),
        # an fp32 output takes an fp32 bias (or one of the output's type)
        (torch.ops.tessera.linear.default, (x, w, b.detach().float().requires_grad_(), "none", 0.01, -INF, INF, None, 1.0, 0.0,
                                            None, torch.float32)),
        (torch.ops.tessera.rms_norm.default, (x, rand(64, g=g).requires_grad_(), 1e-6)),
        (torch.ops.tessera.l2_norm.default, (x, 1e-12)),
    ]
    for op, args in cases:
        result = torch.library.opcheck(op, args)
        assert all(v == "SUCCESS" for v in result.values()), (op, result)


def test_torch_compile_fullgraph_matches_eager():
    import torch._dynamo

    torch._dynamo.reset()
    g = gen(13)
    x, w, b = rand(4, 33, 128, g=g), rand(256, 128, g=g, scale=0.1), rand(256, g=g)
    w2, gamma = rand(128, 256, g=g, scale=0.1), rand(128, g=g)

    def f(x):
        h = ops.linear(x, w, b, activation="gelu_tanh")
        h = ops.linear(h, w2, residual=x)
        return ops.rms_norm(h, gamma) * 2

    eager = f(x)
    compiled = torch.compile(f, fullgraph=True)(x)
    torch.testing.assert_close(compiled, eager, rtol=0, atol=0)


@pytest.mark.parametrize("rows", [1, 2])  # decode: the GEMV; the decode tile with its split-K workspace
def test_cuda_graph_capture_and_replay(rows):
    g = gen(14)
    x, w, b = rand(rows, 4096, g=g), rand(4096, 4096, g=g, scale=0.02), rand(4096, g=g)
    gamma = rand(4096, g=g)
    static_x = x.clone()

    def step(inp):
        return ops.rms_norm(ops.linear(inp, w, b, activation="silu"), gamma)

    s = torch.cuda.Stream()
    s.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(s):
        for _ in range(2):
            step(static_x)
    torch.cuda.current_stream().wait_stream(s)
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        static_y = step(static_x)
    for seed in (20, 21):
        new_x = rand(rows, 4096, g=gen(seed))
        static_x.copy_(new_x)
        graph.replay()
        torch.cuda.synchronize()
        torch.testing.assert_close(static_y, step(new_x), rtol=0, atol=0)


# ------------------------------------------------------------------------------------------ backward
@pytest.mark.parametrize("activation, kw", ACTS, ids=[a for a, _ in ACTS])
@pytest.mark.parametrize("bias_mode", ["none", "per_column", "per_row", "scalar_0d"])
def test_linear_backward_matches_autograd_of_the_reference(activation, kw, bias_mode):
    g = gen(17)
    dtype = torch.float32  # exact FFMA GEMMs: the gradients compare tightly with float64
    x = rand(3, 7, 48, dtype=dtype, g=g).requires_grad_()
    w = rand(40, 48, dtype=dtype, g=g, scale=0.2).requires_grad_()
    bias = make_bias(bias_mode, (3, 7), 40, dtype, g)
    if bias is not None:
        bias.requires_grad_()
    r = rand(3, 7, 40, dtype=dtype, g=g).requires_grad_()
    c = rand(3, 7, 40, dtype=dtype, g=g).requires_grad_()
    y = ops.linear(x, w, bias, activation=activation, residual=r, alpha=0.75, beta=0.5, c=c, **kw)
    gy = rand(*y.shape, dtype=dtype, g=g)
    named = [(n, t) for n, t in (("x", x), ("weight", w), ("bias", bias), ("residual", r), ("c", c)) if t is not None]
    grads = torch.autograd.grad(y, [t for _, t in named], gy)
    leaves = {n: t.detach().double().requires_grad_() for n, t in named}
    z = 0.75 * (leaves["x"] @ leaves["weight"].t()) + 0.5 * leaves["c"]
    if "bias" in leaves:
        z = z + leaves["bias"]
    yref = ref_act(activation, z, **act_kw(kw)) + leaves["residual"]
    want = torch.autograd.grad(yref, list(leaves.values()), gy.double())
    for name, got, exp in zip(leaves, grads, want):
        assert got.shape == exp.shape and got.dtype == dtype, name
        torch.testing.assert_close(got.double(), exp, rtol=1e-4, atol=1e-4, msg=f"grad {name} act={activation}")


@pytest.mark.parametrize("dtype", [torch.bfloat16, torch.float16])
def test_linear_backward_16_bit(dtype):
    # 16-bit gradients: compared with PyTorch's own 16-bit autograd, both against float64
    g = gen(18)
    x = rand(64, 96, dtype=dtype, g=g).requires_grad_()
    w = rand(80, 96, dtype=dtype, g=g, scale=0.1).requires_grad_()
    b = rand(80, dtype=dtype, g=g).requires_grad_()
    gy = rand(64, 80, dtype=dtype, g=g)
    got = torch.autograd.grad(ops.linear(x, w, b, activation="gelu_tanh"), (x, w, b), gy)
    base = torch.autograd.grad(torch.nn.functional.gelu(torch.nn.functional.linear(x, w, b), approximate="tanh"),
                               (x, w, b), gy)
    leaves = [t.detach().double().requires_grad_() for t in (x, w, b)]
    want = torch.autograd.grad(ref_act("gelu_tanh", leaves[0] @ leaves[1].t() + leaves[2]), leaves, gy.double())
    for name, gt, bs, wt in zip(("x", "weight", "bias"), got, base, want):
        err = (gt.double() - wt).abs().max().item()
        err_torch = (bs.double() - wt).abs().max().item()
        assert err <= 2 * err_torch + 1e-3 * wt.abs().max().item(), (name, err, err_torch)


@pytest.mark.parametrize("kind", ["rms", "l2"])
def test_norm_backward(kind):
    g = gen(19)
    x = rand(5, 3, 64, dtype=torch.float32, g=g).requires_grad_()
    w = rand(64, dtype=torch.float32, g=g).requires_grad_()
    y = ops.rms_norm(x, w, eps=1e-5) if kind == "rms" else ops.l2_norm(x, eps=1e-5)
    gy = rand(*y.shape, dtype=torch.float32, g=g)
    inputs = (x, w) if kind == "rms" else (x,)
    got = torch.autograd.grad(y, inputs, gy)
    leaves = [t.detach().double().requires_grad_() for t in inputs]
    want = torch.autograd.grad(norm_reference(kind, leaves[0], leaves[-1], 1e-5), leaves, gy.double())
    for gt, wt in zip(got, want):
        torch.testing.assert_close(gt.double(), wt, rtol=1e-4, atol=1e-4)


# ------------------------------------------------------------------------------------------ nn
def test_nn_linear_module_forward_and_training_step():
    torch.manual_seed(0)
    ref = torch.nn.Linear(96, 64, device=DEV, dtype=torch.float32)
    m = tnn.Linear.from_linear(ref, activation="silu")
    x = torch.randn(10, 96, device=DEV)
    y = m(x)
    y_ref = torch.nn.functional.silu(ref(x))
    torch.testing.assert_close(y, y_ref, rtol=1e-4, atol=1e-4)
    y.square().sum().backward()
    gw, gb = ref.weight.grad.clone(), ref.bias.grad.clone()  # shared parameters got tessera's gradients
    ref.zero_grad()
    y_ref.square().sum().backward()
    torch.testing.assert_close(gw, ref.weight.grad, rtol=1e-4, atol=1e-4)
    torch.testing.assert_close(gb, ref.bias.grad, rtol=1e-4, atol=1e-4)
