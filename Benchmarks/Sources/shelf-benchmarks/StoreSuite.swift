import BaselineSQLite
import Foundation
import ShelfSQLiteBackend
import ShelfStore

/// `store.insert`, `store.fetch_all`, `store.page`: Shelf's public API against the raw C API
/// doing the same work on the same schema, and the sqlite3 shell where it makes sense.
struct StoreSuite {
    let rows: Int
    let runs: Int
    let report: Report
    /// Run only this benchmark (for quick iterations), or all when nil.
    let only: String?

    static let insertSQL = """
        INSERT INTO items (user_id, title, notes, status, priority, created_at, updated_at, version)
        VALUES (?, ?, ?, ?, ?, ?, ?, 1)
        """

    func makeItems() -> [NewItem] {
        let words = ["moth", "lamp", "book", "apple", "zebra", "dune", "garden", "letter", "piano", "river"]
        let base = Date(timeIntervalSince1970: 1_700_000_000)
        return (0..<rows).map { index in
            NewItem(
                userID: User.ID(1),
                title: "\(words[index % 10]) \(words[(index / 10) % 10]) \(index)",
                notes: index % 3 == 0 ? "notes for item \(index), with a few more words" : nil,
                status: index % 4 == 0 ? .done : .open,
                priority: index % 4,
                createdAt: base.addingTimeInterval(Double(index / 2)))
        }
    }

    /// A new database with the shelf schema and user #1.
    func makeStore(in folder: URL, name: String) async throws -> Store {
        let store = try Store(path: folder.appendingPathComponent(name).path)
        _ = try await store.users.insert(NewUser(name: "Bench", email: "bench@example.com"))
        return store
    }

    func run() async throws {
        let items = makeItems()
        let folder = try scratchFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        report.header()

        // store.insert
        var shelfInsert: [Double] = []
        var rawInsert: [Double] = []
        var shellInsert: [Double] = []
        var rawInsertNoCounters: [Double] = []
        let script = folder.appendingPathComponent("insert.sql")
        try writeInsertScript(items, to: script)
        for run in 0..<runs where only == nil || only == "store.insert" {
            // Alternate who goes first, so drift on a shared machine hits both sides alike.
            for side in run % 2 == 0 ? [0, 1, 2, 3] : [1, 0, 3, 2] {
                switch side {
                case 0:
                    let store = try await makeStore(in: folder, name: "shelf-\(run).sqlite")
                    shelfInsert.append(
                        Double(rows) / (try await time { _ = try await store.items.insert(contentsOf: items) }))
                case 1:
                    let path = folder.appendingPathComponent("raw-\(run).sqlite").path
                    _ = try await makeStore(in: folder, name: "raw-\(run).sqlite")
                    let raw = RawConnection(path: path)
                    rawInsert.append(Double(rows) / time { rawInsertAll(items, raw) })
                case 3:
                    // The cost of the change counters: the same raw insert without their triggers.
                    let path = folder.appendingPathComponent("raw-nocounters-\(run).sqlite").path
                    _ = try await makeStore(in: folder, name: "raw-nocounters-\(run).sqlite")
                    let raw = RawConnection(path: path)
                    for event in ["insert", "update", "delete"] {
                        raw.exec("DROP TRIGGER items_changes_after_\(event)")
                    }
                    rawInsertNoCounters.append(Double(rows) / time { rawInsertAll(items, raw) })
                default:
                    let path = folder.appendingPathComponent("shell-\(run).sqlite").path
                    _ = try await makeStore(in: folder, name: "shell-\(run).sqlite")
                    shellInsert.append(Double(rows) / (try time { try runShell(path, input: script) }))
                }
            }
        }
        if only == nil || only == "store.insert" {
            report.compare(
                "store.insert", unit: "rows/s", shelf: shelfInsert,
                against: [
                    ("raw-c", rawInsert, "ratio >= 0.9"), ("sqlite3-shell", shellInsert, "(for reference)"),
                    ("raw-c-without-change-counters", rawInsertNoCounters, "(what the counter triggers cost)"),
                ])
        }

        if only == nil || only == "store.wal" { try await runWAL() }

        // store.fetch_all and store.page read the same populated file.
        let path = folder.appendingPathComponent("shelf-0.sqlite").path
        let store: Store
        if FileManager.default.fileExists(atPath: path) {
            store = try Store(path: path)  // filled by the insert benchmark
        } else {
            store = try await makeStore(in: folder, name: "shelf-0.sqlite")
            _ = try await store.items.insert(contentsOf: items)
        }
        let raw = RawConnection(path: path)
        // The same C code on a connection with the page cache Shelf gives each reader (8 MiB,
        // against the writer's 32 MiB that `raw` has): how much of the gap is that setting.
        let rawSmallCache = RawConnection(path: path)
        rawSmallCache.exec("PRAGMA cache_size=-8192")
        var shelfFetch: [Double] = []
        var rawFetch: [Double] = []
        var rawSmallCacheFetch: [Double] = []
        var shellFetch: [Double] = []
        let fetchSQL = "SELECT \(rawItemColumns) FROM items ORDER BY created_at DESC, id DESC"
        // Three samples a run, alternating which side goes first.
        for sample in 0..<(runs * 3) where only == nil || only == "store.fetch_all" {
            var count = 0
            for side in sample % 2 == 0 ? [0, 1, 3, 2] : [3, 1, 0, 2] {
                switch side {
                case 0:
                    shelfFetch.append(
                        Double(rows)
                            / (try await time { count = try await store.items.items(matching: ItemQuery()).count }))
                    precondition(count == rows, "shelf fetched \(count) of \(rows)")
                case 1:
                    rawFetch.append(Double(rows) / time { count = rawFetchAll(fetchSQL, raw).count })
                    precondition(count == rows, "raw fetched \(count) of \(rows)")
                case 3:
                    rawSmallCacheFetch.append(
                        Double(rows) / time { count = rawFetchAll(fetchSQL, rawSmallCache).count })
                    precondition(count == rows, "raw fetched \(count) of \(rows)")
                default:
                    if sample < runs {
                        shellFetch.append(Double(rows) / (try time { try runShell(path, sql: fetchSQL) }))
                    }
                }
            }
        }
        if !shelfFetch.isEmpty {
            report.compare(
                "store.fetch_all", unit: "rows/s", shelf: shelfFetch,
                against: [
                    ("raw-c", rawFetch, "ratio >= 0.9"),
                    ("raw-c-8mib-cache", rawSmallCacheFetch, "(raw with the page cache of Shelf's readers)"),
                    ("sqlite3-shell", shellFetch, "(for reference)"),
                ])
        }

        // store.page: 50 items after the item at row 100,000 (or the middle) of the default order.
        let all = try await store.items.items(matching: ItemQuery())
        let anchor = all[min(100_000, rows / 2)]
        let cursor = ItemCursor(anchor)
        let pageSQL =
            "SELECT \(rawItemColumns) FROM items WHERE (created_at, id) < (?, ?) ORDER BY created_at DESC, id DESC LIMIT ?"
        let statement = raw.prepare(pageSQL)
        defer { sqlite3_finalize(statement) }
        let expected = try await store.items.items(matching: ItemQuery(), after: cursor, limit: 50)
        precondition(rawPage(statement, anchor) == expected, "raw and shelf pages differ")
        // Short batches, alternating sides, many of them: a burst of load from a neighbour on
        // this shared machine then lands in a few batches of both sides, and the medians
        // shrug it off.
        let pages = 250
        var shelfPage: [Double] = []
        var rawPageTimes: [Double] = []
        for batch in 0..<(runs * 8) {
            let shelfTime = try await time {
                for _ in 0..<pages {
                    _ = try await store.items.items(matching: ItemQuery(), after: cursor, limit: 50)
                }
            }
            let rawTime = time { for _ in 0..<pages { _ = rawPage(statement, anchor) } }
            guard batch > 0 else { continue }  // the first batch warms both sides up
            shelfPage.append(shelfTime / Double(pages) * 1e6)
            rawPageTimes.append(rawTime / Double(pages) * 1e6)
        }
        report.print(
            Comparison(
                name: "store.page", unit: "us/page", shelf: median(shelfPage), baseline: median(rawPageTimes),
                baselineName: "raw-c", target: "ratio <= 1.1"))
    }

    // MARK: Baselines

    func rawInsertAll(_ items: [NewItem], _ raw: RawConnection) {
        raw.exec("BEGIN IMMEDIATE")
        let statement = raw.prepare(Self.insertSQL)
        let now = milliseconds(Date())
        for item in items {
            sqlite3_bind_int64(statement, 1, item.userID.rawValue)
            bindText(statement, 2, item.title)
            if let notes = item.notes { bindText(statement, 3, notes) } else { sqlite3_bind_null(statement, 3) }
            bindText(statement, 4, item.status.rawValue)
            sqlite3_bind_int64(statement, 5, Int64(item.priority))
            let created = item.createdAt.map(milliseconds) ?? now
            sqlite3_bind_int64(statement, 6, created)
            sqlite3_bind_int64(statement, 7, created)
            guard sqlite3_step(statement) == SQLITE_DONE else {
                fatalError(String(cString: sqlite3_errmsg(raw.handle)))
            }
            sqlite3_reset(statement)
        }
        sqlite3_finalize(statement)
        raw.exec("COMMIT")
    }

    func rawFetchAll(_ sql: String, _ raw: RawConnection) -> [Item] {
        let statement = raw.prepare(sql)
        defer { sqlite3_finalize(statement) }
        var items: [Item] = []
        while sqlite3_step(statement) == SQLITE_ROW { items.append(rawItem(statement)) }
        return items
    }

    func rawPage(_ statement: OpaquePointer, _ anchor: Item) -> [Item] {
        sqlite3_reset(statement)
        sqlite3_bind_int64(statement, 1, milliseconds(anchor.createdAt))
        sqlite3_bind_int64(statement, 2, anchor.id.rawValue)
        sqlite3_bind_int64(statement, 3, 50)
        var items: [Item] = []
        while sqlite3_step(statement) == SQLITE_ROW { items.append(rawItem(statement)) }
        return items
    }

    func writeInsertScript(_ items: [NewItem], to url: URL) throws {
        func quoted(_ text: String) -> String { "'" + text.replacingOccurrences(of: "'", with: "''") + "'" }
        var script = "PRAGMA synchronous=NORMAL; PRAGMA foreign_keys=ON;\nBEGIN IMMEDIATE;\n"
        for item in items {
            let created = milliseconds(item.createdAt ?? Date())
            script +=
                "INSERT INTO items (user_id, title, notes, status, priority, created_at, updated_at, version) VALUES ("
                + "\(item.userID.rawValue), \(quoted(item.title)), \(item.notes.map(quoted) ?? "NULL"), "
                + "'\(item.status.rawValue)', \(item.priority), \(created), \(created), 1);\n"
        }
        script += "COMMIT;\n"
        try script.write(to: url, atomically: true, encoding: .utf8)
    }

    func runShell(_ path: String, input: URL? = nil, sql: String? = nil) throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/sqlite3")
        // A busy timeout, as the other sides have: a store released just before may still be
        // closing (checkpointing its WAL) when the shell starts.
        process.arguments = ["-cmd", ".timeout 5000", path] + (sql.map { [$0] } ?? [])
        if let input { process.standardInput = try FileHandle(forReadingFrom: input) }
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else { throw CocoaError(.fileReadUnknown) }
    }
}
