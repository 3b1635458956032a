import Foundation
import ShelfTestSupport
import Testing

/// `shelf views` and `shelf browse --view` through the real binary; the browser in tmux.
@Suite("shelf views (end to end)")
struct ViewsCommandTests {
    private func prepare(_ shelf: ShelfProcess) async throws {
        try await shelf.addAda(titles: ["Feed the moth", "Buy moth traps", "Water the plants"])
    }

    @Test func saveListRenameAndDelete() async throws {
        let shelf = try ShelfProcess()
        defer { shelf.cleanUp() }
        try await prepare(shelf)
        let db = shelf.databasePath

        let empty = try await shelf.run(["views", "list", "--db", db])
        #expect(empty.status == 0 && empty.output.isEmpty, "\(empty.error)")

        var result = try await shelf.run(["views", "save", "Moths", "--query", "moth", "--sort", "title", "--db", db])
        #expect(result.status == 0, "\(result.error)")
        result = try await shelf.run(["views", "save", "recent", "--query", "", "--sort", "updated", "--db", db])
        #expect(result.status == 0, "\(result.error)")
        result = try await shelf.run([
            "views", "save", "Ada's", "--query", "plants", "--ascending", "--user", "ADA@example.com", "--db", db,
        ])
        #expect(result.status == 0, "\(result.error)")

        // Tab-separated without a terminal: name, sort, direction, owner, query; by name.
        var list = try await shelf.run(["views", "list", "--db", db])
        #expect(list.status == 0, "\(list.error)")
        #expect(
            list.output == """
                Ada's\tcreated\tascending\tada@example.com\tplants
                Moths\ttitle\tascending\t\tmoth
                recent\tupdated\tdescending\t\t

                """)

        // Saving under an existing name (any case) replaces that view.
        result = try await shelf.run(["views", "save", "MOTHS", "--query", "traps", "--descending", "--db", db])
        #expect(result.status == 0, "\(result.error)")
        list = try await shelf.run(["views", "list", "--json", "--db", db])
        let json = try #require(try JSONSerialization.jsonObject(with: Data(list.output.utf8)) as? [[String: Any]])
        #expect(json.map { $0["name"] as? String } == ["Ada's", "MOTHS", "recent"])
        #expect(json[1]["query"] as? String == "traps" && json[1]["direction"] as? String == "descending")
        #expect(json[1]["sort"] as? String == "created")
        #expect(json[0]["owner"] as? String == "ada@example.com" && json[1]["owner"] == nil)

        result = try await shelf.run(["views", "rename", "moths", "Traps", "--db", db])
        #expect(result.status == 0, "\(result.error)")
        result = try await shelf.run(["views", "rename", "traps", "Recent", "--db", db])
        #expect(result.status == 1)
        #expect(result.error.contains("“recent” already exists"), "\(result.error)")
        result = try await shelf.run(["views", "delete", "ADA'S", "--db", db])
        #expect(result.status == 0, "\(result.error)")
        result = try await shelf.run(["views", "delete", "nope", "--db", db])
        #expect(result.status == 1)
        #expect(result.error.contains("no saved view is named “nope”"), "\(result.error)")
        list = try await shelf.run(["views", "list", "--db", db])
        #expect(list.output == "recent\tupdated\tdescending\t\t\nTraps\tcreated\tdescending\t\ttraps\n")
    }

    @Test func refusesBadNamesAndSortFields() async throws {
        let shelf = try ShelfProcess()
        defer { shelf.cleanUp() }
        let db = shelf.databasePath
        var result = try await shelf.run(["views", "save", "  ", "--query", "x", "--db", db])
        #expect(result.status == 2, "refused before the store is opened, as the browser refuses it")
        #expect(result.error.contains("must not be empty"), "\(result.error)")
        result = try await shelf.run(["views", "save", String(repeating: "n", count: 105), "--query", "x", "--db", db])
        #expect(result.status == 2)
        #expect(result.error.contains("at most 100 characters (this one has 105)"), "\(result.error)")
        result = try await shelf.run(["views", "save", "A", "--query", "x", "--sort", "relevance", "--db", db])
        #expect(result.status == 2, "a usage error")
        #expect(result.error.contains("sort"), "\(result.error)")
        result = try await shelf.run(["views", "save", "A", "--query", "x", "--ascending", "--descending", "--db", db])
        #expect(result.status == 2, "a usage error")
        // A query with a mistake is refused as the browser and the store refuse it, and
        // nothing is saved.
        result = try await shelf.run(["views", "save", "A", "--query", "prio:9 moth", "--db", db])
        #expect(result.status == 2)
        #expect(
            result.error.contains("a saved view's query must be one the search understands: column 1: prio:"),
            "\(result.error)")
        #expect(try await shelf.run(["views", "list", "--db", db]).output.isEmpty)
    }

    @Test func browseWithAMissingViewNamesTheViewsThatExist() async throws {
        let shelf = try ShelfProcess()
        defer { shelf.cleanUp() }
        try await prepare(shelf)
        let db = shelf.databasePath
        var result = try await shelf.run(["browse", "--view", "Moths", "--db", db])
        #expect(result.status == 1)
        #expect(result.error.contains("no saved view is named “Moths”"), "\(result.error)")
        // The suggested command carries the --db the failed command was given.
        #expect(
            result.error.contains("there are no saved views; save one with `shelf views save --db "),
            "\(result.error)")
        #expect(result.error.contains(" NAME --query TEXT`"))

        for name in ["Moths", "Plants"] {
            _ = try await shelf.run(["views", "save", name, "--query", name.lowercased(), "--db", db])
        }
        result = try await shelf.run(["browse", "--view", "Bugs", "--db", db])
        #expect(result.status == 1)
        #expect(result.error.contains("the saved views are “Moths”, “Plants”"), "\(result.error)")
        // A view that exists gets as far as asking for a terminal.
        result = try await shelf.run(["browse", "--view", "moths", "--db", db])
        #expect(result.status == 1)
        #expect(result.error.contains("needs a terminal"), "\(result.error)")
    }

    /// `browse --view` opens with the view's search and sort; `v` lists views live (one saved
    /// meanwhile by another process appears), Enter opens one, `V` saves the current search.
    @Test func browseOpensAViewAndThePickerSeesOtherProcesses() async throws {
        let shelf = try ShelfProcess()
        defer { shelf.cleanUp() }
        try await prepare(shelf)
        let db = shelf.databasePath
        _ = try await shelf.run(["views", "save", "Moths", "--query", "moth", "--sort", "title", "--db", db])
        let tmux = try TmuxSession(
            ShelfProcess.executable.path + " browse --view moths --db " + TmuxSession.quote(db), width: 100,
            height: 24, environment: ["HOME": shelf.folder.path])
        var screen = try await tmux.waitFor("2 items")
        #expect(screen.contains(line: "view “Moths” · "), "\(screen.joined(separator: "\n"))")
        #expect(screen.contains(line: "title A–Z"))
        let buy = try #require(screen.firstIndex { $0.contains("Buy moth traps") })
        let feed = try #require(screen.firstIndex { $0.contains("Feed the moth") })
        #expect(buy < feed, "sorted by title")
        #expect(!screen.contains(line: "Water the plants"))

        // The picker, live: a view saved by another process shows up while it is open.
        try tmux.type("v")
        try await tmux.waitFor("Saved views")
        let saved = try await shelf.run(["views", "save", "Plants", "--query", "plants", "--db", db])
        #expect(saved.status == 0, "\(saved.error)")
        screen = try await tmux.waitFor("“plants”")
        #expect(screen.contains(line: "Plants"), "\(screen.joined(separator: "\n"))")

        // Enter opens the selected view (Moths is selected, being open): j moves to Plants.
        try tmux.type("j")
        try tmux.send("Enter")
        // The status bar names the view at once; the rows follow when read.
        // The count comes with the window's next frame, not always the rows' first one.
        screen = try await tmux.waitFor {
            $0.contains(line: "view “Plants”") && $0.contains(line: "Water the plants") && $0.contains(line: "1 item")
        }
        #expect(screen.contains(line: "1 item"))
        #expect(screen.contains(line: "Water the plants") && !screen.contains(line: "Feed the moth"))

        // V saves the current search under a new name.
        try tmux.type("V")
        try await tmux.waitFor("Save view")
        try tmux.send("C-u")
        try tmux.type("Greens")
        try tmux.send("Enter")
        screen = try await tmux.waitFor("view “Greens”")
        let list = try await shelf.run(["views", "list", "--db", db])
        #expect(list.output.contains("Greens\tcreated\tdescending\t\tplants"), "\(list.output)")
        try tmux.type("q")
        try await tmux.waitFor("[exit 0]")
    }
}
