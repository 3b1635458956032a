#if PostgreSQL
    internal import Foundation
    internal import PostgresNIO
    package import ShelfReactive
    package import ShelfStore

    /// Live values on PostgreSQL: each is a `PostgresChangeFeed` query that names the tables it
    /// reads, so a commit re-runs only the values it concerns (statement-level triggers notify
    /// `shelf_changes` with the table's name, once per table per transaction, at commit).
    extension PostgresBackend {
        package var liveQueryRuns: Int { runs.value }

        package func liveItems(matching query: ItemQuery, after anchor: ItemCursor?, limit: Int) async throws
            -> Property<LiveResult<ItemWindow>>
        {
            // The page and the count come from one snapshot, as on SQLite.
            let page = try query.postgresPage(cursor: anchor, backward: false, limit: limit)
            let count = query.postgresCount()
            return try await live(reading: ["items"]) { pool in
                try await pool.transaction(isolation: "REPEATABLE READ READ ONLY") { connection in
                    let items = try await PostgresItemRepository.items(page, on: connection)
                    let totals: [Int64] = try await connection.query(count, logger: .silent).all((Int64).self)
                    return ItemWindow(items: items, totalCount: totals.first.map { Int($0) } ?? 0)
                }
            }
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
                try await pool.read { connection in
                    let rows = try await connection.query(
                        """
                        SELECT u.id, u.name, u.email, u.created_at, coalesce(c.total, 0), coalesce(c.open, 0)
                        FROM users u
                        LEFT JOIN (
                            SELECT user_id, count(*) AS total, count(*) FILTER (WHERE status = 'open') AS open
                            FROM items GROUP BY user_id
                        ) AS c ON c.user_id = u.id
                        ORDER BY shelf_fold(u.name) COLLATE "C", u.id
                        """, logger: .silent)
                    var summaries: [UserSummary] = []
                    for try await (id, name, email, created, total, open) in rows.decode(
                        (Int64, String, String, Int64, Int64, Int64).self)
                    {
                        summaries.append(
                            UserSummary(
                                user: User(
                                    id: User.ID(id), name: name, email: email,
                                    createdAt: Date(postgresMilliseconds: created)),
                                itemCount: Int(total), openCount: Int(open)))
                    }
                    return summaries
                }
            }
        }

        /// A live value of `fetch` over the pool, re-run when a commit changes one of `tables`;
        /// failures in the store's terms.
        private func live<Value: Equatable & Sendable>(
            reading tables: Set<String>, _ fetch: @escaping @Sendable (PostgresPool) async throws -> Value
        ) async throws -> Property<LiveResult<Value>> {
            let (pool, runs, place) = (self.pool, self.runs, self.place)
            let translate: @Sendable (any Error) -> StoreError = { error in
                if let error = error as? StoreError { return error }
                return StoreError(postgres: error, at: place)
            }
            let counted: @Sendable () async throws -> Value = {
                runs.increment()
                return try await fetch(pool)
            }
            return try await feed.live(reading: tables, translate: translate, counted)
        }
    }
#endif
