import Foundation
import ShelfPresentation
import ShelfReactive
import ShelfSQLiteBackend
import ShelfStore
import ShelfTestSupport
import Testing

@MainActor
@Suite("Users view")
struct UserViewModelTests {
    @Test func addRenameAndRemoveWithCounts() async throws {
        let (store, users) = try await makeStore(users: 2, items: 4)
        let list = UserListViewModel(store: store)
        let states = Recorder(list.state)
        await list.load().finished()
        #expect(list.state.value.value?.count == 2)

        // Add: the new user shows, sorted by name, and is selected.
        let add = list.makeAddEditor()
        add.update(.name, to: "Barbara Liskov")
        add.update(.email, to: "barbara@example.com")
        await add.save().finished()
        guard case .saved(let newID) = add.state.value.phase else {
            Issue.record("not saved: \(add.state.value.phase)")
            return
        }
        list.select(id: newID)
        let three = try #require(await states.latest { $0.value?.count == 3 }?.value)
        #expect(three.map(\.name) == ["Ada Lovelace", "Barbara Liskov", "Grace Hopper"])
        #expect(three[1].items == "0 items")
        #expect(await Recorder(list.selection).latest { $0 == newID } != nil)

        // Rename: name and email change.
        let edit = try #require(list.makeEditor(id: users[0].id))
        edit.update(.name, to: "Augusta Ada King")
        edit.update(.email, to: "augusta@example.com")
        await edit.save().finished()
        #expect(edit.state.value.phase == .saved(users[0].id))
        let renamed = try #require(await states.latest { $0.value?.first?.name == "Augusta Ada King" }?.value)
        #expect(renamed.first?.email == "augusta@example.com")

        // Remove: the question names the user and the items that go with them.
        let question = try #require(list.makeRemoveConfirmation(id: users[1].id))
        #expect(question.message == "Remove Grace Hopper (user1@example.com) and their 2 items? This cannot be undone.")
        await list.remove(id: users[1].id).finished()
        #expect(list.message.value == nil)
        _ = await states.latest { $0.value?.count == 2 }
        #expect(try await store.users.user(id: users[1].id) == nil)
        #expect(try await store.items.count(matching: ItemQuery()) == 2)
        let empty = try #require(list.makeRemoveConfirmation(id: newID))
        #expect(
            empty.message == "Remove Barbara Liskov (barbara@example.com)? They own no items. This cannot be undone.")
    }

    /// A removed user's saved views lose their owner and show everyone's items: the list says
    /// so, naming them (issue 21: it happened without a word).
    @Test func removingAUserNamesTheSavedViewsThatNowShowEveryone() async throws {
        let (store, users) = try await makeStore(users: 2, items: 4)
        try await store.views.save(NewSavedView(name: "Ada's open", queryText: "status:open", owner: users[0].id))
        try await store.views.save(NewSavedView(name: "Ada's all", queryText: "", owner: users[0].id))
        try await store.views.save(NewSavedView(name: "Grace's", queryText: "", owner: users[1].id))
        let list = UserListViewModel(store: store)
        let states = Recorder(list.state)
        await list.load().finished()
        _ = await states.latest { $0.value?.count == 2 }
        await list.remove(id: users[0].id).finished()
        #expect(
            list.message.value
                == "The saved views “Ada's all” and “Ada's open” showed only \(users[0].email)'s items and now show "
                + "everyone's (their owners were removed).")
        #expect(try await store.views.views().first { $0.name == "Grace's" }?.owner == users[1].id)
        await list.remove(id: users[1].id).finished()
        #expect(
            list.message.value
                == "The saved view “Grace's” showed only \(users[1].email)'s items and now shows everyone's (its owner "
                + "was removed).")
    }

    @Test func aDuplicateEmailIsAFieldErrorAndKeepsWhatWasTyped() async throws {
        let (store, users) = try await makeStore(users: 2)
        let editor = UserEditorViewModel(store: store)
        editor.update(.name, to: "Ada Again")
        editor.update(.email, to: "  " + users[0].email.uppercased())
        await editor.save().finished()
        let failed = editor.state.value
        #expect(failed.phase == .editing)
        #expect(failed.errors[.email]?.hasPrefix("Another user already has the email") == true)
        #expect(failed[.name] == "Ada Again")
        #expect(failed[.email] == "  " + users[0].email.uppercased())
        #expect(try await store.users.users().count == 2)
    }

    @Test func renamingToAnotherUsersEmailOrAUserRemovedMeanwhileSaysSo() async throws {
        let (store, users) = try await makeStore(users: 2)
        let editor = UserEditorViewModel(store: store, editing: users[0])
        editor.update(.email, to: users[1].email)
        await editor.save().finished()
        let taken = editor.state.value
        #expect(taken.errors[.email] == "Another user already has the email \(users[1].email); type another.")
        #expect(taken[.name] == users[0].name)
        #expect(try await store.users.user(id: users[0].id)?.email == users[0].email)

        try await store.users.delete(id: users[0].id)
        editor.update(.email, to: "free@example.com")
        await editor.save().finished()
        let gone = editor.state.value
        #expect(gone.phase == .failed("This user was removed by someone else; nothing was saved. Esc goes back."))
        #expect(gone[.email] == "free@example.com")
    }

    @Test func aRefusedEmailIsAFieldError() async throws {
        let (store, _) = try await makeStore(users: 1)
        let editor = UserEditorViewModel(store: store, name: "Eve", email: "eve\u{202E}@example.com")
        await editor.save().finished()
        let failed = editor.state.value
        #expect(failed.errors[.email] != nil)
        #expect(failed.phase == .editing)
        #expect(failed[.email] == "eve\u{202E}@example.com")
        #expect(try await store.users.users().count == 1)
    }

    @Test func validationBeforeSaving() {
        #expect(Set(UserEditorViewModel.validate([.name: " ", .email: ""]).keys) == [.name, .email])
        #expect(Set(UserEditorViewModel.validate([.name: "Ada", .email: "ada"]).keys) == [.email])
        #expect(UserEditorViewModel.validate([.name: "Ada", .email: "ada@x.io"]).isEmpty)
        #expect(UserEditorViewModel.suggestedName(forEmail: "ada.lovelace@x.io") == "Ada Lovelace")
        #expect(UserEditorViewModel.suggestedName(forEmail: "grace_b-hopper@x.io") == "Grace B Hopper")
    }

    @Test func removingAUserRemovedElsewhereSaysSo() async throws {
        let (store, users) = try await makeStore(users: 2)
        let list = UserListViewModel(store: store)
        try await store.users.delete(id: users[0].id)
        await list.remove(id: users[0].id).finished()
        #expect(list.message.value == "That user was already removed (by another process).")
    }
}

@MainActor
@Suite("Item editor owners")
struct ItemEditorOwnerTests {
    static let people = [
        User(id: User.ID(rawValue: 1), name: "Ada Lovelace", email: "ada@example.com", createdAt: fixedDate),
        User(id: User.ID(rawValue: 2), name: "Adam Smith", email: "smith@example.com", createdAt: fixedDate),
        User(id: User.ID(rawValue: 3), name: "Grace Hopper", email: "adamant@example.com", createdAt: fixedDate),
        User(id: User.ID(rawValue: 4), name: "Bob Adair", email: "bob@example.com", createdAt: fixedDate),
        User(id: User.ID(rawValue: 5), name: "Zed", email: "zed@example.com", createdAt: fixedDate),
    ]

    @Test func completionRanksEmailsThenNamesThenWords() {
        let names = { (text: String) in ItemEditorViewModel.ownerSuggestions(for: text, among: Self.people).map(\.name)
        }
        // Emails first (exact, then by name), then names, then later words of names.
        #expect(names("ADA") == ["Ada Lovelace", "Grace Hopper", "Adam Smith", "Bob Adair"])
        #expect(names("ada@example.com") == ["Ada Lovelace"])
        #expect(names("  z ") == ["Zed"])
        #expect(names("") == [])
        #expect(names("nobody") == [])
        #expect(ItemEditorViewModel.ownerSuggestions(for: "a", among: Self.people, limit: 2).count == 2)
        // How many match in all, beyond the best few offered (hostile round 11).
        let matches = ItemEditorViewModel.ownerMatches(for: "a", among: Self.people, limit: 2)
        #expect(matches.best.count == 2 && matches.count == 4, "\(matches)")
    }

    @Test func suggestionsFollowTheTypedOwner() async throws {
        let (store, users) = try await makeStore(users: 3)
        let editor = ItemEditorViewModel(store: store)
        let states = Recorder(editor.state)
        await editor.usersLoaded()
        editor.update(.owner, to: "GRA")
        let content = editor.state.value
        #expect(content.ownerSuggestions.map(\.id) == [users[1].id])
        // A user added meanwhile is offered too.
        try await store.users.insert(NewUser(name: "Grant Wood", email: "grant@example.com"))
        let more = try #require(await states.latest { $0.ownerSuggestions.count == 2 })
        // Grant's email starts with "gra", Grace's name does: emails rank first.
        #expect(more.ownerSuggestions.map(\.name) == ["Grant Wood", "Grace Hopper"])
    }

    @Test func defaultOwnerIsTheFilteredOwnerElseTheSelectedItemsElseTheFirstUser() async throws {
        let (store, users) = try await makeStore(users: 3, items: 6)
        let browser = BrowserViewModel(store: store)
        // Nothing loaded, nothing selected: the first user by name.
        #expect(await browser.makeNewItemEditor().state.value[.owner] == users[0].email)
        await browser.list.load().finished()
        // The first item (Item 6, newest) is selected; its owner is users[6 % 3].
        let selectedID = try #require(browser.list.selectedItemID)
        let selected = try #require(try await store.items.item(id: selectedID))
        #expect(await browser.makeNewItemEditor().state.value[.owner] == users[0].email)
        #expect(selected.userID == users[0].id)
        await browser.list.moveSelection(by: 1).finished()  // Item 5: users[2]
        #expect(await browser.makeNewItemEditor().state.value[.owner] == users[2].email)
        // Filtered by an owner: theirs, whatever is selected.
        await browser.list.filter(owner: users[1].id).finished()
        #expect(await browser.makeNewItemEditor().state.value[.owner] == users[1].email)
    }

    @Test func anUnknownOwnerIsCreatedOnTheSpotThenTheItemSaved() async throws {
        let (store, _) = try await makeStore(users: 0)
        let editor = ItemEditorViewModel(store: store, ownerEmail: "new.person@example.com")
        editor.update(.title, to: "First item")
        editor.update(.notes, to: "line one\nline two")
        editor.toggleStatus()
        await editor.save().finished()
        let asked = editor.state.value
        #expect(asked.newOwner != nil)
        #expect(asked.newOwner?.email == "new.person@example.com")
        #expect(asked.newOwner?.name == "New Person")
        #expect(asked.phase == .editing)
        #expect(try await store.items.count(matching: ItemQuery()) == 0)

        await editor.createOwnerAndSave(name: "Newton Person").finished()
        guard case .saved(let id) = editor.state.value.phase else {
            Issue.record("not saved: \(editor.state.value.phase)")
            return
        }
        let owner = try #require(try await store.users.user(email: "new.person@example.com"))
        #expect(owner.name == "Newton Person")
        let item = try #require(try await store.items.item(id: id))
        #expect(item.userID == owner.id)
        #expect(item.title == "First item")
        #expect(item.notes == "line one\nline two")
        #expect(item.status == .done)
    }

    @Test func creatingTheOwnerFailsWithoutLosingAnything() async throws {
        let (store, _) = try await makeStore(users: 1)
        let editor = ItemEditorViewModel(store: store, ownerEmail: "bad\u{2028}@example.com")
        editor.update(.title, to: "Kept")
        await editor.save().finished()
        #expect(editor.state.value.newOwner != nil)
        editor.createOwnerAndSave(name: "   ")
        #expect(editor.state.value.newOwner?.error == "A name is required.")
        await editor.createOwnerAndSave(name: "Bad Email").finished()
        let failed = editor.state.value
        #expect(failed.newOwner?.error != nil)
        #expect(failed.newOwner?.name == "Bad Email")
        #expect(failed.phase == .editing)
        #expect(failed[.title] == "Kept")
        #expect(try await store.users.users().count == 1)
        #expect(try await store.items.count(matching: ItemQuery()) == 0)
        // Back to the form, then another owner: saved.
        editor.cancelNewOwner()
        #expect(editor.state.value.newOwner == nil)
        editor.update(.owner, to: "user0@example.com")
        await editor.save().finished()
        #expect(editor.state.value.phase.isSaved)
    }

    @Test func anOwnerAddedMeanwhileByAnotherProcessOwnsTheItem() async throws {
        let (store, _) = try await makeStore(users: 1)
        let editor = ItemEditorViewModel(store: store, ownerEmail: "race@example.com")
        editor.update(.title, to: "Raced")
        await editor.save().finished()
        #expect(editor.state.value.newOwner != nil)
        let theirs = try await store.users.insert(NewUser(name: "Their Name", email: "race@example.com"))
        await editor.createOwnerAndSave(name: "My Name").finished()
        guard case .saved(let id) = editor.state.value.phase else {
            Issue.record("not saved: \(editor.state.value.phase)")
            return
        }
        #expect(try await store.items.item(id: id)?.userID == theirs)
        #expect(try await store.users.user(id: theirs)?.name == "Their Name")
    }

    @Test func hintsNameTheDatabase() {
        #expect(
            StoreHints.addUserCommand(location: "/tmp/my shelf.sqlite", email: "a@x.io")
                == "shelf users add --db '/tmp/my shelf.sqlite' --name NAME --email a@x.io")
        #expect(StoreHints.demoCommand(location: "/tmp/x.sqlite") == "shelf demo --db /tmp/x.sqlite")
        #expect(StoreHints.demoCommand(location: nil) == nil)
        #expect(ShellQuoting.quoted("it's") == #"'it'\''s'"#)
        #expect(ShellQuoting.quoted("postgres://u@h:5432/db") == "postgres://u@h:5432/db")
    }

    @Test func theNewOwnerProposalNamesTheCommandForThisDatabase() async throws {
        let (store, _) = try await makeStore(users: 1)
        let editor = ItemEditorViewModel(store: store, ownerEmail: "x@example.com")
        editor.update(.title, to: "T")
        await editor.save().finished()
        let asked = editor.state.value
        #expect(asked.newOwner != nil)
        #expect(
            asked.newOwner?.command
                == StoreHints.addUserCommand(location: store.shareableLocation, email: "x@example.com"))
        #expect(asked.newOwner?.command?.contains(store.location) == true)
    }

    @Test func statusIsSavedWhenEditing() async throws {
        let (store, item, model, _) = try await editingTheOnlyItem()
        #expect(model.state.value[.status] == "open")
        model.toggleStatus()
        await model.save().finished()
        let saved = model.state.value
        #expect(saved.phase.isSaved)
        #expect(saved[.status] == "done")
        #expect(try await store.items.item(id: item.id)?.status == .done)
    }
}

/// Hostile tester: the browser's users view added a case-twin of a user without an email key
/// (another program added them while the browser ran) that `shelf users add` refused.
@MainActor
@Suite("Users view: a user without an email key")
struct KeylessUserEditorTests {
    @Test func aCaseTwinOfAUserWithoutAKeyIsRefusedAsTheCLIRefusesIt() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let path = folder.path("shelf.sqlite")
        let store = try Store(path: path)
        // Added by the sqlite3 shell while the store is open: no key.
        #expect(
            try await ChildProcess.sqlite3(
                path, "INSERT INTO users (name, email, created_at) VALUES ('Ada', 'Äda@x.com', 0)") == 0)
        let editor = UserEditorViewModel(store: store)
        let states = Recorder(editor.state)
        editor.update(.name, to: "Ada Again")
        editor.update(.email, to: "äDA@x.com")
        editor.save()
        let failed = try #require(await states.next { $0.errors[.email] != nil && $0.phase == .editing })
        #expect(failed.errors[.email] == "Another user already has the email äDA@x.com; type another.")
        #expect(try await store.users.users().count == 1)
        // Changing another user's email to it is refused too; keeping one's own is not.
        let other = try await store.users.insert(NewUser(name: "Other", email: "other@x.com"))
        var renamed = try #require(try await store.users.user(id: other))
        renamed.email = "ÄDA@X.COM"
        let taken = await #expect(throws: StoreError.self) { try await store.users.update(renamed) }
        #expect(taken?.code == .duplicateEmail)
        renamed.email = "other@x.com"
        renamed.name = "Other Name"
        try await store.users.update(renamed)
        await store.close()
    }
}
