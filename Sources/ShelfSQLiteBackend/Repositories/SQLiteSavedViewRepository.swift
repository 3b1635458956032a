internal import Foundation
internal import ShelfSQLite
internal import ShelfStore

/// `SavedViewRepository` over a SQLite `Store`: writes go through the single writer
/// connection, so a save's check of the stored version and its write are one transaction.
final class SQLiteSavedViewRepository: SavedViewRepository {
    let database: Database

    init(database: Database) {
        self.database = database
    }

    static let columns =
        "id, name, query_text, sort_field, sort_direction, owner_id, created_at, updated_at, version"

    /// The order views are listed in: by case-folded name, then as spelled, then by ID.
    static let nameOrder = "name_key, name, id"

    /// Saves `view` in one write transaction: see `SavedViewRepository.save(_:replacingVersion:)`.
    @discardableResult
    public func save(_ view: NewSavedView, replacingVersion: Int64?) async throws -> SavedView {
        let view = try view.checked()
        let key = SavedView.nameKey(view.name)
        return try await database.storeWrite { connection in
            try StoreError.translating {
                if let replacingVersion {
                    guard let stored = try Self.view(key: key, connection) else {
                        throw StoreError.noSavedView(named: view.name)
                    }
                    guard stored.version == replacingVersion else {
                        throw StoreError.savedViewChanged(
                            stored.name, expected: replacingVersion, stored: stored.version)
                    }
                }
                try connection.run(
                    """
                    INSERT INTO saved_views (name, name_key, query_text, sort_field, sort_direction, owner_id,
                        created_at, updated_at, version)
                    VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?7, 1)
                    ON CONFLICT (name_key) DO UPDATE SET name = excluded.name, query_text = excluded.query_text,
                        sort_field = excluded.sort_field, sort_direction = excluded.sort_direction,
                        owner_id = excluded.owner_id, updated_at = max(excluded.updated_at, saved_views.updated_at),
                        version = saved_views.version + 1
                    """,
                    view.name, key, view.queryText, view.sortFieldName, view.sortDirection.rawValue, view.owner,
                    Date())
                guard let stored = try Self.view(key: key, connection) else {
                    throw StoreError(.notFound, "saved view “\(view.name)” vanished while it was saved")
                }
                return stored
            }
        }
    }

    /// Renames a view in one write transaction: see `SavedViewRepository.rename(_:to:)`.
    @discardableResult
    public func rename(_ name: String, to newName: String) async throws -> SavedView {
        let checked = try SavedView.checkedName(newName)
        let oldKey = SavedView.lookupKey(name)
        let newKey = SavedView.nameKey(checked)
        return try await database.storeWrite { connection in
            try StoreError.translating {
                guard let stored = try Self.view(key: oldKey, connection) else {
                    throw StoreError.noSavedView(named: name)
                }
                if newKey != oldKey, let other = try Self.view(key: newKey, connection) {
                    throw StoreError.savedViewNameTaken(other.name)
                }
                try connection.run(
                    """
                    UPDATE saved_views SET name = ?, name_key = ?, updated_at = max(?, updated_at),
                        version = version + 1
                    WHERE id = ?
                    """, checked, newKey, Date(), stored.id)
                guard let renamed = try Self.view(key: newKey, connection) else {
                    throw StoreError(.notFound, "saved view “\(checked)” vanished while it was renamed")
                }
                return renamed
            }
        }
    }

    /// Deletes a view in its own write transaction.
    public func delete(named name: String) async throws {
        let key = SavedView.lookupKey(name)
        try await database.storeWrite { connection in
            try StoreError.translating {
                try connection.run("DELETE FROM saved_views WHERE name_key = ?", key)
                if connection.changes == 0 { throw StoreError.noSavedView(named: name) }
            }
        }
    }

    /// The view named `name` (letter case ignored), or nil, read from a reader connection.
    public func view(named name: String) async throws -> SavedView? {
        let key = SavedView.lookupKey(name)
        return try await database.storeRead { connection in
            try StoreError.translating { try Self.view(key: key, connection) }
        }
    }

    /// All views in name order, read from a reader connection.
    public func views() async throws -> [SavedView] {
        try await database.storeRead { connection in
            try StoreError.translating { try Self.views(connection) }
        }
    }

    static func view(key: String, _ connection: Connection) throws -> SavedView? {
        try connection.fetchOne(
            "SELECT \(columns) FROM saved_views WHERE name_key = ?", key, row: SavedView.init(row:))
    }

    static func views(_ connection: Connection) throws -> [SavedView] {
        try connection.fetch("SELECT \(columns) FROM saved_views ORDER BY \(nameOrder)", row: SavedView.init(row:))
    }

    /// Stores `views` exactly as given (IDs, times, versions), for a backup of another
    /// backend's store into a new SQLite file.
    static func restore(_ views: [SavedView], _ connection: Connection) throws {
        for view in views {
            try connection.run(
                """
                INSERT INTO saved_views (id, name, name_key, query_text, sort_field, sort_direction, owner_id,
                    created_at, updated_at, version)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                """, view.id, view.name, SavedView.nameKey(view.name), view.queryText, view.sortFieldName,
                view.sortDirection.rawValue, view.owner, view.createdAt, view.updatedAt, view.version)
        }
    }
}

extension SavedView {
    /// Decodes the columns of `SQLiteSavedViewRepository.columns`.
    init(row: Row) throws {
        let id: Int64 = try row.get(0)
        let direction: String = try row.get(4)
        guard let sortDirection = ItemQuery.SortDirection(rawValue: direction) else {
            throw StoreError(
                .corrupt,
                "saved view \(id) has the unknown sort direction '\(direction)', which shelf never writes; "
                    + "set it to 'ascending' or 'descending' with the sqlite3 shell")
        }
        self.init(
            id: ID(id), name: try row.get(1), queryText: try row.get(2), sortFieldName: try row.get(3),
            sortDirection: sortDirection, owner: try row.get(5), createdAt: try row.get(6), updatedAt: try row.get(7),
            version: try row.get(8))
    }
}
