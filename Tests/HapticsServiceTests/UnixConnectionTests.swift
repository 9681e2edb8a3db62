// SPDX-License-Identifier: Apache-2.0

import Foundation
import HapticsService
import HardwareAccess
import Testing

/// A connection's buffered reads: frames cut from whatever arrived, however the peer's writes
/// fell on the wire.
@Suite struct UnixConnectionTests {
    /// Both ends of a fresh connection.
    private static func pair() throws -> (listener: UnixListener, client: UnixConnection, server: UnixConnection) {
        let path = NSTemporaryDirectory() + "unix-connection-\(UUID().uuidString.prefix(8)).sock"
        let listener = try UnixListener(path: path)
        let client = try UnixConnection.connect(to: path)
        let server = try #require(listener.accept(timeout: .seconds(2)))
        return (listener, client, server)
    }

    private static func frame(_ feedback: String) throws -> [UInt8] {
        var request = ServiceRequest(.play)
        request.feedback = feedback
        return try ServiceFrame.encode(request)
    }

    @Test func framesAreCutFromWhateverArrived() throws {
        let (listener, client, server) = try Self.pair()
        defer { listener.close() }
        let third = try Self.frame("success")
        try client.send(try Self.frame("selection") + Self.frame("impact-heavy") + third[0..<9])
        #expect(server.waitForInput(timeout: .seconds(2)) == .readable)
        let first = try #require(try server.readFrame(timeout: .seconds(1)))
        // The second is already here: no wait, no system call needed to know it.
        #expect(server.waitForInput(timeout: .zero) == .readable)
        let second = try #require(try server.readFrame(timeout: .seconds(1)))
        #expect(try ServiceFrame.decode(ServiceRequest.self, from: first).feedback == "selection")
        #expect(try ServiceFrame.decode(ServiceRequest.self, from: second).feedback == "impact-heavy")
        // The start of a third came with them; its rest comes later and joins it.
        try client.send(Array(third[9...]))
        #expect(try server.readFrame(timeout: .seconds(1)) == Array(third[4...]))
        #expect(server.waitForInput(timeout: .milliseconds(20)) == .timedOut)
        #expect(server.waitForInput(timeout: .zero) == .timedOut)
        // A zero timeout still looks at what the kernel holds (a Unix socket's send has queued
        // the bytes at the peer by the time it returns).
        try client.send(try Self.frame("selection"))
        #expect(server.waitForInput(timeout: .zero) == .readable)
        #expect(try server.readFrame(timeout: .seconds(1)) != nil)
        client.close()
        #expect(server.waitForInput(timeout: .seconds(2)) == .closed)
        #expect(try server.readFrame(timeout: .seconds(1)) == nil, "a clean end between messages")
    }

    @Test func aFrameSplitAcrossWritesIsReadWhole() throws {
        let (listener, client, server) = try Self.pair()
        defer { listener.close() }
        let frame = try Self.frame("notification-success")
        try client.send(Array(frame[0..<3]))
        let rest = Thread {
            Thread.sleep(forTimeInterval: 0.05)
            try? client.send(Array(frame[3...]))
        }
        rest.start()
        #expect(server.waitForInput(timeout: .seconds(2)) == .readable)
        let payload = try #require(try server.readFrame(timeout: .seconds(2)))
        #expect(payload == Array(frame[4...]))
    }

    @Test func aPeerThatLeavesInTheMiddleOfAFrameIsAnError() throws {
        let (listener, client, server) = try Self.pair()
        defer { listener.close() }
        let frame = try Self.frame("selection")
        try client.send(Array(frame[0..<10]))
        client.close()
        #expect(server.waitForInput(timeout: .seconds(2)) == .readable)
        #expect(throws: ServiceSocketError.self) { _ = try server.readFrame(timeout: .seconds(1)) }
    }
}
