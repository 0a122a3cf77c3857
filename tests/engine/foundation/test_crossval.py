"""Leave-one-table-out cross-validation (engine.calibrate.crossval) and the calibration scripts' exclusion."""

import json
import math
import statistics
import subprocess
import sys
from pathlib import Path

import pytest

from engine.calibrate import crossval as cv
from engine.calibrate import qrep as calibrate_qrep
from engine.calibrate.misc import mirror as cal_mirror
from engine.calibrate.misc.sources import without_scenarios

ROOT = Path(__file__).resolve().parents[3]
SCORE_PY = ROOT.parent / "shared" / "validation" / "score.py"


def _scen(sid, source, **measured):
    return {"id": sid, "kind": "toy", "source": source, "measured": measured}


def _toy_doc():
    """Three published tables of a toy kind whose only coefficient is the mean of metric x."""
    return {
        "format": "qrtune-scenarios/1",
        "scenarios": [
            _scen("a-1", "900_x.txt (Toy), Table 1 (first)", x=10.0, lat_ms=5.0),
            _scen("a-2", "900_x.txt (Toy), Table 1 (first)", x=12.0),
            _scen("b-1", "900_x.txt (Toy), Table 2", x=20.0),
            _scen("b-2", "900_x.txt (Toy), Table 2", x=30.0),
            _scen("c-1", "901_y.txt (Other), Figure 3 (runs)", x=100.0),
        ],
        "relations": [{"id": "r", "a": "b-2", "b": "b-1", "metric": "x", "ratio": 1.5}],
    }


SEEN = []


def _toy_fit(data, exclude, max_nfev):
    SEEN.append(sorted(s["id"] for s in data["scenarios"] if s["id"] not in exclude))
    xs = [s["measured"]["x"] for s in data["scenarios"] if s["id"] not in exclude and s["kind"] == "toy"]
    # pretend the fit without the figure ran out of evaluations (status 0, as least_squares says)
    return {"mean": statistics.mean(xs), "fit": {"status": 0 if "c-1" in exclude else 1}}


def _toy_predict(doc, scenarios):
    return {s["id"]: {"x": doc["mean"], "lat_ms": doc["mean"] / 2} for s in scenarios}


TOY = {"toy": (_toy_fit, _toy_predict, lambda doc: {"mean": doc["mean"]})}


def test_tables_group_runs_of_one_published_table():
    doc = _toy_doc()
    assert cv.table_of(doc["scenarios"][0]) == "900 Table 1"
    assert cv.table_of(doc["scenarios"][4]) == "901 Figure 3"
    assert cv.table_of({"id": "lonely"}) == "lonely"
    assert cv.groups_of(doc, ["toy"]) == {
        ("toy", "900 Table 1"): ["a-1", "a-2"],
        ("toy", "900 Table 2"): ["b-1", "b-2"],
        ("toy", "901 Figure 3"): ["c-1"],
    }
    # the bundled measurements: the Redpaper's column-count table and dW figures 7 and 8 stay whole
    data = json.loads((ROOT / "assets" / "validation" / "calibration.json").read_text())
    groups = cv.groups_of(data)
    assert groups[("qrep", "000 Table 3-1")] == ["rp-t3-1-cols-12", "rp-t3-1-cols-30", "rp-t3-1-cols-60"]
    assert groups[("qrep", "001 Figures 7 and 8")] == [
        "dw-unidirectional",
        "dw-bidirectional",
        "dw-peer-to-peer",
    ]


def test_each_fold_fits_without_its_table_and_predicts_it():
    SEEN.clear()
    rep = cv.crossvalidate(_toy_doc(), ["toy"], jobs=1, fitters=TOY)
    assert ["a-1", "a-2", "b-1", "b-2", "c-1"] in SEEN  # the in-sample fit
    for kept in (["b-1", "b-2", "c-1"], ["a-1", "a-2", "c-1"], ["a-1", "a-2", "b-1", "b-2"]):
        assert kept in SEEN
    tables = {t["table"]: t for t in rep["tables"]}
    out_b = {r["id"]: r["predicted"] for r in tables["900 Table 2"]["rows_out"] if r["metric"] == "x"}
    assert out_b == {"b-1": pytest.approx((10 + 12 + 100) / 3), "b-2": pytest.approx((10 + 12 + 100) / 3)}
    in_b = {r["id"]: r["predicted"] for r in tables["900 Table 2"]["rows_in"] if r["metric"] == "x"}
    assert in_b["b-1"] == pytest.approx(172 / 5)
    # held-out error of table 2: |40.67 - 20| / 20 and |40.67 - 30| / 30; median of two = their mean
    m = (10 + 12 + 100) / 3
    expected = ((m - 20) / 20 + (m - 30) / 30) / 2
    assert tables["900 Table 2"]["held_out"]["rate_median_ape"] == pytest.approx(expected)
    # the relation b-2 / b-1 is checked with table 2 (both predictions equal: ratio 1 against 1.5)
    assert tables["900 Table 2"]["held_out"]["relations_median_ape"] == pytest.approx(0.5 / 1.5)
    # the overall held-out line pools every table's held-out rows
    assert rep["overall"]["all"]["held_out"]["rate_n"] == 6  # five x and one lat_ms (a rate by its name)
    assert rep["coefficients"]["toy"]["mean"]["moved_most_without"] == "901 Figure 3"
    assert [t["stopped_at_max_nfev"] for t in rep["tables"]] == [False, False, True]
    text = cv.render(rep)
    assert "900 Table 2" in text and "stopped at --max-nfev" in text


def test_only_holds_out_the_named_tables_and_rejects_unknown_ones():
    rep = cv.crossvalidate(_toy_doc(), ["toy"], only=["table 2"], jobs=1, fitters=TOY)
    assert [t["table"] for t in rep["tables"]] == ["900 Table 2"]
    with pytest.raises(ValueError, match="Table 9"):
        cv.crossvalidate(_toy_doc(), ["toy"], only=["Table 9"], jobs=1, fitters=TOY)


def test_statistics_follow_the_scorer_definitions():
    scen = [_scen(f"s{i}", "900_x.txt (T), Table 1", x=float(m)) for i, m in enumerate([10, 20, 40, 40, 10])]
    scen[0]["measured"]["end2end_latency_ms"] = 100.0
    scen[1]["measured"]["zero_rate"] = 0.0
    scen[2]["measured"]["unpredicted"] = 3.0
    preds = {
        "s0": {"x": 11.0, "end2end_latency_ms": 150.0},
        "s1": {"x": 18.0, "zero_rate": 0.5},
        "s2": {"x": 44.0, "unpredicted": math.nan},
        "s3": {"x": 30.0},
        "s4": {"x": 12.0},
    }
    s = cv.summarise(cv.compare(scen, preds))
    rates = sorted([0.1, 0.1, 0.1, 0.25, 0.2, 0.5])  # x errors, and |0.5| for the measured zero
    assert s["rate_n"] == 6 and s["rate_median_ape"] == pytest.approx(statistics.median(rates))
    assert s["rate_p90_ape"] == pytest.approx(rates[min(5, int(0.9 * 6))])
    assert s["latency_n"] == 1 and s["latency_median_ape"] == pytest.approx(0.5)
    assert s["coverage"] == pytest.approx(7 / 8)
    # trends (rate metrics, consecutive scenarios, measured step >= 5%): 10->20 up ok, 20->40 up ok,
    # 40->40 skipped, 40->10 down ok (30 -> 12)
    assert (s["trend_n"], s["trend_agreement"]) == (3, 1.0)
    preds["s1"]["x"] = 9.0  # 10 -> 20 now predicted down (11 -> 9), 20 -> 40 still up
    assert cv.summarise(cv.compare(scen, preds))["trend_agreement"] == pytest.approx(2 / 3)


@pytest.mark.skipif(not SCORE_PY.exists(), reason="../shared/validation/score.py not beside the repository")
def test_statistics_match_score_py(tmp_path):
    doc = _toy_doc()
    for s in doc["scenarios"][:3]:
        s["measured"]["apply_latency_ms"] = 50.0 * len(s["id"])
    preds = {
        "a-1": {"x": 11.0, "apply_latency_ms": 70.0},
        "a-2": {"x": 9.0, "apply_latency_ms": 150.0},
        "b-1": {"x": 25.0, "apply_latency_ms": 140.0},
        "b-2": {"x": 26.0},
        "c-1": {"x": 90.0},
    }
    (tmp_path / "s.json").write_text(json.dumps(doc))
    results = [{"id": k, "predicted": v} for k, v in preds.items()]
    (tmp_path / "p.json").write_text(json.dumps({"results": results}))
    fake = tmp_path / "fake.py"
    fake.write_text("import sys; print(open(sys.argv[1]).read())\n")
    out = tmp_path / "score.json"
    subprocess.run(
        [
            sys.executable,
            str(SCORE_PY),
            "--cmd",
            f"{sys.executable} {fake} {tmp_path / 'p.json'}",
            "--json",
            str(out),
            str(tmp_path / "s.json"),
        ],
        check=True,
        capture_output=True,
        timeout=60,
    )
    ref = json.loads(out.read_text())["summary"]
    mine = cv.summarise(cv.compare(doc["scenarios"], preds, doc["relations"]))
    for k in (
        "coverage",
        "rate_median_ape",
        "rate_p90_ape",
        "rate_n",
        "latency_median_ape",
        "latency_p90_ape",
        "latency_n",
        "trend_agreement",
        "trend_n",
        "relations_median_ape",
    ):
        assert mine[k] == pytest.approx(ref[k]), k


def test_exclusion_removes_scenarios_and_their_relations():
    doc = _toy_doc()
    reduced, removed = without_scenarios(doc, ["b-*"])
    assert removed == ["b-1", "b-2"]
    assert [s["id"] for s in reduced["scenarios"]] == ["a-1", "a-2", "c-1"] and reduced["relations"] == []
    assert len(doc["scenarios"]) == 5  # the input is not changed
    with pytest.raises(ValueError, match="'z-\\*'"):
        without_scenarios(doc, ["z-*"])


def test_calibrate_qrep_fits_without_the_excluded_scenarios():
    data = json.loads((ROOT / "assets" / "validation" / "calibration.json").read_text())
    keep = {"rp-t3-3-txn-5", "rp-t3-3-txn-10"}
    small = {
        "format": data["format"],
        "scenarios": [s for s in data["scenarios"] if s["id"] in keep],
        "relations": [],
    }
    doc, removed = calibrate_qrep.calibrate(small, exclude=["rp-t3-3-txn-10"], max_nfev=1)
    assert removed == ["rp-t3-3-txn-10"] and doc["fit"]["excluded"] == ["rp-t3-3-txn-10"]
    n_fitted = sum(
        1 for n, p in calibrate_qrep.PARAMETERS.items() if p[3] and n not in calibrate_qrep.GEOMETRY
    )
    kept = next(s for s in small["scenarios"] if s["id"] == "rp-t3-3-txn-5")
    assert doc["fit"]["n_residuals"] == len(kept["measured"]) + n_fitted  # one scenario's metrics, the priors
    assert all(r["n"] == 1 for r in doc["residuals"].values())


def test_mirror_fit_passes_the_exclusion_to_every_stage(monkeypatch):
    data = json.loads((ROOT / "assets" / "validation" / "calibration.json").read_text())
    seen = []

    class Result:
        fun = [0.0]

    def fake_stage(names, values, scen, resid_fn, max_nfev):
        seen.append({s["id"] for s in scen})
        return Result()

    monkeypatch.setattr(cal_mirror, "_fit_stage", fake_stage)
    coeffs, report = cal_mirror.fit(data, exclude=["mir-cs1-*"])
    assert report["excluded"][0] == "mir-cs1-32k-pair1-ssd" and len(report["excluded"]) == 10
    assert len(seen) == 4 and all(ids and not any(i.startswith("mir-cs1") for i in ids) for ids in seen)
    seen.clear()
    cal_mirror.fit(data, exclude=["mir-client-*"])
    assert len(seen) == 3  # no client scenarios left: the client stage keeps its initial values
