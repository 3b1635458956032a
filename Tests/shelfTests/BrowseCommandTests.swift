import Foundation
import ShelfTestSupport
import Testing

/// The browser through the real binary in tmux: `shelf browse`.
@Suite("shelf browse", .serialized)
struct BrowseCommandTests {
    private func prepare(_ shelf: ShelfProcess) async throws {
        try await shelf.addAda(titles: ["First task", "Second task", "Third task"])
    }

    @Test func searchCreateEditToggleDeleteAndSeeOtherWriters() async throws {
        let shelf = try ShelfProcess()
        defer { shelf.cleanUp() }
        try await prepare(shelf)
        let tmux = try TmuxSession(
            ShelfProcess.executable.path + " browse --db " + TmuxSession.quote(shelf.databasePath), width: 100,
            height: 30,
            environment: ["HOME": shelf.folder.path])
        var screen = try await tmux.waitFor("3 items")
        #expect(screen.contains(line: "Third task") && screen.contains(line: "First task"))

        // Search as you type, then clear.
        try tmux.type("/seco")
        screen = try await tmux.waitFor("1 item ·")
        #expect(screen.contains(line: "Second task") && !screen.contains(line: "First task"))
        try tmux.send("Escape")
        try await tmux.waitFor {
            $0.contains(line: "3 items") && $0.contains(line: "First task") && $0.contains(line: "Third task")
        }

        // Create.
        try tmux.type("n")
        try await tmux.waitFor("New item")
        try tmux.type("Written in tmux")
        try tmux.send("Enter")
        // Selected once saved: its detail shows it (the count can show a moment before).
        screen = try await tmux.waitFor {
            $0.contains(line: "4 items") && $0.contains { $0.hasPrefix("│Written in tmux") }
        }
        #expect(screen.contains(line: "Written in tmux"))

        // Edit the new item (it is selected after saving).
        try tmux.type("e")
        try await tmux.waitFor("Edit item")
        try tmux.send("C-u")
        try tmux.type("Edited in tmux")
        try tmux.send("Enter")
        screen = try await tmux.waitFor { $0.contains(line: "Edited in tmux") && !$0.contains(line: "Edit item") }
        #expect(!screen.contains(line: "Written in tmux"))

        // Toggle done: the row gets its mark.
        try tmux.type(" ")
        screen = try await tmux.waitFor { $0.contains { $0.hasPrefix("✓") && $0.contains("Edited in tmux") } }
        #expect(screen.contains { $0.hasPrefix("✓") && $0.contains("Edited in tmux") })

        // Delete after confirming.
        try tmux.type("d")
        try await tmux.waitFor("u undoes it")
        try tmux.type("y")
        screen = try await tmux.waitFor("3 items")
        #expect(!screen.contains(line: "Edited in tmux"))

        // Another process writes: it shows up.
        try await ChildProcess.sqlite3(
            shelf.databasePath,
            "INSERT INTO items (user_id, title, status, priority, created_at, updated_at) "
                + "VALUES (1, 'From the sqlite3 shell', 'open', 3, 4102444800000, 4102444800000);")
        // tmux may show a frame half drawn: wait for the row and the status bar below it.
        screen = try await tmux.waitFor { $0.contains(line: "From the sqlite3 shell") && $0.contains(line: "4 items") }
        #expect(screen.contains(line: "From the sqlite3 shell") && screen.contains(line: "4 items"))

        // Quit: the terminal is as it was.
        try tmux.type("q")
        screen = try await tmux.waitFor("icanon")
        #expect(screen.contains(line: "[exit 0]"))
        #expect(!screen.contains(line: "From the sqlite3 shell"), "the alternate screen was left")
        let settings = screen.joined(separator: " ")
        #expect(settings.contains(" icanon ") && settings.contains(" echo ") && settings.contains(" isig "))
    }

    @Test func demoOpensAFilledDemoDatabase() async throws {
        let shelf = try ShelfProcess()
        defer { shelf.cleanUp() }
        let tmux = try TmuxSession(
            ShelfProcess.executable.path + " browse --demo", width: 100, height: 30,
            environment: ["HOME": shelf.folder.path])
        let screen = try await tmux.waitFor(timeout: .seconds(180)) { $0.contains(line: "20,000 items") }
        #expect(screen.contains(line: "20,000 items"))
        #expect(FileManager.default.fileExists(atPath: shelf.folder.path + "/.local/share/shelf/demo.sqlite"))
        try tmux.type("q")
        try await tmux.waitFor("[exit 0]")
    }

    @Test func withoutATerminalTheBrowserExplainsItself() async throws {
        let shelf = try ShelfProcess()
        defer { shelf.cleanUp() }
        let result = try await shelf.run(["--db", shelf.databasePath])
        #expect(result.status == 1)
        #expect(result.error.contains("the browser needs a terminal"))
        #expect(!FileManager.default.fileExists(atPath: shelf.databasePath), "nothing is created")
    }

    /// Hostile tester (issue 26): `SHELF_CLIPBOARD=bogus` was ignored silently (copies went by
    /// the terminal's kind). It is refused first, naming the variable, its value and the values
    /// it takes; case does not matter, and an empty value is as unset.
    @Test func anUnknownClipboardChoiceIsRefusedNamingItsValueAndTheAcceptedOnes() async throws {
        let shelf = try ShelfProcess()
        defer { shelf.cleanUp() }
        let result = try await shelf.run(["--db", shelf.databasePath], environment: ["SHELF_CLIPBOARD": "bogus"])
        #expect(result.status == 1)
        #expect(result.error.contains("SHELF_CLIPBOARD is \"bogus\""), "\(result.error)")
        #expect(result.error.contains("file") && result.error.contains("osc52"), "\(result.error)")
        #expect(!FileManager.default.fileExists(atPath: shelf.databasePath), "nothing is created")
        for accepted in ["File", "osc52", "terminal", ""] {
            let run = try await shelf.run(["--db", shelf.databasePath], environment: ["SHELF_CLIPBOARD": accepted])
            #expect(run.error.contains("the browser needs a terminal"), "\(accepted): \(run.error)")
        }
    }
}
