"""With no job the guest gives a shell on the console (vm.interactive): a command typed
there runs, and `poweroff -f` ends QEMU."""
import os
import select
import threading
import time

from femu_lab.vm import launch as vm

DEADLINE_SECONDS = 300      # for the whole exchange; a TCG boot takes seconds
PROMPT = b"femu-guest:/"    # scripts/guest/profile's PS1 (the shell starts in /)


def _read_until(fd: int, wanted: bytes, seen: bytearray, deadline: float) -> bool:
    """Append fd's output to seen until wanted appears, EOF, or the deadline."""
    while wanted not in seen:
        left = deadline - time.monotonic()
        if left <= 0:
            return False
        ready, _, _ = select.select([fd], [], [], min(left, 1.0))
        if ready:
            chunk = os.read(fd, 65536)
            if not chunk:
                return False
            seen += chunk
    return True


def test_shell_on_the_console_runs_a_command_and_powers_off(image):
    spec = vm.VmSpec(job=None, kernel=image.kernel, initramfs=image.initramfs)
    in_read, in_write = os.pipe()
    out_read, out_write = os.pipe()
    outcome = {}

    def run_shell():
        try:
            outcome["code"] = vm.interactive(spec, timeout=DEADLINE_SECONDS,
                                             stdin=in_read, stdout=out_write)
        finally:
            os.close(out_write)   # QEMU has exited: the reader below then sees EOF

    thread = threading.Thread(target=run_shell, daemon=True)
    seen = bytearray()
    thread.start()
    try:
        deadline = time.monotonic() + DEADLINE_SECONDS
        assert _read_until(out_read, b"no job given", seen, deadline), seen[-2000:].decode(
            errors="replace")
        assert _read_until(out_read, PROMPT, seen, deadline), seen[-2000:].decode(
            errors="replace")
        # The tty echoes the typed line: only the shell's arithmetic makes "marker-42".
        os.write(in_write, b"echo femu-marker-$((6 * 7)); poweroff -f\n")
        _read_until(out_read, b"\0never\0", seen, deadline)   # everything, up to EOF
    finally:
        thread.join(timeout=DEADLINE_SECONDS + 30)   # interactive() reaps QEMU itself
        os.close(in_write)
        os.close(in_read)
        os.close(out_read)
    assert not thread.is_alive()
    console = seen.decode(errors="replace")
    assert "femu-marker-42" in console, console[-2000:]
    assert outcome.get("code") == 0, (outcome, console[-2000:])
