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

/// Seqs after a reader's position that are not visible yet and may still commit, each with
/// the transactions that may hold it: what a reader of a log whose positions commit out of
/// order (PostgreSQL) passes from one read to the next, so that a seq it waits for is known
/// settled as soon as those transactions have ended. Opaque above the backends; SQLite, whose
/// positions commit in order, never has any.
package struct ChangeLogPending: Sendable, Hashable {
    /// Seqs not visible yet, and the IDs of the transactions one of which may hold them.
    package struct Gap: Sendable, Hashable {
        package var seqs: ClosedRange<Int64>
        package var holders: Set<Int64>

        package init(seqs: ClosedRange<Int64>, holders: Set<Int64>) {
            self.seqs = seqs
            self.holders = holders
        }
    }

    /// The gaps above the reader's position, in seq order.
    package var gaps: [Gap]

    /// Nothing pending (a reader's first read).
    package init(gaps: [Gap] = []) {
        self.gaps = gaps
    }

    /// True when nothing is pending.
    package var isEmpty: Bool { gaps.isEmpty }
}

/// Where a reader that follows the change log from now on starts (`Store.changeLogStart()`):
/// the changes from now on are those after `head`, and those at or below it that were not
/// visible when the start was taken (`owed`: their transactions were in progress, and may
/// still commit). Read from `position`, and pass over what `includes` refuses.
package struct ChangeLogStart: Sendable, Hashable {
    /// The position to read the log after: `head`, or below the lowest of `owed`.
    package var position: Int64
    /// The log's highest visible position when the start was taken.
    package var head: Int64
    /// Positions at or below `head` that were not visible then and may still commit.
    package var owed: [ClosedRange<Int64>]

    package init(position: Int64, head: Int64, owed: [ClosedRange<Int64>] = []) {
        self.position = position
        self.head = head
        self.owed = owed
    }

    /// True when the change at `seq` is one from now on: after `head`, or owed.
    package func includes(_ seq: Int64) -> Bool {
        seq > head || owed.contains { $0.contains(seq) }
    }
}

/// What one read of the change log after a position found, from one snapshot.
package struct ChangeLogExcerpt: Sendable, Hashable {
    /// The changes after the position asked for, in log order: at most the limit asked for.
    /// On SQLite each is the one right after the one before (the first right after the
    /// position); on PostgreSQL, whose seqs are not consecutive (a rolled-back transaction
    /// uses some), every seq between two changes returned never commits.
    package let changes: [RowChange]
    /// The log's last position in the snapshot (0 before the first change).
    package let head: Int64
    /// True when the change that should follow the last one returned (or the position, when
    /// none is) is not in the log although `head` lies past it: it was pruned, or the change
    /// was never logged row by row (a bulk import, a TRUNCATE). A reader cannot follow the
    /// changes past that point one by one and must read the rows again.
    package let interrupted: Bool
    /// Where the next read starts (`changeLog(after: next, …)`): the last change returned, or
    /// past entries the stream does not show (saved views), or the position asked for.
    package let next: Int64
    /// True when the log holds more changes after `next` that can be read at once (the read
    /// stopped at its limit).
    package let hasMore: Bool
    /// What the next read must be given (`changeLog(after:limit:pending:)`). Not empty when
    /// changes after `next` are visible but held back: a transaction that began before them
    /// may still commit a change that comes first. Read again shortly (the transactions
    /// holding them may roll back, which no wake-up announces).
    package let pending: ChangeLogPending

    /// An excerpt. `next` defaults to the last change's position, or `after`.
    package init(
        changes: [RowChange], head: Int64, interrupted: Bool, after: Int64, limit: Int,
        next: Int64? = nil, hasMore: Bool? = nil, pending: ChangeLogPending = ChangeLogPending()
    ) {
        self.changes = changes
        self.head = head
        self.interrupted = interrupted
        self.next = next ?? changes.last?.sequence ?? after
        self.hasMore = hasMore ?? (changes.count >= limit)
        self.pending = pending
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
    /// one snapshot. Positions are those of `LivePosition` and of the live windows. Pass the
    /// `pending` of the excerpt before (none for a reader's first read): a change that
    /// commits late with a lower position than others already visible is never skipped;
    /// changes after it wait until it commits or its transaction ends.
    /// - Throws: `StoreError` (`.invalidValue` on a backend that does not stream its log).
    package func changeLog(
        after position: Int64, limit: Int, pending: ChangeLogPending = ChangeLogPending()
    ) async throws -> ChangeLogExcerpt {
        try await backend.changeLog(after: position, limit: limit, pending: pending)
    }

    /// Where to follow the change log from (`changeLog(after:limit:pending:)`) so as to miss
    /// no change committed after this call returns, and to pass over (`ChangeLogStart.includes`)
    /// every change visible before it: the log's head on SQLite; on PostgreSQL the head, or
    /// below it while transactions that may hold lower positions are in progress (those
    /// positions are then `owed`: a transaction holding one more than 4096 positions below the
    /// head is not waited for).
    /// - Throws: `StoreError` (`.invalidValue` on a backend that does not stream its log).
    package func changeLogStart() async throws -> ChangeLogStart {
        try await backend.changeLogStart()
    }

    /// Calls `onChange` (on a queue of the store's; keep it short) after every commit that may
    /// have logged changes, in this process or another, until the returned watch is released.
    /// A commit made before this returns may or may not call it: read the log after it.
    /// - Throws: `StoreError` (`.invalidValue` on a backend that does not stream its log).
    package func watchChangeLog(_ onChange: @escaping @Sendable () -> Void) async throws -> ChangeLogWatch {
        try await backend.watchChangeLog(onChange)
    }

    /// While the connection that watches for changes (`watchChangeLog`) has lost its database
    /// server: when it last heard from it, which is about when the server fell silent or went
    /// away (a watch is told of the loss only some seconds later, PostgreSQL's
    /// `ChangeListener.readLimit` and loss grace: 11-12 s). Nil while it hears the server, and
    /// on a backend whose watch cannot lose one (SQLite).
    package var changeFeedSilentSince: ContinuousClock.Instant? { backend.changeFeedSilentSince }
}
