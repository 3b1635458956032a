public import Foundation
public import ShelfStore

/// The items marked in the browser, beside the list: marks do not depend on what the list
/// shows, so they survive scrolling, searching and live changes.
///
/// Marks describe themselves (`selection`): items marked one by one are a set of IDs; `M`
/// marks "all that match the query" in one step, whatever the count, and marking or
/// unmarking one item afterwards adds its ID to the exceptions. How many items that is comes
/// from the store (`counted`, kept by `ItemActions`), and which rows on screen carry a mark
/// from the IDs the store said match (`matching`). A plain value.
public struct ItemMarks: Hashable, Sendable {
    /// What is marked; nil when nothing is.
    public private(set) var selection: ItemSelection?
    /// Of the rows last looked up, those that match the selection's query.
    public private(set) var matching: Set<Item.ID> = []
    /// How many items the store last counted in the selection (marks of a query).
    public var counted: Int?

    /// No marks.
    public init() {}

    /// Marks on `ids`.
    public init(_ ids: some Sequence<Item.ID>) {
        let ids = Set(ids)
        selection = ids.isEmpty ? nil : ItemSelection(ids: ids)
    }

    /// Marks on every item matching `query` at `now`; `shown` are IDs known to match it (the
    /// rows a list of that query holds), `count` how many match when known.
    public init(matching query: ItemQuery, now: Date, shown: some Sequence<Item.ID>, count: Int?) {
        selection = ItemSelection(matching: query, now: now)
        matching = Set(shown)
        counted = count
    }

    /// True when the marks are "all that match a query" (with exceptions), not a list of IDs.
    public var isDescribed: Bool { selection?.query != nil }

    /// The IDs marked one by one (all of them when `isDescribed` is false).
    public var ids: Set<Item.ID> { selection?.included ?? [] }

    /// How many items are marked: the IDs, or the store's last count of a query's marks.
    public var count: Int { isDescribed ? counted ?? 0 : ids.count }

    /// True when nothing is marked.
    public var isEmpty: Bool { selection?.isEmpty ?? true }

    /// True when the item with `id` is marked (for a query's marks: as far as the rows looked
    /// up tell).
    public func contains(_ id: Item.ID) -> Bool {
        guard let selection else { return false }
        if selection.included.contains(id) { return true }
        return selection.query != nil && !selection.excluded.contains(id) && matchesQuery(id)
    }

    /// True when the rows looked up say the item with `id` matches the marks' query, and it is
    /// not an item added after the query was marked.
    private func matchesQuery(_ id: Item.ID) -> Bool {
        guard matching.contains(id) else { return false }
        guard let through = selection?.through else { return true }
        return id <= through
    }

    /// Leaves out of a query's marks the items added after `highest` (the highest item ID
    /// when the query was marked): nothing for marks by ID, or when `highest` is nil.
    public mutating func bound(through highest: Item.ID?) {
        guard let highest, selection?.query != nil else { return }
        selection?.through = highest
    }

    /// Marks the item, or unmarks it when it is marked.
    public mutating func toggle(_ id: Item.ID) {
        var selection = self.selection ?? ItemSelection(ids: [])
        if contains(id) {
            selection.included.remove(id)
            if selection.query != nil, matchesQuery(id) { selection.excluded.insert(id) }
            counted = counted.map { max(0, $0 - 1) }
        } else {
            if selection.query != nil, matchesQuery(id) {
                selection.excluded.remove(id)
            } else {
                selection.included.insert(id)
            }
            counted = counted.map { $0 + 1 }
        }
        self.selection = selection.isEmpty ? nil : selection
    }

    /// Marks every item of `ids` (added to the marks there are).
    public mutating func mark(_ ids: some Sequence<Item.ID>) {
        for id in ids where !contains(id) { toggle(id) }
    }

    /// Removes the marks of `ids` (items that were deleted): they leave the exceptions too.
    public mutating func unmark(_ ids: some Sequence<Item.ID>) {
        guard var selection else { return }
        selection.included.subtract(ids)
        selection.excluded.subtract(ids)
        self.selection = selection.isEmpty ? nil : selection
    }

    /// Learns which of the rows `among` match the query (the store's answer, or the rows of a
    /// list of the same query).
    public mutating func learnMatching(_ ids: Set<Item.ID>) {
        matching = ids
    }

    /// Removes every mark.
    public mutating func removeAll() {
        selection = nil
        matching = []
        counted = nil
    }
}
