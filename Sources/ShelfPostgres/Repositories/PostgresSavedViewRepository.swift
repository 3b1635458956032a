#if PostgreSQL
    internal import Foundation
    internal import PostgresNIO
    package import ShelfStore

    /// `SavedViewRepository` over a PostgreSQL store. Names are unique by their case-folded
    /// key (`saved_view_name_unique` on `name_key`), as on SQLite; a save is one upsert, so two
    /// clients saving the same name at once both succeed, the later one over the earlier.
    package final class PostgresSavedViewRepository: SavedViewRepository {
        let pool: PostgresPool

        package init(pool: PostgresPool) {
            self.pool = pool
        }

        static let columns =
            "id, name, query_text, sort_field, sort_direction, owner_id, created_at, updated_at, version"
        /// The order views are listed in: by case-folded name, then as spelled (bytes), then by ID.
        static let nameOrder = "name_key, name COLLATE \"C\", id"

        @discardableResult
        package func save(_ view: NewSavedView, replacingVersion: Int64?) async throws -> SavedView {
            let view = try view.checked()
            let key = SavedView.nameKey(view.name)
            let now = Date().postgresMilliseconds
            let owner = view.owner?.rawValue
            // `write`: a write is never tried again on a lost connection, and wakes live values.
            return try await pool.write { connection in
                if let replacingVersion {
                    let updated = try await Self.views(
                        """
                        UPDATE saved_views SET name = \(view.name), query_text = \(view.queryText),
                            sort_field = \(view.sortFieldName), sort_direction = \(view.sortDirection.rawValue),
                            owner_id = \(owner), updated_at = greatest(\(now), updated_at), version = version + 1
                        WHERE name_key = \(key) AND version = \(replacingVersion)
                        RETURNING \(unescaped: Self.columns)
                        """, on: connection)
                    if let stored = updated.first { return stored }
                    guard let stored = try await Self.view(key: key, on: connection) else {
                        throw StoreError.noSavedView(named: view.name)
                    }
                    throw StoreError.savedViewChanged(stored.name, expected: replacingVersion, stored: stored.version)
                }
                let stored = try await Self.views(
                    """
                    INSERT INTO saved_views (name, name_key, query_text, sort_field, sort_direction, owner_id,
                        created_at, updated_at, version)
                    VALUES (\(view.name), \(key), \(view.queryText), \(view.sortFieldName),
                        \(view.sortDirection.rawValue), \(owner), \(now), \(now), 1)
                    ON CONFLICT (name_key) DO UPDATE SET name = excluded.name, query_text = excluded.query_text,
                        sort_field = excluded.sort_field, sort_direction = excluded.sort_direction,
                        owner_id = excluded.owner_id,
                        updated_at = greatest(excluded.updated_at, saved_views.updated_at),
                        version = saved_views.version + 1
                    RETURNING \(unescaped: Self.columns)
                    """, on: connection)
                guard let saved = stored.first else {
                    throw StoreError(.database, "saving view “\(view.name)” returned no row")
                }
                return saved
            }
        }

        @discardableResult
        package func rename(_ name: String, to newName: String) async throws -> SavedView {
            let checked = try SavedView.checkedName(newName)
            let oldKey = SavedView.lookupKey(name)
            let newKey = SavedView.nameKey(checked)
            let now = Date().postgresMilliseconds
            return try await pool.transaction { connection in
                guard let stored = try await Self.view(key: oldKey, on: connection, locking: true) else {
                    throw StoreError.noSavedView(named: name)
                }
                if newKey != oldKey, let other = try await Self.view(key: newKey, on: connection) {
                    throw StoreError.savedViewNameTaken(other.name)
                }
                do {
                    let renamed = try await Self.views(
                        """
                        UPDATE saved_views SET name = \(checked), name_key = \(newKey),
                            updated_at = greatest(\(now), updated_at), version = version + 1
                        WHERE id = \(stored.id.rawValue)
                        RETURNING \(unescaped: Self.columns)
                        """, on: connection)
                    guard let view = renamed.first else { throw StoreError.noSavedView(named: name) }
                    return view
                } catch let error as PSQLError where error.serverInfo?[.sqlState] == "23505" {
                    // Another client took the name between the check and the update.
                    throw StoreError.savedViewNameTaken(checked)
                }
            }
        }

        package func delete(named name: String) async throws {
            let key = SavedView.lookupKey(name)
            let deleted = try await pool.write { connection in
                try await connection.query(
                    "DELETE FROM saved_views WHERE name_key = \(key) RETURNING id", logger: .silent
                ).collect().count
            }
            if deleted == 0 { throw StoreError.noSavedView(named: name) }
        }

        package func view(named name: String) async throws -> SavedView? {
            let key = SavedView.lookupKey(name)
            return try await pool.read { connection in try await Self.view(key: key, on: connection) }
        }

        package func views() async throws -> [SavedView] {
            try await pool.read { connection in try await Self.views(on: connection) }
        }

        /// All views in name order.
        static func views(on connection: PostgresConnection) async throws -> [SavedView] {
            try await views(
                PostgresQuery(unsafeSQL: "SELECT \(columns) FROM saved_views ORDER BY \(nameOrder)"), on: connection)
        }

        static func view(key: String, on connection: PostgresConnection, locking: Bool = false) async throws
            -> SavedView?
        {
            var bindings = PostgresBindings()
            bindings.append(key)
            return try await views(
                PostgresQuery(
                    unsafeSQL: "SELECT \(columns) FROM saved_views WHERE name_key = $1\(locking ? " FOR UPDATE" : "")",
                    binds: bindings),
                on: connection
            ).first
        }

        static func views(_ query: PostgresQuery, on connection: PostgresConnection) async throws -> [SavedView] {
            var views: [SavedView] = []
            let rows = try await connection.query(query, logger: .silent)
            for try await (id, name, text, field, direction, owner, created, updated, version) in rows.decode(
                (Int64, String, String, String, String, Int64?, Int64, Int64, Int64).self)
            {
                guard let sortDirection = ItemQuery.SortDirection(rawValue: direction) else {
                    throw StoreError(
                        .corrupt,
                        "saved view \(id) has the unknown sort direction '\(direction)', which shelf never writes; "
                            + "set it to 'ascending' or 'descending' with psql")
                }
                views.append(
                    SavedView(
                        id: SavedView.ID(id), name: name, queryText: text, sortFieldName: field,
                        sortDirection: sortDirection, owner: owner.map { User.ID($0) },
                        createdAt: Date(postgresMilliseconds: created), updatedAt: Date(postgresMilliseconds: updated),
                        version: version))
            }
            return views
        }
    }
#endif
