public import Foundation

/// A person who owns items. Emails are unique regardless of letter case.
public struct User: Identifiable, Hashable, Sendable, Codable {
    public typealias ID = Identifier<User>

    public let id: ID
    public var name: String
    public var email: String
    public let createdAt: Date

    public init(id: ID, name: String, email: String, createdAt: Date) {
        self.id = id
        self.name = name
        self.email = email
        self.createdAt = createdAt
    }
}

/// The fields of a user not yet stored; the store assigns the ID.
public struct NewUser: Hashable, Sendable, Codable {
    public var name: String
    public var email: String
    /// When nil, the store uses the time of the insert.
    public var createdAt: Date?

    public init(name: String, email: String, createdAt: Date? = nil) {
        self.name = name
        self.email = email
        self.createdAt = createdAt
    }
}
