// SPDX-License-Identifier: Apache-2.0

import ArgumentParser
import Audio
import DRV2605
import DRV2605Simulator
import Foundation
import HapticChip
import HapticEffects
import Haptics
import HapticsService
import HapticsSimulation
import HardwareAccess
import LinuxHardware

/// Options shared by the verbs that read pattern files.
struct PatternOptions: ParsableArguments {
    @Option(help: "Curve control-point times: automatic detects exporters that write absolute times; relative is Apple's rule.")
    var curveTimes: CurveTimesValue = .automatic
    @Option(help: "Real-time playback updates a second.")
    var rate: Double = 200
    @Option(help: "Rendering: realtime is one RTP stream, rom plays ROM clicks for transients.")
    var strategy: StrategyValue = .automatic

    func read(_ path: String) throws -> PatternDocument {
        try PatternFileReader.read(path: path, curveTimes: curveTimes.option)
    }

    func renderer() throws -> PatternRenderer {
        guard rate.isFinite, (50...5000).contains(rate) else { throw CLIError("--rate must be 50-5000 updates a second", exitCode: CLIError.usage) }
        return PatternRenderer(rate: rate, strategy: strategy.strategy)
    }
}

func playerOptions() -> PatternPlayer.Options {
    var options = PatternPlayer.Options()
    options.threadSetup = { LinuxRealtime.preparePacingThread() }
    return options
}

struct PatternCommand: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "pattern", abstract: "Play an AHAP (.ahap) or Meta Haptics Studio (.haptic) file.")
    @OptionGroup var global: GlobalOptions
    @OptionGroup var patternOptions: PatternOptions
    @Argument(help: "The pattern file.") var file: String
    @Flag(help: "Loop until interrupted.") var loop = false
    @Flag(help: "Play on every chip of the board file, in step.") var all = false
    @Flag(help: "Leave the pattern's audio events out (they play on the audio device otherwise).") var noAudio = false
    @Option(
        help: ArgumentHelp(
            "A dynamic parameter sent while the pattern plays, as Core Haptics' sendParameters: NAME=VALUE@SECONDS, NAME one of intensity (multiplies, 0...1), sharpness, attack, decay, release (add, -1...1); e.g. intensity=0.5@0.3, sharpness=+0.3@0.6. Repeatable.",
            valueName: "name=value@seconds"))
    var parameter: [DynamicParameterValue] = []
    @Option(
        help: ArgumentHelp(
            "Another pattern played at the same time, on a player of its own, mixed with this one as Core Haptics mixes its players (the levels summed, limited to full scale; a transient plays as its samples), from SECONDS after this one starts (0 when left out); its audio events are left out. Repeatable.",
            valueName: "file[@seconds]"))
    var mix: [MixedPatternValue] = []
    @OptionGroup var audio: AudioOptions
    @OptionGroup var service: ServiceOptions

    func run() throws {
        try CLIError.reporting {
            let document = try patternOptions.read(file)
            if !parameter.isEmpty || !mix.isEmpty, global.serviceSocket != nil || global.serialDevice != nil || all {
                throw CLIError(
                    "--parameter and --mix play the pattern on this machine's chip: not with --socket, --device serial: or --all", exitCode: CLIError.usage)
            }
            if !mix.isEmpty, loop { throw CLIError("--mix plays each pattern once: not with --loop", exitCode: CLIError.usage) }
            // Every file is read before anything plays: a bad one fails with nothing driven.
            let mixed = try mix.map { (value: $0, document: try patternOptions.read($0.file)) }
            if let socket = global.serviceSocket {
                var request = ServiceRequest(.play)
                request.pattern = try String(contentsOfFile: file, encoding: .utf8)
                service.apply(to: &request)
                // --loop: the pattern again as soon as hapticd answers that it ended, until
                // interrupted (hapticd stops a client's pattern when the client leaves) or dropped.
                repeat {
                    try ServiceCall.run(
                        global, socket: socket, label: (file as NSString).lastPathComponent, request: request,
                        timeout: .secondsClamped(document.pattern.duration + 10),
                        extra: ["file": file, "designedSeconds": document.pattern.duration])
                } while loop
                return
            }
            if let port = global.serialDevice {
                guard !all, !loop, patternOptions.rate == 200, patternOptions.strategy != .rom, audio.audioDevice == nil, audio.audioOutput == nil else {
                    throw CLIError(
                        "--device serial: plays a pattern once, rendered on the firmware at 200 updates a second: without --all, --loop, --rate, --strategy rom or an audio output",
                        exitCode: CLIError.usage)
                }
                try FirmwareCall.pattern(global, port: port, file: file, document: document)
                return
            }
            // The pattern's audio events: required when an audio output was named (a missing or
            // corrupt sound, or an absent device, then fails before anything plays); otherwise
            // played when they can be, and a warning says why not.
            let audioCount = document.pattern.events.filter { !$0.type.isHaptic }.count
            let audioRequired = audio.audioDevice != nil || audio.audioOutput != nil
            var audioWarnings: [String] = []
            var soundTrack: PatternSoundTrack?
            if !noAudio, audioCount > 0 {
                do {
                    soundTrack = try PatternSoundTrack(document: document.pattern, file: file)
                } catch {
                    if audioRequired { throw error }
                    audioWarnings.append("\(audioCount) audio event(s) not played: \(error)")
                }
            }
            var renderer = try patternOptions.renderer()
            renderer.playsAudio = soundTrack?.isEmpty == false || !audioWarnings.isEmpty
            let rendered = renderer.render(document.pattern)
            let session = try DeviceSession(global, verb: "pattern", allDrivers: all)
            session.announce()
            var sounds: SoundEngine?
            if let soundTrack, !soundTrack.isEmpty {
                if audioRequired {
                    sounds = try audio.open(for: session, what: "the pattern's audio events")
                } else {
                    do {
                        sounds = try audio.engine(for: session)
                    } catch {
                        audioWarnings.append("\(audioCount) audio event(s) not played: \(error) (--no-audio leaves them out)")
                    }
                }
            }
            let mixedRendered = mixed.map { renderer.render($0.document.pattern) }
            let warnings =
                document.warnings + PatternPlayer.warnings(for: rendered, on: session.engine, mixing: !mix.isEmpty) + audioWarnings
                + Self.mixWarnings(mixed, mixedRendered)
            if !global.json {
                print(
                    String(
                        format: "%@: %.3f s designed, %@; %@", (file as NSString).lastPathComponent, document.pattern.duration,
                        document.pattern.eventCounts.map { "\($0.value) \($0.key.rawValue)" }.sorted().joined(separator: ", "),
                        rendered.mode == .realTime ? "real-time stream at \(Int(rendered.rate)) updates/s" : "\(rendered.hits.count) ROM clicks"))
                for warning in warnings { print("warning: \(warning)") }
            }
            let start = session.clock.now
            let players: [PatternPlayer]
            // With --mix every player mixes (PatternPlayer.Options.mixes): the first included.
            var options = playerOptions()
            options.mixes = !mix.isEmpty
            if all {
                players = session.group.play(rendered, options: playerOptions(), soundTrack: soundTrack, sounds: sounds)
            } else {
                let single =
                    parameter.isEmpty
                    ? PatternPlayer(engine: session.engine, pattern: rendered, options: options, soundTrack: soundTrack, sounds: sounds)
                    : PatternPlayer(
                        engine: session.engine, designed: document.pattern, renderer: renderer, options: options, soundTrack: soundTrack,
                        sounds: sounds)
                // Sent before the start, each counts from it: NAME changes at SECONDS into the pattern.
                for value in parameter { try single.sendParameters([value.parameter]) }
                let others = mixedRendered.map { PatternPlayer(engine: session.engine, pattern: $0, options: options) }
                if others.isEmpty {
                    single.start()
                } else {
                    // One origin for all: the first's start (its sounds' lead time from now, as
                    // start() takes it), and each mixed pattern its offset after it.
                    let lead = (soundTrack?.isEmpty == false ? sounds?.leadTime : nil) ?? .zero
                    let origin = session.clock.now.advanced(by: lead)
                    single.start(at: origin)
                    for (other, item) in zip(others, mixed) { other.start(at: origin.advanced(by: .secondsClamped(item.value.offset))) }
                }
                players = [single] + others
            }
            for player in players { player.loopEnabled = loop }
            let player = players[0]
            // On a virtual clock, waiting on one player runs them all: they share the clock.
            let longest = zip(mixed, mixedRendered).map { $0.value.offset + $1.playedSeconds }.reduce(rendered.playedSeconds, max)
            for each in players where each.waitUntilFinished(timeout: .secondsClamped(loop ? 1e9 : longest + 5)) == nil { each.cancel() }
            if players.contains(where: { $0.outcome != .finished }) { sounds?.stopAll() }
            let audioReport = try finishSounds(sounds)
            let played = session.clock.now.duration(since: start).secondsDouble
            session.finish()
            try session.writeAccelerationCSV(from: start)
            let final = try session.finalState()
            if global.json {
                var counts: [String: Int] = [:]
                for (type, count) in document.pattern.eventCounts { counts[type.rawValue] = count }
                session.printJSON(
                    [
                        "file": file, "format": document.format.rawValue, "curveTimes": document.curveTimes.rawValue,
                        "designedSeconds": document.pattern.duration, "playedSeconds": played,
                        "renderedSeconds": rendered.playedSeconds, "mode": rendered.mode.rawValue,
                        "events": counts, "warnings": warnings,
                        "outcome": String(describing: player.outcome ?? .cancelled),
                        "timing":
                            (player.timing.latenessMicroseconds.map {
                                ["medianMicroseconds": $0.median, "p99Microseconds": $0.p99, "maxMicroseconds": $0.maximum]
                            } ?? [:]).merging(["updates": Double(player.timing.writes), "missedUpdates": Double(player.timing.missedUpdates)]) { a, _ in a },
                        "final": final
                    ].merging(audioReport.map { ["audio": $0.json] } ?? [:]) { a, _ in a }.merging(Self.mixJSON(mixed, players.dropFirst())) { a, _ in a })
            } else {
                if let audioReport { print(audioReport.line) }
                print(
                    String(
                        format: "played %.3f s (%@); %@", played, String(describing: player.outcome ?? .cancelled), DeviceSession.describe(final: final)))
            }
            if case let .dropped(reason) = player.outcome { throw CLIError(notPlayed: (file as NSString).lastPathComponent, reason) }
            if case .failed = player.outcome { throw ExitCode(CLIError.runtime) }
            // A mixed pattern that did not play to its end is said, as the first would be.
            for (item, other) in zip(mixed, players.dropFirst()) where other.outcome != .finished {
                if case let .dropped(reason) = other.outcome { throw CLIError(notPlayed: (item.value.file as NSString).lastPathComponent, reason) }
                throw CLIError("\((item.value.file as NSString).lastPathComponent): \(String(describing: other.outcome ?? .cancelled))", exitCode: CLIError.runtime)
            }
        }
    }
}

struct Render: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Draw a pattern (intensity and sharpness over time) above what the simulated actuator does: SVG or CSV; or export it.",
        discussion: """
            The pattern is a file, or a feedbackd theme's vibration for an event (--theme FILE-or-NAME --event NAME, at --profile): \
            what hapticd plays for it. -o chooses the output by its extension: .svg, .csv (time_s,intensity,sharpness,drive), \
            or a pattern file (.ahap, .haptic).
            """)
    @OptionGroup var patternOptions: PatternOptions
    @Argument(help: "The pattern file (or --theme and --event).") var file: String?
    @Option(help: "A feedbackd theme: a file, or a name found as feedbackd finds it.") var theme: String?
    @Option(help: "With --theme: the event whose vibration to render.") var event: String?
    @Option(help: "With --theme: the profile the event plays at.") var profile: FeedbackProfile = .full
    @Option(name: .shortAndLong, help: "Output: .svg, .csv, .ahap or .haptic.") var output: String
    @Option(help: "Actuator of the simulated chip.") var actuator: ActuatorValue = .lra
    @Flag(help: "Print a JSON summary.") var json = false

    /// The pattern to render, its name and the warnings reading it gave.
    private func source() throws -> (pattern: HapticPattern, name: String, warnings: [String]) {
        switch (file, theme, event) {
        case let (file?, nil, nil):
            let document = try patternOptions.read(file)
            return (document.pattern, (file as NSString).lastPathComponent, document.warnings)
        case let (nil, theme?, event?):
            let loaded: FeedbackdTheme
            do { loaded = try FeedbackdThemeLocator().load(theme) } catch { throw CLIError("\(error)", exitCode: CLIError.dataError) }
            guard let pattern = loaded.vibration(for: event, profile: profile) else {
                let why = loaded.events.contains(event) ? "no vibration at the \(profile.rawValue) profile or quieter" : "no feedback for it"
                throw CLIError("theme \(loaded.name) has \(why): \(event)", exitCode: CLIError.dataError)
            }
            return (pattern, "\(loaded.name): \(event) (\(profile.rawValue))", loaded.warnings)
        default:
            throw CLIError("give a pattern file, or --theme and --event (not both)", exitCode: CLIError.usage)
        }
    }

    func run() throws {
        try CLIError.reporting {
            let (pattern, name, readWarnings) = try source()
            let rendered = try patternOptions.renderer().render(pattern)
            let rows = try PatternPreview.rows(for: rendered, actuator: actuator.type).map { ($0.time, $0.intensity, $0.sharpness, $0.drive) }
            let lowered = output.lowercased()
            var warnings = readWarnings + rendered.warnings
            let text: String
            if lowered.hasSuffix(".csv") {
                text = "time_s,intensity,sharpness,drive\n" + rows.map { String(format: "%.4f,%.4f,%.4f,%.4f", $0.0, $0.1, $0.2, $0.3) }.joined(separator: "\n") + "\n"
            } else if lowered.hasSuffix(".svg") {
                text = PatternPlot.svg(title: name, rows: rows, warnings: warnings)
            } else if lowered.hasSuffix(".ahap") {
                text = try AHAPWriter.write(pattern)
                warnings += AHAPWriter.warnings(for: pattern)
            } else if lowered.hasSuffix(".haptic") {
                let written = try MetaHapticWriter.write(pattern, source: name)
                text = written.text
                warnings += written.warnings
            } else {
                throw CLIError("-o must end in .svg, .csv, .ahap or .haptic", exitCode: CLIError.usage)
            }
            do { try text.write(toFile: output, atomically: true, encoding: .utf8) } catch {
                throw CLIError("cannot write \(output): \(error.localizedDescription)", exitCode: CLIError.cannotCreate)
            }
            for warning in warnings { FileHandle.standardError.write(Data("haptic: warning: \(warning)\n".utf8)) }
            let peak = rows.map(\.1).max() ?? 0
            if json {
                let data = try JSONSerialization.data(
                    withJSONObject: [
                        "output": output, "rows": rows.count, "designedSeconds": pattern.duration, "peakIntensity": peak, "warnings": warnings
                    ], options: [.prettyPrinted, .sortedKeys])
                print(String(decoding: data, as: UTF8.self))
            } else {
                print("wrote \(output) (\(rows.count) rows; \(String(format: "%.3f", pattern.duration)) s, peak intensity \(String(format: "%.2f", peak)))")
            }
        }
    }
}

struct SequenceCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "sequence",
        abstract: "Play notes, as Piano does: \"sound complete, success, wait 0.5, impact-heavy 0.4, until-finished, effect 47, pattern FILE, sound PATH\".")
    @OptionGroup var global: GlobalOptions
    @OptionGroup var patternOptions: PatternOptions
    @OptionGroup var audio: AudioOptions
    @Argument(help: "Notes separated by commas.") var notes: String

    func run() throws {
        try CLIError.reporting {
            let parsed = try SequenceNote.parse(notes) { path in try patternOptions.read(path).pattern }
            if let port = global.serialDevice {
                try FirmwareCall.sequence(global, port: port, notes: parsed)
                return
            }
            if let socket = global.serviceSocket {
                var request = ServiceRequest(.play)
                request.sequence = notes
                try ServiceCall.run(
                    global, socket: socket, label: "sequence", request: request, timeout: .seconds(130),
                    extra: ["notes": parsed.count])
                return
            }
            let session = try DeviceSession(global, verb: "sequence")
            session.announce()
            let hasSounds = parsed.contains { if case .sound = $0 { return true } else { return false } }
            let sounds = hasSounds ? try audio.open(for: session, what: "the sequence's sound notes") : nil
            let player = SequencePlayer(
                engine: session.engine, notes: parsed, renderer: try patternOptions.renderer(), playerOptions: playerOptions(), sounds: sounds)
            if !global.json {
                for item in player.schedule { print(String(format: "%7.3f s  %@", item.offset, String(describing: item.note).prefix(60) as CVarArg)) }
            }
            let start = session.clock.now
            player.start()
            let outcome = player.waitUntilFinished(timeout: .secondsClamped(player.duration + 5) + player.startDelay)
            if outcome == nil { player.cancel() }
            let audioReport = try finishSounds(sounds)
            session.finish()
            let played = session.clock.now.duration(since: start).secondsDouble
            if global.json {
                session.printJSON(
                    [
                        "notes": parsed.count, "designedSeconds": player.duration, "playedSeconds": played,
                        "outcome": String(describing: player.outcome ?? .cancelled), "final": try session.finalState()
                    ].merging(audioReport.map { ["audio": $0.json] } ?? [:]) { a, _ in a })
            } else {
                if let audioReport { print(audioReport.line) }
                print(String(format: "sequence %@ after %.3f s", String(describing: player.outcome ?? .cancelled), played))
            }
            // A note that was not played is reported as a feedback would be (exit 78 for the
            // policy, 75 for the rate limit).
            if let (note, reason) = player.droppedNotes.first {
                throw CLIError(notPlayed: "\(player.droppedNotes.count) of the sequence's notes (first: \(note))", reason)
            }
        }
    }
}

/// A two-panel SVG: designed intensity and sharpness above the simulated actuator's drive.
enum PatternPlot {
    static func svg(title: String, rows: [(Double, Double, Double, Double)], warnings: [String]) -> String {
        let width = 900.0
        let panel = 180.0
        let left = 50.0
        let top = 40.0
        let gap = 40.0
        let span = max(rows.last?.0 ?? 1, 0.001)
        func x(_ time: Double) -> Double { left + time / span * (width - left - 20) }
        func polyline(_ values: [Double], y0: Double, scale: Double, color: String) -> String {
            let points = zip(rows, values).map { String(format: "%.1f,%.1f", x($0.0), y0 - $1 * scale) }.joined(separator: " ")
            return "<polyline fill=\"none\" stroke=\"\(color)\" stroke-width=\"1.5\" points=\"\(points)\"/>"
        }
        let upperBase = top + panel
        let lowerMid = top + panel + gap + panel / 2
        var svg = "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"\(Int(width))\" height=\"\(Int(top + 2 * panel + gap + 50))\" font-family=\"sans-serif\" font-size=\"12\">\n"
        svg += "<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n"
        svg += "<text x=\"\(left)\" y=\"20\" font-size=\"13\">\(escape(title)): designed intensity (blue), sharpness (orange); below, the simulated drive</text>\n"
        svg += "<rect x=\"\(left)\" y=\"\(top)\" width=\"\(width - left - 20)\" height=\"\(panel)\" fill=\"none\" stroke=\"#ccc\"/>\n"
        svg += "<rect x=\"\(left)\" y=\"\(top + panel + gap)\" width=\"\(width - left - 20)\" height=\"\(panel)\" fill=\"none\" stroke=\"#ccc\"/>\n"
        svg += "<line x1=\"\(left)\" y1=\"\(lowerMid)\" x2=\"\(width - 20)\" y2=\"\(lowerMid)\" stroke=\"#eee\"/>\n"
        svg += polyline(rows.map(\.1), y0: upperBase, scale: panel, color: "#1f77b4") + "\n"
        svg += polyline(rows.map(\.2), y0: upperBase, scale: panel, color: "#ff7f0e") + "\n"
        svg += polyline(rows.map(\.3), y0: lowerMid, scale: panel / 2, color: "#2ca02c") + "\n"
        svg += "<text x=\"5\" y=\"\(top + 10)\">1</text><text x=\"5\" y=\"\(upperBase)\">0</text>\n"
        svg += "<text x=\"5\" y=\"\(top + panel + gap + 10)\">+1</text><text x=\"5\" y=\"\(lowerMid + 4)\">0</text><text x=\"5\" y=\"\(top + 2 * panel + gap)\">-1</text>\n"
        for tick in 0...10 {
            let time = span * Double(tick) / 10
            svg += String(format: "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">%.2f s</text>\n", x(time), top + 2 * panel + gap + 18, time)
        }
        if !warnings.isEmpty {
            svg += "<text x=\"\(left)\" y=\"\(top + 2 * panel + gap + 38)\" fill=\"#a00\">\(escape(warnings.prefix(2).joined(separator: "; ")))</text>\n"
        }
        return svg + "</svg>\n"
    }

    static func escape(_ text: String) -> String {
        text.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;").replacingOccurrences(of: ">", with: "&gt;")
    }
}
