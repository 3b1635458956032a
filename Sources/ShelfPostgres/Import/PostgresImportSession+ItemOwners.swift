#if PostgreSQL
    internal import Foundation
    internal import PostgresNIO
    internal import ShelfStore

    extension PostgresImportSession {
        /// Fills `counts.deletedItemOwners` and `counts.itemOwners` for `replacePreview()`
        /// (the twin of `ImportStaging.countItemOwners`); `doomed` is a query of the IDs of the
        /// table's rows the `replace` would delete.
        func countItemOwners(doomed: String, into counts: inout ImportCounts) throws {
            let items = table == .users ? "i.user_id IN (\(doomed))" : "i.id IN (\(doomed))"
            counts.itemOwners = Int(
                try rawQuery(PostgresQuery(unsafeSQL: "SELECT count(DISTINCT i.user_id) FROM items i WHERE \(items)"))
                    .first?.decode(Int64.self) ?? 0)
            let rows = try rawQuery(
                PostgresQuery(
                    unsafeSQL: """
                        SELECT u.email, count(*) AS n FROM items i JOIN users u ON u.id = i.user_id
                        WHERE \(items) GROUP BY u.id, u.email ORDER BY n DESC, u.email COLLATE "C"
                        LIMIT \(ItemOwnerCount.shownLimit)
                        """))
            counts.deletedItemOwners = try rows.map { row in
                let (email, items) = try row.decode((String, Int64).self)
                return ItemOwnerCount(email: email, items: Int(items))
            }
            guard table == .users else { return }
            let views = try rawQuery(
                PostgresQuery(
                    unsafeSQL: """
                        SELECT v.name, u.email FROM saved_views v JOIN users u ON u.id = v.owner_id
                        WHERE v.owner_id IN (\(doomed)) ORDER BY v.name_key, v.name COLLATE "C", v.id
                        """))
            counts.widenedViews = try views.map { row in
                let (name, email) = try row.decode((String, String).self)
                return WidenedView(name: name, owner: email)
            }
        }
    }
#endif
