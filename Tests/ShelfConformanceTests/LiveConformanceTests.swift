import Foundation
import ShelfReactive
import ShelfStore
import Synchronization
import Testing

/// Live values on every backend: commits seen, equal results not published, and a query
/// re-run only when a commit changed a table it reads.
@Suite("Conformance: live values")
struct LiveConformanceTests {
    /// The values a property published, in order.
    final class Recorder<Value: Sendable>: Sendable {
        private let values = Mutex<[Value]>([])
        let lifetime = Lifetime.Token()

        init(_ property: Property<Value>) {
            property.observe(during: lifetime.lifetime) { [weak self] value in
                self?.values.withLock { $0.append(value) }
            }
        }

        var all: [Value] { values.withLock { $0 } }
    }

    @Test(arguments: Backend.available)
    func aCommitReachesTheWindowAndTheCount(_ backend: Backend) async throws {
        try await backend.withStore { (store: Store) async throws in
            let ann = try await store.users.insert(NewUser(name: "Ann", email: "ann@example.com"))
            let live = try await store.liveItems(matching: ItemQuery(), limit: 50)
            #expect(live.value.success == ItemWindow(items: [], totalCount: 0))
            let id = try await store.items.insert(NewItem(userID: ann, title: "Seen"))
            #expect(await eventually { live.value.success?.items.map(\.id) == [id] })
            #expect(live.value.success?.totalCount == 1)
            let item = try await store.liveItem(id: id)
            #expect(item.value.success??.title == "Seen")
            try await store.items.delete(id: id)
            #expect(await eventually { item.value.success == .some(nil) })
            #expect(await eventually { live.value.success?.totalCount == 0 })
        }
    }

    /// Re-run counts: a commit to a table the query does not read runs it 0 times, a rolled
    /// back one 0 times, 1,000 inserts in one transaction once. Each step ends with a commit
    /// the query does read and waits for it: changes are handled in commit order, so by then
    /// the step before has been handled too.
    @Test(arguments: Backend.available)
    func queriesRunOnlyForCommitsToTheirTables(_ backend: Backend) async throws {
        try await backend.withStore { (store: Store) async throws in
            let ann = try await store.users.insert(NewUser(name: "Ann", email: "ann@example.com"))
            let users = try await store.liveUsers()
            let recorder = Recorder(users)
            #expect(await eventually { recorder.all.count == 1 })
            var marks = 0
            var userCount = 1
            func mark() async throws -> Int {
                marks += 1
                userCount += 1
                let before = store.liveQueryRuns
                try await store.users.insert(NewUser(name: "Mark \(marks)", email: "mark\(marks)@example.com"))
                let expected = userCount
                #expect(await eventually { users.value.success?.count == expected })
                return store.liveQueryRuns - before
            }
            #expect(try await mark() == 1, "one run for one commit")

            // Items only: the users query does not read them.
            try await store.items.insert(NewItem(userID: ann, title: "Unrelated"))
            #expect(try await mark() == 1, "no run for a commit to items")

            // A transaction that fails and rolls back.
            await #expect(throws: StoreError.self) {
                try await store.users.insert(contentsOf: [
                    NewUser(name: "Kept?", email: "rolled@example.com"), NewUser(name: "Dup", email: "ANN@example.com"),
                ])
            }
            #expect(try await mark() == 1, "no run for a rollback")

            // 1,000 rows in one transaction: one run.
            let items = try await store.liveItems(matching: ItemQuery(), limit: 10)
            let itemRuns = store.liveQueryRuns
            let thousand = (1...1000).map { NewUser(name: "Bulk \($0)", email: "bulk\($0)@example.com") }
            try await store.users.insert(contentsOf: thousand)
            userCount += 1000
            let expected = userCount
            #expect(await eventually { users.value.success?.count == expected })
            #expect(try await mark() == 1)
            #expect(store.liveQueryRuns - itemRuns == 2, "1,000 inserts in one transaction ran the users query once")
            _ = items
            // Equal results are never published twice.
            let published = recorder.all.compactMap(\.success)
            #expect(zip(published, published.dropFirst()).allSatisfy { $0 != $1 })
        }
    }

    @Test(arguments: Backend.available)
    func anEqualResultIsNotPublished(_ backend: Backend) async throws {
        try await backend.withStore { (store: Store) async throws in
            let ann = try await store.users.insert(NewUser(name: "Ann", email: "ann@example.com"))
            let open = try await store.liveItems(matching: ItemQuery(status: .open), limit: 10)
            let recorder = Recorder(open)
            #expect(await eventually { recorder.all.count == 1 })
            // A done item changes the items table, not the open items' window.
            try await store.items.insert(NewItem(userID: ann, title: "Done", status: .done))
            let id = try await store.items.insert(NewItem(userID: ann, title: "Open"))
            #expect(await eventually { open.value.success?.items.map(\.id) == [id] })
            #expect(recorder.all.count == 2, "the window did not change for the done item")
        }
    }

    @Test(arguments: Backend.available)
    func userSummariesFollowItems(_ backend: Backend) async throws {
        try await backend.withStore { (store: Store) async throws in
            let ann = try await store.users.insert(NewUser(name: "Ann", email: "ann@example.com"))
            let summaries = try await store.liveUserSummaries()
            #expect(summaries.value.success?.first?.itemCount == 0)
            try await store.items.insert(contentsOf: [
                NewItem(userID: ann, title: "A"), NewItem(userID: ann, title: "B", status: .done),
            ])
            #expect(await eventually { summaries.value.success?.first?.itemCount == 2 })
            #expect(summaries.value.success?.first?.openCount == 1)
        }
    }
}
