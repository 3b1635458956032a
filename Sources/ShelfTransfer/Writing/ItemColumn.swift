internal import ShelfStore

/// A column of an items export; `allCases` is the default order.
enum ItemColumn: ExportColumn {
    case id, user, title, notes, status, priority, createdAt, updatedAt

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
