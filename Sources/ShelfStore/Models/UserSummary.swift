internal import ShelfSQLite

/// A user with how many items they own.
public struct UserSummary: Hashable, Sendable, Identifiable {
    /// The user.
    public let user: User
    /// All the user's items.
    public let itemCount: Int
    /// The user's items that are still open.
    public let openCount: Int

    /// The user's ID.
    public var id: User.ID { user.id }

    /// A summary from its parts; the store makes them with `liveUserSummaries()`.
    public init(user: User, itemCount: Int, openCount: Int) {
        self.user = user
        self.itemCount = itemCount
        self.openCount = openCount
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
