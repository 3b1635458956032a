package import Foundation

/// The rows an import session has read and not yet written to its staging tables, in input
/// order, each numbered (its `seq`, which orders staged rows and rejects alike): what both
/// backends' sessions keep between `stage`/`reject` and a flush. A backend flushes when an
/// append says the batch is full, and at the end.
package struct ImportStagingQueue: Sendable {
    /// A row read: a user, an item, or a row refused while it was read (with the key it names,
    /// which a replace then keeps).
    package enum Row: Sendable {
        case user(Int64, ImportedUser, Data)
        case item(Int64, ImportedItem, Data)
        case reject(Int64, ImportReject, ImportRowKey)
    }

    /// How many rows make a batch.
    package let batchSize: Int
    private var rows: [Row] = []
    /// The last `seq` handed out: the number of rows read so far.
    package private(set) var lastSeq: Int64 = 0

    package init(batchSize: Int) {
        self.batchSize = batchSize
    }

    /// Queues a user; true when the batch is full (flush now).
    package mutating func append(_ user: ImportedUser, record: Data) -> Bool {
        lastSeq += 1
        rows.append(.user(lastSeq, user, record))
        return rows.count >= batchSize
    }

    /// Queues an item; true when the batch is full (flush now).
    package mutating func append(_ item: ImportedItem, record: Data) -> Bool {
        lastSeq += 1
        rows.append(.item(lastSeq, item, record))
        return rows.count >= batchSize
    }

    /// Queues a row refused while it was read, in its place; true when the batch is full.
    package mutating func appendReject(
        record: Data, line: Int?, column: Int?, field: String?, value: String?, reason: String, key: ImportRowKey
    ) -> Bool {
        lastSeq += 1
        let reject = ImportReject(
            seq: lastSeq, record: record, placed: true, line: line, column: column, field: field, value: value,
            reason: reason)
        rows.append(.reject(lastSeq, reject, key))
        return rows.count >= batchSize
    }

    /// The queued rows, in order; the queue is left empty.
    package mutating func take() -> [Row] {
        defer { rows.removeAll(keepingCapacity: true) }
        return rows
    }

    /// Drops the queued rows (the session is closing).
    package mutating func discard() {
        rows = []
    }
}
