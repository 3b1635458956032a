import Foundation
import ShelfPresentation
import ShelfReactive
import ShelfStore
import Testing

/// Marks, bulk actions and undo against a real store, with another writer changing items.
@MainActor
@Suite("ItemActions")
struct ItemActionsTests {
    func items(_ store: Store) async throws -> [Item] {
        try await store.items.items(matching: ItemQuery(sortField: .created, sortDirection: .ascending))
    }

    @Test func bulkDoneIsOneActionAndUndoRedoGoBackAndForth() async throws {
        let (store, _) = try await makeStore(items: 4)
        let actions = ItemActions(store: store)
        let all = try await items(store)
        for item in all.prefix(3) { actions.toggleMark(id: item.id) }
        #expect(actions.marks.value.count == 3)
        await actions.toggleDone(selected: all[3].id)
        #expect(actions.message.value == "marked 3 items done")
        let done = try await items(store)
        #expect(done.prefix(3).allSatisfy { $0.status == .done })
        #expect(done[3] == all[3], "the selected item is not touched while items are marked")

        await actions.undo()
        #expect(actions.message.value == "undid: mark 3 items done")
        let undone = try await items(store)
        #expect(undone.map(\.status) == all.map(\.status))
        #expect(undone.prefix(3).map(\.version) == [3, 3, 3], "undo is a write like any other")

        await actions.redo()
        #expect(actions.message.value == "redid: mark 3 items done")
        #expect(try await items(store).prefix(3).allSatisfy { $0.status == .done })
        await actions.redo()
        #expect(actions.message.value == "nothing to redo")
    }

    @Test func undoDoesNothingWhenSomeoneChangedAnItemSince() async throws {
        let (store, _) = try await makeStore(items: 3)
        let actions = ItemActions(store: store)
        let all = try await items(store)
        actions.toggleMark(id: all[0].id)
        actions.toggleMark(id: all[1].id)
        await actions.setPriority(3, selected: nil)
        #expect(actions.message.value == "set priority 3 on 2 items")
        // Another process edits the second item.
        var theirs = try #require(try await store.items.item(id: all[1].id))
        theirs.title = "Their title"
        _ = try await store.items.update(theirs)
        let history = actions.history

        await actions.undo()
        #expect(actions.message.value == "item \(all[1].id.rawValue) was changed elsewhere since; nothing undone")
        #expect(actions.history == history, "the history stays as it was")
        let now = try await items(store)
        #expect(now[0].priority == 3, "nothing undone, not even the unchanged item")
        #expect(now[1].title == "Their title" && now[1].priority == 3)
    }

    @Test func anUndoneDeleteBringsTheItemsBackWithIDsAndNotes() async throws {
        let (store, _) = try await makeStore(items: 5)
        let actions = ItemActions(store: store)
        let all = try await items(store)
        for item in all.prefix(3) { actions.toggleMark(id: item.id) }
        await actions.delete(ids: actions.targets(selected: nil))
        #expect(actions.message.value == "deleted 3 items")
        #expect(actions.marks.value.isEmpty, "deleted items lose their marks")
        #expect(try await items(store) == Array(all.suffix(2)))

        await actions.undo()
        #expect(actions.message.value == "undid: delete 3 items")
        #expect(try await items(store) == all, "the same IDs, notes, times and versions")

        await actions.redo()
        #expect(try await items(store) == Array(all.suffix(2)))
        await actions.undo()
        #expect(try await items(store) == all)
    }

    @Test func anUndoneDeleteIsRefusedWhenTheOwnerIsGoneAndRedoWhenTheItemChanged() async throws {
        let (store, users) = try await makeStore(items: 4)
        let actions = ItemActions(store: store)
        let all = try await items(store)
        let victim = try #require(all.first { $0.userID == users[0].id })
        await actions.delete(ids: [victim.id])
        try await store.users.delete(id: users[0].id)
        await actions.undo()
        #expect(
            actions.message.value == "the owner of item \(victim.id.rawValue) was deleted since; nothing undone")
        #expect(actions.history.nextUndo?.name == "delete 1 item")

        // Redo after someone edited the restored item: refused.
        let other = try #require(all.first { $0.userID == users[1].id })
        let second = ItemActions(store: store)
        await second.delete(ids: [other.id])
        await second.undo()
        var theirs = try #require(try await store.items.item(id: other.id))
        theirs.notes = "their notes"
        _ = try await store.items.update(theirs)
        await second.redo()
        #expect(second.message.value == "item \(other.id.rawValue) was changed elsewhere since; nothing redone")
        #expect(try await store.items.item(id: other.id)?.notes == "their notes")
    }

    @Test func markAllMarksEveryMatchAndAgainClears() async throws {
        let (store, _) = try await makeStore(items: 25)
        let actions = ItemActions(store: store)
        await actions.markAll(matching: ItemQuery(text: "even"))
        #expect(actions.marks.value.count == 12)
        #expect(actions.message.value == nil, "the status bar counts the marks")
        await actions.markAll(matching: ItemQuery())
        #expect(actions.marks.value.isEmpty)
    }

    @Test func ownerPromptRefusesAnUnknownEmail() async throws {
        let (store, users) = try await makeStore(items: 2)
        let actions = ItemActions(store: store)
        let all = try await items(store)
        let refused = await actions.setOwner(email: "nobody@example.com", selected: all[0].id)
        #expect(refused == "No user has the email nobody@example.com; type the email of an existing user.")
        let target = all[0].userID == users[0].id ? users[1] : users[0]
        #expect(await actions.setOwner(email: target.email, selected: all[0].id) == nil)
        #expect(try await store.items.item(id: all[0].id)?.userID == target.id)
        await actions.undo()
        #expect(try await store.items.item(id: all[0].id)?.userID == all[0].userID)
    }

    @Test func aSavedEditIsRecordedAndUndone() async throws {
        let (store, _) = try await makeStore(items: 1)
        let actions = ItemActions(store: store)
        let item = try #require(try await items(store).first)
        var edited = item
        edited.title = "Edited"
        edited.notes = "new notes"
        let saved = try await store.items.update(edited)
        await actions.editorSaved(.updated(previous: item, saved: saved))
        await actions.undo()
        #expect(actions.message.value == "undid: edit item \(item.id.rawValue)")
        let back = try #require(try await store.items.item(id: item.id))
        #expect(back.title == item.title && back.notes == item.notes)
    }

    @Test func copiesTheMarkedItemsElseTheSelectedOne() async throws {
        let (store, _) = try await makeStore(items: 3)
        let actions = ItemActions(store: store)
        let all = try await items(store)
        let one = await actions.copyText(selected: all[0].id, json: false)
        #expect(one?.count == 1)
        #expect(one?.text.hasPrefix("#\(all[0].id.rawValue) [open] Item 1 — ") == true)
        actions.toggleMark(id: all[1].id)
        actions.toggleMark(id: all[2].id)
        let marked = await actions.copyText(selected: all[0].id, json: true)
        #expect(marked?.count == 2)
        #expect(marked?.text.contains("\"title\":\"Item 2\"") == true)
        #expect(marked?.text.contains("\"title\":\"Item 1\"") == false)
    }
}

/// The browser's path for `e`: open the editor through the browser, save, and undo the edit.
@MainActor
@Suite("Editing from the browser")
struct BrowserEditTests {
    @Test func anEditOpenedFromTheBrowserIsUndone() async throws {
        let (store, _) = try await makeStore(items: 2)
        let browser = BrowserViewModel(store: store)
        let item = try #require(try await store.items.items(matching: ItemQuery()).first)
        var opened: ItemEditorViewModel?
        await browser.openEditor(id: item.id) { opened = $0 }.finished()
        let editor = try #require(opened)
        #expect(editor.state.value[.title] == item.title)
        editor.update(.title, to: "Edited")
        await editor.save().finished()
        #expect(editor.state.value.phase == .saved(item.id))
        let write = try #require(editor.lastWrite)
        await browser.actions.enqueue { await browser.actions.editorSaved(write) }.finished()
        await browser.actions.enqueue { await browser.actions.undo() }.finished()
        #expect(browser.actions.message.value == "undid: edit item \(item.id.rawValue)")
        #expect(try await store.items.item(id: item.id)?.title == item.title)

        var gone: ItemEditorViewModel? = editor
        try await store.items.delete(id: item.id)
        await browser.openEditor(id: item.id) { gone = $0 }.finished()
        #expect(gone == nil, "a deleted item opens no editor")

        var fresh: ItemEditorViewModel?
        await browser.openNewItemEditor { fresh = $0 }.finished()
        #expect(fresh?.state.value.mode == .create)
    }

    /// Adding an item is undone (the item goes) and redone (it comes back), one step each.
    @Test func anAddedItemIsUndoneAndRedone() async throws {
        let (store, users) = try await makeStore(items: 1)
        let browser = BrowserViewModel(store: store)
        var opened: ItemEditorViewModel?
        await browser.openNewItemEditor { opened = $0 }.finished()
        let editor = try #require(opened)
        editor.update(.title, to: "Brand new")
        editor.update(.owner, to: users[0].email)
        await editor.save().finished()
        guard case .saved(let id) = editor.state.value.phase else {
            Issue.record("not saved: \(editor.state.value.phase)")
            return
        }
        let write = try #require(editor.lastWrite)
        await browser.actions.enqueue { await browser.actions.editorSaved(write) }.finished()
        await browser.actions.enqueue { await browser.actions.undo() }.finished()
        #expect(browser.actions.message.value == "undid: add item \(id.rawValue)")
        #expect(try await store.items.item(id: id) == nil)
        await browser.actions.enqueue { await browser.actions.redo() }.finished()
        #expect(browser.actions.message.value == "redid: add item \(id.rawValue)")
        #expect(try await store.items.item(id: id)?.title == "Brand new")
    }

    /// Saving over someone else's version after a conflict is undone back to their version.
    @Test func anOverwriteAfterAConflictIsUndoneToTheirVersion() async throws {
        let (store, _) = try await makeStore(items: 1)
        let browser = BrowserViewModel(store: store)
        let item = try #require(try await store.items.items(matching: ItemQuery()).first)
        var opened: ItemEditorViewModel?
        await browser.openEditor(id: item.id) { opened = $0 }.finished()
        let editor = try #require(opened)
        var theirs = item
        theirs.title = "Theirs"
        _ = try await store.items.update(theirs)
        editor.update(.title, to: "Mine")
        await editor.save().finished()
        guard case .conflict = editor.state.value.phase else {
            Issue.record("no conflict: \(editor.state.value.phase)")
            return
        }
        await editor.overwrite().finished()
        #expect(editor.state.value.phase == .saved(item.id))
        let write = try #require(editor.lastWrite)
        await browser.actions.enqueue { await browser.actions.editorSaved(write) }.finished()
        #expect(try await store.items.item(id: item.id)?.title == "Mine")
        await browser.actions.enqueue { await browser.actions.undo() }.finished()
        #expect(browser.actions.message.value == "undid: edit item \(item.id.rawValue)")
        #expect(try await store.items.item(id: item.id)?.title == "Theirs")
    }
}
