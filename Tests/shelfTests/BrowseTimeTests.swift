import Foundation
import ShelfTestSupport
import Testing

/// The browser's relative times through the real binary in tmux.
@Suite("shelf browse: times")
struct BrowseTimeTests {
    @Test func relativeTimesChangeAsTimePasses() async throws {
        let shelf = try ShelfProcess()
        defer { shelf.cleanUp() }
        let db = shelf.databasePath
        #expect(
            try await shelf.run(["users", "add", "--db", db, "--name", "Ada", "--email", "ada@example.com"]).status == 0
        )
        // Updated 30 seconds ago: "just now" for thirty seconds more (room for a slow start
        // under load), then "1m ago".
        let updated = Int64((Date().timeIntervalSince1970 - 30) * 1000)
        try await ChildProcess.sqlite3(
            db,
            "INSERT INTO items (user_id, title, status, priority, created_at, updated_at) "
                + "VALUES (1, 'Aging', 'open', 0, \(updated), \(updated));")
        let tmux = try TmuxSession(
            ShelfProcess.executable.path + " browse --db " + TmuxSession.quote(db), width: 100, height: 10,
            environment: ["HOME": shelf.folder.path])
        let first = try await tmux.waitFor("Aging")
        let row = try #require(first.first { $0.contains("Aging") })
        // Under load the browser may start after the minute has passed: then its first label is
        // "1m ago" and the next one "2m ago".
        let next: String
        if row.contains("just now") {
            next = "1m ago"
        } else if let minutes = (1...3).first(where: { row.contains("\($0)m ago") }) {
            next = "\(minutes + 1)m ago"
        } else {
            Issue.record("the first label is neither 'just now' nor '1m ago' to '3m ago': \(row)")
            return
        }
        // No key is pressed: the time moves on by itself.
        let later = try await tmux.waitFor(timeout: .seconds(150)) {
            $0.contains { $0.contains("Aging") && $0.contains(next) }
        }
        #expect(later.contains { $0.contains("Aging") && $0.contains(next) }, "\(later.joined(separator: "\n"))")
        try tmux.type("q")
        try await tmux.waitFor("[exit 0]")
    }
}
