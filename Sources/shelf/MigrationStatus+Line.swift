import Foundation
import ShelfStore

extension MigrationStatus {
    /// One line of `shelf migrate --status`, its name padded to `width` characters (at least
    /// the name's own) so that the states of every line start in one column.
    func line(nameWidth width: Int) -> String {
        let padded = name.padding(toLength: max(name.count, width), withPad: " ", startingAt: 0)
        switch state {
        case .applied(let date): return "\(padded)  applied   \(date.formatted(.iso8601))"
        case .pending: return "\(padded)  pending"
        case .modified(let date):
            return "\(padded)  MODIFIED  \(date.formatted(.iso8601))  (edited after it was applied)"
        case .unknown(let date): return "\(padded)  UNKNOWN   \(date.formatted(.iso8601))  (from a newer shelf)"
        }
    }
}

extension [MigrationStatus] {
    /// The lines of `shelf migrate --status`: every name padded to the longest one.
    var lines: [String] {
        let width = map(\.name.count).max() ?? 0
        return map { $0.line(nameWidth: width) }
    }
}
