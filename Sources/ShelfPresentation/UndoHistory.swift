public import ShelfStore

/// What one action did to the store, as values: enough to undo it, and to check first that
/// nobody changed the items since.
public enum ItemChange: Hashable, Sendable {
    /// Items were saved: `previous` holds the fields they had before, `stored` the items as
    /// the action left them (their versions are the ones this browser wrote).
    case updated(previous: [Item], stored: [Item])
    /// Items were deleted; each is kept whole (ID, notes, times, version).
    case deleted([Item])
    /// Deleted items were put back (an undone delete), exactly as they were.
    case restored([Item])
    /// A bulk change of marked items, recorded by the store (what undo needs is in the
    /// database, under the action's ID): undo and redo ask the store to replay it.
    case bulk(BulkAction)

    /// How many items the change touched.
    public var count: Int {
        switch self {
        case .updated(let previous, _): previous.count
        case .deleted(let items), .restored(let items): items.count
        case .bulk(let action): action.count
        }
    }

    /// The items to write to reverse `.updated`: `previous`'s fields at `stored`'s versions, so
    /// the store refuses them (`.conflict`) when an item changed since. Empty for the other
    /// cases. `previous` and `stored` are matched by ID.
    public var reversingWrites: [Item] {
        guard case .updated(let previous, let stored) = self else { return [] }
        let storedByID = Dictionary(stored.map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first })
        return previous.compactMap { old in
            guard let now = storedByID[old.id] else { return nil }
            return Item(
                id: old.id, userID: old.userID, title: old.title, notes: old.notes, status: old.status,
                priority: old.priority, createdAt: now.createdAt, updatedAt: now.updatedAt, version: now.version)
        }
    }

    /// This change with the items this browser has since written (`written`, by ID) taken
    /// into account: a stored item keeps its fields (what undo goes back to or forward to) and
    /// takes the written version and times; a restored item is replaced whole.
    func refreshed(with written: [Item.ID: Item]) -> ItemChange {
        switch self {
        case .updated(let previous, let stored):
            return .updated(
                previous: previous,
                stored: stored.map { item in
                    guard let now = written[item.id] else { return item }
                    return Item(
                        id: item.id, userID: item.userID, title: item.title, notes: item.notes, status: item.status,
                        priority: item.priority, createdAt: now.createdAt, updatedAt: now.updatedAt,
                        version: now.version)
                })
        case .deleted(let items): return .deleted(items.map { written[$0.id] ?? $0 })
        case .restored(let items): return .restored(items.map { written[$0.id] ?? $0 })
        case .bulk: return self
        }
    }

    /// The change that reverses this one once it has been applied: `written` are the items
    /// the store returned for `reversingWrites` (used only for `.updated`).
    public func reversed(written: [Item]) -> ItemChange {
        switch self {
        case .updated(_, let stored): .updated(previous: stored, stored: written)
        case .deleted(let items): .restored(items)
        case .restored(let items): .deleted(items)
        case .bulk: self  // the store knows whether it is undone
        }
    }
}

/// One action in the history: its name for the status bar and what it changed.
public struct HistoryEntry: Hashable, Sendable {
    /// What the action was, in words for "undid: …": "delete 3 items", "edit item 12".
    public let name: String
    /// What it changed; undoing applies its reverse.
    public let change: ItemChange

    /// An entry named `name` for `change`.
    public init(name: String, change: ItemChange) {
        self.name = name
        self.change = change
    }
}

/// The undo and redo stacks of one browser session, as plain values (no store, no
/// terminal).
///
/// `record(_:)` pushes a new action and forgets what could be redone. `undone(_:)` and
/// `redone(_:)` move an entry across after it was applied, replacing it with the entry that
/// reverses what was just done (new versions, deleted ↔ restored). Every write this browser
/// makes is carried into the other entries too (an undo bumps the versions an older entry
/// will check), so only somebody else's change makes an undo refuse. A failed undo leaves the
/// history as it was. Entries are kept for the history's lifetime; the oldest are dropped past
/// `limit`, and `record(_:)` returns what it dropped (bulk entries keep their before-values in
/// the store, which the caller then deletes, and the status bar says so).
public struct UndoHistory: Hashable, Sendable {
    /// Entries that can be undone, oldest first.
    public private(set) var undoStack: [HistoryEntry] = []
    /// Entries that can be redone, the next one last.
    public private(set) var redoStack: [HistoryEntry] = []
    /// Most entries kept on each stack.
    public let limit: Int

    /// An empty history keeping at most `limit` entries (at least 1).
    public init(limit: Int = 1_000) {
        self.limit = max(1, limit)
    }

    /// The action `undo` would reverse, or nil.
    public var nextUndo: HistoryEntry? { undoStack.last }
    /// The action `redo` would apply again, or nil.
    public var nextRedo: HistoryEntry? { redoStack.last }

    /// Records a new action; what could be redone is forgotten. Actions that changed nothing
    /// are not recorded. Returns the entries dropped: the redo stack, and the oldest entries
    /// past `limit`.
    @discardableResult
    public mutating func record(_ entry: HistoryEntry) -> (redo: [HistoryEntry], oldest: [HistoryEntry]) {
        guard entry.change.count > 0 else { return ([], []) }
        let redo = redoStack
        redoStack.removeAll()
        if case .updated(_, let stored) = entry.change { refresh(with: stored) }
        undoStack.append(entry)
        var oldest: [HistoryEntry] = []
        if undoStack.count > limit {
            oldest = Array(undoStack.prefix(undoStack.count - limit))
            undoStack.removeFirst(undoStack.count - limit)
        }
        return (redo, oldest)
    }

    /// After `nextUndo` was reversed in the store, with `written` the items the store now holds
    /// (returned by an update, or put back by a restore): moves it to the redo stack as the entry that does it again.
    public mutating func undone(written: [Item] = []) {
        guard let entry = undoStack.popLast() else { return }
        refresh(with: written)
        redoStack.append(HistoryEntry(name: entry.name, change: entry.change.reversed(written: written)))
        if redoStack.count > limit { redoStack.removeFirst(redoStack.count - limit) }
    }

    /// After `nextRedo` was applied in the store, with `written` the items the store now holds
    /// (returned by an update, or put back by a restore): moves it back to the undo stack, reversible again.
    public mutating func redone(written: [Item] = []) {
        guard let entry = redoStack.popLast() else { return }
        refresh(with: written)
        undoStack.append(HistoryEntry(name: entry.name, change: entry.change.reversed(written: written)))
        if undoStack.count > limit { undoStack.removeFirst(undoStack.count - limit) }
    }

    /// Carries items this browser wrote into every entry (see `ItemChange.refreshed(with:)`).
    private mutating func refresh(with written: [Item]) {
        guard !written.isEmpty else { return }
        let byID = Dictionary(written.map { ($0.id, $0) }, uniquingKeysWith: { _, last in last })
        undoStack = undoStack.map { HistoryEntry(name: $0.name, change: $0.change.refreshed(with: byID)) }
        redoStack = redoStack.map { HistoryEntry(name: $0.name, change: $0.change.refreshed(with: byID)) }
    }
}
