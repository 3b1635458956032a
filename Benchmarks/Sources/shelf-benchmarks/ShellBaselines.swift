import BaselineSQLite
import Foundation

/// The `sqlite3` shell's side of the transfer benchmark: scripts that load the same CSV file
/// Shelf imports (owners by email, ISO 8601 times) into the same schema, and the checks that
/// both sides wrote the same rows.
///
/// Both scripts use Shelf's connection settings (foreign keys on, synchronous NORMAL, a 32 MB
/// page cache), look each owner up by email through the unique email index, and turn the times
/// into milliseconds in SQL (`julianday`), so the shell does the same work Shelf does.
struct ShellBaselines {
    /// The statements that make and drop the list indexes and the insert triggers of `items`,
    /// as the migrated template holds them in sqlite_master.
    private let indexes: [(name: String, sql: String)]
    private let insertTriggers: [(name: String, sql: String)]

    static let shell = "/usr/bin/sqlite3"

    private static let settings = "PRAGMA foreign_keys=ON; PRAGMA synchronous=NORMAL; PRAGMA cache_size=-32768;"

    /// Reads the index and trigger SQL of `template` (a store Shelf migrated).
    init(template: String) throws {
        var handle: OpaquePointer?
        guard sqlite3_open_v2(template, &handle, SQLITE_OPEN_READONLY, nil) == SQLITE_OK, let handle else {
            throw BenchmarkError("cannot open \(template)")
        }
        defer { sqlite3_close_v2(handle) }
        var statement: OpaquePointer?
        let sql = """
            SELECT type, name, sql FROM sqlite_master WHERE tbl_name = 'items' AND sql IS NOT NULL
            AND (type = 'index' OR (type = 'trigger' AND instr(upper(sql), 'AFTER INSERT ON') > 0)) ORDER BY rowid
            """
        guard sqlite3_prepare_v2(handle, sql, -1, &statement, nil) == SQLITE_OK, let statement else {
            throw BenchmarkError("cannot read the schema of \(template)")
        }
        defer { sqlite3_finalize(statement) }
        var indexes: [(String, String)] = []
        var triggers: [(String, String)] = []
        while sqlite3_step(statement) == SQLITE_ROW {
            let entry = (columnText(statement, 1) ?? "", columnText(statement, 2) ?? "")
            if columnText(statement, 0) == "index" { indexes.append(entry) } else { triggers.append(entry) }
        }
        guard !indexes.isEmpty, triggers.count >= 2 else {
            throw BenchmarkError("\(template) has no item indexes or insert triggers: is it migrated?")
        }
        self.indexes = indexes
        self.insertTriggers = triggers
    }

    /// How many list indexes and insert triggers the staged script drops and makes again.
    var dropped: String { "\(indexes.count) indexes, \(insertTriggers.count) insert triggers" }

    private static func milliseconds(_ column: String) -> String {
        "CAST(round((julianday(\(column)) - 2440587.5) * 86400000.0) AS INTEGER)"
    }

    /// Baseline (a): `.import` into a TEMP view whose INSTEAD OF trigger inserts each row into
    /// `items`, with every index and trigger live (one transaction: `.import` opens one).
    func liveImport(csv: String) -> String {
        """
        \(Self.settings)
        CREATE TEMP VIEW incoming (id, user, title, notes, status, priority, created_at, updated_at)
            AS SELECT NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL;
        CREATE TEMP TRIGGER incoming_insert INSTEAD OF INSERT ON incoming BEGIN
            INSERT INTO items (id, user_id, title, notes, status, priority, created_at, updated_at)
            VALUES (new.id, (SELECT id FROM users WHERE email = new.user), new.title, nullif(new.notes, ''),
                new.status, new.priority, \(Self.milliseconds("new.created_at")), \(Self.milliseconds("new.updated_at")));
        END;
        .import --csv --skip 1 '\(csv)' incoming

        """
    }

    /// Baseline (b), the practical floor: `.import` into a bare TEMP staging table, then in one
    /// transaction drop the list indexes and insert triggers of `items`, `INSERT … SELECT`,
    /// make the indexes and triggers again from their sqlite_master SQL, rebuild the full-text
    /// index, and bump the change counter and row count once.
    func stagedImport(csv: String) -> String {
        var script = """
            \(Self.settings)
            CREATE TEMP TABLE staging (id, user, title, notes, status, priority, created_at, updated_at);
            .import --csv --skip 1 '\(csv)' staging
            BEGIN IMMEDIATE;

            """
        for index in indexes { script += "DROP INDEX main.\(index.name);\n" }
        for trigger in insertTriggers { script += "DROP TRIGGER main.\(trigger.name);\n" }
        script += """
            INSERT INTO main.items (id, user_id, title, notes, status, priority, created_at, updated_at)
            SELECT id, (SELECT id FROM main.users WHERE email = s.user), title, nullif(notes, ''), status, priority,
                \(Self.milliseconds("created_at")), \(Self.milliseconds("updated_at"))
            FROM temp.staging s;

            """
        for index in indexes { script += index.sql + ";\n" }
        for trigger in insertTriggers { script += trigger.sql + ";\n" }
        script += """
            INSERT INTO main.items_fts (items_fts) VALUES ('rebuild');
            UPDATE main.shelf_changes SET counter = counter + 1,
                row_count = row_count + (SELECT count(*) FROM temp.staging) WHERE table_name = 'items';
            COMMIT;

            """
        return script
    }

    /// The shell's export: Shelf's columns (the owner's email by a join, times as ISO 8601
    /// with milliseconds), by ID.
    static let exportSelect = """
        SELECT i.id, u.email AS user, i.title, i.notes, i.status, i.priority,
            strftime('%Y-%m-%dT%H:%M:%fZ', i.created_at / 1000.0, 'unixepoch') AS created_at,
            strftime('%Y-%m-%dT%H:%M:%fZ', i.updated_at / 1000.0, 'unixepoch') AS updated_at
        FROM items i JOIN users u ON u.id = i.user_id ORDER BY i.id
        """

    /// A summary of the items a store holds (sums over every column, the kept row count, the
    /// sequence, a full-text match count): two stores with the same summary hold the same rows.
    static func fingerprint(_ database: String, scratch: String) throws -> String {
        try query(
            database,
            """
            SELECT count(*), sum(id), sum(user_id), sum(length(title)), total(length(notes)), sum(notes IS NULL),
                sum(status = 'done'), sum(priority), sum(created_at), sum(updated_at), sum(version) FROM items;
            SELECT row_count FROM shelf_changes WHERE table_name = 'items';
            SELECT seq FROM sqlite_sequence WHERE name = 'items';
            SELECT count(*) FROM items_fts WHERE items_fts MATCH 'river OR naive OR cafe';
            """, scratch: scratch
        ).split(separator: "\n").joined(separator: " / ")
    }

    /// `PRAGMA integrity_check` and the full-text index's integrity check against its content.
    /// - Throws: `BenchmarkError` when either fails.
    static func checkIntegrity(_ database: String, scratch: String) throws {
        let result = try query(
            database, "PRAGMA integrity_check; INSERT INTO items_fts (items_fts, rank) VALUES ('integrity-check', 1);",
            scratch: scratch)
        guard result.trimmingCharacters(in: .whitespacesAndNewlines) == "ok" else {
            throw BenchmarkError("integrity_check of \(database): \(result.prefix(500))")
        }
    }

    /// Runs `sql` in the shell (stopping at the first error) and returns what it printed.
    static func query(_ database: String, _ sql: String, scratch: String) throws -> String {
        let script = scratch + ".sql"
        let output = scratch + ".out"
        defer {
            unlink(script)
            unlink(output)
        }
        try Data(sql.utf8).write(to: URL(fileURLWithPath: script))
        try FreshProcess.setup([shell, "-bail", database], output: output, input: script)
        return try String(contentsOfFile: output, encoding: .utf8)
    }
}
