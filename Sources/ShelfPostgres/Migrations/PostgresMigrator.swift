#if PostgreSQL
    package import Foundation
    package import Logging
    package import PostgresNIO
    package import ShelfStore

    /// Applies a `MigrationPlan` to a PostgreSQL database: the SQL of `shelf_migrations` and of
    /// each migration's transaction. What to apply and what to refuse is the plan's (the same
    /// rules and words as on SQLite); a database with tables of its own and no
    /// `shelf_migrations` is refused here (`.foreignDatabase`), changing nothing.
    ///
    /// Every transaction first takes a transaction-scoped advisory lock, so two processes
    /// opening the same new database at once apply each migration once: the second waits,
    /// then sees the first one's work.
    package struct PostgresMigrator: Sendable {
        package let plan: MigrationPlan

        /// The advisory lock key that serializes migrations ("shelf" in ASCII).
        static let lockKey: Int64 = 0x7368_656c_66

        package init(plan: MigrationPlan) {
            self.plan = plan
        }

        /// The migrations this build carries (Migrations/postgres/*.sql).
        package static let embedded = PostgresMigrator(
            plan: MigrationPlan(embedded: EmbeddedMigrations.all, folder: "Migrations/postgres"))

        /// The migrations this migrator knows, in name order.
        package var migrations: [SchemaMigration] { plan.migrations }

        private typealias Record = MigrationPlan.AppliedMigration

        /// Applies every pending migration on `connection`; returns the names applied, in order.
        /// - Throws: `StoreError`: `.newerDatabase`, `.modifiedMigration` or
        ///   `.foreignDatabase` (nothing changed), `.migrationFailed` (that migration rolled
        ///   back; earlier ones stay applied), or a connection failure.
        package func migrate(on connection: PostgresConnection, at location: PostgresLocation) async throws
            -> [String]
        {
            let logger = Logger.silent
            try await Self.refuseEncodingOtherThanUTF8(on: connection, at: location)
            try await transaction(on: connection, at: location) {
                try await connection.query(
                    """
                    CREATE TABLE IF NOT EXISTS shelf_migrations (
                        name       text   PRIMARY KEY,
                        checksum   text   NOT NULL,
                        applied_at bigint NOT NULL
                    )
                    """, logger: logger)
                let applied = try await appliedMigrations(on: connection)
                if applied.isEmpty { try await refuseForeignDatabase(on: connection, at: location) }
                try plan.validate(applied)
            }
            var done: [String] = []
            for migration in plan.migrations {
                let ran = try await transaction(on: connection, at: location) { () async throws -> Bool in
                    // Look again under the lock: another process may have applied it meanwhile,
                    // or applied a newer one this version does not know.
                    let applied = try await appliedMigrations(on: connection)
                    try plan.validate(applied)
                    guard applied[migration.name] == nil else { return false }
                    do {
                        try await connection.query(Self.runnable(migration), logger: logger)
                    } catch {
                        let message =
                            (error as? PSQLError)?.serverInfo?[.message]
                            ?? StoreError(postgres: error, at: location).message
                        throw plan.failure(of: migration, message: message)
                    }
                    try await connection.query(
                        """
                        INSERT INTO shelf_migrations (name, checksum, applied_at)
                        VALUES (\(migration.name), \(migration.checksum), \(Date().postgresMilliseconds))
                        """, logger: logger)
                    return true
                }
                if ran { done.append(migration.name) }
            }
            return done
        }

        /// Puts right what another program broke in a migrated schema (`shelf_repair`,
        /// postgres/0014): a dropped count table, log horizon or trigger is made again (a
        /// disabled trigger enabled), the items counted again when their counts are wrong, and
        /// an ID or change log sequence that was set back moved past every value it handed
        /// out. A dropped function of the shelf (`shelf_repair` among them) is made again first,
        /// by running the migration that defines them again (it only replaces functions and
        /// adds what is missing). Runs in a transaction under the migrations' lock.
        ///
        /// Cheap when nothing is wrong (catalog lookups, the totals of the counts, the log rows
        /// since the last repair: on a new connection 18 ms more than `SELECT 1` at 1,000,000
        /// items, load 11), and never waits for a table another session holds locked unless it
        /// must write; the counts are compared with the items kind by kind. `thorough` compares
        /// them group by group, a pass over every item (2.2 s at 1,000,000): `shelf migrate`.
        /// - Returns: what it did, one sentence each; empty when nothing was wrong, or when
        ///   the database predates the repair (its migration runs it).
        package func repair(on connection: PostgresConnection, at location: PostgresLocation, thorough: Bool = false)
            async throws -> [String]
        {
            try await transaction(on: connection, at: location) {
                var done: [String] = []
                let names = Self.repairedFunctions.map { "'\($0)'" }.joined(separator: ", ")
                let missing = try await connection.query(
                    PostgresQuery(
                        unsafeSQL: """
                            SELECT name FROM unnest(ARRAY[\(names)]) AS name
                            WHERE to_regprocedure(name) IS NULL ORDER BY name
                            """), logger: Logger.silent
                ).collect().map { try $0.decode(String.self) }
                if !missing.isEmpty {
                    guard let defining = plan.migrations.last(where: { $0.sql.contains(Self.repairDefinition) }) else {
                        return []
                    }
                    let applied = try await appliedMigrations(on: connection)
                    guard applied[defining.name] != nil else { return [] }
                    do {
                        try await connection.query(Self.runnable(defining), logger: Logger.silent)
                    } catch {
                        let message =
                            (error as? PSQLError)?.serverInfo?[.message]
                            ?? StoreError(postgres: error, at: location).message
                        throw plan.failure(of: defining, message: message)
                    }
                    let functions = missing.map { String($0.prefix { $0 != "(" }) }
                    done.append(
                        "put back the function\(functions.count == 1 ? "" : "s") "
                            + functions.joined(separator: ", "))
                }
                let said =
                    try await connection.query(
                        "SELECT shelf_repair(\(thorough))", logger: Logger.silent
                    ).collect().first?.decode(String.self) ?? ""
                return done + (said.isEmpty ? [] : said.components(separatedBy: "; "))
            }
        }

        /// What the repair's migration defines (postgres/0014): the last migration holding it
        /// is run again when a function of `repairedFunctions` is missing.
        static let repairDefinition = "FUNCTION @shelf@.shelf_repair(thorough boolean"

        /// The functions of the shelf the repair puts back, as `to_regprocedure` takes them.
        static let repairedFunctions = [
            "shelf_repair(boolean)", "shelf_prune_change_log(bigint)", "shelf_log_item_change()",
            "shelf_log_row_change()", "shelf_log_truncate()", "shelf_fold_item_counts()",
            "shelf_count_item_changes()", "shelf_count_item_truncate()", "shelf_keep_derived_rows()",
            "shelf_move_version()", "shelf_forget_email_key()", "shelf_sequence_next(regclass)",
            "shelf_count_items_again()", "shelf_lock_if_free(regclass)",
        ]

        /// Each known migration's state, then any unknown ones, without changing the database.
        package func status(on connection: PostgresConnection) async throws -> [MigrationStatus] {
            let exists =
                try await connection.query(
                    "SELECT to_regclass('shelf_migrations') IS NOT NULL", logger: Logger.silent
                ).collect().first?.decode(Bool.self) ?? false
            return plan.status(exists ? try await appliedMigrations(on: connection) : [:])
        }

        /// The migration's SQL as one statement: PostgreSQL's extended protocol runs one
        /// statement per query, and a migration holds many. EXECUTE in a DO block runs them
        /// all, in the caller's transaction.
        static func runnable(_ migration: SchemaMigration) -> PostgresQuery {
            let tag = "$shelf_migration_body$"
            precondition(!migration.sql.contains(tag), "migration \(migration.name) holds \(tag)")
            return PostgresQuery(
                unsafeSQL: "DO $shelf_migration$ BEGIN EXECUTE \(tag)\(migration.sql)\(tag); END $shelf_migration$")
        }

        private func transaction<T>(
            on connection: PostgresConnection, at location: PostgresLocation, _ body: () async throws -> T
        ) async throws -> T {
            let logger = Logger.silent
            try await connection.query("BEGIN", logger: logger)
            do {
                // Read to the end: a SELECT's error (a lock timeout) comes after its row
                // description, so a result left unread hid it, and the next statement failed
                // with "current transaction is aborted" (25P02) instead, naming no cause.
                _ = try await connection.query("SELECT pg_advisory_xact_lock(\(Self.lockKey))", logger: logger)
                    .collect()
                let value = try await body()
                try await connection.query("COMMIT", logger: logger)
                return value
            } catch {
                _ = try? await connection.query("ROLLBACK", logger: logger)
                if let error = error as? StoreError { throw error }
                // As it is, for the caller's `LockWait` to name the session that held the lock.
                if LockWait.isLockTimeout(error) { throw error }
                throw StoreError(postgres: error, at: location)
            }
        }

        private func appliedMigrations(on connection: PostgresConnection) async throws -> [String: Record] {
            var applied: [String: Record] = [:]
            let rows = try await connection.query(
                "SELECT name, checksum, applied_at FROM shelf_migrations", logger: Logger.silent)
            for try await (name, checksum, millis) in rows.decode((String, String, Int64).self) {
                applied[name] = Record(checksum: checksum, appliedAt: Date(postgresMilliseconds: millis))
            }
            return applied
        }

        /// A database whose encoding is not UTF8 (SQL_ASCII, LATIN1, …) cannot hold what shelf
        /// stores: Unicode text, folded for search with `normalize()`, which PostgreSQL performs
        /// in UTF8 databases only. Refused before anything is written, with what to do; without
        /// this, users could be added and then every item write failed with a raw server error.
        static func refuseEncodingOtherThanUTF8(on connection: PostgresConnection, at location: PostgresLocation)
            async throws
        {
            let rows = try await connection.query("SELECT current_setting('server_encoding')", logger: Logger.silent)
            var encoding = "UTF8"
            for try await value in rows.decode(String.self) { encoding = value }
            guard encoding != "UTF8" else { return }
            throw StoreError(
                .database,
                "the PostgreSQL database \(location.database) on \(location.server) uses the encoding \(encoding), and "
                    + "shelf needs UTF8 (it stores Unicode text and folds it for search, which PostgreSQL does in UTF8 "
                    + "databases only); shelf changed nothing in it. Create a UTF8 database (createdb --encoding=UTF8 "
                    + "--template=template0 NAME) and put it in the URL")
        }

        /// A database with tables of its own and no shelf_migrations is somebody else's:
        /// migrating would fill it with shelf's tables.
        private func refuseForeignDatabase(on connection: PostgresConnection, at location: PostgresLocation)
            async throws
        {
            let rows = try await connection.query(
                """
                SELECT c.relname FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
                WHERE c.relkind IN ('r', 'p', 'v', 'm') AND n.nspname = current_schema()
                    AND c.relname <> 'shelf_migrations'
                ORDER BY c.relname LIMIT 6
                """, logger: Logger.silent)
            var tables: [String] = []
            for try await name in rows.decode(String.self) { tables.append(name) }
            guard !tables.isEmpty else { return }
            let shown = tables.prefix(5).map { "'\($0)'" }.joined(separator: ", ")
            throw StoreError(
                .foreignDatabase,
                "the PostgreSQL database \(location.database) on \(location.server) is not a shelf (it has the "
                    + "tables \(shown)\(tables.count > 5 ? " and more" : ""), and no shelf_migrations); shelf changed "
                    + "nothing in it. Create an empty database for the shelf (createdb NAME) and put it in the URL")
        }
    }

    extension Logger {
        /// A logger that drops everything: the library never prints.
        package static let silent = Logger(label: "shelf.postgres", factory: { _ in SwiftLogNoOpLogHandler() })
    }

    extension Date {
        /// Milliseconds since 1970, rounded: how the store keeps times (as the SQLite store).
        /// Dates beyond Int64's range of milliseconds, or not finite, are clamped rather than
        /// trapping (a date can come from a request's page cursor).
        package var postgresMilliseconds: Int64 { TimeFormat.milliseconds(since1970: self) }

        package init(postgresMilliseconds: Int64) {
            self.init(timeIntervalSince1970: Double(postgresMilliseconds) / 1000)
        }
    }
#endif
