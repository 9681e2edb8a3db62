// SPDX-License-Identifier: Apache-2.0
// libasound (Debian: libasound2-dev), ALSA's user-space library.
#include <alsa/asoundlib.h>

/// ALSA prints its own errors on stderr by default; the output reports them as typed errors
/// naming the device instead. A variadic handler cannot be written in Swift, hence this shim.
static void haptics_alsa_quiet_handler(const char *file, int line, const char *function, int err, const char *fmt, ...) {
    (void)file; (void)line; (void)function; (void)err; (void)fmt;
}
static inline void haptics_alsa_silence_errors(void) { snd_lib_error_set_handler(haptics_alsa_quiet_handler); }
