"""A stateful fuzzer for the femu NVMe controller over qtest (tests/fuzz/README.md).

The host driver is tests/device/nvme_qtest.py (imported as a module, so this package puts
tests/device on the path); femu_lab (scripts/) comes with the project's venv.
"""
import sys
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parents[3]
_DEVICE_TESTS = str(REPO_ROOT / "tests" / "device")
if _DEVICE_TESTS not in sys.path:
    sys.path.insert(0, _DEVICE_TESTS)
