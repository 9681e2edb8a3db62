// SPDX-License-Identifier: Apache-2.0

import HapticStudio
import Testing

/// Who may drive the actuator through the studio.
@Suite struct StudioAccessTests {
    let loopback = StudioAccess(loopbackOnly: true, token: nil)

    @Test func theStudiosOwnPageAndScriptsOnLoopbackPass() {
        #expect(loopback.refusal(host: "127.0.0.1:8080", origin: nil, presentedToken: nil) == nil)
        #expect(loopback.refusal(host: "localhost:8080", origin: "http://localhost:8080", presentedToken: nil) == nil)
        #expect(loopback.refusal(host: "[::1]:8080", origin: "http://[::1]:8080", presentedToken: nil) == nil)
    }

    @Test func anotherPageIsRefused() {
        #expect(loopback.refusal(host: "127.0.0.1:8080", origin: "http://evil.example", presentedToken: nil) != nil)
        // Same host, another port: another origin.
        #expect(loopback.refusal(host: "127.0.0.1:8080", origin: "http://127.0.0.1:9090", presentedToken: nil) != nil)
        #expect(loopback.refusal(host: "127.0.0.1:8080", origin: "null", presentedToken: nil) != nil)
    }

    @Test func aForeignHostNameOnLoopbackIsRefused() {
        // DNS rebinding: evil.example resolved to 127.0.0.1, so the browser thinks it is same-origin.
        #expect(loopback.refusal(host: "evil.example:8080", origin: "http://evil.example:8080", presentedToken: nil) != nil)
        #expect(loopback.refusal(host: nil, origin: nil, presentedToken: nil) != nil)
        #expect(loopback.refusal(host: "127.example.com", origin: nil, presentedToken: nil) != nil)
    }

    @Test func beyondLoopbackTheTokenIsRequired() {
        let open = StudioAccess(loopbackOnly: false, token: "s3cret")
        #expect(open.refusal(host: "pi.local:8080", origin: nil, presentedToken: nil) != nil)
        #expect(open.refusal(host: "pi.local:8080", origin: nil, presentedToken: "guess") != nil)
        #expect(open.refusal(host: "pi.local:8080", origin: "http://pi.local:8080", presentedToken: "s3cret") == nil)
        #expect(open.refusal(host: "pi.local:8080", origin: "http://elsewhere", presentedToken: "s3cret") != nil)
        #expect(StudioAccess.makeToken().count == 32 && StudioAccess.makeToken() != StudioAccess.makeToken())
    }
}
