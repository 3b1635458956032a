public import Foundation

/// A thing a user keeps on their shelf.
///
/// `version` starts at 1 and grows by one with every update; `update` refuses an item whose
/// version is no longer the stored one (optimistic concurrency).
public struct Item: Identifiable, Hashable, Sendable, Codable {
    /// An item's typed ID.
    public typealias ID = Identifier<Item>

    /// Whether an item is still to do.
    public enum Status: String, Hashable, Sendable, Codable, CaseIterable {
        /// Still to do.
        case open
        /// Done.
        case done
    }

    /// The lowest and highest priority an item may have.
    public static let priorities: ClosedRange<Int> = 0...3

    /// Assigned by the store.
    public let id: ID
    /// The owner; deleting the user deletes the item.
    public var userID: User.ID
    /// Never empty nor only white space.
    public var title: String
    /// Free-form text, searched with the title.
    public var notes: String?
    /// Open or done.
    public var status: Status
    /// In `Item.priorities`; higher is more urgent.
    public var priority: Int
    /// When the item was stored (millisecond precision).
    public let createdAt: Date
    /// When the item was last saved.
    public let updatedAt: Date
    /// Grows by one with every update; `update` checks it.
    public let version: Int64

    /// An item as stored; to add one, insert a `NewItem`.
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
    /// The owner, who must exist.
    public var userID: User.ID
    /// Must not be empty nor only white space.
    public var title: String
    /// Free-form text, searched with the title.
    public var notes: String?
    /// Open or done.
    public var status: Item.Status
    /// In `Item.priorities`.
    public var priority: Int
    /// When nil, the store uses the time of the insert (imports pass the original time).
    public var createdAt: Date?

    /// An item to insert.
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
