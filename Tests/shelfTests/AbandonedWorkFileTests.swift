import Foundation
import ShelfReactive
import ShelfTestSupport
import Testing

/// The hidden files an export (`.NAME.partial-…`) or a backup (`.NAME.backup-…`) writes
/// before renaming them into place: a `kill -9` leaves them; the next export or backup to the
/// same file removes them, and never one a live process is still writing (issue 21).
@Suite("Work files a kill -9 left (end to end)")
struct AbandonedWorkFileTests {
    @Test(arguments: ["export", "backup"])
    func theNextRunRemovesWhatAKilledOneLeftButNotWhatALiveOneWrites(_ command: String) async throws {
        let shelf = try ShelfProcess()
        defer { shelf.cleanUp() }
        let db = shelf.databasePath
        #expect(
            try await shelf.run(["users", "add", "--db", db, "--name", "Ann", "--email", "ann@example.com"]).status == 0
        )
        // 200,000 rows through sqlite3 take a while: on a thread of its own, not one of the
        // few the whole test run shares (two of these at once starved it for minutes).
        #expect(try await BlockingWork.run { _ in try ChildProcess.sqlite3(db, CopyFixture.manyItems(200_000)) } == 0)
        let target = shelf.folder.appendingPathComponent(command == "export" ? "out.csv" : "out.sqlite").path
        let prefix = command == "export" ? ".out.csv.partial-" : ".out.sqlite.backup-"
        let arguments =
            command == "export"
            ? ["export", "items", "--db", db, "-o", target, "--quiet"] : ["backup", "--db", db, target]
        func workFiles() throws -> [String] {
            try FileManager.default.contentsOfDirectory(atPath: shelf.folder.path).filter { $0.hasPrefix(prefix) }
                .filter { !$0.hasSuffix("-wal") && !$0.hasSuffix("-shm") && !$0.hasSuffix("-journal") }
        }

        // One run stopped while it writes its work file: alive, but still.
        let live = try RunningShelf(arguments)
        let seen = await WorkFileWatch.stopOnceAFileAppears(in: shelf.folder.path, prefix: prefix, pid: live.pid)
        try #require(seen, "the \(command) never wrote a work file (or ended first)")
        let liveFile = try #require(try workFiles().first)
        try Self.age(shelf.folder.appendingPathComponent(liveFile).path)
        // Another run meanwhile: it finishes, and leaves the live one's file alone.
        let other = try await shelf.run(arguments)
        #expect(other.status == 0, "\(other.error)")
        #expect(try workFiles() == [liveFile], "a work file of a live process was removed")

        // kill -9: the file stays behind, abandoned; the next run removes it.
        _ = live.stop(SIGKILL)
        #expect(try workFiles() == [liveFile])
        try Self.age(shelf.folder.appendingPathComponent(liveFile).path)
        let next = try await shelf.run(arguments)
        #expect(next.status == 0, "\(next.error)")
        #expect(try workFiles() == [], "what the killed \(command) left is still there")
        #expect(FileManager.default.fileExists(atPath: target))

        // A run right after a kill -9 removes what it left: the lock tells, not the file's age
        // (issue 25: with a 5 s age limit, `WorkFile.minimumAge`, a run within 5 s left it; this
        // failed then).
        let killed = try RunningShelf(arguments)
        let appeared = await WorkFileWatch.stopOnceAFileAppears(in: shelf.folder.path, prefix: prefix, pid: killed.pid)
        try #require(appeared, "the \(command) never wrote a work file (or ended first)")
        _ = killed.stop(SIGKILL)
        #expect(try workFiles().count == 1)
        let right = try await shelf.run(arguments)
        #expect(right.status == 0, "\(right.error)")
        #expect(try workFiles() == [], "what a kill -9 left a moment ago is still there")
    }

    /// Makes the file at `path` a minute old, as a file left from an earlier run is (its age
    /// does not matter to the cleanup, only its lock: an old file of a live run stays).
    private static func age(_ path: String) throws {
        let old = Date().addingTimeInterval(-60)
        try FileManager.default.setAttributes([.modificationDate: old], ofItemAtPath: path)
    }
}
