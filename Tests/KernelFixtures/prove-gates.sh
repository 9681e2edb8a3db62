# SPDX-License-Identifier: Apache-2.0
# Every VM gate seen failing: runs the gates of Tests/KernelFixtures/gates.sh (the file the VM's
# init sources, not a copy) outside the VM, on what a VM run recorded (Tests/KernelFixtures/recorded,
# made by `Scripts/kernel-test --record`), first as recorded (each must pass), then with a planted
# fault (each must fail). Run by `Scripts/kernel-test --prove-gates` under busybox sh, the VM's shell,
# with busybox's awk, sed and sort, the VM's tools (not whichever the host has).
#
# Every bound is proven on its own: a clean run lists the bounds its gate held it to (GATE_LIST_BOUNDS),
# and each of them must be the only bound missed by at least one planted fault. A bound's identity is
# its gate and its text with the figures in it replaced by "#" ("pairs # = #"), so that the text a
# planted fault misses matches the one the clean run held.
#
#   busybox sh prove-gates.sh GATES_FILE RECORDED_DIRECTORY
awk() { busybox awk "$@"; }
sed() { busybox sed "$@"; }
sort() { busybox sort "$@"; }
. "$1"
recorded="$2"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
planted=0 caught=0 broken=0
export GATE_LIST_BOUNDS=1
: > "$work/bounds"
: > "$work/proven"
# bound_keys GATE PREFIX: the bound lines with PREFIX in $work/out, as "GATE|text with # for figures".
bound_keys() { awk -v gate="$1" -v prefix="$2" 'index($0, prefix) == 1 { text = substr($0, length(prefix) + 1); gsub(/-?[0-9]+(\.[0-9]+)?/, "#", text); print gate "|" text }' "$work/out"; }

value() { sed -n "s/^$2 //p" "$recorded/$1/values"; }
# shift_column FILE COLUMN NANOSECONDS [PATTERN]: adds to a column's times (of the lines matching).
# (printf: busybox awk prints a sum past 2^31 in %.6g otherwise.)
shift_column() { awk -v c="$2" -v d="$3" -v p="${4:-.}" '$0 ~ p { $c = sprintf("%.0f", $c + d) } { print }' "$1"; }

# clean NAME GATE ARGS...: the recorded run must pass its gate.
clean() {
    name=$1
    shift
    if "$@" > "$work/out"; then
        echo "clean $name: passed"
        bound_keys "$1" "bound: " >> "$work/bounds"
    else
        echo "clean $name: FAILED on its own recording"
        sed 's/^/    /' "$work/out"
        broken=$((broken + 1))
    fi
}
# plant FAULT GATE ARGS...: the gate must fail; prints what it missed.
plant() {
    fault=$1
    shift
    planted=$((planted + 1))
    if "$@" > "$work/out"; then
        echo "planted $fault: NOT caught"
        sed 's/^/    /' "$work/out"
    else
        caught=$((caught + 1))
        echo "planted $fault: caught: $(grep '^missed:' "$work/out" | sed 's/^missed: //' | tr '\n' ';' | sed 's/;$//; s/;/; /g')"
        [ "$(grep -c '^missed:' "$work/out")" -eq 1 ] && bound_keys "$1" "missed: " >> "$work/proven"
    fi
}

# HIL-AV-SYNC: 13 notes 0.4 s apart, the first a warm-up; the bounds of gates.sh (a tick and
# AV_SYNC_MARGIN_MS early, AV_SYNC_MARGIN_MS late, AV_SYNC_SPREAD_MS spread), read from there.
sounds="$recorded/av-sync/av.txt" go="$recorded/av-sync/av-go.txt" stalls="$recorded/av-sync/av-stalls.txt" underruns=$(value av-sync underruns)
tick_ns=$(sed -n 's/^clock: tick \([0-9]*\) ns.*/\1/p' "$sounds")
# offsets: the paired offsets (sound - GO, ns) of the recording, smallest first.
offsets=$(awk '/^onset/ { s[++n] = $2 } END { while ((getline line < ARGV[2]) > 0) g[++m] = line; for (k = 2; k <= 13; k++) print s[k] - g[k] }' "$sounds" "$go" | sort -n)
smallest=$(echo "$offsets" | head -1) largest=$(echo "$offsets" | tail -1)
clean av-sync gate_av_sync 13 1 400 "$sounds" "$go" "$underruns" "$stalls"
shift_column "$sounds" 2 400000000 '^onset' > "$work/late-note.txt"
plant "av-sync: the sound shifted by one note" gate_av_sync 13 1 400 "$work/late-note.txt" "$go" "$underruns" "$stalls"
shift_column "$go" 1 200000000 > "$work/twice.txt"
plant "av-sync: the audio latency (200 ms) counted twice" gate_av_sync 13 1 400 "$sounds" "$work/twice.txt" "$underruns" "$stalls"
awk '/^onset/ && ++n == 6 { next } { print }' "$sounds" > "$work/missing.txt"
plant "av-sync: one sound missing" gate_av_sync 13 1 400 "$work/missing.txt" "$go" "$underruns" "$stalls"
awk '{ print } END { print "onset 99999999999999" }' "$sounds" > "$work/extra.txt"
plant "av-sync: a sound more than notes (after the last)" gate_av_sync 13 1 400 "$work/extra.txt" "$go" "$underruns" "$stalls"
plant "av-sync: an underrun" gate_av_sync 13 1 400 "$sounds" "$go" 1 "$stalls"
# Every sound just past each bound: late by the margin and 0.5 ms more, early by a tick, the margin
# and 0.5 ms more (each from the recording's own extreme, so the spread is unchanged).
shift_column "$sounds" 2 $(( AV_SYNC_MARGIN_MS * 1000000 + 500000 - largest )) '^onset' > "$work/late.txt"
plant "av-sync: every sound late by the margin and 0.5 ms" gate_av_sync 13 1 400 "$work/late.txt" "$go" "$underruns" "$stalls"
shift_column "$sounds" 2 $(( -tick_ns - AV_SYNC_MARGIN_MS * 1000000 - 500000 - smallest )) '^onset' > "$work/early.txt"
plant "av-sync: every sound early by a tick, the margin and 0.5 ms" gate_av_sync 13 1 400 "$work/early.txt" "$go" "$underruns" "$stalls"
# One sound (note 7) early by the spread allowed and 0.5 ms more than the latest: still within the
# early bound, a spread past its own.
awk -v d=$(( -(AV_SYNC_SPREAD_MS * 1000000 + 500000) )) '/^onset/ && ++n == 7 { $2 = sprintf("%.0f", $2 + d) } { print }' "$sounds" > "$work/jitter.txt"
plant "av-sync: one sound early by the spread and 0.5 ms" gate_av_sync 13 1 400 "$work/jitter.txt" "$go" "$underruns" "$stalls"
# The VM's stalls (stall-watch): note k's GO late by 8 ms (past the early bound), with or without a
# stall of the VM from half a millisecond before its sound to just after its GO.
# late_go K: the GO writes with note K's 8 ms late; stall_under K: a stall line under that GO.
late_go() { awk -v k="$1" 'NR == k { $1 = sprintf("%.0f", $1 + 8000000) } { print }' "$2"; }
stall_under() {
    awk -v k="$1" -v go_file="$2" '/^onset/ && ++n == k { sound = $2 } END { while ((getline line < go_file) > 0) if (++m == k) go = line; printf "stall 0 %.0f %.0f\n", sound - 500000, go + 100000 }' "$sounds"
}
late_go 7 "$go" > "$work/late-go.txt"
plant "av-sync: one GO 8 ms late, no stall under it" gate_av_sync 13 1 400 "$sounds" "$work/late-go.txt" "$underruns" "$stalls"
{ cat "$stalls"; stall_under 7 "$work/late-go.txt"; } > "$work/stalled.txt"
clean "av-sync (one GO 8 ms late, a VM stall under it: set aside)" gate_av_sync 13 1 400 "$sounds" "$work/late-go.txt" "$underruns" "$work/stalled.txt"
# The same stall, ended 2 ms before the sound: beside the late GO, not under it.
{ cat "$stalls"; stall_under 7 "$work/late-go.txt" | awk '{ $4 = sprintf("%.0f", $3 - 1500000); $3 = sprintf("%.0f", $3 - 5000000); print }'; } > "$work/beside.txt"
plant "av-sync: one GO 8 ms late, a VM stall ended before its sound" gate_av_sync 13 1 400 "$sounds" "$work/late-go.txt" "$underruns" "$work/beside.txt"
# Stalls under two GOs that were on time as well (notes 4 and 10): nothing more set aside, passes.
{ cat "$work/stalled.txt"; stall_under 4 "$go"; stall_under 10 "$go"; } > "$work/stalled-on-time.txt"
clean "av-sync (one GO late with a stall under it, stalls under two GOs on time: one set aside)" gate_av_sync 13 1 400 "$sounds" "$work/late-go.txt" "$underruns" "$work/stalled-on-time.txt"
late_go 4 "$go" | late_go 7 /dev/stdin | late_go 10 /dev/stdin > "$work/three-late.txt"
{ cat "$stalls"; for k in 4 7 10; do stall_under $k "$work/three-late.txt"; done; } > "$work/three-stalled.txt"
plant "av-sync: three GOs late, a VM stall under each (more than AV_SYNC_STALLED set aside)" gate_av_sync 13 1 400 "$sounds" "$work/three-late.txt" "$underruns" "$work/three-stalled.txt"

# HIL-FF-MEMLESS.
kernel="$recorded/ff-memless/timeline-drv260x.txt" ours="$recorded/ff-memless/timeline-hapticd.txt"
set -- $(value ff-memless starts)
kernel_start=$1 ours_start=$2
clean ff-memless gate_ff_memless "$kernel" "$ours" "$kernel_start" "$ours_start"
awk '{ $2 = int($2 * 4 / 3 + 0.5) } { print }' "$ours" > "$work/no-gain.txt"
plant "ff-memless: the gain (75 %) ignored" gate_ff_memless "$kernel" "$work/no-gain.txt" "$kernel_start" "$ours_start"
awk -v start="$ours_start" '{ t[NR] = $1; v[NR] = $2 } END { for (i = 1; i <= NR; i++) { if (i == NR && v[i] == 0) t[i] += 150000000; print t[i], v[i] } }' "$ours" > "$work/long.txt"
plant "ff-memless: the periodic effect running 150 ms long" gate_ff_memless "$kernel" "$work/long.txt" "$kernel_start" "$ours_start"
shift_column "$ours" 1 50000000 > "$work/late.txt"
plant "ff-memless: every effect 50 ms late" gate_ff_memless "$kernel" "$work/late.txt" "$kernel_start" "$ours_start"
shift_column "$ours" 1 15000000 > "$work/ff-late.txt"
plant "ff-memless: every effect 15 ms late" gate_ff_memless "$kernel" "$work/ff-late.txt" "$kernel_start" "$ours_start"
awk '{ $2 = int($2 * 1.08 + 0.5) } { print }' "$ours" > "$work/ff-strong.txt"
plant "ff-memless: the drive 8 % strong" gate_ff_memless "$kernel" "$work/ff-strong.txt" "$kernel_start" "$ours_start"
# The rumble alone (the first level) a third stronger: the second effect then adds too little.
awk '$2 != 0 && !done { $2 = int($2 * 4 / 3 + 0.5); done = 1 } { print }' "$ours" > "$work/ff-first.txt"
plant "ff-memless: the rumble alone a third strong" gate_ff_memless "$kernel" "$work/ff-first.txt" "$kernel_start" "$ours_start"
awk '{ print } END { printf "%.0f 188\n", $1 + 2000000000 }' "$ours" > "$work/ff-left.txt"
plant "ff-memless: left driving after the window" gate_ff_memless "$kernel" "$work/ff-left.txt" "$kernel_start" "$ours_start"
# Half as strong where neither the onset, the end, the peak nor the windows of the ratio look:
# 10-45 ms, 190-295 ms, 555-600 ms and 620-790 ms after the session's start (every millisecond).
# gaps_timeline LEVEL_DIVISOR FROM-TO...: ours, with the level divided in those windows (0: silent).
gaps_timeline() {
    divisor=$1
    shift
    awk -v start="$ours_start" -v divisor="$divisor" -v windows="$*" '{ t[NR] = $1; v[NR] = $2 }
        END {
            count = split(windows, w, /[ -]/)
            for (k = 0; k <= 1200; k++) {
                at = start + k * 1000000; level = 0
                for (i = 1; i <= NR; i++) if (t[i] <= at) level = v[i]
                for (j = 1; j < count; j += 2) if (k >= w[j] + 0 && k <= w[j + 1] + 0) level = divisor ? int(level / divisor) : 0
                printf "%.0f %d\n", at, level
            }
        }' "$ours"
}
gaps_timeline 2 10-45 190-295 555-600 620-790 > "$work/ff-gaps.txt"
plant "ff-memless: half as strong between the compared windows" gate_ff_memless "$kernel" "$work/ff-gaps.txt" "$kernel_start" "$ours_start"
gaps_timeline 0 620-710 > "$work/ff-dropout.txt"
plant "ff-memless: a 90 ms dropout" gate_ff_memless "$kernel" "$work/ff-dropout.txt" "$kernel_start" "$ours_start"

# HIL-FORCE-FEEDBACK: fftest's rumble for 3 s.
rumble="$recorded/force-feedback/ff-rumble-timeline.txt"
clean force-feedback gate_force_feedback "$rumble" 3 562
awk '{ $2 = 0 } { print }' "$rumble" > "$work/zero.txt"
plant "force-feedback: the chip woken and driven at 0" gate_force_feedback "$work/zero.txt" 3 562
awk 'NR == 1 { first = $1 } { if ($1 > first + 1500000000 && !cut) { print first + 1500000000, 0; cut = 1 } if (!cut) print }' "$rumble" > "$work/short.txt"
plant "force-feedback: the rumble stopped after 1.5 s" gate_force_feedback "$work/short.txt" 3 562
awk '{ if ($2 != 0) $2 = 1 } { print }' "$rumble" > "$work/faint.txt"
plant "force-feedback: driven at 1 permille" gate_force_feedback "$work/faint.txt" 3 562
awk '{ $2 = -$2 } { print }' "$rumble" > "$work/reversed.txt"
plant "force-feedback: driven reversed" gate_force_feedback "$work/reversed.txt" 3 562
awk '{ $2 = int($2 * 4 / 3 + 0.5) } { print }' "$rumble" > "$work/ff-no-gain.txt"
plant "force-feedback: the master gain (75 %) ignored" gate_force_feedback "$work/ff-no-gain.txt" 3 562
awk '{ t[NR] = $1; v[NR] = $2 } END { for (i = 1; i <= NR; i++) print (i == NR && v[i] == 0 ? t[i] + 1000000000 : t[i]), v[i] }' "$rumble" > "$work/ff-stop-late.txt"
plant "force-feedback: stopped 1 s after the rumble" gate_force_feedback "$work/ff-stop-late.txt" 3 562
awk '{ print } END { printf "%.0f 559\n", $1 + 500000000 }' "$rumble" > "$work/no-stop.txt"
plant "force-feedback: driving again after the stop" gate_force_feedback "$work/no-stop.txt" 3 562

# HIL-DA7280 (ours): played, from memory, changes, peak, low, high, left driving.
set -- $(value da7280-demo figures)
clean da7280-demo gate_da7280_demo "$1" 23 "$2" 12 "$3" "$4" "$5" "$6" "$7"
plant "da7280-demo: a table streaming zeros" gate_da7280_demo "$1" 23 "$2" 12 "$3" 0 "$5" "$6" "$7"
plant "da7280-demo: NOMMAX left at the chip's reset value (2.106 V)" gate_da7280_demo "$1" 23 "$2" 12 "$3" "$4" 90 "$6" "$7"
plant "da7280-demo: NOMMAX one step under the rating" gate_da7280_demo "$1" 23 "$2" 12 "$3" "$4" $(($5 - 1)) "$6" "$7"
plant "da7280-demo: left driving" gate_da7280_demo "$1" 23 "$2" 12 "$3" "$4" "$5" "$6" 500
plant "da7280-demo: one feedback not played" gate_da7280_demo $(($1 - 1)) 23 "$2" 12 "$3" "$4" "$5" "$6" "$7"
plant "da7280-demo: nothing from the waveform memory" gate_da7280_demo "$1" 23 0 12 "$3" "$4" "$5" "$6" "$7"
plant "da7280-demo: no drive change seen" gate_da7280_demo "$1" 23 "$2" 12 0 "$4" "$5" "$6" "$7"

# HIL-LONG-EFFECT: effect 47 at 360 %, modelled 900 ms.
long="$recorded/long-effect/long-go.txt" played=$(value long-effect played)
standby=$(value long-effect standby)
clean long-effect gate_long_effect "$long" "$played" 900 "$standby"
plant "long-effect: waiting out the deadline (1251 ms)" gate_long_effect "$long" 1.251 900 "$standby"
awk '$2 == "set" { print; print $1 + 750000000, "stopped" }' "$long" > "$work/cut.txt"
plant "long-effect: stopped at the old give-up point (estimate + 500 ms)" gate_long_effect "$work/cut.txt" 0.75 900 "$standby"
awk '$2 == "chip" { $2 = "stopped" } { print }' "$long" > "$work/written.txt"
plant "long-effect: GO cleared by a write at the effect's end" gate_long_effect "$work/written.txt" "$played" 900 "$standby"
awk '$2 == "chip" { $1 = $1 - 50000000 } { print }' "$long" > "$work/early.txt"
plant "long-effect: the chip's effect 50 ms short of its model" gate_long_effect "$work/early.txt" "$played" 900 "$standby"
plant "long-effect: reported played 100 ms before GO cleared" gate_long_effect "$long" "$(awk -v p="$played" 'BEGIN { print p - 0.1 }')" 900 "$standby"
plant "long-effect: not back in standby after it" gate_long_effect "$long" "$played" 900 0

# HIL-DAEMON-KILLED: MODE/RTP killed, stopped, killed again, restarted.
set -- $(value daemon-killed modes)
clean daemon-killed gate_daemon_killed "$@"
plant "daemon-killed: not driving before the restart" gate_daemon_killed "$1" "$2" "$3" "$4" 40 00 "$7" "$8"
plant "daemon-killed: killed after the pattern had ended" gate_daemon_killed 40 00 "$3" "$4" "$5" "$6" "$7" "$8"
plant "daemon-killed: haptic stop left it driving" gate_daemon_killed "$1" "$2" 05 "$2" "$5" "$6" "$7" "$8"
plant "daemon-killed: a restarted daemon left it driving" gate_daemon_killed "$1" "$2" "$3" "$4" "$5" "$6" 05 "$6"

# HIL-DEADMAN: each program's drive timeline and the time it was killed (`program`: clean() sets `name`).
for program in haptic-pattern hapticd da7280-haptic-pattern haptic-studio; do
    # A program the VM kills must have its recording: a missing one is a bound left unproven.
    [ -f "$recorded/dead-man-$program/values" ] || { echo "clean dead-man-$program: FAILED: no recording"; broken=$((broken + 1)); continue; }
    killed=$(value "dead-man-$program" kill)
    timeline="$recorded/dead-man-$program/deadman-$program.txt"
    clean "dead-man-$program" gate_dead_man "$program" "$killed" "$timeline" 50
    awk -v k="$killed" '$1 + 0 <= k + 0' "$timeline" > "$work/unstopped.txt"
    plant "dead-man $program: no guard (nothing after the kill)" gate_dead_man "$program" "$killed" "$work/unstopped.txt" 50
    awk -v k="$killed" '{ if ($1 + 0 > k + 0) printf "%.0f %s\n", $1 + 60000000, $2; else print }' "$timeline" > "$work/late.txt"
    plant "dead-man $program: the stop 60 ms later" gate_dead_man "$program" "$killed" "$work/late.txt" 50
    awk -v k="$killed" '{ if ($1 + 0 <= k + 0) print $1, 0; else print }' "$timeline" > "$work/idle.txt"
    plant "dead-man $program: not driving when killed" gate_dead_man "$program" "$killed" "$work/idle.txt" 50
    { cat "$timeline"; awk -v k="$killed" 'BEGIN { printf "%.0f 500\n", k + 400000000 }'; } > "$work/again.txt"
    plant "dead-man $program: driving again after the stop" gate_dead_man "$program" "$killed" "$work/again.txt" 50
done

# HIL-DT (arm64): what drv260x and da7280 wrote from the tree, the tree's values, the peaks, left driving.
if [ -f "$recorded/device-tree/values" ]; then
    set -- $(value device-tree figures)
    clean device-tree gate_device_tree "$@"
    plant "device-tree: drv260x from a software node's ratings (2.0 V)" gate_device_tree 91 "$2" "$3" "$4" "$5" "$6" "$7" "$8" "$9" "${10}" "${11}"
    plant "device-tree: da7280 from a software node's ratings (2.106 V)" gate_device_tree "$1" "$2" "$3" "$4" "$5" 91 "$7" "$8" "$9" "${10}" "${11}"
    plant "device-tree: hapticd on the reset ratio (1175, as measured before the fix)" gate_device_tree "$1" "$2" "$3" "$4" "$5" "$6" "$7" "$8" "$9" 1175 "${11}"
    plant "device-tree: left driving" gate_device_tree "$1" "$2" "$3" "$4" "$5" "$6" "$7" "$8" "$9" "${10}" 1
fi

# HIL-EVDEV: five runs through drv260x's device, five over I2C.
evdev="$recorded/evdev"
if [ -d "$evdev" ]; then
    runs=$(ls "$evdev"/evdev-evdev-*.txt) i2c=$(ls "$evdev"/evdev-i2c-*.txt)
    count=$(echo $runs | wc -w)
    clean evdev gate_evdev "$count" 1 $runs $i2c
    for run in $runs; do awk '$1 == "start" { print; next } { $2 = int($2 / 2) } { print }' "$run" > "$work/half-${run##*/}"; done
    plant "evdev: drv260x's magnitude read as a share of 0xFFFF (half the drive)" gate_evdev "$count" 1 "$work"/half-* $i2c
    for run in $runs; do shift_column "$run" 1 30000000 '^[0-9]' > "$work/slow-${run##*/}"; done
    plant "evdev: every update 30 ms late (a rate-limited stream)" gate_evdev "$count" 1 "$work"/slow-* $i2c
    for run in $runs; do awk '$1 == "start" || t0 == 0 || $1 < t0 + 300000000 { if ($1 != "start" && $2 != 0 && t0 == 0) t0 = $1; print }' "$run" > "$work/stuck-${run##*/}"; done
    plant "evdev: the effect never stopped (left at its last level)" gate_evdev "$count" 1 "$work"/stuck-* $i2c
    # One update of each evdev run past the rating for a microsecond (between the 1 ms samples).
    for run in $runs; do awk '$1 == "start" { print; next } $2 != 0 && !done { print; print $1 + 1000, 1100; print $1 + 2000, $2; done = 1; next } { print }' "$run" > "$work/over-${run##*/}"; done
    plant "evdev: a microsecond past the rating" gate_evdev "$count" 1 "$work"/over-* $i2c
    first_i2c=$(echo $i2c | cut -d' ' -f1)
    for run in $i2c; do if [ "$run" = "$first_i2c" ]; then awk '{ print } END { print $1 + 2000000000, 500 }' "$run"; else cat "$run"; fi > "$work/i2c-left-${run##*/}"; done
    plant "evdev: one I2C run left driving (after the compared window)" gate_evdev "$count" 1 $runs "$work"/i2c-left-*
    for run in $runs; do awk '$1 == "start" { print; next } { $2 = int($2 * 0.9) } { print }' "$run" > "$work/ninety-${run##*/}"; done
    plant "evdev: the drive at 90 %" gate_evdev "$count" 1 "$work"/ninety-* $i2c
    for run in $runs; do awk '$1 == "start" { print; next } { line[++n] = $0; t[n] = $1; v[n] = $2; if ($2 > peak) peak = $2 } END { for (i = 1; i <= n; i++) print t[i], (v[i] != 0 ? peak : 0) }' "$run" > "$work/flat-${run##*/}"; done
    plant "evdev: every level played at the peak (on/off)" gate_evdev "$count" 1 "$work"/flat-* $i2c
fi

# HIL-EVDEV, da7280: five runs through da7280's device, five over I2C, and the expected ratio.
da7280="$recorded/da7280-evdev"
if [ -d "$da7280" ]; then
    runs=$(ls "$da7280"/evdev-da7280-evdev-*.txt) i2c=$(ls "$da7280"/evdev-da7280-i2c-*.txt)
    count=$(echo $runs | wc -w) expected=$(value da7280-evdev expected)
    clean da7280-evdev gate_evdev "$count" "$expected" $runs $i2c
    # Linux's own full scale: each level as its share of 0x7FFF. 0.5 reaches override 127 (ABSMAX:
    # 1066 permille of NOMMAX), 1.0 reaches 254, read as -2 (reversed, -17).
    for run in $runs; do awk '$1 == "start" { print; next } { $2 = $2 == 0 ? 0 : $2 < 600 ? 1066 : -17 } { print }' "$run" > "$work/share-${run##*/}"; done
    plant "da7280: levels sent as their share of 0x7FFF (past 127: reversed)" gate_evdev "$count" "$expected" "$work"/share-* $i2c
    # The rating ignored: the full level at override 127 (ABSMAX) instead of 95.
    for run in $runs; do awk '$1 == "start" { print; next } { $2 = int($2 * 127 / 95) } { print }' "$run" > "$work/absmax-${run##*/}"; done
    plant "da7280: the limit ignored (full at ABSMAX)" gate_evdev "$count" "$expected" "$work"/absmax-* $i2c
fi

# HIL-EVDEV, gpio-vibrator: five runs of its line, the five I2C runs they were compared with.
gpio="$recorded/gpio-vibrator"
if [ -d "$gpio" ]; then
    runs=$(ls "$gpio"/evdev-gpio-evdev-*.txt) i2c=$(ls "$gpio"/evdev-i2c-*.txt)
    count=$(echo $runs | wc -w)
    clean gpio-vibrator gate_on_off "$count" $runs $i2c
    # Each new level a stop and a play (the line off for 10 ms where the pattern goes to 1.0).
    for run in $runs; do awk '$1 == "start" { print; next } $2 != 0 && !on { on = $1; print; print on + 300000000, 0; print on + 310000000, 1000; next } { print }' "$run" > "$work/gap-${run##*/}"; done
    plant "gpio-vibrator: switched off at each new level" gate_on_off "$count" "$work"/gap-* $i2c
    for run in $runs; do awk '$1 == "start" || $2 != 0' "$run" > "$work/on-${run##*/}"; done
    plant "gpio-vibrator: the line left on" gate_on_off "$count" "$work"/on-* $i2c
    for run in $runs; do shift_column "$run" 1 30000000 '^[0-9]' > "$work/gpio-late-${run##*/}"; done
    plant "gpio-vibrator: every switch 30 ms late" gate_on_off "$count" "$work"/gpio-late-* $i2c
    for run in $runs; do awk '$1 == "start" || $2 == 0' "$run" > "$work/never-${run##*/}"; done
    plant "gpio-vibrator: never switched on" gate_on_off "$count" "$work"/never-* $i2c
    first_run=$(echo $runs | cut -d' ' -f1) first_i2c=$(echo $i2c | cut -d' ' -f1)
    for run in $runs; do if [ "$run" = "$first_run" ]; then awk '$1 == "start" || $2 == 0' "$run"; else cat "$run"; fi > "$work/one-off-${run##*/}"; done
    plant "gpio-vibrator: one run never switched on" gate_on_off "$count" "$work"/one-off-* $i2c
    for run in $runs; do awk '{ line[++n] = $0; t[n] = $1; v[n] = $2 } END { for (i = 1; i <= n; i++) if (i == n && v[i] == 0) printf "%.0f 0\n", t[i] + 30000000; else print line[i] }' "$run" > "$work/long-${run##*/}"; done
    plant "gpio-vibrator: every burst 30 ms long" gate_on_off "$count" "$work"/long-* $i2c
    for run in $i2c; do if [ "$run" = "$first_i2c" ]; then awk '{ print } END { printf "%.0f 500\n", $1 + 2000000000 }' "$run"; else cat "$run"; fi > "$work/i2c-on-${run##*/}"; done
    plant "gpio-vibrator: one I2C run left on" gate_on_off "$count" $runs "$work"/i2c-on-*
fi

# changed_value NAME KEY VALUE: NAME's recorded values with KEY's replaced (a value may hold
# spaces), in $work/NAME-values.
changed_value() {
    awk -v k="$2" -v v="$3" '$1 == k { print k " " v; next } { print }' "$recorded/$1/values" > "$work/$1-values"
}
# plant_value NAME GATE KEY VALUE FAULT: FAULT planted as NAME's KEY changed to VALUE.
plant_value() {
    changed_value "$1" "$3" "$4"
    plant "$5" "$2" "$work/$1-values"
}

# HIL-SUITE and HIL-VERBS.
if [ -f "$recorded/suite/values" ]; then
    clean suite gate_suite "$recorded/suite/values"
    plant_value suite gate_suite ran "$(( $(value suite expected) - 1 ))" "suite: a test not run"
    plant_value suite gate_suite skipped 1 "suite: a test skipped"
fi
if [ -f "$recorded/verbs/values" ]; then
    clean verbs gate_verbs "$recorded/verbs/values"
    plant_value verbs gate_verbs standby-after-play 0 "verbs: the chip awake after a play"
    plant_value verbs gate_verbs calibration-restored 0 "verbs: the calibration not restored"
    plant_value verbs gate_verbs absent-exit 1 "verbs: an absent address exits 1"
    plant_value verbs gate_verbs absent-named 0 "verbs: the no-acknowledge not named"
    plant_value verbs gate_verbs wrong-bus-exit 0 "verbs: a wrong bus exits 0"
fi

# HIL-FORCE-FEEDBACK's session outcome.
if [ -f "$recorded/force-feedback-session/values" ]; then
    clean force-feedback-session gate_force_feedback_session "$recorded/force-feedback-session/values"
    plant_value force-feedback-session gate_force_feedback_session rumble-uploaded 0 "force-feedback: fftest's rumble refused"
    plant_value force-feedback-session gate_force_feedback_session played-logged 0 "force-feedback: hapticd played nothing"
    plant_value force-feedback-session gate_force_feedback_session standby-after 0 "force-feedback: hapticd awake after fftest stopped"
fi

# HIL-MODEL (DA7280) and HIL-DA7280's supply.
if [ -f "$recorded/da7280-model/values" ]; then
    clean da7280-model gate_da7280_model "$recorded/da7280-model/values"
    plant_value da7280-model gate_da7280_model agreed "$(( $(value da7280-model shipped) - 1 ))" "DA7280 model: a script that disagreed"
    awk '$1 == "agreed" { print "agreed 13"; next } $1 == "shipped" { print "shipped 13"; next } { print }' "$recorded/da7280-model/values" > "$work/da7280-model-values"
    plant "DA7280 model: a script left out of the image" gate_da7280_model "$work/da7280-model-values"
fi
if [ -f "$recorded/da7280-sharpness/values" ]; then
    clean da7280-sharpness gate_da7280_sharpness "$recorded/da7280-sharpness/values"
    periods=$(value da7280-sharpness periods)
    plant_value da7280-sharpness gate_da7280_sharpness sweep-exit 1 "sharpness: the sweep exited 1"
    # Six periods across the band, rising, in it, ending in tracking: set too few times alone.
    plant_value da7280-sharpness gate_da7280_sharpness periods "4550 4500 4450 4400 4350 4300 0" "sharpness: the period set six times"
    # Two neighbours swapped: the frequency falls once, everything else as recorded.
    plant_value da7280-sharpness gate_da7280_sharpness periods "$(echo "$periods" | awk '{ t = $3; $3 = $4; $4 = t; print }')" "sharpness: the frequency falls once"
    # One more period past the band (4000: 187.5 Hz) before the end.
    plant_value da7280-sharpness gate_da7280_sharpness periods "$(echo "$periods" | awk '{ $NF = "4000 0"; print }')" "sharpness: a period past the band"
    # The sweep compressed to its first five periods and the end: the band not spanned.
    plant_value da7280-sharpness gate_da7280_sharpness periods "$(echo "$periods" | awk '{ print $1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, 0 }')" "sharpness: under 7 Hz spanned"
    plant_value da7280-sharpness gate_da7280_sharpness periods "$(echo "$periods" | awk '{ NF = NF - 1; print }')" "sharpness: tracking not back at the end"
    plant_value da7280-sharpness gate_da7280_sharpness after "16 34 60" "sharpness: TOP_CFG1 left without FREQ_TRACK_EN"
    plant_value da7280-sharpness gate_da7280_sharpness after "1e 34 61" "sharpness: LRA_PER left one step off the resonance"
    plant_value da7280-sharpness gate_da7280_sharpness peak 1080 "sharpness: driven 8 % past the rating"
    plant_value da7280-sharpness gate_da7280_sharpness said 0 "sharpness: the band not named"
    plant_value da7280-sharpness gate_da7280_sharpness steady-changes 2 "sharpness: a period set at sharpness 0.5"
fi
if [ -f "$recorded/da7280-supply/values" ]; then
    clean da7280-supply gate_da7280_supply "$recorded/da7280-supply/values"
    plant_value da7280-supply gate_da7280_supply uvlo-exit 0 "DA7280 supply: played below the lock-out"
    plant_value da7280-supply gate_da7280_supply uvlo-lines 12 "DA7280 supply: the refusal a page of text"
    plant_value da7280-supply gate_da7280_supply uvlo-peak 1000 "DA7280 supply: driven below the lock-out"
    plant_value da7280-supply gate_da7280_supply sag-exit 0 "DA7280 supply: the sag's feedback said played"
    plant_value da7280-supply gate_da7280_supply sag-named 0 "DA7280 supply: the sag not named"
    plant_value da7280-supply gate_da7280_supply sag-mode 3 "DA7280 supply: left in DRO after the sag"
    plant_value da7280-supply gate_da7280_supply irq-after 01 "DA7280 supply: E_UVLO still latched"
fi

# HIL-DRV260X: Linux's drv260x on the fixture, one figure changed at a time.
if [ -f "$recorded/drv260x/values" ]; then
    clean drv260x gate_drv260x "$recorded/drv260x/values"
    plant_value drv260x gate_drv260x diag-result 1 "drv260x: its calibration failed"
    plant_value drv260x gate_drv260x period 00 "drv260x: LRA_PERIOD not measured"
    plant_value drv260x gate_drv260x peak 0 "drv260x: the rumble's byte never reached RTP"
    plant_value drv260x gate_drv260x errors 2 "drv260x: driver errors in the kernel log"
fi

# HIL-DRV2604L: the fixture as a DRV2604L.
if [ -f "$recorded/drv2604l/values" ]; then
    clean drv2604l gate_drv2604l "$recorded/drv2604l/values"
    plant_value drv2604l gate_drv2604l part DRV2605L "DRV2604L: probe names another part"
    plant_value drv2604l gate_drv2604l played 5 "DRV2604L: one of the 6 not played as a stream"
    plant_value drv2604l gate_drv2604l streamed 0 "DRV2604L: no RTP write reached the fixture"
fi

# HIL-DA7280, Linux's da7280 on the fixture.
if [ -f "$recorded/linux-da7280/values" ]; then
    clean linux-da7280 gate_linux_da7280 "$recorded/linux-da7280/values"
    plant_value linux-da7280 gate_linux_da7280 probe "5a 78 14 00cd 22 3c" "Linux's da7280: NOMMAX and ABSMAX left at reset"
    plant_value linux-da7280 gate_linux_da7280 acceleration 1 "Linux's da7280: acceleration on"
    plant_value linux-da7280 gate_linux_da7280 peak 1000 "Linux's da7280: FF_CONSTANT 0x2000 at full scale"
    plant_value linux-da7280 gate_linux_da7280 after "drive 528, TOP_CTL1 0d, TOP_CTL2 3f" "Linux's da7280: still driving after the client closed"
    plant_value linux-da7280 gate_linux_da7280 memory "01 01 04 05 00 00 00" "Linux's da7280: the upload's frame not in memory"
    plant_value linux-da7280 gate_linux_da7280 sequences 2 "Linux's da7280: the sequence played twice"
    plant_value linux-da7280 gate_linux_da7280 timeline "0:532 43520:0 " "Linux's da7280: the memory played at half"
    plant_value linux-da7280 gate_linux_da7280 sequence-after "1 1065" "Linux's da7280: SEQ_START left set after the stop"
    plant_value linux-da7280 gate_linux_da7280 errors 1 "Linux's da7280: a driver error in the kernel log"
fi

# HIL-EVDEV, gpio-vibrator's tick: its line for a client's selection through hapticd.
tick="$recorded/gpio-tick/gpio-tick.txt" tick_stalls="$recorded/gpio-tick/tick-stalls.txt"
if [ -f "$tick" ]; then
    clean gpio-tick gate_switched_tick 30 "$tick" "$tick_stalls"
    # A run the VM stalled in: a pulse of 22 ms (past the lower bound of 25), after a 7 ms stall of
    # one CPU that ended as the line rose (passes: 7 ms taken off), or began after it (caught), and
    # the click's own 10 ms after a 30 ms stall (caught: at most the window is taken off).
    pulse() { awk -v ms="$1" '$1 != "start" && $2 != 0 && !on { on = $1; print; printf "%.0f 0\n", on + ms * 1000000; done = 1; next } done { next } { print }' "$tick"; }
    rise=$(awk '$1 != "start" && $2 != 0 { print $1; exit }' "$tick")
    pulse 22 > "$work/tick-22.txt"
    pulse 10 > "$work/tick-10.txt"
    { cat "$tick_stalls"; awk -v r="$rise" 'BEGIN { printf "stall 1 %.0f %.0f\n", r - 7000000, r }'; } > "$work/stall-before.txt"
    { cat "$tick_stalls"; awk -v r="$rise" 'BEGIN { printf "stall 1 %.0f %.0f\n", r + 1000000, r + 8000000 }'; } > "$work/stall-after.txt"
    { cat "$tick_stalls"; awk -v r="$rise" 'BEGIN { printf "stall 0 %.0f %.0f\n", r - 30000000, r }'; } > "$work/stall-long.txt"
    clean "gpio-tick (22 ms after a 7 ms stall before the line rose)" gate_switched_tick 30 "$work/tick-22.txt" "$work/stall-before.txt"
    plant "gpio-vibrator tick: 22 ms, the stall after the line rose" gate_switched_tick 30 "$work/tick-22.txt" "$work/stall-after.txt"
    plant "gpio-vibrator tick: 10 ms after a 30 ms stall (at most the window taken off)" gate_switched_tick 30 "$work/tick-10.txt" "$work/stall-long.txt"
    # The pulse as the click's own drive (10 ms): not held for the minimum on-time.
    awk '$1 != "start" && $2 != 0 && !on { on = $1; print; printf "%.0f 0\n", on + 10000000; done = 1; next } done { next } { print }' "$tick" > "$work/tick-short.txt"
    plant "gpio-vibrator tick: cut at the click's own 10 ms" gate_switched_tick 30 "$work/tick-short.txt" "$tick_stalls"
    # Held twice as long (60 ms).
    awk '$1 != "start" && $2 != 0 && !on { on = $1; print; printf "%.0f 0\n", on + 60000000; done = 1; next } done { next } { print }' "$tick" > "$work/tick-long.txt"
    plant "gpio-vibrator tick: held 60 ms" gate_switched_tick 30 "$work/tick-long.txt" "$tick_stalls"
    # Switched on again 100 ms later and left on.
    awk '{ print; if ($1 != "start") last = $1 } END { printf "%.0f 1000\n", last + 100000000 }' "$tick" > "$work/tick-again.txt"
    plant "gpio-vibrator tick: on again after it, and left on" gate_switched_tick 30 "$work/tick-again.txt" "$tick_stalls"
fi

# The package installed and run (Scripts/kernel-test --deploy): one figure changed at a time.
# with_value KEY VALUE: the recording with KEY's value replaced, in $work/deploy-values.
with_value() { awk -v k="$1" -v v="$2" '$1 == k { $2 = v } { print }' "$recorded/deploy/values" > "$work/deploy-values"; }
if [ -f "$recorded/deploy/values" ]; then
    clean deploy gate_deploy "$recorded/deploy/values"
    with_value swift-libraries 3
    plant "deploy: the Swift runtime on the root" gate_deploy "$work/deploy-values"
    with_value calibration-owner none
    plant "deploy: the calibration not saved" gate_deploy "$work/deploy-values"
    with_value uinput-access root:hapticd:660
    plant "deploy: /dev/uinput for hapticd's group (the socket's clients)" gate_deploy "$work/deploy-values"
    with_value calibrations-after-restart 2
    plant "deploy: calibrated again at restart" gate_deploy "$work/deploy-values"
    with_value stranger-refused 0
    plant "deploy: a user outside the group plays" gate_deploy "$work/deploy-values"
    with_value standby-after-kill-ms 1100
    plant "deploy: standby 1.1 s after SIGKILL" gate_deploy "$work/deploy-values"
    with_value security-exposure 8.5
    plant "deploy: the unit unsandboxed (8.5 EXPOSED, as before)" gate_deploy "$work/deploy-values"
    with_value standby-after-kill-ms "$(value deploy restart-after-kill-ms)"
    plant "deploy: standby only when the daemon restarted" gate_deploy "$work/deploy-values"
    with_value restarted-after-watchdog 0
    plant "deploy: not restarted after the watchdog" gate_deploy "$work/deploy-values"
    with_value watchdog-standby-ms "$(( $(sed -n 's/^watchdog-restart-ms //p' "$recorded/deploy/values") + 100 ))"
    plant "deploy: standby only once restarted" gate_deploy "$work/deploy-values"
    with_value watchdog-standby-ms 2100
    plant "deploy: a hung daemon's chip driving 2.1 s (the old watchdog's wait)" gate_deploy "$work/deploy-values"
    with_value waiting-state failed
    plant "deploy: hapticd gave up on a missing bus" gate_deploy "$work/deploy-values"
    with_value serving-after-bus-ms 5100
    plant "deploy: serving 5.1 s after the bus appeared" gate_deploy "$work/deploy-values"
    with_value session-active inactive
    plant "deploy: the session service not activated" gate_deploy "$work/deploy-values"
    with_value hapticd-left 1
    plant "deploy: hapticd left running by apt remove" gate_deploy "$work/deploy-values"
    with_value state-after-purge 1
    plant "deploy: the state left by apt purge" gate_deploy "$work/deploy-values"
    with_value first-ready-ms 12000
    plant "deploy: READY 12 s after install" gate_deploy "$work/deploy-values"
    with_value active-after-install failed
    plant "deploy: the unit failed after install" gate_deploy "$work/deploy-values"
    with_value restart-ms 12000
    plant "deploy: a restart taking 12 s" gate_deploy "$work/deploy-values"
    with_value restarted-after-kill 0
    plant "deploy: not restarted after SIGKILL" gate_deploy "$work/deploy-values"
    with_value user-play-status 1
    plant "deploy: a member of the hapticd group refused" gate_deploy "$work/deploy-values"
    with_value watchdog-restart-ms "$(( $(value deploy watchdog-standby-ms) - 100 ))"
    plant "deploy: restarted by the watchdog before the chip was in standby" gate_deploy "$work/deploy-values"
    with_value socket-activation-ms -1
    plant "deploy: hapticd.socket did not start hapticd at the first connection" gate_deploy "$work/deploy-values"
    with_value socket-passed 0
    plant "deploy: hapticd bound a socket of its own, not the one systemd passed" gate_deploy "$work/deploy-values"
    with_value service-after-stop active
    plant "deploy: ExecStopPost asked the socket, which started hapticd again" gate_deploy "$work/deploy-values"
fi

# Every bound a clean run was held to, missed alone by some planted fault.
sort -u "$work/bounds" > "$work/bounds.sorted"
sort -u "$work/proven" > "$work/proven.sorted"
bounds=$(wc -l < "$work/bounds.sorted")
unproven=$(awk -F'|' 'FILENAME == ARGV[1] { proven[$0] = 1; next } !($0 in proven) { print }' "$work/proven.sorted" "$work/bounds.sorted")
if [ -n "$unproven" ]; then
    echo "$unproven" | sed 's/^/unproven bound (no planted fault breaks it alone): /'
    echo "gate proofs: $caught of $planted planted faults caught ($bounds bounds, $(echo "$unproven" | wc -l) of them not proven alone)"
    exit 1
fi
echo "gate proofs: $caught of $planted planted faults caught ($bounds bounds, every bound proven)"
[ "$broken" -eq 0 ] && [ "$caught" -eq "$planted" ]
