internal import Foundation

/// How long a database call may run before the diagnostics log calls it slow; the same for
/// every backend (`SHELF_SLOW_QUERY_MS`, 100 ms by default).
package enum SlowCallThreshold {
    /// The threshold as a duration.
    package static let duration: Duration = {
        if let text = ProcessInfo.processInfo.environment["SHELF_SLOW_QUERY_MS"], let milliseconds = Int64(text),
            milliseconds >= 0
        {
            return .milliseconds(milliseconds)
        }
        return .milliseconds(100)
    }()
}
