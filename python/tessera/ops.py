"""Tessera's GPU kernels as PyTorch operators: a linear layer on the GEMM with its fused epilogue, the
same on FP8 / INT8 operands with their scales, the quantisation that makes such operands, and the fused
row norms.

    y = tessera.ops.linear(x, weight, bias, activation="gelu_tanh")    # act(x @ weight.T + bias)
    qx, sx = tessera.ops.quantize(x, torch.float8_e4m3fn, "row")       # x ~ qx * sx, a scale per row
    y = tessera.ops.scaled_linear(qx, qw, sx, sw, bias)                 # (sx qx) @ (sw qw).T + bias
    y = tessera.ops.rms_norm(x, weight, eps=1e-6)
    y = tessera.ops.l2_norm(x, eps=1e-12)

Each op is a ``torch.library`` custom operator (``torch.ops.tessera.linear``, ``scaled_linear``,
``quantize``, ``rms_norm``, ``l2_norm``) with a fake kernel, so ``torch.compile(fullgraph=True)`` traces it
without a graph break and ``torch.library.opcheck`` checks it; ``linear`` and the norms are differentiable,
``scaled_linear`` and ``quantize`` are inference-only (they refuse inputs that require grad).  The kernels
run on the current CUDA stream, allocate only through PyTorch's caching allocator, and synchronise
nothing, so they can be captured in CUDA graphs.

Eager calls that need none of PyTorch's machinery (no tensor requiring grad with grad mode on, no
tracing, no torch function or dispatch mode, no functorch transform, plain tensors) call the
implementation directly instead of going through the dispatcher: the custom operator's Python
dispatch costs tens of microseconds per call, which would dominate a decode-sized GEMM.  Both paths
run the same implementation, so they compute the same result; docs/PYTHON.md gives the measurements.

Needs PyTorch and, to run the kernels, a CUDA build of the package (``tessera._cuda``): without it
the operators are still registered (fake kernels, tracing) but raise RuntimeError on GPU tensors.

scaled_linear and quantize live in tessera/_ops_8bit.py, which this module imports at its end (they use
the helpers here); they are re-exported here, and ``tessera.ops`` is where to take them from.
"""
import math as _math
from typing import Optional

try:
    import torch
except ImportError as _e:  # pragma: no cover - exercised without torch
    raise ImportError(
        "tessera.ops needs PyTorch: pip install torch (the layout algebra in `tessera` works without it)"
    ) from _e

try:
    from . import _cuda
except ImportError as _e:  # a host-only build, or the CUDA runtime is missing
    _cuda = None
    _CUDA_ERROR = str(_e)
else:
    _CUDA_ERROR = ""

__all__ = ["linear", "scaled_linear", "quantize", "rms_norm", "l2_norm", "ACTIVATIONS", "SCALE_MODES",
           "QUANT_MODES", "available"]

# The GEMM epilogue's activation menu, in the order of its codes (include/tessera/kernel/epilogue/
# types.hpp); python/tests checks it against tessera._cuda.activations().
ACTIVATIONS = ("none", "relu", "gelu_tanh", "gelu_erf", "silu", "leaky_relu", "clamp")
_ACT_CODE = {a: i for i, a in enumerate(ACTIVATIONS)}
# Dtype codes of the host API: bf16 0, f16 1, f32 2.
_DTYPE_CODE = {torch.bfloat16: 0, torch.float16: 1, torch.float32: 2}
# The 8-bit codes: e4m3 3, e5m2 4, s8 5 (GEMM operands and quantize's output; never D, C, bias or residual).
_FP8_CODE = {torch.float8_e4m3fn: 3, torch.float8_e5m2: 4}
_Q_CODE = {**_FP8_CODE, torch.int8: 5}
_OPERAND_CODE = {**_DTYPE_CODE, **_Q_CODE}
# scaled_linear's scale modes, in the order of GemmScale's values (include/tessera/kernel/gemm/types.hpp).
SCALE_MODES = ("tensor", "channel", "block")
# quantize's modes, in the order of QuantScale's values (include/tessera/kernel/fused/quantize.hpp).
QUANT_MODES = ("tensor", "tensor_given", "row", "block_1x128", "block_128x128")
_FP8_ACCUM_CODE = {"promoted": 0, "fast": 1}
_MATH_CODE = {None: 0, "tensor_core": 1, "dp4a": 4}  # GemmMath: automatic, tensor_core, dp4a
_SCALE_BLOCK = 128  # kGemmScaleBlock: the K extent of a block scale (and both extents of W's blocks)
_BIAS_NONE, _BIAS_PER_COLUMN, _BIAS_PER_ROW, _BIAS_SCALAR = 0, 1, 2, 3
_ROW, _COL = 0, 1
_INF = float("inf")


def available():
    """True when the package has its CUDA kernels (tessera._cuda) and PyTorch sees a GPU."""
    return _cuda is not None and torch.cuda.is_available()


# ---------------------------------------------------------------------------------------------------
# Argument checks shared by the implementation and the fake kernels (shapes and dtypes only, so they
# hold for fake and symbolic shapes; devices are checked by the implementation).
# ---------------------------------------------------------------------------------------------------
def _fail(op, msg, exc=ValueError):
    raise exc(f"tessera.ops.{op}: {msg}")


def _need_tensor(op, name, t):
    if not isinstance(t, torch.Tensor):
        _fail(op, f"argument '{name}' must be a torch.Tensor; got {type(t).__name__}", TypeError)


def _need_tensors(op, names, tensors):
    # The first two of linear's are required, the others optional; the norms' are all required.
    for i, (name, t) in enumerate(zip(names, tensors)):
        if t is None and op == "linear" and i >= 2:
            continue
        _need_tensor(op, name, t)


def _check_linear(x, weight, bias, activation, negative_slope, clamp_min, clamp_max, residual, alpha, beta, c,
                  out_dtype):
    """Validates the arguments of linear; returns (out_shape, out_dtype, bias_mode).  (On every eager
    call: each tensor attribute is read once.)"""
    _need_tensor("linear", "x", x)
    _need_tensor("linear", "weight", weight)
    xd, xs, wd, wsh = x.dtype, x.shape, weight.dtype, weight.shape
    if xd not in _DTYPE_CODE:
        _fail("linear", f"argument 'x' has dtype {xd}; expected torch.bfloat16, torch.float16 or torch.float32")
    if wd != xd:
        _fail("linear", f"argument 'weight' has dtype {wd}; expected x's dtype {xd} (the GEMM takes operands of one type)")
    if len(xs) < 1:
        _fail("linear", "argument 'x' is a 0-d tensor; expected shape (..., K)")
    if len(wsh) != 2:
        _fail("linear", f"argument 'weight' has shape {tuple(wsh)}; expected (N, K) (F.linear's convention)")
    K = xs[-1]
    N = wsh[0]
    if wsh[1] != K:
        _fail("linear", f"argument 'weight' has shape {tuple(wsh)}; expected (N, K) with K = x.shape[-1] = {K}")
    if K == 0:
        _fail("linear", "argument 'x' has K = x.shape[-1] = 0; expected K >= 1")
    if out_dtype is None:
        out_dtype = xd
    elif out_dtype not in _DTYPE_CODE:
        _fail("linear", f"argument 'out_dtype' is {out_dtype}; expected None, torch.bfloat16, torch.float16 or torch.float32")
    lead = tuple(xs[:-1])
    out_shape = (*lead, N)
    _check_activation("linear", activation, negative_slope, clamp_min, clamp_max)
    if not (_math.isfinite(alpha) and _math.isfinite(beta)):
        name, value = ("alpha", alpha) if not _math.isfinite(alpha) else ("beta", beta)
        _fail("linear", f"argument '{name}' is {value}; expected a finite value")
    if residual is not None or c is not None:
        for name, t in (("residual", residual), ("c", c)):
            if t is None:
                continue
            _need_tensor("linear", name, t)
            if tuple(t.shape) != out_shape:
                _fail("linear", f"argument '{name}' has shape {tuple(t.shape)}; expected the output's shape {out_shape}")
            if t.dtype != out_dtype:
                _fail("linear", f"argument '{name}' has dtype {t.dtype}; expected the output's dtype {out_dtype}")
    if beta != 0 and c is None:
        _fail("linear", f"argument 'c' is None with beta = {beta}; pass c (shape {out_shape}) or beta = 0")
    return out_shape, out_dtype, _bias_mode("linear", bias, N, lead, out_dtype)


def _check_activation(op, activation, negative_slope, clamp_min, clamp_max):
    if activation not in _ACT_CODE:
        _fail(op, f"argument 'activation' is {activation!r}; expected one of {', '.join(ACTIVATIONS)}")
    if activation == "leaky_relu" and not _math.isfinite(negative_slope):
        _fail(op, f"argument 'negative_slope' is {negative_slope}; expected a finite value")
    if activation == "clamp" and not (clamp_min <= clamp_max):
        _fail(op, f"arguments 'clamp_min' ({clamp_min}) and 'clamp_max' ({clamp_max}) must satisfy "
                  "clamp_min <= clamp_max (no NaN)")


def _bias_mode(op, bias, N, lead, out_dtype):
    """The host API's bias mode of `bias` for an output (*lead, N) of dtype out_dtype (checked)."""
    if bias is None:
        return _BIAS_NONE
    _need_tensor(op, "bias", bias)
    bd = bias.dtype
    if bd != torch.float32 and bd != out_dtype:
        _fail(op, f"argument 'bias' has dtype {bd}; expected torch.float32 or the output's dtype {out_dtype}")
    bshape = tuple(bias.shape)
    if bshape == (N,):
        return _BIAS_PER_COLUMN
    if bshape == (*lead, 1):
        return _BIAS_PER_ROW
    if len(bshape) <= 1 and bias.numel() == 1:
        return _BIAS_SCALAR
    _fail(op, f"argument 'bias' has shape {bshape}; expected ({N},) (one value per output feature), "
              f"{(*lead, 1)} (one per row of x) or a single value")


def _check_norm(op, x, weight, eps):
    _need_tensor(op, "x", x)
    if x.dtype not in _DTYPE_CODE:
        _fail(op, f"argument 'x' has dtype {x.dtype}; expected torch.bfloat16, torch.float16 or torch.float32")
    if x.dim() < 1:
        _fail(op, "argument 'x' is a 0-d tensor; expected shape (..., C) (rows of C elements)")
    if not (_math.isfinite(eps) and eps >= 0):
        _fail(op, f"argument 'eps' is {eps}; expected a finite eps >= 0")
    if weight is not None:
        _need_tensor(op, "weight", weight)
        if tuple(weight.shape) != (x.shape[-1],):
            _fail(op, f"argument 'weight' has shape {tuple(weight.shape)}; expected ({x.shape[-1]},) = (x.shape[-1],)")
        if weight.dtype != x.dtype:
            _fail(op, f"argument 'weight' has dtype {weight.dtype}; expected x's dtype {x.dtype}")


# ---------------------------------------------------------------------------------------------------
# Tensors as the host API's matrices
# ---------------------------------------------------------------------------------------------------
def _matrix(t, cols):
    """(tensor, order, ld) for a tensor (..., cols) seen as a rows x cols matrix without a copy when its
    strides allow (rows collapse into one stride, and one of the two strides is 1); otherwise a
    contiguous copy.  `tensor` is what holds the data (the copy, if one was made)."""
    if t.is_contiguous():
        return t, _ROW, cols
    shape = t.shape
    strides = t.stride()
    nd = len(shape)
    # Collapse the leading dims into one: row stride rs over `rows` rows (size-1 dims do not count).
    rs = None
    rows = 1
    ok = True
    for i in range(nd - 2, -1, -1):
        n = shape[i]
        rows *= n
        if n == 1:
            continue
        if rs is None:
            rs = strides[i]
            inner_extent = n
        elif strides[i] != rs * inner_extent:
            ok = False
            break
        else:
            inner_extent *= n
    cs = strides[-1]
    if ok:
        if rs is None:  # a single row
            rs = cols
        if (cs == 1 or cols == 1) and rows >= 1 and (rows == 1 or rs >= cols):
            return t, _ROW, max(rs, cols) if rows == 1 else rs
        if (rs == 1 or rows == 1) and (cols == 1 or cs >= rows) and cs >= 1:
            return t, _COL, max(cs, rows) if cols == 1 else cs
    t = t.contiguous()
    return t, _ROW, cols


def _no_kernels(op):
    raise RuntimeError(
        f"tessera.ops.{op}: this build of tessera has no CUDA kernels (tessera._cuda: {_CUDA_ERROR}); "
        "reinstall with a CUDA toolkit (nvcc) on the PATH: pip install . (docs/PYTHON.md)")


def _check_device(op, names, tensors, device):
    for name, t in zip(names, tensors):
        if t is not None and t.device != device:
            _fail(op, f"argument '{name}' is on {t.device}; expected x's device {device}")


def _workspace_alloc(device):
    """Scratch memory on `device` for one call, on the current stream: alloc(nbytes) -> (tensor, False)."""
    def alloc(nbytes):
        return torch.empty(nbytes, dtype=torch.uint8, device=device), False
    return alloc


# The GEMM's split-K workspace is kept, one per (device, stream): zero-filled once on its stream, and
# every completed split-K call leaves its counters zero again (the kernels reset them), so a decode-shaped
# call neither allocates nor enqueues a fill.  Calls on one stream are ordered, so they may share it.
# Not while a CUDA graph is being captured (the graph gets memory of its own pool, zero-filled inside the
# graph, so a replay on any stream is independent of eager calls), and not above _KEEP_MAX bytes.
_KEEP_MIN = 1 << 20
_KEEP_MAX = 32 << 20
_is_capturing = torch.cuda.is_current_stream_capturing


class _GemmWorkspaces:
    """alloc(nbytes) -> (tensor, counters zeroed) for tessera._cuda.gemm (or quantize) on one device (see above)."""

    def __init__(self, device):
        self.device = device
        self.index = device.index
        self.kept = {}  # raw stream -> uint8 tensor

    def __call__(self, nbytes):
        if nbytes <= _KEEP_MAX and not _is_capturing():
            stream = _current_raw_stream(self.index)
            t = self.kept.get(stream)
            if t is None or t.numel() < nbytes:
                # On the current stream, before the GEMM that uses it; the smaller one it replaces is
                # released to the caching allocator in stream order.
                t = self.kept[stream] = torch.zeros(max(nbytes, _KEEP_MIN), dtype=torch.uint8, device=self.device)
            return t, True
        return torch.empty(nbytes, dtype=torch.uint8, device=self.device), False


_ALLOCS = {}
_GEMM_ALLOCS = {}
# quantize's workspace (a max and a counter, for the per-tensor modes) is kept the same way: zero-filled once
# per stream, and every call leaves it zeroed.
_QUANT_ALLOCS = {}
# The raw cudaStream_t of a device's current stream, looked up once (a CPU-only PyTorch lacks it; the
# ops reach it only with CUDA tensors).
_current_raw_stream = getattr(torch._C, "_cuda_getCurrentRawStream", None)


def _alloc_for(device):
    a = _ALLOCS.get(device)
    if a is None:
        a = _ALLOCS[device] = _workspace_alloc(device)
    return a


def _gemm_alloc_for(device):
    a = _GEMM_ALLOCS.get(device)
    if a is None:
        a = _GEMM_ALLOCS[device] = _GemmWorkspaces(device)
    return a


def _quant_alloc_for(device):
    a = _QUANT_ALLOCS.get(device)
    if a is None:
        a = _QUANT_ALLOCS[device] = _GemmWorkspaces(device)
    return a


# ---------------------------------------------------------------------------------------------------
# linear
# ---------------------------------------------------------------------------------------------------
def _gemm_args(x, weight, bias, bias_mode, activation, negative_slope, clamp_min, clamp_max, residual, alpha, beta,
               c, out):
    """The arguments of tessera._cuda.gemm (before device, stream, alloc) computing `out` (contiguous,
    (..., N)), and the tensors that hold their data (copies where strides did not allow a view)."""
    K = x.shape[-1]
    N = weight.shape[0]
    M = out.numel() // N
    # A = x as M x K; B = weight^T (K x N): weight (N, K) row-major is B column-major, and the reverse.
    x, a_order, lda = _matrix(x, K)
    ws = weight.stride()
    if ws[1] == 1 and (N == 1 or ws[0] >= K):
        b_order, ldb = _COL, ws[0] if N > 1 else K
    elif ws[0] == 1 and (K == 1 or ws[1] >= N):
        b_order, ldb = _ROW, ws[1] if K > 1 else N
    else:
        weight = weight.contiguous()
        b_order, ldb = _COL, K
    bias_ptr, bias_size, bias_type = 0, 0, 2
    if bias_mode:
        if not bias.is_contiguous():
            bias = bias.contiguous()
        bias_ptr = bias.data_ptr()
        bias_size = N if bias_mode == _BIAS_PER_COLUMN else M if bias_mode == _BIAS_PER_ROW else 1
        bias_type = _DTYPE_CODE[bias.dtype]
    r_ptr, r_order, ldr = 0, _ROW, 0
    if residual is not None:
        residual, r_order, ldr = _matrix(residual, N)
        r_ptr = residual.data_ptr()
    c_ptr, c_order, ldc = 0, _ROW, 0
    if beta != 0:
        c, c_order, ldc = _matrix(c, N)
        c_ptr = c.data_ptr()
    args = (M, N, K,
            x.data_ptr(), _OPERAND_CODE[x.dtype], a_order, lda,
            weight.data_ptr(), b_order, ldb,
            out.data_ptr(), _DTYPE_CODE[out.dtype], _ROW, N,
            alpha, beta, c_ptr, c_order, ldc,
            bias_ptr, bias_mode, bias_type, bias_size,
            _ACT_CODE[activation], negative_slope, clamp_min, clamp_max,
            r_ptr, r_order, ldr)
    return args, (x, weight, bias, residual, c)


def _linear_impl(x, weight, bias, activation, negative_slope, clamp_min, clamp_max, residual, alpha, beta, c,
                 out_dtype):
    out_shape, out_dtype, bias_mode = _check_linear(x, weight, bias, activation, negative_slope, clamp_min,
                                                    clamp_max, residual, alpha, beta, c, out_dtype)
    device = x.device
    if device.type != "cuda":
        _fail("linear", f"argument 'x' is on {device}; expected a CUDA tensor")
    if (weight.device != device or (bias is not None and bias.device != device)
            or (residual is not None and residual.device != device) or (c is not None and c.device != device)):
        _check_device("linear", ("weight", "bias", "residual", "c"), (weight, bias, residual, c), device)
    if _cuda is None:
        _no_kernels("linear")
    out = torch.empty(out_shape, dtype=out_dtype, device=device)
    if out.numel() == 0:
        return out
    args, keep = _gemm_args(x, weight, bias, bias_mode, activation, negative_slope, clamp_min, clamp_max, residual,
                            alpha, beta, c, out)
    index = device.index
    try:
        _cuda.gemm(*args, index, _current_raw_stream(index), _gemm_alloc_for(device))
    except ValueError as e:
        # The host API names its own arguments: a = x as an M x K matrix, b = weight^T, d = the output.
        raise ValueError(f"tessera.ops.linear: {e} (there a = x as {args[0]} x {args[2]}, b = weight^T, "
                         "d = the output)") from None
    del keep
    return out


@torch.library.custom_op("tessera::linear", mutates_args=())
def _linear_op(x: torch.Tensor, weight: torch.Tensor, bias: Optional[torch.Tensor], activation: str,
               negative_slope: float, clamp_min: float, clamp_max: float, residual: Optional[torch.Tensor],
               alpha: float, beta: float, c: Optional[torch.Tensor], out_dtype: Optional[torch.dtype]) -> torch.Tensor:
    return _linear_impl(x, weight, bias, activation, negative_slope, clamp_min, clamp_max, residual, alpha, beta, c,
                        out_dtype)


@_linear_op.register_fake
def _linear_fake(x, weight, bias, activation, negative_slope, clamp_min, clamp_max, residual, alpha, beta, c,
                 out_dtype):
    out_shape, out_dtype, _ = _check_linear(x, weight, bias, activation, negative_slope, clamp_min, clamp_max,
                                            residual, alpha, beta, c, out_dtype)
    return x.new_empty(out_shape, dtype=out_dtype)


# ---- autograd: y = act(z) + residual, z = alpha * x @ W^T + beta * c + bias
_SQRT_2_OVER_PI = _math.sqrt(2.0 / _math.pi)
_INV_SQRT_2 = 1.0 / _math.sqrt(2.0)
_INV_SQRT_2PI = 1.0 / _math.sqrt(2.0 * _math.pi)


def activation_derivative(activation, z, negative_slope=0.01, clamp_min=-_INF, clamp_max=_INF):
    """d act(z) / dz for the epilogue's activation (z in float32), with the conventions of PyTorch's
    autograd at the kinks (relu: 0 at 0; leaky_relu: 1 at 0; clamp: 1 on [clamp_min, clamp_max])."""
    if activation == "relu":
        return (z > 0).to(z.dtype)
    if activation == "leaky_relu":
        return torch.where(z >= 0, torch.ones_like(z), torch.full_like(z, negative_slope))
    if activation == "clamp":
        return ((z >= clamp_min) & (z <= clamp_max)).to(z.dtype)
    if activation == "gelu_tanh":
        k = 0.044715
        t = torch.tanh(_SQRT_2_OVER_PI * (z + k * z * z * z))
        return 0.5 * (1 + t) + 0.5 * z * (1 - t * t) * _SQRT_2_OVER_PI * (1 + 3 * k * z * z)
    if activation == "gelu_erf":
        return 0.5 * (1 + torch.erf(z * _INV_SQRT_2)) + z * torch.exp(-0.5 * z * z) * _INV_SQRT_2PI
    if activation == "silu":
        s = torch.sigmoid(z)
        return s * (1 + z * (1 - s))
    raise ValueError(f"activation_derivative: activation {activation!r} has no derivative here")


def _linear_setup_context(ctx, inputs, output):
    x, weight, bias, activation, negative_slope, clamp_min, clamp_max, residual, alpha, beta, c, out_dtype = inputs
    recompute = activation != "none"
    ctx.save_for_backward(x, weight, bias if recompute else None, c if (recompute and beta != 0) else None)
    ctx.act = (activation, negative_slope, clamp_min, clamp_max)
    ctx.alpha, ctx.beta = alpha, beta
    ctx.bias_shape = None if bias is None else bias.shape
    ctx.bias_dtype = None if bias is None else bias.dtype


def _linear_backward(ctx, grad):
    x, weight, bias, c = ctx.saved_tensors
    activation, negative_slope, clamp_min, clamp_max = ctx.act
    alpha, beta = ctx.alpha, ctx.beta
    need = ctx.needs_input_grad
    N, K = weight.shape
    if activation == "none":
        gz = grad.float()
    else:
        # The pre-activation z, recomputed by a Tessera GEMM (fp32 output; C added here, since the host
        # API takes C in the output's type), then dy/dz in fp32.
        z = linear(x, weight, None if bias is None else bias.float(), alpha=alpha, out_dtype=torch.float32)
        if c is not None:
            z = z + beta * c.float()
        gz = grad.float() * activation_derivative(activation, z, negative_slope, clamp_min, clamp_max)
    grad_x = grad_w = grad_b = grad_r = grad_c = None
    if need[0] or need[1]:
        g = gz.to(x.dtype)
        empty = g.numel() == 0  # no rows or N = 0: sums over nothing
        if need[0]:  # alpha * gz @ W: weight (N, K) is the (K x N)^T operand, i.e. weight' = W^T
            grad_x = torch.zeros_like(x) if empty else linear(g, weight.t(), alpha=alpha)
        if need[1]:  # alpha * gz^T @ x over all rows of x
            if empty:
                grad_w = torch.zeros_like(weight)
            else:
                grad_w = linear(g.reshape(-1, N).t(), x.reshape(-1, K).t(), alpha=alpha, out_dtype=weight.dtype)
    if need[2]:
        grad_b = gz.sum_to_size(ctx.bias_shape).to(ctx.bias_dtype)
    if need[7]:
        grad_r = grad
    if need[10]:
        grad_c = (beta * gz).to(grad.dtype)
    return grad_x, grad_w, grad_b, None, None, None, None, grad_r, None, None, grad_c, None


_linear_op.register_autograd(_linear_backward, setup_context=_linear_setup_context)

# ---- the eager fast path's test: is any of PyTorch's machinery involved?
_is_compiling = torch.compiler.is_compiling
_grad_enabled = torch.is_grad_enabled
_tf_mode = torch._C._is_torch_function_mode_enabled
_dispatch_modes = torch._C._len_torch_dispatch_stack
_functorch_active = getattr(torch._C, "_are_functorch_transforms_active", None)
_PLAIN = (torch.Tensor, torch.nn.Parameter)


def _direct(*tensors):
    """True when an eager call on CUDA tensors can skip the dispatcher: no tracing or compiling, no
    modes, no functorch transform, only plain tensors (or parameters), none needing grad while grad
    mode is on.  (Other devices take the dispatcher: meta tensors reach the fake kernel.)"""
    if _is_compiling() or _tf_mode() or _dispatch_modes() or (_functorch_active is not None and _functorch_active()):
        return False
    grad = _grad_enabled()
    for t in tensors:
        if t is not None and (type(t) not in _PLAIN or (grad and t.requires_grad)):
            return False
    return True


def linear(x, weight, bias=None, *, activation="none", residual=None, alpha=1.0, beta=0.0, c=None, out_dtype=None,
           negative_slope=0.01, clamp_min=None, clamp_max=None):
    """y = act(alpha * x @ weight.T + beta * c + bias) + residual on Tessera's GEMM (F.linear's convention).

    x: (..., K); weight: (N, K); the output has shape (..., N) and dtype ``out_dtype`` (default x's),
    row-major.  x and weight: bf16, f16 or f32 (both the same; f32 runs exactly, on CUDA cores).
    bias (optional, float32 or the output's dtype): shape (N,), one value per output feature; shape
    (..., 1) = x.shape[:-1] + (1,), one per row; or a single value.  activation: one of ACTIVATIONS
    (leaky_relu takes negative_slope, clamp takes clamp_min/clamp_max).  residual and c (beta != 0):
    the output's shape and dtype.  All in fp32 registers, rounded once (with a 16-bit output, beta = 0 and a
    residual, gelu_tanh or silu the Hopper cooperative kernel also rounds the pre-activation to f16:
    docs/GEMM.md).  Strided inputs are used in place when each is a matrix with a unit stride (x's leading
    dims collapsing into one), otherwise copied.  Runs on the current CUDA stream.
    """
    lo = -_INF if clamp_min is None else float(clamp_min)
    hi = _INF if clamp_max is None else float(clamp_max)
    if _direct(x, weight, bias, residual, c) and x.is_cuda:
        return _linear_impl(x, weight, bias, activation, float(negative_slope), lo, hi, residual, float(alpha),
                            float(beta), c, out_dtype)
    _need_tensors("linear", ("x", "weight", "bias", "residual", "c"), (x, weight, bias, residual, c))
    return _linear_op(x, weight, bias, activation, float(negative_slope), lo, hi, residual, float(alpha),
                      float(beta), c, out_dtype)


# ---------------------------------------------------------------------------------------------------
# row norms
# ---------------------------------------------------------------------------------------------------
def _row_matrix(t, cols):
    """(tensor, ld) of x (..., cols) as rows with unit inner stride, collapsing leading dims; a copy
    when the strides do not allow it."""
    t2, order, ld = _matrix(t, cols)
    if order != _ROW:
        t2 = t.contiguous()
        ld = cols
    return t2, ld


def _norm_args(kind, x, weight, eps, y):
    """The arguments of tessera._cuda.row_norm (before device, stream, alloc) writing y (contiguous, x's
    shape), and the tensors that hold their data."""
    cols = x.shape[-1]
    rows = y.numel() // cols
    x2, ld_x = _row_matrix(x, cols)
    w_ptr = 0
    if weight is not None:
        if not weight.is_contiguous():
            weight = weight.contiguous()
        w_ptr = weight.data_ptr()
    args = (kind, _DTYPE_CODE[x.dtype], x2.data_ptr(), ld_x, w_ptr, y.data_ptr(), cols, rows, cols, eps)
    return args, (x2, weight)


def _norm_impl(op, kind, x, weight, eps):
    _check_norm(op, x, weight, eps)
    device = x.device
    if device.type != "cuda":
        _fail(op, f"argument 'x' is on {device}; expected a CUDA tensor")
    _check_device(op, ("weight",), (weight,), device)
    if _cuda is None:
        _no_kernels(op)
    y = torch.empty(x.shape, dtype=x.dtype, device=device)
    if y.numel() == 0:
        return y
    args, keep = _norm_args(kind, x, weight, eps, y)
    index = device.index
    try:
        _cuda.row_norm(*args, index, _current_raw_stream(index), _alloc_for(device))
    except ValueError as e:
        raise ValueError(f"tessera.ops.{op}: {e}") from None
    del keep
    return y


@torch.library.custom_op("tessera::rms_norm", mutates_args=())
def _rms_norm_op(x: torch.Tensor, weight: torch.Tensor, eps: float) -> torch.Tensor:
    return _norm_impl("rms_norm", 1, x, weight, eps)


@torch.library.custom_op("tessera::l2_norm", mutates_args=())
def _l2_norm_op(x: torch.Tensor, eps: float) -> torch.Tensor:
    return _norm_impl("l2_norm", 0, x, None, eps)


@_rms_norm_op.register_fake
def _rms_norm_fake(x, weight, eps):
    _check_norm("rms_norm", x, weight, eps)
    return torch.empty_like(x, memory_format=torch.contiguous_format)


@_l2_norm_op.register_fake
def _l2_norm_fake(x, eps):
    _check_norm("l2_norm", x, None, eps)
    return torch.empty_like(x, memory_format=torch.contiguous_format)


# Backward in fp32 torch ops, with r = 1 / sqrt(s + eps) recomputed from x:
#   rms_norm: s = mean(x^2), y = x r w:  dx = r (g w) - x r^3 mean(g w x),  dw = sum_rows(g x r)
#   l2_norm:  s = sum(x^2),  y = x r:    dx = r g - x r^3 sum(g x)
def _norm_setup_context(ctx, inputs, output):
    ctx.save_for_backward(*[t for t in inputs if isinstance(t, torch.Tensor)])
    ctx.eps = inputs[-1]


def _rms_norm_backward(ctx, grad):
    x, weight = ctx.saved_tensors
    x32, w32, g32 = x.float(), weight.float(), grad.float()
    r = torch.rsqrt(x32.square().mean(-1, keepdim=True) + ctx.eps)
    gw = g32 * w32
    dx = r * gw - x32 * r.pow(3) * (gw * x32).mean(-1, keepdim=True)
    dw = (g32 * x32 * r).reshape(-1, x.shape[-1]).sum(0) if ctx.needs_input_grad[1] else None
    return dx.to(x.dtype), None if dw is None else dw.to(weight.dtype), None


def _l2_norm_backward(ctx, grad):
    (x,) = ctx.saved_tensors
    x32, g32 = x.float(), grad.float()
    r = torch.rsqrt(x32.square().sum(-1, keepdim=True) + ctx.eps)
    dx = r * g32 - x32 * r.pow(3) * (g32 * x32).sum(-1, keepdim=True)
    return dx.to(x.dtype), None


_rms_norm_op.register_autograd(_rms_norm_backward, setup_context=_norm_setup_context)
_l2_norm_op.register_autograd(_l2_norm_backward, setup_context=_norm_setup_context)


def rms_norm(x, weight, eps=1e-6):
    """y = x / sqrt(mean(x^2 over the last dim) + eps) * weight on Tessera's fused row norm.

    x: (..., C), bf16, f16 or f32; weight: (C,), x's dtype.  fp32 accumulation, one rounding; the
    output is contiguous with x's shape and dtype.  Runs on the current CUDA stream.
    """
    if _direct(x, weight) and x.is_cuda:
        return _norm_impl("rms_norm", 1, x, weight, float(eps))
    _need_tensors("rms_norm", ("x", "weight"), (x, weight))
    return _rms_norm_op(x, weight, float(eps))


def l2_norm(x, eps=1e-12):
    """y = x / sqrt(sum(x^2 over the last dim) + eps) on Tessera's fused row norm (eps inside the root).

    x: (..., C), bf16, f16 or f32; fp32 accumulation, one rounding; contiguous output of x's shape and
    dtype.  Runs on the current CUDA stream.
    """
    if _direct(x) and x.is_cuda:
        return _norm_impl("l2_norm", 0, x, None, float(eps))
    _need_tensors("l2_norm", ("x",), (x,))
    return _l2_norm_op(x, float(eps))


# The FP8 / INT8 ops (tessera/_ops_8bit.py), which use the helpers above.
from ._ops_8bit import quantize, scaled_linear  # noqa: E402

if _cuda is not None and tuple(_cuda.activations()) != ACTIVATIONS:  # pragma: no cover - a build mismatch
    raise ImportError(f"tessera.ops: the activation menu {ACTIVATIONS} differs from the kernels' "
                      f"{tuple(_cuda.activations())}; tessera/ops.py and the C++ library are out of step")
