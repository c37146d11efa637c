"""Modules on tessera.ops: a drop-in ``Linear`` with a fused activation, and ``patch(model)``, which
puts Tessera's GEMM under an existing model's linear layers.

    layer = tessera.nn.Linear(4096, 14336, bias=False, activation="silu", device="cuda", dtype=torch.bfloat16)
    report = tessera.nn.patch(model)        # in place; report.replaced, report.fused

``patch`` replaces every ``torch.nn.Linear`` (exactly that class: subclasses may compute something
else) and every GPT-2-style ``Conv1D`` (transformers' linear layer with an (in, out) weight) by
modules of this file that share the original parameters, so state dicts, weight tying and optimizers
are unaffected.  Then, in each module that holds such a layer and an activation module, it traces the
module's forward with torch.fx (every submodule a leaf) and fuses ``act(linear(x))`` into the GEMM's
epilogue when the linear's output feeds only that activation, both are called once, and the activation
module computes one of the epilogue's functions: the activation module is then replaced by
``torch.nn.Identity``.  An activation is recognised by its values, not its class: it is evaluated in
float64 on a probe of points in [-8, 8] and compared with relu, gelu_tanh, gelu_erf, silu,
leaky_relu and clamp (slope and bounds read off the probe).  So GPT-2's MLP (c_fc -> NewGELU, i.e.
gelu_tanh) and Llama's (act_fn(gate_proj(x)) * up_proj(x), SiLU) fuse their activation; modules that
cannot be traced keep theirs.
"""
import dataclasses
import math

try:
    import torch
except ImportError as _e:  # pragma: no cover - exercised without torch
    raise ImportError(
        "tessera.nn needs PyTorch: pip install torch (the layout algebra in `tessera` works without it)"
    ) from _e
from torch import nn

from . import ops

__all__ = ["Linear", "TransposedLinear", "patch", "PatchReport", "identify_activation"]


def _check_activation(activation, negative_slope, clamp_min, clamp_max):
    if activation not in ops.ACTIVATIONS:
        raise ValueError(f"tessera.nn: argument 'activation' is {activation!r}; expected one of "
                         f"{', '.join(ops.ACTIVATIONS)}")
    if activation == "clamp":
        lo = -math.inf if clamp_min is None else clamp_min
        hi = math.inf if clamp_max is None else clamp_max
        if not lo <= hi:
            raise ValueError(f"tessera.nn: arguments 'clamp_min' ({clamp_min}) and 'clamp_max' ({clamp_max}) must "
                             "satisfy clamp_min <= clamp_max")
    if activation == "leaky_relu" and not math.isfinite(negative_slope):
        raise ValueError(f"tessera.nn: argument 'negative_slope' is {negative_slope}; expected a finite value")


class _ActivationMixin:
    def _set_activation(self, activation, negative_slope=0.01, clamp_min=None, clamp_max=None):
        _check_activation(activation, negative_slope, clamp_min, clamp_max)
        self.activation = activation
        self.negative_slope = float(negative_slope)
        self.clamp_min = clamp_min
        self.clamp_max = clamp_max

    def _activation_repr(self):
        s = f"activation={self.activation!r}"
        if self.activation == "leaky_relu":
            s += f", negative_slope={self.negative_slope}"
        if self.activation == "clamp":
            s += f", clamp_min={self.clamp_min}, clamp_max={self.clamp_max}"
        return s


class Linear(_ActivationMixin, nn.Linear):
    """``torch.nn.Linear`` on Tessera's GEMM: y = act(x @ weight.T + bias), the activation fused into the
    GEMM's epilogue (one of tessera.ops.ACTIVATIONS).  Same parameters, initialisation and state dict
    as ``nn.Linear``; x must be a CUDA tensor of the weight's dtype (bf16, f16 or f32)."""

    def __init__(self, in_features, out_features, bias=True, activation="none", device=None, dtype=None, *,
                 negative_slope=0.01, clamp_min=None, clamp_max=None):
        super().__init__(in_features, out_features, bias, device=device, dtype=dtype)
        self._set_activation(activation, negative_slope, clamp_min, clamp_max)

    @classmethod
    def from_linear(cls, linear, activation="none", *, negative_slope=0.01, clamp_min=None, clamp_max=None):
        """A tessera.nn.Linear that shares `linear`'s weight and bias (no copy)."""
        if not isinstance(linear, nn.Linear):
            raise TypeError(f"tessera.nn.Linear.from_linear: argument 'linear' must be a torch.nn.Linear; "
                            f"got {type(linear).__name__}")
        m = cls.__new__(cls)
        nn.Module.__init__(m)
        m.in_features, m.out_features = linear.in_features, linear.out_features
        m.weight = linear.weight
        m.bias = linear.bias
        m._set_activation(activation, negative_slope, clamp_min, clamp_max)
        m.train(linear.training)
        return m

    def forward(self, x):
        return ops.linear(x, self.weight, self.bias, activation=self.activation, negative_slope=self.negative_slope,
                          clamp_min=self.clamp_min, clamp_max=self.clamp_max)

    def extra_repr(self):
        return super().extra_repr() + ", " + self._activation_repr()


class TransposedLinear(_ActivationMixin, nn.Module):
    """y = act(x @ weight + bias) with weight of shape (in_features, out_features): the layout of GPT-2's
    ``Conv1D`` in transformers, whose parameters it shares (and names alike, so state dicts keep
    loading).  The GEMM reads the (in, out) weight as it is (an N-major operand), without a copy."""

    def __init__(self, weight, bias=None, activation="none", *, negative_slope=0.01, clamp_min=None, clamp_max=None):
        super().__init__()
        if not isinstance(weight, nn.Parameter) or weight.dim() != 2:
            raise TypeError("tessera.nn.TransposedLinear: argument 'weight' must be a 2-d nn.Parameter (in, out)")
        self.weight = weight
        self.bias = bias
        self.nx, self.nf = weight.shape
        self._set_activation(activation, negative_slope, clamp_min, clamp_max)

    @classmethod
    def from_conv1d(cls, conv, activation="none", **act):
        m = cls(conv.weight, conv.bias, activation, **act)
        m.train(conv.training)
        return m

    def forward(self, x):
        return ops.linear(x, self.weight.t(), self.bias, activation=self.activation,
                          negative_slope=self.negative_slope, clamp_min=self.clamp_min, clamp_max=self.clamp_max)

    def extra_repr(self):
        return f"in_features={self.nx}, out_features={self.nf}, bias={self.bias is not None}, " + self._activation_repr()


# ---------------------------------------------------------------------------------------------------
# Recognising an activation module by its values
# ---------------------------------------------------------------------------------------------------
_PROBE_EXTRA = (-1e4, -100.0, -1.0, -0.5, 0.0, 0.5, 1.0, 100.0, 1e4)
_PROBE_MINUS_ONE = 1601 + _PROBE_EXTRA.index(-1.0)


def _probe():
    z = torch.linspace(-8.0, 8.0, 1601, dtype=torch.float64)
    return torch.cat([z, torch.tensor(_PROBE_EXTRA, dtype=torch.float64)])


def _reference(activation, z, negative_slope=0.01, clamp_min=-math.inf, clamp_max=math.inf):
    """The epilogue's activations in float64 (include/tessera/kernel/epilogue/types.hpp)."""
    if activation == "relu":
        return torch.clamp_min(z, 0.0)
    if activation == "gelu_tanh":
        return 0.5 * z * (1 + torch.tanh(math.sqrt(2 / math.pi) * (z + 0.044715 * z ** 3)))
    if activation == "gelu_erf":
        return 0.5 * z * (1 + torch.erf(z / math.sqrt(2)))
    if activation == "silu":
        return z * torch.sigmoid(z)
    if activation == "leaky_relu":
        return torch.where(z >= 0, z, negative_slope * z)
    if activation == "clamp":
        return torch.clamp(z, clamp_min, clamp_max)
    return z


def identify_activation(module):
    """(activation, params) when `module`, a parameter-free module, computes one of the epilogue's
    activations on a float64 probe (within 1e-7 relative), else None.  params: negative_slope for
    leaky_relu, clamp_min/clamp_max for clamp."""
    if isinstance(module, (nn.Dropout, nn.Identity)) or any(True for _ in module.parameters()) or \
            any(True for _ in module.buffers()):
        return None
    z = _probe()
    try:
        with torch.no_grad(), torch.random.fork_rng(devices=[]):
            y = module(z.clone())
    except Exception:  # not a function of one tensor, or not on CPU float64: not ours to fuse
        return None
    if not isinstance(y, torch.Tensor) or y.shape != z.shape or y.dtype != torch.float64:
        return None

    def close(ref):
        return bool(torch.all((y - ref).abs() <= 1e-7 * (1 + ref.abs())))

    if close(z):
        return None  # the identity: nothing to fuse
    for name in ("relu", "gelu_tanh", "gelu_erf", "silu"):
        if close(_reference(name, z)):
            return name, {}
    slope = -float(y[_PROBE_MINUS_ONE])  # leaky_relu(-1) = -slope
    if math.isfinite(slope) and close(_reference("leaky_relu", z, negative_slope=slope)):
        return "leaky_relu", {"negative_slope": slope}
    # clamp: bounds read off the probe's extremes; a bound the probe's ends do not reach is infinite
    lo, hi = float(y.min()), float(y.max())
    lo = -math.inf if lo <= float(z.min()) else lo
    hi = math.inf if hi >= float(z.max()) else hi
    if close(_reference("clamp", z, clamp_min=lo, clamp_max=hi)):
        return "clamp", {"clamp_min": None if lo == -math.inf else lo, "clamp_max": None if hi == math.inf else hi}
    return None


# ---------------------------------------------------------------------------------------------------
# patch
# ---------------------------------------------------------------------------------------------------
@dataclasses.dataclass
class PatchReport:
    """What patch() did: qualified names of the replaced layers, and of those with a fused activation
    (name -> activation), and of modules whose forward could not be traced (name -> reason)."""
    replaced: list = dataclasses.field(default_factory=list)
    fused: dict = dataclasses.field(default_factory=dict)
    untraced: dict = dataclasses.field(default_factory=dict)


def _is_conv1d(m):
    # transformers.pytorch_utils.Conv1D: y = x @ weight + bias, weight (nx, nf)
    return (type(m).__name__ == "Conv1D" and isinstance(getattr(m, "weight", None), nn.Parameter)
            and m.weight.dim() == 2 and getattr(m, "nf", None) == m.weight.shape[1]
            and getattr(m, "nx", m.weight.shape[0]) == m.weight.shape[0])


class _LeafTracer(torch.fx.Tracer):
    # Every submodule is a leaf: only the parent's own data flow is traced.
    def is_leaf_module(self, m, qualname):
        return True


def _join(prefix, name):
    return f"{prefix}.{name}" if prefix else name


def patch(model, *, include=None, fuse_activations=True):
    """Replaces, in place, the linear layers of `model` by tessera.nn.Linear / TransposedLinear sharing
    their parameters, and fuses each activation module that directly and only follows one of them
    (see the module's docstring).  include(name, module) -> bool chooses layers (default: all
    torch.nn.Linear and GPT-2 Conv1D).  Returns a PatchReport.  Call it before torch.compile; the
    patched layers need CUDA tensors of bf16, f16 or f32."""
    if not isinstance(model, nn.Module):
        raise TypeError(f"tessera.nn.patch: argument 'model' must be a torch.nn.Module; got {type(model).__name__}")
    report = PatchReport()
    parents = [(name, mod) for name, mod in model.named_modules()]
    for pname, parent in parents:
        children = dict(parent.named_children())
        linears = {}
        for cname, child in children.items():
            qname = _join(pname, cname)
            if type(child) is nn.Linear or _is_conv1d(child):
                if include is not None and not include(qname, child):
                    continue
                new = Linear.from_linear(child) if type(child) is nn.Linear else TransposedLinear.from_conv1d(child)
                setattr(parent, cname, new)
                report.replaced.append(qname)
                linears[cname] = new
        if not fuse_activations or not linears:
            continue
        acts = {}
        for cname, child in parent.named_children():
            if cname not in linears:
                found = identify_activation(child)
                if found is not None:
                    acts[cname] = found
        if not acts:
            continue
        try:
            graph = _LeafTracer().trace(parent)
        except Exception as e:  # data-dependent control flow and the like: keep the activation unfused
            report.untraced[pname] = f"{type(e).__name__}: {e}"[:200]
            continue
        calls = {}
        for node in graph.nodes:
            if node.op == "call_module":
                calls.setdefault(node.target, []).append(node)
        for aname, (activation, params) in acts.items():
            anodes = calls.get(aname, [])
            if len(anodes) != 1:
                continue
            anode = anodes[0]
            if len(anode.args) != 1 or anode.kwargs:
                continue
            src = anode.args[0]
            if not isinstance(src, torch.fx.Node) or src.op != "call_module" or src.target not in linears:
                continue
            if len(calls.get(src.target, [])) != 1 or len(src.users) != 1:
                continue
            lin = linears[src.target]
            if lin.activation != "none":
                continue
            lin._set_activation(activation, **params)
            setattr(parent, aname, nn.Identity())
            report.fused[_join(pname, src.target)] = activation
    return report
