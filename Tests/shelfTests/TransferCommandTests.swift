import Foundation
import Testing

/// `shelf import`, `shelf export` and the scripting commands, through the real binary.
@Suite struct TransferCommandTests {
    let shelf: ShelfProcess

    init() throws {
        shelf = try ShelfProcess()
    }

    private func run(_ arguments: String..., input: String? = nil) async throws -> ShelfProcess.Result {
        try await shelf.run(arguments + ["--db", shelf.databasePath], input: input)
    }

    private func file(_ name: String, _ text: String) throws -> String {
        let path = shelf.folder.appendingPathComponent(name).path
        try Data(text.utf8).write(to: URL(fileURLWithPath: path))
        return path
    }

    private func seed() async throws {
        let users = try file("users.csv", "name,email\nAnn,ann@example.com\n\"Bob, Jr\",bob@example.com\n")
        #expect(try await run("import", "users", users, "--quiet").status == 0)
        let items = try file(
            "items.ndjson",
            """
            {"user": "ann@example.com", "title": "Read \\"Dune\\"", "notes": "two\\nlines", "priority": 2}
            {"user": "bob@example.com", "title": "Fix bike", "status": "done"}
            {"user": "ann@example.com", "title": "Esc \\u001b[31mred", "notes": ""}
            """)
        let result = try await run("import", "items", items)
        #expect(result.status == 0, "\(result.error)")
        #expect(result.error.contains("Imported 3 rows of items from \(items) (ndjson)"))
        #expect(result.error.contains("3 inserted, 0 updated, 0 skipped."))
        #expect(
            !result.error.contains("█") && !result.error.contains("\r"), "no progress bar when stderr is no terminal")
    }

    @Test func exportImportExportThroughPipesIsByteIdentical() async throws {
        defer { shelf.cleanUp() }
        try await seed()
        for format in ["csv", "json", "ndjson"] {
            let users = try await run("export", "users", "--format", format)
            let items = try await run("export", "items", "--format", format)
            #expect(users.status == 0 && items.status == 0)
            let copy = shelf.folder.appendingPathComponent("copy-\(format).sqlite").path
            let importUsers = try await shelf.run(
                ["import", "users", "-", "--db", copy, "--quiet"], input: users.output)
            let importItems = try await shelf.run(["import", "items", "-", "--db", copy], input: items.output)
            #expect(importUsers.status == 0 && importItems.status == 0, "\(importUsers.error)\(importItems.error)")
            #expect(importItems.error.contains("from stdin (\(format))"))
            let again = try await shelf.run(["export", "items", "--format", format, "--db", copy])
            #expect(again.output == items.output, "\(format)")
            let usersAgain = try await shelf.run(["export", "users", "--format", format, "--db", copy])
            #expect(usersAgain.output == users.output, "\(format)")
        }
        let output = shelf.folder.appendingPathComponent("out.csv").path
        #expect(try await run("export", "items", "--status", "done", "-o", output).status == 0)
        let written = try String(contentsOfFile: output, encoding: .utf8)
        #expect(written.contains("Fix bike") && !written.contains("Dune"))
        let filtered = try await run(
            "export", "items", "--user", "ann@example.com", "--query", "dune", "--format", "ndjson")
        #expect(filtered.output.split(separator: "\n").count == 1)
    }

    @Test func badRowFailsWithPlaceAndChangesNothing() async throws {
        defer { shelf.cleanUp() }
        try await seed()
        let bad = try file("bad.csv", "title,user,priority\nok,ann@example.com,1\nbad,ann@example.com,7\n")
        let result = try await run("import", "items", bad)
        #expect(result.status == 1)
        #expect(result.error.contains("Error: \(bad):3:21: field 'priority', value \"7\": it is not a priority"))
        #expect(result.error.contains("the database is unchanged"))
        #expect(try await run("items", "list").output.split(separator: "\n").count == 3)

        let rejects = shelf.folder.appendingPathComponent("rejects.csv").path
        let skipped = try await run("import", "items", bad, "--skip-invalid", "--rejects", rejects)
        #expect(skipped.status == 0)
        #expect(skipped.error.contains("1 inserted, 0 updated, 1 skipped. Skipped rows are in \(rejects)."))
        #expect(try String(contentsOfFile: rejects, encoding: .utf8).hasPrefix("title,user,priority,error\r\nbad,"))

        let dry = try await run("import", "items", bad, "--dry-run")
        #expect(dry.status == 1)
        #expect(dry.error.contains("Dry run: nothing was written."))
        #expect(try await run("items", "list").output.split(separator: "\n").count == 4)
    }

    @Test func usageErrorsExitWithTwo() async throws {
        defer { shelf.cleanUp() }
        #expect(try await run("import", "things", "x.csv").status == 2)
        #expect(try await run("import", "items", "x.csv", "--map", "title").status == 2)
        #expect(try await run("import", "items", "x.csv", "--rejects", "r.csv").status == 2)
        #expect(try await run("export", "users", "--status", "done").status == 2)
        let missing = try await run("import", "items", "/nonexistent/x.csv")
        #expect(missing.status == 1 && missing.error.contains("cannot open /nonexistent/x.csv"))
    }

    @Test func scriptingCommands() async throws {
        defer { shelf.cleanUp() }
        try await seed()
        let list = try await run("items", "list")
        let rows = list.output.split(separator: "\n").map {
            $0.split(separator: "\t", omittingEmptySubsequences: false)
        }
        #expect(rows.count == 3 && rows[0][0] == "1" && rows[0][4] == "Read \"Dune\"")
        // Piped output escapes control characters, so each item stays one line.
        #expect(rows[2][4] == "Esc \\u{1b}[31mred")
        #expect(try await run("items", "list", "--status", "done").output.hasPrefix("2\tdone"))

        let json = try await run("items", "list", "--json", "--user", "ann@example.com")
        let parsed = try JSONSerialization.jsonObject(with: Data(json.output.utf8)) as? [[String: Any]]
        #expect(parsed?.count == 2)

        let show = try await run("items", "show", "1", "--json")
        let item = try JSONSerialization.jsonObject(with: Data(show.output.utf8)) as? [String: Any]
        #expect(item?["notes"] as? String == "two\nlines" && item?["version"] as? Int == 1)
        #expect(try await run("items", "show", "#1").output.contains("Title:     Read \"Dune\""))

        #expect(try await run("items", "done", "1").status == 0)
        #expect(try await run("items", "show", "1").output.contains("Status:    done"))
        #expect(try await run("items", "remove", "1").status == 0)
        let gone = try await run("items", "show", "1")
        #expect(gone.status == 1 && gone.error.contains("no item has the ID 1"))
        #expect(try await run("items", "remove", "1").status == 1)

        #expect(try await run("users", "list").output.contains("Bob, Jr\tbob@example.com"))
        #expect(try await run("users", "remove", "bob@example.com").status == 0)
        #expect(try await run("items", "list").output.split(separator: "\n").count == 1)
        #expect(try await run("users", "remove", "bob@example.com").status == 1)
    }

    @Test func tableOnATerminalEscapesControlCharacters() async throws {
        defer { shelf.cleanUp() }
        try await seed()
        let tmux = try TmuxSession(
            ShelfProcess.executable.path + " items list --db " + TmuxSession.quote(shelf.databasePath), width: 100,
            height: 12)
        let screen = try await tmux.waitFor("[exit 0]")
        let header = try #require(screen.first { $0.hasPrefix("ID") })
        #expect(header.contains("STATUS") && header.contains("TITLE"))
        #expect(screen.contains { $0.contains("Esc ␛[31mred") })
        #expect(screen.allSatisfy { $0.count <= 100 })
    }

    /// `-o FOLDER` says it is a folder and names a file to give instead (it said "Is a
    /// directory; check its permissions"; hostile tester).
    @Test func anExportToAFolderSaysSoAndWhatToName() async throws {
        defer { shelf.cleanUp() }
        let users = try file("one.csv", "name,email\nAnn,ann@example.com\n")
        #expect(try await run("import", "users", users, "--quiet").status == 0)
        let folder = shelf.folder.path
        let result = try await run("export", "users", "-o", folder)
        #expect(result.status == 1)
        #expect(result.error.contains("it is a folder; name a file in it"), "\(result.error)")
        #expect(!result.error.contains("permissions"), "\(result.error)")
    }

    @Test func countsOfOneAreSingular() async throws {
        defer { shelf.cleanUp() }
        let users = try file("one.csv", "name,email\nAnn,ann@example.com\n")
        let checked = try await run("import", "users", users, "--dry-run")
        #expect(checked.error.contains("Checked 1 row of users from"), "\(checked.error)")
        let imported = try await run("import", "users", users)
        #expect(imported.error.contains("Imported 1 row of users from"), "\(imported.error)")
        let out = shelf.folder.appendingPathComponent("out.csv").path
        let exported = try await run("export", "users", "-o", out)
        #expect(exported.error.hasPrefix("Exported 1 user to \(out) (csv)"), "\(exported.error)")
        let none = try await run("export", "items", "-o", out)
        #expect(none.error.hasPrefix("Exported 0 items to"), "\(none.error)")
        // More problems than a summary shows: "… and 1 more problem".
        var rows = "name,email\n"
        for index in 0...1000 { rows += "N\(index),bad\(index)\n" }
        let many = try await run("import", "users", try file("many.csv", rows), "--dry-run")
        #expect(many.error.contains("… and 1 more problem\n"), "\(many.error.suffix(300))")
    }
}
