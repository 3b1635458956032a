internal import Foundation

/// How long a write waits for a lock another process or session holds before it fails and
/// names the holder: 60 s unless `Store.Configuration.writeTimeout` says otherwise, on every
/// backend (SQLite's write lock, PostgreSQL's row and table locks).
package enum WriteTimeout {
    /// The timeout when nothing sets another: 60 s.
    package static let defaultDuration: Duration = .seconds(60)

    /// `duration` in words: "60 s", "1.5 s", "200 ms".
    package static func text(_ duration: Duration) -> String {
        let milliseconds = duration.components.seconds * 1000 + duration.components.attoseconds / 1_000_000_000_000_000
        if milliseconds < 1000 { return "\(milliseconds) ms" }
        if milliseconds % 1000 == 0 { return "\(milliseconds / 1000) s" }
        return String(format: "%.1f s", Double(milliseconds) / 1000)
    }
}
