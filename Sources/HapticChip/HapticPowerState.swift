// SPDX-License-Identifier: Apache-2.0

/// A haptic driver chip's power state as its driver last left it. Every chip has the three, under
/// its own names: the engine's power state machine moves between them after each feedback.
public enum HapticPowerState: String, Sendable, Equatable {
    /// The enable line low (EN on a DRV2605): the lowest power. Only when that line is wired.
    case shutdown
    /// Low power with the registers kept; the bus still works (STANDBY on a DRV2605).
    case standby
    /// Ready to play at once.
    case ready
}
