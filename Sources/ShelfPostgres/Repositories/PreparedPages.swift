#if PostgreSQL
    internal import PostgresNIO
    internal import ShelfStore
    internal import Synchronization

    /// Pages of plain lists read through named prepared statements: parsed and planned once per
    /// connection and SQL shape, then only bound and executed.
    ///
    /// postgres-nio keeps, per connection, which named statements it has prepared (its
    /// `PreparedStatementStateMachine`), and prepares a name on that connection the first time
    /// it is executed there; but its `PostgresPreparedStatement` takes the name and the SQL as
    /// static properties of a type. Shelf's page SQL is built at run time from a finite set of
    /// shapes, so one type (`Shape`) reads them from a task-local value set around the call:
    /// postgres-nio reads both synchronously in `execute`, on the calling task. Nothing in
    /// PostgresPool or the connection setup changes: postgres-nio's own per-connection cache
    /// carries the statements, and a connection that is replaced simply prepares them again.
    ///
    /// Only shapes whose plan does not depend on the bound values are named (see
    /// `isPlanStable`): a named statement may be run on a generic plan after five executions,
    /// and a generic plan for a text search or an owner filter could walk the sort index past
    /// every row for a rare word, where the unnamed statement is planned for its values.
    enum PreparedPages {
        /// How many names one process hands out in all: each connection may hold that many
        /// prepared statements on the server. Past it, new shapes run unnamed, as before.
        static let capacity = 256

        struct Registry {
            var names: [String: String] = [:]
            var minted = 0
        }

        static let registry = Mutex(Registry())

        /// The name of the statement of `key` (its SQL and how many values it binds), minting
        /// one when it has none, or nil when the capacity is used up.
        static func name(for key: String) -> String? {
            registry.withLock { registry in
                if let name = registry.names[key] { return name }
                guard registry.minted < capacity else { return nil }
                registry.minted += 1
                let name = "shelf_page_\(registry.minted)"
                registry.names[key] = name
                return name
            }
        }

        /// Forgets `name` for `key` after a failure: postgres-nio remembers a failed
        /// preparation for the connection's life (a cancelled or timed-out Parse would then fail
        /// every later page of that shape there), so the next read prepares it under a new name.
        static func retire(_ name: String, for key: String) {
            registry.withLock { registry in
                if registry.names[key] == name { registry.names[key] = nil }
            }
        }

        /// The statement the calling task executes (read by `Shape`'s static properties).
        @TaskLocal static var current: (name: String, sql: String)?

        /// The one statement type: its name and SQL are those of `current`.
        struct Shape: PostgresPreparedStatement {
            typealias Row = PostgresRow
            static var name: String { PreparedPages.current?.name ?? "shelf_page_unset" }
            static var sql: String { PreparedPages.current?.sql ?? "" }
            let bindings: PostgresBindings

            func makeBindings() throws -> PostgresBindings { bindings }
            func decodeRow(_ row: PostgresRow) throws -> PostgresRow { row }
        }

        /// Whether a page of `query` may run on a generic plan: it filters on nothing but
        /// status and priority (written as literals in the arms of `postgresPage`, or compared
        /// with the index's leading columns), so the bound values are only the cursor and the
        /// limit, which move where the sort index is entered, never which index is read.
        ///
        /// The statement is prepared with no parameter types (postgres-nio sends none for a
        /// named statement), so the server infers them from the SQL: in these shapes every
        /// placeholder meets a bigint column, `shelf_fold(text)` or LIMIT, the types Shelf binds
        /// (Int64, String). The owner order is left unnamed: its CASE with an integer literal
        /// would make an ID placeholder an `integer`.
        static func isPlanStable(_ query: ItemQuery) -> Bool {
            guard query.owner == nil, query.sortField != .owner else { return false }
            let parsed = ItemQueryText(query.text)
            return parsed.included.isEmpty && parsed.excluded.isEmpty && parsed.ownerPrefixes.isEmpty
                && parsed.created.isEmpty && parsed.updated.isEmpty
        }

        /// The items of `sql`, a page of `query` (from `ItemQuery.postgresPage`), read through a
        /// named prepared statement when its shape allows, unnamed otherwise.
        static func items(
            _ sql: PostgresQuery, of query: ItemQuery, on connection: PostgresConnection
        ) async throws -> [Item] {
            // The key holds the number of values bound as well as the text: a statement is
            // prepared with the types of its first call's values, and one text can come with a
            // value it does not use (a page of a query that selects no status and priority pair
            // binds its limit all the same), which a prepared statement would refuse.
            let key = "\(sql.binds.count) " + sql.sql
            guard isPlanStable(query), let name = name(for: key) else {
                return try await PostgresItemRepository.items(sql, on: connection)
            }
            return try await $current.withValue((name, sql.sql)) {
                var items: [Item] = []
                do {
                    for try await row in try await connection.execute(Shape(bindings: sql.binds), logger: .silent) {
                        items.append(try Item(postgres: row))
                    }
                } catch let error as PSQLError {
                    retire(name, for: key)
                    throw error
                }
                return items
            }
        }
    }
#endif
