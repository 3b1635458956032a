internal import ShelfStore

/// A column of an items export; `allCases` is the default order.
enum ItemColumn: CaseIterable {
    case id, user, title, notes, status, priority, createdAt, updatedAt

    /// The column's name in a header or as a JSON key.
    var key: StaticString {
        switch self {
        case .id: "id"
        case .user: "user"
        case .title: "title"
        case .notes: "notes"
        case .status: "status"
        case .priority: "priority"
        case .createdAt: "created_at"
        case .updatedAt: "updated_at"
        }
    }

    var name: String { key.description }

    /// The columns `names` (checked by `ExportOptions.selectedColumns`) name, in order.
    static func plan(_ names: [String]) -> [ItemColumn] {
        names.compactMap { name in allCases.first { $0.name == name } }
    }

    /// Appends this column of `item`: the owner by email, times in UTC ISO 8601.
    @inline(__always)
    func write(_ item: ExportedItemText, into fields: inout RowFields) {
        switch self {
        case .id: fields.integer("id", item.id)
        case .user: fields.text("user", bytes: item.ownerEmail)
        case .title: fields.text("title", bytes: item.title)
        case .notes: fields.text("notes", bytes: item.notes)
        case .status: fields.text("status", bytes: item.status)
        case .priority: fields.integer("priority", Int64(item.priority))
        case .createdAt: fields.time("created_at", item.createdAt)
        case .updatedAt: fields.time("updated_at", item.updatedAt)
        }
    }
}
