// SPDX-License-Identifier: Apache-2.0

// The feedback kinds and their table, and the pattern model and its renderer, are modules of
// their own (so firmware builds them too); apps keep writing `import Haptics` and see them.
@_exported import HapticFeedback
@_exported import HapticPatterns

/// The package as a whole. Its release, in one place: `haptic --version`, `hapticd --version`,
/// `haptic-studio --version` and the studio's greeting all print it, and CHANGELOG.md's newest
/// release names the same number (a test compares them), so a bug report can say what ran.
public enum SwiftHaptics {
    /// Semantic version of the package. 0.x: the API may still change between minor releases.
    public static let version = "0.2.0"
}
