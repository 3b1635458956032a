internal import Foundation
internal import ShelfSQLite
internal import ShelfStore

extension ImportStaging {
    /// The items a `replace` would delete, for `doomed` (a query of the IDs of the table's rows
    /// it would delete): the rows themselves (items) or the items of those users (users).
    func itemsOf(doomed: String) -> String {
        table == .users ? "i.user_id IN (\(doomed))" : "i.id IN (\(doomed))"
    }

    /// Fills `counts.deletedItemOwners` and `counts.itemOwners` for `replacePreview()`: who
    /// owns the items it would delete, most items first (ties by email).
    func countItemOwners(doomed: String, on connection: Connection, into counts: inout ImportCounts) throws {
        let items = itemsOf(doomed: doomed)
        counts.itemOwners = Int(
            try connection.fetchOne("SELECT count(DISTINCT i.user_id) FROM main.items AS i WHERE \(items)") {
                try $0.int64(0)
            } ?? 0)
        let statement = try connection.makeStatement(
            """
            SELECT u.email, count(*) AS n FROM main.items AS i JOIN main.users AS u ON u.id = i.user_id
            WHERE \(items) GROUP BY u.id ORDER BY n DESC, u.email COLLATE BINARY LIMIT \(ItemOwnerCount.shownLimit)
            """)
        var owners: [ItemOwnerCount] = []
        try statement.forEachRow { row in
            owners.append(ItemOwnerCount(email: try row.string(0), items: Int(try row.int64(1))))
        }
        counts.deletedItemOwners = owners
        guard table == .users else { return }
        let views = try connection.makeStatement(
            """
            SELECT v.name, u.email FROM main.saved_views AS v JOIN main.users AS u ON u.id = v.owner_id
            WHERE v.owner_id IN (\(doomed)) ORDER BY v.name_key, v.name, v.id
            """)
        try views.forEachRow { row in
            counts.widenedViews.append(WidenedView(name: try row.string(0), owner: try row.string(1)))
        }
    }
}
