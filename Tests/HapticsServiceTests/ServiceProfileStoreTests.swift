// SPDX-License-Identifier: Apache-2.0

import Foundation
import HapticsService
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// Where hapticd keeps its profiles, and what a damaged file does.
@Suite struct ServiceProfileStoreTests {
    /// systemd's `$STATE_DIRECTORY` first (the packaged unit's `StateDirectory=haptics`: the first
    /// of its list); else the user's: /var/lib/haptics for root, ~/.local/state/haptics otherwise.
    @Test func theStateDirectoryIsSystemdsThenTheUsers() {
        #expect(ServiceProfileStore.stateDirectory(environment: ["STATE_DIRECTORY": "/var/lib/private/haptics:/var/lib/other", "HOME": "/home/pi"]) == "/var/lib/private/haptics")
        let fallback = ServiceProfileStore.stateDirectory(environment: ["HOME": "/home/pi"])
        #expect(fallback == (getuid() == 0 ? "/var/lib/haptics" : "/home/pi/.local/state/haptics"))
        #expect(ServiceProfileStore.stateDirectory(environment: ["STATE_DIRECTORY": "relative", "HOME": "/home/pi"]) == fallback)
    }

    @Test func savedProfilesComeBackAndACorruptFileIsReported() throws {
        let folder = NSTemporaryDirectory() + "profiles-\(UUID().uuidString.prefix(8))"
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let store = ServiceProfileStore(path: folder + "/state/profiles.json")
        #expect(try store.load() == nil)
        let profiles = ServiceProfileStore.Profiles(global: .quiet, apps: ["org.example.Game": .silent])
        try store.save(profiles)
        #expect(try store.load() == profiles)
        try Data("{\"global\": \"loud\"".utf8).write(to: URL(fileURLWithPath: store.path))
        #expect {
            _ = try store.load()
        } throws: { "\($0)".contains("is corrupt") }
    }
}
