// SPDX-License-Identifier: Apache-2.0

import Foundation
import HTTPTypes
import Hummingbird

#if canImport(Glibc)
    import Glibc
#endif

/// Who may use the studio. A web page elsewhere must never drive the actuator: browsers send
/// `Origin` with every POST and WebSocket upgrade, and only the studio's own page may pass. A
/// loopback studio also checks `Host`, so a foreign name resolved to 127.0.0.1 (DNS rebinding)
/// is refused; a studio listening beyond loopback needs its token instead.
public struct StudioAccess: Sendable {
    /// The token required of every request, or nil on loopback.
    public var token: String?
    /// Whether only loopback host names are served (no `--listen`).
    public var loopbackOnly: Bool

    /// Access for a studio listening at `host`; a token is required beyond loopback.
    public init(loopbackOnly: Bool, token: String?) {
        self.loopbackOnly = loopbackOnly
        self.token = token
    }

    /// Whether `host` names this machine's loopback interface.
    public static func isLoopback(_ host: String) -> Bool {
        let bare = host.trimmingCharacters(in: CharacterSet(charactersIn: "[]")).lowercased()
        if bare == "localhost" || bare == "::1" { return true }
        var address = in_addr()
        return inet_pton(AF_INET, bare, &address) == 1 && UInt32(bigEndian: address.s_addr) >> 24 == 127
    }

    /// A fresh token: 128 random bits in hex.
    public static func makeToken() -> String {
        var generator = SystemRandomNumberGenerator()
        return (0..<4).map { _ in String(format: "%08x", generator.next() as UInt32) }.joined()
    }

    /// The host part of a `Host` header or an origin's authority (`[::1]:8080` → `[::1]`).
    static func hostName(_ authority: Substring) -> String {
        if authority.hasPrefix("["), let close = authority.firstIndex(of: "]") { return String(authority[...close]) }
        return String(authority.split(separator: ":", maxSplits: 1).first ?? "")
    }

    /// Nil when the request may proceed, else why not.
    public func refusal(host: String?, origin: String?, presentedToken: String?) -> String? {
        guard let host, !host.isEmpty else { return "the request has no Host header" }
        if loopbackOnly, !Self.isLoopback(Self.hostName(Substring(host))) {
            return "this studio serves loopback only (localhost, 127.0.0.1, [::1]), not \(host); start it with --listen to serve other names"
        }
        if let origin, origin != "http://\(host)" {
            return "requests from the page at \(origin) are refused: only the studio's own page (http://\(host)) may drive the actuator"
        }
        if let token, presentedToken != token {
            return "this studio needs its token (printed when it started): open the page as /?token=…, or send Authorization: Bearer …"
        }
        return nil
    }
}

/// Applies `StudioAccess` to every request, the page and the WebSocket upgrade included.
struct StudioAccessMiddleware<Context: RequestContext>: RouterMiddleware {
    let access: StudioAccess

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        let bearer = request.headers[.authorization].flatMap { value -> String? in
            value.hasPrefix("Bearer ") ? String(value.dropFirst(7)) : nil
        }
        let presented = bearer ?? request.uri.queryParameters["token"].map(String.init)
        if let reason = access.refusal(host: request.head.authority, origin: request.headers[.origin], presentedToken: presented) {
            return StudioResponses.error(.forbidden, reason)
        }
        return try await next(request, context)
    }
}
