// SPDX-License-Identifier: Apache-2.0

/// What a force-feedback device can play, as its driver lists it (`EVIOCGBIT(EV_FF)`): which
/// effect types, whether a master gain, and how many effects it holds.
public struct ForceFeedbackCapabilities: Sendable, Equatable {
    /// FF_RUMBLE: a strong and a weak motor's magnitudes (ff-memless vibrators: drv260x,
    /// pwm-vibrator, gpio-vibrator...).
    public var rumble: Bool
    /// FF_CONSTANT: one signed level (da7280).
    public var constant: Bool
    /// FF_PERIODIC: a waveform's magnitude (ff-memless lists it for every rumble device).
    public var periodic: Bool
    /// FF_GAIN: a master gain the device applies to everything.
    public var gain: Bool
    /// Effects the device holds at once (`EVIOCGEFFECTS`).
    public var effectsMaximum: Int

    /// Capabilities as probed.
    public init(rumble: Bool, constant: Bool, periodic: Bool, gain: Bool, effectsMaximum: Int) {
        self.rumble = rumble
        self.constant = constant
        self.periodic = periodic
        self.gain = gain
        self.effectsMaximum = effectsMaximum
    }

    /// The types by their names in input.h, for messages ("FF_RUMBLE FF_GAIN").
    public var names: [String] {
        [(rumble, "FF_RUMBLE"), (constant, "FF_CONSTANT"), (periodic, "FF_PERIODIC"), (gain, "FF_GAIN")].filter(\.0).map(\.1)
    }
}

/// The client side of a kernel force-feedback device (an evdev node with EV_FF, such as the one
/// Linux's drv260x, da7280, pwm-vibrator or gpio-vibrator makes): effects uploaded, played,
/// stopped and erased, as feedbackd and fftest use it. The Linux one opens /dev/input/eventN
/// (`LinuxForceFeedbackOutput`); the tests use a simulated one. Not thread-safe: one owner (a
/// chip driver, whose engine serializes calls).
public protocol ForceFeedbackOutput: AnyObject {
    /// The device's name (`EVIOCGNAME`: "drv260x:haptics", "da7280-haptic").
    var name: String { get }
    /// The device node it was opened at.
    var path: String { get }
    /// What it can play, probed at open.
    var capabilities: ForceFeedbackCapabilities { get }
    /// A firmware property of the device the kernel's driver was bound to, as the device tree
    /// gives it (`dlg,nom-microvolt`: its bytes, big-endian cells; a boolean property present and
    /// empty), or nil when it has none or the machine does not say (no device tree): what a
    /// client needs to know of how the driver scales its levels.
    func firmwareProperty(_ name: String) -> [UInt8]?
    /// Uploads `effect`: a new one when its id is -1, else replaces effect `id` (a playing effect
    /// is updated in place). Returns the id the kernel gave it.
    func upload(_ effect: ForceFeedbackEffect) throws(ForceFeedbackDeviceError) -> Int
    /// Plays effect `id` `count` times (an effect of zero length plays until stopped).
    func play(id: Int, count: Int) throws(ForceFeedbackDeviceError)
    /// Stops effect `id`.
    func stop(id: Int) throws(ForceFeedbackDeviceError)
    /// Erases effect `id` (stopping it first, in the kernel).
    func erase(id: Int) throws(ForceFeedbackDeviceError)
    /// Sets the master gain, 0...1 (where `capabilities.gain`).
    func setGain(_ gain: Double) throws(ForceFeedbackDeviceError)
    /// Closes the device: the kernel erases the effects this client uploaded, stopping them.
    func close()
}
