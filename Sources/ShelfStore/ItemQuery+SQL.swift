internal import ShelfSQLite
internal import Synchronization

/// A SQL text with its arguments, in parameter order.
struct BoundSQL {
    var text: String
    var arguments: [any SQLBindable]
}

extension ItemQuery {
    /// The columns every item read selects, in the order `Item(row:)` decodes them.
    static let itemColumns = "id, user_id, title, notes, status, priority, created_at, updated_at, version"

    var sortColumn: String { Self.sortColumn(sortField) }

    func sortValue(of cursor: ItemCursor) -> any SQLBindable {
        switch sortField {
        case .created: cursor.createdAt
        case .updated: cursor.updatedAt
        case .priority: cursor.priority
        case .title: cursor.title
        }
    }

    /// What decides a list statement's SQL text; its arguments vary, its text does not.
    private struct Shape: Hashable {
        var owner: Bool
        var status: Bool
        var text: Bool
        var sortField: SortField
        /// Reading towards larger sort keys.
        var increasing: Bool
        var cursor: Bool
        var limit: Bool
        var count: Bool
    }

    /// SQL texts by shape: at most a few hundred, built once each. Building the text on every
    /// call would cost more than running a small page.
    private static let sqlCache = Mutex<[Shape: String]>([:])

    private static func sql(for shape: Shape) -> String {
        if let text = sqlCache.withLock({ $0[shape] }) { return text }
        var clauses: [String] = []
        if shape.owner { clauses.append("user_id = ?") }
        if shape.status { clauses.append("status = ?") }
        if shape.text { clauses.append("id IN (SELECT rowid FROM items_fts WHERE items_fts MATCH ?)") }
        let column = sortColumn(shape.sortField)
        if shape.cursor { clauses.append("(\(column), id) \(shape.increasing ? ">" : "<") (?, ?)") }
        var text = shape.count ? "SELECT count(*) FROM items" : "SELECT \(itemColumns) FROM items"
        if !clauses.isEmpty { text += " WHERE " + clauses.joined(separator: " AND ") }
        if !shape.count {
            let order = shape.increasing ? "ASC" : "DESC"
            text += " ORDER BY \(column) \(order), id \(order)"
        }
        if shape.limit { text += " LIMIT ?" }
        sqlCache.withLock { $0[shape] = text }
        return text
    }

    private static func sortColumn(_ field: SortField) -> String {
        switch field {
        case .created: "created_at"
        case .updated: "updated_at"
        case .priority: "priority"
        case .title: "title"
        }
    }

    /// The filter's arguments, in the order of the shape's clauses.
    private func filterArguments(match: String?) -> [any SQLBindable] {
        var arguments: [any SQLBindable] = []
        if let owner { arguments.append(owner) }
        if let status { arguments.append(status) }
        if let match { arguments.append(match) }
        return arguments
    }

    /// `SELECT … FROM items` for one keyset page. `backward` reads the rows before `cursor`
    /// in reverse order (the caller reverses them back).
    func pageSQL(cursor: ItemCursor?, backward: Bool, limit: Int?) -> BoundSQL {
        let match = FullTextQuery.matchExpression(for: text)
        // Reading forward in ascending order, or backward in descending order, moves to
        // larger keys.
        let increasing = (sortDirection == .ascending) != backward
        let shape = Shape(
            owner: owner != nil, status: status != nil, text: match != nil, sortField: sortField,
            increasing: increasing, cursor: cursor != nil, limit: limit != nil, count: false)
        var arguments = filterArguments(match: match)
        if let cursor {
            arguments.append(sortValue(of: cursor))
            arguments.append(cursor.id)
        }
        if let limit { arguments.append(limit) }
        return BoundSQL(text: Self.sql(for: shape), arguments: arguments)
    }

    func countSQL() -> BoundSQL {
        let match = FullTextQuery.matchExpression(for: text)
        if owner == nil, status == nil, match == nil {
            // Kept by the triggers of 0002_change_counters: one lookup, not a table scan.
            return BoundSQL(text: "SELECT row_count FROM shelf_changes WHERE table_name = 'items'", arguments: [])
        }
        let shape = Shape(
            owner: owner != nil, status: status != nil, text: match != nil, sortField: .created,
            increasing: true, cursor: false, limit: false, count: true)
        return BoundSQL(text: Self.sql(for: shape), arguments: filterArguments(match: match))
    }
}

extension Item.Status: SQLBindable, SQLDecodable {}

extension Item {
    /// Decodes the columns of `ItemQuery.itemColumns`.
    init(row: Row) throws {
        // The status is compared in place: no String per row for a two-valued column.
        let parsed: Status
        if row.textEquals(4, "open") {
            parsed = .open
        } else if row.textEquals(4, "done") {
            parsed = .done
        } else {
            let status = row.optionalString(4) ?? "NULL"
            throw StoreError(
                .corrupt,
                "item \(try row.int64(0)) has the unknown status '\(status)', which shelf never writes; "
                    + "set it to 'open' or 'done' with the sqlite3 shell")
        }
        self.init(
            id: ID(try row.int64(0)),
            userID: User.ID(try row.int64(1)),
            title: try row.string(2),
            notes: row.optionalString(3),
            status: parsed,
            priority: Int(try row.int64(5)),
            createdAt: try row.date(6),
            updatedAt: try row.date(7),
            version: try row.int64(8)
        )
    }
}
