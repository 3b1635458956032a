import Foundation
import ShelfTestSupport
import Testing

/// The browser keeps the user's place, through the real binary in tmux: the selected item
/// survives a search and its clearing, and items another process adds above show as "↑ N new".
@Suite("shelf browse keeps my place", .serialized)
struct BrowseListPlaceTests {
    private func add(_ titles: [String], to shelf: ShelfProcess) async throws {
        for title in titles {
            #expect(
                try await shelf.run([
                    "items", "add", "--db", shelf.databasePath, "--user", "ada@example.com", "--title", title,
                ]).status == 0)
        }
    }

    @Test func searchAndClearKeepTheSelectionAndArrivalsShowAsNew() async throws {
        let shelf = try ShelfProcess()
        defer { shelf.cleanUp() }
        #expect(
            try await shelf.run([
                "users", "add", "--db", shelf.databasePath, "--name", "Ada Lovelace", "--email", "ada@example.com",
            ]).status == 0)
        // More items than the screen shows, so that arrivals land above the first row shown.
        let csv = shelf.folder.appendingPathComponent("tasks.csv")
        try Data((["title"] + (1...30).map { "Task \($0)" }).joined(separator: "\n").utf8).write(to: csv)
        #expect(
            try await shelf.run([
                "import", "items", csv.path, "--db", shelf.databasePath, "--user", "ada@example.com", "--quiet",
            ]).status == 0)
        let tmux = try TmuxSession(
            ShelfProcess.executable.path + " browse --db " + TmuxSession.quote(shelf.databasePath), width: 100,
            height: 30, environment: ["HOME": shelf.folder.path])
        try await tmux.waitFor("1/30 · 30 items")

        // Select the fourth item (Task 27), search for it, clear the search: still Task 27.
        for _ in 0..<3 { try tmux.type("j") }
        var screen = try await tmux.waitFor { $0.contains(line: "4/30 · 30 items") && $0.contains(line: "Item #27") }
        #expect(screen.contains(line: "Item #27"))
        try tmux.type("/task 27")
        screen = try await tmux.waitFor("1/1 · 1 item · “task 27”")
        #expect(screen.contains(line: "Item #27"))
        try tmux.send("Escape")
        screen = try await tmux.waitFor { $0.contains(line: "4/30 · 30 items") && $0.contains(line: "Item #27") }
        #expect(screen.contains(line: "4/30 · 30 items"))
        #expect(screen.contains(line: "Item #27"))

        // Another process adds items above: the list stays put and says so.
        try await add(["Arrival 1", "Arrival 2", "Arrival 3"], to: shelf)
        screen = try await tmux.waitFor { $0.contains(line: "↑ 3 new · g") && $0.contains(line: "33 items") }
        #expect(screen.contains(line: "↑ 3 new · g"))
        #expect(screen.contains(line: "7/33 · 33 items"))
        #expect(!screen.contains(line: "Arrival"))
        try tmux.type("g")
        screen = try await tmux.waitFor { $0.contains(line: "1/33 · 33 items") && $0.contains(line: "Arrival 3") }
        #expect(!screen.contains(line: "new · g"))

        try tmux.type("q")
        try await tmux.waitFor("[exit 0]")
    }

    /// Items that arrive above the rows the browser holds (far above the screen, at the end of
    /// a long list) count too, and the position moves with them (issue 26).
    @Test func arrivalsFarAboveTheRowsHeldShowAsNew() async throws {
        let shelf = try ShelfProcess()
        defer { shelf.cleanUp() }
        #expect(
            try await shelf.run([
                "users", "add", "--db", shelf.databasePath, "--name", "Ada Lovelace", "--email", "ada@example.com",
            ]).status == 0)
        let csv = shelf.folder.appendingPathComponent("tasks.csv")
        try Data((["title"] + (1...2_000).map { "Task \($0)" }).joined(separator: "\n").utf8).write(to: csv)
        #expect(
            try await shelf.run([
                "import", "items", csv.path, "--db", shelf.databasePath, "--user", "ada@example.com", "--quiet",
            ]).status == 0)
        let tmux = try TmuxSession(
            ShelfProcess.executable.path + " browse --db " + TmuxSession.quote(shelf.databasePath), width: 100,
            height: 20, environment: ["HOME": shelf.folder.path])
        try await tmux.waitFor("1/2,000 · 2,000 items")
        try tmux.type("G")
        try await tmux.waitFor("2,000/2,000 · 2,000 items")
        // Newest first: these land at the very top, two thousand rows above the screen.
        try await add(["Arrival 1", "Arrival 2", "Arrival 3"], to: shelf)
        let screen = try await tmux.waitFor { $0.contains(line: "↑ 3 new · g") && $0.contains(line: "2,003 items") }
        #expect(screen.contains(line: "↑ 3 new · g"), "\(screen.joined(separator: "\n"))")
        #expect(screen.contains(line: "2,003/2,003 · 2,003 items"))
        try tmux.type("g")
        let top = try await tmux.waitFor { $0.contains(line: "1/2,003") && $0.contains(line: "Arrival 3") }
        #expect(!top.contains(line: "new · g"))
        try tmux.type("q")
        try await tmux.waitFor("[exit 0]")
    }
}
