internal import Foundation
internal import ShelfSQLite
internal import ShelfStore

extension ImportStaging {
    /// Writes every staged row with a few set-based statements; false (and nothing written)
    /// when a row needs the row-by-row path: a constraint refuses one, or the input names one
    /// row twice (the second then updates the first, in input order), or a user's ID and email
    /// disagree, or a user has no email key (`EmailCollision`: the row-by-row path finds users
    /// as the repository does). The row-by-row path then finds and names the row. Emails match
    /// by `Email.key`, staged beside each email.
    func applyAll(on connection: Connection, mode: ImportMode, counts: inout ImportCounts) throws -> Bool {
        let now = Date().sqlMilliseconds
        let staged = rows
        func integer(_ sql: String) throws -> Int64 {
            let statement = try connection.makeStatement(sql)
            var value: Int64 = 0
            try statement.forEachRow { value = try $0.get(0, as: Int64?.self) ?? 0 }
            return value
        }
        // Rows of the table before the import: a replace keeps them only when the input has them.
        let existingAtMost = try integer("SELECT max(id) FROM main.\(table.rawValue)")
        guard try integer("SELECT EXISTS (SELECT 1 FROM main.users WHERE email_key IS NULL)") == 0 else {
            return false
        }
        if mode != .insert {
            let ambiguous =
                switch table {
                case .users:
                    """
                    SELECT EXISTS (SELECT 1 FROM \(staged) GROUP BY email_key HAVING count(*) > 1)
                        OR EXISTS (SELECT 1 FROM \(staged) s JOIN main.users u ON u.email_key = s.email_key
                            WHERE s.id IS NOT NULL AND s.id != u.id)
                    """
                case .items:
                    "SELECT EXISTS (SELECT 1 FROM \(staged) WHERE id IS NOT NULL GROUP BY id HAVING count(*) > 1)"
                }
            // Past this, new rows might get IDs below it (SQLite picks at random).
            guard try integer(ambiguous) == 0, existingAtMost < Int64.max / 2 else { return false }
        }
        let owner = "coalesce(owner_id, (SELECT u.id FROM main.users u WHERE u.email_key = owner_key))"
        // After the users' update: a changed email dropped its key (the schema's trigger, for
        // writers that do not know it); the user is the same, so is the key.
        let restoreKeys = """
            UPDATE main.users AS u SET email_key = s.email_key FROM \(staged) AS s
            WHERE u.email_key IS NULL AND u.email = s.email COLLATE BINARY
            """
        let (match, update, insert) =
            switch table {
            case .users:
                (
                    "SELECT count(*) FROM \(staged) s JOIN main.users u ON u.email_key = s.email_key",
                    """
                    UPDATE main.users AS u SET name = s.name, email = s.email,
                        created_at = coalesce(s.created_at, u.created_at)
                    FROM \(staged) AS s
                    WHERE u.email_key = s.email_key AND NOT (u.name IS s.name COLLATE BINARY AND u.email IS s.email COLLATE BINARY
                        AND u.created_at IS coalesce(s.created_at, u.created_at))
                    """,
                    """
                    INSERT INTO main.users (id, name, email, email_key, created_at)
                    SELECT id, name, email, email_key, coalesce(created_at, \(now)) FROM \(staged) s
                    WHERE \(mode == .insert ? "1" : "NOT EXISTS (SELECT 1 FROM main.users u WHERE u.email_key = s.email_key)")
                    ORDER BY seq
                    """
                )
            case .items:
                (
                    "SELECT count(*) FROM \(staged) s JOIN main.items i ON i.id = s.id",
                    """
                    UPDATE main.items AS i SET user_id = s.owner, title = s.title, notes = s.notes, status = s.status,
                        priority = s.priority, created_at = coalesce(s.created_at, i.created_at),
                        updated_at = coalesce(s.updated_at, max(\(now), i.updated_at)), version = i.version + 1
                    FROM (SELECT id, \(owner) AS owner, title, notes, status, priority, created_at, updated_at
                        FROM \(staged) WHERE id IS NOT NULL) AS s
                    WHERE i.id = s.id AND NOT (i.user_id IS s.owner AND i.title IS s.title COLLATE BINARY
                        AND i.notes IS s.notes COLLATE BINARY AND i.status IS s.status AND i.priority IS s.priority
                        AND i.created_at IS coalesce(s.created_at, i.created_at)
                        AND i.updated_at IS coalesce(s.updated_at, i.updated_at))
                    """,
                    """
                    INSERT INTO main.items (id, user_id, title, notes, status, priority, created_at, updated_at, version)
                    SELECT id, \(owner), title, notes, status, priority, coalesce(created_at, \(now)),
                        coalesce(updated_at, created_at, \(now)), coalesce(version, 1)
                    FROM \(staged) s
                    WHERE \(mode == .insert ? "1" : "s.id IS NULL OR NOT EXISTS (SELECT 1 FROM main.items i WHERE i.id = s.id)")
                    ORDER BY seq
                    """
                )
            }
        do {
            counts = try connection.savepoint {
                var counts = ImportCounts()
                if mode != .insert {
                    let matched = try integer(match)
                    try connection.execute(update)
                    counts.updated = connection.changes
                    counts.unchanged = Int(matched) - counts.updated
                    if table == .users { try connection.execute(restoreKeys) }
                }
                try connection.execute(insert)
                counts.inserted = connection.changes
                if mode == .replace {
                    try deleteMissing(on: connection, beyond: "t.id <= \(existingAtMost)", counts: &counts)
                }
                return counts
            }
            return true
        } catch let error as DatabaseError where error.code == DatabaseError.constraint {
            return false
        }
    }
}
