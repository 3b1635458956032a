internal import ShelfStore

/// A column of a users export; `allCases` is the default order.
enum UserColumn: CaseIterable {
    case id, name, email, createdAt

    /// The column's name in a header or as a JSON key.
    var key: StaticString {
        switch self {
        case .id: "id"
        case .name: "name"
        case .email: "email"
        case .createdAt: "created_at"
        }
    }

    var name: String { key.description }

    /// The columns `names` (checked by `ExportOptions.selectedColumns`) name, in order.
    static func plan(_ names: [String]) -> [UserColumn] {
        names.compactMap { name in allCases.first { $0.name == name } }
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
