"""The KVM irqfd path: under KVM with the in-kernel irqchip each unmasked MSI-X vector of
the femu device is a KVM irqfd, so a completion's interrupt goes from the poller thread to
the guest without QEMU's main loop. Only a host where a guest really runs under KVM can
exercise it (the accelerator probe decides); elsewhere the test is skipped with the
probe's reason, and every other guest test runs under TCG as usual."""
import pytest

from femu_fixtures import SMALL_SSD, femu_qemu  # noqa: F401 - fixture
from femu_lab.vm import accel, launch as vm

pytestmark = pytest.mark.vm

JOB = """set -e
fio --name=irq --filename=/dev/nvme0n1 --rw=randwrite --bs=4k --ioengine=libaio \\
    --iodepth=8 --direct=1 --size=16m --io_size=16m --verify=crc32c --output=/dev/null
echo done > "$FEMU_OUT/done.txt"
"""


@pytest.fixture(scope="module")
def kvm_guest(image, femu_qemu):  # noqa: F811
    accelerator, verdict = accel.resolve("auto", str(femu_qemu), kernel=image.kernel,
                                         initramfs=image.initramfs)
    if accelerator != "kvm":
        pytest.skip(f"no guest runs under KVM on this host: {verdict.reason}")
    return accelerator


def test_completion_interrupts_go_through_kvm_irqfds(kvm_guest, image, femu_qemu,  # noqa: F811
                                                     tmp_path):
    trace = tmp_path / "irqfd.log"
    spec = vm.VmSpec(job=JOB, qemu=str(femu_qemu), kernel=image.kernel,
                     initramfs=image.initramfs, device_args=vm.femu_args(**SMALL_SSD),
                     extra_args=["-trace", "femu_irqfd", "-D", str(trace)],
                     accel="kvm", job_timeout=300)
    result = vm.run(spec, tmp_path / "out", quiet=True).check()
    assert result.accel == "kvm" and result.accel_fallback is None
    assert result.text("done.txt").strip() == "done"
    # 4096 writes plus their verifying reads: every completion raises an interrupt, and
    # coalescing in the driver can merge some, never all of them away.
    assert trace.read_text().count("KVM irqfd, vector") > 100
