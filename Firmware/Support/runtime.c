// SPDX-License-Identifier: Apache-2.0
// The C library pieces Embedded Swift's runtime calls, for bare metal: memory functions, a heap,
// single-core atomics (armv6m has no exclusive loads and stores), and putchar for print().
#include <stdint.h>
#include <stddef.h>
#include "board.h"

void *memset(void *dst, int value, size_t count) {
    uint8_t *d = dst;
    while (count--) *d++ = (uint8_t)value;
    return dst;
}
void *memcpy(void *restrict dst, const void *restrict src, size_t count) {
    uint8_t *d = dst;
    const uint8_t *s = src;
    while (count--) *d++ = *s++;
    return dst;
}
void *memmove(void *dst, const void *src, size_t count) {
    uint8_t *d = dst;
    const uint8_t *s = src;
    if (d < s) {
        while (count--) *d++ = *s++;
    } else {
        while (count--) d[count] = s[count];
    }
    return dst;
}
int memcmp(const void *a, const void *b, size_t count) {
    const uint8_t *x = a, *y = b;
    for (size_t i = 0; i < count; i++)
        if (x[i] != y[i]) return x[i] < y[i] ? -1 : 1;
    return 0;
}
size_t strlen(const char *text) {
    size_t n = 0;
    while (text[n]) n++;
    return n;
}

// The heap: first fit over a free list of blocks carved from the linker's heap region. Each
// block starts with its size (header included). The free list is kept in address order: a freed
// block is merged with the free blocks on either side, and free blocks at the top give their
// room back to the region above, so a firmware that renders pattern after pattern does not
// fragment its heap. A free block larger than a request is split.
extern uint8_t __heap_start[], __heap_end[];
typedef struct block { size_t size; struct block *next; } block;
static block *free_list;
static uint8_t *heap_top;
static size_t heap_high_water;

static size_t round_up(size_t value, size_t unit) { return (value + unit - 1) & ~(unit - 1); }

int posix_memalign(void **result, size_t alignment, size_t size) {
    if (alignment < 8) alignment = 8;
    size_t need = round_up(size + sizeof(block), 8);
    if (alignment == 8) {
        for (block **link = &free_list; *link; link = &(*link)->next) {
            block *candidate = *link;
            if (candidate->size < need) continue;
            if (candidate->size - need >= 4 * sizeof(block)) {
                // The end of the block stays free, in the same place in the list.
                block *rest = (block *)((uint8_t *)candidate + need);
                rest->size = candidate->size - need;
                rest->next = candidate->next;
                *link = rest;
                candidate->size = need;
            } else {
                *link = candidate->next;
            }
            *result = candidate + 1;
            return 0;
        }
    }
    if (!heap_top) heap_top = __heap_start;
    uint8_t *start = (uint8_t *)round_up((size_t)(heap_top + sizeof(block)), alignment) - sizeof(block);
    if (start + need > __heap_end) return 12; // ENOMEM
    if (start != heap_top) {
        // The alignment's gap below the block stays usable.
        block *gap = (block *)heap_top;
        gap->size = (size_t)(start - heap_top);
        gap->next = 0;
        if (gap->size >= sizeof(block)) {
            block **link = &free_list;
            while (*link) link = &(*link)->next;
            *link = gap;
        }
    }
    block *fresh = (block *)start;
    fresh->size = need;
    heap_top = start + need;
    if ((size_t)(heap_top - __heap_start) > heap_high_water) heap_high_water = (size_t)(heap_top - __heap_start);
    *result = fresh + 1;
    return 0;
}
void free(void *pointer) {
    if (!pointer) return;
    block *freed = (block *)pointer - 1;
    // Into the list by address, merged with the free block after it and the one before it.
    block *before = 0, *after = free_list;
    while (after && after < freed) { before = after; after = after->next; }
    if (after && (uint8_t *)freed + freed->size == (uint8_t *)after) {
        freed->size += after->size;
        freed->next = after->next;
    } else {
        freed->next = after;
    }
    if (before && (uint8_t *)before + before->size == (uint8_t *)freed) {
        before->size += freed->size;
        before->next = freed->next;
        freed = before;
    } else if (before) {
        before->next = freed;
    } else {
        free_list = freed;
    }
    // The last free block, when it reaches the top, is room above again.
    if ((uint8_t *)freed + freed->size == heap_top && freed->next == 0) {
        heap_top = (uint8_t *)freed;
        if (before && before != freed) {
            before->next = 0;
        } else {
            block **link = &free_list;
            while (*link && *link != freed) link = &(*link)->next;
            *link = 0;
        }
    }
}
void *malloc(size_t size) {
    void *result = 0;
    return posix_memalign(&result, 8, size) == 0 ? result : 0;
}
/// newlib's math sets errno on a domain or range error; nothing here reads it.
int *__errno(void) {
    static int value;
    return &value;
}

/// The most heap ever in use, for the RAM figure `status` prints.
size_t runtime_heap_high_water(void) { return heap_high_water; }
/// The heap's free bytes: above its highest block and in the free blocks below it. `largest`
/// gets the largest piece in one place (what one allocation can count on).
size_t runtime_heap_free(size_t *largest) {
    size_t above = (size_t)(__heap_end - (heap_top ? heap_top : __heap_start));
    size_t total = above, most = above;
    for (block *free_block = free_list; free_block; free_block = free_block->next) {
        total += free_block->size - sizeof(block);
        if (free_block->size - sizeof(block) > most) most = free_block->size - sizeof(block);
    }
    if (largest) *largest = most;
    return total;
}

// Hashing seeds (Dictionary, Set): the firmware's tables need no secret seed.
void arc4random_buf(void *buffer, size_t count) {
    uint64_t seed = board_micros() ^ 0x9E3779B97F4A7C15ull;
    uint8_t *bytes = buffer;
    for (size_t i = 0; i < count; i++) {
        seed = seed * 6364136223846793005ull + 1442695040888963407ull;
        bytes[i] = (uint8_t)(seed >> 56);
    }
}

int putchar(int c) {
    uint8_t byte = (uint8_t)c;
    board_serial_write(0, &byte, 1);
    return c;
}

// Single core, no interrupt handler touches Swift objects: plain loads and stores with
// interrupts masked are atomic.
static inline uint32_t irq_save(void) {
    uint32_t primask;
    __asm__ volatile("mrs %0, primask\n cpsid i" : "=r"(primask)::"memory");
    return primask;
}
static inline void irq_restore(uint32_t primask) { __asm__ volatile("msr primask, %0" ::"r"(primask) : "memory"); }
#define ATOMIC_SET(N, T)                                                                           \
    T __atomic_load_##N(const volatile void *p, int order) { (void)order; return *(const volatile T *)p; } \
    void __atomic_store_##N(volatile void *p, T v, int order) { (void)order; *(volatile T *)p = v; } \
    T __atomic_exchange_##N(volatile void *p, T v, int order) {                                    \
        (void)order; uint32_t s = irq_save(); T old = *(volatile T *)p; *(volatile T *)p = v; irq_restore(s); return old; } \
    _Bool __atomic_compare_exchange_##N(volatile void *p, void *expected, T desired, _Bool weak, int so, int fo) { \
        (void)weak; (void)so; (void)fo; uint32_t s = irq_save(); T cur = *(volatile T *)p;       \
        _Bool ok = cur == *(T *)expected; if (ok) *(volatile T *)p = desired; else *(T *)expected = cur; \
        irq_restore(s); return ok; }                                                               \
    T __atomic_fetch_add_##N(volatile void *p, T v, int order) {                                   \
        (void)order; uint32_t s = irq_save(); T old = *(volatile T *)p; *(volatile T *)p = old + v; irq_restore(s); return old; } \
    T __atomic_fetch_sub_##N(volatile void *p, T v, int order) {                                   \
        (void)order; uint32_t s = irq_save(); T old = *(volatile T *)p; *(volatile T *)p = old - v; irq_restore(s); return old; } \
    T __atomic_fetch_and_##N(volatile void *p, T v, int order) {                                   \
        (void)order; uint32_t s = irq_save(); T old = *(volatile T *)p; *(volatile T *)p = old & v; irq_restore(s); return old; } \
    T __atomic_fetch_or_##N(volatile void *p, T v, int order) {                                    \
        (void)order; uint32_t s = irq_save(); T old = *(volatile T *)p; *(volatile T *)p = old | v; irq_restore(s); return old; }
ATOMIC_SET(1, uint8_t)
ATOMIC_SET(2, uint16_t)
ATOMIC_SET(4, uint32_t)
ATOMIC_SET(8, uint64_t)

// The ARM EABI's names for the memory functions (note the argument orders).
void __aeabi_memcpy(void *d, const void *s, size_t n) { memcpy(d, s, n); }
void __aeabi_memcpy4(void *d, const void *s, size_t n) { memcpy(d, s, n); }
void __aeabi_memcpy8(void *d, const void *s, size_t n) { memcpy(d, s, n); }
void __aeabi_memmove(void *d, const void *s, size_t n) { memmove(d, s, n); }
void __aeabi_memmove4(void *d, const void *s, size_t n) { memmove(d, s, n); }
void __aeabi_memmove8(void *d, const void *s, size_t n) { memmove(d, s, n); }
void __aeabi_memset(void *d, size_t n, int c) { memset(d, c, n); }
void __aeabi_memset4(void *d, size_t n, int c) { memset(d, c, n); }
void __aeabi_memset8(void *d, size_t n, int c) { memset(d, c, n); }
void __aeabi_memclr(void *d, size_t n) { memset(d, 0, n); }
void __aeabi_memclr4(void *d, size_t n) { memset(d, 0, n); }
void __aeabi_memclr8(void *d, size_t n) { memset(d, 0, n); }

// Double's rounding (Swift's `rounded()` calls these): below 2^52 a double converts to an integer
// exactly once its fraction is dropped; at or above, it has no fraction.
static int is_integral_range(double x) { return x > -4503599627370496.0 && x < 4503599627370496.0; }
double trunc(double x) { return is_integral_range(x) ? (double)(int64_t)x : x; }
double floor(double x) {
    double t = trunc(x);
    return (t > x) ? t - 1.0 : t;
}
double ceil(double x) {
    double t = trunc(x);
    return (t < x) ? t + 1.0 : t;
}
double round(double x) {
    if (!is_integral_range(x)) return x;
    return x < 0 ? -floor(-x + 0.5) : floor(x + 0.5);
}
// Square root by Newton's method from a first guess with half the exponent (the actuator
// equations' RMS conversions).
double sqrt(double x) {
    if (x != x || x <= 0.0) return x == 0.0 ? x : (x - x) / (x - x);
    if (x > 1.7976931348623157e308) return x;
    union { double d; uint64_t u; } guess = {x};
    guess.u = (guess.u >> 1) + (0x3FF0000000000000ull >> 1);
    double r = guess.d;
    for (int i = 0; i < 8; i++) r = 0.5 * (r + x / r);
    return r;
}
