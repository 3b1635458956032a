#if PostgreSQL
    internal import Foundation
    internal import Logging
    package import PostgresNIO
    package import ShelfReactive
    package import ShelfStore

    /// A shelf kept in a PostgreSQL database: the `StoreBackend` behind
    /// `Store.open(postgres:)`.
    ///
    /// All its work goes through one connection pool (`PostgresPool`), whose background task
    /// it owns until `close()`. Opening checks the server on one plain connection first (so a
    /// wrong password or a missing database is reported at once, clearly) and migrates there.
    package final class PostgresBackend: StoreBackend, StoreTestHooks {
        package let users: any UserRepository
        package let items: any ItemRepository
        package let views: any SavedViewRepository
        package let appliedMigrations: [String]
        package let repairs: [String]
        package let emailCollisions: [EmailCollision]
        /// The URL as given, its password replaced by `***`.
        package let location: String
        /// Nil: the store lives on a server, not in a local file.
        package var path: String? { nil }
        /// The URL without its password: any program with the password can open it.
        package var shareableLocation: String? { location }

        package let place: PostgresLocation
        /// The server cluster and database this store is, whatever the URL called them (see
        /// `databaseIdentity(on:)`); read when the store opened.
        package let copyIdentity: String
        package let pool: PostgresPool
        /// Re-reads live values when a commit changes their tables (LISTEN on a connection of
        /// its own, which it opens on the first live value).
        let feed: PostgresChangeFeed
        /// Wakes live values after this store's own commits (here and in other processes).
        private let wake: CommitWake
        private let runs = RunCounter()
        /// The live item windows: shared by key, re-read only when a change can affect them.
        let windows: PostgresLiveWindows

        private init(
            url: String, place: PostgresLocation, appliedMigrations: [String], repairs: [String],
            emailCollisions: [EmailCollision], copyIdentity: String
        ) throws {
            location = StoreLocation.redacted(url)
            self.place = place
            self.copyIdentity = copyIdentity
            self.appliedMigrations = appliedMigrations
            self.repairs = repairs
            self.emailCollisions = emailCollisions
            let feed = PostgresChangeFeed(
                configuration: try place.connectionConfiguration(), logger: PostgresPool.logger)
            let pool = PostgresPool(location: place)
            self.feed = feed
            self.pool = pool
            windows = PostgresLiveWindows(pool: pool, listener: feed.listener, runs: runs)
            // The wake-up holds the pool weakly: the pool holds the wake-up.
            let wake = CommitWake(
                logger: PostgresPool.logger, local: { feed.wake() },
                notify: { [weak pool] in
                    try await pool?.read { connection in
                        _ = try await connection.query(CommitWake.notification, logger: .silent)
                    }
                })
            self.wake = wake
            pool.setAfterWrite { wake.committed() }
            users = PostgresUserRepository(pool: pool)
            items = PostgresItemRepository(pool: pool)
            views = PostgresSavedViewRepository(pool: pool)
        }

        /// Connects to the database `url` names, applies pending migrations, and opens the pool.
        /// - Throws: `StoreError`: `.invalidValue` for a malformed URL; `.database` when the
        ///   server cannot be reached, refuses the password, or has no such database (the
        ///   message says which, and what to do); `.newerDatabase`, `.modifiedMigration`,
        ///   `.foreignDatabase` (nothing changed), `.migrationFailed`.
        package static func open(url: String, configuration: Store.Configuration = .default) async throws
            -> PostgresBackend
        {
            var location = try PostgresLocation(url: url)
            location.lockTimeout = configuration.writeTimeout
            let place = location
            SlowCallThreshold.set(configuration.slowQueryThreshold)
            PostgresPool.setLogLevel(configuration.logLevel)
            let (applied, repairs, collisions, identity) = try await withConnection(to: place) { connection in
                // Watched as the pool's calls are: a lock held meanwhile (a `shelf copy` into
                // this database holds its tables until it commits) ends the wait with a message
                // naming the session that holds it, not "busy with another transaction".
                let pid = try await connection.query("SELECT pg_backend_pid()", logger: .silent).all((Int32).self)
                return try await LockWait.watching(connection: connection, pid: pid.first ?? 0, at: place, .open) {
                    connection in
                    let applied = try await PostgresMigrator.embedded.migrate(on: connection, at: place)
                    let repairs = try await PostgresMigrator.embedded.repair(on: connection, at: place)
                    let collisions = try await PostgresUserRepository.fillEmailKeys(on: connection)
                    return (applied, repairs, collisions, try await databaseIdentity(on: connection))
                }
            }
            return try PostgresBackend(
                url: url, place: place, appliedMigrations: applied, repairs: repairs, emailCollisions: collisions,
                copyIdentity: identity)
        }

        /// Runs `body` on a new plain connection to `place`, closed at the end. When the
        /// connection closes under `body` (the server ended it), the call ends with "the
        /// connection … was lost" (see `CallGuard`), never waits forever.
        package static func withConnection<T: Sendable>(
            to place: PostgresLocation, _ body: @escaping @Sendable (PostgresConnection) async throws -> T
        ) async throws -> T {
            let configuration = try place.connectionConfiguration()
            let connection: PostgresConnection
            do {
                connection = try await KeepAlive.connect(configuration: configuration, id: 1, logger: Logger.silent)
            } catch {
                throw StoreError(postgres: error, at: place)
            }
            do {
                let value = try await CallGuard().run(on: connection, at: place, body)
                try? await connection.close()
                return value
            } catch {
                try? await connection.close()
                if let error = error as? StoreError { throw error }
                throw StoreError(postgres: error, at: place)
            }
        }

        package func close() async {
            await wake.close()
            await feed.close()
            await pool.close()
        }

        // MARK: Live values

        /// Shared by key with every other live window of the same query, anchor and limit, and
        /// kept from the change log (`PostgresLiveWindows`).
        package func liveItems(matching query: ItemQuery, after anchor: ItemCursor?, limit: Int) async throws
            -> Property<LiveResult<ItemWindow>>
        {
            try pool.checkOpen()
            return try await windows.entry(for: LiveWindowKey(query: query, anchor: anchor, limit: limit))
                .windowProperty
        }

        package func liveItem(id: Item.ID) async throws -> Property<LiveResult<Item?>> {
            try await live(reading: ["items"]) { pool in
                try await pool.read { connection in try await PostgresItemRepository.item(id: id, on: connection) }
            }
        }

        package func liveUsers() async throws -> Property<LiveResult<[User]>> {
            try await live(reading: ["users"]) { pool in
                try await pool.read { connection in try await PostgresUserRepository.users(on: connection) }
            }
        }

        package func liveUserSummaries() async throws -> Property<LiveResult<[UserSummary]>> {
            try await live(reading: ["users", "items"]) { pool in
                try await pool.read { connection in try await PostgresUserRepository.summaries(on: connection) }
            }
        }

        package func liveSavedViews() async throws -> Property<LiveResult<[SavedView]>> {
            try await live(reading: ["saved_views"]) { pool in
                try await pool.read { connection in try await PostgresSavedViewRepository.views(on: connection) }
            }
        }

        /// How many times this backend's live values have run their queries.
        package var liveQueryRuns: Int { runs.value }
        /// 0: statements are not counted on PostgreSQL.
        package var statementCount: Int { 0 }

        /// A live value of `fetch` over the pool, re-read when a commit changes `tables`.
        func live<Value: Equatable & Sendable>(
            reading tables: Set<String>, _ fetch: @escaping @Sendable (PostgresPool) async throws -> Value
        ) async throws -> Property<LiveResult<Value>> {
            try pool.checkOpen()
            let pool = self.pool
            let place = self.place
            return try await feed.live(
                reading: tables, translate: { StoreError(postgres: $0, at: place) },
                { [runs] in
                    runs.increment()
                    return try await fetch(pool)
                })
        }

        // MARK: Snapshot reads

        package func forEachUser(orderedByName: Bool, _ body: (ExportedUser) throws -> Void) throws {
            try forEachUserRow(orderedByName: orderedByName) { row in
                try body(ExportedUser(id: row.id, name: row.name, email: row.email, createdAt: row.createdAt))
            }
        }

        package func forEachItem(matching query: ItemQuery, _ body: (ExportedItem) throws -> Void) throws {
            try forEachItemRow(matching: query) { row in
                try body(
                    ExportedItem(
                        id: row.id, ownerEmail: row.ownerEmail, title: row.title, notes: row.notes, status: row.status,
                        priority: Int(row.priority), createdAt: row.createdAt, updatedAt: row.updatedAt))
            }
        }

        /// A user as a snapshot read gives it: ID, name, email, creation time in milliseconds.
        package typealias UserRow = (id: Int64, name: String, email: String, createdAt: Int64)
        /// An item as a snapshot read gives it, its owner by email; times in milliseconds.
        package typealias ItemRow = (
            id: Int64, ownerEmail: String, title: String, notes: String?, status: String, priority: Int64,
            createdAt: Int64, updatedAt: Int64
        )

        /// Calls `body` with every user, by ID (or by name, then ID), from one snapshot,
        /// streaming; blocks as `forEachUser`.
        package func forEachUserRow(orderedByName: Bool, _ body: (UserRow) throws -> Void) throws {
            let order = orderedByName ? PostgresUserRepository.nameOrder : "id"
            let limit = Int64(Self.pageSize)
            try stream(
                page: { (last: UserRow?) in
                    var bindings = PostgresBindings()
                    var after = ""
                    if let last {
                        if orderedByName {
                            bindings.append(last.name)
                            bindings.append(last.id)
                            after = "WHERE (shelf_fold(name) COLLATE \"C\", id) > (shelf_fold($1) COLLATE \"C\", $2)"
                        } else {
                            bindings.append(last.id)
                            after = "WHERE id > $1"
                        }
                    }
                    bindings.append(limit)
                    return PostgresQuery(
                        unsafeSQL:
                            "SELECT id, name, email, created_at FROM users \(after) ORDER BY \(order) LIMIT $\(bindings.count)",
                        binds: bindings)
                },
                decode: { row in try row.decode((Int64, String, String, Int64).self) }, body)
        }

        /// Calls `body` with every item `query`'s owner, status and text select, by ID, from one
        /// snapshot, streaming; blocks as `forEachItem`.
        ///
        /// An item whose user is gone (another program deleted users with the foreign keys set
        /// aside: `session_replication_role = replica`) stops the read with an error naming it,
        /// as SQLite's export refuses such items: left out, an export said "Exported 2694
        /// items" of 3,006 and exited 0 (hostile round 12).
        package func forEachItemRow(matching query: ItemQuery, _ body: (ItemRow) throws -> Void) throws {
            let limit = Int64(Self.pageSize)
            let place = self.place
            try stream(
                page: { (last: ItemRow?) in
                    var bindings = PostgresBindings()
                    var clauses = query.postgresFilter(into: &bindings, prefix: "i.")
                    if let last {
                        bindings.append(last.id)
                        clauses.append("i.id > $\(bindings.count)")
                    }
                    bindings.append(limit)
                    let filter = clauses.isEmpty ? "" : " WHERE " + clauses.joined(separator: " AND ")
                    let sql = """
                        SELECT i.id, u.email, i.title, i.notes, i.status, i.priority, i.created_at, i.updated_at,
                            i.user_id
                        FROM items i LEFT JOIN users u ON u.id = i.user_id\(filter) ORDER BY i.id LIMIT $\(bindings.count)
                        """
                    return PostgresQuery(unsafeSQL: sql, binds: bindings)
                },
                decode: { row in
                    let (id, email, title, notes, status, priority, created, updated, owner) = try row.decode(
                        (Int64, String?, String, String?, String, Int64, Int64, Int64, Int64).self)
                    guard let email else { throw Self.ownerGone(item: id, user: owner, at: place) }
                    return (id, email, title, notes, status, priority, created, updated)
                }, body)
        }

        /// The error for an item whose user is gone.
        static func ownerGone(item: Int64, user: Int64, at place: PostgresLocation) -> StoreError {
            StoreError(
                .invalidValue,
                "the store \(place.server)/\(place.database) holds item \(item), whose user \(user) no longer exists: "
                    + "another program deleted users with the foreign keys set aside. Rather than leave such items out "
                    + "without a word, shelf stopped reading. psql: SELECT id, user_id FROM items WHERE user_id NOT IN "
                    + "(SELECT id FROM users) lists every one: delete them or point them at an existing user, then try "
                    + "again")
        }

        /// Rows per page of a snapshot read.
        package static let pageSize = 2000

        /// Calls `body` on this thread with every row of the pages `page` gives, decoded by
        /// `decode`: `page(nil)` is the first page, `page(last)` the one after the row `last`;
        /// a page shorter than `pageSize` is the last. The pages are read in one REPEATABLE
        /// READ READ ONLY transaction (one snapshot) as `SnapshotPages` reads them (the read
        /// runs ahead of `body` by at most a page, so memory stays flat), and handed to this
        /// thread a page at a time (`SnapshotPages.forEachPage`). A throwing body stops the
        /// read; its error is rethrown. Returns only once the read has ended and its connection
        /// is back in the pool.
        ///
        /// Each page is read whole before its rows are handed on: no row stream of
        /// postgres-nio is ever held back while the consumer is slow, since a connection lost
        /// under a held-back stream stops the process (postgres-nio 1.33 RowStreamStateMachine).
        package func stream<Row: Sendable>(
            page: @escaping @Sendable (Row?) -> PostgresQuery, decode: @escaping @Sendable (PostgresRow) throws -> Row,
            _ body: (Row) throws -> Void
        ) throws {
            try pool.checkOpen()
            let pool = self.pool
            let place = self.place
            let pages = SnapshotPages<Row> { sink in
                try await pool.transaction(isolation: "REPEATABLE READ READ ONLY") { connection in
                    try await Self.readPages(on: connection, at: place, page: page, decode: decode) {
                        try await sink.send($0)
                    }
                }
            }
            try pages.forEachPage { rows in
                for row in rows { try body(row) }
            }
        }

        /// Reads the pages `page` gives on `connection` (see `stream`), each page whole, and
        /// `send`s them in order (a send that throws ends the read: the consumer stopped).
        static func readPages<Row: Sendable>(
            on connection: PostgresConnection, at place: PostgresLocation, page: (Row?) -> PostgresQuery,
            decode: (PostgresRow) throws -> Row, send: ([Row]) async throws -> Void
        ) async throws {
            var last: Row?
            while true {
                // A query sent on a connection the server has ended never answers (postgres-nio
                // 1.33): fail at once instead.
                if connection.isClosed {
                    throw StoreError(
                        .database, StoreError.lostConnection(at: place, cause: "the server closed it"))
                }
                let rows = try await connection.query(page(last), logger: .silent).collect().map(decode)
                guard let final = rows.last else { return }
                try await send(rows)
                if rows.count < pageSize { return }
                last = final
            }
        }

        // MARK: Imports

        package func makeImportSession(table: ImportTable) throws -> any ImportSession {
            try pool.checkOpen()
            return try PostgresImportSession(place: place, table: table)
        }
    }
#endif
