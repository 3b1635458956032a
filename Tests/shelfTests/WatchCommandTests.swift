import Foundation
import ShelfTestSupport
import Testing

@Suite("shelf users/items add and watch (end to end)")
struct WatchCommandTests {
    @Test func addsUsersAndItems() async throws {
        let shelf = try ShelfProcess()
        defer { shelf.cleanUp() }
        let user = try await shelf.run([
            "users", "add", "--db", shelf.databasePath, "--name", "Ann", "--email", "ann@example.com",
        ])
        #expect(user.status == 0, "\(user.error)")
        #expect(user.output == "1\n")
        let item = try await shelf.run([
            "items", "add", "--db", shelf.databasePath, "--user", "ANN@example.com", "--title", "Moth trap",
            "--priority", "2",
        ])
        #expect(item.status == 0, "\(item.error)")
        #expect(item.output == "1\n")

        let duplicate = try await shelf.run([
            "users", "add", "--db", shelf.databasePath, "--name", "A", "--email", "Ann@Example.com",
        ])
        #expect(duplicate.status != 0)
        #expect(duplicate.error.contains("already exists"))
        let unknown = try await shelf.run([
            "items", "add", "--db", shelf.databasePath, "--user", "bob@example.com", "--title", "x",
        ])
        #expect(unknown.status != 0)
        #expect(unknown.error.contains("shelf users add"))
        let invalid = try await shelf.run([
            "items", "add", "--db", shelf.databasePath, "--user", "ann@example.com", "--title", " ",
        ])
        #expect(invalid.status != 0)
        #expect(invalid.error.contains("title must not be empty"))
        let badStatus = try await shelf.run([
            "items", "add", "--db", shelf.databasePath, "--user", "ann@example.com", "--title", "x", "--status",
            "later",
        ])
        #expect(badStatus.status != 0)
    }

    @Test func watchPrintsALinePerChangeFromAnyProcess() async throws {
        let shelf = try ShelfProcess()
        defer { shelf.cleanUp() }
        _ = try await shelf.run([
            "users", "add", "--db", shelf.databasePath, "--name", "Ann", "--email", "ann@example.com",
        ])
        let watch = try RunningShelf(["watch", "items", "--db", shelf.databasePath, "--query", "mot", "--limit", "5"])
        let first = await watch.waitForLines(1)
        try #require(first.count == 1, "no first line from shelf watch")
        #expect(try WatchLine(first[0]).count == 0)

        // Another shelf process writes.
        _ = try await shelf.run([
            "items", "add", "--db", shelf.databasePath, "--user", "ann@example.com", "--title", "Moth trap",
        ])
        let second = await watch.waitForLines(2)
        try #require(second.count == 2)
        let line = try WatchLine(second[1])
        #expect(line.count == 1)
        #expect(line.items.map(\.title) == ["Moth trap"])
        #expect(line.items.map(\.user) == ["ann@example.com"], "owners by email, as list and export show them")

        // A new user changes no owner in the window: no line.
        _ = try await shelf.run([
            "users", "add", "--db", shelf.databasePath, "--name", "Bob", "--email", "b@example.com",
        ])
        // An item that does not match changes nothing: no line.
        _ = try await shelf.run([
            "items", "add", "--db", shelf.databasePath, "--user", "ann@example.com", "--title", "Lamp",
        ])

        // The sqlite3 shell writes.
        try await ChildProcess.sqlite3(
            shelf.databasePath,
            "INSERT INTO items (user_id, title, created_at, updated_at) VALUES (1, 'Mothball', 1, 1)")
        let third = await watch.waitForLines(3)
        try #require(third.count == 3)
        #expect(try WatchLine(third[2]).count == 2)
        try await Task.sleep(for: .milliseconds(200))
        #expect(
            await watch.waitForLines(4, timeout: .milliseconds(100)).count == 3, "the non-matching Lamp printed nothing"
        )
        #expect(watch.isRunning)
    }

    @Test func watchFiltersByUserAndStatus() async throws {
        let shelf = try ShelfProcess()
        defer { shelf.cleanUp() }
        let db = shelf.databasePath
        _ = try await shelf.run(["users", "add", "--db", db, "--name", "Ann", "--email", "ann@example.com"])
        _ = try await shelf.run(["users", "add", "--db", db, "--name", "Bob", "--email", "bob@example.com"])
        _ = try await shelf.run([
            "items", "add", "--db", db, "--user", "ann@example.com", "--title", "a", "--status", "done",
        ])
        _ = try await shelf.run([
            "items", "add", "--db", db, "--user", "bob@example.com", "--title", "b", "--status", "done",
        ])
        _ = try await shelf.run(["items", "add", "--db", db, "--user", "bob@example.com", "--title", "c"])
        let watch = try RunningShelf(["watch", "items", "--db", db, "--user", "bob@example.com", "--status", "done"])
        let lines = await watch.waitForLines(1)
        try #require(lines.count == 1)
        let line = try WatchLine(lines[0])
        #expect(line.count == 1)
        #expect(line.items.map(\.title) == ["b"])

        let unknown = try await shelf.run(["watch", "items", "--db", db, "--user", "zed@example.com"])
        #expect(unknown.status != 0)
        #expect(unknown.error.contains("no user has the email"))
    }

    @Test func separatorsAndBidiControlsPrintAsEscapes() async throws {
        let shelf = try ShelfProcess()
        defer { shelf.cleanUp() }
        _ = try await shelf.run([
            "users", "add", "--db", shelf.databasePath, "--name", "Ann", "--email", "ann@example.com",
        ])
        let title = "a\u{2028}b\u{2029}c\u{202E}d\u{85}e"
        let added = try await shelf.run([
            "items", "add", "--db", shelf.databasePath, "--user", "ann@example.com", "--title", title,
        ])
        #expect(added.status == 0, "\(added.error)")
        let watch = try RunningShelf(["watch", "items", "--db", shelf.databasePath, "--limit", "1"])
        let lines = await watch.waitForLines(1)
        try #require(lines.count == 1)
        // The line holds no character a terminal or a line-splitting reader would act on, and
        // reads back as the stored title.
        #expect(lines[0].contains("a\\u2028b\\u2029c\\u202ed\\u0085e"), "\(lines[0].debugDescription)")
        #expect(!lines[0].unicodeScalars.contains { [0x2028, 0x2029, 0x202E, 0x85].contains($0.value) })
        #expect(try WatchLine(lines[0]).items.map(\.title) == [title])
    }

    /// Hostile round 4: a title that is not UTF-8 (written by `sqlite3`) was printed with
    /// U+FFFD, where `list` and `export` refuse it naming the row. Now `watch` says so on
    /// stderr, prints no line for that window, and goes on once the row is corrected.
    @Test func aTitleThatIsNotUTF8IsNamedNotPrintedRepaired() async throws {
        let shelf = try ShelfProcess()
        defer { shelf.cleanUp() }
        _ = try await shelf.run([
            "users", "add", "--db", shelf.databasePath, "--name", "Ann", "--email", "ann@example.com",
        ])
        _ = try await shelf.run([
            "items", "add", "--db", shelf.databasePath, "--user", "ann@example.com", "--title", "fine",
        ])
        try await ChildProcess.sqlite3(
            shelf.databasePath, "UPDATE items SET title = CAST(x'6162ff63' AS TEXT) WHERE id = 1")
        let errors = shelf.folder.appendingPathComponent("watch.err").path
        let watch = try RunningShelf(["watch", "items", "--db", shelf.databasePath], stderr: errors)
        // The error comes first, then nothing until the row is corrected.
        var said = ""
        for _ in 0..<600 where !said.contains("watch goes on") {
            try await Task.sleep(for: .milliseconds(100))
            said = (try? String(contentsOfFile: errors, encoding: .utf8)) ?? ""
        }
        #expect(said.contains("item 1") || said.contains("id = 1"), "\(said)")
        #expect(said.contains("title"), "\(said)")
        #expect(await watch.waitForLines(1, timeout: .milliseconds(300)).isEmpty)
        try await ChildProcess.sqlite3(shelf.databasePath, "UPDATE items SET title = 'abc' WHERE id = 1")
        let lines = await watch.waitForLines(1)
        try #require(lines.count == 1)
        #expect(try WatchLine(lines[0]).items.map(\.title) == ["abc"])
        #expect(!lines.joined().contains("\u{FFFD}"))
    }

    @Test func demoDatabaseNeedsNoSetup() async throws {
        let shelf = try ShelfProcess()
        defer { shelf.cleanUp() }
        let watch = try RunningShelf(
            ["watch", "items", "--demo", "--limit", "3"], environment: ["HOME": shelf.folder.path])
        let lines = await watch.waitForLines(1, timeout: .seconds(180))
        try #require(lines.count == 1)
        let line = try WatchLine(lines[0])
        #expect(line.count == 20_000)
        #expect(line.items.count == 3)
    }

    @Test func ctrlCEndsWatchAndKeepsTheDemoDatabaseForNextTime() async throws {
        let shelf = try ShelfProcess()
        defer { shelf.cleanUp() }
        let demo = shelf.folder.appendingPathComponent(".local/share/shelf/demo.sqlite").path
        let first = try RunningShelf(["watch", "items", "--demo"], environment: ["HOME": shelf.folder.path])
        try #require(await first.waitForLines(1, timeout: .seconds(180)).count == 1)
        #expect(first.interrupt() == 130, "exits like a process ended by SIGINT")
        #expect(FileManager.default.fileExists(atPath: demo))
        // The second run opens the same database instead of filling a new one.
        let second = try RunningShelf(["watch", "items", "--demo"], environment: ["HOME": shelf.folder.path])
        let lines = await second.waitForLines(1, timeout: .seconds(10))
        try #require(lines.count == 1)
        #expect(try WatchLine(lines[0]).count == 20_000)
        #expect(second.interrupt() == 130)
    }
}
