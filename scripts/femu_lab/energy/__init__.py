"""femu-lab energy: joules per GiB written against WAF (waf), and APST's trade of power
against latency on a bursty trace (apst), in ftl-sim with energy=on (docs/energy.md,
docs/labs.md "Energy and power states")."""
