import Foundation
import ShelfPostgres
import ShelfSQLiteBackend
import ShelfStore

/// `load`: 8 writers for `seconds` while 4 separate `shelf watch items --limit 50` processes (the
/// release shelf binary beside this one) watch the same database.
///
/// The writers are 8 `Store`s in this process (each with its own connection pool on
/// PostgreSQL, its own connections on SQLite), each inserting items and, every fourth write,
/// marking one of its own items done (a read and an update). Reported: writes per second (all
/// writers), and whether every watcher's last printed line equals the final state (the count
/// and the first window's IDs and versions: nothing missed), and how long after the last
/// commit the slowest watcher printed it.
struct PostgresLoadSuite {
    /// Where the database lives: a PostgreSQL server (a scratch database on it), or nil for a
    /// SQLite file in a scratch folder.
    let server: PostgresBenchServer?
    let seconds: Double
    let shelfPath: String
    let report: Report
    let writers = 8
    let watchers = 4
    var prefix: String { server == nil ? "sqlite.load" : "pg.load" }

    func run() async throws {
        report.note(
            "\(prefix): \(writers) writers, \(watchers) watchers, \(seconds) s, \(PostgresBaseline.machineLoad())")
        if let server {
            try await server.withScratch { database in
                let url = database.url
                try await measure(location: url) { try await Store.open(postgres: url) }
            }
        } else {
            let folder = try scratchFolder()
            defer { try? FileManager.default.removeItem(at: folder) }
            let path = folder.appendingPathComponent("load.sqlite").path
            let store = try Store(path: path)
            _ = try await store.users.insert(NewUser(name: "Bench", email: "bench@example.com"))
            try await measure(location: path) { try Store(path: path) }
        }
        report.note("\(prefix) done, \(PostgresBaseline.machineLoad())")
    }

    func measure(location: String, open: @escaping @Sendable () async throws -> Store) async throws {
        let seed = try await open()
        let base = Date(timeIntervalSince1970: 1_700_000_000)
        _ = try await seed.items.insert(
            contentsOf: (0..<1_000).map {
                NewItem(userID: User.ID(1), title: "seed \($0)", createdAt: base.addingTimeInterval(Double($0)))
            })

        let folder = try scratchFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        var processes: [(process: Process, output: URL)] = []
        defer { for (process, _) in processes where process.isRunning { process.terminate() } }
        for index in 0..<watchers {
            let output = folder.appendingPathComponent("watch-\(index).jsonl")
            let errors = folder.appendingPathComponent("watch-\(index).err")
            _ = FileManager.default.createFile(atPath: output.path, contents: nil)
            _ = FileManager.default.createFile(atPath: errors.path, contents: nil)
            let process = Process()
            process.executableURL = URL(fileURLWithPath: shelfPath)
            process.arguments = ["watch", "items", "--db", location, "--limit", "50"]
            process.standardOutput = try FileHandle(forWritingTo: output)
            process.standardError = try FileHandle(forWritingTo: errors)
            process.standardInput = FileHandle.nullDevice
            try process.run()
            processes.append((process, output))
        }
        for (index, watcher) in processes.enumerated() {
            let deadline = ContinuousClock.now + .seconds(30)
            while Self.lastLine(of: watcher.output) == nil {
                guard watcher.process.isRunning, ContinuousClock.now < deadline else {
                    let errors = folder.appendingPathComponent("watch-\(index).err")
                    throw BenchError(
                        "watcher \(index) printed nothing: "
                            + ((try? String(contentsOf: errors, encoding: .utf8)) ?? "(no stderr)"))
                }
                try await Task.sleep(for: .milliseconds(20))
            }
        }

        // The writers.
        let end = ContinuousClock.now + .seconds(seconds)
        let started = ContinuousClock.now
        let results = try await withThrowingTaskGroup(of: (writes: Int, failures: [String]).self) { group in
            for writer in 0..<writers {
                group.addTask {
                    let store = try await open()
                    var writes = 0
                    var failures: [String] = []
                    var mine: [Item.ID] = []
                    while ContinuousClock.now < end {
                        do {
                            if writes % 4 == 3, let id = mine.randomElement(),
                                var item = try await store.items.item(id: id)
                            {
                                item.status = item.status == .open ? .done : .open
                                _ = try await store.items.update(item)
                            } else {
                                mine.append(
                                    try await store.items.insert(
                                        NewItem(userID: User.ID(1), title: "writer \(writer) write \(writes)")))
                            }
                            writes += 1
                        } catch {
                            if failures.count < 5 { failures.append("\(error)") }
                        }
                    }
                    await store.close()
                    return (writes, failures)
                }
            }
            var all: [(writes: Int, failures: [String])] = []
            for try await result in group { all.append(result) }
            return all
        }
        let elapsed = (ContinuousClock.now - started).seconds
        let writes = results.map(\.writes).reduce(0, +)
        for failure in results.flatMap(\.failures) { report.note("\(prefix): a write failed: \(failure)") }

        // The final state, then every watcher's last line against it.
        let count = try await seed.items.count(matching: ItemQuery())
        let window = try await seed.items.items(matching: ItemQuery(), after: nil, limit: 50)
        let expected = Snapshot(count: count, items: window.map { [$0.id.rawValue, $0.version] })
        let writesEnded = ContinuousClock.now
        var lags: [Double] = []
        var matched = 0
        for (index, watcher) in processes.enumerated() {
            let deadline = writesEnded + .seconds(20)
            var last: Snapshot?
            while true {
                last = Self.lastLine(of: watcher.output).flatMap(Snapshot.init(line:))
                if last == expected || ContinuousClock.now > deadline { break }
                try await Task.sleep(for: .milliseconds(10))
            }
            if last == expected {
                matched += 1
                lags.append((ContinuousClock.now - writesEnded).seconds)
            } else {
                report.note(
                    "\(prefix): watcher \(index) ended on count \(last?.count ?? -1), "
                        + "first IDs \(last?.items.prefix(3).map { $0[0] } ?? []); "
                        + "the store has \(count), first IDs \(expected.items.prefix(3).map { $0[0] })")
            }
        }
        for (process, _) in processes {
            process.terminate()
            process.waitUntilExit()
        }
        let lines = processes.map { Self.lineCount(of: $0.output) }
        await seed.close()

        report.print(
            Figure(
                name: "\(prefix).writes_per_s", unit: "writes/s", value: Double(writes) / elapsed,
                target:
                    "\(writes) writes (inserts, and every 4th an update) by \(writers) Stores in \(String(format: "%.1f", elapsed)) s"
            ))
        report.print(
            Figure(
                name: "\(prefix).watchers_final", unit: "of \(watchers)", value: Double(matched),
                target: "= \(watchers): last line == final state (count \(count)); lines printed \(lines)"))
        report.print(
            Figure(
                name: "\(prefix).watchers_settled", unit: "ms", value: (lags.max() ?? .nan) * 1e3,
                target: "(after the last write, until every watcher printed the final state; upper bound)"))
    }

    /// A watcher's line as compared: the count, and the window's [ID, version] pairs.
    struct Snapshot: Equatable {
        let count: Int
        let items: [[Int64]]

        init(count: Int, items: [[Int64]]) {
            self.count = count
            self.items = items
        }

        init?(line: Data) {
            guard let object = try? JSONSerialization.jsonObject(with: line) as? [String: Any],
                let count = (object["count"] as? NSNumber)?.intValue, let items = object["items"] as? [[String: Any]]
            else { return nil }
            var pairs: [[Int64]] = []
            for item in items {
                guard let id = (item["id"] as? NSNumber)?.int64Value,
                    let version = (item["version"] as? NSNumber)?.int64Value
                else { return nil }
                pairs.append([id, version])
            }
            self.init(count: count, items: pairs)
        }
    }

    /// The last complete line of `file` (its last 1 MB is enough: a line of 50 items is ~15 kB).
    static func lastLine(of file: URL) -> Data? {
        guard let handle = try? FileHandle(forReadingFrom: file) else { return nil }
        defer { try? handle.close() }
        guard let size = try? handle.seekToEnd(), size > 0 else { return nil }
        let start = size > 1 << 20 ? size - (1 << 20) : 0
        try? handle.seek(toOffset: start)
        guard let tail = try? handle.readToEnd(), tail.last == 0x0A else { return nil }
        let body = tail.dropLast()
        let from = body.lastIndex(of: 0x0A).map { $0 + 1 } ?? body.startIndex
        return Data(body[from...])
    }

    static func lineCount(of file: URL) -> Int {
        ((try? Data(contentsOf: file)) ?? Data()).reduce(0) { $0 + ($1 == 0x0A ? 1 : 0) }
    }
}
