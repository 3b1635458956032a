package import Foundation

/// What every backend decides the same way about migrations, given what its database records:
/// which to apply, which databases to refuse (and in what words), and each migration's
/// status. A backend supplies only its SQL: it reads `shelf_migrations` into `AppliedMigration`s,
/// asks the plan, and runs each pending migration in a transaction of its own.
///
/// The rules: a database holding a migration this program does not know was made by a newer
/// shelf (`.newerDatabase`); one whose applied migration's SQL changed since
/// (`.modifiedMigration`); both are refused before anything is applied, changing nothing. A
/// migration whose SQL fails is rolled back (`.migrationFailed`); the earlier ones stay.
package struct MigrationPlan: Sendable {
    /// A migration as a database records it.
    package struct AppliedMigration: Sendable, Hashable {
        package let checksum: String
        package let appliedAt: Date

        package init(checksum: String, appliedAt: Date) {
            self.checksum = checksum
            self.appliedAt = appliedAt
        }
    }

    /// The migrations this program knows, in name order.
    package let migrations: [SchemaMigration]
    /// Where the migrations' files live in the source tree (`Migrations`,
    /// `Migrations/postgres`), for the advice given about an edited one.
    package let folder: String

    /// - Precondition: names are unique.
    package init(migrations: [SchemaMigration], folder: String) {
        self.migrations = migrations.sorted { $0.name < $1.name }
        self.folder = folder
        precondition(Set(migrations.map(\.name)).count == migrations.count, "duplicate migration names")
    }

    /// The plan of `embedded` migrations, the `(name, sql)` pairs the EmbedMigrations plugin
    /// generates.
    package init(embedded: [(name: String, sql: String)], folder: String) {
        self.init(migrations: embedded.map { SchemaMigration(name: $0.name, sql: $0.sql) }, folder: folder)
    }

    /// Throws when a database that recorded `applied` must not be migrated by this program:
    /// `.newerDatabase` (it holds migrations this program does not know) or
    /// `.modifiedMigration` (an applied migration's SQL has changed since).
    package func validate(_ applied: [String: AppliedMigration]) throws {
        let known = Dictionary(uniqueKeysWithValues: migrations.map { ($0.name, $0) })
        let unknown = applied.keys.filter { known[$0] == nil }.sorted()
        if !unknown.isEmpty {
            throw StoreError(
                .newerDatabase,
                "the database was created by a newer version of shelf: it has migration"
                    + "\(unknown.count == 1 ? "" : "s") \(unknown.joined(separator: ", ")) that this binary does "
                    + "not know (its latest is \(migrations.last?.name ?? "none")). Upgrade shelf to open it; "
                    + "nothing was changed.")
        }
        for (name, record) in applied.sorted(by: { $0.key < $1.key }) {
            if let migration = known[name], migration.checksum != record.checksum {
                throw StoreError(
                    .modifiedMigration,
                    "migration \(name) was changed after it was applied to this database (recorded checksum "
                        + "\(record.checksum), now \(migration.checksum)). Restore the original "
                        + "\(folder)/\(name).sql and add a new migration for the change; nothing was changed.")
            }
        }
    }

    /// The migrations `applied` lacks, in the order to apply them.
    package func pending(_ applied: [String: AppliedMigration]) -> [SchemaMigration] {
        migrations.filter { applied[$0.name] == nil }
    }

    /// Each known migration's state in a database that recorded `applied`, then any unknown
    /// ones, by name.
    package func status(_ applied: [String: AppliedMigration]) -> [MigrationStatus] {
        var result = migrations.map { migration in
            guard let record = applied[migration.name] else {
                return MigrationStatus(name: migration.name, state: .pending)
            }
            return MigrationStatus(
                name: migration.name,
                state: record.checksum == migration.checksum
                    ? .applied(record.appliedAt) : .modified(record.appliedAt))
        }
        let known = Set(migrations.map(\.name))
        for (name, record) in applied.sorted(by: { $0.key < $1.key }) where !known.contains(name) {
            result.append(MigrationStatus(name: name, state: .unknown(record.appliedAt)))
        }
        return result
    }

    /// The error of `migration` failing with the database's `message`; the backend has rolled
    /// it back. `diskFull`: it failed for want of room (SQLite's SQLITE_FULL), not for its SQL,
    /// and the advice is to free space (hostile round 14: a store made on a full disk was told
    /// to "fix the SQL").
    package func failure(of migration: SchemaMigration, message: String, diskFull: Bool = false) -> StoreError {
        guard diskFull else {
            return StoreError(
                .migrationFailed,
                "migration \(migration.name) failed and was rolled back: \(message). "
                    + "Earlier migrations stay applied; fix the SQL and run again.")
        }
        return StoreError(
            .migrationFailed,
            "the disk is full (\(message)): migration \(migration.name) could not be applied and was rolled back; "
                + "the migrations before it stay applied, and the store cannot be used until all are: free space "
                + "on that disk and run again, which applies the rest")
    }
}
