"""The queueing helpers against closed-form results."""

import pytest

from engine.perf.qrep.queueing import blocking_factor, cpu_inflation, erlang_c, mmc_wait


@pytest.mark.parametrize("rho", [0.1, 0.5, 0.9])
def test_erlang_c_of_one_server_is_the_utilisation(rho):
    assert erlang_c(1, rho) == pytest.approx(rho)


def test_erlang_c_two_servers_closed_form():
    rho = 0.6  # C(2, a) = 2 rho^2 / (1 + rho) for M/M/2
    assert erlang_c(2, rho) == pytest.approx(2 * rho**2 / (1 + rho))


def test_mm1_wait_and_inflation():
    assert mmc_wait(1, 0.5, 2.0) == pytest.approx(2.0)  # rho / (1 - rho) * S
    assert cpu_inflation(1, 0.5, 1.0) == pytest.approx(2.0)  # M/M/1 response time / service time
    assert cpu_inflation(8, 0.5, 1.0) < cpu_inflation(2, 0.5, 1.0) < cpu_inflation(1, 0.5, 1.0)
    assert cpu_inflation(3, 0.0, 1.0) == 1.0 and cpu_inflation(3, 0.9, 0.0) == 1.0


def test_saturation_stays_finite():
    assert 1.0 < cpu_inflation(3, 1.5, 1.0) < 1e4
    assert erlang_c(200, 0.99) <= 1.0


def test_blocking_factor():
    assert blocking_factor(0) == pytest.approx(0.5)
    assert blocking_factor(1e9) == pytest.approx(1.0)
    assert blocking_factor(10) < blocking_factor(100)
