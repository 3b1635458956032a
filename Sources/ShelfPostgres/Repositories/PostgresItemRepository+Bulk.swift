#if PostgreSQL
    internal import Foundation
    internal import PostgresNIO
    package import ShelfStore

    extension PostgresItemRepository {
        /// Saves every item of `items` in one transaction, each only if it is still at its
        /// `version` (one statement over arrays, whatever the count), and returns the stored
        /// items in order. Listeners get one notification, at the commit.
        /// - Throws: `StoreError` `.conflict`, `.notFound`, `.unknownUser`, `.invalidValue`,
        ///   each naming the item by ID. Nothing is written when it throws.
        package func update(contentsOf items: [Item]) async throws -> [Item] {
            guard !items.isEmpty else { return [] }
            try Self.checkBatch(items)
            let now = Date().postgresMilliseconds
            let ids = items.map(\.id.rawValue)
            let versions = items.map(\.version)
            let owners = items.map(\.userID.rawValue)
            let titles = items.map(\.title)
            let notes = items.map { $0.notes ?? "" }
            let hasNotes = items.map { $0.notes != nil }
            let statuses = items.map(\.status.rawValue)
            let priorities = items.map { Int64($0.priority) }
            return try await pool.transaction { connection in
                let rows = try await connection.query(
                    """
                    UPDATE items SET user_id = t.t_owner, title = t.t_title,
                        notes = CASE WHEN t.t_has_notes THEN t.t_notes END, status = t.t_status,
                        priority = t.t_priority, updated_at = greatest(\(now), items.updated_at),
                        version = items.version + 1
                    FROM unnest(\(ids), \(versions), \(owners), \(titles), \(notes), \(hasNotes), \(statuses),
                        \(priorities)) AS t (t_id, t_version, t_owner, t_title, t_notes, t_has_notes, t_status, t_priority)
                    WHERE items.id = t.t_id AND items.version = t.t_version
                    RETURNING \(unescaped: Self.returningColumns)
                    """, logger: .silent
                ).collect().map(Item.init(postgres:))
                let byID = Dictionary(rows.map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first })
                if let stale = items.first(where: { byID[$0.id] == nil }) {
                    let stored = try await connection.query(
                        "SELECT version FROM items WHERE id = \(stale.id.rawValue)", logger: .silent
                    ).all((Int64).self).first
                    throw Self.staleError(stale, storedVersion: stored)
                }
                return items.compactMap { byID[$0.id] }
            }
        }

        /// Inserts `items` again with their IDs, times and versions, in one transaction, and
        /// moves the ID sequence past the highest of them when it stands lower (it never
        /// hands out a restored ID again).
        /// - Throws: `StoreError` `.conflict` when an ID exists, `.unknownUser` when an owner
        ///   is gone, `.invalidValue`; nothing is written when it throws.
        package func restore(_ items: [Item]) async throws {
            guard !items.isEmpty else { return }
            try Self.checkBatch(items)
            let ids = items.map(\.id.rawValue)
            let owners = items.map(\.userID.rawValue)
            let titles = items.map(\.title)
            let notes = items.map { $0.notes ?? "" }
            let hasNotes = items.map { $0.notes != nil }
            let statuses = items.map(\.status.rawValue)
            let priorities = items.map { Int64($0.priority) }
            let created = items.map(\.createdAt.postgresMilliseconds)
            let updated = items.map(\.updatedAt.postgresMilliseconds)
            let versions = items.map(\.version)
            let top = ids.max() ?? 0
            try await pool.transaction { connection in
                var existing = Set<Int64>()
                for try await (id) in try await connection.query(
                    "SELECT id FROM items WHERE id = ANY(\(ids))", logger: .silent
                ).decode(Int64.self) {
                    existing.insert(id)
                }
                if let taken = items.first(where: { existing.contains($0.id.rawValue) }) {
                    throw Self.existsError(taken)
                }
                // The owners are locked against a concurrent delete until the commit.
                var present = Set<Int64>()
                for try await (id) in try await connection.query(
                    "SELECT id FROM users WHERE id = ANY(\(owners)) FOR KEY SHARE", logger: .silent
                ).decode(Int64.self) {
                    present.insert(id)
                }
                if let orphan = items.first(where: { !present.contains($0.userID.rawValue) }) {
                    throw Self.ownerGoneError(orphan)
                }
                try await connection.query(
                    """
                    INSERT INTO items (id, user_id, title, notes, status, priority, created_at, updated_at, version)
                    SELECT id, user_id, title, CASE WHEN has_notes THEN notes END, status, priority, created, updated,
                        version
                    FROM unnest(\(ids), \(owners), \(titles), \(notes), \(hasNotes), \(statuses), \(priorities),
                        \(created), \(updated), \(versions))
                        AS t (id, user_id, title, notes, has_notes, status, priority, created, updated, version)
                    """, logger: .silent)
                try await connection.query(
                    """
                    SELECT CASE WHEN \(top) > coalesce(pg_sequence_last_value(s.sequence), 0)
                        THEN setval(s.sequence, \(top)) END
                    FROM (SELECT pg_get_serial_sequence('items', 'id')::regclass AS sequence) AS s
                    """, logger: .silent)
            }
        }

        private static let returningColumns = ItemQuery.postgresItemColumns.split(separator: ", ")
            .map { "items.\($0)" }.joined(separator: ", ")
    }
#endif
