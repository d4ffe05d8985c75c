"""The fuzzer's CI pass uses the device tests' QEMU: FEMU_QEMU when set, else the binary
the session builds with femu-compile.sh (tests/device/conftest.py's `qemu` fixture,
loaded here under a name of its own since both files are called conftest.py)."""
import importlib.util

from nvmefuzz import REPO_ROOT
from nvme_qtest import nvme_qemu  # noqa: F401  (fixture)

_spec = importlib.util.spec_from_file_location(
    "femu_device_conftest", REPO_ROOT / "tests" / "device" / "conftest.py")
_device = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(_device)
qemu = _device.qemu
