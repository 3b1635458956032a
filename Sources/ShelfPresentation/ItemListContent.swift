public import Foundation
public import ShelfStore

/// One row of the item list, ready to draw: every string already formatted.
public struct ItemRowViewModel: Hashable, Sendable, Identifiable {
    /// The item's ID, which identifies the row across updates.
    public let id: Item.ID
    /// The title as stored; the list cuts it to the column.
    public let title: String
    /// "✓" or " ".
    public let doneMark: String
    /// "" to "!!!".
    public let priorityMark: String
    /// The owner's name ("unknown owner" while users load).
    public let owner: String
    /// When it was last updated, relative to now: "5m ago".
    public let updated: String
    /// True when the item's status is done, for styling the row.
    public let isDone: Bool
    /// The priority, 0 to 3, for styling the row.
    public let priority: Int

    /// A row from already formatted values; for tests. Use `init(_:owners:now:)` to format an
    /// item.
    public init(
        id: Item.ID, title: String, doneMark: String, priorityMark: String, owner: String, updated: String,
        isDone: Bool, priority: Int
    ) {
        self.id = id
        self.title = title
        self.doneMark = doneMark
        self.priorityMark = priorityMark
        self.owner = owner
        self.updated = updated
        self.isDone = isDone
        self.priority = priority
    }

    /// The row for `item`, with its owner's name from `owners`, dates relative to `now`.
    public init(_ item: Item, owners: [User.ID: User], now: Date) {
        self.init(
            id: item.id, title: item.title, doneMark: Formatting.doneMark(item.status),
            priorityMark: Formatting.priorityMark(item.priority), owner: owners[item.userID]?.name ?? "unknown owner",
            updated: Formatting.relative(item.updatedAt, now: now), isDone: item.status == .done,
            priority: item.priority)
    }
}

/// What the item list shows: a window of rows out of the whole result.
public struct ItemListContent: Hashable, Sendable {
    /// The rows held: a few screens around the selection, whatever the table's size.
    public let rows: [ItemRowViewModel]
    /// How many items match the query in all; nil while it is being counted (the rows of a
    /// new query show before its count).
    public let totalCount: Int?
    /// The position of `rows[0]` in the whole result; nil when not known (a window read around
    /// the selected item in a new order, until the list's start is read).
    public let windowOffset: Int?
    /// The selected item's ID (the ID of `rows[selectedIndex]`), or nil when nothing is
    /// selected.
    public let selectedID: Item.ID?
    /// The selected row's index in `rows`.
    public let selectedIndex: Int?
    /// The first row to show on screen, an index into `rows`: the list keeps the selected row
    /// on its screen line across changes, and does not scroll when items arrive above.
    public let topIndex: Int
    /// How many items arrived above the first shown row (live changes) since the list was last
    /// scrolled to its top, for "↑ N new"; 0 when none.
    public let newAboveCount: Int
    /// The active query in words: `“moth” · open · newest first`.
    public let queryDescription: String
    /// True while a newer query or window is being read (the rows are the previous ones).
    public let isRefreshing: Bool
    /// Feedback about the last action, e.g. why a delete failed; nil when there is none.
    public let message: String?

    /// Content from its parts, as `ItemListMapping` produces it; for tests.
    public init(
        rows: [ItemRowViewModel], totalCount: Int?, windowOffset: Int?, selectedID: Item.ID?, selectedIndex: Int?,
        topIndex: Int = 0, newAboveCount: Int = 0, queryDescription: String, isRefreshing: Bool, message: String?
    ) {
        self.rows = rows
        self.totalCount = totalCount
        self.windowOffset = windowOffset
        self.selectedID = selectedID
        self.selectedIndex = selectedIndex
        self.topIndex = topIndex
        self.newAboveCount = newAboveCount
        self.queryDescription = queryDescription
        self.isRefreshing = isRefreshing
        self.message = message
    }

    /// The selected item's position in the whole result (for a scrollbar), or nil when nothing
    /// is selected or the window's position is not known.
    public var selectedPosition: Int? {
        guard let selectedIndex, let windowOffset else { return nil }
        return windowOffset + selectedIndex
    }

    /// The selected row, or nil.
    public var selectedRow: ItemRowViewModel? { selectedIndex.map { rows[$0] } }
}

/// The pure mapping from store values to the item list's state.
public enum ItemListMapping {
    /// The state for a window of `items` out of `totalCount`.
    ///
    /// - Parameters:
    ///   - items: the window's items, in the query's order.
    ///   - totalCount: how many items match the query in all; nil while being counted.
    ///   - windowOffset: the position of `items[0]` in the whole result; nil when not known.
    ///   - selectedIndex: the row to select (clamped); nil selects none.
    ///   - query: the active query, described in the content and in the empty message.
    ///   - owners: the users by ID, for owners' names ("unknown owner" when missing).
    ///   - now: the time relative dates are measured from.
    ///   - unfilteredCount: how many items exist without filters, to say whether filters
    ///     hide items when nothing matches.
    ///   - isRefreshing: true while a newer query or window is being read.
    ///   - message: feedback about the last action, or nil.
    public static func state(
        items: [Item], totalCount: Int?, windowOffset: Int?, selectedIndex: Int?, query: ItemQuery,
        owners: [User.ID: User], now: Date, unfilteredCount: Int?, isRefreshing: Bool = false, message: String? = nil
    ) -> ViewState<ItemListContent> {
        state(
            rows: items.map { ItemRowViewModel($0, owners: owners, now: now) }, totalCount: totalCount,
            windowOffset: windowOffset, selectedIndex: selectedIndex, query: query, owners: owners,
            unfilteredCount: unfilteredCount, isRefreshing: isRefreshing, message: message)
    }

    /// The state for rows already formatted (the view model keeps them between states that
    /// differ only in selection or flags). `topIndex` (clamped to the rows) is the first row to
    /// show; `newAboveCount` the items that arrived above it.
    public static func state(
        rows: [ItemRowViewModel], totalCount: Int?, windowOffset: Int?, selectedIndex: Int?, topIndex: Int = 0,
        newAboveCount: Int = 0, query: ItemQuery, owners: [User.ID: User], unfilteredCount: Int?,
        isRefreshing: Bool = false, message: String? = nil
    ) -> ViewState<ItemListContent> {
        guard totalCount != 0, !rows.isEmpty else {
            return .empty(emptyMessage(query: query, owners: owners, unfilteredCount: unfilteredCount))
        }
        let index = selectedIndex.map { max(0, min($0, rows.count - 1)) }
        let held = (windowOffset ?? 0) + rows.count
        return .loaded(
            ItemListContent(
                rows: rows, totalCount: totalCount.map { max($0, held) }, windowOffset: windowOffset,
                selectedID: index.map { rows[$0].id }, selectedIndex: index,
                topIndex: max(0, min(topIndex, rows.count - 1)), newAboveCount: newAboveCount,
                queryDescription: Formatting.describe(query, ownerName: query.owner.flatMap { owners[$0]?.name }),
                isRefreshing: isRefreshing, message: message))
    }

    /// Why the list is empty, and whether filters are the reason.
    public static func emptyMessage(query: ItemQuery, owners: [User.ID: User], unfilteredCount: Int?) -> String {
        guard isFiltered(query) else { return "No items yet." }
        let what = Formatting.describe(query, ownerName: query.owner.flatMap { owners[$0]?.name })
            .components(separatedBy: " · ").dropLast().joined(separator: " · ")
        guard let unfilteredCount, unfilteredCount > 0 else {
            return "No items match \(what), and there are no items at all yet."
        }
        return "No items match \(what). Clear the search and filters to see all \(Formatting.items(unfilteredCount))."
    }

    /// True when the query narrows the list (text with a word, a status or an owner).
    public static func isFiltered(_ query: ItemQuery) -> Bool {
        query.status != nil || query.owner != nil || query.text.contains { $0.isLetter || $0.isNumber }
    }
}
