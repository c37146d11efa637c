"""The Python API of the algebra: construction, evaluation, printing, methods, tilers, swizzles,
errors (ValueError with the C++ library's message; TypeError for values of the wrong type)."""
import os
import subprocess

import pytest

import tessera
from conftest import load_cases
from tessera import Layout, Swizzle, SwizzledLayout, Tiler


def test_construction_and_printing():
    L = Layout("((2,2),(2,3)):((4,1),(2,8))")
    assert str(L) == repr(L) == "((2,2),(2,3)):((4,1),(2,8))"
    assert L.shape == ((2, 2), (2, 3)) and L.stride == ((4, 1), (2, 8))
    assert Layout((4, 8)) == Layout("(4,8):(1,4)")  # a shape alone: column-major
    assert Layout((4, 8), (8, 1)) == Layout("(4,8):(8,1)")
    assert Layout(((2, 2), 3), ((1, 2), 4)) == Layout("((2,2),3):((1,2),4)")
    assert str(Layout((5,), (1,))) == "(5):(1)"  # a one-element tuple keeps its parentheses
    assert len({Layout("4:1"), Layout("4:1"), Layout("4:2")}) == 2


def test_evaluation():
    L = Layout("((2,2),(2,3)):((4,1),(2,8))")
    assert [L(i) for i in range(4)] == [0, 4, 1, 5]
    assert L(1, 2) == L((1, 2)) == L[(1, 2)] == L[1, 2] == 4 + 8
    assert L(((1, 0), (1, 2))) == 4 + 2 + 16
    assert list(L) == tessera.values(L) and len(L) == 24


def test_every_layout_op_is_a_function_and_a_method():
    L = Layout("(8,6):(1,8)")
    for name in tessera.LAYOUT_OPS:
        assert callable(getattr(tessera, name)) and callable(getattr(L, name))
    assert L.size() == 48 and L.cosize() == 48 and L.rank() == 2 and L.depth() == 1
    assert str(L.zipped_divide("<2,3>")) == "((2,3),(4,2)):((1,8),(2,24))"
    assert str(L.logical_divide(Tiler(2, 3))) == str(L.logical_divide((2, 3)))
    assert str(Layout("(2,(1,6)):(1,(6,2))").coalesce()) == "12:1"
    assert str(tessera.coalesce("(2,(1,6)):(1,(6,2))", (1, 1))) == "(2,6):(1,2)"
    assert str(tessera.complement("4:2", 24)) == "(2,3):(1,8)"
    assert str(tessera.composition("(6,2):(8,2)", "(4,3):(3,1)")) == "((2,2),3):((24,2),8)"
    assert str(tessera.blocked_product("(2,2):(1,2)", "(3,2):(1,3)")) == "((2,3),(2,2)):((1,4),(2,12))"
    assert tessera.idx2crd("((2,2),3):((1,2),4)", 7) == ((1, 1), 1)
    assert tessera.crd2idx("((2,2),3):((1,2),4)", ((1, 1), 2)) == 11
    assert tessera.max_common_vector("(4,8):(1,4)", "32:1") == 32
    R = tessera.right_inverse("(4,8):(8,1)")
    assert [Layout("(4,8):(8,1)")(R(i)) for i in range(32)] == list(range(32))


def test_tiler():
    t = Tiler(2, Layout("3:2"))
    assert str(t) == repr(t) == "<2,3:2>" and len(t) == 2 and t[0] == 2 and t[1] == Layout("3:2")
    assert Tiler("<2,3>") == Tiler(2, 3)


def test_swizzle():
    sw = Swizzle(3, 3, 3)
    assert str(sw) == "Sw<3,3,3>" and (sw.b, sw.m, sw.s) == (3, 3, 3)
    assert Swizzle("Sw<2,0,2>") == Swizzle(2, 0, 2)
    assert all(sw(sw(x)) == x for x in range(1024))  # an involution
    assert sw(0b001_000_000) == 0b001_001_000  # bit 6 flips bit 3
    S = tessera.composition(sw, "(8,64):(64,1)")
    assert isinstance(S, SwizzledLayout) and str(S) == "Sw<3,3,3>o(8,64):(64,1)"
    assert S == SwizzledLayout("Sw<3,3,3>o(8,64):(64,1)") == SwizzledLayout(sw, Layout("(8,64):(64,1)"))
    assert S.layout == Layout("(8,64):(64,1)") and S.swizzle == sw
    assert S(1, 8) == sw(64 + 8) and S[(1, 8)] == S(1, 8)
    assert sorted(S.values()) == list(range(512))  # a permutation of the offsets


# Each message is the C++ library's (the same text `tessera layout` prints after "error: ").
ERRORS = [
    (lambda: tessera.composition("(6,4):(1,10)", "4:4"),
     "composition: stride divisibility condition violated: stride 4 does not divide shape 6 and 4 elements "
     "continue past it"),
    (lambda: Layout("(2,3"), "column 5: expected ',' or ')', found end of input in \"(2,3\""),
    (lambda: Layout((2, 3), (1, (2, 3))), "layout: shape and stride must have the same nesting"),
    (lambda: Swizzle(3, 3, 2), "swizzle: |S| must be at least B (B=3, S=2)"),
    (lambda: tessera.composition("(4,4):(1,4)", "<2,2,2>"),
     "composition: too many modes in tiler: 3 modes for a layout of rank 2"),
    (lambda: Layout("(4,8):(8,1)")((1, 2, 3)), "crd2idx: coordinate of rank 3 does not match a shape of rank 2"),
]


@pytest.mark.parametrize("fn,message", ERRORS)
def test_errors_carry_the_cpp_message(fn, message):
    with pytest.raises(ValueError) as e:
        fn()
    assert str(e.value) == message


def test_type_errors_name_the_argument():
    with pytest.raises(TypeError, match="shape: expected an integer, a tuple of integers or its text, got float"):
        Layout(1.5)
    with pytest.raises(TypeError, match="layout: expected a Layout or its text, got int"):
        tessera.coalesce(4)
    with pytest.raises(TypeError, match=r"coordinate\[1\]: expected an integer"):
        Layout("(4,8):(1,4)")(1, 2.0)
    with pytest.raises(ValueError, match="shape: integer .* is outside"):
        Layout(1 << 60)


CLI = os.environ.get("TESSERA_CLI")


@pytest.mark.skipif(not CLI, reason="TESSERA_CLI (the built `tessera` command) not set; scripts/test.sh sets it")
def test_messages_equal_the_cli_messages():
    """Every error case of ../shared/layout-cases, and a few malformed texts, give the same message
    in Python as in `tessera layout --batch`."""
    cases = [(op, args) for op, args, expected in (p.values for p in load_cases()) if expected == "error"]
    cases += [("coalesce", ["(2,3"]), ("composition", ["(4,4):(1,4)", "<2,2,2>"]), ("complement", ["4:2", "x"])]
    batch = "".join("\t".join([op, *args]) + "\n" for op, args in cases)
    out = subprocess.run([CLI, "layout", "--batch"], input=batch, capture_output=True, text=True, check=True)
    lines = out.stdout.splitlines()
    assert len(lines) == len(cases)
    for (op, args), line in zip(cases, lines):
        with pytest.raises(ValueError) as e:
            getattr(tessera, op)(*args)
        assert line == f"error: {e.value}", (op, args)
