import Foundation
import Testing

/// `shelf export`'s `--columns`, `--excel-safe` and progress bar, through the real binary.
@Suite struct ExportOptionTests {
    /// Ann's and Bob's items, one titled like a formula.
    static func makeShelf() async throws -> ShelfProcess {
        let shelf = try ShelfProcess()
        let db = shelf.databasePath
        _ = try await shelf.run(["users", "add", "--db", db, "--name", "Ann", "--email", "ann@example.com"])
        _ = try await shelf.run(["users", "add", "--db", db, "--name", "Bob", "--email", "bob@example.com"])
        for (user, title, status) in [
            ("ann", "Moth trap", "open"), ("bob", "=1+2", "done"), ("ann", "Lamp", "open"),
            ("bob", "moth ball", "open"),
        ] {
            let added = try await shelf.run([
                "items", "add", "--db", db, "--user", "\(user)@example.com", "--title", title, "--status", status,
            ])
            #expect(added.status == 0, "\(added.error)")
        }
        return shelf
    }

    @Test func columnsWithAQuery() async throws {
        let shelf = try await Self.makeShelf()
        defer { shelf.cleanUp() }
        let db = shelf.databasePath
        let csv = try await shelf.run([
            "export", "items", "--db", db, "--query", "moth -ball", "--columns", "title,user",
        ])
        #expect(csv.status == 0, "\(csv.error)")
        #expect(csv.output == "title,user\r\nMoth trap,ann@example.com\r\n")
        let json = try await shelf.run([
            "export", "items", "--db", db, "--query", "moth @bob", "--columns", "status, title,id", "--format",
            "ndjson",
        ])
        #expect(json.output == #"{"status":"open","title":"moth ball","id":4}"# + "\n")
        let users = try await shelf.run(["export", "users", "--db", db, "--columns", "email", "--format", "json"])
        #expect(users.output == "[\n{\"email\":\"ann@example.com\"},\n{\"email\":\"bob@example.com\"}\n]\n")
    }

    @Test func badColumnsAreUsageErrorsThatWriteNothing() async throws {
        let shelf = try await Self.makeShelf()
        defer { shelf.cleanUp() }
        let db = shelf.databasePath
        let output = shelf.folder.appendingPathComponent("out.csv").path
        for (columns, message) in [
            ("title,owner", "no column is named 'owner'"), ("title,title", "the column 'title' is named twice"),
            ("title,", "an empty column name"),
        ] {
            let result = try await shelf.run(["export", "items", "--db", db, "--columns", columns, "-o", output])
            #expect(result.status == 2, "\(columns)")
            #expect(result.error.contains("--columns: \(message)"), "\(result.error)")
            #expect(
                result.error.contains(
                    "the columns are id, user, title, notes, status, priority, created_at, updated_at"))
            #expect(!FileManager.default.fileExists(atPath: output))
        }
        let users = try await shelf.run(["export", "users", "--db", db, "--columns", "title"])
        #expect(users.status == 2 && users.error.contains("the columns are id, name, email, created_at"))
    }

    @Test func excelSafeOnlyWhenAskedAndOnlyForCSV() async throws {
        let shelf = try await Self.makeShelf()
        defer { shelf.cleanUp() }
        let db = shelf.databasePath
        let plain = try await shelf.run(["export", "items", "--db", db, "--columns", "title"])
        #expect(plain.output == "title\r\nMoth trap\r\n=1+2\r\nLamp\r\nmoth ball\r\n")
        let safe = try await shelf.run(["export", "items", "--db", db, "--columns", "title", "--excel-safe"])
        #expect(safe.output == "title\r\nMoth trap\r\n'=1+2\r\nLamp\r\nmoth ball\r\n")
        let json = try await shelf.run(["export", "items", "--db", db, "--excel-safe", "-o", "x.json"])
        #expect(json.status == 2 && json.error.contains("--excel-safe applies to CSV only"))
    }

    /// A store of `count` items, filled without a terminal.
    static func bigShelf(items count: Int) async throws -> ShelfProcess {
        let shelf = try ShelfProcess()
        let demo = try await shelf.run(["demo", "--db", shelf.databasePath, "--items", String(count)])
        #expect(demo.status == 0, "\(demo.error)")
        return shelf
    }

    @Test func noProgressWhenStderrIsNoTerminal() async throws {
        let shelf = try await Self.bigShelf(items: 20_000)
        defer { shelf.cleanUp() }
        let output = shelf.folder.appendingPathComponent("out.csv").path
        let result = try await shelf.run(["export", "items", "--db", shelf.databasePath, "-o", output])
        #expect(result.status == 0)
        #expect(result.error.hasPrefix("Exported 20000 items to \(output) (csv) in "))
        #expect(!result.error.contains("█") && !result.error.contains("\r") && !result.error.contains("Exporting"))
    }

    /// On a terminal, the bar shows while rows go to a file or a pipe, is cleared at the end,
    /// and none of its bytes reach the rows; with the rows on the terminal it does not show.
    @Test func progressOnATerminalNeverInTheRows() async throws {
        let shelf = try await Self.bigShelf(items: 60_000)
        defer { shelf.cleanUp() }
        let db = TmuxSession.quote(shelf.databasePath)
        let shelfPath = TmuxSession.quote(ShelfProcess.executable.path)
        func path(_ name: String) -> String { shelf.folder.appendingPathComponent(name).path }
        let reference = try await shelf.run(["export", "items", "--db", shelf.databasePath, "-o", path("ref.csv")])
        #expect(reference.status == 0)
        let expected = try Data(contentsOf: URL(fileURLWithPath: path("ref.csv")))

        let tmux = try TmuxSession(shellWidth: 150, height: 20)
        let log = path("terminal.log")
        try tmux.record(to: log)
        try tmux.type(
            "\(shelfPath) export items --db \(db) -o \(TmuxSession.quote(path("file.csv"))); echo \"[file $?]\"")
        try tmux.send("Enter")
        var screen = try await tmux.waitFor("[file 0]", timeout: .seconds(180))
        #expect(screen.contains(line: "Exported 60000 items to"))
        #expect(!screen.contains(line: "Exporting items"), "the bar is cleared at the end: \(screen)")
        try tmux.type(
            "\(shelfPath) export items --db \(db) | cat > \(TmuxSession.quote(path("pipe.csv"))); echo \"[pipe $?]\"")
        try tmux.send("Enter")
        screen = try await tmux.waitFor("[pipe 0]", timeout: .seconds(180))
        #expect(!screen.contains(line: "Exporting items"))
        let written = try String(contentsOfFile: log, encoding: .utf8)
        #expect(written.components(separatedBy: "Exporting items").count >= 3, "a bar for each export")
        #expect(written.contains("60000/60000") && written.contains("rows/s") && written.contains("█"))
        #expect(try Data(contentsOf: URL(fileURLWithPath: path("file.csv"))) == expected)
        #expect(try Data(contentsOf: URL(fileURLWithPath: path("pipe.csv"))) == expected)

        // Rows on the terminal: no bar.
        try tmux.type("clear; \(shelfPath) export users --db \(db); echo \"[screen $?]\"")
        try tmux.send("Enter")
        screen = try await tmux.waitFor("[screen 0]", timeout: .seconds(180))
        #expect(screen.contains { $0.contains("@example.com,") && $0.hasSuffix("Z") }, "the rows are on the screen")
        let after = try String(contentsOfFile: log, encoding: .utf8)
        let start = after.range(of: "[pipe 0]", options: .backwards)?.upperBound ?? after.startIndex
        let tail = after[start...]
        #expect(tail.contains("id,name,email,created_at") && !tail.contains("Exporting"))
    }

    /// On a narrow terminal the bar fits its width: a line that wrapped would leave a copy of
    /// itself on the screen at every redraw (found by a hostile tester at 70 columns).
    @Test func progressFitsANarrowTerminal() async throws {
        let shelf = try await Self.bigShelf(items: 20_000)
        defer { shelf.cleanUp() }
        let db = TmuxSession.quote(shelf.databasePath)
        let shelfPath = TmuxSession.quote(ShelfProcess.executable.path)
        let log = shelf.folder.appendingPathComponent("terminal.log").path
        let tmux = try TmuxSession(shellWidth: 40, height: 20)
        try tmux.record(to: log)
        let output = TmuxSession.quote(shelf.folder.appendingPathComponent("out.csv.gz").path)
        try tmux.type("clear; \(shelfPath) export items --db \(db) -o \(output); echo \"[done $?]\"")
        try tmux.send("Enter")
        let screen = try await tmux.waitFor("[done 0]", timeout: .seconds(180))
        #expect(!screen.contains(line: "Exporting"), "no copy of the bar is left: \(screen)")
        let written = try String(contentsOfFile: log, encoding: .utf8)
        let drawn = written.components(separatedBy: "\r").filter { $0.hasPrefix("Exporting") }
            .map { $0.components(separatedBy: "\u{1B}[K")[0] }
        #expect(!drawn.isEmpty, "the bar was drawn")
        for line in drawn { #expect(line.count <= 39, "\(line.count) columns: \(line)") }
    }
}
