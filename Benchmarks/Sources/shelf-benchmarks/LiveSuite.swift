import BaselineSQLite
import Foundation
import ShelfReactive
import ShelfStore
import Synchronization

/// `live.*`: from the start of a one-row write transaction to the observer holding the new
/// 50-item window (and count), against the simplest honest raw baseline: an update hook on
/// the writer, and a re-query on a reader connection right after COMMIT.
struct LiveSuite {
    let writes: Int
    let report: Report

    func run() async throws {
        report.header()
        for (rows, label) in [(1_000, "1k"), (200_000, "200k")] {
            let folder = try scratchFolder()
            defer { try? FileManager.default.removeItem(at: folder) }
            let shelfPath = folder.appendingPathComponent("shelf.sqlite").path
            let rawPath = folder.appendingPathComponent("raw.sqlite").path
            // Both sides get an identical, compact copy of one seeded database.
            let seedPath = folder.appendingPathComponent("seed.sqlite").path
            try await populate(seedPath, rows: rows)
            let seed = RawConnection(path: seedPath)
            seed.exec("VACUUM INTO '\(shelfPath)'")
            seed.exec("VACUUM INTO '\(rawPath)'")

            var shelf: [Double] = []
            var raw: [Double] = []
            let store = try Store(path: shelfPath)
            let rawSide = RawLive(path: rawPath)
            let observer = try WindowObserver(store: store)
            // Interleave, so both sides see the same machine.
            for index in 0..<writes {
                shelf.append(try await observer.measureInsert(index: index))
                raw.append(rawSide.measureInsert(index: index))
            }
            report.print(
                Comparison(
                    name: "live.latency_p99_\(label)", unit: "us", shelf: percentile(shelf, 99) * 1e6,
                    baseline: percentile(raw, 99) * 1e6, baselineName: "raw-c", target: "ratio <= 1.2, p99 <= 1000 us"))
            report.print(
                Comparison(
                    name: "live.latency_median_\(label)", unit: "us", shelf: median(shelf) * 1e6,
                    baseline: median(raw) * 1e6, baselineName: "raw-c", target: "(median)"))

            // The same, written by another process: the sqlite3 shell, fed one INSERT a time.
            var external: [Double] = []
            let shell = try ShellWriter(path: shelfPath)
            for index in 0..<writes {
                external.append(try await observer.measureExternalInsert(index: index, shell: shell))
            }
            shell.close()
            report.print(
                Figure(
                    name: "live.cross_process_p99_\(label)", unit: "ms", value: percentile(external, 99) * 1e3,
                    target: "p99 <= 20 ms (median \(String(format: "%.2f", median(external) * 1e3)) ms)"))

            if rows == 1_000 {
                // A watching process at rest: the live query is registered, nothing writes.
                let before = cpuSeconds()
                try await Task.sleep(for: .seconds(10))
                let used = cpuSeconds() - before
                report.print(
                    Figure(name: "live.idle_cpu_percent", unit: "%", value: used / 10 * 100, target: "< 1% over 10 s"))
            }
            withExtendedLifetime(observer) {}
        }
    }

    func populate(_ path: String, rows: Int) async throws {
        let store = try Store(path: path)
        _ = try await store.users.insert(NewUser(name: "Bench", email: "bench@example.com"))
        let base = Date(timeIntervalSince1970: 1_700_000_000)
        _ = try await store.items.insert(
            contentsOf: (0..<rows).map {
                NewItem(userID: User.ID(1), title: "item \($0)", createdAt: base.addingTimeInterval(Double($0)))
            })
    }

    func cpuSeconds() -> Double {
        var usage = rusage()
        getrusage(RUSAGE_SELF.rawValue, &usage)
        return Double(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec)
            + Double(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1e6
    }
}

/// Holds a live 50-item window and times how long a write takes to reach it.
final class WindowObserver: Sendable {
    private let store: Store
    private let window: Property<LiveResult<ItemWindow>>
    private let token = Lifetime.Token()
    /// The title being waited for, and the semaphore to signal when the window shows it.
    private let waiting = Mutex<(title: String?, arrived: DispatchSemaphore?)>((nil, nil))
    /// When the observer received the awaited window.
    private let arrival = Mutex<ContinuousClock.Instant?>(nil)

    init(store: Store) throws {
        self.store = store
        window = try store.liveItems(matching: ItemQuery(), limit: 50)
        window.observe(during: token.lifetime) { [weak self] result in
            let now = ContinuousClock.now
            guard let self, case .success(let window) = result, let first = window.items.first?.title else { return }
            let semaphore = self.waiting.withLock { state -> DispatchSemaphore? in
                guard state.title == first else { return nil }
                defer { state = (nil, nil) }
                return state.arrived
            }
            if let semaphore {
                self.arrival.withLock { $0 = now }
                semaphore.signal()
            }
        }
    }

    private func expect(_ title: String) -> DispatchSemaphore {
        let semaphore = DispatchSemaphore(value: 0)
        waiting.withLock { $0 = (title, semaphore) }
        return semaphore
    }

    func measureInsert(index: Int) async throws -> Double {
        let title = "shelf write \(index)"
        let arrived = expect(title)
        let start = ContinuousClock.now
        _ = try await store.items.insert(NewItem(userID: User.ID(1), title: title, createdAt: Date()))
        await withCheckedContinuation { continuation in
            DispatchQueue.global().async {
                arrived.wait()
                continuation.resume()
            }
        }
        // Timed where the observer got the window, not where this task resumed.
        return (arrival.withLock { $0! } - start).seconds
    }

    func measureExternalInsert(index: Int, shell: ShellWriter) async throws -> Double {
        let title = "shell write \(index)"
        let arrived = expect(title)
        let start = ContinuousClock.now
        try shell.send(
            "INSERT INTO items (user_id, title, created_at, updated_at) VALUES (1, '\(title)', \(milliseconds(Date())), 0);"
        )
        let result = arrived.wait(timeout: .now() + 5)
        precondition(result == .success, "the observer never saw \(title)")
        return (arrival.withLock { $0! } - start).seconds
    }
}

/// The raw baseline: update hook on the writer; after COMMIT, if the hook fired, re-query the
/// window and count on a separate reader connection.
final class RawLive {
    let writer: RawConnection
    let reader: RawConnection
    let insert: OpaquePointer
    let page: OpaquePointer
    let count: OpaquePointer
    var changed = false
    var window: ([Item], Int) = ([], 0)

    init(path: String) {
        writer = RawConnection(path: path)
        reader = RawConnection(path: path)
        insert = writer.prepare(StoreSuite.insertSQL)
        page = reader.prepare("SELECT \(rawItemColumns) FROM items ORDER BY created_at DESC, id DESC LIMIT 50")
        count = reader.prepare("SELECT count(*) FROM items")
        sqlite3_update_hook(
            writer.handle,
            { context, _, _, _, _ in
                Unmanaged<RawLive>.fromOpaque(context!).takeUnretainedValue().changed = true
            }, Unmanaged.passUnretained(self).toOpaque())
    }

    deinit {
        for statement in [insert, page, count] { sqlite3_finalize(statement) }
    }

    func measureInsert(index: Int) -> Double {
        let start = ContinuousClock.now
        writer.exec("BEGIN IMMEDIATE")
        let now = milliseconds(Date())
        sqlite3_bind_int64(insert, 1, 1)
        bindText(insert, 2, "raw write \(index)")
        sqlite3_bind_null(insert, 3)
        bindText(insert, 4, "open")
        sqlite3_bind_int64(insert, 5, 0)
        sqlite3_bind_int64(insert, 6, now)
        sqlite3_bind_int64(insert, 7, now)
        guard sqlite3_step(insert) == SQLITE_DONE else { fatalError(String(cString: sqlite3_errmsg(writer.handle))) }
        sqlite3_reset(insert)
        writer.exec("COMMIT")
        if changed {
            changed = false
            reader.exec("BEGIN")
            var items: [Item] = []
            while sqlite3_step(page) == SQLITE_ROW { items.append(rawItem(page)) }
            sqlite3_reset(page)
            sqlite3_step(count)
            let total = Int(sqlite3_column_int64(count, 0))
            sqlite3_reset(count)
            reader.exec("COMMIT")
            window = (items, total)
        }
        precondition(window.0.first?.title == "raw write \(index)")
        return (ContinuousClock.now - start).seconds
    }
}

/// A `sqlite3` shell process kept open, fed statements on its standard input.
final class ShellWriter {
    private let process = Process()
    private let input = Pipe()

    init(path: String) throws {
        process.executableURL = URL(fileURLWithPath: "/usr/bin/sqlite3")
        process.arguments = [path]
        process.standardInput = input
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        try send("PRAGMA busy_timeout=5000;")
    }

    func send(_ sql: String) throws {
        try input.fileHandleForWriting.write(contentsOf: Data((sql + "\n").utf8))
    }

    func close() {
        try? input.fileHandleForWriting.close()
        process.waitUntilExit()
    }
}
