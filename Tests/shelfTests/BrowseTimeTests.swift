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
        #expect(first.contains { $0.contains("Aging") && $0.contains("just now") }, "\(first)")
        // No key is pressed: the time moves on by itself.
        let later = try await tmux.waitFor(timeout: .seconds(120)) {
            $0.contains { $0.contains("Aging") && $0.contains("1m ago") }
        }
        #expect(later.contains { $0.contains("Aging") && $0.contains("1m ago") }, "\(later.joined(separator: "\n"))")
        try tmux.type("q")
        try await tmux.waitFor("[exit 0]")
    }
}
