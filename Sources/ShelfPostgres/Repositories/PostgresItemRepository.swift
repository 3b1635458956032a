#if PostgreSQL
    internal import Foundation
    internal import PostgresNIO
    package import ShelfStore

    /// `ItemRepository` over a PostgreSQL store. Pages are keyset pages over the indexes of
    /// Migrations/postgres/0001: the same cost at row 100,000 as at row 1.
    package final class PostgresItemRepository: ItemRepository {
        let pool: PostgresPool

        package init(pool: PostgresPool) {
            self.pool = pool
        }

        @discardableResult
        package func insert(_ item: NewItem) async throws -> Item.ID {
            try await insert(contentsOf: [item])[0]
        }

        @discardableResult
        package func insert(contentsOf items: [NewItem]) async throws -> [Item.ID] {
            for (offset, item) in items.enumerated() {
                try TextLimits.check(
                    title: item.title, notes: item.notes,
                    subject: items.count == 1 ? nil : "item \(offset + 1) of \(items.count)")
            }
            let now = Date().postgresMilliseconds
            if items.count > 1 {
                do {
                    return try await pool.transaction { connection in
                        try await Self.insertAll(items, now: now, on: connection)
                    }
                } catch let error as StoreError where error.code == .invalidValue || error.code == .unknownUser {
                    // Nothing was written; the row-by-row insert below fails again, naming the row.
                }
            }
            return try await pool.transaction { connection in
                var ids: [Item.ID] = []
                ids.reserveCapacity(items.count)
                for (offset, item) in items.enumerated() {
                    let created = item.createdAt?.postgresMilliseconds ?? now
                    do {
                        let rows = try await connection.query(
                            """
                            INSERT INTO items (user_id, title, notes, status, priority, created_at, updated_at, version)
                            VALUES (\(item.userID.rawValue), \(item.title), \(item.notes), \(item.status.rawValue),
                                \(Int64(item.priority)), \(created), \(created), 1)
                            RETURNING id
                            """, logger: .silent)
                        for try await id in rows.decode(Int64.self) { ids.append(Item.ID(id)) }
                    } catch {
                        throw SubjectError(
                            subject: items.count == 1 ? nil : "item \(offset + 1) of \(items.count)", error: error)
                    }
                }
                return ids
            }
        }

        /// Inserts `items` with one statement: IDs are taken from the sequence first, in order,
        /// then every row goes in through arrays (one round trip whatever the count).
        private static func insertAll(_ items: [NewItem], now: Int64, on connection: PostgresConnection)
            async throws -> [Item.ID]
        {
            let ids = try await PostgresUserRepository.nextIDs(items.count, table: "items", on: connection)
            let owners = items.map(\.userID.rawValue)
            let titles = items.map(\.title)
            let notes = items.map { $0.notes ?? "" }
            let hasNotes = items.map { $0.notes != nil }
            let statuses = items.map(\.status.rawValue)
            let priorities = items.map { Int64($0.priority) }
            let created = items.map { $0.createdAt?.postgresMilliseconds ?? now }
            try await connection.query(
                """
                INSERT INTO items (id, user_id, title, notes, status, priority, created_at, updated_at, version)
                SELECT id, user_id, title, CASE WHEN has_notes THEN notes END, status, priority, created, created, 1
                FROM unnest(\(ids), \(owners), \(titles), \(notes), \(hasNotes), \(statuses), \(priorities), \(created))
                    AS t (id, user_id, title, notes, has_notes, status, priority, created)
                """, logger: .silent)
            return ids.map { Item.ID($0) }
        }

        package func update(_ item: Item) async throws -> Item {
            try TextLimits.check(title: item.title, notes: item.notes)
            let now = Date().postgresMilliseconds
            return try await pool.write { connection in
                let updated = try await connection.query(
                    """
                    UPDATE items SET user_id = \(item.userID.rawValue), title = \(item.title), notes = \(item.notes),
                        status = \(item.status.rawValue), priority = \(Int64(item.priority)),
                        updated_at = greatest(\(now), updated_at), version = version + 1
                    WHERE id = \(item.id.rawValue) AND version = \(item.version)
                    RETURNING \(unescaped: ItemQuery.postgresItemColumns)
                    """, logger: .silent
                ).collect().map(Item.init(postgres:))
                if let stored = updated.first { return stored }
                let versions = try await connection.query(
                    "SELECT version FROM items WHERE id = \(item.id.rawValue)", logger: .silent
                ).all((Int64).self)
                guard let version = versions.first else {
                    throw StoreError(
                        .notFound, "item \(item.id) does not exist (it may have been deleted); reload the list")
                }
                throw StoreError(
                    .conflict,
                    "item \(item.id) was changed elsewhere (you edited version \(item.version), the store has "
                        + "version \(version)); reload it and apply your change again")
            }
        }

        package func delete(id: Item.ID) async throws {
            let deleted = try await deleteItems(ids: [id])
            if deleted == 0 {
                throw StoreError(.notFound, "item \(id) does not exist (it may have been deleted already)")
            }
        }

        package func delete(_ item: Item) async throws {
            // Compare-and-set in the DELETE: a change committed since `item` was read is kept.
            let outcome = try await pool.write { connection -> (deleted: Bool, version: Int64?) in
                let deleted =
                    try await connection.query(
                        """
                        DELETE FROM items WHERE id = \(item.id.rawValue) AND version = \(item.version)
                            AND user_id = \(item.userID.rawValue) RETURNING id
                        """,
                        logger: .silent
                    ).collect().count > 0
                if deleted { return (true, nil) }
                let versions = try await connection.query(
                    "SELECT version FROM items WHERE id = \(item.id.rawValue)", logger: .silent
                ).all((Int64).self)
                return (false, versions.first)
            }
            if outcome.deleted { return }
            guard let version = outcome.version else {
                throw StoreError(.notFound, "item \(item.id) does not exist (it may have been deleted already)")
            }
            throw StoreError(
                .conflict,
                "item \(item.id) was changed elsewhere (you read version \(item.version), the store has "
                    + "version \(version)); nothing was deleted: reload it and delete it again if you still "
                    + "mean to")
        }

        package func deleteItems(ids: [Item.ID]) async throws -> Int {
            guard !ids.isEmpty else { return 0 }
            let raw = ids.map(\.rawValue)
            return try await pool.write { connection in
                try await connection.query(
                    "DELETE FROM items WHERE id = ANY(\(raw)) RETURNING id", logger: .silent
                ).collect().count
            }
        }

        package func item(id: Item.ID) async throws -> Item? {
            try await pool.read { connection in try await Self.item(id: id, on: connection) }
        }

        package func items(matching query: ItemQuery, after cursor: ItemCursor?, limit: Int?) async throws -> [Item] {
            return try await pool.read { connection in
                let now = Date()
                let rangeFirst = try await Self.readsRangeFirst(query, limit: limit, now: now, on: connection)
                let sql = try query.postgresPage(
                    cursor: cursor, backward: false, limit: limit, now: now, rangeFirst: rangeFirst)
                return try await PreparedPages.items(sql, of: query, on: connection)
            }
        }

        package func items(matching query: ItemQuery, before cursor: ItemCursor?, limit: Int) async throws -> [Item] {
            return try await pool.read { connection in
                let now = Date()
                let rangeFirst = try await Self.readsRangeFirst(query, limit: limit, now: now, on: connection)
                let sql = try query.postgresPage(
                    cursor: cursor, backward: true, limit: limit, now: now, rangeFirst: rangeFirst)
                return try await PreparedPages.items(sql, of: query, on: connection).reversed()
            }
        }

        /// Whether a page of `query` reads the items of its range of times first and sorts them
        /// (`ItemQuery.postgresPage(rangeFirst:)`), rather than walk its sort order's index past
        /// the items outside the range: asked when the query, with no owner, no words and no
        /// status or priority, has a range on a time it is not sorted by. The planner walked
        /// for a range of one day too (`created:2021-03-01` oldest updated first: 238 ms at
        /// 1,000,000 items, the day's items being far along that order), where reading the
        /// day's 2,880 items and sorting them takes under 2 ms. As SQLite's `walksPastTimes`,
        /// one statement counts each range's items up to `sqrt(limit × total / 4)` (the total
        /// as the planner estimates it) and the page reads the range first when one falls short.
        static func readsRangeFirst(
            _ query: ItemQuery, limit: Int?, now: Date, on connection: PostgresConnection
        ) async throws -> Bool {
            guard let limit, query.owner == nil, query.sortField != .owner, query.statusPriorityPairs == nil else {
                return false
            }
            let parsed = ItemQueryText(query.text)
            guard parsed.included.isEmpty else { return false }
            let sortColumn: String? =
                switch query.sortField {
                case .created: "created_at"
                case .updated: "updated_at"
                default: nil
                }
            let milliseconds = (query.agesFrom ?? now).postgresMilliseconds
            var bindings = PostgresBindings()
            var probes: [String] = []
            for (column, terms) in [("created_at", parsed.created), ("updated_at", parsed.updated)]
            where !terms.isEmpty && column != sortColumn {
                let range = terms.map { $0.range(now: milliseconds) }.reduce(MillisecondRange()) { $0.intersection($1) }
                var tests: [String] = []
                if let lower = range.lower {
                    bindings.append(lower)
                    tests.append("\(column) >= $\(bindings.count)")
                }
                if let upper = range.upper {
                    bindings.append(upper)
                    tests.append("\(column) < $\(bindings.count)")
                }
                let within = tests.isEmpty ? "" : " WHERE " + tests.joined(separator: " AND ")
                probes.append("(SELECT count(*) FROM (SELECT 1 FROM items\(within) LIMIT (SELECT n FROM t)) AS p)")
            }
            guard !probes.isEmpty else { return false }
            bindings.append(Int64(max(limit, 1)))
            let sql = """
                WITH t AS (SELECT greatest(64, sqrt($\(bindings.count) * greatest(reltuples, 0) / 4))::bigint AS n
                           FROM pg_class WHERE oid = 'items'::regclass)
                SELECT least(\(probes.joined(separator: ", "))) < (SELECT n FROM t)
                """
            let rows = try await connection.query(PostgresQuery(unsafeSQL: sql, binds: bindings), logger: .silent)
            return try await rows.collect().first?.decode(Bool.self) ?? false
        }

        package func count(matching query: ItemQuery, before cursor: ItemCursor) async throws -> Int {
            let page = try query.postgresPage(cursor: cursor, backward: true, limit: nil)
            let sql = PostgresQuery(unsafeSQL: "SELECT count(*) FROM (\(page.sql)) AS before_cursor", binds: page.binds)
            return try await pool.read { connection in
                try await connection.query(sql, logger: .silent).all((Int64).self).first.map(Int.init) ?? 0
            }
        }

        package func count(matching query: ItemQuery) async throws -> Int {
            let sql = query.postgresCount()
            return try await pool.read { connection in
                try await connection.query(sql, logger: .silent).all((Int64).self).first.map(Int.init) ?? 0
            }
        }

        // MARK: Reads on a connection (shared with live queries)

        static func item(id: Item.ID, on connection: PostgresConnection) async throws -> Item? {
            try await items(
                PostgresQuery(
                    unsafeSQL: "SELECT \(ItemQuery.postgresItemColumns) FROM items WHERE id = $1",
                    binds: PostgresUserRepository.binds(id.rawValue)),
                on: connection
            ).first
        }

        static func items(_ query: PostgresQuery, on connection: PostgresConnection) async throws -> [Item] {
            var items: [Item] = []
            for try await row in try await connection.query(query, logger: .silent) {
                items.append(try Item(postgres: row))
            }
            return items
        }
    }
#endif
