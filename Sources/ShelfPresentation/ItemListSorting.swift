public import ShelfStore

/// The list's sort orders: which direction a field starts in, and which field comes next.
///
/// Fields cycle in `ItemQuery.SortField.allCases` order, so a field added to the store is
/// picked up by itself. Text fields (title, owner) start A–Z; dates and priority start with
/// the largest (newest, highest) first.
public enum ItemListSorting {
    /// The direction `field` is first shown in.
    public static func defaultDirection(for field: ItemQuery.SortField) -> ItemQuery.SortDirection {
        switch field {
        case .title, .owner: .ascending
        case .created, .updated, .priority: .descending
        }
    }

    /// The field after `field` in `allCases`, wrapping around.
    public static func field(after field: ItemQuery.SortField) -> ItemQuery.SortField {
        let all = ItemQuery.SortField.allCases
        guard let index = all.firstIndex(of: field) else { return field }
        return all[(index + 1) % all.count]
    }

    /// The mark of `direction` beside a sorted column's title: ▲ ascending, ▼ descending.
    public static func arrow(_ direction: ItemQuery.SortDirection) -> String {
        direction == .ascending ? "▲" : "▼"
    }

    /// The other direction.
    public static func reversed(_ direction: ItemQuery.SortDirection) -> ItemQuery.SortDirection {
        direction == .ascending ? .descending : .ascending
    }
}
