internal import Foundation
internal import ShelfReactive
internal import ShelfSQLite
internal import ShelfStore

#if canImport(Glibc)
    internal import Glibc
#endif

// Bulk writes over an `ItemSelection`, recorded in bulk_actions (Migrations/0013).

extension SQLiteItemRepository {
    /// Items written per statement of a bulk write: the progress line moves, and Esc is
    /// heard, between them (a statement is interrupted too).
    static let bulkChunk = 50_000

    public func count(in selection: ItemSelection, status: Item.Status?) async throws -> Int {
        guard !selection.isEmpty else { return 0 }
        return try await database.storeRead { connection in
            try StoreError.translating {
                let sql = selection.sqliteCount(status: status)
                return try connection.fetchOne(sql.text, arguments: sql.arguments) { try $0.get(0, as: Int.self) } ?? 0
            }
        }
    }

    public func highestItemID() async throws -> Item.ID? {
        try await database.storeRead { connection in
            try StoreError.translating {
                // IDs start at 1: 0 means no items.
                let top = try connection.fetchOne("SELECT coalesce(max(id), 0) FROM items") { try $0.int64(0) } ?? 0
                return top > 0 ? Item.ID(top) : nil
            }
        }
    }

    public func ids(in selection: ItemSelection, among ids: [Item.ID]) async throws -> Set<Item.ID> {
        guard !selection.isEmpty, !ids.isEmpty else { return [] }
        return try await database.storeRead { connection in
            try StoreError.translating {
                let sql = selection.sqliteIDs(among: ids)
                return Set(try connection.fetch(sql.text, arguments: sql.arguments) { Item.ID(try $0.int64(0)) })
            }
        }
    }

    public func updateItems(
        in selection: ItemSelection, _ change: BulkChange, progress: (@Sendable (BulkProgress) -> Void)?
    ) async throws -> BulkAction {
        if case .priority(let priority) = change, !Item.priorities.contains(priority) {
            throw StoreError(.invalidValue, "priority \(priority) is not 0 to 3; nothing was changed")
        }
        let minimum = bulkMinimumRows
        return try await longWrite { connection, cancellation in
            try connection.run("DELETE FROM bulk_actions WHERE created_at < ?", Date().addingTimeInterval(-86_400))
            let (kind, status, priority, owner) = Self.columns(of: change)
            if let owner,
                try connection.fetchOne("SELECT 1 FROM users WHERE id = ?", owner, row: { _ in true }) == nil
            {
                throw StoreError(
                    .unknownUser,
                    "user \(owner) does not exist (deleted meanwhile?); pick another owner; nothing was changed")
            }
            try connection.run(
                "INSERT INTO bulk_actions (kind, status, priority, user_id, created_at) VALUES (?, ?, ?, ?, ?)", kind,
                status, priority, owner, Date())
            let action = connection.lastInsertRowID
            let delete = change == .delete
            let ids = selection.sqliteIDs()
            var record = """
                INSERT INTO bulk_action_items
                    (action_id, item_id, user_id, title, notes, status, priority, created_at, updated_at, version, written,
                    pending)
                SELECT ?, i.id, i.user_id, \(delete ? "i.title, i.notes" : "NULL, NULL"), i.status, i.priority,
                    \(delete ? "i.created_at, i.updated_at" : "NULL, NULL"), i.version, i.version\(delete ? "" : " + 1"), 1
                FROM (\(ids.text)) s CROSS JOIN items i ON i.id = s.id WHERE true
                """
            var arguments: [any SQLBindable] = [action] + ids.arguments
            // Items already as asked are left alone (not written, not counted, not undone).
            if let status {
                record += " AND i.status != ?"
                arguments.append(status)
            } else if let priority {
                record += " AND i.priority != ?"
                arguments.append(priority)
            } else if let owner {
                record += " AND i.user_id != ?"
                arguments.append(owner)
            }
            try Self.run(record, arguments, connection)
            let total = connection.changes
            progress?(BulkProgress(done: 0, total: total))
            let write: String
            var values: [any SQLBindable] = []
            if delete {
                write = "DELETE FROM items"
            } else {
                let (column, value) = Self.assignment(of: change)
                write = "UPDATE items SET \(column) = ?, updated_at = max(?, updated_at), version = version + 1"
                values = [value, Date()]
            }
            // Most of a big table: its indexes on the changed columns are made again once.
            let rebuild = delete ? nil : try Self.setAside(updating: change, count: total, minimum: minimum, connection)
            defer { rebuild?.restoreCache(on: connection) }
            // In chunks of IDs, in ID order: progress and cancellation between them.
            var after = Int64.min
            var done = 0
            while done < total {
                try cancellation.check()
                let upper =
                    try connection.fetchOne(
                        "SELECT item_id FROM bulk_action_items WHERE action_id = ? AND item_id > ? ORDER BY item_id LIMIT 1 OFFSET ?",
                        action, after, Self.bulkChunk - 1, row: { try $0.int64(0) }) ?? Int64.max
                try Self.run(
                    write
                        + " WHERE id IN (SELECT item_id FROM bulk_action_items WHERE action_id = ? AND item_id > ? AND item_id <= ?)",
                    values + [action, after, upper], connection)
                done += connection.changes
                progress?(BulkProgress(done: done, total: total))
                if upper == Int64.max { break }
                after = upper
            }
            try rebuild?.finish(
                on: connection, counts: .updated(done), isCancelled: { cancellation.isCancelled })
            return BulkAction(id: action, change: change, count: total)
        }
    }

    public func undo(_ action: BulkAction) async throws -> BulkReplay {
        try await replay(action, undoing: true)
    }

    public func redo(_ action: BulkAction) async throws -> BulkReplay {
        try await replay(action, undoing: false)
    }

    public func forget(_ actions: [Int64]) async throws {
        try await database.storeWrite { connection in
            try StoreError.translating {
                try connection.run(
                    "DELETE FROM bulk_actions WHERE id IN (SELECT value FROM json_each(?)) OR created_at < ?",
                    "[" + actions.map(String.init).joined(separator: ",") + "]", Date().addingTimeInterval(-86_400))
            }
        }
    }

    /// Undoes or redoes `action` in one transaction: marks which of its items are still as
    /// it left them (`pending`), writes those, and moves their `written` version on.
    private func replay(_ action: BulkAction, undoing: Bool) async throws -> BulkReplay {
        let minimum = bulkMinimumRows
        return try await longWrite { connection, cancellation in
            guard
                let (undone, replays) = try connection.fetchOne(
                    "SELECT undone, replays FROM bulk_actions WHERE id = ?", action.id,
                    row: { (try $0.int64(0), try $0.int64(1)) })
            else {
                throw StoreError(
                    .notFound,
                    "the record of this bulk change is gone from the database (forgotten, or removed after a day); "
                        + "it cannot be \(undoing ? "undone" : "redone")")
            }
            if (undone == 1) == undoing {
                throw StoreError(.conflict, "this bulk change is \(undoing ? "undone" : "applied") already")
            }
            let delete = action.change == .delete
            // At the version the last write left (`written` moved on by the undos and redos since,
            // Migrations/0018), and holding the value it wrote: an item deleted and made again
            // with its ID starts its versions again, and may reach that version.
            let holds =
                delete ? "" : " AND " + action.change.holdsWritten(undoing: undoing, record: "bulk_action_items")
            let atWritten =
                "EXISTS (SELECT 1 FROM items WHERE items.id = bulk_action_items.item_id "
                + "AND items.version = bulk_action_items.written + \(replays)\(holds))"
            let ownerExists = "EXISTS (SELECT 1 FROM users WHERE users.id = bulk_action_items.user_id)"
            let pending =
                switch (delete, undoing) {
                case (false, true): "\(atWritten) AND \(ownerExists)"
                case (false, false), (true, false): atWritten
                case (true, true):
                    "NOT EXISTS (SELECT 1 FROM items WHERE items.id = bulk_action_items.item_id) AND \(ownerExists)"
                }
            // `pending` holds what the action, or its last undo or redo, wrote: an item that one
            // skipped is left out from then on, and not counted as skipped again.
            let pendingCount = "SELECT coalesce(sum(pending), 0) FROM bulk_action_items WHERE action_id = ?"
            let written = try connection.fetchOne(pendingCount, action.id, row: { try $0.get(0, as: Int.self) }) ?? 0
            // Skipped for a reason of their own: the owner they go back to is gone.
            let ownerGone =
                undoing
                ? try connection.fetchOne(
                    "SELECT count(*) FROM bulk_action_items WHERE action_id = ? AND pending AND NOT \(ownerExists)",
                    action.id, row: { try $0.get(0, as: Int.self) }) ?? 0 : 0
            // Only the rows that change are written: in the usual case, none of a million.
            try connection.run(
                "UPDATE bulk_action_items SET pending = 0 WHERE action_id = ? AND pending AND NOT (\(pending))",
                action.id)
            let counts = (written, written - connection.changes)
            let chosen = "SELECT item_id FROM bulk_action_items WHERE action_id = ? AND pending"
            let rebuild =
                delete ? nil : try Self.setAside(updating: action.change, count: counts.1, minimum: minimum, connection)
            defer { rebuild?.restoreCache(on: connection) }
            switch (delete, undoing) {
            case (false, true):
                // Only the column the action set: an item still at the version it left holds the
                // recorded values in the others, and SQLite keeps only the indexes of the columns
                // an UPDATE sets.
                let column = Self.assignment(of: action.change).column
                try connection.run(
                    """
                    UPDATE items SET \(column) = b.\(column),
                        updated_at = max(?, items.updated_at), version = items.version + 1
                    FROM bulk_action_items b WHERE b.action_id = ? AND b.pending AND items.id = b.item_id
                    """, Date(), action.id)
            case (false, false):
                let (column, value) = Self.assignment(of: action.change)
                try Self.run(
                    "UPDATE items SET \(column) = ?, updated_at = max(?, updated_at), version = version + 1 "
                        + "WHERE id IN (\(chosen))", [value, Date(), action.id], connection)
            case (true, true):
                try connection.run(
                    """
                    INSERT INTO items (id, user_id, title, notes, status, priority, created_at, updated_at, version)
                    SELECT item_id, user_id, title, notes, status, priority, created_at, updated_at, version
                    FROM bulk_action_items WHERE action_id = ? AND pending
                    """, action.id)
            case (true, false):
                try connection.run("DELETE FROM items WHERE id IN (\(chosen))", action.id)
            }
            try rebuild?.finish(
                on: connection, counts: .updated(counts.1), isCancelled: { cancellation.isCancelled })
            // Every pending item's version moved by one (a delete's: none).
            try connection.run(
                "UPDATE bulk_actions SET undone = ?, replays = replays + ? WHERE id = ?", undoing ? 1 : 0,
                delete ? 0 : 1, action.id)
            return BulkReplay(applied: counts.1, skipped: counts.0 - counts.1, ownerGone: ownerGone)
        }
    }

    /// The columns of bulk_actions for `change`.
    static func columns(of change: BulkChange) -> (kind: String, status: Item.Status?, priority: Int?, owner: User.ID?)
    {
        switch change {
        case .status(let status): ("status", status, nil, nil)
        case .priority(let priority): ("priority", nil, priority, nil)
        case .owner(let owner): ("owner", nil, nil, owner)
        case .delete: ("delete", nil, nil, nil)
        }
    }

    /// For a change of `count` items that are most of a big table (as many as
    /// `minimum`, and a quarter of the items or more): sets aside the indexes on the
    /// columns it writes and the change log's per-row entries (`ImportRebuild`); nil otherwise,
    /// when writing row by row costs less than making those indexes again. Live queries read in
    /// full once after the commit (the change log's sequence skips a number).
    private static func setAside(updating change: BulkChange, count: Int, minimum: Int64, _ connection: Connection)
        throws
        -> ImportRebuild?
    {
        guard Int64(count) >= minimum, count > 0 else { return nil }
        let rows =
            try connection.fetchOne("SELECT row_count FROM shelf_changes WHERE table_name = 'items'") {
                try $0.int64(0)
            } ?? 0
        guard Int64(count) * ImportRebuild.existingRowsPerStagedRow >= rows else { return nil }
        return try ImportRebuild.begin(
            on: connection, table: .items, updating: [Self.assignment(of: change).column, "updated_at", "version"])
    }

    /// The column of items a change sets, and its value (a delete sets none: never asked).
    static func assignment(of change: BulkChange) -> (column: String, value: any SQLBindable) {
        switch change {
        case .status(let status): ("status", status)
        case .priority(let priority): ("priority", Int64(priority))
        case .owner(let owner): ("user_id", owner.rawValue)
        case .delete: ("id", 0 as Int64)
        }
    }

    static func run(_ sql: String, _ arguments: [any SQLBindable], _ connection: Connection) throws {
        let statement = try connection.cachedStatement(sql)
        try statement.bind(arguments: arguments)
        try statement.run()
    }

    /// Runs `body` in one write transaction on a thread of its own (it may take seconds, and
    /// must not hold one the tasks share). Cancelling the calling task interrupts the running
    /// statement and rolls everything back: it throws `CancellationError`.
    private func longWrite<T: Sendable>(
        _ body: @escaping @Sendable (Connection, BlockingCancellation) throws -> T
    ) async throws -> T {
        let interruption = ReadInterruption()
        let database = self.database
        do {
            let interrupt: @Sendable () -> Void = { interruption.cancel() }
            return try await BlockingWork.run(onCancel: interrupt) { cancellation in
                defer { Self.releaseFreedMemory() }
                // Esc (cancellation) ends a wait for another program's lock too. The WAL such
                // a write leaves (206 MB for 750,000 items marked done) is copied back after
                // it returns, by the passive checkpoint, not on the writer before it returns.
                return try database.write(interruption: interruption, checkpointsInBackground: true) { connection in
                    try body(connection, cancellation)
                }
            }
        } catch let error as CancellationError {
            throw error
        } catch {
            throw StoreError.translatingAny(error)
        }
    }
}

extension SQLiteItemRepository {
    /// Hands the memory a long write freed back to the system. Each write runs on a thread of
    /// its own, and glibc keeps what a thread's allocations freed (SQLite's page cache, sorter
    /// and statement memory) in that thread's arena for it: the browser at 1,000,000 items went
    /// from 86 MB after Space to 112 MB after `p` and 135 MB after `o`, and stayed at 86 MB
    /// with one arena (`MALLOC_ARENA_MAX=1`). `malloc_trim` returns the free pages of every
    /// arena (found with `dlsym`: Swift's Glibc module leaves out `malloc.h`; nil elsewhere).
    fileprivate static func releaseFreedMemory() {
        #if canImport(Glibc)
            guard let symbol = dlsym(nil, "malloc_trim") else { return }
            typealias Trim = @convention(c) (Int) -> Int32
            _ = unsafeBitCast(symbol, to: Trim.self)(0)
        #endif
    }
}

extension ImportCounts {
    /// `count` rows updated, nothing else.
    fileprivate static func updated(_ count: Int) -> ImportCounts {
        var counts = ImportCounts()
        counts.updated = count
        return counts
    }
}
