internal import Foundation
internal import ShelfReactive
public import ShelfStore

/// `y` and `Y` of any number of items: the text is made and handed on a page at a time, on a
/// thread of its own, so a million items never sit in memory nor hold the main actor.
extension ItemActions {
    /// Copies the marked items (or the selected one) as text lines or as export JSON:
    /// `write` takes the text piece by piece and `finish` ends the copy (both called on a
    /// thread of their own, which may block). Marks of a query are read a page at a time in
    /// the query's order (the IDs marked besides after them); marks by ID in ID order. While it
    /// runs, `message` says how many items are copied of how many, and `cancelBulkWrite()` (Esc)
    /// stops it before `finish`. Returns what `finish` returned and how many items were
    /// copied; nil when there was nothing to copy, it failed or it was cancelled (then
    /// `message` says so, `finish` was not called, and `write`'s copy is the caller's to drop).
    public func copy<Outcome: Sendable>(
        selected: Item.ID?, json: Bool, write: @escaping @Sendable (String) throws -> Void,
        finish: @escaping @Sendable () throws -> Outcome
    ) async -> (outcome: Outcome, count: Int)? {
        let selection = describedSelection
        let ids = targets(selected: selected)
        guard selection != nil || !ids.isEmpty else { return nil }
        let store = self.store
        let total = selection != nil ? mutableMarks.value.count : ids.count
        mutableMessage.value = "copying \(Self.describe(total))… (Esc cancels)"
        // Said on the main actor as pages go, while the copy still runs.
        let progress: @Sendable (Int) -> Void = { [weak self] done in
            Task { @MainActor in
                guard let self, self.copyCancel != nil else { return }
                self.mutableMessage.value =
                    "copying \(Formatting.count(done))/\(Formatting.count(max(total, done))) items… (Esc cancels)"
            }
        }
        let task = Task { @MainActor () -> Result<(outcome: Outcome, count: Int), any Error> in
            do {
                return .success(
                    try await Self.copy(
                        selection: selection, ids: ids, json: json, store: store, progress: progress, write: write,
                        finish: finish))
            } catch {
                return .failure(error)
            }
        }
        copyCancel = { task.cancel() }
        defer { copyCancel = nil }
        switch await task.value {
        case .success(let copy):
            return copy
        case .failure(is CancellationError):
            mutableMessage.value = "copy cancelled: nothing was copied"
            return nil
        case .failure(let error):
            fail("Could not copy: \(error)")
            return nil
        }
    }

    /// The copy itself, on a thread of its own: stops with `CancellationError` between pages
    /// when its task is cancelled, before `finish`.
    nonisolated private static func copy<Outcome: Sendable>(
        selection: ItemSelection?, ids: [Item.ID], json: Bool, store: Store,
        progress: @escaping @Sendable (Int) -> Void, write: @escaping @Sendable (String) throws -> Void,
        finish: @escaping @Sendable () throws -> Outcome
    ) async throws -> (outcome: Outcome, count: Int) {
        try await BlockingWork.run { cancellation in
            let owners = try BlockingWork.waitFor {
                Dictionary(
                    try await store.users.users().map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first })
            }
            var count = 0
            func emit(_ items: [Item]) throws {
                var text = ""
                for item in items {
                    if json {
                        text += (count == 0 ? "[\n" : ",\n") + ItemCopyFormat.jsonObject(item, owners: owners)
                    } else {
                        text += ItemCopyFormat.lines([item], owners: owners)
                    }
                    count += 1
                }
                if !text.isEmpty { try write(text) }
                progress(count)
            }
            if let selection {
                try Self.streamSelection(selection, store: store, cancellation: cancellation, emit: emit)
            } else {
                try emit(try BlockingWork.waitFor { try await Self.items(ids: Set(ids), store: store) })
            }
            if json { try write(count == 0 ? "[]\n" : "\n]\n") }
            // Esc after the last page: nothing is claimed as done.
            try cancellation.check()
            return (try finish(), count)
        }
    }

    /// Hands `emit` every item of `selection` a page at a time: the query's matches in its
    /// order (up to `through`) less the exceptions, then the IDs marked besides that do not
    /// match. Blocks: call it on a thread of its own.
    nonisolated static func streamSelection(
        _ selection: ItemSelection, store: Store, cancellation: BlockingCancellation,
        emit: ([Item]) throws -> Void
    ) throws {
        var besides = selection.included
        if var marked = selection.query {
            // What matched when the items were marked, as a bulk action reads them.
            marked.agesFrom = selection.now
            let query = marked
            var cursor: ItemCursor?
            while true {
                try cancellation.check()
                let after = cursor
                let page = try BlockingWork.waitFor {
                    try await store.items.items(matching: query, after: after, limit: pageSize)
                }
                // Items added after the marks were made are not marked (`through`), as in a bulk
                // action and the count the progress line says.
                let chosen = page.filter { !selection.excluded.contains($0.id) && selection.bounds($0.id) }
                try emit(chosen)
                for item in chosen { besides.remove(item.id) }
                guard page.count == pageSize, let last = page.last else { break }
                cursor = ItemCursor(last)
            }
        }
        let rest = besides
        if !rest.isEmpty { try emit(try BlockingWork.waitFor { try await items(ids: rest, store: store) }) }
    }

    // MARK: - Copy of a few, in memory

    /// The marked items (or the selected one) as text lines or as export JSON, by ID; nil
    /// when there is nothing to copy or reading failed (then `message` says why).
    public func copyText(selected: Item.ID?, json: Bool) async -> (text: String, count: Int)? {
        let ids = targets(selected: selected)
        guard !ids.isEmpty || describedSelection != nil else { return nil }
        do {
            let items: [Item]
            if let selection = describedSelection {
                items = try await self.items(in: selection)
            } else {
                items = try await self.read(ids)
            }
            var owners: [User.ID: User] = [:]
            for owner in Set(items.map(\.userID)) {
                owners[owner] = try await store.users.user(id: owner)
            }
            let text = json ? ItemCopyFormat.json(items, owners: owners) : ItemCopyFormat.lines(items, owners: owners)
            return (text, items.count)
        } catch {
            fail("Could not read the items to copy: \(error)")
            return nil
        }
    }

    /// Says where a copy of `count` items (`json`: as export JSON) went: the terminal's
    /// clipboard when `file` is nil, else that file.
    public func copied(_ count: Int, json: Bool, toFile file: String?) {
        let what = "\(Self.describe(count))\(json ? " as JSON" : "")"
        mutableMessage.value = "copied \(what) to \(file ?? "the clipboard")"
    }

    /// Says that copying failed, and why.
    public func copyFailed(_ error: any Error) {
        fail("Could not copy: \(error)")
    }
}
