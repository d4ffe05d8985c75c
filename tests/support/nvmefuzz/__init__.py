"""A stateful fuzzer for the femu NVMe controller over qtest (tests/fuzz/README.md).

The host driver is the module nvme_qtest beside this package in tests/support, which
pytest puts on the import path (pyproject.toml, pythonpath) and the command line gets from
PYTHONPATH=tests/support (__main__.py); femu_lab (scripts/) comes with the project's venv.
"""
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parents[3]
