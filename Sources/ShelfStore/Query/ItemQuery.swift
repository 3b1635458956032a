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
        /// By the owner's name, as a list shows it, with ASCII letter case ignored (as titles
        /// are); ties are broken by the owner's ID, then by the item's ID. Items whose owner is
        /// not a user (only a database whose foreign keys were set aside holds them) come after
        /// every owner in either direction, by ID in the list's direction.
        case owner
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
    /// A query typed by a person, in the language of `ItemQueryText`: words matched as
    /// prefixes in title and notes ("mot" finds "moth"), `"exact phrases"`, `-excluded` words,
    /// `@owner`, `status:done`, `prio:>=2`, `created:<7d`, `updated:>2026-01-01`. It narrows
    /// the list together with `owner` and `status` (both must hold). No input raises an error
    /// or becomes SQL: a part that cannot be understood is left out (`ItemQueryText.problems`
    /// says which), and the rest filters. Text with no term (empty, spaces, only punctuation)
    /// does not filter. Ages (`7d`) count back from the moment the store builds a read's SQL:
    /// every page and count, and every re-read of a live query on SQLite (a live query on
    /// PostgreSQL builds its SQL once, when it starts). A live query re-reads when items
    /// change, not as time passes.
    public var text: String
    /// What the list is ordered by; ties are ordered by ID.
    public var sortField: SortField
    /// Ascending or descending, for the sort field and its ID tie-break alike.
    public var sortDirection: SortDirection
    /// The moment ages in `text` (`created:<7d`) count back from; nil (the default): the moment
    /// the store builds each read's SQL. Set it to read "what matched then" page after page, as
    /// a marked selection (`ItemSelection.now`) does.
    public var agesFrom: Date?

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
    /// The item's owner, the first tie-break of the owner ordering (nil only in cursors
    /// decoded from before it existed; the owner ordering then starts from the first item).
    public let ownerID: User.ID?
    /// The owner's name, the key of the owner ordering, when the cursor was made with it.
    /// When nil (or empty: no user's name is), the store reads the name of `ownerID`; if that
    /// user no longer exists, the cursor stands among the items whose owner is gone, which
    /// the owner ordering shows after every owner, by ID.
    public let ownerName: String?

    /// The position of `item` in any ordering. In the owner ordering the store looks the
    /// owner's name up as it reads; use `init(_:ownerName:)` when you have it.
    public init(_ item: Item) {
        id = item.id
        createdAt = item.createdAt
        updatedAt = item.updatedAt
        priority = item.priority
        title = item.title
        ownerID = item.userID
        ownerName = nil
    }

    /// The position of `item` in any ordering, with its owner's name (`User.name`), so that
    /// the owner ordering stays put even if the owner is renamed or deleted meanwhile.
    public init(_ item: Item, ownerName: String) {
        id = item.id
        createdAt = item.createdAt
        updatedAt = item.updatedAt
        priority = item.priority
        title = item.title
        ownerID = item.userID
        self.ownerName = ownerName
    }
}
