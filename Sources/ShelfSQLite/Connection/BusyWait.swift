internal import CSQLite
internal import Synchronization

#if canImport(Glibc)
    internal import Glibc
#endif

/// How a connection waits for another process's lock: SQLite's busy handler, with a timeout
/// that can change (a checkpoint's shorter wait) and a wait that can be ended at once from
/// another thread (`ReadInterruption.cancel()`: Esc during a bulk write that waits for
/// another program's lock). SQLite's own `sqlite3_busy_timeout` handler can do neither, and
/// `sqlite3_interrupt` does not end its sleep.
package final class BusyWait: Sendable {
    /// How long one wait may last, in milliseconds; 0 or less: fail at once.
    private let timeout: Atomic<Int32>
    /// Set by `interrupt()`: the wait in progress (or the next) gives up.
    private let interrupted = Atomic<Bool>(false)
    /// When the current wait began (`count` 0), in nanoseconds of the monotonic clock.
    private let started = Atomic<UInt64>(0)
    /// When the handler last ran (0: never), in nanoseconds of the monotonic clock: a wait
    /// runs it at least every 20 ms.
    private let lastAsked = Atomic<UInt64>(0)

    init(milliseconds: Int32) {
        timeout = Atomic(milliseconds)
    }

    /// Sets how long a wait may last from now on.
    func setTimeout(milliseconds: Int32) {
        timeout.store(milliseconds, ordering: .relaxed)
    }

    /// Ends the wait in progress, and any that starts before `clearInterrupt()`: the
    /// statement fails with SQLITE_BUSY. Safe from any thread.
    func interrupt() {
        interrupted.store(true, ordering: .releasing)
    }

    func clearInterrupt() {
        interrupted.store(false, ordering: .releasing)
    }

    /// Installs this wait as `handle`'s busy handler. `self` must outlive the handle's use.
    func install(on handle: OpaquePointer) {
        sqlite3_busy_handler(handle, busyHandler, Unmanaged.passUnretained(self).toOpaque())
    }

    /// Whether to try again after the `count`-th busy answer of one wait (sleeping first).
    fileprivate func retry(count: Int32) -> Bool {
        if interrupted.load(ordering: .acquiring) { return false }
        let limit = Int64(timeout.load(ordering: .relaxed))
        guard limit > 0 else { return false }
        let now = Self.now()
        lastAsked.store(now, ordering: .relaxed)
        if count == 0 { started.store(now, ordering: .relaxed) }
        let elapsed = Int64((now &- started.load(ordering: .relaxed)) / 1_000_000)
        guard elapsed < limit else { return false }
        // SQLite's own steps, capped at 20 ms so that an interrupt is heard within that.
        let steps: [Int64] = [1, 2, 5, 10, 15, 20]
        let step = min(steps[min(Int(count), steps.count - 1)], limit - elapsed)
        usleep(useconds_t(step * 1000))
        return !interrupted.load(ordering: .acquiring)
    }

    /// True while a wait is under way: the handler ran within the last 100 ms (a wait sleeps
    /// at most 20 ms between runs). Safe from any thread.
    var isWaiting: Bool {
        let last = lastAsked.load(ordering: .relaxed)
        return last != 0 && Self.now() &- last < 100_000_000
    }

    private static func now() -> UInt64 {
        var time = timespec()
        clock_gettime(CLOCK_MONOTONIC, &time)
        return UInt64(time.tv_sec) * 1_000_000_000 + UInt64(time.tv_nsec)
    }
}

private func busyHandler(_ context: UnsafeMutableRawPointer?, _ count: Int32) -> Int32 {
    guard let context else { return 0 }
    return Unmanaged<BusyWait>.fromOpaque(context).takeUnretainedValue().retry(count: count) ? 1 : 0
}

extension Database {
    /// `duration` in whole milliseconds, as SQLite's timeouts take them.
    static func milliseconds(_ duration: Duration) -> Int {
        Int(duration.components.seconds * 1000 + duration.components.attoseconds / 1_000_000_000_000_000)
    }
}
