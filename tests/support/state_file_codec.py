"""The state file container as the device tests read and rewrite it: a header, then
sections (tag, reserved, payload bytes, payload, CRC32C of the payload), closed by an END
section holding the CRC32C of everything before it. A rewrite recomputes every CRC, so
only the device's own checks can catch what a test changed."""
import struct

HEADER = struct.Struct("<8sIIQ")          # magic, version, header bytes, reserved
SECTION = struct.Struct("<4sIQ")          # tag, reserved, payload bytes
DEVICE_TAGS = {b"DNST", b"DWRT", b"DUNC", b"DATA", b"DFDP"}   # the device's, not the FTL's


def _crc32c_table():
    table = []
    for i in range(256):
        crc = i
        for _ in range(8):
            crc = (crc >> 1) ^ 0x82F63B78 if crc & 1 else crc >> 1
        table.append(crc)
    return table


CRC32C_TABLE = _crc32c_table()


def crc32c(data: bytes) -> int:
    crc = 0xFFFFFFFF
    for byte in data:
        crc = CRC32C_TABLE[(crc ^ byte) & 0xFF] ^ (crc >> 8)
    return crc ^ 0xFFFFFFFF


def parse(raw: bytes):
    """(header bytes, [(tag, payload)]) without the END section; every CRC checked."""
    magic, _, header_bytes, _ = HEADER.unpack_from(raw)
    assert magic == b"FEMUSTAT" and header_bytes == HEADER.size
    sections, at = [], HEADER.size
    while True:
        tag, _, length = SECTION.unpack_from(raw, at)
        payload = raw[at + SECTION.size:at + SECTION.size + length]
        crc, = struct.unpack_from("<I", raw, at + SECTION.size + length)
        assert crc == crc32c(payload), f"section {tag}: CRC"
        if tag == b"END ":
            assert struct.unpack("<I", payload)[0] == crc32c(raw[:at]), "END: CRC"
            return raw[:HEADER.size], sections
        sections.append((tag, payload))
        at += SECTION.size + length + 4


def build(header: bytes, sections) -> bytes:
    """The file of these sections after header, with every CRC and the END section."""
    out = bytearray(header)
    for tag, payload in sections:
        out += SECTION.pack(tag, 0, len(payload)) + payload
        out += struct.pack("<I", crc32c(payload))
    end = struct.pack("<I", crc32c(bytes(out)))
    out += SECTION.pack(b"END ", 0, 4) + end + struct.pack("<I", crc32c(end))
    return bytes(out)


def as_ftl_sim(tag: bytes, payload: bytes):
    """A device file's section as ftl-sim would have written it: the device's own
    sections dropped (None), META saying data=absent and producer=ftl-sim."""
    if tag in DEVICE_TAGS:
        return None
    if tag == b"META":
        return payload.replace(b"data=present", b"data=absent").replace(
            b"producer=femu device", b"producer=ftl-sim")
    return payload
