internal import Synchronization

/// How long a database call may run before the diagnostics log calls it slow; the same for
/// every backend. Set from `Store.Configuration.slowQueryThreshold` when a store opens (the
/// logger is the process's, so the setting is too); 100 ms until then.
package enum SlowCallThreshold {
    private static let nanoseconds = Atomic<Int64>(100_000_000)

    /// The threshold as a duration.
    package static var duration: Duration { .nanoseconds(nanoseconds.load(ordering: .relaxed)) }

    /// Sets the threshold (negative counts as zero).
    package static func set(_ duration: Duration) {
        let value = duration.components.seconds * 1_000_000_000 + duration.components.attoseconds / 1_000_000_000
        nanoseconds.store(max(0, value), ordering: .relaxed)
    }
}
