// SPDX-License-Identifier: Apache-2.0
// libsystemd (Debian: libsystemd-dev): the service manager's notifications (sd_notify, the watchdog)
// and sd-bus, the D-Bus library the feedbackd service is built on.
#include <systemd/sd-daemon.h>
#include <systemd/sd-bus.h>
