import Foundation
import Testing

/// `shelf import --mode replace`: what it deletes, what a skipped row keeps, what it asks
/// before deleting items with users, and what it leaves at a database path that is not there.
@Suite struct ReplaceImportTests {
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

    /// Ann (items 1 and 3) and Bob (item 2).
    private func seed() async throws {
        let users = try file("users.csv", "name,email\nAnn,ann@example.com\nBob,bob@example.com\n")
        #expect(try await run("import", "users", users, "--quiet").status == 0)
        let items = try file(
            "items.csv", "user,title\nann@example.com,One\nbob@example.com,Two\nann@example.com,Three\n")
        #expect(try await run("import", "items", items, "--quiet").status == 0)
    }

    private var itemTitles: [String] {
        get async throws {
            try await run("export", "items", "--format", "ndjson").output.split(separator: "\n").compactMap { line in
                let object = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any]
                return object?["title"] as? String
            }
        }
    }

    private var userEmails: [String] {
        get async throws {
            try await run("export", "users", "--format", "ndjson").output.split(separator: "\n").compactMap { line in
                let object = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any]
                return object?["email"] as? String
            }
        }
    }

    @Test func aSkippedItemRowKeepsItsItem() async throws {
        defer { shelf.cleanUp() }
        try await seed()
        let exported = try await run("export", "items").output
        // Item 2's priority becomes 7: invalid, so the row is skipped.
        let lines = exported.split(separator: "\r\n", omittingEmptySubsequences: true).map(String.init)
        let header = lines[0].split(separator: ",").map(String.init)
        let priority = try #require(header.firstIndex(of: "priority"))
        var edited = lines
        var fields = lines[2].split(separator: ",", omittingEmptySubsequences: false).map(String.init)
        #expect(fields[0] == "2")
        fields[priority] = "7"
        edited[2] = fields.joined(separator: ",")
        let path = try file("edited.csv", edited.joined(separator: "\r\n") + "\r\n")
        let result = try await run("import", "items", path, "--mode", "replace", "--skip-invalid")
        #expect(result.status == 0, "\(result.error)")
        #expect(result.error.contains("2 unchanged, 0 deleted, 1 skipped"), "\(result.error)")
        #expect(try await itemTitles == ["One", "Two", "Three"])
    }

    @Test func anItemRowTheStoreRefusesKeepsItsItem() async throws {
        defer { shelf.cleanUp() }
        try await seed()
        let path = try file(
            "refused.csv", "id,user,title\n1,ann@example.com,One\n2,nobody@example.com,Two\n3,ann@example.com,Three\n")
        let result = try await run("import", "items", path, "--mode", "replace", "--skip-invalid")
        #expect(result.status == 0, "\(result.error)")
        #expect(result.error.contains("0 deleted, 1 skipped"), "\(result.error)")
        #expect(try await itemTitles == ["One", "Two", "Three"])
    }

    @Test func aMistypedEmailKeepsTheUserAndTheirItems() async throws {
        defer { shelf.cleanUp() }
        try await seed()
        let exported = try await run("export", "users").output
        #expect(exported.contains("bob@example.com"))
        let path = try file("users.csv", exported.replacingOccurrences(of: "bob@example.com", with: "bob@@example.com"))
        let result = try await run("import", "users", path, "--mode", "replace", "--skip-invalid")
        #expect(result.status == 0, "\(result.error)")
        #expect(result.error.contains("0 deleted, 1 skipped"), "\(result.error)")
        #expect(try await userEmails == ["ann@example.com", "bob@example.com"])
        #expect(try await itemTitles == ["One", "Two", "Three"])
    }

    @Test func anEmailRefusedForAnInvisibleCharacterStillKeepsItsUser() async throws {
        defer { shelf.cleanUp() }
        try await seed()
        let users = try file("users.csv", "name,email\nAnn,ann@example.com\nBob,bob@example.com\u{200B}\n")
        let result = try await run("import", "users", users, "--mode", "replace", "--skip-invalid", "--yes")
        #expect(result.status == 0, "\(result.error)")
        #expect(result.error.contains("0 deleted, 1 skipped"), "\(result.error)")
        #expect(try await userEmails == ["ann@example.com", "bob@example.com"])
    }

    @Test func aSkippedRowThatNamesNothingReadableDeletesNothing() async throws {
        defer { shelf.cleanUp() }
        try await seed()
        // Item 3 is missing from the file, and one row's ID cannot be read: it might be item 3.
        let items = try file(
            "items.csv", "id,user,title\n1,ann@example.com,One\n2,bob@example.com,Two\nthree,ann@example.com,Three\n")
        let result = try await run("import", "items", items, "--mode", "replace", "--skip-invalid")
        #expect(result.status == 0, "\(result.error)")
        #expect(result.error.contains("0 deleted, 1 skipped"), "\(result.error)")
        #expect(result.error.contains("Nothing was deleted: the skipped row at \(items):4:1"), "\(result.error)")
        #expect(try await itemTitles == ["One", "Two", "Three"])
        // A users row without an ID whose email is no email: it might be Bob.
        let users = try file("users.csv", "name,email\nAnn,ann@example.com\nBob,bob-at-example.com\n")
        let usersResult = try await run("import", "users", users, "--mode", "replace", "--skip-invalid")
        #expect(usersResult.status == 0, "\(usersResult.error)")
        #expect(usersResult.error.contains("Nothing was deleted"), "\(usersResult.error)")
        #expect(try await userEmails == ["ann@example.com", "bob@example.com"])
        // A users row whose ID cannot be read, with a good email: the ID might be Bob's
        // (hostile tester: Bob and his items were deleted).
        let badID = try file("badid.csv", "id,name,email\n1,Ann,ann@example.com\nx,Cy,cy@example.com\n")
        let badIDResult = try await run("import", "users", badID, "--mode", "replace", "--skip-invalid", "--yes")
        #expect(badIDResult.status == 0, "\(badIDResult.error)")
        #expect(badIDResult.error.contains("Nothing was deleted"), "\(badIDResult.error)")
        #expect(try await userEmails == ["ann@example.com", "bob@example.com"])
        // A row without an ID names a new item: it keeps nothing, and the others go.
        let newItem = try file("new.csv", "id,user,title,priority\n1,ann@example.com,One,0\n,ann@example.com,New,9\n")
        let replaced = try await run("import", "items", newItem, "--mode", "replace", "--skip-invalid", "--yes")
        #expect(replaced.status == 0, "\(replaced.error)")
        #expect(
            replaced.error.contains("2 deleted (1 of ann@example.com and 1 of bob@example.com), 1 skipped"),
            "\(replaced.error)")
        #expect(try await itemTitles == ["One"])
    }

    /// Hostile tester: a row whose "id" key is misspelled was taken for a new item (with
    /// --ignore-unknown) or skipped as naming nothing, and the item it meant was deleted.
    @Test(arguments: [
        ["--ignore-unknown"], [],
    ])
    func aRowWithAMisspelledIDKeyWithholdsTheDeletions(_ extra: [String]) async throws {
        defer { shelf.cleanUp() }
        try await seed()
        let json = try file(
            "items.json",
            #"[{"id": 1, "user": "ann@example.com", "title": "One"},"#
                + #"{"idd": 2, "user": "bob@example.com", "title": "Two"}]"#)
        let result = try await run(
            ["import", "items", json, "--mode", "replace", "--skip-invalid", "--yes"] + extra)
        #expect(result.status == 0, "\(result.error)")
        #expect(result.error.contains("\(json):1:"), "\(result.error)")
        #expect(result.error.contains("field 'idd'"), "\(result.error)")
        #expect(result.error.contains("0 deleted, 1 skipped"), "\(result.error)")
        #expect(result.error.contains("Nothing was deleted: the skipped row at \(json):"), "\(result.error)")
        #expect(try await itemTitles == ["One", "Two", "Three"])
        // A CSV header with the typo: a row with a value there withholds; an empty one is new.
        let csv = try file("items.csv", "idd,user,title\n1,ann@example.com,One\n,ann@example.com,New\n")
        let csvResult = try await run(
            ["import", "items", csv, "--mode", "replace", "--skip-invalid", "--yes"] + extra)
        guard !extra.isEmpty else {
            // Without --ignore-unknown a CSV header with an unknown column is refused whole.
            #expect(csvResult.status == 1 && csvResult.error.contains("\(csv):1:1: field 'idd'"), "\(csvResult.error)")
            #expect(try await itemTitles == ["One", "Two", "Three"])
            return
        }
        #expect(csvResult.status == 0, "\(csvResult.error)")
        #expect(csvResult.error.contains("\(csv):2:1: field 'idd'"), "\(csvResult.error)")
        #expect(csvResult.error.contains("Nothing was deleted: the skipped row at \(csv):2"), "\(csvResult.error)")
        #expect(try await itemTitles.sorted() == ["New", "One", "Three", "Two"])
    }

    private func run(_ arguments: [String]) async throws -> ShelfProcess.Result {
        try await shelf.run(arguments + ["--db", shelf.databasePath])
    }

    @Test func aReplaceOfUsersCountsAndAsksBeforeDeletingTheirItems() async throws {
        defer { shelf.cleanUp() }
        try await seed()
        let users = try file("users.csv", "name,email\nAnn,ann@example.com\n")
        // Not a terminal: refused without --yes, nothing changed.
        let refused = try await run("import", "users", users, "--mode", "replace")
        #expect(refused.status == 1)
        #expect(
            refused.error.contains(
                "--mode replace would delete 1 user that the file lacks, and with them 1 item they own "
                    + "(1 of bob@example.com); nothing was changed. Pass --yes"), "\(refused.error)")
        #expect(try await userEmails == ["ann@example.com", "bob@example.com"])
        // A dry run counts without asking.
        let dry = try await run("import", "users", users, "--mode", "replace", "--dry-run")
        #expect(dry.status == 0, "\(dry.error)")
        #expect(dry.error.contains("1 deleted (with their 1 item), 0 skipped. Dry run"), "\(dry.error)")
        let done = try await run("import", "users", users, "--mode", "replace", "--yes")
        #expect(done.status == 0, "\(done.error)")
        #expect(done.error.contains("Imported 1 row of users"), "\(done.error)")
        #expect(done.error.contains("1 unchanged, 1 deleted (with their 1 item), 0 skipped."), "\(done.error)")
        #expect(try await itemTitles == ["One", "Three"])
        // No items go with the users: nothing to ask.
        let bob = try file("bob.csv", "name,email\nAnn,ann@example.com\nBob,bob@example.com\n")
        #expect(try await run("import", "users", bob, "--mode", "upsert", "--quiet").status == 0)
        let again = try await run("import", "users", users, "--mode", "replace")
        #expect(again.status == 0, "\(again.error)")
        #expect(again.error.contains("1 deleted (with their 0 items)"), "\(again.error)")
    }

    /// Hostile tester: Ann exports her own items, edits them and imports them with replace:
    /// Bob's items, not in her file, were deleted without a word.
    @Test func aReplaceOfItemsCountsAndNamesTheOwnersAndAsksBeforeDeleting() async throws {
        defer { shelf.cleanUp() }
        try await seed()
        let mine = try await run("export", "items", "--user", "ann@example.com").output
        let path = try file("mine.csv", mine.replacingOccurrences(of: "Three", with: "Three edited"))
        let refused = try await run("import", "items", path, "--mode", "replace")
        #expect(refused.status == 1)
        #expect(
            refused.error.contains(
                "--mode replace would delete 1 item that the file lacks (1 of bob@example.com); nothing was changed. "
                    + "Pass --yes to delete them, or import with --mode upsert to keep them"), "\(refused.error)")
        #expect(try await itemTitles == ["One", "Two", "Three"])
        // A dry run shows the same count and owner, and writes nothing.
        let dry = try await run("import", "items", path, "--mode", "replace", "--dry-run")
        #expect(dry.status == 0, "\(dry.error)")
        #expect(
            dry.error.contains("1 updated, 1 unchanged, 1 deleted (1 of bob@example.com), 0 skipped. Dry run"),
            "\(dry.error)")
        #expect(try await itemTitles == ["One", "Two", "Three"])
        let done = try await run("import", "items", path, "--mode", "replace", "--yes")
        #expect(done.status == 0, "\(done.error)")
        #expect(done.error.contains("1 deleted (1 of bob@example.com), 0 skipped."), "\(done.error)")
        #expect(try await itemTitles == ["One", "Three edited"])
        // Nothing to delete: nothing to ask.
        let again = try await run("import", "items", path, "--mode", "replace")
        #expect(again.status == 0, "\(again.error)")
        #expect(again.error.contains("2 unchanged, 0 deleted, 0 skipped."), "\(again.error)")
    }

    @Test func aReplaceOfItemsAsksOnATerminal() async throws {
        defer { shelf.cleanUp() }
        try await seed()
        let mine = try await file("mine.csv", try run("export", "items", "--user", "ann@example.com").output)
        let command =
            [ShelfProcess.executable.path, "import", "items", mine, "--mode", "replace", "--db", shelf.databasePath]
            .map(TmuxSession.quote).joined(separator: " ")
        let tmux = try TmuxSession(command, width: 200, height: 10)
        let asked = try await tmux.waitFor("Delete them? [y/N]")
        #expect(
            asked.joined().contains("will delete 1 item that the file lacks (1 of bob@example.com)"), "\(asked)")
        try tmux.send("n", "Enter")
        _ = try await tmux.waitFor("[exit 1]")
        #expect(try await itemTitles == ["One", "Two", "Three"])
        let yes = try TmuxSession(command, width: 200, height: 10)
        _ = try await yes.waitFor("Delete them? [y/N]")
        try yes.send("y", "Enter")
        _ = try await yes.waitFor("[exit 0]")
        #expect(try await itemTitles == ["One", "Three"])
    }

    @Test func aReplaceAsksOnATerminal() async throws {
        defer { shelf.cleanUp() }
        try await seed()
        let users = try file("users.csv", "name,email\nAnn,ann@example.com\n")
        let command =
            [ShelfProcess.executable.path, "import", "users", users, "--mode", "replace", "--db", shelf.databasePath]
            .map(TmuxSession.quote).joined(separator: " ")
        let tmux = try TmuxSession(command, width: 160, height: 10)
        _ = try await tmux.waitFor("Delete them? [y/N]")
        try tmux.send("n", "Enter")
        let screen = try await tmux.waitFor("[exit 1]")
        #expect(screen.contains(line: "nothing was changed"), "\(screen)")
        #expect(try await userEmails == ["ann@example.com", "bob@example.com"])
        let yes = try TmuxSession(command, width: 160, height: 10)
        _ = try await yes.waitFor("Delete them? [y/N]")
        try yes.send("y", "Enter")
        _ = try await yes.waitFor("[exit 0]")
        #expect(try await userEmails == ["ann@example.com"])
        #expect(try await itemTitles == ["One", "Three"])
    }

    @Test func aFailedImportOrADryRunCreatesNoDatabase() async throws {
        defer { shelf.cleanUp() }
        let missing = shelf.folder.appendingPathComponent("typo/shelf.sqlite").path
        let good = try file("users.csv", "name,email\nAnn,ann@example.com\n")
        let bad = try file("bad.csv", "name,email\nAnn,not-an-email\n")
        let failed = try await shelf.run(["import", "users", bad, "--db", missing])
        #expect(failed.status == 1)
        #expect(!FileManager.default.fileExists(atPath: missing))
        #expect(!FileManager.default.fileExists(atPath: (missing as NSString).deletingLastPathComponent))
        let dry = try await shelf.run(["import", "users", good, "--dry-run", "--db", missing])
        #expect(dry.status == 0, "\(dry.error)")
        #expect(dry.error.contains("No database is at \(missing): checked against an empty one"), "\(dry.error)")
        #expect(!FileManager.default.fileExists(atPath: (missing as NSString).deletingLastPathComponent))
        let created = try await shelf.run(["import", "users", good, "--db", missing])
        #expect(created.status == 0, "\(created.error)")
        #expect(created.error.contains("Created \(missing)."), "\(created.error)")
        let listed = try await shelf.run(["users", "list", "--db", missing])
        #expect(listed.output.contains("ann@example.com"))
        // Nothing of the scratch store is left beside it.
        let left = try FileManager.default.contentsOfDirectory(atPath: (missing as NSString).deletingLastPathComponent)
        #expect(left == ["shelf.sqlite"], "\(left)")
    }
}
