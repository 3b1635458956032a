public import Foundation

/// A person who owns items. Emails are unique regardless of letter case.
public struct User: Identifiable, Hashable, Sendable, Codable {
    /// A user's typed ID.
    public typealias ID = Identifier<User>

    /// Assigned by the store.
    public let id: ID
    /// Never empty.
    public var name: String
    /// Unique among users, letter case ignored. Stored trimmed and in Unicode NFC; never holds
    /// control, line-separator or text-direction characters.
    public var email: String
    /// When the user was stored (millisecond precision).
    public let createdAt: Date

    /// A user as stored; to add one, insert a `NewUser`.
    public init(id: ID, name: String, email: String, createdAt: Date) {
        self.id = id
        self.name = name
        self.email = email
        self.createdAt = createdAt
    }
}

/// The fields of a user not yet stored; the store assigns the ID.
public struct NewUser: Hashable, Sendable, Codable {
    /// The user's name; must not be empty.
    public var name: String
    /// The user's email; normalized and checked when inserted (see `UserRepository.insert(_:)`).
    public var email: String
    /// When nil, the store uses the time of the insert.
    public var createdAt: Date?

    /// A user to insert.
    public init(name: String, email: String, createdAt: Date? = nil) {
        self.name = name
        self.email = email
        self.createdAt = createdAt
    }
}
