#if PostgreSQL
    internal import Foundation
    package import PostgresNIO
    package import ShelfStore

    extension ItemQuery {
        /// The columns every item read selects, in the order `Item(postgres:)` decodes them.
        static let postgresItemColumns =
            "id, user_id, title, notes, status, priority, created_at, updated_at, version"

        /// The sort key of a field as an expression over items, and as the same expression
        /// over a bound value. Titles sort as SQLite's NOCASE: ASCII letters folded, the rest
        /// by code point (see `shelf_fold` in Migrations/postgres/0001).
        private static func sortKey(_ field: SortField) -> (column: String, value: (String) -> String) {
            switch field {
            case .created: ("created_at", { $0 })
            case .updated: ("updated_at", { $0 })
            case .priority: ("priority", { $0 })
            case .title: ("shelf_fold(title) COLLATE \"C\"", { "shelf_fold(\($0)) COLLATE \"C\"" })
            }
        }

        /// The tsquery text for `text`: every word quoted and a prefix (`'word':*`), joined by
        /// `&`; nil when the text holds no word. Bound as a parameter of
        /// `to_tsquery('simple', …)`: words hold only letters, digits and marks, so no input
        /// can break out of its quotes nor raise a syntax error.
        static func tsquery(for text: String) -> String? {
            // A word of combining marks alone folds to nothing (see `searchFoldedMarks`), and
            // an empty quoted word is a syntax error in a tsquery.
            let words = FullTextQuery.words(in: text).filter { word in
                !word.unicodeScalars.allSatisfy { scalar in
                    searchFoldedMarks.contains { $0.contains(scalar.value) }
                }
            }
            guard !words.isEmpty else { return nil }
            return words.map { "'\($0)':*" }.joined(separator: " & ")
        }

        /// The code points `shelf_search_fold` (Migrations/postgres/0001) removes: the blocks
        /// of combining marks.
        static let searchFoldedMarks: [ClosedRange<UInt32>] = [
            0x0300...0x036F, 0x1AB0...0x1AFF, 0x1DC0...0x1DFF, 0x20D0...0x20FF, 0xFE20...0xFE2F,
        ]

        /// The WHERE clauses of the owner, status and text filters, binding their values.
        func postgresFilter(into bindings: inout PostgresBindings, prefix: String = "") -> [String] {
            var clauses: [String] = []
            if let owner {
                bindings.append(owner.rawValue)
                clauses.append("\(prefix)user_id = $\(bindings.count)")
            }
            if let status {
                bindings.append(status.rawValue)
                clauses.append("\(prefix)status = $\(bindings.count)")
            }
            if let match = Self.tsquery(for: text) {
                bindings.append(match)
                // Folded as the indexed text is (accents off, one Unicode normal form): see
                // shelf_search_fold in Migrations/postgres/0001. NFD only splits letters into a
                // base and marks, and the marks go, so the quotes stay as they are.
                clauses.append("\(prefix)search @@ to_tsquery('simple', shelf_search_fold($\(bindings.count)))")
            }
            return clauses
        }

        /// One keyset page. `backward` reads the rows before `cursor` in reverse order (the
        /// caller reverses them back). The row comparison `(key, id) > (…)` and the ORDER BY
        /// match an index of Migrations/postgres/0001, so the page is one index range scan.
        package func postgresPage(cursor: ItemCursor?, backward: Bool, limit: Int?) throws -> PostgresQuery {
            if let limit, limit < 0 {
                throw StoreError(.invalidValue, "a page limit must be 0 or more, not \(limit)")
            }
            var bindings = PostgresBindings()
            var clauses = postgresFilter(into: &bindings)
            // Reading forward in ascending order, or backward in descending order, moves to
            // larger keys.
            let increasing = (sortDirection == .ascending) != backward
            let key = Self.sortKey(sortField)
            if let cursor {
                switch sortField {
                case .created: bindings.append(cursor.createdAt.postgresMilliseconds)
                case .updated: bindings.append(cursor.updatedAt.postgresMilliseconds)
                case .priority: bindings.append(Int64(cursor.priority))
                case .title: bindings.append(cursor.title)
                }
                let value = key.value("$\(bindings.count)")
                bindings.append(cursor.id.rawValue)
                clauses.append("(\(key.column), id) \(increasing ? ">" : "<") (\(value), $\(bindings.count))")
            }
            var sql = "SELECT \(Self.postgresItemColumns) FROM items"
            if !clauses.isEmpty { sql += " WHERE " + clauses.joined(separator: " AND ") }
            let order = increasing ? "ASC" : "DESC"
            sql += " ORDER BY \(key.column) \(order), id \(order)"
            if let limit {
                bindings.append(Int64(limit))
                sql += " LIMIT $\(bindings.count)"
            }
            return PostgresQuery(unsafeSQL: sql, binds: bindings)
        }

        /// How many items match.
        func postgresCount() -> PostgresQuery {
            var bindings = PostgresBindings()
            let clauses = postgresFilter(into: &bindings)
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
