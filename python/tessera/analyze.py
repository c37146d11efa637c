"""Static memory analysis of an access pattern, as ``tessera analyze smem|gmem`` computes it:
shared-memory bank conflicts and global-memory coalescing per warp instruction.

The access pattern is the memory layout (element index -> element offset; a Layout, a
SwizzledLayout or the text of one), the element size, the instruction (see ``instructions()``),
and either ``tv=`` (a (thread, value) -> element-index layout, optionally over tiles of shape
``tile=``) or ``copy=(thr, val)`` (make_tiled_copy's thread-value layout, repeated over the tile).

    >>> from tessera import analyze
    >>> r = analyze.smem("(128,64):(64,1)", 2, "ldmatrix.x4",
    ...                  tv="((16,2),8):((1,128),16)", tile="<16,16>")
    >>> r.max_ways, r.conflicts
"""
from dataclasses import dataclass, field
from typing import List

from . import _tessera


@dataclass
class SmemInstruction:
    warp: int
    group: int
    wavefronts: int
    ideal: int
    conflicts: int  # wavefronts - ideal
    ways: int  # the largest number of distinct words in one bank of one phase
    phase_wavefronts: List[int] = field(default_factory=list)


@dataclass
class SmemReport:
    instruction: str
    is_store: bool
    instructions: int
    wavefronts: int
    ideal: int
    conflicts: int
    max_ways: int
    per_instruction: List[SmemInstruction]
    bank_words: List[int]  # distinct-word accesses per bank, summed over phases


@dataclass
class GmemInstruction:
    warp: int
    group: int
    sectors: int
    lines: int
    bytes: int  # distinct bytes requested
    efficiency: float


@dataclass
class GmemReport:
    instruction: str
    instructions: int
    sectors: int
    lines: int
    bytes: int
    efficiency: float  # bytes / (32 * sectors)
    sectors_per_request: float
    per_instruction: List[GmemInstruction]


def smem(layout, elem_bytes, inst, *, tv=None, tile=None, copy=None, base=0):
    """Shared-memory bank conflicts of every warp instruction of the access pattern."""
    d = _tessera._smem(layout, elem_bytes, inst, tv=tv, tile=tile, copy=copy, base=base)
    d["per_instruction"] = [SmemInstruction(**i) for i in d["per_instruction"]]
    return SmemReport(**d)


def gmem(layout, elem_bytes, inst, *, tv=None, tile=None, copy=None, base=0):
    """Global-memory sectors and lines of every warp instruction of the access pattern."""
    d = _tessera._gmem(layout, elem_bytes, inst, tv=tv, tile=tile, copy=copy, base=base)
    d["per_instruction"] = [GmemInstruction(**i) for i in d["per_instruction"]]
    return GmemReport(**d)


def instructions():
    """The names of the modelled instructions: ld.32, ld.128, st.64, ldmatrix.x4, cp.async.16, ..."""
    return list(_tessera._instructions())
