"""What the GPU tests of tessera.ops share (test_ops_gpu.py, test_ops_gpu_8bit.py): the device, the tolerance's
constants (test_ops_gpu.py's docstring gives the rule), seeded random tensors, and the float64 activations.  Skips the
importing module without PyTorch or a CUDA GPU.  Not a test module."""
import pytest

torch = pytest.importorskip("torch")
if not torch.cuda.is_available():
    pytest.skip("no CUDA GPU present", allow_module_level=True)
from tessera import nn as tnn  # noqa: E402

DEV = "cuda"
INF = float("inf")
R_OUT = {torch.bfloat16: 2.0 ** -7, torch.float16: 2.0 ** -10, torch.float32: 1e-6}
C_ACC = 2e-5


def gen(seed):
    return torch.Generator(device=DEV).manual_seed(seed)


def rand(*shape, dtype=torch.bfloat16, g=None, scale=1.0):
    return (torch.randn(*shape, device=DEV, dtype=torch.float32, generator=g) * scale).to(dtype)


def ref_act(name, z, slope=0.01, lo=-INF, hi=INF):
    return tnn._reference(name, z, negative_slope=slope, clamp_min=lo, clamp_max=hi)


def act_kw(kw):
    return {"slope": kw.get("negative_slope", 0.01), "lo": kw.get("clamp_min", -INF), "hi": kw.get("clamp_max", INF)}
