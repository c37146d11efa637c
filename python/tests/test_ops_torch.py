"""tessera.ops and tessera.nn where PyTorch is installed, without a GPU: the operators' registration,
fake kernels (meta tensors, FakeTensorMode), torch.compile tracing, opcheck on meta tensors, argument
errors, the strides -> (order, ld) mapping, the backward formulas (against autograd in float64 on
the CPU), activation recognition and the model patch's structure.  The kernels themselves are
tested by test_ops_gpu.py; the FP8 / INT8 operators by test_ops_torch_8bit.py."""
import math

import pytest

torch = pytest.importorskip("torch")
from tessera import nn as tnn  # noqa: E402
from tessera import ops  # noqa: E402
from ops_torch_common import INF, META, meta, raises_naming  # noqa: E402



def op_args(x, w, bias=None, activation="none", residual=None, alpha=1.0, beta=0.0, c=None, out_dtype=None,
            slope=0.01, lo=-INF, hi=INF):
    return (x, w, bias, activation, slope, lo, hi, residual, alpha, beta, c, out_dtype)


# ------------------------------------------------------------------------------------------ registry
def test_operators_are_registered():
    for name in ("linear", "rms_norm", "l2_norm"):
        assert hasattr(torch.ops.tessera, name), name
    schema = str(torch.ops.tessera.linear.default._schema)
    assert "str activation" in schema and "ScalarType? out_dtype" in schema, schema


def test_activation_menu_matches_the_kernels():
    if ops._cuda is None:
        pytest.skip("this build has no tessera._cuda (host-only): nothing to compare with")
    assert tuple(ops._cuda.activations()) == ops.ACTIVATIONS


def test_cuda_module_rejects_bad_codes_before_touching_the_gpu():
    if ops._cuda is None:
        pytest.skip("this build has no tessera._cuda (host-only)")
    inf = float("inf")
    good = [4, 4, 4, 256, 0, 0, 4, 512, 1, 4, 1024, 0, 0, 4, 1.0, 0.0, 0, 0, 0, 0, 0, 2, 0, 0, 0.01, -inf, inf, 0, 0, 0,
            0, 0, None]
    for index, value, words in ((4, 7, "dtype code 7"), (4, 6, r"dtype code 6 \(s32\) is not supported"),
                                (11, 3, r"d: dtype code 3 \(e4m3\) is not supported"),
                                (5, 2, "order code 2"), (20, 9, "bias_mode"), (23, 11, "activation")):
        bad = list(good)
        bad[index] = value
        with pytest.raises(ValueError, match=words):
            ops._cuda.gemm(*bad)
    with pytest.raises(ValueError, match="kind"):
        ops._cuda.row_norm(5, 0, 256, 4, 0, 512, 4, 1, 4, 1e-6, 0, 0, None)
    with pytest.raises(ValueError, match=r"dtype code 5 \(s8\) is not supported"):
        ops._cuda.row_norm(0, 5, 256, 4, 0, 512, 4, 1, 4, 1e-6, 0, 0, None)


# ------------------------------------------------------------------------------------------ fake kernels
@pytest.mark.parametrize("x_shape", [(5, 64), (2, 3, 64), (64,), (0, 64)])
@pytest.mark.parametrize("out_dtype", [None, torch.float32, torch.float16])
def test_linear_fake_shapes_and_dtypes(x_shape, out_dtype):
    x, w = meta(*x_shape), meta(48, 64)
    y = ops.linear(x, w, out_dtype=out_dtype)
    assert y.device.type == META
    assert tuple(y.shape) == (*x_shape[:-1], 48)
    assert y.dtype == (out_dtype or torch.bfloat16)
    assert y.is_contiguous()


def test_fake_kernels_under_fake_tensor_mode():
    from torch._subclasses.fake_tensor import FakeTensorMode

    with FakeTensorMode():
        x = torch.empty(7, 3, 32, device="cuda", dtype=torch.float16)
        w = torch.empty(16, 32, device="cuda", dtype=torch.float16)
        b = torch.empty(16, device="cuda", dtype=torch.float32)
        y = ops.linear(x, w, b, activation="silu", out_dtype=torch.bfloat16)
        assert tuple(y.shape) == (7, 3, 16) and y.dtype == torch.bfloat16 and y.device.type == "cuda"
        n = ops.rms_norm(x, torch.empty(32, device="cuda", dtype=torch.float16))
        assert tuple(n.shape) == (7, 3, 32) and n.dtype == torch.float16
        assert tuple(ops.l2_norm(x).shape) == (7, 3, 32)


@pytest.mark.parametrize("dynamic", [False, True])
def test_compile_fullgraph_traces_without_graph_breaks(dynamic):
    import torch._dynamo

    torch._dynamo.reset()

    def f(x, w, b, r, g):
        h = ops.linear(x, w, b, activation="gelu_tanh", residual=r)
        h = ops.rms_norm(h, g, eps=1e-5)
        return ops.l2_norm(h) * 2

    x, w, b, r, g = meta(4, 6, 64), meta(32, 64), meta(32), meta(4, 6, 32), meta(32)
    counts = torch._dynamo.utils.counters
    counts.clear()
    cf = torch.compile(f, fullgraph=True, dynamic=dynamic, backend="aot_eager")
    y = cf(x, w, b, r, g)
    assert tuple(y.shape) == (4, 6, 32)
    assert not counts["graph_break"], dict(counts["graph_break"])
    from torch._dynamo.testing import CompileCounterWithBackend

    torch._dynamo.reset()
    cnt = CompileCounterWithBackend("aot_eager")
    torch.compile(f, fullgraph=True, dynamic=dynamic, backend=cnt)(x, w, b, r, g)
    # one graph holds all the work (dynamic=True may add an empty one)
    graphs = [gm for gm in cnt.graphs if any(n.op == "call_function" for n in gm.graph.nodes)]
    assert len(graphs) == 1, [gm.code for gm in cnt.graphs]
    targets = {str(n.target) for n in graphs[0].graph.nodes if n.op == "call_function"}
    assert {"tessera.linear.default", "tessera.rms_norm.default", "tessera.l2_norm.default"} <= targets, targets


def test_opcheck_on_meta_tensors():
    x = meta(6, 64, requires_grad=True)
    w = meta(32, 64, requires_grad=True)
    b = meta(32, requires_grad=True)
    r = meta(6, 32, requires_grad=True)
    cases = [
        (torch.ops.tessera.linear.default, op_args(x, w, b, "gelu_tanh", residual=r)),
        (torch.ops.tessera.linear.default, op_args(x, w, None, "none", out_dtype=torch.float32)),
        (torch.ops.tessera.rms_norm.default, (x, meta(64, requires_grad=True), 1e-6)),
        (torch.ops.tessera.l2_norm.default, (x, 1e-12)),
    ]
    for op, args in cases:
        result = torch.library.opcheck(op, args)
        assert all(v == "SUCCESS" for v in result.values()), (op, result)


# ------------------------------------------------------------------------------------------ errors
@pytest.mark.parametrize("call, exc, words", [
    (lambda: ops.linear(meta(4, 64), meta(32, 64, dtype=torch.float16)), ValueError, ["'weight'", "torch.float16", "x's dtype"]),
    (lambda: ops.linear(meta(4, 64), meta(32, 60)), ValueError, ["'weight'", "(32, 60)", "K = x.shape[-1] = 64"]),
    (lambda: ops.linear(meta(4, 64), meta(2, 32, 64)), ValueError, ["'weight'", "(N, K)"]),
    (lambda: ops.linear(meta(4, 64, dtype=torch.float64), meta(32, 64, dtype=torch.float64)), ValueError, ["'x'", "torch.float64"]),
    (lambda: ops.linear(meta(4, 0), meta(32, 0)), ValueError, ["K = x.shape[-1] = 0"]),
    (lambda: ops.linear(meta(4, 64), meta(32, 64), activation="gelu"), ValueError, ["'activation'", "'gelu'", "gelu_tanh"]),
    (lambda: ops.linear(meta(4, 64), meta(32, 64), meta(31)), ValueError, ["'bias'", "(31,)", "(32,)"]),
    (lambda: ops.linear(meta(4, 64), meta(32, 64), meta(32, dtype=torch.float16)), ValueError, ["'bias'", "torch.float16"]),
    (lambda: ops.linear(meta(4, 64), meta(32, 64), residual=meta(4, 31)), ValueError, ["'residual'", "(4, 32)"]),
    (lambda: ops.linear(meta(4, 64), meta(32, 64), residual=meta(4, 32, dtype=torch.float32)), ValueError, ["'residual'", "dtype"]),
    (lambda: ops.linear(meta(4, 64), meta(32, 64), beta=0.5), ValueError, ["'c'", "beta = 0.5"]),
    (lambda: ops.linear(meta(4, 64), meta(32, 64), alpha=math.nan), ValueError, ["'alpha'", "nan"]),
    (lambda: ops.linear(meta(4, 64), meta(32, 64), activation="clamp", clamp_min=2, clamp_max=1), ValueError, ["'clamp_min'", "'clamp_max'"]),
    (lambda: ops.linear(meta(4, 64), meta(32, 64), activation="leaky_relu", negative_slope=INF), ValueError, ["'negative_slope'"]),
    (lambda: ops.linear(meta(4, 64), meta(32, 64), out_dtype=torch.int8), ValueError, ["'out_dtype'", "torch.int8"]),
    (lambda: ops.linear(meta(4, 64), "w"), TypeError, ["'weight'", "torch.Tensor", "str"]),
    (lambda: ops.linear([1.0], meta(32, 64)), TypeError, ["'x'", "list"]),
    (lambda: ops.linear(torch.zeros(4, 64, dtype=torch.bfloat16), torch.zeros(32, 64, dtype=torch.bfloat16)), ValueError, ["'x'", "cpu", "CUDA"]),
    (lambda: ops.rms_norm(meta(4, 64), meta(63)), ValueError, ["rms_norm", "'weight'", "(63,)", "(64,)"]),
    (lambda: ops.rms_norm(meta(4, 64), None), TypeError, ["rms_norm", "'weight'", "NoneType"]),
    (lambda: ops.rms_norm(meta(4, 64), meta(64, dtype=torch.float32)), ValueError, ["'weight'", "dtype"]),
    (lambda: ops.l2_norm(meta(4, 64), eps=-1.0), ValueError, ["l2_norm", "'eps'", "-1.0"]),
    (lambda: ops.l2_norm(torch.zeros(4, 64)), ValueError, ["l2_norm", "cpu", "CUDA"]),
])
def test_bad_arguments_name_the_argument(call, exc, words):
    raises_naming(call, exc, words)


# ------------------------------------------------------------------------------------------ strides
def element_offset(t):
    return (t.data_ptr() - t.untyped_storage().data_ptr()) // t.element_size()


def strided_views():
    base = torch.arange(4000, dtype=torch.float32)
    yield "contiguous", base[:60].view(5, 12)
    yield "row-padded", base[:100].view(5, 20)[:, 3:15]
    yield "column-major", base[:60].view(12, 5).t()
    yield "column-major padded", base[:160].view(16, 10)[2:14, 1:6].t()
    yield "3-d collapsible", base[:240].view(4, 5, 12)[:, :, :].reshape(4, 5, 12)
    yield "3-d padded rows", base[:400].view(4, 5, 20)[:, :, 4:16]
    yield "3-d not collapsible", base[:480].view(4, 6, 20)[:, :5, 4:16]
    yield "one row, strided", base[:60:5].view(1, 12)
    yield "1-d", base[3:15]
    yield "1-d strided", base[:36:3]
    yield "broadcast rows", base[:12].expand(5, 12)
    yield "single column", base[:50].view(5, 10)[:, 2:3]


@pytest.mark.parametrize("name, t", list(strided_views()))
def test_matrix_view_addresses_every_element(name, t):
    cols = t.shape[-1]
    held, order, ld = ops._matrix(t, cols)
    rows = held.numel() // cols
    assert ld >= 1
    expected = t.reshape(rows, cols)
    storage = torch.tensor([], dtype=held.dtype).set_(held.untyped_storage())
    start = element_offset(held)
    for i in range(rows):
        for j in range(cols):
            off = start + (i * ld + j if order == ops._ROW else j * ld + i)
            assert storage[off] == expected[i, j], (name, i, j)
    if order == ops._ROW:
        assert rows == 1 or ld >= cols
    else:
        assert cols == 1 or ld >= rows
    copied = held.untyped_storage().data_ptr() != t.untyped_storage().data_ptr()
    assert copied == (name in ("3-d not collapsible", "broadcast rows")), name


# ------------------------------------------------------------------------------------------ backward formulas
def reference_act(name, z, slope=0.01, lo=-INF, hi=INF):
    return tnn._reference(name, z, negative_slope=slope, clamp_min=lo, clamp_max=hi)


@pytest.mark.parametrize("name, kw", [("relu", {}), ("gelu_tanh", {}), ("gelu_erf", {}), ("silu", {}),
                                      ("leaky_relu", {"slope": 0.2}), ("clamp", {"lo": -1.5, "hi": 2.0})])
def test_activation_derivative_matches_autograd(name, kw):
    z = torch.linspace(-6, 6, 2001, dtype=torch.float64)
    z = z[(z - 0).abs() > 1e-9]  # kinks aside
    if name == "clamp":
        z = z[((z - kw["lo"]).abs() > 1e-9) & ((z - kw["hi"]).abs() > 1e-9)]
    zz = z.clone().requires_grad_()
    (g,) = torch.autograd.grad(reference_act(name, zz, **kw).sum(), zz)
    d = ops.activation_derivative(name, z, kw.get("slope", 0.01), kw.get("lo", -INF), kw.get("hi", INF))
    torch.testing.assert_close(d, g, rtol=1e-12, atol=1e-12)


class Ctx:
    def __init__(self, saved, eps, needs):
        self.saved_tensors = saved
        self.eps = eps
        self.needs_input_grad = needs


def test_rms_norm_backward_matches_autograd():
    torch.manual_seed(0)
    x = torch.randn(6, 5, 33, dtype=torch.float64)
    w = torch.randn(33, dtype=torch.float64)
    g = torch.randn(6, 5, 33, dtype=torch.float64)
    eps = 1e-3
    xr, wr = x.clone().requires_grad_(), w.clone().requires_grad_()
    y = xr * torch.rsqrt(xr.square().mean(-1, keepdim=True) + eps) * wr
    gx, gw = torch.autograd.grad(y, (xr, wr), g)
    dx, dw, _ = ops._rms_norm_backward(Ctx((x, w), eps, (True, True, False)), g)
    # the backward computes in fp32
    torch.testing.assert_close(dx.double(), gx, rtol=1e-5, atol=1e-5)
    torch.testing.assert_close(dw.double(), gw, rtol=1e-5, atol=1e-5)


def test_l2_norm_backward_matches_autograd():
    torch.manual_seed(1)
    x = torch.randn(7, 40, dtype=torch.float64)
    g = torch.randn(7, 40, dtype=torch.float64)
    eps = 1e-4
    xr = x.clone().requires_grad_()
    y = xr * torch.rsqrt(xr.square().sum(-1, keepdim=True) + eps)
    (gx,) = torch.autograd.grad(y, xr, g)
    dx, _ = ops._l2_norm_backward(Ctx((x,), eps, (True, False)), g)
    torch.testing.assert_close(dx.double(), gx, rtol=1e-5, atol=1e-5)


# ------------------------------------------------------------------------------------------ nn
def test_linear_module_matches_nn_linear_and_shares_parameters():
    torch.manual_seed(0)
    ref = torch.nn.Linear(16, 8)
    m = tnn.Linear.from_linear(ref, activation="relu")
    assert m.weight is ref.weight and m.bias is ref.bias
    assert set(m.state_dict()) == set(ref.state_dict())
    assert "activation='relu'" in repr(m)
    fresh = tnn.Linear(16, 8, bias=False, activation="clamp", clamp_min=-1, clamp_max=1, device=META)
    assert fresh.bias is None and fresh.weight.device.type == META and fresh.activation == "clamp"
    y = fresh(meta(3, 16, dtype=torch.float32))
    assert tuple(y.shape) == (3, 8)
    with pytest.raises(ValueError, match="'activation'"):
        tnn.Linear(4, 4, activation="tanh")
    with pytest.raises(TypeError, match="'linear'"):
        tnn.Linear.from_linear(torch.nn.Conv1d(1, 1, 1))


@pytest.mark.parametrize("module, expected", [
    (torch.nn.ReLU(), ("relu", {})),
    (torch.nn.GELU(), ("gelu_erf", {})),
    (torch.nn.GELU(approximate="tanh"), ("gelu_tanh", {})),
    (torch.nn.SiLU(), ("silu", {})),
    (torch.nn.LeakyReLU(0.25), ("leaky_relu", {"negative_slope": 0.25})),
    (torch.nn.ReLU6(), ("clamp", {"clamp_min": 0.0, "clamp_max": 6.0})),
    (torch.nn.Hardtanh(-2.0, 3.0), ("clamp", {"clamp_min": -2.0, "clamp_max": 3.0})),
    (torch.nn.Tanh(), None),
    (torch.nn.Sigmoid(), None),
    (torch.nn.Identity(), None),
    (torch.nn.Dropout(0.5), None),
    (torch.nn.Softmax(-1), None),
    (torch.nn.PReLU(), None),
])
def test_identify_activation(module, expected):
    assert tnn.identify_activation(module) == expected


class TinyMLP(torch.nn.Module):
    def __init__(self, act):
        super().__init__()
        self.fc = torch.nn.Linear(8, 16)
        self.act = act
        self.out = torch.nn.Linear(16, 8)

    def forward(self, x):
        return self.out(self.act(self.fc(x)))


class TwoUses(TinyMLP):
    def forward(self, x):
        h = self.fc(x)
        return self.out(self.act(h)) + h[..., :8]  # fc's output also feeds the sum: not fusable


class Branchy(TinyMLP):
    def forward(self, x):
        if x.sum() > 0:  # data-dependent control flow: untraceable
            return self.out(self.act(self.fc(x)))
        return x


def test_patch_structure_on_small_modules():
    m = TinyMLP(torch.nn.GELU(approximate="tanh"))
    report = tnn.patch(m)
    assert report.replaced == ["fc", "out"] and report.fused == {"fc": "gelu_tanh"}
    assert isinstance(m.fc, tnn.Linear) and m.fc.activation == "gelu_tanh" and isinstance(m.act, torch.nn.Identity)
    m = TwoUses(torch.nn.SiLU())
    report = tnn.patch(m)
    assert report.fused == {} and isinstance(m.act, torch.nn.SiLU)
    m = Branchy(torch.nn.ReLU())
    report = tnn.patch(m)
    assert report.fused == {} and "" in report.untraced and isinstance(m.act, torch.nn.ReLU)
    m = TinyMLP(torch.nn.Tanh())
    assert tnn.patch(m).fused == {}
    m = TinyMLP(torch.nn.ReLU())
    report = tnn.patch(m, include=lambda name, mod: name == "out")
    assert report.replaced == ["out"] and report.fused == {} and type(m.fc) is torch.nn.Linear
    m = TinyMLP(torch.nn.ReLU())
    assert tnn.patch(m, fuse_activations=False).fused == {} and isinstance(m.act, torch.nn.ReLU)


def small_models():
    transformers = pytest.importorskip("transformers")
    gpt2 = transformers.GPT2LMHeadModel(transformers.GPT2Config(
        n_layer=2, n_embd=64, n_head=4, vocab_size=128, n_positions=64, bos_token_id=0, eos_token_id=0))
    llama = transformers.LlamaForCausalLM(transformers.LlamaConfig(
        num_hidden_layers=2, hidden_size=64, intermediate_size=160, num_attention_heads=4, num_key_value_heads=2,
        vocab_size=128, bos_token_id=0, eos_token_id=0, pad_token_id=0))
    return gpt2, llama


def test_patch_transformers_models_structure():
    gpt2, llama = small_models()
    keys = {k: v.shape for k, v in gpt2.state_dict().items()}
    report = tnn.patch(gpt2)
    assert {k: v.shape for k, v in gpt2.state_dict().items()} == keys  # checkpoints keep loading
    assert report.fused == {f"transformer.h.{i}.mlp.c_fc": "gelu_tanh" for i in range(2)}
    assert all(f"transformer.h.{i}.{n}" in report.replaced for i in range(2)
               for n in ("attn.c_attn", "attn.c_proj", "mlp.c_fc", "mlp.c_proj"))
    assert gpt2.lm_head.weight is gpt2.transformer.wte.weight  # tied weights stay tied
    assert isinstance(gpt2.transformer.h[0].mlp.c_fc, tnn.TransposedLinear)
    report = tnn.patch(llama)
    assert report.fused == {f"model.layers.{i}.mlp.gate_proj": "silu" for i in range(2)}
    mlp = llama.model.layers[0].mlp
    assert isinstance(mlp.act_fn, torch.nn.Identity) and mlp.up_proj.activation == "none"
    assert not report.untraced


# ------------------------------------------------------------------------------------------ marshalling
# What tessera.ops hands to tessera._cuda, checked without a GPU: the argument tuples built for CPU
# tensors are evaluated by a float64 model of the host API's documented semantics
# (include/tessera/host/gemm.hpp, fused.hpp), reading every matrix through its pointer, dtype code,
# order and leading dimension, and compared with the op's definition on the original tensors.
CODE_DTYPE = {0: torch.bfloat16, 1: torch.float16, 2: torch.float32}


class Memory:
    """Resolves raw pointers to elements of the given tensors' storages."""

    def __init__(self, tensors):
        self.storages = [t.untyped_storage() for t in tensors if isinstance(t, torch.Tensor)]

    def matrix(self, ptr, code, order, ld, rows, cols):
        dtype = CODE_DTYPE[code]
        for st in self.storages:
            base = st.data_ptr()
            if base <= ptr < base + st.nbytes():
                size = torch.empty((), dtype=dtype).element_size()
                assert (ptr - base) % size == 0, "pointer not aligned to its element"
                flat = torch.empty(0, dtype=dtype).set_(st)
                strides = (ld, 1) if order == ops._ROW else (1, ld)
                last = (rows - 1) * strides[0] + (cols - 1) * strides[1] + (ptr - base) // size
                assert last < flat.numel(), "matrix reaches past its storage"
                return torch.as_strided(flat, (rows, cols), strides, (ptr - base) // size)
        raise AssertionError(f"pointer {ptr:#x} is in none of the tensors")


def model_gemm(args, mem):
    (m, n, k, a, in_t, a_o, lda, b, b_o, ldb, d, d_t, d_o, ldd, alpha, beta, c, c_o, ldc, bias, bias_mode, bias_t,
     bias_size, act, slope, lo, hi, r, r_o, ldr) = args
    A = mem.matrix(a, in_t, a_o, lda, m, k).double()
    B = mem.matrix(b, in_t, b_o, ldb, k, n).double()
    z = alpha * (A @ B)
    if beta != 0:
        z = z + beta * mem.matrix(c, d_t, c_o, ldc, m, n).double()
    if bias_mode:
        assert bias_size == {1: n, 2: m, 3: 1}[bias_mode]
        v = mem.matrix(bias, bias_t, ops._ROW, bias_size, 1, bias_size).double()[0]
        z = z + (v[None, :] if bias_mode == 1 else v[:, None] if bias_mode == 2 else v[0])
    y = tnn._reference(ops.ACTIVATIONS[act], z, negative_slope=slope, clamp_min=lo, clamp_max=hi)
    if r:
        y = y + mem.matrix(r, d_t, r_o, ldr, m, n).double()
    D = mem.matrix(d, d_t, d_o, ldd, m, n)
    return y, D


def cpu(*shape, dtype=torch.bfloat16, seed=0):
    g = torch.Generator().manual_seed(seed + sum(shape))
    return torch.randn(*shape, generator=g).to(dtype)


def layouts(t, how):
    """t's values in another layout: 'c' contiguous, 'pad' padded rows, 't' transposed storage (2-d),
    'gap' 3-d with gaps between batches, 'skip' every other column."""
    if how == "c":
        return t
    if how == "pad":
        big = torch.zeros(*t.shape[:-1], t.shape[-1] + 5, dtype=t.dtype)
        big[..., 2:2 + t.shape[-1]] = t
        return big[..., 2:2 + t.shape[-1]]
    if how == "t":
        return t.t().contiguous().t()
    if how == "gap":
        big = torch.zeros(t.shape[0], t.shape[1] + 2, t.shape[2], dtype=t.dtype)
        big[:, :t.shape[1]] = t
        return big[:, :t.shape[1]]
    if how == "skip":
        big = torch.zeros(*t.shape[:-1], 2 * t.shape[-1], dtype=t.dtype)
        big[..., ::2] = t
        return big[..., ::2]
    raise ValueError(how)


LINEAR_CASES = [
    # x shape, x layout, weight layout, bias, activation kwargs, residual layout, (alpha, beta, c layout), out dtype
    ((5, 12), "c", "c", None, {}, None, (1.0, 0.0, None), None),
    ((5, 12), "pad", "t", "col", {"activation": "gelu_tanh"}, "pad", (1.0, 0.0, None), None),
    ((5, 12), "t", "pad", "col32", {"activation": "relu"}, "t", (0.5, 2.0, "t"), torch.float32),
    ((2, 3, 12), "c", "skip", "row", {"activation": "leaky_relu", "negative_slope": 0.3}, "c", (1.0, -1.0, "pad"), None),
    ((2, 3, 12), "gap", "c", "scalar0", {"activation": "clamp", "clamp_min": -0.5, "clamp_max": 0.25}, None,
     (1.0, 0.0, None), torch.float16),
    ((2, 3, 12), "pad", "t", "scalar1", {"activation": "silu"}, "pad", (2.0, 0.0, None), None),
    ((1, 12), "skip", "c", "col", {"activation": "gelu_erf"}, None, (1.0, 0.0, None), None),
    ((12,), "c", "t", "col", {}, None, (1.0, 0.0, None), None),
    ((7, 1), "c", "c", None, {}, None, (1.0, 0.0, None), None),
]


@pytest.mark.parametrize("case", LINEAR_CASES, ids=[str(i) for i in range(len(LINEAR_CASES))])
def test_linear_marshalling_against_the_host_api_model(case):
    x_shape, x_how, w_how, bias_kind, act, r_how, (alpha, beta, c_how), out_dtype = case
    K, N = x_shape[-1], 9
    dt = torch.bfloat16
    x0 = cpu(*x_shape, dtype=dt, seed=1)
    w0 = cpu(N, K, dtype=dt, seed=2)
    x, w = layouts(x0, x_how), layouts(w0, w_how)
    od = out_dtype or dt
    lead = x_shape[:-1]
    bias = {None: None, "col": cpu(N, dtype=od, seed=3), "col32": cpu(N, dtype=torch.float32, seed=3),
            "row": cpu(*lead, 1, dtype=od, seed=4), "scalar0": cpu(1, dtype=od, seed=5).reshape(()),
            "scalar1": cpu(1, dtype=od, seed=5)}[bias_kind]
    residual = None if r_how is None else layouts(cpu(*lead, N, dtype=od, seed=6), r_how)
    c = None if c_how is None else layouts(cpu(*lead, N, dtype=od, seed=7), c_how)
    kw = dict(act)
    activation = kw.pop("activation", "none")
    slope, lo, hi = kw.get("negative_slope", 0.01), kw.get("clamp_min", -INF), kw.get("clamp_max", INF)
    out_shape, odt, mode = ops._check_linear(x, w, bias, activation, slope, lo, hi, residual, alpha, beta, c, out_dtype)
    out = torch.empty(out_shape, dtype=odt)
    args, keep = ops._gemm_args(x, w, bias, mode, activation, slope, lo, hi, residual, alpha, beta, c, out)
    y, D = model_gemm(args, Memory([*keep, out, x, w, bias, residual, c]))
    # D addresses out's elements in out's (row-major) order
    assert D.data_ptr() == out.data_ptr() and D.stride() == (N, 1) and tuple(D.shape) == (out.numel() // N, N)
    # the op's definition on the original values
    z = alpha * (x0.double().reshape(-1, K) @ w0.double().t())
    if c is not None:
        z = z + beta * c.double().reshape(-1, N)
    if bias is not None:
        z = z + (bias.double().reshape(-1, 1) if bias_kind == "row" else bias.double())
    want = tnn._reference(activation, z, negative_slope=slope, clamp_min=lo, clamp_max=hi)
    if residual is not None:
        want = want + residual.double().reshape(-1, N)
    torch.testing.assert_close(y, want, rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("shape, how", [((4, 16), "c"), ((4, 16), "pad"), ((2, 3, 16), "gap"), ((16,), "skip"),
                                        ((3, 16), "t")])
def test_norm_marshalling(shape, how):
    x0 = cpu(*shape, dtype=torch.float32, seed=8)
    x = layouts(x0, how)
    w = layouts(cpu(16, dtype=torch.float32, seed=9), "skip")
    y = torch.empty(shape)
    for kind, weight in ((0, None), (1, w)):
        args, keep = ops._norm_args(kind, x, weight, 1e-5, y)
        k, code, xp, ld_x, wp, yp, ld_y, rows, cols, eps = args
        mem = Memory([*keep, y, x, w])
        X = mem.matrix(xp, code, ops._ROW, ld_x, rows, cols)
        assert torch.equal(X, x0.reshape(rows, cols)) and k == kind and eps == 1e-5
        assert mem.matrix(yp, code, ops._ROW, ld_y, rows, cols).data_ptr() == y.data_ptr() and ld_y == cols
        if kind == 1:
            assert torch.equal(mem.matrix(wp, code, ops._ROW, cols, 1, cols)[0], w)


def test_linear_backward_of_empty_batches_on_meta():
    for x_shape, n in (((0, 16), 8), ((3, 16), 0)):
        x = meta(*x_shape, requires_grad=True)
        w = meta(n, 16, requires_grad=True)
        b = meta(n, requires_grad=True)
        y = ops.linear(x, w, b, activation="silu")
        gx, gw, gb = torch.autograd.grad(y, (x, w, b), torch.empty_like(y))
        assert gx.shape == x.shape and gw.shape == w.shape and gb.shape == b.shape
