internal import Foundation
internal import ShelfStore

/// Formats the list's rows, reusing rows already formatted for the same item values.
///
/// When a window moves, about half its rows were in the previous window; formatting only the
/// new ones keeps a window move cheap. The cache holds the last window's rows only, and is
/// dropped when the owners change (names) or the minute changes (relative dates).
struct ItemRowFormatter {
    private let now: @Sendable () -> Date
    private var cache: [Item.ID: (item: Item, row: ItemRowViewModel)] = [:]
    private var cacheMinute = 0

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
        let minute = Int(now.timeIntervalSince1970 / 60)
        if minute != cacheMinute {
            cache = [:]
            cacheMinute = minute
        }
        var fresh: [Item.ID: (item: Item, row: ItemRowViewModel)] = [:]
        fresh.reserveCapacity(items.count)
        let rows = items.map { item in
            if let cached = cache[item.id], cached.item == item {
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
