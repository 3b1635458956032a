#if PostgreSQL
    internal import Foundation
    internal import PostgresNIO
    internal import ShelfStore

    extension ItemQuery {
        /// The milliseconds of created_at or updated_at are shifted right by this to make the
        /// span of time that `shelf_item_totals` counts by (Migrations/postgres/0012).
        static let postgresCountSpanShift: Int64 = 26

        /// A count that adds up `shelf_item_totals` and the deltas not yet folded into them
        /// (Migrations/postgres/0012) instead of reading every matching row, or nil when the
        /// query filters by anything those totals do not hold: words, phrases or substrings,
        /// both created and updated times, or an owner together with a time. The answer is the
        /// same as the count over the items table, in the statement's one snapshot:
        ///
        /// - the status, priority and owner tests are the same SQL over the totals' and the
        ///   deltas' own copies of those columns (the owner's ID is the bucket of kind 'o');
        /// - a time range `lower <= t < upper` adds the spans that lie wholly inside it from the
        ///   totals and the deltas, and counts the items in the parts of the range outside them
        ///   (less than a span at each end) from the items table, by index;
        /// - a range shorter than two spans is left to the plain count (nil).
        func postgresCountFromTotals(now: Date) -> PostgresQuery? {
            let parsed = ItemQueryText(text)
            guard parsed.included.isEmpty, parsed.excluded.isEmpty, parsed.created.isEmpty || parsed.updated.isEmpty
            else { return nil }
            let timed = !parsed.created.isEmpty || !parsed.updated.isEmpty
            let byOwner = owner != nil || !parsed.ownerPrefixes.isEmpty
            guard !(timed && byOwner) else { return nil }
            var bindings = PostgresBindings()
            // Status and priority: columns of the same names in items, the totals and the deltas.
            var common: [String] = []
            for status in [status].compactMap({ $0 }) + parsed.statuses.filter({ $0 != status }) {
                bindings.append(status.rawValue)
                common.append("status = $\(bindings.count)")
            }
            if let priorities = parsed.priorities {
                bindings.append(Int64(priorities.lowerBound))
                bindings.append(Int64(priorities.upperBound))
                common.append("priority >= $\(bindings.count - 1) AND priority < $\(bindings.count)")
            }
            func sum(_ table: String, _ clauses: [String]) -> String {
                "coalesce((SELECT sum(n) FROM \(table)"
                    + (clauses.isEmpty ? "" : " WHERE " + clauses.joined(separator: " AND ")) + "), 0)"
            }
            guard timed else {
                // By owner (kind 'o'), or by status and priority alone (kind 'c': fewer rows).
                var owners: [(String) -> String] = []
                var with = ""
                if let owner {
                    bindings.append(owner.rawValue)
                    let parameter = "$\(bindings.count)"
                    owners.append { "\($0) = \(parameter)" }
                }
                if !parsed.ownerPrefixes.isEmpty {
                    // As `postgresFilter` selects the owners, once for both sums (each test
                    // folds every candidate's name).
                    with =
                        "WITH owners AS MATERIALIZED (SELECT id FROM users WHERE "
                        + Self.ownerPrefixTests(parsed.ownerPrefixes, into: &bindings) + ") "
                    owners.append { "\($0) IN (SELECT id FROM owners)" }
                }
                let kind = byOwner ? "o" : "c"
                let totals = sum(
                    "shelf_item_totals", ["kind = '\(kind)'"] + owners.map { $0("bucket") } + common)
                let deltas = sum("shelf_item_count_deltas", owners.map { $0("user_id") } + common)
                return PostgresQuery(unsafeSQL: "\(with)SELECT (\(totals) + \(deltas))::bigint", binds: bindings)
            }
            let (kind, column, spanColumn, terms) =
                parsed.updated.isEmpty
                ? ("c", "created_at", "created_span", parsed.created)
                : ("u", "updated_at", "updated_span", parsed.updated)
            let milliseconds = (agesFrom ?? now).postgresMilliseconds
            let range = terms.map { $0.range(now: milliseconds) }.reduce(MillisecondRange()) { $0.intersection($1) }
            // Absurd times (an age of millions of years) stay with the plain count: no shift overflows.
            let bound: Int64 = 1 << 60
            func isModest(_ time: Int64?) -> Bool { time.map { abs($0) < bound } ?? true }
            guard isModest(range.lower), isModest(range.upper) else { return nil }
            let shift = Self.postgresCountSpanShift
            // The spans [first, end) lie wholly inside the range.
            let first = range.lower.map { -((-$0) >> shift) }
            let end = range.upper.map { $0 >> shift }
            if let first, let end, first >= end { return nil }
            var spans: [String] = []
            var buckets: [String] = []
            if let first {
                bindings.append(first)
                spans.append("\(spanColumn) >= $\(bindings.count)")
                buckets.append("bucket >= $\(bindings.count)")
            }
            if let end {
                bindings.append(end)
                spans.append("\(spanColumn) < $\(bindings.count)")
                buckets.append("bucket < $\(bindings.count)")
            }
            var parts = [
                sum("shelf_item_totals", ["kind = '\(kind)'"] + buckets + common),
                sum("shelf_item_count_deltas", spans + common),
            ]
            // The ends outside the whole spans, counted from items by the index of the time.
            for (lower, upper) in [(range.lower, first.map { $0 << shift }), (end.map { $0 << shift }, range.upper)] {
                guard let lower, let upper, lower < upper else { continue }
                bindings.append(lower)
                bindings.append(upper)
                let between = "\(column) >= $\(bindings.count - 1) AND \(column) < $\(bindings.count)"
                parts.append("(SELECT count(*) FROM items WHERE \(([between] + common).joined(separator: " AND ")))")
            }
            return PostgresQuery(unsafeSQL: "SELECT (\(parts.joined(separator: " + ")))::bigint", binds: bindings)
        }
    }
#endif
