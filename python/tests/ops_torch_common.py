"""What the CPU tests of tessera.ops share (test_ops_torch.py, test_ops_torch_8bit.py): meta tensors, and the
check that an argument error names its op and the words it must hold.  Not a test module."""
import pytest

torch = pytest.importorskip("torch")

META = "meta"
INF = float("inf")


def meta(*shape, dtype=torch.bfloat16, requires_grad=False):
    return torch.empty(*shape, device=META, dtype=dtype, requires_grad=requires_grad)


def raises_naming(call, exc, words):
    """call() raises exc, whose text starts with "tessera.ops." and holds every one of `words`."""
    with pytest.raises(exc) as info:
        call()
    text = str(info.value)
    assert text.startswith("tessera.ops."), text
    for w in words:
        assert w in text, (w, text)
