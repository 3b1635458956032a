internal import Foundation
internal import ShelfSQLite
internal import ShelfStore

/// Writes the rows of one import inside one write transaction, with prepared statements.
///
/// Made only by `ImportStaging.apply`, and valid only inside its transaction, on that thread.
/// A row that fails leaves nothing behind (each statement is atomic), so the transaction may
/// go on. It keeps nothing per row in memory: owners and existing users are looked up through
/// the email index each time, so memory stays flat whatever the import's size.
final class ImportWriter {
    typealias Outcome = ImportRowOutcome

    let connection: Connection
    let mode: ImportMode
    /// The time of rows without one: one time for the whole import.
    let now = Date().sqlMilliseconds

    init(connection: Connection, mode: ImportMode) throws {
        self.connection = connection
        self.mode = mode
        if mode == .replace {
            try connection.execute(
                "CREATE TEMP TABLE IF NOT EXISTS shelf_import_seen (id INTEGER PRIMARY KEY); DELETE FROM shelf_import_seen"
            )
        }
    }

    /// The ID of the user with `email` (letter case ignored in every script), or nil.
    func userID(email: String) throws -> Int64? {
        try StoreError.translating { try Self.userID(email: email, on: connection) }
    }

    /// The ID of the user with `email` on `connection`, found as `SQLiteUserRepository.user(email:)`
    /// finds them: by `Email.key`; an email stored exactly as given first (of two users whose
    /// emails collide, see `EmailCollision`); a user left without a key by ASCII letter case.
    static func userID(email: String, on connection: Connection) throws -> Int64? {
        try connection.fetchOne(
            """
            SELECT id FROM users WHERE email_key = ?2 OR email = ?1
            ORDER BY email = ?1 COLLATE BINARY DESC, email_key IS ?2 DESC LIMIT 1
            """, Email.lookupKey(email), Email.key(email)
        ) { try $0.get(0, as: Int64.self) }
    }

    // MARK: Users

    /// Writes one user according to the mode.
    func write(_ user: ImportedUser) throws -> Outcome {
        let existing = mode == .insert ? nil : try userID(email: user.email)
        if let existing {
            if let id = user.id, id != existing {
                throw ImportRowError(
                    field: "id",
                    message: "the email \(user.email) belongs to user \(existing), not \(id); "
                        + "fix the ID or leave it out")
            }
            try run(
                """
                UPDATE users SET name = ?1, email = ?2, created_at = coalesce(?3, created_at) WHERE id = ?4
                AND NOT (name IS ?1 COLLATE BINARY AND email IS ?2 COLLATE BINARY
                    AND created_at IS coalesce(?3, created_at))
                """, field: nil, user.name, user.email, user.createdAt, existing)
            let outcome: Outcome = connection.changes == 0 ? .unchanged : .updated
            // A changed email dropped the key (the schema's trigger): the same key again, as
            // the user is the same. Not for a user left without one (`EmailCollision`).
            try run(
                """
                UPDATE users SET email_key = ?1 WHERE id = ?2 AND email_key IS NULL
                    AND NOT EXISTS (SELECT 1 FROM users WHERE email_key = ?1)
                """, field: nil, Email.key(user.email), existing)
            try markSeen(existing)
            return outcome
        }
        do {
            try connection.cachedStatement(
                "INSERT INTO users (id, name, email, email_key, created_at) VALUES (?, ?, ?, ?, ?)"
            ).bindAndRun(user.id, user.name, user.email, Email.key(user.email), user.createdAt ?? now)
        } catch let error as DatabaseError where error.extendedCode == DatabaseError.uniqueConstraint {
            throw ImportRowError(
                field: "email",
                message: "a user with the email \(user.email) already exists; "
                    + "use --mode upsert to update it, or remove the row")
        } catch let error as DatabaseError where error.extendedCode == DatabaseError.primaryKeyConstraint {
            throw ImportRowError(
                field: "id",
                message: "user ID \(user.id ?? 0) already belongs to another user; leave the ID out to get a new one")
        } catch let error as DatabaseError {
            throw ImportRowError(field: nil, message: StoreError(error).message)
        }
        try markSeen(connection.lastInsertRowID)
        return .inserted
    }

    // MARK: Items

    /// Writes one item according to the mode.
    func write(_ item: ImportedItem) throws -> Outcome {
        let ownerID: Int64
        switch item.owner {
        case .id(let id): ownerID = id
        case .email(let email):
            guard let id = try userID(email: email) else {
                throw ImportRowError(
                    field: "user",
                    message: "no user has this email; import the users first (shelf import users FILE) "
                        + "or add this one (shelf users add --name NAME --email EMAIL)")
            }
            ownerID = id
        }
        if mode != .insert, let id = item.id {
            try run(
                """
                UPDATE items SET user_id = ?1, title = ?2, notes = ?3, status = ?4, priority = ?5,
                    created_at = coalesce(?6, created_at), updated_at = coalesce(?7, max(?9, updated_at)),
                    version = version + 1
                WHERE id = ?8 AND NOT (user_id IS ?1 AND title IS ?2 COLLATE BINARY AND notes IS ?3 COLLATE BINARY
                    AND status IS ?4 AND priority IS ?5 AND created_at IS coalesce(?6, created_at)
                    AND updated_at IS coalesce(?7, updated_at))
                """, field: "user",
                ownerID, item.title, item.notes, item.status, item.priority, item.createdAt, item.updatedAt, id, now
            )
            if connection.changes > 0 {
                try markSeen(id)
                return .updated
            }
            let exists = try connection.fetchOne("SELECT 1 FROM items WHERE id = ?", id) { _ in true } ?? false
            if exists {
                try markSeen(id)
                return .unchanged
            }
        }
        do {
            try connection.cachedStatement(
                """
                INSERT INTO items (id, user_id, title, notes, status, priority, created_at, updated_at, version)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
                """
            ).bindAndRun(
                item.id, ownerID, item.title, item.notes, item.status, item.priority, item.createdAt ?? now,
                item.updatedAt ?? item.createdAt ?? now, item.version ?? 1)
        } catch let error as DatabaseError where error.extendedCode == DatabaseError.primaryKeyConstraint {
            throw ImportRowError(
                field: "id",
                message: "an item with ID \(item.id ?? 0) already exists; use --mode upsert to update it, "
                    + "or leave the ID out to add a new item")
        } catch let error as DatabaseError where error.extendedCode == DatabaseError.foreignKeyConstraint {
            throw ImportRowError(field: "user", message: "the owner does not exist; import the users first")
        } catch let error as DatabaseError {
            throw ImportRowError(field: nil, message: StoreError(error).message)
        }
        try markSeen(connection.lastInsertRowID)
        return .inserted
    }

    private func markSeen(_ id: Int64) throws {
        guard mode == .replace else { return }
        try connection.cachedStatement("INSERT OR IGNORE INTO temp.shelf_import_seen (id) VALUES (?)").bindAndRun(id)
    }

    private func run<each Value: SQLBindable>(_ sql: String, field: String?, _ values: repeat each Value) throws {
        do {
            try connection.cachedStatement(sql).bindAndRun(repeat each values)
        } catch let error as DatabaseError where error.extendedCode == DatabaseError.foreignKeyConstraint {
            throw ImportRowError(field: field, message: "the owner does not exist; import the users first")
        } catch let error as DatabaseError where error.extendedCode == DatabaseError.uniqueConstraint {
            throw ImportRowError(field: "email", message: "another user already has this email")
        } catch let error as DatabaseError {
            throw ImportRowError(field: nil, message: StoreError(error).message)
        }
    }
}

extension Statement {
    fileprivate func bindAndRun<each Value: SQLBindable>(_ values: repeat each Value) throws {
        defer { reset() }
        try bind(repeat each values)
        try run()
    }
}

/// Signals a finished dry run, so the transaction rolls back; carries the result out.
struct DryRunFinished<T: Sendable>: Error {
    let result: T
}
