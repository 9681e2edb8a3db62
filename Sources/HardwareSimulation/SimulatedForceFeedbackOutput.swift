// SPDX-License-Identifier: Apache-2.0

import HardwareAccess

/// A kernel vibrator as its force-feedback client sees it, simulated: effects uploaded, played,
/// stopped and erased as the input core takes them (ids given out, a playing effect updated in
/// place by a new upload, effects of zero length playing until stopped), and what the actuator is
/// driven with recorded on the clock, as ff-memless renders one motor: the playing effects'
/// levels added, times the gain, clamped to full scale. A rumble's full scale is the device's
/// (`rumbleFullScale`: drv260x reaches full drive at 0x7FFF of 0xFFFF); a constant's and a
/// periodic's is 0x7FFF, or, as a da7280 (`readsConstantAsDA7280`), the override Linux's da7280
/// computes from it, read as the chip reads it with acceleration off (127 is full scale, ABSMAX;
/// above 127 the drive reverses, recorded negative), with uploads refused while it drives and for
/// `busyUploadsAfterStop` attempts after a stop (its work item not yet run); or, as gpio-vibrator
/// (`switched`), full scale whenever anything drives at all. A playing effect uploaded again starts
/// its replay again from the upload (its delay, then its length), as ff-memless's upload does.
/// Every call is in `calls`, timed, for tests that check the stop.
public final class SimulatedForceFeedbackOutput: ForceFeedbackOutput {
    /// The device's name (`EVIOCGNAME`).
    public let name: String
    /// The node it was opened at.
    public let path: String
    /// What it can play, probed at open.
    public let capabilities: ForceFeedbackCapabilities
    /// The share of 0xFFFF at which a rumble's strong magnitude drives the actuator at full scale.
    public let rumbleFullScale: Double
    /// What the actuator was driven with.
    public private(set) var output = ActuatorRecord()
    /// Every call, in order: ("upload", id), ("play", id), ("stop", id), ("erase", id), ("gain", 0).
    public private(set) var calls: [(time: ClockInstant, call: String, id: Int)] = []
    /// The master gain, 0...1.
    public private(set) var gain = 1.0
    /// Whether the device is open.
    public private(set) var isOpen = true
    /// Fail every call from now on, as a device that went away does (ENODEV).
    public var fails = false
    /// The firmware node's properties (`firmwareProperty`).
    public var firmwareProperties: [String: [UInt8]] = [:]
    /// Read FF_CONSTANT as Linux's da7280 does in DRO mode with acceleration off, and refuse
    /// uploads while driving (EBUSY).
    public var readsConstantAsDA7280 = false
    /// Uploads refused as busy after each stop, as da7280's until its work item runs.
    public var busyUploadsAfterStop = 0
    /// Uploads refused as busy so far.
    public private(set) var busyRefusals = 0
    /// Switched on or off, as gpio-vibrator switches its line: on at full scale while the playing
    /// effects' combined magnitude is not zero (gpio-vibra.c), off otherwise.
    public var switched = false

    private let clock: any HapticClock
    private var effects: [Int: ForceFeedbackEffect] = [:]
    private var playing: [Int: ClockInstant?] = [:]

    /// A device named `name` with `capabilities`, on `clock`.
    public init(
        name: String = "simulated vibrator", path: String = "/dev/input/event-simulated",
        capabilities: ForceFeedbackCapabilities = .init(rumble: true, constant: false, periodic: true, gain: true, effectsMaximum: 16),
        rumbleFullScale: Double = 1, clock: any HapticClock
    ) {
        self.name = name
        self.path = path
        self.capabilities = capabilities
        self.rumbleFullScale = rumbleFullScale
        self.clock = clock
    }

    /// Effects held now.
    public var effectCount: Int { effects.count }
    /// Refusals left before the stopped chip takes an upload.
    private var busyLeft = 0

    /// The firmware node's property, as given.
    public func firmwareProperty(_ name: String) -> [UInt8]? { firmwareProperties[name] }

    private func check(_ operation: String) throws(ForceFeedbackDeviceError) {
        guard isOpen, !fails else {
            throw ForceFeedbackDeviceError(operation: operation, path: path, errno: 19, detail: "the device went away")
        }
    }

    /// The level one effect drives at.
    private func level(of effect: ForceFeedbackEffect) -> Double {
        switch effect.kind {
        case let .rumble(strong, weak): return min(1, max(strong, weak / 2) / rumbleFullScale)
        case let .constant(level):
            guard readsConstantAsDA7280 else { return abs(level) }
            // da7280_haptics_upload_effect: level × 254 / 0x7FFF; the chip reads it signed.
            let override = Int((level * 0x7FFF).rounded()) * 254 / 0x7FFF
            return Double(override <= 127 ? override : override - 256) / 127
        case let .periodic(_, magnitude, _, _): return abs(magnitude)
        }
    }

    /// Records the drive from now on, and the ends of the effects of finite length.
    private func render() {
        let now = clock.now
        var total = 0.0
        for (id, until) in playing {
            if let until, until <= now { continue }
            if let effect = effects[id] { total += level(of: effect) }
        }
        output.set(driven(total), at: now)  // a reversed da7280 drive stays negative
        // An effect of finite length ends by itself: the drive after it is planned.
        let ends = playing.compactMap { $0.value }.filter { $0 > now }.sorted()
        for end in ends {
            var after = 0.0
            for (id, until) in playing where until.map({ $0 > end }) ?? true {
                if let effect = effects[id] { after += level(of: effect) }
            }
            output.plan([ActuatorRecord.Sample(time: end, level: driven(after))])
        }
    }

    /// What the actuator is driven with for the playing effects' combined level.
    private func driven(_ total: Double) -> Double {
        switched ? (total * gain != 0 ? 1 : 0) : min(1, total * gain)
    }

    /// Uploads (`EVIOCSFF`): a new effect for id -1, else effect `id` replaced in place.
    public func upload(_ effect: ForceFeedbackEffect) throws(ForceFeedbackDeviceError) -> Int {
        try check("upload an effect to")
        var effect = effect
        if effect.id < 0 {
            guard let free = (0..<capabilities.effectsMaximum).first(where: { effects[$0] == nil }) else {
                throw ForceFeedbackDeviceError(operation: "upload an effect to", path: path, errno: 28, detail: "no room for another effect")
            }
            effect.id = free
        } else if effects[effect.id] == nil {
            throw ForceFeedbackDeviceError(operation: "upload an effect to", path: path, errno: 22, detail: "no effect \(effect.id)")
        }
        if readsConstantAsDA7280, !playing.isEmpty || busyLeft > 0 {
            busyLeft = max(busyLeft - 1, 0)
            busyRefusals += 1
            calls.append((clock.now, "busy", effect.id))
            throw ForceFeedbackDeviceError(operation: "upload an effect to", path: path, errno: 16, detail: "Device or resource busy")
        }
        effects[effect.id] = effect
        calls.append((clock.now, "upload", effect.id))
        if playing.keys.contains(effect.id) {
            // ml_ff_upload: a started effect's replay starts again, from its delay to its length.
            playing.updateValue(effect.length == .zero ? nil : clock.now.advanced(by: effect.delay + effect.length), forKey: effect.id)
            render()
        }
        return effect.id
    }

    /// Plays effect `id` `count` times (an EV_FF event of value `count`).
    public func play(id: Int, count: Int) throws(ForceFeedbackDeviceError) {
        try check("play an effect on")
        guard let effect = effects[id] else {
            throw ForceFeedbackDeviceError(operation: "play an effect on", path: path, errno: 22, detail: "no effect \(id)")
        }
        calls.append((clock.now, "play", id))
        let length = effect.length == .zero ? nil : effect.length * max(count, 1)
        // Until its end, or (nil) until stopped: updateValue keeps a nil end as an entry.
        playing.updateValue(length.map { clock.now.advanced(by: effect.delay + $0) }, forKey: id)
        render()
    }

    /// Stops effect `id` (an EV_FF event of value 0).
    public func stop(id: Int) throws(ForceFeedbackDeviceError) {
        try check("stop an effect on")
        calls.append((clock.now, "stop", id))
        if playing.removeValue(forKey: id) != nil { busyLeft = busyUploadsAfterStop }
        render()
    }

    /// Erases effect `id` (`EVIOCRMFF`), stopping it.
    public func erase(id: Int) throws(ForceFeedbackDeviceError) {
        try check("erase an effect on")
        calls.append((clock.now, "erase", id))
        playing.removeValue(forKey: id)
        effects[id] = nil
        render()
    }

    /// Sets the master gain (FF_GAIN, 0...0xFFFF).
    public func setGain(_ gain: Double) throws(ForceFeedbackDeviceError) {
        try check("set the gain of")
        calls.append((clock.now, "gain", 0))
        self.gain = min(max(gain, 0), 1)
        render()
    }

    /// As the kernel does when its client closes the device: its effects erased, the drive stopped.
    public func close() {
        guard isOpen else { return }
        calls.append((clock.now, "close", 0))
        playing.removeAll()
        effects.removeAll()
        render()
        isOpen = false
    }
}
