// SPDX-License-Identifier: Apache-2.0

import Foundation
import HTTPTypes
import Haptics
import Hummingbird
import HummingbirdWebSocket
import Logging
import NIOCore

/// The studio's web server: one self-contained page, the JSON API it uses (scripts can use it
/// too), and the live WebSocket. Every request passes `StudioAccess` first.
///
/// - `GET /` the page
/// - `GET /api/effects` the ROM effects
/// - `POST /api/play[?name=F][&loop=1]` plays the AHAP (or `.haptic`) body, answers once it ended
/// - `POST /api/render` the pattern's curves and the simulated actuator's drive
/// - `POST /api/import?name=F` the file as the library reads it back (AHAP text and warnings)
/// - `POST /api/convert?name=F` a sound (the body) made into a pattern: AHAP and its transients
/// - `POST /api/export?format=haptic` the AHAP (or `.haptic`) body as Meta's `.haptic`, with warnings
/// - `POST /api/stop` stops the actuator
/// - `GET /api/live` WebSocket: feel, audition, stop
public struct StudioServer: Sendable {
    /// Where and how to serve.
    public struct Configuration: Sendable {
        /// The address to bind (`127.0.0.1` unless `--listen`).
        public var host = "127.0.0.1"
        /// The port; 0 picks a free one (tests).
        public var port = 8080
        /// Who may use it.
        public var access = StudioAccess(loopbackOnly: true, token: nil)
        /// A studio configuration with the defaults above.
        public init() {}
    }

    public let playback: StudioPlayback
    public let live: StudioLive
    public let page: StudioPage
    public let configuration: Configuration
    let logger: Logger

    /// A server for `playback`, serving `page`.
    public init(playback: StudioPlayback, page: StudioPage, configuration: Configuration, logger: Logger = Logger(label: "haptic-studio")) {
        self.playback = playback
        self.live = StudioLive(playback: playback)
        self.page = page
        self.configuration = configuration
        self.logger = logger
    }

    /// The routes, behind the access check.
    public func router() -> Router<BasicWebSocketRequestContext> {
        let router = Router(context: BasicWebSocketRequestContext.self)
        router.middlewares.add(StudioAccessMiddleware(access: configuration.access))
        let playback = playback
        let live = live
        let page = page
        let limit = playback.limits.maximumPatternBytes

        router.get("/") { _, _ in page.response() }
        router.get("/api/effects") { _, _ in StudioResponses.json(playback.effects()) }
        router.post("/api/play") { request, _ in
            switch try await Self.body(request, playback: playback, limit: limit) {
            case let .refused(response): return response
            case let .document(document, name):
                let loop = request.uri.queryParameters["loop"].map { $0 == "1" || $0 == "true" } ?? false
                return StudioResponses.json(await playback.play(document, name: name, loop: loop))
            }
        }
        router.post("/api/render") { request, _ in
            switch try await Self.body(request, playback: playback, limit: limit) {
            case let .refused(response): return response
            case let .document(document, _):
                do throws(StudioError) { return StudioResponses.json(try playback.render(document)) } catch { return StudioResponses.error(error) }
            }
        }
        router.post("/api/import") { request, _ in
            switch try await Self.body(request, playback: playback, limit: limit) {
            case let .refused(response): return response
            case let .document(document, _):
                do throws(StudioError) { return StudioResponses.json(try playback.importReport(document)) } catch { return StudioResponses.error(error) }
            }
        }
        router.post("/api/convert") { request, _ in
            let name = request.uri.queryParameters["name"].map { String($0.prefix(200)) } ?? "sound.wav"
            let soundLimit = playback.limits.maximumSoundBytes
            if let length = request.headers[.contentLength].flatMap({ Int($0) }), length > soundLimit {
                return StudioResponses.error(.tooLarge(bytes: length, limit: soundLimit))
            }
            let bytes: ByteBuffer
            do {
                bytes = try await request.body.collect(upTo: soundLimit)
            } catch is NIOTooManyBytesError {
                return StudioResponses.error(.tooLarge(bytes: soundLimit + 1, limit: soundLimit))
            }
            do throws(StudioError) {
                return StudioResponses.json(try playback.convert(sound: Array(buffer: bytes), name: name))
            } catch {
                return StudioResponses.error(error)
            }
        }
        router.post("/api/export") { request, _ in
            guard request.uri.queryParameters["format"] == "haptic" else {
                return StudioResponses.error(.badRequest("export needs format=haptic (AHAP is exported by the page itself)"))
            }
            switch try await Self.body(request, playback: playback, limit: limit) {
            case let .refused(response): return response
            case let .document(document, _):
                do throws(StudioError) { return StudioResponses.json(try playback.metaExport(document)) } catch { return StudioResponses.error(error) }
            }
        }
        router.post("/api/stop") { _, _ in
            StudioResponses.json(["stopped": playback.stop()])
        }
        router.ws("/api/live") { inbound, outbound, _ in
            let hello = live.connected()
            defer { live.disconnected() }
            try await outbound.write(.text(Self.text(hello)))
            for try await message in inbound.messages(maxSize: 4096) {
                guard case let .text(text) = message else { continue }
                try await outbound.write(.text(Self.text(live.handle(text))))
            }
        }
        return router
    }

    static func text(_ reply: StudioLive.Reply) -> String {
        String(decoding: (try? StudioResponses.encoder.encode(reply)) ?? Data("{}".utf8), as: UTF8.self)
    }

    /// A request body read as a pattern, or the response saying why it is not one.
    enum Body {
        case document(PatternDocument, name: String)
        case refused(Response)
    }

    /// Reads the body (at most `limit` bytes: more is 413) as the pattern file `?name=` (400 or
    /// 422 when it is not one).
    static func body(_ request: Request, playback: StudioPlayback, limit: Int) async throws -> Body {
        let name = request.uri.queryParameters["name"].map { String($0.prefix(200)) } ?? "studio.ahap"
        if let length = request.headers[.contentLength].flatMap({ Int($0) }), length > limit {
            return .refused(StudioResponses.error(.tooLarge(bytes: length, limit: limit)))
        }
        let bytes: ByteBuffer
        do {
            bytes = try await request.body.collect(upTo: limit)
        } catch is NIOTooManyBytesError {
            return .refused(StudioResponses.error(.tooLarge(bytes: limit + 1, limit: limit)))
        }
        do {
            return .document(try playback.document(from: Array(buffer: bytes), name: name), name: name)
        } catch {
            return .refused(StudioResponses.error(error))
        }
    }

    /// Serves until SIGINT or SIGTERM, then stops the actuator. `onRunning` gets the bound port.
    public func run(onRunning: @escaping @Sendable (Int) async -> Void = { _ in }) async throws {
        let router = router()
        let app = Application(
            router: router, server: .http1WebSocketUpgrade(webSocketRouter: router),
            configuration: .init(address: .hostname(configuration.host, port: configuration.port), serverName: "haptic-studio"),
            onServerRunning: { channel in await onRunning(channel.localAddress?.port ?? 0) },
            logger: logger)
        defer { playback.stop() }
        try await app.runService()
    }
}
