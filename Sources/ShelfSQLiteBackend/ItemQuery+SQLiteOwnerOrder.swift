internal import Foundation
internal import ShelfSQLite
internal import ShelfStore

/// The owner order's pages: each owner's items by an index, then the items whose owner is gone.
extension ItemQuery {
    /// A page in the owner ordering: the owners' items (`ownersPageSQL`), then the items whose
    /// owner is gone (`ownerlessPageSQL`), which exist only when the foreign keys were set aside
    /// (`PRAGMA foreign_keys=OFF` in another program): the count counts them, so the order
    /// shows them too, after every owner in either direction, by ID in the list's direction.
    /// Reading forward, the owners' part comes first; backward, the ownerless part. The two are
    /// one compound SELECT without an ORDER BY of its own: SQLite reads its arms in turn, each
    /// in its own order, and stops at the LIMIT, so a page the owners fill never looks for
    /// ownerless items. A cursor given without its owner's name (or with an empty one: no user
    /// has one) whose owner is not a user stands among the ownerless items.
    /// `ownerless: false` leaves that part out.
    func ownerPageSQL(
        cursor: ItemCursor?, backward: Bool, increasing: Bool, limit: Int?, now: Date, parsed: ItemQueryText,
        ownerless: Bool
    ) -> BoundSQL {
        let owners = ownersPageSQL(
            cursor: cursor, backward: backward, increasing: increasing, limit: limit, now: now, parsed: parsed)
        guard ownerless,
            let gone = ownerlessPageSQL(
                cursor: cursor, backward: backward, increasing: increasing, limit: limit, now: now, parsed: parsed)
        else { return owners }
        let (first, second) = backward ? (gone, owners) : (owners, gone)
        var text = "SELECT * FROM (\(first.text)) UNION ALL SELECT * FROM (\(second.text))"
        var arguments = first.arguments + second.arguments
        if let limit {
            text += " LIMIT ?"
            arguments.append(limit)
        }
        return BoundSQL(text: text, arguments: arguments)
    }

    /// The items of owners who are not users, matching the query, by ID (in the list's
    /// direction), after `cursor`'s place (see `ownerPageSQL`); nil when no such item can be on
    /// the page (owner prefixes test the owner's name; a backward read from an owner's item).
    /// The owners who are gone are found by a walk of items_by_user from one owner ID to the
    /// next (one index seek per owner of any item, each then looked up in users), and their
    /// items read through items_by_user and sorted by ID: a sort of those items alone. Only a
    /// page the owners do not fill (the last one, or a backward read from the end) runs it.
    func ownerlessPageSQL(
        cursor: ItemCursor?, backward: Bool, increasing: Bool, limit: Int?, now: Date, parsed: ItemQueryText
    ) -> BoundSQL? {
        guard parsed.ownerPrefixes.isEmpty else { return nil }
        var arguments: [any SQLBindable] = []
        let gone: String
        if let owner {
            gone = "SELECT ? AS uid WHERE NOT EXISTS (SELECT 1 FROM users WHERE id = ?)"
            arguments += [owner, owner] as [any SQLBindable]
        } else {
            gone =
                "WITH RECURSIVE seen(uid) AS (SELECT (SELECT min(user_id) FROM items) UNION ALL "
                + "SELECT (SELECT min(user_id) FROM items WHERE user_id > seen.uid) FROM seen WHERE seen.uid IS NOT NULL) "
                + "SELECT uid FROM seen WHERE uid IS NOT NULL AND NOT EXISTS (SELECT 1 FROM users WHERE id = seen.uid)"
        }
        var clauses: [String] = []
        if let cursor, let ownerID = cursor.ownerID {
            if let ownerName = cursor.ownerName, !ownerName.isEmpty {
                // Among the owners: every ownerless item comes after it, none before.
                if backward { return nil }
            } else {
                // Among the owners when its owner is a user (all of this part after it, none
                // before: the bound past either end), else among these items, by its ID.
                let (comparison, start, end) =
                    increasing ? (">", "-1", "9223372036854775807") : ("<", "9223372036854775807", "-1")
                clauses.append(
                    "i.id \(comparison) CASE WHEN EXISTS (SELECT 1 FROM users WHERE id = ?) "
                        + "THEN \(backward ? end : start) ELSE ? END")
                arguments += [ownerID, cursor.id] as [any SQLBindable]
            }
        }
        var filter = sqliteFilter(alias: "i.", now: now, parsed: parsed)
        if let match = filter.match {
            filter.clauses.append("+i.id IN (SELECT rowid FROM items_fts WHERE items_fts MATCH ?)")
            filter.arguments.append(match)
        }
        clauses += filter.clauses
        arguments += filter.arguments
        var text = "SELECT \(Self.itemColumns("i.")) FROM (\(gone)) g CROSS JOIN items i ON i.user_id = g.uid"
        if !clauses.isEmpty { text += " WHERE " + clauses.joined(separator: " AND ") }
        text += " ORDER BY i.id \(increasing ? "ASC" : "DESC")"
        if let limit {
            text += " LIMIT ?"
            arguments.append(limit)
        }
        return BoundSQL(text: text, arguments: arguments)
    }

    /// The owners' part of a page in the owner ordering: owners by name (the index users_by_name), and each
    /// owner's items by ID (items_by_user of Migrations/0004), in one nested loop that is
    /// already in order. The cursor's own owner resumes after the cursor's item; later owners
    /// start at their first item.
    ///
    /// A page filtered by status, priority or a time (and no words) reads each owner's matches
    /// through an index that answers those tests from its entries (items_by_user_status_priority
    /// of Migrations/0019, or items_by_user_priority, _created, _updated) and sorts only their
    /// IDs, owner by owner (`USE TEMP B-TREE FOR RIGHT PART OF ORDER BY`), before reading the
    /// page's rows by ID: walking an owner's items by
    /// ID read every row to test it, all of them for an owner with no match (at 1,000,000
    /// items, `status:done` 27 ms, `status:open prio:1 created:2021-03-01` 7 to 9 s, when the
    /// planner took items_by_status_priority_created for the inner loop). The sort's cost grows
    /// with the matches of the owners a page reaches: about 0.2 ms for 1,000.
    func ownersPageSQL(
        cursor: ItemCursor?, backward: Bool, increasing: Bool, limit: Int?, now: Date, parsed: ItemQueryText
    ) -> BoundSQL {
        var filter = sqliteFilter(alias: "i.", now: now, parsed: parsed)
        if let match = filter.match {
            // Tested per row against the matches found once: the order comes from the indexes.
            filter.clauses.append("+i.id IN (SELECT rowid FROM items_fts WHERE items_fts MATCH ?)")
            filter.arguments.append(match)
        }
        var clauses: [String] = []
        var arguments: [any SQLBindable] = []
        if let owner {
            // Narrows the outer loop to the one owner (the filter narrows the inner one).
            clauses.append("u.id = ?")
            arguments.append(owner)
        }
        if let cursor, let ownerID = cursor.ownerID {
            let name: String
            let nameArgument: any SQLBindable
            if let ownerName = cursor.ownerName, !ownerName.isEmpty {
                (name, nameArgument) = ("?", ownerName)
            } else if backward {
                // Looked up as the page is read. A cursor whose owner is gone stands among the
                // ownerless items, after every owner: every owner comes before it.
                name = "coalesce((SELECT name FROM users WHERE id = ?), \(increasing ? "''" : "char(1114111)"))"
                nameArgument = ownerID
            } else {
                // NULL when the owner is gone: no owner comes after such a cursor (the
                // ownerless items after it are `ownerlessPageSQL`'s).
                name = "(SELECT name FROM users WHERE id = ?)"
                nameArgument = ownerID
            }
            let (comparison, idBound) = increasing ? (">=", "-1") : ("<=", "9223372036854775807")
            // The name alone bounds the index range; the pair and the item ID place the cursor
            // (the CASE is a range on the inner loop's index, not a filter on every row).
            clauses.append("u.name COLLATE NOCASE \(comparison) \(name)")
            clauses.append("(u.name COLLATE NOCASE, u.id) \(comparison) (\(name), ?)")
            clauses.append("i.id \(increasing ? ">" : "<") CASE WHEN u.id = ? THEN ? ELSE \(idBound) END")
            arguments += [nameArgument, nameArgument, ownerID, ownerID, cursor.id] as [any SQLBindable]
        }
        clauses += filter.clauses
        arguments += filter.arguments
        let filtersStatus = status != nil || !parsed.statuses.isEmpty
        let byIndexedTests =
            parsed.included.isEmpty
            && (filtersStatus || parsed.priorities != nil || !parsed.created.isEmpty || !parsed.updated.isEmpty)
        if byIndexedTests, filtersStatus, parsed.priorities == nil {
            // Every priority the schema allows (its CHECK: 0 to 3, 2.5 included), so that the
            // planner takes the index under (user_id, status, priority) rather than the walk
            // by ID, which reads every row of an owner whose items do not match.
            clauses.append("i.priority >= 0 AND i.priority <= 3")
        }
        let order = increasing ? "ASC" : "DESC"
        // With a bound LIMIT the planner otherwise prefers items_by_user, which gives the ID
        // order: the unary + leaves every owner index needing the sort, so it takes the one
        // that answers the tests.
        let ownerOrder =
            "ORDER BY u.name COLLATE NOCASE \(order), u.id \(order), \(byIndexedTests ? "+" : "")i.id \(order)"
        let columns = byIndexedTests ? "i.id AS id, u.name AS name, u.id AS owner_id" : Self.itemColumns("i.")
        var text = "SELECT \(columns) FROM users u CROSS JOIN items i ON i.user_id = u.id"
        if !clauses.isEmpty { text += " WHERE " + clauses.joined(separator: " AND ") }
        text += " " + ownerOrder
        if let limit {
            text += " LIMIT ?"
            arguments.append(limit)
        }
        if byIndexedTests {
            // The page's IDs in order, then their rows: the sort holds IDs only (no row is
            // read to fill it), and the outer sort puts the page's rows back in that order.
            text =
                "SELECT \(Self.itemColumns("i.")) FROM (\(text)) k CROSS JOIN items i ON i.id = k.id "
                + "ORDER BY k.name COLLATE NOCASE \(order), k.owner_id \(order), k.id \(order)"
        }
        return BoundSQL(text: text, arguments: arguments)
    }
}
