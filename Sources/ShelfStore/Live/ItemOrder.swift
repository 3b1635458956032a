internal import Foundation

/// The order of an `ItemQuery` (its sort field, direction and the ID tie-break), computed in
/// Swift exactly as the backends' SQL orders, for every field but `owner` (which needs the
/// owners' names: `isComputable` is false).
package struct ItemOrder: Sendable {
    let field: ItemQuery.SortField
    let ascending: Bool

    package init(_ query: ItemQuery) {
        field = query.sortField
        ascending = query.sortDirection == .ascending
    }

    /// False for the owner ordering.
    package var isComputable: Bool { field != .owner }

    /// The place of a row in the order: its sort value and ID.
    package enum Key: Sendable {
        case integer(Int64, Int64)
        case text(String, Int64)
    }

    package func key(_ image: ItemImage, id: Item.ID) -> Key {
        switch field {
        case .created: .integer(image.createdAt, id.rawValue)
        case .updated: .integer(image.updatedAt, id.rawValue)
        case .priority: .integer(Int64(image.priority), id.rawValue)
        case .title, .owner: .text(image.title, id.rawValue)
        }
    }

    package func key(_ item: Item) -> Key {
        key(ItemImage(item), id: item.id)
    }

    package func key(_ cursor: ItemCursor) -> Key {
        switch field {
        case .created: .integer(TimeFormat.milliseconds(since1970: cursor.createdAt), cursor.id.rawValue)
        case .updated: .integer(TimeFormat.milliseconds(since1970: cursor.updatedAt), cursor.id.rawValue)
        case .priority: .integer(Int64(cursor.priority), cursor.id.rawValue)
        case .title, .owner: .text(cursor.title, cursor.id.rawValue)
        }
    }

    /// True when `a` comes before `b` in this order.
    package func precedes(_ a: Key, _ b: Key) -> Bool {
        let comparison = Self.compare(a, b)
        return ascending ? comparison < 0 : comparison > 0
    }

    /// Ascending comparison: negative, zero or positive.
    static func compare(_ a: Key, _ b: Key) -> Int {
        switch (a, b) {
        case (.integer(let x, let xID), .integer(let y, let yID)):
            if x != y { return x < y ? -1 : 1 }
            return xID == yID ? 0 : (xID < yID ? -1 : 1)
        case (.text(let x, let xID), .text(let y, let yID)):
            let text = compareNoCase(x, y)
            if text != 0 { return text }
            return xID == yID ? 0 : (xID < yID ? -1 : 1)
        default:
            return 0  // one order never mixes the two
        }
    }

    /// SQLite's NOCASE collation (the title column's, and PostgreSQL's ordering of titles
    /// through the same rule): bytes of UTF-8 compared unsigned, with ASCII A–Z folded to
    /// a–z; when one is a prefix of the other, the shorter first.
    package static func compareNoCase(_ a: String, _ b: String) -> Int {
        var left = a.utf8.makeIterator()
        var right = b.utf8.makeIterator()
        while true {
            switch (left.next(), right.next()) {
            case (nil, nil): return 0
            case (nil, _): return -1
            case (_, nil): return 1
            case (let x?, let y?):
                let foldedX = (x >= 65 && x <= 90) ? x + 32 : x
                let foldedY = (y >= 65 && y <= 90) ? y + 32 : y
                if foldedX != foldedY { return foldedX < foldedY ? -1 : 1 }
            }
        }
    }
}
