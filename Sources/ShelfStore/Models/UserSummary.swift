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
