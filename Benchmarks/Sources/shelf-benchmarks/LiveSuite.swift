import BaselineSQLite
import Foundation
import ShelfReactive
import ShelfSQLiteBackend
import ShelfStore
import Synchronization

/// `live.*`: from the start of a one-row write transaction to the observer holding the new
/// 50-item window (and count), against the simplest honest raw baseline: an update hook on
/// the writer, and a re-query on a reader connection right after COMMIT.
///
/// Both sides read the window with the same SQL, and the count with the same SQL (the
/// trigger-kept `row_count` of `shelf_changes`, which Shelf reads for an unfiltered count).
/// The sides take turns in blocks of `block` writes, alternating which goes first; after each
/// block the process rests for `settle`, so work a side leaves behind (Shelf's background
/// checkpoint and any trailing re-reads of its change tracker) runs before the other side's
/// block and counts as the side's own in its CPU time and context switches (`getrusage` over
/// the block and its rest). The raw side pays SQLite's automatic checkpoint inside its
/// COMMITs, Shelf its checkpointer on its own queue.
struct LiveSuite {
    let writes: Int
    let report: Report
    /// Writes a side makes before the other takes its turn.
    let block = 50
    /// The unfiltered count, as Shelf reads it (kept by the triggers of 0002_change_counters).
    static let countSQL = "SELECT row_count FROM shelf_changes WHERE table_name = 'items'"
    /// The rest after each block.
    let settle: Duration = .milliseconds(200)

    func run() async throws {
        report.header()
        report.note(
            "live: shelf = Store.items.insert(_:) (async) until the live 50-item window (page + count) is observed; "
                + "raw-c = BEGIN IMMEDIATE, INSERT, COMMIT on a writer with an update hook, then the same page and "
                + "count SQL on a reader connection. Same schema and triggers on both. Blocks of \(block) writes "
                + "per side, alternating, each followed by a \(settle) rest counted in its side's CPU and context "
                + "switches (getrusage, whole process). raw-c checkpoints inside COMMIT (SQLite's default); shelf "
                + "on its checkpointer's queue.")
        for (rows, label) in [(1_000, "1k"), (200_000, "200k")] {
            let folder = try scratchFolder()
            defer { try? FileManager.default.removeItem(at: folder) }
            let shelfPath = folder.appendingPathComponent("shelf.sqlite").path
            // The raw side in a folder of its own: Shelf's file watcher watches its database's
            // folder, and must not wake (on the raw side's time) for the raw side's writes.
            let rawFolder = folder.appendingPathComponent("raw")
            try FileManager.default.createDirectory(at: rawFolder, withIntermediateDirectories: true)
            let rawPath = rawFolder.appendingPathComponent("raw.sqlite").path
            // Both sides get an identical, compact copy of one seeded database.
            let seedPath = rawFolder.appendingPathComponent("seed.sqlite").path
            try await populate(seedPath, rows: rows)
            let seed = RawConnection(path: seedPath)
            seed.exec("VACUUM INTO '\(shelfPath)'")
            seed.exec("VACUUM INTO '\(rawPath)'")

            var shelf: [Double] = []
            var raw: [Double] = []
            var shelfUsage = Usage()
            var rawUsage = Usage()
            let store = try Store(path: shelfPath)
            let rawSide = RawLive(path: rawPath)
            let observer = try await WindowObserver(store: store)
            try await Task.sleep(for: settle)
            var index = 0
            for turn in 0..<(writes + block - 1) / block {
                let count = min(block, writes - turn * block)
                for side in turn % 2 == 0 ? [0, 1] : [1, 0] {
                    let before = Usage.now()
                    for offset in 0..<count {
                        if side == 0 {
                            shelf.append(try await observer.measureInsert(index: index + offset))
                        } else {
                            raw.append(rawSide.measureInsert(index: index + offset))
                        }
                    }
                    try await Task.sleep(for: settle)
                    let used = Usage.now() - before
                    if side == 0 { shelfUsage += used } else { rawUsage += used }
                }
                index += count
            }
            report.print(
                Comparison(
                    name: "live.latency_p99_\(label)", unit: "us", shelf: percentile(shelf, 99) * 1e6,
                    baseline: percentile(raw, 99) * 1e6, baselineName: "raw-c", target: "ratio <= 1.2, p99 <= 1000 us"))
            report.print(
                Comparison(
                    name: "live.latency_median_\(label)", unit: "us", shelf: median(shelf) * 1e6,
                    baseline: median(raw) * 1e6, baselineName: "raw-c", target: "ratio <= 1.5"))
            let perThousand = 1000 / Double(writes)
            report.print(
                Comparison(
                    name: "live.cpu_per_1k_writes_\(label)", unit: "ms", shelf: shelfUsage.cpu * 1e3 * perThousand,
                    baseline: rawUsage.cpu * 1e3 * perThousand, baselineName: "raw-c",
                    target: "(user + system, rests included)"))
            report.print(
                Comparison(
                    name: "live.switches_per_1k_writes_\(label)", unit: "",
                    shelf: Double(shelfUsage.switches) * perThousand, baseline: Double(rawUsage.switches) * perThousand,
                    baselineName: "raw-c", target: "(voluntary + involuntary context switches)"))

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
                let before = Usage.now()
                try await Task.sleep(for: .seconds(10))
                let used = Usage.now() - before
                report.print(
                    Figure(
                        name: "live.idle_cpu_percent", unit: "%", value: used.cpu / 10 * 100, target: "< 1% over 10 s"))
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
}

/// The process's CPU time and context switches so far (`getrusage(RUSAGE_SELF)`, all threads).
struct Usage {
    var cpu: Double = 0
    var switches = 0

    static func now() -> Usage {
        var usage = rusage()
        getrusage(RUSAGE_SELF.rawValue, &usage)
        return Usage(
            cpu: Double(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec)
                + Double(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1e6,
            switches: usage.ru_nvcsw + usage.ru_nivcsw)
    }

    static func - (a: Usage, b: Usage) -> Usage { Usage(cpu: a.cpu - b.cpu, switches: a.switches - b.switches) }
    static func += (a: inout Usage, b: Usage) {
        a.cpu += b.cpu
        a.switches += b.switches
    }
}

/// Holds a live 50-item window and times how long a write takes to reach it.
final class WindowObserver: Sendable {
    private struct Waiting {
        /// The title being waited for.
        var title: String?
        /// When the observer received the window showing it.
        var arrival: ContinuousClock.Instant?
        /// Resumed when it arrives (in-process writes: no thread blocks waiting).
        var continuation: CheckedContinuation<Void, Never>?
        /// Signalled when it arrives (writes by the shell, waited for with a timeout).
        var semaphore: DispatchSemaphore?
    }

    private let store: Store
    private let window: Property<LiveResult<ItemWindow>>
    private let token = Lifetime.Token()
    private let waiting = Mutex(Waiting())

    init(store: Store) async throws {
        self.store = store
        window = try await store.liveItems(matching: ItemQuery(), limit: 50)
        window.observe(during: token.lifetime) { [weak self] result in
            let now = ContinuousClock.now
            guard let self, case .success(let window) = result, let first = window.items.first?.title else { return }
            let wake = self.waiting.withLock { state -> (CheckedContinuation<Void, Never>?, DispatchSemaphore?)? in
                guard state.title == first, state.arrival == nil else { return nil }
                state.arrival = now
                defer {
                    state.continuation = nil
                    state.semaphore = nil
                }
                return (state.continuation, state.semaphore)
            }
            wake?.0?.resume()
            wake?.1?.signal()
        }
    }

    private func expect(_ title: String, semaphore: DispatchSemaphore? = nil) {
        waiting.withLock { $0 = Waiting(title: title, semaphore: semaphore) }
    }

    /// When the awaited window arrived.
    private var arrival: ContinuousClock.Instant {
        guard let arrival = waiting.withLock({ $0.arrival }) else { fatalError("no window arrived") }
        return arrival
    }

    func measureInsert(index: Int) async throws -> Double {
        let title = "shelf write \(index)"
        expect(title)
        let start = ContinuousClock.now
        _ = try await store.items.insert(NewItem(userID: User.ID(1), title: title, createdAt: Date()))
        await withCheckedContinuation { continuation in
            let arrived = waiting.withLock { state -> Bool in
                if state.arrival != nil { return true }
                state.continuation = continuation
                return false
            }
            if arrived { continuation.resume() }
        }
        // Timed where the observer got the window, not where this task resumed.
        return (arrival - start).seconds
    }

    func measureExternalInsert(index: Int, shell: ShellWriter) async throws -> Double {
        let title = "shell write \(index)"
        let arrived = DispatchSemaphore(value: 0)
        expect(title, semaphore: arrived)
        let start = ContinuousClock.now
        try shell.send(
            "INSERT INTO items (user_id, title, created_at, updated_at) VALUES (1, '\(title)', \(milliseconds(Date())), 0);"
        )
        let result = arrived.wait(timeout: .now() + 5)
        precondition(result == .success, "the observer never saw \(title)")
        return (arrival - start).seconds
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
        count = reader.prepare(LiveSuite.countSQL)
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
