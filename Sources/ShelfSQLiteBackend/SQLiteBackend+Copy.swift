internal import Foundation
internal import ShelfSQLite
internal import ShelfStore

#if canImport(Glibc)
    internal import Glibc
#endif

/// Copying (`Store.copy(to:)`) from and into a SQLite store: a snapshot is a read transaction
/// on a reader; a copy's transaction is one write transaction on the writer, which loads users
/// and items as a big import does (`ImportRebuild`: their indexes and upkeep triggers dropped
/// while the rows go in, made again and the search indexes rebuilt once at the end, all inside
/// the transaction).
extension SQLiteBackend {
    func withCopySnapshot<T>(_ body: (any CopySnapshot) throws -> T) throws -> T {
        try StoreError.translating {
            try database.read { connection in try body(SQLiteCopyRows(connection: connection, location: location)) }
        }
    }

    func withCopyTransaction<T>(_ body: (any CopyTransaction) throws -> T) throws -> T {
        var loaded: SQLiteCopyRows?
        // The small page cache of a bulk load stays until after the commit, as an import's does
        // (FTS5's merges at the commit would fill the usual cache).
        defer {
            if let loaded { _ = try? database.withWriter { loaded.restoreCache(on: $0) } }
        }
        return try StoreError.translating {
            try database.write { connection in
                let rows = SQLiteCopyRows(connection: connection, location: location)
                loaded = rows
                return try body(rows)
            }
        }
    }

    func otherUsers() throws -> String? {
        guard let path else { return nil }
        return LockHolder.user(ofDatabase: path)?.description
    }

    func checkIntegrity() throws {
        let problems = try StoreError.translating {
            try database.read { connection in try connection.fetch("PRAGMA integrity_check") { try $0.string(0) } }
        }
        guard problems == ["ok"] else {
            throw StoreError(.corrupt, "integrity_check: " + problems.prefix(3).joined(separator: "; "))
        }
        do {
            try StoreError.translating {
                try database.write { connection in
                    try connection.execute("INSERT INTO items_fts (items_fts) VALUES ('integrity-check')")
                    try connection.execute("INSERT INTO items_trigram (items_trigram) VALUES ('integrity-check')")
                }
            }
        } catch let error as StoreError {
            throw StoreError(.corrupt, "the search index is damaged (\(error.message))")
        }
    }

    var copyIdentity: String {
        guard let path else { return "sqlite-memory:\(ObjectIdentifier(self))" }
        var status = stat()
        guard stat(path, &status) == 0 else { return "sqlite:" + path }
        return "sqlite:\(status.st_dev):\(status.st_ino)"
    }
}

/// The rows of a SQLite store, on a connection lent for one transaction: read for a snapshot,
/// read and written for a copy's transaction.
final class SQLiteCopyRows: CopyTransaction {
    private let connection: Connection
    /// Where the store lives, for messages.
    private let location: String
    /// The bulk loads under way (`beginBulkLoad`), users first; empty outside one.
    private var rebuilds: [ImportRebuild] = []
    /// What the bulk load did to each table, for the change counters.
    private var counts: [ImportTable: ImportCounts] = [:]

    init(connection: Connection, location: String) {
        self.connection = connection
        self.location = location
    }

    /// Puts back the page cache size a bulk load changed; nothing when there was none.
    func restoreCache(on connection: Connection) {
        rebuilds.first?.restoreCache(on: connection)
    }

    /// SQLite's own tables, shelf's derived ones (the change log and its REPLACE scratch
    /// table of Migrations/0011 among them; the browser's undo records of bulk changes,
    /// Migrations/0013, which belong to its session), and Litestream's bookkeeping
    /// (`_litestream_seq`, `_litestream_lock`), which a replicated store holds.
    var derivedColumns: Set<String> {
        [
            "shelf_migrations", "shelf_changes", "shelf_change_log", "shelf_replaced_rows", "sqlite_sequence",
            // Migrations/0016: counts of items kept by triggers, and their REPLACE scratch table.
            "shelf_item_counts", "shelf_item_counts_replaced",
            "sqlite_stat1", "sqlite_stat4", "bulk_actions", "bulk_action_items",
            "_litestream_seq", "_litestream_lock",
        ]
    }

    func schemaColumns() throws -> [String: [String]] {
        // Full-text tables and their shadow tables are derived from items.
        let tables = try connection.fetch(
            """
            SELECT name FROM sqlite_schema WHERE type = 'table'
              AND name NOT LIKE 'items_fts%' AND name NOT LIKE 'items_trigram%'
            """
        ) { try $0.string(0) }
        var schema: [String: [String]] = [:]
        for table in tables {
            schema[table] = try connection.fetch("SELECT name FROM pragma_table_info(?)", table) { try $0.string(0) }
        }
        return schema
    }

    func rowCount(_ table: CopyTable) throws -> Int {
        // A value of the wrong type would be copied as what reading it makes up.
        try StoredValueCheck.refuseMistyped(table, on: connection, location: location, action: "copy")
        return Int(try connection.fetchOne("SELECT count(*) FROM \(table.name)") { try $0.int64(0) } ?? 0)
    }

    func lastID(_ table: CopyTable) throws -> Int64 {
        try SQLiteIDSequences.lastID(of: table, on: connection)
    }

    func rows(_ table: CopyTable, after id: Int64, limit: Int) throws -> [CopyRow] {
        let columns = table.columns
        return try connection.fetch(
            "SELECT \(table.columnList) FROM \(table.name) WHERE id > ? ORDER BY id LIMIT ?", id, Int64(limit)
        ) { row in
            var values: CopyRow = []
            values.reserveCapacity(columns.count)
            for (index, column) in columns.enumerated() {
                let index = Int32(index)
                switch column.kind {
                case .integer, .boolean:
                    values.append(try row.get(index, as: Int64?.self).map(CopyValue.integer) ?? .null)
                case .text:
                    values.append(row.textBytes(index).map { CopyValue.text(Array($0)) } ?? .null)
                }
            }
            return values
        }
    }

    /// Users and items lose their non-unique indexes and upkeep triggers (change log, counters,
    /// full-text and substring indexes) until `finishBulkLoad`; saved views and API tokens,
    /// a handful of rows, keep theirs. With every trigger live (a change-log row, two FTS5
    /// inserts and 14 index entries per row), a copy of 1,000,000 items took 6.5 to 10 minutes.
    func beginBulkLoad() throws {
        guard rebuilds.isEmpty else { return }
        // Users first: `restoreCache` puts back the cache size the first one found.
        for table in [ImportTable.users, .items] {
            rebuilds.append(try ImportRebuild.begin(on: connection, table: table))
        }
    }

    /// SQLite's write transaction waits in `BEGIN IMMEDIATE` (its busy timeout names the holder
    /// when it gives up); whether it waited is not known here.
    var waitedFor: String? { nil }

    func finishBulkLoad(isCancelled: () -> Bool) throws {
        for rebuild in rebuilds {
            try rebuild.finish(
                on: connection, counts: counts[rebuild.table] ?? ImportCounts(), isCancelled: isCancelled)
        }
    }

    func deleteAll() throws {
        for table in CopyTable.allCases.reversed() {
            try connection.execute("DELETE FROM \(table.name)")
            if let bulk = ImportTable(rawValue: table.name) {
                counts[bulk, default: ImportCounts()].deleted += connection.changes
            }
        }
    }

    func insert(_ rows: [CopyRow], into table: CopyTable) throws {
        // Text that is not UTF-8 (another program stored it in the source) is refused, as a
        // PostgreSQL target refuses it: a copy does not carry into a new store a value that
        // shelf's own reads of it (`StoredValueCheck`: exports, `items show`) refuse, and both
        // kinds of target say the same. Checked in place, before anything of the page is written.
        let text = table.columns.indices.filter { table.columns[$0].kind == .text }
        for row in rows {
            for index in text where index < row.count {
                guard case .text(let bytes) = row[index],
                    !bytes.withUnsafeBufferPointer({ UTF8Validation.isValid($0) })
                else { continue }
                throw CopyValueRefusal(
                    table: table.name, row: row.first?.integer, column: table.columns[index].name,
                    problem: "bytes that are not UTF-8 text, which a shelf store does not keep")
            }
        }
        // Text is bound as its bytes, in place (`withText`): SQLite keeps them as they are, so
        // the copy is byte for byte, and a huge note is not copied again to be bound (bound as
        // a blob, cast to text, a 60 MB note cost three more copies of itself).
        let marks = Array(repeating: "?", count: table.columns.count).joined(separator: ", ")
        let statement = try connection.cachedStatement(
            "INSERT INTO \(table.name) (\(table.columnList)) VALUES (\(marks))")
        for row in rows {
            statement.reset()
            // Bound value by value: an array of existentials per row cost more than the insert.
            try Self.bind(row, from: 0, to: statement)
        }
        if let bulk = ImportTable(rawValue: table.name) { counts[bulk, default: ImportCounts()].inserted += rows.count }
    }

    /// Binds `row`'s values from `index` on, then runs `statement`: text through `withText`,
    /// whose bytes stay bound only while the statement runs inside it.
    private static func bind(_ row: CopyRow, from index: Int, to statement: Statement) throws {
        guard index < row.count else { return try statement.run() }
        switch row[index] {
        case .null: try Int64?.none.bind(to: statement, at: Int32(index + 1))
        case .integer(let number): try number.bind(to: statement, at: Int32(index + 1))
        case .text(let bytes):
            return try statement.withText(bytes, at: Int32(index + 1)) {
                try bind(row, from: index + 1, to: statement)
            }
        }
        try bind(row, from: index + 1, to: statement)
    }

    func advanceSequence(of table: CopyTable, past id: Int64) throws {
        // Every copied table is AUTOINCREMENT (SQLiteIDSequences): an ID removed before the
        // copy, here or in the source, is not handed out again after it.
        try SQLiteIDSequences.advance(table, past: id, on: connection)
    }
}
