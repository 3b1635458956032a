internal import Foundation
internal import ShelfSQLite
internal import ShelfStore

extension SQLiteItemRepository {
    /// Saves every item of `items` in one write transaction, each only if the stored item is
    /// still at its `version`, and returns the stored items in order (version + 1, `updatedAt`
    /// now, never earlier than before). Live queries see one commit.
    /// - Throws: `StoreError` `.conflict`, `.notFound`, `.unknownUser`, `.invalidValue`, each
    ///   naming the item by ID. Nothing is written when it throws.
    public func update(contentsOf items: [Item]) async throws -> [Item] {
        guard !items.isEmpty else { return [] }
        // Titles and notes are checked below: one another program wrote past the rule may stay.
        try Self.checkBatch(items, text: false)
        return try await database.storeWrite { connection in
            let now = Date()
            var stored: [Item] = []
            stored.reserveCapacity(items.count)
            for item in items {
                let titleProblem = TextLimits.titleProblem(item.title)
                let notesProblem = TextLimits.notesProblem(item.notes)
                if titleProblem != nil || notesProblem != nil {
                    // Past the rule (too long, a NUL): allowed only when unchanged (a bulk
                    // status change of an item whose text another program stored), refused as
                    // new text.
                    let current = try StoreError.translating { try Self.item(id: item.id, connection) }
                    if let current, let titleProblem, current.title != item.title {
                        throw StoreError(.invalidValue, "item \(item.id): \(titleProblem)")
                    }
                    if let current, let notesProblem, current.notes != item.notes {
                        throw StoreError(.invalidValue, "item \(item.id): \(notesProblem)")
                    }
                }
                try StoreError.translating(subject: "item \(item.id)") {
                    try connection.run(
                        """
                        UPDATE items SET user_id = ?, title = ?, notes = ?, status = ?, priority = ?,
                            updated_at = max(?, updated_at), version = version + 1
                        WHERE id = ? AND version = ?
                        """,
                        item.userID, item.title, item.notes, item.status, item.priority, now, item.id, item.version)
                }
                if connection.changes == 0 {
                    let current = try StoreError.translating { try Self.item(id: item.id, connection) }
                    throw Self.staleError(item, storedVersion: current?.version)
                }
                let updated = try StoreError.translating { try Self.item(id: item.id, connection) }
                guard let updated else {
                    throw StoreError(.notFound, "item \(item.id) vanished during its update; nothing was saved")
                }
                stored.append(updated)
            }
            return stored
        }
    }

    /// Inserts `items` again with their IDs, times and versions, in one write transaction.
    /// - Throws: `StoreError` `.conflict` when an ID exists, `.unknownUser` when an owner is
    ///   gone, `.invalidValue`; nothing is written when it throws.
    public func restore(_ items: [Item]) async throws {
        guard !items.isEmpty else { return }
        // Exactly as they were, titles and notes too: text another program stored past the
        // rule comes back as it was.
        try Self.checkBatch(items, text: false)
        try await database.storeWrite { connection in
            for item in items {
                try StoreError.translating(subject: "item \(item.id)") {
                    if try connection.fetchOne("SELECT 1 FROM items WHERE id = ?", item.id, row: { _ in true }) != nil {
                        throw Self.existsError(item)
                    }
                    if try connection.fetchOne("SELECT 1 FROM users WHERE id = ?", item.userID, row: { _ in true })
                        == nil
                    {
                        throw Self.ownerGoneError(item)
                    }
                    try connection.run(
                        """
                        INSERT INTO items (id, user_id, title, notes, status, priority, created_at, updated_at, version)
                        VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
                        """,
                        item.id, item.userID, item.title, item.notes, item.status, item.priority, item.createdAt,
                        item.updatedAt, item.version)
                }
            }
        }
    }
}
