#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""The Pico image's last steps, and their check.

  uf2.py write IMAGE.bin BASE OUT.uf2   the boot stage's CRC-32 into bytes 252..255 of IMAGE.bin
                                        (the RP2040's boot ROM refuses a boot stage without it),
                                        then OUT.uf2: 256 bytes of image per 512-byte block, with
                                        the RP2040's family ID, as the Pico's USB boot mode takes
  uf2.py check OUT.uf2                  reads it back as the boot ROM would: every block's magic
                                        numbers, family and place; the boot stage's CRC; a vector
                                        table whose stack is in SRAM and whose reset handler is
                                        Thumb code in the image

The UF2 format: github.com/microsoft/uf2. The CRC: CRC-32/MPEG-2 (polynomial 0x04C11DB7, initial
value 0xFFFFFFFF, no reflection, no final XOR), over the first 252 bytes.
"""
import struct
import sys

MAGIC_START0 = 0x0A324655
MAGIC_START1 = 0x9E5D5157
MAGIC_END = 0x0AB16F30
FLAG_FAMILY_ID = 0x00002000
RP2040_FAMILY = 0xE48BFF56
FLASH_BASE = 0x10000000
SRAM = (0x20000000, 0x20042000)


def crc32_mpeg2(data):
    crc = 0xFFFFFFFF
    for byte in data:
        crc ^= byte << 24
        for _ in range(8):
            crc = ((crc << 1) ^ 0x04C11DB7) if crc & 0x80000000 else (crc << 1)
            crc &= 0xFFFFFFFF
    return crc


def write(image_path, base, out_path):
    image = bytearray(open(image_path, "rb").read())
    if base != FLASH_BASE or len(image) < 256 + 8:
        sys.exit(f"uf2: {image_path} must start at 0x{FLASH_BASE:08X} with the 256-byte boot stage")
    struct.pack_into("<I", image, 252, crc32_mpeg2(image[:252]))
    open(image_path, "wb").write(image)
    blocks = [image[offset:offset + 256] for offset in range(0, len(image), 256)]
    with open(out_path, "wb") as out:
        for number, payload in enumerate(blocks):
            data = bytes(payload).ljust(476, b"\0")
            out.write(struct.pack("<8I", MAGIC_START0, MAGIC_START1, FLAG_FAMILY_ID, base + 256 * number, 256, number, len(blocks), RP2040_FAMILY))
            out.write(data)
            out.write(struct.pack("<I", MAGIC_END))
    print(f"uf2: {out_path}: {len(blocks)} blocks, {len(image)} bytes at 0x{base:08X}")


def check(path):
    raw = open(path, "rb").read()
    if len(raw) == 0 or len(raw) % 512:
        sys.exit(f"uf2: {path}: {len(raw)} bytes, not whole 512-byte blocks")
    count = len(raw) // 512
    image = bytearray()
    for number in range(count):
        block = raw[512 * number:512 * (number + 1)]
        start0, start1, flags, address, size, index, total, family = struct.unpack_from("<8I", block)
        (end,) = struct.unpack_from("<I", block, 508)
        problems = []
        if (start0, start1, end) != (MAGIC_START0, MAGIC_START1, MAGIC_END):
            problems.append("magic numbers")
        if not flags & FLAG_FAMILY_ID or family != RP2040_FAMILY:
            problems.append(f"family 0x{family:08X}")
        if size != 256 or address != FLASH_BASE + 256 * number or index != number or total != count:
            problems.append(f"place (address 0x{address:08X}, {size} bytes, block {index} of {total})")
        if problems:
            sys.exit(f"uf2: {path}: block {number}: wrong " + ", ".join(problems))
        image += block[32:32 + 256]
    (stored,) = struct.unpack_from("<I", image, 252)
    computed = crc32_mpeg2(image[:252])
    if stored != computed:
        sys.exit(f"uf2: {path}: the boot stage's CRC is 0x{stored:08X}, its bytes give 0x{computed:08X}: the boot ROM would not run it")
    stack, reset = struct.unpack_from("<2I", image, 256)
    end = FLASH_BASE + len(image)
    if not SRAM[0] < stack <= SRAM[1]:
        sys.exit(f"uf2: {path}: the initial stack pointer 0x{stack:08X} is not in SRAM")
    if not (reset & 1 and FLASH_BASE + 256 < reset < end):
        sys.exit(f"uf2: {path}: the reset vector 0x{reset:08X} is not Thumb code inside the image")
    print(f"uf2: {path}: {count} blocks for the RP2040, boot stage CRC 0x{stored:08X} correct, stack 0x{stack:08X}, reset 0x{reset:08X}")


if __name__ == "__main__":
    if len(sys.argv) == 5 and sys.argv[1] == "write":
        write(sys.argv[2], int(sys.argv[3], 0), sys.argv[4])
    elif len(sys.argv) == 3 and sys.argv[1] == "check":
        check(sys.argv[2])
    else:
        sys.exit(__doc__)
