"""`qrtune mq-calc` and `qrtune v8`: results on good input, one clear line on bad input."""

import json
import re

import pytest

from engine.cli import main
from engine.perf import db2v8


def _run(capsys, *argv):
    try:
        code = main(list(argv))
    except SystemExit as e:  # a number out of range is refused where argparse reads it
        code = e.code
    out, err = capsys.readouterr()
    return code, out, err


def test_v8_band_catalog_and_page_fix(capsys):
    code, out, _ = _run(
        capsys,
        "v8",
        "--workload",
        "batch",
        "--cpu",
        "200",
        "--catalog-gb",
        "2",
        "--pool",
        "BP1:1000:5000",
        "--pool",
        "BP2:1000:3",
        "--json",
    )
    assert code == 0
    doc = json.loads(out)
    lo, hi = db2v8.cpu_change_band("batch")
    assert doc["cpu_band"] == pytest.approx([200 * (1 + lo), 200 * (1 + hi)])
    assert doc["catalog_migration_min"] == pytest.approx(db2v8.catalog_migration_minutes(2.0))
    assert [p["pool"] for p in doc["page_fix"]] == ["BP1", "BP2"]
    assert doc["page_fix"][0]["recommend"] and not doc["page_fix"][1]["recommend"]


@pytest.mark.parametrize(
    "argv, flag, value",
    [
        (["v8", "--workload", "bogus"], "--workload", "bogus"),
        (["v8", "--cpu", "-5"], "--cpu", "-5"),
        (["v8", "--cpu", "nan"], "--cpu", "nan"),
        (["v8", "--catalog-gb", "inf"], "--catalog-gb", "inf"),
        (["v8", "--pool", "BP1:0:5"], "--pool", "BP1:0:5"),
        (["v8", "--pool", "BP1:10"], "--pool", "BP1:10"),
        (["mq-calc", "--message-kb", "0"], "--message-kb", "0"),
        (["mq-calc", "--message-kb", "1e9"], "--message-kb", "1e9"),
        (["mq-calc", "--compressibility", "1"], "--compressibility", "1"),
        (["mq-calc", "--ssl", "--reneg-kb", "-1"], "--reneg-kb", "-1"),
        (["mq-calc", "--log-tb-per-year", "0"], "--log-tb-per-year", "0"),
        (["mq-calc", "--log-growth-pct", "nan"], "--log-growth-pct", "nan"),
    ],
)
def test_bad_input_is_one_line_naming_option_value_and_allowed(capsys, argv, flag, value):
    code, out, err = _run(capsys, *argv)
    assert code == 2 and out == ""
    lines = err.strip().splitlines()
    assert len(lines) == 1
    assert flag in lines[0] and value in lines[0] and "expected" in lines[0]


def test_workload_list_names_every_type(capsys):
    _, _, err = _run(capsys, "v8", "--workload", "x")
    for t in db2v8.workload_types():
        assert t in err


def test_mq_calc_ssl_and_rba(capsys):
    code, out, _ = _run(
        capsys, "mq-calc", "--ssl", "--message-kb", "64", "--compressibility", "0.4", "--json"
    )
    doc = json.loads(out)
    assert code == 0
    assert doc["ssl_renegotiation_us_per_msg"] is not None
    assert doc["log_bytes_per_message"]["rba8"] > doc["log_bytes_per_message"]["rba6"]
    assert doc["years_until_rba_reset"]["rba8"] > doc["years_until_rba_reset"]["rba6"]


def test_mq_calc_and_v8_print_each_result_with_its_unit(capsys):
    """Without --json a user reads one line per result, its value in the value column and its unit."""
    code, out, _ = _run(capsys, "mq-calc", "--ssl", "--message-kb", "5.8", "--compressibility", "0.5")
    doc = json.loads(
        _run(capsys, "mq-calc", "--ssl", "--message-kb", "5.8", "--compressibility", "0.5", "--json")[1]
    )
    assert code == 0 and out.startswith("MQ calculators for 5.80 KB messages")
    lo, hi = doc["ssl_renegotiation_us_per_msg"]
    assert re.search(rf"TLS renegotiation \(SSLRKEYC 1,024 KB\)\s+{lo:.1f} \.\. {hi:.1f} us per message", out)
    assert re.search(
        rf"MQ log per message \(8-byte RBA\)\s+{round(doc['log_bytes_per_message']['rba8']):,} bytes", out
    )
    assert "local (bindings) connection" in out and "{" not in out
    code, out, _ = _run(capsys, "v8", "--workload", "batch", "--cpu", "200", "--pool", "BP1:1000:5000")
    lo, hi = (200 * (1 + c) for c in db2v8.cpu_change_band("batch"))
    assert code == 0 and re.search(rf"V7 CPU 200\.0 in V8\s+{lo:.1f} \.\. {hi:.1f}", out)
    assert re.search(r"page-fix BP1 \(PGFIX YES\)\s+5\.00 pages of I/O per buffer: recommended", out)
