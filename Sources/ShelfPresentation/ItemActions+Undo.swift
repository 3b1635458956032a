internal import Foundation
internal import ShelfReactive
internal import ShelfStore

/// Undo and redo of the session's actions (`history`).
extension ItemActions {
    /// Reverses the last action if its items are as this browser left them.
    public func undo() async {
        guard let entry = history.nextUndo else {
            mutableMessage.value = "nothing to undo"
            return
        }
        if case .bulk(let action) = entry.change { return await replay(action, name: entry.name, undoing: true) }
        await run("undo") {
            let written = try await self.apply(entry.change, verb: "undone")
            self.history.undone(written: written)
            return "undid: \(entry.name)"
        }
    }

    /// Applies the last undone action again if its items are as the undo left them.
    public func redo() async {
        guard let entry = history.nextRedo else {
            mutableMessage.value = "nothing to redo"
            return
        }
        if case .bulk(let action) = entry.change { return await replay(action, name: entry.name, undoing: false) }
        await run("redo") {
            let written = try await self.apply(entry.change, verb: "redone")
            self.history.redone(written: written)
            return "redid: \(entry.name)"
        }
    }

    /// Writes the reverse of `change`; throws `ActionRefusal` naming the item when one changed
    /// since (nothing is written then).
    func apply(_ change: ItemChange, verb: String) async throws -> [Item] {
        do {
            switch change {
            case .updated(_, let stored):
                // Every column as this browser left it (see `firstChangedElsewhere`); a row
                // deleted since is left to the write, which says "deleted elsewhere".
                let current = try await Self.items(ids: Set(stored.map(\.id)), store: store)
                if let changed = Self.firstChangedElsewhere(stored, current: current, missingIsChanged: false) {
                    throw ActionRefusal("item \(changed.rawValue) was changed elsewhere since; nothing \(verb)")
                }
                return try await store.items.update(contentsOf: change.reversingWrites)
            case .deleted(let items):
                try await store.items.restore(items)
                return items
            case .restored(let items):
                // Only the rows the undo put back, exactly: read, compare, then delete.
                let current = try await read(items.map(\.id))
                if let changed = Self.firstChangedElsewhere(items, current: current, missingIsChanged: true) {
                    throw ActionRefusal("item \(changed.rawValue) was changed elsewhere since; nothing \(verb)")
                }
                _ = try await store.items.deleteItems(ids: items.map(\.id))
                mutableMarks.value.unmark(items.map(\.id))
                return []
            case .bulk:
                return []  // replayed by the store (`replay(_:name:undoing:)`), never here
            }
        } catch let error as StoreError {
            throw ActionRefusal(Self.refusal(error, change: change, verb: verb))
        }
    }

    /// Why an undo or redo was refused, naming the item.
    nonisolated static func refusal(_ error: StoreError, change: ItemChange, verb: String) -> String {
        let id = Self.itemNumber(in: error.message)
        let item = id.map { "item \($0)" } ?? "an item"
        switch error.code {
        case .conflict where { if case .deleted = change { true } else { false } }():
            return "\(item) exists again; nothing \(verb)"
        case .conflict: return "\(item) was changed elsewhere since; nothing \(verb)"
        case .notFound: return "\(item) was deleted elsewhere since; nothing \(verb)"
        case .unknownUser: return "the owner of \(item) was deleted since; nothing \(verb)"
        default: return "nothing \(verb): \(error.message)"
        }
    }

    /// The number after "item #" in a store message.
    nonisolated static func itemNumber(in message: String) -> Int64? {
        guard let range = message.range(of: "item #") else { return nil }
        return Int64(message[range.upperBound...].prefix { $0.isNumber })
    }

    // MARK: - Edits made in the editor

    /// The editor saved: records what it wrote, so `u` undoes it. An insert is undone by
    /// deleting the new item (as it was saved: not when changed since), an update by writing
    /// back the item it replaced — after a conflict, their version it was saved over. When the
    /// new item cannot be read, the insert is not recorded and `message` says so.
    public func editorSaved(_ write: ItemEditorViewModel.Write) async {
        switch write {
        case .inserted(let id):
            do {
                guard let item = try await store.items.item(id: id) else { return }
                await record(HistoryEntry(name: "add item \(id.rawValue)", change: .restored([item])))
            } catch {
                fail("Could not read item \(id.rawValue) as saved (\(error)); u will not undo adding it")
            }
        case .updated(let previous, let saved):
            await record(
                HistoryEntry(
                    name: "edit item \(saved.id.rawValue)", change: .updated(previous: [previous], stored: [saved])))
        }
    }
}
