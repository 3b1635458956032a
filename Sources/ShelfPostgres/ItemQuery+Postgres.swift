#if PostgreSQL
    package import Foundation
    package import PostgresNIO
    package import ShelfStore

    extension ItemQuery {
        /// The columns every item read selects, in the order `Item(postgres:)` decodes them.
        static let postgresItemColumns =
            "id, user_id, title, notes, status, priority, created_at, updated_at, version"

        /// The sort key of a field as an expression over items, and as the same expression
        /// over a bound value. Titles sort as SQLite's NOCASE: ASCII letters folded, the rest
        /// by code point (see `shelf_fold` in Migrations/postgres/0001). The owner ordering
        /// reads users too: see `postgresOwnerPage`.
        private static func sortKey(_ field: SortField) -> (column: String, value: (String) -> String) {
            switch field {
            case .created: ("created_at", { $0 })
            case .updated: ("updated_at", { $0 })
            case .priority: ("priority", { $0 })
            case .title, .owner: ("shelf_fold(title) COLLATE \"C\"", { "shelf_fold(\($0)) COLLATE \"C\"" })
            }
        }

        /// The tsquery text for the words of `text` (not its phrases nor exclusions): every
        /// word quoted and a prefix (`'word':*`), joined by `&`; nil when the text holds no word.
        static func tsquery(for text: String) -> String? {
            tsquery(allOf: [.words(FullTextQuery.words(in: text))])
        }

        /// The tsquery text selecting what every term selects, or nil when none is left.
        /// Bound as a parameter of `to_tsquery('simple', …)`: words hold only letters, digits
        /// and marks, so no input can break out of its quotes nor raise a syntax error.
        static func tsquery(allOf terms: [TextTerm]) -> String? {
            let parts = terms.compactMap(tsquery(of:))
            return parts.isEmpty ? nil : parts.map { "(\($0))" }.joined(separator: " & ")
        }

        /// `'w1':* & 'w2':*` for words, `'w1' <-> 'w2'` for a phrase (whole words, adjacent);
        /// nil when no word is left.
        static func tsquery(of term: TextTerm) -> String? {
            // A word of combining marks alone folds to nothing (see `searchFoldedMarks`), and
            // an empty quoted word is a syntax error in a tsquery.
            let words = term.words.filter { word in
                !word.unicodeScalars.allSatisfy { scalar in
                    searchFoldedMarks.contains { $0.contains(scalar.value) }
                }
            }
            guard !words.isEmpty else { return nil }
            switch term {
            case .words: return words.map { "'\($0)':*" }.joined(separator: " & ")
            case .phrase: return words.map { "'\($0)'" }.joined(separator: " <-> ")
            // Not words of the tsvector: see `substringTest`.
            case .substring: return nil
            }
        }

        /// `to_tsquery('simple', …)` of `parameter`, bound to `text`, folded as the indexed text
        /// is (`shelf_search_fold`, Migrations/postgres/0010). Text of ASCII characters with no
        /// capital letter is its own fold (the function's ASCII branch is `lower()`), and the
        /// call is left out: planning it costs about 0.15 ms a query (measured with EXPLAIN
        /// SUMMARY on PostgreSQL 15, against 0.002 ms without), a third of a search page.
        static func foldedTSQuery(_ text: String, parameter: String) -> String {
            let isOwnFold = text.utf8.allSatisfy { $0 < 0x80 && !(0x41...0x5A).contains($0) }
            return isOwnFold
                ? "to_tsquery('simple', \(parameter))" : "to_tsquery('simple', shelf_search_fold(\(parameter)))"
        }

        /// The code points `shelf_search_fold` (Migrations/postgres/0001) removes: the blocks
        /// of combining marks.
        static let searchFoldedMarks: [ClosedRange<UInt32>] = [
            0x0300...0x036F, 0x1AB0...0x1AFF, 0x1DC0...0x1DFF, 0x20D0...0x20FF, 0xFE20...0xFE2F,
        ]

        /// The test of a user row for `prefixes` (any of them starting the name or the email),
        /// binding them. Folded as the indexes users_by_name and user_email_unique are; LIKE's
        /// own escape character is the backslash, and a prefix's % _ \ are escaped.
        /// `users` prefixes the columns ("" or "u.").
        static func ownerPrefixTests(
            _ prefixes: [String], into bindings: inout PostgresBindings, users: String = ""
        ) -> String {
            prefixes.map { owner in
                bindings.append(foldedLikePrefix(owner))
                let pattern = "$\(bindings.count)"
                return
                    "shelf_fold(\(users)name) COLLATE \"C\" LIKE \(pattern) "
                    + "OR shelf_fold(\(users)email) COLLATE \"C\" LIKE \(pattern)"
            }.joined(separator: " OR ")
        }

        /// The WHERE clauses of everything the query selects (its owner and status, and every
        /// term of its text, ages counted back from `now`), binding their values. Columns of
        /// items are written with `prefix` ("" or "i."). `ownerPrefixes: false` leaves out the
        /// owner prefixes (`@ann`), which the owner order tests on its users instead.
        func postgresFilter(
            into bindings: inout PostgresBindings, prefix: String = "", now: Date = Date(), ownerPrefixes: Bool = true
        ) -> [String] {
            let parsed = ItemQueryText(text)
            var clauses: [String] = []
            if let owner {
                bindings.append(owner.rawValue)
                clauses.append("\(prefix)user_id = $\(bindings.count)")
            }
            for status in [status].compactMap({ $0 }) + parsed.statuses.filter({ $0 != status }) {
                bindings.append(status.rawValue)
                clauses.append("\(prefix)status = $\(bindings.count)")
            }
            if ownerPrefixes, !parsed.ownerPrefixes.isEmpty {
                clauses.append(
                    "\(prefix)user_id IN (SELECT id FROM users WHERE "
                        + "\(Self.ownerPrefixTests(parsed.ownerPrefixes, into: &bindings)))")
            }
            if let priorities = parsed.priorities {
                bindings.append(Int64(priorities.lowerBound))
                bindings.append(Int64(priorities.upperBound))
                clauses.append("\(prefix)priority >= $\(bindings.count - 1) AND \(prefix)priority < $\(bindings.count)")
            }
            let milliseconds = (agesFrom ?? now).postgresMilliseconds
            for (column, terms) in [("created_at", parsed.created), ("updated_at", parsed.updated)] where !terms.isEmpty
            {
                let range = terms.map { $0.range(now: milliseconds) }.reduce(MillisecondRange()) {
                    $0.intersection($1)
                }
                if let lower = range.lower {
                    bindings.append(lower)
                    clauses.append("\(prefix)\(column) >= $\(bindings.count)")
                }
                if let upper = range.upper {
                    bindings.append(upper)
                    clauses.append("\(prefix)\(column) < $\(bindings.count)")
                }
            }
            // Folded as the indexed text is (accents off, one Unicode normal form): see
            // shelf_search_fold in Migrations/postgres/0001. NFD only splits letters into a
            // base and marks, and the marks go, so the quotes stay as they are.
            let excluded = parsed.excluded.compactMap(Self.tsquery(of:)).map { "(\($0))" }
            if let included = Self.tsquery(allOf: parsed.included) {
                let text = ([included] + excluded.map { "!\($0)" }).joined(separator: " & ")
                bindings.append(text)
                clauses.append("\(prefix)search @@ \(Self.foldedTSQuery(text, parameter: "$\(bindings.count)"))")
            } else if !excluded.isEmpty {
                let text = excluded.joined(separator: " | ")
                bindings.append(text)
                clauses.append(
                    "NOT (\(prefix)search @@ \(Self.foldedTSQuery(text, parameter: "$\(bindings.count)")))")
            }
            for case .substring(let text) in parsed.included {
                bindings.append(FullTextQuery.likePattern(of: text))
                clauses.append(Self.substringTest(parameter: "$\(bindings.count)", prefix: prefix))
            }
            for case .substring(let text) in parsed.excluded {
                bindings.append(FullTextQuery.likePattern(of: text))
                clauses.append(
                    "NOT coalesce(\(Self.substringTest(parameter: "$\(bindings.count)", prefix: prefix)), false)")
            }
            return clauses
        }

        /// Whether the row holds a substring term's text (`TextTerm.substring`) in its title or
        /// notes, exactly, given its LIKE pattern as `parameter`: the pg_trgm indexes of
        /// Migrations/postgres/0005 answer it when the text has 3 letters or more and they
        /// exist. The same answers as SQLite's (`ItemQuery.substringTest`): the text holds no
        /// ASCII, so LIKE's case rules never differ, and nothing in it needs escaping.
        static func substringTest(parameter: String, prefix: String) -> String {
            "(\(prefix)title LIKE \(parameter) OR \(prefix)notes LIKE \(parameter))"
        }

        /// `prefix%` for LIKE over `shelf_fold`ed text: ASCII letters lowered, `\`, `%` and `_`
        /// escaped by `\`.
        static func foldedLikePrefix(_ prefix: String) -> String {
            var pattern = ""
            for character in prefix {
                if character == "\\" || character == "%" || character == "_" { pattern.append("\\") }
                pattern.append(character.isASCII ? Character(character.lowercased()) : character)
            }
            return pattern + "%"
        }

        /// One keyset page. `backward` reads the rows before `cursor` in reverse order (the
        /// caller reverses them back). The row comparison `(key, id) > (…)` and the ORDER BY
        /// match an index of Migrations/postgres/0001, so the page is one index range scan.
        ///
        /// `rangeFirst`: the page reads its matches by the index of its range of times and sorts
        /// them, rather than walk the sort order's index (see `PostgresItemRepository.readsRangeFirst`);
        /// it changes the cost, never the rows.
        /// `ownerless: false` leaves out the owner order's items whose owner is gone (for tests
        /// of the owners' plan alone; see `postgresOwnerPage`).
        package func postgresPage(
            cursor: ItemCursor?, backward: Bool, limit: Int?, now: Date = Date(), rangeFirst: Bool = false,
            ownerless: Bool = true
        ) throws -> PostgresQuery {
            if let limit, limit < 0 {
                throw StoreError(.invalidValue, "a page limit must be 0 or more, not \(limit)")
            }
            // Reading forward in ascending order, or backward in descending order, moves to
            // larger keys.
            let increasing = (sortDirection == .ascending) != backward
            if sortField == .owner {
                return postgresOwnerPage(
                    cursor: cursor, backward: backward, increasing: increasing, limit: limit, now: now,
                    ownerless: ownerless)
            }
            var bindings = PostgresBindings()
            var clauses = postgresFilter(into: &bindings, now: now)
            let key = Self.sortKey(sortField)
            if let cursor {
                switch sortField {
                case .created: bindings.append(cursor.createdAt.postgresMilliseconds)
                case .updated: bindings.append(cursor.updatedAt.postgresMilliseconds)
                case .priority: bindings.append(Int64(cursor.priority))
                case .title, .owner: bindings.append(cursor.title)
                }
                let value = key.value("$\(bindings.count)")
                bindings.append(cursor.id.rawValue)
                clauses.append("(\(key.column), id) \(increasing ? ">" : "<") (\(value), $\(bindings.count))")
            }
            let order = increasing ? "ASC" : "DESC"
            var sql: String
            if let pairs = statusPriorityPairs {
                // One range per (status, priority) pair, each read in order through an index of
                // Migrations/postgres/0009 and cut at the limit, then merged (Merge Append):
                // without the cut in each arm the planner sorts every match instead (600 ms for
                // prio:3 at 1,000,000 items). In the priority order an arm's priority is one
                // value, so the arm reads by ID. The pairs are the schema's own values, written
                // as literals so each arm is planned for its own range; the parameters (the
                // limit included) are shared by every arm.
                var cut = ""
                // No arm, no LIMIT: nor its value (a value no placeholder uses is refused by a
                // named prepared statement, which `PreparedPages` makes of this text).
                if let limit, !pairs.isEmpty {
                    bindings.append(Int64(limit))
                    cut = " LIMIT $\(bindings.count)"
                }
                let rest = clauses.isEmpty ? "" : " AND " + clauses.joined(separator: " AND ")
                let armOrder = sortField == .priority ? "id \(order)" : "\(key.column) \(order), id \(order)"
                let arms = pairs.map { pair in
                    "(SELECT \(Self.postgresItemColumns), \(key.column) AS shelf_sort_key FROM items "
                        + "WHERE status = '\(pair.status.rawValue)' AND priority = \(pair.priority)\(rest) "
                        + "ORDER BY \(armOrder)\(cut))"
                }
                sql =
                    arms.isEmpty
                    ? "SELECT \(Self.postgresItemColumns) FROM items WHERE false\(rest)"
                    : "SELECT \(Self.postgresItemColumns) FROM (\(arms.joined(separator: " UNION ALL "))) i "
                        + "ORDER BY shelf_sort_key \(order), id \(order)\(cut)"
            } else {
                sql = "SELECT \(Self.postgresItemColumns) FROM items"
                if !clauses.isEmpty { sql += " WHERE " + clauses.joined(separator: " AND ") }
                if rangeFirst {
                    // OFFSET 0 keeps the planner from seeing the order and the limit inside:
                    // it reads the matches by the best index for the filter, and the sort
                    // keeps the page's rows only (a top-N sort).
                    sql = "SELECT \(Self.postgresItemColumns) FROM (\(sql) OFFSET 0) AS in_range"
                }
                sql += " ORDER BY \(key.column) \(order), id \(order)"
                if let limit {
                    bindings.append(Int64(limit))
                    sql += " LIMIT $\(bindings.count)"
                }
            }
            return PostgresQuery(unsafeSQL: sql, binds: bindings)
        }

        /// A page in the owner ordering: the owners' items (`postgresOwnersPart`), then the items
        /// whose owner is gone (`postgresOwnerlessPart`), which exist only when the foreign keys
        /// were set aside (`session_replication_role = replica`, a dropped constraint): the
        /// count counts them, so the order shows them too, after every owner in either
        /// direction, by ID in the list's direction. Reading forward, the owners' part comes
        /// first; backward, the ownerless part. The two are one `UNION ALL` without an ORDER BY
        /// of its own: its Append runs the arms in turn, each in its own order, under the LIMIT,
        /// which stops it once the page is full, so a page the owners fill never runs the other
        /// arm (`EXPLAIN ANALYZE`: "never executed"). A cursor given without its owner's name (or
        /// with an empty one: no user has one) whose owner is not a user stands among the
        /// ownerless items. `ownerless: false` leaves that part out.
        private func postgresOwnerPage(
            cursor: ItemCursor?, backward: Bool, increasing: Bool, limit: Int?, now: Date, ownerless: Bool
        ) -> PostgresQuery {
            var bindings = PostgresBindings()
            var limitClause = ""
            if let limit {
                bindings.append(Int64(limit))
                limitClause = " LIMIT $\(bindings.count)"
            }
            let parsed = ItemQueryText(text)
            let owners = postgresOwnersPart(
                cursor: cursor, backward: backward, increasing: increasing, limitClause: limitClause, now: now,
                parsed: parsed, bindings: &bindings)
            guard ownerless,
                let gone = postgresOwnerlessPart(
                    cursor: cursor, backward: backward, increasing: increasing, limitClause: limitClause, now: now,
                    parsed: parsed, bindings: &bindings)
            else { return PostgresQuery(unsafeSQL: owners, binds: bindings) }
            let (first, second) = backward ? (gone, owners) : (owners, gone)
            return PostgresQuery(unsafeSQL: "(\(first)) UNION ALL (\(second))\(limitClause)", binds: bindings)
        }

        /// The items of owners who are not users, matching the query, by ID (in the list's
        /// direction), after `cursor`'s place (see `postgresOwnerPage`); nil when no such item can
        /// be on the page (owner prefixes test the owner's name; a backward read from an owner's
        /// item). The owners who are gone are found by a walk of items_by_user from one owner ID
        /// to the next (one index probe per owner of any item, each then looked up in users),
        /// and each one's items read through items_by_user up to the page size (a LATERAL), then
        /// sorted by ID: a sort of those rows alone. Only a page the owners do not fill (the last
        /// one, or a backward read from the end) runs it.
        private func postgresOwnerlessPart(
            cursor: ItemCursor?, backward: Bool, increasing: Bool, limitClause: String, now: Date,
            parsed: ItemQueryText, bindings: inout PostgresBindings
        ) -> String? {
            guard parsed.ownerPrefixes.isEmpty else { return nil }
            let gone: String
            if let owner {
                bindings.append(owner.rawValue)
                gone =
                    "SELECT $\(bindings.count)::bigint AS uid "
                    + "WHERE NOT EXISTS (SELECT FROM users WHERE id = $\(bindings.count))"
            } else {
                gone = """
                    WITH RECURSIVE seen(uid) AS (
                        SELECT min(user_id) FROM items
                        UNION ALL
                        SELECT (SELECT min(user_id) FROM items WHERE user_id > seen.uid) FROM seen
                        WHERE seen.uid IS NOT NULL)
                    SELECT uid FROM seen
                    WHERE uid IS NOT NULL AND NOT EXISTS (SELECT FROM users WHERE users.id = seen.uid)
                    """
            }
            var inner = postgresFilter(into: &bindings, now: now)
            inner.insert("user_id = g.uid", at: 0)
            if let cursor, let ownerID = cursor.ownerID {
                if let ownerName = cursor.ownerName, !ownerName.isEmpty {
                    // Among the owners: every ownerless item comes after it, none before.
                    if backward { return nil }
                } else {
                    // Among the owners when its owner is a user (all of this part after it, none
                    // before: the bound past either end), else among these items, by its ID.
                    let (comparison, start, end) =
                        increasing
                        ? (">", "-1", "9223372036854775807") : ("<", "9223372036854775807", "-1")
                    bindings.append(ownerID.rawValue)
                    let owner = "$\(bindings.count)"
                    bindings.append(cursor.id.rawValue)
                    inner.append(
                        "id \(comparison) CASE WHEN EXISTS (SELECT FROM users WHERE id = \(owner)) "
                            + "THEN \(backward ? end : start) ELSE $\(bindings.count) END")
                }
            }
            let order = increasing ? "ASC" : "DESC"
            let columns = Self.postgresItemColumns.split(separator: ", ").map { "i." + $0 }.joined(separator: ", ")
            return """
                SELECT \(columns)
                FROM (\(gone)) g CROSS JOIN LATERAL (
                    SELECT \(Self.postgresItemColumns) FROM items WHERE \(inner.joined(separator: " AND "))
                    ORDER BY id \(order)\(limitClause)) i
                ORDER BY i.id \(order)\(limitClause)
                """
        }

        /// The owners' part of a page in the owner ordering: owners by folded name and ID (the index
        /// users_by_name), and for each owner a LATERAL walk of its items by ID (items_by_user
        /// of Migrations/postgres/0003), stopping at the page size. A nested loop returns each
        /// outer row's inner rows in the inner order, so the rows come in the full order with
        /// no sort step (the outer ORDER BY names only the owner's keys for that reason; the
        /// conformance suite checks the order). The cursor's owner resumes after its item.
        private func postgresOwnersPart(
            cursor: ItemCursor?, backward: Bool, increasing: Bool, limitClause: String, now: Date,
            parsed: ItemQueryText, bindings: inout PostgresBindings
        ) -> String {
            var inner = postgresFilter(into: &bindings, now: now, ownerPrefixes: false)
            inner.insert("user_id = u.id", at: 0)
            var outer: [String] = []
            if let owner {
                // Narrows the outer loop to the one owner (the filter narrows the inner one).
                bindings.append(owner.rawValue)
                outer.append("u.id = $\(bindings.count)")
            }
            if !parsed.ownerPrefixes.isEmpty {
                // Tested on the owners, so an owner who does not match is passed by without a
                // look at its items (it walked them all: `@user1` newest owner first read
                // every item of the owners before the first match, 7 to 10 ms at 1,000,000).
                outer.append("(\(Self.ownerPrefixTests(parsed.ownerPrefixes, into: &bindings, users: "u.")))")
            }
            // Filtered by status, priority or a time (and no words): each owner's matches by an
            // index-only scan of items_by_user_status_priority (Migrations/postgres/0015) or the
            // owner's time and priority indexes, only their IDs sorted, then the page's rows by
            // ID; the walk by ID read every row of an owner to test it (`status:done` 2.5 to 8
            // ms at 1,000,000 items).
            // Status and priority together are left to the planner, which knows from the
            // statistics of Migrations/postgres/0009 how often each pair occurs: for a pair that
            // never does (`status:done prio:3`) it reads the (status, priority) index once per
            // owner and finds nothing (1.5 ms at 1,000,000 items), where the IDs' scan and its
            // empty sort per owner took 1.6 to 3.4 ms.
            let filtersStatus = status != nil || !parsed.statuses.isEmpty
            let byIndexedTests =
                parsed.included.isEmpty && !(filtersStatus && parsed.priorities != nil)
                && (filtersStatus || parsed.priorities != nil || !parsed.created.isEmpty || !parsed.updated.isEmpty)
            if byIndexedTests, filtersStatus, parsed.priorities == nil {
                // Every priority the schema allows (its CHECK: 0 to 3), so that the index's
                // priority is a range of the scan and not a reason to read another index.
                inner.append("priority >= 0 AND priority <= 3")
            }
            let (comparison, idComparison, idBound) =
                increasing ? (">=", ">", "-1") : ("<=", "<", "9223372036854775807")
            if let cursor, let ownerID = cursor.ownerID {
                let name: String
                if let ownerName = cursor.ownerName, !ownerName.isEmpty {
                    bindings.append(ownerName)
                    name = "$\(bindings.count)"
                } else if backward {
                    // Looked up as the page is read. A cursor whose owner is gone stands among the
                    // ownerless items, after every owner: every owner comes before it.
                    bindings.append(ownerID.rawValue)
                    name =
                        "coalesce((SELECT name FROM users WHERE id = $\(bindings.count)), "
                        + "\(increasing ? "''" : "chr(1114111)"))"
                } else {
                    // NULL when the owner is gone: no owner comes after such a cursor (the
                    // ownerless items after it are `postgresOwnerlessPart`'s).
                    bindings.append(ownerID.rawValue)
                    name = "(SELECT name FROM users WHERE id = $\(bindings.count))"
                }
                bindings.append(ownerID.rawValue)
                let owner = "$\(bindings.count)"
                bindings.append(cursor.id.rawValue)
                outer.append(
                    "(shelf_fold(u.name) COLLATE \"C\", u.id) \(comparison) "
                        + "(shelf_fold(\(name)) COLLATE \"C\", \(owner))")
                inner.append("id \(idComparison) CASE WHEN u.id = \(owner) THEN $\(bindings.count) ELSE \(idBound) END")
            }
            let order = increasing ? "ASC" : "DESC"
            let columns = Self.postgresItemColumns.split(separator: ", ").map { "i." + $0 }.joined(separator: ", ")
            var sql =
                byIndexedTests
                ? """
                SELECT \(columns)
                FROM users u CROSS JOIN LATERAL (
                    SELECT id FROM items WHERE \(inner.joined(separator: " AND "))
                    ORDER BY id \(order)\(limitClause)) k JOIN items i ON i.id = k.id
                """
                : """
                SELECT \(columns)
                FROM users u CROSS JOIN LATERAL (
                    SELECT \(Self.postgresItemColumns) FROM items WHERE \(inner.joined(separator: " AND "))
                    ORDER BY id \(order)\(limitClause)) i
                """
            if !outer.isEmpty { sql += " WHERE " + outer.joined(separator: " AND ") }
            // The item's ID is always named too (an incremental sort of each owner's rows): any
            // plan other than the nested loop over `users_by_name` loses the order the rows came
            // in. A hash join gave a list without a limit out of order; a scan of the users
            // sorted by name and ID alone, which the planner picked for 77 users with status
            // and priority filtered, scrambled each owner's items, and pages repeated and skipped
            // rows (hostile round 12).
            let itemOrder = byIndexedTests ? ", k.id \(order)" : ", i.id \(order)"
            sql += " ORDER BY shelf_fold(u.name) COLLATE \"C\" \(order), u.id \(order)\(itemOrder)\(limitClause)"
            return sql
        }

        /// How many items match: from the trigger-kept totals when the filters allow
        /// (`postgresCountFromTotals`), else a count over the items table.
        func postgresCount(now: Date = Date()) -> PostgresQuery {
            if let totals = postgresCountFromTotals(now: now) { return totals }
            var bindings = PostgresBindings()
            let clauses = postgresFilter(into: &bindings, now: now)
            var sql = "SELECT count(*) FROM items"
            if !clauses.isEmpty { sql += " WHERE " + clauses.joined(separator: " AND ") }
            return PostgresQuery(unsafeSQL: sql, binds: bindings)
        }
    }

    extension Item {
        /// The types of `ItemQuery.postgresItemColumns`.
        typealias PostgresColumns = (Int64, Int64, String, String?, String, Int64, Int64, Int64, Int64)

        /// Decodes the columns of `ItemQuery.postgresItemColumns`.
        init(postgres row: PostgresRow) throws {
            let (id, userID, title, notes, status, priority, created, updated, version) = try row.decode(
                PostgresColumns.self)
            guard let parsed = Status(rawValue: status) else {
                throw StoreError(
                    .corrupt,
                    "item \(id) has the unknown status '\(status)', which shelf never writes; "
                        + "set it to 'open' or 'done' with psql")
            }
            self.init(
                id: ID(id), userID: User.ID(userID), title: title, notes: notes, status: parsed,
                priority: Int(priority), createdAt: Date(postgresMilliseconds: created),
                updatedAt: Date(postgresMilliseconds: updated), version: version)
        }
    }
#endif
