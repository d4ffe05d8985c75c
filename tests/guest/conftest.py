"""Fixtures for the guest tests: the built image, a small NVMe backing file and
a helper that boots one job on QEMU's stock NVMe device.

The image is femu_guest's default release; FEMU_GUEST_RELEASE=bookworm (or another name
in femu_guest.RELEASES) runs these tests on that release's image instead.

Boots run one at a time (the machine has 2 cores); each has a host deadline
and the harness reaps QEMU, which test_guest_runs checks after every run.
"""
import os
import shutil
from pathlib import Path

import pytest

from femu_guest import image as guest_image
from femu_lab.vm import launch as vm

BACKING_BYTES = 256 << 20


@pytest.fixture(scope="session")
def image(pytestconfig) -> guest_image.GuestImage:
    if shutil.which("qemu-system-x86_64") is None:
        pytest.fail("qemu-system-x86_64 missing: run scripts/install-deps.sh "
                    "(scripts/deps/guest.apt)")
    # A first build takes ~20 s: let its progress lines reach the terminal.
    capture = pytestconfig.pluginmanager.getplugin("capturemanager")
    try:
        with capture.global_and_fixture_disabled():
            return guest_image.ensure_image(release=os.environ.get("FEMU_GUEST_RELEASE"))
    except ValueError as error:
        pytest.fail(f"FEMU_GUEST_RELEASE: {error}")


@pytest.fixture(scope="session")
def backing_file(tmp_path_factory) -> Path:
    return vm.make_backing_file(tmp_path_factory.mktemp("nvme") / "disk.img", BACKING_BYTES)


@pytest.fixture
def boot(image, backing_file, tmp_path):
    """boot(script, **VmSpec fields) -> RunResult for a job on the stock NVMe device."""
    def run_job(script: str, **overrides) -> vm.RunResult:
        fields = dict(job=script, kernel=image.kernel, initramfs=image.initramfs,
                      device_args=vm.stock_nvme_args(backing_file), job_timeout=120)
        fields.update(overrides)
        result = vm.run(vm.VmSpec(**fields), tmp_path / "run")
        print(result.summary())
        assert result.qemu_returncode is not None, "QEMU was not reaped"
        return result
    return run_job
