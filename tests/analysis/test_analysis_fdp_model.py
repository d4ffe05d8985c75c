"""The analytic WAF of data placement (femu_analysis.fdp_model): the FIFO / LRU fixed
point against values computed by hand, the spare, and the textbook hot/cold optimum."""
import math

import pytest

from femu_analysis import fdp_model


# u = -W0(-r e^-r) / r (W0: Lambert's W, principal branch), worked out by hand:
#   r = 2:   W0(-2 e^-2)   = W0(-0.2706706) = -0.4063757  ->  u = 0.2031879
#   r = 1.5: W0(-1.5 e^-1.5) = W0(-0.3346952) = -0.6257825 ->  u = 0.4171884
#   r = 4/3 (25 % of raw held back): W0(-0.3515) = -0.7274733 -> u = 0.5456050
@pytest.mark.parametrize("ratio, u", [(2.0, 0.2031879), (1.5, 0.4171884),
                                      (4 / 3, 0.5456050)])
def test_fixed_point_matches_hand_values(ratio, u):
    got = fdp_model.victim_utilization(ratio)
    assert got == pytest.approx(u, abs=1e-6)
    assert got == pytest.approx(math.exp(-(1 - got) * ratio), abs=1e-12)   # a fixed point
    assert got < 1 / ratio      # the root below 1, not the trivial u = 1


def test_class_waf():
    assert fdp_model.class_waf(1000, 1000) == pytest.approx(1 / (1 - 0.2031879), abs=1e-5)
    assert fdp_model.class_waf(100, 0) == math.inf
    # more spare, less amplification
    wafs = [fdp_model.class_waf(1000, spare) for spare in (100, 200, 400, 800)]
    assert wafs == sorted(wafs, reverse=True)
    with pytest.raises(ValueError):
        fdp_model.victim_utilization(1.0)


def test_spare_pages_of_the_dftl_lab_geometry():
    # 512 blocks of 64 pages, 96 MiB logical, 25 blocks kept for foreground GC
    assert fdp_model.spare_pages(32768, 24576, 25, 64) == 6592
    assert fdp_model.spare_pages(32768, 24576, 25, 64, open_units=2) == 6464


def test_textbook_optimum():
    # 10 % of the LBAs take 90 % of the writes; S = 6592 pages
    waf, (hot, cold) = fdp_model.hot_cold_optimum(24576, 0.10, 0.90, 6592)
    assert waf == pytest.approx(1.437, abs=0.0005)
    assert hot + cold == pytest.approx(6592)
    # the optimum beats any other split, and both classes alone
    for share in (0.2, 0.4, 0.6, 0.8):
        other = fdp_model.mixed_waf([(2458, 0.9), (22118, 0.1)], (6592 * share, 6592 * (1 - share)))
        assert other > waf
    # one class with all the spare: the uniform case's WAF, far above
    assert fdp_model.class_waf(24576, 6592) == pytest.approx(2.5586, abs=0.0005)


def test_optimal_split_refuses_what_it_cannot_do():
    with pytest.raises(ValueError):
        fdp_model.optimal_split([(10, 1.0)], 100)
    with pytest.raises(ValueError):
        fdp_model.optimal_split([(10, 0.5), (10, 0.5)], 0)
