import Dispatch
import Foundation
import ShelfReactive
import ShelfStore
import Synchronization
import Testing

@testable import ShelfPresentation

/// Holds whoever waits on it until `open()`; open, it lets everyone through.
final class Gate: Sendable {
    private struct State {
        var isOpen = false
        var waiters: [CheckedContinuation<Void, Never>] = []
    }

    private let state = Mutex(State())

    func wait() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let passes = state.withLock { state in
                if state.isOpen { return true }
                state.waiters.append(continuation)
                return false
            }
            if passes { continuation.resume() }
        }
    }

    func open() {
        let waiters = state.withLock { state in
            state.isOpen = true
            defer { state.waiters = [] }
            return state.waiters
        }
        for waiter in waiters { waiter.resume() }
    }
}

/// A flag set from any task; `wait()` returns once it is set.
final class Flag: Sendable {
    private let gate = Gate()
    private let value = Mutex(false)
    var isSet: Bool { value.withLock { $0 } }

    func set() {
        value.withLock { $0 = true }
        gate.open()
    }

    /// Waits until set (no polling); false when it is not set by `timeout`.
    func wait(timeout: Duration = .seconds(120)) async -> Bool {
        let gate = self.gate
        DispatchQueue.global().asyncAfter(deadline: .now() + .seconds(Int(timeout.components.seconds))) {
            gate.open()
        }
        await gate.wait()
        return isSet
    }
}

@MainActor
@Suite("ItemListViewModel selection, arrivals and counts")
struct ItemListSelectionTests {
    /// A search replaced by the next one (a key typed, Esc) has its read cancelled, which
    /// interrupts it in the store; it kept reading, a core busy for minutes, when the phrase
    /// was long.
    @Test func aSupersededSearchsReadIsCancelled() async throws {
        let (store, _) = try await makeStore(items: 30)
        let model = ItemListViewModel(store: store, windowSize: 10)
        await model.load().finished()
        #expect(model.state.value.value?.totalCount == 30)
        let (started, cancelled) = (Flag(), Flag())
        // The first search's count is slow: it waits a minute unless its task is cancelled.
        model.beforeCounting = {
            started.set()
            try? await Task.sleep(for: .seconds(60))
            if Task.isCancelled { cancelled.set() }
        }
        let first = model.search("Item 1")
        #expect(await started.wait(), "the first search's count started")
        #expect(model.runningReadCount == 1)
        model.beforeCounting = nil
        await model.search("Item 2").finished()
        // Cancelled, the first search ends at once (else after its minute).
        await first.finished()
        #expect(cancelled.isSet, "the superseded search's read was cancelled")
        let shown = model.state.value.value
        #expect(shown?.queryDescription.hasPrefix("“Item 2”") == true)
        #expect(shown?.totalCount == 11, "the newer search shows")
        // Esc (the search cleared) cancels a running search the same way.
        let (startedAgain, cancelledAgain) = (Flag(), Flag())
        model.beforeCounting = {
            startedAgain.set()
            try? await Task.sleep(for: .seconds(60))
            if Task.isCancelled { cancelledAgain.set() }
        }
        let third = model.search("Item 3")
        #expect(await startedAgain.wait())
        model.beforeCounting = nil
        await model.clearFilters().finished()
        await third.finished()
        #expect(cancelledAgain.isSet, "the abandoned search's read was cancelled")
        #expect(model.state.value.value?.totalCount == 30)
        #expect(model.state.value.value?.queryDescription.hasPrefix("“") == false)

        // An intent cancelled by its caller stops its reads the same way, and shows nothing.
        let (startedLast, cancelledLast) = (Flag(), Flag())
        model.beforeCounting = {
            startedLast.set()
            try? await Task.sleep(for: .seconds(60))
            if Task.isCancelled { cancelledLast.set() }
        }
        let abandoned = model.search("Item 4")
        #expect(await startedLast.wait())
        abandoned.cancel()
        await abandoned.finished()
        #expect(cancelledLast.isSet)
        #expect(model.runningReadCount == 0)
    }

    @Test func theRowsShowBeforeTheCountAndAStaleCountNeverShows() async throws {
        let (store, _) = try await makeStore(items: 30)
        let model = ItemListViewModel(store: store, windowSize: 10)
        let firstCount = Gate()
        model.beforeCounting = { await firstCount.wait() }
        let states = Recorder(model.state)
        let load = model.load()
        // The page is read; the count is held back: rows, and a pending count.
        let rows = try #require(await states.next { $0.value != nil }?.value)
        #expect(rows.rows.map(\.title) == (21...30).reversed().map { "Item \($0)" })
        #expect(rows.totalCount == nil)
        #expect(rows.selectedID != nil)
        #expect(!rows.isRefreshing)
        firstCount.open()
        await load.finished()
        #expect(model.state.value.value?.totalCount == 30)

        // A new query: its rows show with the count pending; the old count is never shown with them.
        let secondCount = Gate()
        model.beforeCounting = { await secondCount.wait() }
        let search = model.search("Item 1")
        let searched = try #require(
            await states.latest {
                $0.value?.queryDescription.hasPrefix("“Item 1”") == true && $0.value?.isRefreshing == false
            }?
            .value)
        #expect(searched.totalCount == nil)
        #expect(searched.rows.allSatisfy { $0.title == "Item 1" || $0.title.hasPrefix("Item 1") })
        secondCount.open()
        await search.finished()
        #expect(model.state.value.value?.totalCount == 11)
        let counts = states.all.compactMap(\.value).filter { $0.queryDescription.hasPrefix("“Item 1”") }.map(
            \.totalCount)
        #expect(counts.allSatisfy { $0 == nil || $0 == 11 })
    }

    @Test func theSelectedItemStaysSelectedAcrossSortSearchFilterAndClear() async throws {
        let (store, _) = try await makeStore(items: 40)
        for n in [35, 37] {
            var item = try #require(try await store.items.items(matching: ItemQuery(text: "Item \(n)")).first)
            item.status = .done
            _ = try await store.items.update(item)
        }
        let model = ItemListViewModel(store: store, windowSize: 20)
        model.setVisibleRowCount(8)
        await model.load().finished()
        #expect(model.state.value.value?.totalCount == 40)
        await model.moveSelection(by: 4).finished()
        let id = try #require(model.selectedItemID)
        #expect(model.selectedRow?.title == "Item 36")
        let line = try #require(model.state.value.value.map { $0.selectedIndex! - $0.topIndex })
        #expect(line == 4)

        /// What shows once `intents` are over: settled, counted, described as `description`.
        func settled(_ description: String, after intents: [Intent]) async -> ItemListContent? {
            for intent in intents { await intent.finished() }
            let content = model.state.value.value
            #expect(content?.queryDescription == description)
            #expect(content?.isRefreshing == false)
            #expect(content?.totalCount != nil)
            return content
        }
        var content = try #require(await settled("title A–Z", after: [model.sort(by: .title, .ascending)]))
        #expect(content.selectedID == id)
        content = try #require(await settled("title Z–A", after: [model.reverseSortDirection()]))
        #expect(content.selectedID == id)
        #expect(content.selectedIndex! - content.topIndex == line)
        content = try #require(await settled("newest first", after: [model.sort(by: .created, .descending)]))
        #expect(content.selectedID == id)
        #expect(content.selectedIndex! - content.topIndex == line)
        let typed = ["I", "It", "Item", "Item 3"].map { model.search($0) }
        content = try #require(await settled("“Item 3” · newest first", after: typed))
        #expect(content.selectedID == id)
        content = try #require(await settled("newest first", after: [model.clearFilters()]))
        #expect(content.selectedID == id)
        #expect(content.selectedPosition == 4)
        // Done only: item 36 leaves; item 35 sits where it would be (37 comes before it).
        content = try #require(await settled("done · newest first", after: [model.filter(status: .done)]))
        #expect(content.selectedRow?.title == "Item 35")
        #expect(content.rows.map(\.title) == ["Item 37", "Item 35"])
    }

    @Test func itemsArrivingAboveTheViewportShowAsNewUntilTheTop() async throws {
        let (store, users) = try await makeStore(items: 20)
        let model = ItemListViewModel(store: store, windowSize: 50)
        model.setVisibleRowCount(5)
        let states = Recorder(model.state)
        await model.load().finished()
        #expect(model.state.value.value?.totalCount == 20)
        #expect(model.selectedRow?.title == "Item 20")
        for n in 1...3 {
            try await store.items.insert(
                NewItem(
                    userID: users[0].id, title: "New \(n)", createdAt: fixedDate.addingTimeInterval(1_000 + Double(n))))
        }
        var content = try #require(await states.latest { $0.value?.newAboveCount == 3 }?.value)
        // The viewport did not move: item 20 is still the first row shown, and selected.
        #expect(content.selectedRow?.title == "Item 20")
        #expect(content.rows[content.topIndex].title == "Item 20")
        #expect(content.totalCount == 23)
        model.jumpToTop()
        content = try #require(model.state.value.value)
        #expect(content.newAboveCount == 0)
        #expect(content.topIndex == 0)
        #expect(content.selectedRow?.title == "New 3")
    }
}

@MainActor
@Suite("ItemListViewModel under fast typing")
struct ItemListTypingTests {
    /// A search typed key by key makes a request per key; reads that are stale before they
    /// start never run: at most two run at once, and only the newest request waits.
    @Test func keysTypedFasterThanReadsRunOnlyTheReadsThatMatter() async throws {
        let (store, _) = try await makeStore(items: 200)
        let model = ItemListViewModel(store: store, windowSize: 20)
        await model.load().finished()
        #expect(model.state.value.value?.totalCount == 200)
        let before = store.statementCount
        let text = String(repeating: "item ", count: 40) + "1"
        let keys = (1...text.count).map { model.search(String(text.prefix($0))) }
        for key in keys { await key.finished() }
        let settled = model.state.value.value
        #expect(settled?.queryDescription.hasPrefix("“item item") == true)
        #expect(settled?.totalCount != nil && settled?.isRefreshing == false)
        #expect(settled?.rows.allSatisfy { $0.title.hasPrefix("Item 1") } == true)
        // 201 keys; one read each would run hundreds of statements.
        let ran = store.statementCount - before
        #expect(ran < 60, "\(ran) statements for \(text.count) keys")
    }
}

@MainActor
@Suite("ItemListViewModel following a moved item")
struct ItemListMovedSelectionTests {
    /// The selected item, changed so that it moves far in the order (out of the rows held), stays
    /// selected where it went, by its ID; a neighbour is selected only when it is gone.
    @Test func theSelectedItemIsFollowedWhenAChangeMovesItFar() async throws {
        let (store, _) = try await makeStore(items: 300)
        let model = ItemListViewModel(
            store: store, query: ItemQuery(sortField: .updated, sortDirection: .descending), windowSize: 40)
        let states = Recorder(model.state)
        await model.load().finished()
        await model.jumpToBottom().finished()
        #expect(model.state.value.value?.selectedPosition == 299)
        await model.moveSelection(by: -1).finished()
        let before = try #require(model.state.value.value)
        #expect(before.selectedPosition == 298)
        let id = try #require(before.selectedID)

        // Updated now, it becomes the most recently updated: first in the order.
        var item = try #require(try await store.items.item(id: id))
        item.title = "Moved to the top"
        _ = try await store.items.update(item)
        let after = try #require(
            await states.latest {
                $0.value?.selectedID == id && $0.value?.selectedRow?.title == "Moved to the top"
                    && $0.value?.isRefreshing == false
            }?.value,
            "the selection stayed on the item, now at the top")
        #expect(after.selectedPosition == 0)

        // Deleted, it gives way to a neighbour.
        try await store.items.delete(id: id)
        let gone = try #require(
            await states.latest { $0.value?.selectedID != id && $0.value?.selectedID != nil }?.value)
        #expect(gone.rows.allSatisfy { $0.id != id })
    }
}

@MainActor
@Suite("ItemListViewModel position after a query change")
struct ItemListPositionTests {
    /// A window read around the kept selection does not know where it starts; the store then
    /// counts the items before it, and "n/N" shows the exact position again.
    @Test func thePositionIsCountedAfterAChangeKeepsTheSelection() async throws {
        let (store, _) = try await makeStore(items: 300)
        let model = ItemListViewModel(store: store, windowSize: 20)
        await model.load().finished()
        let moves = (0..<150).map { _ in model.moveSelection(by: 1) }
        for move in moves { await move.finished() }
        #expect(model.state.value.value?.selectedPosition == 150)
        let selected = try #require(model.selectedItemID)
        // The sort's work includes counting the items before the window read around the selection.
        await model.sort(by: .title, .ascending).finished()
        let sorted = try #require(model.state.value.value)
        #expect(sorted.selectedID == selected)
        #expect(sorted.totalCount == 300)
        let all = try await store.items.items(matching: ItemQuery(sortField: .title, sortDirection: .ascending))
        #expect(sorted.selectedPosition == all.firstIndex { $0.id == selected })
    }
}
