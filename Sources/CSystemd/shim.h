// SPDX-License-Identifier: Apache-2.0
// libsystemd (Debian: libsystemd-dev): the service manager's notifications (sd_notify, the watchdog).
#include <systemd/sd-daemon.h>
