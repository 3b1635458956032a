import Foundation
import Testing

/// Notes of 5 MB, written by another program, through the real `shelf browse` in tmux: the
/// detail pane shows a preview and says how much more there is; Enter opens them whole.
@Suite("shelf browse with long notes", .serialized)
struct LongNotesBrowseTests {
    @Test func fiveMegabytesOfNotesShowAsAPreviewWithAMarker() async throws {
        let shelf = try ShelfProcess()
        defer { shelf.cleanUp() }
        let db = shelf.databasePath
        let user = try await shelf.run(["users", "add", "--db", db, "--name", "Ada", "--email", "ada@example.com"])
        #expect(user.status == 0, "\(user.error)")
        let line = String(repeating: "w", count: 99) + "\n"
        let notes = "First line of the big notes\n" + String(repeating: line, count: 5 * 1024 * 1024 / 100)
        let csv = "title,notes\nBig notes,\"\(notes)\"\nSmall after,short notes\n"
        let imported = try await shelf.run(
            ["import", "items", "-", "--db", db, "--format", "csv", "--user", "ada@example.com", "--quiet"], input: csv)
        #expect(imported.status == 0, "\(imported.error)")

        let tmux = try TmuxSession(
            ShelfProcess.executable.path + " browse --db " + TmuxSession.quote(db), width: 120, height: 30,
            environment: ["HOME": shelf.folder.path])
        var screen = try await tmux.waitFor("2 items")
        // Newest first: "Small after" is selected; j moves onto the big notes.
        try tmux.type("j")
        screen = try await tmux.waitFor {
            $0.contains(line: "First line of the big notes") && $0.contains(line: "Enter to open)")
        }
        let marker = try #require(screen.first { $0.contains("Enter to open)") }, "\(screen.joined(separator: "\n"))")
        #expect(marker.contains("… (") && marker.contains(" more KB — Enter to open)"), "\(marker)")
        // Off it and back: the pane follows each time.
        try tmux.type("k")
        screen = try await tmux.waitFor { $0.contains(line: "short notes") }
        #expect(!screen.contains(line: "Enter to open)"), "\(screen.joined(separator: "\n"))")
        try tmux.type("j")
        try await tmux.waitFor("Enter to open)")
        // Enter opens the item: the whole notes, no marker.
        try tmux.send("Enter")
        screen = try await tmux.waitFor {
            !$0.contains(line: "Enter to open)") && $0.contains(line: "First line of the big")
        }
        #expect(!screen.contains(line: "Enter to open)"), "\(screen.joined(separator: "\n"))")
        try tmux.send("Escape")
        try await tmux.waitFor("Enter to open)")
        try tmux.type("q")
        screen = try await tmux.waitFor("[exit")
        #expect(screen.contains(line: "[exit 0]"))
    }
}
