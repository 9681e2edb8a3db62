// SPDX-License-Identifier: Apache-2.0

import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// Where the stack keeps what outlives a run (the calibration, hapticd's profiles): systemd's
/// `$STATE_DIRECTORY` (a unit's `StateDirectory=haptics`: the one place a service user may write
/// under `ProtectSystem=strict`; the first of its list), else /var/lib/haptics for root and
/// ~/.local/state/haptics for other users.
public enum StateDirectory {
    /// The folder `environment` decides.
    public static func path(environment: [String: String] = ProcessInfo.processInfo.environment) -> String {
        if let directory = environment["STATE_DIRECTORY"]?.split(separator: ":").first, directory.hasPrefix("/") { return String(directory) }
        if getuid() == 0 { return "/var/lib/haptics" }
        return (environment["HOME"] ?? NSHomeDirectory()) + "/.local/state/haptics"
    }
}
