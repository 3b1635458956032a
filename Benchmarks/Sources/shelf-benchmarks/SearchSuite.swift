import BaselineSQLite
import Foundation
import ShelfSQLiteBackend
import ShelfStore

/// `search.*`: search as you type at 1,000,000 items (--items N): the first page (50 items,
/// newest first) and the count, for the most common word, a rare word, two words, a phrase,
/// owner filters and the owner order, through Shelf's store (which picks its plan by how
/// common the words are) against the SQL Shelf ran before the query language, through the C
/// API on the same database ("before").
struct SearchSuite {
    let items: Int
    let runs: Int
    let report: Report
    let only: String?

    static let pageSize = 50

    /// The SQL of a first page and a count before the query language: the words' matches as
    /// `id IN (…)`, which the planner reads by rowid and then sorts.
    static let beforePageSQL = """
        SELECT \(rawItemColumns) FROM items WHERE id IN (SELECT rowid FROM items_fts WHERE items_fts MATCH ?)
        ORDER BY created_at DESC, id DESC LIMIT \(pageSize)
        """
    static let beforeCountSQL =
        "SELECT count(*) FROM items WHERE id IN (SELECT rowid FROM items_fts WHERE items_fts MATCH ?)"

    /// A case: its name, the query text, and the FTS5 expression the old SQL searched for
    /// (nil when it had no equivalent: owner filters and phrases are new).
    static let cases: [(name: String, text: String, before: String?)] = [
        ("common_word", "the", #""the"*"#),
        ("common_word_long", "task", #""task"*"#),
        ("rare_word", "w1234x", #""w1234x"*"#),
        ("two_words", "the task", #""the"* "task"*"#),
        ("two_words_rare", "the w1234x", #""the"* "w1234x"*"#),
        ("phrase", #""red door""#, nil),
        ("owner_prefix", "@user1", nil),
        ("owner_and_word", "the @user1", nil),
        ("prio_and_word", "the prio:>=2", nil),
    ]

    func run() async throws {
        let path = try await cachedDatabase()
        report.header()
        let store = try Store(path: path)
        let raw = RawConnection(path: path)
        let beforePage = raw.prepare(Self.beforePageSQL)
        let beforeCount = raw.prepare(Self.beforeCountSQL)
        defer {
            sqlite3_finalize(beforePage)
            sqlite3_finalize(beforeCount)
        }
        for (name, text, before) in Self.cases where only == nil || only == "search.\(name)" {
            let query = ItemQuery(text: text)
            let count = try await store.items.count(matching: query)
            report.note("search.\(name): '\(text)' matches \(count) of \(items)")
            var pageTimes: [Double] = []
            var countTimes: [Double] = []
            var beforePageTimes: [Double] = []
            var beforeCountTimes: [Double] = []
            for run in 0...runs {
                let page = try await time { _ = try await store.items.items(matching: query, limit: Self.pageSize) }
                let counted = try await time { _ = try await store.items.count(matching: query) }
                var rawPage = 0.0
                var rawCount = 0.0
                if let before {
                    rawPage = time { step(beforePage, binding: before) }
                    rawCount = time { step(beforeCount, binding: before) }
                }
                guard run > 0 else { continue }  // the first run warms the caches of both
                pageTimes.append(page * 1000)
                countTimes.append(counted * 1000)
                beforePageTimes.append(rawPage * 1000)
                beforeCountTimes.append(rawCount * 1000)
            }
            if before != nil {
                report.compare(
                    "search.\(name).page", unit: "ms", shelf: pageTimes,
                    against: [("before", beforePageTimes, "first page before the count")])
                report.compare(
                    "search.\(name).count", unit: "ms", shelf: countTimes,
                    against: [("before", beforeCountTimes, "(exact; fills in after the page)")])
            } else {
                report.print(Figure(name: "search.\(name).page", unit: "ms", value: median(pageTimes), target: ""))
                report.print(Figure(name: "search.\(name).count", unit: "ms", value: median(countTimes), target: ""))
            }
        }
        if only == nil || only == "search.owner_order" {
            for direction in [ItemQuery.SortDirection.ascending, .descending] {
                let query = ItemQuery(sortField: .owner, sortDirection: direction)
                let middle = try await store.items.items(matching: query, limit: items / 2).last
                var first: [Double] = []
                var next: [Double] = []
                for run in 0...runs {
                    let a = try await time { _ = try await store.items.items(matching: query, limit: Self.pageSize) }
                    let b = try await time {
                        _ = try await store.items.items(
                            matching: query, after: middle.map { ItemCursor($0) }, limit: Self.pageSize)
                    }
                    guard run > 0 else { continue }
                    first.append(a * 1000)
                    next.append(b * 1000)
                }
                let label = direction == .ascending ? "asc" : "desc"
                let name = "search.owner_order_\(label)"
                report.print(Figure(name: name + ".first", unit: "ms", value: median(first), target: ""))
                report.print(Figure(name: name + ".middle", unit: "ms", value: median(next), target: ""))
            }
        }
        try await QueryShapeSuite(store: store, runs: runs, report: report, only: only, prefix: "").run()
    }

    /// Runs `statement` to the end with `match` bound to its first parameter.
    func step(_ statement: OpaquePointer, binding match: String) {
        bindText(statement, 1, match)
        while sqlite3_step(statement) == SQLITE_ROW {}
        sqlite3_reset(statement)
    }

    /// 1,000 owners (`User 0001`…, `user1@example.com`…) and `items` items: "the" in a third
    /// of the titles (the most common word), "task" in a tenth, the phrase "red door" in one
    /// in a hundred, and words `w0x`…`w4999x` of skewed frequency (`w1234x` is rare). Built
    /// once through the C API and kept in ~/.cache/shelf-benchmarks.
    func cachedDatabase() async throws -> String {
        let folder = FileManager.default.homeDirectoryForCurrentUser
            .appendingPathComponent(".cache/shelf-benchmarks", isDirectory: true)
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let path = folder.appendingPathComponent("search-\(items).sqlite").path
        if FileManager.default.fileExists(atPath: path) {
            let store = try Store(path: path)
            if try await store.items.count(matching: ItemQuery()) == items { return path }
        }
        for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) }
        report.note("building a store of \(items) items at \(path) (once)…")
        let store = try Store(path: path)
        var owners: [User.ID] = []
        for n in 1...1000 {
            let name = "User " + String(format: "%04d", (n * 7919) % 1000)
            owners.append(try await store.users.insert(NewUser(name: name, email: "user\(n)@example.com")))
        }
        let base = Date(timeIntervalSince1970: 1_600_000_000)
        let raw = RawConnection(path: path)
        for start in stride(from: 0, to: items, by: 100_000) {
            var batch: [NewItem] = []
            for n in start..<min(start + 100_000, items) {
                var words: [String] = []
                if n % 3 == 0 { words.append("the") }
                if n % 10 == 5 { words.append("task") }
                if n % 100 == 7 { words += ["red", "door"] }
                // Skewed: a cube of a uniform fraction makes low numbers common, high ones rare.
                let fraction = Double((n &* 2_654_435_761) % 1_000_003) / 1_000_003
                words.append("w\(Int(5000 * fraction * fraction * fraction))x")
                words.append("w\((n &* 40_503) % 5000)x")
                words.append(String(n))
                batch.append(
                    NewItem(
                        userID: owners[(n &* 7907) % owners.count], title: words.joined(separator: " "),
                        notes: n % 3 == 0 ? "notes w\((n &* 69_069) % 4999)x door red" : nil,
                        status: n % 4 == 0 ? .done : .open, priority: n % 4,
                        createdAt: base.addingTimeInterval(Double(n) * 30 + Double(n % 17) * 1000)))
            }
            StoreSuite(rows: 0, runs: 0, report: report, only: nil).rawInsertAll(batch, raw)
        }
        return path
    }
}
