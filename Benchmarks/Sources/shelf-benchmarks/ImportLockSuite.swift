import BaselineSQLite
import Foundation

/// `import_lock.longest_wait`: while the release `shelf import items` of 1,000,000 rows runs
/// as a process (`--items N`), another connection of this process does one-row inserts in a
/// loop (one every 10 ms, busy timeout 10 minutes so that a write waits rather than fails);
/// the longest any of them waited, median over `--runs`. With `--before PATH` the same runs
/// use another `shelf` binary (one built from an older commit) as the baseline.
/// Also the import's wall time and peak RSS, and the writes that failed.
struct ImportLockSuite {
    let items: Int
    let runs: Int
    let report: Report
    let shelfPath: String
    let beforePath: String?

    private struct Sample {
        var longestWait: Double
        var seconds: Double
        var peakMegabytes: Double
        var writes: Int
        var failures: Int
    }

    func run() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("shelf-import-lock-\(getpid())")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        func path(_ name: String) -> String { folder.appendingPathComponent(name).path }

        let template = path("template.sqlite")
        try check(spawn(shelfPath, ["migrate", "--db", template]).wait())
        try check(
            spawn(
                "/usr/bin/sqlite3",
                [
                    template,
                    """
                    WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 100)
                    INSERT INTO users (name, email, created_at) SELECT 'User ' || i, 'user' || i || '@example.com', 0
                    FROM n; PRAGMA wal_checkpoint(TRUNCATE);
                    """,
                ]
            ).wait())
        let csv = path("items.csv")
        try makeCSV(csv)

        report.header()
        var samples: [String: [Sample]] = [:]
        let binaries = [("shelf", shelfPath)] + (beforePath.map { [("before", $0)] } ?? [])
        for _ in 0..<runs {
            for (label, binary) in binaries {
                let database = path("\(label).sqlite")
                for suffix in ["", "-wal", "-shm"] { unlink(database + suffix) }
                try FileManager.default.copyItem(atPath: template, toPath: database)
                let sample = try measure(binary, database: database, csv: csv)
                report.note(
                    "\(label): longest wait \(Int(sample.longestWait)) ms over \(sample.writes) writes "
                        + "(\(sample.failures) failed), import \(String(format: "%.1f", sample.seconds)) s, "
                        + "peak RSS \(Int(sample.peakMegabytes)) MB")
                samples[label, default: []].append(sample)
            }
        }
        let shelf = samples["shelf"] ?? []
        if let before = samples["before"] {
            report.compare(
                "import_lock.longest_wait", unit: "ms", shelf: shelf.map(\.longestWait),
                against: [("before", before.map(\.longestWait), "ratio < 1")])
            report.compare(
                "import_lock.import_seconds", unit: "s", shelf: shelf.map(\.seconds),
                against: [("before", before.map(\.seconds), "ratio ≤ 1.1")])
            report.compare(
                "import_lock.peak_rss", unit: "MB", shelf: shelf.map(\.peakMegabytes),
                against: [("before", before.map(\.peakMegabytes), "≤ 64 MB")])
        } else {
            report.print(
                Figure(
                    name: "import_lock.longest_wait", unit: "ms", value: median(shelf.map(\.longestWait)),
                    target: "as short as the apply"))
            report.print(
                Figure(name: "import_lock.import_seconds", unit: "s", value: median(shelf.map(\.seconds)), target: ""))
            report.print(
                Figure(
                    name: "import_lock.peak_rss", unit: "MB", value: median(shelf.map(\.peakMegabytes)),
                    target: "≤ 64 MB"))
        }
        report.print(
            Figure(
                name: "import_lock.failed_writes", unit: "writes", value: Double(shelf.map(\.failures).reduce(0, +)),
                target: "0"))
    }

    /// One import with the one-row writer running beside it until the import ends.
    private func measure(_ binary: String, database: String, csv: String) throws -> Sample {
        let connection = RawConnection(path: database)
        connection.exec("PRAGMA busy_timeout=600000")
        let insert = connection.prepare(
            "INSERT INTO items (user_id, title, created_at, updated_at) VALUES (1, 'written during the import', 0, 0)")
        defer { sqlite3_finalize(insert) }
        let start = ContinuousClock.now
        let pid = try spawn(binary, ["import", "items", csv, "--db", database, "--quiet"]).pid
        var sample = Sample(longestWait: 0, seconds: 0, peakMegabytes: 0, writes: 0, failures: 0)
        var status: Int32 = 0
        var usage = rusage()
        while true {
            let ended = wait4(pid, &status, WNOHANG, &usage)
            if ended == pid { break }
            let before = ContinuousClock.now
            let code = sqlite3_step(insert)
            sqlite3_reset(insert)
            let waited = ContinuousClock.now - before
            sample.longestWait = max(
                sample.longestWait,
                Double(waited.components.attoseconds) / 1e15
                    + Double(waited.components.seconds) * 1000)
            sample.writes += 1
            if code != SQLITE_DONE { sample.failures += 1 }
            usleep(10_000)
        }
        let elapsed = ContinuousClock.now - start
        sample.seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        sample.peakMegabytes = Double(usage.ru_maxrss) / 1024
        try check((status & 0x7F) == 0 ? (status >> 8) & 0xFF : 128 + (status & 0x7F))
        let count = connection.prepare("SELECT count(*) FROM items")
        defer { sqlite3_finalize(count) }
        guard sqlite3_step(count) == SQLITE_ROW,
            sqlite3_column_int64(count, 0) == Int64(items + sample.writes - sample.failures)
        else { throw BenchmarkError("the store does not hold the \(items) imported rows and the concurrent writes") }
        return sample
    }

    /// Writes the CSV in chunks: a child's peak RSS on Linux starts from its parent's at the
    /// fork, so this process stays small for the import's figure to be the import's own.
    private func makeCSV(_ path: String) throws {
        guard FileManager.default.createFile(atPath: path, contents: nil),
            let file = FileHandle(forWritingAtPath: path)
        else { throw BenchmarkError("cannot create \(path)") }
        defer { try? file.close() }
        var bytes = Array("title,user,notes,priority,created_at\n".utf8)
        for number in 0..<items {
            bytes.append(
                contentsOf:
                    "Item \(number) to read,user\(number % 100 + 1)@example.com,notes for item \(number),\(number % 4),2026-01-01T00:00:00.000Z\n"
                    .utf8)
            if bytes.count > 1 << 20 || number == items - 1 {
                try file.write(contentsOf: bytes)
                bytes.removeAll(keepingCapacity: true)
            }
        }
    }

    private func check(_ status: Int32) throws {
        guard status == 0 else { throw BenchmarkError("a child process exited with \(status)") }
    }

    private struct Child {
        let pid: pid_t

        func wait() -> Int32 {
            var status: Int32 = 0
            while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
            return (status & 0x7F) == 0 ? (status >> 8) & 0xFF : 128 + (status & 0x7F)
        }
    }

    /// Starts a process, its standard output discarded (its errors shown).
    private func spawn(_ executable: String, _ arguments: [String]) throws -> Child {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
        let argv = ([executable] + arguments).map { strdup($0) } + [nil]
        defer { for pointer in argv { free(pointer) } }
        var pid: pid_t = 0
        guard posix_spawn(&pid, executable, &actions, nil, argv, environ) == 0 else {
            throw BenchmarkError("cannot start \(executable)")
        }
        return Child(pid: pid)
    }
}
