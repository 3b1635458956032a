internal import Foundation
internal import ShelfSQLite
internal import ShelfStore

/// `UserRepository` over a SQLite `Store`.
final class SQLiteUserRepository: UserRepository {
    let database: Database

    init(database: Database) {
        self.database = database
    }

    static let columns = "id, name, email, created_at"

    /// Stores a new user in its own write transaction and returns its ID. The email is
    /// normalized first (see `UserRepository.insert(_:)`); `createdAt` is now when nil.
    /// - Throws: `StoreError` `.duplicateEmail`, `.invalidValue`, `.busy`. Nothing is stored
    ///   when it throws.
    @discardableResult
    public func insert(_ user: NewUser) async throws -> User.ID {
        try await insert(contentsOf: [user])[0]
    }

    /// Stores all `users` in one write transaction and returns their IDs in order. Every email
    /// is checked before the transaction starts; when one user is refused, none is stored and the
    /// message starts with its position ("user 3 of 10: …").
    @discardableResult
    public func insert(contentsOf users: [NewUser]) async throws -> [User.ID] {
        // Checked before the transaction: a refused user writes nothing.
        let emails = try NewUser.checkedEmails(of: users)
        return try await database.storeWrite { connection in
            let now = Date().sqlMillisecondPrecision
            try Self.refuseKeylessTwins(of: emails.map(Email.key), on: connection)
            var ids: [User.ID] = []
            for (offset, user) in users.enumerated() {
                try StoreError.translating(subject: Self.subject(offset, of: users.count)) {
                    try connection.run(
                        "INSERT INTO users (name, email, email_key, created_at) VALUES (?, ?, ?, ?)",
                        user.name, emails[offset], Email.key(emails[offset]), user.createdAt ?? now)
                }
                ids.append(User.ID(connection.lastInsertRowID))
            }
            return ids
        }
    }

    /// "user 3 of 10" in a batch; nil for a batch of one.
    private static func subject(_ offset: Int, of count: Int) -> String? {
        count == 1 ? nil : "user \(offset + 1) of \(count)"
    }

    /// Saves `user`'s name and email (normalized as by `insert`). Users have no version: the
    /// last update wins.
    /// - Throws: `StoreError` `.notFound`, `.duplicateEmail`, `.invalidValue`.
    public func update(_ user: User) async throws {
        try await update(user, expected: nil)
    }

    /// See `UserRepository.update(_:expecting:)`.
    public func update(_ user: User, expecting expected: User) async throws {
        try await update(user, expected: expected)
    }

    private func update(_ user: User, expected: User?) async throws {
        try TextLimits.check(name: user.name)
        let email = try Email.normalized(user.email)
        try await database.storeWrite { connection in
            try Self.refuseKeylessTwins(of: [Email.key(email)], except: user.id, on: connection)
            try StoreError.translating {
                if let expected {
                    try connection.run(
                        "UPDATE users SET name = ?, email = ? WHERE id = ? AND name = ? AND email = ?", user.name,
                        email, user.id, expected.name, expected.email)
                } else {
                    try connection.run("UPDATE users SET name = ?, email = ? WHERE id = ?", user.name, email, user.id)
                }
                if connection.changes == 0 { try Self.missOrConflict(user.id, on: connection) }
                // After the email: a changed email drops its key (the schema's trigger, for
                // writers that do not know it); this sets the new one, or refuses a taken one.
                try connection.run("UPDATE users SET email_key = ? WHERE id = ?", Email.key(email), user.id)
            }
        }
    }

    /// Why a compare-and-set changed no row: `.conflict` when the user exists (it changed
    /// since it was read), `.notFound` when it does not.
    private static func missOrConflict(_ id: User.ID, on connection: Connection) throws -> Never {
        let exists = try connection.fetchOne("SELECT 1 FROM users WHERE id = ?", id, row: { _ in true }) ?? false
        if exists {
            throw StoreError(.conflict, "user \(id) changed since it was read; read it again")
        }
        throw StoreError(.notFound, "user \(id) does not exist (it may have been deleted already)")
    }

    /// Deletes the user with `id` and, with it, all their items, in one write transaction, and
    /// returns how many items went (see `UserRepository.delete(id:)`).
    /// - Throws: `StoreError` `.notFound` when no such user exists.
    @discardableResult
    public func delete(id: User.ID) async throws -> Int {
        try await delete(id: id, expected: nil)
    }

    /// See `UserRepository.delete(id:expecting:)`.
    @discardableResult
    public func delete(id: User.ID, expecting expected: User) async throws -> Int {
        try await delete(id: id, expected: expected)
    }

    /// The user's items are deleted by a statement of their own, before the user, so that
    /// statement's change count is the number that went; the write lock (`BEGIN IMMEDIATE`)
    /// keeps every other writer out until the commit, so no item can be added in between.
    private func delete(id: User.ID, expected: User?) async throws -> Int {
        try await database.storeWrite { connection in
            try StoreError.translating {
                let found: Bool?
                if let expected {
                    found = try connection.fetchOne(
                        "SELECT 1 FROM users WHERE id = ? AND name = ? AND email = ?", id, expected.name,
                        expected.email
                    ) { _ in true }
                } else {
                    found = try connection.fetchOne("SELECT 1 FROM users WHERE id = ?", id) { _ in true }
                }
                if found == nil { try Self.missOrConflict(id, on: connection) }
                try connection.run("DELETE FROM items WHERE user_id = ?", id)
                let items = connection.changes
                try connection.run("DELETE FROM users WHERE id = ?", id)
                return items
            }
        }
    }

    /// The user with `id`, or nil, read from a reader connection.
    public func user(id: User.ID) async throws -> User? {
        try await database.storeRead { connection in
            try StoreError.translating {
                try connection.fetchOne("SELECT \(Self.columns) FROM users WHERE id = ?", id, row: User.init(row:))
            }
        }
    }

    /// The user with `email` (trimmed, NFC-normalized and letter case ignored in every script,
    /// by `Email.key`), or nil. An email stored exactly as given comes first (of two users
    /// whose emails collide, see `EmailCollision`, each is found by its own); an email stored
    /// before normalization existed, or by a program that left it without a key, is also found
    /// (ASCII letter case ignored).
    public func user(email: String) async throws -> User? {
        let normalized = Email.lookupKey(email)
        let key = Email.key(email)
        return try await database.storeRead { connection in
            try StoreError.translating {
                try connection.fetchOne(
                    """
                    SELECT \(Self.columns) FROM users WHERE email_key = ?3 OR email = ?1 OR email = ?2
                    ORDER BY email = ?1 COLLATE BINARY DESC, email_key IS ?3 DESC, email = ?1 DESC LIMIT 1
                    """,
                    normalized, email, key, row: User.init(row:))
            }
        }
    }

    /// All users ordered by name (letter case ignored), then by ID.
    public func users() async throws -> [User] {
        try await database.storeRead { connection in
            try StoreError.translating { try Self.users(connection) }
        }
    }

    /// The order users are listed in: by name (letter case ignored), then by ID.
    static let nameOrder = "name COLLATE NOCASE, id"

    static func users(_ connection: Connection) throws -> [User] {
        try connection.fetch(
            "SELECT \(columns) FROM users ORDER BY \(nameOrder)", row: User.init(row:))
    }
}

extension User {
    /// Decodes the columns of `SQLiteUserRepository.columns`.
    init(row: Row) throws {
        self.init(id: try row.get(0), name: try row.get(1), email: try row.get(2), createdAt: try row.get(3))
    }
}

extension SQLiteUserRepository {
    static func summaries(_ connection: Connection) throws -> [UserSummary] {
        // One pass over the (user_id, …) index for the counts, joined to users by name order.
        try connection.fetch(
            """
            SELECT \(columns), coalesce(c.total, 0), coalesce(c.open, 0)
            FROM users
            LEFT JOIN (
                SELECT user_id, count(*) AS total, sum(status = 'open') AS open FROM items GROUP BY user_id
            ) AS c ON c.user_id = users.id
            ORDER BY users.name COLLATE NOCASE, users.id
            """
        ) { row in
            UserSummary(user: try User(row: row), itemCount: try row.get(4), openCount: try row.get(5))
        }
    }
}
