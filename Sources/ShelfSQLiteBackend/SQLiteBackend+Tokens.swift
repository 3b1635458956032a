internal import Foundation
internal import ShelfSQLite
internal import ShelfStore

extension SQLiteBackend: TokenStorage {
    private static let tokenColumns =
        "t.name, t.user_id, u.email, t.read_only, t.created_at FROM api_tokens t JOIN users u ON u.id = t.user_id"

    func insertToken(name: String, userID: User.ID, hash: String, readOnly: Bool) async throws {
        if let problem = APIToken.nameProblem(name) { throw StoreError(.invalidValue, problem) }
        try await database.storeWrite { connection in
            try StoreError.translating {
                if try connection.fetchOne("SELECT 1 FROM api_tokens WHERE name = ?", name, row: { _ in true }) != nil {
                    throw StoreError(
                        .invalidValue, "a token named '\(name)' exists; give another --name, or revoke it first")
                }
                if try connection.fetchOne("SELECT 1 FROM users WHERE id = ?", userID, row: { _ in true }) == nil {
                    throw StoreError(.unknownUser, "no user has the ID \(userID.rawValue)")
                }
                try connection.run(
                    "INSERT INTO api_tokens (name, user_id, token_hash, read_only, created_at) VALUES (?, ?, ?, ?, ?)",
                    name, userID, hash, readOnly, Date())
            }
        }
    }

    func tokens() async throws -> [APIToken] {
        try await database.storeRead { connection in
            try StoreError.translating {
                try connection.fetch("SELECT \(Self.tokenColumns) ORDER BY t.name", row: Self.token(row:))
            }
        }
    }

    func revokeToken(named name: String) async throws -> Bool {
        try await database.storeWrite { connection in
            try StoreError.translating {
                try connection.run("DELETE FROM api_tokens WHERE name = ?", name)
                return connection.changes > 0
            }
        }
    }

    func token(hash: String) async throws -> APIToken? {
        try await database.storeRead { connection in
            try StoreError.translating {
                try connection.fetchOne(
                    "SELECT \(Self.tokenColumns) WHERE t.token_hash = ?", hash, row: Self.token(row:))
            }
        }
    }

    func hasTokens() async throws -> Bool {
        // One statement: it reads one snapshot without BEGIN and ROLLBACK (asked per request).
        try await database.storeRead(transaction: false) { connection in
            try StoreError.translating {
                try connection.fetchOne("SELECT 1 FROM api_tokens LIMIT 1", row: { _ in true }) != nil
            }
        }
    }

    private static func token(row: Row) throws -> APIToken {
        let id: Int64 = try row.get(1)
        return APIToken(
            name: try row.get(0), userID: User.ID(id), email: try row.get(2), readOnly: try row.get(3),
            createdAt: try row.get(4))
    }
}
