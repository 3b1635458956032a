#if PostgreSQL
    internal import Foundation
    internal import PostgresNIO
    internal import ShelfStore

    /// Writes the rows of one import one at a time, inside `apply`'s transaction on the
    /// session's connection: the PostgreSQL twin of the SQLite store's `ImportWriter`, with the
    /// same outcomes and messages.
    ///
    /// Each row runs in a savepoint: a row the store refuses is rolled back alone, and the
    /// transaction goes on. It keeps nothing per row in memory (replace mode notes the IDs it
    /// wrote in the TEMP table `shelf_import_seen`).
    struct PostgresImportWriter {
        let session: PostgresImportSession
        let mode: ImportMode
        /// The time of rows without one: one time for the whole import.
        let now = Date().postgresMilliseconds

        init(session: PostgresImportSession, mode: ImportMode) {
            self.session = session
            self.mode = mode
        }

        // MARK: Users

        func write(_ user: ImportedUser) throws -> ImportRowOutcome {
            let existing = mode == .insert ? nil : try session.userID(email: user.email)
            if let existing {
                if let id = user.id, id != existing {
                    throw ImportRowError(
                        field: "id",
                        message: "the email \(user.email) belongs to user \(existing), not \(id); "
                            + "fix the ID or leave it out")
                }
                let changed = try run(
                    """
                    UPDATE users SET name = \(user.name), email = \(user.email),
                        created_at = coalesce(\(user.createdAt), created_at)
                    WHERE id = \(existing) AND NOT (name = \(user.name) AND email = \(user.email)
                        AND created_at = coalesce(\(user.createdAt), created_at))
                    RETURNING id
                    """, field: nil)
                // A changed email dropped the key (the schema's trigger): the same key again, as
                // the user is the same. Not for a user left without one (`EmailCollision`).
                let key = StageText.withoutNUL(Email.key(user.email))
                _ = try run(
                    """
                    UPDATE users SET email_key = \(key) WHERE id = \(existing) AND email_key IS NULL
                        AND NOT EXISTS (SELECT 1 FROM users WHERE email_key = \(key))
                    """, field: nil)
                try markSeen(existing)
                return changed.isEmpty ? .unchanged : .updated
            }
            let inserted: [PostgresRow]
            do {
                inserted = try inSavepoint {
                    try session.rawQuery(
                        """
                        INSERT INTO users (id, name, email, email_key, created_at)
                        VALUES (coalesce(\(user.id), nextval(pg_get_serial_sequence('users', 'id'))), \(user.name),
                            \(user.email), \(StageText.withoutNUL(Email.key(user.email))), \(user.createdAt ?? now))
                        RETURNING id
                        """)
                }
            } catch let error where StoreError.sqlState(of: error) == "23505" {
                if ["user_email_unique", "users_by_email_key"].contains(StoreError.constraintName(of: error)) {
                    throw ImportRowError(
                        field: "email",
                        message: "a user with the email \(user.email) already exists; "
                            + "use --mode upsert to update it, or remove the row")
                }
                throw ImportRowError(
                    field: "id",
                    message:
                        "user ID \(user.id ?? 0) already belongs to another user; leave the ID out to get a new one"
                )
            } catch  where PostgresImportSession.isRowRefusal(error) {
                throw ImportRowError(field: nil, message: StoreError(postgres: error, at: session.place).message)
            }
            let id = try inserted.first?.decode(Int64.self) ?? 0
            try markSeen(id)
            return .inserted
        }

        // MARK: Items

        func write(_ item: ImportedItem) throws -> ImportRowOutcome {
            let ownerID: Int64
            switch item.owner {
            case .id(let id): ownerID = id
            case .email(let email):
                guard let id = try session.userID(email: email) else {
                    throw ImportRowError(
                        field: "user",
                        message: "no user has this email; import the users first (shelf import users FILE) "
                            + "or add this one (shelf users add --name NAME --email EMAIL)")
                }
                ownerID = id
            }
            let priority = Int64(item.priority)
            let status = item.status.rawValue
            if mode != .insert, let id = item.id {
                let changed = try run(
                    """
                    UPDATE items SET user_id = \(ownerID), title = \(item.title), notes = \(item.notes),
                        status = \(status), priority = \(priority),
                        created_at = coalesce(\(item.createdAt), created_at),
                        updated_at = coalesce(\(item.updatedAt), greatest(\(now), updated_at)),
                        version = version + 1
                    WHERE id = \(id) AND NOT (user_id = \(ownerID) AND title = \(item.title)
                        AND notes IS NOT DISTINCT FROM \(item.notes) AND status = \(status) AND priority = \(priority)
                        AND created_at = coalesce(\(item.createdAt), created_at)
                        AND updated_at = coalesce(\(item.updatedAt), updated_at))
                    RETURNING id
                    """, field: "user")
                if !changed.isEmpty {
                    try markSeen(id)
                    return .updated
                }
                if try session.scalar("SELECT 1 FROM items WHERE id = \(id)") != nil {
                    try markSeen(id)
                    return .unchanged
                }
            }
            let inserted: [PostgresRow]
            do {
                inserted = try inSavepoint {
                    try session.rawQuery(
                        """
                        INSERT INTO items (id, user_id, title, notes, status, priority, created_at, updated_at, version)
                        VALUES (coalesce(\(item.id), nextval(pg_get_serial_sequence('items', 'id'))), \(ownerID),
                            \(item.title), \(item.notes), \(status), \(priority), \(item.createdAt ?? now),
                            \(item.updatedAt ?? item.createdAt ?? now), 1)
                        RETURNING id
                        """)
                }
            } catch let error where StoreError.sqlState(of: error) == "23505" {
                throw ImportRowError(
                    field: "id",
                    message: "an item with ID \(item.id ?? 0) already exists; use --mode upsert to update it, "
                        + "or leave the ID out to add a new item")
            } catch let error where StoreError.sqlState(of: error) == "23503" {
                throw ImportRowError(field: "user", message: "the owner does not exist; import the users first")
            } catch  where PostgresImportSession.isRowRefusal(error) {
                throw ImportRowError(field: nil, message: StoreError(postgres: error, at: session.place).message)
            }
            let id = try inserted.first?.decode(Int64.self) ?? 0
            try markSeen(id)
            return .inserted
        }

        // MARK: Helpers

        private func markSeen(_ id: Int64) throws {
            guard mode == .replace else { return }
            _ = try session.query("INSERT INTO shelf_import_seen (id) VALUES (\(id)) ON CONFLICT DO NOTHING")
        }

        /// Runs `body` in a savepoint, rolled back when it throws: the transaction stays usable.
        private func inSavepoint<T>(_ body: () throws -> T) throws -> T {
            try session.execute("SAVEPOINT shelf_row")
            do {
                let value = try body()
                try session.execute("RELEASE SAVEPOINT shelf_row")
                return value
            } catch {
                try session.execute("ROLLBACK TO SAVEPOINT shelf_row")
                throw error
            }
        }

        /// Runs an update in a savepoint, turning a refusal into an `ImportRowError` that
        /// blames `field` for a missing owner.
        private func run(_ sql: PostgresQuery, field: String?) throws -> [PostgresRow] {
            do {
                return try inSavepoint { try session.rawQuery(sql) }
            } catch let error where StoreError.sqlState(of: error) == "23503" {
                throw ImportRowError(field: field, message: "the owner does not exist; import the users first")
            } catch let error where StoreError.sqlState(of: error) == "23505" {
                throw ImportRowError(field: "email", message: "another user already has this email")
            } catch  where PostgresImportSession.isRowRefusal(error) {
                throw ImportRowError(field: nil, message: StoreError(postgres: error, at: session.place).message)
            } catch {
                throw StoreError(postgres: error, at: session.place)
            }
        }
    }
#endif
