internal import Foundation
internal import ShelfSQLite
internal import ShelfStore
internal import Synchronization

/// The rows of one import, read and checked while no write lock is held, then applied in one
/// short transaction.
///
/// Why: an import used to hold the database's write lock from its first row to its commit,
/// waiting for input included, so every other writer (another `shelf`, the `sqlite3` shell)
/// failed with "database is locked". Now the rows go first into two tables of a private
/// staging database attached to the store's writer connection (`ATTACH ''`: a temporary file
/// SQLite unlinks as soon as it opens it). Writing it takes no lock on the database file
/// (other processes write freely meanwhile) and the in-process writer lock is held for one
/// batch of rows at a time. An import killed at any moment leaves nothing behind, and the
/// database file is untouched until `apply` commits. `close()` detaches the staging database,
/// which drops it at once whatever its size (a `DROP TABLE` of a TEMP table holding 1,000,000
/// rows read the whole table again: seconds after the commit). `apply` then writes every staged row in one transaction:
/// with a few set-based statements (`UPDATE … FROM`, `INSERT … SELECT`, `DELETE`) when they
/// give what writing the rows in input order gives, else row by row (which also names the
/// row a constraint refuses). A big import drops the table's indexes and upkeep triggers
/// for the length of the transaction and makes them again at its end (`ImportRebuild`).
/// Reading and staging 1,000,000 items takes about 6 s on a 2-core machine, most of it
/// parsing the input.
///
/// Used by one thread at a time (the import's); not `Sendable`. Call `close()` at the end.
final class ImportStaging: ImportSession {
    let database: Database
    let table: ImportTable
    /// The attached staging database's schema name, or nil when the staging tables are in the
    /// TEMP schema (SQLite attaches at most ten databases to a connection: more imports than
    /// that into one store at once stage there, and drop their tables at the end).
    private let schema: String?
    let rows: String
    let rejects: String
    private var queue = ImportStagingQueue(batchSize: ImportStaging.batchSize)
    /// Writes the batches while the next rows are read.
    private let pipe = StagingPipe()
    /// The writer connection while `apply` holds it, so reading rejects from inside `apply`
    /// does not wait for the lock it holds itself.
    private var applying: Connection?
    private var closed = false
    /// The most items a `replace` may delete (`limitItemDeletions`).
    var itemLimit: Int?
    /// When the staging began, for the debug log's timings.
    private let created = ContinuousClock.now

    /// Rows kept in memory before they go to the staging tables in one batch. With up to three
    /// batches in the pipe besides the one filling, 512 rows (not 2,048) took a 1,000,000-item
    /// import's peak memory from about 32 MB to 29 MB (static build).
    private static let batchSize = 512
    private static let names = Atomic<Int>(0)

    /// The fewest staged rows that take the bulk path (`ImportRebuild`).
    private let bulkMinimumRows: Int64

    init(database: Database, table: ImportTable, bulkMinimumRows: Int64 = ImportRebuild.defaultMinimumRows) throws {
        self.database = database
        self.bulkMinimumRows = bulkMinimumRows
        self.table = table
        let number = Self.names.add(1, ordering: .relaxed).newValue
        let name = "shelf_stage_\(number)"
        let attached = try StoreError.translating {
            try database.withWriter { connection -> Bool in
                do {
                    try connection.execute("ATTACH DATABASE '' AS \(name)")
                    return true
                } catch let error as DatabaseError where error.message.hasPrefix("too many attached databases") {
                    return false
                }
            }
        }
        schema = attached ? name : nil
        rows = attached ? "\(name).staged_rows" : "temp.\(name)_rows"
        rejects = attached ? "\(name).staged_rejects" : "temp.\(name)_rejects"
        let columns =
            switch table {
            // email_key and owner_key: the email's `Email.key`, computed here in Swift, which
            // every match compares (SQL cannot fold case beyond ASCII).
            case .users: "id INTEGER, name TEXT, email TEXT, email_key TEXT, created_at INTEGER"
            case .items:
                """
                id INTEGER, owner_id INTEGER, owner_email TEXT, owner_key TEXT, title TEXT, notes TEXT, status TEXT,
                priority INTEGER, created_at INTEGER, updated_at INTEGER, version INTEGER
                """
            }
        try StoreError.translating {
            try database.withWriter { connection in
                if let schema {
                    // Nothing here needs to outlive a crash: no syncs, the rollback journal in
                    // memory; rows are only appended, then read in order: a small page cache does.
                    try connection.execute(
                        """
                        PRAGMA \(schema).synchronous = OFF;
                        PRAGMA \(schema).journal_mode = MEMORY;
                        PRAGMA \(schema).cache_size = -512;
                        """)
                }
                try connection.execute(
                    """
                    CREATE TABLE \(rows) (seq INTEGER PRIMARY KEY, \(columns), record BLOB NOT NULL);
                    CREATE TABLE \(rejects) (
                        seq INTEGER PRIMARY KEY, placed INTEGER NOT NULL, line INTEGER, column INTEGER,
                        field TEXT, value TEXT, reason TEXT NOT NULL, record BLOB NOT NULL,
                        key_id INTEGER, key_email TEXT COLLATE NOCASE, key_email_key TEXT,
                        unreadable INTEGER NOT NULL DEFAULT 0);
                    """)
            }
        }
    }

    deinit {
        close()
    }

    /// Drops the staged rows. Safe to call more than once.
    func close() {
        guard !closed else { return }
        closed = true
        queue.discard()
        try? pipe.drain()
        _ = try? database.withWriter { connection in
            if let schema {
                try connection.execute("DETACH DATABASE \(schema)")
            } else {
                try connection.execute("DROP TABLE IF EXISTS \(rows); DROP TABLE IF EXISTS \(rejects)")
            }
        }
    }

    // MARK: Staging

    /// Stages a user read from the input; `record` is the input's record, for messages and
    /// rejects.
    func stage(_ user: ImportedUser, record: Data) throws {
        if queue.append(user, record: record) { try flush() }
    }

    /// Stages an item read from the input.
    func stage(_ item: ImportedItem, record: Data) throws {
        if queue.append(item, record: record) { try flush() }
    }

    /// Records a row refused while it was read, in its place among the staged rows.
    func reject(
        record: Data, line: Int?, column: Int?, field: String?, value: String?, reason: String, key: ImportRowKey
    ) throws {
        let full = queue.appendReject(
            record: record, line: line, column: column, field: field, value: value, reason: reason, key: key)
        if full { try flush() }
    }

    /// The ID of the user with `email` (letter case ignored in every script, by `Email.key`)
    /// in the last commit, or nil.
    func userID(email: String) throws -> Int64? {
        try StoreError.translating {
            try database.read { connection in try ImportWriter.userID(email: email, on: connection) }
        }
    }

    /// Writes the pending rows to the staging tables in one transaction of the staging database.
    /// The batch goes to `pipe`, which writes it on its own thread; `drain()` waits for it.
    private func flush() throws {
        let batch = queue.take()
        guard !batch.isEmpty else { return }
        let (database, table, rows, rejects) = (database, table, rows, rejects)
        try pipe.submit {
            try StoreError.translating {
                try database.withWriter { connection in
                    // A plain BEGIN: writing only the staging database never takes the store file's lock.
                    try connection.execute("BEGIN")
                    do {
                        try Self.insert(batch, table: table, rows: rows, rejects: rejects, on: connection)
                        try connection.execute("COMMIT")
                    } catch {
                        try? connection.execute("ROLLBACK")
                        throw error
                    }
                }
            }
        }
    }

    /// Flushes and waits until every staged row is written.
    private func drain() throws {
        try flush()
        try pipe.drain()
    }

    /// `drain()`, for the extensions.
    func flushAndWait() throws {
        try drain()
    }

    private static func insert(
        _ batch: [ImportStagingQueue.Row], table: ImportTable, rows: String, rejects: String, on connection: Connection
    ) throws {
        let row =
            switch table {
            case .users: try connection.makeStatement("INSERT INTO \(rows) VALUES (?, ?, ?, ?, ?, ?, ?)")
            case .items:
                try connection.makeStatement("INSERT INTO \(rows) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)")
            }
        let rejected = try connection.makeStatement(
            """
            INSERT INTO \(rejects) (
                seq, placed, line, column, field, value, reason, record, key_id, key_email, key_email_key, unreadable)
            VALUES (?, 1, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
            """)
        for entry in batch {
            switch entry {
            case .user(let seq, let user, let record):
                try row.bind(seq, user.id, user.name, user.email, Email.key(user.email), user.createdAt, record)
                try row.run()
                row.reset()
            case .item(let seq, let item, let record):
                var ownerID: Int64?
                var ownerEmail: String?
                switch item.owner {
                case .id(let id): ownerID = id
                case .email(let email): ownerEmail = email
                }
                try row.bind(
                    seq, item.id, ownerID, ownerEmail, ownerEmail.map(Email.key), item.title, item.notes,
                    item.status.rawValue,
                    Int64(item.priority), item.createdAt, item.updatedAt, item.version, record)
                try row.run()
                row.reset()
            case .reject(let seq, let reject, let key):
                try rejected.bind(
                    seq, reject.line.map(Int64.init), reject.column.map(Int64.init), reject.field, reject.value,
                    reject.reason, reject.record, key.id, key.email, key.email.map(Email.key),
                    Int64(key.isUnreadable ? 1 : 0))
                try rejected.run()
                rejected.reset()
            }
        }
    }

    // MARK: Applying

    /// Writes every staged row in one transaction on the store's writer.
    ///
    /// - Parameters:
    ///   - commit: false for a dry run: everything is checked, then rolled back.
    ///   - continues: a row the store refuses is recorded as a reject (see `forEachImportReject`)
    ///     and the others are written; without it the first such row throws `ImportRowFailure`
    ///     and nothing is written.
    ///   - isCancelled: polled between statements and every thousand rows; when it turns
    ///     true the transaction rolls back and `CancellationError` is thrown.
    ///   - willCommit: called once just before the commit; returning false (a cancellation
    ///     that came first) rolls back and throws `CancellationError`. Whoever cancels can so
    ///     know for sure whether the import will commit.
    ///   - beforeEnd: called inside the transaction just before it commits or (a dry run)
    ///     rolls back, while the rejects the store found can be read: whatever must be done
    ///     before the import is final (writing the rejects file), so that its failure still
    ///     leaves the store unchanged.
    /// - Returns: the counts; deleted rows are counted in `replace` mode.
    func apply(
        mode: ImportMode, commit: Bool, continues: Bool, isCancelled: () -> Bool, willCommit: () -> Bool,
        beforeEnd: (any ImportSession) throws -> Void
    ) throws -> ImportCounts {
        try drain()
        Diagnostics.debug("import: \(queue.lastSeq) rows read and staged in \(ContinuousClock.now - created)")
        if isCancelled() { throw CancellationError() }
        // The small page cache of a rebuild stays until after the commit: FTS5's merges at the
        // commit filled the writer's usual 32 MiB (71 MB peak instead of 44 for 1M items).
        var rebuilt: ImportRebuild?
        defer {
            if let rebuilt { _ = try? database.withWriter { rebuilt.restoreCache(on: $0) } }
        }
        do {
            return try database.write { connection in
                let applyStart = ContinuousClock.now
                defer { Diagnostics.debug("import: applied in \(ContinuousClock.now - applyStart)") }
                applying = connection
                defer { applying = nil }
                let writer = try StoreError.translating { try ImportWriter(connection: connection, mode: mode) }
                var counts = ImportCounts()
                let rebuild =
                    try usesRebuild(on: connection)
                    ? StoreError.translating { try ImportRebuild.begin(on: connection, table: table) } : nil
                rebuilt = rebuild
                if try !applyAll(on: connection, mode: mode, counts: &counts) {
                    if isCancelled() { throw CancellationError() }
                    counts = ImportCounts()
                    try applyRows(writer, on: connection, continues: continues, counts: &counts, isCancelled)
                    if mode == .replace {
                        try deleteMissing(
                            on: connection, beyond: "t.id NOT IN (SELECT id FROM temp.shelf_import_seen)",
                            counts: &counts)
                        try connection.execute("DELETE FROM temp.shelf_import_seen")
                    }
                }
                if let itemLimit, counts.itemsDeleted(from: table) > itemLimit {
                    throw ImportDeletionsGrew(items: counts.itemsDeleted(from: table), limit: itemLimit)
                }
                if isCancelled() { throw CancellationError() }
                // A dry run rolls back: nothing to rebuild.
                if commit, let rebuild { try rebuild.finish(on: connection, counts: counts, isCancelled: isCancelled) }
                try beforeEnd(self)
                if !commit { throw DryRunFinished(result: counts) }
                guard willCommit() else { throw CancellationError() }
                return counts
            }
        } catch let finished as DryRunFinished<ImportCounts> {
            return finished.result
        } catch let error as DatabaseError {
            throw StoreError(error)
        }
    }

    /// Whether this import takes the bulk path (`ImportRebuild`): when it stages at least
    /// `bulkMinimumRows` rows and at least one for every
    /// `ImportRebuild.existingRowsPerStagedRow` rows the table holds. Per-row upkeep costs in
    /// proportion to the rows imported, a rebuild in proportion to the whole table; measured
    /// (release, 2 cores), 250,000 items into a 1,000,000-item store cost the same either way
    /// (17.5 s of CPU rebuilding, 17.9 s per row), so a small import into a big table keeps
    /// per-row upkeep and a bigger one rebuilds.
    private func usesRebuild(on connection: Connection) throws -> Bool {
        let staged = queue.lastSeq
        guard staged >= bulkMinimumRows else { return false }
        let counted = try? connection.fetchOne(
            "SELECT row_count FROM main.shelf_changes WHERE table_name = ?", table.rawValue
        ) { try $0.int64(0) }
        let existing =
            try counted
            ?? connection.fetchOne("SELECT count(*) FROM main.\(table.rawValue)") { try $0.int64(0) } ?? 0
        return staged.multipliedReportingOverflow(by: ImportRebuild.existingRowsPerStagedRow).partialValue >= existing
    }

    private func applyRows(
        _ writer: ImportWriter, on connection: Connection, continues: Bool, counts: inout ImportCounts,
        _ isCancelled: () -> Bool
    ) throws {
        let select =
            switch table {
            case .users: "SELECT seq, id, name, email, created_at FROM \(rows) ORDER BY seq"
            case .items:
                """
                SELECT seq, id, owner_id, owner_email, title, notes, status, priority, created_at, updated_at, version
                FROM \(rows) ORDER BY seq
                """
            }
        let statement = try connection.makeStatement(select)
        let refuse = try connection.makeStatement(
            """
            INSERT INTO \(rejects) (seq, placed, field, reason, record)
            SELECT seq, 0, ?2, ?3, record FROM \(rows) WHERE seq = ?1
            """)
        var done = 0
        try statement.forEachRow { row in
            done += 1
            if done & 1023 == 0, isCancelled() { throw CancellationError() }
            let seq = try row.int64(0)
            do {
                let outcome: ImportWriter.Outcome
                switch table {
                case .users:
                    outcome = try writer.write(
                        ImportedUser(
                            id: try row.get(1, as: Int64?.self), name: try row.string(2), email: try row.string(3),
                            createdAt: try row.get(4, as: Int64?.self)))
                case .items:
                    let owner: ImportedOwner =
                        if let id = try row.get(2, as: Int64?.self) { .id(id) } else { .email(try row.string(3)) }
                    outcome = try writer.write(
                        ImportedItem(
                            id: try row.get(1, as: Int64?.self), owner: owner, title: try row.string(4),
                            notes: row.optionalString(5), status: Item.Status(rawValue: try row.string(6)) ?? .open,
                            priority: Int(try row.int64(7)), createdAt: try row.get(8, as: Int64?.self),
                            updatedAt: try row.get(9, as: Int64?.self), version: try row.get(10, as: Int64?.self)))
                }
                counts.add(outcome)
            } catch let error as ImportRowError {
                guard continues else { throw ImportRowFailure(seq: seq, error: error) }
                counts.refused += 1
                try refuse.bind(seq, error.field, error.message)
                try refuse.run()
                refuse.reset()
            }
        }
    }

    // MARK: Reading back

    /// The record staged as `seq`, or nil.
    func record(seq: Int64) throws -> Data? {
        if applying == nil { try drain() }
        return try withConnection { connection in
            // Not the statement cache: the table is this import's own.
            let statement = try connection.makeStatement("SELECT record FROM \(rows) WHERE seq = ?")
            try statement.bind(seq)
            var record: Data?
            try statement.forEachRow { record = try $0.get(0, as: Data.self) }
            return record
        }
    }

    /// Calls `body` with every reject in input order, until it returns false. After a
    /// From `apply`'s `beforeEnd`, inside its transaction.
    func forEachReject(_ body: (ImportReject) throws -> Bool) throws {
        // Inside `apply` everything is written already, and the pipe's thread could not take
        // the writer `apply` holds: no waiting then.
        if applying == nil { try drain() }
        try withConnection { connection in
            let statement = try connection.makeStatement(
                "SELECT seq, placed, line, column, field, value, reason, record FROM \(rejects) ORDER BY seq")
            do {
                try statement.forEachRow { row in
                    let reject = ImportReject(
                        seq: try row.int64(0), record: try row.get(7, as: Data.self), placed: try row.int64(1) != 0,
                        line: try row.get(2, as: Int64?.self).map(Int.init),
                        column: try row.get(3, as: Int64?.self).map(Int.init),
                        field: row.optionalString(4), value: row.optionalString(5), reason: try row.string(6))
                    if !(try body(reject)) { throw Stop() }
                }
            } catch is Stop {}
        }
    }

    private struct Stop: Error {}

    private func withConnection<T>(_ body: (Connection) throws -> T) throws -> T {
        try StoreError.translating {
            if let applying { return try body(applying) }
            return try database.withWriter(body)
        }
    }
}
