"""tessera.ops' FP8 / INT8 operators (scaled_linear, quantize) where PyTorch is installed, without a GPU:
registration, fake shapes of every scale and quantisation mode, FakeTensorMode and opcheck on meta tensors,
torch.compile(fullgraph=True) tracing, every argument error (the 8-bit layout rules on CPU tensors), inputs that
require grad, and the codes tessera._cuda refuses.  The kernels are tested by test_ops_gpu_8bit.py."""
import math

import pytest

torch = pytest.importorskip("torch")
from tessera import ops  # noqa: E402
from ops_torch_common import INF, META, meta, raises_naming  # noqa: E402

E4M3, E5M2, I8 = torch.float8_e4m3fn, torch.float8_e5m2, torch.int8


def f32(*shape):
    return torch.empty(shape, device=META, dtype=torch.float32)


def q8(*shape, dtype=E4M3):
    """A CPU tensor of an 8-bit dtype (for the layout checks, which run before the device check)."""
    return torch.zeros(*shape).to(dtype)


def test_scaled_ops_are_registered():
    for name in ("scaled_linear", "quantize"):
        assert hasattr(torch.ops.tessera, name), name
    schema = str(torch.ops.tessera.scaled_linear.default._schema)
    assert "Tensor? scale_x" in schema and "str? fp8_accum" in schema, schema
    assert ops.SCALE_MODES == ("tensor", "channel", "block")
    assert ops.QUANT_MODES == ("tensor", "tensor_given", "row", "block_1x128", "block_128x128")


@pytest.mark.parametrize("x_shape, w_shape, sx, sw, out_dtype, block", [
    ((5, 64), (48, 64), (), (1,), torch.bfloat16, False),             # per tensor
    ((5, 64), (48, 64), (5,), (48, 1), torch.float16, False),         # channel
    ((2, 3, 64), (48, 64), (2, 3, 1), (48,), torch.float32, False),   # channel, batched x (x.shape[:-1] + (1,))
    ((2, 3, 64), (48, 64), (6, 1), (1, 1), None, False),              # channel as (M, 1); None: bf16
    ((7, 272), (200, 272), (3, 7), (3, 2), torch.bfloat16, True),     # block: (ceil(K/128), M), (ceil(K/128), ceil(N/128))
    ((7, 272), (200, 272), (3, 7), (200,), torch.bfloat16, True),     # block x, channel w
    ((64,), (48, 64), (1,), (48,), torch.bfloat16, False),            # 1-d x: one row
    ((0, 64), (48, 64), (), (), torch.bfloat16, False),               # no rows
])
@pytest.mark.parametrize("dtypes", [(E4M3, E4M3), (E4M3, E5M2), (E5M2, E5M2), (I8, I8)])
def test_scaled_linear_fake_shapes(x_shape, w_shape, sx, sw, out_dtype, block, dtypes):
    if dtypes[0] == I8 and block:
        pytest.skip("block scales are FP8's only")
    x, w = meta(*x_shape, dtype=dtypes[0]), meta(*w_shape, dtype=dtypes[1])
    y = ops.scaled_linear(x, w, f32(*sx), f32(*sw), f32(w_shape[0]), activation="silu", out_dtype=out_dtype)
    assert tuple(y.shape) == (*x_shape[:-1], w_shape[0])
    assert y.dtype == (out_dtype or torch.bfloat16) and y.device.type == META and y.is_contiguous()


@pytest.mark.parametrize("mode, scale_shape", [("tensor", ()), ("tensor_given", (1,)), ("row", (2, 150, 1)),
                                                ("block_1x128", (2, 300)), ("block_128x128", (2, 3))])
@pytest.mark.parametrize("dtype", [E4M3, E5M2, I8])
def test_quantize_fake_shapes(mode, scale_shape, dtype):
    x = meta(2, 150, 200, dtype=torch.float16)
    given = f32(1) if mode == "tensor_given" else None
    q, s, amax = ops.quantize(x, dtype, mode, scale=given, return_amax=True)
    assert tuple(q.shape) == (2, 150, 200) and q.dtype == dtype and q.is_contiguous()
    assert tuple(s.shape) == scale_shape and s.dtype == torch.float32
    assert tuple(amax.shape) == scale_shape and amax.dtype == torch.float32
    if mode == "tensor_given":
        assert s is given  # the given scale, returned as it is
    assert len(ops.quantize(x, dtype, mode, scale=given)) == 2


def test_scaled_ops_under_fake_tensor_mode_and_opcheck():
    from torch._subclasses.fake_tensor import FakeTensorMode

    with FakeTensorMode():
        x = torch.empty(3, 5, 128, device="cuda", dtype=torch.bfloat16)
        w = torch.empty(64, 128, device="cuda", dtype=torch.bfloat16)
        qx, sx = ops.quantize(x, E4M3, "row")
        qw, sw = ops.quantize(w, E4M3, "block_128x128")
        y = ops.scaled_linear(qx, qw, sx, sw, out_dtype=torch.float16)
        assert tuple(y.shape) == (3, 5, 64) and y.dtype == torch.float16 and y.device.type == "cuda"
    cases = [
        (torch.ops.tessera.scaled_linear.default,
         (meta(6, 256, dtype=E4M3), meta(32, 256, dtype=E5M2), f32(2, 6), f32(2, 1), f32(32), "relu", 0.01, -INF, INF,
          meta(6, 32), 1.0, torch.bfloat16, None, None, "promoted", None)),
        (torch.ops.tessera.scaled_linear.default,
         (meta(6, 64, dtype=I8), meta(32, 64, dtype=I8), f32(6, 1), f32(32), None, "none", 0.01, -INF, INF, None, 0.5,
          torch.float32, None, None, None, "dp4a")),
        (torch.ops.tessera.quantize.default, (meta(6, 64), E4M3, "block_1x128", None, True)),
        (torch.ops.tessera.quantize.default, (meta(6, 64), I8, "tensor_given", f32(), False)),
    ]
    for op, args in cases:
        result = torch.library.opcheck(op, args)
        assert all(v == "SUCCESS" for v in result.values()), (op, result)


@pytest.mark.parametrize("dynamic", [False, True])
def test_compile_fullgraph_traces_quantize_and_scaled_linear(dynamic):
    import torch._dynamo
    from torch._dynamo.testing import CompileCounterWithBackend

    def f(x, w, b):
        qx, sx = ops.quantize(x, E4M3, "row")
        qw, sw = ops.quantize(w, E4M3, "tensor")
        return ops.scaled_linear(qx, qw, sx, sw, b, activation="gelu_tanh")

    torch._dynamo.reset()
    cnt = CompileCounterWithBackend("aot_eager")
    y = torch.compile(f, fullgraph=True, dynamic=dynamic, backend=cnt)(meta(4, 6, 64), meta(32, 64), meta(32))
    assert tuple(y.shape) == (4, 6, 32) and y.dtype == torch.bfloat16
    graphs = [gm for gm in cnt.graphs if any(n.op == "call_function" for n in gm.graph.nodes)]
    assert len(graphs) == 1, [gm.code for gm in cnt.graphs]
    targets = {str(n.target) for n in graphs[0].graph.nodes if n.op == "call_function"}
    assert {"tessera.quantize.default", "tessera.scaled_linear.default"} <= targets, targets


def sl(x, w, sx=None, sw=None, **kw):
    return lambda: ops.scaled_linear(x, w, sx, sw, **kw)


@pytest.mark.parametrize("call, exc, words", [
    (sl(meta(4, 64), meta(8, 64)), ValueError, ["scaled_linear", "'x'", "torch.bfloat16", "torch.float8_e4m3fn", "linear"]),
    (sl(meta(4, 64, dtype=E4M3), meta(8, 64, dtype=I8)), ValueError, ["'weight'", "torch.int8", "any pair"]),
    (sl(meta(4, 64, dtype=I8), meta(8, 64, dtype=E4M3)), ValueError, ["'weight'", "torch.float8_e4m3fn", "int8 x int8"]),
    (sl(meta(4, 64, dtype=torch.float8_e4m3fnuz), meta(8, 64, dtype=E4M3)), ValueError, ["'x'", "float8_e4m3fnuz"]),
    (sl(meta(4, 64, dtype=E4M3), meta(8, 48, dtype=E4M3)), ValueError, ["'weight'", "(8, 48)", "K = x.shape[-1] = 64"]),
    (sl(meta(4, 64, dtype=E4M3), meta(2, 8, 64, dtype=E4M3)), ValueError, ["'weight'", "(N, K)"]),
    (sl(meta(4, 0, dtype=E4M3), meta(8, 0, dtype=E4M3)), ValueError, ["K = x.shape[-1] = 0"]),
    (sl(meta(4, 64, dtype=E4M3), meta(8, 64, dtype=E4M3), out_dtype=E4M3), ValueError, ["'out_dtype'", "float8_e4m3fn"]),
    (sl(meta(4, 64, dtype=E4M3), meta(8, 64, dtype=E4M3), f32(5)), ValueError,
     ["'scale_x'", "(5,)", "(M,) = (4,)", "(ceil(K/128), M) = (1, 4)"]),
    (sl(meta(4, 64, dtype=E4M3), meta(8, 64, dtype=E4M3), None, f32(4)), ValueError, ["'scale_w'", "(4,)", "(N,) = (8,)"]),
    (sl(meta(4, 64, dtype=E4M3), meta(8, 64, dtype=E4M3), meta(4, dtype=torch.float16)), ValueError,
     ["'scale_x'", "torch.float16", "torch.float32"]),
    (sl(meta(4, 64, dtype=I8), meta(8, 64, dtype=I8), f32(1, 4)), ValueError, ["'scale_x'", "block", "FP8"]),
    (sl(meta(4, 64, dtype=I8), meta(8, 64, dtype=I8), None, f32(1, 1), scale_w_mode="block"), ValueError,
     ["'scale_w_mode'", "'block'", "FP8"]),
    (sl(meta(4, 64, dtype=I8), meta(8, 64, dtype=I8), f32(4, 1), f32(8)), None, []),  # INT8 channel scales
    (sl(meta(4, 64, dtype=I8), meta(8, 64, dtype=I8), fp8_accum="fast"), ValueError, ["'fp8_accum'", "'fast'", "exact"]),
    (sl(meta(4, 64, dtype=E4M3), meta(8, 64, dtype=E4M3), fp8_accum="slow"), ValueError, ["'fp8_accum'", "'slow'"]),
    (sl(meta(4, 64, dtype=E4M3), meta(8, 64, dtype=E4M3), f32(1, 4), fp8_accum="fast"), ValueError,
     ["'fp8_accum'", "'scale_x'", "promoted"]),
    (sl(meta(4, 64, dtype=E4M3), meta(8, 64, dtype=E4M3), math="dp4a"), ValueError, ["'math'", "'dp4a'", "int8"]),
    (sl(meta(4, 64, dtype=E4M3), meta(8, 64, dtype=E4M3), math="simt"), ValueError, ["'math'", "'simt'"]),
    # (N, 1) is both a channel scale and, with ceil(K/128) = N and N <= 128, a block scale
    (sl(meta(4, 1024, dtype=E4M3), meta(8, 1024, dtype=E4M3), None, f32(8, 1)), ValueError,
     ["'scale_w'", "(8, 1)", "fits both", "scale_w_mode='channel'"]),
    (sl(meta(4, 1024, dtype=E4M3), meta(8, 1024, dtype=E4M3), None, f32(8, 1), scale_w_mode="channel"), None, []),
    (sl(meta(4, 1024, dtype=E4M3), meta(8, 1024, dtype=E4M3), None, f32(8, 1), scale_w_mode="block"), None, []),
    (sl(meta(4, 64, dtype=E4M3), meta(8, 64, dtype=E4M3), f32(4), scale_x_mode="tensor"), ValueError,
     ["'scale_x'", "(4,)", "one element"]),
    (sl(meta(4, 64, dtype=E4M3), meta(8, 64, dtype=E4M3), f32(4), scale_x_mode="row"), ValueError,
     ["'scale_x_mode'", "'row'", "'channel'"]),
    (sl(meta(4, 64, dtype=E4M3), meta(8, 64, dtype=E4M3), None, None, scale_x_mode="channel"), ValueError,
     ["'scale_x'", "None", "scale_x_mode = 'channel'"]),
    (sl(meta(4, 64, dtype=E4M3), meta(8, 64, dtype=E4M3), bias=meta(7)), ValueError, ["scaled_linear", "'bias'", "(7,)"]),
    (sl(meta(4, 64, dtype=E4M3), meta(8, 64, dtype=E4M3), residual=meta(4, 8, dtype=torch.float16)), ValueError,
     ["'residual'", "torch.float16", "torch.bfloat16"]),
    (sl(meta(4, 64, dtype=E4M3), meta(8, 64, dtype=E4M3), activation="gelu"), ValueError, ["scaled_linear", "'activation'"]),
    (sl(meta(4, 64, dtype=E4M3), meta(8, 64, dtype=E4M3), alpha=math.inf), ValueError, ["'alpha'", "inf"]),
    (sl(meta(4, 64, dtype=E4M3), "w"), TypeError, ["'weight'", "torch.Tensor"]),
    (sl(meta(4, 64, dtype=E4M3), meta(8, 64, dtype=E4M3), "s"), TypeError, ["'scale_x'", "str"]),
    (sl(meta(4, 64, dtype=E4M3), meta(8, 64, dtype=E4M3), bias=meta(8, requires_grad=True)), ValueError,
     ["'bias'", "requires grad", "inference-only"]),
    # the 8-bit layout rules (checked before the device: CPU tensors reach them)
    (sl(q8(4, 40), q8(8, 40)), ValueError, ["'x'", "row stride of 40", "multiple of 16"]),
    (sl(q8(4, 48)[:, :40], q8(8, 48)[:, :40]), ValueError, ["'x'", "on cpu", "CUDA"]),  # K = 40 in padded rows: allowed
    (sl(q8(4, 80)[:, :40], q8(8, 40)), ValueError, ["'weight'", "row stride of 40", "multiple of 16"]),
    (sl(q8(64, 4).t(), q8(8, 64)), ValueError, ["'x'", "strides (1, 4)", "K-major", "x.contiguous()"]),
    (sl(q8(4, 64), q8(64, 8).t()), ValueError, ["'weight'", "K-major"]),
    (sl(q8(4, 80)[:, 1:65], q8(8, 64)), ValueError, ["'x'", "not 16-byte aligned"]),
    (sl(q8(4, 80)[:, :64], q8(8, 64)), ValueError, ["'x'", "on cpu", "CUDA"]),  # row stride 80: allowed
    (sl(q8(4, 64), q8(8, 64)), ValueError, ["'x'", "on cpu", "CUDA"]),
    (lambda: ops.quantize(meta(4, 64, dtype=torch.float64), E4M3), ValueError, ["quantize", "'x'", "torch.float64"]),
    (lambda: ops.quantize(meta(4, 64), torch.float16), ValueError, ["quantize", "'dtype'", "torch.float16"]),
    (lambda: ops.quantize(meta(4, 64), E4M3, "block"), ValueError, ["'mode'", "'block'", "block_1x128"]),
    (lambda: ops.quantize(meta(4, 64), E4M3, "tensor_given"), ValueError, ["'scale'", "None", "tensor_given"]),
    (lambda: ops.quantize(meta(4, 64), E4M3, "tensor_given", scale=f32(2)), ValueError, ["'scale'", "(2,)", "one element"]),
    (lambda: ops.quantize(meta(4, 64), E4M3, "tensor_given", scale=meta(1)), ValueError, ["'scale'", "torch.bfloat16"]),
    (lambda: ops.quantize(meta(4, 64), E4M3, "row", scale=f32(1)), ValueError, ["'scale'", "'row'", "tensor_given"]),
    (lambda: ops.quantize(meta(()), E4M3), ValueError, ["'x'", "0-d"]),
    (lambda: ops.quantize(meta(4, 64, requires_grad=True), E4M3), ValueError, ["'x'", "requires grad"]),
    (lambda: ops.quantize(torch.zeros(4, 64), E4M3), ValueError, ["quantize", "on cpu", "CUDA"]),
])
def test_scaled_ops_bad_arguments_name_the_argument(call, exc, words):
    if exc is None:
        call()  # accepted
        return
    raises_naming(call, exc, words)


def test_scaled_ops_without_grad_mode_accept_tensors_that_require_grad():
    with torch.no_grad():
        y = ops.scaled_linear(meta(4, 64, dtype=E4M3), meta(8, 64, dtype=E4M3), None, None, meta(8, requires_grad=True))
        q, s = ops.quantize(meta(4, 64, requires_grad=True), E4M3, "row")
    assert tuple(y.shape) == (4, 8) and tuple(s.shape) == (4, 1)


def test_cuda_module_rejects_bad_8bit_codes_before_touching_the_gpu():
    if ops._cuda is None:
        pytest.skip("this build has no tessera._cuda (host-only)")
    inf = float("inf")
    good = [4, 4, 64, 256, 3, 0, 64, 512, 1, 64, 1024, 0, 0, 4, 1.0, 0.0, 0, 0, 0, 0, 0, 2, 0, 0, 0.01, -inf, inf, 0, 0,
            0, 0, 0, None]
    for index, value, words in ((4, 6, r"a: dtype code 6 \(s32\) is not supported"),
                                (11, 3, r"d: dtype code 3 \(e4m3\) is not supported"),
                                (21, 5, r"bias: dtype code 5 \(s8\) is not supported")):
        bad = list(good)
        bad[index] = value
        with pytest.raises(ValueError, match=words):
            ops._cuda.gemm(*bad)
    for kw, words in (({"b_type": 6}, r"b: dtype code 6 \(s32\)"), ({"scale_a_mode": 3}, "scale_a_mode: code 3"),
                      ({"scale_b_mode": -1}, "scale_b_mode: code -1"), ({"fp8_accum": 2}, "fp8_accum: code 2"),
                      ({"math": 5}, "math: code 5")):
        with pytest.raises(ValueError, match=words):
            ops._cuda.gemm(*good, **kw)
    q_good = [256, 0, 4, 64, 64, 512, 3, 64, 2, 1024, 0, 4, 0, 0, None]
    for index, value, words in ((1, 3, r"x: dtype code 3 \(e4m3\) is not supported"),
                                (6, 0, r"q: dtype code 0 \(bf16\) is not supported"), (8, 5, "mode: code 5")):
        bad = list(q_good)
        bad[index] = value
        with pytest.raises(ValueError, match=words):
            ops._cuda.quantize(*bad)
