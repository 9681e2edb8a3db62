// SPDX-License-Identifier: Apache-2.0

import Foundation
import Haptics

/// hapticd's profiles kept across restarts (feedbackd keeps them in GSettings): the global profile
/// and each application's, in `profiles.json` in hapticd's state directory, written whole each
/// time one changes. A file that cannot be read is reported and left alone; the profiles start
/// at full.
public struct ServiceProfileStore: Sendable {
    /// The JSON file.
    public let path: String

    /// The saved profiles.
    public struct Profiles: Codable, Equatable, Sendable {
        /// Everyone's profile.
        public var global: FeedbackProfile
        /// Each application's own.
        public var apps: [String: FeedbackProfile]

        /// Profiles as given.
        public init(global: FeedbackProfile = .full, apps: [String: FeedbackProfile] = [:]) {
            self.global = global
            self.apps = apps
        }
    }

    /// A store in `path`.
    public init(path: String) { self.path = path }

    /// hapticd's state directory, where the calibration is kept too (`StateDirectory`).
    public static func stateDirectory(environment: [String: String] = ProcessInfo.processInfo.environment) -> String {
        StateDirectory.path(environment: environment)
    }

    /// The profiles saved, nil when there are none; a file that cannot be read throws, saying why.
    public func load() throws(AtomicFileError) -> Profiles? {
        guard FileManager.default.fileExists(atPath: path) else { return nil }
        guard let data = FileManager.default.contents(atPath: path), data.count <= 1 << 20 else {
            throw AtomicFileError(reason: "cannot be read, or is larger than 1 MiB")
        }
        do {
            return try JSONDecoder().decode(Profiles.self, from: data)
        } catch {
            throw AtomicFileError(reason: "is corrupt (\(error)); the profiles start at full and the file is replaced at the next change")
        }
    }

    /// Saves `profiles` whole.
    public func save(_ profiles: Profiles) throws(AtomicFileError) {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        guard let data = try? encoder.encode(profiles) else { throw AtomicFileError(reason: "could not be encoded") }
        try AtomicFile.write(data, to: path)
    }
}
