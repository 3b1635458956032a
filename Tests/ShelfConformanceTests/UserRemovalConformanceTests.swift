import Foundation
import ShelfStore
import Synchronization
import Testing

/// A user's removal counts the items that went with them exactly (issue 24), on every backend.
@Suite("Conformance: a user's removal")
struct UserRemovalConformanceTests {
    /// `delete(id:)` returns how many items went with the user; a refused delete (another
    /// user, a stale read) removes and counts nothing.
    @Test(arguments: Backend.available)
    func removingAUserReturnsTheItemsThatWentWithThem(_ backend: Backend) async throws {
        try await backend.withStore { (store: Store) async throws in
            let ann = try await store.users.insert(NewUser(name: "Ann", email: "ann@example.com"))
            let bob = try await store.users.insert(NewUser(name: "Bob", email: "bob@example.com"))
            for title in ["A", "B", "C"] { try await store.items.insert(NewItem(userID: ann, title: title)) }
            try await store.items.insert(NewItem(userID: bob, title: "Bob's"))
            let read = try #require(try await store.users.user(id: ann))
            var renamed = read
            renamed.name = "Annie"
            try await store.users.update(renamed)
            let stale = await #expect(throws: StoreError.self) {
                try await store.users.delete(id: ann, expecting: read)
            }
            #expect(stale?.code == .conflict)
            #expect(try await store.items.count(matching: ItemQuery(owner: ann)) == 3, "a refused delete keeps them")
            #expect(try await store.users.delete(id: ann, expecting: renamed) == 3)
            #expect(try await store.items.count(matching: ItemQuery()) == 1, "Bob's item stays")
            let missing = await #expect(throws: StoreError.self) { try await store.users.delete(id: ann) }
            #expect(missing?.code == .notFound)
            let cy = try await store.users.insert(NewUser(name: "Cy", email: "cy@example.com"))
            #expect(try await store.users.delete(id: cy) == 0)
        }
    }

    /// Writers keep adding items to a user while the user is removed: the count the removal
    /// returns is exactly the items that went. Every item whose insert succeeded went (none is
    /// left afterwards, and an insert after the removal fails), so they are the items made
    /// before plus the inserts that succeeded; nothing here depends on timing.
    @Test(arguments: Backend.available)
    func aRemovalCountsTheItemsWritersAddedDuringIt(_ backend: Backend) async throws {
        try await backend.withStore { (store: Store) async throws in
            let ann = try await store.users.insert(NewUser(name: "Ann", email: "ann@example.com"))
            let other = try await store.users.insert(NewUser(name: "Bob", email: "bob@example.com"))
            try await store.items.insert(contentsOf: (0..<50).map { NewItem(userID: ann, title: "Before \($0)") })
            try await store.items.insert(NewItem(userID: other, title: "Bob's"))
            let added = Counter()
            let writersStarted = Counter()
            let removed = try await withThrowingTaskGroup(of: Int?.self) { group in
                for writer in 0..<4 {
                    group.addTask {
                        // Bounded: at most 400 items each, ending at the first refusal (the user
                        // is gone).
                        for number in 0..<400 {
                            do {
                                try await store.items.insert(NewItem(userID: ann, title: "Writer \(writer) #\(number)"))
                                added.add(1)
                                if number == 0 { writersStarted.add(1) }
                            } catch let error as StoreError where error.code == .unknownUser {
                                return nil
                            }
                        }
                        return nil
                    }
                }
                group.addTask {
                    // Wait (bounded) until every writer has written, so the removal meets them.
                    for _ in 0..<2_000 where writersStarted.value < 4 { try await Task.sleep(for: .milliseconds(5)) }
                    return try await store.users.delete(id: ann)
                }
                var removed: Int?
                for try await result in group { if let result { removed = result } }
                return try #require(removed)
            }
            #expect(removed == 50 + added.value, "the removal counted \(removed), \(50 + added.value) items went")
            #expect(try await store.items.count(matching: ItemQuery(owner: ann)) == 0)
            #expect(try await store.items.count(matching: ItemQuery()) == 1, "Bob's item stays")
        }
    }
}

/// A count shared by the writer tasks.
private final class Counter: Sendable {
    private let storage = Mutex(0)
    var value: Int { storage.withLock { $0 } }
    func add(_ amount: Int) { storage.withLock { $0 += amount } }
}
