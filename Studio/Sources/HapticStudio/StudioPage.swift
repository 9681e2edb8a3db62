// SPDX-License-Identifier: Apache-2.0

import Foundation
import HTTPTypes
import Hummingbird
import NIOCore

/// The studio's page: one self-contained HTML file (its script and style inline, no CDN: a Pi
/// is often offline), shipped as a package resource and read once at start-up. Nothing else is
/// served from disk, so no request path can reach another file.
public struct StudioPage: Sendable {
    /// The page's bytes.
    public let html: [UInt8]

    /// Why the page could not be found.
    public struct Missing: Error, CustomStringConvertible {
        public var searched: [String]
        public var description: String {
            "the studio's page (studio.html) is missing; install haptic-studio together with its resource folder "
                + "swift-haptics-studio_HapticStudio.resources (looked in \(searched.joined(separator: ", ")))"
        }
    }

    /// A page of the given bytes (tests).
    public init(html: [UInt8]) {
        self.html = html
    }

    /// Finds the page: `$HAPTIC_STUDIO_PAGE`, the resource folder beside the executable, or the
    /// one SwiftPM built. Throws, rather than crash as `Bundle.module` would, when it is absent.
    /// The executable is the kernel's `/proc/self/exe`: run from PATH, `argv[0]` is a bare name
    /// that would be looked up in the working directory.
    public static func load() throws -> StudioPage {
        let folder = "swift-haptics-studio_HapticStudio.resources"
        let running = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0]
        let executable = URL(fileURLWithPath: running).resolvingSymlinksInPath().deletingLastPathComponent()
        var candidates: [String] = []
        if let override = ProcessInfo.processInfo.environment["HAPTIC_STUDIO_PAGE"] { candidates.append(override) }
        candidates.append(executable.appendingPathComponent(folder).appendingPathComponent("studio.html").path)
        if let bundled = Bundle.allBundles.lazy.compactMap({ $0.url(forResource: "studio", withExtension: "html") }).first {
            candidates.append(bundled.path)
        }
        for path in candidates {
            if let data = FileManager.default.contents(atPath: path) { return StudioPage(html: Array(data)) }
        }
        throw Missing(searched: candidates)
    }

    /// The page, never cached (it is small, and a stale page after an upgrade is confusing).
    func response() -> Response {
        Response(
            status: .ok,
            headers: [
                .contentType: "text/html; charset=utf-8", .cacheControl: "no-store",
                .contentSecurityPolicy: "default-src 'self'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; connect-src 'self'; img-src 'self' data:",
                HTTPField.Name("X-Frame-Options")!: "DENY"
            ],
            body: .init(byteBuffer: ByteBuffer(bytes: html)))
    }
}
