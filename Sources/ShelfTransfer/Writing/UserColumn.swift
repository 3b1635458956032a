internal import ShelfStore

/// A column of a users export; `allCases` is the default order.
enum UserColumn: ExportColumn {
    case id, name, email, createdAt

    var key: StaticString {
        switch self {
        case .id: "id"
        case .name: "name"
        case .email: "email"
        case .createdAt: "created_at"
        }
    }

    /// Appends this column of `user`.
    @inline(__always)
    func write(_ user: ExportedUser, into fields: inout RowFields) {
        switch self {
        case .id: fields.integer("id", user.id)
        case .name: fields.text("name", user.name)
        case .email: fields.text("email", user.email)
        case .createdAt: fields.time("created_at", user.createdAt)
        }
    }
}
