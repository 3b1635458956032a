import Foundation
import ShelfReactive
import ShelfTestSupport
import Testing

@testable import ShelfSQLiteBackend
@testable import ShelfStore

/// Hostile round 13, finding 2: live windows of `shelf serve` stayed wrong for good (rows
/// missing, counts off by dozens) after another program wrote times as text and then
/// corrected them. The change log's images read the text '2026-11-28T05:53:43.865Z' as the
/// integer 2026 (SQLite's conversion), so windows were judged by a time the row did not hold.
@Suite("Live windows and a time written as text")
struct LiveMistypedTimeTests {
    @Test func aWindowWithATimeWrittenAsTextIsWhatAFreshReadGivesBeforeAndAfterItsFix() async throws {
        let fixture = try await Fixture()
        let path = try #require(fixture.store.path)
        for index in 0..<3 {
            _ = try await fixture.store.items.insert(NewItem(userID: fixture.ann, title: "item \(index)"))
        }
        let live = try await fixture.store.liveItems(matching: ItemQuery(), limit: 2)
        let recorder = LiveRecorder(live)
        #expect(await eventually { (try? recorder.last?.get())?.totalCount == 3 })
        let shell = try SQLiteShell(path: path)
        defer { shell.finish() }

        // Text sorts after every integer in SQLite: newest first, the row comes first in a
        // fresh read; the live window must show what the fresh read does.
        try await shell.run(
            "INSERT INTO items (user_id, title, created_at, updated_at) VALUES (\(fixture.ann.rawValue), 'text time', "
                + "'2026-11-28T05:53:43.865Z', '2026-11-28T05:53:43.865Z');")
        let freshWithText = try await fixture.store.items.items(matching: ItemQuery(), limit: 2)
        #expect(freshWithText.first?.title == "text time")
        let shown = await eventually(timeout: .seconds(60)) {
            guard let window = try? recorder.last?.get() else { return false }
            return window.totalCount == 4 && window.items == freshWithText
        }
        #expect(
            shown,
            "\((try? recorder.last?.get()).map { "\($0.items.map(\.title))" } ?? "?") against \(freshWithText.map(\.title))"
        )

        // Corrected: the window follows, as a fresh read gives it.
        try await shell.run(
            "UPDATE items SET created_at = 4102444800000, updated_at = 4102444800000 WHERE typeof(created_at) = 'text';"
        )
        let fresh = try await fixture.store.items.items(matching: ItemQuery(), limit: 2)
        let followed = await eventually(timeout: .seconds(60)) {
            guard let window = try? recorder.last?.get() else { return false }
            return window.totalCount == 4 && window.items == fresh
        }
        #expect(followed, "\((try? recorder.last?.get()).map { "\($0)" } ?? "?") against \(fresh.map(\.title))")
    }
}
