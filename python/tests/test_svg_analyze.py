"""Pictures (_repr_svg_ of layouts, swizzled layouts and TV layouts, parsed as XML) and the
memory analysers (plain dataclasses with the figures of `tessera analyze`)."""
import dataclasses
import xml.etree.ElementTree as ET

import pytest

import tessera
from tessera import analyze

SVG = "{http://www.w3.org/2000/svg}"


def parse(svg):
    root = ET.fromstring(svg)
    assert root.tag == SVG + "svg"
    return root


def elems(root, tag, cls):
    return [e for e in root.iter(SVG + tag) if e.get("class") == cls]


def test_layout_svg():
    L = tessera.Layout("(4,8):(8,1)")
    root = parse(L._repr_svg_())
    assert len(elems(root, "rect", "cell")) == 32
    labels = ["".join(e.itertext()) for e in elems(root, "text", "label")]
    assert labels == [str(L(i, j)) for i in range(4) for j in range(8)]  # row by row


def test_swizzled_layout_svg():
    S = tessera.SwizzledLayout("Sw<2,0,2>o(4,4):(4,1)")
    root = parse(S._repr_svg_())
    labels = [int("".join(e.itertext())) for e in elems(root, "text", "label")]
    assert labels == [S(i, j) for i in range(4) for j in range(4)]
    banks = parse(tessera.SwizzledLayout("Sw<3,3,3>o(8,64):(64,1)").banks_svg(elem_bytes=2))
    assert len(elems(banks, "rect", "cell")) == 8 * 64


def test_tv_layout_svg():
    tv = tessera.tv_copy("(32,8):(8,1)", "(1,8)", atom_values=8)
    assert tv.tile == (32, 64)
    root = parse(tv._repr_svg_())
    assert len(elems(root, "rect", "cell")) == 32 * 64
    ldm = tessera.TVLayout("((16,2),8):((1,128),16)", (16, 16))
    assert len(elems(parse(ldm._repr_svg_()), "rect", "cell")) == 256


def test_svg_errors():
    with pytest.raises(ValueError, match="pictures are rank 1 or 2"):
        tessera.Layout("(2,2,2):(1,2,4)")._repr_svg_()
    with pytest.raises(ValueError, match=r"tile: expected a 2-D shape \(M,N\)"):
        tessera.TVLayout("(32,4):(4,1)", 128)


def test_smem_bank_conflicts():
    args = dict(tv="((16,2),8):((1,128),16)", tile="<16,16>")
    plain = analyze.smem("(128,64):(64,1)", 2, "ldmatrix.x4", **args)
    swizzled = analyze.smem("Sw<3,3,3>o(128,64):(64,1)", 2, "ldmatrix.x4", **args)
    assert dataclasses.is_dataclass(plain) and isinstance(plain.per_instruction[0], analyze.SmemInstruction)
    assert plain.instructions == 32 and plain.max_ways == 8 and plain.conflicts > 0
    assert plain.wavefronts == plain.ideal + plain.conflicts
    assert swizzled.max_ways == 1 and swizzled.conflicts == 0
    assert len(swizzled.bank_words) == 32
    # objects work as well as text
    same = analyze.smem(tessera.composition(tessera.Swizzle(3, 3, 3), "(128,64):(64,1)"), 2, "ldmatrix.x4",
                        tv=tessera.Layout("((16,2),8):((1,128),16)"), tile=(16, 16))
    assert dataclasses.asdict(same) == dataclasses.asdict(swizzled)


def test_gmem_coalescing():
    r = analyze.gmem("32:1", 4, "ld.32", tv="(32,1):(1,0)")
    assert (r.instructions, r.sectors, r.lines, r.bytes, r.efficiency) == (1, 4, 1, 128, 1.0)
    c = analyze.gmem("(64,64):(64,1)", 4, "ld.128", copy=("(8,16):(16,1)", "(1,4)"))
    assert c.sectors_per_request == 16.0 and c.efficiency == 1.0
    assert "ld.128" in analyze.instructions()


def test_analysis_errors():
    with pytest.raises(ValueError, match="unknown instruction 'ld.7'"):
        analyze.smem("32:1", 4, "ld.7", tv="(32,1):(1,0)")
    with pytest.raises(ValueError, match="give exactly one of tv= and copy="):
        analyze.gmem("32:1", 4, "ld.32")
    with pytest.raises(ValueError, match="reads shared memory only"):
        analyze.gmem("(128,64):(64,1)", 2, "ldmatrix.x4", tv="((16,2),8):((1,128),16)", tile="<16,16>")
