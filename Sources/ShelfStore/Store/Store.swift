internal import Foundation
internal import ShelfSQLite

/// A shelf: users and items in a database, migrated to this version's schema.
///
/// The database is a SQLite file (`Store(path:)`, embedded, the default) or, with the
/// ShelfPostgres library, a PostgreSQL server (`Store.open(postgres:)`); both behave the same
/// through this type, and nothing that uses a store needs to know which it has.
///
/// Open one per database and share it: `Store` and its repositories are thread-safe, and all
/// their methods may be called from any task. A SQLite store stays open until the last
/// reference to it (or one of its repositories) goes away; call `close()` to end a server
/// store's connections sooner.
///
/// ```swift
/// let store = try Store(path: "shelf.sqlite")
/// let ann = try await store.users.insert(NewUser(name: "Ann", email: "ann@example.com"))
/// try await store.items.insert(NewItem(userID: ann, title: "Read Dune"))
/// let open = try await store.items.items(matching: ItemQuery(status: .open), limit: 50)
/// ```
public final class Store: Sendable {
    /// Users of this store.
    public let users: any UserRepository
    /// Items of this store.
    public let items: any ItemRepository
    /// Saved views (named searches of the item list) of this store.
    public let views: any SavedViewRepository
    /// The migrations this open applied (empty when the database was up to date).
    public var appliedMigrations: [String] { backend.appliedMigrations }
    /// Users whose emails differ only in letter case (`Äda@x.com` and `äda@x.com`), found when
    /// the store opened: stored before emails were one user whatever their case, or by a
    /// program that does not know the rule. Empty in a healthy store; `shelf migrate` prints
    /// them and what to do.
    public var emailCollisions: [EmailCollision] { backend.emailCollisions }
    /// The database file, or nil for a store that is not a local file (in memory, or on a
    /// server).
    public var path: String? { backend.path }
    /// Where the store lives, fit to show to a person: the file's path, or the server's URL
    /// without its password.
    public var location: String { backend.location }

    /// The database engine behind this store.
    package let backend: any StoreBackend
    /// What the backend tells tests about its work (nil when it tells nothing).
    private let testHooks: (any StoreTestHooks)?

    /// A store over `backend`; `testHooks` (usually the backend itself) answers
    /// `liveQueryRuns` and `statementCount`.
    package init(backend: any StoreBackend, testHooks: (any StoreTestHooks)? = nil) {
        self.backend = backend
        self.testHooks = testHooks
        users = backend.users
        items = backend.items
        views = backend.views
    }

    /// Ends the store's connections; live values stop changing. Safe to call more than once.
    /// Other calls on a closed server store fail. A SQLite store closes its file when it is
    /// released, so this is optional there.
    public func close() async {
        await backend.close()
    }

    /// How many times this store's live values have run their queries (first reads included),
    /// for tests.
    package var liveQueryRuns: Int { testHooks?.liveQueryRuns ?? 0 }

    /// How many SQL statements this store has run, for tests that check a path runs none (0
    /// when the backend does not count them).
    package var statementCount: Int { testHooks?.statementCount ?? 0 }

    /// Opens the store at `path`, creating the file and its folder when missing, and applies
    /// pending migrations.
    /// - Throws: `StoreError` with `.newerDatabase` or `.modifiedMigration` (the file is left
    ///   untouched), `.migrationFailed`, `.corrupt`, or `.database` when it cannot be opened.
    public convenience init(path: String) throws {
        self.init(sqlite: try SQLiteBackend.open(path: path))
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

    static var migrator: Migrator { SQLiteBackend.migrator }

    /// The table of per-table change counters that Shelf's schema keeps (migration
    /// 0002_change_counters), which tells live queries which tables a commit changed.
    static let changeCounterTable = "shelf_changes"

    /// Throws, changing nothing, when `path` holds something other than a shelf: a file that
    /// is not SQLite, or a SQLite database with tables but no `shelf_migrations` (somebody
    /// else's database, which migrating would fill with shelf's tables and switch to WAL).
    /// A missing or empty file, and an empty database, are fine: they become a new shelf.
    static func refuseForeignDatabase(at path: String) throws {
        guard let attributes = try? FileManager.default.attributesOfItem(atPath: path),
            let size = attributes[.size] as? Int, size > 0
        else { return }
        let tables = try StoreError.translating { () -> [String] in
            let connection = try Connection(path: path, readOnly: true, busyTimeout: WriteTimeout.duration)
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
                + "shelf changed nothing in it. Choose another file with --db or SHELF_DB, or a new path to create a shelf"
        )
    }
}
