internal import Foundation

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
