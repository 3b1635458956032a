internal import Foundation
internal import ShelfSQLite
internal import ShelfStore

/// The per-row upkeep of one table switched off for one big import, and done once at its end:
/// the bulk path of `ImportStaging.apply`.
///
/// `begin` reads the SQL of the table's own indexes and of the triggers it knows how to stand
/// in for (the full-text index's and the change counters', see Migrations 0001, 0002 and 0005)
/// from `sqlite_master`, then drops them; the import then writes its rows with nothing but the
/// table, its primary key, its UNIQUE constraints and its unique indexes (`users_by_email_key`)
/// to maintain: those refuse a bad row as it is written, so the row-by-row path can name it
/// (dropped, a duplicate key failed only when the index was made again, naming no row).
/// `finish` creates the indexes
/// and triggers again from the SQL it read (so they cannot drift from the migrations), rebuilds
/// the full-text index from the table, and moves the change counters once, by what the rows
/// would have moved them one by one (`counter` by every row inserted, updated or deleted,
/// `row_count` by inserted minus deleted). `sqlite_sequence` needs nothing: SQLite keeps it
/// for every insert, triggers or not.
///
/// Everything happens inside the import's one transaction, so a failure or a `kill -9` at any
/// moment, the rebuild included, leaves the database as it was; other connections see the
/// old schema and rows until the commit, then one commit (which also moves `schema_version`).
/// Triggers this type does not know are left in place and keep firing per row.
struct ImportRebuild {
    let table: ImportTable
    /// `CREATE INDEX` statements of the dropped indexes, as `sqlite_master` holds them.
    private let indexes: [String]
    /// `CREATE TRIGGER` statements of the dropped triggers.
    private let triggers: [String]
    /// Whether the dropped triggers include the full-text index's (items only).
    private let rebuildsFullText: Bool
    /// Whether the dropped triggers include the substring index's (items_trigram, items only).
    private let rebuildsTrigrams: Bool
    /// Whether the dropped triggers include the change counters'.
    private let countsChanges: Bool
    /// The kinds of item totals (Migrations/0016: 'c' by created_at, 'u' by updated_at; 0017:
    /// 'o' by owner) to
    /// count again: those the updated columns move, when the dropped triggers include the
    /// totals' update trigger; none otherwise.
    private let recountedKinds: [String]
    /// The connection's `cache_size` before `begin`, put back by `restoreCache`.
    private let previousCacheSize: Int64

    /// The page cache (KiB, negative as SQLite wants) while the bulk path runs. Appending
    /// rows needs next to none, and SQLite sizes its sorter's memory by the cache: measured on
    /// 1,000,000 items, making an index with 2 MiB took 1.1 s of CPU and 8 MB of memory, with
    /// 32 MiB 2.1 s and 71 MB; the full-text rebuild took 6 s of CPU either way.
    static let cacheSize = -2048

    /// The fewest staged rows that take the bulk path, unless the store's configuration
    /// (`Store.Configuration.bulkImportMinimumRows`) says otherwise.
    static let defaultMinimumRows: Int64 = 10_000

    /// The bulk path is taken when the table holds at most this many rows per staged row.
    static let existingRowsPerStagedRow: Int64 = 4

    /// The triggers a rebuild stands in for, by table.
    private static func knownTriggers(of table: ImportTable) -> Set<String> {
        var names: Set<String> = [
            "\(table.rawValue)_changes_after_insert", "\(table.rawValue)_changes_after_update",
            "\(table.rawValue)_changes_after_delete",
            // Migrations/0011: the rows a REPLACE overwrites, for the change log.
            "\(table.rawValue)_replaced_before_insert", "\(table.rawValue)_replaced_before_update",
        ]
        if table == .items {
            names.formUnion(["items_fts_after_insert", "items_fts_after_update", "items_fts_after_delete"])
            // The substring index of Migrations/0007, rebuilt the same way.
            names.formUnion(["items_trigram_after_insert", "items_trigram_after_update", "items_trigram_after_delete"])
        }
        return names
    }

    /// Drops the indexes of `table` (not its primary key or UNIQUE constraints, which SQLite
    /// made itself, nor its unique indexes: they refuse bad rows) and the known triggers. Call inside a
    /// transaction, and `finish` before it commits.
    static func begin(on connection: Connection, table: ImportTable) throws -> ImportRebuild {
        try begin(on: connection, table: table, triggers: knownTriggers(of: table), purpose: "bulk import into") { _ in
            true
        }
    }

    /// Sets aside what a set-based UPDATE of `columns` of most of `table` would otherwise keep
    /// row by row: the non-unique indexes holding one of those columns (an index on an
    /// expression counts as holding them all), the change log's update trigger and, on items,
    /// the item totals' update trigger (counted again at the end: on 1,000,000 items, marking
    /// 750,000 done took 2.2 s of CPU with it and 0.4 s without, and counting again 0.7 s), and
    /// the version trigger of Migrations/0006, which acts only on an UPDATE that leaves `version`
    /// where it was: a bulk change moves it itself, and the trigger's per-row check cost 0.2 s
    /// of the UPDATE's 0.45 s of CPU on 750,000 items (measured with sqlite3). The other
    /// indexes and triggers stay: SQLite leaves an index alone when the UPDATE sets none of its
    /// columns. Measured on 1,000,000 items, a bulk "done" of 800,000 cost 58 s of CPU row by row
    /// (45 s of it the change log's rows spilling from the page cache) and 7.8 s so. Call inside a
    /// transaction, and `finish` (with the rows updated) before it commits.
    static func begin(on connection: Connection, table: ImportTable, updating columns: Set<String>) throws
        -> ImportRebuild
    {
        try begin(
            on: connection, table: table,
            triggers: table == .items
                ? ["items_changes_after_update", "items_counts_after_update", "items_version_after_update"]
                : ["\(table.rawValue)_changes_after_update"],
            purpose: "bulk update of", dropsFast: true,
            // Every kind counts by status and priority; 'c' and 'u' each by its own time
            // column, 'o' by owner (Migrations/0017).
            recountedKinds: [("c", "created_at"), ("u", "updated_at"), ("o", "user_id")].compactMap { kind, column in
                columns.contains(where: ["id", "status", "priority", column].contains) ? kind : nil
            }
        ) { index in
            let held = try connection.fetch("SELECT name FROM main.pragma_index_info(?)", index) {
                try $0.get(0, as: String?.self)
            }
            return held.contains { $0.map(columns.contains) ?? true }
        }
    }

    private static func begin(
        on connection: Connection, table: ImportTable, triggers known: Set<String>, purpose: String,
        dropsFast: Bool = false, recountedKinds: [String] = [], dropsIndex: (String) throws -> Bool
    ) throws -> ImportRebuild {
        let statement = try connection.makeStatement(
            "SELECT type, name, sql FROM main.sqlite_master WHERE tbl_name = ? AND type IN ('index', 'trigger') "
                + "AND sql IS NOT NULL ORDER BY type, name")
        try statement.bind(table.rawValue)
        var found: [(type: String, name: String, sql: String)] = []
        try statement.forEachRow { row in found.append((try row.string(0), try row.string(1), try row.string(2))) }
        var indexes: [(name: String, sql: String)] = []
        var triggers: [(name: String, sql: String)] = []
        for (type, name, sql) in found {
            if type == "index" {
                if !sql.uppercased().hasPrefix("CREATE UNIQUE INDEX"), try dropsIndex(name) {
                    indexes.append((name, sql))
                }
            } else if known.contains(name) {
                triggers.append((name, sql))
            }
        }
        // First: dropping an index reads all of it, which would fill a big cache.
        let previousCacheSize = try connection.fetchOne("PRAGMA main.cache_size") { try $0.int64(0) } ?? 0
        try connection.execute("PRAGMA main.cache_size=\(cacheSize)")
        // The system's SQLite (Debian's) is built with SECURE_DELETE: dropping an index then
        // reads and zeroes every page of it. Its pages hold only values the table still holds
        // (an update's old values of the changed columns are in the undo record too), and the
        // indexes made again reuse them: FAST zeroes only what costs no extra page write. On
        // 1,000,000 items, dropping the six indexes of a "done" took 0.37 s of CPU so and 0.05 s
        // this way, and left as big a WAL. A bulk import (which may delete rows) keeps the setting.
        let previousSecureDelete =
            dropsFast ? try connection.fetchOne("PRAGMA main.secure_delete") { try $0.int64(0) } : nil
        do {
            if previousSecureDelete != nil { try connection.execute("PRAGMA main.secure_delete=FAST") }
            defer {
                if let previousSecureDelete {
                    try? connection.execute("PRAGMA main.secure_delete=\(previousSecureDelete)")
                }
            }
            for index in indexes { try connection.execute("DROP INDEX main.\(quoted(index.name))") }
            for trigger in triggers { try connection.execute("DROP TRIGGER main.\(quoted(trigger.name))") }
        } catch {
            try? connection.execute("PRAGMA main.cache_size=\(previousCacheSize)")
            throw error
        }
        let names = Set(triggers.map(\.name))
        Diagnostics.debug(
            "\(purpose) \(table.rawValue): dropped \(indexes.count) indexes and \(triggers.count) triggers "
                + "until the commit")
        let changeTriggers = ["insert", "update", "delete"].map { "\(table.rawValue)_changes_after_\($0)" }
        return ImportRebuild(
            table: table, indexes: indexes.map(\.sql), triggers: triggers.map(\.sql),
            // Since Migrations/0011 the change log's insert trigger fills both text indexes.
            rebuildsFullText: names.contains("items_fts_after_insert") || names.contains("items_changes_after_insert"),
            rebuildsTrigrams: names.contains("items_trigram_after_insert")
                || names.contains("items_changes_after_insert"),
            countsChanges: changeTriggers.contains(where: names.contains),
            recountedKinds: names.contains("items_counts_after_update") ? recountedKinds : [],
            previousCacheSize: previousCacheSize)
    }

    /// Puts the connection's page cache size back, whatever the import's outcome.
    func restoreCache(on connection: Connection) {
        try? connection.execute("PRAGMA main.cache_size=\(previousCacheSize)")
    }

    /// Creates the indexes and triggers again, rebuilds the full-text index and moves the
    /// change counters by `counts`, once.
    func finish(on connection: Connection, counts: ImportCounts, isCancelled: () -> Bool) throws {
        let clock = ContinuousClock()
        var start = clock.now
        for sql in indexes {
            if isCancelled() { throw CancellationError() }
            try connection.execute(sql)
        }
        Diagnostics.debug("bulk import into \(table.rawValue): \(indexes.count) indexes made in \(clock.now - start)")
        if rebuildsFullText {
            if isCancelled() { throw CancellationError() }
            start = clock.now
            // Without incremental merges while it writes its segments: 1,000,000 items took
            // 4.9 s instead of 7.4 s, and ended with as many segments (11 against 12), so
            // searches are as fast. The setting is put back as it was (FTS5's default is 4).
            let automerge = try connection.fetchOne(
                "SELECT v FROM main.items_fts_config WHERE k = 'automerge'"
            ) { try $0.get(0, as: Int64.self) }
            try connection.execute("INSERT INTO main.items_fts (items_fts, rank) VALUES ('automerge', 0)")
            try connection.execute("INSERT INTO main.items_fts (items_fts) VALUES ('rebuild')")
            try connection.execute(
                "INSERT INTO main.items_fts (items_fts, rank) VALUES ('automerge', \(automerge ?? 4))")
            Diagnostics.debug("bulk import into items: full-text index rebuilt in \(clock.now - start)")
        }
        if rebuildsTrigrams {
            if isCancelled() { throw CancellationError() }
            start = clock.now
            try connection.execute("INSERT INTO main.items_trigram (items_trigram, rank) VALUES ('automerge', 0)")
            try connection.execute("INSERT INTO main.items_trigram (items_trigram) VALUES ('rebuild')")
            try connection.execute("INSERT INTO main.items_trigram (items_trigram, rank) VALUES ('automerge', 4)")
            Diagnostics.debug("bulk import into items: substring index rebuilt in \(clock.now - start)")
        }
        if !recountedKinds.isEmpty {
            if isCancelled() { throw CancellationError() }
            try connection.execute(Self.recountSQL(kinds: recountedKinds))
        }
        for sql in triggers { try connection.execute(sql) }
        let changed = counts.inserted + counts.updated + counts.deleted
        if countsChanges, changed > 0 {
            let statement = try connection.makeStatement(
                "UPDATE main.shelf_changes SET counter = counter + ?, row_count = row_count + ? WHERE table_name = ?")
            try statement.bind(Int64(changed), Int64(counts.inserted - counts.deleted), table.rawValue)
            try statement.run()
            // The rows went unlogged: a gap in the change log's sequence (Migrations/0011) tells
            // every live query to read in full once.
            try SQLiteChangeLog.skipSequence(on: connection)
        }
    }

    /// Counts the item totals of `kinds` (not empty) again from the table, as Migrations/0016
    /// and 0017 counted them first. 'c' and 'u' come from one read of the table, grouped by
    /// both buckets: one sort of 1,000,000 rows instead of two (0.57 s of CPU instead of 0.73
    /// s); 'o' (by owner) from a read of its own. An owner change moves only the 'u' and 'o'
    /// totals, and counts only those.
    static func recountSQL(kinds: [String]) -> String {
        let bucket = { (column: String) in
            "CASE WHEN typeof(\(column)) = 'integer' THEN \(column) >> 26 ELSE 'other' END"
        }
        var sql =
            "DELETE FROM main.shelf_item_counts WHERE kind IN (\(kinds.map { "'\($0)'" }.joined(separator: ", ")));\n"
        let insert = "INSERT INTO main.shelf_item_counts (kind, bucket, status, priority, n)"
        let times = kinds.filter { $0 == "c" || $0 == "u" }
        if times.count == 1, let kind = times.first {
            sql += """
                \(insert)
                SELECT '\(kind)', \(bucket(kind == "c" ? "created_at" : "updated_at")), status, priority, count(*)
                FROM main.items GROUP BY 2, 3, 4;

                """
        } else if times.count == 2 {
            sql += """
                WITH g AS MATERIALIZED (
                    SELECT \(bucket("created_at")) AS c, \(bucket("updated_at")) AS u, status, priority, count(*) AS n
                    FROM main.items GROUP BY 1, 2, 3, 4)
                \(insert)
                SELECT 'c', c, status, priority, sum(n) FROM g GROUP BY 2, 3, 4
                UNION ALL SELECT 'u', u, status, priority, sum(n) FROM g GROUP BY 2, 3, 4;

                """
        }
        if kinds.contains("o") {
            sql += "\(insert) SELECT 'o', user_id, status, priority, count(*) FROM main.items GROUP BY 2, 3, 4;\n"
        }
        return sql
    }

    private static func quoted(_ name: String) -> String {
        "\"" + name.replacingOccurrences(of: "\"", with: "\"\"") + "\""
    }
}
