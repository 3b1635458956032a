internal import Foundation
internal import ShelfSQLite
internal import ShelfStore

/// A SQL text with its arguments, in parameter order.
struct BoundSQL {
    var text: String
    var arguments: [any SQLBindable]
}

extension ItemQuery {
    /// The columns every item read selects, in the order `Item(row:)` decodes them.
    static let itemColumns = "id, user_id, title, notes, status, priority, created_at, updated_at, version"

    /// How a page of a query with words or phrases is read; every plan gives the same rows.
    enum MatchPlan: Hashable, Sendable {
        /// Walk the index of the sort order and ask the full-text index about each row (a
        /// join on its rowid), stopping at the page size. The cost grows with how far apart
        /// matches are, so it wins for common words; each question is cheap only when FTS5's
        /// prefix index (`prefix = '2 3'`) holds the words: see `FullTextQuery.isCheapToProbe`.
        case walk
        /// Walk the index of the sort order and test each row against the set of matches,
        /// found once (`+id IN (…)`): for common words that each question would make slow.
        case walkOverMatches
        /// Find every match in the full-text index, then order them: the cost grows with the
        /// number of matches, so it wins for rare words.
        case matchFirst
    }

    /// The WHERE clauses of everything the query filters except the words and phrases it
    /// includes (`match`), over the items table as `alias` ("" or "i.").
    struct SQLiteFilter {
        var clauses: [String] = []
        var arguments: [any SQLBindable] = []
        /// The FTS5 expression every item must match (included words and phrases, minus the
        /// excluded ones), or nil when the query includes none.
        var match: String?
    }

    /// The filter of this query at `now` (which ages count back from). `forPage`: owner terms
    /// are tested per row as a page walks its sort index; a count reads them by index instead.
    /// `statusAndPriority`: false leaves the status and priority tests out, for the arms of a
    /// merged page, which each test one pair (see `mergedPageSQL`): the planner then reads
    /// each arm's pair as one range of an index already in the order.
    /// `walkPastTimes`: the ranges of times other than the sort key's are tested per row (a
    /// unary +), so the planner walks the sort order's index instead of reading the range and
    /// sorting it (see `SQLiteItemRepository.walksPastTimes`).
    /// `parsed`, when given, must be `ItemQueryText(text)` (a page read parses its text once).
    func sqliteFilter(
        alias: String = "", now: Date = Date(), forPage: Bool = true, statusAndPriority: Bool = true,
        walkPastTimes: Bool = false, parsed: ItemQueryText? = nil
    ) -> SQLiteFilter {
        let parsed = parsed ?? ItemQueryText(text)
        var filter = SQLiteFilter()
        func add(_ clause: String, _ values: any SQLBindable...) {
            filter.clauses.append(clause)
            filter.arguments.append(contentsOf: values)
        }
        if let owner { add("\(alias)user_id = ?", owner) }
        if statusAndPriority, let status { add("\(alias)status = ?", status) }
        for status in parsed.statuses where statusAndPriority && status != self.status {
            add("\(alias)status = ?", status)
        }
        if !parsed.ownerPrefixes.isEmpty {
            // LIKE folds ASCII letters as NOCASE does; the prefix's own % _ \ are escaped.
            let tests = parsed.ownerPrefixes.map { _ in "name LIKE ? ESCAPE '\\' OR email LIKE ? ESCAPE '\\'" }
            // The unary + makes it a test of each row as the sort index is walked, never a
            // list of owners whose items are read and then sorted: owners hold many items (at
            // 1,000,000 items, "@user1" took 190 ms that way, 2.9 s with a common word).
            filter.clauses.append(
                "\(forPage ? "+" : "")\(alias)user_id IN (SELECT id FROM users WHERE \(tests.joined(separator: " OR ")))"
            )
            for prefix in parsed.ownerPrefixes {
                let pattern = Self.likePrefix(prefix)
                filter.arguments.append(contentsOf: [pattern, pattern] as [any SQLBindable])
            }
        }
        if statusAndPriority, let priorities = parsed.priorities {
            add("\(alias)priority >= ? AND \(alias)priority < ?", priorities.lowerBound, priorities.upperBound)
        }
        for (column, range) in timeRanges(now: now, parsed: parsed) {
            let test = walkPastTimes && column != Self.sortColumn(sortField) ? "+" : ""
            if let lower = range.lower { add("\(test)\(alias)\(column) >= ?", lower) }
            if let upper = range.upper { add("\(test)\(alias)\(column) < ?", upper) }
        }
        let excluded = FullTextQuery.matchExpression(anyOf: parsed.excluded)
        if let included = FullTextQuery.matchExpression(allOf: parsed.included) {
            filter.match = excluded.map { "(\(included)) NOT (\($0))" } ?? included
        } else if let excluded {
            add("\(alias)id NOT IN (SELECT rowid FROM items_fts WHERE items_fts MATCH ?)", excluded)
        }
        // Two parameters each: the text's LIKE pattern, or the text (see substringTest).
        func addSubstring(_ text: String, negated: Bool) {
            let argument = FullTextQuery.usesTrigrams(text) ? FullTextQuery.likePattern(of: text) : text
            add(Self.substringTest(text, alias: alias, forPage: forPage, negated: negated), argument, argument)
        }
        for case .substring(let text) in parsed.included { addSubstring(text, negated: false) }
        for case .substring(let text) in parsed.excluded { addSubstring(text, negated: true) }
        return filter
    }

    /// The stored times the query's terms select, by column (`created_at`, `updated_at`), ages
    /// counted back from `now`; only the columns the text has terms on.
    func timeRanges(now: Date, parsed: ItemQueryText) -> [(column: String, range: MillisecondRange)] {
        guard !parsed.created.isEmpty || !parsed.updated.isEmpty else { return [] }
        let milliseconds = TimeFormat.milliseconds(since1970: agesFrom ?? now)
        return [("created_at", parsed.created), ("updated_at", parsed.updated)].compactMap { column, terms in
            guard !terms.isEmpty else { return nil }
            let range = terms.map { $0.range(now: milliseconds) }.reduce(MillisecondRange()) { $0.intersection($1) }
            return (column, range)
        }
    }

    /// Whether the row holds `text` in its title or notes, exactly (see `TextTerm.substring`),
    /// with two parameters. Text of 3 scalars or more is looked up in the trigram index
    /// (Migrations/0007), whose candidates SQLite's LIKE then confirms: the same answers as
    /// PostgreSQL's LIKE, since the text holds no ASCII letter for LIKE to fold. Shorter text
    /// has no trigram: each row is read (`instr`, no pattern). `forPage` as `sqliteFilter`'s.
    static func substringTest(_ text: String, alias: String, forPage: Bool = false, negated: Bool = false) -> String {
        guard FullTextQuery.usesTrigrams(text) else {
            let holds = "(instr(\(alias)title, ?) > 0 OR coalesce(instr(\(alias)notes, ?), 0) > 0)"
            return negated ? "NOT \(holds)" : holds
        }
        let matches =
            "SELECT rowid FROM items_trigram WHERE title LIKE ? UNION ALL SELECT rowid FROM items_trigram WHERE notes LIKE ?"
        if negated { return "\(alias)id NOT IN (\(matches))" }
        // The unary + as for owners: tested per row as a page walks its sort index.
        return "\(forPage ? "+" : "")\(alias)id IN (\(matches))"
    }

    /// `prefix%` for LIKE, with `\`, `%` and `_` escaped by `\`.
    static func likePrefix(_ prefix: String) -> String {
        var pattern = ""
        for character in prefix {
            if character == "\\" || character == "%" || character == "_" { pattern.append("\\") }
            pattern.append(character)
        }
        return pattern + "%"
    }

    /// The sort key as one SQL expression over the unaliased items table, ordered as the
    /// query orders (before the ID tie-break). Pages do not use it for the owner ordering (a
    /// subquery per row); references in tests and diagnostics do.
    var sortColumn: String {
        guard sortField == .owner else { return Self.sortColumn(sortField) }
        // lower() folds ASCII letters only, as NOCASE does; the owner's ID breaks name ties.
        return "(SELECT lower(name) || char(1) || printf('%020d', id) FROM users WHERE users.id = items.user_id)"
    }

    static func sortColumn(_ field: SortField) -> String {
        switch field {
        case .created: "created_at"
        case .updated: "updated_at"
        case .priority: "priority"
        case .title: "title"
        // Not a column of items: the owner ordering reads users (see `ownerPageSQL`).
        case .owner: "user_id"
        }
    }

    func sortValue(of cursor: ItemCursor) -> any SQLBindable {
        switch sortField {
        case .created: cursor.createdAt
        case .updated: cursor.updatedAt
        case .priority: cursor.priority
        case .title: cursor.title
        case .owner: cursor.ownerID
        }
    }

    /// `SELECT … FROM items` for one keyset page. `backward` reads the rows before `cursor`
    /// in reverse order (the caller reverses them back). `plan` says how to apply words and
    /// phrases (see `MatchPlan`); it changes the cost, never the rows; so does `walkPastTimes`
    /// (see `sqliteFilter`). `parsed`, when given, must be `ItemQueryText(text)`.
    /// `ownerless: false` leaves out the owner order's items whose owner is gone (for tests of
    /// the owners' plan alone; see `ownerPageSQL`).
    func pageSQL(
        cursor: ItemCursor?, backward: Bool, limit: Int?, plan: MatchPlan = .walk, walkPastTimes: Bool = false,
        now: Date = Date(), parsed: ItemQueryText? = nil, ownerless: Bool = true
    ) -> BoundSQL {
        let parsed = parsed ?? ItemQueryText(text)
        // Reading forward in ascending order, or backward in descending order, moves to
        // larger keys.
        let increasing = (sortDirection == .ascending) != backward
        if sortField == .owner {
            return ownerPageSQL(
                cursor: cursor, backward: backward, increasing: increasing, limit: limit, now: now, parsed: parsed,
                ownerless: ownerless)
        }
        let alias = "i."
        let pairs = statusPriorityPairs(parsed: parsed)
        var filter = sqliteFilter(
            alias: alias, now: now, statusAndPriority: pairs == nil, walkPastTimes: walkPastTimes, parsed: parsed)
        let column = alias + Self.sortColumn(sortField)
        if let cursor {
            if sortField == .priority {
                // A priority another program stored between whole numbers (2.5) reaches the
                // cursor as its whole part (2), so the next page would start before that item
                // and show it again: the cursor's item, while it still holds a priority of
                // that whole part, gives its stored value (one lookup by ID, run once).
                filter.clauses.append(
                    "(\(column), i.id) \(increasing ? ">" : "<") (coalesce((SELECT priority FROM items "
                        + "WHERE id = ? AND CAST(priority AS INTEGER) = ?), ?), ?)")
                filter.arguments.append(
                    contentsOf: [cursor.id, cursor.priority, cursor.priority, cursor.id] as [any SQLBindable])
            } else {
                filter.clauses.append("(\(column), i.id) \(increasing ? ">" : "<") (?, ?)")
                filter.arguments.append(contentsOf: [sortValue(of: cursor), cursor.id] as [any SQLBindable])
            }
        }
        if let pairs {
            return mergedPageSQL(pairs: pairs, filter: filter, increasing: increasing, limit: limit)
        }
        var text = "SELECT \(Self.itemColumns(alias)) FROM "
        if let match = filter.match {
            switch plan {
            case .walk:
                // CROSS JOIN fixes the order: items by the sort index, then the full-text index
                // by rowid for each.
                text += "items i CROSS JOIN items_fts f ON f.rowid = i.id"
                filter.clauses.append("items_fts MATCH ?")
            case .walkOverMatches:
                // The unary + keeps the planner from reading the matches by rowid: it walks
                // the sort index, and the subquery's matches are found once and probed.
                text += "items i"
                filter.clauses.append("+i.id IN (SELECT rowid FROM items_fts WHERE items_fts MATCH ?)")
            case .matchFirst:
                // CROSS JOIN fixes the order: matches first, each item then by its rowid.
                text += "items_fts f CROSS JOIN items i ON i.id = f.rowid"
                filter.clauses.append("items_fts MATCH ?")
            }
            filter.arguments.append(match)
        } else {
            text += "items i"
        }
        if !filter.clauses.isEmpty { text += " WHERE " + filter.clauses.joined(separator: " AND ") }
        let order = increasing ? "ASC" : "DESC"
        text += " ORDER BY \(column) \(order), i.id \(order)"
        if let limit {
            text += " LIMIT ?"
            filter.arguments.append(limit)
        }
        return BoundSQL(text: text, arguments: filter.arguments)
    }

    /// A page read as one range per (status, priority) pair of `pairs` (see
    /// `statusPriorityPairs`), each in the sort order through an index of Migrations/0012,
    /// merged by a compound SELECT: SQLite reads the arms side by side and stops at the page
    /// size, with no sort step. Its ORDER BY names result columns by position (a compound
    /// SELECT cannot name a table's); the title's column keeps its NOCASE collation.
    private func mergedPageSQL(
        pairs: [(status: Item.Status, priority: Int)], filter: SQLiteFilter, increasing: Bool, limit: Int?
    ) -> BoundSQL {
        let columns = Self.itemColumns("i.")
        guard !pairs.isEmpty else { return BoundSQL(text: "SELECT \(columns) FROM items i WHERE 0", arguments: []) }
        let rest = filter.clauses.isEmpty ? "" : " AND " + filter.clauses.joined(separator: " AND ")
        let arm = "SELECT \(columns) FROM items i WHERE i.status = ? AND i.priority = ?\(rest)"
        // A priority between two whole numbers (2.5, stored by another program) is counted by
        // `prio:2`'s `priority >= 2 AND priority < 3` (countSQL), so the page holds it too: a
        // second arm per pair, one seek that finds nothing in a store of whole numbers (it is
        // sorted on its own, an empty sort then).
        let between = "SELECT \(columns) FROM items i WHERE i.status = ? AND i.priority > ? AND i.priority < ?\(rest)"
        var arguments: [any SQLBindable] = []
        for pair in pairs { arguments += [pair.status, pair.priority] as [any SQLBindable] + filter.arguments }
        for pair in pairs {
            arguments += [pair.status, pair.priority, pair.priority + 1] as [any SQLBindable] + filter.arguments
        }
        // The positions of `itemColumns`: id 1, title 3, priority 6, created_at 7, updated_at 8.
        let position =
            switch sortField {
            case .created: 7
            case .updated: 8
            case .priority: 6
            case .title, .owner: 3
            }
        let order = increasing ? "ASC" : "DESC"
        var text = (Array(repeating: arm, count: pairs.count) + Array(repeating: between, count: pairs.count))
            .joined(separator: " UNION ALL ")
        text += " ORDER BY \(position) \(order), 1 \(order)"
        if let limit {
            text += " LIMIT ?"
            arguments.append(limit)
        }
        return BoundSQL(text: text, arguments: arguments)
    }

    /// `itemColumns`, each prefixed by `alias`. Pages use "i." on every read: that list is
    /// made once (splitting and joining it per page cost a tenth of a page read).
    static func itemColumns(_ alias: String) -> String {
        switch alias {
        case "": itemColumns
        case "i.": aliasedItemColumns
        default: prefixedItemColumns(alias)
        }
    }

    /// `itemColumns` with the alias "i." of every page read.
    private static let aliasedItemColumns = prefixedItemColumns("i.")

    private static func prefixedItemColumns(_ alias: String) -> String {
        itemColumns.split(separator: ", ").map { alias + $0 }.joined(separator: ", ")
    }

    /// How many items match. Words and phrases are counted from the full-text index first.
    func countSQL(now: Date = Date()) -> BoundSQL {
        let parsed = ItemQueryText(text)
        let filter = sqliteFilter(alias: "i.", now: now, forPage: false, parsed: parsed)
        if let match = filter.match {
            guard !filter.clauses.isEmpty else {
                return BoundSQL(text: "SELECT count(*) FROM items_fts WHERE items_fts MATCH ?", arguments: [match])
            }
            return BoundSQL(
                text: "SELECT count(*) FROM items_fts f CROSS JOIN items i ON i.id = f.rowid "
                    + "WHERE items_fts MATCH ? AND " + filter.clauses.joined(separator: " AND "),
                arguments: [match] + filter.arguments)
        }
        if filter.clauses.isEmpty {
            // Kept by the triggers of 0002_change_counters: one lookup, not a table scan.
            return BoundSQL(text: "SELECT row_count FROM shelf_changes WHERE table_name = 'items'", arguments: [])
        }
        let plain = BoundSQL(
            text: "SELECT count(*) FROM items i WHERE " + filter.clauses.joined(separator: " AND "),
            arguments: filter.arguments)
        return countFromTotalsSQL(parsed: parsed, now: now, plain: plain) ?? plain
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
