"""The FP8 / INT8 half of tessera.ops: scaled_linear (a linear layer on 8-bit operands with their scales) and
quantize (bf16 / f16 / f32 to FP8 or INT8 with the scales computed in the same pass), as ``torch.library``
custom operators with fake kernels.  tessera.ops imports this module once its own helpers are defined and
re-exports both ops: import tessera.ops, not this module (imported first, it would import tessera.ops, whose
last lines import it back half-initialised)."""
import math as _math
from typing import Optional, Tuple

import torch

from .ops import (  # the shared helpers and codes (tessera/ops.py)
    _DTYPE_CODE, _FP8_ACCUM_CODE, _FP8_CODE, _INF, _MATH_CODE, _Q_CODE, _ROW, _SCALE_BLOCK, QUANT_MODES, SCALE_MODES,
    _bias_mode, _check_activation, _check_device, _cuda, _current_raw_stream, _direct, _fail, _gemm_alloc_for,
    _gemm_args, _grad_enabled, _matrix, _need_tensor, _no_kernels, _quant_alloc_for, _row_matrix)

# ---------------------------------------------------------------------------------------------------
# FP8 / INT8: scaled_linear and quantize
# ---------------------------------------------------------------------------------------------------
_FP8_NAMES = "torch.float8_e4m3fn or torch.float8_e5m2"
_Q_NAMES = "torch.float8_e4m3fn, torch.float8_e5m2 or torch.int8"


def _blocks(n):
    """ceil(n / 128): the 128-wide blocks of the block scales."""
    return (n + _SCALE_BLOCK - 1) // _SCALE_BLOCK


def _scale_shapes(which, lead, M, N, K):
    """{mode: (accepted shapes, their description)} of x's (which == "x") or weight's channel and block scales."""
    kb = _blocks(K)
    if which == "x":
        channel = [(M,), (M, 1)] + ([(*lead, 1)] if len(lead) > 1 else [])
        text = f"(M,) = ({M},) or (M, 1) = ({M}, 1)"
        if len(lead) > 1:
            text += f" or x.shape[:-1] + (1,) = {(*lead, 1)}"
        return {"channel": (channel, f"{text} (channel: a scale per row of x)"),
                "block": ([(kb, M)], f"(ceil(K/128), M) = ({kb}, {M}) (block: a scale per 1 x 128 block of x, "
                                     "scale_x[kb, i] for row i and K block kb)")}
    nb = _blocks(N)
    return {"channel": ([(N,), (N, 1)], f"(N,) = ({N},) or (N, 1) = ({N}, 1) (channel: a scale per row of weight)"),
            "block": ([(kb, nb)], f"(ceil(K/128), ceil(N/128)) = ({kb}, {nb}) (block: a scale per 128 x 128 block of "
                                  "weight, scale_w[kb, jb] for K block kb and rows 128 jb ...)")}


def _scale_mode(name, s, mode, shapes, fp8, x_dtype):
    """GemmScale's value for scale tensor `s` (argument `name`) with the mode asked for (None: from the shape)."""
    op = "scaled_linear"
    if mode is not None and mode not in SCALE_MODES:
        _fail(op, f"argument '{name}_mode' is {mode!r}; expected None (from {name}'s shape), 'tensor', 'channel' or "
                  "'block'")
    if s is None:
        if mode not in (None, "tensor"):
            _fail(op, f"argument '{name}' is None with {name}_mode = {mode!r}; pass the scales (None: a per-tensor "
                      "scale of 1)")
        return 0
    _need_tensor(op, name, s)
    if s.dtype != torch.float32:
        _fail(op, f"argument '{name}' has dtype {s.dtype}; expected torch.float32")
    shape = tuple(s.shape)
    single = s.numel() == 1
    fits = [m for m in ("channel", "block") if shape in shapes[m][0]]
    if not fp8 and mode == "block":
        _fail(op, f"argument '{name}_mode' is 'block' with x of dtype {x_dtype}; block scales need FP8 operands "
                  "(INT8 takes per-tensor or channel scales)")
    if mode is None:
        if single:
            mode = "tensor"
        elif len(fits) == 1 or (fits and not fp8):
            mode = fits[0]  # INT8: a shape that fits both is its channel scale (it has no block scales)
        elif len(fits) > 1:
            _fail(op, f"argument '{name}' has shape {shape}, which fits both {shapes['channel'][1]} and "
                      f"{shapes['block'][1]}; pass {name}_mode='channel' or {name}_mode='block'")
        else:
            block = f", or {shapes['block'][1]}" if fp8 else ""
            _fail(op, f"argument '{name}' has shape {shape}; expected one element (tensor: one scale), "
                      f"{shapes['channel'][1]}{block}")
    elif mode == "tensor":
        if not single:
            _fail(op, f"argument '{name}' has shape {shape} with {name}_mode = 'tensor'; expected one element")
    elif mode not in fits:
        _fail(op, f"argument '{name}' has shape {shape} with {name}_mode = {mode!r}; expected {shapes[mode][1]}")
    if mode == "block" and not fp8:
        _fail(op, f"argument '{name}' has shape {shape}, a block scale, with x of dtype {x_dtype}; block scales need "
                  "FP8 operands (INT8 takes per-tensor or channel scales)")
    return SCALE_MODES.index(mode)


def _check_scaled_linear(x, weight, scale_x, scale_w, bias, activation, negative_slope, clamp_min, clamp_max,
                         residual, alpha, out_dtype, scale_x_mode, scale_w_mode, fp8_accum, math):
    """Validates the arguments of scaled_linear (shapes, dtypes, modes); returns (out_shape, out_dtype, bias_mode,
    scale_a_mode, scale_b_mode, fp8_accum code, math code)."""
    op = "scaled_linear"
    _need_tensor(op, "x", x)
    _need_tensor(op, "weight", weight)
    xd, xs, wd, wsh = x.dtype, x.shape, weight.dtype, weight.shape
    if xd not in _Q_CODE:
        _fail(op, f"argument 'x' has dtype {xd}; expected {_Q_NAMES} (16- and 32-bit inputs: tessera.ops.linear)")
    fp8 = xd in _FP8_CODE
    if fp8 and wd not in _FP8_CODE:
        _fail(op, f"argument 'weight' has dtype {wd}; expected {_FP8_NAMES} (x is {xd}: two FP8 types, in any pair)")
    if not fp8 and wd != torch.int8:
        _fail(op, f"argument 'weight' has dtype {wd}; expected torch.int8 (x is torch.int8: INT8 takes int8 x int8)")
    if len(xs) < 1:
        _fail(op, "argument 'x' is a 0-d tensor; expected shape (..., K)")
    if len(wsh) != 2:
        _fail(op, f"argument 'weight' has shape {tuple(wsh)}; expected (N, K) (F.linear's convention)")
    K = xs[-1]
    N = wsh[0]
    if wsh[1] != K:
        _fail(op, f"argument 'weight' has shape {tuple(wsh)}; expected (N, K) with K = x.shape[-1] = {K}")
    if K == 0:
        _fail(op, "argument 'x' has K = x.shape[-1] = 0; expected K >= 1")
    if out_dtype not in _DTYPE_CODE:
        _fail(op, f"argument 'out_dtype' is {out_dtype}; expected torch.bfloat16, torch.float16 or torch.float32")
    lead = tuple(xs[:-1])
    M = 1
    for n in lead:
        M = M * n
    out_shape = (*lead, N)
    _check_activation(op, activation, negative_slope, clamp_min, clamp_max)
    if not _math.isfinite(alpha):
        _fail(op, f"argument 'alpha' is {alpha}; expected a finite value")
    if residual is not None:
        _need_tensor(op, "residual", residual)
        if tuple(residual.shape) != out_shape:
            _fail(op, f"argument 'residual' has shape {tuple(residual.shape)}; expected the output's shape {out_shape}")
        if residual.dtype != out_dtype:
            _fail(op, f"argument 'residual' has dtype {residual.dtype}; expected the output's dtype {out_dtype}")
    if fp8_accum is not None:
        if not fp8:
            _fail(op, f"argument 'fp8_accum' is {fp8_accum!r} with x of dtype {xd}; expected None (it applies to FP8 "
                      "operands; INT8 sums are exact)")
        if fp8_accum not in _FP8_ACCUM_CODE:
            _fail(op, f"argument 'fp8_accum' is {fp8_accum!r}; expected None (promoted), 'promoted' or 'fast'")
    if math not in _MATH_CODE:
        _fail(op, f"argument 'math' is {math!r}; expected None (the planner's choice), 'tensor_core' or 'dp4a'")
    if math == "dp4a" and fp8:
        _fail(op, f"argument 'math' is 'dp4a' with x of dtype {xd}; dp4a takes int8 operands")
    sa = _scale_mode("scale_x", scale_x, scale_x_mode, _scale_shapes("x", lead, M, N, K), fp8, xd)
    sb = _scale_mode("scale_w", scale_w, scale_w_mode, _scale_shapes("w", lead, M, N, K), fp8, xd)
    accum = _FP8_ACCUM_CODE[fp8_accum or "promoted"]
    if accum and 2 in (sa, sb):
        name = "scale_x" if sa == 2 else "scale_w"
        _fail(op, f"argument 'fp8_accum' is 'fast' with a block scale ('{name}'); block scales need 'promoted' "
                  "accumulation (each 128-deep K tile's sum is scaled as it joins the fp32 accumulator)")
    return out_shape, out_dtype, _bias_mode(op, bias, N, lead, out_dtype), sa, sb, accum, _MATH_CODE[math]


def _8bit_rows(name, t, cols):
    """Checks that an 8-bit operand (..., cols) is K-major rows that the kernels can load as they are (no copy:
    a copy would cost as much memory traffic as the GEMM it feeds): unit stride along K, the other dims
    collapsing into one row stride that is a multiple of 16, a 16-byte aligned start."""
    op = "scaled_linear"
    held, order, ld = _matrix(t, cols)
    if held is not t or order != _ROW:
        _fail(op, f"argument '{name}' has shape {tuple(t.shape)} and strides {tuple(t.stride())}; expected "
                  "K-major rows (stride 1 along K, the other dims collapsing into one row stride): the 8-bit kernels "
                  f"read their operands K-major only ({name}.contiguous() is such a tensor)")
    if ld % 16 != 0:
        _fail(op, f"argument '{name}' has a row stride of {ld} elements (K = {cols}); expected a multiple of 16 (the "
                  "8-bit kernels load rows by TMA, 16 bytes at a time): pad K to a multiple of 16, or pass a [..., :K] "
                  "view of rows whose stride is one")
    if t.data_ptr() % 16 != 0:
        _fail(op, f"argument '{name}' starts at address {t.data_ptr():#x}, which is not 16-byte aligned; expected a "
                  "16-byte aligned start (TMA): a fresh tensor is, a view at an offset may not be")


def _scaled_linear_impl(x, weight, scale_x, scale_w, bias, activation, negative_slope, clamp_min, clamp_max, residual,
                        alpha, out_dtype, scale_x_mode, scale_w_mode, fp8_accum, math):
    out_shape, out_dtype, bias_mode, sa, sb, accum, math_code = _check_scaled_linear(
        x, weight, scale_x, scale_w, bias, activation, negative_slope, clamp_min, clamp_max, residual, alpha,
        out_dtype, scale_x_mode, scale_w_mode, fp8_accum, math)
    K = x.shape[-1]
    N = weight.shape[0]
    empty = N == 0 or x.numel() == 0
    if not empty:
        _8bit_rows("x", x, K)
        _8bit_rows("weight", weight, K)
    device = x.device
    if device.type != "cuda":
        _fail("scaled_linear", f"argument 'x' is on {device}; expected a CUDA tensor")
    _check_device("scaled_linear", ("weight", "scale_x", "scale_w", "bias", "residual"),
                  (weight, scale_x, scale_w, bias, residual), device)
    if _cuda is None:
        _no_kernels("scaled_linear")
    out = torch.empty(out_shape, dtype=out_dtype, device=device)
    if empty:
        return out
    # The scales as the host API reads them: contiguous floats (small; a non-contiguous one is copied).
    if scale_x is not None and not scale_x.is_contiguous():
        scale_x = scale_x.contiguous()
    if scale_w is not None and not scale_w.is_contiguous():
        scale_w = scale_w.contiguous()
    args, keep = _gemm_args(x, weight, bias, bias_mode, activation, negative_slope, clamp_min, clamp_max, residual,
                            alpha, 0.0, None, out)
    index = device.index
    try:
        _cuda.gemm(*args, index, _current_raw_stream(index), _gemm_alloc_for(device), b_type=_Q_CODE[weight.dtype],
                   scale_a=0 if scale_x is None else scale_x.data_ptr(), scale_a_mode=sa,
                   scale_b=0 if scale_w is None else scale_w.data_ptr(), scale_b_mode=sb, fp8_accum=accum,
                   math=math_code)
    except ValueError as e:
        raise ValueError(f"tessera.ops.scaled_linear: {e} (there a = x as {args[0]} x {args[2]}, b = weight^T, "
                         "d = the output, scale_a = scale_x, scale_b = scale_w)") from None
    del keep
    return out


@torch.library.custom_op("tessera::scaled_linear", mutates_args=())
def _scaled_linear_op(x: torch.Tensor, weight: torch.Tensor, scale_x: Optional[torch.Tensor],
                      scale_w: Optional[torch.Tensor], bias: Optional[torch.Tensor], activation: str,
                      negative_slope: float, clamp_min: float, clamp_max: float, residual: Optional[torch.Tensor],
                      alpha: float, out_dtype: torch.dtype, scale_x_mode: Optional[str], scale_w_mode: Optional[str],
                      fp8_accum: Optional[str], math: Optional[str]) -> torch.Tensor:
    return _scaled_linear_impl(x, weight, scale_x, scale_w, bias, activation, negative_slope, clamp_min, clamp_max,
                               residual, alpha, out_dtype, scale_x_mode, scale_w_mode, fp8_accum, math)


@_scaled_linear_op.register_fake
def _scaled_linear_fake(x, weight, scale_x, scale_w, bias, activation, negative_slope, clamp_min, clamp_max, residual,
                        alpha, out_dtype, scale_x_mode, scale_w_mode, fp8_accum, math):
    out_shape, out_dtype = _check_scaled_linear(x, weight, scale_x, scale_w, bias, activation, negative_slope,
                                                clamp_min, clamp_max, residual, alpha, out_dtype, scale_x_mode,
                                                scale_w_mode, fp8_accum, math)[:2]
    return x.new_empty(out_shape, dtype=out_dtype)


def _no_grad_needed(op, names, tensors):
    """scaled_linear and quantize have no backward: refuse inputs that require grad (with grad mode on)."""
    if not _grad_enabled():
        return
    for name, t in zip(names, tensors):
        if isinstance(t, torch.Tensor) and t.requires_grad:
            _fail(op, f"argument '{name}' requires grad; {op} is inference-only (no backward): call it under "
                      f"torch.no_grad() or torch.inference_mode(), or pass {name}.detach()")


def scaled_linear(x, weight, scale_x, scale_w, bias=None, *, activation="none", residual=None, alpha=1.0,
                  out_dtype=torch.bfloat16, scale_x_mode=None, scale_w_mode=None, fp8_accum=None, math=None,
                  negative_slope=0.01, clamp_min=None, clamp_max=None):
    """y = act(alpha * (scale_x x) @ (scale_w weight).T + bias) + residual on Tessera's FP8 / INT8 GEMM.

    x: (..., K) and weight: (N, K), both FP8 (torch.float8_e4m3fn / torch.float8_e5m2, any pair; compute
    capability 9.0) or both torch.int8 (exact int32 sums; Hopper tensor cores, or CUDA cores with math="dp4a"
    on compute capability 8.0+).  The output has shape (..., N), dtype ``out_dtype`` (bf16, the default and
    None's meaning; f16; f32),
    row-major.  8-bit operands are read in place, never copied: K-major rows (x's last dim and weight's rows
    with stride 1, x's leading dims collapsing into one row stride), row strides that are multiples of 16 and
    16-byte aligned starts (contiguous tensors with K % 16 == 0 are; for other K pad the rows).

    Scales (float32 on x's device; None = a per-tensor 1), dequantised value = q * scale, each operand's
    mode from its shape (or scale_x_mode / scale_w_mode: "tensor", "channel", "block", where a shape fits two):
      one element                      per tensor
      scale_x (M,), (M, 1) or x.shape[:-1] + (1,)   channel: one per row of x (M = rows of x, leading dims flattened)
      scale_w (N,) or (N, 1)           channel: one per row of weight (output feature)
      scale_x (ceil(K/128), M)         block (FP8 only): scale_x[kb, i] scales x[i, 128 kb : 128 kb + 128]
      scale_w (ceil(K/128), ceil(N/128))  block (FP8 only): scale_w[kb, jb] scales weight[128 jb : 128 jb + 128,
                                       128 kb : 128 kb + 128]
    The block layouts are each K block's scales contiguous, as tessera.ops.quantize's "block_1x128" (x) and
    "block_128x128" (weight) write them; a non-contiguous scale tensor is copied.  fp8_accum: None or
    "promoted" (the default: each 128-deep K tile summed in the tensor cores, then added in fp32) or "fast"
    (FP8 only, not with block scales).  bias, activation (with negative_slope, clamp_min, clamp_max) and
    residual as in linear.  Inference-only: refuses inputs that require grad.  Runs on the current CUDA stream.
    """
    lo = -_INF if clamp_min is None else float(clamp_min)
    hi = _INF if clamp_max is None else float(clamp_max)
    if out_dtype is None:
        out_dtype = torch.bfloat16
    if _direct(x, weight, scale_x, scale_w, bias, residual) and x.is_cuda:
        return _scaled_linear_impl(x, weight, scale_x, scale_w, bias, activation, float(negative_slope), lo, hi,
                                   residual, float(alpha), out_dtype, scale_x_mode, scale_w_mode, fp8_accum, math)
    for name, t in (("x", x), ("weight", weight)):
        _need_tensor("scaled_linear", name, t)
    for name, t in (("scale_x", scale_x), ("scale_w", scale_w), ("bias", bias), ("residual", residual)):
        if t is not None:
            _need_tensor("scaled_linear", name, t)
    _no_grad_needed("scaled_linear", ("x", "weight", "scale_x", "scale_w", "bias", "residual"),
                    (x, weight, scale_x, scale_w, bias, residual))
    return _scaled_linear_op(x, weight, scale_x, scale_w, bias, activation, float(negative_slope), lo, hi, residual,
                             float(alpha), out_dtype, scale_x_mode, scale_w_mode, fp8_accum, math)


# ---- quantize
def _check_quantize(x, dtype, mode, scale):
    """Validates quantize's arguments; returns the shape of the scales the mode writes (tensor_given: the given
    scale's) and (rows, cols) of x as a matrix."""
    op = "quantize"
    _need_tensor(op, "x", x)
    if x.dtype not in _DTYPE_CODE:
        _fail(op, f"argument 'x' has dtype {x.dtype}; expected torch.bfloat16, torch.float16 or torch.float32")
    if dtype not in _Q_CODE:
        _fail(op, f"argument 'dtype' is {dtype}; expected {_Q_NAMES}")
    if x.dim() < 1:
        _fail(op, "argument 'x' is a 0-d tensor; expected shape (..., K) (rows of K elements)")
    if mode not in QUANT_MODES:
        _fail(op, f"argument 'mode' is {mode!r}; expected one of {', '.join(QUANT_MODES)}")
    if mode == "tensor_given":
        if scale is None:
            _fail(op, "argument 'scale' is None with mode 'tensor_given'; expected the scale (one float32 element)")
        _need_tensor(op, "scale", scale)
        if scale.dtype != torch.float32:
            _fail(op, f"argument 'scale' has dtype {scale.dtype}; expected torch.float32")
        if scale.numel() != 1:
            _fail(op, f"argument 'scale' has shape {tuple(scale.shape)}; expected one element (mode 'tensor_given')")
    elif scale is not None:
        _fail(op, f"argument 'scale' is given with mode {mode!r}; expected None (the mode computes its scales; a "
                  "given scale needs mode='tensor_given')")
    lead = tuple(x.shape[:-1])
    cols = x.shape[-1]
    rows = 1
    for n in lead:
        rows = rows * n
    if mode == "tensor_given":
        shape = tuple(scale.shape)
    elif mode == "tensor":
        shape = ()
    elif mode == "row":
        shape = (*lead, 1)
    elif mode == "block_1x128":
        shape = (_blocks(cols), rows)
    else:
        shape = (_blocks(cols), _blocks(rows))
    return shape, rows, cols


def _quantize_impl(x, dtype, mode, scale, return_amax):
    shape, rows, cols = _check_quantize(x, dtype, mode, scale)
    device = x.device
    if device.type != "cuda":
        _fail("quantize", f"argument 'x' is on {device}; expected a CUDA tensor")
    _check_device("quantize", ("scale",), (scale,), device)
    if _cuda is None:
        _no_kernels("quantize")
    given = mode == "tensor_given"
    q = torch.empty(x.shape, dtype=dtype, device=device)
    s_out = torch.empty(0 if given else shape, dtype=torch.float32, device=device)
    amax = torch.empty(shape if return_amax else 0, dtype=torch.float32, device=device)
    if rows == 0 or cols == 0:
        # Nothing to read: every group is empty, amax 0, and amax == 0 gives the scale 1 (the library writes none).
        s_out.fill_(1.0)
        amax.zero_()
        return q, s_out, amax
    x2, ld_x = _row_matrix(x, cols)
    if given and not scale.is_contiguous():
        scale = scale.contiguous()
    s_in = scale if given else s_out
    index = device.index
    try:
        _cuda.quantize(x2.data_ptr(), _DTYPE_CODE[x.dtype], rows, cols, ld_x, q.data_ptr(), _Q_CODE[dtype], cols,
                       QUANT_MODES.index(mode), s_in.data_ptr(), amax.data_ptr() if return_amax else 0,
                       s_in.numel(), index, _current_raw_stream(index), _quant_alloc_for(device))
    except ValueError as e:
        raise ValueError(f"tessera.ops.quantize: {e}") from None
    del x2
    return q, s_out, amax


@torch.library.custom_op("tessera::quantize", mutates_args=())
def _quantize_op(x: torch.Tensor, dtype: torch.dtype, mode: str, scale: Optional[torch.Tensor],
                 return_amax: bool) -> Tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    return _quantize_impl(x, dtype, mode, scale, return_amax)


@_quantize_op.register_fake
def _quantize_fake(x, dtype, mode, scale, return_amax):
    shape = _check_quantize(x, dtype, mode, scale)[0]
    q = x.new_empty(x.shape, dtype=dtype)
    s_out = x.new_empty(0 if mode == "tensor_given" else shape, dtype=torch.float32)
    amax = x.new_empty(shape if return_amax else 0, dtype=torch.float32)
    return q, s_out, amax


def quantize(x, dtype, mode="tensor", *, scale=None, return_amax=False):
    """(q, scale) or (q, scale, amax): x quantised to ``dtype`` on Tessera's fused quantisation, x ~ q * scale.

    x: (..., K), bf16, f16 or f32, seen as rows = x.shape[:-1] flattened of K elements (strided x is read in
    place when its rows have unit stride, otherwise copied).  dtype: torch.float8_e4m3fn (qmax 448),
    torch.float8_e5m2 (57344) or torch.int8 (127).  q: x's shape, contiguous.  Per group of the mode:
    amax = max |x|, scale = amax / qmax, q = round(x * (qmax / amax)) (fp32 division and multiplication,
    round to nearest even, saturating: FP8 to its largest finite value, int8 to [-127, 127]); amax == 0 gives
    scale 1; amax below qmax / FLT_MAX gives scale 2^-128.  NaN in a group gives NaN scale and q (int8 q: 0).
    Modes and the scale tensor (float32) each returns:
      "tensor"         ()                                 one scale, computed (x read twice)
      "tensor_given"   scale (one element, given)         q = round(x * (1 / scale)); returns the given tensor
      "row"            x.shape[:-1] + (1,)                one per row (scaled_linear's channel scales)
      "block_1x128"    (ceil(K/128), rows)                one per 128 elements of a row; [kb, i] for row i
      "block_128x128"  (ceil(K/128), ceil(rows/128))      one per 128 x 128 block; [kb, ib] for rows 128 ib ...
    The block layouts are scaled_linear's block scales for x ("block_1x128") and weight ("block_128x128").
    amax (return_amax=True): the groups' max |x|, the scale's shape (delayed scaling: the next step's scale).
    Inference-only: refuses an x that requires grad.  Runs on the current CUDA stream.
    """
    if _direct(x, scale) and x.is_cuda:
        q, s, amax = _quantize_impl(x, dtype, mode, scale, bool(return_amax))
    else:
        _need_tensor("quantize", "x", x)
        if scale is not None:
            _need_tensor("quantize", "scale", scale)
        _no_grad_needed("quantize", ("x", "scale"), (x, scale))
        q, s, amax = _quantize_op(x, dtype, mode, scale, bool(return_amax))
    if mode == "tensor_given":
        s = scale  # the op returns no copy of it (an op's outputs may not alias its inputs)
    return (q, s, amax) if return_amax else (q, s)
