internal import Foundation
internal import ShelfSQLite
internal import ShelfStore

/// Applies a `MigrationPlan` to a SQLite database: the SQL of `shelf_migrations` and of each
/// migration's transaction. What to apply and what to refuse is the plan's (the same rules and
/// words as on PostgreSQL).
///
/// Each pending migration runs in its own transaction, looking again under the write lock, so
/// two processes opening the same new file at once apply it once.
struct SQLiteMigrator: Sendable {
    let plan: MigrationPlan

    /// The migrations this build carries (Migrations/*.sql).
    static let embedded = SQLiteMigrator(plan: MigrationPlan(embedded: EmbeddedMigrations.all, folder: "Migrations"))

    /// Applies every pending migration. Returns the names applied, in order.
    /// - Throws: `StoreError`: `.newerDatabase` or `.modifiedMigration` (nothing applied),
    ///   `.migrationFailed` naming the migration whose SQL failed (rolled back; the earlier
    ///   ones stay applied), or a database failure.
    @discardableResult
    func migrate(_ database: Database) throws -> [String] {
        try StoreError.translating {
            try database.withWriter { connection in
                try connection.execute(
                    """
                    CREATE TABLE IF NOT EXISTS shelf_migrations (
                        name TEXT PRIMARY KEY NOT NULL,
                        checksum TEXT NOT NULL,
                        applied_at INTEGER NOT NULL
                    )
                    """)
                let applied = try Self.appliedMigrations(connection)
                try plan.validate(applied)
                var done: [String] = []
                for migration in plan.pending(applied) {
                    let ran: Bool
                    do {
                        ran = try Self.withForeignKeys(off: Self.needsForeignKeysOff(migration), on: connection) {
                            try connection.transaction { () -> Bool in
                                // Look again under the write lock: another process opening the
                                // same new database at the same moment may have applied it.
                                let already = try connection.fetchOne(
                                    "SELECT 1 FROM shelf_migrations WHERE name = ?", migration.name
                                ) { _ in true }
                                guard already == nil else { return false }
                                try Self.apply(migration, on: connection)
                                try connection.run(
                                    "INSERT INTO shelf_migrations (name, checksum, applied_at) VALUES (?, ?, ?)",
                                    migration.name, migration.checksum, Date())
                                return true
                            }
                        }
                    } catch let error as DatabaseError {
                        var failure = plan.failure(
                            of: migration, message: error.message, diskFull: error.code == DatabaseError.full)
                        // The caller, which knows what the file is for, says where (no SQL to fix).
                        if error.code == DatabaseError.full { failure.markDiskFull() }
                        throw failure
                    }
                    if ran {
                        done.append(migration.name)
                        Diagnostics.debug("applied migration \(migration.name) to \(database.path ?? ":memory:")")
                    }
                }
                return done
            }
        }
    }

    /// The first line of a migration that must run with foreign keys off: one that makes a
    /// table again that other tables refer to (`DROP TABLE users` with foreign keys on deletes
    /// every item with its user). SQLite ignores `PRAGMA foreign_keys` inside a transaction, so
    /// the migrator turns them off around the migration's transaction, and refuses to commit
    /// when it left more rows referring to a missing one than there were before.
    static let foreignKeysOffMarker = "-- shelf: foreign keys off\n"

    static func needsForeignKeysOff(_ migration: SchemaMigration) -> Bool {
        migration.sql.hasPrefix(foreignKeysOffMarker)
    }

    /// Runs `migration`'s SQL in the transaction open on `connection`. With foreign keys off,
    /// counts the rows that refer to a missing row (`PRAGMA foreign_key_check`) before and after,
    /// and throws when the migration added any: the transaction then rolls back.
    private static func apply(_ migration: SchemaMigration, on connection: Connection) throws {
        guard needsForeignKeysOff(migration) else { return try connection.execute(migration.sql) }
        let count = "SELECT count(*) FROM pragma_foreign_key_check"
        let before = try connection.fetchOne(count) { try $0.int64(0) } ?? 0
        try connection.execute(migration.sql)
        let after = try connection.fetchOne(count) { try $0.int64(0) } ?? 0
        guard after <= before else {
            throw DatabaseError(
                extendedCode: DatabaseError.error.rawValue,
                message:
                    "it left \(after - before) more rows referring to a row that is not there "
                    + "(PRAGMA foreign_key_check lists them)")
        }
    }

    /// Runs `body` with the connection's foreign keys off when `off` (outside any transaction,
    /// where SQLite honours the pragma), and turns them on again however `body` ends.
    private static func withForeignKeys<T>(off: Bool, on connection: Connection, _ body: () throws -> T) throws -> T {
        guard off else { return try body() }
        try connection.execute("PRAGMA foreign_keys = OFF")
        let result: T
        do {
            result = try body()
        } catch {
            // A failure to turn them on again is the graver one: it is thrown instead.
            try connection.execute("PRAGMA foreign_keys = ON")
            throw error
        }
        try connection.execute("PRAGMA foreign_keys = ON")
        return result
    }

    /// Each known migration's state, then any unknown ones, without changing the database.
    func status(_ database: Database) throws -> [MigrationStatus] {
        try StoreError.translating {
            let applied = try database.read { connection in
                let exists = try connection.fetchOne(
                    "SELECT 1 FROM sqlite_schema WHERE type = 'table' AND name = 'shelf_migrations'"
                ) { _ in true }
                return exists == true ? try Self.appliedMigrations(connection) : [:]
            }
            return plan.status(applied)
        }
    }

    private static func appliedMigrations(_ connection: Connection) throws -> [String: MigrationPlan.AppliedMigration] {
        var applied: [String: MigrationPlan.AppliedMigration] = [:]
        for (name, checksum, date) in try connection.fetch(
            "SELECT name, checksum, applied_at FROM shelf_migrations",
            row: { (try $0.get(0, as: String.self), try $0.get(1, as: String.self), try $0.get(2, as: Date.self)) })
        {
            applied[name] = MigrationPlan.AppliedMigration(checksum: checksum, appliedAt: date)
        }
        return applied
    }
}
