"""tessera.ops / tessera.nn are optional: `import tessera` never imports torch, and without torch the
ops say what is missing.  (No torch needed for these tests.)"""
import subprocess
import sys


def run_python(code):
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)


def test_import_tessera_does_not_import_torch():
    r = run_python("import sys, tessera; tessera.Layout('(2,3):(1,2)'); print('torch' in sys.modules)")
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip() == "False"


def test_ops_without_torch_raise_a_clear_import_error():
    # sys.modules['torch'] = None makes `import torch` fail as if it were not installed.
    code = (
        "import sys\n"
        "sys.modules['torch'] = None\n"
        "import tessera\n"
        "for name in ('ops', 'nn'):\n"
        "    try:\n"
        "        getattr(tessera, name)\n"
        "    except ImportError as e:\n"
        "        print(name, e)\n"
        "    else:\n"
        "        print(name, 'imported')\n"
    )
    r = run_python(code)
    assert r.returncode == 0, r.stderr
    lines = r.stdout.strip().splitlines()
    assert len(lines) == 2, r.stdout
    for line in lines:
        name = line.split()[0]
        assert f"tessera.{name} needs PyTorch" in line and "pip install torch" in line, line


def test_unknown_attribute_is_an_attribute_error():
    r = run_python("import tessera\ntry:\n    tessera.opz\nexcept AttributeError as e:\n    print(e)\n")
    assert r.returncode == 0, r.stderr
    assert "has no attribute 'opz'" in r.stdout
