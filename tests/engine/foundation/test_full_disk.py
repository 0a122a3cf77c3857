"""A write to a full disk fails loudly, exits 3 and leaves the previous file as it was.

The disk is a real 3 MB tmpfs when the tests may mount one, else a simulated ENOSPC
(:mod:`fulldisk`); the Parquet case needs the real one (DuckDB writes the file itself).
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

from engine import cli, projectfile, templates
from engine.errors import OutputFileError

ROOT = Path(__file__).resolve().parents[3]
SAMPLE = "sample_runs/redpaper-baseline.json"


def _no_temporaries(folder) -> bool:
    return not [p for p in os.listdir(folder) if p.endswith(".tmp")]


def test_a_project_save_on_a_full_disk_raises_and_keeps_the_previous_file(full_disk):
    target = full_disk.folder / "p.json"
    projectfile.save(templates.unidirectional(), target)
    before = target.read_bytes()
    full_disk.fill()
    with pytest.raises(OutputFileError, match=r"No space left on device; the previous p\.json is unchanged"):
        projectfile.save(templates.bidirectional(), target)
    assert target.read_bytes() == before and projectfile.load(target).name == templates.unidirectional().name
    assert _no_temporaries(full_disk.folder)


@pytest.fixture(scope="module")
def store_with_a_run(tmp_path_factory):
    db = tmp_path_factory.mktemp("store") / "runs.duckdb"
    assert cli.main(["predict", str(ROOT / SAMPLE), "--db", str(db)]) == 0
    return db


@pytest.mark.parametrize("fmt", ["csv", "parquet"])
def test_an_export_to_a_full_disk_exits_3_and_keeps_the_previous_file(
    full_disk, store_with_a_run, capsys, fmt
):
    if fmt == "parquet" and not full_disk.real:
        pytest.skip("DuckDB writes Parquet itself: only a real full file system (a tmpfs mount) exercises it")
    out = full_disk.folder / f"runs.{fmt}"
    assert cli.main(["export", "1", "--db", str(store_with_a_run), "-o", str(out)]) == 0
    before = out.read_bytes()
    full_disk.fill()
    capsys.readouterr()
    assert cli.main(["export", "1", "--db", str(store_with_a_run), "-o", str(out)]) == 3
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and f"the previous runs.{fmt} is unchanged" in err[0], err
    assert out.read_bytes() == before and _no_temporaries(full_disk.folder)


@pytest.mark.parametrize("target", ["/dev/full", "/dev/null"])
def test_an_export_to_a_device_is_refused_and_the_device_kept(store_with_a_run, capsys, target):
    if not os.path.exists(target):
        pytest.skip(f"{target} does not exist here")
    assert cli.main(["export", "1", "--db", str(store_with_a_run), "-o", target]) == 3
    assert "character device, not a regular file; nothing was written" in capsys.readouterr().err
    assert stat.S_ISCHR(os.stat(target).st_mode)


def test_an_existing_parquet_files_mode_is_kept(store_with_a_run, tmp_path):
    out = tmp_path / "runs.parquet"
    out.write_bytes(b"old")
    os.chmod(out, 0o640)
    assert cli.main(["export", "1", "--db", str(store_with_a_run), "-o", str(out)]) == 0
    assert stat.S_IMODE(os.stat(out).st_mode) == 0o640 and out.read_bytes()[:4] == b"PAR1"
