#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# The package installed and run as users run it, in Debian booted with systemd as PID 1
# (Scripts/kernel-test --deploy; run by hil-deploy.service once the system is up). The emulated
# DRV2605L (i2c-drv2605-sim) is on /dev/i2c-1, as a breakout is on a Pi: i2c-stub takes bus 0, so
# the package's defaults are what is tested, not settings of the test's. Each figure goes to VALUES
# for gate_deploy (Tests/KernelFixtures/gates.sh); prints HIL-DEPLOY lines, then powers off.
exec > /dev/ttyS0 2>&1
export PATH=/usr/sbin:/usr/bin:/sbin:/bin LC_ALL=C.UTF-8
P=/sys/module/i2c_drv2605_sim/parameters
VALUES=/tmp/deploy-values
SOCKET=/run/haptics/hapticd.sock
: > $VALUES
step() { echo "HIL-DEPLOY-STEP: $*"; }
value() { echo "$1 $2" >> $VALUES; }
mode() { cut -d' ' -f2 $P/registers; }
rtp() { cut -d' ' -f3 $P/registers; }
now() { date +%s%3N; }
gos() { grep -c " set$" $P/go_timeline; }
main_pid() { systemctl show -p MainPID --value hapticd.service; }
# wait_until TENTHS COMMAND...: polls every 20 ms until COMMAND succeeds; 1 when it never did.
wait_until() {
    limit=$(( $(now) + $1 * 100 ))
    shift
    while ! "$@"; do
        [ "$(now)" -lt "$limit" ] || return 1
        sleep 0.02
    done
}
driving() { [ "$(mode)" = 05 ] && [ "$(rtp)" != 00 ]; }
standby() { [ "$(mode)" = 40 ]; }
ready_ms() {
    set -- $(systemctl show -p ExecMainStartTimestampMonotonic -p ActiveEnterTimestampMonotonic --value "$1")
    echo $(( ($2 - $1) / 1000 ))
}
finish() {
    . /opt/deploy/gates.sh
    gate_deploy $VALUES > /tmp/gate.out
    verdict=$?
    sed 's/^/HIL-DEPLOY: /' /tmp/gate.out
    if grep -q hil.record /proc/cmdline; then sed 's|^|HIL-RECORD deploy/values |' $VALUES; fi
    if [ $verdict -ne 0 ]; then
        journalctl --no-pager -o short-monotonic -n 60 -u hapticd.service | sed 's/^/HIL-DEPLOY-LOG: /'
        echo "HIL-DEPLOY-VERDICT: FAIL"
    else
        echo "HIL-DEPLOY-VERDICT: PASS"
    fi
    sync
    echo o > /proc/sysrq-trigger
    sleep 30
}

step "the root: Debian $(cat /etc/debian_version), systemd $(systemctl --version | sed -n '1s/systemd \([0-9]*\).*/\1/p'), $(cat /sys/bus/i2c/devices/i2c-1/name 2>/dev/null || echo 'no bus') on /dev/i2c-1"
value swift-libraries "$(find / -xdev \( -name 'libswiftCore*' -o -name 'libFoundation*.so*' -o -name 'swift' -type d \) 2>/dev/null | wc -l)"

step "apt install ./swift-haptics_*.deb ./swift-haptics-feedbackd_*.deb"
cd /opt/deploy
start=$(now)
DEBIAN_FRONTEND=noninteractive apt install -y ./swift-haptics_*.deb ./swift-haptics-feedbackd_*.deb > /tmp/apt.log 2>&1
value install-status $?
value install-ms $(( $(now) - start ))
tail -3 /tmp/apt.log | sed 's/^/HIL-DEPLOY-STEP:   /'
value active-after-install "$(systemctl is-active hapticd.service)"
value first-ready-ms "$(ready_ms hapticd.service)"
value calibrations-after-install "$(cat $P/calibrations)"
value calibration-owner "$(stat -c %U /var/lib/haptics/calibration.json 2>/dev/null || echo none)"
# /dev/uinput as the package's udev rule leaves it: hapticd's user alone (its group is the socket's).
modprobe uinput 2>/dev/null; udevadm settle 2>/dev/null
value uinput-access "$(stat -c %U:%G:%a /dev/uinput 2>/dev/null || echo none)"
# The unit's sandbox as systemd rates it (the installed unit, this systemd), with what it still exposes.
systemd-analyze security --no-pager hapticd.service > /tmp/security.log 2>&1
value security-exposure "$(sed -n 's/.*Overall exposure level for hapticd.service: \([0-9.]*\).*/\1/p' /tmp/security.log)"
grep "^✗" /tmp/security.log | awk '{ print $2 }' | tr '\n' ' ' | sed 's/^/HIL-DEPLOY-STEP:   still exposed: /; s/$/\n/'

# As a user joins the groups: hapticd's for its socket, i2c for running haptic on the chip itself.
usermod -aG hapticd,i2c tester

step "systemctl restart hapticd"
start=$(now)
systemctl restart hapticd.service
value restart-ms $(( $(now) - start ))
value calibrations-after-restart "$(cat $P/calibrations)"

step "a user in group hapticd plays through the socket; one outside it is refused"
echo 1 > $P/go_timeline
runuser -u tester -- haptic play success --socket $SOCKET > /tmp/tester.log 2>&1
value user-play-status $?
value user-play-gos "$(gos)"
if runuser -u stranger -- haptic play success --socket $SOCKET > /tmp/stranger.log 2>&1; then
    value stranger-refused 0
else
    grep -q -i "permission" /tmp/stranger.log && value stranger-refused 1 || value stranger-refused 0
fi

step "haptic stop run by hand, for its time on this machine (the baseline of the next figure)"
# The whole process, twice (the second with its pages cached, as ExecStopPost finds them).
for run in 1 2; do
    before=$(cat $P/monotonic)
    haptic stop > /dev/null 2>&1
    after=$(cat $P/monotonic)
done
value haptic-stop-ms $(( (after - before) / 1000000 ))

step "SIGKILL of the daemon mid-pattern: ExecStopPost, then a restart"
haptic pattern /opt/deploy/long.ahap --socket $SOCKET > /dev/null 2>&1 &
wait_until 50 driving && value driving-when-killed 1 || value driving-when-killed 0
pid=$(main_pid)
start=$(now)
# The kill dated on the fixture's clock, and the standby by the fixture itself (the MODE write).
killed_ns=$(cat $P/monotonic)
kill -KILL "$pid"
wait_until 50 standby && value standby-after-kill-ms $(( ($(cat $P/standby_since) - killed_ns) / 1000000 )) || value standby-after-kill-ms -1
restarted() { [ "$(main_pid)" != 0 ] && [ "$(main_pid)" != "$pid" ] && [ "$(systemctl is-active hapticd.service)" = active ]; }
wait_until 150 restarted && value restarted-after-kill 1 || value restarted-after-kill 0
value restart-after-kill-ms $(( $(now) - start ))
wait

step "SIGSTOP of the daemon mid-pattern: the watchdog"
haptic pattern /opt/deploy/long.ahap --socket $SOCKET > /dev/null 2>&1 &
client=$!
wait_until 50 driving && value driving-when-stopped 1 || value driving-when-stopped 0
pid=$(main_pid)
start=$(now)
stopped_ns=$(cat $P/monotonic)
kill -STOP "$pid"
kill "$client" 2>/dev/null
wait_until 400 standby && value watchdog-standby-ms $(( ($(cat $P/standby_since) - stopped_ns) / 1000000 )) || value watchdog-standby-ms -1
wait_until 300 restarted && value restarted-after-watchdog 1 || value restarted-after-watchdog 0
value watchdog-restart-ms $(( $(now) - start ))
value watchdog-logged "$(journalctl --no-pager -u hapticd.service | grep -c -i 'watchdog timeout')"

step "a bus that appears late (I2C enabled after boot): hapticd waits for it, says so, serves"
systemctl stop hapticd.service
modprobe -r i2c_drv2605_sim
systemctl start --no-block hapticd.service
sleep 3
value waiting-state "$(systemctl is-active hapticd.service)"
value waiting-status "$(systemctl show -p StatusText --value hapticd.service | grep -c 'waiting for the chip')"
systemctl show -p StatusText --value hapticd.service | sed 's/^/HIL-DEPLOY-STEP:   /'
appeared=$(now)
modprobe i2c-drv2605-sim
serving() { [ "$(systemctl is-active hapticd.service)" = active ] && [ -S $SOCKET ]; }
wait_until 150 serving && value serving-after-bus-ms $(( $(now) - appeared )) || value serving-after-bus-ms -1
haptic play success > /tmp/late.log 2>&1
value late-play-status $?

step "hapticd.socket (opt-in) starts a stopped hapticd at a client's first connection"
systemctl stop hapticd.service
systemctl start hapticd.socket
value socket-unit "$(systemctl is-active hapticd.socket)"
value service-before-client "$(systemctl is-active hapticd.service)"
start=$(now)
# The first connection starts hapticd; this client may time out while it starts.
haptic status > /tmp/socket-first.log 2>&1
service_active() { [ "$(systemctl is-active hapticd.service)" = active ]; }
wait_until 150 service_active && value socket-activation-ms $(( $(now) - start )) || value socket-activation-ms -1
echo 1 > $P/go_timeline
haptic play success > /tmp/socket-play.log 2>&1
value socket-play-status $?
value socket-play-gos "$(gos)"
value socket-passed "$(journalctl --no-pager -u hapticd.service -n 60 | grep -c 'the socket systemd passed')"
# Stopped while its socket listens: the unit's ExecStopPost stops the chip itself, and must not ask
# the socket (a connection there would start hapticd again at once).
systemctl stop hapticd.service
sleep 1
value service-after-stop "$(systemctl is-active hapticd.service)"
systemctl stop hapticd.socket hapticd.service

step "a libfeedback app on a user's session starts hapticd through D-Bus activation"
systemctl stop hapticd.service
uid=$(id -u tester)
loginctl enable-linger tester
bus_up() { [ -S "/run/user/$uid/bus" ]; }
wait_until 300 bus_up || echo "HIL-DEPLOY-STEP:   no session bus for tester"
echo 1 > $P/go_timeline
start=$(now)
runuser -u tester -- env XDG_RUNTIME_DIR=/run/user/$uid DBUS_SESSION_BUS_ADDRESS=unix:path=/run/user/$uid/bus \
    python3 /opt/deploy/feedback-trigger.py > /tmp/session.log 2>&1
value session-client-status $?
value activation-ms $(( $(now) - start ))
sed 's/^/HIL-DEPLOY-STEP:   /' /tmp/session.log
value session-active "$(systemctl --user -M tester@ is-active hapticd-session.service)"
value session-gos "$(gos)"

step "apt remove while the session's hapticd plays; apt purge"
runuser -u tester -- haptic pattern /opt/deploy/long.ahap --socket "/run/user/$uid/haptics/hapticd.sock" > /dev/null 2>&1 &
wait_until 50 driving && value driving-before-remove 1 || value driving-before-remove 0
DEBIAN_FRONTEND=noninteractive apt remove -y swift-haptics > /tmp/remove.log 2>&1
value remove-status $?
standby && value standby-after-remove 1 || value standby-after-remove 0
value hapticd-left "$(pgrep -c -x hapticd)"
[ -e /var/lib/haptics/calibration.json ] && value state-after-remove 1 || value state-after-remove 0
DEBIAN_FRONTEND=noninteractive apt purge -y swift-haptics > /tmp/purge.log 2>&1
value purge-status $?
[ -e /var/lib/haptics ] && value state-after-purge 1 || value state-after-purge 0
wait
finish
