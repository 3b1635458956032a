public import Foundation

/// Which items to list, and in what order.
///
/// Every field narrows the result; the default query lists all items, newest first.
/// Orderings are total: ties on the sort field are broken by ID in the same direction, so
/// keyset pages never skip nor repeat an item.
public struct ItemQuery: Hashable, Sendable, Codable {
    /// What a list is ordered by.
    public enum SortField: String, Hashable, Sendable, Codable, CaseIterable {
        /// By `createdAt`, `updatedAt`, `priority` or `title`; ties are broken by ID.
        case created, updated, priority, title
    }

    /// Ascending or descending.
    public enum SortDirection: String, Hashable, Sendable, Codable {
        /// Smallest first (`ascending`) or largest first (`descending`); the ID tie-break follows
        /// the same direction.
        case ascending, descending
    }

    /// Only this user's items, when set.
    public var owner: User.ID?
    /// Only items with this status, when set.
    public var status: Item.Status?
    /// Words typed by a person, matched against title and notes. Every word must match, as
    /// a prefix ("mot" finds "moth"). Punctuation and operators are plain text here: no input
    /// raises an error or changes the meaning of the query. Text without a single letter or
    /// digit (empty, spaces, only punctuation) does not filter.
    public var text: String
    /// What the list is ordered by; ties are ordered by ID.
    public var sortField: SortField
    /// Ascending or descending, for the sort field and its ID tie-break alike.
    public var sortDirection: SortDirection

    /// A query; every argument left out does not filter.
    public init(
        owner: User.ID? = nil, status: Item.Status? = nil, text: String = "",
        sortField: SortField = .created, sortDirection: SortDirection = .descending
    ) {
        self.owner = owner
        self.status = status
        self.text = text
        self.sortField = sortField
        self.sortDirection = sortDirection
    }
}

/// A position in an ordered item list: the sort values of one item and its ID.
///
/// Make one from an item you hold (`ItemCursor(item)`) and ask for the items after or before
/// it. The cursor stays valid when that item changes or is deleted: it marks a place in the
/// order, not a row.
public struct ItemCursor: Hashable, Sendable, Codable {
    /// The item's ID, the tie-break of every ordering.
    public let id: Item.ID
    /// The item's sort values, one per `ItemQuery.SortField`.
    public let createdAt: Date
    /// The item's last change time.
    public let updatedAt: Date
    /// The item's priority.
    public let priority: Int
    /// The item's title.
    public let title: String

    /// The position of `item` in any ordering.
    public init(_ item: Item) {
        id = item.id
        createdAt = item.createdAt
        updatedAt = item.updatedAt
        priority = item.priority
        title = item.title
    }
}
