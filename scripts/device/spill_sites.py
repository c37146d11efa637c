#!/usr/bin/env python3
"""scripts/device/spill_sites.py BUILD UNIT... -- ptxas's spill report for GEMM compile units, with the source of every
local-memory access.

Each UNIT (a source file's stem, e.g. gemm_sm90_persistent_bf16_coop_kk) is compiled again with the exact command of
the configured CMake build folder BUILD (`ninja -t commands`: the flags ptxas saw in that build, which decide its
register allocation -- a hand-written nvcc line need not give the same result) plus `-Xptxas -v`, into a temporary
folder.  Printed per kernel: ptxas's stack and spill bytes and any C75xx performance warning (wgmma serialised), then
every LDL / STL of the kernel's SASS with the chain of source lines it was inlined through (`nvdisasm -gi`), innermost
first.  Needs nvcc, cuobjdump and nvdisasm (PATH, or the folder of the nvcc BUILD uses); no GPU.

  cmake -S . -B /tmp/b -G Ninja -DCMAKE_BUILD_TYPE=Release -DTESSERA_CUDA_ARCHITECTURES=90a
  scripts/device/spill_sites.py /tmp/b gemm_sm90_persistent_bf16_coop_kk
"""
import os
import re
import shlex
import shutil
import subprocess
import sys
import tempfile


def tool(name, nvcc):
    found = shutil.which(name)
    if found:
        return found
    beside = os.path.join(os.path.dirname(nvcc), name)
    if os.path.exists(beside):
        return beside
    sys.exit(f"spill_sites: {name} not found on PATH or beside {nvcc}")


def compile_command(build, unit):
    obj = f"CMakeFiles/tessera_kernels.dir/src/{unit}.cu.o"
    r = subprocess.run(["ninja", "-C", build, "-t", "commands", obj], capture_output=True, text=True)
    lines = [l for l in r.stdout.splitlines() if f"src/{unit}.cu" in l and " -c " in l]
    if r.returncode != 0 or not lines:
        sys.exit(f"spill_sites: no compile command for {obj} in {build} (a configured build folder, unit names as src/*.cu)")
    return shlex.split(lines[-1])


def sites(sass):
    """(kernel, instruction, [file:line, ...]) for each LDL / STL of nvdisasm -gi output."""
    kernel, chain, after_file = "?", [], False
    for ln in sass.splitlines():
        m = re.match(r"\s*\.text\.(\S+):", ln)
        if m:
            kernel = m.group(1)
            continue
        m = re.match(r'\s*//## File "([^"]+)", line (\d+)', ln)
        if m:
            if not after_file:
                chain = []
            chain.append(f"{m.group(1).split('/include/')[-1].split('/src/')[-1]}:{m.group(2)}")
            after_file = True
            continue
        after_file = False
        if re.search(r"\b(LDL|STL)(\.\S+)?\s", ln):
            ins = re.sub(r"/\*[0-9a-f]+\*/", "", ln).split("(*")[0].strip().rstrip(";")
            yield kernel, ins, chain[:-1] or chain


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    build, units = sys.argv[1], sys.argv[2:]
    for unit in units:
        cmd = compile_command(build, unit)
        nvcc = shutil.which(cmd[0]) or cmd[0]
        with tempfile.TemporaryDirectory() as tmp:
            out = os.path.join(tmp, unit + ".o")
            cmd[cmd.index("-o") + 1] = out
            cmd = [c for c in cmd if c not in ("-MD",)]
            if "-MF" in cmd:
                i = cmd.index("-MF")
                del cmd[i:i + 2]
            if "-MT" in cmd:
                i = cmd.index("-MT")
                del cmd[i:i + 2]
            r = subprocess.run(cmd + ["-Xptxas", "-v"], cwd=build, capture_output=True, text=True)
            if r.returncode != 0:
                sys.exit(f"spill_sites: {unit} failed to compile:\n{r.stderr[-3000:]}")
            print(f"== {unit}")
            entry = None
            for ln in r.stderr.splitlines():
                m = re.search(r"Compiling entry function '(\S+)' for '(\S+)'", ln)
                if m:
                    entry = m.group(1)
                elif "spill" in ln and entry:
                    print(f"  {entry}: {ln.strip()}")
                elif re.search(r"\(C75\d\d\)", ln):
                    print(f"  {ln.strip()}")
            subprocess.run([tool("cuobjdump", nvcc), "-xelf", "all", out], cwd=tmp, capture_output=True)
            for cubin in sorted(f for f in os.listdir(tmp) if f.endswith(".cubin")):
                d = subprocess.run([tool("nvdisasm", nvcc), "-gi", "-c", os.path.join(tmp, cubin)], capture_output=True, text=True)
                last = None
                for kernel, ins, chain in sites(d.stdout):
                    if kernel != last:
                        print(f"  {cubin}: {kernel}")
                        last = kernel
                    print(f"    {ins:34s} {' < '.join(chain[:6])}")


if __name__ == "__main__":
    main()
