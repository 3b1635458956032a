#if PostgreSQL
    internal import Foundation
    internal import PostgresNIO
    package import ShelfStore

    extension PostgresBackend: TokenStorage {
        private static let tokenColumns =
            "t.name, t.user_id, u.email, t.read_only, t.created_at FROM api_tokens t JOIN users u ON u.id = t.user_id"

        package func insertToken(name: String, userID: User.ID, hash: String, readOnly: Bool) async throws {
            if let problem = APIToken.nameProblem(name) { throw StoreError(.invalidValue, problem) }
            let now = Date().postgresMilliseconds
            let user = userID.rawValue
            // `write`, not `read`: a read lost with its connection is tried again, a write never.
            try await pool.write { connection in
                let taken = try await connection.query(
                    "SELECT 1 FROM api_tokens WHERE name = \(name)", logger: .silent
                ).collect().count
                if taken > 0 {
                    throw StoreError(
                        .invalidValue, "a token named '\(name)' exists; give another --name, or revoke it first")
                }
                let inserted = try await connection.query(
                    """
                    INSERT INTO api_tokens (name, user_id, token_hash, read_only, created_at)
                    SELECT \(name), id, \(hash), \(readOnly), \(now) FROM users WHERE id = \(user) RETURNING id
                    """, logger: .silent
                ).collect().count
                if inserted == 0 { throw StoreError(.unknownUser, "no user has the ID \(user)") }
            }
        }

        package func tokens() async throws -> [APIToken] {
            try await pool.read { connection in
                try await Self.tokens(
                    PostgresQuery(unsafeSQL: "SELECT \(Self.tokenColumns) ORDER BY t.name COLLATE \"C\""), connection)
            }
        }

        package func revokeToken(named name: String) async throws -> Bool {
            try await pool.write { connection in
                try await connection.query("DELETE FROM api_tokens WHERE name = \(name) RETURNING id", logger: .silent)
                    .collect().count > 0
            }
        }

        package func token(hash: String) async throws -> APIToken? {
            var bindings = PostgresBindings()
            bindings.append(hash)
            let query = PostgresQuery(unsafeSQL: "SELECT \(Self.tokenColumns) WHERE t.token_hash = $1", binds: bindings)
            return try await pool.read { connection in try await Self.tokens(query, connection).first }
        }

        package func hasTokens() async throws -> Bool {
            try await pool.read { connection in
                try await connection.query("SELECT 1 FROM api_tokens LIMIT 1", logger: .silent).collect().count > 0
            }
        }

        private static func tokens(_ query: PostgresQuery, _ connection: PostgresConnection) async throws -> [APIToken]
        {
            var tokens: [APIToken] = []
            for try await (name, user, email, readOnly, created) in try await connection.query(query, logger: .silent)
                .decode((String, Int64, String, Bool, Int64).self)
            {
                tokens.append(
                    APIToken(
                        name: name, userID: User.ID(user), email: email, readOnly: readOnly,
                        createdAt: Date(postgresMilliseconds: created)))
            }
            return tokens
        }
    }
#endif
