public import Foundation

/// A thing a user keeps on their shelf.
///
/// `version` starts at 1 and grows by one with every update; `update` refuses an item whose
/// version is no longer the stored one (optimistic concurrency).
public struct Item: Identifiable, Hashable, Sendable, Codable {
    public typealias ID = Identifier<Item>

    /// Whether an item is still to do.
    public enum Status: String, Hashable, Sendable, Codable, CaseIterable {
        case open
        case done
    }

    /// The lowest and highest priority an item may have.
    public static let priorities: ClosedRange<Int> = 0...3

    public let id: ID
    public var userID: User.ID
    /// Never empty nor only white space.
    public var title: String
    public var notes: String?
    public var status: Status
    /// In `Item.priorities`; higher is more urgent.
    public var priority: Int
    public let createdAt: Date
    public let updatedAt: Date
    public let version: Int64

    public init(
        id: ID, userID: User.ID, title: String, notes: String?, status: Status, priority: Int,
        createdAt: Date, updatedAt: Date, version: Int64
    ) {
        self.id = id
        self.userID = userID
        self.title = title
        self.notes = notes
        self.status = status
        self.priority = priority
        self.createdAt = createdAt
        self.updatedAt = updatedAt
        self.version = version
    }
}

/// The fields of an item not yet stored; the store assigns the ID, times and version.
public struct NewItem: Hashable, Sendable, Codable {
    public var userID: User.ID
    public var title: String
    public var notes: String?
    public var status: Item.Status
    public var priority: Int
    /// When nil, the store uses the time of the insert (imports pass the original time).
    public var createdAt: Date?

    public init(
        userID: User.ID, title: String, notes: String? = nil, status: Item.Status = .open,
        priority: Int = 0, createdAt: Date? = nil
    ) {
        self.userID = userID
        self.title = title
        self.notes = notes
        self.status = status
        self.priority = priority
        self.createdAt = createdAt
    }
}
