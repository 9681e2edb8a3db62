// SPDX-License-Identifier: Apache-2.0
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
#include <poll.h>
#include <linux/i2c.h>
#include <linux/i2c-dev.h>
#include <i2c/smbus.h>
#include <gpiod.h>
#include <string.h>
#include <linux/input.h>
#include <linux/uinput.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/file.h>
#include <sys/syscall.h>
#include <sys/wait.h>

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

// A uinput force-feedback device (what hapticd offers SDL, feedbackd and fftest). The ioctl
// numbers are function-like macros Swift cannot import; these wrappers take plain arguments.

/// Creates the device on an open /dev/uinput: EV_FF with rumble, periodic (sine, square, triangle,
/// saw up and down), constant and gain, `effects_max` effects. 0 on success, -1 with errno.
static inline int clh_uinput_create_ff(int fd, const char *name, unsigned int effects_max) {
    if (ioctl(fd, UI_SET_EVBIT, EV_FF) < 0) return -1;
    const int bits[] = { FF_RUMBLE, FF_PERIODIC, FF_CONSTANT, FF_GAIN, FF_SINE, FF_SQUARE, FF_TRIANGLE, FF_SAW_UP, FF_SAW_DOWN };
    for (unsigned int i = 0; i < sizeof(bits) / sizeof(bits[0]); i++) {
        if (ioctl(fd, UI_SET_FFBIT, bits[i]) < 0) return -1;
    }
    struct uinput_setup setup;
    memset(&setup, 0, sizeof(setup));
    setup.id.bustype = BUS_VIRTUAL;
    setup.id.vendor = 0x0451;  /* Texas Instruments */
    setup.id.product = 0x2605;
    setup.id.version = 1;
    strncpy(setup.name, name, UINPUT_MAX_NAME_SIZE - 1);
    setup.ff_effects_max = effects_max;
    if (ioctl(fd, UI_DEV_SETUP, &setup) < 0) return -1;
    return ioctl(fd, UI_DEV_CREATE);
}
static inline int clh_uinput_destroy(int fd) { return ioctl(fd, UI_DEV_DESTROY); }
/// The device's sysfs name ("input12"), for finding its /dev/input/eventN.
static inline int clh_uinput_sysname(int fd, char *buffer, unsigned int length) {
    return ioctl(fd, UI_GET_SYSNAME(length), buffer);
}

/// One force-feedback effect, flattened out of `struct ff_effect`'s union.
struct clh_ff_effect {
    int id, type, waveform;
    int length_ms, delay_ms;
    int strong, weak;            /* FF_RUMBLE, 0-65535 */
    int magnitude, offset, period_ms;  /* FF_PERIODIC, -32768-32767 */
    int level;                   /* FF_CONSTANT, -32768-32767 */
    int attack_length_ms, attack_level, fade_length_ms, fade_level;  /* envelope, levels 0-65535 */
};
static inline void clh_ff_flatten(const struct ff_effect *effect, struct clh_ff_effect *out) {
    memset(out, 0, sizeof(*out));
    out->id = effect->id;
    out->type = effect->type;
    out->length_ms = effect->replay.length;
    out->delay_ms = effect->replay.delay;
    const struct ff_envelope *envelope = NULL;
    switch (effect->type) {
    case FF_RUMBLE:
        out->strong = effect->u.rumble.strong_magnitude;
        out->weak = effect->u.rumble.weak_magnitude;
        break;
    case FF_PERIODIC:
        out->waveform = effect->u.periodic.waveform;
        out->magnitude = effect->u.periodic.magnitude;
        out->offset = effect->u.periodic.offset;
        out->period_ms = effect->u.periodic.period;
        envelope = &effect->u.periodic.envelope;
        break;
    case FF_CONSTANT:
        out->level = effect->u.constant.level;
        envelope = &effect->u.constant.envelope;
        break;
    default:
        break;
    }
    if (envelope) {
        out->attack_length_ms = envelope->attack_length;
        out->attack_level = envelope->attack_level;
        out->fade_length_ms = envelope->fade_length;
        out->fade_level = envelope->fade_level;
    }
}

/// Answers an upload request (event code `request_id`): the effect in `out`, then UI_END_FF_UPLOAD
/// accepting it. 0 on success, -1 with errno.
static inline int clh_uinput_upload(int fd, unsigned int request_id, struct clh_ff_effect *out) {
    struct uinput_ff_upload upload;
    memset(&upload, 0, sizeof(upload));
    upload.request_id = request_id;
    if (ioctl(fd, UI_BEGIN_FF_UPLOAD, &upload) < 0) return -1;
    clh_ff_flatten(&upload.effect, out);
    upload.retval = 0; /* the input core has already refused types the device does not list */
    return ioctl(fd, UI_END_FF_UPLOAD, &upload);
}
/// Answers an erase request; `effect_id` receives the effect erased.
static inline int clh_uinput_erase(int fd, unsigned int request_id, int *effect_id) {
    struct uinput_ff_erase erase;
    memset(&erase, 0, sizeof(erase));
    erase.request_id = request_id;
    if (ioctl(fd, UI_BEGIN_FF_ERASE, &erase) < 0) return -1;
    *effect_id = (int)erase.effect_id;
    erase.retval = 0;
    return ioctl(fd, UI_END_FF_ERASE, &erase);
}
/// Reads one input event: 1 read, 0 nothing within `timeout_ms`, -1 with errno.
static inline int clh_input_read(int fd, int timeout_ms, unsigned short *type, unsigned short *code, int *value) {
    struct pollfd entry = { .fd = fd, .events = POLLIN };
    int ready = poll(&entry, 1, timeout_ms);
    if (ready <= 0) return ready;
    struct input_event event;
    ssize_t count = read(fd, &event, sizeof(event));
    if (count != (ssize_t)sizeof(event)) return -1;
    *type = event.type;
    *code = event.code;
    *value = event.value;
    return 1;
}

// A kernel force-feedback device used as a client (feedbackd's and fftest's side of EV_FF): its
// capabilities, effects uploaded from the flat form above, played, stopped and erased.

/// EV_FF's bits into `bits` (`length` bytes); the number of bytes on success, -1 with errno.
static inline int clh_evdev_ff_bits(int fd, unsigned char *bits, unsigned int length) {
    return ioctl(fd, EVIOCGBIT(EV_FF, length), bits);
}
static inline int clh_evdev_bit(const unsigned char *bits, int bit) { return (bits[bit / 8] >> (bit % 8)) & 1; }
static inline int clh_evdev_effects(int fd, int *count) { return ioctl(fd, EVIOCGEFFECTS, count); }
static inline int clh_evdev_name(int fd, char *buffer, unsigned int length) { return ioctl(fd, EVIOCGNAME(length), buffer); }
/// Uploads `in` (id -1: a new effect) with EVIOCSFF; the kernel's id comes back in `in->id`.
static inline int clh_evdev_upload(int fd, struct clh_ff_effect *in) {
    struct ff_effect effect;
    memset(&effect, 0, sizeof(effect));
    effect.type = in->type;
    effect.id = in->id;
    effect.direction = 0x4000;
    effect.replay.length = in->length_ms;
    effect.replay.delay = in->delay_ms;
    struct ff_envelope *envelope = NULL;
    switch (in->type) {
    case FF_RUMBLE:
        effect.u.rumble.strong_magnitude = in->strong;
        effect.u.rumble.weak_magnitude = in->weak;
        break;
    case FF_PERIODIC:
        effect.u.periodic.waveform = in->waveform;
        effect.u.periodic.magnitude = in->magnitude;
        effect.u.periodic.offset = in->offset;
        effect.u.periodic.period = in->period_ms;
        envelope = &effect.u.periodic.envelope;
        break;
    case FF_CONSTANT:
        effect.u.constant.level = in->level;
        envelope = &effect.u.constant.envelope;
        break;
    default:
        break;
    }
    if (envelope) {
        envelope->attack_length = in->attack_length_ms;
        envelope->attack_level = in->attack_level;
        envelope->fade_length = in->fade_length_ms;
        envelope->fade_level = in->fade_level;
    }
    if (ioctl(fd, EVIOCSFF, &effect) < 0) return -1;
    in->id = effect.id;
    return 0;
}
static inline int clh_evdev_erase(int fd, int id) { return ioctl(fd, EVIOCRMFF, id); }
/// Writes one input event (EV_FF: play or stop an effect, or the gain); 0, or -1 with errno.
static inline int clh_evdev_write(int fd, unsigned short type, unsigned short code, int value) {
    struct input_event event;
    memset(&event, 0, sizeof(event));
    event.type = type;
    event.code = code;
    event.value = value;
    return write(fd, &event, sizeof(event)) == (ssize_t)sizeof(event) ? 0 : -1;
}
// The dead-man guard (LinuxHardware's DeadManGuard): a child forked, not executed, so it needs no
// program of its own and runs in any program that opens a chip. After fork() in a threaded process
// the child may only make async-signal-safe calls: read, write, ioctl, close, sigaction, setsid,
// prctl, _exit; everything it uses (the writes, the message) was prepared before the fork.

/// One I2C write the guard makes: `length` bytes to `address`.
struct clh_guard_write {
    uint16_t address;
    uint16_t length;
    uint8_t bytes[32];
};

/// Closes every descriptor from 3 up but the `keep` ones (close_range where the kernel has it).
static inline void clh_guard_close_others(const int *keep, int count) {
    int low = 3;
    for (;;) {
        int next = -1;
        for (int i = 0; i < count; i++)
            if (keep[i] >= low && (next < 0 || keep[i] < next)) next = keep[i];
        unsigned int high = next < 0 ? ~0U : (unsigned int)next - 1;
        if (next < 0 || next > low) {
#ifdef SYS_close_range
            if (syscall(SYS_close_range, (unsigned int)low, high, 0) < 0)
#endif
                for (int fd = low; fd <= (next < 0 ? 65535 : next - 1); fd++) close(fd);
        }
        if (next < 0) return;
        low = next + 1;
    }
}

/// The guard's write ends in this process, told 'q' at a normal exit (`clh_guard_at_exit`); a
/// function's static, which Swift's importer emits with the function (a file-scope one it does not).
struct clh_guard_registry {
    pthread_mutex_t lock;
    int ends[16];
    int count;
};
static inline struct clh_guard_registry *clh_guard_registry(void) {
    static struct clh_guard_registry registry = { PTHREAD_MUTEX_INITIALIZER, {0}, 0 };
    return &registry;
}

/// At a normal exit (atexit): each guard is told the program ended on purpose, so it stops the
/// chip quietly; after a signal or a crash no 'q' comes and the guard says what it did.
static void clh_guard_at_exit(void) {
    struct clh_guard_registry *registry = clh_guard_registry();
    pthread_mutex_lock(&registry->lock);
    for (int i = 0; i < registry->count; i++) {
        char quiet = 'q';
        ssize_t written = write(registry->ends[i], &quiet, 1);
        (void)written;
    }
    pthread_mutex_unlock(&registry->lock);
}

/// The guard's writes: each as one I2C_RDWR message (three tries), else as an SMBus block write
/// for an adapter that only speaks SMBus.
static inline void clh_guard_write_all(int bus_fd, const struct clh_guard_write *writes, int count) {
    for (int i = 0; i < count; i++) {
        struct i2c_msg msg = { .addr = writes[i].address, .flags = 0, .len = writes[i].length, .buf = (uint8_t *)writes[i].bytes };
        struct i2c_rdwr_ioctl_data data = { .msgs = &msg, .nmsgs = 1 };
        int done = 0;
        for (int attempt = 0; attempt < 3 && !done; attempt++) done = ioctl(bus_fd, I2C_RDWR, &data) >= 0;
        if (!done && writes[i].length > 1 && ioctl(bus_fd, I2C_SLAVE, writes[i].address) >= 0) {
            union i2c_smbus_data block;
            block.block[0] = (uint8_t)(writes[i].length - 1);
            memcpy(&block.block[1], &writes[i].bytes[1], writes[i].length - 1);
            struct i2c_smbus_ioctl_data args = { .read_write = I2C_SMBUS_WRITE, .command = writes[i].bytes[0],
                                                 .size = I2C_SMBUS_I2C_BLOCK_DATA, .data = &block };
            ioctl(bus_fd, I2C_SMBUS, &args);
        }
    }
}

/// Starts a guard for a chip: a child in its own session (a terminal's ^C is not for it), deaf to
/// SIGINT, SIGTERM, SIGHUP and SIGQUIT, holding `bus_fd` and `lock_fd` (and nothing else), that
/// waits for the end of a pipe only this process writes to. When every write end is closed (the
/// process ended, however it ended) it makes `writes` on the bus and exits; 'd' (released) makes
/// it exit without writing, 'q' (a normal exit) without the message. Returns the write end (close
/// on exec) and the guard's pid, or -1 with errno. A program that sends heartbeats ('h',
/// `clh_guard_heartbeat`) is taken for hung after `hang_ms` without one: the writes are made then
/// too, with `hang_message`.
static inline int clh_guard_start(int bus_fd, int lock_fd, const struct clh_guard_write *writes, int count,
                                  const char *message, size_t message_length, int hang_ms,
                                  const char *hang_message, size_t hang_message_length, pid_t *guard_pid) {
    int ends[2];
    if (pipe2(ends, O_CLOEXEC) < 0) return -1;
    pid_t pid = fork();
    if (pid < 0) {
        close(ends[0]);
        close(ends[1]);
        return -1;
    }
    if (pid == 0) {
        struct sigaction ignore;
        memset(&ignore, 0, sizeof(ignore));
        ignore.sa_handler = SIG_IGN;
        sigaction(SIGINT, &ignore, NULL);
        sigaction(SIGTERM, &ignore, NULL);
        sigaction(SIGHUP, &ignore, NULL);
        sigaction(SIGQUIT, &ignore, NULL);
        sigaction(SIGPIPE, &ignore, NULL);
        setsid();
        prctl(PR_SET_NAME, "haptic-guard", 0, 0, 0);
        int keep[3] = { ends[0], bus_fd, lock_fd };
        clh_guard_close_others(keep, 3);
        // Standard input and output are the program's (a caller may wait for the output's end);
        // standard error stays, for the message.
        int null_fd = open("/dev/null", O_RDWR);
        if (null_fd >= 0) {
            dup2(null_fd, 0);
            dup2(null_fd, 1);
            if (null_fd > 2) close(null_fd);
        }
        int quiet = 0, released = 0, beating = 0, hung = 0;
        for (;;) {
            // Once the program sends heartbeats ('h'), a silence of hang_ms means it hangs: the
            // chip is stopped then (once), and the guard waits on for the program's end.
            if (beating && !hung && hang_ms > 0) {
                struct pollfd wait = { .fd = ends[0], .events = POLLIN };
                int ready = poll(&wait, 1, hang_ms);
                if (ready == 0) {
                    hung = 1;
                    clh_guard_write_all(bus_fd, writes, count);
                    ssize_t written = write(2, hang_message, hang_message_length);
                    (void)written;
                    continue;
                }
                if (ready < 0 && errno == EINTR) continue;
            }
            char byte;
            ssize_t got = read(ends[0], &byte, 1);
            if (got == 1) {
                if (byte == 'q') quiet = 1;
                if (byte == 'd') released = 1;
                if (byte == 'h') beating = 1;
                continue;
            }
            if (got < 0 && errno == EINTR) continue;
            break;
        }
        if (released) _exit(0);
        clh_guard_write_all(bus_fd, writes, count);
        if (!quiet) {
            ssize_t written = write(2, message, message_length);
            (void)written;
        }
        _exit(0);
    }
    close(ends[0]);
    struct clh_guard_registry *registry = clh_guard_registry();
    pthread_mutex_lock(&registry->lock);
    static int registered;
    if (!registered) registered = atexit(clh_guard_at_exit) == 0;
    if (registry->count < 16) registry->ends[registry->count++] = ends[1];
    pthread_mutex_unlock(&registry->lock);
    *guard_pid = pid;
    return ends[1];
}

/// One heartbeat to every guard of this process ('h'): the program still answers.
static inline void clh_guard_heartbeat(void) {
    struct clh_guard_registry *registry = clh_guard_registry();
    pthread_mutex_lock(&registry->lock);
    for (int i = 0; i < registry->count; i++) {
        char beat = 'h';
        ssize_t written = write(registry->ends[i], &beat, 1);
        (void)written;
    }
    pthread_mutex_unlock(&registry->lock);
}

/// Releases a guard: 'd' told, its write end closed (and forgotten by the at-exit handler), and the
/// guard waited for, so that the chip's lock it also held is free when this returns.
static inline void clh_guard_release(int write_end, pid_t guard_pid) {
    char released = 'd';
    ssize_t written = write(write_end, &released, 1);
    (void)written;
    struct clh_guard_registry *registry = clh_guard_registry();
    pthread_mutex_lock(&registry->lock);
    for (int i = 0; i < registry->count; i++) {
        if (registry->ends[i] == write_end) {
            registry->ends[i] = registry->ends[--registry->count];
            break;
        }
    }
    pthread_mutex_unlock(&registry->lock);
    close(write_end);
    while (waitpid(guard_pid, NULL, 0) < 0 && errno == EINTR) {}
}

/// flock(LOCK_EX | LOCK_NB): 0, or -1 with errno (EWOULDBLOCK: another holds it).
static inline int clh_lock_exclusive(int fd) { return flock(fd, LOCK_EX | LOCK_NB); }

#endif
