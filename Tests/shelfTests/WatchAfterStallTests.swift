import Foundation
import ShelfTestSupport
import Testing

/// Hostile round 13: `shelf watch` fell silent for good, its last line an old window, while
/// the store went on changing (9 of 21 runs of imports beside `sqlite3` inserts). Its writer
/// thread took a second wake-up with no line waiting for "closed" and ended: any two lines
/// posted while one write was under way stopped every later line.
@Suite struct WatchAfterStallTests {
    let shelf: ShelfProcess

    init() throws {
        shelf = try ShelfProcess()
    }

    @Test func linesGoOnAfterAReaderThatStalledCatchesUp() async throws {
        defer { shelf.cleanUp() }
        let database = shelf.databasePath
        // 50 items of 3 KB: one line is about 150 KB, more than a pipe holds, so the first
        // write blocks until the reader reads.
        let (child, reader) = try await StalledWatch.start(shelf, items: 50, limit: 50)
        defer { close(reader) }
        defer {
            kill(child.pid, SIGKILL)
            _ = child.wait()
        }
        #expect(await ProcessWatch.waitUntil(child.pid, holds: database), "the watch opened the store")
        // While the first line's write blocks, three changes post three lines (the newest
        // replaces the others): three wake-ups for one line waiting.
        for round in 1...3 {
            let added = try await shelf.run(
                ["items", "add", "--user", "ann@example.com", "--title", "stalled \(round)", "--db", database])
            #expect(added.status == 0)
        }
        // The reader catches up: the first line and the newest of the three.
        let caughtUp = await Self.read(reader, until: "stalled 3", within: .seconds(30)).contains("stalled 3")
        #expect(caughtUp, "the newest line after the stall was never written")
        // A change after that is written too.
        #expect(
            try await shelf.run(
                ["items", "add", "--user", "ann@example.com", "--title", "after the stall", "--db", database]
            ).status == 0)
        let after = await Self.read(reader, until: "after the stall", within: .seconds(30)).contains("after the stall")
        #expect(after, "watch fell silent after its reader stalled")
        #expect(!ProcessWatch.hasExited(child.pid), "watch ended")
    }

    /// Reads `fd` (non-blocking) on a thread of its own until the text read holds `mark` or
    /// `limit` passes; returns the text read.
    private static func read(_ fd: Int32, until mark: String, within limit: Duration) async -> String {
        await withCheckedContinuation { continuation in
            Thread.detachNewThread {
                let start = ContinuousClock.now
                var bytes: [UInt8] = []
                var buffer = [UInt8](repeating: 0, count: 1 << 16)
                while ContinuousClock.now - start < limit {
                    let count = buffer.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, $0.count) }
                    if count > 0 {
                        bytes += buffer[0..<count]
                        if String(decoding: bytes, as: UTF8.self).contains(mark) { break }
                    } else {
                        usleep(10_000)
                    }
                }
                continuation.resume(returning: String(decoding: bytes, as: UTF8.self))
            }
        }
    }
}
