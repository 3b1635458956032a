internal import Foundation
internal import ShelfSQLite
internal import ShelfStore

/// Reads `shelf_change_log` (Migrations/0011), which the database's own triggers write inside
/// every writing transaction, whoever writes.
///
/// Sequence numbers are consecutive: SQLite's AUTOINCREMENT hands out the next number to each
/// committed entry, and nothing else takes one, except a change that was not logged row by row
/// (a bulk import, `skipSequence`), which leaves a number without an entry on purpose. So a
/// gap after a reader's position means changes it cannot see one by one (pruned, or never
/// logged), and the reader reads in full once.
enum SQLiteChangeLog {
    /// The log's last sequence number (0 before the first entry), in the connection's snapshot.
    static func lastSequence(_ connection: Connection) throws -> Int64 {
        try connection.fetchOne(
            "SELECT coalesce((SELECT seq FROM sqlite_sequence WHERE name = 'shelf_change_log'), 0)",
            row: { try $0.int64(0) }) ?? 0
    }

    /// Moves the log's sequence on by one without an entry: every live query then reads in
    /// full once. For writes that change rows without their triggers (bulk imports).
    static func skipSequence(on connection: Connection) throws {
        // `sqlite_sequence` has no unique key on `name`: INSERT OR REPLACE would add a second
        // row for the log (seen: two rows, 44 and 45), and SQLite could then hand out a number
        // twice. Move the one row; make it only when the log has none yet.
        try connection.execute(
            "UPDATE main.sqlite_sequence SET seq = seq + 1 WHERE name = 'shelf_change_log'")
        try connection.execute(
            "INSERT INTO main.sqlite_sequence (name, seq) SELECT 'shelf_change_log', 1 "
                + "WHERE NOT EXISTS (SELECT 1 FROM main.sqlite_sequence WHERE name = 'shelf_change_log')")
    }

    /// Moves the log's sequence to at least `position` + 1 without an entry: a store put in
    /// place of one whose log reached `position` (a restore) hands out no position twice, and
    /// a reader at any earlier position meets a gap and reads again in full (`event: reset`).
    static func moveSequence(past position: Int64, on connection: Connection) throws {
        try connection.run(
            "UPDATE main.sqlite_sequence SET seq = max(seq, ?) + 1 WHERE name = 'shelf_change_log'", position)
        try connection.run(
            "INSERT INTO main.sqlite_sequence (name, seq) SELECT 'shelf_change_log', ? + 1 "
                + "WHERE NOT EXISTS (SELECT 1 FROM main.sqlite_sequence WHERE name = 'shelf_change_log')", position)
    }

    /// The most entries `batch` reads: past them, every live query reads in full instead (a
    /// batch that large costs more to judge than to re-read).
    static let batchLimit = 4_096

    /// The changes after `position`, in the connection's snapshot.
    static func batch(after position: Int64, _ connection: Connection) throws -> LiveChangeBatch {
        let through = try lastSequence(connection)
        guard through > position else {
            return LiveChangeBatch(after: position, through: through, items: [], userChanges: [], incomplete: false)
        }
        if through - position > Int64(batchLimit) {
            return LiveChangeBatch(after: position, through: through, items: [], userChanges: [], incomplete: true)
        }
        var items: [ItemChange] = []
        var users: [Int64] = []
        var expected = position + 1
        var incomplete = false
        let statement = try connection.cachedStatement(
            "SELECT seq, table_name, row_id, operation, "
                + "old_user_id, old_status, old_priority, old_created_at, old_updated_at, old_title, "
                + "new_user_id, new_status, new_priority, new_created_at, new_updated_at, new_title, text_changed "
                + "FROM shelf_change_log WHERE seq > ? ORDER BY seq")
        try statement.bind(position)
        try statement.forEachRow { row in
            let sequence = try row.int64(0)
            if sequence != expected { incomplete = true }
            expected = sequence + 1
            guard !incomplete else { return }
            switch try row.string(1) {
            case "items":
                let operation = try row.string(3)
                let before = operation == "insert" ? nil : image(row, from: 4)
                let after = operation == "delete" ? nil : image(row, from: 10)
                // An image that cannot be decoded (a status shelf never writes): read in full.
                if (operation != "insert" && before == nil) || (operation != "delete" && after == nil) {
                    incomplete = true
                    return
                }
                items.append(
                    ItemChange(
                        sequence: sequence, id: Item.ID(try row.int64(2)), before: before, after: after,
                        textChanged: (try row.get(16, as: Int64?.self) ?? 1) != 0))
            case "users":
                users.append(sequence)
            default:
                break
            }
        }
        if expected != through + 1 { incomplete = true }
        return LiveChangeBatch(
            after: position, through: through, items: items, userChanges: users, incomplete: incomplete)
    }

    /// The image in the six columns from `first`, or nil when one cannot be decoded.
    private static func image(_ row: Row, from first: Int32) -> ItemImage? {
        // Each value of the kind shelf stores: SQLite reads the text '2026-11-28T05:53:43Z' that
        // another program wrote as the integer 2026, and a window judged by that time went wrong
        // for good (hostile round 13, finding 2). A value of another kind reads in full.
        let integers: [Int32] = [first, first + 2, first + 3, first + 4]
        guard integers.allSatisfy({ [.integer, .null].contains(row.storageClass($0)) }),
            [first + 1, first + 5].allSatisfy({ [.text, .null].contains(row.storageClass($0)) })
        else { return nil }
        guard let user = try? row.get(first, as: Int64?.self),
            let statusText = row.optionalString(first + 1), let status = Item.Status(rawValue: statusText),
            let priority = try? row.get(first + 2, as: Int64?.self),
            let created = try? row.get(first + 3, as: Int64?.self),
            let updated = try? row.get(first + 4, as: Int64?.self),
            let title = row.optionalString(first + 5)
        else { return nil }
        return ItemImage(
            userID: User.ID(user), status: status, priority: Int(priority), createdAt: created, updatedAt: updated,
            title: title)
    }

    /// Whether row `id` is selected by `query`'s filters (words, substrings and owner prefixes
    /// included), in the connection's snapshot: one row looked up, its words asked of the
    /// full-text index for that row alone.
    static func matches(_ query: ItemQuery, id: Item.ID, _ connection: Connection) throws -> Bool {
        let filter = query.sqliteFilter(alias: "i.", forPage: false)
        var clauses = ["i.id = ?"] + filter.clauses
        var arguments: [any SQLBindable] = [id] + filter.arguments
        if let match = filter.match {
            clauses.append("EXISTS (SELECT 1 FROM items_fts WHERE items_fts MATCH ? AND rowid = i.id)")
            arguments.append(match)
        }
        return try connection.fetchOne(
            "SELECT 1 FROM items i WHERE " + clauses.joined(separator: " AND "), arguments: arguments,
            row: { _ in true }) ?? false
    }
}
