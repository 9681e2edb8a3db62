// SPDX-License-Identifier: Apache-2.0

import Foundation
import Haptics
import Testing

/// The version a user reports is the release the changelog describes.
@Suite struct ReleaseTests {
    /// The newest release in CHANGELOG.md ("## X.Y.Z - date", after "Unreleased").
    static func newestRelease() throws -> String {
        let changelog = try String(contentsOf: Program.packageRoot.appendingPathComponent("CHANGELOG.md"), encoding: .utf8)
        let heading = try #require(changelog.split(separator: "\n").first { $0.hasPrefix("## ") && $0.dropFirst(3).first?.isNumber == true })
        return String(heading.dropFirst(3).split(separator: " ").first ?? "")
    }

    @Test(arguments: ["haptic", "hapticd"])
    func versionIsTheChangelogsNewestRelease(program: String) throws {
        let run = try Program(program).run(["--version"])
        #expect(run.status == 0)
        #expect(run.stdout.trimmingCharacters(in: .whitespacesAndNewlines) == SwiftHaptics.version)
        #expect(try Self.newestRelease() == SwiftHaptics.version, "CHANGELOG.md's newest release is not \(SwiftHaptics.version)")
    }
}
