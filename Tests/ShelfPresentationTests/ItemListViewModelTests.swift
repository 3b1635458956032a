import Foundation
import ShelfReactive
import ShelfStore
import ShelfTestSupport
import Testing

@testable import ShelfPresentation

@MainActor
@Suite("ItemListViewModel")
struct ItemListViewModelTests {
    private func titles(_ state: ViewState<ItemListContent>?) -> [String] {
        state?.value?.rows.map(\.title) ?? []
    }

    @Test func loadsTheFirstWindowNewestFirst() async throws {
        let (store, _) = try await makeStore(items: 30)
        let model = ItemListViewModel(store: store, windowSize: 10)
        let states = Recorder(model.state)
        await model.load().finished()
        let loaded = try #require(states.all.first { $0.value != nil }?.value)
        #expect(loaded.rows.map(\.title) == (21...30).reversed().map { "Item \($0)" })
        #expect(loaded.selectedIndex == 0)
        #expect(loaded.selectedPosition == 0)
        // The count follows the rows.
        #expect(model.state.value.value?.totalCount == 30)
        #expect(loaded.queryDescription == "newest first")
        #expect(states.all.first == .idle)
        #expect(states.all.dropFirst().first == .loading)
    }

    @Test func movingWithinTheWindowRunsNoSQL() async throws {
        let (store, _) = try await makeStore(items: 300)
        let model = ItemListViewModel(store: store, windowSize: 200)
        await model.load().finished()  // the users list too
        let before = store.statementCount
        for _ in 0..<50 { model.moveSelection(by: 1) }
        model.moveSelection(by: -20)
        model.pageDown(rows: 40)
        #expect(store.statementCount == before)
        #expect(model.state.value.value?.selectedPosition == 70)
        #expect(model.state.value.value?.rows[70].title == "Item 230")
    }

    @Test func theWindowFollowsTheSelectionBothWays() async throws {
        let (store, _) = try await makeStore(items: 100)
        let model = ItemListViewModel(store: store, windowSize: 20)
        await model.load().finished()
        // Sixty keys typed at once; then everything they started is over.
        let moves = (0..<60).map { _ in model.moveSelection(by: 1) }
        for move in moves { await move.finished() }
        var content = try #require(model.state.value.value)
        #expect(content.selectedPosition == 60)
        #expect(!content.isRefreshing)
        #expect(content.rows.count == 20)
        #expect((content.windowOffset ?? 0) > 0)
        #expect(content.rows[content.selectedIndex!].title == "Item 40")
        #expect(content.rows.first!.title == "Item \(100 - (content.windowOffset ?? -1))")
        // Back up past the window's start: the items before it are read.
        await model.pageUp(rows: 30).finished()
        content = try #require(model.state.value.value)
        #expect(content.selectedPosition == 30)
        #expect(!content.isRefreshing)
        #expect(content.rows[content.selectedIndex!].title == "Item 70")
        #expect(content.rows.first!.title == "Item \(100 - (content.windowOffset ?? -1))")
        await model.jumpToBottom().finished()
        content = try #require(model.state.value.value)
        #expect(content.selectedPosition == 99)
        #expect(content.rows.last!.title == "Item 1")
        #expect(content.rows[content.selectedIndex!].title == "Item 1")
        await model.jumpToTop().finished()
        content = try #require(model.state.value.value)
        #expect(content.selectedPosition == 0)
        #expect(content.rows.first!.title == "Item 100")
        model.moveSelection(by: -5)
        #expect(model.state.value.value?.selectedPosition == 0)
    }

    @Test func pageDownAcrossTheWindowEdge() async throws {
        let (store, _) = try await makeStore(items: 500)
        let model = ItemListViewModel(store: store, windowSize: 40)
        await model.load().finished()
        let intents = (0..<5).map { _ in model.pageDown(rows: 30) }
        for intent in intents { await intent.finished() }
        let content = try #require(model.state.value.value)
        #expect(content.selectedPosition == 150)
        #expect(!content.isRefreshing)
        #expect(content.rows[content.selectedIndex!].title == "Item 350")
    }

    @Test func changesFromAnotherConnectionKeepTheSelection() async throws {
        let (store, users) = try await makeStore(items: 20)
        let model = ItemListViewModel(store: store, windowSize: 10)
        let states = Recorder(model.state)
        await model.load().finished()
        await model.moveSelection(by: 3).finished()
        #expect(model.state.value.value?.rows[3].title == "Item 17")
        try await store.items.insert(
            NewItem(userID: users[0].id, title: "Brand new", createdAt: fixedDate.addingTimeInterval(1_000)))
        let content = try #require(await states.latest { $0.value?.rows.first?.title == "Brand new" }?.value)
        #expect(content.totalCount == 21)
        #expect(content.rows[content.selectedIndex!].title == "Item 17")
        #expect(content.selectedIndex == 4)
    }

    @Test func changesFromAnotherProcessAppear() async throws {
        let (store, _) = try await makeStore(items: 5)
        let model = ItemListViewModel(store: store, windowSize: 10)
        let states = Recorder(model.state)
        await model.load().finished()
        let path = try #require(store.path)
        // posix_spawn (ChildProcess), not Foundation's Process: its run() crashed this test
        // process (a bad pointer copying the environment) while other tests spawned children.
        let status = try await ChildProcess.sqlite3(
            path, "UPDATE items SET title = 'Renamed by the shell' WHERE title = 'Item 5';")
        #expect(status == 0)
        let content = try #require(await states.latest { $0.value?.rows.first?.title == "Renamed by the shell" }?.value)
        #expect(content.selectedIndex == 0)
    }

    /// Deleting goes through the browser's actions (`d`, confirmed), as the browser does it.
    @Test func deletingTheSelectedItemSelectsItsNeighbour() async throws {
        let (store, _) = try await makeStore(items: 10)
        let browser = BrowserViewModel(store: store, windowSize: 10)
        let model = browser.list
        let states = Recorder(model.state)
        await model.load().finished()
        await model.moveSelection(by: 2).finished()
        let doomed = try #require(model.selectedItemID)
        await browser.actions.enqueue { await browser.actions.delete(ids: [doomed]) }.finished()
        #expect(browser.actions.message.value == "deleted 1 item")
        let content = try #require(await states.latest { $0.value?.totalCount == 9 }?.value)
        #expect(content.selectedIndex == 2)
        #expect(content.rows[2].title == "Item 7")
        #expect(try await store.items.item(id: doomed) == nil)
    }

    /// Marking done goes through the browser's actions (`x`), as the browser does it.
    @Test func toggleDoneShowsTheMark() async throws {
        let (store, _) = try await makeStore(items: 3)
        let browser = BrowserViewModel(store: store, windowSize: 10)
        let model = browser.list
        let states = Recorder(model.state)
        await model.load().finished()
        let id = try #require(model.selectedItemID)
        await browser.actions.enqueue { await browser.actions.toggleDone(selected: id) }.finished()
        var content = try #require(await states.latest { $0.value?.rows.first?.doneMark == "✓" }?.value)
        #expect(content.rows.first?.isDone == true)
        await browser.actions.enqueue { await browser.actions.toggleDone(selected: id) }.finished()
        content = try #require(await states.latest { $0.value?.rows.first?.doneMark == " " }?.value)
        #expect(try await store.items.item(id: id)?.status == .open)
    }

    @Test func emptyResultsSayWhetherFiltersHideItems() async throws {
        let (store, _) = try await makeStore(items: 0)
        let model = ItemListViewModel(store: store)
        await model.load().finished()
        #expect(model.state.value.emptyMessage == "No items yet.")
        #expect(model.hint == "Press n to add an item, or fill a demo: \(model.demoCommand!) --items 1000")

        let (full, _) = try await makeStore(items: 12)
        let filtered = ItemListViewModel(store: full)
        await filtered.load().finished()
        #expect(filtered.hint == nil)
        await filtered.search("zebra").finished()
        let message = filtered.state.value.emptyMessage
        #expect(message == "No items match “zebra”. Clear the search and filters to see all 12 items.")
        #expect(filtered.hasFilters)
        #expect(filtered.hint == "Press Esc to clear the search and filters.")
        await filtered.clearFilters().finished()
        #expect(filtered.state.value.value?.totalCount == 12)
    }

    @Test func theNewestSearchWins() async throws {
        let (store, _) = try await makeStore(items: 2_000)
        let model = ItemListViewModel(store: store, windowSize: 50)
        let states = Recorder(model.state)
        await model.load().finished()
        let searches = ["I", "It", "Ite", "Item", "Item 1", "Item 19", "Item 199"].map { model.search($0) }
        // Every search's work is over, the superseded ones' included: none can show later.
        for search in searches { await search.finished() }
        let content = try #require(model.state.value.value)
        #expect(content.queryDescription.hasPrefix("“Item 199”"))
        #expect(!content.isRefreshing)
        #expect(Set(content.rows.map(\.title)).isSuperset(of: ["Item 199"]))
        // Once the newest query showed, no older one replaced it.
        let all = states.all.compactMap { $0.value?.queryDescription }
        let firstNewest = try #require(all.firstIndex { $0.hasPrefix("“Item 199”") })
        #expect(all[firstNewest...].allSatisfy { $0.hasPrefix("“Item 199”") })
    }

    @Test func filtersAndSortCombine() async throws {
        let (store, users) = try await makeStore(items: 40)
        let model = ItemListViewModel(store: store, windowSize: 50)
        await model.load().finished()  // the users too: the owner's name is known
        let filter = model.filter(owner: users[1].id)
        await model.sort(by: .title, .ascending).finished()
        await filter.finished()
        let content = try #require(model.state.value.value)
        #expect(!content.isRefreshing)
        #expect(content.totalCount == 20)
        #expect(content.rows.allSatisfy { $0.owner == users[1].name })
        // Title A–Z as the store orders it: ASCII letter case ignored, ties by ID.
        let expected = try await store.items.items(
            matching: ItemQuery(owner: users[1].id, sortField: .title, sortDirection: .ascending))
        #expect(content.rows.map(\.title) == expected.map(\.title))
        #expect(content.queryDescription == "\(users[1].name) · title A–Z")
    }

    @Test func selectingAnItemNotYetInTheWindowWaitsForIt() async throws {
        let (store, users) = try await makeStore(items: 3)
        let model = ItemListViewModel(store: store, windowSize: 10)
        let states = Recorder(model.state)
        await model.load().finished()
        let id = try await store.items.insert(
            NewItem(userID: users[0].id, title: "Just saved", createdAt: fixedDate.addingTimeInterval(-10)))
        model.select(id: id)
        let content = try #require(await states.latest { $0.value?.totalCount == 4 }?.value)
        #expect(content.selectedID == id)
        #expect(content.rows[content.selectedIndex!].title == "Just saved")
    }
}
