"""The main job's report (tools/scorecard_report.py) from the saved H100 results in bench/results/.

`tessera scorecard --out` (the C++ scoring, TESSERA_CLI) turns the saved results into a scorecard
document; the report written from it must carry the document's numbers, say so when matplotlib is
missing, and draw its plots where matplotlib is installed (that test is skipped elsewhere).
"""
import importlib.util
import json
import os
import pathlib
import shutil
import subprocess
import sys

import pytest

from conftest import REPO

RESULTS = REPO / "bench" / "results"
SCRIPT = REPO / "tools" / "scorecard_report.py"
FILES = ["copy_defaults.json", "gemm_sm90.json", "fused.json", "pipeline.json", "roofline.json"]
PLOTS = ["gemm_ratio.png", "copy_bandwidth.png", "roofline.png"]


@pytest.fixture(scope="module")
def document(tmp_path_factory):
    """The scorecard document of the saved results, written by `tessera scorecard --out`."""
    cli = os.environ.get("TESSERA_CLI")
    if not cli:
        pytest.skip("TESSERA_CLI (the tessera command) is not set; scripts/test.sh sets it")
    out = tmp_path_factory.mktemp("scorecard")
    run = subprocess.run([cli, "scorecard", *[str(RESULTS / f) for f in FILES], "--out", str(out),
                          "--python", sys.executable], capture_output=True, text=True)
    assert run.returncode == 0, run.stdout + run.stderr
    return json.loads((out / "scorecard.json").read_text())


def write_report(data, out, hide_matplotlib):
    """Runs the report script on `data` into `out`; with hide_matplotlib, as if it were not installed."""
    out.mkdir(parents=True, exist_ok=True)
    (out / "scorecard.json").write_text(json.dumps(data))
    env = dict(os.environ)
    if hide_matplotlib:
        fake = out / "no_matplotlib"
        (fake / "matplotlib").mkdir(parents=True)
        (fake / "matplotlib" / "__init__.py").write_text("raise ImportError('hidden by the test')\n")
        env["PYTHONPATH"] = str(fake)
    run = subprocess.run([sys.executable, str(SCRIPT), str(out / "scorecard.json"), str(out)], capture_output=True,
                         text=True, env=env)
    assert run.returncode == 0, run.stdout + run.stderr
    return (out / "report.md").read_text(), run.stdout


def row(md, family):
    start = md.index(f"| {family} |")
    return md[start:md.index("\n", start)]


def fig(v):
    return f"{v:.0f}" if abs(v) >= 1000 or v == 0 else f"{v:.1f}" if abs(v) >= 10 else f"{v:.2f}" if abs(v) >= 1 else f"{v:.3g}"


def test_report_numbers_come_from_the_document(document, tmp_path):
    data = json.loads(json.dumps(document))
    lines = data["scorecard"]
    assert len(lines) == 12
    assert {line["verdict"] for line in lines} >= {"met", "MISSED", "not run"}
    # change one line's numbers: the report must follow the document, not anything else
    copy = next(line for line in lines if line["family"] == "copy, >= 256 MiB")
    copy.update(figure=1234.5, reference_figure=2345.6, ratio=0.5263, verdict="MISSED")
    md, _ = write_report(data, tmp_path, hide_matplotlib=True)
    assert "| 1234 GB/s | cudaMemcpy D2D 2346 GB/s | 0.53 | >= 0.97 | MISSED |" in row(md, "copy, >= 256 MiB")
    for line in lines:
        r = row(md, line["family"])
        assert line["verdict"] in r
        if line["verdict"] != "not run":
            assert f"| {line['ratio']:.2f} |" in r, r
            assert f"{fig(line['figure'])} {line['unit']}" in r, r
            assert f"{line['reference']} {fig(line['reference_figure'])}" in r, r
    assert document["gpu"]["name"] in md
    assert f"{len(data['records'])} records, by suite" in md
    gemm = [r for r in data["records"] if r["suite"] == "gemm"]
    assert f"### gemm ({len(gemm)} records)" in md
    bare = next(r for r in gemm if r["variant"] == "bare")
    assert f"| {bare['kernel']} | bare | {bare['size']} | {fig(bare['figure'])} TFLOP/s |" in md


def test_report_without_matplotlib_says_so(document, tmp_path):
    md, out = write_report(document, tmp_path, hide_matplotlib=True)
    assert "Plots not drawn: matplotlib is not installed (python3 -m pip install matplotlib)." in md
    assert "plots:  none: matplotlib is not installed" in out
    assert f"report: {tmp_path / 'report.md'}" in out
    for plot in PLOTS:
        assert not (tmp_path / plot).exists()
        assert f"]({plot})" not in md


@pytest.mark.skipif(importlib.util.find_spec("matplotlib") is None, reason="matplotlib is not installed")
def test_report_draws_its_plots(document, tmp_path):
    md, out = write_report(document, tmp_path, hide_matplotlib=False)
    for plot in PLOTS:
        path = tmp_path / plot
        assert path.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n", plot
        assert path.stat().st_size > 20000, plot  # a drawing, not an empty canvas
        assert f"]({plot})" in md
        assert str(path) in out
    assert (tmp_path / "roofline.svg").exists()
    # without a roofline and without copy records, those plots are left out and the report says why
    data = dict(document, roofline=None, records=[r for r in document["records"] if r["suite"] != "copy"])
    other = tmp_path / "partial"
    md, _ = write_report(data, other, hide_matplotlib=False)
    assert (other / "gemm_ratio.png").exists()
    assert not (other / "copy_bandwidth.png").exists() and not (other / "roofline.png").exists()
    assert "Copy bandwidth against size: not drawn (no copy records)." in md
    assert "Roofline: not drawn (no roofline measurements)." in md
    shutil.rmtree(other)


def test_gemm_plot_takes_the_bf16_records():
    spec = importlib.util.spec_from_file_location("scorecard_report", SCRIPT)
    report = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(report)
    base = {"suite": "gemm", "kernel": "tessera", "variant": "bare", "size": "M=4096,N=4096,K=4096",
            "reference_figure": 700.0, "ratio": 1.0}
    records = [dict(base, dtype="bf16"), dict(base, dtype="f16", ratio=0.5), dict(base, size="M=8192,N=8192,K=8192"),
               dict(base, kernel="cublasGemmEx"), dict(base, dtype="bf16", reference_figure=0.0)]
    picked = report.gemm_plot_records(records)
    assert [(r["size"], r.get("dtype")) for r in picked] == [("M=4096,N=4096,K=4096", "bf16"), ("M=8192,N=8192,K=8192", None)]


def test_report_usage(tmp_path):
    run = subprocess.run([sys.executable, str(SCRIPT)], capture_output=True, text=True)
    assert run.returncode == 2 and "usage: scorecard_report.py SCORECARD.json OUT_DIR" in run.stderr
    assert pathlib.Path(SCRIPT).is_file()
