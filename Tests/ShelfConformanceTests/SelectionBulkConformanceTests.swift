import Foundation
import ShelfStore
import Synchronization
import Testing

/// Set-based bulk writes over an `ItemSelection` (`BulkItemWriting`), on every backend: the
/// selection's count, one transaction, the before-values kept in the database for undo and
/// redo, items changed elsewhere skipped and counted, a cancelled write leaving nothing.
@Suite("Conformance: bulk writes over a selection")
struct SelectionBulkConformanceTests {
    /// Ann and Bob; ten items, "even" in the titles of the even ones, alternately Ann's and Bob's.
    private func fill(_ store: Store) async throws -> (ann: User.ID, bob: User.ID, items: [Item]) {
        let ann = try await store.users.insert(NewUser(name: "Ann", email: "ann@example.com"))
        let bob = try await store.users.insert(NewUser(name: "Bob", email: "bob@example.com"))
        let ids = try await store.items.insert(
            contentsOf: (0..<10).map { index in
                NewItem(
                    userID: index % 2 == 0 ? ann : bob, title: index % 2 == 0 ? "even \(index)" : "odd \(index)",
                    notes: "notes \(index)", priority: index % 4)
            })
        var items: [Item] = []
        for id in ids { items.append(try #require(try await store.items.item(id: id))) }
        return (ann, bob, items)
    }

    private func all(_ store: Store) async throws -> [Item] {
        try await store.items.items(matching: ItemQuery(sortField: .created, sortDirection: .ascending))
    }

    @Test(arguments: Backend.available)
    func aSelectionCountsMatchesLessExceptionsPlusIDs(_ backend: Backend) async throws {
        try await backend.withStore { (store: Store) async throws in
            let (_, _, items) = try await fill(store)
            var selection = ItemSelection(matching: ItemQuery(text: "even"))
            #expect(try await store.items.count(in: selection, status: nil) == 5)
            selection.excluded = [items[0].id, items[1].id]  // one match, one not
            selection.included = [items[3].id, items[4].id]  // one not, one match
            #expect(try await store.items.count(in: selection, status: nil) == 5)
            #expect(try await store.items.count(in: selection, status: .done) == 0)
            #expect(
                try await store.items.ids(in: selection, among: items.prefix(5).map(\.id))
                    == [items[2].id, items[3].id, items[4].id])
            try await store.items.delete(id: items[2].id)
            #expect(try await store.items.count(in: selection, status: nil) == 4, "deleted items are not counted")
        }
    }

    @Test(arguments: Backend.available)
    func aBulkChangeIsUndoneAndRedoneFromTheDatabase(_ backend: Backend) async throws {
        try await backend.withStore { (store: Store) async throws in
            let (_, _, items) = try await fill(store)
            var selection = ItemSelection(matching: ItemQuery(text: "even"))
            selection.excluded = [items[0].id]
            let progress = Progress()
            let action = try await store.items.updateItems(in: selection, .priority(3)) { progress.add($0) }
            // items 2, 4, 6, 8; item 6 (priority 2) and the others change, none already at 3.
            let changed = [2, 4, 6, 8].map { items[$0].id }
            #expect(action.count == changed.count)
            #expect(progress.last == BulkProgress(done: changed.count, total: changed.count))
            var now = try await all(store)
            for item in now {
                let wasChanged = changed.contains(item.id)
                #expect(item.priority == (wasChanged ? 3 : items.first { $0.id == item.id }?.priority))
                if wasChanged { #expect(item.version == 2) }
            }
            // Someone else edits item 4 in the meantime: its undo is skipped, and counted.
            var theirs = try #require(now.first { $0.id == items[4].id })
            theirs.title = "theirs"
            _ = try await store.items.update(theirs)

            let undone = try await store.items.undo(action)
            #expect(undone == BulkReplay(applied: 3, skipped: 1))
            now = try await all(store)
            for id in changed where id != items[4].id {
                let item = try #require(now.first { $0.id == id })
                #expect(item.priority == items.first { $0.id == id }?.priority, "the value before")
                #expect(item.version == 3, "an undo is a write like any other")
            }
            #expect(now.first { $0.id == items[4].id }?.title == "theirs")
            await #expect(throws: StoreError.self) { try await store.items.undo(action) }

            // The item the undo skipped is left alone, and not counted as skipped again.
            let redone = try await store.items.redo(action)
            #expect(redone == BulkReplay(applied: 3, skipped: 0))
            now = try await all(store)
            #expect(now.filter { changed.contains($0.id) }.allSatisfy { $0.priority == 3 })

            try await store.items.forget([action.id])
            let gone = await #expect(throws: StoreError.self) { try await store.items.undo(action) }
            #expect(gone?.code == .notFound)
        }
    }

    @Test(arguments: Backend.available)
    func aSkippedItemIsCountedOnceAcrossUndoAndRedo(_ backend: Backend) async throws {
        try await backend.withStore { (store: Store) async throws in
            let (_, _, items) = try await fill(store)
            let action = try await store.items.updateItems(
                in: ItemSelection(matching: ItemQuery(text: "even")), .status(.done), progress: nil)
            #expect(action.count == 5)
            // After the undo, someone edits item 2: the redo skips it, and says so once.
            #expect(try await store.items.undo(action) == BulkReplay(applied: 5, skipped: 0))
            var theirs = try #require(try await store.items.item(id: items[2].id))
            theirs.title = "theirs"
            _ = try await store.items.update(theirs)
            #expect(try await store.items.redo(action) == BulkReplay(applied: 4, skipped: 1))
            #expect(try await store.items.undo(action) == BulkReplay(applied: 4, skipped: 0))
            #expect(try await store.items.redo(action) == BulkReplay(applied: 4, skipped: 0))
            let item = try #require(try await store.items.item(id: items[2].id))
            #expect(item.status == .open && item.title == "theirs", "left as they made it")
        }
    }

    @Test(arguments: Backend.available)
    func anItemDeletedAndMadeAgainWithItsIDIsNotUndone(_ backend: Backend) async throws {
        try await backend.withStore { (store: Store) async throws in
            let (_, _, items) = try await fill(store)
            let action = try await store.items.updateItems(
                in: ItemSelection(matching: ItemQuery(text: "even")), .priority(3), progress: nil)
            // Someone deletes item 2 and makes it again with its ID (an import), then edits it
            // until its version is the one the action left, with another priority.
            let changed = try #require(try await store.items.item(id: items[2].id))
            try await store.items.delete(id: changed.id)
            let again = Item(
                id: changed.id, userID: changed.userID, title: "theirs", notes: nil, status: changed.status,
                priority: 1,
                createdAt: changed.createdAt, updatedAt: changed.updatedAt, version: 1)
            try await store.items.restore([again])
            while let now = try await store.items.item(id: changed.id), now.version < changed.version {
                var edited = now
                edited.notes = (now.notes ?? "") + "."
                _ = try await store.items.update(edited)
            }
            #expect(try await store.items.item(id: changed.id)?.version == changed.version)
            let undone = try await store.items.undo(action)
            #expect(undone == BulkReplay(applied: 4, skipped: 1))
            #expect(try await store.items.item(id: changed.id)?.priority == 1, "theirs, kept")
            // The same for a redo: item 4 is deleted and made again, back at its version after
            // the undo, with another priority than the undo wrote.
            let undoneItem = try #require(try await store.items.item(id: items[4].id))
            try await store.items.delete(id: undoneItem.id)
            let remade = Item(
                id: undoneItem.id, userID: undoneItem.userID, title: undoneItem.title, notes: nil,
                status: undoneItem.status, priority: (undoneItem.priority + 1) % 3, createdAt: undoneItem.createdAt,
                updatedAt: undoneItem.updatedAt, version: 1)
            try await store.items.restore([remade])
            while let now = try await store.items.item(id: remade.id), now.version < undoneItem.version {
                var edited = now
                edited.notes = (now.notes ?? "") + "."
                _ = try await store.items.update(edited)
            }
            #expect(try await store.items.redo(action) == BulkReplay(applied: 3, skipped: 1))
            #expect(try await store.items.item(id: remade.id)?.priority == remade.priority, "theirs, kept")
        }
    }

    @Test(arguments: Backend.available)
    func anUndoSaysWhichItemsItSkippedBecauseTheirOwnerIsGone(_ backend: Backend) async throws {
        try await backend.withStore { (store: Store) async throws in
            let (ann, bob, items) = try await fill(store)
            let owner = try await store.items.updateItems(
                in: ItemSelection(matching: ItemQuery(owner: ann)), .owner(bob), progress: nil)
            #expect(owner.count == 5)
            // Someone else edits one of them, and removes Ann, who holds no item now.
            var theirs = try #require(try await store.items.item(id: items[0].id))
            theirs.title = "theirs"
            _ = try await store.items.update(theirs)
            try await store.users.delete(id: ann)
            let undone = try await store.items.undo(owner)
            #expect(undone == BulkReplay(applied: 0, skipped: 5, ownerGone: 5))
            #expect(try await all(store).allSatisfy { $0.userID == bob })
        }
    }

    @Test(arguments: Backend.available)
    func itemsAddedAfterAQueryIsMarkedAreLeftOut(_ backend: Backend) async throws {
        try await backend.withStore { (store: Store) async throws in
            #expect(try await store.items.highestItemID() == nil, "no items")
            let (ann, _, _) = try await fill(store)
            let highest = try await store.items.highestItemID()
            var selection = ItemSelection(matching: ItemQuery(text: "even"), through: highest)
            #expect(try await store.items.count(in: selection, status: nil) == 5)
            // Another writer adds a matching item after the mark.
            let later = try await store.items.insert(NewItem(userID: ann, title: "even later"))
            #expect(try await store.items.highestItemID() == later)
            #expect(try await store.items.count(in: selection, status: nil) == 5, "the confirmation's count")
            #expect(try await store.items.ids(in: selection, among: [later]).isEmpty)
            let unfiltered = ItemSelection(matching: ItemQuery(), through: highest)
            #expect(try await store.items.count(in: unfiltered, status: nil) == 10)
            let byOwner = ItemSelection(matching: ItemQuery(owner: ann), through: highest)
            #expect(try await store.items.count(in: byOwner, status: nil) == 5)
            let action = try await store.items.updateItems(in: selection, .status(.done), progress: nil)
            #expect(action.count == 5)
            #expect(try await store.items.item(id: later)?.status == .open, "not marked, not changed")
            // An item added after is still selected when named by ID.
            selection.included = [later]
            #expect(try await store.items.count(in: selection, status: nil) == 6)
        }
    }

    @Test(arguments: Backend.available)
    func aBulkDeleteComesBackWholeAndOwnerChangesSkipWhatIsAsAsked(_ backend: Backend) async throws {
        try await backend.withStore { (store: Store) async throws in
            let (ann, bob, items) = try await fill(store)
            let owner = try await store.items.updateItems(
                in: ItemSelection(matching: ItemQuery()), .owner(bob), progress: nil)
            #expect(owner.count == 5, "Bob's own items are left alone")
            #expect(try await all(store).allSatisfy { $0.userID == bob })
            _ = try await store.items.undo(owner)
            #expect(try await all(store).map(\.userID) == items.map(\.userID))

            let selection = ItemSelection(matching: ItemQuery(owner: ann))
            let delete = try await store.items.updateItems(in: selection, .delete, progress: nil)
            #expect(delete.count == 5)
            #expect(try await all(store).count == 5)
            let undone = try await store.items.undo(delete)
            #expect(undone == BulkReplay(applied: 5, skipped: 0))
            let back = try await all(store)
            for item in items where item.userID == ann {
                let now = try #require(back.first { $0.id == item.id })
                #expect(now.title == item.title && now.notes == item.notes && now.createdAt == item.createdAt)
                #expect(now.priority == item.priority && now.status == item.status)
            }
            #expect(try await store.items.redo(delete) == BulkReplay(applied: 5, skipped: 0))
            #expect(try await all(store).count == 5)
        }
    }

    @Test(arguments: Backend.available)
    func aCancelledBulkWriteChangesNothing(_ backend: Backend) async throws {
        try await backend.withStore { (store: Store) async throws in
            let (ann, _, _) = try await fill(store)
            // Enough items for the write to take a while.
            _ = try await store.items.insert(
                contentsOf: (0..<20_000).map { NewItem(userID: ann, title: "bulk \($0)") })
            let before = try await store.items.count(matching: ItemQuery(status: .done))
            // Cancelled once it has recorded the items and reported its first progress.
            let canceller = Canceller()
            let write = Task {
                try await store.items.updateItems(in: ItemSelection(matching: ItemQuery()), .status(.done)) { _ in
                    canceller.cancel()
                }
            }
            canceller.set(write)
            let outcome = await write.result
            #expect(throws: CancellationError.self) { try outcome.get() }
            #expect(try await store.items.count(matching: ItemQuery(status: .done)) == before, "rolled back")
        }
    }
}

/// The progress a bulk write reported, from its thread.
private final class Progress: Sendable {
    private let reports = Mutex<[BulkProgress]>([])
    func add(_ progress: BulkProgress) { reports.withLock { $0.append(progress) } }
    var last: BulkProgress? { reports.withLock { $0.last } }
}

/// Cancels a task from the progress of the write it runs, once the task is known.
private final class Canceller: Sendable {
    private let task = Mutex<Task<BulkAction, any Error>?>(nil)
    private let requested = Mutex(false)

    func set(_ task: Task<BulkAction, any Error>) {
        self.task.withLock { $0 = task }
        if requested.withLock({ $0 }) { task.cancel() }
    }

    func cancel() {
        requested.withLock { $0 = true }
        task.withLock { $0 }?.cancel()
    }
}
