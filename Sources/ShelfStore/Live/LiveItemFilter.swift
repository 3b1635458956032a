/// What an `ItemQuery` selects, split into what can be decided from an `ItemImage` alone
/// (owner, status, priority, calendar dates) and what needs the database (words, phrases,
/// substrings and owner-name prefixes: `needsProbe`).
///
/// `admits(_:)` is exact for its part: an image it refuses is not selected by the query, and
/// when `needsProbe` is false an image it admits is.
package struct LiveItemFilter: Hashable, Sendable {
    let owner: User.ID?
    /// Every status the item must have (two different ones select nothing).
    let statuses: [Item.Status]
    let priorities: Range<Int>?
    let created: MillisecondRange?
    let updated: MillisecondRange?
    /// The query has words, phrases, substrings or owner prefixes: whether a row matches them
    /// can only be asked of the database (`probe`).
    package let needsProbe: Bool
    /// The query's result depends on users too: owner prefixes, or the owner ordering.
    package let readsUsers: Bool
    /// The query has ages (`created:<7d`): what it selects changes as time passes, so every
    /// change of items re-reads it, as a fresh read would count the ages back from its moment.
    package let isTimeRelative: Bool

    package init(_ query: ItemQuery) {
        let parsed = ItemQueryText(query.text)
        owner = query.owner
        var statuses = parsed.statuses
        if let status = query.status, !statuses.contains(status) { statuses.append(status) }
        self.statuses = statuses
        priorities = parsed.priorities
        var relative = false
        func range(_ terms: [DateTerm]) -> MillisecondRange? {
            guard !terms.isEmpty else { return nil }
            var result = MillisecondRange()
            for term in terms {
                if case .age = term.value { relative = true }
                result = result.intersection(term.range(now: 0))
            }
            return result
        }
        created = range(parsed.created)
        updated = range(parsed.updated)
        isTimeRelative = relative
        needsProbe = !parsed.included.isEmpty || !parsed.excluded.isEmpty || !parsed.ownerPrefixes.isEmpty
        readsUsers = !parsed.ownerPrefixes.isEmpty || query.sortField == .owner
    }

    /// False when `image` is certainly not selected; true when it passes every test that
    /// needs no database (and is then selected unless `needsProbe` says a probe decides).
    package func admits(_ image: ItemImage) -> Bool {
        if let owner, image.userID != owner { return false }
        for status in statuses where status != image.status { return false }
        if let priorities, !priorities.contains(image.priority) { return false }
        if let created, !Self.contains(created, image.createdAt) { return false }
        if let updated, !Self.contains(updated, image.updatedAt) { return false }
        return true
    }

    private static func contains(_ range: MillisecondRange, _ value: Int64) -> Bool {
        if let lower = range.lower, value < lower { return false }
        if let upper = range.upper, value >= upper { return false }
        return true
    }
}
