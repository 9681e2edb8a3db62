import HardwareAccess

/// Waits (at most `timeout`, real time) for a condition other threads make true, yielding the
/// thread meanwhile: a blocking wait in an async test would hold one of the few threads of the
/// cooperative pool that the studio's own tasks need to run.
func eventually(timeout: Duration = .seconds(3), _ condition: () -> Bool) async -> Bool {
    let deadline = SystemClock.shared.now.advanced(by: timeout)
    while !condition() {
        guard SystemClock.shared.now < deadline else { return false }
        await Task.yield()
    }
    return true
}
