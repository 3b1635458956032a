import Foundation
import ShelfReactive
import ShelfStore
import Testing

@testable import ShelfPresentation

@MainActor
@Suite("ItemDetailViewModel")
struct ItemDetailViewModelTests {
    @Test func showsTheItemLiveAndSaysWhenItIsDeleted() async throws {
        let (store, users) = try await makeStore(items: 2)
        let item = try #require(try await store.items.items(matching: ItemQuery(), limit: 1).first)
        let model = ItemDetailViewModel(store: store, id: item.id)
        let states = Recorder(model.state)
        await model.load().finished()
        let content = try #require(model.state.value.value)
        #expect(content.title == "Item 2")
        #expect(content.notes == "even notes")
        #expect(content.ownerName == users[0].name)
        #expect(content.ownerEmail == users[0].email)
        #expect(content.status == "open")
        #expect(content.priority == "medium (2)")
        #expect(content.created == "2023-11-14 22:13 UTC")

        var edited = item
        edited.title = "Edited elsewhere"
        _ = try await store.items.update(edited)
        #expect(await states.latest { $0.value?.title == "Edited elsewhere" } != nil)

        try await store.items.delete(id: item.id)
        #expect(await states.latest { $0.emptyMessage != nil }?.emptyMessage == "Item \(item.id) was deleted.")
    }
}

@MainActor
@Suite("ItemEditorViewModel")
struct ItemEditorViewModelTests {
    @Test func createsAValidItem() async throws {
        let (store, users) = try await makeStore()
        let model = ItemEditorViewModel(store: store, ownerEmail: users[1].email)
        let states = Recorder(model.state)
        model.update(.title, to: "Write the report")
        model.update(.notes, to: "two pages")
        model.update(.priority, to: "2")
        await model.save().finished()
        guard case .saved(let id) = model.state.value.phase else {
            Issue.record("not saved: \(model.state.value.phase)")
            return
        }
        #expect(states.all.contains { $0.phase == .saving })
        let item = try #require(try await store.items.item(id: id))
        #expect(item.title == "Write the report")
        #expect(item.notes == "two pages")
        #expect(item.priority == 2)
        #expect(item.userID == users[1].id)
    }

    @Test func invalidFieldsSayWhyAndNothingIsWritten() async throws {
        let (store, _) = try await makeStore()
        let model = ItemEditorViewModel(store: store, ownerEmail: "")
        model.update(.priority, to: "9")
        #expect(Set(model.state.value.errors.keys) == [.priority])  // only touched fields before saving
        model.save()
        let content = model.state.value
        #expect(Set(content.errors.keys) == [.title, .priority, .owner])
        #expect(content.phase == .editing)
        #expect(try await store.items.count(matching: ItemQuery()) == 0)
        model.update(.priority, to: "1")
        #expect(Set(model.state.value.errors.keys) == [.title, .owner])
    }

    @Test func notesWithANULAreAFieldErrorAndTheTextIsKept() async throws {
        // An $EDITOR that wrote a NUL into the notes: the store's rule, said in the editor.
        let (store, item, model, _) = try await editingTheOnlyItem()
        let notes = "first line\n\0second line"
        model.update(.notes, to: notes)
        model.update(.title, to: "New title")
        model.save()
        let content = model.state.value
        #expect(
            content.errors[.notes]
                == "The notes cannot hold the NUL character (U+0000), found at character 12 "
                + "(PostgreSQL refuses it, and an export holding it cannot be imported): remove it.")
        #expect(content.phase == .editing)
        #expect(content[.notes] == notes && content[.title] == "New title", "nothing typed is lost")
        #expect(try await store.items.item(id: item.id) == item, "nothing was written")
        model.update(.title, to: "Ti\0tle")
        #expect(
            model.state.value.errors[.title]?.hasPrefix(
                "The title cannot hold the NUL character (U+0000), found at character 3") == true)
    }

    @Test func anUnknownOwnerIsAFieldError() async throws {
        let (store, _) = try await makeStore()
        let model = ItemEditorViewModel(store: store, ownerEmail: "nobody@example.com")
        model.update(.title, to: "Orphan")
        await model.save().finished()
        let content = model.state.value
        #expect(content.phase == .editing)
        #expect(content.errors[.owner] == "No user has the email nobody@example.com; add the user first.")
        #expect(content[.title] == "Orphan")
        #expect(try await store.items.count(matching: ItemQuery()) == 0)
    }

    @Test func aConcurrentEditIsAConflictThenOverwriteWins() async throws {
        let (store, item, model, _) = try await editingTheOnlyItem()
        model.update(.title, to: "Mine")

        var theirs = item
        theirs.title = "Theirs"
        _ = try await store.items.update(theirs)

        await model.save().finished()
        let conflict = model.state.value
        guard case .conflict(let stored) = conflict.phase else {
            Issue.record("no conflict: \(conflict.phase)")
            return
        }
        #expect(stored.title == "Theirs")
        #expect(conflict[.title] == "Mine")
        #expect(try await store.items.item(id: item.id)?.title == "Theirs")  // nothing written

        await model.overwrite().finished()
        #expect(model.state.value.phase.isSaved)
        #expect(try await store.items.item(id: item.id)?.title == "Mine")
    }

    @Test func aConflictCanReloadTheStoredItem() async throws {
        let (store, item, model, _) = try await editingTheOnlyItem()
        model.update(.title, to: "Mine")
        var theirs = item
        theirs.title = "Theirs"
        theirs.priority = 3
        _ = try await store.items.update(theirs)
        await model.save().finished()
        #expect(model.state.value.phase.isConflict)
        await model.reload().finished()
        let reloaded = model.state.value
        #expect(reloaded.phase == .editing)
        #expect(reloaded[.title] == "Theirs")
        #expect(reloaded[.priority] == "3")
        // Saving now writes over the version just loaded.
        model.update(.title, to: "Mine after all")
        await model.save().finished()
        #expect(model.state.value.phase.isSaved)
        #expect(try await store.items.item(id: item.id)?.title == "Mine after all")
    }

    @Test func savingAnItemDeletedMeanwhileFailsClearly() async throws {
        let (store, item, model, _) = try await editingTheOnlyItem()
        try await store.items.delete(id: item.id)
        model.update(.title, to: "Too late")
        await model.save().finished()
        let failed = model.state.value
        #expect(failed.phase == .failed("The item was deleted by someone else; these edits were not saved."))
        #expect(failed[.title] == "Too late")
    }
}

@MainActor
@Suite("UserListViewModel")
struct UserListViewModelTests {
    @Test func usersWithLiveItemCounts() async throws {
        let (store, users) = try await makeStore(users: 2, items: 4)
        let model = UserListViewModel(store: store)
        let states = Recorder(model.state)
        await model.load().finished()
        let rows = try #require(model.state.value.value)
        #expect(rows.map(\.name) == [users[0].name, users[1].name].sorted())
        #expect(rows.map(\.items) == ["2 items", "2 items"])
        try await store.items.insert(NewItem(userID: users[0].id, title: "One more", status: .done))
        let updated = try #require(await states.latest { $0.value?.contains { $0.items == "3 items" } == true }?.value)
        #expect(updated.first { $0.id == users[0].id }?.open == "2 open")
    }

    @Test func noUsersIsEmpty() async throws {
        let (store, _) = try await makeStore(users: 0)
        let model = UserListViewModel(store: store)
        await model.load().finished()
        #expect(model.state.value.emptyMessage == "No users yet.")
        #expect(model.messageText.hasPrefix("No users yet. Press a to add one, or fill a demo: shelf demo --db "))
    }
}

/// A store with one item, an editor opened on it, and the editor's states.
@MainActor
func editingTheOnlyItem() async throws -> (Store, Item, ItemEditorViewModel, Recorder<ItemEditorContent>) {
    let (store, users) = try await makeStore(items: 1)
    let item = try #require(try await store.items.items(matching: ItemQuery()).first)
    let model = ItemEditorViewModel(store: store, editing: item, ownerEmail: users[1].email)
    return (store, item, model, Recorder(model.state))
}

extension ItemEditorContent.Phase {
    var isSaved: Bool { if case .saved = self { true } else { false } }
    var isConflict: Bool { if case .conflict = self { true } else { false } }
    var isFailed: Bool { if case .failed = self { true } else { false } }
}
