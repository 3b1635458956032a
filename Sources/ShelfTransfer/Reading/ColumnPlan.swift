internal import ShelfStore

/// The fields of users and items, with the column names an import reads by default.
enum Field: Int, CaseIterable {
    case id, user, userID, title, notes, status, priority, createdAt, updatedAt, name, email

    var name: String {
        switch self {
        case .id: "id"
        case .user: "user"
        case .userID: "user_id"
        case .title: "title"
        case .notes: "notes"
        case .status: "status"
        case .priority: "priority"
        case .createdAt: "created_at"
        case .updatedAt: "updated_at"
        case .name: "name"
        case .email: "email"
        }
    }

    static func fields(of table: ImportTable) -> [Field] {
        switch table {
        case .users: [.id, .name, .email, .createdAt]
        case .items: [.id, .user, .userID, .title, .notes, .status, .priority, .createdAt, .updatedAt]
        }
    }
}

/// Which column holds each field, given the input's columns and the options.
struct ColumnPlan {
    private var columnOfField: [Int?] = Array(repeating: nil, count: Field.allCases.count)
    /// Columns no field reads.
    private(set) var unknownColumns: [Int] = []
    /// How many columns the plan was made for (JSON inputs grow).
    private(set) var columnCount = 0

    subscript(field: Field) -> Int? { columnOfField[field.rawValue] }

    /// Plans `columns`. A field reads the column `columnMap` names for it, else the column
    /// of its own name (letter case ignored when no column matches exactly).
    init(table: ImportTable, columns: Columns, columnMap: [String: String]) {
        columnCount = columns.count
        var used = Set<Int>()
        for field in Field.fields(of: table) {
            let name = columnMap[field.name] ?? field.name
            let index =
                columns.index(of: name)
                ?? columns.names.firstIndex { $0.lowercased() == name.lowercased() }
            columnOfField[field.rawValue] = index
            if let index { used.insert(index) }
        }
        unknownColumns = (0..<columns.count).filter { !used.contains($0) }
    }

    /// Checks `--map` names fields of `table`.
    static func validate(columnMap: [String: String], table: ImportTable) throws(TransferError) {
        let names = Field.fields(of: table).map(\.name)
        for field in columnMap.keys.sorted() where !names.contains(field) {
            throw TransferError(
                "--map \(field)=…: \(table.rawValue) have no field '\(field)'; "
                    + "the fields are \(names.joined(separator: ", "))")
        }
    }
}
