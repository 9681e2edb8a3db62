// SPDX-License-Identifier: Apache-2.0

import Dispatch
import Foundation
import HardwareAccess

/// Stops every engine's actuator when the process ends: on SIGINT and SIGTERM (then exits with
/// 130) and on a normal `exit()`.
///
/// Call `ExitGuard.install()` first thing in `main`, before anything starts a thread. libdispatch
/// receives signals through signalfd, which only works while the signal is blocked in every
/// thread; a thread that does not block it (one started earlier, such as an engine's worker) would
/// take the default action and kill the process with the motor running. Blocking the signals in
/// the main thread before other threads exist makes every thread inherit the mask.
public enum ExitGuard {
    private struct WeakEngine: @unchecked Sendable { weak var engine: HapticEngine? }
    private static let engines = Locked<[WeakEngine]>([])
    private static let installed = Locked(false)
    /// Taken by whichever exit path runs first and never given back: a signal arriving while the
    /// main thread returns (or the reverse) cannot race two exits with different codes.
    private static let exitGate = DispatchSemaphore(value: 1)
    /// Written once by `install()` on the main thread before other threads exist; only keeps the
    /// sources alive.
    nonisolated(unsafe) private static var sources: [any DispatchSourceSignal] = []

    /// Blocks SIGINT and SIGTERM in the calling thread, and so in every thread it starts after,
    /// for a program that takes those signals through libdispatch itself (a daemon's service
    /// group) rather than through `install()`. Call it first thing in `main`.
    public static func blockTerminationSignals() {
        var blocked = sigset_t()
        sigemptyset(&blocked)
        sigaddset(&blocked, SIGINT)
        sigaddset(&blocked, SIGTERM)
        pthread_sigmask(SIG_BLOCK, &blocked, nil)
    }

    /// Installs the signal and exit handlers. Idempotent.
    public static func install(exitCode: Int32 = 130, message: String? = "interrupted; actuator stopped") {
        let first = installed.withLock { done -> Bool in
            defer { done = true }
            return !done
        }
        guard first else { return }
        blockTerminationSignals()
        for signalNumber in [SIGINT, SIGTERM] {
            let source = DispatchSource.makeSignalSource(signal: signalNumber, queue: .global())
            source.setEventHandler {
                exitGate.wait()
                let failed = stopAll()
                // What was printed so far (a bus trace, say, whose last lines are the stop writes)
                // must not be lost to _exit.
                fflush(nil)  // every output stream; nil avoids touching the global `stdout`
                let name = CommandLine.arguments.first.map { ($0 as NSString).lastPathComponent } ?? "haptics"
                if failed > 0 {
                    FileHandle.standardError.write(Data("\(name): interrupted; could not stop \(failed) chip(s): see the error above\n".utf8))
                    _exit(1)
                }
                if let message { FileHandle.standardError.write(Data("\(name): \(message)\n".utf8)) }
                _exit(exitCode)
            }
            source.resume()
            sources.append(source)
        }
        atexit {
            // If a signal handler is already stopping everything, wait here for its _exit.
            ExitGuard.exitGate.wait()
            ExitGuard.stopAll()
        }
    }

    /// Stops every live engine's actuator and puts its chip to sleep; returns how many could not be.
    @discardableResult
    public static func stopAll() -> Int {
        engines.withLock({ $0.compactMap(\.engine) }).filter { !$0.shutdown() }.count
    }

    /// Every engine registers itself when it starts.
    static func register(_ engine: HapticEngine) {
        engines.withLock { list in
            list.removeAll { $0.engine == nil }
            list.append(WeakEngine(engine: engine))
        }
    }
}
