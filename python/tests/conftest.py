"""Shared helpers of the Python tests: the CuTe-derived layout cases and the text form of results."""
import os
import pathlib

import pytest

REPO = pathlib.Path(__file__).resolve().parents[2]
# The public cases, read in place next to the repository (as tests/layout/CMakeLists.txt does);
# TESSERA_LAYOUT_CASES names another file.
CASES = pathlib.Path(os.environ.get("TESSERA_LAYOUT_CASES", REPO.parent / "shared" / "layout-cases" / "cases.tsv"))


def load_cases():
    """[(op, args, expected)] of cases.tsv, or [] when the file is absent."""
    if not CASES.is_file():
        return []
    out = []
    for n, line in enumerate(CASES.read_text().splitlines(), 1):
        if not line.strip():
            continue
        f = line.split("\t")
        out.append(pytest.param(f[0], f[1:-1], f[-1], id=f"{n}:{f[0]}"))
    return out


def parse_tuple(text):
    """A CuTe int tuple's text as a Python value: '((1,2),3)' -> ((1, 2), 3); '(5)' -> (5,)."""
    pos = 0

    def value():
        nonlocal pos
        if text[pos] == "(":
            pos += 1
            items = [value()]
            while text[pos] == ",":
                pos += 1
                items.append(value())
            assert text[pos] == ")", text
            pos += 1
            return tuple(items)
        end = pos + 1
        while end < len(text) and (text[end].isdigit()):
            end += 1
        v = int(text[pos:end])
        pos = end
        return v

    v = value()
    assert pos == len(text), text
    return v


def cute_text(v):
    """A Python int tuple in CuTe's printed form: (5,) -> '(5)'."""
    if isinstance(v, tuple):
        return "(" + ",".join(cute_text(e) for e in v) + ")"
    return str(v)
