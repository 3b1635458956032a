#if PostgreSQL
    internal import Foundation
    internal import PostgresNIO
    package import ShelfStore

    /// `UserRepository` over a PostgreSQL store. Emails are unique with letter case ignored in
    /// every script (the unique index `users_by_email_key` on `Email.key`, as on SQLite); the
    /// older index `user_email_unique` (ASCII letters folded) refuses nothing more.
    package final class PostgresUserRepository: UserRepository {
        let pool: PostgresPool

        package init(pool: PostgresPool) {
            self.pool = pool
        }

        static let columns = "id, name, email, created_at"
        /// The order users are listed in: by name (ASCII letter case ignored), then by ID.
        static let nameOrder = "shelf_fold(name) COLLATE \"C\", id"

        @discardableResult
        package func insert(_ user: NewUser) async throws -> User.ID {
            try await insert(contentsOf: [user])[0]
        }

        @discardableResult
        package func insert(contentsOf users: [NewUser]) async throws -> [User.ID] {
            // Checked before the transaction: a refused user writes nothing.
            let emails = try NewUser.checkedEmails(of: users)
            let now = Date().postgresMilliseconds
            if users.count > 1 {
                do {
                    return try await pool.transaction { connection in
                        try await Self.refuseKeylessTwins(of: emails.map(Email.key), on: connection)
                        let ids = try await Self.nextIDs(users.count, table: "users", on: connection)
                        let names = users.map(\.name)
                        let keys = emails.map(Email.key)
                        let created = users.map { $0.createdAt?.postgresMilliseconds ?? now }
                        try await connection.query(
                            """
                            INSERT INTO users (id, name, email, email_key, created_at)
                            SELECT * FROM unnest(\(ids), \(names), \(emails), \(keys), \(created))
                            """, logger: .silent)
                        return ids.map { User.ID($0) }
                    }
                } catch let error as StoreError where error.code == .invalidValue || error.code == .duplicateEmail {
                    // Nothing was written; the row-by-row insert below fails again, naming the row.
                }
            }
            return try await pool.transaction { connection in
                try await Self.refuseKeylessTwins(of: emails.map(Email.key), on: connection)
                var ids: [User.ID] = []
                ids.reserveCapacity(users.count)
                for (offset, user) in users.enumerated() {
                    do {
                        let rows = try await connection.query(
                            """
                            INSERT INTO users (name, email, email_key, created_at)
                            VALUES (\(user.name), \(emails[offset]), \(Email.key(emails[offset])),
                                \(user.createdAt?.postgresMilliseconds ?? now))
                            RETURNING id
                            """, logger: .silent)
                        for try await id in rows.decode(Int64.self) { ids.append(User.ID(id)) }
                    } catch {
                        throw SubjectError(subject: Self.subject(offset, of: users.count), error: error)
                    }
                }
                return ids
            }
        }

        /// `count` new IDs from `table`'s sequence, ascending.
        static func nextIDs(_ count: Int, table: String, on connection: PostgresConnection) async throws -> [Int64] {
            var ids: [Int64] = []
            ids.reserveCapacity(count)
            let rows = try await connection.query(
                PostgresQuery(
                    unsafeSQL: "SELECT nextval(pg_get_serial_sequence('\(table)', 'id')) FROM generate_series(1, $1)",
                    binds: binds(Int64(count))),
                logger: .silent)
            for try await id in rows.decode(Int64.self) { ids.append(id) }
            return ids.sorted()
        }

        /// "user 3 of 10" in a batch; nil for a batch of one.
        private static func subject(_ offset: Int, of count: Int) -> String? {
            count == 1 ? nil : "user \(offset + 1) of \(count)"
        }

        package func update(_ user: User) async throws {
            try await update(user, expected: nil)
        }

        package func update(_ user: User, expecting expected: User) async throws {
            try await update(user, expected: expected)
        }

        private func update(_ user: User, expected: User?) async throws {
            try TextLimits.check(name: user.name)
            let email = try Email.normalized(user.email)
            let key = Email.key(email)
            let outcome = try await pool.transaction { connection -> (found: Int, exists: Bool) in
                try await Self.refuseKeylessTwins(of: [key], except: user.id, on: connection)
                let found: Int
                if let expected {
                    found = try await connection.query(
                        """
                        UPDATE users SET name = \(user.name), email = \(email)
                        WHERE id = \(user.id.rawValue) AND name = \(expected.name) AND email = \(expected.email)
                        RETURNING id
                        """,
                        logger: .silent
                    ).collect().count
                } else {
                    found = try await connection.query(
                        "UPDATE users SET name = \(user.name), email = \(email) WHERE id = \(user.id.rawValue) RETURNING id",
                        logger: .silent
                    ).collect().count
                }
                guard found > 0 else {
                    let exists =
                        try await connection.query(
                            "SELECT 1 FROM users WHERE id = \(user.id.rawValue)", logger: .silent
                        ).collect().count > 0
                    return (0, exists)
                }
                // After the email: a changed email drops its key (the schema's trigger, for
                // writers that do not know it); this sets the new one, or refuses a taken one.
                try await connection.query(
                    "UPDATE users SET email_key = \(key) WHERE id = \(user.id.rawValue)", logger: .silent)
                return (found, true)
            }
            try Self.refuseMiss(outcome, id: user.id)
        }

        /// `.conflict` when a compare-and-set found the user changed, `.notFound` when it is gone.
        private static func refuseMiss(_ outcome: (found: Int, exists: Bool), id: User.ID) throws {
            guard outcome.found == 0 else { return }
            if outcome.exists {
                throw StoreError(.conflict, "user \(id) changed since it was read; read it again")
            }
            throw StoreError(.notFound, "user \(id) does not exist (it may have been deleted already)")
        }

        @discardableResult
        package func delete(id: User.ID) async throws -> Int {
            try await delete(id: id, expected: nil)
        }

        @discardableResult
        package func delete(id: User.ID, expecting expected: User) async throws -> Int {
            try await delete(id: id, expected: expected)
        }

        /// One READ COMMITTED transaction: lock the user row (`FOR UPDATE`), delete their items
        /// by a statement of its own, counting them, then the user. Adding an item takes
        /// `FOR KEY SHARE` on its owner's row (the foreign key's check, or the bulk inserts'
        /// own lock), which `FOR UPDATE` conflicts with: inserts in progress finish before the
        /// lock is granted, and the items' DELETE, a later statement, reads a snapshot that
        /// holds them; inserts after it wait for this commit and then find the user gone. So
        /// the count is exactly the items that went.
        private func delete(id: User.ID, expected: User?) async throws -> Int {
            let outcome = try await pool.transaction { connection -> (found: Int, exists: Bool, items: Int) in
                let found: Int
                if let expected {
                    found = try await connection.query(
                        """
                        SELECT id FROM users
                        WHERE id = \(id.rawValue) AND name = \(expected.name) AND email = \(expected.email) FOR UPDATE
                        """,
                        logger: .silent
                    ).collect().count
                } else {
                    found = try await connection.query(
                        "SELECT id FROM users WHERE id = \(id.rawValue) FOR UPDATE", logger: .silent
                    ).collect().count
                }
                guard found > 0 else {
                    let exists =
                        try await connection.query(
                            "SELECT 1 FROM users WHERE id = \(id.rawValue)", logger: .silent
                        ).collect().count > 0
                    return (0, exists, 0)
                }
                var items: Int64 = 0
                for try await count in try await connection.query(
                    "WITH gone AS (DELETE FROM items WHERE user_id = \(id.rawValue) RETURNING 1) SELECT count(*) FROM gone",
                    logger: .silent
                ).decode(Int64.self) {
                    items = count
                }
                try await connection.query("DELETE FROM users WHERE id = \(id.rawValue)", logger: .silent)
                return (found, true, Int(items))
            }
            try Self.refuseMiss((outcome.found, outcome.exists), id: id)
            return outcome.items
        }

        package func user(id: User.ID) async throws -> User? {
            try await pool.read { connection in
                try await Self.users(
                    PostgresQuery(
                        unsafeSQL: "SELECT \(Self.columns) FROM users WHERE id = $1",
                        binds: Self.binds(id.rawValue)),
                    on: connection
                ).first
            }
        }

        package func user(email: String) async throws -> User? {
            let normalized = Email.lookupKey(email)
            let key = Email.key(email)
            return try await pool.read { connection in
                // As on SQLite: the email exactly as stored first, then by its key, then (a row
                // stored before normalization, or left without a key) ASCII letter case ignored.
                try await Self.users(
                    PostgresQuery(
                        unsafeSQL: """
                            SELECT \(Self.columns) FROM users
                            WHERE email_key = $3
                                OR shelf_fold(email) COLLATE "C" = shelf_fold($1) COLLATE "C"
                                OR shelf_fold(email) COLLATE "C" = shelf_fold($2) COLLATE "C"
                            ORDER BY email = $1 COLLATE "C" DESC, (email_key = $3) IS TRUE DESC,
                                shelf_fold(email) COLLATE "C" = shelf_fold($1) COLLATE "C" DESC
                            LIMIT 1
                            """,
                        binds: Self.binds(normalized, email, key)),
                    on: connection
                ).first
            }
        }

        package func users() async throws -> [User] {
            try await pool.read { connection in try await Self.users(on: connection) }
        }

        /// All users in name order.
        static func users(on connection: PostgresConnection) async throws -> [User] {
            try await users(
                PostgresQuery(unsafeSQL: "SELECT \(columns) FROM users ORDER BY \(nameOrder)"), on: connection)
        }

        /// Every user with their item counts, in name order.
        static func summaries(on connection: PostgresConnection) async throws -> [UserSummary] {
            var summaries: [UserSummary] = []
            let rows = try await connection.query(
                PostgresQuery(
                    unsafeSQL: """
                        SELECT u.id, u.name, u.email, u.created_at, coalesce(c.total, 0), coalesce(c.open, 0)
                        FROM users u
                        LEFT JOIN (
                            SELECT user_id, count(*) AS total, count(*) FILTER (WHERE status = 'open') AS open
                            FROM items GROUP BY user_id
                        ) AS c ON c.user_id = u.id
                        ORDER BY shelf_fold(u.name) COLLATE "C", u.id
                        """), logger: .silent)
            for try await (id, name, email, created, total, open) in rows.decode(
                (Int64, String, String, Int64, Int64, Int64).self)
            {
                let user = User(
                    id: User.ID(id), name: name, email: email, createdAt: Date(postgresMilliseconds: created))
                summaries.append(UserSummary(user: user, itemCount: Int(total), openCount: Int(open)))
            }
            return summaries
        }

        static func users(_ query: PostgresQuery, on connection: PostgresConnection) async throws -> [User] {
            var users: [User] = []
            let rows = try await connection.query(query, logger: .silent)
            for try await (id, name, email, created) in rows.decode((Int64, String, String, Int64).self) {
                users.append(
                    User(
                        id: User.ID(id), name: name, email: email,
                        createdAt: Date(postgresMilliseconds: created)))
            }
            return users
        }

        static func binds<each Value: PostgresDynamicTypeEncodable>(_ values: repeat each Value) -> PostgresBindings {
            var bindings = PostgresBindings()
            repeat bindings.append(each values)
            return bindings
        }
    }
#endif
