import Foundation
import ShelfTestSupport
import Testing

/// Undo and redo of adding and deleting, through the real binary in tmux.
@Suite("shelf browse: undo")
struct BrowseUndoTests {
    @Test func addingIsUndoneAndRedoOfADeleteIsOneStep() async throws {
        let shelf = try ShelfProcess()
        defer { shelf.cleanUp() }
        let db = shelf.databasePath
        #expect(
            try await shelf.run(["users", "add", "--db", db, "--name", "Ada", "--email", "ada@example.com"]).status == 0
        )
        #expect(
            try await shelf.run(["items", "add", "--db", db, "--user", "ada@example.com", "--title", "Kept"]).status
                == 0)
        let tmux = try TmuxSession(
            ShelfProcess.executable.path + " browse --db " + TmuxSession.quote(db), width: 100, height: 12,
            environment: ["HOME": shelf.folder.path])
        try await tmux.waitFor("1 item ·")

        // Add an item, then undo: it goes; redo: it is back.
        try tmux.type("n")
        try await tmux.waitFor("New item")
        try tmux.type("Added in tmux")  // the owner is filled in: the only user
        try tmux.send("Enter")
        try await tmux.waitFor { $0.contains(line: "2 items ·") && !$0.contains(line: "New item") }
        try tmux.type("u")
        var screen = try await tmux.waitFor { $0.contains(line: "undid: add item") && $0.contains(line: "1 item ·") }
        #expect(!screen.contains(line: "Added in tmux"), "\(screen.joined(separator: "\n"))")
        try tmux.send("C-r")
        screen = try await tmux.waitFor { $0.contains(line: "redid: add item") && $0.contains(line: "2 items ·") }
        #expect(screen.contains(line: "Added in tmux"))

        // Delete, undo, and one Ctrl-R deletes it again.
        try tmux.type("d")
        try await tmux.waitFor("Delete item")
        try tmux.type("y")
        try await tmux.waitFor { $0.contains(line: "deleted 1 item") && $0.contains(line: "1 item ·") }
        try tmux.type("u")
        try await tmux.waitFor { $0.contains(line: "undid: delete 1 item") && $0.contains(line: "2 items ·") }
        try tmux.send("C-r")
        screen = try await tmux.waitFor { $0.contains(line: "redid: delete 1 item") && $0.contains(line: "1 item ·") }
        #expect(screen.contains(line: "redid: delete 1 item"))
        try tmux.type("q")
        try await tmux.waitFor("[exit 0]")
    }
}
