"""The bindings against the CuTe-derived cases that the C++ tests check (../shared/layout-cases):
each case once through the text forms and once through Python objects (Layout, Tiler, tuples)."""
import pytest

import tessera
from conftest import CASES, cute_text, load_cases, parse_tuple

ALL = load_cases()
needs_cases = pytest.mark.skipif(not ALL, reason=f"layout cases not found at {CASES} (clone ../shared next to the repository)")


def printed(op, result):
    if op == "values":
        return ",".join(str(v) for v in result)
    if op == "idx2crd":
        return cute_text(result)
    return str(result)


def as_objects(op, args):
    """The arguments as Python objects instead of text."""
    first = tessera.SwizzledLayout(args[0]) if args[0].startswith("Sw") else tessera.Layout(args[0])
    rest = []
    for a in args[1:]:
        if op == "complement" or op == "crd2idx" or op == "idx2crd":
            rest.append(parse_tuple(a))
        elif a.startswith("<"):
            rest.append(tessera.Tiler(a))
        else:
            rest.append(tessera.Layout(a))
    return [first, *rest]


def call(op, args):
    fn = getattr(tessera, op)
    if op == "idx2crd":
        return fn(args[0], int(args[1]))
    return fn(*args)


@needs_cases
@pytest.mark.parametrize("op,args,expected", ALL)
def test_case_from_text(op, args, expected):
    if expected == "error":
        with pytest.raises(ValueError):
            call(op, args)
        return
    assert printed(op, call(op, args)) == expected


@needs_cases
@pytest.mark.parametrize("op,args,expected", ALL)
def test_case_from_objects(op, args, expected):
    objs = as_objects(op, args)
    fn = getattr(tessera, op)
    if expected == "error":
        with pytest.raises(ValueError):
            fn(*objs)
        return
    result = fn(*objs)
    assert printed(op, result) == expected
    if isinstance(result, tessera.Layout) and "-" not in str(result.shape):
        # the result prints and parses back to itself (the text form has no negative extents, which
        # CuTe's negative-stride cases can produce)
        assert tessera.Layout(str(result)) == result
    if op == "crd2idx":  # evaluation: L(c), L(*c), L[c]
        layout, crd = objs
        assert layout(crd) == result and layout[crd] == result
        if isinstance(crd, tuple) and len(crd) > 1:
            assert layout(*crd) == result
    if op == "values":
        assert list(objs[0].values()) == result


def test_cases_present_or_reported():
    """The case file is found in a checkout with ../shared; otherwise the case tests say why they skip."""
    if not ALL:
        pytest.skip(f"layout cases not found at {CASES}")
    assert len(ALL) > 3000
