package import Foundation
internal import Logging

/// Applies `Migration`s in name order, each in its own transaction, and records them in the
/// `shelf_migrations` table with a checksum.
///
/// Before applying anything it checks the database's history against the migrations it
/// knows, and refuses (throwing `MigrationError`, changing nothing) when the database holds a
/// migration it does not know (a newer version of the program made it) or when an applied
/// migration's SQL has changed since.
package struct Migrator: Sendable {
    package let migrations: [Migration]

    /// - Precondition: names are unique.
    package init(migrations: [Migration]) {
        self.migrations = migrations.sorted { $0.name < $1.name }
        precondition(Set(migrations.map(\.name)).count == migrations.count, "duplicate migration names")
    }

    /// One migration's state in a database.
    package struct Status: Sendable, Hashable {
        package enum State: Sendable, Hashable {
            case applied(at: Date)
            case pending
            /// Applied, but its SQL has changed since.
            case modified(at: Date)
            /// Applied by a program that knows migrations this one does not.
            case unknown(at: Date)
        }
        package let name: String
        package let state: State
    }

    /// Applies every pending migration. Returns the names applied, in order.
    /// - Throws: `MigrationError` (nothing applied) or, when a migration's SQL fails, a
    ///   `MigrationError.failed` naming it; migrations before it stay applied.
    @discardableResult
    package func migrate(_ database: Database) throws -> [String] {
        try database.withWriter { connection in
            try connection.execute(
                """
                CREATE TABLE IF NOT EXISTS shelf_migrations (
                    name TEXT PRIMARY KEY NOT NULL,
                    checksum TEXT NOT NULL,
                    applied_at INTEGER NOT NULL
                )
                """)
            let applied = try appliedMigrations(connection)
            try validate(applied)
            var done: [String] = []
            for migration in migrations where applied[migration.name] == nil {
                do {
                    let ran = try connection.transaction { () -> Bool in
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
                    if ran {
                        done.append(migration.name)
                        Diagnostics.logger.debug(
                            "applied migration \(migration.name)", metadata: ["path": "\(database.path ?? ":memory:")"])
                    }
                } catch let error as DatabaseError {
                    throw MigrationError.failed(name: migration.name, error: error)
                }
            }
            return done
        }
    }

    /// Each known migration's state, then any unknown ones, without changing the database.
    package func status(_ database: Database) throws -> [Status] {
        let applied = try database.read { connection in
            let exists = try connection.fetchOne(
                "SELECT 1 FROM sqlite_schema WHERE type = 'table' AND name = 'shelf_migrations'"
            ) { _ in true }
            return exists == true ? try appliedMigrations(connection) : [:]
        }
        var result = migrations.map { migration in
            guard let record = applied[migration.name] else { return Status(name: migration.name, state: .pending) }
            return Status(
                name: migration.name,
                state: record.checksum == migration.checksum ? .applied(at: record.date) : .modified(at: record.date))
        }
        let known = Set(migrations.map(\.name))
        for (name, record) in applied.sorted(by: { $0.key < $1.key }) where !known.contains(name) {
            result.append(Status(name: name, state: .unknown(at: record.date)))
        }
        return result
    }

    private func appliedMigrations(_ connection: Connection) throws -> [String: (checksum: String, date: Date)] {
        var applied: [String: (checksum: String, date: Date)] = [:]
        for (name, checksum, date) in try connection.fetch(
            "SELECT name, checksum, applied_at FROM shelf_migrations",
            row: { (try $0.get(0, as: String.self), try $0.get(1, as: String.self), try $0.get(2, as: Date.self)) })
        {
            applied[name] = (checksum, date)
        }
        return applied
    }

    private func validate(_ applied: [String: (checksum: String, date: Date)]) throws {
        let known = Dictionary(uniqueKeysWithValues: migrations.map { ($0.name, $0) })
        let unknown = applied.keys.filter { known[$0] == nil }.sorted()
        if !unknown.isEmpty {
            throw MigrationError.newerDatabase(unknown: unknown, latestKnown: migrations.last?.name)
        }
        for (name, record) in applied.sorted(by: { $0.key < $1.key }) {
            if let migration = known[name], migration.checksum != record.checksum {
                throw MigrationError.modified(name: name, recorded: record.checksum, current: migration.checksum)
            }
        }
    }
}

/// Why the `Migrator` refused or failed.
package enum MigrationError: Error, Sendable, CustomStringConvertible {
    /// The database holds migrations this program does not know.
    case newerDatabase(unknown: [String], latestKnown: String?)
    /// An applied migration's SQL differs from the one this program carries.
    case modified(name: String, recorded: String, current: String)
    /// A migration's SQL failed; it was rolled back.
    case failed(name: String, error: DatabaseError)

    package var description: String {
        switch self {
        case .newerDatabase(let unknown, let latest):
            "the database was created by a newer version of shelf: it has migration\(unknown.count == 1 ? "" : "s") "
                + "\(unknown.joined(separator: ", ")) that this binary does not know "
                + "(its latest is \(latest ?? "none")). Upgrade shelf to open it; nothing was changed."
        case .modified(let name, let recorded, let current):
            "migration \(name) was changed after it was applied to this database "
                + "(recorded checksum \(recorded), now \(current)). Restore the original "
                + "Migrations/\(name).sql and add a new migration for the change; nothing was changed."
        case .failed(let name, let error):
            "migration \(name) failed and was rolled back: \(error.message). "
                + "Earlier migrations stay applied; fix the SQL and run again."
        }
    }
}
