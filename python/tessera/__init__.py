"""Tessera's layout algebra in Python: CuTe's Shape:Stride layouts, their operations and printed
form, swizzles, tilers, thread-value layouts, SVG pictures for notebooks, and the shared/global
memory analysers.  Host code only: no GPU and no PyTorch needed.

    >>> import tessera
    >>> L = tessera.Layout("((2,2),(2,3)):((4,1),(2,8))")
    >>> L(5), L(1, 2), L[(1, 2)]
    >>> tessera.composition("(6,2):(8,2)", "(4,3):(3,1)")
    ((2,2),3):((24,2),8)
    >>> L.coalesce()

Every operation of ``tessera layout`` is a function here and a method of :class:`Layout`.
Errors of the algebra raise ``ValueError`` with the C++ library's message.

With PyTorch installed, ``tessera.ops`` (linear on the GEMM with its fused epilogue, scaled_linear on
FP8 / INT8 operands, quantize, rms_norm, l2_norm as ``torch.library`` operators) and ``tessera.nn`` (``Linear``, ``patch(model)``) run
Tessera's kernels on CUDA tensors; both are imported on first use, so ``import tessera`` never
imports torch.
"""
import functools as _functools

from . import _tessera
from ._tessera import (  # noqa: F401  (re-exported)
    Layout,
    Swizzle,
    SwizzledLayout,
    Tiler,
    TVLayout,
    __version__,
    blocked_product,
    complement,
    composition,
    coalesce,
    cosize,
    crd2idx,
    depth,
    filter,
    flat_divide,
    flat_product,
    idx2crd,
    left_inverse,
    logical_divide,
    logical_product,
    max_common_layout,
    max_common_vector,
    raked_product,
    rank,
    right_inverse,
    size,
    tiled_divide,
    tiled_product,
    tv_copy,
    zipped_divide,
    zipped_product,
)
from . import analyze  # noqa: F401  (tessera.analyze.smem / gmem)


def values(layout):
    """[L(0), L(1), ..., L(size-1)] of a Layout or SwizzledLayout (or the text of either)."""
    if isinstance(layout, str):
        layout = SwizzledLayout(layout) if layout.lstrip().startswith("Sw") else Layout(layout)
    return [layout(i) for i in range(size(layout))]


# The operations of `tessera layout`, in its order; each is also a method: L.coalesce(), ...
LAYOUT_OPS = (
    "size", "cosize", "rank", "depth", "coalesce", "filter", "composition", "complement",
    "right_inverse", "left_inverse", "logical_divide", "zipped_divide", "tiled_divide",
    "flat_divide", "logical_product", "zipped_product", "tiled_product", "flat_product",
    "blocked_product", "raked_product", "max_common_vector", "max_common_layout", "values",
    "idx2crd", "crd2idx",
)


def _as_method(fn):
    @_functools.wraps(fn)
    def method(self, *args, **kwargs):
        return fn(self, *args, **kwargs)

    return method


for _name in LAYOUT_OPS:
    setattr(Layout, _name, _as_method(globals()[_name]))
Layout.__iter__ = lambda self: iter(values(self))
SwizzledLayout.values = _as_method(values)
SwizzledLayout.size = _as_method(size)
del _name

__all__ = ["Layout", "Swizzle", "SwizzledLayout", "Tiler", "TVLayout", "tv_copy", "analyze",
           "LAYOUT_OPS", *LAYOUT_OPS]


def __getattr__(name):
    # tessera.ops and tessera.nn import torch: load them on first use only.
    if name in ("ops", "nn"):
        import importlib

        return importlib.import_module(f"{__name__}.{name}")
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
