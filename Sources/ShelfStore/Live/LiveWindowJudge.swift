/// Which live item window: a query, the anchor it starts after, and how many items it holds.
/// Live windows with equal keys share one entry, one read and one result.
package struct LiveWindowKey: Hashable, Sendable {
    package var query: ItemQuery
    package var anchor: ItemCursor?
    package var limit: Int

    package init(query: ItemQuery, anchor: ItemCursor?, limit: Int) {
        self.query = query
        self.anchor = anchor
        self.limit = limit
    }
}

/// What a batch of changes does to a live window (`LiveWindowJudge.judge`).
package enum LiveWindowVerdict: Sendable {
    /// No change can have entered, left or altered the window or its count.
    case unchanged
    /// The window after the changes, computed from the changed rows without re-reading it.
    case updated(ItemWindow)
    /// The items are known (`items`), but the count must be read again, in the snapshot the
    /// changes were read in.
    case countChanged(items: [Item])
    /// The window and its count must be read again.
    case rerun
}

/// Decides whether changes of rows can affect a live window, and updates the window from the
/// changed rows when it can: exact, never a guess. Pure: the backend hands it the changes
/// (from its change log) and two questions it answers in the snapshot the changes were read
/// in, for changed rows only.
///
/// A backend's pass calls `judge` for each live window with the changes after the window's
/// position, and then: `.unchanged`, moves the window's position to the batch's end;
/// `.updated`, publishes the new window (if it differs) at that position; `.countChanged`,
/// reads the count (same snapshot) and publishes; `.rerun`, reads page and count again (any
/// snapshot; the window's position is then the log's end in that snapshot).
package struct LiveWindowJudge: Sendable {
    package let key: LiveWindowKey
    package let filter: LiveItemFilter
    let order: ItemOrder
    let anchorKey: ItemOrder.Key?

    package init(_ key: LiveWindowKey) {
        self.key = key
        filter = LiveItemFilter(key.query)
        order = ItemOrder(key.query)
        anchorKey = key.anchor.map { ItemOrder(key.query).key($0) }
    }

    /// The IDs among `changes` that `judge` may ask `matches` about: rows that exist after
    /// the change and pass the filter's own tests, when the query has words or owner prefixes.
    /// A backend that must fetch answers ahead (asynchronously) asks these.
    package func probeCandidates(_ changes: [ItemChange]) -> [Item.ID] {
        guard filter.needsProbe else { return [] }
        return changes.compactMap { change in change.after.map { filter.admits($0) } == true ? change.id : nil }
    }

    /// What `changes` (net, per row: `ItemChange.net`, all after the window's position) do to
    /// `window`, which was exact at that position.
    ///
    /// - Parameters:
    ///   - usersChanged: whether users changed after the window's position.
    ///   - matches: whether row `id` (which exists in the changes' snapshot and passes
    ///     `filter.admits`) is selected by the whole query in that snapshot; asked only for
    ///     `probeCandidates`.
    ///   - item: the row `id` in that snapshot (asked only for rows the window gains or keeps).
    package func judge(
        _ window: ItemWindow, changes: [ItemChange], usersChanged: Bool,
        matches: (Item.ID) throws -> Bool, item: (Item.ID) throws -> Item?
    ) rethrows -> LiveWindowVerdict {
        if usersChanged, filter.readsUsers { return .rerun }
        if changes.isEmpty { return .unchanged }
        if filter.isTimeRelative { return .rerun }
        var items = window.items
        var count = window.totalCount
        var countKnown = true
        // True while every selected row after the anchor is in `items`.
        var complete = items.count < key.limit
        var needsRefill = false

        func inRange(_ candidate: ItemOrder.Key) -> Bool {
            if let anchorKey, !order.precedes(anchorKey, candidate) { return false }
            if complete { return true }
            guard let last = items.last else { return false }
            return !order.precedes(order.key(last), candidate)
        }

        for change in changes {
            let index = items.firstIndex { $0.id == change.id }
            let afterIn: Bool
            if let after = change.after, filter.admits(after) {
                afterIn = filter.needsProbe ? try matches(change.id) : true
            } else {
                afterIn = false
            }
            let beforeIn: Bool?
            if let before = change.before {
                if index != nil {
                    beforeIn = true
                } else if !filter.admits(before) {
                    beforeIn = false
                } else if !filter.needsProbe {
                    beforeIn = true
                } else if order.isComputable, inRange(order.key(before, id: change.id)) {
                    // Selected rows in the window's range are all in the window.
                    beforeIn = false
                } else if !change.textChanged, let after = change.after, after.userID == before.userID,
                    filter.admits(after)
                {
                    // Same text, same owner: the words and owner prefixes match as they did.
                    beforeIn = afterIn
                } else {
                    beforeIn = nil
                }
            } else {
                beforeIn = false
            }
            if beforeIn == false, !afterIn { continue }
            if let beforeIn {
                count += (afterIn ? 1 : 0) - (beforeIn ? 1 : 0)
            } else {
                countKnown = false
            }
            guard order.isComputable else { return .rerun }
            if let index {
                items.remove(at: index)
                if !complete { needsRefill = true }
            }
            guard afterIn, let after = change.after, inRange(order.key(after, id: change.id)) else { continue }
            guard let fresh = try item(change.id) else { return .rerun }
            let freshKey = order.key(fresh)
            let position = items.firstIndex { order.precedes(freshKey, order.key($0)) } ?? items.endIndex
            items.insert(fresh, at: position)
            if items.count > key.limit {
                items.removeLast()
                complete = false
            }
        }
        if needsRefill { return .rerun }
        guard countKnown else { return .countChanged(items: items) }
        let updated = ItemWindow(items: items, totalCount: count)
        return updated == window ? .unchanged : .updated(updated)
    }
}
