import Foundation
import ShelfReactive
import ShelfSQLite
import ShelfTestSupport
import Testing

@testable import ShelfSQLiteBackend
@testable import ShelfStore

@Suite("Live queries come and go under load")
struct LiveStressTests {
    /// Live queries created and dropped on several threads while another thread commits in a
    /// loop: the change tracker's passes meet queries whose last reference goes away at any
    /// moment. Once crashed with "Recursive call to lock Mutex" (a query released inside the
    /// tracker's lock); passes as long as nothing crashes, deadlocks or leaks a query.
    @Test func thousandsOfLiveQueriesComeAndGoWhileCommitsStream() async throws {
        let fixture = try await Fixture()
        let store = fixture.store
        let ann = fixture.ann
        let writing = Task.detached {
            for index in 0..<300 {
                try await store.items.insert(NewItem(userID: ann, title: "stream \(index)"))
            }
        }
        let created = Locked(0)
        await withTaskGroup(of: Void.self) { group in
            for worker in 0..<4 {
                group.addTask {
                    for round in 0..<750 {
                        let query = ItemQuery(text: round % 3 == 0 ? "stream" : "")
                        guard let live = try? await store.liveItems(matching: query, limit: 5 + worker) else {
                            continue
                        }
                        created.withLock { $0 += 1 }
                        if round % 2 == 0 {
                            // Observed, then the observation ends on its own thread.
                            let token = Lifetime.Token()
                            live.observe(during: token.lifetime) { _ in }
                            if round % 4 == 0 { await Task.yield() }
                            token.end()
                        }
                    }
                }
            }
        }
        try await writing.value
        #expect(created.value == 3_000)
        #expect(try await store.items.count(matching: ItemQuery()) == 300)
        // Every query is gone: only the last one made is left, and it still works.
        let final = try fixture.sqlite.makeLiveItems(matching: ItemQuery(), after: nil, limit: 1)
        _ = try await store.items.insert(NewItem(userID: ann, title: "last"))
        #expect(await eventually { final.window.items.first?.title == "last" })
        #expect(
            await eventually { fixture.sqlite.database.changeTracker.registeredCount == 1 },
            "no query outlived its owner")
    }
}
