import Foundation
import ShelfTestSupport
import Testing

/// `shelf watch items` whose reader stalls (`| sleep 70`): every line it could not write piled
/// up in memory (44 MB to 640 MB), and SIGTERM did nothing while a write blocked. Now only the
/// newest line waits, and a signal ends it at once.
@Suite struct WatchStalledReaderTests {
    let shelf: ShelfProcess

    init() throws {
        shelf = try ShelfProcess()
    }

    @Test func aStalledReaderKeepsOnlyTheNewestLineAndSIGTERMStillEndsIt() async throws {
        defer { shelf.cleanUp() }
        let database = shelf.databasePath
        // 300 items of 3 KB: a line is about 1 MB, far more than a pipe holds. A reader that
        // never reads: the FIFO's buffer fills and the writes block.
        let (child, reader) = try await StalledWatch.start(shelf, items: 300, limit: 1000)
        defer { close(reader) }
        #expect(await ProcessWatch.waitUntil(child.pid, holds: database), "the watch opened the store")
        let before = try #require(residentBytes(of: child.pid))
        let notes = String(repeating: "n", count: 3_000)
        for round in 0..<40 {
            let result = try await shelf.run(
                [
                    "items", "add", "--user", "ann@example.com", "--title", "new \(round)", "--notes", notes, "--db",
                    database,
                ])
            if result.status != 0 { break }
        }
        // Each change is a new line of about 1 MB; before the fix each waited in memory.
        let pid = child.pid
        let grown = await withCheckedContinuation { continuation in
            Thread.detachNewThread {
                // Poll for growth past 30 MB for a while: it kept growing as lines queued.
                let start = ContinuousClock.now
                var peak = 0
                while ContinuousClock.now - start < .seconds(5) {
                    peak = max(peak, (residentBytes(of: pid) ?? 0) - before)
                    usleep(50_000)
                }
                continuation.resume(returning: peak)
            }
        }
        #expect(grown < 30 << 20, "resident memory grew by \(grown >> 20) MB while the reader stalled")
        let ended = await withCheckedContinuation { continuation in
            Thread.detachNewThread {
                let sent = ContinuousClock.now
                kill(pid, SIGTERM)
                while ContinuousClock.now - sent < .seconds(10), !ProcessWatch.hasExited(pid) { usleep(2000) }
                continuation.resume(returning: ProcessWatch.hasExited(pid))
            }
        }
        #expect(ended, "SIGTERM did not end it while a write blocked")
        if !ended { kill(pid, SIGKILL) }
        _ = child.wait()
    }
}

/// A `shelf watch items` writing into a FIFO nobody reads yet, over a store of one user and
/// `items` items of 3 KB notes (a line of many such items is more than a pipe holds).
enum StalledWatch {
    /// Seeds `shelf`'s store and starts the watch with `--limit limit`; returns it and the
    /// FIFO's reading end (non-blocking, not read: the caller closes it).
    static func start(_ shelf: ShelfProcess, items: Int, limit: Int) async throws -> (ChildProcess, Int32) {
        let folder = shelf.folder
        let database = shelf.databasePath
        #expect(
            try await shelf.run(["users", "add", "--name", "Ann", "--email", "ann@example.com", "--db", database])
                .status == 0)
        let notes = String(repeating: "n", count: 3_000)
        let rows = (1...items).map { #"{"title": "item \#($0)", "user": "ann@example.com", "notes": "\#(notes)"}"# }
        let file = folder.appendingPathComponent("items.jsonl").path
        try Data(rows.joined(separator: "\n").utf8).write(to: URL(fileURLWithPath: file))
        #expect(try await shelf.run(["import", "items", file, "--quiet", "--db", database]).status == 0)
        let fifo = folder.appendingPathComponent("out-\(UUID().uuidString)").path
        #expect(mkfifo(fifo, 0o600) == 0)
        let reader = open(fifo, O_RDONLY | O_NONBLOCK)
        try #require(reader >= 0)
        let child = try ChildProcess(
            ShelfProcess.executable.path, ["watch", "items", "--limit", "\(limit)", "--db", database],
            environment: ["PATH": "/usr/bin:/bin"], input: .file("/dev/null"), output: .file(fifo),
            stderr: folder.appendingPathComponent("err").path)
        return (child, reader)
    }
}

/// The resident memory of process `pid` in bytes (Linux), or nil.
private func residentBytes(of pid: pid_t) -> Int? {
    guard let status = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8),
        let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmRSS:") }),
        let kilobytes = Int(line.split(separator: " ").dropFirst().first ?? "")
    else { return nil }
    return kilobytes * 1024
}
