internal import Foundation
internal import ShelfSQLite

/// `UserRepository` over a SQLite `Store`.
public final class SQLiteUserRepository: UserRepository {
    let database: Database

    init(database: Database) {
        self.database = database
    }

    static let columns = "id, name, email, created_at"

    @discardableResult
    public func insert(_ user: NewUser) async throws -> User.ID {
        try await insert(contentsOf: [user])[0]
    }

    @discardableResult
    public func insert(contentsOf users: [NewUser]) async throws -> [User.ID] {
        try await database.write { connection in
            let now = Date().sqlMillisecondPrecision
            var ids: [User.ID] = []
            for (offset, user) in users.enumerated() {
                try StoreError.translating(subject: users.count == 1 ? nil : "user \(offset + 1) of \(users.count)") {
                    try connection.run(
                        "INSERT INTO users (name, email, created_at) VALUES (?, ?, ?)",
                        user.name, user.email, user.createdAt ?? now)
                }
                ids.append(User.ID(connection.lastInsertRowID))
            }
            return ids
        }
    }

    public func update(_ user: User) async throws {
        try await database.write { connection in
            try StoreError.translating {
                try connection.run("UPDATE users SET name = ?, email = ? WHERE id = ?", user.name, user.email, user.id)
                if connection.changes == 0 {
                    throw StoreError(.notFound, "user \(user.id) does not exist; reload the list of users")
                }
            }
        }
    }

    public func delete(id: User.ID) async throws {
        try await database.write { connection in
            try StoreError.translating {
                try connection.run("DELETE FROM users WHERE id = ?", id)
                if connection.changes == 0 {
                    throw StoreError(.notFound, "user \(id) does not exist (it may have been deleted already)")
                }
            }
        }
    }

    public func user(id: User.ID) async throws -> User? {
        try await database.read { connection in
            try StoreError.translating {
                try connection.fetchOne("SELECT \(Self.columns) FROM users WHERE id = ?", id, row: User.init(row:))
            }
        }
    }

    public func user(email: String) async throws -> User? {
        try await database.read { connection in
            try StoreError.translating {
                try connection.fetchOne(
                    "SELECT \(Self.columns) FROM users WHERE email = ?", email, row: User.init(row:))
            }
        }
    }

    public func users() async throws -> [User] {
        try await database.read { connection in
            try StoreError.translating { try Self.users(connection) }
        }
    }

    static func users(_ connection: Connection) throws -> [User] {
        try connection.fetch(
            "SELECT \(columns) FROM users ORDER BY name COLLATE NOCASE, id", row: User.init(row:))
    }
}

extension User {
    /// Decodes the columns of `SQLiteUserRepository.columns`.
    init(row: Row) throws {
        self.init(id: try row.get(0), name: try row.get(1), email: try row.get(2), createdAt: try row.get(3))
    }
}
