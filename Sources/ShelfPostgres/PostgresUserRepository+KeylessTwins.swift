#if PostgreSQL
    internal import Foundation
    internal import PostgresNIO
    internal import ShelfStore

    extension PostgresUserRepository {
        /// The twin of `SQLiteUserRepository.refuseKeylessTwins`: inside the write's
        /// transaction, refuses an email whose key is that of a user without a key (added by
        /// another program while this store was open, or left without one by a collision),
        /// which the unique index on `email_key` does not see.
        static func refuseKeylessTwins(
            of keys: [String], except: User.ID? = nil, on connection: PostgresConnection
        ) async throws {
            if let except, keys.count == 1 {
                let rows = try await connection.query(
                    "SELECT email_key FROM users WHERE id = \(except.rawValue)", logger: .silent)
                for try await key in rows.decode(String?.self) where key == keys[0] { return }
            }
            let rows = try await connection.query(
                "SELECT id, email FROM users WHERE email_key IS NULL", logger: .silent)
            let wanted = Set(keys)
            for try await (id, email) in rows.decode((Int64, String).self)
            where id != except?.rawValue && wanted.contains(Email.key(email)) {
                throw StoreError(
                    .duplicateEmail, "a user with that email already exists; use another email or update that user")
            }
        }
    }
#endif
