import Dispatch
import ShelfPresentation
import ShelfReactive
import ShelfStore
import Synchronization
import Testing

/// `y` and `Y` of many marked items: progress in the status bar, and Esc stops them.
@MainActor
@Suite("ItemActions: a copy of many items")
struct CopyProgressTests {
    /// Set once from the copy's thread, read by the test.
    final class Flag: Sendable {
        private let value = Mutex(false)
        func set() { value.withLock { $0 = true } }
        var isSet: Bool { value.withLock { $0 } }
    }

    /// Hostile tester (issue 26): `y` of a million items showed no progress, and Esc did not
    /// stop it. The copy here is held after its first page until Esc (`cancelBulkWrite()`):
    /// it stops before `finish` (which puts the clipboard file in place), so nothing is
    /// claimed as copied.
    @Test func aCopySaysHowFarItIsAndEscStopsItBeforeItIsFinished() async throws {
        // More than a page (10,000 items), so the copy goes on after the first.
        let (store, _) = try await makeStore(items: 10_050)
        let actions = ItemActions(store: store)
        await actions.markAll(matching: ItemQuery(), shown: [], count: nil)
        #expect(actions.marks.value.count == 10_050)
        let gate = DispatchSemaphore(value: 0)
        let (pages, page) = AsyncStream.makeStream(of: Int.self)
        let finished = Flag()
        let copying = Task {
            await actions.copy(
                selected: nil, json: false,
                write: { text in
                    page.yield(text.count)
                    gate.wait()
                }, finish: { finished.set() })
        }
        var written = pages.makeAsyncIterator()
        _ = await written.next()
        #expect(actions.isBulkWriting, "Esc goes to the copy")
        #expect(actions.message.value?.hasPrefix("copying 10,050 items") == true, "\(actions.message.value ?? "")")
        #expect(actions.message.value?.hasSuffix("(Esc cancels)") == true, "\(actions.message.value ?? "")")
        actions.cancelBulkWrite()
        for _ in 0..<3 { gate.signal() }
        let copy = await copying.value
        #expect(copy == nil, "a cancelled copy returns nothing to put on the clipboard")
        #expect(!finished.isSet, "the file is never put in place")
        #expect(actions.message.value == "copy cancelled: nothing was copied")
        #expect(!actions.isBulkWriting)
    }

    /// Hostile tester (issue 26): `M` marks what matches at that moment (up to the highest ID
    /// then), and Space changes only those; `y` copied items added afterwards too, more than
    /// its progress line counted.
    @Test func aCopyLeavesOutItemsAddedAfterTheMarks() async throws {
        let (store, users) = try await makeStore(items: 3)
        let actions = ItemActions(store: store)
        await actions.markAll(matching: ItemQuery(), shown: [], count: nil)
        #expect(actions.marks.value.count == 3)
        _ = try await store.items.insert(NewItem(userID: users[0].id, title: "Added after the marks"))
        let text = Mutex("")
        let copy = await actions.copy(
            selected: nil, json: false, write: { piece in text.withLock { $0 += piece } }, finish: { true })
        #expect(copy?.count == 3)
        let copied = text.withLock { $0 }
        #expect(!copied.contains("Added after the marks"), "\(copied)")
        #expect(copied.split(separator: "\n").count == 3, "\(copied)")
        let small = await actions.copyText(selected: nil, json: false)
        #expect(small?.count == 3)
        #expect(small?.text.contains("Added after the marks") == false, "\(small?.text ?? "")")
    }
}
