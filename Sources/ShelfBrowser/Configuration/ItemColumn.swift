internal import ShelfStore
internal import ShelfTerminal

/// A column of the item list, and how wide it is.
public struct ItemColumn: Hashable, Sendable {
    /// What a column shows.
    public enum Field: String, CaseIterable, Hashable, Sendable {
        case done, priority, title, owner, updated
    }

    /// What it shows.
    public var field: Field
    /// Its width in cells; for the title, the least it takes (it takes what the others leave).
    public var width: Int

    /// A column of `field`, `width` cells wide.
    public init(_ field: Field, width: Int) {
        self.field = field
        self.width = width
    }

    /// The list's columns when the configuration names none: done, priority, title, owner,
    /// updated.
    public static let defaults: [ItemColumn] = [
        ItemColumn(.done, width: 1), ItemColumn(.priority, width: 3), ItemColumn(.title, width: 12),
        ItemColumn(.owner, width: 16), ItemColumn(.updated, width: 11),
    ]

    /// The widest a column may be.
    public static let widths = 1...200

    /// What `shelf config --defaults` says of each field.
    static func summary(of field: Field) -> String {
        switch field {
        case .done: "✓ for done items"
        case .priority: "!, !! or !!! by priority"
        case .title: "the title (its width is the least it takes)"
        case .owner: "the owner's name"
        case .updated: "when it changed (“26m ago”)"
        }
    }

    /// The column as the list view draws it.
    var listColumn: ListColumn {
        switch field {
        case .done: ListColumn("", width: .fixed(width), priority: 8)
        case .priority: ListColumn("Pri", width: .fixed(width), priority: 6)
        case .title: ListColumn("Title", width: .minimum(width), priority: 10)
        case .owner: ListColumn("Owner", width: .fixed(width), priority: 4)
        case .updated: ListColumn("Updated", width: .fixed(width), alignment: .trailing, priority: 2)
        }
    }

    /// The order a click on the column's header sorts by, if any.
    var sort: ItemQuery.SortField? {
        switch field {
        case .done: nil
        case .priority: .priority
        case .title: .title
        case .owner: .owner
        case .updated: .updated
        }
    }
}
