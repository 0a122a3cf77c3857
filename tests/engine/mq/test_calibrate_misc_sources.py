"""The calibration scripts' inputs: committed calibration copy, seed folder lookup, clear errors."""

import json

import pytest

from engine.calibrate.misc import db2v8 as cal_db2v8
from engine.calibrate.misc import mq as cal_mq
from engine.calibrate.misc.sources import DEFAULT_CALIBRATION, MissingInputError, load_calibration, seeds_dir
from engine.perf.coeffload import COEFF_DIR


def test_default_calibration_is_the_committed_copy():
    doc = load_calibration()
    assert DEFAULT_CALIBRATION.is_file()
    assert any(s["kind"] == "db2mirror" for s in doc["scenarios"])


def test_missing_seed_names_path_and_remedy(tmp_path):
    with pytest.raises(MissingInputError) as e:
        cal_db2v8.derive(tmp_path)
    msg = str(e.value)
    assert str(tmp_path / cal_db2v8.SEED) in msg and "--seeds" in msg and "QRTUNE_SEEDS" in msg
    with pytest.raises(MissingInputError, match="003_"):
        cal_mq.derive(load_calibration(), tmp_path)


def test_bad_calibration_file_is_named(tmp_path):
    p = tmp_path / "c.json"
    p.write_text("{not json")
    with pytest.raises(MissingInputError, match="not valid JSON"):
        load_calibration(p)
    with pytest.raises(MissingInputError, match="cannot be read"):
        load_calibration(tmp_path / "absent.json")


def test_seed_folder_precedence(tmp_path, monkeypatch):
    monkeypatch.setenv("QRTUNE_SEEDS", str(tmp_path))
    assert seeds_dir() == tmp_path
    assert seeds_dir("/elsewhere").as_posix() == "/elsewhere"


def test_db2v8_derivation_reproduces_committed_coefficients(monkeypatch):
    monkeypatch.delenv("QRTUNE_SEEDS", raising=False)
    seeds = seeds_dir()
    if not (seeds / cal_db2v8.SEED).is_file():
        pytest.skip(f"seed documents not found at {seeds}")
    derived = cal_db2v8.derive(seeds)
    committed = json.loads((COEFF_DIR / "db2v8.json").read_text())
    assert derived == committed


def test_coefficient_files_are_written_atomically(tmp_path, monkeypatch):
    """A write that fails (here at fsync) leaves the committed file as it was, and no temporary file."""
    monkeypatch.delenv("QRTUNE_SEEDS", raising=False)
    if not (seeds_dir() / cal_db2v8.SEED).is_file():
        pytest.skip(f"seed documents not found at {seeds_dir()}")
    out = tmp_path / "db2v8.json"
    out.write_text('{"committed": true}\n')
    monkeypatch.setattr(cal_db2v8, "OUT", out)

    def failing_fsync(fd):
        raise OSError(28, "No space left on device")

    with monkeypatch.context() as m:
        m.setattr("os.fsync", failing_fsync)
        with pytest.raises(OSError, match="No space"):
            cal_db2v8.main([])
    assert out.read_text() == '{"committed": true}\n' and [p.name for p in tmp_path.iterdir()] == [
        "db2v8.json"
    ]
    assert cal_db2v8.main([]) == 0
    assert json.loads(out.read_text()) == cal_db2v8.derive(seeds_dir())
