"""A minimal reader of the newc cpio archives femu_guest writes (CpioWriter): the guest
builder's tests and the compat-mode tests read the initramfs back with it."""


def read_cpio(data: bytes):
    """Minimal newc reader for checking what CpioWriter wrote."""
    entries, pos = [], 0
    while True:
        assert data[pos:pos + 6] == b"070701"
        fields = [int(data[pos + 6 + 8 * i:pos + 14 + 8 * i], 16) for i in range(13)]
        mode, size, namesize = fields[1], fields[6], fields[11]
        name_start = pos + 110
        name = data[name_start:name_start + namesize - 1].decode()
        body = name_start + namesize + (-(110 + namesize) % 4)
        if name == "TRAILER!!!":
            return entries
        entries.append((name, mode, data[body:body + size], (fields[9], fields[10])))
        pos = body + size + (-size % 4)
