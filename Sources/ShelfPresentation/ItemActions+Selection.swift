internal import Foundation
internal import ShelfReactive
public import ShelfStore

/// Marks that describe a query ("all that match, except these"), and the bulk actions on
/// them: set-based writes in the store, recorded there for undo (`BulkItemWriting`).
extension ItemActions {
    /// The marks as a selection when they describe a query; nil for marks by ID or none.
    var describedSelection: ItemSelection? {
        let marks = mutableMarks.value
        return marks.isDescribed ? marks.selection : nil
    }

    /// True while a bulk write or a copy of the marked items runs (Esc cancels it:
    /// `cancelBulkWrite()`).
    public var isBulkWriting: Bool { bulkWrite != nil || copyCancel != nil }

    /// Counts the marks of a query again in the store (items deleted, or changed so they no
    /// longer match, leave the count). A count already queued serves this call too. When the
    /// store cannot be read, `message` says why and the count stays.
    public func recountMarks() async {
        guard let selection = describedSelection else { return }
        do {
            let count = try await store.items.count(in: selection, status: nil)
            // The marks may have changed meanwhile (a toggle): count those.
            if describedSelection == selection {
                mutableMarks.value.counted = count
            } else if describedSelection != nil {
                scheduleRecount()
            }
        } catch {
            fail("Could not count the marked items: \(error)")
        }
    }

    /// Queues one recount of a query's marks (many changes in a burst share it).
    public func scheduleRecount() {
        guard describedSelection != nil, !recountQueued else { return }
        recountQueued = true
        enqueue { [weak self] in
            self?.recountQueued = false
            await self?.recountMarks()
        }
    }

    /// Learns which of `rows` (the rows a list of `query` holds) carry a query's marks: all of
    /// them when the list shows the marks' query, else the store says which match it.
    public func lookUpMarks(rows: [Item.ID], listQuery: ItemQuery) async {
        guard let selection = describedSelection, let query = selection.query else { return }
        if Self.sameFilter(query, listQuery) {
            mutableMarks.value.learnMatching(Set(rows))
            return
        }
        do {
            let matching = try await store.items.ids(
                in: ItemSelection(matching: query, now: selection.now, through: selection.through), among: rows)
            if describedSelection?.query == query { mutableMarks.value.learnMatching(matching) }
        } catch {
            fail("Could not tell which rows are marked: \(error)")
        }
    }

    /// True when `a` and `b` select the same items (they may order them differently).
    nonisolated static func sameFilter(_ a: ItemQuery, _ b: ItemQuery) -> Bool {
        a.owner == b.owner && a.status == b.status && a.text == b.text
    }

    /// Stops the bulk write running now, if any: its transaction rolls back, nothing changes.
    /// Stops a copy running now too: it ends before its file is put in place.
    public func cancelBulkWrite() {
        bulkWrite?.cancel()
        copyCancel?()
    }

    /// Ends the bulk change in progress, if any, as Esc does, and waits for it to end: for the
    /// browser's end (a quit, or a signal such as a closed terminal's SIGHUP), so that no change
    /// goes on after the session whose history could undo it. Returns what became of it, or nil
    /// when none ran.
    public func endBulkWrite() async -> String? {
        guard let task = bulkWrite else { return nil }
        let recorded = history.undoStack.count
        task.cancel()
        await task.value
        return history.undoStack.count > recorded
            ? "the bulk change in progress had already finished when the browser ended"
            : "the bulk change in progress was cancelled when the browser ended: nothing was changed"
    }

    /// Marks done every item of `selection` when any of them is open, else marks them all open.
    func toggleDone(in selection: ItemSelection) async {
        let open: Int
        do {
            open = try await store.items.count(in: selection, status: .open)
        } catch {
            fail("Could not read the marked items: \(error)")
            return
        }
        await bulk(.status(open > 0 ? .done : .open), in: selection)
    }

    /// Applies `change` to `selection` in the store, off the main actor, with a progress line
    /// in `message`; records it for undo. Esc (`cancelBulkWrite()`) rolls it back.
    func bulk(_ change: BulkChange, in selection: ItemSelection, ownerName: String? = nil) async {
        await runBulk("change") { [store] progress in
            let action = try await store.items.updateItems(in: selection, change, progress: progress)
            let name = Self.name(of: change, count: action.count, ownerName: ownerName)
            if action.count > 0 { await self.record(HistoryEntry(name: name, change: .bulk(action))) }
            if change == .delete { self.mutableMarks.value.removeAll() } else { await self.recountMarks() }
            return action.count == 0 ? "nothing to change" : Self.past(name)
        }
    }

    /// Undoes or redoes a bulk action through the store; says how many items it skipped
    /// because they changed elsewhere since.
    func replay(_ action: BulkAction, name: String, undoing: Bool) async {
        await runBulk(undoing ? "undo" : "redo") { [store] _ in
            let replay = try await undoing ? store.items.undo(action) : store.items.redo(action)
            if undoing { self.history.undone() } else { self.history.redone() }
            await self.recountMarks()
            // Items an earlier undo or redo skipped are left alone from then on: said too, so
            // the message never claims the action's whole count.
            let earlier = max(0, action.count - replay.applied - replay.skipped)
            var notes: [String] = []
            let changed = replay.skipped - replay.ownerGone
            if changed > 0 { notes.append("skipped \(Self.describe(changed)) changed elsewhere since") }
            if replay.ownerGone > 0 {
                notes.append("skipped \(Self.describe(replay.ownerGone)) whose owner before was deleted since")
            }
            if earlier > 0 { notes.append("left \(Self.describe(earlier)) alone, changed elsewhere before") }
            let said = notes.isEmpty ? "" : " (" + notes.joined(separator: "; ") + ")"
            // Never "undid" when not one item was: every one changed elsewhere (hostile round 6).
            let verb =
                undoing
                ? (replay.applied == 0 ? "undid nothing of" : "undid")
                : (replay.applied == 0 ? "redid nothing of" : "redid")
            return "\(verb): \(name)\(said)"
        }
    }

    /// Ends the session's undo history (the browser quits): the bulk changes it could undo or
    /// redo lose their records in the store, which hold the items' before-values, a deleted
    /// item's title and notes among them; no later session could undo them anyway. Returns
    /// what went wrong, nil when done. (Records a killed session leaves go after a day.)
    public func endHistory() async -> String? {
        let bulk = (history.undoStack + history.redoStack).compactMap { entry -> Int64? in
            if case .bulk(let action) = entry.change { return action.id }
            return nil
        }
        guard !bulk.isEmpty else { return nil }
        do {
            try await store.items.forget(bulk)
            history = UndoHistory(limit: history.limit)
            return nil
        } catch {
            return "could not delete the undo records of this session's bulk changes (they go after a day): \(error)"
        }
    }

    /// Records `entry`; the bulk entries the history drops lose their records in the store,
    /// and the status bar says what a full history dropped.
    func record(_ entry: HistoryEntry) async {
        let dropped = history.record(entry)
        let bulk = (dropped.redo + dropped.oldest).compactMap { entry -> Int64? in
            if case .bulk(let action) = entry.change { return action.id }
            return nil
        }
        if !bulk.isEmpty {
            do {
                try await store.items.forget(bulk)
            } catch {
                fail("Could not delete the undo records of old bulk changes: \(error)")
            }
        }
        if let first = dropped.oldest.first {
            // Said after the action's outcome (`run` adds it), or now when no action runs.
            let note =
                "the undo history is full (\(history.limit == 1 ? "1 action" : "\(Formatting.count(history.limit)) actions")): "
                + "dropped “\(first.name)”"
                + (dropped.oldest.count > 1 ? " and \(dropped.oldest.count - 1) more" : "")
            if isWorking { historyNote = note } else { mutableMessage.value = note }
        }
    }

    /// Runs a bulk write like `run(_:_:)`, in a task `cancelBulkWrite()` cancels, with its
    /// progress in `message`.
    private func runBulk(
        _ what: String,
        _ body:
            @escaping @MainActor @Sendable (_ progress: @escaping @Sendable (BulkProgress) -> Void) async throws ->
            String?
    ) async {
        await run(what) {
            let verb = what == "change" ? "changing" : what == "undo" ? "undoing" : "redoing"
            self.mutableMessage.value = "\(verb)… (Esc cancels)"
            let progress: @Sendable (BulkProgress) -> Void = { [weak self] progress in
                Task { @MainActor in
                    guard let self, self.bulkWrite != nil else { return }
                    self.mutableMessage.value =
                        "\(verb) \(Formatting.count(progress.done))/\(Formatting.count(progress.total)) items… (Esc cancels)"
                }
            }
            let outcome = OutcomeBox()
            let task = Task { @MainActor in
                do {
                    outcome.result = .success(try await body(progress))
                } catch {
                    outcome.result = .failure(error)
                }
            }
            self.bulkWrite = task
            defer { self.bulkWrite = nil }
            await task.value
            switch outcome.result {
            case .success(let message): return message
            case .failure(is CancellationError):
                return "cancelled: nothing was \(what == "change" ? "changed" : "\(what)ne")"
            case .failure(let error): throw error
            case nil: return nil
            }
        }
    }

    /// Every item of `selection`, by ID (for a copy): a query's matches are read a page at a
    /// time, less the exceptions, plus the IDs marked besides.
    func items(in selection: ItemSelection) async throws -> [Item] {
        var found: [Item] = []
        if var query = selection.query {
            // What matched when the items were marked, as a bulk action reads them.
            query.agesFrom = selection.now
            var cursor: ItemCursor?
            while true {
                let page = try await store.items.items(matching: query, after: cursor, limit: Self.pageSize)
                found.append(
                    contentsOf: page.lazy.filter { !selection.excluded.contains($0.id) && selection.bounds($0.id) })
                guard page.count == Self.pageSize, let last = page.last else { break }
                cursor = ItemCursor(last)
            }
        }
        let have = Set(found.map(\.id))
        found += try await Self.items(ids: selection.included.subtracting(have), store: store)
        return found.sorted { $0.id < $1.id }
    }

    /// The name of a bulk change for the history: "mark 3 items done".
    nonisolated static func name(of change: BulkChange, count: Int, ownerName: String?) -> String {
        switch change {
        case .status(let status): "mark \(describe(count)) \(status.rawValue)"
        case .priority(let priority): "set priority \(priority) on \(describe(count))"
        case .owner(let owner): "give \(describe(count)) to \(ownerName ?? "user \(owner.rawValue)")"
        case .delete: "delete \(describe(count))"
        }
    }
}

extension ItemSelection {
    /// False for an item of the query added after it was marked (an ID past `through`).
    func bounds(_ id: Item.ID) -> Bool {
        through.map { id <= $0 } ?? true
    }
}

/// Where `runBulk` keeps its task's outcome.
@MainActor
private final class OutcomeBox {
    var result: Result<String?, any Error>?
}
