public import Foundation

/// A set of items described rather than listed: every item that matches `query` (when set),
/// except `excluded`, plus the items of `included`.
///
/// What the browser's marks are: `M` marks "all that match" in one step whatever the count,
/// and marking or unmarking one item afterwards only adds an ID to one of the two sets. The
/// store answers for it with set-based SQL (`ItemRepository.count(in:status:)`,
/// `ItemRepository.updateItems(in:_:progress:)`): no list of a million IDs is ever held.
///
/// Ages in the query (`created:<7d`) count back from `now`, the moment it was marked, so the
/// selection does not drift as time passes. Items deleted since are simply not found; an item
/// whose fields changed so that it no longer matches leaves the selection (unless it is in
/// `included`). Items added after it was marked are not selected when `through` is set (the
/// highest ID when marked): what a confirmation counted is what a bulk action changes. A plain
/// value.
public struct ItemSelection: Hashable, Sendable {
    /// Every item matching it is selected (less `excluded`); nil selects only `included`.
    public var query: ItemQuery?
    /// The moment the query's ages count back from.
    public var now: Date
    /// Items matching `query` that are not selected.
    public var excluded: Set<Item.ID>
    /// Items selected whether or not they match `query`.
    public var included: Set<Item.ID>
    /// When set, items matching `query` with a higher ID are not selected: the highest item ID
    /// when the query was marked, so items added after (by anyone) stay out. IDs are never
    /// reused. `included` is not bounded by it.
    public var through: Item.ID?

    /// The items with `ids`, and no others.
    public init(ids: some Sequence<Item.ID>) {
        query = nil
        now = Date()
        excluded = []
        included = Set(ids)
        through = nil
    }

    /// Every item matching `query` at `now` (ages count back from it) with an ID up to
    /// `through`, when given.
    public init(matching query: ItemQuery, now: Date = Date(), through: Item.ID? = nil) {
        self.query = query
        self.now = now
        excluded = []
        included = []
        self.through = through
    }

    /// True when it can select no item at all.
    public var isEmpty: Bool { query == nil && included.isEmpty }
}

/// One change a bulk write makes to every item of a selection.
public enum BulkChange: Hashable, Sendable {
    /// Sets the status.
    case status(Item.Status)
    /// Sets the priority (in `Item.priorities`).
    case priority(Int)
    /// Gives the items to this user.
    case owner(User.ID)
    /// Deletes the items.
    case delete
}

extension BulkChange {
    /// SQL true when `items` holds in the changed column what the last write of this change
    /// left there: its own value before an undo, the recorded value before it (in the
    /// `bulk_action_items` row `record`) before a redo. Both backends' undo and redo check it
    /// besides the version. Not for `.delete`.
    package func holdsWritten(undoing: Bool, record: String) -> String {
        switch self {
        case .status(let status):
            "items.status = " + (undoing ? "'\(status == .done ? "done" : "open")'" : "\(record).status")
        case .priority(let priority): "items.priority = " + (undoing ? "\(priority)" : "\(record).priority")
        case .owner(let owner): "items.user_id = " + (undoing ? "\(owner.rawValue)" : "\(record).user_id")
        case .delete: "true"
        }
    }
}

/// A bulk write as the store recorded it: what undoing or redoing it needs (the items' values
/// before it) is kept in the database under `id`, not in memory.
public struct BulkAction: Hashable, Sendable {
    /// The key of the action's record in the store.
    public let id: Int64
    /// What it did.
    public let change: BulkChange
    /// How many items it changed (items already as asked are not changed, nor counted).
    public let count: Int

    /// An action as the store recorded it.
    public init(id: Int64, change: BulkChange, count: Int) {
        self.id = id
        self.change = change
        self.count = count
    }
}

/// What an undo or a redo of a `BulkAction` did.
public struct BulkReplay: Hashable, Sendable {
    /// Items written back (or put back, or deleted again).
    public let applied: Int
    /// Items left alone because they changed elsewhere since (another version, deleted, put
    /// back, or their owner deleted).
    public let skipped: Int
    /// Of `skipped`, the items an undo left alone because the owner they had before was
    /// deleted since (they cannot go back to that owner).
    public let ownerGone: Int

    /// A replay that wrote `applied` items and skipped `skipped`, `ownerGone` of them for their
    /// owner before.
    public init(applied: Int, skipped: Int, ownerGone: Int = 0) {
        self.applied = applied
        self.skipped = skipped
        self.ownerGone = ownerGone
    }
}

/// How far a bulk write has got, for a progress line.
public struct BulkProgress: Hashable, Sendable {
    /// Items written so far.
    public let done: Int
    /// Items the write will change (known once they are recorded).
    public let total: Int

    /// `done` of `total`.
    public init(done: Int, total: Int) {
        self.done = done
        self.total = total
    }
}
