// SPDX-License-Identifier: Apache-2.0

import HapticChip

/// A chip behind a device that renders patterns itself with this build's `PatternRenderer` and
/// streams them from its own timer: the haptics firmware on a microcontroller.
///
/// A pattern player on such a device uploads the pattern instead of streaming its levels, so the
/// drive is timed by the device's hardware timer, not by this machine's scheduler (a Linux
/// process under load can be milliseconds late; the firmware's timer is within microseconds).
/// The stream is the same: the device runs the same renderer on the same numbers.
public protocol PatternRenderingDevice: HapticChipDriver {
    /// How the device renders. A pattern this machine rendered with other settings (another rate,
    /// another transient spacing) is streamed from here instead, so that what plays is what was
    /// rendered.
    var deviceRenderer: PatternRenderer { get }

    /// Uploads `pattern` and starts it on the device's timer; returns how long it plays, or nil
    /// when the device cannot hold it (too many events, too long for its memory), in which case
    /// nothing was started and the caller streams it instead. While it plays `playbackStatus()`
    /// says `playing`; `stop()` ends it.
    func startRendering(_ pattern: HapticPattern) throws(HapticChipError) -> Duration?
}

/// The pattern a rendering came from: what lets a `PatternRenderingDevice` render it again, on
/// the device (when the device's renderer makes the same stream or clicks of it).
public struct PatternSource: Sendable {
    /// The pattern as designed.
    public var pattern: HapticPattern

    /// The source of a rendering of `pattern`.
    public init(pattern: HapticPattern) {
        self.pattern = pattern
    }

    /// Whether `device` renders this source to `rendered` (as the player will play it): the same
    /// mode, and the same stream or the same clicks. Rendered here with the device's settings
    /// and compared, so a rendering made otherwise (another rate, another strategy) or changed
    /// since (scaled) is streamed from here instead.
    func rendersTheSame(on device: PatternRenderer, as rendered: RenderedPattern) -> Bool {
        var renderer = device
        renderer.recordsDesign = false
        let there = renderer.render(pattern)
        guard there.mode == rendered.mode, there.rate == rendered.rate else { return false }
        return rendered.mode == .realTime ? there.samples == rendered.samples : there.hits == rendered.hits
    }
}
