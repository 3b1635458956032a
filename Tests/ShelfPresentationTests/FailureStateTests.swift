import Foundation
import ShelfReactive
import ShelfStore
import ShelfTestSupport
import Testing

@testable import ShelfPresentation

/// A read that fails shows in the state, with what failed: it is never dropped. The users
/// table is taken away by another process (`sqlite3`), so every read of users fails.
@MainActor
@Suite("Failures land in the state")
struct FailureStateTests {
    /// A store whose users can no longer be read; its items still can.
    func storeWithoutUsers(items: Int = 3) async throws -> (Store, [User]) {
        let (store, users) = try await makeStore(items: items)
        let path = try #require(store.path)
        #expect(try await ChildProcess.sqlite3(path, "ALTER TABLE users RENAME TO users_elsewhere;") == 0)
        return (store, users)
    }

    @Test func theListSaysWhenTheOwnersNamesCannotBeRead() async throws {
        let (store, _) = try await storeWithoutUsers()
        let list = ItemListViewModel(store: store)
        await list.load().finished()
        let content = try #require(list.state.value.value, "the items still show")
        #expect(content.rows.count == 3)
        #expect(content.rows.allSatisfy { $0.owner == "unknown owner" })
        let message = try #require(content.message, "the users' failure is shown, not dropped")
        #expect(message.hasPrefix("Could not read the users, so owners show as unknown:"))
        #expect(message.contains("users"))
    }

    @Test func givingItemsToAnOwnerSaysTheLookupFailedNotThatNobodyHasTheEmail() async throws {
        let (store, users) = try await storeWithoutUsers()
        let actions = ItemActions(store: store)
        let item = try #require(try await store.items.items(matching: ItemQuery()).first)
        let problem = await actions.setOwner(email: users[0].email, selected: item.id)
        #expect(problem?.hasPrefix("Could not look up the user with the email \(users[0].email):") == true)
        #expect(try await store.items.item(id: item.id)?.userID == item.userID, "nothing written")
    }

    @Test func theEditorSaysWhyItSuggestsNoOwner() async throws {
        let (store, _) = try await storeWithoutUsers()
        let editor = ItemEditorViewModel(store: store, ownerEmail: "")
        await editor.usersLoaded()
        let problem = try #require(editor.state.value.suggestionsProblem)
        #expect(problem.hasPrefix("No suggestions for the owner: could not read the users"))
        #expect(editor.state.value.phaseLine.text == problem)
        #expect(editor.state.value.phaseLine.isError)
    }

    @Test func openingAnEditorThatCannotReadSaysWhy() async throws {
        let (store, _) = try await makeStore(items: 2)
        let browser = BrowserViewModel(store: store)
        let id = try #require(try await store.items.items(matching: ItemQuery()).first?.id)
        let path = try #require(store.path)
        #expect(try await ChildProcess.sqlite3(path, "ALTER TABLE items RENAME TO items_elsewhere;") == 0)
        #expect(await browser.makeEditor(id: id) == nil)
        let message = try #require(browser.actions.message.value, "the failure is shown, not taken for a deletion")
        #expect(message.hasPrefix("Could not open item \(id.rawValue) for editing:"))
    }
}

/// After a failure the rows from before it are never shown again until a read succeeds: not
/// while a retry runs (the browser showed the rows of a deleted database file for as long as
/// the retry's read took to fail again).
@MainActor
@Suite("A retry shows no rows from before the failure")
struct RetryStateTests {
    @Test func aRetryKeepsTheFailureUntilItsReadAnswers() async throws {
        let (store, _) = try await makeStore(items: 3)
        let list = ItemListViewModel(store: store)
        await list.load().finished()
        #expect(list.state.value.value?.rows.count == 3)
        let path = try #require(store.path)
        try FileManager.default.removeItem(atPath: path)
        let failed = Recorder(list.state)
        try #require(await failed.latest { $0.failure != nil } != nil, "the deletion is shown")

        let states = Recorder(list.state)
        let retry = list.retry()
        #expect(list.state.value.value == nil, "no rows from the deleted file while the retry reads")
        await retry.finished()
        #expect(await states.latest { $0.failure != nil } != nil)
        #expect(!states.all.contains { $0.value != nil }, "\(states.all)")
        #expect(list.state.value.failure?.message.contains("deleted") == true)
    }

    @Test func aRetryAfterATransientFailureShowsTheRowsItReads() async throws {
        let (store, _) = try await makeStore(items: 3)
        let path = try #require(store.path)
        #expect(try await ChildProcess.sqlite3(path, "ALTER TABLE items RENAME TO items_elsewhere;") == 0)
        let list = ItemListViewModel(store: store)
        let states = Recorder(list.state)
        await list.load().finished()
        #expect(await states.latest { $0.failure != nil } != nil)
        #expect(try await ChildProcess.sqlite3(path, "ALTER TABLE items_elsewhere RENAME TO items;") == 0)
        await list.retry().finished()
        #expect(await states.latest { $0.value?.rows.count == 3 } != nil)
    }
}
