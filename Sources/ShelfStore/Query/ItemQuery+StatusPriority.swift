extension ItemQuery {
    /// The (status, priority) pairs a page of this query reads one index range each of, merged
    /// in the sort order, or nil when a page reads one range instead: when the query filters
    /// neither status nor priority, has an owner (the owner's own indexes are narrower), is in
    /// the owner ordering, or has words or phrases (their plans read the full-text index).
    ///
    /// Both backends keep, for every ordering but the owner's, an index under
    /// (status, priority) (SQLite migration 0012, PostgreSQL 0009), so each pair is a range
    /// already in order and a page reads at most its own length from each: at 1,000,000 items
    /// `prio:3` read and sorted 250,000 rows, and `status:done prio:3` (no match) walked every
    /// row of the ordering's index. An empty array means no item can match.
    package var statusPriorityPairs: [(status: Item.Status, priority: Int)]? {
        statusPriorityPairs(parsed: ItemQueryText(text))
    }

    /// `statusPriorityPairs` from `text` already parsed (`parsed` must be `ItemQueryText(text)`):
    /// a page read parses its query once.
    package func statusPriorityPairs(parsed: ItemQueryText) -> [(status: Item.Status, priority: Int)]? {
        guard owner == nil, sortField != .owner else { return nil }
        guard parsed.included.isEmpty, status != nil || !parsed.statuses.isEmpty || parsed.priorities != nil else {
            return nil
        }
        var statuses: Set<Item.Status> = [.open, .done]
        for wanted in [status].compactMap({ $0 }) + parsed.statuses { statuses.formIntersection([wanted]) }
        let priorities = (parsed.priorities ?? Self.priorities).clamped(to: Self.priorities)
        return [Item.Status.open, .done].filter(statuses.contains).flatMap { status in
            priorities.map { (status, $0) }
        }
    }

    /// The priorities an item can have (the schema's CHECK constraint).
    static let priorities = 0..<4
}
