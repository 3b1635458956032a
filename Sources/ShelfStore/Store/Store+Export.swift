internal import Foundation
internal import ShelfSQLite

/// A user as an export writes it. Times are milliseconds since 1970.
package struct ExportedUser: Sendable {
    package var id: Int64
    package var name: String
    package var email: String
    package var createdAt: Int64

    package init(id: Int64, name: String, email: String, createdAt: Int64) {
        self.id = id
        self.name = name
        self.email = email
        self.createdAt = createdAt
    }
}

/// An item as an export writes it: its owner by email. Times are milliseconds since 1970.
package struct ExportedItem: Sendable {
    package var id: Int64
    package var ownerEmail: String
    package var title: String
    package var notes: String?
    package var status: String
    package var priority: Int
    package var createdAt: Int64
    package var updatedAt: Int64

    package init(
        id: Int64, ownerEmail: String, title: String, notes: String?, status: String, priority: Int, createdAt: Int64,
        updatedAt: Int64
    ) {
        self.id = id
        self.ownerEmail = ownerEmail
        self.title = title
        self.notes = notes
        self.status = status
        self.priority = priority
        self.createdAt = createdAt
        self.updatedAt = updatedAt
    }
}

extension Store {
    /// Calls `body` with every user, by ID (or by name, then ID, when `orderedByName`), from
    /// one snapshot, streaming. Blocks the calling thread for the whole read, so call it from a
    /// thread that may block, never from a task. Writes
    /// proceed meanwhile. Errors are `StoreError`s, or what `body` throws.
    package func forEachUser(orderedByName: Bool = false, _ body: (ExportedUser) throws -> Void) throws {
        try backend.forEachUser(orderedByName: orderedByName, body)
    }

    /// Calls `body` with every item that `query`'s owner, status and text select (its order
    /// is ignored: items come by ID), from one snapshot, streaming. Blocks as `forEachUser`.
    package func forEachItem(matching query: ItemQuery, _ body: (ExportedItem) throws -> Void) throws {
        try backend.forEachItem(matching: query, body)
    }

    /// Starts staging an import into `table`: see `ImportSession`. Blocks; call it from the
    /// import's own thread.
    package func makeImportSession(table: ImportTable) throws -> any ImportSession {
        try backend.makeImportSession(table: table)
    }
}

extension SQLiteBackend {
    /// The SELECT of an items export: the columns of `ExportedItem`, in order, by ID.
    static func exportSQL(matching query: ItemQuery) -> (String, [any SQLBindable]) {
        // Every term of the query language, as the list's pages read it (but by ID).
        var parsed = query.sqliteFilter(alias: "i.", forPage: false)
        if let match = parsed.match {
            parsed.clauses.append("i.id IN (SELECT rowid FROM items_fts WHERE items_fts MATCH ?)")
            parsed.arguments.append(match)
        }
        let filter = parsed.clauses.isEmpty ? "" : " WHERE " + parsed.clauses.joined(separator: " AND ")
        let sql = """
            SELECT i.id, u.email, i.title, i.notes, i.status, i.priority, i.created_at, i.updated_at
            FROM items i JOIN users u ON u.id = i.user_id\(filter) ORDER BY i.id
            """
        return (sql, parsed.arguments)
    }

    /// Calls `body` with every user, by ID (or by name, as `users()` orders them, when
    /// `orderedByName`), from one snapshot. Blocks the calling thread for the whole read;
    /// writes proceed meanwhile. Errors are `StoreError`s, or what `body` throws.
    func forEachUser(orderedByName: Bool, _ body: (ExportedUser) throws -> Void) throws {
        try database.read { connection in
            let order = orderedByName ? SQLiteUserRepository.nameOrder : "id"
            let statement = try StoreError.translating {
                try connection.makeStatement("SELECT id, name, email, created_at FROM users ORDER BY \(order)")
            }
            try StoreError.translating {
                try statement.forEachRow { row in
                    try body(
                        ExportedUser(
                            id: try row.int64(0), name: try row.string(1), email: try row.string(2),
                            createdAt: try row.int64(3)))
                }
            }
        }
    }

    /// Calls `body` with every item that `query`'s owner, status and text select (its order
    /// is ignored: items come by ID), from one snapshot. Blocks the calling thread for the
    /// whole read; writes proceed meanwhile.
    func forEachItem(matching query: ItemQuery, _ body: (ExportedItem) throws -> Void) throws {
        let (sql, arguments) = Self.exportSQL(matching: query)
        try database.read { connection in
            let statement = try StoreError.translating { try connection.makeStatement(sql) }
            try StoreError.translating {
                try statement.bind(arguments: arguments)
                try statement.forEachRow { row in
                    try body(
                        ExportedItem(
                            id: try row.int64(0), ownerEmail: try row.string(1), title: try row.string(2),
                            notes: row.optionalString(3), status: try row.string(4), priority: Int(try row.int64(5)),
                            createdAt: try row.int64(6), updatedAt: try row.int64(7)))
                }
            }
        }
    }
}
