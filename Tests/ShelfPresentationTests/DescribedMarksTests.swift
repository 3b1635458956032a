import Foundation
import ShelfPresentation
import ShelfReactive
import ShelfStore
import Testing

/// Marks that describe a query ("all that match, except these"): `M` holds no list of IDs,
/// the count comes from the store, and bulk actions on them are set-based writes undone from
/// the database.
@MainActor
@Suite("ItemActions: marks of a query")
struct DescribedMarksTests {
    func items(_ store: Store) async throws -> [Item] {
        try await store.items.items(matching: ItemQuery(sortField: .created, sortDirection: .ascending))
    }

    @Test func markAllDescribesTheQueryAndCountsFromTheStore() async throws {
        let (store, _) = try await makeStore(items: 25)
        let actions = ItemActions(store: store)
        let all = try await items(store)
        await actions.markAll(matching: ItemQuery(text: "even"), shown: [], count: nil)
        let marks = actions.marks.value
        #expect(marks.isDescribed, "a description, not a list of IDs")
        #expect(marks.ids.isEmpty)
        #expect(marks.count == 12, "counted by the store")
        // Unmark one match, mark one that does not match.
        let even = all.filter { $0.notes == "even notes" }
        let odd = all.filter { $0.notes == nil }
        // The list shows every item: the store says which rows match the marks' query.
        await actions.lookUpMarks(rows: all.map(\.id), listQuery: ItemQuery())
        #expect(all.filter { actions.marks.value.contains($0.id) } == even)
        actions.toggleMark(id: even[0].id)
        actions.toggleMark(id: odd[0].id)
        #expect(!actions.marks.value.contains(even[0].id) && actions.marks.value.contains(odd[0].id))
        #expect(actions.marks.value.contains(even[1].id))
        await actions.recountMarks()
        #expect(actions.marks.value.count == 12)
        // Marked items deleted elsewhere leave the count.
        try await store.items.delete(id: even[1].id)
        #expect(await actions.pruneMarks() == 11, "every count in a prompt is true")
    }

    @Test func spaceOnMarksOfAQueryIsOneSetBasedWriteUndoneFromTheDatabase() async throws {
        let (store, _) = try await makeStore(items: 30)
        let actions = ItemActions(store: store)
        let before = try await items(store)
        await actions.markAll(matching: ItemQuery(text: "even"), shown: [], count: nil)
        await actions.toggleDone(selected: nil)
        #expect(actions.message.value == "marked 15 items done")
        guard case .bulk(let action) = actions.history.nextUndo?.change else {
            Issue.record(
                "the history holds the store's record, not the items: \(String(describing: actions.history.nextUndo))")
            return
        }
        #expect(action.count == 15)
        var now = try await items(store)
        #expect(now.filter { $0.status == .done }.count == 15)

        // Someone else edits one of them: undo skips it and says so.
        var theirs = try #require(now.first { $0.status == .done })
        theirs.title = "Theirs"
        _ = try await store.items.update(theirs)
        await actions.undo()
        #expect(actions.message.value == "undid: mark 15 items done (skipped 1 item changed elsewhere since)")
        now = try await items(store)
        #expect(now.filter { $0.status == .done }.map(\.id) == [theirs.id])
        // The redo leaves the item the undo skipped alone, and does not count it again.
        await actions.redo()
        #expect(actions.message.value == "redid: mark 15 items done (left 1 item alone, changed elsewhere before)")
        #expect(try await items(store).filter { $0.status == .done }.count == 15)
        #expect(before.count == now.count)

        // Every item changed elsewhere since the redo: the undo says it undid nothing (hostile
        // round 6: it said "undid: …").
        for var item in try await items(store) where item.status == .done {
            item.title += " (theirs)"
            _ = try await store.items.update(item)
        }
        await actions.undo()
        let said = actions.message.value ?? ""
        #expect(said.hasPrefix("undid nothing of: mark 15 items done (skipped "), "\(said)")
        #expect(try await items(store).filter { $0.status == .done }.count == 15)
    }

    @Test func itemsAddedAfterMarkingAreNotChanged() async throws {
        let (store, _) = try await makeStore(items: 10)
        let actions = ItemActions(store: store)
        await actions.markAll(matching: ItemQuery(text: "even"), shown: [], count: nil)
        #expect(actions.marks.value.count == 5)
        // Another process adds a matching item while the marks are up.
        let owner = try #require(try await items(store).first?.userID)
        let later = try await store.items.insert(NewItem(userID: owner, title: "even later"))
        await actions.lookUpMarks(rows: try await items(store).map(\.id), listQuery: ItemQuery(text: "even"))
        #expect(!actions.marks.value.contains(later), "shown unmarked")
        #expect(await actions.pruneMarks() == 5, "the confirmation counts what was marked")
        await actions.toggleDone(selected: nil)
        #expect(actions.message.value == "marked 5 items done")
        #expect(try await store.items.item(id: later)?.status == .open)
    }

    @Test func anUndoSaysItemsWhoseOwnerBeforeIsGoneForThatReason() async throws {
        let (store, users) = try await makeStore(users: 2, items: 10)
        let actions = ItemActions(store: store)
        await actions.markAll(matching: ItemQuery(owner: users[0].id), shown: [], count: nil)
        #expect(await actions.setOwner(email: users[1].email, selected: nil) == nil)
        #expect(actions.message.value == "gave 5 items to \(users[1].name)")
        try await store.users.delete(id: users[0].id)
        await actions.undo()
        #expect(
            actions.message.value
                == "undid nothing of: give 5 items to \(users[1].name) (skipped 5 items whose owner before was deleted since)"
        )
    }

    @Test func aDescribedDeleteIsUndoneWhole() async throws {
        let (store, _) = try await makeStore(items: 10)
        let actions = ItemActions(store: store)
        let before = try await items(store)
        await actions.markAll(matching: ItemQuery(text: "even"), shown: [], count: nil)
        await actions.delete(ids: actions.targets(selected: nil))
        #expect(actions.message.value == "deleted 5 items")
        #expect(actions.marks.value.isEmpty)
        #expect(try await items(store).count == 5)
        await actions.undo()
        #expect(actions.message.value == "undid: delete 5 items")
        #expect(try await items(store) == before, "the same IDs, notes, times and versions")
    }

    @Test func aFullHistorySaysWhatItDroppedAndTheStoreForgetsIt() async throws {
        let (store, _) = try await makeStore(items: 10)
        let actions = ItemActions(store: store, historyLimit: 1)
        await actions.markAll(matching: ItemQuery(text: "even"), shown: [], count: nil)
        await actions.setPriority(3, selected: nil)
        guard case .bulk(let first) = actions.history.nextUndo?.change else {
            Issue.record("not recorded as a bulk action")
            return
        }
        await actions.setPriority(2, selected: nil)
        #expect(
            actions.message.value
                == "set priority 2 on 5 items · the undo history is full (1 action): dropped “set priority 3 on 5 items”"
        )
        // Its record in the store went with it.
        let gone = await #expect(throws: StoreError.self) { try await store.items.undo(first) }
        #expect(gone?.code == .notFound)
    }

    @Test func aHistoryPastItsLimitSaysWhatItDropped() async throws {
        var history = UndoHistory(limit: 1)
        let first = HistoryEntry(name: "first", change: .bulk(BulkAction(id: 1, change: .delete, count: 2)))
        let second = HistoryEntry(name: "second", change: .bulk(BulkAction(id: 2, change: .delete, count: 3)))
        #expect(history.record(first).oldest.isEmpty)
        #expect(history.record(second).oldest == [first])
    }
}
