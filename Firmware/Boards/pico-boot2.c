// SPDX-License-Identifier: Apache-2.0
// The RP2040's second-stage boot: the boot ROM copies the first 256 bytes of flash into SRAM,
// checks their CRC-32 (Scripts/lib/uf2.py writes it into the last 4) and runs them. This turns on
// execute-in-place with the ROM's own flash routines (the generic 03h read command, which every
// QSPI flash chip answers), then starts the image whose vector table follows at 0x10000100.
#include <stdint.h>

typedef void *(*rom_lookup_fn)(const uint16_t *table, uint32_t code);
typedef void (*rom_void_fn)(void);
#define ROM_CODE(a, b) ((uint32_t)(a) | ((uint32_t)(b) << 8))

__attribute__((section(".boot2"), used, noreturn)) void boot2_entry(void) {
    const uint16_t *table = (const uint16_t *)(uintptr_t) * (const volatile uint16_t *)0x14u;
    rom_lookup_fn lookup = (rom_lookup_fn)(uintptr_t) * (const volatile uint16_t *)0x18u;
    rom_void_fn connect_flash = (rom_void_fn)lookup(table, ROM_CODE('I', 'F'));
    rom_void_fn exit_xip = (rom_void_fn)lookup(table, ROM_CODE('E', 'X'));
    rom_void_fn enter_xip = (rom_void_fn)lookup(table, ROM_CODE('C', 'X'));
    connect_flash();
    exit_xip();
    enter_xip();
    const uint32_t *vectors = (const uint32_t *)0x10000100u;
    *(volatile uint32_t *)0xE000ED08u = (uint32_t)vectors; // VTOR
    __asm__ volatile("msr msp, %0\n bx %1" ::"r"(vectors[0]), "r"(vectors[1]));
    __builtin_unreachable();
}
