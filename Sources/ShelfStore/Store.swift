internal import Foundation
internal import ShelfSQLite

/// A shelf: one SQLite file holding users and items, migrated to this version's schema.
///
/// Open one per file and share it: `Store` and its repositories are thread-safe, and all
/// their methods may be called from any task. The file stays open until the last reference
/// to the store (or one of its repositories) goes away.
///
/// ```swift
/// let store = try Store(path: "shelf.sqlite")
/// let ann = try await store.users.insert(NewUser(name: "Ann", email: "ann@example.com"))
/// try await store.items.insert(NewItem(userID: ann, title: "Read Dune"))
/// let open = try await store.items.items(matching: ItemQuery(status: .open), limit: 50)
/// ```
public final class Store: Sendable {
    /// Users of this store.
    public let users: SQLiteUserRepository
    /// Items of this store.
    public let items: SQLiteItemRepository
    /// The migrations this open applied (empty when the file was up to date).
    public let appliedMigrations: [String]
    /// The database file, or nil for an in-memory store.
    public var path: String? { database.path }

    let database: Database

    /// How many SQL statements this store has run, for tests that check a path runs none.
    package var statementCount: Int { database.statementCounter.value }

    /// Opens the store at `path`, creating the file and its folder when missing, and applies
    /// pending migrations.
    /// - Throws: `StoreError` with `.newerDatabase` or `.modifiedMigration` (the file is left
    ///   untouched), `.migrationFailed`, `.corrupt`, or `.database` when it cannot be opened.
    public convenience init(path: String) throws {
        let folder = URL(fileURLWithPath: path).deletingLastPathComponent()
        do {
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        } catch {
            throw StoreError(
                .database,
                "cannot create the folder \(folder.path) for the database (\(error.localizedDescription)); "
                    + "create it, fix its permissions, or choose another file with --db or SHELF_DB")
        }
        do {
            try Self.refuseForeignDatabase(at: path)
            try self.init(database: StoreError.translating { try Database(path: path) })
        } catch let error as StoreError {
            // Say which file: the same message is no help when --db and SHELF_DB disagree.
            throw StoreError(error.code, "\(path): \(error.message)")
        }
    }

    /// A store in a fresh temporary file, deleted when the store is released. For tests and
    /// demos; it behaves exactly like a file store.
    public static func temporary() throws -> Store {
        try Store(database: StoreError.translating { try Database.temporary() })
    }

    init(database: Database) throws {
        self.database = database
        appliedMigrations = try StoreError.translating { try Self.migrator.migrate(database) }
        users = SQLiteUserRepository(database: database)
        items = SQLiteItemRepository(database: database)
    }

    static let migrator = Migrator(migrations: EmbeddedMigrations.all)

    /// Throws, changing nothing, when `path` holds something other than a shelf: a file that
    /// is not SQLite, or a SQLite database with tables but no `shelf_migrations` (somebody
    /// else's database, which migrating would fill with shelf's tables and switch to WAL).
    /// A missing or empty file, and an empty database, are fine: they become a new shelf.
    static func refuseForeignDatabase(at path: String) throws {
        guard let attributes = try? FileManager.default.attributesOfItem(atPath: path),
            let size = attributes[.size] as? Int, size > 0
        else { return }
        let tables = try StoreError.translating { () -> [String] in
            let connection = try Connection(path: path, readOnly: true)
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
