internal import ShelfSQLite

/// A SQL text with its arguments, in parameter order.
struct BoundSQL {
    var text: String
    var arguments: [any SQLBindable]
}

extension ItemQuery {
    /// The columns every item read selects, in the order `Item(row:)` decodes them.
    static let itemColumns = "id, user_id, title, notes, status, priority, created_at, updated_at, version"

    var sortColumn: String {
        switch sortField {
        case .created: "created_at"
        case .updated: "updated_at"
        case .priority: "priority"
        case .title: "title"
        }
    }

    func sortValue(of cursor: ItemCursor) -> any SQLBindable {
        switch sortField {
        case .created: cursor.createdAt
        case .updated: cursor.updatedAt
        case .priority: cursor.priority
        case .title: cursor.title
        }
    }

    /// The filter shared by lists and counts.
    func filter() -> BoundSQL {
        var clauses: [String] = []
        var arguments: [any SQLBindable] = []
        if let owner {
            clauses.append("user_id = ?")
            arguments.append(owner)
        }
        if let status {
            clauses.append("status = ?")
            arguments.append(status)
        }
        if let match = FullTextQuery.matchExpression(for: text) {
            clauses.append("id IN (SELECT rowid FROM items_fts WHERE items_fts MATCH ?)")
            arguments.append(match)
        }
        return BoundSQL(text: clauses.joined(separator: " AND "), arguments: arguments)
    }

    /// `SELECT … FROM items` for one keyset page. `backward` reads the rows before `cursor`
    /// in reverse order (the caller reverses them back).
    func pageSQL(columns: String = itemColumns, cursor: ItemCursor?, backward: Bool, limit: Int?) -> BoundSQL {
        var bound = filter()
        var clauses = bound.text.isEmpty ? [] : [bound.text]
        // Reading forward in ascending order, or backward in descending order, moves to
        // larger keys.
        let increasing = (sortDirection == .ascending) != backward
        if let cursor {
            clauses.append("(\(sortColumn), id) \(increasing ? ">" : "<") (?, ?)")
            bound.arguments.append(sortValue(of: cursor))
            bound.arguments.append(cursor.id)
        }
        let order = increasing ? "ASC" : "DESC"
        var sql = "SELECT \(columns) FROM items"
        if !clauses.isEmpty { sql += " WHERE " + clauses.joined(separator: " AND ") }
        sql += " ORDER BY \(sortColumn) \(order), id \(order)"
        if let limit {
            sql += " LIMIT ?"
            bound.arguments.append(limit)
        }
        bound.text = sql
        return bound
    }

    func countSQL() -> BoundSQL {
        var bound = filter()
        bound.text = "SELECT count(*) FROM items" + (bound.text.isEmpty ? "" : " WHERE " + bound.text)
        return bound
    }
}

extension Item.Status: SQLBindable, SQLDecodable {}

extension Item {
    /// Decodes the columns of `ItemQuery.itemColumns`.
    init(row: Row) throws {
        self.init(
            id: try row.get(0),
            userID: try row.get(1),
            title: try row.get(2),
            notes: try row.get(3),
            status: try row.get(4),
            priority: try row.get(5),
            createdAt: try row.get(6),
            updatedAt: try row.get(7),
            version: try row.get(8)
        )
    }
}
