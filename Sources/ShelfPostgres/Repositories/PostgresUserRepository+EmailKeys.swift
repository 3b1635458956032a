#if PostgreSQL
    internal import Foundation
    internal import PostgresNIO
    internal import ShelfStore

    extension PostgresUserRepository {
        /// Gives every user without an email key its key (`Email.key`), and returns the users
        /// it could not give one because an older user has it: run on `connection` when the
        /// store opens, after the migrations (see Migrations/postgres/0004). The same rule as
        /// `SQLiteUserRepository.fillEmailKeys`: collisions are reported, never merged nor
        /// refused, and checked again at every open until one of the emails changes.
        ///
        /// Each key is set by its own statement, so two processes opening the store at once
        /// both succeed: a key the other one set first makes the row a collision, not an error.
        static func fillEmailKeys(on connection: PostgresConnection) async throws -> [EmailCollision] {
            var unkeyed: [(Int64, String)] = []
            let rows = try await connection.query(
                "SELECT id, email FROM users WHERE email_key IS NULL ORDER BY id", logger: .silent)
            for try await (id, email) in rows.decode((Int64, String).self) { unkeyed.append((id, email)) }
            var collisions: [EmailCollision] = []
            for (id, email) in unkeyed {
                let key = Email.key(email)
                // Set only when no other user has the key; otherwise the query names the holder.
                do {
                    let holders = try await connection.query(
                        """
                        WITH holder AS (SELECT id, email FROM users WHERE email_key = \(key) AND id <> \(id)),
                        keyed AS (
                            UPDATE users SET email_key = \(key)
                            WHERE id = \(id) AND email_key IS NULL AND NOT EXISTS (SELECT 1 FROM holder)
                            RETURNING id
                        )
                        SELECT id, email FROM holder
                        """, logger: .silent
                    ).collect()
                    for row in holders {
                        let (holder, held) = try row.decode((Int64, String).self)
                        collisions.append(
                            EmailCollision(user: User.ID(id), email: email, keptBy: User.ID(holder), keptEmail: held))
                    }
                } catch let error as PSQLError where error.serverInfo?[.sqlState] == "23505" {
                    // Another process opening the store keyed a colliding user meanwhile: this
                    // row stays without a key, and the next open reports it.
                    continue
                }
            }
            return collisions
        }
    }
#endif
