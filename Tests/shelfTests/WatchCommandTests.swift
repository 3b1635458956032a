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
