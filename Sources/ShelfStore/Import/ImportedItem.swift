internal import Foundation

/// Who owns an imported item: a user ID, or an email the store looks up when the import is
/// applied (so a user added or removed meanwhile counts).
package enum ImportedOwner: Sendable, Hashable {
    case id(Int64)
    case email(String)
}

/// An item row read from an import, checked field by field. Times are milliseconds since 1970;
/// nil when the row has none: a new item gets the import's time (updated as created), an
/// existing one keeps its creation time and, when it changes, is updated now.
package struct ImportedItem: Sendable {
    package var id: Int64?
    package var owner: ImportedOwner
    package var title: String
    package var notes: String?
    package var status: Item.Status
    package var priority: Int
    package var createdAt: Int64?
    package var updatedAt: Int64?
    /// The version a new item gets (a backup keeps it); nil for 1. An update always adds one
    /// to the stored version.
    package var version: Int64?

    package init(
        id: Int64?, owner: ImportedOwner, title: String, notes: String?, status: Item.Status, priority: Int,
        createdAt: Int64?, updatedAt: Int64?, version: Int64? = nil
    ) {
        self.id = id
        self.owner = owner
        self.title = title
        self.notes = notes
        self.status = status
        self.priority = priority
        self.createdAt = createdAt
        self.updatedAt = updatedAt
        self.version = version
    }
}
