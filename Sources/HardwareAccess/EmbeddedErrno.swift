// SPDX-License-Identifier: Apache-2.0

#if hasFeature(Embedded)
    /// A system error number, where swift-system is not built: firmware (Embedded Swift) has no
    /// operating system and so no errno to report, but the error types it shares with Linux keep
    /// their shape (`errno` is always `nil` there).
    public struct Errno: RawRepresentable, Sendable, Equatable, CustomStringConvertible {
        /// The number.
        public var rawValue: CInt
        /// The error numbered `rawValue`.
        public init(rawValue: CInt) { self.rawValue = rawValue }
        /// "errno N".
        public var description: String { "errno \(rawValue)" }
    }
#endif
