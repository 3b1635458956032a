internal import Foundation
internal import ShelfSQLite
internal import ShelfStore

extension ItemQuery {
    /// The milliseconds of created_at or updated_at are shifted right by this to make the
    /// span of time that `shelf_item_counts` counts by (Migrations/0016_item_counts).
    static let countSpanShift: Int64 = 26

    /// A count that adds up the totals of `shelf_item_counts` (Migrations/0016 and 0017)
    /// instead of reading every matching row, or nil when the query filters by anything those
    /// totals do not hold: words, phrases or substrings, both created and updated times, or an
    /// owner (or owner prefixes) together with a time. The answer is the same as `plain`'s (the
    /// count over the items table):
    ///
    /// - the status and priority tests are the same SQL over the totals' own copy of those
    ///   columns, and the owner tests over the bucket of kind 'o' (the owner's ID);
    /// - a time range `lower <= t < upper` adds the spans that lie wholly inside it from the
    ///   totals, and counts the items in the parts of the range outside them (less than a span
    ///   at each end) from the items table, through the index of that time;
    /// - a range shorter than two spans is counted from the items table alone, through the
    ///   index of the time;
    /// - when a row holds a time that is not an integer (written by another program, counted
    ///   under the span 'other'), a time range is counted by `plain` instead.
    ///
    /// A count by status or priority alone reads `shelf_item_counts` only, a table with no
    /// change counter of its own: a live value built on it must observe `items` (as the live
    /// windows do, `SQLiteLiveWindows.observedTables`), not the tables its SQL reads.
    func countFromTotalsSQL(parsed: ItemQueryText, now: Date, plain: BoundSQL) -> BoundSQL? {
        guard parsed.included.isEmpty, parsed.excluded.isEmpty, parsed.created.isEmpty || parsed.updated.isEmpty
        else { return nil }
        let byOwner = owner != nil || !parsed.ownerPrefixes.isEmpty
        // The status and priority tests, as `sqliteFilter` makes them, over a table of alias.
        func statusAndPriority(_ alias: String) -> (clauses: [String], arguments: [any SQLBindable]) {
            var clauses: [String] = []
            var arguments: [any SQLBindable] = []
            if let status {
                clauses.append("\(alias)status = ?")
                arguments.append(status)
            }
            for status in parsed.statuses where status != self.status {
                clauses.append("\(alias)status = ?")
                arguments.append(status)
            }
            if let priorities = parsed.priorities {
                clauses.append("\(alias)priority >= ? AND \(alias)priority < ?")
                arguments += [priorities.lowerBound, priorities.upperBound] as [any SQLBindable]
            }
            return (clauses, arguments)
        }
        let (kind, column, terms) =
            parsed.updated.isEmpty ? ("c", "created_at", parsed.created) : ("u", "updated_at", parsed.updated)
        let totals = statusAndPriority("c.")
        if byOwner {
            // By owner (Migrations/0017): the rows of kind 'o', whose bucket is the owner's ID;
            // an owner with a time stays with the plain count.
            guard terms.isEmpty else { return nil }
            var clauses: [String] = []
            var arguments: [any SQLBindable] = []
            if let owner {
                clauses.append("c.bucket = ?")
                arguments.append(owner)
            }
            if !parsed.ownerPrefixes.isEmpty {
                // The owners as `sqliteFilter` selects them.
                let tests = parsed.ownerPrefixes.map { _ in "name LIKE ? ESCAPE '\\' OR email LIKE ? ESCAPE '\\'" }
                clauses.append("c.bucket IN (SELECT id FROM users WHERE \(tests.joined(separator: " OR ")))")
                for prefix in parsed.ownerPrefixes {
                    let pattern = Self.likePrefix(prefix)
                    arguments += [pattern, pattern] as [any SQLBindable]
                }
            }
            return BoundSQL(
                text: "SELECT coalesce(sum(c.n), 0) FROM shelf_item_counts c WHERE c.kind = 'o' AND "
                    + (clauses + totals.clauses).joined(separator: " AND "),
                arguments: arguments + totals.arguments)
        }
        guard !terms.isEmpty else {
            guard !totals.clauses.isEmpty else { return nil }  // the trigger-kept row count is faster
            return BoundSQL(
                text: "SELECT coalesce(sum(c.n), 0) FROM shelf_item_counts c WHERE c.kind = 'c' AND "
                    + totals.clauses.joined(separator: " AND "),
                arguments: totals.arguments)
        }
        let milliseconds = TimeFormat.milliseconds(since1970: agesFrom ?? now)
        let range = terms.map { $0.range(now: milliseconds) }.reduce(MillisecondRange()) { $0.intersection($1) }
        // Absurd times (an age of millions of years) stay with the plain count: no shift overflows.
        let bound: Int64 = 1 << 60
        func isModest(_ time: Int64?) -> Bool { time.map { abs($0) < bound } ?? true }
        guard isModest(range.lower), isModest(range.upper) else { return nil }
        let shift = Self.countSpanShift
        // The spans [first, end) lie wholly inside the range.
        let first = range.lower.map { -((-$0) >> shift) }
        let end = range.upper.map { $0 >> shift }
        let items = statusAndPriority("+i.")
        // A count of the items between `lower` and `upper` by the index of the time (the unary
        // + keeps the planner off the status and priority indexes, whose ranges hold far more).
        func itemsBetween(_ lower: Int64, _ upper: Int64) -> BoundSQL {
            BoundSQL(
                text: "SELECT count(*) FROM items i WHERE i.\(column) >= ? AND i.\(column) < ?"
                    + items.clauses.map { " AND " + $0 }.joined(),
                arguments: [lower, upper] as [any SQLBindable] + items.arguments)
        }
        // Less than two spans: the items in the range are few, read by the time's index. (The
        // same tests as `plain`'s: a time that is not an integer is outside a closed range.)
        if let lower = range.lower, let upper = range.upper, let first, let end, first >= end {
            return itemsBetween(lower, upper)
        }
        var parts: [String] = []
        var arguments: [any SQLBindable] = []
        var spans = "SELECT coalesce(sum(c.n), 0) FROM shelf_item_counts c WHERE c.kind = '\(kind)'"
        if let first {
            spans += " AND c.bucket >= ?"
            arguments.append(first)
        }
        // Below every text: the span 'other' is left out (it holds no item when this is used).
        spans += " AND c.bucket < ?"
        arguments.append(end ?? Int64.max)
        for clause in totals.clauses { spans += " AND " + clause }
        arguments += totals.arguments
        parts.append("(\(spans))")
        // The ends outside the whole spans.
        for (lower, upper) in [(range.lower, first.map { $0 << shift }), (end.map { $0 << shift }, range.upper)] {
            guard let lower, let upper, lower < upper else { continue }
            let part = itemsBetween(lower, upper)
            parts.append("(\(part.text))")
            arguments += part.arguments
        }
        return BoundSQL(
            text: "SELECT CASE WHEN EXISTS (SELECT 1 FROM shelf_item_counts WHERE kind = '\(kind)' "
                + "AND bucket = 'other' AND n > 0) THEN (\(plain.text)) ELSE \(parts.joined(separator: " + ")) END",
            arguments: plain.arguments + arguments)
    }
}
