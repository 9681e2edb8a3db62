// SPDX-License-Identifier: Apache-2.0
// What the firmware's Swift code needs from a board: a microsecond clock, two serial ports, an
// I2C controller and two GPIO outputs. Each board (Firmware/Boards/*.c) implements these in C
// against its registers; the Swift code above them is the same for every board.
#pragma once
#include <stdint.h>
#include <stddef.h>

/// Sets up clocks, the timer, the serial ports and the I2C controller. Called once from reset.
void board_init(void);
/// Microseconds since board_init.
uint64_t board_micros(void);
/// Waits for an interrupt (the 1 ms tick at least): what idle loops call.
void board_idle(void);

/// Serial port 0 carries the command protocol; port 1 (test images only) the bus bridge.
void board_serial_write(int port, const uint8_t *bytes, size_t count);
/// The next received byte, or -1 when none is waiting.
int board_serial_read(int port);

/// One I2C transaction on the board's controller: `write_count` bytes written, then (when
/// `read_count` > 0) a repeated start and `read_count` bytes read. 0 when every byte was
/// acknowledged, 1 when the address or a byte was not, 2 on a stuck bus.
int board_i2c_transfer(uint8_t address, const uint8_t *write, size_t write_count, uint8_t *read, size_t read_count);

/// Drives GPIO output `line` (0: EN, 1: IN/TRIG); boards without the line ignore it.
void board_gpio_set(int line, int high);

/// Ends the program (QEMU: semihosting exit with `status`; hardware: resets, through the watchdog
/// with every block in its reset selection). The fault handlers stop the actuator before they
/// call it (`board_fault_stop`).
void board_exit(int status) __attribute__((noreturn));
/// Stops the actuator from anywhere, a fault handler included, with nothing but C and the board's
/// registers: EN and IN/TRIG low, then the DRV2605's GO cleared, its real-time level zeroed and
/// MODE to standby on the board's own I2C controller (each transfer has a deadline; a chip that
/// does not answer is left to its EN). Supplied by Support/startup.c for every board.
void board_fault_stop(void);
/// Arms the hardware watchdog to reset the board when the main loop has not fed it for
/// `milliseconds` (RP2040: its watchdog; boards without one: nothing).
void board_watchdog_start(uint32_t milliseconds);
/// Feeds the hardware watchdog: the main loop calls it on every pass.
void board_watchdog_feed(void);
/// Executes an undefined instruction (the test image's `trap`): the fault handler takes over.
void board_trap(void) __attribute__((noreturn));
/// Whether this image bridges its chip's bus over serial port 1 (the QEMU test image).
int board_bridges_bus(void);
/// The board's name, as `status` reports it.
const char *board_name(void);

// Provided by Support/startup.c for the boards.
/// Starts SysTick as a 1 ms interrupt on a core clocked at `core_hz`.
void startup_tick_start(uint32_t core_hz);
/// Microseconds since startup_tick_start, from the tick count and SysTick's counter.
uint64_t startup_tick_micros(void);

// Provided by Support/runtime.c.
/// The most heap ever in use, in bytes (the RAM figure `status` reports).
size_t runtime_heap_high_water(void);
/// The heap's free bytes, and in `largest` its largest free piece: what a pattern's rendering
/// may take.
size_t runtime_heap_free(size_t *largest);
