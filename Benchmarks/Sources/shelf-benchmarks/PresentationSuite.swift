import BaselineSQLite
import Foundation
import ShelfPresentation
import ShelfReactive
import ShelfSQLiteBackend
import ShelfStore
import Synchronization

/// `presentation.search` and `presentation.page_down`: the item list view model on a large
/// store, from intent to the new loaded state, against the same SQL (a page and a count)
/// run directly through the C API.
struct PresentationSuite {
    let items: Int
    let runs: Int
    let report: Report
    /// Run only this benchmark, or all when nil.
    let only: String?

    static let windowSize = 200
    /// A search typed key by key.
    static let keystrokes = ["r", "ri", "riv", "rive", "river", "river g", "river ga", "river gar", "river gard"]

    func run() async throws {
        let path = try await cachedDatabase()
        report.header()
        let store = try Store(path: path)
        let raw = RawConnection(path: path)
        raw.exec("PRAGMA cache_size=-32768")

        var shelfSearch: [Double] = []
        var rawSearch: [Double] = []
        var shelfPage: [Double] = []
        var rawPage: [Double] = []
        for run in 0..<runs {
            let model = await ItemListViewModel(store: store, windowSize: Self.windowSize)
            await model.load()
            await waitFor(model) { $0.value != nil }
            for term in Self.keystrokes where only == nil || only == "presentation.search" {
                // Alternate which side goes first.
                for side in run % 2 == 0 ? [0, 1] : [1, 0] {
                    if side == 0 {
                        shelfSearch.append(
                            await time {
                                await model.search(term)
                                await waitFor(model) {
                                    $0.value?.queryDescription.hasPrefix("“\(term)”") == true
                                        && $0.value?.isRefreshing == false
                                }
                            })
                    } else {
                        rawSearch.append(time { rawWindow(raw, text: term, after: nil) })
                    }
                }
            }

            // Page down across the window's edge: each page of 50 rows; the window moves when
            // the selection nears its end. Only pages that move the window are timed.
            await model.clearFilters()
            await waitFor(model) { $0.value?.queryDescription == "newest first" && $0.value?.isRefreshing == false }
            // Cleared, the list reads around the selected item and may not know its offset:
            // from the top, every window's offset is known and moves as pages go down.
            await model.jumpToTop()
            await waitFor(model) { $0.value?.selectedPosition == 0 && $0.value?.isRefreshing == false }
            var shifts = 0
            var pages = 0
            while shifts < 20, pages < 2_000, only == nil || only == "presentation.page_down" {
                pages += 1
                // Timed on the main actor, where a screen calls the model.
                let (elapsed, before, after) = await pageDown(model)
                guard after != before else { continue }
                shifts += 1
                shelfPage.append(elapsed)
                let anchor = try await store.items.items(matching: ItemQuery(), after: nil, limit: after).last
                rawPage.append(time { rawWindow(raw, text: nil, after: anchor) })
            }
        }
        report.compare(
            "presentation.search", unit: "ms", shelf: shelfSearch.map { $0 * 1000 },
            against: [("raw-c same SQL", rawSearch.map { $0 * 1000 }, "ratio ≤ 1.5")])
        report.compare(
            "presentation.page_down", unit: "ms", shelf: shelfPage.map { $0 * 1000 },
            against: [("raw-c same SQL", rawPage.map { $0 * 1000 }, "ratio ≤ 1.5")])
    }

    /// One page down from the main actor: the time to the new loaded state, and the window's
    /// offset before and after.
    @MainActor
    private func pageDown(_ model: ItemListViewModel) async -> (Double, Int, Int) {
        let before = model.state.value.value?.windowOffset ?? 0
        let start = ContinuousClock.now
        model.pageDown(rows: 50)
        await waitFor(model) { $0.value?.isRefreshing == false }
        let elapsed = (ContinuousClock.now - start).seconds
        return (elapsed, before, model.state.value.value?.windowOffset ?? 0)
    }

    /// Waits until the model's state satisfies `predicate`, observing it (no polling).
    @MainActor
    private func waitFor(
        _ model: ItemListViewModel, _ predicate: @escaping @Sendable (ViewState<ItemListContent>) -> Bool
    ) async {
        let token = Lifetime.Token()
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let resumed = Flag()
            model.state.observe(during: token.lifetime) { state in
                if predicate(state), resumed.set() { continuation.resume() }
            }
        }
        token.end()
    }

    /// The list's SQL through the C API: a page of the window's size and the count.
    private func rawWindow(_ raw: RawConnection, text: String?, after anchor: Item?) {
        var filter = ""
        if text != nil { filter = "WHERE id IN (SELECT rowid FROM items_fts WHERE items_fts MATCH ?)" }
        if anchor != nil { filter = "WHERE (created_at, id) < (?, ?)" }
        let page = raw.prepare(
            "SELECT \(rawItemColumns) FROM items \(filter) ORDER BY created_at DESC, id DESC LIMIT ?")
        let count = raw.prepare(
            text != nil
                ? "SELECT count(*) FROM items \(filter)"
                : "SELECT row_count FROM shelf_changes WHERE table_name = 'items'")
        defer {
            sqlite3_finalize(page)
            sqlite3_finalize(count)
        }
        raw.exec("BEGIN DEFERRED")
        var index: Int32 = 1
        if let text {
            let match = text.split(separator: " ").map { "\"\($0)\"*" }.joined(separator: " ")
            bindText(page, 1, match)
            bindText(count, 1, match)
            index = 2
        }
        if let anchor {
            sqlite3_bind_int64(page, 1, milliseconds(anchor.createdAt))
            sqlite3_bind_int64(page, 2, anchor.id.rawValue)
            index = 3
        }
        sqlite3_bind_int64(page, index, Int64(Self.windowSize))
        var rows: [Item] = []
        while sqlite3_step(page) == SQLITE_ROW { rows.append(rawItem(page)) }
        var total = 0
        if sqlite3_step(count) == SQLITE_ROW { total = Int(sqlite3_column_int64(count, 0)) }
        raw.exec("COMMIT")
        precondition(total >= rows.count)
    }

    /// A store of `items` items, built once (through the C API, in one transaction) and kept
    /// in ~/.cache/shelf-benchmarks for later runs.
    func cachedDatabase() async throws -> String {
        let folder = FileManager.default.homeDirectoryForCurrentUser
            .appendingPathComponent(".cache/shelf-benchmarks", isDirectory: true)
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let path = folder.appendingPathComponent("presentation-\(items).sqlite").path
        if FileManager.default.fileExists(atPath: path) {
            let store = try Store(path: path)
            if try await store.items.count(matching: ItemQuery()) == items { return path }
        }
        for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) }
        report.note("building a store of \(items) items at \(path) (once)…")
        let store = try Store(path: path)
        let words: [String] = [
            "river", "garden", "letter", "piano", "moth", "lamp", "book", "apple", "zebra", "dune",
            "review", "quarterly", "figures", "meeting", "draft", "budget", "travel", "plan", "notes", "ideas",
        ]
        var owners: [User.ID] = []
        for n in 0..<50 {
            owners.append(try await store.users.insert(NewUser(name: "User \(n)", email: "user\(n)@example.com")))
        }
        let base = Date(timeIntervalSince1970: 1_600_000_000)
        let raw = RawConnection(path: path)
        for start in stride(from: 0, to: items, by: 100_000) {
            var batch: [NewItem] = []
            for n in start..<min(start + 100_000, items) {
                let status: Item.Status = n % 4 == 0 ? .done : .open
                let created: Date = base.addingTimeInterval(Double(n) * 30)
                batch.append(
                    NewItem(
                        userID: owners[n % owners.count], title: title(n, words),
                        notes: n % 3 == 0 ? notes(n, words) : nil, status: status, priority: n % 4,
                        createdAt: created))
            }
            StoreSuite(rows: 0, runs: 0, report: report, only: nil).rawInsertAll(batch, raw)
        }
        return path
    }
}

private func title(_ n: Int, _ words: [String]) -> String {
    let first: String = words[n % 20]
    let second: String = words[(n / 20) % 20]
    let third: String = words[(n / 400) % 20]
    return first + " " + second + " " + third + " " + String(n)
}

private func notes(_ n: Int, _ words: [String]) -> String {
    let first: String = words[(n / 7) % 20]
    let second: String = words[(n / 11) % 20]
    return first + " and " + second
}

/// Set once, from any thread.
final class Flag: Sendable {
    private let value = Mutex(false)
    /// Sets the flag; true only for the call that set it.
    func set() -> Bool {
        value.withLock { old in
            defer { old = true }
            return !old
        }
    }
}
