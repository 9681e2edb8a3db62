import Dispatch
import Foundation
import Haptics
import Synchronization

/// Stops every actuator on SIGINT and SIGTERM, then exits with 130.
///
/// libdispatch receives signals through signalfd, which only works while the signal is blocked in
/// every thread; a thread that does not block it (one started before the sources existed, such as
/// an engine's worker) would take the default action and kill the process with the motor running.
/// So the signals are blocked in the main thread before any other thread starts — every thread
/// inherits the mask — and the sources are made right after.
enum SignalGuard {
    private static let engines = Mutex<[HapticEngine]>([])
    /// Written once, by `install()` on the main thread before any other thread exists; only kept
    /// so the sources stay alive.
    nonisolated(unsafe) private static var sources: [any DispatchSourceSignal] = []

    /// Call first thing in `main`, before anything starts a thread.
    static func install() {
        var blocked = sigset_t()
        sigemptyset(&blocked)
        sigaddset(&blocked, SIGINT)
        sigaddset(&blocked, SIGTERM)
        pthread_sigmask(SIG_BLOCK, &blocked, nil)
        for signalNumber in [SIGINT, SIGTERM] {
            let source = DispatchSource.makeSignalSource(signal: signalNumber, queue: .global())
            source.setEventHandler {
                for engine in engines.withLock({ $0 }) { engine.shutdown() }
                FileHandle.standardError.write(Data("haptic: interrupted; actuator stopped\n".utf8))
                exit(130)
            }
            source.resume()
            sources.append(source)
        }
    }

    /// Engines whose actuators a signal must stop.
    static func register(_ more: [HapticEngine]) {
        engines.withLock { $0 += more }
    }
}
