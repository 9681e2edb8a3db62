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
