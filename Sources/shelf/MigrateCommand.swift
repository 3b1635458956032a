import ArgumentParser
import ShelfSQLiteBackend
import ShelfStore

#if PostgreSQL
    import ShelfPostgres
#endif

struct MigrateCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "migrate", abstract: "Bring the database schema up to date.")

    @OptionGroup var database: DatabaseOptions

    @Flag(help: "List every migration and whether it is applied, without changing anything.")
    var status = false

    func run() async throws {
        let location = try database.resolvedLocation()
        if status {
            try printLine("database: \(location)")
            for line in try await Self.migrationStatus(location).lines {
                try printLine(line)
            }
            return
        }
        let store = try await OpenDatabases.open(location, sayingRepairs: false)
        for name in store.appliedMigrations { try printLine("applied \(name)") }
        // What another program had broken and the open put right (a dropped count table), and
        // what only a full comparison of the counts with the items finds (a few count rows
        // deleted by hand).
        let repairs = store.repairs + (try await Self.repairsInFull(location))
        for repair in repairs { try printLine("repaired: \(repair)") }
        if store.appliedMigrations.isEmpty && repairs.isEmpty {
            try printLine("\(location) is up to date")
        }
        // The database as given, so the suggested command acts on it (not on the default one).
        let given = database.path.map { " --db " + ShellQuoting.quoted($0) } ?? ""
        for collision in store.emailCollisions { try printLine(Self.describe(collision, database: given)) }
    }

    /// What only a full comparison of a PostgreSQL store's counts with its items finds and
    /// puts right (`Store.repairInFull`); nothing for a SQLite store.
    private static func repairsInFull(_ location: StoreLocation) async throws -> [String] {
        #if PostgreSQL
            if case .postgres(let url) = location { return try await Store.repairInFull(postgres: url) }
        #endif
        return []
    }

    /// What to say of two users whose emails differ only in letter case, and what to do.
    static func describe(_ collision: EmailCollision, database: String = "") -> String {
        let (user, kept) = (collision.user.rawValue, collision.keptBy.rawValue)
        return "warning: users \(user) (\(collision.email)) and \(kept) (\(collision.keptEmail)) have emails that "
            + "differ only in letter case, which makes them one user by email; both are kept, and the email "
            + "finds user \(kept) unless typed exactly as user \(user)'s. Keep one of them: give user \(user)'s "
            + "items to user \(kept) (in the browser: mark them, then o), then remove user \(user) with "
            + "shelf users remove\(database) -- \(ShellQuoting.quoted(collision.email)); or change one of the two emails "
            + "in the browser's users view. Nothing was changed."
    }

    private static func migrationStatus(_ location: StoreLocation) async throws -> [MigrationStatus] {
        switch location {
        case .sqlite(let path): return try Store.migrationStatus(path: path)
        case .postgres(let url):
            #if PostgreSQL
                return try await Store.migrationStatus(postgres: url)
            #else
                // Opening says why this build cannot.
                _ = try await OpenDatabases.open(.postgres(url: url))
                return []
            #endif
        }
    }
}
