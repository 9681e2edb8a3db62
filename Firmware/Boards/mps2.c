// SPDX-License-Identifier: Apache-2.0
// The board layer for QEMU's MPS2 machines: mps2-an385 (ARM's MPS2 board with the AN385 Cortex-M3
// image) and mps2-an386 (the same design with a Cortex-M4), one peripheral map: the 25 MHz clock
// for SysTick, CMSDK UARTs 0 and 1, and the SBCon (versatile) I2C controller at 0x4002A000,
// driven bit by bit as its two-wire register block requires. MPS2_MACHINE names the machine
// (Scripts/firmware sets it for each image).
#include <stdint.h>
#include <stddef.h>
#include "board.h"

#ifndef MPS2_MACHINE
#error "MPS2_MACHINE: the QEMU machine this image is for (mps2-an385 or mps2-an386)"
#endif

#define REG(address) (*(volatile uint32_t *)(address))

// CMSDK APB UART: DATA, STATE (bit 0 TX full, bit 1 RX full), CTRL (bit 0 TX, bit 1 RX enable), BAUDDIV.
static const uint32_t uart_base[2] = {0x40004000u, 0x40005000u};
#define UART_DATA(b) REG((b) + 0x00)
#define UART_STATE(b) REG((b) + 0x04)
#define UART_CTRL(b) REG((b) + 0x08)
#define UART_BAUDDIV(b) REG((b) + 0x10)

// SBCon two-wire interface: read CONTROL at 0, set bits at 0 (CONTROLS), clear at 4 (CONTROLC).
#define I2C_BASE 0x4002A000u
#define I2C_SET REG(I2C_BASE + 0x0)
#define I2C_CLEAR REG(I2C_BASE + 0x4)
#define I2C_READ REG(I2C_BASE + 0x0)
#define SCL 1u
#define SDA 2u

#define CORE_HZ 25000000u

void board_init(void) {
    for (int port = 0; port < 2; port++) {
        UART_BAUDDIV(uart_base[port]) = 16;
        UART_CTRL(uart_base[port]) = 3;
    }
    I2C_SET = SCL | SDA;
    startup_tick_start(CORE_HZ);
}

uint64_t board_micros(void) { return startup_tick_micros(); }

void board_serial_write(int port, const uint8_t *bytes, size_t count) {
    uint32_t base = uart_base[port & 1];
    for (size_t i = 0; i < count; i++) {
        while (UART_STATE(base) & 1u) {}
        UART_DATA(base) = bytes[i];
    }
}
int board_serial_read(int port) {
    uint32_t base = uart_base[port & 1];
    if (!(UART_STATE(base) & 2u)) return -1;
    return (int)(UART_DATA(base) & 0xFFu);
}

// Bit-banged I2C, open drain: a line is released by setting it and pulled low by clearing it.
static void line(uint32_t which, int high) {
    if (high) I2C_SET = which; else I2C_CLEAR = which;
}
static int sda(void) { return (I2C_READ & SDA) != 0; }
static void start(void) {
    line(SDA, 1); line(SCL, 1); line(SDA, 0); line(SCL, 0);
}
static void stop(void) {
    line(SDA, 0); line(SCL, 1); line(SDA, 1);
}
static int write_byte(uint8_t byte) {
    for (int bit = 7; bit >= 0; bit--) {
        line(SDA, (byte >> bit) & 1); line(SCL, 1); line(SCL, 0);
    }
    line(SDA, 1); line(SCL, 1);
    int acknowledged = !sda();
    line(SCL, 0);
    return acknowledged;
}
static uint8_t read_byte(int acknowledge) {
    uint8_t byte = 0;
    line(SDA, 1);
    for (int bit = 0; bit < 8; bit++) {
        line(SCL, 1); byte = (uint8_t)((byte << 1) | sda()); line(SCL, 0);
    }
    line(SDA, !acknowledge); line(SCL, 1); line(SCL, 0); line(SDA, 1);
    return byte;
}
int board_i2c_transfer(uint8_t address, const uint8_t *write, size_t write_count, uint8_t *read, size_t read_count) {
    int result = 0;
    start();
    if (!write_byte((uint8_t)(address << 1))) { result = 1; goto done; }
    for (size_t i = 0; i < write_count; i++)
        if (!write_byte(write[i])) { result = 1; goto done; }
    if (read_count > 0) {
        start(); // repeated start
        if (!write_byte((uint8_t)(address << 1 | 1))) { result = 1; goto done; }
        for (size_t i = 0; i < read_count; i++) read[i] = read_byte(i + 1 < read_count);
    }
done:
    stop();
    return result;
}

// CMSDK AHB GPIO 0 (0x40010000): DATAOUT at 0x004, OUTENSET at 0x010; pin 0 is EN, pin 1 IN/TRIG.
// The test image drives its chip over the bridge, so only the fault handler sets them (low); QEMU
// has no GPIO model here, and logs each write (-d unimp) for the firmware test to read.
#define GPIO0_DATAOUT (*(volatile uint32_t *)0x40010004u)
#define GPIO0_OUTENSET (*(volatile uint32_t *)0x40010010u)
static uint32_t gpio_levels;

void board_gpio_set(int which, int high) {
    uint32_t bit = 1u << (which & 15);
    gpio_levels = high ? gpio_levels | bit : gpio_levels & ~bit;
    GPIO0_OUTENSET = bit;
    GPIO0_DATAOUT = gpio_levels;
}

static void semihost(uint32_t operation, uint32_t argument) {
    register uint32_t r0 __asm__("r0") = operation;
    register uint32_t r1 __asm__("r1") = argument;
    __asm__ volatile("bkpt 0xAB" : "+r"(r0) : "r"(r1) : "memory");
}

// QEMU's MPS2 images: no watchdog is used (the link watchdog and the fault stop are tested here).
void board_watchdog_start(uint32_t milliseconds) { (void)milliseconds; }
void board_watchdog_feed(void) {}

void board_exit(int status) {
    // SYS_EXIT: ADP_Stopped_ApplicationExit is a clean exit (0), anything else is 1 in QEMU.
    semihost(0x18, status == 0 ? 0x20026u : 0x20024u);
    for (;;) {}
}
int board_bridges_bus(void) { return 1; }
const char *board_name(void) { return MPS2_MACHINE; }
