internal import Foundation
internal import ShelfStore

/// Formats the list's rows, reusing rows already formatted for the same item values.
///
/// When a window moves, about half its rows were in the previous window; formatting only the
/// new ones keeps a window move cheap. The cache holds the last window's rows only, and is
/// dropped when the owners change (names). A cached row is used only while its relative date
/// still reads the same: each item's "5m ago" turns into "6m ago" at its own second, not at the
/// turn of the clock's minute.
struct ItemRowFormatter {
    private let now: @Sendable () -> Date
    private var cache: [Item.ID: (item: Item, row: ItemRowViewModel)] = [:]

    init(now: @escaping @Sendable () -> Date) {
        self.now = now
    }

    /// Forgets every formatted row (the owners changed).
    mutating func forget() {
        cache = [:]
    }

    /// The rows for `items`, in order.
    mutating func rows(for items: [Item], owners: [User.ID: User]) -> [ItemRowViewModel] {
        let now = self.now()
        var fresh: [Item.ID: (item: Item, row: ItemRowViewModel)] = [:]
        fresh.reserveCapacity(items.count)
        let rows = items.map { item in
            if let cached = cache[item.id], cached.item == item,
                cached.row.updated == Formatting.relative(item.updatedAt, now: now)
            {
                fresh[item.id] = cached
                return cached.row
            }
            let row = ItemRowViewModel(item, owners: owners, now: now)
            fresh[item.id] = (item, row)
            return row
        }
        cache = fresh
        return rows
    }
}
