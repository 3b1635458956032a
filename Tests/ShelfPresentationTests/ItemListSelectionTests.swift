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
    func wait(timeout: Duration = .seconds(20)) async -> Bool {
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
        let states = Recorder(model.state)
        model.load()
        #expect(await states.latest { $0.value?.totalCount == 30 } != nil)
        let (started, cancelled) = (Flag(), Flag())
        // The first search's count is slow: it waits a minute unless its task is cancelled.
        model.beforeCounting = {
            started.set()
            try? await Task.sleep(for: .seconds(60))
            if Task.isCancelled { cancelled.set() }
        }
        model.search("Item 1")
        #expect(await started.wait(), "the first search's count started")
        #expect(model.runningReadCount == 1)
        model.beforeCounting = nil
        model.search("Item 2")
        #expect(await cancelled.wait(), "the superseded search's read was cancelled")
        let shown = await states.latest {
            $0.value?.queryDescription.hasPrefix("“Item 2”") == true && $0.value?.totalCount != nil
        }
        #expect(shown?.value?.totalCount == 11, "the newer search shows")
        // Esc (the search cleared) cancels a running search the same way.
        let (startedAgain, cancelledAgain) = (Flag(), Flag())
        model.beforeCounting = {
            startedAgain.set()
            try? await Task.sleep(for: .seconds(60))
            if Task.isCancelled { cancelledAgain.set() }
        }
        model.search("Item 3")
        #expect(await startedAgain.wait())
        model.beforeCounting = nil
        model.clearFilters()
        #expect(await cancelledAgain.wait(), "the abandoned search's read was cancelled")
        #expect(
            await states.latest { $0.value?.totalCount == 30 && $0.value?.queryDescription.hasPrefix("“") == false }
                != nil)
    }

    @Test func theRowsShowBeforeTheCountAndAStaleCountNeverShows() async throws {
        let (store, _) = try await makeStore(items: 30)
        let model = ItemListViewModel(store: store, windowSize: 10)
        let firstCount = Gate()
        model.beforeCounting = { await firstCount.wait() }
        let states = Recorder(model.state)
        model.load()
        // The page is read; the count is held back: rows, and a pending count.
        let rows = try #require(await states.next { $0.value != nil }?.value)
        #expect(rows.rows.map(\.title) == (21...30).reversed().map { "Item \($0)" })
        #expect(rows.totalCount == nil)
        #expect(rows.selectedID != nil)
        #expect(!rows.isRefreshing)
        firstCount.open()
        #expect(await states.latest { $0.value?.totalCount == 30 } != nil)

        // A new query: its rows show with the count pending; the old count is never shown with them.
        let secondCount = Gate()
        model.beforeCounting = { await secondCount.wait() }
        model.search("Item 1")
        let searched = try #require(
            await states.latest {
                $0.value?.queryDescription.hasPrefix("“Item 1”") == true && $0.value?.isRefreshing == false
            }?
            .value)
        #expect(searched.totalCount == nil)
        #expect(searched.rows.allSatisfy { $0.title == "Item 1" || $0.title.hasPrefix("Item 1") })
        secondCount.open()
        #expect(await states.latest { $0.value?.totalCount == 11 } != nil)
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
        let states = Recorder(model.state)
        model.load()
        _ = await states.latest { $0.value?.totalCount == 40 }
        model.moveSelection(by: 4)
        let id = try #require(model.selectedItemID)
        #expect(model.selectedRow?.title == "Item 36")
        let line = try #require(model.state.value.value.map { $0.selectedIndex! - $0.topIndex })
        #expect(line == 4)

        func settled(_ description: String) async -> ItemListContent? {
            await states.latest {
                $0.value?.queryDescription == description && $0.value?.isRefreshing == false
                    && $0.value?.totalCount != nil
            }?.value
        }
        model.sort(by: .title, .ascending)
        var content = try #require(await settled("title A–Z"))
        #expect(content.selectedID == id)
        model.reverseSortDirection()
        content = try #require(await settled("title Z–A"))
        #expect(content.selectedID == id)
        #expect(content.selectedIndex! - content.topIndex == line)
        model.sort(by: .created, .descending)
        content = try #require(await settled("newest first"))
        #expect(content.selectedID == id)
        #expect(content.selectedIndex! - content.topIndex == line)
        for prefix in ["I", "It", "Item", "Item 3"] { model.search(prefix) }
        content = try #require(await settled("“Item 3” · newest first"))
        #expect(content.selectedID == id)
        model.clearFilters()
        content = try #require(await settled("newest first"))
        #expect(content.selectedID == id)
        #expect(content.selectedPosition == 4)
        // Done only: item 36 leaves; item 35 sits where it would be (37 comes before it).
        model.filter(status: .done)
        content = try #require(await settled("done · newest first"))
        #expect(content.selectedRow?.title == "Item 35")
        #expect(content.rows.map(\.title) == ["Item 37", "Item 35"])
    }

    @Test func itemsArrivingAboveTheViewportShowAsNewUntilTheTop() async throws {
        let (store, users) = try await makeStore(items: 20)
        let model = ItemListViewModel(store: store, windowSize: 50)
        model.setVisibleRowCount(5)
        let states = Recorder(model.state)
        model.load()
        _ = await states.latest { $0.value?.totalCount == 20 }
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
        let states = Recorder(model.state)
        model.load()
        _ = await states.latest { $0.value?.totalCount == 200 }
        let before = store.statementCount
        let text = String(repeating: "item ", count: 40) + "1"
        for length in 1...text.count { model.search(String(text.prefix(length))) }
        let settled = await states.latest {
            $0.value?.queryDescription.hasPrefix("“item item") == true && $0.value?.totalCount != nil
                && $0.value?.isRefreshing == false
        }
        #expect(settled?.value?.rows.allSatisfy { $0.title.hasPrefix("Item 1") } == true)
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
        model.load()
        _ = await states.latest { $0.value?.totalCount == 300 }
        model.jumpToBottom()
        _ = await states.latest { $0.value?.selectedPosition == 299 && $0.value?.isRefreshing == false }
        model.moveSelection(by: -1)
        let before = try #require(await states.latest { $0.value?.selectedPosition == 298 }?.value)
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
        let states = Recorder(model.state)
        model.load()
        _ = await states.latest { $0.value?.totalCount == 300 }
        for _ in 0..<150 { model.moveSelection(by: 1) }
        let selected = try #require(await states.latest { $0.value?.selectedPosition == 150 }?.value?.selectedID)
        model.sort(by: .title, .ascending)
        let sorted = try #require(
            await states.latest {
                $0.value?.selectedID == selected && $0.value?.selectedPosition != nil && $0.value?.totalCount == 300
            }?.value)
        let all = try await store.items.items(matching: ItemQuery(sortField: .title, sortDirection: .ascending))
        #expect(sorted.selectedPosition == all.firstIndex { $0.id == selected })
    }
}
