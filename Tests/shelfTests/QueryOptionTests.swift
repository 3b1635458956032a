import Foundation
import ShelfTestSupport
import Testing

/// `--query` in the query language, on `items list`, `export` and `watch`, through the real
/// binary.
@Suite("shelf --query (end to end)")
struct QueryOptionTests {
    /// A database with two owners and items that tell the query's terms apart.
    static func makeShelf() async throws -> ShelfProcess {
        let shelf = try ShelfProcess()
        let db = shelf.databasePath
        _ = try await shelf.run(["users", "add", "--db", db, "--name", "Ada Lovelace", "--email", "ada@example.com"])
        _ = try await shelf.run(["users", "add", "--db", db, "--name", "Bob", "--email", "bob@example.com"])
        for (user, title, priority, status) in [
            ("ada", "Moth trap", "2", "open"), ("ada", "Moth ball", "0", "done"),
            ("bob", "Brown moth trap", "3", "open"),
            ("bob", "Lamp", "2", "open"), ("ada", "trap moth", "1", "open"),
        ] {
            let added = try await shelf.run([
                "items", "add", "--db", db, "--user", "\(user)@example.com", "--title", title, "--priority", priority,
                "--status", status,
            ])
            #expect(added.status == 0, "\(added.error)")
        }
        return shelf
    }

    /// The titles of `items list`'s tab-separated lines.
    static func titles(_ output: String) -> [String] {
        output.split(separator: "\n").map { line in
            let fields = line.split(separator: "\t", omittingEmptySubsequences: false)
            return fields.count > 4 ? String(fields[4]) : String(line)
        }
    }

    @Test func listTakesWordsPhrasesAndExclusions() async throws {
        let shelf = try await Self.makeShelf()
        defer { shelf.cleanUp() }
        let db = shelf.databasePath
        for (query, want) in [
            ("mot", ["Moth trap", "Moth ball", "Brown moth trap", "trap moth"]),
            (#""moth trap""#, ["Moth trap", "Brown moth trap"]),
            ("moth -trap", ["Moth ball"]),
            (#"trap -"brown moth""#, ["Moth trap", "trap moth"]),
        ] {
            let result = try await shelf.run(["items", "list", "--db", db, "--query", query])
            #expect(result.status == 0, "\(query): \(result.error)")
            #expect(Self.titles(result.output) == want, "\(query)")
        }
    }

    @Test func listAppliesFiltersOfTheQueryAndTheFlagsTogether() async throws {
        let shelf = try await Self.makeShelf()
        defer { shelf.cleanUp() }
        let db = shelf.databasePath
        let result = try await shelf.run([
            "items", "list", "--db", db, "--query", "moth prio:>=1 @ada", "--status", "open",
        ])
        #expect(result.status == 0, "\(result.error)")
        #expect(Self.titles(result.output) == ["Moth trap", "trap moth"])
    }

    @Test func exportTakesTheQuery() async throws {
        let shelf = try await Self.makeShelf()
        defer { shelf.cleanUp() }
        let output = shelf.folder.appendingPathComponent("items.json").path
        let result = try await shelf.run([
            "export", "items", "--db", shelf.databasePath, "--query", #""moth trap" -brown"#, "--format", "json",
            "-o", output,
        ])
        #expect(result.status == 0, "\(result.error)")
        let data = try Data(contentsOf: URL(fileURLWithPath: output))
        let items = try #require(try JSONSerialization.jsonObject(with: data) as? [[String: Any]])
        #expect(items.compactMap { $0["title"] as? String } == ["Moth trap"])
    }

    @Test func watchTakesEveryTermOfTheQuery() async throws {
        let shelf = try await Self.makeShelf()
        defer { shelf.cleanUp() }
        let watch = try RunningShelf([
            "watch", "items", "--db", shelf.databasePath, "--query", "moth prio:>=1 @ada is:open created:<1d",
        ])
        let lines = await watch.waitForLines(1)
        try #require(lines.count == 1, "no first line from shelf watch")
        let line = try WatchLine(lines[0])
        #expect(line.count == 2)
        #expect(Set(line.items.map(\.title)) == ["Moth trap", "trap moth"])
        #expect(watch.interrupt() == 130)
    }

    /// A pasted phrase of 10,000 words ran for 7.5 s (467 MB); now it is refused at once,
    /// saying how many words it has, and quoting only its start.
    @Test func aQueryOfThousandsOfWordsIsRefusedSayingHowManyItHas() async throws {
        let shelf = try await Self.makeShelf()
        defer { shelf.cleanUp() }
        for count in [10_000, 20_000] {
            let phrase = "\"" + Array(repeating: "the", count: count).joined(separator: " ") + "\""
            let result = try await shelf.run(["items", "list", "--db", shelf.databasePath, "--query=" + phrase])
            #expect(result.status == 2, "\(result.error)")
            #expect(
                result.error.contains(
                    "' refused: column 1: the query has \(count) words; at most 64 can be searched: shorten it"),
                "\(result.error.prefix(300))")
            #expect(result.error.utf8.count < 600, "\(result.error.prefix(300))")
            #expect(result.output.isEmpty)
        }
    }

    @Test(arguments: [
        (["items", "list"], "prio:9", "--query 'prio:9' refused: column 1: prio: wants 0…3 or a comparison like >=2"),
        (["export", "items"], "moth @", "--query 'moth @' refused: column 6: @ wants the start of an owner"),
        (["watch", "items"], "is:later", "--query 'is:later' refused: column 1: is: wants open or done"),
        (["items", "list"], "it's created:soon", #"--query 'it'\''s created:soon' refused: column 6: created: wants"#),
    ])
    func aQueryWithAProblemIsAUsageErrorNamingTheColumn(command: [String], query: String, message: String)
        async throws
    {
        let shelf = try await Self.makeShelf()
        defer { shelf.cleanUp() }
        let result = try await shelf.run(command + ["--db", shelf.databasePath, "--query", query])
        #expect(result.status == 2, "\(command) \(result.error)")
        #expect(result.error.contains(message), "\(result.error)")
        #expect(result.output.isEmpty)
    }
}
