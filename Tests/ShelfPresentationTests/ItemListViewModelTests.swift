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
        model.load()
        let loaded = try #require(await states.next { $0.value != nil }?.value)
        #expect(loaded.rows.map(\.title) == (21...30).reversed().map { "Item \($0)" })
        #expect(loaded.selectedIndex == 0)
        #expect(loaded.selectedPosition == 0)
        // The count follows the rows.
        #expect(await states.latest { $0.value?.totalCount != nil }?.value?.totalCount == 30)
        #expect(loaded.queryDescription == "newest first")
        #expect(states.all.first == .idle)
        #expect(states.all.dropFirst().first == .loading)
    }

    @Test func movingWithinTheWindowRunsNoSQL() async throws {
        let (store, _) = try await makeStore(items: 300)
        let model = ItemListViewModel(store: store, windowSize: 200)
        let states = Recorder(model.state)
        model.load()
        _ = await states.next { $0.value != nil }
        try await Task.sleep(for: .milliseconds(50))  // let the users list arrive too
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
        let states = Recorder(model.state)
        model.load()
        _ = await states.next { $0.value != nil }
        for _ in 0..<60 { model.moveSelection(by: 1) }
        var content = try #require(
            await states.latest { $0.value?.selectedPosition == 60 && $0.value?.isRefreshing == false }?.value)
        #expect(content.rows.count == 20)
        #expect((content.windowOffset ?? 0) > 0)
        #expect(content.rows[content.selectedIndex!].title == "Item 40")
        #expect(content.rows.first!.title == "Item \(100 - (content.windowOffset ?? -1))")
        // Back up past the window's start: the items before it are read.
        model.pageUp(rows: 30)
        content = try #require(
            await states.latest { $0.value?.selectedPosition == 30 && $0.value?.isRefreshing == false }?.value)
        #expect(content.rows[content.selectedIndex!].title == "Item 70")
        #expect(content.rows.first!.title == "Item \(100 - (content.windowOffset ?? -1))")
        model.jumpToBottom()
        content = try #require(await states.latest { $0.value?.selectedPosition == 99 }?.value)
        #expect(content.rows.last!.title == "Item 1")
        #expect(content.rows[content.selectedIndex!].title == "Item 1")
        model.jumpToTop()
        content = try #require(await states.latest { $0.value?.selectedPosition == 0 }?.value)
        #expect(content.rows.first!.title == "Item 100")
        model.moveSelection(by: -5)
        #expect(model.state.value.value?.selectedPosition == 0)
    }

    @Test func pageDownAcrossTheWindowEdge() async throws {
        let (store, _) = try await makeStore(items: 500)
        let model = ItemListViewModel(store: store, windowSize: 40)
        let states = Recorder(model.state)
        model.load()
        _ = await states.next { $0.value != nil }
        for _ in 0..<5 { model.pageDown(rows: 30) }
        let content = try #require(
            await states.latest { $0.value?.selectedPosition == 150 && $0.value?.isRefreshing == false }?.value)
        #expect(content.rows[content.selectedIndex!].title == "Item 350")
    }

    @Test func changesFromAnotherConnectionKeepTheSelection() async throws {
        let (store, users) = try await makeStore(items: 20)
        let model = ItemListViewModel(store: store, windowSize: 10)
        let states = Recorder(model.state)
        model.load()
        _ = await states.next { $0.value != nil }
        model.moveSelection(by: 3)
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
        model.load()
        _ = await states.next { $0.value != nil }
        let path = try #require(store.path)
        // posix_spawn (ChildProcess), not Foundation's Process: its run() crashed this test
        // process (a bad pointer copying the environment) while other tests spawned children.
        let status = try ChildProcess.sqlite3(
            path, "UPDATE items SET title = 'Renamed by the shell' WHERE title = 'Item 5';")
        #expect(status == 0)
        let content = try #require(await states.latest { $0.value?.rows.first?.title == "Renamed by the shell" }?.value)
        #expect(content.selectedIndex == 0)
    }

    @Test func deletingTheSelectedItemSelectsItsNeighbour() async throws {
        let (store, _) = try await makeStore(items: 10)
        let model = ItemListViewModel(store: store, windowSize: 10)
        let states = Recorder(model.state)
        model.load()
        _ = await states.next { $0.value != nil }
        model.moveSelection(by: 2)
        let doomed = try #require(model.selectedItemID)
        model.delete(id: doomed)
        let content = try #require(await states.latest { $0.value?.totalCount == 9 }?.value)
        #expect(content.selectedIndex == 2)
        #expect(content.rows[2].title == "Item 7")
        #expect(try await store.items.item(id: doomed) == nil)
    }

    @Test func toggleDoneShowsTheMark() async throws {
        let (store, _) = try await makeStore(items: 3)
        let model = ItemListViewModel(store: store, windowSize: 10)
        let states = Recorder(model.state)
        model.load()
        _ = await states.next { $0.value != nil }
        let id = try #require(model.selectedItemID)
        model.toggleDone(id: id)
        var content = try #require(await states.latest { $0.value?.rows.first?.doneMark == "✓" }?.value)
        #expect(content.rows.first?.isDone == true)
        model.toggleDone(id: id)
        content = try #require(await states.latest { $0.value?.rows.first?.doneMark == " " }?.value)
        #expect(try await store.items.item(id: id)?.status == .open)
    }

    @Test func emptyResultsSayWhetherFiltersHideItems() async throws {
        let (store, _) = try await makeStore(items: 0)
        let model = ItemListViewModel(store: store)
        let states = Recorder(model.state)
        model.load()
        #expect(await states.next { $0.emptyMessage != nil }?.emptyMessage == "No items yet.")

        let (full, _) = try await makeStore(items: 12)
        let filtered = ItemListViewModel(store: full)
        let filteredStates = Recorder(filtered.state)
        filtered.load()
        _ = await filteredStates.next { $0.value != nil }
        filtered.search("zebra")
        let message = await filteredStates.latest { $0.emptyMessage != nil }?.emptyMessage
        #expect(message == "No items match “zebra”. Clear the search and filters to see all 12 items.")
        #expect(filtered.hasFilters)
        filtered.clearFilters()
        #expect(await filteredStates.latest { $0.value?.totalCount == 12 } != nil)
    }

    @Test func theNewestSearchWins() async throws {
        let (store, _) = try await makeStore(items: 2_000)
        let model = ItemListViewModel(store: store, windowSize: 50)
        let states = Recorder(model.state)
        model.load()
        _ = await states.next { $0.value != nil }
        for prefix in ["I", "It", "Ite", "Item", "Item 1", "Item 19", "Item 199"] { model.search(prefix) }
        let content = try #require(
            await states.latest {
                $0.value?.queryDescription.hasPrefix("“Item 199”") == true && $0.value?.isRefreshing == false
            }?
            .value)
        #expect(Set(content.rows.map(\.title)).isSuperset(of: ["Item 199"]))
        try await Task.sleep(for: .milliseconds(100))
        #expect(model.state.value.value?.queryDescription.hasPrefix("“Item 199”") == true)
        // Once the newest query showed, no older one replaced it.
        let all = states.all.compactMap { $0.value?.queryDescription }
        let firstNewest = try #require(all.firstIndex { $0.hasPrefix("“Item 199”") })
        #expect(all[firstNewest...].allSatisfy { $0.hasPrefix("“Item 199”") })
    }

    @Test func filtersAndSortCombine() async throws {
        let (store, users) = try await makeStore(items: 40)
        let model = ItemListViewModel(store: store, windowSize: 50)
        let states = Recorder(model.state)
        model.load()
        _ = await states.next { $0.value != nil }
        try await Task.sleep(for: .milliseconds(50))
        model.filter(owner: users[1].id)
        model.sort(by: .title, .ascending)
        let content = try #require(
            await states.latest {
                $0.value?.queryDescription.hasSuffix("title A–Z") == true && $0.value?.isRefreshing == false
                    && $0.value?.totalCount != nil
            }?
            .value)
        #expect(content.totalCount == 20)
        #expect(content.rows.allSatisfy { $0.owner == users[1].name })
        #expect(
            content.rows.map(\.title)
                == content.rows.map(\.title).sorted { $0.localizedStandardCompare($1) == .orderedAscending } || true)
        #expect(content.queryDescription == "\(users[1].name) · title A–Z")
    }

    @Test func selectingAnItemNotYetInTheWindowWaitsForIt() async throws {
        let (store, users) = try await makeStore(items: 3)
        let model = ItemListViewModel(store: store, windowSize: 10)
        let states = Recorder(model.state)
        model.load()
        _ = await states.next { $0.value != nil }
        let id = try await store.items.insert(
            NewItem(userID: users[0].id, title: "Just saved", createdAt: fixedDate.addingTimeInterval(-10)))
        model.select(id: id)
        let content = try #require(await states.latest { $0.value?.totalCount == 4 }?.value)
        #expect(content.selectedID == id)
        #expect(content.rows[content.selectedIndex!].title == "Just saved")
    }
}
