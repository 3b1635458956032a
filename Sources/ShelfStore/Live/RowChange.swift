/// One change to one row, as the store's change log holds it: what a change stream
/// (`GET /api/changes`) passes on, with the row read again as it is now.
package struct RowChange: Sendable, Hashable {
    /// What happened to the row.
    package enum Operation: String, Sendable {
        case insert, update, delete
    }

    /// The change's position in the log: each change has a higher one than the change before.
    package let sequence: Int64
    /// The table: `items` or `users`.
    package let table: String
    /// The row's ID in that table.
    package let rowID: Int64
    /// Insert, update or delete.
    package let operation: Operation

    /// A change.
    package init(sequence: Int64, table: String, rowID: Int64, operation: Operation) {
        self.sequence = sequence
        self.table = table
        self.rowID = rowID
        self.operation = operation
    }
}

/// What one read of the change log after a position found, from one snapshot.
package struct ChangeLogExcerpt: Sendable, Hashable {
    /// The changes after the position asked for, in log order, each the one right after the
    /// one before (the first right after the position): at most the limit asked for.
    package let changes: [RowChange]
    /// The log's last position in the snapshot (0 before the first change).
    package let head: Int64
    /// True when the change that should follow the last one returned (or the position, when
    /// none is) is not in the log although `head` lies past it: it was pruned, or the change
    /// was never logged row by row (a bulk import). A reader cannot follow the changes past
    /// that point one by one and must read the rows again.
    package let interrupted: Bool

    /// An excerpt.
    package init(changes: [RowChange], head: Int64, interrupted: Bool) {
        self.changes = changes
        self.head = head
        self.interrupted = interrupted
    }
}

/// Keeps a change-log watch (`Store.watchChangeLog`) going: the watch ends when this is
/// released.
package final class ChangeLogWatch: Sendable {
    private let registration: any Sendable

    /// A watch that lasts as long as `registration` is held.
    package init(holding registration: any Sendable) {
        self.registration = registration
    }
}

extension Store {
    /// True when this store's backend can stream its change log (`changeLog(after:limit:)`,
    /// `watchChangeLog(_:)`).
    package var streamsChangeLog: Bool { backend.streamsChangeLog }

    /// Up to `limit` changes after `position` in the change log, with the log's head, from
    /// one snapshot. Positions are those of `LivePosition` and of the live windows.
    /// - Throws: `StoreError` (`.invalidValue` on a backend that does not stream its log).
    package func changeLog(after position: Int64, limit: Int) async throws -> ChangeLogExcerpt {
        try await backend.changeLog(after: position, limit: limit)
    }

    /// Calls `onChange` (on a queue of the store's; keep it short) after every commit that may
    /// have logged changes, in this process or another, until the returned watch is released.
    /// A commit made before this returns may or may not call it: read the log after it.
    /// - Throws: `StoreError` (`.invalidValue` on a backend that does not stream its log).
    package func watchChangeLog(_ onChange: @escaping @Sendable () -> Void) async throws -> ChangeLogWatch {
        try await backend.watchChangeLog(onChange)
    }
}
