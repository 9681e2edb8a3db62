// SPDX-License-Identifier: Apache-2.0

import Foundation
import HapticBoards
import HapticChip
import Haptics
import HapticsService
import HardwareAccess
import Testing

/// A chip family this package does not have, written here alone as another package would write
/// it: a small PWM haptic driver at 0x40 whose register 0x01 takes the drive as a signed byte and
/// register 0x02 its carrier in kHz, which the board file gives under a key of the family's own
/// (`"carrierKHz"`). It is reached only through `HapticChipFamily` and the `HapticChip`
/// protocols: that it opens from a board file, plays every feedback, a pattern and a sequence,
/// and is served by hapticd's server shows that a new family edits nothing in this package.
final class PWMTestChip: HapticChipDriver {
    static let driveRegister: UInt8 = 0x01
    static let carrierRegister: UInt8 = 0x02
    let bus: any I2CBus
    let address: I2CAddress
    let clock: any HapticClock
    private(set) var power = HapticPowerState.standby
    private(set) var isStreaming = false
    var readyInstant: ClockInstant { clock.now }
    var canShutDown: Bool { false }
    var pollInterval: Duration { .milliseconds(5) }
    var resetsDetected: Int { 0 }
    var suppressedErrors: Int { 0 }

    init(bus: any I2CBus, address: I2CAddress, clock: any HapticClock) {
        self.bus = bus
        self.address = address
        self.clock = clock
    }

    private func drive(_ amplitude: Double) throws(HapticChipError) {
        let byte = UInt8(bitPattern: Int8((min(1, max(-1, amplitude)) * 127).rounded()))
        do { try bus.write(to: address, [Self.driveRegister, byte]) } catch { throw .bus(error) }
    }

    func wake() throws(HapticChipError) { power = .ready }
    func enterStandby() throws(HapticChipError) {
        try drive(0)
        power = .standby
    }
    func shutdown() throws(HapticChipError) { try enterStandby() }
    func stop() throws(HapticChipError) {
        try drive(0)
        isStreaming = false
    }
    func stopQuietly() { try? stop() }
    func beginRealTimePlayback() throws(HapticChipError) {
        power = .ready
        isStreaming = true
    }
    func setRealTime(amplitude: Double) throws(HapticChipError) { try drive(amplitude) }
    func endRealTimePlayback(standby: Bool) throws(HapticChipError) {
        try stop()
        if standby { try enterStandby() }
    }
    func playbackStatus() throws(HapticChipError) -> HapticChipStatus { HapticChipStatus(playing: false) }
    func clearFaults() throws(HapticChipError) {}
    func finishPlayback() throws(HapticChipError) {}
    func readBack() throws(HapticChipError) -> HapticChipReadBack { HapticChipReadBack(standby: power != .ready, driving: isStreaming) }
}

struct PWMTestFamily: HapticChipFamily {
    var part: String { "pwm-test" }
    var defaultAddress: I2CAddress { I2CAddress(rawValue: 0x40)! }
    var refusesPinsBecause: String? { "the PWM test chip has no EN or IN/TRIG pin" }
    /// The drive register to zero.
    var stopWrites: [[UInt8]] { [[PWMTestChip.driveRegister, 0]] }
    /// The carrier, 1-100 kHz (20 without it).
    var driverKeys: [String] { ["carrierKHz"] }

    func checkDriverKeys(_ keys: BoardFileFamilyKeys) throws(BoardFileError) {
        guard let kHz = try keys.number("carrierKHz") else { return }
        guard (1...100).contains(kHz), kHz == kHz.rounded() else { throw keys.error("carrierKHz", "is \(kHz)", allowed: "1-100, whole kHz") }
    }

    func open(_ opening: HapticChipOpening) throws -> HapticChipOpened {
        let chip = PWMTestChip(bus: opening.bus, address: opening.driver.address, clock: opening.clock)
        let kHz = try opening.driver.familyKeys.number("carrierKHz") ?? 20
        try opening.bus.write(to: opening.driver.address, [PWMTestChip.carrierRegister, UInt8(kHz)])
        let capabilities = HapticEngine.Capabilities(
            chip: "PWM test chip", actuator: opening.actuator.specification.type, loop: .open, hasTriggerPin: false, hasEnablePin: false)
        let engine = HapticEngine(
            driver: chip, capabilities: capabilities,
            mapping: opening.appMapping ?? opening.file.mapping(for: opening.actuator.specification.type), bus: opening.bus,
            options: opening.engineOptions, logger: opening.logger)
        return HapticChipOpened(engine: engine, calibrationSource: "none needed: open loop")
    }
}

/// The bus the PWM chip sits on: every write recorded.
final class RecordingHardware: HardwareProvider, I2CBus {
    var writes: [(I2CAddress, [UInt8])] = []
    /// The chips the board claimed, with their stops.
    var claims: [ChipClaim] = []
    /// The claims given, to see when they are let go.
    var given: [Weak] = []
    func claim(_ claim: ChipClaim) throws -> (any ChipOwnership)? {
        claims.append(claim)
        let ownership = TestOwnership()
        given.append(Weak(ownership))
        return ownership
    }

    final class TestOwnership: ChipOwnership {
        func release() {}
    }
    struct Weak {
        weak var ownership: TestOwnership?
        init(_ ownership: TestOwnership) { self.ownership = ownership }
    }
    func bus(at path: String) throws -> any I2CBus { self }
    func outputLine(chip: String, line: GPIOLineSelector, consumer: String) throws -> any GPIOOutputLine {
        throw GPIOError(.noSuchChip, line: "\(chip) \(line)", detail: "no lines here")
    }
    func write(to address: I2CAddress, _ bytes: [UInt8]) throws(I2CError) { writes.append((address, bytes)) }
    func writeRead(to address: I2CAddress, _ bytes: [UInt8], count: Int) throws(I2CError) -> [UInt8] {
        writes.append((address, bytes))
        return [UInt8](repeating: 0, count: count)
    }
}

@Suite(.serialized) struct AnotherChipFamilyTests {
    static let board = """
        { "format": 1, "name": "pwm-board", "supplyVolts": 3.3, "defaultActuator": "coin",
          "actuators": { "coin": { "type": "erm", "ratedVolts": 3.0, "maximumVolts": 3.3 } },
          "drivers": [ { "name": "main", "bus": "1", "part": "pwm-test", "carrierKHz": 25 } ] }
        """

    /// The engine of the board above, on a recording bus and a virtual clock.
    func openBoard(_ text: String = Self.board) throws -> (engine: HapticEngine, hardware: RecordingHardware, clock: VirtualClock) {
        ChipFamilyRegistry.register(PWMTestFamily())
        let hardware = RecordingHardware()
        let clock = VirtualClock()
        var options = HapticBoard.Options()
        options.engine = .isolated
        let engine = try HapticBoard.open(try BoardFile.parse(Data(text.utf8), path: "pwm.json"), hardware: hardware, clock: clock, options: options).engine
        return (engine, hardware, clock)
    }

    /// The drive levels written so far, as signed bytes.
    static func levels(_ hardware: RecordingHardware) -> [Int8] {
        hardware.writes.filter { $0.0.rawValue == 0x40 && $0.1.first == PWMTestChip.driveRegister }.map { Int8(bitPattern: $0.1[1]) }
    }

    /// The family's own key: read from the driver entry and written to the chip at start-up, its
    /// value checked by the family as the file is read, and refused in another family's entry.
    @Test func theFamilysOwnKeyIsReadCheckedAndRefusedElsewhere() throws {
        let (_, hardware, _) = try openBoard()
        #expect(hardware.writes.first.map { [$0.0.rawValue] + $0.1 } == [0x40, PWMTestChip.carrierRegister, 25])
        let zero = Self.board.replacingOccurrences(of: #""carrierKHz": 25"#, with: #""carrierKHz": 0"#)
        #expect {
            _ = try BoardFile.parse(Data(zero.utf8), path: "pwm.json")
        } throws: { error in
            (error as? BoardFileError)?.description.contains("drivers[0].carrierKHz is 0.0 (allowed: 1-100, whole kHz)") == true
        }
        let onADRV2605 = Self.board.replacingOccurrences(of: #""part": "pwm-test""#, with: #""part": "drv2605l""#)
        #expect {
            _ = try BoardFile.parse(Data(onADRV2605.utf8), path: "pwm.json")
        } throws: { error in
            (error as? BoardFileError)?.description.contains("drivers[0].carrierKHz is set (allowed: only for part pwm-test)") == true
        }
    }

    /// Everything an app plays reaches the chip's drive register and ends at zero: every feedback
    /// of the table in turn, a Core Haptics pattern and a sequence.
    @Test func theFeedbackTourAPatternAndASequencePlay() throws {
        let (engine, hardware, clock) = try openBoard()
        for kind in FeedbackKind.all {
            let before = Self.levels(hardware).count
            #expect(engine.play(Feedback(kind: kind)) == .played, "\(kind.name)")
            clock.advance(by: .seconds(2))
            let levels = Self.levels(hardware).dropFirst(before)
            #expect(levels.contains { $0 != 0 } && levels.last == 0, "\(kind.name): \(Array(levels))")
        }
        let pattern = HapticPattern(events: [
            .init(type: .hapticContinuous, time: 0, duration: 0.3, intensity: 0.5),
            .init(type: .hapticTransient, time: 0.4)
        ])
        var before = Self.levels(hardware).count
        let player = PatternPlayer(engine: engine, pattern: PatternRenderer().render(pattern))
        player.start(at: clock.now)
        #expect(player.runToCompletion() == .finished)
        var levels = Self.levels(hardware).dropFirst(before)
        // The stream writes a level when it changes: half intensity held, zero, then the transient.
        #expect(levels.first.map { abs(Int($0) - 64) <= 2 } == true, "the continuous event at half intensity: \(Array(levels))")
        #expect(levels.contains { $0 > 100 } && levels.last == 0, "\(Array(levels))")
        before = Self.levels(hardware).count
        let sequence = SequencePlayer(engine: engine, notes: [.feedback(.selection), .wait(0.1), .effect(.strongClick100)])
        sequence.start()
        #expect(sequence.runToCompletion() == .finished)
        clock.advance(by: .milliseconds(300))
        levels = Self.levels(hardware).dropFirst(before)
        #expect(levels.contains { $0 != 0 } && levels.last == 0, "\(Array(levels))")
        #expect(engine.statistics.dropped == 0)
    }

    /// hapticd's server plays a client's feedback and pattern on it, and says what it serves.
    @Test func hapticdServesIt() throws {
        let (engine, hardware, clock) = try openBoard()
        let server = HapticServer(engine: engine, device: "pwm-board")
        let client = HapticServer.Client(id: 1, app: "kiosk", uid: 1000)
        var play = ServiceRequest(.play)
        play.feedback = "impact-heavy"
        #expect(server.handle(play, from: client).outcome == "played")
        clock.advance(by: .milliseconds(300))
        #expect(Self.levels(hardware).contains { $0 > 60 } && Self.levels(hardware).last == 0)
        let before = Self.levels(hardware).count
        var pattern = ServiceRequest(.play)
        pattern.pattern = """
            {"Version": 1, "Pattern": [{"Event": {"Time": 0, "EventType": "HapticContinuous", "EventDuration": 0.2,
              "EventParameters": [{"ParameterID": "HapticIntensity", "ParameterValue": 1.0}]}}]}
            """
        #expect(server.handle(pattern, from: client).ok)
        clock.advance(by: .milliseconds(400))
        let levels = Self.levels(hardware).dropFirst(before)
        #expect(levels.contains { $0 > 120 } && levels.last == 0, "\(Array(levels))")
        #expect(server.status(for: client).status?.part == "PWM test chip")
    }

    @Test func aFamilyFromAnotherModuleOpensFromABoardFileAndPlays() throws {
        ChipFamilyRegistry.register(PWMTestFamily())
        let file = try BoardFile.parse(Data(Self.board.utf8), path: "pwm.json")
        #expect(file.drivers[0].family.rawValue == "pwm-test")
        #expect(file.drivers[0].address == I2CAddress(rawValue: 0x40)!, "the family's default address")
        let hardware = RecordingHardware()
        let clock = VirtualClock()
        var options = HapticBoard.Options()
        options.engine = .isolated
        let opened = try HapticBoard.open(file, hardware: hardware, clock: clock, options: options)
        let engine = opened.chips[0].engine
        #expect(engine.capabilities.chip == "PWM test chip")
        #expect(opened.chips[0].calibrationSource == "none needed: open loop")
        // The board claims the chip before starting it, with the family's stop for its dead-man guard.
        #expect(hardware.claims.map(\.stopWrites) == [[[PWMTestChip.driveRegister, 0]]])
        #expect(hardware.claims.first?.description == "the PWM-TEST at 0x40 on /dev/i2c-1")
        // No effect library: the table's ROM plan is streamed to the chip's drive register.
        #expect(engine.play(.notification(.success)) == .played)
        engine.waitUntilIdle()
        let levels = hardware.writes.filter { $0.0.rawValue == 0x40 && $0.1.first == PWMTestChip.driveRegister }.map { Int8(bitPattern: $0.1[1]) }
        #expect(levels.count > 3)
        #expect(levels.contains { $0 > 40 }, "success drives the motor")
        #expect(levels.last == 0, "and ends stopped")
    }

    /// A program that keeps only the engine of the board it opened (as hapticd does) keeps the
    /// chip's claim with it: its lock and dead-man guard live while the engine drives the chip,
    /// and go with it.
    @Test func theChipsClaimLivesAsLongAsItsEngine() throws {
        ChipFamilyRegistry.register(PWMTestFamily())
        let file = try BoardFile.parse(Data(Self.board.utf8), path: "pwm.json")
        let hardware = RecordingHardware()
        var options = HapticBoard.Options()
        options.engine = .isolated
        var engine: HapticEngine? = try HapticBoard.open(file, hardware: hardware, clock: VirtualClock(), options: options).engine
        #expect(hardware.given.count == 1)
        #expect(hardware.given.first?.ownership != nil, "the board is gone, the engine keeps its chip's claim")
        #expect(engine?.play(.selection) == .played)
        engine = nil
        #expect(hardware.given.first?.ownership == nil, "given up with the engine")
    }

    @Test func theFamilySaysWhatItsDriverEntryMayNotHave() {
        ChipFamilyRegistry.register(PWMTestFamily())
        let withPin = Self.board.replacingOccurrences(of: #""part": "pwm-test""#, with: #""part": "pwm-test", "enable": { "chip": "gpiochip0", "line": 17 }"#)
        #expect {
            _ = try BoardFile.parse(Data(withPin.utf8), path: "pwm.json")
        } throws: { error in
            (error as? BoardFileError)?.description.contains("drivers[0].enable is set (allowed: nothing: the PWM test chip has no EN or IN/TRIG pin)") == true
        }
    }
}
