// SPDX-License-Identifier: Apache-2.0
// What every Cortex-M board here starts with: the vector table, the reset handler (initial data
// copied, zeroed data cleared, then the board and main), SysTick as the 1 ms tick, and the fault
// handler that says so on serial port 0 before the board ends the program.
#include <stdint.h>
#include <stddef.h>
#include "board.h"

extern uint32_t __data_load[], __data_start[], __data_end[], __bss_start[], __bss_end[], __stack_top[];
extern int main(void);

/// Milliseconds since startup_tick_start: SysTick's interrupt counts them.
volatile uint32_t startup_milliseconds;
static uint32_t ticks_per_millisecond;

#define REG(address) (*(volatile uint32_t *)(address))
#define SYST_CSR REG(0xE000E010u)
#define SYST_RVR REG(0xE000E014u)
#define SYST_CVR REG(0xE000E018u)
#define SCB_CPACR REG(0xE000ED88u)

void Reset_Handler(void) {
#if defined(__ARM_ARCH_7EM__)
    // Swift's armv7em code uses the Cortex-M4F's FPU (single precision; its ABI stays soft): CP10
    // and CP11 full access before the first float instruction, which would otherwise fault.
    SCB_CPACR |= 0xFu << 20;
    __asm__ volatile("dsb\n\tisb" ::: "memory");
#endif
    uint32_t *src = __data_load, *dst = __data_start;
    while (dst < __data_end) *dst++ = *src++;
    for (dst = __bss_start; dst < __bss_end;) *dst++ = 0;
    board_init();
    board_exit(main());
}

void SysTick_Handler(void) { startup_milliseconds++; }

void board_fault_stop(void) {
    board_gpio_set(0, 0);
    board_gpio_set(1, 0);
    // DRV2605 at 0x5A: GO (0x0C) cleared, RTP_INPUT (0x02) zero, MODE (0x01) standby.
    static const uint8_t writes[3][2] = {{0x0C, 0x00}, {0x02, 0x00}, {0x01, 0x40}};
    for (int i = 0; i < 3; i++) (void)board_i2c_transfer(0x5A, writes[i], 2, 0, 0);
}

void board_trap(void) { __builtin_trap(); }

void HardFault_Handler(void) {
    board_fault_stop();
    /* A frame of the serial protocol (SerialFrame: ID 0, the payload's length, its CRC-16 after
     * the `*`), made once: the handler computes nothing. Scripts/firmware test parses it as the
     * host does, its CRC checked, so an edit here that leaves the CRC behind fails there. */
    static const char text[] = "#0:78:error fault the firmware hit a hard fault: actuator stopped, EN low; it resets*F60B\n";
    board_serial_write(0, (const uint8_t *)text, sizeof text - 1);
    board_exit(3);
}
static void Default_Handler(void) {
    board_fault_stop();
    board_exit(4);
}

__attribute__((section(".vectors"), used)) static void (*const vectors[16])(void) = {
    (void (*)(void))__stack_top, Reset_Handler, Default_Handler, HardFault_Handler,
    Default_Handler, Default_Handler, Default_Handler, 0, 0, 0, 0,
    Default_Handler, Default_Handler, 0, Default_Handler, SysTick_Handler,
};

void startup_tick_start(uint32_t core_hz) {
    ticks_per_millisecond = core_hz / 1000u;
    SYST_RVR = ticks_per_millisecond - 1;
    SYST_CVR = 0;
    SYST_CSR = 7; // the core's clock, interrupt, enable
}

uint64_t startup_tick_micros(void) {
    uint32_t ms, count;
    do {
        ms = startup_milliseconds;
        count = SYST_CVR;
    } while (ms != startup_milliseconds);
    return (uint64_t)ms * 1000u + (ticks_per_millisecond - 1u - count) / (ticks_per_millisecond / 1000u);
}

void board_idle(void) { __asm__ volatile("wfi"); }
