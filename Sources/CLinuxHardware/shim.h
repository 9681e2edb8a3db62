// The Linux kernel's I2C user-space interface, libi2c's SMBus helpers and libgpiod (1.x or 2.x),
// gathered into one Clang module for LinuxHardware. Install with: apt-get install libi2c-dev libgpiod-dev
#ifndef CLINUXHARDWARE_SHIM_H
#define CLINUXHARDWARE_SHIM_H

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <pthread.h>
#include <sched.h>
#include <time.h>
#include <unistd.h>
#include <linux/i2c.h>
#include <linux/i2c-dev.h>
#include <i2c/smbus.h>
#include <gpiod.h>

// ioctl is variadic in C; these fixed-signature forms are what Swift can call.
static inline int clh_ioctl_ulong(int fd, unsigned long request, unsigned long value) {
    return ioctl(fd, request, value);
}
static inline int clh_ioctl_ptr(int fd, unsigned long request, void *pointer) {
    return ioctl(fd, request, pointer);
}
static inline int clh_open(const char *path, int flags) {
    return open(path, flags);
}
static inline int clh_errno(void) { return errno; }
/// The calling thread's timer slack in nanoseconds (Linux default 50 000).
static inline int clh_set_timer_slack(unsigned long nanoseconds) {
    return prctl(PR_SET_TIMERSLACK, nanoseconds, 0, 0, 0);
}
static inline void clh_set_errno(int value) { errno = value; }

/// Moves the calling thread to SCHED_FIFO at `priority`; 0 on success, an errno otherwise
/// (EPERM without root or CAP_SYS_NICE).
static inline int clh_set_fifo_priority(int priority) {
    struct sched_param parameters = { .sched_priority = priority };
    return pthread_setschedparam(pthread_self(), SCHED_FIFO, &parameters);
}
#endif
