internal import Foundation
internal import ShelfReactive
internal import ShelfSQLite
internal import ShelfStore
internal import Synchronization

#if canImport(Glibc)
    internal import Glibc
#endif

extension SQLiteBackend {
    /// See `StoreBackend.copyPages(intoNewFile:progress:)`: nil for a store in memory.
    package func copyPages(
        intoNewFile path: String, progress: @escaping @Sendable (CopyProgress) -> Void
    ) async throws -> CopyReport? {
        guard self.path != nil else { return nil }
        let outcome = try await BlockingWork.run { cancellation in
            try StoreError.translating {
                try self.copyPagesBlocking(
                    intoNewFile: path, isCancelled: { cancellation.isCancelled }, progress: progress)
            }
        }
        guard let report = outcome else {
            try PageCopy.empty(path)
            return nil
        }
        return report
    }
}

extension SQLiteBackend {
    /// The work of `Store.copyPages(intoNewFile:progress:)`, on the calling thread (and one
    /// more for the read-back of the copy). Nil when this store cannot be copied by pages.
    fileprivate func copyPagesBlocking(
        intoNewFile path: String, isCancelled: @escaping @Sendable () -> Bool,
        progress: (CopyProgress) -> Void
    ) throws -> CopyReport? {
        let location = self.location
        let clock = ContinuousClock()
        let start = clock.now
        var copiedAt = start
        var readBack: PageCopy.ReadBack?
        var searchCheck: PageCopy.OnThread<[SearchIndexRepair]>?
        // Whatever happens, the read-back's and the check's threads have ended before the file
        // is let go.
        defer {
            _ = readBack?.wait()
            _ = searchCheck?.wait()
        }
        let pass = try database.read { connection -> PageCopy.SourcePass in
            let snapshot = SQLiteCopyRows(connection: connection, location: location)
            // The snapshot begins here: schema, counts, pages and the source's pass are all of
            // it, whatever other connections commit meanwhile.
            guard try PageCopy.schemaMatches(on: connection) else {
                Diagnostics.debug("copy: \(location) is copied row by row: its schema is not this build's")
                return .otherSchema
            }
            var totalRows = 0
            // Refuses a value of the wrong kind, as the row copy does (`rowCount` checks).
            for table in CopyTable.allCases { totalRows += try snapshot.rowCount(table) }
            let pages = try Connection(path: path)
            do {
                // A new file no one else opens, discarded unless complete: no journal, no
                // sync per step; it is made durable once, when done (`PageCopy.Cleaning`).
                try pages.execute("PRAGMA journal_mode = OFF; PRAGMA synchronous = OFF")
                try connection.copyPages(into: pages, isCancelled: isCancelled) { copied, total in
                    let rows = total > 0 ? totalRows * copied / total : totalRows
                    progress(CopyProgress(table: "items", copiedRows: rows, totalRows: totalRows, checking: false))
                }
                pages.close()
            } catch {
                pages.close()
                throw error
            }
            copiedAt = clock.now
            progress(CopyProgress(table: "", copiedRows: totalRows, totalRows: totalRows, checking: true))
            // The copy read back on a thread of its own while this one reads the source's
            // snapshot again: the two passes, each a full read, take the time of one. The
            // source's snapshot ends with its pass.
            readBack = PageCopy.ReadBack(path: path, location: location, isCancelled: isCancelled)
            // And the copy's search indexes checked on a third (their structure and rows are
            // read, not the copied rows' text): 2 s of CPU at 1,000,000 items, which run after
            // the source's pass on this thread made the copy 2.5 s longer at load 5.
            searchCheck = PageCopy.OnThread { try PageCopy.checkSearchIndexes(of: path) }
            return try PageCopy.sourceSide(of: snapshot, isCancelled: isCancelled).map { .read($0) } ?? .refusedRows
        }
        let source: CopyReport.Side
        switch pass {
        case .otherSchema: return nil
        case .refusedRows:
            // A row the row copy refuses (its user gone, text not UTF-8): let it say so.
            Diagnostics.debug("copy: \(location) is copied row by row: it holds rows a copy refuses")
            return nil
        case .read(let side): source = side
        }
        // While the copy is read back (the rows it reads are not changed here).
        let cleaning = try PageCopy.Cleaning(path, rebuilding: try searchCheck?.wait().get() ?? [])
        let copied = try readBack?.wait().get()
        try cleaning.finish()
        guard let copied else { return nil }
        Diagnostics.debug(
            "copy: \(location) copied page by page in \(copiedAt - start), both sides read back and the copy "
                + "cleaned in \(clock.now - copiedAt)")
        var report = CopyReport(source: source, target: copied)
        report.searchIndexRepairs = cleaning.rebuilt
        return report
    }
}

/// The parts of a copy by pages (`Store.copyPages(intoNewFile:progress:)`).
enum PageCopy {
    /// One object of `sqlite_schema` as SQL made it.
    struct Object: Hashable, Sendable {
        let type: String
        let name: String
        let table: String
        let sql: String?
    }

    /// Tables another program adds that a copy leaves out (Litestream's bookkeeping): left
    /// out of the schema compared, and dropped from the copy.
    static let foreignTables = ["_litestream_seq", "_litestream_lock"]

    /// Every object (and its SQL) a store made by this build's migrations holds, read from a
    /// fresh in-memory one, once per process.
    static let expected: Result<Set<Object>, StoreError> = Result(catching: {
        try StoreError.translating {
            let database = try Database.inMemory(changeCounters: Store.changeCounterTable)
            defer { database.close() }
            try SQLiteBackend.migrator.migrate(database)
            return try database.withWriter { try objects(on: $0) }
        }
    }).mapError { $0 as? StoreError ?? StoreError(.database, "\($0)") }

    /// The objects of the database on `connection`, past SQLite's own (`sqlite_…`) and
    /// `foreignTables`.
    static func objects(on connection: Connection) throws -> Set<Object> {
        let foreign = foreignTables.map { "'\($0)'" }.joined(separator: ", ")
        return Set(
            try connection.fetch(
                """
                SELECT type, name, tbl_name, sql FROM main.sqlite_schema
                 WHERE name NOT LIKE 'sqlite\\_%' ESCAPE '\\' AND name NOT IN (\(foreign))
                """
            ) {
                Object(
                    type: try $0.string(0), name: try $0.string(1), table: try $0.string(2),
                    sql: try $0.get(3, as: String?.self))
            })
    }

    /// Whether the database on `connection` has exactly the schema this build's migrations
    /// make, every table, index and trigger with the same SQL, in UTF-8: then a copy of its
    /// pages is the store a row copy makes. A missing trigger or index (another program
    /// dropped it), or one of another program's, is not: the row copy makes them afresh.
    static func schemaMatches(on connection: Connection) throws -> Bool {
        let encoding = try connection.fetchOne("PRAGMA main.encoding") { try $0.string(0) }
        guard encoding == "UTF-8" else { return false }
        return try objects(on: connection) == expected.get()
    }

    /// What the pass over the source's snapshot found.
    enum SourcePass {
        /// Its schema is not this build's: nothing was copied.
        case otherSchema
        /// It holds a row the row copy refuses (`sourceSide`).
        case refusedRows
        /// Its counts and fingerprint.
        case read(CopyReport.Side)
    }

    /// Makes the copied file what a row copy makes, in one transaction: the change log, its
    /// scratch tables and the browser's undo records (which hold deleted items' text) left
    /// empty, a gap in the log's sequence, Litestream's tables dropped, no backup stamp, the
    /// item totals counted again from the rows. Then (`finish`) the file is merged and
    /// flushed to disk once. The copied tables' rows are not touched, so the read-back may
    /// run meanwhile.
    final class Cleaning {
        private let connection: Connection
        private let path: String

        /// The search indexes found damaged and rebuilt in the copy, each with what was wrong.
        private(set) var rebuilt: [SearchIndexRepair] = []

        /// `damaged`: the search indexes `checkSearchIndexes` found damaged, built again here.
        init(_ path: String, rebuilding damaged: [SearchIndexRepair]) throws {
            self.path = path
            connection = try Connection(path: path, creating: false)
            do {
                try connection.execute("PRAGMA synchronous = OFF")
                try connection.transaction {
                    // The source's search index, carried as it is, was damaged (another program
                    // wrote its tables): built again from the copied rows, as a row copy does.
                    for repair in damaged {
                        try connection.execute("INSERT INTO main.\(repair.index) (\(repair.index)) VALUES ('rebuild')")
                    }
                    for table in [
                        "shelf_change_log", "shelf_replaced_rows", "shelf_item_counts_replaced", "bulk_action_items",
                        "bulk_actions",
                    ] {
                        try connection.execute("DELETE FROM main.\(table)")
                    }
                    try SQLiteChangeLog.skipSequence(on: connection)
                    for table in foreignTables { try connection.execute("DROP TABLE IF EXISTS main.\(table)") }
                    try connection.execute(ImportRebuild.recountSQL(kinds: ["c", "u", "o"]))
                    // A backup's stamp (a source that was one) would let `shelf backup` replace
                    // the copy as its own untouched backup.
                    try connection.execute("PRAGMA main.user_version = 0")
                }
                rebuilt = damaged
            } catch {
                connection.close()
                throw error
            }
        }

        /// Once the read-back is done: the WAL merged into the file, which alone then holds
        /// the copy, flushed to disk.
        func finish() throws {
            defer { connection.close() }
            try connection.execute("PRAGMA main.wal_checkpoint(TRUNCATE)")
            try Store.makeDurable(path)
        }
    }

    /// The full-text indexes of `items`.
    static let searchIndexes = ["items_fts", "items_trigram"]

    /// `searchIndexProblems` of the copy at `path`, on a connection of its own.
    static func checkSearchIndexes(of path: String) throws -> [SearchIndexRepair] {
        try StoreError.translating {
            let connection = try Connection(path: path, creating: false)
            defer { connection.close() }
            let clock = ContinuousClock()
            let start = clock.now
            let damaged = try searchIndexProblems(on: connection)
            Diagnostics.debug(
                "copy: the search indexes of \(path) checked in \(clock.now - start)"
                    + (damaged.isEmpty ? "" : "; damaged: " + damaged.map(\.index).joined(separator: ", ")))
            return damaged
        }
    }

    /// The search indexes of the database on `connection` that are damaged, each with what is
    /// wrong: FTS5's `integrity-check` of the index's own structure fails, or it does not
    /// index exactly the rows of `items` (its `_docsize` table holds one row per indexed item:
    /// a `'delete-all'`, or a `'delete'` written to it by hand, leaves a sound index of too few
    /// rows, which the structural check passes). FTS5's check against every row's text
    /// (`rank` 1) would also find a row indexed with other text, but took 12 s at 1,000,000
    /// items (a page copy takes 14 s); these take about 3 s, beside the read-back.
    static func searchIndexProblems(on connection: Connection) throws -> [SearchIndexRepair] {
        var damaged: [SearchIndexRepair] = []
        for index in searchIndexes {
            do {
                try connection.execute("INSERT INTO main.\(index) (\(index)) VALUES ('integrity-check')")
            } catch let error as DatabaseError {
                damaged.append(SearchIndexRepair(index: index, problem: "FTS5 integrity-check: \(error.message)"))
                continue
            }
            let sql = """
                SELECT (SELECT count(*) FROM main.items), (SELECT count(*) FROM main.\(index)_docsize),
                  (SELECT count(*) FROM main.\(index)_docsize AS d WHERE NOT EXISTS
                    (SELECT 1 FROM main.items AS i WHERE i.id = d.id))
                """
            let counts = try connection.fetchOne(sql) { (try $0.int64(0), try $0.int64(1), try $0.int64(2)) }
            guard let (items, indexed, strays) = counts, items != indexed || strays > 0 else { continue }
            let problem =
                strays == 0
                ? "it indexes \(indexed) of \(items) items"
                : "it indexes \(indexed) rows for \(items) items, \(strays) of them for no item"
            damaged.append(SearchIndexRepair(index: index, problem: problem))
        }
        return damaged
    }

    /// Makes the file at `path` empty again (as the caller made it, its claim kept), with no
    /// journal or WAL beside it.
    static func empty(_ path: String) throws {
        for suffix in ["-wal", "-shm", "-journal"] { unlink(path + suffix) }
        guard truncate(path, 0) == 0 else {
            throw StoreError(.database, "cannot empty \(path) for a copy row by row: \(Store.errnoText())")
        }
    }

    /// The counts and fingerprint of the source's snapshot, read as the row copy reads it;
    /// nil when it holds a row the row copy refuses (a user reference to no user, text that
    /// is not UTF-8), which that copy then names.
    static func sourceSide(of snapshot: SQLiteCopyRows, isCancelled: () -> Bool) throws -> CopyReport.Side? {
        var users = Set<Int64>()
        var refused = false
        let side = try StoreCopier.side(of: snapshot, isCancelled: isCancelled) { table, page in
            let text = table.columns.indices.filter { table.columns[$0].kind == .text }
            let reference = table.userReference
            for row in page {
                if table == .users, let id = row.first?.integer { users.insert(id) }
                if let reference, reference.index < row.count, let owner = row[reference.index].integer,
                    !users.contains(owner)
                {
                    refused = true
                }
                for index in text where index < row.count {
                    guard case .text(let bytes) = row[index] else { continue }
                    if !bytes.withUnsafeBufferPointer({ UTF8Validation.isValid($0) }) { refused = true }
                }
            }
        }
        return refused ? nil : side
    }

    /// Work on a thread of its own (not one of the threads tasks share: it blocks for seconds),
    /// whose result is waited for.
    final class OnThread<Value: Sendable>: Sendable {
        private let result = Mutex<Result<Value, any Error>?>(nil)
        private let done = DispatchSemaphore(value: 0)

        init(_ body: @escaping @Sendable () throws -> Value) {
            Thread.detachNewThread {
                let ended = Result { try body() }
                self.result.withLock { $0 = ended }
                self.done.signal()
            }
        }

        /// Waits for the work to end; its value, or why it failed. May be called more than once.
        func wait() -> Result<Value, any Error> {
            if let ended = result.withLock({ $0 }) { return ended }
            done.wait()
            return result.withLock { $0 } ?? .failure(CancellationError())
        }
    }

    /// The counts and fingerprint of the copy at `path`, read on a thread of its own (not one
    /// of the threads tasks share: it blocks for a full read) from a connection of its own.
    final class ReadBack: Sendable {
        private let result = Mutex<Result<CopyReport.Side, any Error>?>(nil)
        private let done = DispatchSemaphore(value: 0)

        init(path: String, location: String, isCancelled: @escaping @Sendable () -> Bool) {
            Thread.detachNewThread {
                let side = Result {
                    try StoreError.translating {
                        let connection = try Connection(path: path, creating: false)
                        defer { connection.close() }
                        return try connection.readTransaction {
                            try StoreCopier.side(
                                of: SQLiteCopyRows(connection: connection, location: location),
                                isCancelled: isCancelled)
                        }
                    }
                }
                self.result.withLock { $0 = side }
                self.done.signal()
            }
        }

        /// Waits for the read-back to end; its counts and fingerprint, or why it failed. May be
        /// called more than once.
        func wait() -> Result<CopyReport.Side, any Error> {
            if let ended = result.withLock({ $0 }) { return ended }
            done.wait()
            return result.withLock { $0 } ?? .failure(CancellationError())
        }
    }
}
