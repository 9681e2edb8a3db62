# SPDX-License-Identifier: Apache-2.0
# The hardware-in-loop VM's gates, in one place: Tests/KernelFixtures/init.sh sources this file in
# the VM and hands each gate what the fixtures recorded; Scripts/kernel-test --prove-gates sources the
# same file outside the VM and hands the same gates recorded timelines with planted faults
# (Tests/KernelFixtures/prove-gates.sh), so that every gate is seen failing.
#
# Each gate prints its figures on one line, then "gates: " and every bound it enforces, then
# "missed: " and each bound the figures broke; it returns 1 when one was broken. Busybox sh and awk.

# Shared by every gate's awk program: bound(ok, text) notes a bound and whether it held; verdict()
# prints the gates and what was missed, and sets the exit status. With GATE_LIST_BOUNDS=1 in the
# environment (the proofs) it also prints each bound on a line of its own ("bound: "), so that the
# proofs can tell which bounds a recorded run was held to.
GATE_AWK='
function bound(ok, text) { gates = gates (gates == "" ? "" : ", ") text; listed[++bounds] = text; if (!ok) missed[++misses] = text }
function verdict(   i) {
    print "gates: " gates
    if (ENVIRON["GATE_LIST_BOUNDS"] == 1) for (i = 1; i <= bounds; i++) print "bound: " listed[i]
    for (i = 1; i <= misses; i++) print "missed: " missed[i]
    exit misses > 0
}
# (x + 0: busybox awk keeps the text of a field, and compares "94" above "377" as text.)
function magnitude(x) { x = x + 0; return x < 0 ? -x : x }
function sorted(list, count,   i, j, swap) {
    for (i = 1; i <= count; i++) for (j = i + 1; j <= count; j++) if (list[j] < list[i]) { swap = list[i]; list[i] = list[j]; list[j] = swap }
}
'

# Sound with haptics: sound k paired with note k's GO (never the nearest GO: notes are 0.4 s apart,
# so a timeline shifted by a note would pair with its neighbour). The first WARMUP notes are played
# but not paired (the emulator translates the code path on its first use). The offset is sound less
# GO. av-capture dates each sound to the frame (the playback's frame it was, from the trigger: no
# jiffy grid in it since a trigger just after an uncounted tick made every sound a tick early). A
# sound may be early, its GO late, by at most one tick of the loopback's clock (read from
# av-capture's "clock:" line) plus AV_SYNC_MARGIN_MS: the GO leaves over I2C after the sound's frames
# are queued (CI's runs: p1 -1.2 to -2.4 ms); late by at most AV_SYNC_MARGIN_MS; and the offsets may
# spread (p99 - p1) by at most AV_SYNC_SPREAD_MS: the haptic side's own jitter. With 12 offsets the p1 is the smallest and the p99 the largest. The GO
# spacing (how far the paired notes' GO writes strayed from the notes' spacing) is a figure only: a
# late GO moves its offset, which the bounds hold.
#
# The VM's own stalls (STALLS: stall-watch's "stall CPU FROM_NS TO_NS" lines, a real-time thread
# pinned to each virtual CPU that woke late, so that CPU did not run) are not the player's: a note
# whose GO was held up by one (a stall between its sound, less the margin, and its GO, and the GO
# later than the run's median by over AV_SYNC_LATE_MS) is set aside, not paired, and at most
# AV_SYNC_STALLED notes may be (a player late on its own is late with no stall under it, and fails
# as before). CI's runs saw one GO in about five runs 7-10 ms late. A stall under a GO that was not
# late sets nothing aside (one run had two such notes, at -1.14 and -3.06 ms, the median -0.5).
#
#   gate_av_sync NOTES WARMUP SPACING_MS SOUNDS GO_WRITES UNDERRUNS [STALLS]
# SOUNDS: av-capture's output ("clock: tick NS ..." and "onset NS" lines); GO_WRITES: "NS" lines (the
# fixture's drive_onsets).
AV_SYNC_MARGIN_MS=1
AV_SYNC_SPREAD_MS=3
AV_SYNC_STALLED=2
AV_SYNC_LATE_MS=1
gate_av_sync() {
    { sed -n 's/^onset /S /p; s/^clock: tick \([0-9]*\) ns.*/T \1/p' "$4"; sed -n 's/^\([0-9][0-9]*\)$/G \1/p' "$5"
        [ -z "${7:-}" ] || sed -n 's/^stall [0-9]* /V /p; s/^cpu [0-9]* wakes /W /p' "$7"; } | awk -v notes="$1" -v warmup="$2" \
        -v spacing="$3" -v margin="$AV_SYNC_MARGIN_MS" -v spread_limit="$AV_SYNC_SPREAD_MS" -v stalled_limit="$AV_SYNC_STALLED" -v late_ms="$AV_SYNC_LATE_MS" \
        -v underruns="$6" "$GATE_AWK"'
        $1 == "S" { s[++ns] = $2 }
        $1 == "G" { g[++ng] = $2 }
        $1 == "T" { tick = $2 / 1e6 }
        $1 == "V" { from[++nv] = $2; to[nv] = $3; if (($3 - $2) / 1e6 > longest) longest = ($3 - $2) / 1e6 }
        $1 == "W" { cpus++; wakes = wakes (wakes == "" ? "" : " and ") $2 }
        function held_up(k,   i) {
            for (i = 1; i <= nv; i++) if (from[i] + 0 < g[k] + 0 && to[i] + 0 > s[k] - margin * 1e6) return 1
            return 0
        }
        END {
            # The median offset over every note, stalls or not: what a late GO is measured from.
            every = 0
            for (k = warmup + 1; k <= notes && k <= ns && k <= ng; k++) all[++every] = (s[k] - g[k]) / 1e6
            sorted(all, every)
            typical = every ? (every % 2 ? all[(every + 1) / 2] : (all[every / 2] + all[every / 2 + 1]) / 2) : 0
            pairs = 0; stalled = 0; aside = ""
            for (k = warmup + 1; k <= notes && k <= ns && k <= ng; k++) {
                if (held_up(k) && (s[k] - g[k]) / 1e6 < typical - late_ms) { stalled++; aside = aside (aside == "" ? "" : ", ") k " (" sprintf("%.2f", (s[k] - g[k]) / 1e6) " ms)"; continue }
                off[++pairs] = (s[k] - g[k]) / 1e6; ordered[pairs] = off[pairs]
            }
            sorted(ordered, pairs)
            median = pairs ? (pairs % 2 ? ordered[(pairs + 1) / 2] : (ordered[pairs / 2] + ordered[pairs / 2 + 1]) / 2) : 0
            low = int(0.01 * pairs); if (low < 0.01 * pairs) low++; if (low < 1) low = 1
            high = int(0.99 * pairs); if (high < 0.99 * pairs) high++
            p1 = pairs ? ordered[low] : 0; p99 = pairs ? ordered[high] : 0
            stray = 0
            for (k = warmup + 2; k <= ng; k++) { d = magnitude((g[k] - g[k - 1]) / 1e6 - spacing); if (d > stray) stray = d }
            printf "%d of %d paired note by note (%d notes, %d of them a warm-up; %d sounds, %d GO writes), offset (sound - GO) median %.2f ms, p1 %.2f ms, p99 %.2f ms, spread %.2f ms; clock tick %.1f ms; underruns %d; GO spacing strayed %.2f ms from %d ms (a figure: what it moves, the offsets hold)\n", pairs, notes - warmup, notes, warmup, ns, ng, median, p1, p99, p99 - p1, tick, underruns, stray, spacing
            printf "VM stalls (stall-watch): %d, longest %.2f ms, on %d CPUs (wakes %s; a figure: a watcher that did not run sets no note aside, which only makes this gate stricter); notes set aside, their GO late by over %d ms with a stall under it: %d%s\n", nv, longest, cpus, wakes == "" ? "none" : wakes, late_ms, stalled, aside == "" ? "" : " (note, offset: " aside ")"
            # (Every note paired follows: pairs are the first NOTES of each, less the warm-up and the notes set aside.)
            bound(ns == notes && ng == notes, "sounds " ns " = GO writes " ng " = notes " notes)
            bound(underruns == 0, "underruns = 0")
            bound(stalled <= stalled_limit, "notes set aside for a VM stall <= " stalled_limit)
            bound(tick > 0 && pairs > 0 && p1 >= -(tick + margin), "early <= " tick + margin " ms (a tick and " margin ")")
            bound(pairs > 0 && p99 <= margin, "late <= " margin " ms")
            bound(pairs > 0 && p99 - p1 <= spread_limit, "spread (p99 - p1) <= " spread_limit " ms")
            verdict()
        }'
}

# Force feedback as ff-memless plays it: the same client session played by Linux's drv260x (through
# ff-memless) and by hapticd, both drive timelines (the fixture's "NS PERMILLE" lines) compared at
# absolute scale, on ff-memless's terms. drv260x writes one byte of ff-memless's 16-bit magnitude
# (whose two bytes ff-mix keeps equal) to RTP_INPUT, which the chip reads signed (full scale 127): it
# drives byte/127, twice the magnitude's share byte/255 of full scale. That byte, taken back from the
# fixture's permille, gives the magnitude ff-memless computed; hapticd's drive is its share of full
# scale. Both sampled every millisecond for 1.2 s from each session's start.
#
#   gate_ff_memless KERNEL_TIMELINE OURS_TIMELINE KERNEL_START_NS OURS_START_NS
gate_ff_memless() {
    awk -v kernel_file="$1" -v start_k="$3" -v start_o="$4" "$GATE_AWK"'
        { f = FILENAME == kernel_file ? 1 : 2; t[f, ++n[f]] = $1; v[f, n[f]] = $2 }
        function level(f, at,   i, value) {
            value = 0
            for (i = 1; i <= n[f]; i++) { if (t[f, i] <= at) value = v[f, i]; else break }
            value = magnitude(value)
            return f == 1 ? int(value * 127 / 1000 + 0.5) * 1000 / 255 : value
        }
        function median(list, count) { sorted(list, count); return count ? list[int((count + 1) / 2)] : 0 }
        END {
            for (f = 1; f <= 2; f++) {
                start = f == 1 ? start_k : start_o; peak[f] = 0; onset[f] = -1; end[f] = -1
                for (k = 0; k < 1200; k++) {
                    s[f, k] = level(f, start + k * 1000000)
                    if (s[f, k] > peak[f]) peak[f] = s[f, k]
                    if (onset[f] < 0 && s[f, k] > 0) onset[f] = k
                    if (k > 0 && s[f, k] == 0 && s[f, k - 1] > 0) end[f] = k
                }
                final[f] = n[f] ? v[f, n[f]] : -1
                one = 0; both = 0; split("", a); split("", b)
                for (k = 50; k <= 180; k++) a[++one] = s[f, k]
                for (k = 300; k <= 550; k++) b[++both] = s[f, k]
                ratio[f] = median(a, one) > 0 ? median(b, both) / median(a, one) : 0
            }
            # A dropout: hapticd silent between its own onset and end while drv260x drove.
            total = 0; dropout = 0
            for (k = 0; k < 1200; k++) { total += magnitude(s[1, k] - s[2, k]); if (k >= onset[2] && k < end[2] && s[1, k] > 0 && s[2, k] == 0) dropout++ }
            similarity = peak[1] > 0 ? 1 - total / 1200 / peak[1] : 0
            peaks = peak[1] > 0 ? peak[2] / peak[1] : 0
            printf "onset drv260x %d ms, hapticd %d ms; end %d ms and %d ms; peak magnitude %.0f and %.0f permille of full scale (ratio %.3f; drv260x drove %d permille: its byte/127); both effects over the rumble alone %.2f and %.2f; similarity %.3f\n", onset[1], onset[2], end[1], end[2], peak[1], peak[2], peaks, int(peak[1] * 255 / 1000 + 0.5) * 1000 / 127, ratio[1], ratio[2], similarity
            printf "hapticd silent within its effects while drv260x drove: %d ms\n", dropout
            bound(onset[1] >= 0 && onset[2] >= 0 && magnitude(onset[2] - onset[1]) <= 10, "onset within 10 ms of drv260x")
            bound(end[1] >= 0 && end[2] >= 0 && magnitude(end[2] - end[1]) <= 20, "end within 20 ms")
            bound(peaks >= 0.95 && peaks <= 1.05, "peak ratio 0.95...1.05")
            bound(ratio[2] >= 1.6 && ratio[2] <= 2.4, "both effects add (1.6...2.4)")
            bound(final[1] == 0 && final[2] == 0, "standby after the effects")
            bound(similarity >= 0.90, "similarity >= 0.90")
            bound(dropout <= 5, "dropout (silent while drv260x drove) <= 5 ms")
            verdict()
        }' "$1" "$2"
}

# A kernel vibrator: one pattern played by hapticd through a kernel driver's force-feedback device
# (drv260x's evdev node) and by hapticd on the chip over I2C, each run's drive timeline (a "start NS"
# line: the request's arrival at hapticd, from its --verbose log, on the monotonic clock the
# fixture's timeline is on; then the fixture's "NS PERMILLE" lines). Onset: the request's arrival to
# the first drive, the median of the runs of each path. The run of median onset of each is sampled
# every millisecond from its own onset for 700 ms and compared at absolute scale (the fixture's
# permille of RTP full scale, or of the DA7280's NOMMAX, on both paths), the I2C run scaled by
# RATIO: the share of the I2C path's drive the kernel path is expected to reach (1 for drv260x; for
# da7280 what hapticd's limit leaves, said where it is called). On every evdev run: never above
# 1000 permille (the rated drive), never negative (a da7280 reversed by an override past 127).
#
#   gate_evdev COUNT RATIO EVDEV_RUNS... I2C_RUNS...     (the first COUNT files are the evdev runs)
gate_evdev() {
    count=$1 expected=$2
    shift 2
    awk -v count="$count" -v expected="$expected" "$GATE_AWK"'
        FNR == 1 { file++; side[file] = file <= count ? 1 : 2; n[file] = 0 }
        $1 == "start" { start[file] = $2 + 0; next }
        { t[file, ++n[file]] = $1 + 0; v[file, n[file]] = $2 + 0 }
        function level(f, at,   i, value) {
            value = 0
            for (i = 1; i <= n[f]; i++) { if (t[f, i] <= at) value = v[f, i]; else break }
            return value
        }
        function median_run(which,   f, count, list, middle) {
            count = 0
            for (f = 1; f <= file; f++) if (side[f] == which && onset[f] >= 0) list[++count] = onset[f]
            if (!count) return 0
            sorted(list, count)
            middle = list[int((count + 1) / 2)]
            for (f = 1; f <= file; f++) if (side[f] == which && onset[f] == middle) return f
        }
        END {
            highest = 0; lowest = 0
            for (f = 1; f <= file; f++) {
                if (side[f] == 1) for (i = 1; i <= n[f]; i++) { if (v[f, i] > highest) highest = v[f, i]; if (v[f, i] < lowest) lowest = v[f, i] }
                onset[f] = -1
                for (i = 1; i <= n[f]; i++) if (v[f, i] != 0) { onset[f] = (t[f, i] - start[f]) / 1e6; first[f] = t[f, i]; break }
                final[f] = n[f] ? v[f, n[f]] : -1
            }
            e = median_run(1); c = median_run(2)
            if (!e || !c) {
                printf "no drive: evdev %s, I2C %s\n", e ? "driven" : "not driven", c ? "driven" : "not driven"
                bound(e && c, "both paths drove the chip")
                verdict()
            }
            peak_e = 0; peak_c = 0; total = 0
            for (k = 0; k < 700; k++) {
                a = level(e, first[e] + k * 1000000); b = level(c, first[c] + k * 1000000)
                if (magnitude(a) > peak_e) peak_e = magnitude(a)
                if (magnitude(b) > peak_c) peak_c = magnitude(b)
                total += magnitude(a - b * expected)
            }
            similarity = peak_c > 0 ? 1 - total / 700 / (peak_c * expected) : 0
            ratio = peak_c > 0 ? peak_e / peak_c : 0
            left = 0
            for (f = 1; f <= file; f++) if (final[f] != 0) left++
            printf "onset (request at hapticd to first drive, median of %d and %d runs) evdev %.1f ms, I2C %.1f ms; peak %d and %d permille (ratio %.3f, expected %.3f); similarity %.3f; evdev drive %d...%d permille; runs left driving %d\n", runs(1), runs(2), onset[e], onset[c], peak_e, peak_c, ratio, expected, similarity, lowest, highest, left
            bound(magnitude(onset[e] - onset[c]) <= 10, "onset within 10 ms of I2C")
            bound(magnitude(ratio - expected) <= 0.05, sprintf("peak ratio %.3f +- 0.05", expected))
            bound(similarity >= 0.90, "similarity >= 0.90")
            bound(highest <= 1000 && lowest >= 0, "evdev drive 0...1000 permille (never above rated, never reversed)")
            bound(left == 0, "not driving after any run")
            verdict()
        }
        function runs(which,   f, count) { count = 0; for (f = 1; f <= file; f++) if (side[f] == which) count++; return count }
    ' "$@"
}

# A switched vibrator (Linux's gpio-vibrator: ff-memless turning one GPIO line on and off): the
# pattern of gate_evdev played through its force-feedback device by hapticd, against the same
# pattern's I2C runs (any nonzero drive counts as on). Each run's burst is its first on to its last
# off: the medians of the onsets (from the request's arrival at hapticd) within 10 ms, and of the
# burst lengths within 20 ms of I2C's; within each burst the line off for at most 5 ms in all (a
# new level must not switch the motor off: 0.5 and 1.0 both mean on); off after every run.
#
#   gate_on_off COUNT EVDEV_RUNS... I2C_RUNS...     (the first COUNT files are the evdev runs)
gate_on_off() {
    count=$1
    shift
    awk -v count="$count" "$GATE_AWK"'
        FNR == 1 { file++; side[file] = file <= count ? 1 : 2; n[file] = 0 }
        $1 == "start" { start[file] = $2 + 0; next }
        { t[file, ++n[file]] = $1 + 0; v[file, n[file]] = $2 + 0 }
        function median(which, kind,   f, k, list) {
            k = 0
            for (f = 1; f <= file; f++) if (side[f] == which && first[f] >= 0) list[++k] = kind == "onset" ? (first[f] - start[f]) / 1e6 : (last[f] - first[f]) / 1e6
            if (!k) return -1
            sorted(list, k)
            return list[int((k + 1) / 2)]
        }
        END {
            worst_gap = 0; left = 0; bursts = 0
            for (f = 1; f <= file; f++) {
                first[f] = -1; last[f] = -1; gap = 0; off_since = -1
                for (i = 1; i <= n[f]; i++) {
                    on = v[f, i] != 0
                    if (on && first[f] < 0) first[f] = t[f, i]
                    if (on && off_since >= 0) { gap += t[f, i] - off_since; off_since = -1 }
                    if (!on && first[f] >= 0 && off_since < 0) { off_since = t[f, i]; last[f] = t[f, i] }
                }
                if (n[f] && v[f, n[f]] != 0) left++
                if (first[f] >= 0) bursts++
                if (side[f] == 1 && gap / 1e6 > worst_gap) worst_gap = gap / 1e6
            }
            onset_e = median(1, "onset"); onset_c = median(2, "onset"); length_e = median(1, "length"); length_c = median(2, "length")
            printf "%d of %d runs switched on; onset (request at hapticd to on, median) gpio %.1f ms, I2C %.1f ms; burst %.1f ms and %.1f ms; off within a burst at most %.2f ms; runs left on %d\n", bursts, file, onset_e, onset_c, length_e, length_c, worst_gap, left
            bound(bursts == file, "every run switched on")
            bound(onset_e >= 0 && onset_c >= 0 && magnitude(onset_e - onset_c) <= 10, "onset within 10 ms of I2C")
            bound(length_e >= 0 && magnitude(length_e - length_c) <= 20, "burst within 20 ms of I2C")
            bound(worst_gap <= 5, "off within a burst <= 5 ms")
            bound(left == 0, "off after every run")
            verdict()
        }
    ' "$@"
}

# The figures of a step recorded as "KEY VALUE" lines (record_value; a value may hold spaces), read
# into v[KEY] by each gate below.
VALUES_AWK='{ key = $1; sub(/^[^ ]* ?/, ""); v[key] = $0 }'

# Our hardware-in-loop suite in the VM: every test the build holds ran (the count the image was
# built with) and none was skipped (a skipped test would say the VM lacks what it needs).
#
#   gate_suite VALUES       (ran, expected, skipped)
gate_suite() {
    awk "$GATE_AWK$VALUES_AWK"'
        END {
            printf "%s tests ran of the %s built, %s skipped\n", v["ran"], v["expected"], v["skipped"]
            bound(v["expected"] + 0 > 0 && v["ran"] + 0 == v["expected"] + 0, "tests ran = tests built")
            bound(v["skipped"] == "0", "none skipped")
            verdict()
        }' "$1"
}

# The `haptic` verbs on the fixture (each one's exit is its own check): a play ends in standby,
# a calibration is restored by the next start, an absent address and a bus that does not exist
# exit 69 (EX_UNAVAILABLE), the first naming the no-acknowledge.
#
#   gate_verbs VALUES       (standby-after-play, calibration-restored, absent-exit, absent-named,
#                            wrong-bus-exit)
gate_verbs() {
    awk "$GATE_AWK$VALUES_AWK"'
        END {
            printf "standby after play: %s; calibration restored: %s; an absent address exited %s (no-acknowledge named: %s); a wrong bus exited %s\n", v["standby-after-play"], v["calibration-restored"], v["absent-exit"], v["absent-named"], v["wrong-bus-exit"]
            bound(v["standby-after-play"] + 0 >= 1, "standby after play")
            bound(v["calibration-restored"] + 0 >= 1, "calibration restored")
            bound(v["absent-exit"] == "69", "an absent address exits 69")
            bound(v["absent-named"] + 0 >= 1, "its message names the no-acknowledge")
            bound(v["wrong-bus-exit"] == "69", "a wrong bus exits 69")
            verdict()
        }' "$1"
}

# The DA7280 model check: every transaction script shipped (at least 14: registers, faults, the
# memory's playback with ramps, gain and signed data) agreed between the fixture and the simulated
# chip, with no difference and no broken expectation (AGREED: the scripts the check's summary line
# counts when it says so, else 0).
#
#   gate_da7280_model VALUES    (agreed, shipped)
gate_da7280_model() {
    awk "$GATE_AWK$VALUES_AWK"'
        END {
            printf "%s of the %s DA7280 scripts shipped agreed (0 differences, 0 broken expectations)\n", v["agreed"], v["shipped"]
            bound(v["shipped"] + 0 >= 14, "at least 14 scripts shipped")
            bound(v["agreed"] + 0 == v["shipped"] + 0, "every script agreed")
            verdict()
        }' "$1"
}

# Our driver on the DA7280 fixture with its supply below the under-voltage lock-out: at start-up
# (VDD 2.6 V: `haptic play` refuses in at most 2 lines naming the under-voltage, nothing driven),
# and sagging while a long feedback streams (the engine finds the chip held idle, stops it, and
# haptic play exits non-zero naming the cause, TOP_CTL1 in IDLE and no drive); the next start-up
# clears E_UVLO (IRQ_EVENT1 00).
#
#   gate_da7280_supply VALUES   (uvlo-exit, uvlo-named, uvlo-lines, uvlo-peak, sag-exit, sag-named,
#                                sag-drive, sag-mode, irq-after)
gate_da7280_supply() {
    awk "$GATE_AWK$VALUES_AWK"'
        END {
            printf "VDD 2.6 V at start-up: exit %s, under-voltage named %s time(s) in %s line(s), peak %s; a sag while streaming: exit %s, named %s time(s), drive %s, TOP_CTL1 mode %s; IRQ_EVENT1 after the next start-up %s\n", v["uvlo-exit"], v["uvlo-named"], v["uvlo-lines"], v["uvlo-peak"], v["sag-exit"], v["sag-named"], v["sag-drive"], v["sag-mode"], v["irq-after"]
            bound(v["uvlo-exit"] != "" && v["uvlo-exit"] != "0", "start-up below the lock-out refused (exit non-zero)")
            bound(v["uvlo-named"] + 0 >= 1 && v["uvlo-lines"] + 0 <= 2, "the under-voltage named in at most 2 lines")
            bound(v["uvlo-peak"] == "0", "nothing driven below the lock-out")
            bound(v["sag-exit"] != "" && v["sag-exit"] != "0", "a sag while streaming: exit non-zero")
            bound(v["sag-named"] + 0 >= 1, "the sag named as the under-voltage")
            bound(v["sag-drive"] == "0" && v["sag-mode"] == "0", "not driving after the sag, TOP_CTL1 in IDLE")
            bound(v["irq-after"] == "00", "E_UVLO cleared by the next start-up")
            verdict()
        }' "$1"
}

# Sharpness the actuator renders, through our DA7280 driver on the fixture (the board's LRA at
# 170 Hz): a 2.2 s continuous event swept from sharpness 0 to 1 drives the LRA at LRA_PER with
# frequency tracking off. The fixture notes each change of that period (0: tracking). The period
# is set at least 10 times; the frequency it stands for, 1 / (PERIOD x 1.33332 us), never falls
# while the sharpness rises, stays within 3.5 % of the resonance (the rated band) and spans at
# least 7 Hz of it; tracking comes back at the end (the last change 0, TOP_CFG1 with FREQ_TRACK_EN
# and LRA_PER at the resonance after); the drive never passes the rating (the fixture peak, in
# thousandths of NOMMAX); the report names the band; an event at sharpness 0.5 sets no period.
#
#   gate_da7280_sharpness VALUES   (sweep-exit, periods, peak, said, after, steady-exit,
#                                   steady-changes)
gate_da7280_sharpness() {
    awk "$GATE_AWK$VALUES_AWK"'
        END {
            resonance = 170
            count = split(v["periods"], period, " ")
            set = 0; falls = 0; outside = 0; low = 0; high = 0
            for (i = 1; i <= count; i++) {
                if (period[i] + 0 == 0) continue
                hz = 1 / (period[i] * 1.33332e-6)
                if (set > 0 && hz < last - 0.01) falls++
                if (hz < resonance * 0.965 || hz > resonance * 1.035) outside++
                if (set == 0 || hz < low) low = hz
                if (set == 0 || hz > high) high = hz
                last = hz; set++
            }
            split(v["after"], after, " ")
            top = after[1]; afterPeriod = after[2] * 128 + after[3]
            tracking = index("89abcdef", substr(top, 2, 1)) > 0
            restPeriod = int(1 / (resonance * 1.33332e-6) + 0.5)
            printf "sweep (exit %s): the period set %d times, %.1f-%.1f Hz, falling %d times, %d outside the band, last change %s; drive peak %s permille; the band named %s time(s); after: TOP_CFG1 %s, LRA_PER %d (resonance %d); sharpness 0.5 (exit %s): %s change(s)\n", v["sweep-exit"], set, low, high, falls, outside, period[count], v["peak"], v["said"], top, afterPeriod, restPeriod, v["steady-exit"], v["steady-changes"]
            bound(v["sweep-exit"] == "0", "the sweep played (exit 0)")
            bound(set >= 10, "the period set at least 10 times")
            bound(set > 0 && falls == 0, "the frequency never falls while the sharpness rises")
            bound(set > 0 && outside == 0, "within 3.5 % of the 170 Hz resonance")
            bound(high - low >= 7, "spanning at least 7 Hz")
            bound(count > 0 && period[count] == "0", "tracking back at the end (the last change 0)")
            bound(tracking && afterPeriod == restPeriod, "after: FREQ_TRACK_EN set, LRA_PER at the resonance")
            bound(v["peak"] != "" && v["peak"] + 0 <= 1000, "never past the rated drive (peak <= 1000 permille)")
            bound(v["said"] + 0 >= 1, "the report names the band")
            bound(v["steady-exit"] == "0" && v["steady-changes"] == "0", "at sharpness 0.5 no period set")
            verdict()
        }' "$1"
}

# Linux's drv260x on the DRV2605L fixture: its probe calibrates (GO polled until the chip clears
# it), and an FF_RUMBLE of 0xc0c0 from ff-rumble reaches RTP_INPUT as 0xc0 (192: drv260x sends one
# byte of the magnitude, the low one in 6.1 and the high one in 6.12, so both bytes are 0xc0).
# Figures only: the RTP write count (ff-memless's timer and this emulator's speed set it), the
# 0x8000 rumble's byte and the RATED_VOLTAGE kept or not (they tell which drv260x this is).
#
#   gate_drv260x VALUES     (diag-result, period, peak, errors; writes, truncated, rated, clamp)
gate_drv260x() {
    awk "$GATE_AWK$VALUES_AWK"'
        END {
            printf "DIAG_RESULT %s after its calibration, LRA_PERIOD 0x%s, FF_RUMBLE 0xc0c0 reached RTP as %s in %s writes (0x8000: %s), RATED_VOLTAGE 0x%s, OD_CLAMP 0x%s; %s driver error line(s) in the kernel log (not gated: the write count, set by ff-memless and this emulator, and the 0x8000 byte and the ratings kept, which tell which drv260x this is)\n", v["diag-result"], v["period"], v["peak"], v["writes"], v["truncated"], v["rated"], v["clamp"], v["errors"]
            bound(v["diag-result"] == "0", "calibration passed (DIAG_RESULT clear)")
            bound(v["period"] == "3a", "LRA_PERIOD 3a (175 Hz)")
            bound(v["peak"] == "192", "FF_RUMBLE 0xc0c0 reached RTP as 192")
            bound(v["errors"] == "0", "no driver error in the kernel log")
            verdict()
        }' "$1"
}

# The fixture as a DRV2604L (no ROM library): `haptic probe` names it, and four feedbacks, a
# sequence with an effect by number and an AHAP pattern each play as a real-time stream and end
# not driving (each one's own read-back), putting RTP writes on the bus. Figures only: the RTP
# write count (the streams' tick and this emulator's speed) and the level RTP was left at.
#
#   gate_drv2604l VALUES    (part, played, of, streamed; rtp-left)
gate_drv2604l() {
    awk "$GATE_AWK$VALUES_AWK"'
        END {
            printf "probe: %s; %s of %s played as real-time streams and ended not driving; %s RTP writes, RTP left at %s (not gated: the count is set by the streams tick and this emulator, the level left is the fixture last value; the read-back of each play gates its end)\n", v["part"], v["played"], v["of"], v["streamed"], v["rtp-left"]
            bound(v["part"] == "DRV2604L", "probe says DRV2604L")
            bound(v["of"] + 0 == 6 && v["played"] + 0 == v["of"] + 0, "each of the 6 played as a stream and ended not driving")
            bound(v["streamed"] + 0 > 0, "RTP writes > 0")
            verdict()
        }' "$1"
}

# Linux's da7280 on the DA7280 fixture, from SparkFun's LRA's device properties: its probe's
# registers (NOMMAX and ABSMAX as uV/23400 + 1, IMAX, V2I from 13.8 ohm, LRA_PER for 170 Hz) with
# acceleration off; an FF_CONSTANT of 0x2000 drives 63/127 of ABSMAX, 528 thousandths of NOMMAX,
# and nothing after the client closes; an FF_PERIODIC/FF_CUSTOM upload writes the waveform memory
# (one snippet, AMP 7 for eight 5.44 ms timebases) and its play runs sequence 0 once from it:
# 1065 thousandths of NOMMAX (+7/7 of ABSMAX) for 43.52 ms; SEQ_START clear and no drive after the
# stop. Figures only: the drive-change count (how often ff-core updates on this emulator).
#
#   gate_linux_da7280 VALUES   (probe, acceleration, peak, after, memory, sequences, timeline,
#                               sequence-after, errors; writes)
gate_linux_da7280() {
    awk "$GATE_AWK$VALUES_AWK"'
        END {
            printf "probe wrote ACTUATOR1-3, CALIB_V2I, FRQ_LRA_PER %s, ACCELERATION_EN %s; FF_CONSTANT 0x2000 peak %s permille of NOMMAX in %s drive changes; after the client closed: %s; the upload left the memory at %s, %s sequence(s) played from it, driving %s (microseconds:permille); after the stop: %s; %s driver error line(s) in the kernel log (the drive-change count not gated: how often ff-core updates on this emulator)\n", v["probe"], v["acceleration"], v["peak"], v["writes"], v["after"], v["memory"], v["sequences"], v["timeline"], v["sequence-after"], v["errors"]
            bound(v["probe"] == "5b 61 14 00cd 22 3c", "probe wrote ACTUATOR1-3 5b 61 14, CALIB_V2I 00cd, FRQ_LRA_PER 22 3c")
            bound(v["acceleration"] == "0", "acceleration off")
            bound(v["peak"] == "528", "FF_CONSTANT 0x2000 peak 528 permille")
            bound(v["after"] == "drive 0, TOP_CTL1 00, TOP_CTL2 00", "not driving after the client closed")
            bound(v["memory"] == "01 01 04 05 77 01 00", "the upload wrote the memory 01 01 04 05 77 01 00")
            bound(v["sequences"] == "1", "1 sequence played from memory")
            bound(index(v["timeline"], "0:1065 43520:0") == 1, "it drove 0:1065 43520:0")
            bound(v["sequence-after"] == "0 0", "SEQ_START clear and no drive after the stop")
            bound(v["errors"] == "0", "no driver error in the kernel log")
            verdict()
        }' "$1"
}

# A switched vibrator's tick: hapticd --device on Linux's gpio-vibrator, a client's `selection`
# (a click shorter than the minimum on-time), the line dated by the fixture. The first pulse must
# last the minimum on-time (MINIMUM_MS: KernelVibratorRules.switchedMinimumOnTime), held by the
# replay length hapticd gives the effect, less SWITCHED_TICK_JIFFY_MS and a millisecond: ff-memless
# counts the replay from the jiffy the upload fell in (up to one 4 ms jiffy before it, at Debian's
# HZ 250), so the line can go off that much early (three VM runs: 34.5, 32.9 and 29.5 ms); at most
# the minimum plus SWITCHED_TICK_SLACK_MS (the jiffy after the replay's end, and gpio-vibra
# switching the line from a work item); one pulse, then the line off.
#
# The VM's own stalls (STALLS: stall-watch's lines, as for HIL-AV-SYNC) shorten the pulse when one
# falls between the replay's start and gpio-vibra's work item raising the line (the replay's end
# is a timer on the jiffies, which a stall does not move; a run measured 25.6 ms): the time a CPU
# stalled in the SWITCHED_TICK_STALL_WINDOW_MS before the line rose (the most on one CPU, at most
# the window) is taken off the lower bound, and printed. A stall after the line rose only
# lengthens the pulse, and counts for nothing.
#
#   gate_switched_tick MINIMUM_MS TIMELINE [STALLS]
SWITCHED_TICK_JIFFY_MS=4
SWITCHED_TICK_SLACK_MS=15
SWITCHED_TICK_STALL_WINDOW_MS=10
gate_switched_tick() {
    { cat "$2"; [ -z "${3:-}" ] || sed -n 's/^stall /V /p' "$3"; } | awk -v minimum="$1" -v jiffy="$SWITCHED_TICK_JIFFY_MS" -v slack="$SWITCHED_TICK_SLACK_MS" \
        -v window="$SWITCHED_TICK_STALL_WINDOW_MS" "$GATE_AWK"'
        $1 == "start" { next }
        $1 == "V" { cpu[++nv] = $2; from[nv] = $3; to[nv] = $4; next }
        {
            on = $2 + 0 != 0
            if (on && !was) { pulses++; if (!first) first = $1 + 0 }
            if (!on && was && !last) last = $1 + 0
            was = on
        }
        END {
            length_ms = first && last ? (last - first) / 1e6 : 0
            # The most one CPU stalled in the window before the line rose.
            credit = 0
            if (first) {
                opens = first - window * 1e6
                for (i = 1; i <= nv; i++) {
                    a = from[i] + 0 > opens ? from[i] + 0 : opens; b = to[i] + 0 < first ? to[i] + 0 : first
                    if (b > a) stalled[cpu[i]] += (b - a) / 1e6
                }
                for (c in stalled) if (stalled[c] > credit) credit = stalled[c]
            }
            low = minimum - jiffy - 1 - credit
            printf "%d pulse(s), the first on for %.1f ms (minimum on-time %d ms), the line %s at the end\n", pulses, length_ms, minimum, was ? "on" : "off"
            printf "VM stalls (stall-watch) in the %d ms before the line rose: %.2f ms on one CPU at most (%d stalls in all; taken off the lower bound)\n", window, credit, nv
            bound(pulses == 1 && !was, "one pulse, then off")
            bound(length_ms >= low, "on >= " sprintf("%.1f", low) " ms (the minimum, less a jiffy, 1 and the VM stalls before it)")
            bound(length_ms <= minimum + slack, "on <= " minimum + slack " ms")
            verdict()
        }
    '
}

# Force feedback through hapticd's uinput device: how long the fixture saw the chip driven
# (nonzero real-time drive) while a client's rumble played SECONDS, that it stopped, and its peak:
# what the client asked for, REQUESTED permille of full scale, within 10 (an RTP step is 4), never
# reversed. (fftest's effect #5, its weak rumble, 0xC000 of 0xFFFF at its master gain of 75 %, asks
# for 562.)
#
#   gate_force_feedback TIMELINE SECONDS REQUESTED
gate_force_feedback() {
    awk -v seconds="$2" -v requested="$3" "$GATE_AWK"'
        { t[++n] = $1; v[n] = $2 }
        END {
            driven = 0; first = -1; last = -1; peak = 0; lowest = 0
            for (i = 1; i <= n; i++) {
                if (v[i] < lowest) lowest = v[i]
                if (v[i] != 0 && first < 0) first = t[i]
                if (v[i] != 0 && i < n) driven += t[i + 1] - t[i]
                if (v[i] == 0 && i > 1 && v[i - 1] != 0) last = t[i]
                if (magnitude(v[i]) > peak) peak = magnitude(v[i])
            }
            span = first >= 0 && last >= 0 ? (last - first) / 1e9 : 0
            printf "the fixture saw the chip driven %.2f s of the %.1f s rumble (%d changes, peak %d permille, lowest %d), from its first drive to its stop %.2f s; last level %d\n", driven / 1e9, seconds, n, peak, lowest, span, n ? v[n] : 0
            bound(driven / 1e9 >= 0.9 * seconds, "driven >= 90 % of " seconds " s")
            bound(magnitude(peak - requested) <= 10 && lowest >= 0, "peak " requested " +- 10 permille, never reversed")
            bound(span <= seconds + 0.5, "stopped within 0.5 s of the rumble")
            bound(n > 0 && v[n] == 0, "not driving after")
            verdict()
        }' "$1"
}

# The force-feedback session's own outcome: fftest uploaded its weak rumble (effect #5; the count
# of the others is a figure: fftest tries its whole list and this device takes rumble and
# periodic ones), hapticd logged it playing, and its status said standby after fftest stopped.
#
#   gate_force_feedback_session VALUES   (uploaded, rumble-uploaded, played-logged, standby-after)
gate_force_feedback_session() {
    awk "$GATE_AWK$VALUES_AWK"'
        END {
            printf "fftest uploaded %s effects (its rumble #5: %s); hapticd logged playing %s time(s); standby after: %s (the count of effects not gated: fftest tries its whole list)\n", v["uploaded"], v["rumble-uploaded"], v["played-logged"], v["standby-after"]
            bound(v["rumble-uploaded"] + 0 >= 1, "fftest uploaded its rumble")
            bound(v["played-logged"] + 0 >= 1, "hapticd logged it playing")
            bound(v["standby-after"] + 0 >= 1, "hapticd in standby after")
            verdict()
        }' "$1"
}

# Our driver's demo on the DA7280 fixture. PEAK: the fixture's largest drive in thousandths of the
# NOMMAX register (NOMMAX, read back from the chip); RATED: the board file's ratedVrms. The peak in
# volts (23.4 mV a NOMMAX step [DS T30]) must not pass the rating, and must reach it within one NOMMAX
# step (the rating rounded down) and one OVERRIDE_VAL step (1/127): the demo's strongest feedbacks
# ask for all of it.
#
#   gate_da7280_demo PLAYED EXPECTED FROM_MEMORY MIN_FROM_MEMORY CHANGES PEAK NOMMAX RATED LEFT_DRIVING
gate_da7280_demo() {
    awk -v played="$1" -v expected="$2" -v memory="$3" -v minimum="$4" -v changes="$5" -v peak="$6" \
        -v nommax="$7" -v rated="$8" -v left="$9" "$GATE_AWK"'
        BEGIN {
            volts = peak / 1000 * nommax * 0.0234
            low = rated - 0.0234 - rated / 127
            printf "%d feedbacks played, %d of them from the waveform memory, %d drive changes, peak %d permille of NOMMAX %d (%.3f V): %.3f V, rated %.3f V; %d left driving\n", played, memory, changes, peak, nommax, nommax * 0.0234, volts, rated, left
            bound(played == expected, "played " played " = " expected)
            bound(memory >= minimum, "from memory >= " minimum)
            bound(changes > 0, "drive changes > 0")
            bound(volts <= rated + 1e-6, "peak <= rated " rated " V")
            bound(volts >= low, sprintf("peak >= %.3f V (rated, less a NOMMAX and an OVERRIDE_VAL step)", low))
            bound(left == 0, "not driving after")
            verdict()
        }'
}

# A ROM effect longer than its estimate: the fixture's GO timeline ("NS set|chip|stopped"), and how
# long `haptic effect` said it played. The end must be the chip's (GO cleared at the effect's end,
# not by a write) and no later than MODELLED_MS + 100 ms, and the driver must have waited for it
# (not stopped at an old give-up point, nor waited out its deadline).
#
#   gate_long_effect GO_TIMELINE PLAYED_SECONDS MODELLED_MS STANDBY   (STANDBY: how many read-backs in haptic's JSON say standby)
gate_long_effect() {
    awk -v played="$2" -v modelled="$3" -v standby="$4" "$GATE_AWK"'
        $2 == "set" { sets++; set = $1 }
        $2 == "chip" || $2 == "stopped" { cleared = $2; end = $1 }
        END {
            length_ms = set && end ? (end - set) / 1e6 : 0
            printf "GO set %d time(s), cleared by %s after %.0f ms (modelled %d ms); haptic effect played %.0f ms\n", sets, cleared == "" ? "nothing" : cleared == "chip" ? "the chip" : "a write", length_ms, modelled, played * 1000
            bound(sets == 1 && cleared == "chip", "GO cleared by the chip")
            bound(length_ms >= modelled - 10 && length_ms <= modelled + 100, "GO " modelled - 10 "..." modelled + 100 " ms")
            bound(played * 1000 >= length_ms - 20, "played to GO clearing (>= GO - 20 ms)")
            bound(played * 1000 <= modelled + 100, "played <= " modelled + 100 " ms")
            bound(standby + 0 >= 1, "back in standby after it")
            verdict()
        }' "$1"
}

# hapticd killed mid-pattern: the chip left driving, then `haptic stop`, then a daemon started on a
# chip left driving again. MODE 05 is real time; 40 is standby.
#
#   gate_daemon_killed LEFT_MODE LEFT_RTP STOPPED_MODE STOPPED_RTP AGAIN_MODE AGAIN_RTP RESTARTED_MODE RESTARTED_RTP
gate_daemon_killed() {
    awk -v lm="$1" -v lr="$2" -v sm="$3" -v sr="$4" -v am="$5" -v ar="$6" -v rm="$7" -v rr="$8" "$GATE_AWK"'
        BEGIN {
            printf "killed: MODE %s RTP %s; after haptic stop: MODE %s RTP %s; killed again: MODE %s RTP %s; after a restart: MODE %s RTP %s\n", lm, lr, sm, sr, am, ar, rm, rr
            bound(lm == "05" && lr != "00", "driving when killed")
            bound(sm == "40" && sr == "00", "standby after haptic stop")
            bound(am == "05" && ar != "00", "driving when killed again")
            bound(rm == "40" && rr == "00", "standby after a restart")
            verdict()
        }'
}

# The package installed and run as users run it (Scripts/kernel-test --deploy: Debian booted with
# systemd as PID 1, `apt install ./swift-haptics_*.deb`). VALUES: "KEY VALUE" lines the VM wrote
# (Tests/KernelFixtures/deploy/deploy-test.sh says how each is measured). The standby after SIGKILL is
# bound by 1 s, whatever the machine: the dead-man guard stops the chip, not ExecStopPost's `haptic
# stop` (whose own time is printed beside it), and a unit that left the chip to the restart
# (RestartSec=2 s) misses it. The unit's sandbox: `systemd-analyze security` at most 2.0.
#
#   gate_deploy VALUES
gate_deploy() {
    awk "$GATE_AWK"'
        { v[$1] = $2 }
        END {
            printf "installed in %.1f s (Swift libraries on the root: %d); first start READY in %d ms, calibrations %d, saved by %s; /dev/uinput %s; restart %d ms, calibrations %d; ", v["install-ms"] / 1000, v["swift-libraries"], v["first-ready-ms"], v["calibrations-after-install"], v["calibration-owner"], v["uinput-access"], v["restart-ms"], v["calibrations-after-restart"]
            printf "group member played (exit %d, %d GO), other user refused %d; haptic stop alone %d ms; SIGKILL: driving %d, standby after %d ms, restarted %d in %d ms; ", v["user-play-status"], v["user-play-gos"], v["stranger-refused"], v["haptic-stop-ms"], v["driving-when-killed"], v["standby-after-kill-ms"], v["restarted-after-kill"], v["restart-after-kill-ms"]
            printf "SIGSTOP: driving %d, watchdog %d, standby after %d ms, restarted %d after %d ms; late bus: %s, waiting said %d, serving %d ms after it appeared, played %d; session: activated in %d ms, %s, %d GO; ", v["driving-when-stopped"], v["watchdog-logged"], v["watchdog-standby-ms"], v["restarted-after-watchdog"], v["watchdog-restart-ms"], v["waiting-state"], v["waiting-status"], v["serving-after-bus-ms"], v["late-play-status"], v["activation-ms"], v["session-active"], v["session-gos"]
            printf "socket activation: socket %s, service %s before the client, active %d ms after it, played (exit %d, %d GO), socket passed %d, service %s after a stop with the socket listening; ", v["socket-unit"], v["service-before-client"], v["socket-activation-ms"], v["socket-play-status"], v["socket-play-gos"], v["socket-passed"], v["service-after-stop"]
            printf "apt remove: driving %d, standby %d, hapticd processes left %d, state kept %d; apt purge: state left %d; systemd-analyze security: %s\n", v["driving-before-remove"], v["standby-after-remove"], v["hapticd-left"], v["state-after-remove"], v["state-after-purge"], v["security-exposure"]
            bound(v["swift-libraries"] == 0, "no Swift library on the root")
            bound(v["install-status"] == 0 && v["active-after-install"] == "active", "installed and active")
            bound(v["first-ready-ms"] > 0 && v["first-ready-ms"] <= 10000, "READY <= 10000 ms")
            bound(v["calibrations-after-install"] == 1 && v["calibration-owner"] == "hapticd", "calibrated once, saved in /var/lib/haptics by hapticd")
            bound(v["uinput-access"] == "hapticd:root:600", "/dev/uinput for the user hapticd alone")
            bound(v["calibrations-after-restart"] == 1, "restored after restart (no new calibration)")
            bound(v["restart-ms"] > 0 && v["restart-ms"] <= 10000, "restart <= 10000 ms")
            bound(v["user-play-status"] == 0 && v["user-play-gos"] >= 1, "the hapticd group plays")
            bound(v["stranger-refused"] == 1, "others refused")
            bound(v["driving-when-killed"] == 1 && v["standby-after-kill-ms"] >= 0 && v["standby-after-kill-ms"] <= 1000, "standby <= 1000 ms after SIGKILL")
            bound(v["restarted-after-kill"] == 1, "restarted after SIGKILL")
            bound(v["driving-when-stopped"] == 1 && v["watchdog-logged"] >= 1 && v["watchdog-standby-ms"] > 0 && v["watchdog-standby-ms"] < v["watchdog-restart-ms"], "watchdog: standby before the restart")
            bound(v["watchdog-standby-ms"] > 0 && v["watchdog-standby-ms"] <= 2000, "a hung daemon'"'"'s chip in standby <= 2000 ms")
            bound(v["restarted-after-watchdog"] == 1, "restarted after the watchdog")
            bound(v["waiting-state"] == "activating" && v["waiting-status"] == 1, "a missing bus: waiting, said in the status")
            bound(v["serving-after-bus-ms"] >= 0 && v["serving-after-bus-ms"] <= 5000 && v["late-play-status"] == 0, "serving <= 5000 ms after the bus appeared")
            bound(v["socket-unit"] == "active" && v["service-before-client"] == "inactive" && v["socket-activation-ms"] >= 0 && v["socket-activation-ms"] <= 15000, "hapticd.socket: a stopped hapticd started by the first client <= 15000 ms")
            bound(v["socket-play-status"] == 0 && v["socket-play-gos"] >= 1 && v["socket-passed"] >= 1, "served on the socket systemd passed, and played")
            bound(v["service-after-stop"] == "inactive", "stopped while its socket listens: not started again by its own ExecStopPost")
            bound(v["session-client-status"] == 0 && v["session-active"] == "active" && v["session-gos"] >= 1, "libfeedback activates the session service and plays")
            bound(v["driving-before-remove"] == 1 && v["remove-status"] == 0 && v["standby-after-remove"] == 1 && v["hapticd-left"] == 0, "apt remove: stopped, standby")
            bound(v["state-after-remove"] == 1 && v["purge-status"] == 0 && v["state-after-purge"] == 0, "state kept by remove, gone after purge")
            bound(v["security-exposure"] != "" && v["security-exposure"] + 0 <= 2.0, "systemd-analyze security <= 2.0")
            verdict()
        }' "$1"
}

# Chips bound from a device tree overlay (arm64): what drv260x and da7280 wrote from the tree's
# ratings against what the tree says (drv260x: mV x 255 / 5600; da7280: uV / 23400 + 1), and the
# peak drive hapticd reached through each input device with a full-strength pattern, in thousandths
# of rated: full scale of the drv260x's closed loop, NOMMAX for the da7280. Without the tree's
# ratings hapticd would take the da7280's reset ratio (override 95 of 127) and pass NOMMAX. The floor
# (900) shows the pattern reached rated drive, so the ceiling is not met by driving nothing. The
# drv260x's peak is a figure, not a gate: Debian 13's drv260x bound from the tree drives nothing
# here (its RTP level is 0 when the chip leaves standby), while the same driver bound from a
# software node drives (HIL-EVDEV); its ratings need no reading by hapticd (its closed loop holds
# them), so its gate is what the driver wrote from the tree.
#
#   gate_device_tree DRV_RATED DRV_CLAMP DRV_RATED_TREE DRV_CLAMP_TREE DRV_PEAK NOMMAX ABSMAX NOMMAX_TREE ABSMAX_TREE DA_PEAK LEFT
gate_device_tree() {
    awk -v rated="$1" -v clamp="$2" -v rated_tree="$3" -v clamp_tree="$4" -v drv_peak="$5" -v nom="$6" -v abs="$7" \
        -v nom_tree="$8" -v abs_tree="$9" -v da_peak="${10}" -v left="${11}" "$GATE_AWK"'
        BEGIN {
            printf "drv260x: RATED_VOLTAGE %d (tree %d), OD_CLAMP %d (tree %d), peak %d permille of rated (not gated: see below); da7280: NOMMAX %d (tree %d), ABSMAX %d (tree %d), peak %d permille of NOMMAX; %d left driving\n", rated, rated_tree, clamp, clamp_tree, drv_peak, nom, nom_tree, abs, abs_tree, da_peak, left
            bound(rated == rated_tree && clamp == clamp_tree, "drv260x ratings = the tree'"'"'s")
            bound(nom == nom_tree && abs == abs_tree, "da7280 ratings = the tree'"'"'s")
            bound(da_peak >= 900 && da_peak <= 1000, "da7280 peak 900...1000 permille of NOMMAX")
            bound(left == 0, "not driving after")
            verdict()
        }'
}

# A program killed with SIGKILL while it streamed on a chip over I2C (HIL-DEADMAN): the fixture's
# drive timeline ("NS PERMILLE") and when the signal was sent (kill-timed, on the same clock).
# Nothing of the program runs after SIGKILL, so a stop is its dead-man guard's: the chip must have
# been driving at the kill, stopped within LIMIT_MS of it, and stayed stopped. NAME's dashes are
# read as spaces ("haptic-pattern": `haptic pattern`).
#
#   gate_dead_man NAME KILL_NS TIMELINE LIMIT_MS
gate_dead_man() {
    awk -v name="$1" -v kill="$2" -v limit="$4" "$GATE_AWK"'
        $1 ~ /^[0-9]+$/ { if ($1 + 0 <= kill + 0) before = $2; else if (stop == "" && $2 == 0) stop = $1; last = $2 }
        END {
            gsub(/-/, " ", name)
            after = stop != "" ? (stop - kill) / 1e6 : -1
            printf "%s killed with SIGKILL: chip stopped after %s (driving %d permille at the kill)\n", name, stop != "" ? sprintf("%.1f ms", after) : "never", before
            bound(before != 0, "driving at the kill")
            bound(stop != "" && after >= 0 && after <= limit, "stopped <= " limit " ms after the kill")
            bound(last == 0, "not driving at the end")
            verdict()
        }' "$3"
}
