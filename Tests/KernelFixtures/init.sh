#!/bin/busybox sh
# SPDX-License-Identifier: Apache-2.0
# /init of the hardware-in-loop VM: loads the I2C and GPIO fixtures, runs the project's
# hardware-in-loop suite and a few haptic verbs against them, prints one verdict line, powers off.
/bin/busybox --install -s /bin
export PATH=/bin:/sbin:/opt/haptics
mkdir -p /proc /sys /dev /tmp /root
mount -t proc proc /proc
mount -t sysfs sys /sys
mount -t devtmpfs dev /dev
mount -t tmpfs tmp /tmp
export HOME=/root TMPDIR=/tmp HAPTIC_CALIBRATION_FILE=/tmp/calibration.json TERM=dumb
failures=0
step() { echo "HIL-STEP: $*"; }
fail() { echo "HIL-FAIL: $*"; failures=$((failures + 1)); }
# The gates (Tests/KernelFixtures/gates.sh, also run by Scripts/kernel-test --prove-gates outside the
# VM): `gate PREFIX FUNCTION ARGS...` prints a gate's figures and bounds under PREFIX and counts a
# failure when a bound was missed. `record NAME FILE...` and `record_value NAME KEY VALUE` keep
# what a gate was given, printed at the end for `Scripts/kernel-test --record DIRECTORY`.
. /opt/haptics/gates.sh
gate() {
    prefix=$1
    shift
    "$@" > /tmp/gate.out
    verdict=$?
    sed "s/^/$prefix: /" /tmp/gate.out
    [ $verdict -eq 0 ] || fail "$prefix: $(grep '^missed:' /tmp/gate.out | tr '\n' ' ')"
    return $verdict
}
record() { name=$1; shift; mkdir -p "/tmp/record/$name"; cp "$@" "/tmp/record/$name/"; }
record_value() { mkdir -p "/tmp/record/$1"; echo "$2 $3" >> "/tmp/record/$1/values"; }
# input_event PATTERN TENTHS: sets $event to the event node of the input device whose name matches
# PATTERN (grep), waiting up to TENTHS tenths of a second for its driver to make it; empty if none.
input_event() {
    event=""
    for _ in $(seq "$2"); do
        for input in /sys/class/input/input*; do
            grep -q "$1" "$input/name" 2>/dev/null && event=$(ls "$input" | grep -m1 '^event')
        done
        [ -n "$event" ] && return 0
        sleep 0.1
    done
}

# The modules this kernel needs (configfs and i2c-dev are built in on some), in dependency order.
echo "HIL-KERNEL: $(uname -r) $(uname -m)"
while read -r module; do
    insmod "/modules/$module" || fail "insmod $module"
done < /modules/order
mount -t configfs none /sys/kernel/config || fail "configfs"

BUS=""
for adapter in /sys/bus/i2c/devices/i2c-*; do
    [ "$(cat "$adapter/name" 2>/dev/null)" = "drv2605-sim" ] && BUS="/dev/${adapter##*/}"
done
[ -n "$BUS" ] || fail "no drv2605-sim adapter"

G=/sys/kernel/config/gpio-sim/hil
mkdir -p $G/bank0/line0 $G/bank0/line1
echo 2 > $G/bank0/num_lines
echo EN > $G/bank0/line0/name
echo TRIG > $G/bank0/line1/name
echo 1 > $G/live || fail "gpio-sim live"
CHIP=$(cat $G/bank0/chip_name)
DEVICE=$(cat $G/dev_name)
step "bus $BUS, GPIO chip $CHIP ($DEVICE)"

export HAPTIC_HIL_BUS="$BUS"
export HAPTIC_HIL_ENABLE="$CHIP:0" HAPTIC_HIL_TRIGGER="$CHIP:1"
export HAPTIC_HIL_ENABLE_READBACK="/sys/devices/platform/$DEVICE/$CHIP/sim_gpio0/value"
export HAPTIC_HIL_TRIGGER_READBACK="/sys/devices/platform/$DEVICE/$CHIP/sim_gpio1/value"

export HAPTIC_HIL_PART=drv2605l

step "chip model"
# The same transaction scripts against this fixture and the project's simulator; each script
# starts on a fresh chip, and the last leaves one.
if [ -x /opt/haptics/drv2605-model ]; then
    drv2605-model check --bus "$BUS" /opt/haptics/model-scripts/*.txt > /tmp/model.log 2>&1 || { sed "s/^/HIL-MODEL: /" /tmp/model.log; fail "drv2605-model check"; }
    echo "HIL-MODEL: $(grep "^model agreement:" /tmp/model.log)"
    echo "HIL-MODEL: gates: drv2605-model check exits 0 (no difference between the fixture and the simulator, no broken expectation)"
else
    fail "no drv2605-model in this image"
fi

step "hardware-in-loop suite"
if /opt/haptics/tests --testing-library swift-testing --filter "HardwareInLoopTests.HardwareInLoopTests" > /tmp/hil.log 2>&1; then
    grep -E "passed|skipped|failed" /tmp/hil.log | sed 's/\x1b\[[0-9;]*m//g' | tail -14
    ran=$(sed -n 's/.*Test run with \([0-9]*\) tests\{0,1\} .*/\1/p' /tmp/hil.log | tail -1)
    for pair in "ran ${ran:-0}" "expected $(cat /opt/haptics/expected-hil-tests)" "skipped $(grep -c "skipped" /tmp/hil.log)"; do record_value suite $pair; done
    gate HIL-SUITE gate_suite /tmp/record/suite/values
else
    sed 's/\x1b\[[0-9;]*m//g' /tmp/hil.log | tail -40
    fail "hardware-in-loop suite"
fi

step "haptic verbs"
haptic probe --bus "$BUS" || fail "haptic probe"
haptic play success --bus "$BUS" || fail "haptic play success"
haptic play impact-heavy --intensity 0.4 --bus "$BUS" --json > /tmp/play.json || fail "haptic play impact-heavy"
record_value verbs standby-after-play "$(grep -c '"standby" : true' /tmp/play.json)"
haptic effect 47 --bus "$BUS" || fail "haptic effect 47"
haptic pattern /opt/haptics/heartbeat.ahap --bus "$BUS" || fail "haptic pattern"
haptic calibrate --bus "$BUS" || fail "haptic calibrate"
haptic status --bus "$BUS" > /tmp/status.txt || fail "haptic status"
record_value verbs calibration-restored "$(grep -c "calibration: restored" /tmp/status.txt)"
haptic diagnose --bus "$BUS" || fail "haptic diagnose"
haptic dump --bus "$BUS" > /dev/null || fail "haptic dump"
haptic probe --bus "$BUS" --address 0x5B 2>/tmp/absent.txt
record_value verbs absent-exit $?
record_value verbs absent-named "$(grep -c "noAcknowledge" /tmp/absent.txt)"
haptic probe --bus /dev/i2c-42 2>/dev/null
record_value verbs wrong-bus-exit $?
echo "HIL-VERBS: probe, play, effect, pattern, calibrate, diagnose and dump exited 0"
gate HIL-VERBS gate_verbs /tmp/record/verbs/values

step "effects longer than estimated"
# The fixture plays ROM effects at 360 % of the model's estimate: effect 47 (estimated 250 ms)
# lasts 900 ms, past the old give-up point (estimate + 500 ms). The driver waits for GO to clear.
P=/sys/module/i2c_drv2605_sim/parameters
# The fixture dates GO: set, and cleared by the chip at the effect's modelled end (900 ms).
echo 360 > $P/effect_percent
echo 1 > $P/go_timeline
haptic effect 47 --bus "$BUS" --json > /tmp/long.json 2>&1 || { cat /tmp/long.json; fail "effect 47 at 360 %"; }
played=$(sed -n 's/.*"playedSeconds" : \([0-9.]*\).*/\1/p' /tmp/long.json)
cat $P/go_timeline > /tmp/long-go.txt
echo 100 > $P/effect_percent
record long-effect /tmp/long-go.txt
record_value long-effect played "${played:-0}"
record_value long-effect standby "$(grep -c '"standby" : true' /tmp/long.json)"
echo "HIL-LONG-EFFECT: effect 47 at 360 % of its estimated 250 ms, modelled 900 ms by the fixture"
gate HIL-LONG-EFFECT gate_long_effect /tmp/long-go.txt "${played:-0}" 900 "$(grep -c '"standby" : true' /tmp/long.json)" || cat /tmp/long.json

step "sound with haptics (HIL-AV-SYNC)"
# `haptic sequence` plays 13 notes 0.4 s apart, each a tap with an impact, on ALSA's loopback card;
# av-capture dates each sound as a real card would have played it, on the loopback's own clock (the
# playback's frame it was, counted from the playback's trigger: av-capture.c says how), the fixture dates
# each GO (drive_onsets): both on CLOCK_MONOTONIC. Sound k is paired with note k's GO; the first
# note is a warm-up (the emulator translates that code path on first use). One run, no second
# chance: a disturbed machine is a failed step.
AV_NOTES="sound /opt/haptics/sounds/tap.wav, impact-heavy"
for n in 1 2 3 4 5 6 7 8 9 10 11 12; do AV_NOTES="$AV_NOTES, wait 0.4, sound /opt/haptics/sounds/tap.wav, impact-heavy"; done
if [ ! -x /opt/haptics/av-capture ]; then
    echo "HIL-AV-SYNC: skipped: this image has no av-capture (only the x86_64 VM measures sound)"
elif [ -e /proc/asound/Loopback ]; then
    echo 1 > $P/drive_onsets
    # The VM's own stalls beside it (stall-watch.c says how): a 1 ms real-time tick on each CPU, late
    # by over 2 ms only when that CPU did not run.
    stall-watch 1000 2000 > /tmp/av-stalls.txt 2> /tmp/av-stalls.err &
    watcher=$!
    av-capture hw:Loopback,1,0 60 /proc/asound/Loopback/pcm0p/sub0/status > /tmp/av.txt 2> /tmp/av.err &
    capture=$!
    waited=0
    while ! { grep -q ready /tmp/av.txt && grep -q ready /tmp/av-stalls.txt; } 2>/dev/null && [ $waited -lt 50 ]; do sleep 0.1; waited=$((waited + 1)); done
    haptic sequence "$AV_NOTES" --bus "$BUS" --audio-device plughw:Loopback,0,0 --audio-latency 200 --json > /tmp/av.json 2> /tmp/av-haptic.err \
        || { cat /tmp/av-haptic.err; fail "sound with haptics: haptic sequence exited $?"; }
    # The capture ends on SIGTERM half a second after the sequence, and then dates what it heard.
    sleep 0.5
    kill -TERM $capture
    wait $capture || { cat /tmp/av.err; fail "sound with haptics: av-capture failed"; }
    kill -TERM $watcher
    wait $watcher || { cat /tmp/av-stalls.err; fail "sound with haptics: stall-watch failed"; }
    cat $P/drive_onsets > /tmp/av-go.txt
    underruns=$(sed -n 's/.*"underruns" : \([0-9]*\).*/\1/p' /tmp/av.json | head -1)
    grep '^clock:' /tmp/av.txt | sed 's/^/HIL-AV-SYNC: /; s/$/ (how the sounds were dated, not gated itself: the offsets it gives are)/'
    gate HIL-AV-SYNC gate_av_sync 13 1 400 /tmp/av.txt /tmp/av-go.txt "${underruns:-1}" /tmp/av-stalls.txt || grep -A12 '"audio"' /tmp/av.json
    record av-sync /tmp/av.txt /tmp/av-go.txt /tmp/av-stalls.txt
    record_value av-sync underruns "${underruns:-1}"
else
    fail "sound with haptics: no loopback card (snd-aloop did not load)"
fi

step "force feedback"
if [ -x /opt/haptics/fftest ] && [ -x /opt/haptics/hapticd ] && [ -e /dev/uinput ]; then
    hapticd --bus "$BUS" --socket /tmp/hapticd.sock --force-feedback > /tmp/hapticd.log 2>&1 &
    daemon=$!
    for _ in $(seq 100); do [ -S /tmp/hapticd.sock ] && break; sleep 0.1; done
    event=""
    for input in /sys/class/input/input*; do
        grep -q hapticd "$input/name" 2>/dev/null && event=$(ls "$input" | grep -m1 '^event')
    done
    if [ -z "$event" ]; then
        cat /tmp/hapticd.log
        fail "no hapticd force-feedback device"
    else
        # fftest, from Debian's joystick package: sets 75 % gain, uploads its effects, plays the
        # weak rumble (effect 5) for three seconds, then stops everything. The fixture's drive
        # timeline says how long the chip was driven, and that it stopped.
        echo 1 > /sys/module/i2c_drv2605_sim/parameters/drive_timeline
        ( echo 5; sleep 3; echo -1 ) | fftest "/dev/input/$event" > /tmp/fftest.log 2>&1
        for _ in $(seq 40); do
            haptic status --socket /tmp/hapticd.sock --json > /tmp/ff-after.json 2>&1
            grep -q '"standby" : true' /tmp/ff-after.json && break
            sleep 0.05
        done
        cat /sys/module/i2c_drv2605_sim/parameters/drive_timeline > /tmp/ff-rumble-timeline.txt
        record force-feedback /tmp/ff-rumble-timeline.txt
        uploaded=$(grep -c "Uploading effect.*OK" /tmp/fftest.log)
        # Not gated: the count of effects fftest uploads (it tries its own list; this device takes
        # rumble and periodic ones); its rumble, the one played, is.
        echo "HIL-FORCE-FEEDBACK: fftest on /dev/input/$event uploaded $uploaded effects"
        for pair in "uploaded $uploaded" "rumble-uploaded $(grep -c "Uploading effect #5.*OK" /tmp/fftest.log)" \
            "played-logged $(grep -c "force feedback: .* playing" /tmp/hapticd.log)" "standby-after $(grep -c '"standby" : true' /tmp/ff-after.json)"; do
            record_value force-feedback-session $pair
        done
        gate HIL-FORCE-FEEDBACK gate_force_feedback_session /tmp/record/force-feedback-session/values || { tail -5 /tmp/fftest.log; tail -5 /tmp/hapticd.log; }
        gate HIL-FORCE-FEEDBACK gate_force_feedback /tmp/ff-rumble-timeline.txt 3 562 || { tail -5 /tmp/fftest.log; tail -5 /tmp/hapticd.log; }
        # ff-mix's session (two effects at once) on hapticd's device, the drive recorded by the
        # fixture, for HIL-FF-MEMLESS below.
        if [ -x /opt/haptics/ff-mix ]; then
            echo 1 > /sys/module/i2c_drv2605_sim/parameters/drive_timeline
            ff-mix "/dev/input/$event" > /tmp/ff-mix-hapticd.log 2>&1 || cat /tmp/ff-mix-hapticd.log
            sleep 0.3
            cat /sys/module/i2c_drv2605_sim/parameters/drive_timeline > /tmp/timeline-hapticd.txt
        fi
    fi
    kill -TERM $daemon
    wait $daemon
    grep -q "actuator stopped" /tmp/hapticd.log || fail "hapticd: no 'actuator stopped' on SIGTERM"
else
    echo "HIL-FORCE-FEEDBACK: force feedback skipped: no fftest, hapticd or uinput in this image"
fi

echo '{"Version": 1, "Pattern": [{"Event": {"Time": 0, "EventType": "HapticContinuous", "EventDuration": 20,
  "EventParameters": [{"ParameterID": "HapticIntensity", "ParameterValue": 0.8}]}}]}' > /tmp/long.ahap
# guards: the pids of the dead-man guards running now (LinuxHardware's DeadManGuard names itself so).
guards() { for p in /proc/[0-9]*; do [ "$(cat "$p/comm" 2>/dev/null)" = haptic-guard ] && echo "${p#/proc/}"; done; }
# dead_man NAME TIMELINE PID LOG: PID (whose output is LOG) streams a long pattern on a chip over
# I2C; once the fixture's drive TIMELINE (cleared before PID started) shows it driving, PID is killed
# with SIGKILL (kill-timed: the time the signal went, on the timeline's clock), and the gate reads
# when the drive stopped: nothing of the program runs after SIGKILL, so the stop is its dead-man
# guard's (HIL-DEADMAN).
dead_man() {
    # Names of their own: sh has no locals, and record() sets "name".
    dm_name=$1 dm_timeline=$2 dm_victim=$3 dm_log=$4
    for _ in $(seq 400); do
        level=$(tail -1 "$dm_timeline" | cut -d' ' -f2)
        [ -n "$level" ] && [ "$level" != 0 ] && break
        sleep 0.02
    done
    sleep 0.2
    killed=$(kill-timed "$dm_victim")
    wait "$dm_victim" 2>/dev/null
    sleep 0.5
    cp "$dm_timeline" "/tmp/deadman-$dm_name.txt"
    record "dead-man-$dm_name" "/tmp/deadman-$dm_name.txt"
    record_value "dead-man-$dm_name" kill "$killed"
    grep "haptics guard" "$dm_log" | sed "s/^/HIL-DEADMAN: $dm_name: /"
    gate HIL-DEADMAN gate_dead_man "$dm_name" "${killed:-0}" "/tmp/deadman-$dm_name.txt" 50
}

step "programs killed mid-pattern (HIL-DEADMAN, HIL-DAEMON-KILLED)"
# hapticd, and haptic driving the chip itself, each streaming a long continuous pattern (MODE 05, RTP
# not 0) and killed with SIGKILL: their dead-man guard stops the chip. Then the guard is stopped
# first and killed with the daemon, which leaves the chip driving: what the unit does after the
# daemon (ExecStopPost: haptic stop), and a daemon started on a chip left driving.
P=/sys/module/i2c_drv2605_sim/parameters
field() { cut -d' ' -f"$1" $P/registers; }   # 2: MODE (0x01), 3: RTP (0x02)
if [ -x /opt/haptics/hapticd ] && [ -x /opt/haptics/kill-timed ]; then
    echo 1 > $P/drive_timeline
    haptic pattern /tmp/long.ahap --bus "$BUS" > /tmp/deadman-haptic.log 2>&1 &
    dead_man haptic-pattern $P/drive_timeline $! /tmp/deadman-haptic.log
    hapticd --bus "$BUS" --socket /tmp/killed.sock > /tmp/deadman-hapticd.log 2>&1 &
    daemon=$!
    for _ in $(seq 100); do [ -S /tmp/killed.sock ] && break; sleep 0.1; done
    echo 1 > $P/drive_timeline
    haptic pattern /tmp/long.ahap --socket /tmp/killed.sock > /dev/null 2>&1 &
    client=$!
    dead_man hapticd $P/drive_timeline $daemon /tmp/deadman-hapticd.log
    wait $client 2>/dev/null
    rm -f /tmp/killed.sock
    # The studio playing the pattern a designer sent (POST /api/play, which answers when it ends).
    if [ -x /opt/haptics/haptic-studio ]; then
        ifconfig lo 127.0.0.1 up
        echo 1 > $P/drive_timeline
        haptic-studio --bus "$BUS" --port 8181 > /tmp/deadman-studio.log 2>&1 &
        studio=$!
        for _ in $(seq 300); do grep -q "http://" /tmp/deadman-studio.log && break; sleep 0.1; done
        grep -q "http://" /tmp/deadman-studio.log || { sed "s/^/HIL-DEADMAN: haptic-studio: /" /tmp/deadman-studio.log; fail "HIL-DEADMAN: haptic-studio did not start serving"; }
        wget -q -O /dev/null --post-file /tmp/long.ahap "http://127.0.0.1:8181/api/play?name=long.ahap" > /dev/null 2>&1 &
        request=$!
        dead_man haptic-studio $P/drive_timeline $studio /tmp/deadman-studio.log
        kill $request 2>/dev/null
        wait $request 2>/dev/null
    else
        fail "HIL-DEADMAN: no haptic-studio in this image"
    fi
else
    echo "HIL-DEADMAN: skipped: no hapticd or kill-timed in this image"
fi
driving_pattern() {
    hapticd --bus "$BUS" --socket /tmp/killed.sock > /tmp/killed.log 2>&1 &
    daemon=$!
    for _ in $(seq 100); do [ -S /tmp/killed.sock ] && break; sleep 0.1; done
    haptic pattern /tmp/long.ahap --socket /tmp/killed.sock > /dev/null 2>&1 &
    client=$!
    for _ in $(seq 200); do [ "$(field 2)" = 05 ] && [ "$(field 3)" != 00 ] && break; sleep 0.02; done
    # The guard first (it cannot ignore SIGSTOP), then the daemon, then the guard: nothing stops the chip.
    held=$(guards)
    [ -n "$held" ] && kill -STOP $held
    kill -KILL $daemon
    wait $daemon 2>/dev/null
    [ -n "$held" ] && kill -KILL $held
    wait $client 2>/dev/null
    rm -f /tmp/killed.sock
}
if [ -x /opt/haptics/hapticd ]; then
    driving_pattern
    left_mode=$(field 2) left_rtp=$(field 3)
    haptic stop --bus "$BUS" > /tmp/stop.log 2>&1 || { cat /tmp/stop.log; fail "haptic stop after the daemon was killed"; }
    stopped_mode=$(field 2) stopped_rtp=$(field 3)
    driving_pattern
    again_mode=$(field 2) again_rtp=$(field 3)
    hapticd --bus "$BUS" --socket /tmp/killed.sock > /tmp/restart.log 2>&1 &
    daemon=$!
    for _ in $(seq 100); do [ -S /tmp/killed.sock ] && break; sleep 0.1; done
    restarted_mode=$(field 2) restarted_rtp=$(field 3)
    kill -TERM $daemon
    wait $daemon
    echo "HIL-DAEMON-KILLED: hapticd killed (SIGKILL) mid-pattern with its guard stopped and killed too; haptic stop, as the unit runs it after the daemon; killed again, and a daemon started on the chip left driving"
    record_value daemon-killed modes "$left_mode $left_rtp $stopped_mode $stopped_rtp $again_mode $again_rtp $restarted_mode $restarted_rtp"
    gate HIL-DAEMON-KILLED gate_daemon_killed "$left_mode" "$left_rtp" "$stopped_mode" "$stopped_rtp" "$again_mode" "$again_rtp" "$restarted_mode" "$restarted_rtp" \
        || cat /tmp/stop.log /tmp/restart.log
else
    # Scripts/kernel-test (x86_64) requires this step's line; an image without hapticd skips it.
    echo "HIL-DAEMON-KILLED: skipped: no hapticd in this image"
fi

# HIL-EVDEV compares when two paths start driving; under the arm64 VM's full emulation (tens of times
# slower than the x86_64 VM's) that is the emulator's timing, not the code's: the x86_64 VM gates it.
evdev_runs() { [ -x /opt/haptics/hapticd ] && [ "$(uname -m)" != aarch64 ]; }
EVDEV_SKIPPED="no hapticd in this image, or the emulated arm64 (timings)"

# One pattern played five times by a client of hapticd started with ARGS; each run's drive timeline
# after a "start NS" line (the request's arrival, from hapticd's --verbose log) in
# /tmp/evdev-NAME-RUN.txt (HIL-EVDEV).
echo '{"Version": 1, "Pattern": [
  {"Event": {"Time": 0, "EventType": "HapticContinuous", "EventDuration": 0.3, "EventParameters": [{"ParameterID": "HapticIntensity", "ParameterValue": 0.5}]}},
  {"Event": {"Time": 0.3, "EventType": "HapticContinuous", "EventDuration": 0.25, "EventParameters": [{"ParameterID": "HapticIntensity", "ParameterValue": 1.0}]}}]}' > /tmp/evdev.ahap
# play_pattern_runs NAME HAPTICD-OPTIONS...: five runs of the pattern, each "start NS" and the drive
# timeline of the fixture TIMELINE names (the DRV2605L's unless set).
play_pattern_runs() {
    name=$1
    shift
    timeline=${TIMELINE:-/sys/module/i2c_drv2605_sim/parameters/drive_timeline}
    hapticd "$@" --socket /tmp/evdev.sock --verbose > "/tmp/evdev-$name.log" 2>&1 &
    pattern_daemon=$!
    for _ in $(seq 200); do [ -S /tmp/evdev.sock ] && break; sleep 0.1; done
    for run in 1 2 3 4 5; do
        echo 1 > "$timeline"
        haptic pattern /tmp/evdev.ahap --socket /tmp/evdev.sock > "/tmp/evdev-$name-client.log" 2>&1 || cat "/tmp/evdev-$name-client.log"
        sleep 0.3
        # The request's arrival at hapticd, on the monotonic clock the fixture's timeline is on.
        start=$(sed -n 's/.*: play received at \([0-9]*\) ns.*/\1/p' "/tmp/evdev-$name.log" | tail -1)
        [ -n "$start" ] || fail "hapticd $*: its --verbose log has no 'play received at N ns' line, which the onset is measured from"
        { echo "start $start"; cat "$timeline"; } > "/tmp/evdev-$name-$run.txt"
    done
    kill -TERM $pattern_daemon
    wait $pattern_daemon || { tail -5 "/tmp/evdev-$name.log"; fail "hapticd $*: exit status"; }
    rm -f /tmp/evdev.sock
}

step "drv260x, the kernel's own driver"
P=/sys/module/i2c_drv2605_sim/parameters
if [ -e /modules/drv260x.ko ] && [ -x /opt/haptics/ff-rumble ]; then
    echo 1 > $P/fresh_chip
    # Probing calibrates (GO polled every 15 ms until the chip clears it) and makes an input device.
    echo 1 > $P/attach_drv260x || fail "drv260x: the fixture could not instantiate it"
    input_event "drv260x:haptics" 100
    if [ -z "$event" ]; then
        dmesg | grep -i -E "drv260x|drv2605" | tail -5
        fail "drv260x: no input device (probe failed)"
    else
        set -- $(cat $P/registers)
        # STATUS 0x00, RATED 0x16, OD_CLAMP 0x17, A_CAL_COMP 0x18, A_CAL_BEMF 0x19, FEEDBACK 0x1A, LRA_PERIOD 0x22
        status=$1; shift 22; rated=$1 clamp=$2 comp=$3 bemf=$4 feedback=$5; shift 12; period=$1
        # 0xc0c0: both bytes 0xc0, since drv260x sends the magnitude's low byte in 6.1 and its
        # high byte in 6.12.
        ff-rumble "/dev/input/$event" 0xc0c0 0 400 > /tmp/ff-rumble.log 2>&1 || { cat /tmp/ff-rumble.log; fail "drv260x: ff-rumble"; }
        peak=$(cat $P/rtp_peak) writes=$(cat $P/rtp_writes)
        echo 1 > $P/fresh_chip
        ff-rumble "/dev/input/$event" 0x8000 0 200 > /dev/null 2>&1
        truncated=$(cat $P/rtp_peak)
        dmesg | grep -i -E "drv260x.*(fail|error)"
        for pair in "diag-result $(( (0x$status >> 3) & 1 ))" "period $period" "peak $peak" "writes $writes" "truncated $truncated" \
            "rated $rated" "clamp $clamp" "errors $(dmesg | grep -c -i -E "drv260x.*(fail|error)")"; do
            record_value drv260x $pair
        done
        # drv260x writes RATED_VOLTAGE (2.0 V: 0x5b) and OD_CLAMP before it leaves standby.
        standby_note="kept"
        [ "$rated" = "3e" ] && standby_note="ignored: written in standby"
        # ff-mix's session on drv260x (ff-memless in the kernel), for HIL-FF-MEMLESS below.
        if [ -x /opt/haptics/ff-mix ]; then
            echo 1 > $P/drive_timeline
            ff-mix "/dev/input/$event" > /tmp/ff-mix-drv260x.log 2>&1 || cat /tmp/ff-mix-drv260x.log
            sleep 0.3
            cat $P/drive_timeline > /tmp/timeline-drv260x.txt
        fi
        # hapticd on drv260x's force-feedback device, for HIL-EVDEV below.
        evdev_runs && play_pattern_runs evdev --device "/dev/input/$event" --actuator lra
        echo "HIL-DRV260X: drv260x: probed and calibrated on the fixture (STATUS $status, A_CAL_COMP 0x$comp, A_CAL_BEMF 0x$bemf, FEEDBACK 0x$feedback, LRA_PERIOD 0x$period; its RATED_VOLTAGE 0x$rated and OD_CLAMP 0x$clamp $standby_note); an FF_RUMBLE of 0xc0c0 reached RTP as $peak in $writes writes; a 0x8000 rumble reached it as $truncated (this drv260x sends the 16-bit magnitude's $([ "$truncated" = 0 ] && echo "low byte: fftest's rumbles arrive as 0" || echo "high byte"))"
        gate HIL-DRV260X gate_drv260x /tmp/record/drv260x/values
    fi
    echo 0 > $P/attach_drv260x
    # HIL-EVDEV: the same pattern through hapticd on the chip over I2C, against drv260x's device.
    if [ -s /tmp/evdev-evdev-1.txt ]; then
        echo 1 > $P/fresh_chip
        play_pattern_runs i2c --bus "$BUS"
        record evdev /tmp/evdev-evdev-[12345].txt /tmp/evdev-i2c-[12345].txt
        echo "HIL-EVDEV: drv260x: hapticd --device on drv260x's force-feedback device ($(grep -o 'kernel vibrator[^)]*' /tmp/evdev-evdev.log | head -1)) against hapticd on the chip over I2C, one pattern (0.5 for 300 ms, then 1.0 for 250 ms) five times each"
        gate HIL-EVDEV gate_evdev 5 1 /tmp/evdev-evdev-[12345].txt /tmp/evdev-i2c-[12345].txt || { tail -3 /tmp/evdev-evdev.log; cat /tmp/evdev-evdev-1.txt | head -20; }
        # A switched vibrator: Linux's gpio-vibrator (ff-memless, one line on or off), its line a
        # fixture GPIO chip that dates each change; the same pattern against these I2C runs.
        G=/sys/module/gpio_vibra_sim/parameters
        if [ -e /modules/gpio-vibra.ko ] && [ -e $G/attach ]; then
            echo 1 > $G/attach || fail "gpio-vibrator: the fixture could not make the device"
            input_event "^gpio-vibrator$" 50
            if [ -z "$event" ]; then
                dmesg | grep -i -E "vibra|regulator" | tail -5
                fail "gpio-vibrator: no input device (probe failed)"
            else
                TIMELINE=$G/drive_timeline play_pattern_runs gpio-evdev --device "/dev/input/$event" --actuator erm
                record gpio-vibrator /tmp/evdev-gpio-evdev-[12345].txt /tmp/evdev-i2c-[12345].txt
                echo "HIL-EVDEV: gpio-vibrator: hapticd --device on Linux's gpio-vibrator ($(grep -o 'gpio-vibrator: [^"]*' /tmp/evdev-gpio-evdev.log | head -1)), the same pattern five times, against the I2C runs above"
                gate HIL-EVDEV gate_on_off 5 /tmp/evdev-gpio-evdev-[12345].txt /tmp/evdev-i2c-[12345].txt || { tail -3 /tmp/evdev-gpio-evdev.log; head -20 /tmp/evdev-gpio-evdev-1.txt; }
                # A tick on it: a client's selection through hapticd, a click shorter than the
                # minimum on-time (KernelVibratorRules.switchedMinimumOnTime, 30 ms), held on for
                # that by the replay length hapticd gives the effect, which ff-memless ends.
                hapticd --device "/dev/input/$event" --actuator erm --socket /tmp/tick.sock > /tmp/tick-hapticd.log 2>&1 &
                tick_daemon=$!
                for _ in $(seq 200); do [ -S /tmp/tick.sock ] && break; sleep 0.1; done
                # The VM's own stalls beside it (a stall before the line rose shortens the pulse).
                stall-watch 1000 2000 > /tmp/tick-stalls.txt 2> /tmp/tick-stalls.err &
                watcher=$!
                for _ in $(seq 50); do grep -q ready /tmp/tick-stalls.txt 2>/dev/null && break; sleep 0.1; done
                echo 1 > $G/drive_timeline
                haptic play selection --socket /tmp/tick.sock > /tmp/tick.log 2>&1 || { cat /tmp/tick.log; fail "gpio-vibrator: haptic play selection through hapticd exited $?"; }
                sleep 0.3
                cat $G/drive_timeline > /tmp/gpio-tick.txt
                kill -TERM $watcher
                wait $watcher || { cat /tmp/tick-stalls.err; fail "gpio-vibrator: stall-watch failed"; }
                kill -TERM $tick_daemon
                wait $tick_daemon || { tail -5 /tmp/tick-hapticd.log; fail "gpio-vibrator: hapticd for the tick: exit status"; }
                rm -f /tmp/tick.sock
                record gpio-tick /tmp/gpio-tick.txt /tmp/tick-stalls.txt
                echo "HIL-EVDEV: gpio-vibrator: a selection through hapticd, its line as the fixture dated it"
                gate HIL-EVDEV gate_switched_tick 30 /tmp/gpio-tick.txt /tmp/tick-stalls.txt || cat /tmp/gpio-tick.txt
            fi
            echo 0 > $G/attach
        else
            echo "HIL-EVDEV: gpio-vibrator skipped: not built for this kernel"
        fi
    else
        echo "HIL-EVDEV: skipped: $EVDEV_SKIPPED"
    fi
else
    echo "HIL-DRV260X: drv260x skipped: not built for this kernel"
fi

step "a DRV2604L: no ROM effect library, every feedback as a stream"
echo 6 > $P/part
echo 1 > $P/fresh_chip
before=$(cat $P/rtp_writes)
part=$(haptic probe --bus "$BUS" 2>&1 | grep -o -E "DRV260[45]L?" | head -1)
played=0
for feedback in success impact-heavy selection warning; do
    if haptic play "$feedback" --bus "$BUS" --json > /tmp/ram-part.json 2>&1 \
        && grep -q '"outcome" : "played"' /tmp/ram-part.json && grep -q "as a real-time stream" /tmp/ram-part.json; then
        played=$((played + 1))
    else
        sed 's/^/HIL-DRV2604L: /' /tmp/ram-part.json | tail -5
        fail "DRV2604L: haptic play $feedback"
    fi
done
# A sequence with an effect by number, and an AHAP pattern, on the same part.
if haptic sequence "success, wait 0.2, impact-heavy, effect 47" --bus "$BUS" --json > /tmp/ram-sequence.json 2>&1 \
    && grep -q '"outcome" : "finished"' /tmp/ram-sequence.json && grep -q '"driving" : false' /tmp/ram-sequence.json; then
    played=$((played + 1))
else
    sed 's/^/HIL-DRV2604L: /' /tmp/ram-sequence.json | tail -5
    fail "DRV2604L: haptic sequence"
fi
cat > /tmp/ram-pattern.ahap <<'AHAP'
{ "Version": 1.0, "Pattern": [
  { "Event": { "Time": 0.0, "EventType": "HapticTransient", "EventParameters": [ { "ParameterID": "HapticIntensity", "ParameterValue": 1.0 } ] } },
  { "Event": { "Time": 0.1, "EventType": "HapticContinuous", "EventDuration": 0.3, "EventParameters": [ { "ParameterID": "HapticIntensity", "ParameterValue": 0.6 } ] } } ] }
AHAP
if haptic pattern /tmp/ram-pattern.ahap --bus "$BUS" --json > /tmp/ram-pattern.json 2>&1 \
    && grep -q '"outcome" : "finished"' /tmp/ram-pattern.json && grep -q '"driving" : false' /tmp/ram-pattern.json; then
    played=$((played + 1))
else
    sed 's/^/HIL-DRV2604L: /' /tmp/ram-pattern.json | tail -5
    fail "DRV2604L: haptic pattern"
fi
streamed=$(( $(cat $P/rtp_writes) - before ))
for pair in "part ${part:-none}" "played $played" "of 6" "streamed $streamed" "rtp-left $(cat $P/rtp_level)"; do record_value drv2604l $pair; done
echo "HIL-DRV2604L: the fixture as a DRV2604L: success, impact-heavy, selection, warning; a sequence with effect 47; an AHAP pattern"
gate HIL-DRV2604L gate_drv2604l /tmp/record/drv2604l/values
echo -1 > $P/part
echo 1 > $P/fresh_chip

step "force feedback as ff-memless plays it (HIL-FF-MEMLESS)"
# The same client session (ff-mix: 75 % gain, a rumble, and 200 ms in a periodic effect, both for
# 600 ms) played by Linux's drv260x through ff-memless and by hapticd's uinput device, compared at
# absolute scale on ff-memless's terms (gates.sh says how drv260x's byte is read back).
if [ -s /tmp/timeline-drv260x.txt ] && [ -s /tmp/timeline-hapticd.txt ]; then
    kernel_start=$(sed -n 's/^ff-mix: start //p' /tmp/ff-mix-drv260x.log)
    ours_start=$(sed -n 's/^ff-mix: start //p' /tmp/ff-mix-hapticd.log)
    record ff-memless /tmp/timeline-drv260x.txt /tmp/timeline-hapticd.txt
    record_value ff-memless starts "$kernel_start $ours_start"
    echo "HIL-FF-MEMLESS: ff-mix's two overlapping effects, drv260x (ff-memless) against hapticd"
    gate HIL-FF-MEMLESS gate_ff_memless /tmp/timeline-drv260x.txt /tmp/timeline-hapticd.txt "$kernel_start" "$ours_start" \
        || cat /tmp/timeline-drv260x.txt /tmp/timeline-hapticd.txt | head -60
else
    echo "HIL-FF-MEMLESS: skipped: no ff-mix timelines from both drivers in this image"
fi

step "Adafruit's CircuitPython DRV2605 library"
python=$(ls /opt/haptics/python3* 2>/dev/null | head -1)
if [ -n "$python" ] && [ -f /opt/haptics/python/adafruit_drv2605.py ]; then
    echo 1 > $P/fresh_chip
    if PYTHONHOME=/usr PYTHONPATH=/opt/haptics/python PYTHONDONTWRITEBYTECODE=1 "$python" /opt/haptics/python/adafruit_check.py "$BUS" > /tmp/adafruit.log 2>&1; then
        # Not gated here: the milliseconds GO took (the emulator's polling); the script's own checks
        # gate GO clearing, the stop and RTP 100, and it exits 1 when one fails.
        echo "HIL-ADAFRUIT: $(grep '^adafruit:' /tmp/adafruit.log)"
        echo "HIL-ADAFRUIT: gates: adafruit_check.py's own (library A, ERM open loop, GO cleared by the chip, the stop, RTP 100) exit 0"
    else
        sed 's/^/HIL-ADAFRUIT: /' /tmp/adafruit.log | tail -8
        fail "Adafruit's DRV2605 library"
    fi
    echo 1 > $P/fresh_chip
else
    echo "HIL-ADAFRUIT: adafruit skipped: no Python in this image"
fi

step "a DA7280: Linux's da7280 driver, then ours, on the DA7280 fixture"
D=/sys/module/i2c_da7280_sim/parameters
DABUS=""
for adapter in /sys/bus/i2c/devices/i2c-*; do
    [ "$(cat "$adapter/name" 2>/dev/null)" = "da7280-sim" ] && DABUS="/dev/${adapter##*/}"
done
reg() { cat $D/registers | awk -v index_="$1" '{ print $(index_ + 1) }'; }
if [ -n "$DABUS" ] && [ -e /modules/da7280.ko ]; then
    echo 1 > $D/fresh_chip
    echo 1 > $D/attach_da7280 || fail "DA7280: the fixture could not instantiate da7280"
    input_event "da7280-haptic" 50
    if [ -z "$event" ]; then
        dmesg | grep -i da7280 | tail -5
        fail "DA7280: da7280 made no input device (probe failed)"
    else
        # Linux's probe from the device properties (SparkFun's LRA): NOMMAX and ABSMAX as µV/23400 + 1,
        # IMAX (µA - 28600)/7200 + 1, V2I from 13.8 ohm, LRA_PER for 170 Hz, STANDBY_EN set.
        probe="ACTUATOR1-3 $(reg 12) $(reg 13) $(reg 14), CALIB_V2I $(reg 15)$(reg 16), FRQ_LRA_PER $(reg 10) $(reg 11), TOP_CFG1 $(reg 19), TOP_CTL1 $(reg 34)"
        record_value linux-da7280 probe "$(reg 12) $(reg 13) $(reg 14) $(reg 15)$(reg 16) $(reg 10) $(reg 11)"
        record_value linux-da7280 acceleration "$(( (0x$(reg 19) >> 2) & 1 ))"
        before=$(cat $D/dro_writes)
        ff-constant "/dev/input/$event" 0x2000 500 > /tmp/ff-constant.log 2>&1 || { cat /tmp/ff-constant.log; fail "DA7280: ff-constant"; }
        peak=$(cat $D/drive_peak) writes=$(( $(cat $D/dro_writes) - before ))
        # Linux's device properties name no dlg,acc-enable: acceleration is off, so OVERRIDE_VAL's full
        # scale is ABSMAX (0x61), and 63 drives 63/127 of ABSMAX: 528 thousandths of NOMMAX (0x5B).
        record_value linux-da7280 peak "$peak"
        record_value linux-da7280 writes "$writes"
        record_value linux-da7280 after "drive $(cat $D/drive_permille), TOP_CTL1 $(reg 34), TOP_CTL2 $(reg 35)"
        # Linux's FF_PERIODIC/FF_CUSTOM uploads: a waveform-memory image (one snippet, AMP 7 for eight 5.44 ms
        # timebases; one sequence of one frame playing it), then {sequence 0, played once}; a play starts it
        # in RTWM. Linux's properties leave acceleration off, so AMP 7 is +7/7 of ABSMAX: 1065 thousandths
        # of NOMMAX for 43.52 ms, which the fixture's model plays from its memory.
        ff-memory "/dev/input/$event" 0 300 0x01 0x01 0x04 0x05 0x77 0x01 > /tmp/ff-memory.log 2>&1 || { cat /tmp/ff-memory.log; fail "DA7280: ff-memory"; }
        memory="$(reg 132) $(reg 133) $(reg 134) $(reg 135) $(reg 136) $(reg 137) $(reg 138)"
        timeline=$(cat $D/sequence_timeline)
        record_value linux-da7280 memory "$memory"
        record_value linux-da7280 sequences "$(cat $D/sequences_played)"
        record_value linux-da7280 timeline "$timeline"
        record_value linux-da7280 sequence-after "$(( (0x$(reg 34) >> 4) & 1 )) $(cat $D/drive_permille)"
        dmesg | grep -i -E "da7280.*(fail|error)"
        record_value linux-da7280 errors "$(dmesg | grep -c -i -E "da7280.*(fail|error)")"
        echo "HIL-DA7280: da7280: probed on the fixture ($probe); an FF_CONSTANT of 0x2000 from ff-constant in DRO mode, then an FF_PERIODIC/FF_CUSTOM upload played from the waveform memory in RTWM"
        gate HIL-DA7280 gate_linux_da7280 /tmp/record/linux-da7280/values
        # hapticd on da7280's force-feedback device, for HIL-EVDEV's da7280 half below.
        evdev_runs && TIMELINE=$D/drive_timeline play_pattern_runs da7280-evdev --device "/dev/input/$event" --actuator lra
        da_nommax=$((0x$(reg 12))) da_absmax=$((0x$(reg 13)))
    fi
    echo 0 > $D/attach_da7280
    echo 1 > $D/fresh_chip
    # The DA7280's rules, the same transaction scripts against this fixture and the simulated chip.
    drv2605-model check --chip da7280 --bus "$DABUS" /opt/haptics/model-scripts/da7280/*.txt > /tmp/model-da7280.log 2>&1 \
        || { sed "s/^/HIL-MODEL: /" /tmp/model-da7280.log; fail "drv2605-model check --chip da7280"; }
    echo "HIL-MODEL: $(grep "^model agreement (DA7280):" /tmp/model-da7280.log)"
    # Every script shipped (14: registers, faults, and the memory's playback with ramps, gain and signed data).
    shipped=$(ls /opt/haptics/model-scripts/da7280/*.txt | wc -l)
    scripts=$(sed -n 's/^model agreement (DA7280): \([0-9]*\) scripts, 0 differences, 0 broken expectations$/\1/p' /tmp/model-da7280.log)
    for pair in "agreed ${scripts:-0}" "shipped $shipped"; do record_value da7280-model $pair; done
    gate HIL-MODEL gate_da7280_model /tmp/record/da7280-model/values
    echo 1 > $D/fresh_chip
    if HAPTIC_HIL_DA7280_BUS="$DABUS" /opt/haptics/tests --testing-library swift-testing --filter "DA7280HardwareInLoopTests" > /tmp/hil-da7280.log 2>&1 \
        && ! grep -q "skipped" /tmp/hil-da7280.log; then
        echo "HIL-DA7280: our hardware-in-loop suite: $(sed 's/\x1b\[[0-9;]*m//g' /tmp/hil-da7280.log | grep -o 'Test run with [0-9]* tests.*passed' | tail -1)"
        echo "HIL-DA7280: gates: the suite passed, none skipped"
    else
        sed 's/\x1b\[[0-9;]*m//g' /tmp/hil-da7280.log | tail -20
        fail "DA7280: our hardware-in-loop suite"
    fi
    echo 1 > $D/fresh_chip
    cat > /tmp/da7280-board.json <<'JSON'
{ "format": 1, "name": "vm-da7280", "description": "the DA7280 fixture", "bus": "/dev/i2c-0", "supplyVolts": 3.3,
  "actuators": { "lra": { "type": "lra", "ratedVrms": 1.8, "maximumVrms": 2.0, "resonantHz": 170, "impedanceOhms": 13.8, "maximumMilliamps": 165.4 } },
  "defaultActuator": "lra", "drivers": [ { "name": "main", "part": "da7280" } ] }
JSON
    # Rated 1.8 V, not the chip's reset NOMMAX (2.106 V): a driver that never wrote the rating drives past it.
    # A supply below the under-voltage lock-out: start-up reads IRQ_STATUS1 and refuses, with one line.
    echo 2600 > $D/supply_mv
    haptic play success --board /tmp/da7280-board.json --bus "$DABUS" > /tmp/uvlo.out 2> /tmp/uvlo.err
    code=$?
    for pair in "uvlo-exit $code" "uvlo-named $(grep -ci "under-voltage" /tmp/uvlo.err)" "uvlo-lines $(wc -l < /tmp/uvlo.err)" "uvlo-peak $(cat $D/drive_peak)"; do
        record_value da7280-supply $pair
    done
    echo 3300 > $D/supply_mv
    echo 1 > $D/fresh_chip
    echo "HIL-DA7280: VDD 2.6 V: haptic play success said: $(head -1 /tmp/uvlo.err)"
    # The supply sags while a long feedback streams: the engine finds the chip idle within 100 ms,
    # stops it and tries to clear E_UVLO (which latches again while VDD stays low: the next start-up
    # clears it), and haptic play says the feedback was not played, naming the cause.
    # The sag starts once the fixture sees the stream drive (haptic's own start-up in this VM takes
    # a varying part of a second) and lasts 0.3 s.
    (
        for _ in $(seq 200); do [ "$(cat $D/drive_permille)" != 0 ] && break; sleep 0.02; done
        echo 2600 > $D/supply_mv
        sleep 0.3
        echo 3300 > $D/supply_mv
    ) &
    sagger=$!
    haptic play vibration-default --board /tmp/da7280-board.json --bus "$DABUS" > /tmp/sag.out 2> /tmp/sag.err
    code=$?
    wait $sagger
    for pair in "sag-exit $code" "sag-named $(grep -ci "under-voltage" /tmp/sag.err)" "sag-drive $(cat $D/drive_permille)" "sag-mode $(( 0x$(reg 34) & 0x07 ))"; do
        record_value da7280-supply $pair
    done
    echo "HIL-DA7280: VDD sagged to 2.6 V while vibration-default streamed: haptic play said: $(grep -i "under-voltage" /tmp/sag.err | tail -1)"
    haptic play selection --board /tmp/da7280-board.json --bus "$DABUS" > /dev/null 2>&1 || fail "DA7280: the first feedback after the sag"
    record_value da7280-supply irq-after "$(reg 3)"
    gate HIL-DA7280 gate_da7280_supply /tmp/record/da7280-supply/values || cat /tmp/uvlo.out /tmp/uvlo.err /tmp/sag.out /tmp/sag.err
    echo 1 > $D/fresh_chip
    before=$(cat $D/dro_writes)
    if haptic demo --board /tmp/da7280-board.json --bus "$DABUS" --pause 0.05 --json > /tmp/da7280-demo.json 2>&1 \
        && grep -q '"driving" : false' /tmp/da7280-demo.json && grep -q '"standby" : true' /tmp/da7280-demo.json; then
        played=$(grep -c '"outcome" : "played"' /tmp/da7280-demo.json)
        # The peak in volts, from what the chip holds (the fixture's peak in thousandths of the NOMMAX
        # register, 23.4 mV a step), against the board file's rating: what the user configured, not
        # what the driver wrote.
        rated=$(sed -n 's/.*"ratedVrms": \([0-9.]*\).*/\1/p' /tmp/da7280-board.json)
        nommax=$((0x$(reg 12)))
        echo "HIL-DA7280: ours: haptic demo on the DA7280 fixture (ratedVrms $rated V); NOMMAX read back $nommax; in IDLE (TOP_CTL1 $(reg 34))"
        record_value da7280-demo figures "$played $(cat $D/sequences_played) $(( $(cat $D/dro_writes) - before )) $(cat $D/drive_peak) $nommax $rated $(cat $D/drive_permille)"
        gate HIL-DA7280 gate_da7280_demo "$played" 23 "$(cat $D/sequences_played)" 12 "$(( $(cat $D/dro_writes) - before ))" "$(cat $D/drive_peak)" "$nommax" "$rated" "$(cat $D/drive_permille)"
    else
        sed 's/^/HIL-DA7280: /' /tmp/da7280-demo.json | tail -8
        fail "DA7280: haptic demo on the DA7280 fixture"
    fi
    # HIL-SHARPNESS: a continuous event swept from sharpness 0 to 1 through our DA7280 driver, the
    # fixture noting each LRA_PER it drives at with tracking off; then one at sharpness 0.5.
    cat > /tmp/sweep.ahap <<'AHAP'
{"Version":1,"Pattern":[{"Event":{"Time":0,"EventType":"HapticContinuous","EventDuration":2.2,"EventParameters":[{"ParameterID":"HapticIntensity","ParameterValue":1},{"ParameterID":"HapticSharpness","ParameterValue":0}]}},{"ParameterCurve":{"ParameterID":"HapticSharpnessControl","Time":0,"ParameterCurveControlPoints":[{"Time":0,"ParameterValue":0},{"Time":2.2,"ParameterValue":1}]}}]}
AHAP
    cat > /tmp/steady.ahap <<'AHAP'
{"Version":1,"Pattern":[{"Event":{"Time":0,"EventType":"HapticContinuous","EventDuration":0.5,"EventParameters":[{"ParameterID":"HapticIntensity","ParameterValue":1},{"ParameterID":"HapticSharpness","ParameterValue":0.5}]}}]}
AHAP
    echo 1 > $D/fresh_chip
    echo 1 > $D/period_timeline
    haptic pattern /tmp/sweep.ahap --board /tmp/da7280-board.json --bus "$DABUS" > /tmp/sweep.out 2>&1
    record_value da7280-sharpness sweep-exit $?
    record_value da7280-sharpness periods "$(cat $D/period_timeline)"
    record_value da7280-sharpness peak "$(cat $D/drive_peak)"
    record_value da7280-sharpness said "$(grep -c 'sharpness is rendered as the drive frequency' /tmp/sweep.out)"
    record_value da7280-sharpness after "$(reg 19) $((0x$(reg 10))) $((0x$(reg 11)))"
    echo 1 > $D/period_timeline
    haptic pattern /tmp/steady.ahap --board /tmp/da7280-board.json --bus "$DABUS" > /tmp/steady.out 2>&1
    record_value da7280-sharpness steady-exit $?
    record_value da7280-sharpness steady-changes "$(wc -w < $D/period_timeline)"
    echo "HIL-SHARPNESS: haptic pattern sweep.ahap (sharpness 0 to 1 over 2.2 s) on the DA7280 fixture: $(grep -m1 'sharpness is rendered' /tmp/sweep.out | sed 's/^[^:]*: //')"
    gate HIL-SHARPNESS gate_da7280_sharpness /tmp/record/da7280-sharpness/values || cat /tmp/sweep.out /tmp/steady.out
    # HIL-DEADMAN, DA7280: haptic streaming the long pattern on the DA7280 (DRO) killed with SIGKILL.
    if [ -x /opt/haptics/kill-timed ]; then
        echo 1 > $D/drive_timeline
        haptic pattern /tmp/long.ahap --board /tmp/da7280-board.json --bus "$DABUS" > /tmp/deadman-da7280.log 2>&1 &
        dead_man da7280-haptic-pattern $D/drive_timeline $! /tmp/deadman-da7280.log
    fi
    # HIL-EVDEV, da7280: the pattern through hapticd on da7280's device (above), against hapticd on
    # the chip over I2C (our DA7280 driver, the board's LRA: full is NOMMAX). Linux's da7280 turns
    # FF_CONSTANT into OVERRIDE_VAL = level x 254 / 0x7FFF, read signed with acceleration off (its
    # default): 127 is ABSMAX, past 127 the drive reverses. hapticd keeps the override at or below
    # 127 x NOMMAX / ABSMAX as it reads them from the device tree; here da7280 has its properties
    # from a software node, which sysfs does not show (HIL-DT binds it from a device tree), so
    # hapticd takes the chip's reset values (0x5A, 0x78: override 95 of 127), and the expected ratio
    # is 95/127 x ABSMAX / NOMMAX of what da7280 wrote (0x61 and 0x5B: 0.797), below the rated drive.
    if ! evdev_runs; then
        echo "HIL-EVDEV: da7280 skipped: $EVDEV_SKIPPED"
    elif [ -s /tmp/evdev-da7280-evdev-1.txt ]; then
        echo 1 > $D/fresh_chip
        TIMELINE=$D/drive_timeline play_pattern_runs da7280-i2c --board /tmp/da7280-board.json --bus "$DABUS"
        expected=$(awk -v n="$da_nommax" -v a="$da_absmax" 'BEGIN { printf "%.4f", int(127 * 90 / 120) / 127 * a / n }')
        record da7280-evdev /tmp/evdev-da7280-evdev-[12345].txt /tmp/evdev-da7280-i2c-[12345].txt
        record_value da7280-evdev expected "$expected"
        echo "HIL-EVDEV: da7280: hapticd --device on da7280's force-feedback device ($(grep -o 'kernel vibrator [^ ]*' /tmp/evdev-da7280-evdev.log | head -1) on /dev/input/$event), $(grep -o 'da7280, acceleration[^)]*)' /tmp/evdev-da7280-evdev.log | head -1), against hapticd on the DA7280 over I2C, the same pattern five times each; expected ratio $expected (override 95 of 127 x ABSMAX 0x$(printf %x "$da_absmax") / NOMMAX 0x$(printf %x "$da_nommax"))"
        gate HIL-EVDEV gate_evdev 5 "$expected" /tmp/evdev-da7280-evdev-[12345].txt /tmp/evdev-da7280-i2c-[12345].txt \
            || { tail -3 /tmp/evdev-da7280-evdev.log; head -20 /tmp/evdev-da7280-evdev-1.txt; }
    else
        fail "HIL-EVDEV: da7280: hapticd on da7280's device made no runs"
    fi
else
    fail "DA7280: no da7280-sim adapter or no da7280 module in this image"
fi

step "chips from a device tree: drv260x and da7280 bound from an overlay's nodes, hapticd on each"
# Scripts/arm64-test boots this machine with Tests/KernelFixtures/device-tree/haptics-overlay.dts merged
# into the board's tree, as a Pi's firmware merges an overlay: each fixture's second adapter takes its
# node, the I2C core makes the chips it declares, and drv260x and da7280 read their ratings from there
# (no software node). hapticd plays a full-strength pattern through each input device; the ratings
# it reads must keep the drive at or below rated: for da7280, override <= 127 x NOMMAX / ABSMAX.
if [ ! -d /proc/device-tree/da7280-sim-bus ] || [ ! -d /proc/device-tree/drv2605-sim-bus ]; then
    echo "HIL-DT: skipped: no device tree overlay on this machine ($(uname -m))"
elif [ ! -x /opt/haptics/hapticd ]; then
    fail "HIL-DT: no hapticd in this image"
else
    echo 1 > $P/fresh_chip
    echo 1 > $D/fresh_chip
    echo 1 > $P/device_tree_bus || fail "HIL-DT: the DRV2605 fixture could not take its device tree node"
    echo 1 > $D/device_tree_bus || fail "HIL-DT: the DA7280 fixture could not take its device tree node"
    input_event "drv260x:haptics" 100
    dt_drv=$event
    input_event "da7280-haptic" 50
    dt_da=$event
    if [ -z "$dt_drv" ] || [ -z "$dt_da" ]; then
        dmesg | grep -i -E "drv260x|da7280|i2c" | tail -8
        fail "HIL-DT: no input device from the tree's chips (drv260x: ${dt_drv:-none}, da7280: ${dt_da:-none})"
    else
        # Where sysfs shows them: the input devices under the adapter, the chips as its clients.
        for dt_event in $dt_drv $dt_da; do
            echo "HIL-DT: /dev/input/$dt_event: $(cat /sys/class/input/$dt_event/device/name), $(readlink -f /sys/class/input/$dt_event/device/device | sed 's|.*/||') has $(ls /sys/class/input/$dt_event/device/device | grep -E '^[0-9]+-00' | tr '\n' ' ')"
        done
        echo "HIL-DT: DRV2605L registers after drv260x's probe: $(cat $P/registers)"
        # What drv260x wrote from vib-rated-mv and vib-overdrive-mv (mV x 255 / 5600), and da7280 from
        # dlg,nom-microvolt and dlg,abs-max-microvolt (uV / 23400 + 1).
        set -- $(cat $P/registers)
        shift 22
        drv_rated=$((0x$1)) drv_clamp=$((0x$2))
        da_nom=$((0x$(reg 12))) da_abs=$((0x$(reg 13)))
        tree() { od -An -tu1 "/proc/device-tree/$1" | awk '{ for (i = 1; i <= NF; i++) v = v * 256 + $i } END { print v }'; }
        drv_rated_tree=$(( $(tree drv2605-sim-bus/haptic@5a/vib-rated-mv) * 255 / 5600 ))
        drv_clamp_tree=$(( $(tree drv2605-sim-bus/haptic@5a/vib-overdrive-mv) * 255 / 5600 ))
        da_nom_tree=$(( $(tree da7280-sim-bus/haptic@4a/dlg,nom-microvolt) / 23400 + 1 ))
        da_abs_tree=$(( $(tree da7280-sim-bus/haptic@4a/dlg,abs-max-microvolt) / 23400 + 1 ))
        TIMELINE=$P/drive_timeline play_pattern_runs dt-drv260x --device "/dev/input/$dt_drv" --actuator lra
        TIMELINE=$D/drive_timeline play_pattern_runs dt-da7280 --device "/dev/input/$dt_da" --actuator lra
        peak() { cat "$@" | awk '$1 != "start" { v = $2 < 0 ? -$2 : $2; if (v > m) m = v } END { print m + 0 }'; }
        drv_peak=$(peak /tmp/evdev-dt-drv260x-[12345].txt)
        da_peak=$(peak /tmp/evdev-dt-da7280-[12345].txt)
        # Left driving: each last run's final drive, and da7280's drive now.
        last() { awk '$1 != "start" { v = $2 < 0 ? -$2 : $2 } END { print v + 0 }' "$1"; }
        left=$(( $(last /tmp/evdev-dt-drv260x-5.txt) + $(last /tmp/evdev-dt-da7280-5.txt) + $(cat $D/drive_permille) ))
        read_rules=$(grep -o 'da7280, acceleration[^)]*)' /tmp/evdev-dt-da7280.log | head -1)
        echo "HIL-DT: drv260x and da7280 from a device-tree overlay; ratings read: drv260x RATED_VOLTAGE $drv_rated, OD_CLAMP $drv_clamp; da7280 NOMMAX $da_nom, ABSMAX $da_abs; hapticd: ${read_rules:-no da7280 rules in its log}"
        record_value device-tree figures "$drv_rated $drv_clamp $drv_rated_tree $drv_clamp_tree $drv_peak $da_nom $da_abs $da_nom_tree $da_abs_tree $da_peak $left"
        gate HIL-DT gate_device_tree "$drv_rated" "$drv_clamp" "$drv_rated_tree" "$drv_clamp_tree" "$drv_peak" \
            "$da_nom" "$da_abs" "$da_nom_tree" "$da_abs_tree" "$da_peak" "$left" \
            || {
                for log in /tmp/evdev-dt-drv260x.log /tmp/evdev-dt-drv260x-1.txt /tmp/evdev-dt-da7280-1.txt; do
                    tail -5 "$log" | sed "s|^|HIL-DT: $log: |"
                done
                echo "HIL-DT: DRV2605L registers now: $(cat $P/registers)"
                dmesg | grep -i -E "drv260x|da7280" | tail -8 | sed "s|^|HIL-DT: dmesg: |"
            }
    fi
    # The buses stay until power-off: deleting an adapter whose da7280 made the adapter its input
    # device's parent oopses in the kernel (seen on 6.12: its input device is unregistered after
    # the adapter's sysfs folder is gone).
fi

# Scripts/kernel-test --record: what the gates were given, for --prove-gates.
if grep -q "hil.record" /proc/cmdline; then
    for file in /tmp/record/*/*; do
        relative=${file#/tmp/record/}
        while IFS= read -r line; do echo "HIL-RECORD $relative $line"; done < "$file"
    done
fi

if [ "$failures" -eq 0 ]; then echo "HIL-VERDICT: PASS"; else echo "HIL-VERDICT: FAIL ($failures)"; fi
sync
poweroff -f
