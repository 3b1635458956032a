internal import ShelfSQLite
internal import ShelfStore

/// The ID sequences of a shelf's SQLite tables: every table a copy carries (`CopyTable`) is
/// AUTOINCREMENT (items since Migrations/0005, users, saved views and API tokens since 0015),
/// so its `sqlite_sequence` row holds the largest ID it ever handed out, and a removed row's ID
/// is never handed out again. A copy and a restore keep these ahead of every ID either store
/// handed out.
enum SQLiteIDSequences {
    /// The largest ID `table` handed out: its `sqlite_sequence` row, or its largest ID when it
    /// is larger (a store whose table is not AUTOINCREMENT yet keeps no row).
    static func lastID(of table: CopyTable, on connection: Connection) throws -> Int64 {
        let highest = try connection.fetchOne("SELECT max(id) FROM \(table.name)") { try $0.get(0, as: Int64?.self) }
        let hasSequences = try connection.fetchOne(
            "SELECT 1 FROM sqlite_schema WHERE type = 'table' AND name = 'sqlite_sequence'"
        ) { _ in true }
        let sequence =
            hasSequences == true
            ? try connection.fetchOne("SELECT seq FROM sqlite_sequence WHERE name = ?", table.name) {
                try $0.get(0, as: Int64?.self)
            } : nil
        return max(highest.flatMap { $0 } ?? 0, sequence.flatMap { $0 } ?? 0)
    }

    /// Moves `table`'s sequence to `id` unless it is there already, in the transaction open on
    /// `connection`. `sqlite_sequence` has no unique key on `name`, so the row is updated, and
    /// added only when there is none.
    static func advance(_ table: CopyTable, past id: Int64, on connection: Connection) throws {
        guard id > 0 else { return }
        try connection.run("UPDATE sqlite_sequence SET seq = max(seq, ?) WHERE name = ?", id, table.name)
        if connection.changes == 0 {
            try connection.run("INSERT INTO sqlite_sequence (name, seq) VALUES (?, ?)", table.name, id)
        }
    }
}
