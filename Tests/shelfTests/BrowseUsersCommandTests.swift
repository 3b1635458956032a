import Foundation
import ShelfTestSupport
import Testing

/// Users and the item editor through the real binary in tmux: an empty database filled from
/// the browser alone, the users view, and notes edited in `$EDITOR`.
@Suite("shelf browse: users and the editor", .serialized)
struct BrowseUsersCommandTests {
    @Test func anEmptyDatabaseGetsItsFirstUserAndItemFromTheBrowser() async throws {
        let shelf = try ShelfProcess()
        defer { shelf.cleanUp() }
        // A fresh, empty database: nothing in it yet.
        #expect(FileManager.default.createFile(atPath: shelf.databasePath, contents: Data()))
        let tmux = try TmuxSession(
            ShelfProcess.executable.path + " browse --db " + TmuxSession.quote(shelf.databasePath), width: 140,
            height: 30, environment: ["HOME": shelf.folder.path])
        try await tmux.waitFor("No items yet.")
        // The users view says how to fill this very database.
        try tmux.type("U")
        var screen = try await tmux.waitFor("No users yet.")
        #expect(screen.joined().contains("fill a demo: shelf demo --db"))
        #expect(screen.joined().contains(shelf.databasePath + "."))
        try tmux.send("Escape")
        try await tmux.waitFor { !$0.contains(line: "No users yet.") }

        // n, a title, an owner nobody has: saving offers to add them, named from the email.
        try tmux.type("n")
        try await tmux.waitFor("New item")
        try tmux.type("Born in the browser")
        try tmux.send("Tab", "Tab", "Tab")
        try tmux.type("new.person@example.com")
        try tmux.send("Enter")
        screen = try await tmux.waitFor("No user has the email new.person@example.com")
        #expect(screen.contains(line: "New Person"))
        try tmux.send("Enter")
        screen = try await tmux.waitFor { $0.contains(line: "1 item") && !$0.contains(line: "New item") }
        #expect(screen.contains { $0.contains("Born in the browser") && $0.contains("New Person") })

        // The users view: add a user, then remove them after the question.
        try tmux.type("U")
        screen = try await tmux.waitFor { $0.contains { $0.contains("New Person") && $0.contains("1 item") } }
        #expect(screen.contains { $0.contains("new.person@example.com") && $0.contains("1 item") }, "\(screen)")
        try tmux.type("a")
        try await tmux.waitFor("Add user")
        try tmux.type("Second User")
        try tmux.send("Tab")
        try tmux.type("second@example.com")
        try tmux.send("Enter")
        try await tmux.waitFor { $0.contains(line: "second@example.com") && !$0.contains(line: "Add user") }
        try tmux.type("d")
        try await tmux.waitFor("Remove Second User (second@example.com)? They own no items.")
        try tmux.type("y")
        screen = try await tmux.waitFor { !$0.contains(line: "second@example.com") }
        #expect(screen.contains(line: "new.person@example.com"))
        try tmux.send("Escape")
        screen = try await tmux.waitFor { !$0.contains(line: "┌─ Users") }
        #expect(!screen.contains(line: "┌─ Users"))

        try tmux.type("q")
        try await tmux.waitFor("[exit 0]")
        let users = try await shelf.run(["users", "list", "--db", shelf.databasePath])
        #expect(users.output.contains("new.person@example.com") && !users.output.contains("second@example.com"))
    }

    @Test func notesAreEditedInTheEditorAndTheScreenComesBack() async throws {
        let shelf = try ShelfProcess()
        defer { shelf.cleanUp() }
        let db = shelf.databasePath
        #expect(
            try await shelf.run(["users", "add", "--db", db, "--name", "Ada", "--email", "ada@example.com"]).status == 0
        )
        #expect(
            try await shelf.run(["items", "add", "--db", db, "--user", "ada@example.com", "--title", "Has notes"])
                .status == 0)
        // The "editor" writes two lines into the file it is given, after checking its mode.
        let editor = #"sh -c 'test "$(stat -c %a "$1")" = 600 && printf "From the editor\nsecond line\n" > "$1"' sh"#
        let temporary = shelf.folder.appendingPathComponent("tmp")
        try FileManager.default.createDirectory(at: temporary, withIntermediateDirectories: true)
        let tmux = try TmuxSession(
            ShelfProcess.executable.path + " browse --db " + TmuxSession.quote(db), width: 100, height: 30,
            environment: ["HOME": shelf.folder.path, "EDITOR": editor, "VISUAL": "", "TMPDIR": temporary.path])
        try await tmux.waitFor("1 item")
        try tmux.type("e")
        try await tmux.waitFor("Edit item")
        try tmux.send("C-o")
        var screen = try await tmux.waitFor("Notes taken from the editor.")
        // The screen is whole again: the form with the new notes, over the list.
        #expect(screen.contains { $0.contains("Notes") && $0.contains("From the editor") })
        #expect(screen.contains(line: "second line"))
        #expect(screen.contains(line: "Edit item"))
        #expect(screen.contains(line: "Has notes"))
        try tmux.send("C-s")
        screen = try await tmux.waitFor { !$0.contains(line: "Edit item") && $0.contains(line: "From the editor") }
        try tmux.type("q")
        try await tmux.waitFor("[exit 0]")
        let items = try await shelf.run(["export", "items", "--db", db, "--format", "ndjson"])
        #expect(items.output.contains(#""notes":"From the editor\nsecond line""#))
        // The temporary file is gone.
        #expect(try FileManager.default.contentsOfDirectory(atPath: temporary.path) == [])
    }

    @Test func ctrlCInTheEditorEndsTheEditorNotTheBrowser() async throws {
        let shelf = try ShelfProcess()
        defer { shelf.cleanUp() }
        let db = shelf.databasePath
        #expect(
            try await shelf.run(["users", "add", "--db", db, "--name", "Ada", "--email", "ada@example.com"]).status == 0
        )
        #expect(
            try await shelf.run(["items", "add", "--db", db, "--user", "ada@example.com", "--title", "Kept"]).status
                == 0)
        // An "editor" that waits until its process group owns the terminal, says so in a
        // file, then sleeps: Ctrl-C typed now reaches it alone, so the browser comes back.
        let ready = shelf.folder.appendingPathComponent("editor-ready").path
        let editor =
            #"sh -c 'until [ "$(ps -o tpgid= -p $$ | tr -d " ")" = "$(ps -o pgid= -p $$ | tr -d " ")" ]; do "#
            + #"sleep 0.01; done; touch "$0"; sleep 60' "# + ready
        let tmux = try TmuxSession(
            ShelfProcess.executable.path + " browse --db " + TmuxSession.quote(db), width: 100, height: 30,
            environment: ["HOME": shelf.folder.path, "EDITOR": editor, "VISUAL": ""])
        try await tmux.waitFor("1 item")
        try tmux.type("e")
        try await tmux.waitFor("Edit item")
        try tmux.send("C-o")
        // The screen was left for the editor: the browser's frames are gone meanwhile.
        var screen = try await tmux.waitFor { _ in FileManager.default.fileExists(atPath: ready) }
        #expect(FileManager.default.fileExists(atPath: ready))
        #expect(!screen.contains(line: "Edit item"))
        try tmux.send("C-c")
        screen = try await tmux.waitFor("signal 2;")
        #expect(screen.contains(line: "Edit item"))
        #expect(screen.contains(line: "unchanged."))
        try tmux.send("Escape")
        try await tmux.waitFor { !$0.contains(line: "Edit item") }
        try tmux.type("q")
        screen = try await tmux.waitFor("[exit 0]")
        #expect(screen.contains(line: "[exit 0]"))
    }
}
