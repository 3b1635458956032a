#if PostgreSQL
    public import ShelfStore

    extension Store {
        /// Opens the shelf kept in the PostgreSQL database `url` names, applying pending
        /// migrations.
        ///
        /// `url` is `postgres://USER:PASSWORD@HOST:PORT/DATABASE` (or `postgresql://…`): parts
        /// are percent-decoded, the port defaults to 5432 and the database to the user's name.
        /// `?sslmode=disable` (the default: no TLS, for a server on this machine or a private
        /// network), `prefer` or `require` choose TLS. The database must exist (`createdb
        /// NAME`) and be empty or a shelf; two processes may open a new one at the same time.
        ///
        /// The store talks to the server through a pool of connections; call `close()` when
        /// done with it, so its background work ends.
        /// - Throws: `StoreError`: `.invalidValue` for a malformed URL; `.database` when the
        ///   server cannot be reached, refuses the password, or has no such database (the
        ///   message says which, and what to do); `.newerDatabase`, `.modifiedMigration` or
        ///   `.foreignDatabase` (nothing was changed); `.migrationFailed`.
        /// - Parameter configuration: the write timeout and the slow-query threshold apply (see
        ///   `Store.Configuration`).
        public static func open(postgres url: String, configuration: Configuration = .default) async throws -> Store {
            let backend = try await PostgresBackend.open(url: url, configuration: configuration)
            return Store(backend: backend, testHooks: backend)
        }

        /// The state of every migration in the PostgreSQL database `url` names, without
        /// changing it. A database without shelf tables reports every migration as pending.
        /// - Throws: `StoreError` when the URL is malformed or the server cannot be read, or
        ///   when the database is not in UTF8 (which opening would refuse, so nothing is pending).
        public static func migrationStatus(postgres url: String) async throws -> [MigrationStatus] {
            let place = try PostgresLocation(url: url)
            return try await PostgresBackend.withConnection(to: place) { connection in
                try await PostgresMigrator.refuseEncodingOtherThanUTF8(on: connection, at: place)
                return try await PostgresMigrator.embedded.status(on: connection)
            }
        }

        /// Compares the counts of the PostgreSQL store `url` names with its items group by
        /// group (a pass over every item; opening compares only their totals) and counts the
        /// items again when they differ; puts right whatever else opening repairs. For
        /// `shelf migrate`.
        /// - Returns: what it did, one sentence each; empty when nothing was wrong.
        /// - Throws: `StoreError` when the URL is malformed or the server cannot be reached.
        package static func repairInFull(postgres url: String) async throws -> [String] {
            let place = try PostgresLocation(url: url)
            return try await PostgresBackend.withConnection(to: place) { connection in
                try await PostgresMigrator.embedded.repair(on: connection, at: place, thorough: true)
            }
        }
    }
#endif
