// SPDX-License-Identifier: Apache-2.0
// The board layer for the Raspberry Pi Pico (RP2040, Cortex-M0+), bare metal: the 12 MHz crystal
// as the system clock, the 1 µs timer, UART0 on GP0 (TX) and GP1 (RX) at 115200 baud for the
// command protocol, I2C0 on GP4 (SDA) and GP5 (SCL) at 400 kHz for the DRV2605L, and the
// DRV2605's EN on GP2 and IN/TRIG on GP3. Register addresses and fields: the RP2040 datasheet.
#include <stdint.h>
#include <stddef.h>
#include "board.h"

#define REG(address) (*(volatile uint32_t *)(address))
#define SET_ALIAS 0x2000u
#define CLEAR_ALIAS 0x3000u

#define RESETS_BASE 0x4000C000u
#define RESETS_RESET REG(RESETS_BASE + 0x0)
#define RESETS_DONE REG(RESETS_BASE + 0x8)
#define RESET_I2C0 (1u << 3)
#define RESET_IO_BANK0 (1u << 5)
#define RESET_PADS_BANK0 (1u << 8)
#define RESET_TIMER (1u << 21)
#define RESET_UART0 (1u << 22)

#define XOSC_BASE 0x40024000u
#define XOSC_CTRL REG(XOSC_BASE + 0x00)
#define XOSC_STATUS REG(XOSC_BASE + 0x04)
#define XOSC_STARTUP REG(XOSC_BASE + 0x0C)

#define CLOCKS_BASE 0x40008000u
#define CLK_REF_CTRL REG(CLOCKS_BASE + 0x30)
#define CLK_REF_SELECTED REG(CLOCKS_BASE + 0x38)
#define CLK_SYS_CTRL REG(CLOCKS_BASE + 0x3C)
#define CLK_SYS_SELECTED REG(CLOCKS_BASE + 0x44)
#define CLK_PERI_CTRL REG(CLOCKS_BASE + 0x48)

#define WATCHDOG_TICK REG(0x40058000u + 0x2C)
#define TIMER_RAWH REG(0x40054000u + 0x24)
#define TIMER_RAWL REG(0x40054000u + 0x28)

#define IO_BANK0_CTRL(pin) REG(0x40014000u + 0x04 + 8u * (pin))
#define PADS_BANK0(pin) REG(0x4001C000u + 0x04 + 4u * (pin))
#define FUNC_UART 2u
#define FUNC_I2C 3u
#define FUNC_SIO 5u
#define PAD_IE (1u << 6)
#define PAD_PUE (1u << 3)
#define PAD_SCHMITT (1u << 1)

#define SIO_OUT_SET REG(0xD0000000u + 0x14)
#define SIO_OUT_CLR REG(0xD0000000u + 0x18)
#define SIO_OE_SET REG(0xD0000000u + 0x24)

#define UART0_BASE 0x40034000u
#define UART_DR REG(UART0_BASE + 0x00)
#define UART_FR REG(UART0_BASE + 0x18)
#define UART_IBRD REG(UART0_BASE + 0x24)
#define UART_FBRD REG(UART0_BASE + 0x28)
#define UART_LCR_H REG(UART0_BASE + 0x2C)
#define UART_CR REG(UART0_BASE + 0x30)

#define I2C0_BASE 0x40044000u
#define IC_CON REG(I2C0_BASE + 0x00)
#define IC_TAR REG(I2C0_BASE + 0x04)
#define IC_DATA_CMD REG(I2C0_BASE + 0x10)
#define IC_FS_SCL_HCNT REG(I2C0_BASE + 0x1C)
#define IC_FS_SCL_LCNT REG(I2C0_BASE + 0x20)
#define IC_RAW_INTR_STAT REG(I2C0_BASE + 0x34)
#define IC_CLR_TX_ABRT REG(I2C0_BASE + 0x54)
#define IC_CLR_STOP_DET REG(I2C0_BASE + 0x60)
#define IC_ENABLE REG(I2C0_BASE + 0x6C)
#define IC_SDA_HOLD REG(I2C0_BASE + 0x7C)
#define IC_TX_ABRT_SOURCE REG(I2C0_BASE + 0x80)
#define IC_RXFLR REG(I2C0_BASE + 0x78)
#define IC_FS_SPKLEN REG(I2C0_BASE + 0xA0)
#define RAW_TX_EMPTY (1u << 4)
#define RAW_TX_ABRT (1u << 6)
#define RAW_STOP_DET (1u << 9)
#define DATA_CMD_READ (1u << 8)
#define DATA_CMD_STOP (1u << 9)
#define DATA_CMD_RESTART (1u << 10)

#define CORE_HZ 12000000u
#define PIN_UART_TX 0
#define PIN_UART_RX 1
#define PIN_EN 2
#define PIN_TRIG 3
#define PIN_SDA 4
#define PIN_SCL 5

void board_init(void) {
    // The crystal (1-15 MHz range), then clk_ref from it and clk_sys from clk_ref: 12 MHz.
    XOSC_STARTUP = ((CORE_HZ / 1000u) + 128u) / 256u;
    XOSC_CTRL = 0xAA0u | (0xFABu << 12);
    while (!(XOSC_STATUS & (1u << 31))) {}
    CLK_REF_CTRL = 2u;
    while (CLK_REF_SELECTED != (1u << 2)) {}
    CLK_SYS_CTRL = 0u;
    while (CLK_SYS_SELECTED != 1u) {}
    CLK_PERI_CTRL = (1u << 11); // enabled, from clk_sys
    WATCHDOG_TICK = (1u << 9) | (CORE_HZ / 1000000u); // the timer's 1 µs tick

    uint32_t blocks = RESET_I2C0 | RESET_IO_BANK0 | RESET_PADS_BANK0 | RESET_TIMER | RESET_UART0;
    REG(RESETS_BASE + CLEAR_ALIAS) = blocks;
    while ((RESETS_DONE & blocks) != blocks) {}

    // UART0: 115200 8N1 from 12 MHz (divisor 6.5104: 6 and 33/64), FIFOs on.
    UART_IBRD = 6;
    UART_FBRD = 33;
    UART_LCR_H = (3u << 5) | (1u << 4);
    UART_CR = (1u << 0) | (1u << 8) | (1u << 9);
    IO_BANK0_CTRL(PIN_UART_TX) = FUNC_UART;
    IO_BANK0_CTRL(PIN_UART_RX) = FUNC_UART;

    // I2C0 as controller, fast mode: 30 clocks a bit at 12 MHz, low 18 and high 12, spikes of
    // one clock filtered, SDA held 4 clocks (333 ns) after SCL falls.
    IC_ENABLE = 0;
    IC_CON = (1u << 0) | (2u << 1) | (1u << 5) | (1u << 6) | (1u << 8);
    IC_FS_SCL_HCNT = 12;
    IC_FS_SCL_LCNT = 18;
    IC_FS_SPKLEN = 1;
    IC_SDA_HOLD = 4;
    for (int pin = PIN_SDA; pin <= PIN_SCL; pin++) {
        PADS_BANK0(pin) = PAD_IE | PAD_PUE | PAD_SCHMITT;
        IO_BANK0_CTRL(pin) = FUNC_I2C;
    }

    // EN and IN/TRIG: outputs, low until the driver raises EN.
    SIO_OUT_CLR = (1u << PIN_EN) | (1u << PIN_TRIG);
    SIO_OE_SET = (1u << PIN_EN) | (1u << PIN_TRIG);
    IO_BANK0_CTRL(PIN_EN) = FUNC_SIO;
    IO_BANK0_CTRL(PIN_TRIG) = FUNC_SIO;

    startup_tick_start(CORE_HZ);
}

uint64_t board_micros(void) {
    uint32_t high, low;
    do {
        high = TIMER_RAWH;
        low = TIMER_RAWL;
    } while (high != TIMER_RAWH);
    return ((uint64_t)high << 32) | low;
}

void board_serial_write(int port, const uint8_t *bytes, size_t count) {
    if (port != 0) return;
    for (size_t i = 0; i < count; i++) {
        while (UART_FR & (1u << 5)) {} // TX FIFO full
        UART_DR = bytes[i];
    }
}
int board_serial_read(int port) {
    if (port != 0 || (UART_FR & (1u << 4))) return -1; // RX FIFO empty
    return (int)(UART_DR & 0xFFu);
}

/// Waits for `bits` in IC_RAW_INTR_STAT, or an abort; 0, 1 (not acknowledged) or 2 (timed out).
static int wait_for(uint32_t bits, uint64_t deadline) {
    while (!(IC_RAW_INTR_STAT & bits)) {
        if (IC_RAW_INTR_STAT & RAW_TX_ABRT) return 1;
        if (board_micros() > deadline) return 2;
    }
    return (IC_RAW_INTR_STAT & RAW_TX_ABRT) ? 1 : 0;
}

int board_i2c_transfer(uint8_t address, const uint8_t *write, size_t write_count, uint8_t *read, size_t read_count) {
    IC_ENABLE = 0;
    IC_TAR = address;
    IC_ENABLE = 1;
    // Every byte of the transaction has 2 ms; a DRV2605 byte takes 23 µs at 400 kHz.
    uint64_t deadline = board_micros() + 2000u * (uint64_t)(write_count + read_count + 1);
    int result = 0;
    for (size_t i = 0; i < write_count && result == 0; i++) {
        uint32_t stop = (i + 1 == write_count && read_count == 0) ? DATA_CMD_STOP : 0;
        IC_DATA_CMD = write[i] | stop;
        result = wait_for(RAW_TX_EMPTY, deadline);
    }
    for (size_t i = 0; i < read_count && result == 0; i++) {
        uint32_t command = DATA_CMD_READ | (i == 0 ? DATA_CMD_RESTART : 0) | (i + 1 == read_count ? DATA_CMD_STOP : 0);
        IC_DATA_CMD = command;
        while (IC_RXFLR == 0 && result == 0) {
            if (IC_RAW_INTR_STAT & RAW_TX_ABRT) result = 1;
            else if (board_micros() > deadline) result = 2;
        }
        if (result == 0) read[i] = (uint8_t)IC_DATA_CMD;
    }
    if (result == 1) {
        (void)IC_TX_ABRT_SOURCE;
        (void)IC_CLR_TX_ABRT;
    }
    // The controller sends STOP itself after an abort or the last byte.
    if (result != 2) (void)wait_for(RAW_STOP_DET, deadline);
    (void)IC_CLR_STOP_DET;
    return result;
}

void board_gpio_set(int which, int high) {
    uint32_t mask = 1u << (which == 0 ? PIN_EN : PIN_TRIG);
    if (high) SIO_OUT_SET = mask; else SIO_OUT_CLR = mask;
}

// The watchdog [RP2040 datasheet 4.7]: CTRL (ENABLE bit 30, TRIGGER bit 31), LOAD; its counter
// runs from the 1 µs tick set in board_init, and decrements twice a tick (erratum RP2040-E1), so
// LOAD is twice the microseconds. PSM_WDSEL [2.13] selects what a watchdog reset resets: without
// it the trigger resets nothing, and a fault would hang with EN high and the last level driving.
#define WATCHDOG_CTRL REG(0x40058000u + 0x00)
#define WATCHDOG_LOAD REG(0x40058000u + 0x04)
#define PSM_WDSEL REG(0x40010000u + 0x08)
#define PSM_WDSEL_ALL_BUT_OSCILLATORS 0x0001FFFCu

static uint32_t watchdog_load;

void board_watchdog_start(uint32_t milliseconds) {
    PSM_WDSEL = PSM_WDSEL_ALL_BUT_OSCILLATORS;
    watchdog_load = milliseconds * 2000u;
    WATCHDOG_LOAD = watchdog_load;
    WATCHDOG_CTRL = (1u << 30);
}

void board_watchdog_feed(void) {
    if (watchdog_load) WATCHDOG_LOAD = watchdog_load;
}

void board_exit(int status) {
    (void)status;
    // Reset through the watchdog's trigger, with every block but the oscillators selected: the
    // chip starts again from flash (whose start-up resets the DRV2605).
    PSM_WDSEL = PSM_WDSEL_ALL_BUT_OSCILLATORS;
    WATCHDOG_CTRL = (1u << 31);
    for (;;) {}
}
int board_bridges_bus(void) { return 0; }
const char *board_name(void) { return "pico"; }
