internal import Foundation
internal import ShelfSQLite
internal import ShelfStore

extension ItemSelection {
    /// `SELECT i.id FROM …` of every item of the selection that exists (each once), narrowed
    /// to `among` and to items with `status` when given. ID sets are bound as JSON arrays and
    /// read with `json_each`, so a statement stays the same size whatever the count.
    func sqliteIDs(among: [Item.ID]? = nil, status: Item.Status? = nil) -> BoundSQL {
        let amongJSON = among.map(Self.json)
        var arms: [String] = []
        var arguments: [any SQLBindable] = []
        if let query {
            var filter = query.sqliteFilter(alias: "i.", now: now, forPage: false)
            if !excluded.isEmpty {
                filter.clauses.append("i.id NOT IN (SELECT value FROM json_each(?))")
                filter.arguments.append(Self.json(excluded))
            }
            if let amongJSON {
                filter.clauses.append("i.id IN (SELECT value FROM json_each(?))")
                filter.arguments.append(amongJSON)
            }
            if let through {
                filter.clauses.append("i.id <= ?")
                filter.arguments.append(through.rawValue)
            }
            if let status {
                filter.clauses.append("i.status = ?")
                filter.arguments.append(status)
            }
            var arm = "SELECT i.id FROM "
            if let match = filter.match {
                // Matches first, from the full-text index, as a count reads them.
                arm += "items_fts f CROSS JOIN items i ON i.id = f.rowid WHERE items_fts MATCH ?"
                arguments.append(match)
                if !filter.clauses.isEmpty { arm += " AND " + filter.clauses.joined(separator: " AND ") }
            } else {
                arm += "items i"
                if !filter.clauses.isEmpty { arm += " WHERE " + filter.clauses.joined(separator: " AND ") }
            }
            arms.append(arm)
            arguments += filter.arguments
        }
        if !included.isEmpty {
            var arm = "SELECT i.id FROM items i WHERE i.id IN (SELECT value FROM json_each(?))"
            arguments.append(Self.json(included))
            if let amongJSON {
                arm += " AND i.id IN (SELECT value FROM json_each(?))"
                arguments.append(amongJSON)
            }
            if let status {
                arm += " AND i.status = ?"
                arguments.append(status)
            }
            arms.append(arm)
        }
        guard !arms.isEmpty else { return BoundSQL(text: "SELECT i.id FROM items i WHERE 0", arguments: []) }
        // UNION: an included item that matches too is counted once.
        return BoundSQL(text: arms.joined(separator: " UNION "), arguments: arguments)
    }

    /// How many items of the selection exist (with `status`, when given).
    func sqliteCount(status: Item.Status?) -> BoundSQL {
        if let query, excluded.isEmpty, included.isEmpty, status == nil {
            let count = query.countSQL(now: now)
            guard let through else { return count }
            let filter = query.sqliteFilter(alias: "i.", now: now, forPage: false)
            guard filter.match == nil else {
                let ids = sqliteIDs()
                return BoundSQL(text: "SELECT count(*) FROM (\(ids.text))", arguments: ids.arguments)
            }
            // The query's own count (kept by triggers when unfiltered) less the items added
            // since it was marked: a short walk down from the top of the ID order (CROSS JOIN
            // keeps SQLite from reading every match of a status through its index instead).
            var later = "SELECT count(*) FROM (SELECT id FROM items WHERE id > ?) l CROSS JOIN items i ON i.id = l.id"
            if !filter.clauses.isEmpty { later += " WHERE " + filter.clauses.joined(separator: " AND ") }
            return BoundSQL(
                text: "SELECT (\(count.text)) - (\(later))",
                arguments: count.arguments + [through.rawValue] + filter.arguments)
        }
        // The status goes into each arm: a million marked items are counted along an index
        // (0.04 s of CPU), not gathered into a list of IDs that items are looked up in (0.35 s).
        let ids = sqliteIDs(status: status)
        return BoundSQL(text: "SELECT count(*) FROM (\(ids.text))", arguments: ids.arguments)
    }

    /// `ids` as a JSON array of numbers.
    static func json(_ ids: some Collection<Item.ID>) -> String {
        "[" + ids.map { String($0.rawValue) }.joined(separator: ",") + "]"
    }
}
