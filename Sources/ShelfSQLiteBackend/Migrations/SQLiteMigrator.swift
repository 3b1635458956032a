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
                        ran = try connection.transaction { () -> Bool in
                            // Look again under the write lock: another process opening the same
                            // new database at the same moment may have applied it meanwhile.
                            let already = try connection.fetchOne(
                                "SELECT 1 FROM shelf_migrations WHERE name = ?", migration.name
                            ) { _ in true }
                            guard already == nil else { return false }
                            try connection.execute(migration.sql)
                            try connection.run(
                                "INSERT INTO shelf_migrations (name, checksum, applied_at) VALUES (?, ?, ?)",
                                migration.name, migration.checksum, Date())
                            return true
                        }
                    } catch let error as DatabaseError {
                        throw plan.failure(of: migration, message: error.message)
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
