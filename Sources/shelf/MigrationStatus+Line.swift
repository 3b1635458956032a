import Foundation
import ShelfStore

extension MigrationStatus {
    /// One line of `shelf migrate --status`.
    var line: String {
        let padded = name.padding(toLength: max(name.count, 36), withPad: " ", startingAt: 0)
        switch state {
        case .applied(let date): return "\(padded)  applied   \(date.formatted(.iso8601))"
        case .pending: return "\(padded)  pending"
        case .modified(let date):
            return "\(padded)  MODIFIED  \(date.formatted(.iso8601))  (edited after it was applied)"
        case .unknown(let date): return "\(padded)  UNKNOWN   \(date.formatted(.iso8601))  (from a newer shelf)"
        }
    }
}
