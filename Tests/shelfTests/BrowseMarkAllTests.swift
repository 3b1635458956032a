import Foundation
import ShelfTestSupport
import Testing

/// `M` marks "all that match" as a description, and bulk actions on it are set-based writes
/// undone from the database, through the real binary in tmux.
@Suite("shelf browse: marking all")
struct BrowseMarkAllTests {
    @Test func markAllThenPriorityAndUndo() async throws {
        let shelf = try ShelfProcess()
        defer { shelf.cleanUp() }
        let db = shelf.databasePath
        #expect(try await shelf.run(["demo", "--db", db, "--users", "3", "--items", "3000"]).status == 0)
        let tmux = try TmuxSession(
            ShelfProcess.executable.path + " browse --db " + TmuxSession.quote(db), width: 120, height: 14,
            environment: ["HOME": shelf.folder.path])
        try await tmux.waitFor("3,000 items ·")

        try tmux.type("M")
        try await tmux.waitFor("3,000 marked ·")
        // Unmark the selected row: one exception, counted by the store.
        try tmux.type("m")
        try await tmux.waitFor("2,999 marked ·")
        try tmux.type("p")
        try await tmux.waitFor("Priority of 2,999 items")
        try tmux.type("3")
        try tmux.send("Enter")
        let set = try await tmux.waitFor(timeout: .seconds(30)) { lines in
            lines.contains { $0.contains("set priority 3 on") }
        }
        let line = try #require(set.first { $0.contains("set priority 3 on") })
        let changed = try #require(
            line.components(separatedBy: "set priority 3 on ").last?.components(separatedBy: " items").first)
        try tmux.type("u")
        try await tmux.waitFor(timeout: .seconds(30)) { lines in
            lines.contains { $0.contains("undid: set priority 3 on \(changed) items") }
        }
        try tmux.type("q")
        try await tmux.waitFor("[exit 0]")
    }

    @Test func theOwnerPromptCompletesNames() async throws {
        let shelf = try ShelfProcess()
        defer { shelf.cleanUp() }
        let db = shelf.databasePath
        for (name, email) in [("Ada Lovelace", "ada@example.com"), ("Grace Hopper", "grace@example.com")] {
            #expect(try await shelf.run(["users", "add", "--db", db, "--name", name, "--email", email]).status == 0)
        }
        #expect(
            try await shelf.run(["items", "add", "--db", db, "--user", "ada@example.com", "--title", "Moth"]).status
                == 0)
        let tmux = try TmuxSession(
            ShelfProcess.executable.path + " browse --db " + TmuxSession.quote(db), width: 100, height: 16,
            environment: ["HOME": shelf.folder.path])
        try await tmux.waitFor("1 item ·")
        try tmux.type("o")
        try await tmux.waitFor("Owner of 1 item")
        try tmux.type("hop")
        try await tmux.waitFor("Grace Hopper <grace@example.com>")
        try tmux.send("Tab")
        try await tmux.waitFor { $0.contains(line: "grace@example.com") && !$0.contains(line: "Grace Hopper <") }
        try tmux.send("Enter")
        try await tmux.waitFor("gave 1 item to Grace Hopper")
        try tmux.type("q")
        try await tmux.waitFor("[exit 0]")
    }
}
