internal import Foundation
internal import ShelfSQLite
public import ShelfStore

extension Store {
    /// Opens the store at `path`, creating the file and its folder when missing, and applies
    /// pending migrations.
    /// - Throws: `StoreError` with `.newerDatabase` or `.modifiedMigration` (the file is left
    ///   untouched), `.migrationFailed`, `.corrupt`, or `.database` when it cannot be opened.
    /// - Parameter configuration: timeouts, cache sizes and thresholds (see `Configuration`).
    public convenience init(path: String, configuration: Configuration = .default) throws {
        self.init(sqlite: try SQLiteBackend.open(path: path, configuration: configuration))
    }

    /// A store in a fresh temporary file, deleted when the store is released. For tests and
    /// demos; it behaves exactly like a file store.
    public static func temporary() throws -> Store {
        Store(sqlite: try SQLiteBackend.temporary())
    }

    convenience init(database: Database) throws {
        self.init(sqlite: try SQLiteBackend(database: database))
    }

    /// A store over the SQLite backend `sqlite`.
    convenience init(sqlite: SQLiteBackend) {
        self.init(backend: sqlite, testHooks: sqlite)
    }

    static var migrator: SQLiteMigrator { SQLiteBackend.migrator }

    /// The table of per-table change counters that Shelf's schema keeps (migration
    /// 0002_change_counters), which tells live queries which tables a commit changed.
    static let changeCounterTable = "shelf_changes"

    /// Throws, changing nothing, when `path` holds something other than a shelf: a file that
    /// is not SQLite, or a SQLite database with tables but no `shelf_migrations` (somebody
    /// else's database, which migrating would fill with shelf's tables and switch to WAL).
    /// A missing or empty file, and an empty database, are fine: they become a new shelf.
    /// `immutable`: read the file as `Connection(immutable:)` does, leaving no `-wal` or `-shm`
    /// (for a file no process has open, whose WAL holds nothing).
    static func refuseForeignDatabase(
        at path: String, timeout: Duration = WriteTimeout.defaultDuration, immutable: Bool = false
    ) throws {
        guard let attributes = try? FileManager.default.attributesOfItem(atPath: path),
            let size = attributes[.size] as? Int, size > 0
        else { return }
        let tables = try StoreError.translating { () -> [String] in
            let connection = try Connection(path: path, readOnly: true, busyTimeout: timeout, immutable: immutable)
            defer { connection.close() }
            return try connection.fetch(
                "SELECT name FROM sqlite_schema WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name"
            ) { try $0.string(0) }
        }
        guard !tables.isEmpty, !tables.contains("shelf_migrations") else { return }
        let shown = tables.prefix(5).map { "'\($0)'" }.joined(separator: ", ")
        let more = tables.count > 5 ? " and \(tables.count - 5) more" : ""
        throw StoreError(
            .foreignDatabase,
            "this SQLite database is not a shelf (it has the tables \(shown)\(more), and no shelf_migrations); "
                + "shelf changed nothing in it. Choose another file, or a new path to create a shelf",
            hint: .chooseAnotherDatabase)
    }
}
