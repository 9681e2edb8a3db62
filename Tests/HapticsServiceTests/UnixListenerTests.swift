// SPDX-License-Identifier: Apache-2.0

import Foundation
import HapticsService
import Synchronization
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// The daemon's listening socket as clients meet it: a socket file that exists accepts.
@Suite struct UnixListenerTests {
    /// A folder of the test's own, removed at the end.
    private static func folder() throws -> String {
        let path = NSTemporaryDirectory() + "unix-listener-\(UUID().uuidString.prefix(8))"
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: false)
        return path
    }

    /// A client polling for the file (as `haptic` and the tests do after starting hapticd) must
    /// never be refused: the file appears only once the socket listens. Bound in place, each
    /// listener's file exists for a few system calls before `listen`, and a thread connecting in
    /// a loop lands in that window within a few hundred tries. Refusals while a listener closes
    /// are expected (a connect that found the file as it went) and not counted: the phase is
    /// read before and after each connect. The rounds go on until the watcher has made 3000
    /// connects wholly inside a listener's opening (at least 1000 rounds, at most 30 s): on a
    /// loaded machine the watcher thread runs less, and a fixed count of rounds once let a socket
    /// file made before `listen` pass unseen.
    @Test func theSocketFileAppearsOnlyOnceItListens() throws {
        let directory = try Self.folder()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let path = directory + "/s.sock"
        // 3k: opening, 3k + 1: open, 3k + 2: closing.
        let phase = Atomic<Int>(0)
        let refused = Atomic<Int>(0)
        let duringOpening = Atomic<Int>(0)
        let running = Atomic<Bool>(true)
        let watcher = Thread {
            while running.load(ordering: .acquiring) {
                let before = phase.load(ordering: .acquiring)
                do {
                    try UnixConnection.connect(to: path).close()
                } catch let error as ServiceSocketError {
                    let after = phase.load(ordering: .acquiring)
                    if error.errno == ECONNREFUSED, before == after, before % 3 != 2 { refused.add(1, ordering: .relaxed) }
                } catch {}
                if before % 3 == 0, phase.load(ordering: .acquiring) == before { duringOpening.add(1, ordering: .relaxed) }
            }
        }
        watcher.start()
        let deadline = ContinuousClock.now + .seconds(30)
        var round = 0
        while round < 1000 || (duringOpening.load(ordering: .relaxed) < 3000 && refused.load(ordering: .relaxed) == 0 && ContinuousClock.now < deadline) {
            phase.store(3 * round, ordering: .releasing)
            let listener = try UnixListener(path: path)
            phase.store(3 * round + 1, ordering: .releasing)
            phase.store(3 * round + 2, ordering: .releasing)
            listener.close()
            round += 1
        }
        running.store(false, ordering: .releasing)
        #expect(refused.load(ordering: .relaxed) == 0, "\(refused.load(ordering: .relaxed)) connects refused by a socket file that did not listen yet")
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory).isEmpty, "a temporary socket name left behind")
    }

    /// The same promise, seen by the kernel rather than raced for: the directory's own events
    /// (inotify) show the socket's name appear only by the rename made after `listen`, never by
    /// a socket made there (a bind at the final name would be an IN_CREATE of it). The race
    /// above can miss a window of a few system calls on a loaded machine; this cannot.
    @Test func theNameAppearsOnlyByTheRenameAfterListen() throws {
        let directory = try Self.folder()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let watch = inotify_init1(Int32(O_NONBLOCK | O_CLOEXEC))
        try #require(watch >= 0, "inotify: \(String(cString: strerror(errno)))")
        defer { close(watch) }
        let created: UInt32 = 0x100
        let movedTo: UInt32 = 0x80  // IN_CREATE, IN_MOVED_TO
        try #require(inotify_add_watch(watch, directory, created | movedTo) >= 0)
        let listener = try UnixListener(path: directory + "/s.sock")
        defer { listener.close() }
        var buffer = [UInt8](repeating: 0, count: 8192)
        let count = read(watch, &buffer, buffer.count)
        try #require(count > 0, "no event from the directory")
        // struct inotify_event: wd, mask, cookie, len (4 bytes each), then len bytes of name.
        var events: [(mask: UInt32, name: String)] = []
        var offset = 0
        while offset + 16 <= count {
            let field = { (at: Int) in UInt32(buffer[at]) | UInt32(buffer[at + 1]) << 8 | UInt32(buffer[at + 2]) << 16 | UInt32(buffer[at + 3]) << 24 }
            let mask = field(offset + 4)
            let length = Int(field(offset + 12))
            let name = String(decoding: buffer[(offset + 16)..<(offset + 16 + length)].prefix { $0 != 0 }, as: UTF8.self)
            events.append((mask, name))
            offset += 16 + length
        }
        #expect(events.contains { $0.mask & movedTo != 0 && $0.name == "s.sock" }, "\(events)")
        #expect(!events.contains { $0.mask & created != 0 && $0.name == "s.sock" }, "a socket was made at the final name before it listened: \(events)")
    }

    /// Listening leaves exactly the socket named, with the mode asked for, and it answers.
    @Test func listeningLeavesOnlyTheSocketNamed() throws {
        let directory = try Self.folder()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let path = directory + "/hapticd.sock"
        let listener = try UnixListener(path: path, mode: 0o600)
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory) == ["hapticd.sock"])
        var info = stat()
        #expect(stat(path, &info) == 0 && info.st_mode & 0o777 == 0o600)
        let client = try UnixConnection.connect(to: path)
        #expect(listener.accept(timeout: .seconds(5)) != nil)
        client.close()
        listener.close()
        #expect(!FileManager.default.fileExists(atPath: path))
    }

    /// A folder that does not exist: an error naming the path, no file anywhere.
    @Test func aMissingFolderIsNamed() throws {
        let path = NSTemporaryDirectory() + "no-such-folder-\(UUID().uuidString.prefix(8))/hapticd.sock"
        #expect {
            _ = try UnixListener(path: path)
        } throws: { error in
            "\(error)".contains(path)
        }
    }
}
