public import ShelfStore

/// The items marked in the browser, by ID, beside the list: marks do not depend on what the
/// list shows, so they survive scrolling, searching and live changes.
///
/// A plain value. A million marks take about 16 MB (a `Set` of 8-byte IDs).
public struct ItemMarks: Hashable, Sendable {
    /// The marked IDs.
    public private(set) var ids: Set<Item.ID> = []

    /// No marks.
    public init() {}

    /// Marks on `ids`.
    public init(_ ids: some Sequence<Item.ID>) {
        self.ids = Set(ids)
    }

    /// How many items are marked.
    public var count: Int { ids.count }

    /// True when nothing is marked.
    public var isEmpty: Bool { ids.isEmpty }

    /// True when the item with `id` is marked.
    public func contains(_ id: Item.ID) -> Bool { ids.contains(id) }

    /// Marks the item, or unmarks it when it is marked.
    public mutating func toggle(_ id: Item.ID) {
        if ids.remove(id) == nil { ids.insert(id) }
    }

    /// Marks every item of `ids` (added to the marks there are).
    public mutating func mark(_ ids: some Sequence<Item.ID>) {
        self.ids.formUnion(ids)
    }

    /// Removes the marks of `ids` (items that were deleted).
    public mutating func unmark(_ ids: some Sequence<Item.ID>) {
        self.ids.subtract(ids)
    }

    /// Removes every mark.
    public mutating func removeAll() {
        ids.removeAll()
    }
}
