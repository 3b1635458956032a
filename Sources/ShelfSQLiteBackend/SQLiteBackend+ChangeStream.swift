internal import ShelfReactive
internal import ShelfSQLite
internal import ShelfStore

/// The change stream of a SQLite store: `shelf_change_log` read in order (see
/// `SQLiteChangeLog` for why its positions are consecutive, so that a missing one means a
/// change pruned or never logged), and the change tracker's wake-ups.
extension SQLiteBackend {
    var streamsChangeLog: Bool { true }

    func changeLog(after position: Int64, limit: Int, pending: ChangeLogPending) async throws -> ChangeLogExcerpt {
        if limit < 1 { throw StoreError(.invalidValue, "a change-log read needs a limit of 1 or more, not \(limit)") }
        do {
            return try await database.read { try Self.changeLog(after: position, limit: limit, $0) }
        } catch {
            throw StoreError.translatingAny(error)
        }
    }

    private static func changeLog(after position: Int64, limit: Int, _ connection: Connection) throws
        -> ChangeLogExcerpt
    {
        let head = try SQLiteChangeLog.lastSequence(connection)
        guard head > position else {
            return ChangeLogExcerpt(changes: [], head: head, interrupted: false, after: position, limit: limit)
        }
        var changes: [RowChange] = []
        var expected = position + 1
        var interrupted = false
        let statement = try connection.cachedStatement(
            "SELECT seq, table_name, row_id, operation FROM shelf_change_log WHERE seq > ? ORDER BY seq LIMIT ?")
        defer { statement.reset() }
        try statement.bind(position, Int64(limit))
        try statement.forEachRow { row in
            guard !interrupted else { return }
            let sequence = try row.int64(0)
            guard sequence == expected, let operation = RowChange.Operation(rawValue: try row.string(3)) else {
                interrupted = true
                return
            }
            expected = sequence + 1
            changes.append(
                RowChange(sequence: sequence, table: try row.string(1), rowID: try row.int64(2), operation: operation))
        }
        // Fewer rows than asked for, and the log's head not reached: the rest is not there.
        if !interrupted, changes.count < limit, expected <= head { interrupted = true }
        return ChangeLogExcerpt(changes: changes, head: head, interrupted: interrupted, after: position, limit: limit)
    }

    func watchChangeLog(_ onChange: @escaping @Sendable () -> Void) async throws -> ChangeLogWatch {
        try StoreError.translating { try database.checkOpen() }
        let observer = ChangeLogObserver(onChange)
        let tracker = database.changeTracker
        // The first registration reads the tracker's baseline, which blocks: on a thread of
        // its own, as the live windows register. Run to its end even when the caller is
        // cancelled: the observer is registered or the tracker is stopped.
        await BlockingWork.runToEnd { tracker.register(observer) }
        return ChangeLogWatch(holding: observer)
    }
}

/// A change-tracker observer of the logged tables that calls one closure; the tracker holds
/// it weakly, so releasing its `ChangeLogWatch` ends it.
private final class ChangeLogObserver: TableObserver {
    private let onChange: @Sendable () -> Void

    init(_ onChange: @escaping @Sendable () -> Void) { self.onChange = onChange }

    let observedTables: Set<String>? = ["items", "users"]

    func tablesDidChange() { onChange() }

    /// The next read fails and says why.
    func databaseDidFail(_ error: any Error) { onChange() }
}
