internal import ShelfSQLite

/// How long a database call may run before the diagnostics log calls it slow; the same for
/// every backend (`SHELF_SLOW_QUERY_MS`, 100 ms by default).
package enum SlowCallThreshold {
    /// The threshold as a duration.
    package static var duration: Duration { .nanoseconds(Diagnostics.slowStatementNanoseconds) }
}
