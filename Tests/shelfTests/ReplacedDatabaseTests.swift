import Foundation
import Testing

@Suite("A database deleted or replaced under a running shelf (end to end)")
struct ReplacedDatabaseTests {
    @Test(arguments: ["delete", "replace"])
    func watchStopsWithTheReason(_ how: String) async throws {
        let shelf = try ShelfProcess()
        defer { shelf.cleanUp() }
        let db = shelf.databasePath
        _ = try await shelf.run(["users", "add", "--db", db, "--name", "Ann", "--email", "ann@example.com"])
        let other = shelf.folder.appendingPathComponent("other.sqlite").path
        _ = try await shelf.run(["users", "add", "--db", other, "--name", "Zed", "--email", "zed@example.com"])
        let errors = shelf.folder.appendingPathComponent("watch.err").path
        let watch = try RunningShelf(["watch", "items", "--db", db], stderr: errors)
        try #require(await watch.waitForLines(1).count == 1)

        if how == "delete" {
            try FileManager.default.removeItem(atPath: db)
        } else {
            #expect(rename(other, db) == 0)
        }
        let status = await watch.waitForExit()
        #expect(status == 1, "watch ends by itself, as a failure")
        let message = (try? String(contentsOfFile: errors, encoding: .utf8)) ?? ""
        #expect(message.contains(how == "delete" ? "was deleted" : "was replaced"), "\(message)")
        #expect(message.split(separator: "\n").count == 1, "one line: \(message)")
        #expect(await watch.waitForLines(2, timeout: .milliseconds(100)).count == 1, "no line from a ghost file")
    }

    /// `mv` of a watched database: watch ends, the moved file holds the data, and nothing is
    /// left (or made again) at the old path: no `-wal`, no `-shm`.
    @Test func aMovedDatabaseLeavesNothingAtItsOldPath() async throws {
        let shelf = try ShelfProcess()
        defer { shelf.cleanUp() }
        let db = shelf.databasePath
        _ = try await shelf.run(["users", "add", "--db", db, "--name", "Ann", "--email", "ann@example.com"])
        _ = try await shelf.run(["items", "add", "--db", db, "--user", "ann@example.com", "--title", "Kept"])
        let watch = try RunningShelf(["watch", "items", "--db", db])
        try #require(await watch.waitForLines(1).count == 1)
        #expect(FileManager.default.fileExists(atPath: db + "-wal"), "the store is open")
        let elsewhere = shelf.folder.appendingPathComponent("elsewhere")
        try FileManager.default.createDirectory(at: elsewhere, withIntermediateDirectories: true)
        let moved = elsewhere.appendingPathComponent("moved.sqlite").path
        #expect(rename(db, moved) == 0)
        #expect(await watch.waitForExit() == 1)
        try await Task.sleep(for: .milliseconds(300))
        let left = try FileManager.default.contentsOfDirectory(atPath: shelf.folder.path).filter {
            $0.hasPrefix("shelf.sqlite")
        }
        #expect(left == [], "left at the old path: \(left)")
        let list = try await shelf.run(["items", "list", "--db", moved])
        #expect(list.output.contains("Kept"), "\(list.error)")
    }
}

@Suite("The browser when its database file goes away (tmux)", .serialized)
struct BrowserReplacedDatabaseTests {
    @Test func theBrowserSaysTheFileWasDeletedAndShowsNoData() async throws {
        let shelf = try ShelfProcess()
        defer { shelf.cleanUp() }
        let db = shelf.databasePath
        _ = try await shelf.run(["users", "add", "--db", db, "--name", "Ann", "--email", "ann@example.com"])
        _ = try await shelf.run(["items", "add", "--db", db, "--user", "ann@example.com", "--title", "Visible before"])
        let tmux = try TmuxSession(
            ShelfProcess.executable.path + " browse --db " + TmuxSession.quote(db), width: 200, height: 30,
            environment: ["HOME": shelf.folder.path])
        try await tmux.waitFor("Visible before")
        try FileManager.default.removeItem(atPath: db)
        // The list and the detail pane each learn it from their own live query.
        let screen = try await tmux.waitFor { screen in
            screen.contains { $0.contains("deleted") } && !screen.contains { $0.contains("Visible before") }
        }
        #expect(!screen.contains(line: "Visible before"), "no rows from the ghost file")
        // Retrying cannot bring the ghost back either. Under load the list may learn of the
        // deletion after the detail pane and the status bar (whose message can cover its rows),
        // so the screen is waited for: the failure shown and no ghost row (a stop-14 stock-server
        // run at load ~15 caught a ghost row 300 ms after r; it must not stay).
        try tmux.type("r")
        let after = try await tmux.waitFor { screen in
            screen.contains { $0.contains("deleted") } && !screen.contains { $0.contains("Visible before") }
        }
        #expect(!after.contains(line: "Visible before"))
        try tmux.type("q")
    }
}
