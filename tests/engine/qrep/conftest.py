"""Fixtures of the Q Replication engine tests (helpers live in ``qrep_test_helpers``)."""

import copy

import pytest
from qrep_test_helpers import SCENARIOS


@pytest.fixture
def scenarios():
    return copy.deepcopy(SCENARIOS)


@pytest.fixture
def baseline():
    s = copy.deepcopy(SCENARIOS["rp-t2-4-baseline"])
    s.pop("measured", None)
    return s
