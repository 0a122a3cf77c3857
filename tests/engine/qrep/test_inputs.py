"""Bad settings give one clear message naming the field, the value and what is allowed."""

import pytest
from qrep_test_helpers import with_setting

from engine.errors import QrtuneError, ValueRangeError
from engine.perf.qrep import predict
from engine.perf.qrep.inputs import read_inputs


@pytest.mark.parametrize(
    "path, value, expected",
    [
        (
            "qcapture.trans_batch_sz",
            0,
            "qcapture.trans_batch_sz: 0 is not allowed; expected an integer from 1",
        ),
        ("qapply.num_apply_agents", 2.5, "qapply.num_apply_agents: 2.5 is not allowed"),
        ("topology", "ring", "topology: \"ring\" is not allowed; expected one of 'unidirectional'"),
        (
            "table.columns",
            {"BLOB": 3},
            'table.columns.BLOB: "BLOB" is not allowed; expected a Db2 column type',
        ),
        ("mq.read_ahead", "maybe", 'mq.read_ahead: "maybe" is not allowed; expected true or false'),
        ("hardware.cpu_model", "z80", 'hardware.cpu_model: "z80" is not allowed; expected one of'),
        (
            "run.mode",
            "drain",
            "run.initial_receive_queue_depth: 0 is not allowed; expected a positive number",
        ),
    ],
)
def test_bad_settings_name_path_value_and_allowed(baseline, path, value, expected):
    with pytest.raises(ValueRangeError) as e:
        predict(with_setting(baseline, path, value))
    assert expected in str(e.value)
    assert isinstance(e.value, QrtuneError)


def test_defaults_fill_missing_groups():
    inputs, used = read_inputs({"kind": "qrep", "table": {"columns": {"INTEGER": 4}}})
    assert inputs.row_bytes == 16 and inputs.trans_batch_sz == 1 and inputs.topology == "unidirectional"
    assert "qcapture.trans_batch_sz" in used


def test_column_types_give_row_bytes_and_mix_is_proportional():
    inputs, _ = read_inputs(
        {
            "kind": "qrep",
            "table": {"columns": {"DECIMAL(20,0)": 2, "CHAR(10)": 1}},
            "workload": {"rows_per_txn": 10, "inserts_per_txn": 1, "updates_per_txn": 3},
        }
    )
    assert inputs.row_bytes == 2 * 11 + 10
    # deletes_per_txn takes the registry default (1)
    assert inputs.insert_frac == pytest.approx(0.2) and inputs.update_frac == pytest.approx(0.6)
